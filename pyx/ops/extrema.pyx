# cython: allow_none_for_extension_args=False
"""Extrema: amax/amin, max/min (full, along a dim, or elementwise), argmax/argmin.

Which elements get the gradient is a selection, not a formula: a full max/min and
amax/amin share it evenly among the ties (a NaN result selects the NaNs), max/min along
a dim give it to the saved index only. Masks are constants without grad, as their
derivative is zero almost everywhere. A reduced dim of size 0 is an error (no identity).
``max(a, b)`` with a Tensor ``b`` is ``maximum`` (pointwise.pyx); argmax/argmin record nothing.
"""
from collections import namedtuple

import numpy as np
cimport numpy as cnp

from autograd_cy._C.dtype cimport kind_of
from autograd_cy._C.device cimport as_array
from autograd_cy._C.tensor cimport array_module, Tensor, wrap_dim
from autograd_cy._C.grad_mode cimport forward_level
from autograd_cy._C.forward cimport forward1

cdef object INT64 = np.dtype(np.int64)
from autograd_cy._C.node cimport unpack_saved
from autograd_cy._C.saved_tensor cimport SavedTensor
from autograd_cy._C.recording cimport record
from autograd_cy._C.fp_errors cimport ignoring_fp_errors
from autograd_cy._C.promotion cimport refuse_complex, is_complex_array
from autograd_cy._C.ops.reduction cimport (
    ReductionBackward, normalize_dims, check_nonempty, record_reduction, constant, records,
    contiguous_result, kept_shape,
)
from autograd_cy._C.ops.arithmetic import mul, div
from autograd_cy._C.ops.arguments cimport invalid_combination, missing_argument
from autograd_cy._C.ops.arguments import NOT_GIVEN
from autograd_cy._C.ops.selection import where, maximum, minimum
from autograd_cy._C.ops.reduction import sum
from autograd_cy._C.ops.gather_scatter import gather

cnp.import_array()

__all__ = ["amax", "amin", "max", "min", "argmax", "argmin", "median"]
__tensor_methods__ = ("amax", "amin", "max", "min", "argmax", "argmin", "median")


# ------------------------------------------------------------------ forward AD
#
# NOTE [Tangents of extrema]
# A reduction that shares its gradient among ties (amax/amin, full max/min/median) has the
# mean of the tied elements' tangents as its tangent (``sum(where(x == result, x_t, 0)) /
# count``; a NaN result ties with nothing: 0 / 0 is NaN, as in PyTorch). One that returns
# indices (max/min/median along a dim) reads the tangent at those indices (a gather).

cdef object shared_tangent(Tensor self_t, Tensor self, Tensor result, tuple extra):
    """The mean of ``self_t`` over the elements equal to ``result`` along ``dims``."""
    cdef tuple dims = extra[0]
    cdef bint keepdim = extra[1]
    kept = result._data if keepdim else result._data.reshape(kept_shape(self._data.shape, dims))
    selected = constant(self._data == kept)
    return div(sum(where(selected, self_t, 0.0), dims, keepdim), sum(selected, dims, keepdim))


cdef object indexed_tangent(Tensor self_t, Tensor self, Tensor result, tuple extra):
    """``self_t`` at ``indices`` along ``dims[0]`` (max/min/median along a dim)."""
    cdef Tensor indices = extra[0]
    cdef tuple dims = extra[1]
    cdef bint keepdim = extra[2]
    if not dims or self._data.ndim == 0:
        return self_t.reshape(result.shape).clone()     # a tangent of its own
    kept = indices if keepdim else indices.unsqueeze(dims[0])
    picked = gather(self_t, dims[0], kept)
    return picked if keepdim else picked.squeeze(dims[0])


# ------------------------------------------------------------------ amax / amin

cdef class AmaxBackward0(ReductionBackward):
    """The gradient is shared evenly by the elements equal to the result (ties)."""
    saved_names = ("self", "result")

    batches_gradients = True     # NOTE [Batched gradients]
    cpdef tuple apply(self, tuple grads):
        x = (<SavedTensor>self.saved_tensors[0]).unpack_array(self)
        result = (<Tensor>self.keep(unpack_saved(self, 1)))._data
        is_extreme = (x == result).astype(x.dtype)
        with ignoring_fp_errors():  # a NaN slice: 0/0, as torch
            share = is_extreme / np.sum(is_extreme, axis=self.saved_dim, keepdims=True)
        return (mul(self.keep_grad(grads[0]), constant(share)),)


