"""Reductions: sum, mean and friends, with their backward; ``sum_to`` for broadcasting.

A reduction's backward broadcasts the gradient back over the reduced dims;
``keepdim=False`` dims are first re-inserted with ``unsqueeze``.
"""
import numpy as np

from autograd_cy._C.grad_mode cimport is_grad_enabled
from autograd_cy._C.tensor cimport Tensor, make_tensor, requires_grad
from autograd_cy._C.node cimport Node, SavedTensor, save, set_history1
from autograd_cy._C.ops.dispatch cimport wrap

__all__ = ["sum", "mean", "sum_to"]
__tensor_methods__ = ("sum", "mean", "sum_to_size")


cdef tuple normalize_dims(object dim, Py_ssize_t ndim):
    """``dim`` (None, int, or tuple) as a sorted tuple of non-negative dims."""
    from autograd_cy._C.tensor import wrap_dim
    if dim is None:
        return tuple(range(ndim))
    if isinstance(dim, int):
        return (wrap_dim(dim, ndim),)
    dims = tuple(sorted(wrap_dim(d, ndim) for d in dim))
    if len(set(dims)) != len(dims):
        raise RuntimeError(f"dim {dims[0]} appears multiple times in the list of dims")
    return dims if dims else tuple(range(ndim))


cdef object expand_reduced(object grad, tuple dims, bint keepdim, tuple shape):
    """Broadcast a reduction's gradient back to the input ``shape``."""
    from autograd_cy._C.ops.shape import expand, reshape
    if not keepdim and dims:
        kept = tuple(1 if i in dims else n for i, n in enumerate(shape))
        grad = reshape(grad, kept)
    return expand(grad, shape)


cdef class SumBackward0(Node):
    """Backward of a full or dim-wise sum: the gradient, broadcast back."""
    cdef readonly tuple self_sym_sizes
    cdef readonly tuple dims
    cdef readonly bint keepdim

    cpdef tuple apply(self, tuple grads):
        return (expand_reduced(grads[0], self.dims, self.keepdim, self.self_sym_sizes),)


cdef class SumBackward1(SumBackward0):
    pass


def sum(Tensor self, dim=None, keepdim=False, *, dtype=None):
    """Sum of all elements, or over ``dim`` (int or tuple); ints sum as int64."""
    cdef Tensor out
    cdef SumBackward0 node
    dims = normalize_dims(dim, self._data.ndim)
    array = self._data
    target = dtype
    if target is None and array.dtype.kind in "biu":
        target = np.int64
    elif target is not None:
        from autograd_cy.dtypes import to_numpy_dtype
        target = to_numpy_dtype(target)
    out = wrap(np.sum(array, axis=dims, keepdims=keepdim, dtype=target))
    if is_grad_enabled() and requires_grad(self):
        node = SumBackward0() if dim is None else SumBackward1()
        node.self_sym_sizes = self._data.shape
        node.dims = dims
        node.keepdim = keepdim
        set_history1(node, self, out)
    return out


cdef class MeanBackward0(SumBackward0):
    cdef readonly Py_ssize_t count

    cpdef tuple apply(self, tuple grads):
        from autograd_cy._C.ops.arithmetic import div
        grad = div(grads[0], self.count)
        return (expand_reduced(grad, self.dims, self.keepdim, self.self_sym_sizes),)


cdef class MeanBackward1(MeanBackward0):
    pass


def mean(Tensor self, dim=None, keepdim=False, *, dtype=None):
    """Arithmetic mean over all elements or ``dim``; floating dtypes only."""
    cdef MeanBackward0 node
    if self._data.dtype.kind != "f" and dtype is None:
        from autograd_cy.dtypes import from_numpy_dtype
        raise RuntimeError(
            "mean(): could not infer output dtype. Input dtype must be either a floating point "
            f"or complex dtype. Got: {from_numpy_dtype(self._data.dtype)._scalar_name}")
    dims = normalize_dims(dim, self._data.ndim)
    count = 1
    for d in dims:
        count *= self._data.shape[d]
    cdef Tensor out = wrap(np.mean(self._data, axis=dims, keepdims=keepdim))
    if is_grad_enabled() and requires_grad(self):
        node = MeanBackward0() if dim is None else MeanBackward1()
        node.self_sym_sizes = self._data.shape
        node.dims = dims
        node.keepdim = keepdim
        node.count = count
        set_history1(node, self, out)
    return out


def sum_to(Tensor grad, tuple shape):
    """Sum ``grad`` down to ``shape`` (the inverse of broadcasting ``shape`` up to it)."""
    from autograd_cy._C.ops.shape import reshape
    leading = grad._data.ndim - len(shape)
    dims = tuple(range(leading)) + tuple(
        leading + i for i, n in enumerate(shape) if n == 1 and grad._data.shape[leading + i] != 1)
    if not dims:
        return grad if grad._data.shape == shape else reshape(grad, shape)
    reduced = sum(grad, dims, True)
    return reshape(reduced, shape)


def sum_to_size(Tensor self, *size):
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        size = tuple(size[0])
    return sum_to(self, tuple(size))
