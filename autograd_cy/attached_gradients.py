"""Gradients that require grad under ``create_graph`` as torch's, though they do not read
the inputs that make torch's require it.

# NOTE [Gradients attached to the inputs of torch's backward op]
Where torch's backward is one op that takes the forward's inputs (layer_norm's
native_layer_norm_backward, the padding ops' replication_pad1d_backward ...), under
``create_graph`` every gradient it returns requires grad as soon as one of those inputs
does, though the gradient may not depend on it (a bias's gradient, a sum of ``grad``; a
pad's, a scatter of ``grad``). Ours compute such a gradient from ``grad`` alone. ``attach``
records it through one more node, named as torch's backward-of-the-backward node
(``NativeLayerNormBackwardBackward0``, ``ReplicationPad1DBackwardBackward0``), that ties it
to those inputs: its value is the gradient's (a copy), it passes its own gradient on
unchanged, and the inputs get none from it (as torch's formulas give them none: a
second backward still reaches them, and their tensor hooks are called with None).
"""
from autograd_cy.autograd.function import Function
from autograd_cy.grad_mode import is_grad_enabled

__all__ = []


class _Attached(Function):
    """``value`` (copied), recorded as depending on ``inputs``, which get no gradient."""
    builtin_op = True

    @staticmethod
    def forward(ctx, value, *inputs):
        return value.clone()

    @staticmethod
    def backward(ctx, grad):
        return (grad,) + (None,) * (len(ctx.needs_input_grad) - 1)


def attached_op(node_name):
    """An ``_Attached`` op whose node is named ``node_name`` (torch's)."""
    op = type(f"_Attached{node_name}", (_Attached,), {"__doc__": _Attached.__doc__})
    op._backward_cls.__name__ = node_name
    return op


def attach(gradient, op, *inputs):
    """``gradient`` through ``op`` (from ``attached_op``) where a backward records
    (``create_graph``) and one of ``inputs`` (None allowed) requires grad (NOTE [Gradients
    attached to the inputs of torch's backward op]), even where the gradient requires grad
    already: a second backward reaches those inputs, as torch's, their hooks seeing None."""
    if gradient is None or not is_grad_enabled():
        return gradient
    wanted = [t for t in inputs if t is not None and t.requires_grad]
    return op.apply(gradient, *wanted) if wanted else gradient
