"""``spawn`` / ``start_processes``: run ``fn(i, *args)`` in ``nprocs`` processes, as
torch.multiprocessing's (an exception in a child is raised in the parent, with the child's
traceback)."""
import multiprocessing
import signal
import traceback
import warnings

__all__ = ["spawn", "start_processes", "ProcessContext", "ProcessRaisedException",
           "ProcessExitedException"]


class ProcessException(Exception):
    def __init__(self, msg, error_index, pid):
        super().__init__(msg)
        self.msg = msg
        self.error_index = error_index
        self.pid = pid

    def __reduce__(self):
        return type(self), (self.msg, self.error_index, self.pid)


class ProcessRaisedException(ProcessException):
    """A child process raised: the message holds its traceback."""


class ProcessExitedException(ProcessException):
    """A child process exited with a nonzero code (or was killed by a signal)."""

    def __init__(self, msg, error_index, error_pid, exit_code, signal_name=None):
        super().__init__(msg, error_index, error_pid)
        self.exit_code = exit_code
        self.signal_name = signal_name

    def __reduce__(self):
        return (type(self), (self.msg, self.error_index, self.pid, self.exit_code,
                             self.signal_name))


def _wrap(fn, i, args, error_queue):
    try:
        fn(i, *args)
    except KeyboardInterrupt:
        pass
    except Exception:
        error_queue.put(traceback.format_exc())
        raise SystemExit(1)


class ProcessContext:
    """The processes ``start_processes`` started; ``join`` waits for them."""

    def __init__(self, processes, error_queues):
        self.processes = processes
        self.error_queues = error_queues

    def pids(self):
        return [int(process.pid) for process in self.processes]

    def join(self, timeout=None):
        """Wait for the processes; True when all have exited with 0. A failure terminates
        the others and raises ProcessRaisedException / ProcessExitedException."""
        for index, process in enumerate(self.processes):
            process.join(timeout)
            if process.exitcode is None:
                return False
            if process.exitcode != 0:
                for other in self.processes:
                    if other.is_alive():
                        other.terminate()
                    other.join()
                self._raise(index, process)
        return True

    def _raise(self, index, process):
        if self.error_queues[index].empty():
            code = process.exitcode
            if code < 0:
                name = signal.Signals(-code).name
                raise ProcessExitedException(
                    f"process {index} terminated with signal {name}", index, process.pid,
                    code, name)
            raise ProcessExitedException(
                f"process {index} terminated with exit code {code}", index, process.pid, code)
        message = (f"\n\n-- Process {index} terminated with the following error:\n"
                   + self.error_queues[index].get())
        raise ProcessRaisedException(message, index, process.pid)


def start_processes(fn, args=(), nprocs=1, join=True, daemon=False, start_method="spawn"):
    """Start ``nprocs`` processes (``start_method``) running ``fn(i, *args)``; with
    ``join``, wait for them (None), else return their ProcessContext."""
    context = multiprocessing.get_context(start_method)
    processes, error_queues = [], []
    for i in range(nprocs):
        error_queue = context.SimpleQueue()
        process = context.Process(target=_wrap, args=(fn, i, args, error_queue),
                                  daemon=daemon)
        process.start()
        processes.append(process)
        error_queues.append(error_queue)
    process_context = ProcessContext(processes, error_queues)
    if not join:
        return process_context
    while not process_context.join():
        pass
    return None


def spawn(fn, args=(), nprocs=1, join=True, daemon=False, start_method="spawn"):
    """``start_processes`` with the ``spawn`` start method: another one warns and is not
    used, as in torch."""
    if start_method != "spawn":
        warnings.warn(f"This method only supports start_method=spawn (got: {start_method}).\n"
                      "To use a different start_method use:\n\t\t "
                      "torch.multiprocessing.start_processes(...)", FutureWarning, stacklevel=2)
    return start_processes(fn, args, nprocs, join, daemon, start_method="spawn")
