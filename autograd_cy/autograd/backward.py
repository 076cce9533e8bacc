"""``autograd.backward`` and ``autograd.grad``: argument checks, then one engine call.

``backward`` and the checks both share live in the core (pyx/backward.pyx), so that
``Tensor.backward`` reaches the engine without passing through Python; ``grad`` adds what
only it has: captured results, ``allow_unused``, ``materialize_grads``, batched gradients.
"""
import warnings

import numpy as np

from autograd_cy._C.backward import (
    backward, GradientEdge, _as_tuple, _check_roots, _edge, _inputs_tuple, _is_gradient_edge,
    _make_grads, _root_edges,
)
from autograd_cy._C.engine import run_backward

__all__ = ["backward", "grad"]


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False,
         only_inputs=True, allow_unused=None, is_grads_batched=False, materialize_grads=False):
    """The gradients of ``outputs`` with respect to ``inputs``, returned, not accumulated.

    >>> import autograd_cy as ag
    >>> x = ag.tensor(3.0, requires_grad=True)
    >>> ag.autograd.grad(x ** 2, x)
    (tensor(6.),)
    """
    if materialize_grads and allow_unused is False:
        raise ValueError("Expected allow_unused to be True or not passed when materialize_grads"
                         f"=True, but got: allow_unused={allow_unused}.")
    if allow_unused is None:
        allow_unused = materialize_grads
    if not only_inputs:
        warnings.warn("only_inputs argument is deprecated and is ignored now (defaults to "
                      "True). To accumulate gradient for other parts of the graph, please use "
                      "torch.autograd.backward.", FutureWarning, stacklevel=2)
    inputs, keys = _inputs_tuple(inputs, "grad")
    outputs = _as_tuple(outputs)
    grad_outputs = (_as_tuple(grad_outputs) if grad_outputs is not None
                    else (None,) * len(outputs))
    for value in inputs:
        if not _is_gradient_edge(value) and not value.requires_grad:
            raise RuntimeError("One of the differentiated Tensors does not require grad")
    if retain_graph is None:
        retain_graph = create_graph
    grad_outputs = _make_grads(outputs, grad_outputs, is_grads_batched)
    _check_roots(outputs)
    root_edges = _root_edges(outputs)
    input_edges = [_edge(value) for value in inputs]

    if is_grads_batched:
        result = _batched_grad(root_edges, grad_outputs, retain_graph, create_graph,
                               input_edges, inputs)
    else:
        result = run_backward(root_edges, grad_outputs, bool(retain_graph),
                              bool(create_graph), input_edges, False)
    result = _finish(result, inputs, allow_unused, materialize_grads, create_graph)
    if keys is not None:
        return dict(zip(keys, result))
    return result


def _batched_grad(root_edges, grad_outputs, retain_graph, create_graph, input_edges, inputs):
    """``is_grads_batched``: one engine call per row of the batched grad_outputs."""
    from autograd_cy import zeros_like
    batch = next(g.shape[0] for g in grad_outputs if g is not None)
    rows = []
    for index in range(batch):
        row = tuple(None if g is None else _row(g, index) for g in grad_outputs)
        rows.append(run_backward(root_edges, row, True if index < batch - 1 else
                                 bool(retain_graph), bool(create_graph), input_edges, False))
    result = []
    for position, value in enumerate(inputs):
        column = [row[position] for row in rows]
        if all(item is None for item in column):
            result.append(None)
        else:
            result.append(_stack([item if item is not None else zeros_like(value)
                                  for item in column]))
    return result


def _row(grad, index):
    """``grad[index]``; a plain view of the array unless the gradient itself is differentiable."""
    if grad.requires_grad:
        return grad[index]
    return grad.detach()[index]


def _stack(tensors):
    """``stack(tensors)``; differentiable when the stack op is built (create_graph)."""
    import autograd_cy
    stack = getattr(autograd_cy, "stack", None)
    if stack is not None:
        return stack(tensors)
    return autograd_cy.from_numpy(np.stack([t.detach().numpy() for t in tensors]))


def _finish(result, inputs, allow_unused, materialize_grads, create_graph):
    from autograd_cy import zeros_like
    final = []
    for index, (value, input) in enumerate(zip(result, inputs)):
        if value is None:
            if materialize_grads:
                if _is_gradient_edge(input):
                    raise RuntimeError("materialize_grads cannot be used when the given input "
                                       "is a GradientEdge")
                value = zeros_like(input, requires_grad=create_graph)
            elif not allow_unused:
                raise RuntimeError(
                    f"The differentiated Tensor at index {index} appears to not have been used "
                    "in the graph. Set allow_unused=True if this is the desired behavior.")
        final.append(value)
    return tuple(final)

