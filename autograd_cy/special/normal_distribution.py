"""The standard normal distribution's functions: ``ndtr`` (its CDF), ``log_ndtr``,
``ndtri`` (the CDF's inverse) and ``erfcx`` (the scaled complementary error function
``exp(x^2) erfc(x)`` its tails are computed with).

``ndtr(x) = (1 + erf(x / sqrt 2)) / 2`` is composed of recorded ops, as torch composes it
(its node is the last ``mul``'s: torch's ``MulBackward1``, of a tensor and a number, is
``MulBackward0`` here, where one node serves both). The others are computed on the host in float64
(host_values.py) under one node each, with torch's formulas:
``SpecialErfcxBackward0`` ``g * (2 x erfcx(x) - 2 / sqrt(pi))``,
``SpecialLogNdtrBackward0`` ``g / sqrt(2 pi) * exp(-(log_ndtr(x) + x^2 / 2))``,
``SpecialNdtriBackward0`` ``g * sqrt(2 pi) * exp(ndtri(p)^2 / 2)``; their result is saved,
so every order of derivative records again.

# NOTE [Computing the normal distribution's tails]
erfc comes from the C library (autograd_cy's ``erfc``), accurate relative to its value in
the far tail where ``1 - erf`` is 0. erfcx(x) is ``exp(x^2) erfc(x)`` below 26 (erfc(26) is
~1e-296, still a normal number; ``exp(x^2)`` overflows to inf below -26.6, as torch's) and
the asymptotic series ``1 / (x sqrt(pi)) sum_k (-1)^k (2k - 1)!! / (2 x^2)^k`` (twelve
terms) from 26 on. log_ndtr is torch's split: ``log(erfcx(-x / sqrt 2) / 2) - x^2 / 2``
below -1, ``log1p(-erfc(x / sqrt 2) / 2)`` above. ndtri(p) solves in the lower tail,
``q = min(p, 1 - p)`` (``1 - p`` is exact there), starting from Abramowitz and Stegun's
26.2.23 (error below 4.5e-4), then six Newton steps on ``log ndtr(x) = log q`` (quadratic
convergence, and the log keeps the steps well scaled down to subnormal ``q``); the sign
is flipped back for ``p > 1/2``. 0 and 1 give -inf and inf, outside [0, 1] NaN.

>>> import autograd_cy as ag
>>> ag.special.ndtr(ag.tensor([0.0]))
tensor([0.5000])
"""
import math

import numpy as np

import autograd_cy as _ag
from autograd_cy._C.tensor import _array_of, _wrap_array
from autograd_cy.autograd.function import Function
from autograd_cy.host_values import host_values, require_tensor

__all__ = ["ndtr", "log_ndtr", "ndtri", "erfcx"]

_SQRT1_2 = math.sqrt(0.5)
_SQRT_PI = math.sqrt(math.pi)
_SQRT_2PI = math.sqrt(2 * math.pi)


def _erfc(x):
    return _array_of(_ag.erfc(_wrap_array(np.ascontiguousarray(x, dtype=np.float64))))


def _erfcx(x):
    x = np.asarray(x, dtype=np.float64)
    near = np.minimum(x, 26.0)
    direct = np.exp(near * near) * _erfc(near)
    far = np.maximum(x, 26.0)
    inverse = 1 / (2 * far * far)
    term = np.ones_like(far)
    series = term.copy()
    for k in range(1, 12):
        term = -term * (2 * k - 1) * inverse
        series = series + term
    return np.where(x < 26, direct, series / (far * _SQRT_PI))


def _log_ndtr(x):
    t = np.asarray(x, dtype=np.float64) * _SQRT1_2
    return np.where(t < -_SQRT1_2, np.log(_erfcx(-t) / 2) - t * t, np.log1p(-_erfc(t) / 2))


def _ndtri(p):
    p = np.asarray(p, dtype=np.float64)
    upper = p > 0.5
    q = np.where(upper, 1 - p, p)
    inside = (q > 0) & (q <= 0.5)
    q_safe = np.where(inside, q, 0.25)
    t = np.sqrt(-2 * np.log(q_safe))
    x = -(t - (2.515517 + 0.802853 * t + 0.010328 * t * t) / (
        1 + 1.432788 * t + 0.189269 * t * t + 0.001308 * t ** 3))
    target = np.log(q_safe)
    for _ in range(6):
        ratio = np.exp(_log_ndtr(x) + x * x / 2) * _SQRT_2PI     # ndtr(x) / pdf(x)
        x = x - (_log_ndtr(x) - target) * ratio
    x = np.where(q_safe == 0.5, 0.0, x)
    x = np.where(upper, -x, x)
    x = np.where(p == 0, -np.inf, np.where(p == 1, np.inf, x))
    return np.where((p < 0) | (p > 1) | np.isnan(p), np.nan, x)


class _HostUnary(Function):
    """An op of one tensor computed by ``values`` on the host, whose derivative
    ``slope(x, result)`` is written with recorded ops."""
    builtin_op = True
    op = ""

    @classmethod
    def forward(cls, ctx, input):
        result = host_values(cls.values, input, op=cls.op)
        input = input if input.dtype == result.dtype else input.to(result.dtype)
        ctx.save_for_backward(input, result)
        ctx.input = input
        ctx.result = result
        return result

    @classmethod
    def backward(cls, ctx, grad):
        input, result = ctx.saved_tensors
        return grad * cls.slope(input, result)

    @classmethod
    def jvp(cls, ctx, input_t):
        return input_t * cls.slope(ctx.input, ctx.result)


class Erfcx(_HostUnary):
    """``erfcx``'s op (``SpecialErfcxBackward0``)."""
    op = "erfcx_cpu"
    values = staticmethod(_erfcx)

    @staticmethod
    def slope(input, result):
        return 2.0 * input * result - 2.0 / _SQRT_PI


class LogNdtr(_HostUnary):
    """``log_ndtr``'s op (``SpecialLogNdtrBackward0``)."""
    op = "log_ndtr_cpu"
    values = staticmethod(_log_ndtr)

    @staticmethod
    def slope(input, result):
        return _ag.exp(-(result + input * input / 2)) / _SQRT_2PI


class Ndtri(_HostUnary):
    """``ndtri``'s op (``SpecialNdtriBackward0``)."""
    op = "ndtri_cpu"
    values = staticmethod(_ndtri)

    @staticmethod
    def slope(input, result):
        return _SQRT_2PI * _ag.exp(result * result / 2)


Erfcx._backward_cls.__name__ = "SpecialErfcxBackward0"
LogNdtr._backward_cls.__name__ = "SpecialLogNdtrBackward0"
Ndtri._backward_cls.__name__ = "SpecialNdtriBackward0"


def ndtr(input):
    """The standard normal CDF: the area under the Gaussian from -inf to ``input``."""
    require_tensor("special_ndtr", input)
    return (1 + _ag.erf(input * _SQRT1_2)) * 0.5


def log_ndtr(input):
    """The log of the standard normal CDF, accurate in the far left tail."""
    require_tensor("special_log_ndtr", input)
    return LogNdtr.apply(input)


def ndtri(input):
    """The standard normal CDF's inverse: the ``x`` whose ``ndtr`` is ``input``."""
    require_tensor("special_ndtri", input)
    return Ndtri.apply(input)


def erfcx(input):
    """The scaled complementary error function ``exp(x^2) erfc(x)``."""
    require_tensor("special_erfcx", input)
    return Erfcx.apply(input)
