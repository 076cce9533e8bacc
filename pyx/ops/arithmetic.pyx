# cython: allow_none_for_extension_args=False
"""Arithmetic: add, sub, rsub, mul, div, neg, with their backward and
tangent formulas (pow, sqrt, rsqrt, square are in power.pyx; the in-place forms in
arithmetic_inplace.pyx), and reciprocal, an entry of the op table (NOTE [The op table] in
op_table.pyx) that rdiv (``2 / x``) is built on.

Each op computes its result with the array module, then, if grad mode is on
and an operand requires grad, records its backward Node, which sits right
below it. Backward formulas are written with these same ops, so under
``create_graph=True`` they record a graph of their own (double backward).
Broadcasting needs no code in the formulas: the engine sums each gradient back
to its input's shape (``sum_to``).

A Python-number operand that a backward reads (``x * 2``) is saved as PyTorch saves it, as a
0-dim "wrapped number" tensor: it reads back as a tensor and, like any saved tensor, is freed
after backward, so ``(x * 2).sum()`` cannot be backpropagated twice.
"""
import numpy as np
cimport numpy as cnp

from autograd_cy._C.dtype cimport kind_of, half_precision
from autograd_cy._C.device cimport as_array, backend_of, laid_out_as_pointwise
from autograd_cy._C.dtype cimport scalar_name
from autograd_cy._C.grad_mode cimport is_grad_enabled, forward_level, needs_tensor_ops
from autograd_cy._C.tensor cimport (
    Tensor, make_tensor, requires_grad, tensor_operators, TensorOperators,
    array_module,
)
from autograd_cy._C.node cimport Node, unpack_saved
from autograd_cy._C.ops.op_table cimport (
    ElementwiseNode, SavesResult, unary_op,
)
from autograd_cy._C.ops.op_table import export_unary_ops
from autograd_cy._C.recording cimport (
    record, record1, record2, any_requires_grad2, gets_gradient,
)
from autograd_cy._C.promotion cimport (
    result_type, floating_result_type, operand_array, wrap, raise_broadcast_error,
    opmath_operand, rounded,
)
from autograd_cy._C.fp_errors cimport quietly2, ignoring_fp_errors
from autograd_cy._C.ops.conjugate cimport conj_of
from autograd_cy._C.kernels cimport binary_kernel, scalar_kernel, KERNEL_ADD, KERNEL_SUB, KERNEL_MUL
from autograd_cy._C.ops.out_arguments cimport write_out
from autograd_cy._C.forward cimport (
    forward1, forward2, no_forward_formula, array_copy, batch_unary, batch_binary,
)

cnp.import_array()

__all__ = ["add", "sub", "rsub", "mul", "div", "true_divide", "rdiv", "floor_divide", "neg",
           "negative"]
__tensor_methods__ = ("add", "sub", "mul", "div", "true_divide", "floor_divide", "neg",
                      "negative")


# ------------------------------------------------------------------ tangents
#
# Each op's tangent formula (NOTE [Forward AD] in forward.pyx) sits below its backward Node.
# A term whose input has no tangent (None) is skipped. A tangent is always a tensor of its
# own: an in-place op updates tangents in place, so two tensors never share one.

cdef object sole_tangent(object t, Tensor result):
    """``t`` (the one input tangent a formula passes on unchanged) as a new tensor of
    ``result``'s shape (a plain copy, unless broadcast or recorded: then ``t + 0``)."""
    array = (<Tensor>t)._data
    if not (is_grad_enabled() and requires_grad(<Tensor>t)):
        if type(array) is cnp.ndarray and type(result._data) is cnp.ndarray:
            if cnp.PyArray_SAMESHAPE(<cnp.ndarray>array, <cnp.ndarray>result._data):
                return make_tensor(array_copy(<cnp.ndarray>array))
        elif array.shape == result._data.shape:
            return make_tensor(array.copy())
    return add_impl(t, make_tensor(array_module(array).zeros(result._data.shape, array.dtype)),
                    ONE)


cdef object scaled_tangent(object t, object alpha, Tensor result):
    """``alpha * t`` as a new tensor of ``result``'s shape."""
    return sole_tangent(t, result) if alpha == 1 else mul_impl(sole_tangent(t, result), alpha)


# ------------------------------------------------------------------ add / sub

