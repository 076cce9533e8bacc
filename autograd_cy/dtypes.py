"""``autograd_cy.float32`` and friends: the dtype objects of the core (pyx/dtype.pyx).

Kept as a module of the Python package so ``autograd_cy.dtypes`` still names them.
"""
from autograd_cy._C.dtype import (  # noqa: F401
    dtype, float16, bfloat16, float32, float64, complex64, complex128, int8, int16, int32, int64,
    uint8,
    bool, half, float, double, cfloat, cdouble, short, int, long,
    get_default_dtype, _default_complex_dtype as default_complex_dtype,
    _from_numpy_dtype as from_numpy_dtype, _to_numpy_dtype as to_numpy_dtype,
    _is_supported,
)

__all__ = ["dtype", "float16", "bfloat16", "float32", "float64", "complex64", "complex128", "int8",
           "int16", "int32", "int64", "uint8", "bool", "half", "float", "double", "cfloat",
           "cdouble", "short", "int", "long",
           "get_default_dtype", "from_numpy_dtype", "to_numpy_dtype"]
