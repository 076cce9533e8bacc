"""``autograd_cy.float32`` and friends: the dtype objects of the core (pyx/dtype.pyx).

Kept as a module of the Python package so ``autograd_cy.dtypes`` still names them; with
torch's functions of dtypes: promote_types, result_type, can_cast, set_default_dtype, and
finfo/iinfo, the limits of a floating and of an integer type.
"""
import builtins as _builtins

import ml_dtypes as _ml_dtypes
import numpy as _np

from autograd_cy._C.promotion import _promote_types, _result_type
from autograd_cy._C.dtype import (  # noqa: F401
    dtype, float16, bfloat16, float32, float64, complex64, complex128, int8, int16, int32, int64,
    uint8,
    bool, half, float, double, cfloat, cdouble, short, int, long,
    get_default_dtype, set_default_dtype, _default_complex_dtype as default_complex_dtype,
    _from_numpy_dtype as from_numpy_dtype, _to_numpy_dtype as to_numpy_dtype,
    _is_supported,
)

__all__ = ["dtype", "float16", "bfloat16", "float32", "float64", "complex64", "complex128", "int8",
           "int16", "int32", "int64", "uint8", "bool", "half", "float", "double", "cfloat",
           "cdouble", "short", "int", "long",
           "get_default_dtype", "set_default_dtype", "promote_types", "result_type", "can_cast",
           "finfo", "iinfo", "from_numpy_dtype", "to_numpy_dtype"]


def _check_dtype(function, value, argument, position):
    if not isinstance(value, dtype):
        raise TypeError(f"{function}(): argument '{argument}' (position {position}) must be "
                        f"autograd_cy.dtype, not {type(value).__name__}")


def promote_types(type1, type2):
    """The smallest dtype both convert to without losing their category, as torch's
    (bfloat16 with float16 is float32)."""
    _check_dtype("promote_types", type1, "type1", 1)
    _check_dtype("promote_types", type2, "type2", 2)
    return from_numpy_dtype(_promote_types(type1.numpy, type2.numpy))


def result_type(tensor, other):
    """The dtype of an arithmetic op on ``tensor`` and ``other`` (tensors or numbers), with
    torch's rules: dimensioned tensors before 0-dim ones before numbers."""
    return from_numpy_dtype(_result_type(tensor, other))


def can_cast(from_, to):
    """Whether torch's casting rules allow ``from_`` to ``to`` where an op writes its result
    (in place, ``out=``): never floating to integral, complex to real, or anything but bool
    to bool."""
    _check_dtype("can_cast", from_, "from_", 1)
    _check_dtype("can_cast", to, "to", 2)
    if from_.is_complex and not to.is_complex:
        return False
    if from_.is_floating_point and not (to.is_floating_point or to.is_complex):
        return False
    return from_ is bool or to is not bool


class finfo:
    """The limits of a floating dtype (of a complex dtype's parts), as torch.finfo: ``bits``,
    ``eps``, ``max``, ``min``, ``tiny`` (= ``smallest_normal``), ``resolution``, ``dtype``.
    The default dtype without an argument."""

    def __init__(self, type=None):
        type = get_default_dtype() if type is None else type
        if not isinstance(type, dtype) or not (type.is_floating_point or type.is_complex):
            raise TypeError("autograd_cy.finfo() requires a floating point input type. Use "
                            "autograd_cy.iinfo to handle 'autograd_cy.finfo'")
        real = type.to_real()
        limits = _ml_dtypes.finfo(real.numpy)       # NumPy's finfo knows no bfloat16
        self.bits = real.itemsize * 8
        self.eps, self.max, self.min = (_builtins.float(limits.eps), _builtins.float(limits.max),
                                        _builtins.float(limits.min))
        self.tiny = self.smallest_normal = _builtins.float(limits.smallest_normal)
        self.resolution = 10.0 ** -limits.precision     # torch's: a power of ten
        self.dtype = real.name

    def __repr__(self):
        return (f"finfo(resolution={self.resolution:g}, min={self.min:g}, max={self.max:g}, "
                f"eps={self.eps:g}, smallest_normal={self.smallest_normal:g}, "
                f"tiny={self.tiny:g}, dtype={self.dtype})")


class iinfo:
    """The limits of an integer dtype, as torch.iinfo: ``bits``, ``max``, ``min``,
    ``dtype``."""

    def __init__(self, type):
        if not isinstance(type, dtype) or type.is_floating_point or type.is_complex:
            raise TypeError("autograd_cy.iinfo() requires an integer input type. Use "
                            "autograd_cy.finfo to handle 'autograd_cy.iinfo'")
        if type is bool:
            raise TypeError("autograd_cy.bool is not supported by autograd_cy.iinfo")
        limits = _np.iinfo(type.numpy)
        self.bits = type.itemsize * 8
        self.max, self.min = _builtins.int(limits.max), _builtins.int(limits.min)
        self.dtype = type.name

    def __repr__(self):
        return f"iinfo(min={self.min:g}, max={self.max:g}, dtype={self.dtype})"


def _refuse_complex(dtype, kernel):
    """torch's NotImplementedError of a CPU kernel not compiled for complex dtypes."""
    if dtype.is_complex:
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{dtype._scalar_name}'")
