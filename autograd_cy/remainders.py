"""``fmod`` and ``remainder``: what is left after dividing, truncated (``fmod``, the sign of
the dividend, C's ``fmod``) or floored (``remainder``, the sign of the divisor, Python's
``%``).

Each is one op with torch's nodes: ``FmodBackward0`` / ``RemainderBackward0`` with a number
divisor, ``FmodBackward1`` / ``RemainderBackward1`` with a tensor. ``x - q * y`` with the
quotient ``q`` piecewise constant, so the dividend's gradient is the gradient and the
divisor's ``-g * q``: ``trunc(x / y)`` for fmod, ``floor(x / y)`` for remainder.

>>> import autograd_cy as ag
>>> ag.fmod(ag.tensor([-3.0, 3.0]), 2), ag.remainder(ag.tensor([-3.0, 3.0]), 2)
(tensor([-1.,  1.]), tensor([1., 1.]))
"""
import numpy as np

import autograd_cy as _ag
from autograd_cy._C.tensor import (
    Tensor, _array_of, _register_methods, _register_operators, _wrap_array,
)
from autograd_cy.autograd.function import Function
from autograd_cy.dtypes import _refuse_complex

__all__ = ["fmod", "remainder"]


def _floored_remainder(a, b):
    """torch's remainder: fmod's, moved by ``b`` where the signs differ, so a zero keeps
    fmod's sign (NumPy's ``remainder`` gives it ``b``'s)."""
    mod = np.fmod(a, b)
    return np.where((mod != 0) & ((b < 0) != (mod < 0)), mod + b, mod)


def _remainder_array(a, b, floored):
    with np.errstate(invalid="ignore", divide="ignore"):
        return _floored_remainder(a, b) if floored else np.fmod(a, b)


def _reduced(grad, shape):
    return grad.sum_to_size(shape) if grad.shape != shape else grad


def _quotient(input, other, floored):
    quotient = input / other
    return quotient.floor() if floored else quotient.trunc()


class _ByNumber(Function):
    builtin_op = True

    @staticmethod
    def forward(ctx, input, other, floored):
        array = _array_of(input)
        return _wrap_array(_remainder_array(array, array.dtype.type(other), floored))

    @staticmethod
    def backward(ctx, grad):
        return grad, None, None

    @staticmethod
    def jvp(ctx, input_t, other_t, floored_t):
        return input_t.clone()


class _ByTensor(Function):
    builtin_op = True

    @staticmethod
    def forward(ctx, input, other, floored):
        ctx.floored, ctx.input_shape = floored, input.shape
        if ctx.needs_input_grad[1]:     # only for other's gradient, as torch's node saves
            ctx.save_for_backward(input, other)
        ctx.save_for_forward(input, other)
        dtype = _ag.result_type(input, other)
        return _wrap_array(_remainder_array(_array_of(input.to(dtype)),
                                            _array_of(other.to(dtype)), floored))

    @staticmethod
    def backward(ctx, grad):
        grads = [None, None, None]
        if ctx.needs_input_grad[0]:
            grads[0] = _reduced(grad, ctx.input_shape)
        if ctx.needs_input_grad[1]:
            input, other = ctx.saved_tensors
            grads[1] = _reduced(-grad * _quotient(input, other, ctx.floored), other.shape)
        return tuple(grads)

    @staticmethod
    def jvp(ctx, input_t, other_t, floored_t):
        input, other = ctx.saved_tensors
        tangent = 0 if input_t is None else input_t
        if other_t is not None:
            tangent = tangent - other_t * _quotient(input, other, ctx.floored)
        return tangent


class Fmod(_ByNumber):
    """``fmod(tensor, number)``'s op (``FmodBackward0``)."""


class Remainder(_ByNumber):
    """``remainder(tensor, number)``'s op (``RemainderBackward0``)."""


class FmodTensor(_ByTensor):
    """``fmod(tensor, tensor)``'s op (``FmodBackward1``)."""


class RemainderTensor(_ByTensor):
    """``remainder(tensor, tensor)``'s op (``RemainderBackward1``)."""


Fmod._backward_cls.__name__ = "FmodBackward0"
Remainder._backward_cls.__name__ = "RemainderBackward0"
FmodTensor._backward_cls.__name__ = "FmodBackward1"
RemainderTensor._backward_cls.__name__ = "RemainderBackward1"


def _divided(by_number, by_tensor, input, other, floored):
    if isinstance(other, Tensor) and other.dim() == 0 and input.dim() and not (
            other.requires_grad):
        other = other.item()
    if isinstance(other, Tensor):
        return by_tensor.apply(input, other, floored)
    if not input.is_floating_point() and isinstance(other, float):
        input = input.to(_ag.get_default_dtype())
    if not input.is_floating_point() and other == 0:
        raise RuntimeError("ZeroDivisionError")
    return by_number.apply(input, other, floored)


def fmod(input, other):
    """``input - trunc(input / other) * other``: the remainder with ``input``'s sign."""
    _refuse_complex(_ag.result_type(input, other), "fmod_cpu")
    return _divided(Fmod, FmodTensor, input, other, False)


class RemainderOfNumber(Function):
    """``remainder(number, tensor)`` (``3 % x``): torch records its ``NotImplemented``
    node, whose backward raises."""
    builtin_op = True

    @staticmethod
    def forward(ctx, number, other):
        with _ag.no_grad():
            return remainder(_ag.tensor(number, device=other.device), other)

    @staticmethod
    def backward(ctx, grad):
        raise RuntimeError("derivative for aten::remainder is not implemented")


RemainderOfNumber._backward_cls.__name__ = "NotImplemented"


def remainder(input, other):
    """``input - floor(input / other) * other``: the remainder with ``other``'s sign
    (``input`` may be a number, as in ``3 % x``)."""
    _refuse_complex(_ag.result_type(input, other), "remainder_cpu")
    if not isinstance(input, Tensor):
        return RemainderOfNumber.apply(input, other)
    return _divided(Remainder, RemainderTensor, input, other, True)


_register_methods({"fmod": fmod, "remainder": remainder})
_register_operators({"mod": remainder, "rmod": lambda self, other: remainder(other, self),
                     "imod": lambda self, other: self.remainder_(other)})
