# Design: the dtype model, at the bottom of the core. A `dtype` object plays the part of
# `torch.float32`: one immutable singleton per element type, which knows its NumPy twin and
# the names PyTorch's messages use. Everything above (tensor, ops, the Python API) takes its
# dtype objects from here; nothing here imports anything of autograd_cy.

cdef class dtype:
    cdef readonly str name                # "float32"
    cdef readonly object numpy            # numpy.dtype('float32')
    cdef readonly bint is_floating_point
    cdef readonly bint is_complex
    cdef readonly bint is_signed
    cdef readonly int itemsize
    cdef readonly str _scalar_name        # the c10 name in PyTorch's messages: "Float"
    cdef readonly str _tensor_type        # the legacy tensor type name: "FloatTensor"


cdef dtype from_numpy_dtype(object numpy_dtype)
cdef object to_numpy_dtype(object value)
cdef str tensor_type_name(object numpy_dtype)
cdef str scalar_name(object numpy_dtype)
cdef str c10_name(object numpy_dtype)
cpdef check_convertible(object values, object numpy_dtype, bint scalar_argument)
