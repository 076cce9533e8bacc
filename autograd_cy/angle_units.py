"""``deg2rad`` and ``rad2deg``: angles converted between degrees and radians.

A product with the constant (pi / 180 or 180 / pi), torch's nodes (``Deg2RadBackward0``,
``Rad2DegBackward0``) scaling the gradient and the tangent alike; an integer or bool input
is converted to the default float dtype first, a complex one refused, as torch does.

>>> import autograd_cy as ag
>>> ag.tensor([180.0]).deg2rad()
tensor([3.1416])
"""
import math

import autograd_cy as _ag
from autograd_cy._C.tensor import _register_methods
from autograd_cy.autograd.function import Function

__all__ = ["deg2rad", "rad2deg"]


class _Scale(Function):
    builtin_op = True

    @staticmethod
    def forward(ctx, input, factor):
        ctx.factor = factor
        return input * factor

    @staticmethod
    def backward(ctx, grad):
        return grad * ctx.factor, None

    @staticmethod
    def jvp(ctx, input_t, factor_t):
        return input_t * ctx.factor


class Deg2Rad(_Scale):
    """``deg2rad``'s op (``Deg2RadBackward0``)."""


class Rad2Deg(_Scale):
    """``rad2deg``'s op (``Rad2DegBackward0``)."""


Deg2Rad._backward_cls.__name__ = "Deg2RadBackward0"
Rad2Deg._backward_cls.__name__ = "Rad2DegBackward0"


def _scaled(name, input, factor):
    if input.is_complex():
        raise RuntimeError(f"{name} is not supported for complex tensors.")
    if not input.is_floating_point():
        input = input.to(_ag.get_default_dtype())
    return (Deg2Rad if name == "deg2rad" else Rad2Deg).apply(input, factor)


def deg2rad(input):
    """``input`` (in degrees) in radians."""
    return _scaled("deg2rad", input, math.pi / 180)


def rad2deg(input):
    """``input`` (in radians) in degrees."""
    return _scaled("rad2deg", input, 180 / math.pi)


_register_methods({"deg2rad": deg2rad, "rad2deg": rad2deg})
