"""NumPy's floating-point warnings, off: PyTorch never warns about overflow, division by
zero or invalid values, so the ops silence NumPy wherever a kernel can make inf or nan.
"""
import numpy as np
cimport numpy as cnp
cnp.import_array()
from cpython.contextvars cimport PyContextVar_Set, PyContextVar_Reset

try:
    # NumPy 2 keeps its floating-point error mode in a context variable: setting
    # it directly costs ~0.1 us, against ~4 us for entering ``np.errstate``.
    from numpy._core._ufunc_config import _extobj_contextvar, _make_extobj
    _IGNORE_FP_ERRORS = _make_extobj(all="ignore")
except ImportError:  # pragma: no cover - NumPy 1.x
    _extobj_contextvar = None


# NOTE [Quiet regions]
# Switching NumPy's error state costs about 1,000 instructions a kernel call, as much as a
# small kernel. A backward pass runs many kernels, so the engine switches once for the whole
# pass (``enter_quiet_region``) and the kernels inside skip their own switch: the thread-local
# depth below says the state is already "ignore". The price: NumPy code of the user's that
# runs inside a backward (a hook, a custom Function's backward) does not warn either, as
# nothing in PyTorch's backward warns about inf or nan.

cdef extern from *:
    """
    static __thread int autograd_cy_quiet_depth = 0;
    """
    int autograd_cy_quiet_depth


cdef object silence_fp_errors():
    """Turn NumPy's floating-point warnings off; return the token that restores them (None
    inside a quiet region, where they are off already)."""
    if autograd_cy_quiet_depth:
        return None
    if _extobj_contextvar is None:
        token = np.errstate(all="ignore")
        token.__enter__()
        return token
    return PyContextVar_Set(_extobj_contextvar, _IGNORE_FP_ERRORS)


cdef void restore_fp_errors(object token) except *:
    if token is None:
        return
    if _extobj_contextvar is None:
        token.__exit__(None, None, None)
    else:
        PyContextVar_Reset(_extobj_contextvar, token)


cdef object enter_quiet_region():
    """NumPy's floating-point warnings off until ``exit_quiet_region`` (NOTE [Quiet
    regions]); the kernels inside skip their own switch. Regions nest."""
    token = silence_fp_errors()
    global autograd_cy_quiet_depth
    autograd_cy_quiet_depth += 1
    return token


cdef void exit_quiet_region(object token) except *:
    global autograd_cy_quiet_depth
    autograd_cy_quiet_depth -= 1
    restore_fp_errors(token)


cdef class FloatingPointErrorsIgnored:
    """``with ignoring_fp_errors():`` -- ``np.errstate(all="ignore")`` at a tenth of the cost.

    PyTorch never warns about overflow, division by zero or invalid values, so the ops
    silence NumPy's warnings wherever a kernel can produce inf or nan."""

    def __enter__(self):
        self.token = silence_fp_errors()

    def __exit__(self, *exc_info):
        restore_fp_errors(self.token)


cdef FloatingPointErrorsIgnored ignoring_fp_errors():
    return FloatingPointErrorsIgnored.__new__(FloatingPointErrorsIgnored)


cdef object quietly(object function, object array):
    """``function(array)`` without NumPy's overflow / divide / invalid warnings (the hot
    unary ops call this rather than ``with ignoring_fp_errors()``: no Python-level
    ``__enter__``/``__exit__``)."""
    token = silence_fp_errors()
    try:
        return function(array)
    finally:
        restore_fp_errors(token)


cdef object quiet_reduce(object function, object array, object axis, bint keepdims,
                         object dtype):
    """``function(array, axis=, keepdims=, dtype=)`` (``np.add.reduce``, ``np.prod``)
    without NumPy's floating-point warnings: inf + -inf is nan and a product past the range
    is inf, quietly, as in PyTorch."""
    token = silence_fp_errors()
    try:
        return function(array, axis=axis, keepdims=keepdims, dtype=dtype)
    finally:
        restore_fp_errors(token)


cdef object quietly2(object function, object a, object b):
    """``function(a, b)`` without NumPy's floating-point warnings (``1 / 0`` is inf)."""
    token = silence_fp_errors()
    try:
        return function(a, b)
    finally:
        restore_fp_errors(token)


cdef object quiet_matrix_product(object a, object b):
    """``a.dot(b)`` of two NumPy arrays through NumPy's C API (``PyArray_MatrixProduct``,
    what ``ndarray.dot`` calls after parsing its arguments), without floating-point
    warnings."""
    token = silence_fp_errors()
    try:
        return cnp.PyArray_MatrixProduct(a, b)
    finally:
        restore_fp_errors(token)


# NOTE [The sign of a NaN]
# A NaN carries a sign bit, which signbit and copysign read (as torch's std::signbit and
# std::copysign do). x86's default NaN of an invalid operation (0/0, inf - inf, NumPy's
# sqrt(-1) and log(-1)) has it set; torch's CPU sqrt, log, log2, log10 and pow(x, 0.5) of
# float32 and float64 return a NaN without it, and pass a NaN given to them through, sign
# and all (NumPy's log drops it); float64 log1p makes every NaN positive. Their float16 and
# bfloat16 kernels keep x86's sign, so the half-precision path of the op table calls the
# function unwrapped (``__wrapped__``).

def positive_nan(function, every=False):
    """``function`` of a float32/float64 array with torch's NaN signs (NOTE [The sign of a
    NaN]): a NaN made from a number positive, one passed in as it was (``every``: every NaN
    positive); other arrays (complex, a device's) as ``function`` returns them."""
    def forward(array):
        result = function(array)
        if isinstance(result, np.floating):         # of a 0-d array
            if result != result:
                given = np.asarray(array)[()]
                return given if given != given and not every else np.copysign(result, 1)
            return result
        if type(result) is np.ndarray and result.dtype.kind == "f":
            made = np.isnan(result)
            if made.any():
                if every:
                    np.copysign(result, 1, out=result, where=made)
                    return result
                given = np.isnan(array)
                np.copysign(result, 1, out=result, where=made & ~given)
                np.copyto(result, array, where=given)
        return result
    forward.__name__ = function.__name__
    forward.__wrapped__ = function
    return forward
