"""``backward()`` and ``grad()``: from the user's arguments to one engine call (and
``Tensor.backward``).

Everything here is validation and normalisation, in PyTorch's words: the roots and their
gradients (implicit ones for scalar outputs), ``inputs=`` as a tensor, a sequence or a dict;
the graph walk itself is ``run_backward`` in engine.pyx. ``grad`` adds what only it has:
captured results, ``allow_unused``, ``materialize_grads``, batched gradients (one engine
pass: NOTE [Batched gradients] in batching.pyx). Both are compiled: the functional API and
gradcheck call ``grad`` in loops, and its checks in Python cost as much as a small backward.
"""
import warnings
from collections import namedtuple
from collections.abc import Mapping

import numpy as np
cimport numpy as cnp
cnp.import_array()

from autograd_cy._C.tensor cimport (
    Tensor, make_tensor, array_module, register_methods, requires_grad,
)
from autograd_cy._C.dtype cimport from_numpy_dtype, kind_of
from autograd_cy._C.node cimport Node, Edge, make_edge
from autograd_cy._C.recording cimport gradient_edge
from autograd_cy._C.engine cimport run_backward

__all__ = ["backward", "grad", "GradientEdge"]


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


# warn_always.warn_once (TORCH_WARN_ONCE's rule under set_warn_always), from the Python package
# above this layer: autograd_cy/warn_always.py fills the slot when imported.
cdef object warn_once_slot = None


def _set_warn_once(warn_once):
    global warn_once_slot
    warn_once_slot = warn_once


cdef tuple as_tuple(value):
    if value is None:
        return None
    if isinstance(value, Tensor) or isinstance(value, GradientEdge):
        return (value,)
    return tuple(value)


cdef tuple inputs_tuple(inputs, str caller):
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
    inputs = as_tuple(inputs)
    if len(inputs) == 0:
        raise RuntimeError(f"`inputs` argument to `{caller}()` cannot be empty.")
    return inputs, keys


cdef Edge edge_of(value):
    if isinstance(value, GradientEdge):
        return value._edge
    return gradient_edge(value)


cdef tuple make_grads(tuple outputs, tuple grads, bint is_grads_batched):
    """Check the given output gradients (shape, dtype cast) or create the implicit ones
    (only for scalar outputs)."""
    if len(grads) < len(outputs):
        raise RuntimeError(f"got {len(outputs)} tensors and {len(grads)} gradients")
    result = []
    for index, (out, grad) in enumerate(zip(outputs, grads)):
        if isinstance(out, GradientEdge) and grad is None:
            result.append(implicit_edge_grad(out))
            continue
        if isinstance(grad, Tensor):
            out_shape, out_dtype = output_metadata(out)
            # torch checks the first row of a batch (and prints that row's shape less its
            # first dim); a 0-dim batch has no first row.
            grad_shape = (tuple(grad[0].shape) if is_grads_batched
                          else (<Tensor>grad)._data.shape)
            if out_shape is not None and grad_shape != out_shape:
                if is_grads_batched and isinstance(out, GradientEdge):
                    raise RuntimeError("Batched grads are not supported with GradientEdge")
                if is_grads_batched:
                    raise RuntimeError(
                        "If `is_grads_batched=True`, we interpret the first dimension of each "
                        "grad_output as the batch dimension. The sizes of the remaining "
                        f"dimensions are expected to match the shape of corresponding output, "
                        f"but a mismatch was detected: grad_output[{index}] has a shape of "
                        f"{size_repr(grad_shape[1:])} and output[{index}] has a shape of "
                        f"{size_repr(out_shape)}. If you only want some tensors in `grad_output` "
                        "to be considered batched, consider using vmap.")
                raise RuntimeError(
                    f"Mismatch in shape: grad_output[{index}] has a shape of "
                    f"{size_repr(grad.shape)} and output[{index}] has a shape of "
                    f"{size_repr(out_shape)}.")
            if out_dtype is not None and (<Tensor>grad)._data.dtype != out_dtype:
                if ((<Tensor>grad)._data.dtype.kind == "c") != (out_dtype.kind == "c"):
                    raise RuntimeError(
                        "For complex Tensors, both grad_output and output are required to "
                        f"have the same dtype. Mismatch in dtype: grad_output[{index}] has a "
                        f"dtype of {grad.dtype} and output[{index}] has a dtype of "
                        f"{from_numpy_dtype(out_dtype)}.")
                if kind_of(out_dtype) in "fc":
                    grad = grad.to(from_numpy_dtype(out_dtype))
            result.append(grad)
        elif grad is None:
            if isinstance(out, Tensor) and requires_grad(<Tensor>out):
                array = (<Tensor>out)._data
                if array.size != 1:
                    raise RuntimeError("grad can be implicitly created only for scalar outputs")
                if kind_of(array.dtype) != "f":
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
    if type(array) is not cnp.ndarray:
        return array_module(array).ones_like(array)
    ones = np.empty(array.shape, array.dtype)
    ones.fill(1)
    return ones


