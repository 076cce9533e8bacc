# cython: allow_none_for_extension_args=False
"""Comparison and logical ops: eq, lt, ..., logical_and, isnan, isclose, equal, allclose.

Their results are bool tensors (``equal`` and ``allclose`` return a Python bool),
which never require grad, so no op here records a Node. Operands are promoted
to a common dtype first, as in PyTorch: ``int_tensor < 2.5`` compares in float32.
The Tensor operators ``==``, ``<``, ``&``, ``|``, ``~`` ... forward here.
"""
import numpy as np

from autograd_cy._C.dtype cimport from_numpy_dtype, kind_of
from autograd_cy._C.device cimport as_array
from autograd_cy._C.tensor cimport (
    Tensor, make_tensor, tensor_operators, TensorOperators, wrap_dim,
)
from autograd_cy._C.promotion cimport (
    result_type, operand_array, refuse_complex, raise_broadcast_error)
from autograd_cy._C.promotion import broadcast_error
from autograd_cy._C.fp_errors cimport ignoring_fp_errors

__all__ = ["eq", "ne", "lt", "le", "gt", "ge",
           "greater", "greater_equal", "less", "less_equal", "not_equal",
           "logical_and", "logical_or", "logical_xor", "logical_not",
           "bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_not",
           "isnan", "isinf", "isfinite", "isclose", "allclose", "equal", "is_same_size",
           "all", "any"]
__tensor_methods__ = tuple(__all__)


cdef Tensor apply_binary(object ufunc, Tensor self, object other, object a, object b):
    """``ufunc(a, b)`` as a Tensor, with PyTorch's message when shapes do not broadcast."""
    try:
        return make_tensor(ufunc(a, b))
    except ValueError:
        error = broadcast_error(self._data.shape, (<Tensor>other)._data.shape
                                if isinstance(other, Tensor) else ())
        if error is None:
            raise
        raise error from None


cdef Tensor compare(object ufunc, str name, object self, object other):
    """``self <op> other`` elementwise; ``other`` is a tensor or a Python number."""
    if not isinstance(self, Tensor) or not isinstance(other, (Tensor, int, float, np.number,
                                                              np.bool_)):
        raise TypeError(
            f"{name}() received an invalid combination of arguments - got "
            f"({type(self).__name__}, {type(other).__name__}), but expected one of:\n"
            " * (Tensor input, Tensor other, *, Tensor out = None)\n"
            " * (Tensor input, Number other, *, Tensor out = None)\n")
    if name in ORDERINGS:
        if isinstance(other, Tensor):
            # shapes first, as TensorIterator checks them before it picks a kernel
            try:
                np.broadcast_shapes((<Tensor>self)._data.shape, (<Tensor>other)._data.shape)
            except ValueError:
                raise_broadcast_error(self, other)
        refuse_complex(self, NotImplementedError, f'"{name}_cpu" not implemented for '
                                                  "'{dtype}'", False)
        refuse_complex(other, NotImplementedError, f'"{name}_cpu" not implemented for '
                                                   "'{dtype}'", False)
    dtype = result_type(self, other)
    return apply_binary(ufunc, <Tensor>self, other, operand_array(self, dtype),
                        operand_array(other, dtype))


cdef tuple ORDERINGS = ("lt", "le", "gt", "ge")     # undefined on complex numbers


def eq(self, other):
    """``self == other`` elementwise, as a bool tensor."""
    return compare(np.equal, "eq", self, other)


def ne(self, other):
    """``self != other`` elementwise (NaN != NaN is True)."""
    return compare(np.not_equal, "ne", self, other)


def lt(self, other):
    """``self < other`` elementwise."""
    return compare(np.less, "lt", self, other)


def le(self, other):
    """``self <= other`` elementwise."""
    return compare(np.less_equal, "le", self, other)


def gt(self, other):
    """``self > other`` elementwise."""
    return compare(np.greater, "gt", self, other)


def ge(self, other):
    """``self >= other`` elementwise."""
    return compare(np.greater_equal, "ge", self, other)


greater, greater_equal, less, less_equal, not_equal = gt, ge, lt, le, ne


# ------------------------------------------------------------------ logical