cdef class AminBackward0(AmaxBackward0):
    pass


cdef Tensor extreme(Tensor self, object dim, bint keepdim, bint largest, str name):
    if self._data.size == 0 and (dim is None or dim == () or dim == []):
        raise RuntimeError(f"{name}(): Expected reduction dim to be specified for "
                           "input.numel() == 0. Specify the reduction dim with the 'dim' "
                           "argument.")
    dims = normalize_dims(() if dim is None else dim, self._data.ndim)
    check_nonempty(name, self._data.shape, dims if self._data.size == 0 else ())
    if self._data.size:     # after the shape checks; an empty input reaches no kernel
        refuse_complex(self, NotImplementedError,
                       f'"{name[1:]}_values_cpu" not implemented for ' "'{dtype}'")
    elif is_complex_array(self._data) and records(self):
        raise RuntimeError(f"{name} does not support automatic differentiation for outputs "
                           "with complex dtype.")
    reduce = np.amax if largest else np.amin
    cdef Tensor out = contiguous_result(reduce(self._data, axis=dims, keepdims=keepdim))
    if records(self):
        node = AmaxBackward0() if largest else AminBackward0()
        record_reduction(node, self, out, dims, keepdim, (self, out))
    if forward_level():
        forward1(out, self, shared_tangent, (dims, keepdim))
    return out


def amax(Tensor self, dim=(), keepdim=False):
    """Largest value over ``dim`` (int or tuple; all dims by default); ties share the grad."""
    return extreme(self, dim, keepdim, True, "amax")


def amin(Tensor self, dim=(), keepdim=False):
    """Smallest value over ``dim`` (int or tuple; all dims by default); ties share the grad."""
    return extreme(self, dim, keepdim, False, "amin")


# ------------------------------------------------------------------ max / min

cdef class MaxBackward1(ReductionBackward):
    """Full max/min: the gradient is split evenly among the elements equal to the result
    (the NaNs, if the result is NaN)."""
    saved_names = ("self", "result")

    cpdef tuple apply(self, tuple grads):
        x = (<SavedTensor>self.saved_tensors[0]).unpack_array(self)
        value = (<SavedTensor>self.saved_tensors[1]).unpack_array(self)
        selected = np.isnan(x) if np.isnan(value) else x == value
        share = div(grads[0], int(np.count_nonzero(selected)))
        return (where(constant(selected), share, np.zeros((), dtype=x.dtype)),)


cdef class MinBackward1(MaxBackward1):
    pass


cdef class MaxBackward0(ReductionBackward):
    """max/min along a dim: the gradient goes to the selected index only."""
    saved_names = ("indices",)

    batches_gradients = True     # NOTE [Batched gradients]
    cpdef tuple apply(self, tuple grads):
        indices = (<Tensor>self.keep(unpack_saved(self, 0)))._data
        dtype = (<Tensor>grads[0])._data.dtype
        xp = array_module(indices)
        if self.saved_dim:
            selected = xp.zeros(self.saved_self_sym_sizes, dtype=bool)
            np.put_along_axis(selected, indices, True, axis=self.saved_dim[0])
        else:
            selected = xp.ones((), dtype=bool)
        return (where(constant(selected), self.keep_grad(grads[0]),
                      xp.zeros((), dtype=dtype)),)


cdef class MinBackward0(MaxBackward0):
    pass


max_result = namedtuple("max", ["values", "indices"])
min_result = namedtuple("min", ["values", "indices"])


cdef tuple MAX_SIGNATURES = ("()", "(Tensor other)", "(int dim, bool keepdim = False)")


cdef object dim_not_none(str name, object dim, object keepdim, tuple signatures):
    """An explicit ``dim=None``, which the overload with a dim refuses (int dim): the
    parser's error, which lists the overloads when ``dim`` is the only argument."""
    if keepdim is None and signatures:
        return invalid_combination(name, (dim,), {}, signatures)
    return TypeError(f"{name}(): argument 'dim' (position 1) must be int, not NoneType")


