"""Autocast's thread-local state: per device type, whether it is enabled and its dtype; the
cache switch, the nesting count and the cast cache (torch's ``is_autocast_enabled``,
``get_autocast_dtype``, ``autocast_increment_nesting`` ... under their torch names).

Turning autocast on in a thread for the first time puts the casting wrappers in place of the
ops (autograd_cy/amp/casting.py); when no thread has it on any more, the originals go back.
"""
import threading
import warnings

from autograd_cy import dtypes as _dtypes

__all__ = [
    "is_autocast_enabled", "set_autocast_enabled", "get_autocast_dtype", "set_autocast_dtype",
    "is_autocast_cache_enabled", "set_autocast_cache_enabled", "clear_autocast_cache",
    "autocast_increment_nesting", "autocast_decrement_nesting",
    "is_autocast_cpu_enabled", "set_autocast_cpu_enabled", "get_autocast_cpu_dtype",
    "set_autocast_cpu_dtype", "get_autocast_gpu_dtype", "set_autocast_gpu_dtype",
]

DEFAULT_DTYPES = {"cpu": _dtypes.bfloat16, "cuda": _dtypes.float16}
_OTHER_DEVICE_DTYPES = {"xpu": _dtypes.float16, "mps": _dtypes.float16}


class _State(threading.local):
    """One thread's autocast state (a new thread starts with autocast off, as in torch)."""

    def __init__(self):
        self.enabled = {}                 # device type -> True, for those enabled
        self.dtypes = dict(DEFAULT_DTYPES)
        self.cache_enabled = True
        self.nesting = 0
        self.cache = {}                   # id(leaf) -> (leaf, its cast), NOTE [The cast cache]
        self.inside = False               # running an op autocast has cast the inputs of


state = _State()
_lock = threading.Lock()
_threads_enabled = 0                      # threads with autocast on for some device type


def _device_type(device_type):
    return getattr(device_type, "type", device_type)


def is_autocast_enabled(device_type="cuda"):
    """Whether autocast is on for ``device_type`` in this thread (no argument: "cuda")."""
    return _device_type(device_type) in state.enabled


def set_autocast_enabled(device_type, enabled=None):
    """``set_autocast_enabled(device_type, enabled)`` (or ``set_autocast_enabled(enabled)``
    for "cuda")."""
    global _threads_enabled
    if enabled is None:
        device_type, enabled = "cuda", device_type
    was_on = bool(state.enabled)
    if enabled:
        state.enabled[_device_type(device_type)] = True
    else:
        state.enabled.pop(_device_type(device_type), None)
    if was_on != bool(state.enabled):
        from autograd_cy.amp import casting
        with _lock:
            _threads_enabled += 1 if state.enabled else -1
            if _threads_enabled == (1 if state.enabled else 0):
                casting.install() if state.enabled else casting.uninstall()


_DEVICE_TYPES = ("cpu, cuda, ipu, xpu, mkldnn, opengl, opencl, ideep, hip, ve, fpga, maia, xla, "
                 "lazy, vulkan, mps, meta, hpu, mtia, privateuseone")


def get_autocast_dtype(device_type):
    """The dtype autocast casts to on ``device_type`` (bfloat16 on the CPU, float16 on CUDA
    unless set)."""
    device_type = _device_type(device_type)
    if device_type not in _DEVICE_TYPES.split(", "):
        raise RuntimeError(f"Expected one of {_DEVICE_TYPES} device type at start of device "
                           f"string: {device_type}")
    default = _OTHER_DEVICE_DTYPES.get(device_type, _dtypes.bfloat16)
    return state.dtypes.get(device_type, default)


def set_autocast_dtype(device_type, dtype):
    state.dtypes[_device_type(device_type)] = dtype


def is_autocast_cache_enabled():
    return state.cache_enabled


def set_autocast_cache_enabled(enabled):
    state.cache_enabled = bool(enabled)


def clear_autocast_cache():
    """Forget this thread's cached casts (the outermost autocast's exit calls it)."""
    state.cache.clear()


def autocast_increment_nesting():
    state.nesting += 1
    return state.nesting


def autocast_decrement_nesting():
    state.nesting -= 1
    return state.nesting


def _deprecated(old, new):
    warnings.warn(f"torch.{old} is deprecated. Please use torch.{new} instead.",
                  DeprecationWarning, stacklevel=3)


def is_autocast_cpu_enabled():
    _deprecated("is_autocast_cpu_enabled()", "is_autocast_enabled('cpu')")
    return is_autocast_enabled("cpu")


def set_autocast_cpu_enabled(enabled):
    _deprecated("set_autocast_cpu_enabled(enabled)", "set_autocast_enabled('cpu', enabled)")
    set_autocast_enabled("cpu", enabled)


def get_autocast_cpu_dtype():
    _deprecated("get_autocast_cpu_dtype()", "get_autocast_dtype('cpu')")
    return get_autocast_dtype("cpu")


def set_autocast_cpu_dtype(dtype):
    _deprecated("set_autocast_cpu_dtype(dtype)", "set_autocast_dtype('cpu', dtype)")
    set_autocast_dtype("cpu", dtype)


def get_autocast_gpu_dtype():
    _deprecated("get_autocast_gpu_dtype()", "get_autocast_dtype('cuda')")
    return get_autocast_dtype("cuda")


def set_autocast_gpu_dtype(dtype):
    _deprecated("set_autocast_gpu_dtype(dtype)", "set_autocast_dtype('cuda', dtype)")
    set_autocast_dtype("cuda", dtype)