cdef Tensor logical(object ufunc, str name, object self, object other):
    """Elementwise logic on truth values (nonzero is True, NaN included).

    Beyond PyTorch's functions, ``other`` may be a Python bool or number, so that
    ``mask & True`` works through the Tensor operators.
    """
    if not isinstance(self, Tensor):
        raise TypeError(f"{name}(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(self).__name__}")
    if isinstance(other, Tensor):
        b = (<Tensor>other)._data
    elif isinstance(other, (int, float, np.number, np.bool_)):
        b = other
    else:
        raise TypeError(f"{name}(): argument 'other' (position 2) must be Tensor, not "
                        f"{type(other).__name__}")
    return apply_binary(ufunc, <Tensor>self, other, (<Tensor>self)._data, b)


def logical_and(self, other):
    """Elementwise ``self and other`` of truth values, as a bool tensor."""
    return logical(np.logical_and, "logical_and", self, other)


def logical_or(self, other):
    """Elementwise ``self or other`` of truth values, as a bool tensor."""
    return logical(np.logical_or, "logical_or", self, other)


def logical_xor(self, other):
    """Elementwise exclusive or of truth values, as a bool tensor."""
    return logical(np.logical_xor, "logical_xor", self, other)


def logical_not(Tensor self):
    """Elementwise ``not self`` (zero is False), as a bool tensor."""
    return make_tensor(np.logical_not(self._data))


# ------------------------------------------------------------------ bitwise

cdef Tensor bitwise(object ufunc, str name, object self, object other):
    """``&``, ``|``, ``^`` of bool or integer tensors (PyTorch promotes, never to float)."""
    dtype = result_type(self, other)
    if kind_of(dtype) in "fc":
        raise NotImplementedError(f'"{name}_cpu" not implemented for '
                                  f"'{from_numpy_dtype(dtype)._scalar_name}'")
    a = (<Tensor>self)._data.astype(dtype, copy=False)
    b = (<Tensor>other)._data.astype(dtype, copy=False) if isinstance(other, Tensor) else other
    return apply_binary(lambda x, y: as_array(ufunc(x, y), dtype), <Tensor>self, other,
                        a, b)


def bitwise_and(self, other):
    """Elementwise AND of bool or integer tensors (``a & b``)."""
    return bitwise(np.bitwise_and, "bitwise_and", self, other)


def bitwise_or(self, other):
    """Elementwise OR of bool or integer tensors (``a | b``)."""
    return bitwise(np.bitwise_or, "bitwise_or", self, other)


def bitwise_xor(self, other):
    """Elementwise XOR of bool or integer tensors (``a ^ b``)."""
    return bitwise(np.bitwise_xor, "bitwise_xor", self, other)


def bitwise_not(Tensor self):
    """Elementwise NOT: ``~mask`` for bool tensors, two's complement for integers."""
    if kind_of(self._data.dtype) in "fc":
        raise NotImplementedError('"bitwise_not_cpu" not implemented for '
                                  f"'{from_numpy_dtype(self._data.dtype)._scalar_name}'")
    return make_tensor(np.invert(self._data))


# ------------------------------------------------------------------ all / any

cdef Tensor truth_reduction(object reduction, Tensor self, object dim, bint keepdim):
    """all/any over ``dim`` (an int, a tuple, or every dim): bool, or uint8 for uint8 input.
    ``reduction`` is np.all or np.any: functions, which a CUDA array's dispatch takes."""
    array = self._data
    cdef Py_ssize_t ndim = array.ndim
    if dim is None:
        axis = None
    elif isinstance(dim, (tuple, list)):
        axis = tuple([wrap_dim(d, ndim) for d in dim]) if ndim else ()
        if not dim:
            axis = None
    else:
        axis = (wrap_dim(dim, ndim),) if ndim else ()
    result = reduction(array != 0, axis=axis, keepdims=keepdim)
    dtype = np.uint8 if array.dtype == np.uint8 else np.bool_
    return make_tensor(as_array(result, dtype))


def all(Tensor self, dim=None, keepdim=False):
    """Are all elements nonzero (over ``dim``, or everywhere)?"""
    return truth_reduction(np.all, self, dim, keepdim)


def any(Tensor self, dim=None, keepdim=False):
    """Is any element nonzero (over ``dim``, or anywhere)?"""
    return truth_reduction(np.any, self, dim, keepdim)


# ------------------------------------------------------------------ special values

def isnan(Tensor self):
    """Where ``self`` is NaN (a complex number: either part; never for integer and bool
    tensors)."""
    if kind_of(self._data.dtype) in "fc":
        return make_tensor(np.isnan(self._data))
    return make_tensor(np.zeros_like(self._data, dtype=np.bool_))


