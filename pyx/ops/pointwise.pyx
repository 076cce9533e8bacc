"""Pointwise ops of one tensor: exp, exp2, expm1, log, log2, log10, log1p, sin, cos, tanh,
sigmoid, relu, abs, sign, sgn, angle and their in-place forms (none for angle), and atan2
and polar (sqrt, rsqrt, square: power.pyx; reciprocal: arithmetic.pyx; clamp, maximum,
minimum, where: selection.pyx; erf, erfc, erfinv: special.pyx).

Each op is an entry of the op table (NOTE [The op table] in op_table.pyx): its backward Node
(whose base, SavesSelf or SavesResult, says what it saves) and its tangent formula, then one
``unary_op(...)`` that names its array forward, its CUDA functor and its formulas as
docs/derivatives.md prints them. The entry makes the function, the in-place form (``exp_``)
and the Tensor methods.

Formulas reuse the forward's result where PyTorch does: ``exp``, ``expm1``, ``tanh``,
``sigmoid`` and ``relu`` save their output, not their input, so backward recomputes nothing,
and their in-place forms need no copy of the old value. Formulas are written with Tensor ops
(mul, div, where ...), so ``create_graph=True`` differentiates them again. The backwards of
relu, tanh and sigmoid are themselves ops of the gradient and the saved result
(``threshold_backward``, ``tanh_backward``, ``sigmoid_backward`` in activation_backward.pyx),
as in PyTorch.

Integer and bool inputs of floating functions compute in float32, as in PyTorch.
NumPy's floating-point warnings are silenced: ``log(0)`` is ``-inf`` without a
warning, as in PyTorch.
"""
import numpy as np

from autograd_cy._C.dtype cimport kind_of
from autograd_cy._C.fp_errors cimport ignoring_fp_errors
from autograd_cy._C.device cimport backend_of
from autograd_cy._C.kernels cimport relu_kernel
from autograd_cy._C.dtype cimport scalar_name

from autograd_cy._C.grad_mode cimport is_grad_enabled, forward_level
from autograd_cy._C.forward cimport forward2, batch_binary, pointwise_tangent
from autograd_cy._C.tensor cimport (
    Tensor, array_module, make_tensor, requires_grad, tensor_operators,
)
from autograd_cy._C.node cimport unpack_saved
from autograd_cy._C.saved_tensor cimport save
from autograd_cy._C.recording cimport record2, any_requires_grad2
from autograd_cy._C.promotion cimport (
    wrap, floating_result_type, operand_array, broadcast_failure, expect_tensor, is_complex_array,
)
from autograd_cy._C.fp_errors cimport quietly2
from autograd_cy._C.fp_errors import positive_nan
from autograd_cy._C.kernels cimport (
    sigmoid_backward_kernel, tanh_backward_kernel, tanh_kernel, threshold_backward_kernel,
)
from autograd_cy._C.ops.op_table cimport (
    ResultKernel, SavesSelf, SavesResult, SavesSelfAndResult, ElementwiseNode, unary_op,
    set_fast_forward,
)
from autograd_cy._C.ops.op_table import export_unary_ops
from autograd_cy._C.ops.conjugate cimport conj_of, check_parts
from autograd_cy._C.ops.conjugate import imag, real, complex
from autograd_cy._C.ops.comparison import eq
from autograd_cy._C.ops.selection import where
from autograd_cy._C.ops.activation_kernels cimport sigmoid_of
from autograd_cy._C.ops.arithmetic import mul, div, add, sub, neg, zeros_like_grad
from autograd_cy._C.ops.activation_backward import (
    threshold_backward, tanh_backward, sigmoid_backward,
)

__all__ = ["atan2", "arctan2", "polar"]
__tensor_methods__ = ("atan2", "arctan2")


cdef double LN2 = 0.69314718055994530942
cdef double LN10 = 2.30258509299404568402


# ------------------------------------------------------------------ exp / log

cdef class ExpBackward0(SavesResult):
    complex_formulas = True     # NOTE [Complex gradients] in conjugate.pyx

    cpdef tuple apply(self, tuple grads):
        return (mul(grads[0], conj_of(unpack_saved(self, 0))),)


cdef object exp_tangent(Tensor self_t, Tensor self, Tensor result, tuple extra):
    return mul(self_t, result)


