"""``clamp_min``: ``max(input, min)`` for a number ``min``, as its own op.

It computes what ``clamp(input, min=min)`` computes, but torch records it as a node of its
own (``ClampMinBackward0``, where ``clamp`` records ``ClampBackward1``), and torch's
composite losses and ``normalize`` are built from it. The gradient passes where
``input >= min`` (a NaN input passes none).

>>> import autograd_cy as ag
>>> x = ag.tensor([-1.0, 2.0], requires_grad=True)
>>> y = x.clamp_min(0)
>>> y
tensor([0., 2.], grad_fn=<ClampMinBackward0>)
"""
from autograd_cy._C.ops.selection import clamp, where
from autograd_cy._C.tensor import Tensor, _register_methods
from autograd_cy.autograd.function import Function

__all__ = ["clamp_min"]


class ClampMin(Function):
    """``clamp_min``'s op: the backward and jvp keep the gradient or tangent where the
    input was kept."""
    builtin_op = True

    @staticmethod
    def forward(ctx, input, min):
        ctx.passes = input.detach() >= min
        return input.clamp(min=min)

    @staticmethod
    def backward(ctx, grad):
        return where(ctx.passes, grad, 0.0), None

    @staticmethod
    def jvp(ctx, input_t, min_t):
        return where(ctx.passes, input_t, 0.0)


# The node named as torch's (a Function's node is otherwise <Function>Backward).
ClampMin._backward_cls.__name__ = "ClampMinBackward0"


def clamp_min(input, min):
    """``input`` with every entry below ``min`` raised to it. A tensor ``min`` (torch's
    ``ClampMinBackward1``) goes through ``clamp``: the same values and gradients, recorded
    as ``ClampBackward0``."""
    if isinstance(min, Tensor):
        return clamp(input, min=min)
    return ClampMin.apply(input, min)


_register_methods({"clamp_min": clamp_min})
