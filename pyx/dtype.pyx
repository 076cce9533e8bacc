"""Element types named as PyTorch names them: ``autograd_cy.float32`` is ``torch.float32``.

A dtype compares equal only to itself, prints as ``autograd_cy.float32`` and knows its NumPy
twin (``float32.numpy``). Python floats default to float32 and Python ints to int64, as in
PyTorch.
"""
import builtins

import ml_dtypes
import numpy as np

__all__ = ["dtype", "float16", "bfloat16", "float32", "float64", "complex64", "complex128", "int8",
           "int16", "int32", "int64", "uint8", "bool", "half", "float", "double", "cfloat",
           "cdouble", "short", "int", "long", "get_default_dtype", "set_default_dtype"]


cdef class dtype:
    """A tensor element type; immutable singletons, one per NumPy dtype.

    >>> ag.float32, ag.float32.is_floating_point, ag.tensor([1, 2]).dtype
    (autograd_cy.float32, True, autograd_cy.int64)
    """

    def __init__(self, str name, numpy_dtype, str scalar_name, str tensor_type):
        self.name = name
        self.numpy = np.dtype(numpy_dtype)
        self.is_floating_point = kind_of(self.numpy) == "f"
        self.is_complex = self.numpy.kind == "c"
        self.is_signed = kind_of(self.numpy) in "fci"
        self.itemsize = self.numpy.itemsize
        self._scalar_name = scalar_name
        self._tensor_type = tensor_type

    def to_complex(self):
        """The complex dtype whose parts are this floating dtype (float32 -> complex64)."""
        if self.is_complex:
            return self
        if not self.is_floating_point or self.itemsize == 2:
            raise RuntimeError(f"Unsupported dtype {self._scalar_name}")
        return complex64 if self.itemsize == 4 else complex128

    def to_real(self):
        """The floating dtype of a complex dtype's parts (complex64 -> float32)."""
        if not self.is_complex:
            return self
        return float32 if self.itemsize == 8 else float64

    def __repr__(self):
        return "autograd_cy." + self.name

    def __reduce__(self):
        return (_by_name, (self.name,))


float16 = half = dtype("float16", np.float16, "Half", "HalfTensor")
bfloat16 = dtype("bfloat16", ml_dtypes.bfloat16, "BFloat16", "BFloat16Tensor")
float32 = float = dtype("float32", np.float32, "Float", "FloatTensor")
float64 = double = dtype("float64", np.float64, "Double", "DoubleTensor")
complex64 = cfloat = dtype("complex64", np.complex64, "ComplexFloat", "ComplexFloatTensor")
complex128 = cdouble = dtype("complex128", np.complex128, "ComplexDouble", "ComplexDoubleTensor")
int8 = dtype("int8", np.int8, "Char", "CharTensor")
int16 = short = dtype("int16", np.int16, "Short", "ShortTensor")
uint8 = dtype("uint8", np.uint8, "Byte", "ByteTensor")
int32 = int = dtype("int32", np.int32, "Int", "IntTensor")
int64 = long = dtype("int64", np.int64, "Long", "LongTensor")
bool = dtype("bool", np.bool_, "Bool", "BoolTensor")

cdef dict FROM_NUMPY = {d.numpy: d for d in (float16, bfloat16, float32, float64, complex64,
                                             complex128, int8, int16, int32, int64, uint8, bool)}
cdef dict FROM_PYTHON_TYPE = {builtins.float: float32, builtins.complex: complex64,
                              builtins.int: int64, builtins.bool: bool}
# The names C++ gives the scalar types in PyTorch's lower-level messages.
cdef dict C10_NAMES = {"float16": "c10::Half", "bfloat16": "c10::BFloat16", "float32": "float",
                       "float64": "double",
                       "complex64": "c10::complex<float>", "complex128": "c10::complex<double>",
                       "int8": "signed char", "int16": "short int",
                       "int32": "int", "int64": "long int", "bool": "bool",
                       "uint8": "unsigned char"}


# How PyTorch's checked conversion of a scalar argument (full, fill_) names its C++ type.
cdef dict CHECKED_NAMES = {"float16": "c10::Half", "bfloat16": "c10::BFloat16", "float32": "float",
                           "int64": "int64_t",
                           "int32": "int",
                           "int16": "int16_t", "int8": "int8_t", "uint8": "uint8_t"}


