"""torch.special's Bessel functions: ``bessel_j0``, ``bessel_j1``, ``bessel_y0``,
``bessel_y1`` (first and second kind), ``modified_bessel_i0``, ``modified_bessel_i1``,
``modified_bessel_k0``, ``modified_bessel_k1`` (modified, first and second kind),
``scaled_modified_bessel_k0``, ``scaled_modified_bessel_k1`` (``exp(x) K``),
``spherical_bessel_j0`` (``sin(x) / x``) and ``airy_ai``.

Values are computed on the host in float64 (host_values.py) and rounded to the promoted
floating dtype. torch gives these no derivative: the result never requires grad, whatever
the input (as torch's).

# NOTE [Computing the Bessel functions]
- J0, J1, Y0, Y1: up to |x| = 14 the power series (J_n: sum_k (-1)^k (x/2)^(2k+n) /
  (k! (k+n)!); Y_n: (2/pi) log(x/2) J_n plus the series with the harmonic numbers H_k,
  A&S 9.1.13 and 9.1.11), whose cancellation costs at most I0(14) ~ 1e5 ulps; beyond,
  Hankel's expansion sqrt(2/(pi x)) (P cos chi -+ Q sin chi), chi = x - (n/2 + 1/4) pi,
  chi rounded to float64 first as torch's (so far out, where the rounding of chi is the
  error, the values are torch's), its terms
  a_k = prod_{j <= k} (4 n^2 - (2j - 1)^2) / (k! 8^k x^k) summed to k = 27 (the smallest
  term at x = 14 is ~1e-13). J0 is even, J1 odd, Y NaN below 0 and -inf at 0; J and Y of
  +-inf are NaN, as torch's.
- I0, I1: bessel.py (NOTE [Computing I0 and I1]).
- K0, K1 (scaled: exp(x) K): up to x = 2 the series of A&S 9.6.13 and 9.6.11 (no
  cancellation there); up to 30 the integral exp(x) K_nu(x) = int_0^inf
  exp(-x (cosh t - 1)) cosh(nu t) dt by the trapezoidal rule (step 0.05 to t = 7: the
  integrand is analytic and decays doubly exponentially, so the error is below 1e-20);
  beyond, the asymptotic series sqrt(pi / (2x)) sum_k a_k(nu) / x^k (all terms positive),
  30 terms. inf at 0, NaN below.
- Ai: the Maclaurin series Ai(0) f(x) + Ai'(0) g(x) on [-8, 2]; above 2,
  Ai(x) = sqrt(x / 3) K_{1/3}(zeta) / pi, zeta = 2/3 x^(3/2), by the K integral and
  series above; below -8 the asymptotic series of Ai(-x) (DLMF 9.7.9), 20 terms. NaN at
  +-inf, as torch's.

>>> import autograd_cy as ag
>>> ag.special.bessel_j0(ag.tensor([0.0, 1.0]))
tensor([1.0000, 0.7652])
"""
import math

import numpy as np

from autograd_cy.bessel import _bessel
from autograd_cy.grad_mode import no_grad
from autograd_cy.host_values import host_values, require_tensor

__all__ = ["bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1", "modified_bessel_i0",
           "modified_bessel_i1", "modified_bessel_k0", "modified_bessel_k1",
           "scaled_modified_bessel_k0", "scaled_modified_bessel_k1", "spherical_bessel_j0",
           "airy_ai"]

_EULER = 0.57721566490153286061
_SERIES_LIMIT = 14.0


def _hankel_terms(order, x, count, alternating=True):
    """The terms a_k(order) / x^k, k < count, of the Hankel expansions (signs (-1)^k
    folded into P and Q by the caller when ``alternating``)."""
    mu = 4.0 * order * order
    term = np.ones_like(x)
    terms = [term]
    for k in range(1, count):
        term = term * (mu - (2 * k - 1) ** 2) / (k * 8 * x)
        terms.append(term)
    return terms


