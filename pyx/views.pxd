# Design: views and versions -- the in-place machinery every in-place op goes through, and
# the rebuild of a view's grad_fn (views.pyx). Above recording; below the engine and the ops.

from autograd_cy._C.tensor cimport Tensor
from autograd_cy._C.node cimport Node


# What an in-place op refuses (or warns about) of the memory it writes (NOTE [Memory overlap]).
ctypedef void (*OverlapChecks)(Tensor self, tuple others) except *

cdef enum:
    OVERLAP_NO, OVERLAP_TOO_HARD, OVERLAP_FULL, OVERLAP_PARTIAL


cdef Tensor apply_inplace(Tensor self, object compute, tuple others, bint needs_original,
                          object ufunc=*, object operand=*, OverlapChecks overlap_checks=*)
cdef void rebase_history(Tensor self, Node node) except *
cpdef void move_retains_grad_hook(Tensor t, Node old_grad_fn,
                                  Py_ssize_t old_output_nr) except *
cpdef str view_error_message(Tensor view, bint indirect)
cdef void check_inference_inplace(Tensor self) except *
cdef void check_inplace(Tensor self, bint records) except *
cdef void elementwise_overlap_checks(Tensor self, tuple others) except *
cdef void no_overlap_checks(Tensor self, tuple others) except *
cdef int overlap_status(Tensor written, object read) except -1
cdef void check_no_partial_overlap(Tensor written, object read) except *
cdef void check_no_overlap(Tensor written, object read) except *
cdef bint has_internal_overlap(Tensor written) except -1
cdef void check_no_internal_overlap(Tensor written) except *
cdef void warn_if_expanded(Tensor written, str op, str example) except *
cdef bint same_data(Tensor a, Tensor b) except -1
cdef void regenerate_view_grad_fn(Tensor view) except *
