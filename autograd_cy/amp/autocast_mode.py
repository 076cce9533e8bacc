"""``autocast``: the context manager (and decorator) of automatic mixed precision.

NOTE [Autocast is refused when enabled]
Under torch's autocast, the ops of a cast list (matmul, linear, conv ...) cast their
floating inputs to the autocast dtype first (bfloat16 on the CPU), and some ops cast up to
float32. autograd_cy's ops are reached by many paths that would all have to consult such a
policy (the Tensor operators' C table, the methods, the functional namespace, the modules),
and a policy applied on some paths and not others would give other numbers than torch's
without a word. So ``enabled=True`` raises NotImplementedError, naming the way out; an
``autocast(..., enabled=False)`` (the usual ``enabled=use_amp`` switch with AMP off) is the
no-op it is in torch, as a context manager and as a decorator.
"""
import functools

from autograd_cy import dtypes as _dtypes

__all__ = ["autocast", "is_autocast_available"]

_DEFAULT_DTYPE = {"cpu": _dtypes.bfloat16, "cuda": _dtypes.float16}


def is_autocast_available(device_type):
    """Whether autocast has a policy for ``device_type`` ("cpu" and "cuda", as in torch)."""
    return device_type in _DEFAULT_DTYPE


class autocast:
    """``autocast(device_type, dtype=None, enabled=True, cache_enabled=None)``: enabled,
    refused (NOTE [Autocast is refused when enabled]); disabled, nothing changes inside."""

    def __init__(self, device_type, dtype=None, enabled=True, cache_enabled=None):
        if not isinstance(device_type, str):
            raise ValueError(f"Expected `device_type` of type `str`, got: "
                             f"`{type(device_type)}`")
        if device_type not in _DEFAULT_DTYPE:
            raise RuntimeError(f"User specified an unsupported autocast device_type "
                               f"'{device_type}'")
        self.device = device_type
        self.fast_dtype = _DEFAULT_DTYPE[device_type] if dtype is None else dtype
        self._enabled = bool(enabled)
        self._cache_enabled = True if cache_enabled is None else bool(cache_enabled)
        if self._enabled:
            raise NotImplementedError(
                f"autocast(device_type='{device_type}', dtype={self.fast_dtype}) with "
                f"enabled=True is not implemented in autograd_cy: its ops do not cast their "
                f"inputs to a lower precision. Pass enabled=False (or cast the model and "
                f"inputs with .to({self.fast_dtype})) instead.")

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc_value, traceback):
        return False

    def __call__(self, function):
        """As a decorator: ``function`` run inside this autocast state."""
        @functools.wraps(function)
        def decorated(*args, **kwargs):
            with self:
                return function(*args, **kwargs)
        return decorated