exp = unary_op(
    "exp", np.exp, ExpBackward0, exp_tangent, cuda_functor="Exp",
    gradient="self: g * conj(r)", tangent_formula="self_t * r",
    doc="""``e ** self``; backward ``grad * result`` (the node saves the result, not ``self``).

    >>> x = ag.tensor([0.0, 1.0], requires_grad=True)
    >>> y = ag.exp(x)
    >>> y.grad_fn._saved_result is not None
    True
    >>> y.sum().backward()
    >>> x.grad
    tensor([1.0000, 2.7183])
    """)


cdef class Expm1Backward0(SavesResult):
    complex_formulas = True     # NOTE [Complex gradients] in conjugate.pyx

    cpdef tuple apply(self, tuple grads):
        return (mul(grads[0], add(conj_of(unpack_saved(self, 0)), 1)),)


cdef object expm1_tangent(Tensor self_t, Tensor self, Tensor result, tuple extra):
    return mul(self_t, add(result, 1))


expm1 = unary_op(
    "expm1", np.expm1, Expm1Backward0, expm1_tangent, cuda_functor="Expm1",
    gradient="self: g * (conj(r) + 1)", tangent_formula="self_t * (r + 1)",
    doc="``exp(self) - 1``, accurate near 0; backward ``grad * (result + 1)``.")


cdef class Exp2Backward0(SavesResult):
    complex_formulas = True     # NOTE [Complex gradients] in conjugate.pyx

    cpdef tuple apply(self, tuple grads):
        return (mul(grads[0], mul(conj_of(unpack_saved(self, 0)), LN2)),)


cdef object exp2_tangent(Tensor self_t, Tensor self, Tensor result, tuple extra):
    return mul(self_t, mul(result, LN2))


exp2 = unary_op(
    "exp2", np.exp2, Exp2Backward0, exp2_tangent, cuda_functor="Exp2",
    gradient="result: g * conj(r) * ln 2", tangent_formula="self_t * r * ln 2",
    doc="``2 ** self``; backward ``grad * result * ln 2`` (the node saves the result).")


cdef class LogBackward0(SavesSelf):
    complex_formulas = True     # NOTE [Complex gradients] in conjugate.pyx

    cpdef tuple apply(self, tuple grads):
        return (div(grads[0], conj_of(unpack_saved(self, 0))),)


cdef object log_tangent(Tensor self_t, Tensor self, Tensor result, tuple extra):
    return div(self_t, self)


log = unary_op(
    "log", positive_nan(np.log), LogBackward0, log_tangent, cuda_functor="Log",
    gradient="self: g / conj(self)", tangent_formula="self_t / self",
    doc="Natural logarithm (``-inf`` at 0, ``nan`` below); backward ``grad / self``.")


cdef class Log2Backward0(SavesSelf):
    complex_formulas = True     # NOTE [Complex gradients] in conjugate.pyx

    cpdef tuple apply(self, tuple grads):
        return (div(grads[0], mul(conj_of(unpack_saved(self, 0)), LN2)),)


cdef object log2_tangent(Tensor self_t, Tensor self, Tensor result, tuple extra):
    return div(self_t, mul(self, LN2))


log2 = unary_op(
    "log2", positive_nan(np.log2), Log2Backward0, log2_tangent, cuda_functor="Log2",
    gradient="self: g / (conj(self) * ln 2)", tangent_formula="self_t / (self * ln 2)",
    doc="Base-2 logarithm; backward ``grad / (self * ln 2)``.")


cdef class Log10Backward0(SavesSelf):
    complex_formulas = True     # NOTE [Complex gradients] in conjugate.pyx

    cpdef tuple apply(self, tuple grads):
        return (div(grads[0], mul(conj_of(unpack_saved(self, 0)), LN10)),)


cdef object log10_tangent(Tensor self_t, Tensor self, Tensor result, tuple extra):
    return div(self_t, mul(self, LN10))


log10 = unary_op(
    "log10", positive_nan(np.log10), Log10Backward0, log10_tangent, cuda_functor="Log10",
    gradient="self: g / (conj(self) * ln 10)", tangent_formula="self_t / (self * ln 10)",
    doc="Base-10 logarithm; backward ``grad / (self * ln 10)``.")


