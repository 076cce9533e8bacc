"""Shared plumbing of the op modules: PyTorch type promotion and operand handling.

PyTorch promotes by category (bool < integer < floating) and priority
(tensors with dimensions > 0-dim tensors > Python numbers): a lower-priority
operand only changes the result when it is of a higher category, and a Python
float then brings the default dtype (float32), not float64 as NumPy would.
"""
import numpy as np
cimport numpy as cnp
from cpython.contextvars cimport PyContextVar_Set, PyContextVar_Reset
from libc.math cimport tanh as libm_tanh

from autograd_cy._C.grad_mode cimport is_grad_enabled, is_inference_mode_enabled
from autograd_cy._C.tensor cimport (
    Tensor, make_tensor, requires_grad, VIEW_DEFAULT, VIEW_NO_GRAD_MODE,
    VIEW_MULTI_OUTPUT_NODE, VIEW_IN_CUSTOM_FUNCTION, VIEW_INFERENCE_MODE,
)

cnp.import_array()

try:
    # NumPy 2 keeps its floating-point error mode in a context variable: setting
    # it directly costs ~0.1 us, against ~4 us for entering ``np.errstate``.
    from numpy._core._ufunc_config import _extobj_contextvar, _make_extobj
    _IGNORE_FP_ERRORS = _make_extobj(all="ignore")
except ImportError:  # pragma: no cover - NumPy 1.x
    _extobj_contextvar = None


cdef object silence_fp_errors():
    """Turn NumPy's floating-point warnings off; return the token that restores them."""
    if _extobj_contextvar is None:
        token = np.errstate(all="ignore")
        token.__enter__()
        return token
    return PyContextVar_Set(_extobj_contextvar, _IGNORE_FP_ERRORS)


cdef void restore_fp_errors(object token) except *:
    if _extobj_contextvar is None:
        token.__exit__(None, None, None)
    else:
        PyContextVar_Reset(_extobj_contextvar, token)


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


cdef object quietly2(object function, object a, object b):
    """``function(a, b)`` without NumPy's floating-point warnings (``1 / 0`` is inf)."""
    token = silence_fp_errors()
    try:
        return function(a, b)
    finally:
        restore_fp_errors(token)


cdef object floating(Tensor t):
    """Integer and bool inputs of float-valued functions compute in float32, as in PyTorch."""
    if type(t._data) is cnp.ndarray and cnp.PyArray_ISFLOAT(<cnp.ndarray>t._data):
        return t._data
    if t._data.dtype.kind != "f":
        return t._data.astype(np.float32)
    return t._data


cdef object BOOL = np.dtype(np.bool_)
cdef object INT64 = np.dtype(np.int64)
cdef object FLOAT32 = np.dtype(np.float32)


cdef inline int category(object dtype):
    """PyTorch's promotion category: bool < integer < floating."""
    kind = dtype.kind
    return 0 if kind == "b" else 2 if kind == "f" else 1


cdef object promote(object a, object b):
    """torch.promote_types for two dtypes, either of which may be None."""
    if a is None:
        return b
    if b is None or a == b:
        return a
    ca, cb = category(a), category(b)
    if ca == cb:
        return np.promote_types(a, b)
    return a if ca > cb else b


cdef object combine(object higher, object lower):
    """A lower-priority operand changes the result only if it is of a higher category."""
    if higher is None:
        return lower
    if lower is None or category(lower) <= category(higher):
        return higher
    return promote(higher, lower)


cdef object result_type_of(tuple operands):
    """torch.result_type over several operands: Tensors, Python numbers, None (skipped).

    Tensors with dimensions rank above 0-dim tensors, which rank above Python
    numbers; a Python float brings the default dtype, float32.
    """
    cdef object dims = None, zero_dim = None, scalars = None
    for value in operands:
        if value is None:
            continue
        if isinstance(value, Tensor):
            array = (<Tensor>value)._data
            if array.ndim:
                dims = promote(dims, array.dtype)
            else:
                zero_dim = promote(zero_dim, array.dtype)
        elif isinstance(value, (bool, np.bool_)):
            scalars = promote(scalars, BOOL)
        elif isinstance(value, (int, np.integer)):
            scalars = promote(scalars, INT64)
        else:
            scalars = promote(scalars, FLOAT32)
    return combine(dims, combine(zero_dim, scalars))


