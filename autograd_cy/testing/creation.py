"""``make_tensor``: a tensor of random values in a range, for tests (torch.testing's)."""
import math
import warnings

import autograd_cy as torch

__all__ = ["make_tensor"]

_FLOATING_RANGE = (-9, 9)
_INTEGRAL_RANGE = (-9, 10)


def _shape_of(shape):
    if len(shape) == 1 and isinstance(shape[0], (tuple, list, torch.Size)):
        return tuple(shape[0])
    return tuple(shape)


def _bounds(low, high, lowest, highest, default):
    """``low`` and ``high`` (defaults, NaN refused, clamped to the dtype's range)."""
    for value in (low, high):
        if value is not None and isinstance(value, float) and math.isnan(value):
            raise ValueError(f"`low` and `high` cannot be NaN, but got low={low} and "
                             f"high={high if high is not None else default[1]}")
    low = default[0] if low is None else low
    high = default[1] if high is None else high
    return max(low, lowest), min(high, highest)


def make_tensor(*shape, dtype, device, low=None, high=None, requires_grad=False,
                noncontiguous=False, exclude_zero=False, memory_format=None):
    """A tensor of ``shape`` and ``dtype`` with values drawn uniformly from ``[low, high)``
    (defaults: [-9, 9] for floating and complex dtypes, [-9, 10) for integers, {False,
    True} for bool), from autograd_cy's generator."""
    shape = _shape_of(shape)
    if requires_grad and not (dtype.is_floating_point or dtype.is_complex):
        raise ValueError("`requires_grad=True` is not supported for boolean and integral "
                         f"dtypes, but got dtype={dtype}")
    if dtype == torch.bool:
        result = torch.randint(0, 2, shape, device=device).to(torch.bool)
    elif dtype.is_floating_point or dtype.is_complex:
        info = torch.finfo(dtype)
        low, high = _bounds(low, high, info.min, info.max, _FLOATING_RANGE)
        if low > high:
            raise ValueError(f"`low` must be less than or equal to `high`, but got "
                             f"{low} > {high}")
        if low == high:
            warnings.warn("Passing `low==high` to `torch.testing.make_tensor` for floating "
                          "or complex types is deprecated since 2.1 and will be removed in "
                          "2.3. Use `torch.full(...)` instead.", FutureWarning, stacklevel=2)
        result = torch.empty(shape, dtype=dtype, device=device)
        if dtype.is_complex:
            real_dtype = torch.float32 if dtype == torch.complex64 else torch.float64
            parts = torch.empty(shape + (2,), dtype=real_dtype, device=device).uniform_(
                low, high)
            result = torch.complex(parts[..., 0], parts[..., 1])
        else:
            result = result.uniform_(low, high)
    else:
        info = torch.iinfo(dtype)
        default = (0, 10) if dtype == torch.uint8 else _INTEGRAL_RANGE
        low, high = _bounds(low, high, info.min, info.max, default)
        low, high = math.ceil(low), math.ceil(high)
        if low >= high:
            raise ValueError(f"`low` must be less than `high`, but got {low} >= {high}")
        result = torch.randint(low, high, shape, dtype=dtype, device=device)
    if noncontiguous and result.numel() > 1:
        result = torch.repeat_interleave(result, 2, dim=-1)[..., ::2]
    elif memory_format is not None:
        result = result.clone(memory_format=memory_format)
    if exclude_zero:
        replacement = (1 if not (dtype.is_floating_point or dtype.is_complex)
                       else torch.finfo(dtype).tiny)
        result[result == 0] = replacement
    if dtype.is_floating_point or dtype.is_complex:
        result.requires_grad = requires_grad
    return result
