"""``hypot``, ``sinc`` and ``float_power``: three pointwise functions torch defines with
their own formulas.

- ``hypot(x, y) = sqrt(x^2 + y^2)`` (``HypotBackward0``), without overflow of the squares
  (NumPy's ``hypot``); ``x`` gets ``g * x / result``, ``y`` ``g * y / result``.
- ``sinc(x) = sin(pi x) / (pi x)``, 1 at 0 (``SincBackward0``); its derivative
  ``(cos(pi x) pi x - sin(pi x)) / (pi x^2)``, 0 where ``pi x^2`` is (torch's test, so
  also where the square underflows); a complex ``x`` keeps its dtype, its gradient
  ``g * conj(derivative)`` (NOTE [Complex gradients] in pyx/ops/conjugate.pyx).
- ``float_power(x, y)``: ``pow`` in float64 (both converted first; its nodes are pow's).

>>> import autograd_cy as ag
>>> ag.hypot(ag.tensor([3.0]), ag.tensor([4.0]))
tensor([5.])
"""
import math

import numpy as np

import autograd_cy as _ag
from autograd_cy._C.tensor import Tensor, _array_of, _register_methods, _wrap_array
from autograd_cy.autograd.function import Function
from autograd_cy.host_values import broadcast_shape

__all__ = ["hypot", "sinc", "float_power"]


def _reduced_to(grad, shape):
    return grad.sum_to_size(shape) if grad.shape != shape else grad


class Hypot(Function):
    """``hypot``'s op (``HypotBackward0``)."""
    builtin_op = True

    @staticmethod
    def forward(ctx, input, other):
        dtype = _ag.result_type(input, other)
        result = _wrap_array(np.hypot(_array_of(input.to(dtype)), _array_of(other.to(dtype))))
        # each operand only for its own gradient, as torch's node saves them
        needs = ctx.needs_input_grad
        ctx.shapes = (input.shape, other.shape)
        ctx.save_for_backward(input if needs[0] else None, other if needs[1] else None, result)
        ctx.save_for_forward(input, other, result)
        return result

    @staticmethod
    def backward(ctx, grad):
        input, other, result = ctx.saved_tensors
        grads = [None, None]
        if ctx.needs_input_grad[0]:
            grads[0] = _reduced_to(grad * (input / result), ctx.shapes[0])
        if ctx.needs_input_grad[1]:
            grads[1] = _reduced_to(grad * (other / result), ctx.shapes[1])
        return tuple(grads)

    @staticmethod
    def jvp(ctx, input_t, other_t):
        input, other, result = ctx.saved_tensors
        tangent = 0
        if input_t is not None:
            tangent = input_t * (input / result)
        if other_t is not None:
            tangent = tangent + other_t * (other / result)
        return tangent


def _sinc_slope(x):
    """``(cos(pi x) pi x - sin(pi x)) / (pi x^2)``, 0 where ``pi x^2`` is (Tensor ops)."""
    angle = x * math.pi
    squared = angle * x
    slope = (_ag.cos(angle) * angle - _ag.sin(angle)) / squared
    return _ag.where(squared == 0, slope.new_zeros(()), slope)


class Sinc(Function):
    """``sinc``'s op (``SincBackward0``)."""
    builtin_op = True

    @staticmethod
    def forward(ctx, input):
        if not input.is_floating_point() and not input.is_complex():
            input = input.to(_ag.get_default_dtype())
        ctx.save_for_backward(input)
        ctx.save_for_forward(input)
        # float16 and bfloat16 in float32, rounded once, as torch's kernel (its opmath type)
        x = input.float() if input.dtype in (_ag.float16, _ag.bfloat16) else input
        angle = x * math.pi
        return _ag.where(x == 0, x.new_ones(()), _ag.sin(angle) / angle).to(input.dtype)

    @staticmethod
    def backward(ctx, grad):
        (input,) = ctx.saved_tensors
        return grad * _sinc_slope(input).conj()

    @staticmethod
    def jvp(ctx, input_t):
        (input,) = ctx.saved_tensors
        return input_t * _sinc_slope(input)


Hypot._backward_cls.__name__ = "HypotBackward0"
Sinc._backward_cls.__name__ = "SincBackward0"


def hypot(input, other):
    """``sqrt(input ** 2 + other ** 2)``, without overflow; floating tensors only."""
    dtype = _ag.result_type(input, other)
    if not dtype.is_floating_point:
        raise NotImplementedError(f"\"hypot_cpu\" not implemented for '{dtype._scalar_name}'")
    if isinstance(input, Tensor) and isinstance(other, Tensor):
        broadcast_shape(input.shape, other.shape)       # torch's words, not NumPy's
    return Hypot.apply(input, other)


def sinc(input):
    """The normalized sinc ``sin(pi x) / (pi x)``, 1 at 0."""
    return Sinc.apply(input)


def float_power(input, exponent):
    """``input ** exponent`` computed in float64 (complex128 for complex operands)."""
    wide = _ag.complex128 if (isinstance(input, Tensor) and input.is_complex()) or (
        isinstance(exponent, Tensor) and exponent.is_complex()) else _ag.float64
    if isinstance(input, Tensor):
        input = input.to(wide)
    if isinstance(exponent, Tensor):
        exponent = exponent.to(wide)
    return _ag.pow(input, exponent)


_register_methods({"hypot": hypot, "sinc": sinc, "float_power": float_power})
