# Design: batched gradients (``autograd.grad(..., is_grads_batched=True)``): the thread-local
# switch the engine sets while such a backward runs, and the small vocabulary the backward
# formulas use to account for the leading batch dim (NOTE [Batched gradients], batching.pyx).

from autograd_cy._C.tensor cimport Tensor

cdef bint grads_batched() noexcept nogil
cdef void set_grads_batched(bint batched) noexcept nogil
cdef Py_ssize_t batch_ndim() noexcept nogil
cdef tuple batched_shape(Tensor grad, tuple shape)
cdef Py_ssize_t batched_dim(Py_ssize_t dim) noexcept nogil
cdef tuple batched_dims(object dims)
cdef void warn_per_row(object node) except *

# Batched tangents (NOTE [Batched tangents], forward.pyx): the batch size of every tangent
# while a batched forward pass runs, 0 otherwise.
cdef Py_ssize_t tangent_batch() noexcept nogil
cdef void set_tangent_batch(Py_ssize_t batch) noexcept nogil

# The op that joins the fallback's rows: split_cat's ``stack``, registered when that module
# is imported (ops sit above the engine, which may not import them).
cdef object stack_rows(list rows)
cdef void register_stack_rows(object stack) except *
