"""``i0``, ``i1``: the modified Bessel functions of the first kind of orders 0 and 1, and
``i0e``, ``i1e``, the same scaled by ``exp(-|x|)``.

Computed on the host in float64 with NumPy (a CUDA tensor's values go through the host) and
rounded to the input's dtype (integers and bools give the default float dtype). Its
gradient is ``grad * i1(x)`` (``I0Backward0``), i1 the function of order 1, an op of this
module too (``SpecialI1Backward0``, gradient ``grad * (i0(x) - i1(x) / x)``, 1/2 at 0), so
every order of derivative records again. The scaled ones are alike: ``SpecialI0EBackward0``
gives ``grad * (i1e(x) - sgn(x) i0e(x))``, ``SpecialI1EBackward0`` ``grad * (i0e(x) -
i1e(x) (sgn(x) + 1 / x))``, 1/2 at 0.

# NOTE [Computing I0 and I1]
Up to |x| = 30 the power series I0(x) = sum_k (x^2/4)^k / (k!)^2 and
I1(x) = x/2 sum_k (x^2/4)^k / (k! (k+1)!), whose terms are all positive (no
cancellation), summed for 120 terms (past the last term that counts at |x| = 30). Beyond,
the asymptotic series e^x / sqrt(2 pi x) sum_k (-1)^k a_k(nu) / x^k,
a_k(nu) = prod_{j <= k} (4 nu^2 - (2j - 1)^2) / (k! 8^k), for 40 terms (its terms still
shrink there); e^x computed first, so values overflow to inf past e^709.78 where torch's
do. The scaled ones (i0e, i1e) multiply the series by e^-|x| and leave the asymptotic
series' e^x out, so they neither overflow nor underflow. I0 is even, I1 odd; I0(+-inf) is
NaN, as torch's (Cephes') I0 gives.

>>> import autograd_cy as ag
>>> ag.i0(ag.tensor([0.0, 1.0]))
tensor([1.0000, 1.2661])
"""
import numpy as np

import autograd_cy as _ag
from autograd_cy._C.tensor import _array_of, _register_methods, _wrap_array
from autograd_cy.autograd.function import Function
from autograd_cy.host_values import require_tensor

__all__ = ["i0"]     # i1, i0e, i1e: torch.special's (special/__init__.py)

_SERIES_LIMIT = 30.0


def _bessel(x, order, scaled=False):
    """I0 (order 0) or I1 (order 1) of a float64 array (NOTE [Computing I0 and I1]);
    ``scaled``: times ``exp(-|x|)`` (i0e, i1e), the asymptotic series without its
    ``e^x``."""
    magnitude = np.abs(x)
    small = np.minimum(magnitude, _SERIES_LIMIT)
    quarter_square = small * small / 4
    term = np.ones_like(x) if order == 0 else small / 2
    total = term.copy()
    for k in range(1, 120):
        term = term * quarter_square / (k * (k + order))
        total = total + term
    large = np.maximum(magnitude, _SERIES_LIMIT)
    nu_square = 4 * order * order
    term = np.ones_like(x)
    series = term.copy()
    for k in range(1, 40):
        term = -term * (nu_square - (2 * k - 1) ** 2) / (k * 8 * large)
        series = series + term
    if scaled:
        total = total * np.exp(-small)
        asymptotic = series / np.sqrt(2 * np.pi * large)
    else:
        asymptotic = np.exp(large) / np.sqrt(2 * np.pi * large) * series
    value = np.where(magnitude <= _SERIES_LIMIT, total, asymptotic)
    if order == 1:
        value = np.copysign(value, x)
    if scaled:
        return np.where(np.isinf(x), np.copysign(0.0, x) if order else 0.0, value)
    return np.where(np.isinf(x) & (order == 0), np.nan, value)


def _floating(input, op="i0"):
    if input.is_complex():
        raise NotImplementedError(f"\"{op}\" not implemented for '{input.dtype._scalar_name}'")
    return input if input.is_floating_point() else input.to(_ag.get_default_dtype())


