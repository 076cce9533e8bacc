"""``backward()``: from the user's arguments to one engine call (and ``Tensor.backward``).

Everything here is validation and normalisation, in PyTorch's words: the roots and their
gradients (implicit ones for scalar outputs), ``inputs=`` as a tensor, a sequence or a dict;
the graph walk itself is ``run_backward`` in engine.pyx. ``autograd.grad`` (in
autograd_cy/autograd/backward.py) shares these checks.
"""
import warnings
from collections import namedtuple
from collections.abc import Mapping

import numpy as np

from autograd_cy._C.tensor cimport (
    Tensor, make_tensor, array_module, register_methods, requires_grad,
)
from autograd_cy._C.dtype cimport from_numpy_dtype
from autograd_cy._C.node cimport Node, Edge, make_edge
from autograd_cy._C.recording cimport gradient_edge
from autograd_cy._C.engine cimport run_backward

__all__ = ["backward", "GradientEdge"]


class GradientEdge(namedtuple("GradientEdge", ("node", "output_nr"))):
    """Where a tensor's gradient enters the graph: ``(node, output_nr)``."""

    @property
    def _edge(self):
        return make_edge(self.node, self.output_nr)

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
    """Normalise ``inputs=``: a tensor, a sequence or an exact dict (never empty)."""
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
    return gradient_edge(value)


def _make_grads(outputs, grads, is_grads_batched):
    """Check the given output gradients (shape, dtype cast) or create the implicit ones
    (only for scalar outputs)."""
    if len(grads) < len(outputs):
        raise RuntimeError(f"got {len(outputs)} tensors and {len(grads)} gradients")
    result = []
    for index, (out, grad) in enumerate(zip(outputs, grads)):
        if isinstance(out, GradientEdge) and grad is None:
            result.append(_implicit_edge_grad(out))
            continue
        if isinstance(grad, Tensor):
            out_shape, out_dtype = _output_metadata(out)
            # torch checks the first row of a batch (and prints that row's shape less its
            # first dim); a 0-dim batch has no first row.
            grad_shape = (tuple(grad[0].shape) if is_grads_batched
                          else (<Tensor>grad)._data.shape)
            if out_shape is not None and grad_shape != out_shape:
                if is_grads_batched and _is_gradient_edge(out):
                    raise RuntimeError("Batched grads are not supported with GradientEdge")
                if is_grads_batched:
                    raise RuntimeError(
                        "If `is_grads_batched=True`, we interpret the first dimension of each "
                        "grad_output as the batch dimension. The sizes of the remaining "
                        f"dimensions are expected to match the shape of corresponding output, "
                        f"but a mismatch was detected: grad_output[{index}] has a shape of "
                        f"{_size(grad_shape[1:])} and output[{index}] has a shape of "
                        f"{_size(out_shape)}. If you only want some tensors in `grad_output` "
                        "to be considered batched, consider using vmap.")
                raise RuntimeError(
                    f"Mismatch in shape: grad_output[{index}] has a shape of "
                    f"{_size(grad.shape)} and output[{index}] has a shape of "
                    f"{_size(out_shape)}.")
            if (out_dtype is not None and (<Tensor>grad)._data.dtype != out_dtype
                    and out_dtype.kind == "f"):
                grad = grad.to(from_numpy_dtype(out_dtype))
            result.append(grad)
        elif grad is None:
            if isinstance(out, Tensor) and requires_grad(<Tensor>out):
                array = (<Tensor>out)._data
                if array.size != 1:
                    raise RuntimeError("grad can be implicitly created only for scalar outputs")
                if array.dtype.kind != "f":
                    raise RuntimeError("grad can be implicitly created only for real scalar "
                                       f"outputs but got {out.dtype}")
                result.append(make_tensor(ones_like_array(array)))
            elif not isinstance(out, Tensor):
                raise AssertionError("Expected output to be a autograd_cy.Tensor")
            else:
                result.append(None)
        else:
            raise TypeError("gradients can be either Tensors or None, but got "
                            f"{type(grad).__name__}")
    return tuple(result)


cdef object ones_like_array(object array):
    """Ones shaped like ``array`` (the implicit gradient of a scalar output); on the CPU
    without np.ones_like's Python wrapper."""
    if type(array) is not np.ndarray:
        return array_module(array).ones_like(array)
    ones = np.empty(array.shape, array.dtype)
    ones.fill(1)
    return ones


def _output_metadata(out):
    """(shape, NumPy dtype) of an output: a tensor, or a GradientEdge (its node's metadata)."""
    if isinstance(out, Tensor):
        array = (<Tensor>out)._data
        return array.shape, array.dtype
    metadata = (<Node>out.node).input_metadata
    if metadata is not None and out.output_nr < len(metadata):
        return metadata[out.output_nr][:2]
    return None, None


def _implicit_edge_grad(edge):
    """Ones for a GradientEdge output of one element, as the node's metadata describes it."""
    shape, dtype = _output_metadata(edge)
    if shape is not None:
        array = np.ones(shape, dtype=dtype)
        if array.size == 1:
            return make_tensor(array)
    raise RuntimeError("grad can be implicitly created only for scalar outputs")


def _size(shape):
    return f"autograd_cy.Size({list(shape)})"


def _root_edges(outputs):
    """The gradient edge of each output; an output whose gradient has nowhere to go (a view
    made under no_grad of a tensor that requires grad has neither a grad_fn nor its own
    flag) is refused as PyTorch's engine refuses it."""
    edges = []
    for index, out in enumerate(outputs):
        edge = _edge(out)
        if (<Edge>edge).function is None:
            raise RuntimeError(f"element {index} of tensors does not require grad and does not "
                               "have a grad_fn")
        edges.append(edge)
    return tuple(edges)


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
                # backward(inputs=[t]) fills t.grad even for a non-leaf.
                value.retain_grad()
        input_edges = [_edge(value) for value in inputs]
    run_backward(_root_edges(tensors), grads, bool(retain_graph),
                 bool(create_graph), input_edges, True)




def _tensor_backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
    """Accumulate the gradient of this tensor into the leaves (``autograd.backward``).

    >>> x = ag.tensor([1.0, 2.0], requires_grad=True)
    >>> (x * x).sum().backward()
    >>> x.grad
    tensor([2., 4.])
    """
    backward((self,), gradient, retain_graph, create_graph, inputs=inputs)


register_methods({"backward": _tensor_backward})