cdef object max_or_min(Tensor self, object dim, object keepdim, bint largest):
    cdef str name = "max" if largest else "min"
    cdef MaxBackward0 node
    if isinstance(dim, Tensor):
        return binary_extreme(self, dim, largest)
    if dim is NOT_GIVEN:
        if keepdim is not None:
            raise invalid_combination(name, (), {"keepdim": keepdim}, MAX_SIGNATURES)
        dim = None
    elif dim is None:
        raise dim_not_none(name, dim, keepdim, MAX_SIGNATURES)
    keepdim = keepdim is True or bool(keepdim)
    array = self._data
    if dim is None:
        if array.size == 0:     # checked before the dtype, as PyTorch
            raise RuntimeError(f"{name}(): Expected reduction dim to be specified for "
                               "input.numel() == 0. Specify the reduction dim with the 'dim' "
                               "argument.")
        refuse_complex(self, NotImplementedError, f'"{name}_all" not implemented for ' "'{dtype}'")
        out = contiguous_result(np.max(array) if largest else np.min(array))
        if records(self):
            record_reduction(MaxBackward1() if largest else MinBackward1(), self, out,
                             normalize_dims(None, array.ndim), False, (self, out))
        if forward_level():
            forward1(out, self, shared_tangent, (normalize_dims(None, array.ndim), False))
        return out
    dims = normalize_dims(dim, array.ndim)
    check_nonempty(name, array.shape, dims)     # checked before the dtype, as PyTorch
    refuse_complex(self, RuntimeError, f"{name}(): does not support complex input")
    axis = dims[0] if dims else None
    search = np.argmax if largest else np.argmin
    index_array = as_array(search(array, axis=axis, keepdims=True), INT64)
    values = np.take_along_axis(array, index_array, axis) if dims else array.copy()
    if not keepdim and dims:
        values = np.squeeze(values, axis)
        index_array = np.squeeze(index_array, axis)
    out = contiguous_result(values)
    indices = contiguous_result(index_array.reshape(values.shape))
    if records(self):
        node = MaxBackward0() if largest else MinBackward0()
        node.saved_dim = dims
        node.saved_keepdim = keepdim
        node.saved_self_sym_sizes = array.shape
        # The indices are an integer output, outside the graph (no grad_fn): ``record`` keeps
        # them as the tensor itself, as PyTorch does (``_saved_indices is indices``).
        record(node, (self,), (out, indices), (indices,))
    if forward_level():
        forward1(out, self, indexed_tangent, (indices, dims, keepdim))
    return (max_result if largest else min_result)(out, indices)


cdef object binary_extreme(Tensor self, Tensor other, bint largest):
    """``max(a, b)`` is ``maximum(a, b)`` (elementwise), found at call time."""
    return maximum(self, other) if largest else minimum(self, other)


def max(Tensor self, dim=NOT_GIVEN, keepdim=None):
    """Largest element; with ``dim``, ``(values, indices)`` along it; with a Tensor,
    the elementwise maximum."""
    return max_or_min(self, dim, keepdim, True)


def min(Tensor self, dim=NOT_GIVEN, keepdim=None):
    """Smallest element; with ``dim``, ``(values, indices)``; with a Tensor, ``minimum``."""
    return max_or_min(self, dim, keepdim, False)


# ------------------------------------------------------------------ argmax / argmin

cdef Tensor arg_extreme(Tensor self, object dim, bint keepdim, bint largest):
    cdef str name = "argmax" if largest else "argmin"
    refuse_complex(self, RuntimeError, f"{name}(): does not support complex input", False)
    if self._data.dtype.kind == "b":
        raise RuntimeError(f"{name}(): does not support bool input")
    search = np.argmax if largest else np.argmin
    array = self._data
    if dim is None:
        if array.size == 0:
            raise IndexError(f"{name}(): Expected reduction dim to be specified for "
                             "input.numel() == 0.")
        index = search(array)
        shape = (1,) * array.ndim if keepdim else ()
        return contiguous_result(array_module(array).full(shape, index, dtype=np.int64))
    if isinstance(dim, (tuple, list)):
        raise TypeError(f"{name}(): argument 'dim' (position 1) must be int, not "
                        f"{type(dim).__name__}")
    dims = normalize_dims(dim, array.ndim)
    check_nonempty(name, array.shape, dims)
    if not dims:
        return contiguous_result(array_module(array).zeros((), dtype=np.int64))
    return contiguous_result(as_array(search(array, axis=dims[0], keepdims=keepdim), INT64))