cdef class Log1PBackward0(SavesSelf):
    complex_formulas = True     # NOTE [Complex gradients] in conjugate.pyx

    cpdef tuple apply(self, tuple grads):
        return (div(grads[0], add(conj_of(unpack_saved(self, 0)), 1)),)


cdef object log1p_tangent(Tensor self_t, Tensor self, Tensor result, tuple extra):
    return div(self_t, add(self, 1))


LOG1P_64 = positive_nan(np.log1p, every=True)


def _log1p_array(array):
    """``log(1 + x)``; for a complex ``x`` as torch's CPU kernel computes it: with ``u = 1 + x``,
    ``x`` where ``u`` is 1, ``log(u)`` where ``u - 1`` is ``x`` exactly, else ``log(u) * (x /
    (u - 1))`` (the rounding of ``1 + x`` undone). NumPy's complex log1p rounds otherwise and
    gives ``inf`` where torch's gives NaN for an infinite part with a NaN."""
    if array.dtype.kind != "c":
        # float64's NaN of x < -1 is positive, float32's not (NOTE [The sign of a NaN])
        return LOG1P_64(array) if array.dtype == np.float64 else np.log1p(array)
    one = array.dtype.type(1)
    with ignoring_fp_errors():
        u = np.add(array, one, out=np.empty_like(array))    # an array also for a 0-d x
        u.imag = array.imag     # 1 + x keeps the sign of a zero imaginary part (log's branch)
        log_u = np.log(u)
        u_minus_one = u - one
        return np.where(u == one, array,
                        np.where(u_minus_one == array, log_u, log_u * (array / u_minus_one)))


log1p = unary_op(
    "log1p", _log1p_array, Log1PBackward0, log1p_tangent, cuda_functor="Log1p",
    gradient="self: g / (conj(self) + 1)", tangent_formula="self_t / (self + 1)",
    doc="``log(1 + self)``, accurate near 0; backward ``grad / (self + 1)``.")


# ------------------------------------------------------------------ trigonometric

cdef class SinBackward0(SavesSelf):
    complex_formulas = True     # NOTE [Complex gradients] in conjugate.pyx

    cpdef tuple apply(self, tuple grads):
        return (mul(grads[0], cos(conj_of(unpack_saved(self, 0)))),)


cdef object sin_tangent(Tensor self_t, Tensor self, Tensor result, tuple extra):
    return mul(self_t, cos(self))


sin = unary_op(
    "sin", np.sin, SinBackward0, sin_tangent, cuda_functor="Sin",
    gradient="self: g * cos(conj(self))", tangent_formula="self_t * cos(self)",
    doc="Sine; backward ``grad * cos(self)``.")


cdef class CosBackward0(SavesSelf):
    complex_formulas = True     # NOTE [Complex gradients] in conjugate.pyx

    cpdef tuple apply(self, tuple grads):
        return (mul(grads[0], neg(sin(conj_of(unpack_saved(self, 0))))),)


cdef object cos_tangent(Tensor self_t, Tensor self, Tensor result, tuple extra):
    return mul(self_t, neg(sin(self)))


cos = unary_op(
    "cos", np.cos, CosBackward0, cos_tangent, cuda_functor="Cos",
    gradient="self: g * -sin(conj(self))", tangent_formula="self_t * -sin(self)",
    doc="Cosine; backward ``-grad * sin(self)``.")


# ------------------------------------------------------------------ activations

cdef object result_formula(Tensor self_t, Tensor result, ResultKernel kernel, type node_type):
    """A tangent formula that is its op's backward formula applied to the tangent
    (``self_t * f'`` with ``f'`` read from the result): the fused kernel when nothing is
    recorded, else the node's Tensor formula."""
    cdef SavesResult node
    if not (is_grad_enabled() and (requires_grad(self_t) or requires_grad(result))):
        array = kernel(self_t._data, result._data)
        if array is not None:
            return make_tensor(array)
    node = node_type()
    node.saved_tensors = (save(result, False),)
    return node.apply((self_t,))[0]


