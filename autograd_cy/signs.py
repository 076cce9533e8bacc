"""Ops on signs: ``copysign`` (a magnitude with another's sign), ``signbit``, ``isposinf``,
``isneginf`` (bool tests, no gradient) and ``heaviside`` (the step function).

``copysign`` is one op with torch's nodes ``CopysignBackward0`` (a tensor sign) and
``CopysignBackward1`` (a number): the result is ``+-self``, so the gradient is ``g *
result / self``, 0 where ``self`` is 0 (torch's formula); the sign tensor gets zeros.
Integer inputs give floats. ``heaviside`` records torch's ``NotImplemented`` node, whose
backward raises: torch gives it no derivative.

# NOTE [The sign bit of a zero]
``-0.0 < 0`` is False, so ``signbit`` cannot compare with 0, and a NaN has a sign bit too
(x86's NaN of an invalid operation, such as pow's of a negative base, has it set): the bit
itself is read (``np.signbit``), as torch's ``std::signbit`` and ``std::copysign`` read it.
``copysign`` reads the sign that way too.

>>> import autograd_cy as ag
>>> ag.copysign(ag.tensor([1.0, 2.0]), -0.0)
tensor([-1., -2.])
"""
import numpy as np

import autograd_cy as _ag
from autograd_cy._C.tensor import Tensor, _array_of, _register_methods, _wrap_array
from autograd_cy.autograd.function import Function

__all__ = ["copysign", "signbit", "isposinf", "isneginf", "heaviside"]


def _sign_bits(array):
    """Where ``array``'s sign bit is set (NOTE [The sign bit of a zero])."""
    if array.dtype.kind in "ub":
        return np.zeros_like(array, dtype=bool)
    if array.dtype.kind == "i":
        return array < 0
    if type(array) is np.ndarray and array.dtype.kind == "f":
        return np.signbit(array)
    if type(array) is np.ndarray and array.dtype.itemsize == 2:   # bfloat16, exactly in float32
        return np.signbit(array.astype(np.float32))
    # (a device's array: the comparisons below, a NaN's sign not read)
    with np.errstate(divide="ignore"):
        return (array < 0) | ((array == 0) & (np.ones_like(array) / array < 0))


def _copysign_array(magnitude, sign):
    magnitude = np.abs(magnitude)
    return np.where(_sign_bits(sign), -magnitude, magnitude)


def _copysign_gradient(grad, input, result):
    """``g * result / self``, 0 where ``self`` is 0."""
    return _ag.where(input == 0, grad.new_zeros(()), grad * (result / input))


class Copysign(Function):
    """``copysign(tensor, tensor)``'s op (``CopysignBackward0``)."""
    builtin_op = True

    @staticmethod
    def forward(ctx, input, other):
        dtype = _ag.result_type(input, other)
        if not dtype.is_floating_point:
            dtype = _ag.get_default_dtype()
        input, other = input.to(dtype), other.to(dtype)
        result = _wrap_array(_copysign_array(_array_of(input), _array_of(other)))
        ctx.shapes = (input.shape, other.shape)
        # saved for input's gradient only, as torch's node: other's is zeros, so an in-place
        # write of input does not stop a backward that wants other's alone
        if ctx.needs_input_grad[0]:
            ctx.save_for_backward(input, result)
        ctx.save_for_forward(input, result)
        return result

    @staticmethod
    def backward(ctx, grad):
        grad_input = grad_other = None
        if ctx.needs_input_grad[0]:
            input, result = ctx.saved_tensors
            grad_input = _copysign_gradient(grad, input, result).sum_to_size(ctx.shapes[0])
        if ctx.needs_input_grad[1]:
            grad_other = grad.new_zeros(ctx.shapes[1])
        return grad_input, grad_other

    @staticmethod
    def jvp(ctx, input_t, other_t):
        input, result = ctx.saved_tensors
        if input_t is None:
            return result.new_zeros(result.shape)
        return _copysign_gradient(input_t, input, result)


class CopysignNumber(Function):
    """``copysign(tensor, number)``'s op (``CopysignBackward1``)."""
    builtin_op = True

    @staticmethod
    def forward(ctx, input, other):
        if not input.is_floating_point():
            input = input.to(_ag.get_default_dtype())
        magnitude = np.abs(_array_of(input))
        # c10's float -> bfloat16 conversion of a number makes every NaN a positive one
        negative = bool(_sign_bits(np.array(float(other)))) and not (
            input.dtype == _ag.bfloat16 and np.isnan(other))
        result = _wrap_array(-magnitude if negative else magnitude)
        ctx.save_for_backward(input, result)
        ctx.save_for_forward(input, result)
        return result

    @staticmethod
    def backward(ctx, grad):
        input, result = ctx.saved_tensors
        return _copysign_gradient(grad, input, result), None

    @staticmethod
    def jvp(ctx, input_t, other_t):
        input, result = ctx.saved_tensors
        return _copysign_gradient(input_t, input, result)


class Heaviside(Function):
    """``heaviside``'s op (torch's ``NotImplemented`` node: no derivative)."""
    builtin_op = True

    @staticmethod
    def forward(ctx, input, values):
        array, at_zero = _array_of(input), _array_of(values)
        step = np.where(array > 0, np.ones_like(array), np.zeros_like(array))
        return _wrap_array(np.where(array == 0, at_zero, step).astype(array.dtype))

    @staticmethod
    def backward(ctx, grad):
        raise RuntimeError("derivative for aten::heaviside is not implemented")


Copysign._backward_cls.__name__ = "CopysignBackward0"
CopysignNumber._backward_cls.__name__ = "CopysignBackward1"
Heaviside._backward_cls.__name__ = "NotImplemented"


def copysign(input, other):
    """``input``'s magnitudes with ``other``'s signs (a zero's sign bit counts: NOTE [The
    sign bit of a zero])."""
    dtype = _ag.result_type(input, other)
    if dtype.is_complex:
        raise NotImplementedError(f"\"copysign_cpu\" not implemented for '{dtype._scalar_name}'")
    if isinstance(other, Tensor):
        return Copysign.apply(input, other)
    return CopysignNumber.apply(input, other)


def signbit(input):
    """Where the sign bit is set: negative numbers and -0.0."""
    if input.is_complex():
        raise NotImplementedError("signbit is not implemented for complex tensors.")
    return _wrap_array(_sign_bits(_array_of(input)))


def _refuse_complex_infinity(input, name):
    if input.is_complex():
        raise RuntimeError(f"{name} does not support complex inputs.")


def isposinf(input):
    """Where the entries are +inf."""
    _refuse_complex_infinity(input, "isposinf")
    return input == float("inf") if input.is_floating_point() else input != input


def isneginf(input):
    """Where the entries are -inf."""
    _refuse_complex_infinity(input, "isneginf")
    return input == float("-inf") if input.is_floating_point() else input != input


def heaviside(input, values):
    """The step function: 0 below zero, 1 above, ``values`` at zero."""
    if input.is_complex() or values.is_complex():
        raise RuntimeError("heaviside is not yet implemented for complex tensors.")
    if input.dtype != values.dtype:
        raise RuntimeError("heaviside is not yet implemented for tensors with different "
                           "dtypes.")
    return Heaviside.apply(input, values)


_register_methods({"copysign": copysign, "signbit": signbit, "isposinf": isposinf,
                   "isneginf": isneginf, "heaviside": heaviside})
