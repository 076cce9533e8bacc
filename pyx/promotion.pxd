# Design: PyTorch's type promotion (torch.result_type) and operand handling, shared by every
# op and by the in-place machinery. Above tensor; knows nothing of the graph.

cimport numpy as cnp

from autograd_cy._C.tensor cimport Tensor

cdef object promote(object a, object b)
cdef object result_type(object a, object b)
cdef object result_type_of(tuple operands)
cdef object floating_result_type(object a, object b)
cdef object operand_array(object value, object dtype)
cdef object floating(Tensor t)
cdef object broadcast_failure(object a, object b)
cdef void raise_broadcast_error(object a, object b) except *
cdef object broadcasting(object function, tuple operands, tuple arrays)
cdef Tensor expect_tensor(object value, str function, str argument, int position)
cdef Tensor wrap(object array)
cdef void refuse_complex(object value, type error, str message) except *


cdef inline int category(object dtype):
    """PyTorch's promotion category: bool < integer < floating < complex."""
    kind = dtype.kind
    return 0 if kind == "b" else 2 if kind == "f" else 3 if kind == "c" else 1


cdef bint is_complex_device_array(object array) except -1


cdef inline bint is_complex_array(object array) except -1:
    """A complex dtype? Read from the array struct for a NumPy array (inlined where it is
    called: every recorded op asks)."""
    if type(array) is cnp.ndarray:
        return cnp.PyArray_ISCOMPLEX(<cnp.ndarray>array)
    return is_complex_device_array(array)
