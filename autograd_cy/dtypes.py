"""PyTorch-style dtype objects over NumPy dtypes.

``autograd_cy.float32`` plays the part of ``torch.float32``: it compares equal only
to itself, prints as ``autograd_cy.float32`` and knows its NumPy twin. Python
floats default to float32 and Python ints to int64, as in PyTorch.
"""
import builtins

import numpy as np

__all__ = [
    "dtype", "float16", "float32", "float64", "int32", "int64", "bool",
    "half", "float", "double", "int", "long",
    "get_default_dtype", "from_numpy_dtype",
]

class dtype:
    """A tensor element type; immutable singletons, one per NumPy dtype."""

    __slots__ = ("name", "numpy", "is_floating_point", "is_signed", "itemsize",
                 "_scalar_name", "_tensor_type")

    def __init__(self, name, numpy_dtype, scalar_name, tensor_type):
        self.name = name
        self.numpy = np.dtype(numpy_dtype)
        self.is_floating_point = self.numpy.kind == "f"
        self.is_signed = self.numpy.kind in "fi"
        self.itemsize = self.numpy.itemsize
        self._scalar_name = scalar_name      # c10 name used in PyTorch messages: 'Float'
        self._tensor_type = tensor_type      # legacy type name: 'FloatTensor'

    @property
    def is_complex(self):
        return False

    def __repr__(self):
        return "autograd_cy." + self.name

    def __reduce__(self):
        return (_by_name, (self.name,))


float16 = half = dtype("float16", np.float16, "Half", "HalfTensor")
float32 = float = dtype("float32", np.float32, "Float", "FloatTensor")
float64 = double = dtype("float64", np.float64, "Double", "DoubleTensor")
int32 = int = dtype("int32", np.int32, "Int", "IntTensor")
int64 = long = dtype("int64", np.int64, "Long", "LongTensor")
bool = dtype("bool", np.bool_, "Bool", "BoolTensor")

_ALL = (float16, float32, float64, int32, int64, bool)
_FROM_NUMPY = {d.numpy: d for d in _ALL}
# Narrower NumPy integers are widened on the way in: PyTorch has no uint16 tensors.
_EXTRA_NUMPY = {np.dtype(np.int8): int32, np.dtype(np.int16): int32, np.dtype(np.uint8): int32,
                np.dtype(np.uint16): int32, np.dtype(np.uint32): int64}


def _by_name(name):
    return globals()[name]


def get_default_dtype():
    """The dtype of tensors made from Python floats (float32, as in PyTorch)."""
    return float32


def from_numpy_dtype(numpy_dtype):
    """The dtype object for a NumPy dtype; TypeError for types PyTorch lacks."""
    numpy_dtype = np.dtype(numpy_dtype)
    found = _FROM_NUMPY.get(numpy_dtype)
    if found is None:
        raise TypeError(
            f"can't convert np.ndarray of type numpy.{numpy_dtype.name}. The only supported "
            "types are: float64, float32, float16, int64, int32, and bool.")
    return found


def to_numpy_dtype(value):
    """Accept an autograd_cy dtype, a NumPy dtype or a Python type; return a NumPy dtype."""
    if isinstance(value, dtype):
        return value.numpy
    python_types = {builtins.float: float32, builtins.int: int64, builtins.bool: bool}
    if value in python_types:
        return python_types[value].numpy
    return from_numpy_dtype(value).numpy
