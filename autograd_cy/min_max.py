"""Extrema of two kinds: ``aminmax`` (``amin`` and ``amax`` at once) and the
elementwise ``fmax`` / ``fmin``, which ignore a NaN operand.

``aminmax`` returns the named tuple ``(min, max)`` (``AminmaxBackward0``); each part shares
its gradient among ties as ``amin`` / ``amax`` do. ``fmax(input, other)`` is the larger of
the two where neither is NaN, the other one where one is NaN, NaN where both are; the
gradient goes to the chosen operand: to ``input`` where ``input >= other`` or ``other`` is
NaN (ties to ``input``), to ``other`` elsewhere, summed back to each operand's shape
(torch's ``FmaxBackward0`` rule; ``fmin`` alike with ``<=``). Their tangents follow torch's
formula, whose mask for ``fmax`` is strict: a tie takes ``other``'s tangent.

>>> import autograd_cy as ag
>>> ag.fmax(ag.tensor([1.0, float("nan")]), ag.tensor([float("nan"), 2.0]))
tensor([1., 2.])
"""
from collections import namedtuple

import autograd_cy as _ag
from autograd_cy._C.tensor import Tensor, _register_methods
from autograd_cy.autograd.function import Function
from autograd_cy.reorder import _wrap

__all__ = ["aminmax", "fmax", "fmin"]

aminmax_result = namedtuple("aminmax", ["min", "max"])


def _restored(value, dims, keepdim):
    """A reduced result with its reduced dims back (size 1), to broadcast against input."""
    if not keepdim:
        for d in dims:
            value = value.unsqueeze(d)
    return value


class Aminmax(Function):
    """``aminmax``'s op (``AminmaxBackward0``): each part's gradient shared evenly among
    the entries equal to it, as ``amin``'s and ``amax``'s; tangents alike."""
    builtin_op = True

    @staticmethod
    def forward(ctx, input, dims, keepdim):
        ctx.dims, ctx.keepdim = dims, keepdim
        if not keepdim and len(dims) == input.dim():
            low, high = _ag.amin(input), _ag.amax(input)
        else:
            low, high = _ag.amin(input, dims, keepdim), _ag.amax(input, dims, keepdim)
        ctx.save_for_backward(input, low, high)
        ctx.saved = (input, low, high)
        return low, high

    @staticmethod
    def _shares(ctx, input, value):
        chosen = (input == _restored(value, ctx.dims, ctx.keepdim)).to(input.dtype)
        return chosen / chosen.sum(ctx.dims, keepdim=True)

    @staticmethod
    def backward(ctx, grad_min, grad_max):
        input, low, high = ctx.saved_tensors
        total = None
        for grad, value in ((grad_min, low), (grad_max, high)):
            if grad is None:
                continue
            part = Aminmax._shares(ctx, input, value) * _restored(grad, ctx.dims, ctx.keepdim)
            total = part if total is None else total + part
        return total, None, None

    @staticmethod
    def jvp(ctx, input_t, dims_t, keepdim_t):
        input, low, high = ctx.saved
        return tuple((input_t * Aminmax._shares(ctx, input, value)).sum(
            ctx.dims, keepdim=ctx.keepdim) for value in (low, high))


Aminmax._backward_cls.__name__ = "AminmaxBackward0"


def aminmax(input, *, dim=None, keepdim=False):
    """The minimum and the maximum, over all elements or over ``dim``."""
    if dim is None:
        if input.numel() == 0:
            raise RuntimeError("aminmax(): cannot compute aminmax over an empty dimension as "
                               "the operation has no identity.")
        dims = tuple(range(input.dim()))
    else:
        wrapped = _wrap(dim, input.dim())
        if input.dim() and input.shape[wrapped] == 0:
            raise IndexError(f"aminmax: Expected reduction dim {wrapped} to have non-zero "
                             f"size.")
        dims = (wrapped,) if input.dim() else ()
    return aminmax_result(*Aminmax.apply(input, dims, keepdim))


def _chooses_input(input, other, name, strict=False):
    """Where ``fmax`` (``fmin``) takes ``input``: where it is the larger (smaller) one, ties
    included unless ``strict``, or where ``other`` is NaN."""
    if name == "fmax":
        better = input > other if strict else input >= other
    else:
        better = input < other if strict else input <= other
    return _ag.logical_or(better, _ag.isnan(other))


class _NanIgnoringExtremum(Function):
    builtin_op = True

    @staticmethod
    def forward(ctx, input, other, name):
        ctx.op_name = name
        ctx.save_for_backward(input, other)
        ctx.save_for_forward(input, other)
        return _ag.where(_chooses_input(input, other, name), input, other)

    @staticmethod
    def backward(ctx, grad):
        input, other = ctx.saved_tensors
        takes_input = _chooses_input(input, other, ctx.op_name)
        zero = grad.new_zeros(())
        grad_input = grad_other = None
        if ctx.needs_input_grad[0]:
            grad_input = _ag.where(takes_input, grad, zero).sum_to_size(input.shape)
        if ctx.needs_input_grad[1]:
            grad_other = _ag.where(takes_input, zero, grad).sum_to_size(other.shape)
        return grad_input, grad_other, None

    @staticmethod
    def jvp(ctx, input_t, other_t, name_t):
        input, other = ctx.saved_tensors
        # torch's tangent formula: other_t + mask * (input_t - other_t), its mask strict
        # for fmax (a tie takes other's tangent), not for fmin
        input_t = _ag.zeros_like(input) if input_t is None else input_t
        other_t = _ag.zeros_like(other) if other_t is None else other_t
        mask = _chooses_input(input, other, ctx.op_name, strict=ctx.op_name == "fmax")
        return other_t + mask * (input_t - other_t)


class Fmax(_NanIgnoringExtremum):
    """``fmax``'s op (``FmaxBackward0``)."""


class Fmin(_NanIgnoringExtremum):
    """``fmin``'s op (``FminBackward0``)."""


Fmax._backward_cls.__name__ = "FmaxBackward0"
Fmin._backward_cls.__name__ = "FminBackward0"


def _pick(name, input, other):
    if not isinstance(other, Tensor):
        raise TypeError(f"{name}(): argument 'other' (position 2) must be Tensor, not "
                        f"{type(other).__name__}")
    if input.is_complex() or other.is_complex():
        raise RuntimeError(f"{name} not implemented for complex tensors.")
    if input.dtype is _ag.bool and other.dtype is _ag.bool:
        return (_ag.logical_or if name == "fmax" else _ag.logical_and)(input, other)
    return (Fmax if name == "fmax" else Fmin).apply(input, other, name)


def fmax(input, other):
    """The elementwise maximum, a NaN operand ignored (NaN only where both are)."""
    return _pick("fmax", input, other)


def fmin(input, other):
    """The elementwise minimum, a NaN operand ignored (NaN only where both are)."""
    return _pick("fmin", input, other)


_register_methods({"aminmax": aminmax, "fmax": fmax, "fmin": fmin})
