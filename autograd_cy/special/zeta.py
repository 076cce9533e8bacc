"""``zeta(x, q)``: the Hurwitz zeta function ``sum_{k >= 0} (k + q)^-x``.

Computed on the host in float64 (host_values.py) by the Euler-Maclaurin summation of
NOTE [Computing the polygamma functions] (gamma_functions.py), with torch's (Cephes')
domain: ``x = 1`` is a pole (inf), ``x < 1`` NaN, ``q`` a non-positive integer a pole
(inf), a negative non-integer ``q`` NaN unless ``x`` is an integer.

Its nodes are torch's: ``SpecialZetaBackward0`` (two tensors), ``SpecialZetaBackward1`` (a
number ``x``), ``SpecialZetaBackward2`` (a number ``q``). ``q`` gets
``g * -x * zeta(x + 1, q)``; torch has no derivative for ``x``, and backward through it
raises its NotImplementedError; torch has no tangent formula either (forward AD raises).

>>> import autograd_cy as ag
>>> ag.special.zeta(ag.tensor([2.0]), ag.tensor([1.0]))
tensor([1.6449])
"""
import numpy as np

import autograd_cy as _ag
from autograd_cy._C.forward import NOT_IMPLEMENTED_YET
from autograd_cy._C.tensor import Tensor
from autograd_cy.autograd.function import Function
from autograd_cy.gamma_functions import _hurwitz_zeta
from autograd_cy.host_values import host_values

__all__ = ["zeta"]


def _zeta(x, q):
    value = _hurwitz_zeta(x, q)
    integer_q = q == np.floor(q)
    value = np.where((q <= 0) & ~integer_q & (x != np.floor(x)), np.nan, value)
    value = np.where((q <= 0) & integer_q, np.inf, value)
    value = np.where(x < 1, np.nan, np.where(x == 1, np.inf, value))
    return np.where(np.isinf(x) | np.isinf(q), np.nan, value)


def _reduced(grad, operand):
    return grad.sum_to_size(operand.shape) if grad.shape != operand.shape else grad


class _Zeta(Function):
    builtin_op = True

    @staticmethod
    def forward(ctx, x, q):
        result = host_values(_zeta, x, q, op="zeta_cpu")
        ctx.x, ctx.q = x, q
        ctx.x_value = x if isinstance(x, Tensor) else _ag.tensor(x, dtype=result.dtype,
                                                                 device=result.device)
        if isinstance(q, Tensor):
            ctx.save_for_backward(q)
        return result

    @staticmethod
    def backward(ctx, grad):
        if ctx.needs_input_grad[0]:
            raise NotImplementedError("the derivative for 'zeta' is not implemented.")
        if not ctx.needs_input_grad[1]:
            return None, None
        (q,) = ctx.saved_tensors
        x = ctx.x_value
        return None, _reduced(grad * -x * zeta(x + 1.0, q), ctx.q)

    @staticmethod
    def jvp(ctx, x_t, q_t):
        raise NotImplementedError("Trying to use forward AD with special_zeta that does not "
                                  f"support it{NOT_IMPLEMENTED_YET}")


class Zeta(_Zeta):
    """``zeta(tensor, tensor)`` (``SpecialZetaBackward0``)."""


class ZetaNumberSelf(_Zeta):
    """``zeta(number, tensor)`` (``SpecialZetaBackward1``)."""


class ZetaNumberOther(_Zeta):
    """``zeta(tensor, number)`` (``SpecialZetaBackward2``)."""


Zeta._backward_cls.__name__ = "SpecialZetaBackward0"
ZetaNumberSelf._backward_cls.__name__ = "SpecialZetaBackward1"
ZetaNumberOther._backward_cls.__name__ = "SpecialZetaBackward2"


def zeta(input, other):
    """The Hurwitz zeta function ``sum_{k >= 0} (k + other)^-input``."""
    if not isinstance(input, Tensor) and not isinstance(other, Tensor):
        raise TypeError(f"special_zeta() received an invalid combination of arguments - got "
                        f"({type(input).__name__}, {type(other).__name__}), but expected "
                        "one of:\n * (Tensor input, Tensor other, *, Tensor out = None)\n"
                        " * (Number self, Tensor other, *, Tensor out = None)\n"
                        " * (Tensor input, Number other, *, Tensor out = None)\n")
    if not isinstance(input, Tensor):
        return ZetaNumberSelf.apply(input, other)
    if not isinstance(other, Tensor):
        return ZetaNumberOther.apply(input, other)
    return Zeta.apply(input, other)
