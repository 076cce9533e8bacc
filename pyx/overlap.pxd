# Design: PyTorch's memory-overlap checks for in-place ops (overlap.pyx). Knows only tensors;
# views.pyx's apply_inplace takes an op's checks as an OverlapChecks function.

from autograd_cy._C.tensor cimport Tensor


# What an in-place op refuses (or warns about) of the memory it writes (NOTE [Memory overlap]).
ctypedef void (*OverlapChecks)(Tensor self, tuple others) except *

cdef enum:
    OVERLAP_NO, OVERLAP_TOO_HARD, OVERLAP_FULL, OVERLAP_PARTIAL


cdef void elementwise_overlap_checks(Tensor self, tuple others) except *
cdef void no_overlap_checks(Tensor self, tuple others) except *
cdef int overlap_status(Tensor written, object read) except -1
cdef void check_no_partial_overlap(Tensor written, object read) except *
cdef void check_no_overlap(Tensor written, object read) except *
cdef bint has_internal_overlap(Tensor written) except -1
cdef void check_no_internal_overlap(Tensor written) except *
cdef void warn_if_expanded(Tensor written, str op, str example) except *
cdef bint same_data(Tensor a, Tensor b) except -1
