# cython: allow_none_for_extension_args=False
"""Memory overlap: what an in-place op refuses (or warns about) of the memory it writes, as
PyTorch's MemOverlap functions decide it (NOTE [Memory overlap]). ``apply_inplace`` in
views.pyx runs an op's ``OverlapChecks`` after the autograd checks."""
import warnings

cimport numpy as cnp

from autograd_cy._C.tensor cimport Tensor
from autograd_cy._C.device cimport is_cuda_array, data_address, is_dense, has_dense_layout

cnp.import_array()


# NOTE [Memory overlap]
# An in-place op that reads the memory it writes could make its result depend on the order
# of its loop, so PyTorch checks the written tensor (its MemOverlap functions):
#
# * internal overlap: its own elements share memory. YES only for a zero stride on a dim
#   longer than 1 (an ``expand``); a tensor that is not non-overlapping and dense is
#   otherwise TOO_HARD and passes.
# * overlap with an operand (get_overlap_status): NO when either is empty or their bytes
#   are disjoint; TOO_HARD (passes) unless both are non-overlapping and dense; FULL when
#   they cover the same bytes with the same strides (``x.add_(x)``); PARTIAL otherwise.
#
# Which checks run is the op's own business, so apply_inplace takes them as an
# OverlapChecks function, run after check_inplace (PyTorch's kernel runs after the
# autograd checks). The default (NULL) is TensorIterator's: no internal overlap and no
# operand that overlaps PARTIALLY; copy_, fill_, masked_fill_ and index_put_ say otherwise
# next to their definitions. NumPy gives a size-1 dim any stride (``broadcast_to`` gives 0)
# where PyTorch keeps the one it had, so strides are compared on the dims longer than 1.
# NumPy arrays take a fast path through the C API; two DeviceArrays of one CUDA device are
# compared the same way through their Python metadata (arrays of two devices share nothing).

_INTERNAL_OVERLAP_ERROR = (
    "unsupported operation: more than one element of the written-to tensor refers to a "
    "single memory location. Please clone() the tensor before performing the operation.")
_OVERLAP_ERROR = (
    "unsupported operation: some elements of the input tensor and the written-to tensor "
    "refer to a single memory location. Please clone() the tensor before performing the "
    "operation.")


cdef void elementwise_overlap_checks(Tensor self, tuple others) except *:
    """TensorIterator's checks: no internal overlap, no operand that overlaps partially."""
    check_no_internal_overlap(self)
    for other in others:
        check_no_partial_overlap(self, other)


cdef void no_overlap_checks(Tensor self, tuple others) except *:
    """For ops that read their value once, before writing (fill_, zero_)."""
    pass


cdef int overlap_status(Tensor written, object read) except -1:
    """PyTorch's get_overlap_status of ``written`` and ``read`` (an operand, maybe no tensor)."""
    cdef cnp.ndarray a, b
    cdef char* a_begin
    cdef char* b_begin
    cdef char* a_end
    cdef char* b_end
    if not isinstance(read, Tensor):
        return OVERLAP_NO
    if read is written:
        return OVERLAP_FULL
    if written._is_conj or (<Tensor>read)._is_conj:
        # torch resolves a conjugate (or negative-bit) operand into memory of its own before
        # the op (its conjugate fallback), so it overlaps nothing; here its memory is the
        # mirror (NOTE [Conjugate views] in tensor.pyx), which the op reads as a copy anyway
        return OVERLAP_NO
    if type(written._data) is not cnp.ndarray or type((<Tensor>read)._data) is not cnp.ndarray:
        return device_overlap_status(written._data, (<Tensor>read)._data)
    a = <cnp.ndarray>written._data
    b = <cnp.ndarray>(<Tensor>read)._data
    if a is b:
        return OVERLAP_FULL
    if cnp.PyArray_SIZE(a) == 0 or cnp.PyArray_SIZE(b) == 0:
        return OVERLAP_NO
    a_begin = <char*>cnp.PyArray_DATA(a)
    b_begin = <char*>cnp.PyArray_DATA(b)
    a_end = a_begin + cnp.PyArray_NBYTES(a)
    b_end = b_begin + cnp.PyArray_NBYTES(b)
    if not (a_begin < b_end and b_begin < a_end):
        # The common case, tested first as it is cheap. (For a layout that is not dense
        # these are not its bounds, but it would be TOO_HARD, which passes all the same.)
        return OVERLAP_NO
    if not (has_dense_layout(a) and has_dense_layout(b)):
        return OVERLAP_TOO_HARD
    if a_begin == b_begin and a_end == b_end and same_layout(a, b):
        return OVERLAP_FULL
    return OVERLAP_PARTIAL


cdef void check_no_partial_overlap(Tensor written, object read) except *:
    """PyTorch's assert_no_partial_overlap: ``x[1:] -= x[:-1]`` is refused; reading the
    very elements written, in the same layout (``x.add_(x)``), is fine."""
    if overlap_status(written, read) == OVERLAP_PARTIAL:
        raise RuntimeError(_OVERLAP_ERROR)


