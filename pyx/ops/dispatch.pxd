# Design: what every op module shares — type promotion, turning operands into
# arrays, and the array-module lookup that lets NumPy and CuPy share one op body.

from autograd_cy._C.tensor cimport Tensor

cdef object result_type(object a, object b)
cdef object operand_array(object value, object dtype)
cdef Tensor wrap(object array)
cdef object floating_result_type(object a, object b)
cdef void check_inplace(Tensor self, bint records) except *
cdef void check_no_partial_overlap(Tensor written, object read) except *
cdef void check_no_internal_overlap(Tensor written) except *
cdef object result_type_of(tuple operands)
cdef object quietly(object function, object array)
cdef object floating(Tensor t)
cdef object broadcasting(object function, tuple operands, tuple arrays)
cdef Tensor expect_tensor(object value, str function, str argument, int position)
cdef object quietly2(object function, object a, object b)

cdef class FloatingPointErrorsIgnored:
    cdef object token

cdef FloatingPointErrorsIgnored ignoring_fp_errors()


# Fused loops for small contiguous float32/float64 arrays (NOTE [Fused kernels] in
# dispatch.pyx); each returns None when its operands do not qualify.
cdef enum:
    KERNEL_ADD = 0
    KERNEL_SUB = 1
    KERNEL_MUL = 2

cdef int kernel_type(object value)
cdef bint kernel_operand(object value, int typenum)
cdef object binary_kernel(int op, object x, object y)
cdef object scalar_kernel(int op, object x, double value)
cdef bint binary_kernel_into(int op, object x, object y) except -1
cdef object tanh_backward_kernel(object grad, object result)
cdef object tanh_kernel(object x)
cdef object threshold_backward_kernel(object grad, object result)
