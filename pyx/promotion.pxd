# Design: PyTorch's type promotion (torch.result_type) and operand handling, shared by every
# op and by the in-place machinery. Above tensor; knows nothing of the graph.

cimport numpy as cnp

from autograd_cy._C.tensor cimport Tensor

cdef object promote(object a, object b)
cdef object result_type(object a, object b)
cdef object result_type_of(tuple operands)
cdef object floating_result_type(object a, object b)
cdef object operand_array(object value, object dtype)
cdef object widened(object array)
cdef object opmath_operand(object value, object other, object dtype, bint round_number)
cdef object rounded(object array, object dtype)
cdef object floating(Tensor t)
cdef object broadcast_failure(object a, object b)
cdef void raise_broadcast_error(object a, object b) except *
cdef object broadcasting(object function, tuple operands, tuple arrays)
cdef Tensor expect_tensor(object value, str function, str argument, int position)
cdef Tensor wrap(object array)
cdef void refuse_complex(object value, type error, str message,
                         bint differentiable=*) except *


cdef inline int category(object dtype):
    """PyTorch's promotion category: bool < integer < floating < complex (bfloat16's kind is
    "V": NOTE [bfloat16's kind])."""
    kind = dtype.kind
    return 0 if kind == "b" else 2 if kind == "f" or kind == "V" else 3 if kind == "c" else 1


cdef bint is_complex_device_array(object array) except -1


cdef inline bint is_complex_array(object array) except -1:
    """A complex dtype? Read from the array struct for a NumPy array (inlined where it is
    called: every recorded op asks)."""
    if type(array) is cnp.ndarray:
        return cnp.PyArray_ISCOMPLEX(<cnp.ndarray>array)
    return is_complex_device_array(array)


cdef inline bint half_precision_array(object array) except -1:
    """A NumPy float16 or bfloat16 array: one that computes in float32 here (NOTE
    [Half-precision products and reductions]). Read from the array struct (the op table asks
    for every op; bfloat16 is the one user-defined NumPy type a tensor holds). A CUDA array
    answers False: its kernels compute half types in float themselves. A module calling it
    cimports numpy and calls ``cnp.import_array()``, as for any of NumPy's C API."""
    return type(array) is cnp.ndarray and cnp.PyArray_ITEMSIZE(<cnp.ndarray>array) == 2 and (
        cnp.PyArray_TYPE(<cnp.ndarray>array) == cnp.NPY_FLOAT16
        or cnp.PyArray_ISUSERDEF(<cnp.ndarray>array))
