"""``autocast``: the context manager (and decorator) of automatic mixed precision, and
``custom_fwd`` / ``custom_bwd`` for the methods of custom autograd Functions.

Inside an enabled region the ops of torch's lists cast their floating inputs first: on the
CPU the matrix products and convolutions to bfloat16 (or float16), the losses and the
linear algebra to float32; on CUDA to float16 / float32 (autograd_cy/amp/policies.py). How
the ops are reached: NOTE [How autocast reaches the ops] (casting.py). The state is the
thread's (autograd_cy/amp/state.py), as torch's is.
"""
import collections.abc
import functools
import warnings

from autograd_cy import cuda as _cuda
from autograd_cy import dtypes as _dtypes
from autograd_cy._C.tensor import Tensor
from autograd_cy.amp import state as _state

__all__ = ["autocast", "is_autocast_available", "custom_fwd", "custom_bwd"]

_SUPPORTED = (_dtypes.bfloat16, _dtypes.float16)


def is_autocast_available(device_type):
    """Whether autocast has a policy for ``device_type`` ("cpu" and "cuda", as here)."""
    return device_type in _state.DEFAULT_DTYPES


class autocast:
    """``autocast(device_type, dtype=None, enabled=True, cache_enabled=None)``: inside, the
    listed ops of ``device_type`` run in ``dtype`` (default: ``get_autocast_dtype``) or in
    float32; ``enabled=False`` turns autocast off inside (nested in an enabled region too)."""

    def __init__(self, device_type, dtype=None, enabled=True, cache_enabled=None):
        if not isinstance(device_type, str):
            raise ValueError(f"Expected `device_type` of type `str`, got: "
                             f"`{type(device_type)}`")
        self.fast_dtype = _state.get_autocast_dtype(device_type) if dtype is None else dtype
        if not is_autocast_available(device_type):
            raise RuntimeError(f"User specified an unsupported autocast device_type "
                               f"'{device_type}'")
        self.device = device_type
        self._cache_enabled = (_state.is_autocast_cache_enabled() if cache_enabled is None
                               else cache_enabled)
        if enabled:
            if device_type == "cuda" and not _cuda.is_available():
                warnings.warn("CUDA is not available or torch_xla is imported. Disabling "
                              "autocast.", stacklevel=2)
                enabled = False
            elif device_type != "cuda" and self.fast_dtype not in _SUPPORTED:
                name = device_type.upper()
                warnings.warn(f"In {name} autocast, but the target dtype is not supported. "
                              f"Disabling autocast.\n{name} Autocast only supports dtypes of "
                              f"{', '.join(map(str, _SUPPORTED))} currently.", stacklevel=2)
                enabled = False
        self._enabled = enabled

    def __enter__(self):
        self.prev_cache_enabled = _state.is_autocast_cache_enabled()
        self.prev = _state.is_autocast_enabled(self.device)
        self.prev_fastdtype = _state.get_autocast_dtype(self.device)
        _state.set_autocast_enabled(self.device, self._enabled)
        _state.set_autocast_dtype(self.device, self.fast_dtype)
        _state.autocast_increment_nesting()
        _state.set_autocast_cache_enabled(self._cache_enabled)
        return self

    def __exit__(self, exc_type, exc_value, traceback):
        if _state.autocast_decrement_nesting() == 0:
            _state.clear_autocast_cache()
        _state.set_autocast_enabled(self.device, self.prev)
        _state.set_autocast_dtype(self.device, self.prev_fastdtype)
        _state.set_autocast_cache_enabled(self.prev_cache_enabled)
        return False

    def __call__(self, func):
        """As a decorator: ``func`` run inside this autocast state."""
        if not callable(func):
            raise TypeError(
                f"autocast()(func) requires a callable, but got {type(func).__name__}. "
                f"Did you mean to use autocast as a context manager? For example:\n"
                f"    with torch.autocast(device_type=...):\n"
                f"        output = model(input)")

        @functools.wraps(func)
        def decorate_autocast(*args, **kwargs):
            with self:
                return func(*args, **kwargs)
        return decorate_autocast


def _cast(value, device_type, dtype):
    """``value`` with its floating tensors on ``device_type`` (not float64) in ``dtype``,
    through lists, tuples and dicts."""
    if isinstance(value, Tensor):
        eligible = (value.is_floating_point() and value.device.type == device_type
                    and value.dtype != _dtypes.float64)
        return value.to(dtype) if eligible else value
    if isinstance(value, (str, bytes)):
        return value
    if isinstance(value, collections.abc.Mapping):
        return {_cast(k, device_type, dtype): _cast(v, device_type, dtype)
                for k, v in value.items()}
    if isinstance(value, collections.abc.Iterable) and not hasattr(value, "__array__"):
        items = (_cast(v, device_type, dtype) for v in value)
        return type(value)(items) if isinstance(value, (list, tuple)) else items
    return value


def _check_device_type(device_type):
    if not isinstance(device_type, str):
        raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")


def custom_fwd(fwd=None, *, device_type, cast_inputs=None):
    """For a custom Function's ``forward``: notes the autocast state for ``custom_bwd``;
    with ``cast_inputs`` inside an enabled region, casts the floating inputs to it and runs
    ``forward`` with autocast off."""
    _check_device_type(device_type)
    if fwd is None:
        return functools.partial(custom_fwd, device_type=device_type, cast_inputs=cast_inputs)

    @functools.wraps(fwd)
    def decorate_fwd(*args, **kwargs):
        args[0]._dtype = _state.get_autocast_dtype(device_type)
        if cast_inputs is None:
            args[0]._fwd_used_autocast = _state.is_autocast_enabled(device_type)
            return fwd(*args, **kwargs)
        args[0]._fwd_used_autocast = False
        if not _state.is_autocast_enabled(device_type):
            return fwd(*args, **kwargs)
        with autocast(device_type=device_type, enabled=False):
            return fwd(*_cast(args, device_type, cast_inputs),
                       **_cast(kwargs, device_type, cast_inputs))
    return decorate_fwd


def custom_bwd(bwd=None, *, device_type):
    """For a custom Function's ``backward``: runs it in the autocast state its forward ran
    in."""
    _check_device_type(device_type)
    if bwd is None:
        return functools.partial(custom_bwd, device_type=device_type)

    @functools.wraps(bwd)
    def decorate_bwd(*args, **kwargs):
        with autocast(device_type=device_type, enabled=args[0]._fwd_used_autocast,
                      dtype=args[0]._dtype):
            return bwd(*args, **kwargs)
    return decorate_bwd