cdef class AddBackward0(ElementwiseNode):
    cdef readonly object saved_alpha
    complex_formulas = True     # NOTE [Complex gradients] in conjugate.pyx

    cpdef tuple apply(self, tuple grads):
        grad = grads[0]
        other_grad = None
        if self.should_compute_output(1):
            other_grad = (grad if self.saved_alpha == 1
                          else mul_impl(grad, conj_of(self.saved_alpha)))
        return (grad if self.should_compute_output(0) else None, other_grad)


cdef object add_tangent(self_t, other_t, self, other, Tensor result, tuple extra):
    """``self_t + alpha * other_t``."""
    alpha = extra[0]
    if other_t is None:
        return sole_tangent(self_t, result)
    if self_t is None:
        return scaled_tangent(other_t, alpha, result)
    return add_impl(self_t, other_t, alpha)


def add(self, other, *, alpha=1, out=None):
    """``self + alpha * other``, broadcasting, with PyTorch's type promotion."""
    if out is not None:
        return write_out("add", out, (self, other), lambda: add_impl(self, other, alpha))
    return add_impl(self, other, alpha)


cdef inline object operand_data(object value):
    """An operand's array (a tensor's), or the number itself: what decides a result's
    layout (NOTE [The layout of a result of several operands] in device.pyx)."""
    return (<Tensor>value)._data if isinstance(value, Tensor) else value


cdef object add_impl(object self, object other, object alpha):
    cdef object array = None
    cdef bint unit = alpha == 1
    if unit and isinstance(self, Tensor):
        array = fused(KERNEL_ADD, <Tensor>self, other)
    if array is None:
        dtype = result_type(self, other)
        if type(alpha) is not int:
            check_alpha(dtype, alpha)
        a = opmath_operand(self, other, dtype, True)
        b = opmath_operand(other, self, dtype, True)
        try:
            with ignoring_fp_errors():      # float32 overflow is inf, without a warning
                array = rounded(a + b if unit and dtype.kind != "c" else alpha_combination(
                    a, b, alpha, dtype, False), dtype)
        except ValueError:
            raise_broadcast_error(self, other)
        array = laid_out_as_pointwise(array, operand_data(self), operand_data(other))
    cdef Tensor out = wrap(array)
    cdef AddBackward0 node
    if any_requires_grad2(self, other):
        node = AddBackward0.__new__(AddBackward0)
        node.saved_alpha = alpha
        record2(node, self, other, out)
    if forward_level():
        forward2(out, self, other, add_tangent, (alpha,))
    return out


cdef object alpha_combination(object a, object b, object alpha, object dtype, bint subtract):
    """``a + alpha * b`` (``a - alpha * b``). For float16 and bfloat16 (whose operands come
    in float32 on the CPU, ``opmath_operand``) ``alpha`` is rounded to the dtype first, as
    PyTorch's CPU kernels do (NOTE [Half-precision products and reductions] in
    reduction.pyx). Complex tensors multiply ``b`` by the complex ``alpha`` (``-alpha``)
    even when it is 1, as PyTorch's kernel does: an infinite part of ``b`` then makes the
    other part NaN (``(1 + 0j) * (inf + 0j)`` is ``inf + nan j``), as in PyTorch."""
    if dtype.kind == "c":
        return a + b * dtype.type(-alpha if subtract else alpha)
    if half_precision(dtype) and (type(a) is NDARRAY or type(b) is NDARRAY):    # on the CPU
        alpha = np.asarray(alpha, dtype).item()
    return a - alpha * b if subtract else a + alpha * b


cdef object add_op(object self, object other):
    """``self + other`` for Tensor.__add__ (installed in tensor.pyx's fast table)."""
    return add_impl(self, other, ONE)


cdef object FLOAT32 = np.dtype(np.float32)
cdef type NDARRAY = np.ndarray
cdef object ONE = 1


cdef void check_alpha(object dtype, object alpha) except *:
    if not isinstance(alpha, (int, float, complex, np.number)):
        raise TypeError(f"add(): argument 'alpha' must be Number, not {type(alpha).__name__}")
    if dtype.kind in "biu" and isinstance(alpha, (float, np.floating)):
        raise RuntimeError("For integral input tensors, argument alpha must not be a floating "
                           "point number.")
    if dtype.kind != "c" and isinstance(alpha, (complex, np.complexfloating)):
        raise RuntimeError("For non-complex input tensors, argument alpha must not be a "
                           "complex number.")