cdef class TanhBackward0(SavesResult):
    complex_formulas = True     # tanh_backward conjugates (NOTE [Complex gradients])

    cpdef tuple apply(self, tuple grads):
        grad = grads[0]
        fused = self.fused_backward(grad, tanh_backward_kernel)
        if fused is not None:
            return (fused,)
        # NOTE [Activation backwards are ops]: one op that create_graph records as such.
        return (tanh_backward(grad, unpack_saved(self, 0)),)


cdef object tanh_tangent(Tensor self_t, Tensor self, Tensor result, tuple extra):
    """tanh's backward formula, fused alike; ``self_t * (1 - r ** 2)``, unconjugated, for a
    complex tensor (NOTE [Complex tangents] in forward.pyx)."""
    if is_complex_array(result._data):
        return mul(self_t, add(neg(mul(result, result)), 1))
    return result_formula(self_t, result, tanh_backward_kernel, TanhBackward0)


tanh = unary_op(
    "tanh", np.tanh, TanhBackward0, tanh_tangent, cuda_functor="Tanh",
    gradient="self: tanh_backward(g, r) (5)",
    tangent_formula="tanh_backward(self_t, r) (one fused kernel when nothing records)",
    doc="Hyperbolic tangent; backward ``grad * (1 - result ** 2)``.")
set_fast_forward(tanh, tanh_kernel)     # a fused loop for small arrays (kernels.pyx)


cdef class SigmoidBackward0(SavesResult):
    complex_formulas = True     # sigmoid_backward conjugates (NOTE [Complex gradients])

    cpdef tuple apply(self, tuple grads):
        fused = self.fused_backward(grads[0], sigmoid_backward_kernel)
        if fused is not None:
            return (fused,)
        return (sigmoid_backward(grads[0], unpack_saved(self, 0)),)


def _sigmoid_array(array):
    # One launch of the functor on a backend that has it (CUDA), else NumPy's passes.
    fused = backend_of(array).unary("Sigmoid", array)
    return sigmoid_of(array) if fused is None else fused


cdef object sigmoid_tangent(Tensor self_t, Tensor self, Tensor result, tuple extra):
    """sigmoid's backward formula, fused alike; ``self_t * r * (1 - r)``, unconjugated, for
    a complex tensor (NOTE [Complex tangents] in forward.pyx)."""
    if is_complex_array(result._data):
        return mul(self_t, mul(result, add(neg(result), 1)))
    return result_formula(self_t, result, sigmoid_backward_kernel, SigmoidBackward0)


sigmoid = unary_op(
    "sigmoid", _sigmoid_array, SigmoidBackward0, sigmoid_tangent,
    cuda_functor="Sigmoid", gradient="self: sigmoid_backward(g, r) (5)",
    tangent_formula="sigmoid_backward(self_t, r) (one fused kernel when nothing records)",
    doc="Logistic function ``1 / (1 + exp(-self))``; backward "
        "``grad * result * (1 - result)``.")


cdef class ReluBackward0(SavesResult):
    cpdef tuple apply(self, tuple grads):
        grad = grads[0]
        fused = self.fused_backward(grad, threshold_backward_kernel)
        if fused is not None:
            return (fused,)
        # NOTE [relu's gradient depends on its result] in activation_backward.pyx
        return (threshold_backward(grad, unpack_saved(self, 0), 0),)


cdef object relu_tangent(Tensor self_t, Tensor self, Tensor result, tuple extra):
    return threshold_backward(self_t, result, 0)


def _relu_array(array):
    result = relu_kernel(array)
    if result is not None:
        return result
    if array.dtype.kind == "b":
        raise RuntimeError("Boolean inputs not supported for relu")
    # x unless x < 0: -0.0 stays -0.0 (NOTE [Ties keep the first operand] in selection.pyx),
    # written into NumPy's result, which keeps the input's memory order as PyTorch's does
    result = np.maximum(array, 0)
    if type(array) is not np.ndarray:
        return result       # a CUDA array: its kernel decides the tie itself
    result = np.asarray(result)
    np.copyto(result, array, where=array == 0)
    return result


relu = unary_op(
    "relu", _relu_array, ReluBackward0, relu_tangent, cuda_functor="Relu",
    floating=False, batched_tangent=True,
    complex_error="clamp is not supported for complex types",
    gradient="self: threshold_backward(g, r, 0) (1)",
    tangent_formula="threshold_backward(self_t, r, 0)",
    doc="``max(self, 0)``; keeps the dtype (integers stay integers).")


