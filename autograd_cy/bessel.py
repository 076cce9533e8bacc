"""``i0``: the modified Bessel function of the first kind of order 0.

Computed on the host in float64 with NumPy (a CUDA tensor's values go through the host) and
rounded to the input's dtype (integers and bools give the default float dtype). Its
gradient is ``grad * i1(x)`` (``I0Backward0``), i1 the function of order 1, an op of this
module too (``SpecialI1Backward0``, gradient ``grad * (i0(x) - i1(x) / x)``, 1/2 at 0), so
every order of derivative records again.

# NOTE [Computing I0 and I1]
Up to |x| = 30 the power series I0(x) = sum_k (x^2/4)^k / (k!)^2 and
I1(x) = x/2 sum_k (x^2/4)^k / (k! (k+1)!), whose terms are all positive (no
cancellation), summed for 120 terms (past the last term that counts at |x| = 30). Beyond,
the asymptotic series e^x / sqrt(2 pi x) sum_k (-1)^k a_k(nu) / x^k,
a_k(nu) = prod_{j <= k} (4 nu^2 - (2j - 1)^2) / (k! 8^k), for 40 terms (its terms still
shrink there); e^x computed first, so values overflow to inf past e^709.78 where torch's
do. I0 is even, I1 odd; I0(+-inf) is NaN, as torch's (Cephes') I0 gives.

>>> import autograd_cy as ag
>>> ag.i0(ag.tensor([0.0, 1.0]))
tensor([1.0000, 1.2661])
"""
import numpy as np

import autograd_cy as _ag
from autograd_cy._C.tensor import _array_of, _register_methods, _wrap_array
from autograd_cy.autograd.function import Function

__all__ = ["i0"]

_SERIES_LIMIT = 30.0


def _bessel(x, order):
    """I0 (order 0) or I1 (order 1) of a float64 array (NOTE [Computing I0 and I1])."""
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
    asymptotic = np.exp(large) / np.sqrt(2 * np.pi * large) * series
    value = np.where(magnitude <= _SERIES_LIMIT, total, asymptotic)
    if order == 1:
        value = np.copysign(value, x)
    return np.where(np.isinf(x) & (order == 0), np.nan, value)


def _floating(input):
    if input.is_complex():
        raise NotImplementedError(f"\"i0\" not implemented for '{input.dtype._scalar_name}'")
    return input if input.is_floating_point() else input.to(_ag.get_default_dtype())


def _evaluated(input, order):
    values = np.asarray(_array_of(input.detach().cpu()), dtype=np.float64)
    with np.errstate(all="ignore"):
        result = _bessel(values, order).reshape(values.shape)
    return _wrap_array(result).to(input.dtype).to(input.device)


class I0(Function):
    """``i0``'s op (``I0Backward0``: ``grad * i1(x)``)."""
    builtin_op = True

    @staticmethod
    def forward(ctx, input):
        ctx.save_for_backward(input)
        ctx.input = input
        return _evaluated(input, 0)

    @staticmethod
    def backward(ctx, grad):
        (input,) = ctx.saved_tensors
        return grad * I1.apply(input)

    @staticmethod
    def jvp(ctx, input_t):
        return input_t * I1.apply(ctx.input)


def _i1_derivative(input):
    """i0(x) - i1(x) / x, 1/2 at 0 (the other branch read at 1 there, so that no NaN
    reaches a second derivative)."""
    zero = input == 0
    safe = _ag.where(zero, _ag.ones_like(input), input)
    return _ag.where(zero, _ag.full_like(input, 0.5), I0.apply(input) - I1.apply(safe) / safe)


class I1(Function):
    """The modified Bessel function of order 1 (``SpecialI1Backward0``), i0's gradient."""
    builtin_op = True

    @staticmethod
    def forward(ctx, input):
        ctx.save_for_backward(input)
        ctx.input = input
        return _evaluated(input, 1)

    @staticmethod
    def backward(ctx, grad):
        (input,) = ctx.saved_tensors
        return grad * _i1_derivative(input)

    @staticmethod
    def jvp(ctx, input_t):
        return input_t * _i1_derivative(ctx.input)


I0._backward_cls.__name__ = "I0Backward0"
I1._backward_cls.__name__ = "SpecialI1Backward0"


def i0(input):
    """The modified Bessel function of the first kind of order 0 of each entry."""
    return I0.apply(_floating(input))


_register_methods({"i0": i0})
