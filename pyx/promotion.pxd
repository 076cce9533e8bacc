# Design: PyTorch's type promotion (torch.result_type) and operand handling, shared by every
# op and by the in-place machinery. Above tensor; knows nothing of the graph.

from autograd_cy._C.tensor cimport Tensor

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


cdef inline int category(object dtype):
    """PyTorch's promotion category: bool < integer < floating."""
    kind = dtype.kind
    return 0 if kind == "b" else 2 if kind == "f" else 1