# ------------------------------------------------------------------ abs / sign

cdef class AbsBackward0(SavesSelf):
    """``grad * sign(self)``; for a complex ``self``, ``grad * sgn(self)`` (``self /
    |self|``, 0 at 0): dL/dx + i dL/dy of |self| (NOTE [Complex gradients])."""
    complex_formulas = True

    cpdef tuple apply(self, tuple grads):
        x = unpack_saved(self, 0)
        return (mul(grads[0], sgn(x) if is_complex_array((<Tensor>x)._data) else sign(x)),)


cdef object abs_tangent(Tensor self_t, Tensor self, Tensor result, tuple extra):
    """``self_t * sign(self)``; for a complex ``self``, ``Re(conj(self_t) * sgn(self))``:
    |z| moves with the part of dz along z (NOTE [Complex tangents] in forward.pyx)."""
    if is_complex_array(self._data):
        return real(mul(conj_of(self_t), sgn(self)))
    return mul(self_t, sign(self))


def _abs_array(array):
    if array.dtype.kind == "b":
        raise NotImplementedError("\"abs_cpu\" not implemented for 'Bool'")
    return np.abs(array)


abs = unary_op(
    "abs", _abs_array, AbsBackward0, abs_tangent, cuda_functor="Abs",
    floating=False, batched_tangent=True, complex_error=None, has_inplace=True,
    inplace_complex_error="In-place abs is not supported for complex tensors.",
    gradient="self: g * sign(self) (2); g * sgn(self) (complex)",
    tangent_formula="self_t * sign(self); Re(conj(self_t) * sgn(self)) (complex)",
    doc="``|self|``; integers stay integers; backward ``grad * sign(self)`` (0 at 0).")


cdef class SignBackward0(ElementwiseNode):
    cpdef tuple apply(self, tuple grads):
        return (zeros_like_grad(grads[0]),)


cdef object sign_tangent(Tensor self_t, Tensor self, Tensor result, tuple extra):
    return zeros_like_grad(result)


def _sign_array(array):
    if array.dtype.kind == "b":
        return array.copy()
    if array.dtype.kind == "c":
        # torch's sgn: self / |self|, 0 at 0, so that an infinite part gives NaN (inf / inf)
        # where NumPy's complex sign gives a unit number
        with ignoring_fp_errors():
            magnitude = np.abs(array)
            return np.where(magnitude == 0, 0, array / magnitude).astype(array.dtype)
    result = np.sign(array)
    if kind_of(array.dtype) == "f":
        nans = np.isnan(result)
        if nans.any():
            result = np.where(nans, 0, result)
    return result


# sign's tangent makes zeros of the result's shape: not right on a batch of tangents.
sign = unary_op(
    "sign", _sign_array, SignBackward0, sign_tangent, cuda_functor="Sign",
    floating=False, batched_tangent=False, gradient="self: zeros_like(g)",
    tangent_formula="zeros",
    complex_error="Unlike NumPy, torch.sign is not intended to support complex numbers. "
                  "Please use torch.sgn instead.",
    doc="-1, 0 or 1 with the dtype of ``self`` (``sign(nan)`` is 0, as in PyTorch).")


cdef class SgnBackward0(SavesSelfAndResult):
    """Zero for a real ``self`` (sign's); for a complex one, ``s = self / |self|`` moves only
    with the phase: ``i * s * Im(grad * conj(s)) / |self|``, 0 at 0 (from the two real
    derivatives, NOTE [Complex gradients])."""
    complex_formulas = True

    cpdef tuple apply(self, tuple grads):
        grad = grads[0]
        cdef Tensor x = unpack_saved(self, 0)
        if not is_complex_array(x._data):
            return (zeros_like_grad(grad),)
        s = unpack_saved(self, 1)
        cdef Tensor magnitude = abs(x)
        # |self| where it is not 0; 1 where it is (there s is 0, and so is the whole term)
        safe = add(magnitude, make_tensor((x._data == 0).astype(magnitude._data.dtype)))
        return (div(mul(mul(s, imag(mul(grad, conj_of(s)))), 1j), safe),)


