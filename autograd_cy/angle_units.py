"""``deg2rad`` and ``rad2deg``: angles converted between degrees and radians.

A product with the constant (pi / 180 or 180 / pi), so its gradients and tangents are
``mul``'s; an integer or bool input is converted to the default float dtype first, a
complex one refused, as torch does.

>>> import autograd_cy as ag
>>> ag.tensor([180.0]).deg2rad()
tensor([3.1416])
"""
import math

import autograd_cy as _ag
from autograd_cy._C.tensor import _register_methods

__all__ = ["deg2rad", "rad2deg"]


def _scaled(name, input, factor):
    if input.is_complex():
        raise RuntimeError(f"{name} is not supported for complex tensors.")
    if not input.is_floating_point():
        input = input.to(_ag.get_default_dtype())
    return input * factor


def deg2rad(input):
    """``input`` (in degrees) in radians."""
    return _scaled("deg2rad", input, math.pi / 180)


def rad2deg(input):
    """``input`` (in radians) in degrees."""
    return _scaled("rad2deg", input, 180 / math.pi)


_register_methods({"deg2rad": deg2rad, "rad2deg": rad2deg})