cdef inline object fused(int op, Tensor self, object other):
    """The result array from a fused loop (NOTE [Fused kernels] in kernels.pyx) when
    ``other`` is a same-shape Tensor or a Python float and the arrays are small float32 or
    float64; else None, and the caller runs NumPy."""
    if isinstance(other, Tensor):
        return binary_kernel(op, self._data, (<Tensor>other)._data)
    if type(other) is float:
        return scalar_kernel(op, self._data, <double>other)
    return None


cdef inline bint is_bool(object value):
    return (isinstance(value, bool) or isinstance(value, Tensor)
            and (<Tensor>value)._data.dtype.kind == "b")


cdef void check_bool_subtraction(object a, object b) except *:
    """PyTorch refuses a bool operand of subtraction (a bool tensor or a Python bool)."""
    cdef bint a_bool = is_bool(a), b_bool = is_bool(b)
    if a_bool and b_bool:
        raise RuntimeError("Subtraction, the `-` operator, with two bool tensors is not "
                           "supported. Use the `^` or `logical_xor()` operator instead.")
    if a_bool or b_bool:
        raise RuntimeError("Subtraction, the `-` operator, with a bool tensor is not supported. "
                           "If you are trying to invert a mask, use the `~` or "
                           "`logical_not()` operator instead.")


cdef class SubBackward0(ElementwiseNode):
    cdef readonly object saved_alpha
    complex_formulas = True

    cpdef tuple apply(self, tuple grads):
        grad = grads[0]
        other_grad = None
        if self.should_compute_output(1):
            other_grad = (neg(grad) if self.saved_alpha == 1
                          else mul(grad, -conj_of(self.saved_alpha)))
        return (grad if self.should_compute_output(0) else None, other_grad)


cdef object sub_tangent(self_t, other_t, self, other, Tensor result, tuple extra):
    """``self_t - alpha * other_t``."""
    alpha = extra[0]
    if other_t is None:
        return sole_tangent(self_t, result)
    if self_t is None:
        return scaled_tangent(other_t, -alpha, result)
    return sub_impl(self_t, other_t, alpha)


def sub(self, other, *, alpha=1, out=None):
    """``self - alpha * other``."""
    if out is not None:
        return write_out("sub", out, (self, other), lambda: sub_impl(self, other, alpha))
    return sub_impl(self, other, alpha)


cdef object sub_impl(object self, object other, object alpha):
    cdef object array = None
    cdef bint unit = alpha == 1
    if unit and isinstance(self, Tensor):
        # Float operands only, so never the bool case refused below.
        array = fused(KERNEL_SUB, <Tensor>self, other)
    if array is None:
        dtype = result_type(self, other)
        check_bool_subtraction(self, other)
        if type(alpha) is not int:
            check_alpha(dtype, alpha)
        a = opmath_operand(self, other, dtype, True)
        b = opmath_operand(other, self, dtype, True)
        try:
            with ignoring_fp_errors():
                array = rounded(a - b if unit and dtype.kind != "c" else alpha_combination(
                    a, b, alpha, dtype, True), dtype)
        except ValueError:
            raise_broadcast_error(self, other)
        array = laid_out_as_pointwise(array, operand_data(self), operand_data(other))
    cdef Tensor out = wrap(array)
    cdef SubBackward0 node
    if any_requires_grad2(self, other):
        node = SubBackward0.__new__(SubBackward0)
        node.saved_alpha = alpha
        record2(node, self, other, out)
    if forward_level():
        forward2(out, self, other, sub_tangent, (alpha,))
    return out


cdef object sub_op(object self, object other):
    return sub_impl(self, other, ONE)


cdef class RsubBackward0(ElementwiseNode):
    """``other - alpha * self`` of two tensors (``rsub(x, y)``)."""
    cdef readonly object saved_alpha
    complex_formulas = True

    cpdef tuple apply(self, tuple grads):
        grad = grads[0]
        self_grad = None
        if self.should_compute_output(0):
            self_grad = (neg(grad) if self.saved_alpha == 1
                         else mul(grad, -conj_of(self.saved_alpha)))
        return (self_grad, grad if self.should_compute_output(1) else None)