cpdef check_convertible(object values, object numpy_dtype, bint scalar_argument):
    """PyTorch's checked conversion of numbers into ``numpy_dtype``, where NumPy would cast
    quietly and wrongly: RuntimeError "value cannot be converted to type ... without
    overflow". Integer types refuse nan, inf and values out of range (uint8 takes negative
    integers down to -255, wrapping, as C++ does); a scalar argument (``scalar_argument``:
    full, fill_) into float32 or float16 must be in range too, where the tensor constructor
    makes it inf."""
    cdef str kind = kind_of(numpy_dtype)
    array = np.asarray(values)
    if array.dtype.kind == "c" and kind != "c" and np.any(array.imag != 0):
        # a number with an imaginary part into a real type (PyTorch's scalar check)
        raise RuntimeError(f"value cannot be converted to type "
                           f"{CHECKED_NAMES.get(numpy_dtype.name, numpy_dtype.name)} without "
                           "overflow")
    if kind in "bc" or kind == "f" and not (scalar_argument and numpy_dtype.itemsize < 8):
        return
    if array.dtype.kind not in "iuf" or array.size == 0:
        return
    if kind == "f":
        largest = ml_dtypes.finfo(numpy_dtype).max
        overflows = np.any(np.isfinite(array) & (np.abs(array) > largest))
    else:
        limits = np.iinfo(numpy_dtype)
        lowest = -limits.max if kind == "u" and array.dtype.kind in "iu" else limits.min
        overflows = np.any((array < lowest) | (array > limits.max))
        if array.dtype.kind == "f":
            overflows = overflows or not np.all(np.isfinite(array))
    if overflows:
        name = CHECKED_NAMES[numpy_dtype.name] if scalar_argument else numpy_dtype.name
        raise RuntimeError(f"value cannot be converted to type {name} without overflow")


def _by_name(name):
    """Unpickle a dtype: the singleton of that name."""
    return globals()[name]


# The default dtype: what Python floats become (tensor([1.5]), x * 1.5 of an integer x), the
# dtype of factories without one (zeros, randn), and what integer inputs of floating
# functions compute in (exp, true division); its complex dtype is what Python complex
# numbers become. float32 unless set_default_dtype changed it.
cdef dtype DEFAULT = float32


def set_default_dtype(d):
    """Set the default floating dtype (float32 at start): float64, float32, float16 or
    bfloat16, as torch.set_default_dtype."""
    global DEFAULT
    if not isinstance(d, dtype) or not (<dtype>d).is_floating_point:
        raise TypeError("only floating-point types are supported as the default type")
    DEFAULT = d


def get_default_dtype():
    """The default floating dtype (float32 unless set_default_dtype changed it)."""
    return DEFAULT


def _default_complex_dtype():
    """The dtype of tensors made from Python complex numbers: the complex dtype of the
    default dtype (complex64 for float32, complex128 for float64), as in PyTorch. There is no
    complex32 here: a float16 default gives complex64; bfloat16 has no complex dtype, and a
    complex number raises torch's error then."""
    if DEFAULT is bfloat16:
        raise RuntimeError("invalid default scalar type for complex")
    return complex128 if DEFAULT is float64 else complex64


cdef object default_float():
    """The NumPy dtype of the default dtype, for the core."""
    return DEFAULT.numpy


cdef object default_complex():
    """The NumPy dtype of the default complex dtype, for the core."""
    return (<dtype>_default_complex_dtype()).numpy


def _is_supported(numpy_dtype):
    """Is there a dtype object for this NumPy dtype (without widening)?"""
    return np.dtype(numpy_dtype) in FROM_NUMPY


cdef dtype from_numpy_dtype(object numpy_dtype):
    """The dtype object of a NumPy dtype; TypeError for types PyTorch lacks."""
    found = FROM_NUMPY.get(numpy_dtype)
    if found is None:
        numpy_dtype = np.dtype(numpy_dtype)
        found = FROM_NUMPY.get(numpy_dtype)
    if found is None:
        raise TypeError(
            f"can't convert np.ndarray of type numpy.{numpy_dtype.name}. The only supported "
            "types are: float64, float32, float16, complex64, complex128, int64, int32, int16, "
            "int8, uint8, and bool.")
    return <dtype>found


cdef object to_numpy_dtype(object value):
    """Accept a dtype object, a NumPy dtype or a Python type; return a NumPy dtype."""
    if isinstance(value, dtype):
        return (<dtype>value).numpy
    if value in FROM_PYTHON_TYPE:
        return (<dtype>FROM_PYTHON_TYPE[value]).numpy
    return from_numpy_dtype(value).numpy


cdef str tensor_type_name(object numpy_dtype):
    """``autograd_cy.FloatTensor``: how PyTorch's version and hook errors name a tensor."""
    return "autograd_cy." + from_numpy_dtype(numpy_dtype)._tensor_type


cdef str scalar_name(object numpy_dtype):
    """``Float``: how PyTorch's casting errors name a dtype."""
    return from_numpy_dtype(numpy_dtype)._scalar_name


cdef str c10_name(object numpy_dtype):
    """``float``: how PyTorch's C++ messages name a dtype."""
    return C10_NAMES.get(numpy_dtype.name, numpy_dtype.name)


# Python access for the package above the core.

def _from_numpy_dtype(numpy_dtype):
    return from_numpy_dtype(numpy_dtype)


def _to_numpy_dtype(value):
    return to_numpy_dtype(value)


def _c10_name(dtype value):
    """How PyTorch's C++ messages name the dtype ``value`` (``c10::complex<float>``)."""
    return c10_name(value.numpy)