def argmax(Tensor self, dim=None, keepdim=False):
    """Index of the largest element (of the flattened tensor when ``dim`` is None)."""
    return arg_extreme(self, dim, keepdim, True)


def argmin(Tensor self, dim=None, keepdim=False):
    """Index of the smallest element (of the flattened tensor when ``dim`` is None)."""
    return arg_extreme(self, dim, keepdim, False)


# ------------------------------------------------------------------ median

cdef class MedianBackward0(MaxBackward1):
    """Full median: the gradient is split evenly among the elements equal to it."""


cdef class MedianBackward1(MaxBackward0):
    """Median along a dim: the gradient goes to the returned index."""


median_result = namedtuple("median", ["values", "indices"])


def median(Tensor self, dim=NOT_GIVEN, keepdim=None):
    """The lower median (of an even count, the smaller middle value); NaN if any is NaN.
    With ``dim``, ``(values, indices)`` along it."""
    cdef MaxBackward0 node
    if dim is NOT_GIVEN:
        if keepdim is not None:
            raise missing_argument("median", "dim")
        dim = None
    elif dim is None:
        raise dim_not_none("median", dim, keepdim, ())
    keepdim = keepdim is True or bool(keepdim)
    array = self._data
    if array.dtype.kind == "b":
        raise NotImplementedError("\"median_cpu\" not implemented for 'Bool'")
    if dim is None and array.size:      # (an empty tensor's median is NaN, without a kernel)
        refuse_complex(self, NotImplementedError,
                       "\"median_cpu\" not implemented for '{dtype}'")
    nan = np.isnan(array) if kind_of(array.dtype) == "f" else None
    if dim is None:
        flat = array.reshape(-1)
        if array.size == 0:     # NaN (an integer's lowest value), on the tensor's device
            if is_complex_array(array) and records(self):   # no kernel ran to refuse it
                raise RuntimeError("median does not support automatic differentiation for "
                                   "outputs with complex dtype.")
            value = array_module(array).full(
                (), np.nan if kind_of(array.dtype) in "fc" else np.iinfo(array.dtype).min,
                dtype=array.dtype)
        elif nan is not None and nan.any():
            value = flat[np.argmax(nan.reshape(-1))]
        else:
            value = np.partition(flat, (flat.size - 1) // 2)[(flat.size - 1) // 2]
        out = contiguous_result(as_array(value, array.dtype))
        if records(self):
            record_reduction(MedianBackward0(), self, out, normalize_dims(None, array.ndim),
                             False, (self, out))
        if forward_level():
            forward1(out, self, shared_tangent, (normalize_dims(None, array.ndim), False))
        return out
    cdef Py_ssize_t d = wrap_dim(dim, array.ndim)
    work = array if array.ndim else array.reshape(1)
    axis = d if array.ndim else 0
    check_nonempty("median", work.shape, (axis,))
    refuse_complex(self, NotImplementedError, "\"median_out\" not implemented for '{dtype}'")
    order = np.argsort(work, axis=axis, kind="stable")
    middle = (work.shape[axis] - 1) // 2
    index_array = np.take(order, [middle], axis=axis)
    if nan is not None:
        work_nan = nan if array.ndim else nan.reshape(1)
        index_array = np.where(work_nan.any(axis=axis, keepdims=True),
                               np.argmax(work_nan, axis=axis, keepdims=True), index_array)
    index_array = index_array.astype(np.int64)
    values = np.take_along_axis(work, index_array, axis)
    if not keepdim or not array.ndim:
        values = np.squeeze(values, axis)
        index_array = np.squeeze(index_array, axis)
    if not array.ndim:
        values, index_array = values.reshape(()), index_array.reshape(())
    out = contiguous_result(values)
    indices = contiguous_result(index_array)
    if records(self):
        node = MedianBackward1()
        node.saved_dim = (d,) if array.ndim else ()
        node.saved_keepdim = keepdim
        node.saved_self_sym_sizes = array.shape
        record(node, (self,), (out, indices), (indices,))
    if forward_level():
        forward1(out, self, indexed_tangent, (indices, (d,) if array.ndim else (), keepdim))
    return median_result(out, indices)
