"""The log-gamma function and its derivatives: ``lgamma``, ``digamma``, ``polygamma``,
``mvlgamma``.

Each is computed on the host in float64 with NumPy (a CUDA tensor's values go through the
host) and rounded to the input's dtype (integers and bools give the default float dtype;
complex inputs are refused, as torch's CPU kernels refuse them):
- ``lgamma``: ``math.lgamma`` for each entry, ``inf`` at the poles (0 and the negative
  integers);
- ``digamma`` (``polygamma(0, x)``), ``polygamma(1, x)`` and ``polygamma(n, x)`` for
  ``n >= 2``: NOTE [Computing the polygamma functions];
- ``mvlgamma(x, p)``: ``sum_j lgamma(x - j / 2) + p (p - 1) / 4 log(pi)``, composed of
  ``lgamma`` under one node, ``MvlgammaBackward0`` (NOTE [An op that differentiates its
  composition]).
The ops are one family: ``LgammaBackward0`` gives ``grad * digamma(x)``,
``DigammaBackward0`` ``grad * polygamma(1, x)``, ``PolygammaBackward0`` ``grad *
polygamma(n + 1, x)``, each through the next op, so every order of derivative records
again; tangents alike. ``Tensor.polygamma_(n)`` writes ``polygamma(n, x)`` into ``x`` under
torch's node of the in-place form, ``PolygammaBackward1`` (NOTE [An op that differentiates
its composition]).

# NOTE [Computing the polygamma functions]
The constants come from the Bernoulli numbers B_2k, computed here exactly (fractions).
- digamma: torch's scheme. Below 0 the reflection psi(x) = psi(1 - x) - pi / tan(pi r),
  r the fractional part of x (NaN at the negative integers; -inf at +0, inf at -0); the
  recurrence psi(x) = psi(x + 1) - 1 / x moves x to at least 10 (10 itself:
  psi(10) = H_9 - gamma exactly); then the asymptotic series
  log x - 1 / (2x) - sum_k B_2k / (2k x^2k), seven terms.
- polygamma(1, x): torch's scheme, so its values: below 1/2 the reflection
  psi1(x) = pi^2 / sin^2(pi x) - psi1(1 - x), six recurrence steps
  (psi1(x) = psi1(x + 1) + 1 / x^2), then 1/x + 1/(2x^2) + 1/(6x^3) - 1/(30x^5) + 1/(42x^7).
- polygamma(n, x), n >= 2: (-1)^(n+1) n! zeta(n + 1, x), the Hurwitz zeta function
  summed directly until the argument passes 9 (at least nine terms), the rest by the
  Euler-Maclaurin formula with twelve Bernoulli corrections; infinite at the
  non-positive integers, NaN at +inf (as torch's).

>>> import autograd_cy as ag
>>> ag.tensor([1.0, 2.0]).digamma()
tensor([-0.5772,  0.4228])
"""
import math
from fractions import Fraction

import numpy as np

import autograd_cy as _ag
from autograd_cy._C.tensor import _array_of, _register_methods, _wrap_array
from autograd_cy.autograd.function import Function
from autograd_cy.composed_ops import ComposedOp

__all__ = ["lgamma", "digamma", "polygamma", "mvlgamma"]


def _bernoulli(count):
    """B_0 .. B_count as fractions (B_1 = -1/2), by the recurrence
    sum_{j <= m} C(m + 1, j) B_j = 0."""
    numbers = [Fraction(1)]
    for m in range(1, count + 1):
        numbers.append(-sum(math.comb(m + 1, j) * numbers[j] for j in range(m)) / (m + 1))
    return numbers


_B = _bernoulli(24)
# digamma's asymptotic terms B_2k / (2k), k = 1 .. 7
_DIGAMMA_TERMS = [float(_B[2 * k] / (2 * k)) for k in range(1, 8)]
# Euler-Maclaurin's (2j)! / B_2j, j = 1 .. 12
_ZETA_DIVISORS = [float(math.factorial(2 * j) / _B[2 * j]) for j in range(1, 13)]
_PSI_10 = float(sum(Fraction(1, k) for k in range(1, 10))) - 0.57721566490153286061
_EPSILON = np.finfo(np.float64).eps