cdef class RsubBackward1(ElementwiseNode):
    """``other - alpha * self`` with a number ``other`` (``2 - x``): one input."""
    cdef readonly object saved_alpha
    complex_formulas = True

    cpdef tuple apply(self, tuple grads):
        grad = grads[0]
        return (neg(grad) if self.saved_alpha == 1
                else mul(grad, -conj_of(self.saved_alpha)),)


cdef object rsub_tangent(self_t, other_t, self, other, Tensor result, tuple extra):
    """``other_t - alpha * self_t``."""
    return sub_tangent(other_t, self_t, other, self, result, extra)


def rsub(Tensor self, other, *, alpha=1):
    """``other - alpha * self`` (``2 - x``). PyTorch records RsubBackward0 when ``other`` is a
    tensor and RsubBackward1 when it is a number (the number is no input of the node)."""
    dtype = result_type(self, other)
    check_bool_subtraction(self, other)
    cdef bint unit = alpha == 1
    if type(alpha) is not int:
        check_alpha(dtype, alpha)
    try:
        with ignoring_fp_errors():      # 1e300 - float32 is -inf, without a cast warning
            a = opmath_operand(self, other, dtype, True)
            b = opmath_operand(other, self, dtype, True)
            array = rounded(b - a if unit else alpha_combination(b, a, alpha, dtype, True), dtype)
    except ValueError:
        raise_broadcast_error(self, other)
    cdef Tensor out = wrap(array)
    cdef RsubBackward0 node0
    cdef RsubBackward1 node1
    if isinstance(other, Tensor):
        if any_requires_grad2(self, other):
            node0 = RsubBackward0.__new__(RsubBackward0)
            node0.saved_alpha = alpha
            record2(node0, self, other, out)
    elif is_grad_enabled() and requires_grad(self):
        node1 = RsubBackward1.__new__(RsubBackward1)
        node1.saved_alpha = alpha
        record1(node1, self, out)
    if forward_level():
        forward2(out, self, other, rsub_tangent, (alpha,))
    return out


# ------------------------------------------------------------------ mul / div

cdef inline object array_of(object operand):
    return None if operand is None else (<Tensor>operand)._data


cdef tuple fused_pair(str formula, Node node, Tensor grad, object a, object b):
    """The gradients ``node`` needs of a binary op, from its saved operands unpacked as ``a``
    (self) and ``b`` (other), by one call of the gradient's backend (one CUDA launch: NOTE
    [Fused formulas on CUDA] in device.pyx), when nothing is recorded and the operands are
    tensors; else None (the Tensor formulas, on the same unpacked operands: a saved
    tensor's unpack hook runs once per use). An operand the needed formulas do not read may
    be None (not saved)."""
    if needs_tensor_ops():
        return None
    cdef bint need_a = node.should_compute_output(0), need_b = node.should_compute_output(1)
    if ((a is not None and not isinstance(a, Tensor))
            or (b is not None and not isinstance(b, Tensor))
            or not isinstance(b if need_a else a, Tensor)):     # a formula needs it
        return None
    pair = backend_of(grad._data).fused_pair(formula, grad._data, array_of(a), array_of(b),
                                             need_a, need_b)
    if pair is None:
        return None
    grad_a, grad_b = pair
    return (None if grad_a is None else make_tensor(grad_a),
            None if grad_b is None else make_tensor(grad_b))


cdef class MulBackward0(ElementwiseNode):
    """``grad * conj(other)`` and ``grad * conj(self)`` (NOTE [Complex gradients]). Saved
    as torch's, ``other`` first: pack hooks see the factors in torch's order."""
    saved_names = ("other", "self")
    complex_formulas = True

    cpdef tuple apply(self, tuple grads):
        grad = grads[0]
        self_grad = other_grad = None
        if self.should_compute_output(0) and self.should_compute_output(1):
            other, operand = conj_of(unpack_saved(self, 0)), conj_of(unpack_saved(self, 1))
            pair = fused_pair("mul_backward", self, <Tensor>grad, operand, other)
            if pair is not None:
                return pair
            return (mul_impl(grad, other), mul_impl(grad, operand))
        if self.should_compute_output(0):
            self_grad = mul_impl(grad, conj_of(unpack_saved(self, 0)))
        if self.should_compute_output(1):
            other_grad = mul_impl(grad, conj_of(unpack_saved(self, 1)))
        return (self_grad, other_grad)