def broadcast_error(*shapes):
    """PyTorch's RuntimeError for operand shapes that do not broadcast, or None if they do.

    Like PyTorch, operands are folded left to right and dims compared from the right.
    """
    cdef tuple result = ()
    for shape in shapes:
        ndim = max(len(result), len(shape))
        a = (1,) * (ndim - len(result)) + result
        b = (1,) * (ndim - len(shape)) + tuple(shape)
        for i in range(ndim - 1, -1, -1):
            if a[i] != b[i] and a[i] != 1 and b[i] != 1:
                return RuntimeError(f"The size of tensor a ({a[i]}) must match the size of "
                                    f"tensor b ({b[i]}) at non-singleton dimension {i}")
        result = tuple([n if n != 1 else m for n, m in zip(a, b)])
    return None


cdef object shape_of(object value):
    return (<Tensor>value)._data.shape if isinstance(value, Tensor) else ()


cdef object broadcasting(object function, tuple operands, tuple arrays):
    """``function(*arrays)``, turning NumPy's broadcast ValueError into PyTorch's message."""
    try:
        return function(*arrays)
    except ValueError:
        error = broadcast_error(*[shape_of(v) for v in operands])
        if error is None:
            raise
        raise error from None


cdef Tensor expect_tensor(object value, str function, str argument, int position):
    if not isinstance(value, Tensor):
        raise TypeError(f"{function}(): argument '{argument}' (position {position}) must be "
                        f"Tensor, not {type(value).__name__}")
    return <Tensor>value


cdef object result_type(object a, object b):
    """torch.result_type for two operands (Tensor or Python number); a NumPy dtype."""
    if (isinstance(a, Tensor) and isinstance(b, Tensor)
            and (<Tensor>a)._data.dtype == (<Tensor>b)._data.dtype):
        return (<Tensor>a)._data.dtype          # the common case, decided at once
    if isinstance(a, Tensor) and isinstance(b, float) and (<Tensor>a)._data.dtype.kind == "f":
        return (<Tensor>a)._data.dtype          # float tensor and a Python float
    return result_type_of((a, b))


cdef object floating_result_type(object a, object b):
    """Like result_type, but integer results become float32 (true division)."""
    dtype = result_type(a, b)
    return dtype if dtype.kind == "f" else FLOAT32


def _result_type(a, b):
    return result_type(a, b)


cdef object operand_array(object value, object dtype):
    """The array of an operand in ``dtype``; a Python number stays a scalar, which
    NumPy 2 treats as "weak" (it never widens the array's dtype), as PyTorch does."""
    if isinstance(value, Tensor):
        array = (<Tensor>value)._data
        if array.dtype != dtype:
            return array.astype(dtype)
        return array
    return value


cdef Tensor wrap(object array):
    return make_tensor(array)


# --------------------------------------------------------------- in-place checks

_NO_GRAD_VIEW = (
    "A view was created in no_grad mode and {what} with grad mode enabled. Given that this "
    "use case is ambiguous and error-prone, it is forbidden. You can clarify your code by "
    "moving both the view and the inplace either both inside the no_grad block (if you don't "
    "want the inplace to be tracked) or both outside (if you want the inplace to be tracked).")
_INFERENCE_VIEW = (
    "A view was created in inference mode and {what} in normal mode. Given that this use "
    "case is ambiguous and error-prone, it is forbidden. You can clarify your code by moving "
    "both the view and the inplace either both inside the inference_mode block (if you don't "
    "want the inplace to be tracked) or both outside (if you want the inplace to be tracked).")
_MULTI_OUTPUT_VIEW = (
    "Output {nr} of {op} {what}. This view is the output of a function that returns multiple "
    "views. Such functions do not allow the output views to be modified inplace. You should "
    "replace the inplace operation by an out-of-place one.")
_CUSTOM_FUNCTION_VIEW = (
    "Output {nr} of {op} {what}. This view was created inside a custom Function (or because "
    "an input was returned as-is) and the autograd logic to handle view+inplace would "
    "override the custom backward associated with the custom Function, leading to incorrect "
    "gradients. This behavior is forbidden. You can fix this by cloning the output of the "
    "custom Function.")