cdef object output_metadata(out):
    """(shape, NumPy dtype) of an output: a tensor, or a GradientEdge (its node's metadata)."""
    if isinstance(out, Tensor):
        array = (<Tensor>out)._data
        return array.shape, array.dtype
    metadata = (<Node>out.node).input_metadata
    if metadata is not None and out.output_nr < len(metadata):
        return metadata[out.output_nr][:2]
    return None, None


cdef Tensor implicit_edge_grad(edge):
    """Ones for a GradientEdge output of one element, as the node's metadata describes it."""
    shape, dtype = output_metadata(edge)
    if shape is not None:
        array = np.ones(shape, dtype=dtype)
        if array.size == 1:
            return make_tensor(array)
    raise RuntimeError("grad can be implicitly created only for scalar outputs")


cdef str size_repr(shape):
    return f"autograd_cy.Size({list(shape)})"


cdef tuple root_edges_of(tuple outputs):
    """The gradient edge of each output; an output whose gradient has nowhere to go (a view
    made under no_grad of a tensor that requires grad has neither a grad_fn nor its own
    flag) is refused as PyTorch's engine refuses it."""
    edges = []
    for index, out in enumerate(outputs):
        edge = edge_of(out)
        if (<Edge>edge).function is None:
            raise RuntimeError(f"element {index} of tensors does not require grad and does not "
                               "have a grad_fn")
        edges.append(edge)
    return tuple(edges)


cdef void check_roots(tuple outputs) except *:
    for index, out in enumerate(outputs):
        if isinstance(out, GradientEdge):
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
    inputs, _ = inputs_tuple(inputs, "backward")
    tensors = as_tuple(tensors)
    grads = as_tuple(grad_tensors) if grad_tensors is not None else (None,) * len(tensors)
    if retain_graph is None:
        retain_graph = create_graph
    if create_graph:
        # once per process, as torch's TORCH_WARN_ONCE (every time under set_warn_always)
        warn_once_slot(_CREATE_GRAPH_WARNING, 2)
    grads = make_grads(tensors, grads, False)
    check_roots(tensors)
    input_edges = None
    if inputs is not None:
        for value in inputs:
            if isinstance(value, Tensor):
                # backward(inputs=[t]) fills t.grad even for a non-leaf.
                value.retain_grad()
        input_edges = [edge_of(value) for value in inputs]
    run_backward(root_edges_of(tensors), grads, bool(retain_graph),
                 bool(create_graph), input_edges, True)


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False,
         only_inputs=True, allow_unused=None, is_grads_batched=False, materialize_grads=False):
    """The gradients of ``outputs`` with respect to ``inputs``, returned, not accumulated.

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
                      "torch.autograd.backward.", FutureWarning, stacklevel=1)
    inputs, keys = inputs_tuple(inputs, "grad")
    outputs = as_tuple(outputs)
    grad_outputs = (as_tuple(grad_outputs) if grad_outputs is not None
                    else (None,) * len(outputs))
    for value in inputs:
        if not isinstance(value, GradientEdge) and not (
                requires_grad(<Tensor>value) if isinstance(value, Tensor)
                else value.requires_grad):
            raise RuntimeError("One of the differentiated Tensors does not require grad")
    if retain_graph is None:
        retain_graph = create_graph
    grad_outputs = make_grads(outputs, grad_outputs, is_grads_batched)
    if is_grads_batched:
        check_batch_sizes(grad_outputs)
    check_roots(outputs)
    result = run_backward(root_edges_of(outputs), grad_outputs, bool(retain_graph),
                          bool(create_graph), [edge_of(value) for value in inputs], False,
                          bool(is_grads_batched))
    result = unused_inputs(result, inputs, allow_unused, materialize_grads, create_graph)
    if keys is not None:
        return dict(zip(keys, result))
    return result


cdef void check_batch_sizes(tuple grad_outputs) except *:
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


cdef tuple unused_inputs(list result, tuple inputs, allow_unused, materialize_grads,
                         create_graph):
    """``grad``'s results where an input was not reached (None): an error unless
    ``allow_unused``; zeros with ``materialize_grads``."""
    for index in range(len(result)):
        if result[index] is not None:
            continue
        if materialize_grads:
            if isinstance(inputs[index], GradientEdge):
                raise RuntimeError("materialize_grads cannot be used when the given input "
                                   "is a GradientEdge")
            array = (<Tensor>inputs[index])._data
            result[index] = make_tensor(array_module(array).zeros_like(array))
            if create_graph:
                result[index].requires_grad_(True)
        elif not allow_unused:
            raise RuntimeError(
                f"The differentiated Tensor at index {index} appears to not have been used "
                "in the graph. Set allow_unused=True if this is the desired behavior.")
    return tuple(result)


def _tensor_backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
    """Accumulate the gradient of this tensor into the leaves (``autograd.backward``).

    >>> x = ag.tensor([1.0, 2.0], requires_grad=True)
    >>> (x * x).sum().backward()
    >>> x.grad
    tensor([2., 4.])
    """
    backward((self,), gradient, retain_graph, create_graph, inputs=inputs)


register_methods({"backward": _tensor_backward})
