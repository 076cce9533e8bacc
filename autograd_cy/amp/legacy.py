"""The deprecated per-device spellings ``cpu.amp.autocast``, ``cuda.amp.autocast`` and
``cuda.amp.GradScaler``: ``amp``'s classes for one device, with torch's FutureWarning."""
import warnings

from autograd_cy import dtypes as _dtypes
from autograd_cy.amp.autocast_mode import autocast as _autocast
from autograd_cy.amp.grad_scaler import GradScaler as _GradScaler

__all__ = ["cpu_autocast", "cuda_autocast", "cuda_GradScaler"]


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


cpu_autocast.__name__ = cpu_autocast.__qualname__ = "autocast"
cuda_autocast.__name__ = cuda_autocast.__qualname__ = "autocast"
cuda_GradScaler.__name__ = cuda_GradScaler.__qualname__ = "GradScaler"
