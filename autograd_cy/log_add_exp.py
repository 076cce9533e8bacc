"""``logaddexp`` and ``logaddexp2``: ``log(exp(a) + exp(b))`` (and in base 2) without
overflow, the log-space sum of probabilities.

Each is one op with torch's node (``LogaddexpBackward0``, ``Logaddexp2Backward0``).
``logaddexp`` takes complex tensors too (``logaddexp2`` does not, as torch's).

# NOTE [Adding in log space]
``log(exp(a) + exp(b)) = m + log1p(exp(-|a - b|))`` with ``m = max(a, b)``: the exp cannot
overflow, and the smaller term is lost only where it no longer counts. Equal infinities
are their own sum (``-inf - -inf`` would be NaN), as torch's kernel. The gradients are the
softmax weights of the two: ``g / (1 + exp(b - a))`` for ``a``, and ``g / (1 + 2 ** (b -
a))`` in base 2 (the ``ln 2`` of both the log and the exp cancel); complex operands divide
by the conjugate, ``g / conj(1 + exp(b - a))`` (NOTE [Complex gradients] in
pyx/ops/conjugate.pyx).

# NOTE [Complex log-add-exp]
torch's complex ``_log_add_exp_helper(a, b)``, which ``logaddexp`` and ``logcumsumexp``
share: a NaN in either part of either operand gives NaN + NaN i; otherwise the operands
are ordered by their real parts (``a`` is the smaller only where its real part is strictly
less), and ``log1p(exp(min - max)) + max``, except where the real parts are equal and
infinite: the smaller itself for -inf, ``log(exp(min) + exp(max))`` for +inf.

>>> import autograd_cy as ag
>>> ag.logaddexp(ag.tensor([0.0, 100.0]), ag.tensor([0.0, 100.0]))
tensor([  0.6931, 100.6931])
"""
import math

import numpy as np

import autograd_cy as _ag
from autograd_cy._C.tensor import _array_of, _register_methods, _wrap_array
from autograd_cy.autograd.function import Function

__all__ = ["logaddexp", "logaddexp2"]


def complex_log_add_exp(a, b):
    """``log(exp(a) + exp(b))`` of complex arrays (NOTE [Complex log-add-exp])."""
    with np.errstate(all="ignore"):                 # infinities and NaN are handled here
        a_smaller = a.real < b.real
        low = np.where(a_smaller, a, b)
        high = np.where(a_smaller, b, a)
        general = np.log1p(np.exp(low - high)) + high
        both_infinite = ~np.isfinite(low.real) & (low.real == high.real)
        infinite = np.where(low.real < 0, low, np.log(np.exp(low) + np.exp(high)))
        result = np.where(both_infinite, infinite, general)
        nan = np.isnan(a.real) | np.isnan(a.imag) | np.isnan(b.real) | np.isnan(b.imag)
        return np.where(nan, complex(np.nan, np.nan), result).astype(result.dtype,
                                                                    copy=False)


def _summed(a, b, base2):
    """NOTE [Adding in log space]; complex operands NOTE [Complex log-add-exp]."""
    if a.is_complex() or b.is_complex():
        dtype = _ag.result_type(a, b)
        return _wrap_array(complex_log_add_exp(_array_of(a.to(dtype)), _array_of(b.to(dtype))))
    dtype = _ag.result_type(a, b)
    if dtype in (_ag.float16, _ag.bfloat16):    # in float32, rounded once, as torch's kernel
        return _summed(a.float(), b.float(), base2).to(dtype)
    larger = _ag.maximum(a, b)
    gap = -(a - b).abs()
    if base2:
        total = larger + _ag.log1p(_ag.exp2(gap)) / math.log(2.0)
    else:
        total = larger + _ag.log1p(_ag.exp(gap))
    return _ag.where((a == b) & a.isinf(), a, total)


def _share(a, b, base2):
    """``1 + exp(b - a)`` (base 2: ``1 + 2 ** (b - a)``): ``a``'s share of the sum is its
    reciprocal."""
    return 1 + (_ag.exp2(b - a) if base2 else _ag.exp(b - a))


class _LogAddExp(Function):
    builtin_op = True

    @staticmethod
    def forward(ctx, input, other, base2):
        ctx.base2 = base2
        ctx.save_for_backward(input, other)
        ctx.save_for_forward(input, other)
        return _summed(input, other, base2)

    @staticmethod
    def backward(ctx, grad):
        input, other = ctx.saved_tensors
        grads = [None, None, None]
        if ctx.needs_input_grad[0]:
            grads[0] = _reduced(grad / _share(input, other, ctx.base2).conj(), input)
        if ctx.needs_input_grad[1]:
            grads[1] = _reduced(grad / _share(other, input, ctx.base2).conj(), other)
        return tuple(grads)

    @staticmethod
    def jvp(ctx, input_t, other_t, base2_t):
        input, other = ctx.saved_tensors
        tangent = 0
        if input_t is not None:
            tangent = input_t / _share(input, other, ctx.base2)
        if other_t is not None:
            tangent = tangent + other_t / _share(other, input, ctx.base2)
        return tangent


def _reduced(grad, operand):
    return grad.sum_to_size(operand.shape) if grad.shape != operand.shape else grad


class LogAddExp(_LogAddExp):
    """``logaddexp``'s op (``LogaddexpBackward0``)."""


class LogAddExp2(_LogAddExp):
    """``logaddexp2``'s op (``Logaddexp2Backward0``)."""


LogAddExp._backward_cls.__name__ = "LogaddexpBackward0"
LogAddExp2._backward_cls.__name__ = "Logaddexp2Backward0"


def _check_floating(name, input, other, complex_too=False):
    dtype = _ag.result_type(input, other)
    if not (dtype.is_floating_point or complex_too and dtype.is_complex):
        raise NotImplementedError(f"\"{name}_cpu\" not implemented for '{dtype._scalar_name}'")


def logaddexp(input, other):
    """``log(exp(input) + exp(other))``, computed without overflow."""
    _check_floating("logaddexp", input, other, complex_too=True)
    return LogAddExp.apply(input, other, False)


def logaddexp2(input, other):
    """``log2(2 ** input + 2 ** other)``, computed without overflow."""
    _check_floating("logaddexp2", input, other)
    return LogAddExp2.apply(input, other, True)


_register_methods({"logaddexp": logaddexp, "logaddexp2": logaddexp2})
