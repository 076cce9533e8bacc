# cython: allow_none_for_extension_args=False
"""Powers and roots: ``x ** e`` with a number or tensor exponent, ``number ** x``, ``pow_``,
``square`` (which is ``pow(x, 2)``, as in PyTorch), and the op table's entries sqrt and rsqrt.

The backward formulas follow PyTorch's at the edges: a zero exponent gives zeros with no
graph, and at a zero base the exponent's derivative (which needs ``log 0``) is defined as 0
where the exponent is not negative.
"""
import numpy as np

from autograd_cy._C.dtype cimport kind_of
from autograd_cy._C.grad_mode cimport is_grad_enabled, forward_level, needs_tensor_ops
from autograd_cy._C.forward cimport (
    forward1, forward2, pointwise_tangent, batch_unary, batch_binary,
)
from autograd_cy._C.device cimport contiguous_array, empty_result_like
from autograd_cy._C.tensor cimport (
    Tensor, make_tensor, requires_grad, tensor_operators, TensorOperators,
)
from autograd_cy._C.batching cimport grads_batched
from autograd_cy._C.node cimport unpack_saved
from autograd_cy._C.ops.op_table cimport ElementwiseNode, SavesResult, unary_op
from autograd_cy._C.ops.op_table import export_unary_ops
from autograd_cy._C.ops.conjugate cimport conj_of
from autograd_cy._C.recording cimport record1, record2, any_requires_grad2
from autograd_cy._C.promotion cimport result_type, operand_array, wrap, raise_broadcast_error
from autograd_cy._C.fp_errors cimport quietly, quietly2, ignoring_fp_errors
from autograd_cy._C.fp_errors import positive_nan
from autograd_cy._C.views cimport apply_inplace
from autograd_cy._C.ops.arithmetic import mul, sub, div
from autograd_cy._C.ops.selection import where
from autograd_cy._C.ops.pointwise import log

__all__ = ["pow", "rpow", "pow_", "square", "square_"]
__tensor_methods__ = ("pow", "pow_", "square", "square_")

SQRT = positive_nan(np.sqrt)     # NOTE [The sign of a NaN] in fp_errors.pyx


cdef class PowBackward0(ElementwiseNode):
    """``self ** exponent`` with a number exponent: ``grad * conj(exponent * self ** (exponent
    - 1))``."""
    saved_names = ("self",)
    cdef readonly object saved_exponent
    complex_formulas = True

    cpdef tuple apply(self, tuple grads):
        exponent = self.saved_exponent
        cdef Tensor base = unpack_saved(self, 0)
        if exponent == 0:
            # PyTorch's zeros_like(self): no graph, and 0 even where grad is inf or NaN.
            if grads_batched():
                return (make_tensor(np.zeros_like((<Tensor>grads[0])._data,
                                                  dtype=base._data.dtype)),)
            return (make_tensor(np.zeros_like(base._data)),)
        if not needs_tensor_ops() and isinstance(grads[0], Tensor) and (
                exponent == 1 or exponent == 2):
            # Nothing records (no create_graph, no dual level): the two common exponents on
            # the arrays, with the formula's values (x ** 0 is 1 even at inf and NaN).
            if exponent == 1:
                return (grads[0],)
            base_array = base._data
            if base_array.dtype.kind == "c":
                base_array = base_array.conj()
            with ignoring_fp_errors():
                return (make_tensor((<Tensor>grads[0])._data * (base_array + base_array)),)
        return (mul(grads[0], conj_of(mul(pow(base, exponent - 1), exponent))),)


cdef object exponent_nonnegative(object exponent):
    """Where PyTorch defines the exponent's derivative at a zero base as 0: a real exponent
    ``>= 0`` (a complex one with no imaginary part); elsewhere ``result * log(0)`` stands,
    NaN or infinite as in PyTorch."""
    if exponent.dtype.kind == "c":
        return (exponent.imag == 0) & (exponent.real >= 0)
    return exponent >= 0


