# cython: allow_none_for_extension_args=False
"""Diagonals: diagonal (a view) and trace, with their backward.

``diagonal`` shares memory with its input like every view (NOTE [Views] in shape.pyx); its
gradient is a zero tensor of the input's shape holding the incoming gradient on that
diagonal, written by ``diagonal_backward``, which is itself differentiable.
"""
import numpy as np

from autograd_cy._C.grad_mode cimport is_grad_enabled, forward_level
from autograd_cy._C.forward cimport forward1
from autograd_cy._C.tensor cimport (
    Tensor, make_tensor, requires_grad, array_module,
)
from autograd_cy._C.device cimport strided_view, as_array
from autograd_cy._C.tensor cimport wrap_dim
from autograd_cy._C.node cimport Node
from autograd_cy._C.recording cimport record1
from autograd_cy._C.ops.shape cimport record_view
from autograd_cy._C.ops.arithmetic import mul

__all__ = ["diagonal", "trace"]
__tensor_methods__ = ("diagonal", "trace")


cdef object diagonal_array(object array, Py_ssize_t offset, Py_ssize_t dim1, Py_ssize_t dim2):
    """A writable view of ``array``'s diagonal (``np.diagonal``'s is read-only): the other
    dims in order, then the diagonal."""
    index = [slice(None)] * array.ndim
    if offset >= 0:
        index[dim2] = slice(offset, None)
    else:
        index[dim1] = slice(-offset, None)
    sub = array[tuple(index)]
    length = min(sub.shape[dim1], sub.shape[dim2])
    keep = [d for d in range(array.ndim) if d != dim1 and d != dim2]
    # writeable where ``sub`` is: strided_view asks the array itself (a CuPy array's flags
    # have no ``writeable``, so the caller must not)
    return strided_view(sub, tuple([sub.shape[d] for d in keep]) + (length,),
                        tuple([sub.strides[d] for d in keep]) + (sub.strides[dim1]
                                                                 + sub.strides[dim2],))


cdef class DiagonalBackward0(Node):
    cdef readonly Py_ssize_t saved_offset, saved_dim1, saved_dim2
    cdef readonly tuple saved_self_sym_sizes

    complex_formulas = True     # it only moves the gradient's elements

    cpdef tuple apply(self, tuple grads):
        return (diagonal_backward(grads[0], self.saved_self_sym_sizes, self.saved_offset,
                                  self.saved_dim1, self.saved_dim2),)


def diagonal(Tensor self, offset=0, dim1=0, dim2=1):
    """The diagonal of the 2-D slices over ``dim1`` and ``dim2`` (a view), as the last dim."""
    cdef Py_ssize_t ndim = self._data.ndim
    cdef Py_ssize_t d1 = wrap_dim(dim1, ndim), d2 = wrap_dim(dim2, ndim)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    cdef DiagonalBackward0 node = DiagonalBackward0()
    node.saved_offset, node.saved_dim1, node.saved_dim2 = offset, d1, d2
    node.saved_self_sym_sizes = self._data.shape
    return record_view(node, self, diagonal_array(self._data, offset, d1, d2))


cdef class DiagonalBackwardBackward0(Node):
    cdef readonly Py_ssize_t saved_offset, saved_dim1, saved_dim2

    complex_formulas = True

    cpdef tuple apply(self, tuple grads):
        return (diagonal(grads[0], self.saved_offset, self.saved_dim1, self.saved_dim2),)


def diagonal_backward(Tensor grad, tuple sizes, Py_ssize_t offset, Py_ssize_t dim1,
                      Py_ssize_t dim2):
    """Zeros of ``sizes`` holding ``grad`` on the diagonal (differentiable)."""
    cdef DiagonalBackwardBackward0 node
    cdef Tensor out = make_tensor(array_module(grad._data).zeros(sizes, dtype=grad._data.dtype))
    diagonal_array(out._data, offset, dim1, dim2)[...] = grad._data
    if is_grad_enabled() and requires_grad(grad):
        node = DiagonalBackwardBackward0()
        node.saved_offset, node.saved_dim1, node.saved_dim2 = offset, dim1, dim2
        record1(node, grad, out)
    if forward_level():
        forward1(out, grad, diagonal_backward_tangent, (sizes, offset, dim1, dim2))
    return out


cdef object diagonal_backward_tangent(Tensor grad_t, Tensor grad, Tensor result, tuple extra):
    """Linear in ``grad``: ``diagonal_backward(grad_t, sizes, offset, dim1, dim2)``."""
    return diagonal_backward(grad_t, *extra)


cdef class TraceBackward0(Node):
    cdef readonly tuple saved_self_sym_sizes

    complex_formulas = True     # the gradient on the diagonal: a real identity times it

    cpdef tuple apply(self, tuple grads):
        grad = grads[0]
        eye = array_module((<Tensor>grad)._data).zeros(self.saved_self_sym_sizes,
                                                       dtype=(<Tensor>grad)._data.dtype)
        diagonal_array(eye, 0, 0, 1)[...] = 1     # np.eye, on the gradient's device
        return (mul(grad, make_tensor(eye)),)


def trace(Tensor self):
    """Sum of the main diagonal of a matrix (integers sum as int64)."""
    cdef TraceBackward0 node
    if self._data.ndim != 2:
        raise RuntimeError(f"trace: expected a matrix, but got tensor with dim "
                           f"{self._data.ndim}")
    array = self._data
    if array.dtype.kind == "b":
        raise NotImplementedError("\"trace\" not implemented for 'Bool'")
    dtype = np.int64 if array.dtype.kind in "iu" else array.dtype
    # the diagonal's sum (np.trace's), on the array's device
    cdef Tensor out = make_tensor(as_array(diagonal_array(array, 0, 0, 1).sum(dtype=dtype)))
    if is_grad_enabled() and requires_grad(self):
        node = TraceBackward0()
        node.saved_self_sym_sizes = array.shape
        record1(node, self, out)
    if forward_level():
        forward1(out, self, trace_tangent)
    return out


cdef object trace_tangent(Tensor self_t, Tensor self, Tensor result, tuple extra):
    """``trace(self_t)`` (linear; the diagonal is a view of a view's tangent too)."""
    return trace(self_t)


# NOTE [Complex tangents] in forward.pyx: these formulas are checked for complex tensors.
from autograd_cy._C.forward cimport complex_unary
complex_unary(diagonal_backward_tangent)
complex_unary(trace_tangent)