cdef object sgn_tangent(Tensor self_t, Tensor self, Tensor result, tuple extra):
    """Zeros for a real ``self``; for a complex one SgnBackward0's formula on the tangent,
    ``i s Im(conj(s) self_t) / |self|``: that real-linear map is its own adjoint."""
    if not is_complex_array(self._data):
        return sign_tangent(self_t, self, result, extra)
    return pointwise_tangent(SgnBackward0(), (self, result), (self_t,), result)


sgn = unary_op(
    "sgn", _sign_array, SgnBackward0, sgn_tangent, cuda_functor=None, floating=False,
    batched_tangent=False,
    gradient="self: 0 (real); i s Im(g conj(s)) / abs(self) (complex, s = sgn(self))",
    tangent_formula="zeros (real); i s Im(conj(s) self_t) / abs(self) (complex)",
    doc="sign for a real tensor; ``self / |self|`` (0 at 0) for a complex one.")


# ------------------------------------------------------------------ angle

cdef class AngleBackward0(SavesSelf):
    """Zero for a real ``self`` (its angle is 0 or pi); for a complex one, the angle turns
    with the imaginary part of ``dz / z``: ``grad * i z / |z|^2``, 0 at 0 (from the two
    real derivatives, NOTE [Complex gradients])."""
    complex_formulas = True

    cpdef tuple apply(self, tuple grads):
        grad = grads[0]
        cdef Tensor x = unpack_saved(self, 0)
        if not is_complex_array(x._data):
            return (zeros_like_grad(grad),)
        magnitude = abs(x)
        turn = mul(div(mul(grad, x), mul(magnitude, magnitude)), 1j)
        return (where(eq(x, 0), 0, turn),)


cdef object angle_tangent(Tensor self_t, Tensor self, Tensor result, tuple extra):
    """Zeros for a real ``self``; ``Im(self_t conj(self)) / |self|^2`` for a complex one."""
    if not is_complex_array(self._data):
        return zeros_like_grad(self_t)
    magnitude = abs(self)
    turn = div(imag(mul(self_t, conj_of(self))), mul(magnitude, magnitude))
    return where(eq(self, 0), 0, turn)


def _angle_array(array):
    if array.dtype.kind == "c":
        return np.angle(array)
    # A real number's angle: pi below 0, else 0 (-0.0 too, and inf); NaN stays NaN.
    return np.where(array < 0, np.pi, np.where(np.isnan(array), array, 0)).astype(array.dtype)


angle = unary_op(
    "angle", _angle_array, AngleBackward0, angle_tangent, cuda_functor=None, floating=True,
    batched_tangent=True, complex_error=None, has_inplace=False,
    gradient="self: 0 (real); g * i * self / abs(self)^2, 0 at 0 (complex)",
    tangent_formula="0 (real); Im(self_t * conj(self)) / abs(self)^2 (complex)",
    doc="The argument of each complex number, a real tensor; 0 or pi for real numbers.")


# ------------------------------------------------------------------ atan2

cdef class Atan2Backward0(ElementwiseNode):
    """d atan2(y, x) = (x dy - y dx) / (x^2 + y^2)."""
    saved_names = ("self", "other")

    cpdef tuple apply(self, tuple grads):
        y, x = unpack_saved(self, 0), unpack_saved(self, 1)
        scale = div(grads[0], add(mul(x, x), mul(y, y)))
        return (mul(scale, x) if self.should_compute_output(0) else None,
                mul(scale, neg(y)) if self.should_compute_output(1) else None)


cdef object atan2_tangent(self_t, other_t, self, other, Tensor result, tuple extra):
    """``(other * self_t - self * other_t) / (self ** 2 + other ** 2)``."""
    term = None if self_t is None else mul(other, self_t)
    if other_t is not None:
        term = neg(mul(self, other_t)) if term is None else sub(term, mul(self, other_t))
    return div(term, add(mul(self, self), mul(other, other)))