def _lgamma(x):
    def one(value):
        if value <= 0 and (math.isinf(value) or value == math.floor(value)):
            return math.inf
        return math.lgamma(value)
    return np.asarray(np.frompyfunc(one, 1, 1)(x), dtype=np.float64)   # (0-dim: a float)


def _digamma(x):
    x = np.asarray(x, dtype=np.float64)
    integer = x == np.trunc(x)
    reflected = x < 0
    y = np.where(reflected, 1 - x, x)
    result = np.zeros_like(y)
    shift = y < 10
    while shift.any():
        result -= np.where(shift, 1 / np.where(shift, y, 1), 0)
        y = np.where(shift, y + 1, y)
        shift = y < 10
    z = 1 / (y * y)
    series = np.zeros_like(y)
    for term in reversed(_DIGAMMA_TERMS):
        series = series * z + term
    series = np.where(y < 1e17, series * z, 0)
    value = np.where(y == 10, result + _PSI_10, result + np.log(y) - 0.5 / y - series)
    reflection = np.pi / np.tan(np.pi * np.fmod(x, 1))
    value = np.where(reflected, value - reflection, value)
    value = np.where(reflected & integer, np.nan, value)
    return np.where(x == 0, np.copysign(np.inf, -x), value)


def _trigamma(x):
    x = np.asarray(x, dtype=np.float64)
    below = x < 0.5
    sine = np.sin(np.pi * x)
    result = np.where(below, -(np.pi * np.pi) / (sine * sine), 0.0)
    sign = np.where(below, -1.0, 1.0)
    y = np.where(below, 1 - x, x)
    for _ in range(6):
        result += 1 / (y * y)
        y = y + 1
    inverse_square = 1 / (y * y)
    result += (1 + 1 / (2 * y) + inverse_square * (1 / 6 - inverse_square * (
        1 / 30 - inverse_square * (1 / 42)))) / y
    return sign * result


def _hurwitz_zeta(s, q):
    """zeta(s, q) for s > 1, a number or an array broadcast with q (NOTE [Computing the
    polygamma functions]; special/zeta.py adds the domain of a real s)."""
    q = np.asarray(q, dtype=np.float64)
    pole = (q <= 0) & (q == np.floor(q))
    steps = np.maximum(9, np.ceil(9 - np.nan_to_num(q, nan=9.0, posinf=9.0, neginf=9.0)))
    total = q ** -s
    a = q.copy()
    for k in range(1, int(steps.max()) + 1 if steps.size else 1):
        more = k <= steps
        a = np.where(more, q + k, a)
        total = total + np.where(more, a ** -s, 0)
    w = a
    b = w ** -s
    total = total + b * w / (s - 1) - 0.5 * b
    factor = np.ones_like(q)
    k = 0.0
    for divisor in _ZETA_DIVISORS:
        factor = factor * (s + k)
        b = b / w
        total = total + factor * b / divisor
        k += 1
        factor = factor * (s + k)
        b = b / w
        k += 1
    return np.where(pole, np.inf, total)


def _polygamma(n, x):
    if n == 0:
        return _digamma(x)
    if n == 1:
        return _trigamma(x)
    sign = 1.0 if n % 2 else -1.0
    return sign * math.exp(math.lgamma(n + 1.0)) * _hurwitz_zeta(float(n + 1), x)


def _floating(input, op):
    if input.is_complex():
        raise NotImplementedError(f"\"{op}\" not implemented for "
                                  f"'{input.dtype._scalar_name}'")
    if not input.is_floating_point():
        input = input.to(_ag.get_default_dtype())
    return input


def _evaluated(function, input):
    """``function`` of ``input``'s values in float64 on the host, as a tensor of
    ``input``'s dtype and device."""
    values = np.asarray(_array_of(input.detach().cpu()), dtype=np.float64)
    with np.errstate(all="ignore"):
        result = np.asarray(function(values), dtype=np.float64).reshape(values.shape)
    return _wrap_array(result).to(input.dtype).to(input.device)


