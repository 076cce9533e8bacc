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


# NOTE [bfloat16's kind]
# NumPy has no bfloat16; ml_dtypes (the extension dtype JAX and TensorFlow use) adds one, and
# NumPy files every extension dtype under kind "V" ("void"), not "f". Every "is it floating?"
# question of the core goes through kind_of, which answers "f" for it: the only "V" dtype a
# tensor can hold (from_numpy_dtype refuses the others).

cdef inline str kind_of(object numpy_dtype):
    """NumPy's kind letter of ``numpy_dtype`` ("b", "i", "u", "f", "c"), bfloat16 being "f"."""
    cdef str kind = numpy_dtype.kind
    return "f" if kind == "V" else kind


cdef inline bint half_precision(object numpy_dtype):
    """float16 or bfloat16: the floating types that compute and accumulate in float32
    (NOTE [Half-precision products and reductions] in ops/reduction.pyx)."""
    return numpy_dtype.itemsize == 2 and kind_of(numpy_dtype) == "f"


cdef object default_float()
cdef object default_complex()
cdef dtype from_numpy_dtype(object numpy_dtype)
cdef object to_numpy_dtype(object value)
cdef str tensor_type_name(object numpy_dtype)
cdef str scalar_name(object numpy_dtype)
cdef str c10_name(object numpy_dtype)
cpdef check_convertible(object values, object numpy_dtype, bint scalar_argument)
