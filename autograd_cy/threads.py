"""``set_num_threads`` / ``get_num_threads`` and their inter-op twins.

autograd_cy computes every op on the calling thread; only NumPy's BLAS (matmul, conv)
may use threads of its own, as many as it chose at import (``OPENBLAS_NUM_THREADS``). So
these functions record the numbers a script sets and give them back, with torch's checks
and errors; they change no computation. The defaults are the CPUs this process may run on,
as torch's defaults count the cores.
"""
import builtins
import os

__all__ = ["set_num_threads", "get_num_threads", "set_num_interop_threads",
           "get_num_interop_threads"]


def _cpu_count():
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:   # pragma: no cover - platforms without sched_getaffinity
        return os.cpu_count() or 1


_num_threads = _cpu_count()
_num_interop_threads = _cpu_count()
_interop_set = False


def _check_count(function, value):
    if isinstance(value, builtins.bool) or not isinstance(value, builtins.int):
        raise RuntimeError(f"{function} expects an int, but got {type(value).__name__}")
    if value <= 0:
        raise RuntimeError(f"{function} expects a positive integer")


def set_num_threads(int):
    """Record the number of intra-op threads (a positive int); no op reads it."""
    global _num_threads
    _check_count("set_num_threads", int)
    _num_threads = int


def get_num_threads():
    """The number of intra-op threads last set (at first, the CPUs available)."""
    return _num_threads


def set_num_interop_threads(int):
    """Record the number of inter-op threads; as in torch, only once per process."""
    global _num_interop_threads, _interop_set
    _check_count("set_num_interop_threads", int)
    if _interop_set:
        raise RuntimeError("Error: cannot set number of interop threads after parallel work "
                           "has started or set_num_interop_threads called")
    _num_interop_threads, _interop_set = int, True


def get_num_interop_threads():
    """The number of inter-op threads (at first, the CPUs available)."""
    return _num_interop_threads