def view_error_message(Tensor view, bint indirect):
    """PyTorch's message for a forbidden in-place on a view (engine_semantics 7.5)."""
    meta = view._creation_meta
    if meta == VIEW_NO_GRAD_MODE:
        what = ("its base or another view of its base has been modified inplace" if indirect
                else "is being modified inplace")
        return _NO_GRAD_VIEW.format(what=what)
    if meta == VIEW_INFERENCE_MODE:
        what = ("its base or another view of its base has been modified inplace" if indirect
                else "is being modified inplace")
        return _INFERENCE_VIEW.format(what=what)
    what = ("is a view and its base or another view of its base has been modified inplace"
            if indirect else "is a view and is being modified inplace")
    template = _MULTI_OUTPUT_VIEW if meta == VIEW_MULTI_OUTPUT_NODE else _CUSTOM_FUNCTION_VIEW
    message = template.format(nr=view._output_nr, op=view._view_op_name, what=what)
    if view._grad_fn is None:
        # PyTorch names the op through the view's grad_fn; without one it says no_grad mode.
        what = ("its base or another view of its base has been modified inplace" if indirect
                else "is being modified inplace")
        prefix = f"A view was created in no_grad mode and {what} with grad mode enabled."
        message = prefix + message[message.index(".") + 1:]
    return message


cdef void check_inplace(Tensor self, bint records) except *:
    """Refuse in-place ops PyTorch refuses (rules 7.2, 7.5, 9.4); ``records``: grad mode on."""
    if self._is_inference and not is_inference_mode_enabled():
        raise RuntimeError(
            "Inplace update to inference tensor outside InferenceMode is not allowed.You can "
            "make a clone to get a normal tensor before doing inplace update.See "
            "https://github.com/pytorch/rfcs/pull/17 for more details.")
    if not is_grad_enabled():
        return
    if self._grad_fn is None and self._requires_grad:
        if self._base is not None:
            raise RuntimeError("a view of a leaf Variable that requires grad is being used in "
                               "an in-place operation.")
        raise RuntimeError("a leaf Variable that requires grad is being used in an in-place "
                           "operation.")
    if self._base is not None:
        base = self._base
        # The view's own creation rules come first, as in PyTorch's check_inplace.
        meta = self._creation_meta
        if meta != VIEW_DEFAULT and (requires_grad(<Tensor>base) or records):
            if meta == VIEW_INFERENCE_MODE and is_inference_mode_enabled():
                return
            raise RuntimeError(view_error_message(self, False))
        if (<Tensor>base)._grad_fn is None and (<Tensor>base)._requires_grad:
            raise RuntimeError("a view of a leaf Variable that requires grad is being used in "
                               "an in-place operation.")


cdef void check_no_partial_overlap(Tensor written, object read) except *:
    """PyTorch refuses an in-place op that reads memory it writes at other elements
    (``x[1:] -= x[:-1]``): the result would depend on the loop order. Reading the very
    elements written, in the same layout (``x.add_(x)``), is fine. Like PyTorch, only arrays
    laid out densely are compared; others are "too hard" and pass."""
    cdef cnp.ndarray a, b
    cdef char* a_begin
    cdef char* b_begin
    cdef char* a_end
    cdef char* b_end
    if not isinstance(read, Tensor):
        return
    if type(written._data) is not cnp.ndarray or type((<Tensor>read)._data) is not cnp.ndarray:
        return
    a = <cnp.ndarray>written._data
    b = <cnp.ndarray>(<Tensor>read)._data
    if a is b or cnp.PyArray_SIZE(a) == 0 or cnp.PyArray_SIZE(b) == 0:
        return
    if not (dense(a) and dense(b)):
        return
    a_begin = <char*>cnp.PyArray_DATA(a)
    b_begin = <char*>cnp.PyArray_DATA(b)
    a_end = a_begin + cnp.PyArray_NBYTES(a)
    b_end = b_begin + cnp.PyArray_NBYTES(b)
    if a_begin == b_begin and a_end == b_end and same_strides(a, b):
        return
    if a_begin < b_end and b_begin < a_end:
        raise RuntimeError(
            "unsupported operation: some elements of the input tensor and the written-to "
            "tensor refer to a single memory location. Please clone() the tensor before "
            "performing the operation.")