def atan2(self, other):
    """The angle of the point ``(other, self)``, elementwise (integers give float32)."""
    expect_tensor(self, "atan2", "input", 1)
    expect_tensor(other, "atan2", "other", 2)
    dtype = floating_result_type(self, other)
    if dtype.kind == "c":
        raise NotImplementedError(f"\"atan2_cpu\" not implemented for '{scalar_name(dtype)}'")
    try:
        array = quietly2(np.arctan2, operand_array(self, dtype), operand_array(other, dtype))
    except ValueError:
        error = broadcast_failure(self, other)
        if error is None:
            raise
        raise error from None
    cdef Tensor out = wrap(array)
    if any_requires_grad2(self, other):
        record2(Atan2Backward0(), self, other, out, (self, other))
    if forward_level():
        forward2(out, self, other, atan2_tangent)
    return out


arctan2 = atan2


# ------------------------------------------------------------------ polar

cdef class PolarBackward0(ElementwiseNode):
    """``result = abs * e^(i angle)``. The real inputs take the real parts of their complex
    derivatives times ``conj(grad)``: ``sgn(result)`` for ``abs``, ``i * result`` for
    ``angle`` (as PyTorch writes it, ``sgn(result)`` is ``-e^(i angle)`` where ``abs < 0``)."""
    saved_names = ("result",)
    complex_formulas = True

    cpdef tuple apply(self, tuple grads):
        grad = conj_of(grads[0])
        result = unpack_saved(self, 0)
        return (real(mul(grad, sgn(result))) if self.should_compute_output(0) else None,
                real(mul(grad, mul(result, 1j))) if self.should_compute_output(1) else None)


cdef object polar_tangent(abs_t, angle_t, abs, angle, Tensor result, tuple extra):
    """``abs_t * e^(i angle) + angle_t * i * result``, written in real and imaginary parts."""
    cosine, sine = cos(angle), sin(angle)
    re = im = None
    if abs_t is not None:
        re, im = mul(abs_t, cosine), mul(abs_t, sine)
    if angle_t is not None:
        rate = mul(angle_t, abs)
        re = neg(mul(rate, sine)) if re is None else sub(re, mul(rate, sine))
        im = mul(rate, cosine) if im is None else add(im, mul(rate, cosine))
    return complex(re, im)


def polar(Tensor abs, Tensor angle):
    """The complex numbers of modulus ``abs`` and argument ``angle``: ``abs * cos(angle) +
    i abs * sin(angle)``, broadcast; float gives complex64, double complex128."""
    a, b = abs._data, angle._data
    check_parts(a, b)
    if a.dtype == np.float16:
        raise NotImplementedError("\"polar_cpu\" not implemented for 'Half'")
    try:
        shape = np.broadcast_shapes(a.shape, b.shape)
    except ValueError:
        error = broadcast_failure(abs, angle)
        if error is None:
            raise
        raise error from None
    array = array_module(a).empty(shape, dtype=np.complex64 if a.dtype == np.float32
                                  else np.complex128)     # on the parts' device
    array.real = a * np.cos(b)
    array.imag = a * np.sin(b)
    cdef Tensor out = make_tensor(array)
    if any_requires_grad2(abs, angle):
        record2(PolarBackward0.__new__(PolarBackward0), abs, angle, out, (out,))
    if forward_level():
        forward2(out, abs, angle, polar_tangent)
    return out


cdef object abs_op(object self):
    return abs(self)        # builtin abs(tensor): the op above


tensor_operators().abs = abs_op


batch_binary(atan2_tangent, True)     # NOTE [Batched tangents]
batch_binary(polar_tangent, True)

export_unary_ops(globals())
absolute = abs              # torch's alias (the same op, AbsBackward0)
absolute_ = globals()["abs_"]   # made by export_unary_ops
__all__ += ["absolute", "absolute_"]
__tensor_methods__ += ("absolute", "absolute_")


# NOTE [Complex tangents] in forward.pyx: these formulas are checked for complex tensors.
from autograd_cy._C.forward cimport complex_unary, complex_binary
complex_binary(polar_tangent)
complex_unary(exp_tangent)
complex_unary(expm1_tangent)
complex_unary(log_tangent)
complex_unary(log2_tangent)
complex_unary(log1p_tangent)
complex_unary(sin_tangent)
complex_unary(cos_tangent)
complex_unary(tanh_tangent)
complex_unary(sigmoid_tangent)
complex_unary(abs_tangent)
complex_unary(sgn_tangent)
complex_unary(angle_tangent)
