"""``floor``, ``ceil``, ``trunc`` (and its alias ``fix``), ``round`` (with ``decimals=``) and
``frac``: a floating tensor's entries rounded to whole numbers, or what rounding leaves.

Each is one op with torch's node (``FloorBackward0``, ``CeilBackward0``, ``TruncBackward0``,
``RoundBackward0``, ``RoundBackward1`` with decimals, ``FracBackward0``). The rounding ops
are piecewise constant, so their gradient and tangent are zeros (torch's ``zeros_like(grad)``,
not "no gradient"); ``frac(x) = x - trunc(x)`` passes its gradient through unchanged. An
integer tensor is already whole: the rounding ops return a copy of it, in its dtype.

# NOTE [Rounding half to even]
torch's ``round`` rounds a half to the even neighbour (``round(2.5) == 2``), as NumPy's
``np.round``. A device that has no such kernel gets it from ``floor``: with ``r =
floor(x)`` and ``d = x - r``, round up where ``d > 0.5``, or ``d == 0.5`` and ``r`` is odd.
``inf`` and ``nan`` stay as they are (``d`` is nan, so nothing is added); a zero takes the
input's sign (``x * 0``), as ``-0.3`` rounds to ``-0.0``.
With ``decimals=d`` torch's CPU kernel rounds ``x * 10**d`` and divides by ``10**d`` (a
negative ``d``: rounds ``x / 10**-d`` and multiplies), in the input's dtype.

>>> import autograd_cy as ag
>>> ag.tensor([-1.5, 0.5, 2.5, 2.7]).round()
tensor([-2.,  0.,  2.,  3.])
>>> ag.tensor([1.2345]).round(decimals=2)
tensor([1.2300])
"""
import numpy as np

from autograd_cy._C.tensor import _array_of, _register_methods, _wrap_array
from autograd_cy.autograd.function import Function
from autograd_cy.dtypes import _refuse_complex

__all__ = ["floor", "ceil", "trunc", "fix", "round", "frac"]


def _round_half_even(array):
    """``array`` rounded half to even (NOTE [Rounding half to even])."""
    if isinstance(array, np.ndarray):
        return np.round(array)
    whole = np.floor(array)
    rest = array - whole
    up = (rest > 0.5) | ((rest == 0.5) & (np.remainder(whole, 2) == 1))
    rounded = np.where(up, whole + 1, whole)
    return np.where(rounded == 0, array * 0, rounded)      # -0.3 rounds to -0.0


def _round_decimals(array, decimals):
    if decimals == 0:
        return _round_half_even(array)
    if decimals > 0:
        scale = array.dtype.type(10.0 ** decimals)
        return _round_half_even(array * scale) / scale
    scale = array.dtype.type(10.0 ** -decimals)
    return _round_half_even(array / scale) * scale


class _Rounding(Function):
    """A piecewise-constant op: zero gradient and zero tangent (the shared backward)."""
    builtin_op = True

    @staticmethod
    def backward(ctx, grad, *unused):
        return (grad.new_zeros(grad.shape),) + (None,) * ctx.arguments

    @staticmethod
    def jvp(ctx, input_t, *unused):
        return input_t.new_zeros(input_t.shape)

    @staticmethod
    def _output(ctx, input, compute, arguments=0):
        ctx.arguments = arguments
        array = _array_of(input)
        if array.dtype.kind in "iub":
            return _wrap_array(array.copy())
        return _wrap_array(compute(array))


class Floor(_Rounding):
    """``floor``'s op (``FloorBackward0``)."""

    @staticmethod
    def forward(ctx, input):
        return _Rounding._output(ctx, input, np.floor)


class Ceil(_Rounding):
    """``ceil``'s op (``CeilBackward0``)."""

    @staticmethod
    def forward(ctx, input):
        return _Rounding._output(ctx, input, np.ceil)


class Trunc(_Rounding):
    """``trunc``'s op (``TruncBackward0``), also ``fix``'s."""

    @staticmethod
    def forward(ctx, input):
        return _Rounding._output(ctx, input, np.trunc)


class Round(_Rounding):
    """``round``'s op (``RoundBackward0``)."""

    @staticmethod
    def forward(ctx, input):
        return _Rounding._output(ctx, input, _round_half_even)


class RoundDecimals(_Rounding):
    """``round(decimals=...)``'s op (``RoundBackward1``)."""

    @staticmethod
    def forward(ctx, input, decimals):
        return _Rounding._output(ctx, input, lambda a: _round_decimals(a, decimals), 1)


class Frac(Function):
    """``frac``'s op (``FracBackward0``): ``x - trunc(x)``, whose gradient is the gradient."""
    builtin_op = True

    @staticmethod
    def forward(ctx, input):
        array = _array_of(input)
        return _wrap_array(array - np.trunc(array))

    @staticmethod
    def backward(ctx, grad):
        return grad

    @staticmethod
    def jvp(ctx, input_t):
        return input_t.clone()


Floor._backward_cls.__name__ = "FloorBackward0"
Ceil._backward_cls.__name__ = "CeilBackward0"
Trunc._backward_cls.__name__ = "TruncBackward0"
Round._backward_cls.__name__ = "RoundBackward0"
RoundDecimals._backward_cls.__name__ = "RoundBackward1"
Frac._backward_cls.__name__ = "FracBackward0"


def _refuse_complex_input(input, name):
    """torch's NotImplementedError of floor, ceil and trunc for a complex tensor."""
    if input.is_complex():
        raise NotImplementedError(f"{name} is not supported for complex inputs")


def floor(input):
    """The largest whole number at or below each entry."""
    _refuse_complex_input(input, "floor")
    return Floor.apply(input)


def ceil(input):
    """The smallest whole number at or above each entry."""
    _refuse_complex_input(input, "ceil")
    return Ceil.apply(input)


def trunc(input):
    """Each entry rounded towards zero."""
    _refuse_complex_input(input, "trunc")
    return Trunc.apply(input)


def fix(input):
    """``trunc``'s other name."""
    _refuse_complex_input(input, "trunc")
    return Trunc.apply(input)


def round(input, *, decimals=0):
    """Each entry rounded to the nearest whole number, a half to the even one; with
    ``decimals``, to that many decimal places (NOTE [Rounding half to even])."""
    if decimals:
        if not input.is_floating_point():
            raise NotImplementedError(
                f'"round_cpu" not implemented for \'{input.dtype._scalar_name}\'')
        return RoundDecimals.apply(input, int(decimals))
    _refuse_complex(input.dtype, "round_vml_cpu")
    return Round.apply(input)


def frac(input):
    """What is left of each entry after ``trunc``: ``input - trunc(input)``, its sign."""
    if not input.is_floating_point():
        raise NotImplementedError(
            f'"frac_cpu" not implemented for \'{input.dtype._scalar_name}\'')
    return Frac.apply(input)


_register_methods({"floor": floor, "ceil": ceil, "trunc": trunc, "fix": fix, "round": round,
                   "frac": frac})