cdef void check_no_internal_overlap(Tensor written) except *:
    """PyTorch refuses to write element by element into a tensor whose elements share
    memory (an ``expand``: stride 0 along a dim longer than 1)."""
    cdef cnp.ndarray array
    cdef int i
    if type(written._data) is not cnp.ndarray:
        return
    array = <cnp.ndarray>written._data
    for i in range(cnp.PyArray_NDIM(array)):
        if cnp.PyArray_STRIDES(array)[i] == 0 and cnp.PyArray_DIMS(array)[i] > 1:
            raise RuntimeError(
                "unsupported operation: more than one element of the written-to tensor "
                "refers to a single memory location. Please clone() the tensor before "
                "performing the operation.")


cdef inline bint dense(cnp.ndarray array):
    return cnp.PyArray_IS_C_CONTIGUOUS(array) or cnp.PyArray_IS_F_CONTIGUOUS(array)


cdef bint same_strides(cnp.ndarray a, cnp.ndarray b):
    cdef int i, ndim = cnp.PyArray_NDIM(a)
    if cnp.PyArray_NDIM(b) != ndim:
        return False
    for i in range(ndim):
        if cnp.PyArray_STRIDES(a)[i] != cnp.PyArray_STRIDES(b)[i]:
            return False
    return True


# --------------------------------------------------------------- small-array kernels
#
# NOTE [Fused kernels]
# On the 16-element arrays of an overhead-bound graph a NumPy call costs ~0.3 us, almost all
# of it ufunc dispatch, not arithmetic. For C-contiguous float32/float64 operands of the same
# shape and at most KERNEL_MAX_SIZE elements these loops produce the same bits as NumPy (each
# step rounds to the dtype, as a ufunc does; there is no FMA on this build) at a fraction of
# the cost. They return None for anything else, and the caller then takes the NumPy path.

cdef enum:
    KERNEL_MAX_SIZE = 4096


cdef bint kernel_operand(object value, int typenum):
    """Can ``value`` go through a kernel with dtype ``typenum``?"""
    return (type(value) is cnp.ndarray
            and cnp.PyArray_TYPE(<cnp.ndarray>value) == typenum
            and cnp.PyArray_ISCARRAY_RO(<cnp.ndarray>value))


cdef int kernel_type(object value):
    """The NumPy type number of a float32/float64 kernel operand, or -1."""
    cdef int typenum
    if type(value) is not cnp.ndarray:
        return -1
    typenum = cnp.PyArray_TYPE(<cnp.ndarray>value)
    if typenum != cnp.NPY_FLOAT and typenum != cnp.NPY_DOUBLE:
        return -1
    if not cnp.PyArray_ISCARRAY_RO(<cnp.ndarray>value):
        return -1
    if cnp.PyArray_SIZE(<cnp.ndarray>value) > KERNEL_MAX_SIZE:
        return -1
    return typenum


cdef inline cnp.ndarray empty_like_kernel(cnp.ndarray a, int typenum):
    return <cnp.ndarray>cnp.PyArray_EMPTY(cnp.PyArray_NDIM(a), cnp.PyArray_DIMS(a), typenum, 0)


cdef object binary_kernel(int op, object x, object y):
    """``x + y``, ``x - y`` or ``x * y`` (op KERNEL_ADD/SUB/MUL) on two same-shape arrays."""
    cdef int typenum = kernel_type(x)
    cdef Py_ssize_t i, n
    if typenum < 0 or not kernel_operand(y, typenum):
        return None
    if not cnp.PyArray_SAMESHAPE(<cnp.ndarray>x, <cnp.ndarray>y):
        return None
    cdef cnp.ndarray out = empty_like_kernel(<cnp.ndarray>x, typenum)
    n = cnp.PyArray_SIZE(out)
    if typenum == cnp.NPY_FLOAT:
        real_binary(op, <float*>cnp.PyArray_DATA(<cnp.ndarray>x),
                    <float*>cnp.PyArray_DATA(<cnp.ndarray>y),
                    <float*>cnp.PyArray_DATA(out), n)
    else:
        real_binary(op, <double*>cnp.PyArray_DATA(<cnp.ndarray>x),
                    <double*>cnp.PyArray_DATA(<cnp.ndarray>y),
                    <double*>cnp.PyArray_DATA(out), n)
    return out