cdef class PowBackward1(ElementwiseNode):
    """``self ** exponent`` with a tensor exponent (for complex tensors each factor
    conjugated, NOTE [Complex gradients])."""
    saved_names = ("self", "exponent", "result")
    complex_formulas = True

    cpdef tuple apply(self, tuple grads):
        cdef Tensor base = unpack_saved(self, 0)
        cdef Tensor exponent = unpack_saved(self, 1)
        grad = grads[0]
        self_grad = exponent_grad = None
        if self.should_compute_output(0):
            # Zero where the exponent is 0, as PyTorch (0 ** -1 would make 0 * inf = NaN).
            self_grad = where(make_tensor(exponent._data == 0), 0.0,
                              mul(grad, conj_of(mul(exponent, pow(base, sub(exponent, 1))))))
        if self.should_compute_output(1):
            result = unpack_saved(self, 2)
            # 0 ** e has no log; PyTorch defines that derivative as 0 where e >= 0 (then
            # multiplied by grad: a NaN grad stays NaN). The log is taken in the result's
            # dtype.
            at_zero = (base._data == 0) & exponent_nonnegative(exponent._data)
            if base._data.dtype != (<Tensor>result)._data.dtype:
                base = base.to(result.dtype)
            exponent_grad = mul(grad, where(make_tensor(at_zero), 0.0,
                                            conj_of(mul(result, log(base)))))
        return (self_grad, exponent_grad)


cdef class PowBackward2(ElementwiseNode):
    """``number ** exponent`` (``2 ** x``)."""
    saved_names = ("exponent", "result")   # the exponent is saved as PyTorch saves it
    cdef readonly object saved_self       # the number base, not a tensor
    complex_formulas = True     # ``grad * conj(result * log(base))``

    cpdef tuple apply(self, tuple grads):
        cdef Tensor exponent = unpack_saved(self, 0)
        cdef Tensor result = unpack_saved(self, 1)
        cdef object log_base        # a Python float or complex, not a C complex
        base = self.saved_self
        with ignoring_fp_errors():
            if result._data.dtype.kind == "c":
                log_base = complex(np.log(np.complex128(base))).conjugate()
                result = conj_of(result)
            else:
                log_base = float(np.log(np.float64(base)))
        if base == 0:
            # 0 ** e has no log; PyTorch defines that derivative as 0 where e >= 0 (then
            # multiplied by grad: a NaN grad stays NaN).
            return (mul(grads[0], where(make_tensor(exponent_nonnegative(exponent._data)),
                                        0.0, mul(result, log_base))),)
        return (mul(grads[0], mul(result, log_base)),)


cdef object pow_tangent(self_t, exponent_t, self, exponent, Tensor result, tuple extra):
    """PowBackward0/1's formulas applied to the tangents (elementwise: NOTE [Forward AD]),
    each conjugated in and out: ``conj(J^H conj(t))`` is ``J t`` for the holomorphic power
    (NOTE [Complex tangents] in forward.pyx); nothing for real tensors."""
    cdef PowBackward0 node0
    if isinstance(exponent, Tensor):
        return conj_of(pointwise_tangent(PowBackward1(), (self, exponent, result),
                                         (conj_of(self_t), conj_of(exponent_t)), result))
    node0 = PowBackward0()
    node0.saved_exponent = exponent
    return conj_of(pointwise_tangent(node0, (self,), (conj_of(self_t),), result))


cdef object rpow_tangent(Tensor self_t, Tensor self, Tensor result, tuple extra):
    """``self_t * result * log(base)`` (PowBackward2's formula on the tangent, conjugated as
    pow's)."""
    cdef PowBackward2 node = PowBackward2()
    node.saved_self = extra[0]       # the base
    return conj_of(pointwise_tangent(node, (self, result), (conj_of(self_t),), result))


