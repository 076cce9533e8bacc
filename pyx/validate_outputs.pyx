"""Output validation: each gradient a node returns is checked against what the receiving
node expects (its ``input_metadata``), as PyTorch's ``validate_outputs`` does, before the
engine passes it on: the count of gradients, then per gradient its shape (a gradient that
can be summed down to the expected shape is), its dtype (cast) and its device (a 0-dim
gradient is moved, any other refused). The gradients given to backward() for its roots
are checked the same way.
"""
import numpy as np
cimport numpy as cnp

from autograd_cy._C.device cimport device_of
from autograd_cy._C.device import CPU
from autograd_cy._C.tensor cimport Tensor, tensor_operators
from autograd_cy._C.node cimport Node, Edge

cnp.import_array()


cdef tuple validate_outputs(Node node, tuple outputs):
    """Check each gradient against what its receiver expects (the ``input_metadata`` of the
    receiving node): sum a broadcast gradient back to the input's shape, cast its dtype,
    refuse a shape that cannot be summed to it."""
    cdef tuple children = node.next_nodes
    cdef Py_ssize_t i, count = len(children)
    cdef Node child
    cdef Tensor grad
    cdef list result = None
    if len(outputs) != count:
        raise RuntimeError(f"Function {node.name()} returned an invalid number of gradients - "
                           f"expected {count}, but got {len(outputs)}")
    for i in range(count):
        child = <Node>children[i]
        value = outputs[i]
        if value is None:
            continue
        if child is None:
            if result is None:
                result = list(outputs)
            result[i] = None
            continue
        grad = value
        metadata = child.input_metadata[<Py_ssize_t>node.next_input_nrs[i]]
        if metadata is None:
            continue
        shape = (<tuple>metadata)[0]
        dtype = (<tuple>metadata)[1]
        if len(<tuple>metadata) != 2 or type(grad._data) is not cnp.ndarray:
            # a CUDA input, or a CUDA gradient: the devices must agree
            moved = conform_device(node, i, grad, <tuple>metadata)
            if moved is not grad:
                if result is None:
                    result = list(outputs)
                result[i] = grad = moved
        if not conforms(grad._data, <tuple>shape, dtype):
            if result is None:
                result = list(outputs)
            result[i] = conform_gradient(node, i, grad, shape, dtype)
    return outputs if result is None else tuple(result)


cdef tuple root_grads_on_their_devices(tuple root_edges, tuple root_grads):
    """The gradients given to backward() on their outputs' devices: a 0-dim one is moved,
    any other on the wrong device refused, in the root's words (torch validates the roots'
    gradients as it validates a node's outputs)."""
    cdef list result = None
    cdef Py_ssize_t i
    for i in range(len(root_grads)):
        grad = root_grads[i]
        edge = <Edge>root_edges[i]
        if grad is None or edge.function is None:
            continue
        metadata = (<Node>edge.function).input_metadata[edge.input_nr]
        if metadata is None or (len(<tuple>metadata) == 2
                                and type((<Tensor>grad)._data) is cnp.ndarray):
            continue                            # the CPU case: nothing to move
        expected = metadata[2] if len(<tuple>metadata) > 2 else CPU
        got = device_of((<Tensor>grad)._data)
        if got == expected:
            continue
        if (<Tensor>grad)._data.ndim != 0:
            raise RuntimeError(f"invalid gradient at index {i} - expected device {expected} "
                               f"but got {got}")
        if result is None:
            result = list(root_grads)
        result[i] = (<Tensor>grad).to(expected)
    return root_grads if result is None else tuple(result)


cdef Tensor conform_device(Node node, Py_ssize_t index, Tensor grad, tuple metadata):
    """The gradient on the device its input is on: a 0-dim gradient is moved there, any
    other on the wrong device is an error, as in torch."""
    expected = metadata[2] if len(metadata) > 2 else CPU
    got = device_of(grad._data)
    if got == expected:
        return grad
    if grad._data.ndim == 0:
        return grad.to(expected)
    raise RuntimeError(f"Function {node.name()} returned an invalid gradient at index {index} "
                       f"- expected device {expected} but got {got}")


