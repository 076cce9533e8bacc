# Design: what every op module shares — type promotion, turning operands into
# arrays, and the array-module lookup that lets NumPy and CuPy share one op body.

from autograd_cy._C.tensor cimport Tensor

cdef object result_type(object a, object b)
cdef object operand_array(object value, object dtype)
cdef Tensor wrap(object array)
cdef object floating_result_type(object a, object b)
cdef void check_inplace(Tensor self, bint records) except *
