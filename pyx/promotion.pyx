"""PyTorch's type promotion, and how an op's operands become arrays.

PyTorch promotes by category (bool < integer < floating < complex) and priority
(tensors with dimensions > 0-dim tensors > Python numbers): a lower-priority
operand only changes the result when it is of a higher category, and a Python
float then brings the default dtype (float32), not float64 as NumPy would (a Python
complex the default complex dtype, complex64). Floating and complex dtypes promote by
width too: float64 with complex64 is complex128.
"""
import ml_dtypes
import numpy as np
cimport numpy as cnp

from autograd_cy._C.dtype cimport kind_of, default_float, default_complex
from autograd_cy._C.tensor cimport Tensor, make_tensor, requires_grad, get_grad_fn
from autograd_cy._C.grad_mode cimport is_grad_enabled

cnp.import_array()


cdef object floating(Tensor t):
    """Integer and bool inputs of float-valued functions compute in the default dtype
    (float32), as in PyTorch (complex inputs stay complex)."""
    if type(t._data) is cnp.ndarray and cnp.PyArray_ISFLOAT(<cnp.ndarray>t._data):
        return t._data
    if kind_of(t._data.dtype) not in "fc":
        return t._data.astype(default_float())
    return t._data


cdef object BOOL = np.dtype(np.bool_)
cdef object INT64 = np.dtype(np.int64)
cdef object FLOAT32 = np.dtype(np.float32)
cdef object COMPLEX64 = np.dtype(np.complex64)
cdef object COMPLEX128 = np.dtype(np.complex128)
cdef type NUMPY_SCALAR = np.generic


cdef object promote(object a, object b):
    """torch.promote_types for two dtypes, either of which may be None."""
    if a is None:
        return b
    if b is None or a == b:
        return a
    ca, cb = category(a), category(b)
    if ca == 2 and cb == 2 and a.itemsize == 2 and b.itemsize == 2:
        return FLOAT32                      # float16 with bfloat16: neither holds the other
    if ca == cb or ca >= 2 and cb >= 2:     # floating with complex: by width too
        return np.promote_types(a, b)
    return a if ca > cb else b


cdef object combine(object higher, object lower):
    """A lower-priority operand changes the result only if it is of a higher category; a
    complex one makes a floating result complex of the floating width (float64 tensor + 1j is
    complex128, float32 tensor + a complex128 0-dim tensor is complex64). float16 and bfloat16
    become complex64: there is no complex32 here."""
    if higher is None:
        return lower
    if lower is None or category(lower) <= category(higher):
        return higher
    if category(lower) == 3 and category(higher) == 2:
        return COMPLEX128 if higher.itemsize == 8 else COMPLEX64
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
        elif isinstance(value, (float, np.floating)):
            scalars = promote(scalars, default_float())
        elif isinstance(value, (complex, np.complexfloating)):
            scalars = promote(scalars, default_complex())
        else:
            # A list, a string ...: PyTorch's argument parser refuses it.
            raise TypeError(f"argument 'other' must be Tensor or Number, not "
                            f"{type(value).__name__}")
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


cdef void raise_broadcast_error(object a, object b) except *:
    """In NumPy's ValueError handler: PyTorch's broadcast error, or re-raise that one."""
    error = broadcast_failure(a, b)
    if error is None:
        raise
    raise error from None


cdef object broadcast_failure(object a, object b):
    """PyTorch's RuntimeError for two operands whose shapes do not broadcast, or None."""
    return broadcast_error(shape_of(a), shape_of(b))


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
    if isinstance(a, Tensor) and isinstance(b, float) and kind_of((<Tensor>a)._data.dtype) == "f":
        return (<Tensor>a)._data.dtype          # float tensor and a Python float
    return result_type_of((a, b))


cdef object floating_result_type(object a, object b):
    """Like result_type, but integer results become float32 (true division)."""
    dtype = result_type(a, b)
    return dtype if kind_of(dtype) in "fc" else default_float()


def _result_type(a, b):
    return result_type(a, b)


def _promote_types(a, b):
    return promote(a, b)


