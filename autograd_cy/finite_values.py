"""``nan_to_num``: NaN, +inf and -inf replaced by finite numbers (0, and the dtype's largest
and smallest by default).

One op with torch's node ``NanToNumBackward0``: the replaced entries no longer depend on
the input, so the gradient is ``grad`` where the input was finite and 0 elsewhere.
Integer and bool tensors hold no NaN or inf and come back as a copy.

>>> import autograd_cy as ag
>>> ag.tensor([float("nan"), 1.0, float("inf")]).nan_to_num(posinf=9.0)
tensor([0., 1., 9.])
"""
import ml_dtypes
import numpy as np

from autograd_cy._C.tensor import _array_of, _register_methods, _wrap_array
from autograd_cy.autograd.function import Function
from autograd_cy.grad_mode import is_grad_enabled

__all__ = ["nan_to_num"]


def _replaced(array, nan, posinf, neginf):
    if array.dtype.kind in "iub":
        return array.copy()
    if array.dtype.kind == "c":     # each part on its own, as torch's kernel
        out = np.empty_like(array)
        out.real = _replaced(array.real, nan, posinf, neginf)
        out.imag = _replaced(array.imag, nan, posinf, neginf)
        return out
    info = ml_dtypes.finfo(array.dtype)         # NumPy's finfo knows no bfloat16
    posinf = info.max if posinf is None else posinf
    neginf = info.min if neginf is None else neginf
    out = np.where(np.isnan(array), array.dtype.type(nan), array)
    out = np.where(out == np.inf, array.dtype.type(posinf), out)
    return np.where(out == -np.inf, array.dtype.type(neginf), out)


class NanToNum(Function):
    """``nan_to_num``'s op (``NanToNumBackward0``)."""
    builtin_op = True

    @staticmethod
    def forward(ctx, input, nan, posinf, neginf):
        ctx.save_for_backward(input)
        ctx.save_for_forward(input)
        return _wrap_array(_replaced(_array_of(input), nan, posinf, neginf))

    @staticmethod
    def backward(ctx, grad):
        (input,) = ctx.saved_tensors
        return grad * input.isfinite(), None, None, None

    @staticmethod
    def jvp(ctx, input_t, *unused):
        (input,) = ctx.saved_tensors
        return input_t * input.isfinite()


NanToNum._backward_cls.__name__ = "NanToNumBackward0"


def nan_to_num(input, nan=0.0, posinf=None, neginf=None):
    """``input`` with NaN as ``nan``, +inf as ``posinf`` and -inf as ``neginf`` (None: the
    dtype's largest and smallest finite values)."""
    if input.is_complex() and is_grad_enabled() and input.requires_grad:
        raise RuntimeError("nan_to_num does not support automatic differentiation for outputs "
                           "with complex dtype.")
    return NanToNum.apply(input, nan, posinf, neginf)


def recorded_nan_to_num(input, nan=0.0, posinf=None, neginf=None):
    """nan_to_num without the refusal of a recorded complex result: nan_to_num_'s, which
    torch records on a complex tensor all the same."""
    return NanToNum.apply(input, nan, posinf, neginf)


_register_methods({"nan_to_num": nan_to_num})