cdef object mul_tangent(self_t, other_t, self, other, Tensor result, tuple extra):
    """``self_t * other + self * other_t``."""
    term = None if self_t is None else mul_impl(self_t, other)
    if other_t is None:
        return term
    other_term = mul_impl(other_t, self)
    return other_term if term is None else add_impl(term, other_term, ONE)


def mul(self, other, *, out=None):
    """Elementwise product."""
    if out is not None:
        return write_out("mul", out, (self, other), lambda: mul_impl(self, other))
    return mul_impl(self, other)


cdef object mul_impl(object self, object other):
    cdef object array = None
    if isinstance(self, Tensor):
        array = fused(KERNEL_MUL, <Tensor>self, other)
    if array is None:
        dtype = result_type(self, other)
        try:
            with ignoring_fp_errors():
                array = rounded(opmath_operand(self, other, dtype, False)
                                * opmath_operand(other, self, dtype, False), dtype)
        except ValueError:
            raise_broadcast_error(self, other)
        array = laid_out_as_pointwise(array, operand_data(self), operand_data(other))
    cdef Tensor out = wrap(array)
    cdef MulBackward0 node
    if any_requires_grad2(self, other):
        node = MulBackward0.__new__(MulBackward0)
        # Each side's gradient reads the other operand: save each only if that gradient is needed.
        record2(node, self, other, out,
                (other if gets_gradient(self) else None,
                 self if gets_gradient(other) else None))
    if forward_level():
        forward2(out, self, other, mul_tangent)
    return out


cdef class DivBackward0(ElementwiseNode):
    """``grad / conj(other)`` and ``-grad * (conj(self) / conj(other)) / conj(other)``.
    Saved as torch's, ``other`` first."""
    saved_names = ("other", "self")
    complex_formulas = True

    cpdef tuple apply(self, tuple grads):
        grad = grads[0]
        self_grad = other_grad = operand = None
        other = conj_of(unpack_saved(self, 0))
        if self.should_compute_output(1):
            operand = conj_of(unpack_saved(self, 1))
            pair = fused_pair("div_backward", self, <Tensor>grad, operand, other)
            if pair is not None:
                return pair
        if self.should_compute_output(0):
            self_grad = div(grad, other)
        if self.should_compute_output(1):
            # d(a/b)/db = -a / b^2, in PyTorch's order -grad * ((a / b) / b): in float16 and
            # bfloat16 every step rounds, and another order lands an ulp away
            other_grad = mul(neg(grad), div(div(operand, other), other))
        return (self_grad, other_grad)


cdef object div_tangent(self_t, other_t, self, other, Tensor result, tuple extra):
    """``(self_t - result * other_t) / other``."""
    if other_t is None:
        return div(self_t, other)
    numerator = neg(mul_impl(result, other_t)) if self_t is None else sub_impl(
        self_t, mul_impl(result, other_t), ONE)
    return div(numerator, other)


cdef object complex_division_by_zero(object array, object a, object b):
    """``array`` (NumPy's complex ``a / b``) with PyTorch's value where ``b`` is 0: its
    complex division divides each part by the zero, ``(a.real / 0) + (a.imag / 0) j``
    (``1 / 0j`` is ``inf + nan j``; NumPy gives ``inf + nan j`` for any nonzero ``a``)."""
    if type(array) is not np.ndarray:
        return array        # the CUDA kernel divides each part so (NOTE [Complex division])
    zero = b == 0
    if not np.any(zero):
        return array
    a = np.broadcast_to(a, array.shape)
    with ignoring_fp_errors():
        parts = np.empty_like(array)
        parts.real = a.real / 0.0
        parts.imag = a.imag / 0.0
    return np.where(zero, parts, array)


def div(self, other, *, rounding_mode=None, out=None):
    """True division (integers give float32); ``rounding_mode`` 'trunc' or 'floor'."""
    if out is not None:
        return write_out("div", out, (self, other),
                         lambda: div(self, other, rounding_mode=rounding_mode))
    if rounding_mode is not None:
        return _rounded_div(self, other, rounding_mode)
    dtype = floating_result_type(self, other)
    try:
        a = opmath_operand(self, other, dtype, False)
        b = opmath_operand(other, self, dtype, False)
        array = rounded(quietly2(np.true_divide, a, b), dtype)
        if dtype.kind == "c":
            array = complex_division_by_zero(array, a, b)
    except ValueError:
        raise_broadcast_error(self, other)
    cdef Tensor result = wrap(laid_out_as_pointwise(array, operand_data(self),
                                                    operand_data(other)))
    if any_requires_grad2(self, other):
        # Both gradients read the divisor; only the divisor's reads the dividend.
        record2(DivBackward0(), self, other, result,
                (other, self if gets_gradient(other) else None))
    if forward_level():
        forward2(result, self, other, div_tangent)
    return result


