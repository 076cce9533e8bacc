"""Shape ops and views: reshape, view, transpose, permute, (un)squeeze, expand ...

A view op returns a tensor that shares memory *and* version counter with its
input (``make_view``), so an in-place op on either is seen by both; its backward
only rearranges the gradient back to the input's shape.
"""
import numpy as np

from autograd_cy._C.grad_mode cimport is_grad_enabled
from autograd_cy._C.tensor cimport Tensor, make_tensor, make_view, requires_grad
from autograd_cy._C.tensor import wrap_dim
from autograd_cy._C.node cimport Node, set_history1
from autograd_cy._C.ops.dispatch cimport wrap

__all__ = ["reshape", "view", "transpose", "swapaxes", "permute", "unsqueeze", "squeeze",
           "expand"]
__tensor_methods__ = ("reshape", "view", "transpose", "swapaxes", "permute", "unsqueeze",
                      "squeeze", "expand")


cdef tuple size_args(tuple args):
    """``f(2, 3)`` and ``f((2, 3))`` both mean the shape (2, 3)."""
    if len(args) == 1 and isinstance(args[0], (tuple, list)):
        return tuple(args[0])
    return args


cdef tuple infer_size(tuple shape, Py_ssize_t numel):
    """Resolve one -1 in ``shape``; PyTorch's error when the sizes do not fit."""
    cdef Py_ssize_t known = 1
    infer_at = -1
    for i, n in enumerate(shape):
        if n == -1:
            if infer_at >= 0:
                raise RuntimeError("only one dimension can be inferred")
            infer_at = i
        elif n < 0:
            raise RuntimeError(f"invalid shape dimension {n}")
        else:
            known *= n
    if infer_at >= 0:
        if known == 0 or numel % known:
            raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {numel}")
        shape = shape[:infer_at] + (numel // known,) + shape[infer_at + 1:]
    elif known != numel:
        raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {numel}")
    return shape


cdef class ViewBackward0(Node):
    cdef readonly tuple self_sym_sizes

    cpdef tuple apply(self, tuple grads):
        return (reshape(grads[0], self.self_sym_sizes),)


cdef class UnsafeViewBackward0(ViewBackward0):
    pass


cdef Tensor record_view(Node node, Tensor self, object array):
    cdef Tensor out = make_view(array, self)
    if is_grad_enabled() and requires_grad(self):
        set_history1(node, self, out)
    return out


def view(Tensor self, *shape):
    """The same memory seen with another shape; fails where a copy would be needed."""
    cdef ViewBackward0 node = ViewBackward0()
    if len(shape) == 1 and not isinstance(shape[0], (tuple, list, int)):
        from autograd_cy.dtypes import to_numpy_dtype
        raise RuntimeError("view(dtype) is not supported")
    shape = infer_size(size_args(shape), self._data.size)
    array = self._data.view()
    try:
        array.shape = shape
    except AttributeError:
        raise RuntimeError(
            "view size is not compatible with input tensor's size and stride (at least one "
            "dimension spans across two contiguous subspaces). Use .reshape(...) instead.") from None
    node.self_sym_sizes = self._data.shape
    return record_view(node, self, array)


def reshape(Tensor self, *shape):
    """``view`` when the memory allows it, else a reshaped copy."""
    cdef ViewBackward0 node
    cdef Tensor out
    shape = infer_size(size_args(shape), self._data.size)
    array = self._data.view()
    try:
        array.shape = shape
    except AttributeError:
        node = UnsafeViewBackward0()
        node.self_sym_sizes = self._data.shape
        out = wrap(np.reshape(self._data, shape))
        if is_grad_enabled() and requires_grad(self):
            set_history1(node, self, out)
        return out
    node = ViewBackward0()
    node.self_sym_sizes = self._data.shape
    return record_view(node, self, array)


cdef class TransposeBackward0(Node):
    cdef readonly Py_ssize_t dim0, dim1

    cpdef tuple apply(self, tuple grads):
        return (transpose(grads[0], self.dim0, self.dim1),)


def transpose(Tensor self, dim0, dim1):
    """Swap two dims (a view)."""
    cdef TransposeBackward0 node = TransposeBackward0()
    ndim = self._data.ndim
    node.dim0 = wrap_dim(dim0, ndim)
    node.dim1 = wrap_dim(dim1, ndim)
    if ndim == 0:
        return record_view(node, self, self._data.view())
    return record_view(node, self, np.swapaxes(self._data, node.dim0, node.dim1))


swapaxes = transpose


cdef class PermuteBackward0(Node):
    cdef readonly tuple dims

    cpdef tuple apply(self, tuple grads):
        inverse = [0] * len(self.dims)
        for i, d in enumerate(self.dims):
            inverse[d] = i
        return (permute(grads[0], tuple(inverse)),)


def permute(Tensor self, *dims):
    """Reorder the dims (a view)."""
    cdef PermuteBackward0 node = PermuteBackward0()
    dims = tuple(wrap_dim(d, self._data.ndim) for d in size_args(dims))
    if len(dims) != self._data.ndim:
        raise RuntimeError(
            "permute(sparse_coo): number of dimensions in the tensor input does not match the "
            f"length of the desired ordering of dimensions i.e. input.dim() = {self._data.ndim} "
            f"is not equal to len(dims) = {len(dims)}")
    if len(set(dims)) != len(dims):
        raise RuntimeError("permute(): duplicate dims are not allowed.")
    node.dims = dims
    return record_view(node, self, np.transpose(self._data, dims))


cdef class UnsqueezeBackward0(Node):
    cdef readonly Py_ssize_t dim

    cpdef tuple apply(self, tuple grads):
        return (squeeze(grads[0], self.dim),)


def unsqueeze(Tensor self, dim):
    """Insert a dim of size 1 at ``dim`` (a view)."""
    cdef UnsqueezeBackward0 node = UnsqueezeBackward0()
    node.dim = wrap_dim(dim, self._data.ndim + 1)
    return record_view(node, self, np.expand_dims(self._data, node.dim))


cdef class SqueezeBackward0(Node):
    cdef readonly tuple self_sym_sizes

    cpdef tuple apply(self, tuple grads):
        return (reshape(grads[0], self.self_sym_sizes),)


cdef class SqueezeBackward1(SqueezeBackward0):
    pass


def squeeze(Tensor self, dim=None):
    """Drop dims of size 1: all of them, or those in ``dim`` (int or tuple)."""
    cdef SqueezeBackward0 node = SqueezeBackward0() if dim is None else SqueezeBackward1()
    shape = self._data.shape
    if dim is None:
        axes = tuple(i for i, n in enumerate(shape) if n == 1)
    else:
        dims = (dim,) if isinstance(dim, int) else tuple(dim)
        axes = tuple(d for d in (wrap_dim(d, self._data.ndim) for d in dims)
                     if self._data.ndim and shape[d] == 1)
    node.self_sym_sizes = shape
    return record_view(node, self, np.squeeze(self._data, axis=axes) if axes
                       else self._data.view())


cdef class ExpandBackward0(Node):
    cdef readonly tuple self_sym_sizes

    cpdef tuple apply(self, tuple grads):
        from autograd_cy._C.ops.reduction import sum_to
        return (sum_to(grads[0], self.self_sym_sizes),)


def expand(Tensor self, *sizes):
    """Broadcast to ``sizes`` without copying (-1 keeps a dim); a view."""
    cdef ExpandBackward0 node = ExpandBackward0()
    sizes = size_args(sizes)
    shape = self._data.shape
    if len(sizes) < len(shape):
        raise RuntimeError(
            f"expand({self.__class__.__name__}{{{list(shape)}}}, size={list(sizes)}): the "
            "number of sizes provided ({len(sizes)}) must be greater or equal to the number of "
            f"dimensions in the tensor ({len(shape)})")
    offset = len(sizes) - len(shape)
    target = []
    for i, n in enumerate(sizes):
        if i >= offset and n == -1:
            n = shape[i - offset]
        elif i >= offset and shape[i - offset] != n and shape[i - offset] != 1:
            raise RuntimeError(
                f"The expanded size of the tensor ({n}) must match the existing size "
                f"({shape[i - offset]}) at non-singleton dimension {i}.  Target sizes: "
                f"{list(sizes)}.  Tensor sizes: {list(shape)}")
        target.append(n)
    node.self_sym_sizes = shape
    return record_view(node, self, np.broadcast_to(self._data, tuple(target)))
