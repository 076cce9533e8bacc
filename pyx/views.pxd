# Design: views and versions -- the in-place machinery every in-place op goes through, and
# the rebuild of a view's grad_fn (views.pyx). Above recording; below the engine and the ops.

from autograd_cy._C.tensor cimport Tensor
from autograd_cy._C.node cimport Node


from autograd_cy._C.overlap cimport OverlapChecks


cdef Tensor apply_inplace(Tensor self, object compute, tuple others, bint needs_original,
                          object ufunc=*, object operand=*, OverlapChecks overlap_checks=*)
cdef void rebase_history(Tensor self, Node node) except *
cpdef void move_retains_grad_hook(Tensor t, Node old_grad_fn,
                                  Py_ssize_t old_output_nr) except *
cpdef str view_error_message(Tensor view, bint indirect)
cdef void check_inference_inplace(Tensor self) except *
cdef void check_inplace(Tensor self, bint records) except *
cdef void regenerate_view_grad_fn(Tensor view) except *
cdef object view_tangent(Tensor self_t, Tensor self, Tensor result, tuple extra)