true_divide = div


def zeros_like_grad(Tensor grad):
    """A gradient of zeros (ops whose derivative is zero almost everywhere)."""
    return make_tensor(np.zeros_like(grad._data))


cdef class DivBackward2(ElementwiseNode):
    """Division with a rounding mode: the gradient is zero almost everywhere."""

    cpdef tuple apply(self, tuple grads):
        cdef list result = []
        for i in range(len(self.next_nodes)):
            result.append(zeros_like_grad(grads[0]) if self.should_compute_output(i) else None)
        return tuple(result)


cdef object zero_tangent(self_t, other_t, self, other, Tensor result, tuple extra):
    """An op whose derivative is zero almost everywhere: a zero tangent."""
    return make_tensor(array_module(result._data).zeros_like(result._data))


def _rounded_div(self, other, rounding_mode):
    """``div(self, other, rounding_mode=...)``, recorded as DivBackward2."""
    if rounding_mode not in ("trunc", "floor"):
        raise RuntimeError("div expected rounding_mode to be one of None, 'trunc', or 'floor' "
                           f"but found '{rounding_mode}'")
    cdef Tensor out = rounded_quotient(self, other, rounding_mode)
    if kind_of(out._data.dtype) == "f" and any_requires_grad2(self, other):
        record2(DivBackward2(), self, other, out)
    if forward_level():
        forward2(out, self, other, zero_tangent)
    return out


cdef Tensor rounded_quotient(object self, object other, str rounding_mode):
    """The rounded quotient as a new tensor (nothing recorded).

    NOTE [Floor division of floats]
    PyTorch's 'floor' mode on floats is Python's ``a // b`` (``np.floor_divide``): the
    quotient is computed from ``fmod``, so ``1 // 0.1`` is 9 (0.1 is a little more than
    1/10) where ``floor(1 / 0.1)`` is 10, ``inf // 2`` is nan and ``-3 // inf`` is -1.
    'trunc' is ``trunc(a / b)``. Integers divide exactly, and refuse a zero divisor.
    """
    dtype = result_type(self, other)
    if dtype.kind == "b" or dtype.kind == "c":
        raise NotImplementedError(f"\"div_{rounding_mode}_cpu\" not implemented for "
                                  f"'{scalar_name(dtype)}'")
    a, b = operand_array(self, dtype), operand_array(other, dtype)
    if kind_of(dtype) != "f" and not np.all(b):
        raise RuntimeError("ZeroDivisionError")
    try:
        with ignoring_fp_errors():
            if rounding_mode == "floor":
                array = np.floor_divide(a, b)
            elif kind_of(dtype) == "f":
                array = np.trunc(np.true_divide(a, b))
            else:           # a - fmod(a, b) is a multiple of b: exact, even past 2 ** 53
                array = np.floor_divide(a - np.fmod(a, b), b)
    except ValueError:
        raise_broadcast_error(self, other)
    return wrap(as_array(array, dtype))


cdef class NotImplemented(ElementwiseNode):
    """The node PyTorch records for an op that has no derivative formula (``floor_divide``,
    ``x // y``): the forward records it, and a backward that reaches it raises."""
    cdef readonly str op_name

    cpdef tuple apply(self, tuple grads):
        raise RuntimeError(f"derivative for {self.op_name} is not implemented")


def floor_divide(self, other, *, out=None):
    """``self // other``: ``div(self, other, rounding_mode='floor')`` without a derivative
    (PyTorch records a NotImplemented node, whose backward raises)."""
    if out is not None:
        return write_out("floor_divide", out, (self, other),
                         lambda: floor_divide(self, other))
    if forward_level():
        no_forward_formula("aten::floor_divide", (self, other), ".")
    cdef Tensor result = rounded_quotient(self, other, "floor")
    cdef NotImplemented node
    if any_requires_grad2(self, other):
        node = NotImplemented.__new__(NotImplemented)
        node.op_name = "aten::floor_divide"
        # Only the operands that require grad are its inputs.
        record(node, tuple(x for x in (self, other) if is_tensor_requiring_grad(x)),
               (result,))
    return result