cdef void check_no_overlap(Tensor written, object read) except *:
    """PyTorch's assert_no_overlap: ``read`` may share no memory with ``written`` at all."""
    cdef int status = overlap_status(written, read)
    if status == OVERLAP_PARTIAL or status == OVERLAP_FULL:
        raise RuntimeError(_OVERLAP_ERROR)


cdef bint has_internal_overlap(Tensor written) except -1:
    """Do elements of ``written`` share memory for sure (a zero stride on a dim longer than 1)?"""
    cdef cnp.ndarray array
    cdef int i
    if type(written._data) is not cnp.ndarray:
        return is_cuda_array(written._data) and any_zero_stride(written._data)
    array = <cnp.ndarray>written._data
    if cnp.PyArray_SIZE(array) == 0:
        return False                # no elements, no overlap
    for i in range(cnp.PyArray_NDIM(array)):
        if cnp.PyArray_STRIDES(array)[i] == 0 and cnp.PyArray_DIMS(array)[i] > 1:
            return True
    return False


cdef void check_no_internal_overlap(Tensor written) except *:
    """PyTorch's assert_no_internal_overlap: no writing element by element into an ``expand``."""
    if has_internal_overlap(written):
        raise RuntimeError(_INTERNAL_OVERLAP_ERROR)


cdef void warn_if_expanded(Tensor written, str op, str example) except *:
    """index_put_ and masked_fill_ only warn about internal overlap (deprecated)."""
    if has_internal_overlap(written):
        warnings.warn(
            f"Use of {op} on expanded tensors is deprecated. Please clone() the tensor before "
            f"performing this operation. This also applies to advanced indexing e.g. {example}",
            UserWarning, stacklevel=1)


cdef bint same_data(Tensor a, Tensor b) except -1:
    """Do ``a`` and ``b`` read the same elements of the same memory, in the same layout and
    dtype? (PyTorch's copy_ then has nothing to do.)"""
    if a is b or a._data is b._data:
        return True
    if type(a._data) is not cnp.ndarray or type(b._data) is not cnp.ndarray:
        return (same_cuda_device(a._data, b._data)
                and data_address(a._data) == data_address(b._data)
                and a._data.dtype == b._data.dtype and same_strides(a._data, b._data))
    return (cnp.PyArray_DATA(<cnp.ndarray>a._data) == cnp.PyArray_DATA(<cnp.ndarray>b._data)
            and a._data.dtype == b._data.dtype
            and same_layout(<cnp.ndarray>a._data, <cnp.ndarray>b._data))


cdef bint same_layout(cnp.ndarray a, cnp.ndarray b):
    """The same shape, and the same strides on every dim longer than 1."""
    cdef int i, ndim = cnp.PyArray_NDIM(a)
    if cnp.PyArray_NDIM(b) != ndim:
        return False
    for i in range(ndim):
        if cnp.PyArray_DIMS(a)[i] != cnp.PyArray_DIMS(b)[i]:
            return False
        if cnp.PyArray_DIMS(a)[i] > 1 and cnp.PyArray_STRIDES(a)[i] != cnp.PyArray_STRIDES(b)[i]:
            return False
    return True


# ------------------------------------------------------------------ DeviceArrays

cdef bint same_cuda_device(object a, object b):
    return is_cuda_array(a) and is_cuda_array(b) and a.device is b.device


cdef int device_overlap_status(object a, object b) except -1:
    """overlap_status for arrays that are not both NumPy's (NOTE [Memory overlap])."""
    if not same_cuda_device(a, b):
        return OVERLAP_NO if is_cuda_array(a) or is_cuda_array(b) else OVERLAP_TOO_HARD
    if a is b:
        return OVERLAP_FULL
    if a.size == 0 or b.size == 0:
        return OVERLAP_NO
    cdef Py_ssize_t a_begin = data_address(a), b_begin = data_address(b)
    cdef Py_ssize_t a_end = a_begin + a.nbytes, b_end = b_begin + b.nbytes
    if not (a_begin < b_end and b_begin < a_end):
        return OVERLAP_NO
    if not (is_dense(a) and is_dense(b)):
        return OVERLAP_TOO_HARD
    if a_begin == b_begin and a_end == b_end and same_strides(a, b):
        return OVERLAP_FULL
    return OVERLAP_PARTIAL


cdef bint any_zero_stride(object array):
    """A zero stride on a dim longer than 1 (in an array with elements)."""
    return array.size != 0 and any([s == 0 and n > 1 for n, s in zip(array.shape,
                                                                     array.strides)])


cdef bint same_strides(object a, object b):
    """same_layout for arrays of any device."""
    return a.shape == b.shape and all([n <= 1 or s == t for n, s, t in zip(a.shape, a.strides,
                                                                           b.strides)])
