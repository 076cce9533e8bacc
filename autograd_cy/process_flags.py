"""Process-wide switches of the ``torch`` namespace without another home here.

- ``set_flush_denormal(mode)``: subnormal floats read and written as zero by the CPU's
  vector unit of the calling thread (x86's DAZ and FTZ bits: NOTE [Flushing denormals]);
  True where it could be set, as torch's.
- ``set_default_tensor_type(t)``: deprecated; ``set_default_dtype`` of the floating type
  ``t`` names (a legacy class such as ``DoubleTensor`` or its name), with torch's warning
  (once per process, as torch's, unless ``set_warn_always``).
"""
import builtins
import ctypes
import functools
import platform

from autograd_cy import dtypes as _dtypes
from autograd_cy.warn_always import warn_once

__all__ = ["set_flush_denormal", "set_default_tensor_type"]

# NOTE [Flushing denormals]
# torch's set_flush_denormal sets two bits of the x86 MXCSR register of the calling thread:
# DAZ (denormals are zero: subnormal inputs read as 0) and FTZ (flush to zero: subnormal
# results written as 0). NumPy's loops run on the same unit, so the same bits give the same
# arithmetic here. No Python API reaches MXCSR; glibc's fegetenv/fesetenv carry it in the
# last 4 bytes of x86-64's 32-byte fenv_t, and fesetenv loads it back. Elsewhere (another
# machine, another C library) nothing is set and False is returned, as torch does.
_DAZ_FTZ = (1 << 6) | (1 << 15)
_FENV_SIZE, _MXCSR_AT = 32, 28


@functools.lru_cache(maxsize=None)
def _libc():
    if platform.machine() not in ("x86_64", "AMD64") or platform.libc_ver()[0] != "glibc":
        return None
    return ctypes.CDLL(None)


def set_flush_denormal(mode):
    """Flush subnormal floats to zero (``mode=True``) or not, on this thread's CPU
    arithmetic; returns whether the CPU supports it (NOTE [Flushing denormals])."""
    if not isinstance(mode, builtins.bool):
        raise RuntimeError(f"flush_denormal expects a bool, but got {type(mode).__name__}")
    libc = _libc()
    if libc is None:
        return False
    env = ctypes.create_string_buffer(_FENV_SIZE)
    if libc.fegetenv(env) != 0:
        return False
    raw = bytearray(env.raw)
    mxcsr = int.from_bytes(raw[_MXCSR_AT:], "little")
    mxcsr = mxcsr | _DAZ_FTZ if mode else mxcsr & ~_DAZ_FTZ
    raw[_MXCSR_AT:] = mxcsr.to_bytes(4, "little")
    return libc.fesetenv(ctypes.create_string_buffer(bytes(raw), _FENV_SIZE)) == 0


def set_default_tensor_type(t, /):
    """Deprecated: make the floating dtype of the legacy tensor type ``t`` (a class such as
    ``DoubleTensor``, or its dotted name) the default dtype."""
    import autograd_cy
    if isinstance(t, str):
        module, _, name = t.rpartition(".")
        if module not in ("torch", "autograd_cy"):
            raise ModuleNotFoundError(f"No module named '{module}'")
        if not hasattr(autograd_cy, name):
            raise AttributeError(f"module '{module}' has no attribute '{name}'")
        t = getattr(autograd_cy, name)
    warn_once("torch.set_default_tensor_type() is deprecated as of PyTorch 2.1, please use "
              "torch.set_default_dtype() and torch.set_default_device() as alternatives.", 3)
    dtype = getattr(t, "dtype", None) if isinstance(t, type) else None
    if not isinstance(dtype, _dtypes.dtype) or not dtype.is_floating_point:
        prefix = "" if isinstance(t, type) else "invalid type object: "
        raise TypeError(f"{prefix}only floating-point types are supported as the default "
                        f"type")
    _dtypes.set_default_dtype(dtype)