cdef object add_terms(object term, object other_term):
    """``term + other_term`` where either may be None (an operand without a tangent)."""
    if term is None:
        return other_term
    return term if other_term is None else add(term, other_term)


# ------------------------------------------------------------------ reciprocal, rdiv

cdef class ReciprocalBackward0(SavesResult):
    complex_formulas = True

    cpdef tuple apply(self, tuple grads):
        result = conj_of(unpack_saved(self, 0))
        return (mul(grads[0], neg(mul(result, result))),)


cdef object reciprocal_tangent(Tensor self_t, Tensor self, Tensor result, tuple extra):
    return mul(self_t, neg(mul(result, result)))


def _reciprocal_array(array):
    """``1 / array``. A complex zero's reciprocal is ``inf + nan j`` as PyTorch's complex
    division gives it (NumPy's reciprocal loop gives ``nan + nan j``, its division inf)."""
    if array.dtype.kind == "c":
        return np.divide(array.dtype.type(1), array)
    return np.reciprocal(array)


reciprocal = unary_op(
    "reciprocal", _reciprocal_array, ReciprocalBackward0, reciprocal_tangent,
    cuda_functor="Reciprocal", gradient="self: g * -conj(r * r)",
    tangent_formula="self_t * -(r * r)",
    doc="``1 / self`` (integers give float32); backward ``-grad * result ** 2``.")


def rdiv(self, other):
    """``other / self`` for a Python number ``other``: ``reciprocal(self) * other``, as
    PyTorch computes it (so ``self`` itself is not saved, only its reciprocal)."""
    return mul_impl(reciprocal(self), other)


cdef class NegBackward0(ElementwiseNode):
    complex_formulas = True

    cpdef tuple apply(self, tuple grads):
        return (neg(grads[0]),)


cdef object neg_tangent(Tensor self_t, Tensor self, Tensor result, tuple extra):
    """``-self_t``."""
    return neg(self_t)


def neg(Tensor self):
    """``-self``."""
    if self._data.dtype.kind == "b":
        raise RuntimeError("Negation, the `-` operator, on a bool tensor is not supported. If "
                           "you are trying to invert a mask, use the `~` or `logical_not()` "
                           "operator instead.")
    cdef Tensor out = wrap(-self._data)
    if is_grad_enabled() and requires_grad(self):
        record1(NegBackward0(), self, out)
    if forward_level():
        forward1(out, self, neg_tangent)
    return out


negative = neg


# The Tensor operators (NOTE [How Tensor gets its methods] in tensor.pyx).

cdef object rsub_op(object self, object other):
    return rsub(self, other)


cdef object div_op(object self, object other):
    return div(self, other)


cdef object rdiv_op(object self, object other):
    return rdiv(self, other)


cdef object floordiv_op(object self, object other):
    return floor_divide(self, other)


cdef object rfloordiv_op(object self, object other):
    return floor_divide(other, self)


cdef object neg_op(object self):
    return neg(self)


cdef TensorOperators* operators = tensor_operators()
operators.add = add_op
operators.sub = sub_op
operators.rsub = rsub_op
operators.mul = mul_impl
operators.div = div_op
operators.rdiv = rdiv_op
operators.floordiv = floordiv_op
operators.rfloordiv = rfloordiv_op
operators.neg = neg_op
# NOTE [Batched tangents] in forward.pyx: these formulas are elementwise in the tangent.
batch_binary(add_tangent, True)
batch_binary(sub_tangent, True)
batch_binary(rsub_tangent, True)
batch_binary(mul_tangent, True)
batch_binary(div_tangent, True)
batch_unary(neg_tangent)
export_unary_ops(globals())


# NOTE [Complex tangents] in forward.pyx: these formulas are checked for complex tensors.
from autograd_cy._C.forward cimport complex_unary, complex_binary
complex_binary(add_tangent)
complex_binary(sub_tangent)
complex_binary(rsub_tangent)
complex_binary(mul_tangent)
complex_binary(div_tangent)
complex_unary(reciprocal_tangent)
complex_unary(neg_tangent)
