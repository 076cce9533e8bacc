"""torch.special's orthogonal polynomials of ``x`` and the degree ``n``: Chebyshev
``chebyshev_polynomial_t/u/v/w`` (first to fourth kind) and their ``shifted_`` forms on
[0, 1] (the polynomial of ``2x - 1``), Hermite ``hermite_polynomial_h`` (physicists') and
``hermite_polynomial_he`` (probabilists'), Laguerre ``laguerre_polynomial_l`` and Legendre
``legendre_polynomial_p``.

``x`` and ``n`` are tensors or numbers (one at least a tensor), broadcast and promoted to a
floating dtype as torch's binary ops; ``n`` is truncated to an integer, and a negative one
gives 0. Values are computed on the host in float64 (host_values.py) by torch's scheme:
the three-term recurrence from the polynomials of degrees 0 and 1, except for the
Chebyshev ones of a high degree (above 6 for T, 8 for the others) inside (-1, 1), which
use their closed trigonometric forms (T_n(cos t) = cos(n t) ...); at x = +-1 the known
end values. torch gives these no derivative: the result never requires grad.

>>> import autograd_cy as ag
>>> ag.special.chebyshev_polynomial_t(ag.tensor([0.5]), 3)
tensor([-1.])
"""
import numpy as np

from autograd_cy.grad_mode import no_grad
from autograd_cy.host_values import host_values, require_one_tensor

__all__ = ["chebyshev_polynomial_t", "chebyshev_polynomial_u", "chebyshev_polynomial_v",
           "chebyshev_polynomial_w", "shifted_chebyshev_polynomial_t",
           "shifted_chebyshev_polynomial_u", "shifted_chebyshev_polynomial_v",
           "shifted_chebyshev_polynomial_w", "hermite_polynomial_h", "hermite_polynomial_he",
           "laguerre_polynomial_l", "legendre_polynomial_p"]


def _recurrence(n, first, step):
    """p_n for every entry: p_0 = 1, p_1 = ``first``, p_{k+1} = ``step(k, p_k, p_{k-1})``
    (stopped once every entry still climbing is NaN: it stays so)."""
    previous, current = np.ones_like(first), first
    top = int(n.max()) if n.size else 0
    value = np.where(n == 0, previous, current)
    for k in range(1, top):
        previous, current = current, step(k, current, previous)
        value = np.where(n == k + 1, current, value)
        climbing = n > k + 1
        if np.isnan(current[climbing]).all():
            return np.where(climbing, current, value)
    return value


def _degrees(n):
    """n truncated to an integer (as torch's cast), negative where torch reads it as such."""
    n = np.where(np.isnan(n), -1.0, n)
    return np.trunc(np.clip(n, -1.0, 2.0 ** 40))


def _chebyshev(kind, x, n):
    n = _degrees(n)
    first = {"t": x, "u": 2 * x, "v": 2 * x - 1, "w": 2 * x + 1}[kind]
    inside = (np.abs(x) < 1) & (n > (6 if kind == "t" else 8))
    value = _recurrence(np.where(inside, 0, np.maximum(n, 0)), first,
                        lambda k, p, q: 2 * x * p - q)
    with np.errstate(all="ignore"):
        theta = np.arccos(np.clip(x, -1, 1))
        if kind == "t":
            trig = np.cos(n * theta)
        elif kind == "u":
            trig = np.where(np.sin(theta) != 0, np.sin((n + 1) * theta) / np.sin(theta),
                            (n + 1) * np.cos((n + 1) * theta) / x)
        elif kind == "v":
            trig = np.cos((n + 0.5) * theta) / np.cos(theta / 2)
        else:
            trig = np.sin((n + 0.5) * theta) / np.sin(theta / 2)
    value = np.where(inside, trig, value)
    odd = np.fmod(n, 2) == 1
    plus = {"t": 1.0, "u": n + 1, "v": 1.0, "w": 2 * n + 1}[kind]
    minus = {"t": np.where(odd, -1.0, 1.0), "u": np.where(odd, -(n + 1), n + 1),
             "v": np.where(odd, -(2 * n + 1), 2 * n + 1), "w": np.where(odd, -1.0, 1.0)}[kind]
    value = np.where(x == 1, plus, np.where(x == -1, minus, value))
    return np.where(n < 0, 0.0, value)


