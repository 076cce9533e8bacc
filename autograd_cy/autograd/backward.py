"""``autograd.backward`` and ``autograd.grad``: argument checks, then one engine call.

Everything here is validation and normalisation in PyTorch's words (engine
semantics section 2); the graph walk itself is ``run_backward`` in pyx/engine.pyx.
"""
import warnings
from collections.abc import Mapping

import numpy as np

from autograd_cy._C.tensor import Tensor
from autograd_cy._C.node import _gradient_edge
from autograd_cy._C.engine import run_backward
from autograd_cy.autograd.graph import GradientEdge
from autograd_cy.factories import ones_like

__all__ = ["backward", "grad"]

_CREATE_GRAPH_WARNING = (
    "Using backward() with create_graph=True will create a reference cycle between the "
    "parameter and its gradient which can cause a memory leak. We recommend using "
    "autograd.grad when creating the graph to avoid this. If you have to use this function, "
    "make sure to reset the .grad fields of your parameters to None after use to break the "
    "cycle and avoid the leak.")


def _as_tuple(value):
    if value is None:
        return None
    if isinstance(value, Tensor) or _is_gradient_edge(value):
        return (value,)
    return tuple(value)


def _is_gradient_edge(value):
    return isinstance(value, GradientEdge)


def _inputs_tuple(inputs, caller):
    """Normalise ``inputs=``: a tensor, a sequence or an exact dict (rules 2.2, 2.3)."""
    if inputs is None:
        return None, None
    keys = None
    if isinstance(inputs, dict) and type(inputs) is dict:
        keys = tuple(inputs.keys())
        inputs = tuple(inputs.values())
    elif isinstance(inputs, Mapping):
        raise TypeError(f"`inputs` argument to `{caller}()` must be a dict, not "
                        f"{type(inputs).__name__}. Other Mapping types are not supported.")
    inputs = _as_tuple(inputs)
    if len(inputs) == 0:
        raise RuntimeError(f"`inputs` argument to `{caller}()` cannot be empty.")
    return inputs, keys


def _edge(value):
    if _is_gradient_edge(value):
        return value._edge
    return _gradient_edge(value)


def _make_grads(outputs, grads, is_grads_batched):
    """Check the given output gradients or create the implicit ones (rules 2.4, 2.5)."""
    if len(grads) < len(outputs):
        raise RuntimeError(f"got {len(outputs)} tensors and {len(grads)} gradients")
    result = []
    for index, (out, grad) in enumerate(zip(outputs, grads)):
        if _is_gradient_edge(out):
            if grad is None:
                raise RuntimeError("grad can be implicitly created only for scalar outputs")
            result.append(grad)
            continue
        if isinstance(grad, Tensor):
            grad_shape = tuple(grad.shape)[1:] if is_grads_batched else tuple(grad.shape)
            if grad_shape != tuple(out.shape):
                if is_grads_batched:
                    raise RuntimeError(
                        "If `is_grads_batched=True`, we interpret the first dimension of each "
                        "grad_output as the batch dimension. The sizes of the remaining "
                        f"dimensions are expected to match the shape of corresponding output, "
                        f"but a mismatch was detected: grad_output[{index}] has a shape of "
                        f"{_size(grad.shape)} and output[{index}] has a shape of "
                        f"{_size(out.shape)}. If you only want some tensors in `grad_output` "
                        "to be considered batched, consider using vmap.")
                raise RuntimeError(
                    f"Mismatch in shape: grad_output[{index}] has a shape of "
                    f"{_size(grad.shape)} and output[{index}] has a shape of "
                    f"{_size(out.shape)}.")
            if grad.dtype != out.dtype and out.dtype.is_floating_point:
                grad = grad.to(out.dtype)
            result.append(grad)
        elif grad is None:
            if out.requires_grad:
                if out.numel() != 1:
                    raise RuntimeError("grad can be implicitly created only for scalar outputs")
                if not out.dtype.is_floating_point:
                    raise RuntimeError("grad can be implicitly created only for real scalar "
                                       f"outputs but got {out.dtype}")
                result.append(ones_like(out))
            else:
                result.append(None)
        else:
            raise TypeError("gradients can be either Tensors or None, but got "
                            f"{type(grad).__name__}")
    return tuple(result)


def _size(shape):
    return f"autograd_cy.Size({list(shape)})"


def _check_roots(outputs):
    for index, out in enumerate(outputs):
        if _is_gradient_edge(out):
            continue
        if not isinstance(out, Tensor):
            raise TypeError(f"element {index} of tensors is not a Tensor")
        if not out.requires_grad:
            raise RuntimeError(f"element {index} of tensors does not require grad and does not "
                               "have a grad_fn")


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False,
             grad_variables=None, inputs=None):
    """Accumulate into ``.grad`` of the leaves the gradient of ``tensors``.

    >>> import autograd_cy as ag
    >>> x = ag.tensor([1.0, 2.0], requires_grad=True)
    >>> ag.autograd.backward((x * 3).sum())
    >>> x.grad
    tensor([3., 3.])
    """
    if grad_variables is not None:
        warnings.warn("`grad_variables` is deprecated. Use `grad_tensors` instead.",
                      FutureWarning, stacklevel=2)
        if grad_tensors is None:
            grad_tensors = grad_variables
        else:
            raise RuntimeError("`grad_tensors` and `grad_variables` (deprecated) arguments "
                               "both passed to `backward()`. Please only use `grad_tensors`.")
    inputs, _ = _inputs_tuple(inputs, "backward")
    tensors = _as_tuple(tensors)
    grads = _as_tuple(grad_tensors) if grad_tensors is not None else (None,) * len(tensors)
    if retain_graph is None:
        retain_graph = create_graph
    if create_graph:
        warnings.warn(_CREATE_GRAPH_WARNING, UserWarning, stacklevel=2)
    grads = _make_grads(tensors, grads, False)
    _check_roots(tensors)
    input_edges = None
    if inputs is not None:
        for value in inputs:
            if isinstance(value, Tensor):
                # backward(inputs=[t]) fills t.grad even for a non-leaf (rule 2.8).
                value.retain_grad()
        input_edges = [_edge(value) for value in inputs]
    run_backward(tuple(_edge(t) for t in tensors), grads, bool(retain_graph),
                 bool(create_graph), input_edges, True)


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
    root_edges = tuple(_edge(t) for t in outputs)
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
    from autograd_cy import from_numpy
    return from_numpy(grad.numpy()[index])


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

