"""``python -m autograd_cy.distributed.run --nproc 4 train.py [args]``: start a program on
several processes through ``mpiexec``, as ``mpiexec -n 4 python train.py [args]`` would.

It finds the ``mpiexec`` beside the Python running it (the one the `mpi` extra installs)
or on PATH, adds what each MPI needs (Open MPI, run as root, refuses without
``--allow-run-as-root``; more ranks than cores need ``--oversubscribe``) and passes
``--hostfile`` on for a run across machines. Each rank runs under a guard
(``autograd_cy.distributed.guard``) that outlives a killed rank by a moment, so that the
other ranks can report which one died before mpiexec ends them (NOTE [When a rank fails])."""
import argparse
import os
import shutil
import subprocess
import sys

__all__ = ["mpiexec_command", "main"]


def find_mpiexec():
    """The ``mpiexec`` of this Python's environment, else the one on PATH."""
    beside = os.path.join(os.path.dirname(sys.executable), "mpiexec")
    if os.access(beside, os.X_OK):
        return beside
    found = shutil.which("mpiexec")
    if found is None:
        raise SystemExit("autograd_cy.distributed.run: no mpiexec found; install an MPI "
                         "(pip install 'autograd_cy[mpi]')")
    return found


def mpiexec_command(nproc, program, hostfile=None, mpiexec=None):
    """The command that starts ``program`` (a list: the script and its arguments) on
    ``nproc`` ranks."""
    mpiexec = mpiexec or find_mpiexec()
    version = subprocess.run([mpiexec, "--version"], capture_output=True, text=True).stdout
    command = [mpiexec, "-n", str(nproc)]
    if "Open MPI" in version or "OpenRTE" in version:
        command += ["--oversubscribe"]
        if hasattr(os, "geteuid") and os.geteuid() == 0:
            command += ["--allow-run-as-root"]
        if hostfile:
            command += ["--hostfile", hostfile]
    elif hostfile:  # MPICH's Hydra
        command += ["-f", hostfile]
    return command + [sys.executable, "-m", "autograd_cy.distributed.guard"] + list(program)


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="python -m autograd_cy.distributed.run",
        description="Run a program on several processes through mpiexec.")
    parser.add_argument("--nproc", "--nproc-per-node", "--nproc_per_node", type=int,
                        default=1, help="how many ranks to start")
    parser.add_argument("--hostfile", default=None,
                        help="the machines to run on (MPI's hostfile format)")
    parser.add_argument("program", nargs=argparse.REMAINDER,
                        help="the script (or -m module) and its arguments")
    args = parser.parse_args(argv)
    if not args.program:
        parser.error("the program to run is missing")
    command = mpiexec_command(args.nproc, args.program, args.hostfile)
    return subprocess.call(command)


if __name__ == "__main__":
    sys.exit(main())