cdef object scalar_kernel(int op, object x, double value):
    """``x + value``, ``x - value`` or ``x * value`` for a Python float ``value``. As in
    NumPy 2 and PyTorch, the number takes the array's dtype first (float32: rounded, or
    inf beyond its range), then one rounding per element."""
    cdef int typenum = kernel_type(x)
    if typenum < 0:
        return None
    cdef cnp.ndarray out = empty_like_kernel(<cnp.ndarray>x, typenum)
    cdef Py_ssize_t n = cnp.PyArray_SIZE(out)
    if typenum == cnp.NPY_FLOAT:
        real_scalar(op, <float*>cnp.PyArray_DATA(<cnp.ndarray>x), <float>value,
                    <float*>cnp.PyArray_DATA(out), n)
    else:
        real_scalar(op, <double*>cnp.PyArray_DATA(<cnp.ndarray>x), value,
                    <double*>cnp.PyArray_DATA(out), n)
    return out


cdef bint binary_kernel_into(int op, object x, object y) except -1:
    """``x += y``, ``x -= y`` or ``x *= y`` in place on two same-shape arrays; False (and
    nothing written) when the kernel does not apply. Partly overlapping operands are left
    to NumPy, which buffers them; the same memory on both sides is fine elementwise."""
    cdef int typenum = kernel_type(x)
    cdef Py_ssize_t n
    cdef char* x_start
    cdef char* y_start
    if typenum < 0 or not kernel_operand(y, typenum):
        return False
    if not cnp.PyArray_ISWRITEABLE(<cnp.ndarray>x):
        return False
    if not cnp.PyArray_SAMESHAPE(<cnp.ndarray>x, <cnp.ndarray>y):
        return False
    n = cnp.PyArray_SIZE(<cnp.ndarray>x)
    x_start = <char*>cnp.PyArray_DATA(<cnp.ndarray>x)
    y_start = <char*>cnp.PyArray_DATA(<cnp.ndarray>y)
    if (x_start != y_start and x_start < y_start + cnp.PyArray_NBYTES(<cnp.ndarray>y)
            and y_start < x_start + cnp.PyArray_NBYTES(<cnp.ndarray>x)):
        return False
    if typenum == cnp.NPY_FLOAT:
        real_binary(op, <float*>x_start, <float*>y_start, <float*>x_start, n)
    else:
        real_binary(op, <double*>x_start, <double*>y_start, <double*>x_start, n)
    return True


ctypedef fused real:
    float
    double


cdef void real_binary(int op, real* a, real* b, real* out, Py_ssize_t n) noexcept nogil:
    """One loop body for float32 and float64 (a Cython fused type)."""
    cdef Py_ssize_t i
    if op == KERNEL_ADD:
        for i in range(n):
            out[i] = a[i] + b[i]
    elif op == KERNEL_SUB:
        for i in range(n):
            out[i] = a[i] - b[i]
    else:
        for i in range(n):
            out[i] = a[i] * b[i]


cdef void real_scalar(int op, real* a, real value, real* out, Py_ssize_t n) noexcept nogil:
    cdef Py_ssize_t i
    if op == KERNEL_ADD:
        for i in range(n):
            out[i] = a[i] + value
    elif op == KERNEL_SUB:
        for i in range(n):
            out[i] = a[i] - value
    else:
        for i in range(n):
            out[i] = a[i] * value


