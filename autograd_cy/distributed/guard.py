"""``python -m autograd_cy.distributed.guard PROGRAM [args]``: run one rank's program as a
child process and outlive it by a moment if it is killed, so that the other ranks see it
gone and say which rank died before ``mpiexec`` ends them all (NOTE [When a rank fails]).
It also sets torchrun's variables (RANK, WORLD_SIZE, LOCAL_RANK, LOCAL_WORLD_SIZE) from
MPI's. The run helper starts every rank through it; nothing else needs it."""
import ctypes
import os
import signal
import sys
import time

#: how long (seconds) a killed rank's guard stays, for the others to notice and report
GRACE = 30.0
PR_SET_PDEATHSIG = 1


def _die_with_parent():
    """In the child: be killed if the guard is (no rank left running on its own)."""
    try:
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    except (OSError, AttributeError):
        pass


def torchrun_environment(environ):
    """The variables torchrun sets for each rank (RANK, WORLD_SIZE, LOCAL_RANK,
    LOCAL_WORLD_SIZE), from MPI's launcher's, so that a script that reads them runs
    unchanged; those already set are kept."""
    rank = environ.get("PMI_RANK", environ.get("OMPI_COMM_WORLD_RANK"))
    size = environ.get("PMI_SIZE", environ.get("OMPI_COMM_WORLD_SIZE"))
    local_rank = environ.get("MPI_LOCALRANKID", environ.get("OMPI_COMM_WORLD_LOCAL_RANK"))
    local_size = environ.get("MPI_LOCALNRANKS", environ.get("OMPI_COMM_WORLD_LOCAL_SIZE"))
    found = {"RANK": rank, "WORLD_SIZE": size, "LOCAL_RANK": local_rank,
             "LOCAL_WORLD_SIZE": local_size}
    return {name: value for name, value in found.items()
            if value is not None and name not in environ}


def main(argv):
    os.environ.update(torchrun_environment(os.environ))
    pid = os.fork()
    if pid == 0:
        _die_with_parent()
        os.execv(sys.executable, [sys.executable] + argv)

    def forward(signum, frame):
        try:
            os.kill(pid, signum)
        except ProcessLookupError:
            os._exit(128 + signum)

    for signum in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(signum, forward)
    while True:
        try:
            _, status = os.waitpid(pid, 0)
            break
        except InterruptedError:
            continue
    if os.WIFSIGNALED(status):
        signum = os.WTERMSIG(status)
        rank = os.environ.get("PMI_RANK", os.environ.get("OMPI_COMM_WORLD_RANK", "?"))
        sys.stderr.write(f"autograd_cy.distributed.run: rank {rank} (process {pid}) was "
                         f"killed by {signal.Signals(signum).name}\n")
        sys.stderr.flush()
        signal.signal(signal.SIGTERM, lambda *_: os._exit(128 + signum))
        time.sleep(GRACE)  # mpiexec ends it sooner, once the others have failed
        os._exit(128 + signum)
    os._exit(os.WEXITSTATUS(status))


if __name__ == "__main__":
    main(sys.argv[1:])