def isinf(Tensor self):
    """Where ``self`` is ``+inf`` or ``-inf`` (a complex number: either part)."""
    if kind_of(self._data.dtype) in "fc":
        return make_tensor(np.isinf(self._data))
    return make_tensor(np.zeros_like(self._data, dtype=np.bool_))


def isfinite(Tensor self):
    """Where ``self`` is neither infinite nor NaN (a complex number: both parts; always for
    integer and bool tensors)."""
    if kind_of(self._data.dtype) in "fc":
        return make_tensor(np.isfinite(self._data))
    return make_tensor(np.ones_like(self._data, dtype=np.bool_))


# ------------------------------------------------------------------ closeness, equality

def isclose(Tensor self, Tensor other, rtol=1e-05, atol=1e-08, equal_nan=False):
    """Where ``|self - other| <= atol + rtol * |other|`` (equal infinities are close).

    Both tensors must have the same dtype; NaNs are close to each other only with
    ``equal_nan=True``. Complex numbers compare by the modulus of their difference.
    """
    a, b = self._data, other._data
    if a.dtype != b.dtype:
        raise RuntimeError(f"{self.dtype._scalar_name} did not match "
                           f"{other.dtype._scalar_name}")
    if rtol < 0:
        raise RuntimeError(f"rtol must be greater than or equal to zero, but got {rtol}")
    if atol < 0:
        raise RuntimeError(f"atol must be greater than or equal to zero, but got {atol}")
    close = apply_binary(np.equal, self, other, a, b)._data
    if a.dtype.kind == "b":
        return make_tensor(close)
    if kind_of(a.dtype) not in "fc":
        # Integers compare their distance in floating point, as PyTorch does.
        a, b = a.astype(np.float64), b.astype(np.float64)
    elif equal_nan:
        close |= np.isnan(a) & np.isnan(b)
    with ignoring_fp_errors():
        error = np.abs(a - b)
        close |= np.isfinite(error) & (error <= atol + np.abs(rtol * b))
    return make_tensor(close)


def allclose(Tensor self, Tensor other, rtol=1e-05, atol=1e-08, equal_nan=False):
    """``isclose(...).all()`` as a Python bool."""
    return bool((<Tensor>isclose(self, other, rtol, atol, equal_nan))._data.all())


def equal(Tensor self, other):
    """True if both tensors have the same shape and the same values (a Python bool).

    Values are compared after type promotion; NaN is never equal to NaN.
    """
    if not isinstance(other, Tensor):
        raise TypeError("equal(): argument 'other' (position 2) must be Tensor, not "
                        f"{type(other).__name__}")
    a, b = self._data, (<Tensor>other)._data
    if a.shape != b.shape:
        return False
    return bool((a == b).all())


def is_same_size(self, other):
    """True if both tensors have the same shape (no ``Size`` objects made)."""
    for position, name, value in ((1, "input", self), (2, "other", other)):
        if not isinstance(value, Tensor):
            raise TypeError(f"is_same_size(): argument '{name}' (position {position}) must be "
                            f"Tensor, not {type(value).__name__}")
    return (<Tensor>self)._data.shape == (<Tensor>other)._data.shape


# The Tensor operators (NOTE [How Tensor gets its methods] in tensor.pyx).

cdef object eq_op(object a, object b):
    return eq(a, b)


cdef object ne_op(object a, object b):
    return ne(a, b)


cdef object lt_op(object a, object b):
    return lt(a, b)


cdef object le_op(object a, object b):
    return le(a, b)


cdef object gt_op(object a, object b):
    return gt(a, b)


cdef object ge_op(object a, object b):
    return ge(a, b)


cdef object and_op(object a, object b):
    return bitwise_and(a, b)


cdef object or_op(object a, object b):
    return bitwise_or(a, b)


cdef object xor_op(object a, object b):
    return bitwise_xor(a, b)


cdef object not_op(object a):
    if kind_of((<Tensor>a)._data.dtype) == "f":
        raise TypeError("~ (operator.invert) is only implemented on integer and Boolean-type "
                        "tensors")
    return bitwise_not(a)


cdef TensorOperators* operators = tensor_operators()
operators.eq = eq_op
operators.ne = ne_op
operators.lt = lt_op
operators.le = le_op
operators.gt = gt_op
operators.ge = ge_op
operators.bitwise_and = and_op
operators.bitwise_or = or_op
operators.bitwise_xor = xor_op
operators.bitwise_not = not_op
