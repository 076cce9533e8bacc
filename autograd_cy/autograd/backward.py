"""``autograd.backward`` and ``autograd.grad``: argument checks, then one engine call.

``backward`` and the checks both share live in the core (pyx/backward.pyx), so that
``Tensor.backward`` reaches the engine without passing through Python; ``grad`` adds what
only it has: captured results, ``allow_unused``, ``materialize_grads``, batched gradients
(one engine pass: NOTE [Batched gradients] in pyx/batching.pyx).
"""
import warnings


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
    if is_grads_batched:
        _check_batch_sizes(grad_outputs)
    _check_roots(outputs)
    root_edges = _root_edges(outputs)
    input_edges = [_edge(value) for value in inputs]

    result = run_backward(root_edges, grad_outputs, bool(retain_graph), bool(create_graph),
                          input_edges, False, bool(is_grads_batched))
    result = _finish(result, inputs, allow_unused, materialize_grads, create_graph)
    if keys is not None:
        return dict(zip(keys, result))
    return result


def _check_batch_sizes(grad_outputs):
    """Every batched grad_output has a first dim, and all of them the same size (the words
    are those of PyTorch's vmap, which runs its batched backward)."""
    sizes = []
    for grad in grad_outputs:
        if grad is None:
            continue
        if grad.dim() == 0:
            raise ValueError("vmap(vjp, in_dims=0, ...)(<inputs>): Got in_dim=0 for some input, "
                             "but that input is a Tensor of dimensionality 0 so expected in_dim "
                             "to satisfy 0 <= in_dim < 0.")
        sizes.append(grad.shape[0])
    if len(set(sizes)) > 1:
        raise ValueError("vmap: Expected all tensors to have the same size in the mapped "
                         f"dimension, got sizes {sizes} for the mapped dimension")


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

