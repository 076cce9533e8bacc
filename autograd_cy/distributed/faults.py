"""How a failing rank makes the others fail instead of hang (NOTE [When a rank fails]):
the fault channel beside the collectives, the wait loop every collective goes through, and
the exception hook that tells the other ranks."""
import os
import sys
import time

from autograd_cy.distributed.errors import DistBackendError

__all__ = ["FaultChannel", "PeerFailure"]

# NOTE [When a rank fails]
# MPI has no notion of a failed peer: a collective that a rank never joins simply never
# completes, and MPICH's mpiexec kills every rank, silently, once one process exits. So the
# process group watches for itself, over a communicator of its own (the fault channel, a
# duplicate of the world's, so that its messages never meet a collective's):
# - Every collective is nonblocking underneath and is waited for in ``FaultChannel.wait``:
#   it tests the requests (which is also what makes MPICH progress), reads the fault channel,
#   checks that the other ranks on this machine are still alive, and gives up at the process
#   group's timeout.
# - A rank whose program raises (init_process_group installs the exception hook) sends a
#   NOTICE with its error to every rank and waits, a bounded time, for their ACKs before its
#   process exits. A rank waiting in a collective reads the notice, acknowledges it and raises
#   ``DistBackendError`` naming the failed rank; its own exit does not send a notice again.
# - A rank that dies without raising (killed, ``os._exit``) sends nothing; the ranks on its
#   machine see its process gone (its pid, exchanged at init) and raise naming it. MPICH's
#   mpiexec kills every rank the moment one is killed, though, before they can look; the run
#   helper (``python -m autograd_cy.distributed.run``) starts each rank under a guard process
#   that outlives it by a moment, so that the others see it gone and say so. Under plain
#   ``mpiexec`` the others are killed with it: they fail, without a word of their own.
# - A rank that waits past the timeout PINGs the others and gives, in its error, what each
#   one is doing: waiting in which collective (a mismatch), or not answering at all (stuck
#   outside any collective, or on another machine and gone).

NOTICE, ACK, PING, PONG = 1, 2, 3, 4

#: how long (seconds) between two looks at whether the other ranks' processes are alive
LIVENESS_PERIOD = 0.05
#: how long a failing rank waits for the others to acknowledge its notice, at most
NOTICE_GRACE = 10.0
#: how long a timed-out rank waits for the others to say where they are
PING_GRACE = 1.0


class PeerFailure(DistBackendError):
    """This rank's collective failed because another rank did (``failed_rank``)."""

    def __init__(self, message, failed_rank):
        super().__init__(message)
        self.failed_rank = failed_rank