def pow(self, exponent):
    """``self ** exponent`` (tensor or number either side)."""
    cdef Tensor out
    cdef PowBackward0 node0
    if not isinstance(self, Tensor):
        return rpow(exponent, self)
    dtype = result_type(self, exponent)
    base_array = operand_array(self, dtype)
    if dtype.kind in "iu" and isinstance(exponent, int) and exponent < 0:
        raise RuntimeError("Integers to negative integer powers are not allowed.")
    if dtype.kind == "b" and isinstance(exponent, Tensor):
        raise NotImplementedError("\"pow\" not implemented for 'Bool'")
    array = None
    if kind_of(dtype) == "f" and not isinstance(exponent, Tensor):
        array = power_by_special_number(base_array, exponent)
    try:
        if array is None:
            exponent_array = operand_array(exponent, dtype)
            if dtype.kind in "iu" and isinstance(exponent, Tensor) and np.any(exponent_array < 0):
                array = integer_power(base_array, exponent_array)
            else:
                array = quietly2(np.power, base_array, exponent_array)
                if dtype.kind == "c":
                    array = complex_power_of_zero(array, base_array, exponent_array, exponent)
    except ValueError:
        raise_broadcast_error(self, exponent)
    out = wrap(array)
    if any_requires_grad2(self, exponent):
        if isinstance(exponent, Tensor):
            record2(PowBackward1(), self, exponent, out, (self, exponent, out))
        else:
            node0 = PowBackward0()
            node0.saved_exponent = exponent
            record1(node0, self, out, (self,))
    if forward_level():
        forward2(out, self, exponent, pow_tangent)
    return out


cdef object power_by_special_number(object base, object exponent):
    """``base ** exponent`` (a float array, a number) for the exponents PyTorch computes with
    other functions, or None: 2 is a square and 1 a copy (also NumPy's ``**``), 0.5 and -0.5
    are sqrt and rsqrt ((-inf) ** 0.5 is NaN, not C's inf, and (-0.) ** -0.5 is -inf)."""
    if exponent == 2:
        return quietly(np.square, base)
    if exponent == 1:
        return base.copy()
    if exponent == -0.5 and base.dtype == np.float16:
        # PyTorch's float16 kernel takes 1 / sqrt(x) in float32 and rounds once (bfloat16's
        # scalar loop rounds the root first, as below)
        root = quietly(np.sqrt, base.astype(np.float32))
        return quietly(np.reciprocal, root).astype(base.dtype)
    if exponent == 0.5 or exponent == -0.5:
        root = quietly(SQRT if exponent > 0 and base.dtype.itemsize >= 4 else np.sqrt, base)
        return quietly(np.reciprocal, root) if exponent < 0 else root
    if (exponent == 3 or exponent == -2) and base.dtype.kind == "V":
        # bfloat16 (NOTE [bfloat16's kind]): PyTorch's kernel computes x ** 3 as x * x * x and
        # x ** -2 as 1 / (x * x), each step rounded to bfloat16 (float16 rounds once);
        # ml_dtypes' ufuncs round each step the same way
        square = quietly2(np.multiply, base, base)
        return quietly2(np.multiply, square, base) if exponent == 3 else \
            quietly(np.reciprocal, square)
    return None


cdef object complex_power_of_zero(object array, object base, object exponent_array,
                                  object exponent):
    """``array`` (NumPy's complex ``base ** exponent``) with PyTorch's value where the base is
    zero: PyTorch's complex pow is ``exp(exponent * log(base))``, and log(0) = -inf makes
    it NaN for 0 ** 0 and inf + nan j for a negative real part, where NumPy special-cases
    zero (1, and NaN). The numbers PyTorch computes with other functions (0, 1/2, 1, 2, 3)
    give NumPy's values."""
    if not isinstance(exponent, Tensor) and exponent in (0, 0.5, 1, 2, 3):
        return array
    if not hasattr(base, "dtype"):         # a number base (rpow): every element's
        if base != 0:
            return array
        with ignoring_fp_errors():
            log_zero = complex(np.log(array.dtype.type(0)))
            return np.exp(exponent_array * log_zero).astype(array.dtype, copy=False)
    zero = base == 0
    if not np.any(zero):
        return array
    with ignoring_fp_errors():
        torch_like = np.exp(exponent_array * np.log(base))
    return np.where(zero, torch_like, array).astype(array.dtype, copy=False)


cdef object integer_power(object base, object exponent):
    """Integer powers with negative exponents as PyTorch: 1 and -1 keep theirs, others 0."""
    base, exponent = np.broadcast_arrays(base, exponent)
    negative = exponent < 0
    array = np.power(base, np.where(negative, 0, exponent))
    odd = (exponent % 2) != 0
    unit = np.where(base == 1, 1, np.where(base == -1, np.where(odd, -1, 1), 0))
    return np.where(negative, unit, array).astype(base.dtype)