def _hankel(order, x, second_kind):
    terms = _hankel_terms(order, x, 28)
    p = sum(t * (-1) ** (k // 2) for k, t in enumerate(terms) if k % 2 == 0)
    q = sum(t * (-1) ** (k // 2) for k, t in enumerate(terms) if k % 2 == 1)
    phase = (order / 2 + 0.25) * math.pi
    cos_chi, sin_chi = np.cos(x - phase), np.sin(x - phase)
    scale = np.sqrt(2 / (math.pi * x))
    if second_kind:
        return scale * (p * sin_chi + q * cos_chi)
    return scale * (p * cos_chi - q * sin_chi)


def _series(order, x, second_kind):
    """J_order(x) (or Y_order(x)) by the power series, x >= 0."""
    half = x / 2
    quarter_square = half * half
    term = np.ones_like(x) if order == 0 else half.copy()   # (x/2)^n / n!
    j_sum = term.copy()
    harmonic, y_sum = 0.0, np.zeros_like(x)
    if order == 1:
        y_sum = term * 1.0               # psi(1) + psi(2) + 2 gamma = 1 at k = 0
    for k in range(1, 60):
        term = -term * quarter_square / (k * (k + order))
        j_sum = j_sum + term
        harmonic += 1.0 / k
        if second_kind:
            weight = harmonic if order == 0 else 2 * harmonic + 1.0 / (k + 1)
            y_sum = y_sum + weight * term
    if not second_kind:
        return j_sum
    log_half = np.log(half)
    if order == 0:
        return 2 / math.pi * ((log_half + _EULER) * j_sum - y_sum)
    return (-2 / (math.pi * x) + 2 / math.pi * (log_half + _EULER) * j_sum
            - y_sum / math.pi)


def _first_or_second_kind(order, x, second_kind):
    magnitude = np.abs(x)
    small = np.minimum(magnitude, _SERIES_LIMIT)
    large = np.maximum(magnitude, _SERIES_LIMIT)
    value = np.where(magnitude <= _SERIES_LIMIT, _series(order, small, second_kind),
                     _hankel(order, large, second_kind))
    if second_kind:
        value = np.where(x == 0, -np.inf, np.where(x < 0, np.nan, value))
    elif order == 1:
        value = np.where(x < 0, -value, value)
    return np.where(np.isinf(x), np.nan, value)


def _k_series(order, x):
    """K0 or K1 by A&S 9.6.13 / 9.6.11, for 0 < x <= 2."""
    quarter_square = x * x / 4
    log_half = np.log(x / 2)
    if order == 0:
        term, total, harmonic = np.ones_like(x), np.zeros_like(x), 0.0
        for k in range(1, 40):
            term = term * quarter_square / (k * k)
            harmonic += 1.0 / k
            total = total + harmonic * term
        return -(log_half + _EULER) * _bessel(x, 0) + total
    term, harmonic = np.ones_like(x), 0.0
    total = (1.0 - 2 * _EULER) * term          # psi(1) + psi(2) at k = 0
    for k in range(1, 40):
        term = term * quarter_square / (k * (k + 1))
        harmonic += 1.0 / k
        total = total + (2 * harmonic + 1.0 / (k + 1) - 2 * _EULER) * term
    return 1 / x + log_half * _bessel(x, 1) - x / 4 * total


_STEPS = np.arange(0, 7.0 + 1e-9, 0.05)
_WEIGHTS = np.where(_STEPS == 0, 0.025, 0.05)


def _scaled_k_integral(order, x):
    """exp(x) K_order(x) by the trapezoidal rule, x > 0 (order may be fractional)."""
    total = np.zeros_like(x)
    for t, w in zip(_STEPS, _WEIGHTS):       # one pass per node: memory of one x
        total = total + w * math.cosh(order * t) * np.exp(-x * (math.cosh(t) - 1))
    return total


def _scaled_k_asymptotic(order, x):
    return np.sqrt(math.pi / (2 * x)) * sum(_hankel_terms(order, x, 30))


def _scaled_k(order, x):
    """exp(x) K_order(x) for x > 0 (NOTE [Computing the Bessel functions])."""
    middle = np.clip(x, 1.0, 30.0)
    value = np.where(x <= 30, _scaled_k_integral(order, middle),
                     _scaled_k_asymptotic(order, np.maximum(x, 30.0)))
    if order in (0, 1):
        tiny = np.clip(x, 1e-300, 2.0)
        value = np.where(x <= 2, np.exp(tiny) * _k_series(order, tiny), value)
    return value


def _modified_k(order, x, scaled):
    positive = np.where(x > 0, x, 1.0)
    value = _scaled_k(order, positive)
    if not scaled:
        value = value * np.exp(-positive)
    value = np.where(np.isinf(x) & (x > 0), 0.0, value)
    return np.where(x == 0, np.inf, np.where((x < 0) | np.isnan(x), np.nan, value))


_AI_0 = 0.355028053887817239260
_AI_PRIME_0 = -0.258819403792806798405


def _airy_series(x):
    cube = x * x * x
    f_term, g_term = np.ones_like(x), x.copy()
    f, g = f_term.copy(), g_term.copy()
    for k in range(60):
        f_term = f_term * cube / ((3 * k + 2) * (3 * k + 3))
        g_term = g_term * cube / ((3 * k + 3) * (3 * k + 4))
        f, g = f + f_term, g + g_term
    return _AI_0 * f + _AI_PRIME_0 * g


def _airy_oscillating(z):
    """Ai(-z), z >= 8 (DLMF 9.7.9)."""
    zeta = 2 / 3 * z * np.sqrt(z)
    u, terms = 1.0, [np.ones_like(z)]
    for k in range(1, 20):
        u = u * (6 * k - 5) * (6 * k - 3) * (6 * k - 1) / ((2 * k - 1) * 216 * k)
        terms.append(u / zeta ** k)
    p = sum(t * (-1) ** (k // 2) for k, t in enumerate(terms) if k % 2 == 0)
    q = sum(t * (-1) ** (k // 2) for k, t in enumerate(terms) if k % 2 == 1)
    phase = zeta - math.pi / 4
    return (np.cos(phase) * p + np.sin(phase) * q) / (math.sqrt(math.pi) * z ** 0.25)


def _airy_ai(x):
    middle = np.clip(x, -8.0, 2.0)
    value = _airy_series(middle)
    right = np.clip(x, 2.0, 104.0)
    zeta = 2 / 3 * right * np.sqrt(right)
    decaying = np.sqrt(right / 3) / math.pi * _scaled_k(1 / 3, zeta) * np.exp(-zeta)
    value = np.where(x > 2, np.where(x > 103.892, 0.0, decaying), value)
    value = np.where(x < -8, _airy_oscillating(np.maximum(-x, 8.0)), value)
    return np.where(np.isinf(x), np.nan, value)


def _spherical_j0(x):
    safe = np.where(x == 0, 1.0, x)
    value = np.where(x == 0, 1.0, np.sin(safe) / safe)
    return np.where(np.isinf(x), 0.0, value)


_FUNCTIONS = {
    "bessel_j0": lambda x: _first_or_second_kind(0, x, False),
    "bessel_j1": lambda x: _first_or_second_kind(1, x, False),
    "bessel_y0": lambda x: _first_or_second_kind(0, x, True),
    "bessel_y1": lambda x: _first_or_second_kind(1, x, True),
    "modified_bessel_i0": lambda x: _bessel(x, 0),
    "modified_bessel_i1": lambda x: _bessel(x, 1),
    "modified_bessel_k0": lambda x: _modified_k(0, x, False),
    "modified_bessel_k1": lambda x: _modified_k(1, x, False),
    "scaled_modified_bessel_k0": lambda x: _modified_k(0, x, True),
    "scaled_modified_bessel_k1": lambda x: _modified_k(1, x, True),
    "spherical_bessel_j0": _spherical_j0,
    "airy_ai": _airy_ai,
}


def _make(name, function):
    def op(input):
        require_tensor(f"special_{name}", input, "x" if name == "airy_ai" else "input")
        with no_grad():
            return host_values(function, input, op=f"{name}_cpu")
    op.__name__ = op.__qualname__ = name
    return op


bessel_j0 = _make("bessel_j0", _FUNCTIONS["bessel_j0"])
bessel_j0.__doc__ = "The Bessel function of the first kind of order 0."
bessel_j1 = _make("bessel_j1", _FUNCTIONS["bessel_j1"])
bessel_j1.__doc__ = "The Bessel function of the first kind of order 1."
bessel_y0 = _make("bessel_y0", _FUNCTIONS["bessel_y0"])
bessel_y0.__doc__ = "The Bessel function of the second kind of order 0."
bessel_y1 = _make("bessel_y1", _FUNCTIONS["bessel_y1"])
bessel_y1.__doc__ = "The Bessel function of the second kind of order 1."
modified_bessel_i0 = _make("modified_bessel_i0", _FUNCTIONS["modified_bessel_i0"])
modified_bessel_i0.__doc__ = "The modified Bessel function of the first kind of order 0."
modified_bessel_i1 = _make("modified_bessel_i1", _FUNCTIONS["modified_bessel_i1"])
modified_bessel_i1.__doc__ = "The modified Bessel function of the first kind of order 1."
modified_bessel_k0 = _make("modified_bessel_k0", _FUNCTIONS["modified_bessel_k0"])
modified_bessel_k0.__doc__ = "The modified Bessel function of the second kind of order 0."
modified_bessel_k1 = _make("modified_bessel_k1", _FUNCTIONS["modified_bessel_k1"])
modified_bessel_k1.__doc__ = "The modified Bessel function of the second kind of order 1."
scaled_modified_bessel_k0 = _make("scaled_modified_bessel_k0",
                                  _FUNCTIONS["scaled_modified_bessel_k0"])
scaled_modified_bessel_k0.__doc__ = "``exp(x) * modified_bessel_k0(x)``."
scaled_modified_bessel_k1 = _make("scaled_modified_bessel_k1",
                                  _FUNCTIONS["scaled_modified_bessel_k1"])
scaled_modified_bessel_k1.__doc__ = "``exp(x) * modified_bessel_k1(x)``."
spherical_bessel_j0 = _make("spherical_bessel_j0", _FUNCTIONS["spherical_bessel_j0"])
spherical_bessel_j0.__doc__ = "The spherical Bessel function of the first kind of order 0."
airy_ai = _make("airy_ai", _FUNCTIONS["airy_ai"])
airy_ai.__doc__ = "The Airy function Ai."