cdef object operand_array(object value, object dtype):
    """The array of an operand in ``dtype``; a Python number stays a scalar, which
    NumPy 2 treats as "weak" (it never widens the array's dtype), as PyTorch does."""
    if isinstance(value, Tensor):
        array = (<Tensor>value)._data
        if array.dtype != dtype:
            return array.astype(dtype)
        return array
    if isinstance(value, NUMPY_SCALAR):
        # A NumPy scalar (np.float64(2), np.int32(2)) is a number to PyTorch, as weak as a
        # Python one; to NumPy it is not, and float32 * np.float64(2) would be float64.
        value = value.item()
    if dtype.kind == "V":
        # NumPy treats no number as weak beside an extension dtype (bfloat16 * 0.5 would be
        # float32): the number becomes a 0-dim bfloat16 array (NOTE [bfloat16's kind]).
        return np.asarray(value, dtype)
    return value


cdef object BFLOAT16 = np.dtype(ml_dtypes.bfloat16)
cdef object FLOAT16 = np.dtype(np.float16)


cdef inline bint on_device(object value):
    return isinstance(value, Tensor) and type((<Tensor>value)._data) is not cnp.ndarray


cdef object widened(object array):
    """A float16 or bfloat16 array in float32, for computing in PyTorch's opmath type: laid
    out as it is (``order="K"``), except that an expanded array (a stride of 0) comes out
    row-major. NumPy's "K" order puts the expanded dims of such an array last in memory;
    PyTorch's result of an op on an expanded tensor is contiguous."""
    if 0 in array.strides:
        return array.astype(FLOAT32, order="C")
    return array.astype(FLOAT32)


cdef object opmath_operand(object value, object other, object dtype, bint round_number):
    """operand_array of ``value`` (beside ``other``) for the arithmetic ops, which PyTorch
    computes for float16 and bfloat16 in float32 (its "opmath" type), rounding the result
    once (``rounded``, by the caller): a tensor's array is widened to float32, and a number
    becomes a float32 NumPy scalar, rounded to ``dtype`` first if ``round_number`` (add and sub
    round it; mul and div take it as it is). (NumPy's own float16 and ml_dtypes' bfloat16
    loops compute the same elementwise values at several times the cost of the two
    conversions.) On a CUDA device nothing changes: its kernels compute in float
    themselves."""
    if dtype is not BFLOAT16 and dtype is not FLOAT16:
        return operand_array(value, dtype)
    if on_device(value) or on_device(other):
        return operand_array(value, dtype)
    if isinstance(value, Tensor):
        array = (<Tensor>value)._data
        if array.dtype is not dtype:
            array = array.astype(dtype)     # an integer tensor: to the dtype first
        return widened(array)
    if isinstance(value, NUMPY_SCALAR):
        value = value.item()
    if isinstance(value, (bool, int, float)):
        return np.float32(np.asarray(value, dtype)) if round_number else np.float32(value)
    return operand_array(value, dtype)


cdef object rounded(object array, object dtype):
    """An arithmetic op's result in its result ``dtype``: a float16 or bfloat16 op computed in
    float32 (``opmath_operand``) rounds here, once."""
    if (dtype is BFLOAT16 or dtype is FLOAT16) and array.dtype is not dtype:
        return array.astype(dtype)
    return array


cdef Tensor wrap(object array):
    return make_tensor(array)


cdef bint is_complex_device_array(object array) except -1:
    """is_complex_array for an array that is not NumPy's (a DeviceArray)."""
    return array.dtype.kind == "c"


cdef void refuse_complex(object value, type error, str message,
                         bint differentiable=True) except *:
    """PyTorch's ``error`` for an op it does not define on complex numbers (an ordering
    comparison, max, clamp ...), where NumPy would order them lexicographically.
    ``message`` may name the dtype as ``{dtype}`` (``ComplexFloat``); ``differentiable``:
    torch records the op (not a comparison or argmax), so a stale view's error comes first."""
    if isinstance(value, Tensor) and is_complex_array((<Tensor>value)._data):
        if differentiable and is_grad_enabled() and requires_grad(<Tensor>value):
            # torch's autograd layer reads the input's grad_fn before its kernel refuses: a
            # view whose base changed under it (a multi-output view) raises that error first
            get_grad_fn(<Tensor>value)
        raise error(message.format(dtype="ComplexFloat"
                                   if (<Tensor>value)._data.dtype.itemsize == 8
                                   else "ComplexDouble"))