class Lgamma(Function):
    """``lgamma``'s op (``LgammaBackward0``: ``grad * digamma(x)``)."""
    builtin_op = True

    @staticmethod
    def forward(ctx, input):
        ctx.save_for_backward(input)
        ctx.input = input
        return _evaluated(_lgamma, input)

    @staticmethod
    def backward(ctx, grad):
        (input,) = ctx.saved_tensors
        return grad * Polygamma.apply(input, 0)

    @staticmethod
    def jvp(ctx, input_t):
        return input_t * Polygamma.apply(ctx.input, 0)


class Polygamma(Function):
    """``polygamma(n, x)``'s op (``PolygammaBackward0``, ``DigammaBackward0`` for
    ``digamma``: ``grad * polygamma(n + 1, x)``)."""
    builtin_op = True

    @staticmethod
    def forward(ctx, input, n):
        ctx.n = n
        ctx.save_for_backward(input)
        ctx.input = input
        return _evaluated(lambda values: _polygamma(n, values), input)

    @staticmethod
    def backward(ctx, grad):
        (input,) = ctx.saved_tensors
        return grad * Polygamma.apply(input, ctx.n + 1), None

    @staticmethod
    def jvp(ctx, input_t, n_t):
        return input_t * Polygamma.apply(ctx.input, ctx.n + 1)


class Digamma(Polygamma):
    """``digamma``'s op (``DigammaBackward0``)."""


Lgamma._backward_cls.__name__ = "LgammaBackward0"
Polygamma._backward_cls.__name__ = "PolygammaBackward0"
Digamma._backward_cls.__name__ = "DigammaBackward0"


def lgamma(input):
    """The log of the absolute value of the gamma function of each entry."""
    return Lgamma.apply(_floating(input, "lgamma_vml_cpu"))


def digamma(input):
    """The logarithmic derivative of the gamma function (``polygamma(0, input)``)."""
    return Digamma.apply(_floating(input, "digamma"), 0)


def polygamma(n, input):
    """The ``n``-th derivative of ``digamma``."""
    if isinstance(n, bool) or not isinstance(n, int):
        raise TypeError(f"polygamma(): argument 'n' (position 1) must be int, not "
                        f"{type(n).__name__}")
    if n < 0:
        raise RuntimeError("polygamma(n, x) does not support negative n.")
    return Polygamma.apply(_floating(input, "polygamma"), n)


class Mvlgamma(ComposedOp):
    """``mvlgamma``'s op (``MvlgammaBackward0``)."""


Mvlgamma._backward_cls.__name__ = "MvlgammaBackward0"


def mvlgamma(input, p):
    """The log of the multivariate gamma function of dimension ``p``:
    ``sum_{j < p} lgamma(input - j / 2) + p (p - 1) / 4 log(pi)``."""
    if p < 1:
        raise RuntimeError("p has to be greater than or equal to 1")
    input = _floating(input, "mvlgamma")
    offsets = _ag.arange(-p / 2 + 0.5, 0.5, 0.5, dtype=input.dtype, device=input.device)
    constant = p * (p - 1) * math.log(math.pi) / 4
    return Mvlgamma.apply(lambda x: lgamma(offsets + x.unsqueeze(-1)).sum(-1) + constant,
                          input)


def _polygamma_method(self, n):
    """``polygamma(n, self)``."""
    return polygamma(n, self)


class PolygammaInPlace(ComposedOp):
    """``polygamma_``'s op (torch's ``PolygammaBackward1``, the in-place form's node)."""


PolygammaInPlace._backward_cls.__name__ = "PolygammaBackward1"


def polygamma_(self, n):
    """``polygamma(n, self)`` written into ``self``."""
    from autograd_cy._C.ops.inplace import apply_in_place
    return apply_in_place(self, lambda source: PolygammaInPlace.apply(
        lambda x: polygamma(n, x), source), ())


_register_methods({"lgamma": lgamma, "digamma": digamma, "polygamma": _polygamma_method,
                   "polygamma_": polygamma_, "mvlgamma": mvlgamma})
