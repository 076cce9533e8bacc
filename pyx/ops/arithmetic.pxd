# Design: what the op modules above share of arithmetic (arithmetic.pyx): the test of an
# operand that records, and the sum of two tangent terms either of which may be missing.

from autograd_cy._C.tensor cimport Tensor, requires_grad


cdef inline bint is_tensor_requiring_grad(object value):
    return isinstance(value, Tensor) and requires_grad(<Tensor>value)


cdef object add_terms(object term, object other_term)
