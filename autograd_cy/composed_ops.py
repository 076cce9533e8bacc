"""An op with torch's node name whose gradients are those of a composition of recorded ops.

# NOTE [An op that differentiates its composition]
Some torch ops have a node of their own (``DistBackward0``, ``RenormBackward0``,
``MvlgammaBackward0``) where our op is a composition of others, whose nodes a graph would
show instead. ``ComposedOp`` records one node for the whole composition: its forward runs
the composition; its backward runs it again on the saved inputs with grad mode on and takes
``autograd.grad`` of it (with ``create_graph`` when the backward itself records, so double
backward holds); its tangent is the same vector-Jacobian product differentiated with
respect to a zero cotangent ``v`` (``J t = d/dv <J^T v, t>``). The price is one more
forward of the composition per backward, so it serves ops whose composition is cheap. With
``create_graph`` the composition runs on views of the saved inputs, where the nested
``autograd.grad`` stops: on the inputs themselves, one computed from another would pass
its gradient on a second time.
Subclasses only name themselves: ``Dist.apply(composition, *inputs)``; one whose torch
node saves its result says ``saves_result = True``: the output is saved too, unused, so that
an in-place write of it makes the backward refuse as torch's.
"""
import autograd_cy as _ag
from autograd_cy.autograd.function import Function
from autograd_cy.grad_mode import enable_grad

__all__ = []


class ComposedOp(Function):
    """One node for ``composition(*inputs)`` (NOTE [An op that differentiates its
    composition])."""
    builtin_op = True
    saves_result = False

    @staticmethod
    def forward(ctx, composition, *inputs):
        ctx.composition = composition
        out = composition(*inputs)
        ctx.save_for_backward(*inputs, *((out,) if type(ctx)._forward_cls.saves_result else ()))
        ctx.inputs = inputs
        return out

    @staticmethod
    def backward(ctx, grad):
        inputs = ctx.saved_tensors[:len(ctx.inputs)]
        wanted = [i for i in range(len(inputs)) if ctx.needs_input_grad[i + 1]]
        if not wanted:      # the node runs for none of its inputs (backward(inputs=...))
            return (None,) * (len(inputs) + 1)
        create = _ag.is_grad_enabled()
        with enable_grad():
            # with create_graph, views of the inputs: the nested grad stops at them, so an
            # input computed from another (dist(x, 2 * x)) does not pass its gradient on
            leaves = [x.view_as(x) for x in inputs] if create else [
                x.detach().requires_grad_(i in wanted) for i, x in enumerate(inputs)]
            out = ctx.composition(*leaves)
        found = _ag.autograd.grad(out, [leaves[i] for i in wanted], grad, create_graph=create,
                                  allow_unused=True)
        result = [None] * len(inputs)
        for index, value in zip(wanted, found):
            result[index] = value
        return (None, *result)

    @staticmethod
    def jvp(ctx, composition_t, *tangents):
        wanted = [i for i, t in enumerate(tangents) if t is not None]
        with enable_grad():
            leaves = [x.detach().requires_grad_(i in wanted) for i, x in enumerate(ctx.inputs)]
            out = ctx.composition(*leaves)
            cotangent = _ag.zeros_like(out).requires_grad_(True)
            grads = _ag.autograd.grad(out, [leaves[i] for i in wanted], cotangent,
                                      create_graph=True, allow_unused=True)
            total = sum((g * tangents[i]).sum() for i, g in zip(wanted, grads) if g is not None)
            if not isinstance(total, _ag.Tensor) or not total.requires_grad:
                return _ag.zeros_like(out)
            (result,) = _ag.autograd.grad(total, cotangent)
        return result
