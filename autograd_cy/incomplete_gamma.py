"""``igamma`` and ``igammac`` (torch.special's ``gammainc``, ``gammaincc``): the regularized
lower and upper incomplete gamma functions ``P(a, x) = gamma(a, x) / Gamma(a)`` and
``Q(a, x) = 1 - P(a, x)``.

Computed on the host in float64 (host_values.py), with torch's special values: NaN for a
negative ``a`` or ``x``; ``a = 0`` is the limit (P = 1, Q = 0) for ``x > 0``, NaN at
``x = 0``; ``x = 0`` gives P = 0; an infinite ``a`` P = 0 (NaN with an infinite ``x``); an
infinite ``x`` P = 1. Floating inputs only: torch refuses integers (``"igamma_cpu" not
implemented for 'Long'``).

Their nodes are torch's ``IgammaBackward0`` and ``IgammacBackward0``: ``x`` gets
``+-g * exp((a - 1) log(x) - x - lgamma(a))`` (the gamma density); torch has no derivative
for ``a``, and backward through it raises its NotImplementedError; nor a tangent formula
(forward AD raises, as torch's).

# NOTE [Computing the incomplete gamma functions]
Below ``x = a + 1`` the series ``P = x^a e^-x / Gamma(a + 1) sum_n x^n / ((a + 1) ...
(a + n))``, whose terms shrink from the first; above, the continued fraction of ``Q``
(``e^-x x^a / Gamma(a)`` times ``1 / (x + 1 - a - 1 (1 - a) / (x + 3 - a - ...))``) by
the modified Lentz method. Each runs until every entry's next term is below float64's
epsilon; the other function is ``1 -`` the computed one, which loses nothing there (it
is at least about 1/2).

>>> import autograd_cy as ag
>>> ag.igamma(ag.tensor([1.0]), ag.tensor([1.0]))
tensor([0.6321])
"""
import numpy as np

import autograd_cy as _ag
from autograd_cy._C.forward import NOT_IMPLEMENTED_YET
from autograd_cy._C.tensor import Tensor, _register_methods
from autograd_cy.autograd.function import Function
from autograd_cy.gamma_functions import _lgamma
from autograd_cy.host_values import host_values

__all__ = ["igamma", "igammac"]

_EPSILON = np.finfo(np.float64).eps
_TINY = 1e-300


def _lower_series(a, x):
    term = np.ones_like(a)
    total = term.copy()
    n = 0
    active = np.ones(a.shape, dtype=bool)
    while active.any() and n < 100000:
        n += 1
        term = np.where(active, term * x / (a + n), term)
        total = np.where(active, total + term, total)
        active = active & (np.abs(term) > np.abs(total) * _EPSILON)
    return np.exp(a * np.log(x) - x - _lgamma(a + 1)) * total


def _upper_fraction(a, x):
    b = x + 1 - a
    c = np.full_like(a, 1 / _TINY)
    d = 1 / b
    h = d.copy()
    active = np.ones(a.shape, dtype=bool)
    i = 0
    while active.any() and i < 100000:
        i += 1
        an = -i * (i - a)
        b = b + 2
        d = an * d + b
        d = np.where(np.abs(d) < _TINY, _TINY, d)
        c = b + an / c
        c = np.where(np.abs(c) < _TINY, _TINY, c)
        d = 1 / d
        delta = d * c
        h = np.where(active, h * delta, h)
        active = active & (np.abs(delta - 1) > _EPSILON)
    return np.exp(a * np.log(x) - x - _lgamma(a)) * h


def _incomplete_gamma(a, x, upper):
    """P(a, x), or Q(a, x) when ``upper`` (NOTE [Computing the incomplete gamma
    functions])."""
    regular = (a > 0) & (x > 0) & np.isfinite(a) & np.isfinite(x)
    a_safe, x_safe = np.where(regular, a, 1.0), np.where(regular, x, 1.0)
    series = x_safe < a_safe + 1
    lower = np.zeros_like(a_safe)
    if series.any():
        lower[series] = _lower_series(a_safe[series], x_safe[series])
    higher = np.zeros_like(a_safe)
    if (~series).any():
        higher[~series] = _upper_fraction(a_safe[~series], x_safe[~series])
    p = np.where(series, lower, 1 - higher)
    q = np.where(series, 1 - lower, higher)
    value = q if upper else p
    one, zero = (0.0, 1.0) if upper else (1.0, 0.0)      # P's 1 is Q's 0
    value = np.where(np.isinf(x), one, value)
    value = np.where(np.isinf(a), np.where(np.isinf(x), np.nan, zero), value)
    value = np.where(x == 0, zero, value)
    value = np.where(a == 0, np.where(x > 0, one, np.nan), value)
    return np.where((a < 0) | (x < 0) | np.isnan(a) | np.isnan(x), np.nan, value)


class _IncompleteGamma(Function):
    builtin_op = True
    upper = False
    op = "igamma"

    @classmethod
    def forward(cls, ctx, input, other):
        dtype = _ag.result_type(input, other)
        if not dtype.is_floating_point:
            raise NotImplementedError(f"\"{cls.op}_cpu\" not implemented for "
                                      f"'{dtype._scalar_name}'")
        result = host_values(lambda a, x: _incomplete_gamma(a, x, cls.upper), input, other,
                             op=f"{cls.op}_cpu", half=True)
        input, other = input.to(result.dtype), other.to(result.dtype)
        ctx.save_for_backward(input, other)
        ctx.inputs = (input, other)
        ctx.shapes = (input.shape, other.shape)
        return result

    @classmethod
    def density(cls, a, x):
        density = _ag.exp((a - 1) * _ag.log(x) - x - _ag.lgamma(a))
        return -density if cls.upper else density

    @classmethod
    def backward(cls, ctx, grad):
        if ctx.needs_input_grad[0]:
            raise NotImplementedError(f"the derivative for '{cls.op}: input' is not "
                                      "implemented.")
        a, x = ctx.saved_tensors
        slope = grad * cls.density(a, x)
        shape = ctx.shapes[1]
        return None, slope.sum_to_size(shape) if slope.shape != shape else slope

    @classmethod
    def jvp(cls, ctx, input_t, other_t):
        raise NotImplementedError(f"Trying to use forward AD with {cls.op} that does not "
                                  f"support it{NOT_IMPLEMENTED_YET}")


class Igamma(_IncompleteGamma):
    """``igamma``'s op (``IgammaBackward0``)."""


class Igammac(_IncompleteGamma):
    """``igammac``'s op (``IgammacBackward0``)."""
    upper = True
    op = "igammac"


Igamma._backward_cls.__name__ = "IgammaBackward0"
Igammac._backward_cls.__name__ = "IgammacBackward0"


def _tensors(op, input, other):
    for position, (name, value) in enumerate((("input", input), ("other", other)), 1):
        if not isinstance(value, Tensor):
            raise TypeError(f"{op}(): argument '{name}' (position {position}) must be Tensor, "
                            f"not {type(value).__name__}")


def igamma(input, other):
    """The regularized lower incomplete gamma function ``P(input, other)``."""
    _tensors("igamma", input, other)
    return Igamma.apply(input, other)


def igammac(input, other):
    """The regularized upper incomplete gamma function ``Q(input, other) = 1 - P``."""
    _tensors("igammac", input, other)
    return Igammac.apply(input, other)


_register_methods({"igamma": igamma, "igammac": igammac})