def rpow(Tensor self, other):
    """``other ** self`` for a Python number ``other``."""
    cdef PowBackward2 node
    dtype = result_type(self, other)
    exponent = operand_array(self, dtype)
    if dtype.kind in "iu" and np.any(exponent < 0):
        array = integer_power(np.full_like(exponent, other, dtype=dtype), exponent)
    else:
        base = operand_array(other, dtype)
        array = quietly2(np.power, base, exponent)
        if dtype.kind == "c":
            array = complex_power_of_zero(array, base, exponent, self)
    if not array.flags.c_contiguous:        # PyTorch's Scalar ** Tensor is contiguous
        array = contiguous_array(array)
    cdef Tensor out = wrap(array)
    if is_grad_enabled() and requires_grad(self):
        node = PowBackward2()
        node.saved_self = other
        record1(node, self, out, (self, out))
    if forward_level():
        forward1(out, self, rpow_tangent, (other,))
    return out


def pow_(Tensor self, exponent):
    try:
        return apply_inplace(self, lambda x: pow(x, exponent), (exponent,), True)
    except ValueError:
        raise_broadcast_error(self, exponent)


# ------------------------------------------------------------------ roots and square

cdef class SqrtBackward0(SavesResult):
    complex_formulas = True     # NOTE [Complex gradients] in conjugate.pyx

    cpdef tuple apply(self, tuple grads):
        return (div(grads[0], mul(conj_of(unpack_saved(self, 0)), 2)),)


cdef object sqrt_tangent(Tensor self_t, Tensor self, Tensor result, tuple extra):
    return div(self_t, mul(result, 2))


sqrt = unary_op(
    "sqrt", SQRT, SqrtBackward0, sqrt_tangent, cuda_functor="Sqrt",
    gradient="self: g / (conj(r) * 2)", tangent_formula="self_t / (r * 2)",
    doc="Square root; backward ``grad / (2 * result)``.")


cdef class RsqrtBackward0(SavesResult):
    complex_formulas = True     # NOTE [Complex gradients] in conjugate.pyx

    cpdef tuple apply(self, tuple grads):
        # d/dx x^(-1/2) = -1/2 x^(-3/2) = -1/2 result^3
        return (mul(grads[0], mul(pow(conj_of(unpack_saved(self, 0)), 3), -0.5)),)


def _rsqrt_array(array):
    # An explicit buffer: NumPy would return a 0-dim result as a scalar, without ``out=``.
    result = np.sqrt(array, out=empty_result_like(array))
    if result.dtype.kind == "c":        # a complex zero's is inf + nan j, as reciprocal's
        return np.divide(result.dtype.type(1), result, out=result)
    return np.reciprocal(result, out=result)


cdef object rsqrt_tangent(Tensor self_t, Tensor self, Tensor result, tuple extra):
    return mul(self_t, mul(pow(result, 3), -0.5))


rsqrt = unary_op(
    "rsqrt", _rsqrt_array, RsqrtBackward0, rsqrt_tangent, cuda_functor="Rsqrt",
    gradient="self: g * (conj(r) ** 3 * -0.5)", tangent_formula="self_t * (r ** 3 * -0.5)",
    doc="``1 / sqrt(self)``; backward ``-0.5 * grad * result ** 3``.")


def square(Tensor self):
    """``self ** 2``; as in PyTorch it is ``pow(self, 2)`` (PowBackward0), ints stay ints."""
    return pow(self, 2)


def square_(Tensor self):
    """In-place :func:`square` (its node reads the old value: apply_inplace saves a copy)."""
    return apply_inplace(self, square, (), True)


cdef object pow_op(object self, object other):
    return pow(self, other)


cdef object rpow_op(object self, object other):
    return rpow(self, other)


cdef object ipow(object self, object other):
    return pow_(self, other)


cdef TensorOperators* operators = tensor_operators()
operators.pow = pow_op
operators.rpow = rpow_op
operators.ipow = ipow
# NOTE [Batched tangents]: the Pow nodes batch their gradients, so their formulas a tangent.
batch_binary(pow_tangent, True)
batch_unary(rpow_tangent)

export_unary_ops(globals())


# NOTE [Complex tangents] in forward.pyx: these formulas are checked for complex tensors.
from autograd_cy._C.forward cimport complex_unary, complex_binary
complex_binary(pow_tangent)
complex_unary(rpow_tangent)
complex_unary(sqrt_tangent)
complex_unary(rsqrt_tangent)