class FaultChannel:
    """The side channel of the world's ranks: notices of failure, pings and liveness."""

    def __init__(self, MPI, world):
        self.MPI = MPI
        self.comm = world.Dup()
        self.rank = self.comm.Get_rank()
        self.size = self.comm.Get_size()
        self.host = MPI.Get_processor_name()
        #: (pid, host) of every rank, to tell when one on this machine has died
        self.processes = self.comm.allgather((os.getpid(), self.host))
        self.waiting_in = None
        self.failure = None
        self.dead = {}
        self.acks = set()
        self.pongs = {}
        self._sends = []
        self._next_liveness_check = 0.0

    # -- waiting ------------------------------------------------------------------------

    def wait(self, done, what, timeout):
        """Wait until ``done()`` (for MPI: every request of the collective has completed;
        the call is what makes MPICH progress), or raise ``DistBackendError``: another rank
        failed or died, or ``timeout`` seconds passed. ``what`` names the collective in the
        messages."""
        if done():
            return
        self.waiting_in = what
        deadline = time.monotonic() + timeout
        spins = 0
        try:
            while not done():
                now = time.monotonic()
                self.poll(now)
                if now > deadline:
                    raise self._timed_out(what, timeout)
                spins += 1
                if spins > 200:  # spin a little for latency, then leave the core to others
                    time.sleep(min(1e-3, 1e-5 * (spins - 200)))
        finally:
            self.waiting_in = None

    def poll(self, now=None, raise_on_notice=True):
        """Read every message of the fault channel: answer pings, acknowledge notices and
        raise for one (or for a dead process on this machine)."""
        if self.failure is not None and raise_on_notice:
            raise PeerFailure(*self.failure)
        MPI = self.MPI
        status = MPI.Status()
        while self.comm.iprobe(source=MPI.ANY_SOURCE, tag=MPI.ANY_TAG, status=status):
            source, tag = status.Get_source(), status.Get_tag()
            message = self.comm.recv(source=source, tag=tag)
            if tag == NOTICE:
                self._send(source, ACK, None)
                if self.failure is None:
                    self.failure = (f"rank {source} failed: {message}"
                                    f"{self._while_waiting()}", source)
            elif tag == PING:
                self._send(source, PONG, self.waiting_in)
            elif tag == PONG:
                self.pongs[source] = message
            elif tag == ACK:
                self.acks.add(source)
        now = time.monotonic() if now is None else now
        if now >= self._next_liveness_check:
            self._next_liveness_check = now + LIVENESS_PERIOD
            self._look_for_dead_processes()
        if self.failure is not None and raise_on_notice:
            raise PeerFailure(*self.failure)

    def _while_waiting(self):
        return f" (while this rank waited in {self.waiting_in})" if self.waiting_in \
            else ""

    def _look_for_dead_processes(self):
        for rank, (pid, host) in enumerate(self.processes):
            if rank == self.rank or rank in self.dead or host != self.host:
                continue
            if not _process_alive(pid):
                self.dead[rank] = pid
                if self.failure is None:
                    self.failure = (f"rank {rank} died (its process {pid} on {host} is "
                                    f"gone){self._while_waiting()}", rank)

    def _timed_out(self, what, timeout):
        """The error of a collective that did not complete in time, saying what each other
        rank is doing."""
        self.pongs = {}
        peers = [r for r in range(self.size) if r != self.rank and r not in self.dead]
        for rank in peers:
            self._send(rank, PING, None)
        deadline = time.monotonic() + PING_GRACE
        while len(self.pongs) < len(peers) and time.monotonic() < deadline:
            self.poll(raise_on_notice=False)
            time.sleep(1e-3)
        lines = []
        for rank in peers:
            if rank not in self.pongs:
                lines.append(f"rank {rank} did not answer (it is not in a collective: busy, "
                             "stuck or gone)")
            elif self.pongs[rank] is None:
                lines.append(f"rank {rank} is not waiting in a collective")
            else:
                lines.append(f"rank {rank} is waiting in {self.pongs[rank]}")
        return DistBackendError(
            f"Timed out after {timeout:g} s on rank {self.rank} waiting in {what}: "
            + "; ".join(lines))

    # -- failing ------------------------------------------------------------------------

    def tell_others(self, message):
        """Send this rank's failure to every other rank, and wait (a bounded time) until
        each one still alive has acknowledged it."""
        peers = [r for r in range(self.size) if r != self.rank and r not in self.dead]
        for rank in peers:
            self._send(rank, NOTICE, message)
        deadline = time.monotonic() + NOTICE_GRACE
        while time.monotonic() < deadline:
            self.poll(raise_on_notice=False)
            if all(r in self.acks or r in self.dead for r in peers):
                break
            time.sleep(1e-3)

    def _send(self, rank, tag, message):
        self._sends = [r for r in self._sends if not r.Test()]
        self._sends.append(self.comm.isend(message, dest=rank, tag=tag))

    def close(self):
        """Free the channel (destroy_process_group)."""
        self.comm.Free()


def _process_alive(pid):
    """Whether the process ``pid`` runs (a zombie, exited but not yet reaped, does not)."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (FileNotFoundError, ProcessLookupError, IndexError):
        return False
    except OSError:
        return True


def install_exception_hook(channel_of):
    """Make an uncaught exception tell the other ranks before this process exits
    (NOTE [When a rank fails]). ``channel_of()`` gives the live fault channel or None."""
    previous = sys.excepthook

    def tell_others_and_exit(exc_type, exc, tb):
        previous(exc_type, exc, tb)
        channel = channel_of()
        if channel is None:
            return
        if not isinstance(exc, PeerFailure):
            try:
                channel.tell_others(f"{exc_type.__name__}: {exc}")
            except Exception:  # noqa: BLE001 (the process is exiting anyway)
                pass
        sys.stdout.flush()
        sys.stderr.flush()
        # Not MPI_Finalize (at exit): it would wait for ranks that are stuck in a collective.
        os._exit(1)

    sys.excepthook = tell_others_and_exit
    return previous
