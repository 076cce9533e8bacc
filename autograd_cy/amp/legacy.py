"""The deprecated per-device spellings ``cpu.amp.autocast``, ``cuda.amp.autocast``,
``cuda.amp.custom_fwd``/``custom_bwd`` and ``cuda.amp.GradScaler``: ``amp``'s names for one
device, with torch's FutureWarning."""
import warnings

from autograd_cy import dtypes as _dtypes
from autograd_cy.amp.autocast_mode import autocast as _autocast
from autograd_cy.amp.autocast_mode import custom_bwd as _custom_bwd
from autograd_cy.amp.autocast_mode import custom_fwd as _custom_fwd
from autograd_cy.amp.grad_scaler import GradScaler as _GradScaler

__all__ = ["cpu_autocast", "cuda_autocast", "cuda_GradScaler", "cuda_custom_fwd",
           "cuda_custom_bwd"]


def _deprecated(old, new):
    warnings.warn(f"`{old}(args...)` is deprecated. Please use `{new}` instead.",
                  FutureWarning, stacklevel=3)


class cpu_autocast(_autocast):
    """``cpu.amp.autocast(enabled=True, dtype=bfloat16, cache_enabled=True)``."""

    def __init__(self, enabled=True, dtype=_dtypes.bfloat16, cache_enabled=True):
        _deprecated("torch.cpu.amp.autocast", "torch.amp.autocast('cpu', args...)")
        super().__init__("cpu", dtype=dtype, enabled=enabled, cache_enabled=cache_enabled)


class cuda_autocast(_autocast):
    """``cuda.amp.autocast(enabled=True, dtype=float16, cache_enabled=True)``."""

    def __init__(self, enabled=True, dtype=_dtypes.float16, cache_enabled=True):
        _deprecated("torch.cuda.amp.autocast", "torch.amp.autocast('cuda', args...)")
        super().__init__("cuda", dtype=dtype, enabled=enabled, cache_enabled=cache_enabled)


class cuda_GradScaler(_GradScaler):
    """``cuda.amp.GradScaler(init_scale=2.**16, ...)``: ``amp.GradScaler("cuda", ...)``."""

    def __init__(self, init_scale=2.0 ** 16, growth_factor=2.0, backoff_factor=0.5,
                 growth_interval=2000, enabled=True):
        _deprecated("torch.cuda.amp.GradScaler", "torch.amp.GradScaler('cuda', args...)")
        super().__init__("cuda", init_scale, growth_factor, backoff_factor, growth_interval,
                         enabled)


def cuda_custom_fwd(fwd=None, *, cast_inputs=None):
    """``cuda.amp.custom_fwd``: ``amp.custom_fwd(..., device_type="cuda")``."""
    _deprecated("torch.cuda.amp.custom_fwd", "torch.amp.custom_fwd(args..., device_type='cuda')")
    return _custom_fwd(fwd, device_type="cuda", cast_inputs=cast_inputs)


def cuda_custom_bwd(bwd):
    """``cuda.amp.custom_bwd``: ``amp.custom_bwd(..., device_type="cuda")``."""
    _deprecated("torch.cuda.amp.custom_bwd", "torch.amp.custom_bwd(args..., device_type='cuda')")
    return _custom_bwd(bwd, device_type="cuda")


cuda_custom_fwd.__name__ = cuda_custom_fwd.__qualname__ = "custom_fwd"
cuda_custom_bwd.__name__ = cuda_custom_bwd.__qualname__ = "custom_bwd"
cpu_autocast.__name__ = cpu_autocast.__qualname__ = "autocast"
cuda_autocast.__name__ = cuda_autocast.__qualname__ = "autocast"
cuda_GradScaler.__name__ = cuda_GradScaler.__qualname__ = "GradScaler"
