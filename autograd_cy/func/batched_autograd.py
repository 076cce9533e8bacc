"""``autograd.grad`` called inside vmap.

NOTE [autograd.grad inside vmap]
The graph is recorded on physical tensors, whose rows are independent examples (NOTE [The
batched tensor]), so one backward on the physical tensors gives every example's gradient:

- an output batched over some levels is differentiated with its grad_output laid out over
  the same levels (a missing grad_output of a logical scalar is ones);
- a grad_output batched over levels its output is not (vmap over a vjp function: jacrev,
  ``is_grads_batched``) is a batch of cotangents for the same graph: those levels become the
  leading dim of one ``is_grads_batched`` backward (NOTE [Batched gradients]);
- an input must vary over every level its outputs do, or its gradient would be summed over
  the examples: ``func.grad`` and ``func.vjp`` batch their inputs so; an unbatched input of
  a batched output (``autograd.grad(loss, w)`` of a weight shared by the examples) is
  differentiated once per example, through the fallback (fallback.py).
"""
from autograd_cy._C.tensor import Tensor
from autograd_cy.func.fallback import fallback
from autograd_cy.func.batched_tensor import (
    batched, levels_of, physical_of, union_levels, materialized, level_size,
)

__all__ = ["batched_grad"]


def batched_grad(grad, outputs, inputs, grad_outputs, *, retain_graph, create_graph,
                 allow_unused, materialize_grads):
    """``grad`` (the original ``autograd.grad``) over batched arguments."""
    output_levels = set(union_levels(outputs))
    input_levels = [set(levels_of(t)) for t in inputs]
    if not all(output_levels <= levels for levels in input_levels):
        if any(input_levels):
            raise RuntimeError(
                "vmap: autograd.grad of a batched output with respect to an input that is "
                "batched over other vmap levels than the output is not supported; use "
                "autograd_cy.func.grad or func.vjp, which batch their inputs.")

        def one_example(outs, ins, gos):
            return grad(outs, ins, gos, True, create_graph, True, allow_unused, False,
                        materialize_grads)
        return fallback("grad", one_example,
                                 (tuple(outputs), tuple(inputs), tuple(grad_outputs)), {})
    extra = sorted(set(union_levels([g for g in grad_outputs if isinstance(g, Tensor)]))
                   - output_levels)
    physical_outputs, physical_grads = [], []
    for output, grad_output in zip(outputs, grad_outputs):
        own = levels_of(output)
        physical_outputs.append(physical_of(output))
        if grad_output is None and own:     # ones for each example's scalar output
            if output.numel() != 1:
                raise RuntimeError("grad can be implicitly created only for scalar outputs")
            grad_output = batched(physical_of(output).new_ones(
                tuple(physical_of(output).shape)), own)
        if grad_output is None:
            physical_grads.append(None)
            continue
        layout = tuple(sorted(set(own) | set(extra)))
        physical = materialized(grad_output, layout) if layout else grad_output
        if extra:        # the cotangent levels in front, as one batch dim
            positions = [layout.index(level) for level in extra]
            rest = [i for i in range(physical.dim()) if i not in positions]
            physical = physical.permute(positions + rest)
            physical = physical.reshape((-1,) + tuple(physical.shape)[len(extra):])
        physical_grads.append(physical)
    if extra and any(g is None for g in physical_grads):
        raise RuntimeError("vmap: autograd.grad with batched grad_outputs needs a "
                           "grad_output for every output")
    grads = grad(physical_outputs, [physical_of(t) for t in inputs], physical_grads,
                 retain_graph, create_graph, True, allow_unused, bool(extra),
                 materialize_grads)
    results = []
    for t, g in zip(inputs, grads):
        if g is None:
            results.append(None)
            continue
        own = levels_of(t)
        if not extra:
            results.append(batched(g, own))
            continue
        sizes = tuple(level_size(level) for level in extra)
        g = g.reshape(sizes + tuple(g.shape)[1:])
        order = list(extra) + list(own)
        layout = tuple(sorted(order))
        permutation = [order.index(level) for level in layout]
        permutation += list(range(len(order), g.dim()))
        results.append(batched(g.permute(permutation), layout))
    return tuple(results)