cdef Tensor conform_gradient(Node node, Py_ssize_t index, Tensor grad, tuple shape, dtype):
    if grad._data.shape != shape:
        if not is_expandable_to(shape, grad._data.shape):
            raise RuntimeError(
                f"Function {node.name()} returned an invalid gradient at index {index} - got "
                f"{list(grad._data.shape)} but expected shape compatible with {list(shape)}")
        grad = tensor_operators().sum_to(grad, shape)  # reduction.pyx's sum_to
    if grad._data.dtype != dtype:
        if grad._data.dtype.kind == "c" and dtype.kind != "c":
            # refused for a formula not checked for complex tensors, and for one PyTorch does
            # not make real for a real input (handle_r_to_c): its engine then refuses it
            if not getattr(type(node), "complex_formulas", False) or getattr(
                    type(node), "complex_gradient_for_real_inputs", False):
                raise RuntimeError("Expected isFloatingType(grad.scalar_type()) || "
                                   "(input_is_complex == grad_is_complex) to be true, but got "
                                   "false.")
            # A real input of a complex op gets dL/dx, the real part (NOTE [Complex
            # gradients] in ops/conjugate.pyx): what PyTorch's formulas take one by one.
            grad = grad.real
            if grad._data.dtype == dtype:
                return grad
        grad = grad.to(dtype=np.dtype(dtype))
    return grad


cdef bint is_expandable_to(tuple shape, tuple desired):
    cdef Py_ssize_t i, ndim = len(shape), target_ndim = len(desired)
    if ndim > target_ndim:
        return False
    for i in range(ndim):
        size = shape[ndim - 1 - i]
        target = desired[target_ndim - 1 - i]
        if size != target and size != 1:
            return False
    return True


cdef tuple validate_batched_outputs(Node node, tuple outputs, Py_ssize_t batch):
    """validate_outputs in a batched pass (NOTE [Batched gradients] in batching.pyx): each
    gradient is ``(batch, *shape)`` for its receiver's ``shape``; a batched gradient of a
    broadcast shape is summed down to it, the dtype cast, the device checked."""
    cdef tuple children = node.next_nodes
    cdef Py_ssize_t i, count = len(children), extra
    cdef Node child
    cdef Tensor grad
    cdef list result = list(outputs)
    if len(outputs) != count:
        raise RuntimeError(f"Function {node.name()} returned an invalid number of gradients - "
                           f"expected {count}, but got {len(outputs)}")
    for i in range(count):
        child = <Node>children[i]
        if outputs[i] is None:
            continue
        if child is None:
            result[i] = None
            continue
        grad = outputs[i]
        metadata = child.input_metadata[<Py_ssize_t>node.next_input_nrs[i]]
        if metadata is None:
            continue
        shape = (<tuple>metadata)[0]
        if len(<tuple>metadata) != 2 or type(grad._data) is not cnp.ndarray:
            grad = conform_device(node, i, grad, <tuple>metadata)
        rows = grad._data.shape[1:] if grad._data.ndim else ()
        if not grad._data.ndim or grad._data.shape[0] != batch:
            raise RuntimeError(
                f"Function {node.name()} returned an invalid gradient at index {i} - got "
                f"{list(grad._data.shape)} but expected a batch of {batch} gradients of a "
                f"shape compatible with {list(shape)}")
        extra = len(rows) - len(<tuple>shape)
        if extra > 0 and is_expandable_to(<tuple>shape, rows):
            # broadcast to more dims than the input has: sum the extra leading ones away
            grad = grad.sum(tuple(range(1, extra + 1)))
        batched = (batch,) + <tuple>shape
        if not conforms(grad._data, batched, (<tuple>metadata)[1]):
            grad = conform_gradient(node, i, grad, batched, (<tuple>metadata)[1])
        result[i] = grad
    return tuple(result)
