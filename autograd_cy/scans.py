"""``cumsum``: the running sum of a tensor's entries along a dim.

One op with torch's node (``CumsumBackward0``). Each input entry adds to every output at
or after it along the dim, so its gradient is the sum of the output gradients from its
place to the end: the gradient's cumsum in reverse order (flip, cumsum, flip), through the
same op, so a double backward records again; a tangent is summed as the input.

Integer and bool inputs sum in int64, as torch's; ``dtype=`` converts the input first (and
the backward converts the gradient back to the input's dtype). float16 and bfloat16 sum in
float32, float32 in float64, each output rounded once, as torch's CPU kernel accumulates.

# NOTE [A scan on a device]
NumPy's ``cumsum`` is a loop over the host's memory. On a device array the sum is a scan
of ``log2(n)`` elementwise steps (Hillis and Steele): after the step of ``shift``, entry
``i`` holds the sum of the ``2 * shift`` entries ending at ``i``, so the step adds to each
entry the one ``shift`` places before it. Each step is one add and one concatenate, ops
every device has; float results may differ from the sequential sum in the last bits.

>>> import autograd_cy as ag
>>> ag.arange(1, 5).cumsum(0)
tensor([ 1,  3,  6, 10])
"""
import ml_dtypes
import numpy as np

import autograd_cy as _ag
from autograd_cy._C.tensor import _array_of, _register_methods, _wrap_array
from autograd_cy.autograd.function import Function
from autograd_cy.reorder import _wrap

__all__ = ["cumsum"]

# The dtype torch's CPU kernel accumulates each dtype in (its acc_type), where it is wider.
_ACCUMULATE = {np.dtype(np.float16): np.float32, np.dtype(ml_dtypes.bfloat16): np.float32,
               np.dtype(np.float32): np.float64}


def _running_sum(array, axis):
    """The cumulative sum of ``array`` along ``axis``, accumulated as torch's CPU kernel
    does and rounded to ``array``'s dtype (NOTE [A scan on a device])."""
    accumulate = _ACCUMULATE.get(array.dtype)
    if isinstance(array, np.ndarray):
        if accumulate is None:
            return np.cumsum(array, axis=axis)
        return np.cumsum(array, axis=axis, dtype=accumulate).astype(array.dtype)
    total = array if accumulate is None else array.astype(accumulate)
    size = array.shape[axis]
    before = (slice(None),) * axis
    shift = 1
    while shift < size:
        head = total[before + (slice(0, shift),)]
        tail = total[before + (slice(shift, None),)] + total[before + (slice(0, size - shift),)]
        total = np.concatenate([head, tail], axis=axis)
        shift *= 2
    return total.astype(array.dtype, copy=False)


class Cumsum(Function):
    """``cumsum``'s op (``CumsumBackward0``)."""
    builtin_op = True

    @staticmethod
    def forward(ctx, input, dim, dtype):
        ctx.dim, ctx.dtype, ctx.input_dtype = dim, dtype, input.dtype
        converted = input if dtype is None else input.to(dtype)
        if not converted.is_floating_point() and not converted.is_complex():
            converted = converted.to(_ag.int64)
        array = _array_of(converted)
        if array.ndim == 0:
            return _wrap_array(array.copy())
        return _wrap_array(_running_sum(array, dim))

    @staticmethod
    def backward(ctx, grad):
        if grad.dim() == 0:
            return grad.to(ctx.input_dtype), None, None
        grad = grad.to(ctx.input_dtype).flip(ctx.dim)
        return Cumsum.apply(grad, ctx.dim, None).flip(ctx.dim), None, None

    @staticmethod
    def jvp(ctx, input_t, dim_t, dtype_t):
        return Cumsum.apply(input_t, ctx.dim, ctx.dtype)


Cumsum._backward_cls.__name__ = "CumsumBackward0"


def cumsum(input, dim, *, dtype=None):
    """The running sum of ``input`` along ``dim``; integer and bool inputs give int64 (or
    ``dtype``)."""
    return Cumsum.apply(input, _wrap(dim, input.dim()), dtype)


_register_methods({"cumsum": cumsum})