cdef object tanh_backward_kernel(object grad, object result):
    """``grad * (1 - result * result)`` in one pass, rounding after each step as NumPy would."""
    cdef int typenum = kernel_type(grad)
    cdef Py_ssize_t i, n
    cdef float* gf
    cdef float* rf
    cdef float* of
    cdef double* gd
    cdef double* rd
    cdef double* od
    cdef float square_f
    cdef double square_d
    if typenum < 0 or not kernel_operand(result, typenum):
        return None
    if not cnp.PyArray_SAMESHAPE(<cnp.ndarray>grad, <cnp.ndarray>result):
        return None
    cdef cnp.ndarray out = empty_like_kernel(<cnp.ndarray>grad, typenum)
    n = cnp.PyArray_SIZE(out)
    if typenum == cnp.NPY_FLOAT:
        gf = <float*>cnp.PyArray_DATA(<cnp.ndarray>grad)
        rf = <float*>cnp.PyArray_DATA(<cnp.ndarray>result)
        of = <float*>cnp.PyArray_DATA(out)
        for i in range(n):
            square_f = rf[i] * rf[i]
            square_f = <float>1 - square_f
            of[i] = gf[i] * square_f
    else:
        gd = <double*>cnp.PyArray_DATA(<cnp.ndarray>grad)
        rd = <double*>cnp.PyArray_DATA(<cnp.ndarray>result)
        od = <double*>cnp.PyArray_DATA(out)
        for i in range(n):
            square_d = rd[i] * rd[i]
            square_d = 1 - square_d
            od[i] = gd[i] * square_d
    return out


cdef object threshold_backward_kernel(object grad, object result):
    """PyTorch's threshold_backward for relu: ``0 where result <= 0, else grad`` (a NaN
    result passes the gradient, an infinite gradient stays infinite). ``np.where`` branches
    per element and mispredicts on the random sign pattern of an activation (~4x slower than
    this select, which the compiler makes branch-free); the loop is memory-bound, so unlike
    the other kernels it takes arrays of any size."""
    if type(grad) is not cnp.ndarray or not cnp.PyArray_ISCARRAY_RO(<cnp.ndarray>grad):
        return None
    cdef int typenum = cnp.PyArray_TYPE(<cnp.ndarray>grad)
    if typenum != cnp.NPY_FLOAT and typenum != cnp.NPY_DOUBLE:
        return None
    if not kernel_operand(result, typenum):
        return None
    if not cnp.PyArray_SAMESHAPE(<cnp.ndarray>grad, <cnp.ndarray>result):
        return None
    cdef cnp.ndarray out = empty_like_kernel(<cnp.ndarray>grad, typenum)
    cdef Py_ssize_t n = cnp.PyArray_SIZE(out)
    if typenum == cnp.NPY_FLOAT:
        real_threshold_backward(<float*>cnp.PyArray_DATA(<cnp.ndarray>grad),
                                <float*>cnp.PyArray_DATA(<cnp.ndarray>result),
                                <float*>cnp.PyArray_DATA(out), n)
    else:
        real_threshold_backward(<double*>cnp.PyArray_DATA(<cnp.ndarray>grad),
                                <double*>cnp.PyArray_DATA(<cnp.ndarray>result),
                                <double*>cnp.PyArray_DATA(out), n)
    return out


cdef void real_threshold_backward(real* grad, real* result, real* out,
                                  Py_ssize_t n) noexcept nogil:
    cdef Py_ssize_t i
    cdef real value, threshold_input
    for i in range(n):
        # Both loads before the select, so the compiler may make it a mask (no branch).
        value = grad[i]
        threshold_input = result[i]
        out[i] = 0 if threshold_input <= 0 else value


cdef object tanh_kernel(object x):
    """``tanh(x)``; float32 goes through the double-precision tanh and rounds once, which
    is at least as accurate as NumPy's float32 loop (it may differ from it in the last bit).
    Like ``quietly(np.tanh, x)`` it raises no floating-point warnings."""
    cdef int typenum = kernel_type(x)
    cdef Py_ssize_t i, n
    cdef float* xf
    cdef float* of
    cdef double* xd
    cdef double* od
    if typenum < 0:
        return None
    cdef cnp.ndarray out = empty_like_kernel(<cnp.ndarray>x, typenum)
    n = cnp.PyArray_SIZE(out)
    if typenum == cnp.NPY_FLOAT:
        xf = <float*>cnp.PyArray_DATA(<cnp.ndarray>x)
        of = <float*>cnp.PyArray_DATA(out)
        for i in range(n):
            of[i] = <float>libm_tanh(xf[i])
    else:
        xd = <double*>cnp.PyArray_DATA(<cnp.ndarray>x)
        od = <double*>cnp.PyArray_DATA(out)
        for i in range(n):
            od[i] = libm_tanh(xd[i])
    return out