def _evaluated(input, order, scaled=False):
    values = np.asarray(_array_of(input.detach().cpu()), dtype=np.float64)
    with np.errstate(all="ignore"):
        result = _bessel(values, order, scaled).reshape(values.shape)
    return _wrap_array(result).to(input.dtype).to(input.device)


class _ModifiedBessel(Function):
    """One of I0, I1, and their scaled forms ``exp(-|x|) I``: ``order``, ``scaled``; the
    derivative ``slope(x, result)`` is written with the family's ops, so it records."""
    builtin_op = True
    order = 0
    scaled = False

    @classmethod
    def forward(cls, ctx, input):
        ctx.save_for_backward(input)
        result = _evaluated(input, cls.order, cls.scaled)
        ctx.input, ctx.result = input, result
        return result

    @classmethod
    def backward(cls, ctx, grad):
        (input,) = ctx.saved_tensors
        return grad * cls.slope(input, cls.apply(input))

    @classmethod
    def jvp(cls, ctx, input_t):
        return input_t * cls.slope(ctx.input, ctx.result)


def _at_zero_half(input, slope):
    """``slope(safe)`` where ``input`` is nonzero, 1/2 at 0 (the limit of I1's and
    I1e's derivatives; the other branch reads 1 there, so no NaN reaches a second
    derivative)."""
    zero = input == 0
    safe = _ag.where(zero, _ag.ones_like(input), input)
    return _ag.where(zero, _ag.full_like(input, 0.5), slope(safe))


class I0(_ModifiedBessel):
    """``i0``'s op (``I0Backward0``: ``grad * i1(x)``)."""

    @staticmethod
    def slope(input, result):
        return I1.apply(input)


class I1(_ModifiedBessel):
    """The modified Bessel function of order 1 (``SpecialI1Backward0``: ``grad * (i0(x) -
    i1(x) / x)``, 1/2 at 0)."""
    order = 1

    @staticmethod
    def slope(input, result):
        return _at_zero_half(input, lambda x: I0.apply(input) - I1.apply(x) / x)


class I0e(_ModifiedBessel):
    """``exp(-|x|) I0(x)`` (``SpecialI0EBackward0``: ``grad * (i1e(x) - sgn(x) i0e(x))``)."""
    scaled = True

    @staticmethod
    def slope(input, result):
        return I1e.apply(input) - input.sgn() * result


class I1e(_ModifiedBessel):
    """``exp(-|x|) I1(x)`` (``SpecialI1EBackward0``: ``grad * (i0e(x) - i1e(x) (sgn(x) +
    1 / x))``, 1/2 at 0)."""
    order = 1
    scaled = True

    @staticmethod
    def slope(input, result):
        return _at_zero_half(input, lambda x: I0e.apply(input) - I1e.apply(x) * (
            x.sgn() + x.reciprocal()))


I0._backward_cls.__name__ = "I0Backward0"
I1._backward_cls.__name__ = "SpecialI1Backward0"
I0e._backward_cls.__name__ = "SpecialI0EBackward0"
I1e._backward_cls.__name__ = "SpecialI1EBackward0"


def i0(input):
    """The modified Bessel function of the first kind of order 0 of each entry."""
    return I0.apply(_floating(input))


def i1(input):
    """The modified Bessel function of the first kind of order 1 of each entry."""
    require_tensor("special_i1", input)
    return I1.apply(_floating(input, "i1_cpu"))


def i0e(input):
    """The exponentially scaled modified Bessel function of order 0: ``exp(-|x|) i0(x)``."""
    require_tensor("special_i0e", input)
    return I0e.apply(_floating(input, "i0e_cpu"))


def i1e(input):
    """The exponentially scaled modified Bessel function of order 1: ``exp(-|x|) i1(x)``."""
    require_tensor("special_i1e", input)
    return I1e.apply(_floating(input, "i1e_cpu"))


_register_methods({"i0": i0})
