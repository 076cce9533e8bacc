"""``clamp_min`` and ``clamp_max``: ``clamp`` with one bound, a number or a tensor.

torch gives them nodes of their own: ``ClampMinBackward0`` / ``ClampMaxBackward0`` with a
number, ``ClampMinBackward1`` / ``ClampMaxBackward1`` with a tensor bound. The value is
``clamp``'s (its type promotion, its NaN propagation); the gradient goes to whichever was
chosen: to ``input`` where it is inside the bound (``input >= min``, the bound itself
counted as inside), to a tensor bound where the input is past it (a NaN input: to neither),
summed back to the bound's shape where it was broadcast. A tangent is chosen alike, but as
torch's: the bound's wherever the input is not inside (a NaN input included).

>>> import autograd_cy as ag
>>> ag.tensor([-1.0, 0.5, 2.0]).clamp_min(0)
tensor([0.0000, 0.5000, 2.0000])
"""
import autograd_cy as _ag
from autograd_cy._C.tensor import Tensor, _register_methods
from autograd_cy.autograd.function import Function

__all__ = ["clamp_min", "clamp_max"]


def _inside(input, bound, lower):
    """Where ``input`` is kept: at or above a lower bound, at or below an upper one."""
    return input >= bound if lower else input <= bound


def _outside(input, bound, lower):
    """Where the bound is taken (not the complement of ``_inside``: a NaN is neither)."""
    return input < bound if lower else input > bound


def _chosen(grad, mask):
    return _ag.where(mask, grad, grad.new_zeros(()))


class _ClampByNumber(Function):
    builtin_op = True

    @staticmethod
    def forward(ctx, input, bound, lower):
        ctx.bound, ctx.lower = bound, lower
        ctx.save_for_backward(input)
        ctx.save_for_forward(input)
        return _ag.clamp(input, min=bound) if lower else _ag.clamp(input, max=bound)

    @staticmethod
    def backward(ctx, grad):
        (input,) = ctx.saved_tensors
        return _chosen(grad, _inside(input, ctx.bound, ctx.lower)), None, None

    @staticmethod
    def jvp(ctx, input_t, bound_t, lower_t):
        (input,) = ctx.saved_tensors
        return _chosen(input_t, _inside(input, ctx.bound, ctx.lower))


class _ClampByTensor(Function):
    builtin_op = True

    @staticmethod
    def forward(ctx, input, bound, lower):
        ctx.lower = lower
        ctx.save_for_backward(input, bound)
        ctx.save_for_forward(input, bound)
        return _ag.clamp(input, min=bound) if lower else _ag.clamp(input, max=bound)

    @staticmethod
    def backward(ctx, grad):
        input, bound = ctx.saved_tensors
        inside = _inside(input, bound, ctx.lower)
        grad_input = grad_bound = None
        if ctx.needs_input_grad[0]:
            grad_input = _chosen(grad, inside).sum_to_size(input.shape)
        if ctx.needs_input_grad[1]:
            grad_bound = _chosen(grad, _outside(input, bound, ctx.lower)).sum_to_size(
                bound.shape)
        return grad_input, grad_bound, None

    @staticmethod
    def jvp(ctx, input_t, bound_t, lower_t):
        input, bound = ctx.saved_tensors
        # torch's tangent formula: the bound's tangent wherever the input is not inside
        input_t = _ag.zeros_like(input) if input_t is None else input_t
        bound_t = _ag.zeros_like(bound) if bound_t is None else bound_t
        return _ag.where(_inside(input, bound, ctx.lower), input_t, bound_t)


class ClampMin(_ClampByNumber):
    """``clamp_min(input, number)``'s op (``ClampMinBackward0``)."""


class ClampMax(_ClampByNumber):
    """``clamp_max(input, number)``'s op (``ClampMaxBackward0``)."""


class ClampMinTensor(_ClampByTensor):
    """``clamp_min(input, tensor)``'s op (``ClampMinBackward1``)."""


class ClampMaxTensor(_ClampByTensor):
    """``clamp_max(input, tensor)``'s op (``ClampMaxBackward1``)."""


ClampMin._backward_cls.__name__ = "ClampMinBackward0"
ClampMax._backward_cls.__name__ = "ClampMaxBackward0"
ClampMinTensor._backward_cls.__name__ = "ClampMinBackward1"
ClampMaxTensor._backward_cls.__name__ = "ClampMaxBackward1"


def refuse_complex_bound(input, bound, lower):
    """torch's refusal of a complex clamp_min/clamp_max: with a number bound, clamp's own;
    with a tensor bound, that of the maximum/minimum kernel of the promoted dtype."""
    if isinstance(bound, Tensor):
        if input.is_complex() or bound.is_complex():
            kernel = "maximum_cpu" if lower else "minimum_cpu"
            raise NotImplementedError(f"\"{kernel}\" not implemented for "
                                      f"'{_ag.result_type(input, bound)._scalar_name}'")
    elif input.is_complex() or isinstance(bound, complex):
        raise NotImplementedError("clamp is not supported for complex types")


def clamp_min(input, min):
    """``input`` with every entry below ``min`` raised to it (``clamp(input, min=min)``)."""
    refuse_complex_bound(input, min, True)
    if isinstance(min, Tensor):
        return ClampMinTensor.apply(input, min, True)
    return ClampMin.apply(input, min, True)


def clamp_max(input, max):
    """``input`` with every entry above ``max`` lowered to it (``clamp(input, max=max)``)."""
    refuse_complex_bound(input, max, False)
    if isinstance(max, Tensor):
        return ClampMaxTensor.apply(input, max, False)
    return ClampMax.apply(input, max, False)


_register_methods({"clamp_min": clamp_min, "clamp_max": clamp_max})