def _hermite_h(x, n):
    n = _degrees(n)
    value = _recurrence(np.maximum(n, 0), 2 * x, lambda k, p, q: 2 * x * p - 2 * k * q)
    return np.where(n < 0, 0.0, value)


def _hermite_he(x, n):
    n = _degrees(n)
    value = _recurrence(np.maximum(n, 0), x, lambda k, p, q: x * p - k * q)
    return np.where(n < 0, 0.0, value)


def _laguerre(x, n):
    n = _degrees(n)
    value = _recurrence(np.maximum(n, 0), 1 - x,
                        lambda k, p, q: ((2 * k + 1 - x) * p - k * q) / (k + 1))
    value = np.where(x == 0, 1.0, value)
    return np.where(n < 0, 0.0, value)


def _legendre(x, n):
    n = _degrees(n)
    value = _recurrence(np.maximum(n, 0), x,
                        lambda k, p, q: ((2 * k + 1) * x * p - k * q) / (k + 1))
    ends = np.where((x > 0) | (np.fmod(n, 2) == 0), 1.0, -1.0)
    value = np.where(np.abs(x) == 1, ends, value)
    return np.where(n < 0, 0.0, value)


def _make(name, function, doc):
    def op(input, n):
        require_one_tensor(f"special_{name}", input, n)
        with no_grad():
            return host_values(function, input, n, op=f"{name}_cpu")
    op.__name__ = op.__qualname__ = name
    op.__doc__ = doc
    return op


chebyshev_polynomial_t = _make(
    "chebyshev_polynomial_t", lambda x, n: _chebyshev("t", x, n),
    "The Chebyshev polynomial of the first kind ``T_n(input)``.")
chebyshev_polynomial_u = _make(
    "chebyshev_polynomial_u", lambda x, n: _chebyshev("u", x, n),
    "The Chebyshev polynomial of the second kind ``U_n(input)``.")
chebyshev_polynomial_v = _make(
    "chebyshev_polynomial_v", lambda x, n: _chebyshev("v", x, n),
    "The Chebyshev polynomial of the third kind ``V_n(input)``.")
chebyshev_polynomial_w = _make(
    "chebyshev_polynomial_w", lambda x, n: _chebyshev("w", x, n),
    "The Chebyshev polynomial of the fourth kind ``W_n(input)``.")
shifted_chebyshev_polynomial_t = _make(
    "shifted_chebyshev_polynomial_t", lambda x, n: _chebyshev("t", 2 * x - 1, n),
    "The shifted Chebyshev polynomial of the first kind ``T_n(2 input - 1)``.")
shifted_chebyshev_polynomial_u = _make(
    "shifted_chebyshev_polynomial_u", lambda x, n: _chebyshev("u", 2 * x - 1, n),
    "The shifted Chebyshev polynomial of the second kind ``U_n(2 input - 1)``.")
shifted_chebyshev_polynomial_v = _make(
    "shifted_chebyshev_polynomial_v", lambda x, n: _chebyshev("v", 2 * x - 1, n),
    "The shifted Chebyshev polynomial of the third kind ``V_n(2 input - 1)``.")
shifted_chebyshev_polynomial_w = _make(
    "shifted_chebyshev_polynomial_w", lambda x, n: _chebyshev("w", 2 * x - 1, n),
    "The shifted Chebyshev polynomial of the fourth kind ``W_n(2 input - 1)``.")
hermite_polynomial_h = _make(
    "hermite_polynomial_h", _hermite_h, "The physicists' Hermite polynomial ``H_n(input)``.")
hermite_polynomial_he = _make(
    "hermite_polynomial_he", _hermite_he,
    "The probabilists' Hermite polynomial ``He_n(input)``.")
laguerre_polynomial_l = _make(
    "laguerre_polynomial_l", _laguerre, "The Laguerre polynomial ``L_n(input)``.")
legendre_polynomial_p = _make(
    "legendre_polynomial_p", _legendre, "The Legendre polynomial ``P_n(input)``.")
