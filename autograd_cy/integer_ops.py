"""Integer ops: ``bitwise_left_shift``, ``bitwise_right_shift`` (the ``<<`` and ``>>``
operators), ``gcd`` and ``lcm``.

Computed on the host with NumPy's integer loops (a CUDA tensor's values go through the
host) in the operands' promoted dtype, which must be an integer one (bools and floats are
refused with torch's ``"lshift_cpu" not implemented for 'Float'``; a bool tensor shifted by
a Python int is promoted to int64 first, as torch). Shifts past the dtype's width, or by a
negative amount, are torch's: a left shift gives 0, a right shift the sign (0 or -1, the
arithmetic shift by ``width - 1``; 0 for uint8). The shifts take a number for either operand;
``gcd`` and ``lcm`` two tensors. ``gcd`` is non-negative (0 for ``gcd(0, 0)``), ``lcm``
``|a / gcd(a, b) * b|`` (0 when either is 0), wrapping on overflow as torch's. None
has a gradient (integer tensors never require grad).

>>> import autograd_cy as ag
>>> ag.tensor([1, 2]) << 3
tensor([ 8, 16])
>>> ag.gcd(ag.tensor([4, 6]), ag.tensor([6, 9]))
tensor([2, 3])
"""
import numpy as np

import autograd_cy as _ag
from autograd_cy._C.tensor import (
    Tensor, _array_of, _register_methods, _register_operators, _wrap_array,
)
from autograd_cy.host_values import broadcast_shape

__all__ = ["bitwise_left_shift", "bitwise_right_shift", "gcd", "lcm"]


def _integer_arrays(kernel, input, other):
    """The operands as NumPy arrays of their promoted integer dtype, and the device."""
    dtype = _ag.result_type(input, other)
    if dtype.is_floating_point or dtype.is_complex or dtype == _ag.bool:
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{dtype._scalar_name}'")
    tensors = [t for t in (input, other) if isinstance(t, Tensor)]
    if len(tensors) == 2:
        broadcast_shape(input.shape, other.shape)
    arrays = [np.asarray(_array_of((o if isinstance(o, Tensor) else _ag.tensor(o)).to(
        dtype).cpu())) for o in (input, other)]
    return arrays, tensors[0].device


def _shift(kernel, input, other, left):
    if not isinstance(input, Tensor) and not isinstance(other, Tensor):
        name = "bitwise_left_shift" if left else "bitwise_right_shift"
        raise TypeError(f"{name}() received an invalid combination of arguments - got "
                        f"({type(input).__name__}, {type(other).__name__})")
    (a, b), device = _integer_arrays(kernel, input, other)
    width = 8 * a.dtype.itemsize
    inside = (b >= 0) & (b < width)
    amount = np.where(inside, b, 0).astype(a.dtype)
    if left:
        result = np.where(inside, np.left_shift(a, amount), 0)
    else:
        beyond = np.right_shift(a, width - 1) if np.issubdtype(a.dtype, np.signedinteger) \
            else np.zeros_like(a)
        result = np.where(inside, np.right_shift(a, amount), beyond)
    return _wrap_array(np.array(result.astype(a.dtype))).to(device)


def bitwise_left_shift(input, other):
    """``input << other``: the bits of each integer moved left (0 past the width)."""
    return _shift("lshift_cpu", input, other, True)


def bitwise_right_shift(input, other):
    """``input >> other``: the arithmetic shift right (the sign past the width)."""
    return _shift("rshift_cpu", input, other, False)


def _two_tensors(name, input, other):
    for position, (argument, value) in enumerate((("input", input), ("other", other)), 1):
        if not isinstance(value, Tensor):
            raise TypeError(f"{name}(): argument '{argument}' (position {position}) must be "
                            f"Tensor, not {type(value).__name__}")


def gcd(input, other):
    """The greatest common divisor of each pair, non-negative."""
    _two_tensors("gcd", input, other)
    (a, b), device = _integer_arrays("gcd_cpu", input, other)
    return _wrap_array(np.array(np.gcd(a, b).astype(a.dtype))).to(device)


def lcm(input, other):
    """The least common multiple of each pair, non-negative (0 when either is 0)."""
    _two_tensors("lcm", input, other)
    (a, b), device = _integer_arrays("lcm_cpu", input, other)
    with np.errstate(all="ignore"):
        divisor = np.gcd(a, b)
        result = np.abs(np.where(divisor == 0, 0, a // np.where(divisor == 0, 1, divisor)) * b)
    return _wrap_array(np.array(result.astype(a.dtype))).to(device)


_register_methods({"bitwise_left_shift": bitwise_left_shift,
                   "bitwise_right_shift": bitwise_right_shift, "gcd": gcd, "lcm": lcm})
_register_operators({
    "lshift": bitwise_left_shift, "rshift": bitwise_right_shift,
    "rlshift": lambda self, other: bitwise_left_shift(other, self),     # number << tensor
    "rrshift": lambda self, other: bitwise_right_shift(other, self),
    "ilshift": lambda self, other: self.bitwise_left_shift_(other),
    "irshift": lambda self, other: self.bitwise_right_shift_(other),
})
