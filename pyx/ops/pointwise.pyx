# cython: allow_none_for_extension_args=False
"""Pointwise ops of one tensor: exp, log, sqrt, rsqrt, reciprocal, sin, cos, tanh, sigmoid,
relu, abs, sign and their in-place forms (clamp, maximum, minimum, where: selection.pyx).

Each op computes its result with one array call, then, if grad mode is on and
its input requires grad, records its backward Node (defined right above it).
Formulas reuse the forward's result where PyTorch does: ``exp``, ``expm1``,
``sqrt``, ``rsqrt``, ``reciprocal``, ``tanh``, ``sigmoid`` and ``relu`` save their
output, not their input, so backward recomputes nothing. Formulas are written
with Tensor ops (mul, div, where ...), so ``create_graph=True`` differentiates
them again. The backwards of relu, tanh and sigmoid are themselves ops of the gradient
and the saved result (``threshold_backward``, ``tanh_backward``, ``sigmoid_backward`` in
activation_backward.pyx), as in PyTorch.

The in-place forms of the ops that save their result leave ``self`` saved in
place of the out-of-place result (apply_inplace does it for every in-place op),
so that modifying it again is caught by the version check.

Integer and bool inputs of floating functions compute in float32, as in PyTorch.
NumPy's floating-point warnings are silenced: ``log(0)`` is ``-inf`` without a
warning, as in PyTorch.
"""
import numpy as np

from autograd_cy._C.device cimport backend_of, empty_result_like

from autograd_cy._C.grad_mode cimport is_grad_enabled, forward_level, needs_tensor_ops
from autograd_cy._C.forward cimport forward1, forward2, batch_unary, batch_binary
from autograd_cy._C.tensor cimport (
    Tensor, make_tensor, requires_grad, register_methods, tensor_operators,
)
from autograd_cy._C.node cimport Node, unpack_saved
from autograd_cy._C.saved_tensor cimport SavedTensor, save
from autograd_cy._C.recording cimport record1, record2, any_requires_grad2
from autograd_cy._C.promotion cimport (
    wrap, floating, floating_result_type, operand_array, broadcast_failure, expect_tensor,
)
from autograd_cy._C.fp_errors cimport quietly, quietly2
from autograd_cy._C.kernels cimport (
    sigmoid_backward_kernel, tanh_backward_kernel, tanh_kernel, threshold_backward_kernel,
)
from autograd_cy._C.ops.arithmetic import mul, div, add, sub, neg
from autograd_cy._C.ops.activation_backward import (
    zeros_like_grad, threshold_backward, tanh_backward, sigmoid_backward,
)
from autograd_cy._C.ops.power import pow

__all__ = ["exp", "log", "log1p", "expm1", "sqrt", "rsqrt", "sin", "cos", "tanh", "sigmoid",
           "relu", "abs", "sign", "reciprocal", "square", "atan2", "arctan2"]
__tensor_methods__ = tuple(__all__)


# ------------------------------------------------------------------ node base

ctypedef object (*ResultKernel)(object grad, object result)


cdef class SavesResult(Node):
    """A backward that reads the forward's output, ``saved_tensors[0]`` (``_saved_result``)."""
    saved_names = ("result",)

    cdef object fused_backward(self, object grad, ResultKernel kernel):
        """``kernel(grad, result)`` as a Tensor when nothing is recorded (no create_graph)
        or differentiated forward (no dual level), and the kernel takes the arrays; None, and
        the caller runs its Tensor formula."""
        if needs_tensor_ops() or not isinstance(grad, Tensor):
            return None
        array = kernel((<Tensor>grad)._data,
                       (<SavedTensor>self.saved_tensors[0]).unpack_array(self))
        return None if array is None else make_tensor(array)


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


# ------------------------------------------------------------------ exp / log

cdef class ExpBackward0(SavesResult):
    batches_gradients = True     # NOTE [Batched gradients]
    cpdef tuple apply(self, tuple grads):
        return (mul(grads[0], unpack_saved(self, 0)),)


cdef object exp_tangent(Tensor self_t, Tensor self, Tensor result, tuple extra):
    """``self_t * result``."""
    return mul(self_t, result)


def exp(Tensor self):
    """``e ** self``; backward ``grad * result`` (the node saves the result, not ``self``).

    >>> x = ag.tensor([0.0, 1.0], requires_grad=True)
    >>> y = ag.exp(x)
    >>> y.grad_fn._saved_result is not None
    True
    >>> y.sum().backward()
    >>> x.grad
    tensor([1.0000, 2.7183])
    """
    out = wrap(quietly(np.exp, floating(self)))
    if is_grad_enabled() and requires_grad(self):
        record1(ExpBackward0(), self, out, (out,))
    if forward_level():
        forward1(out, self, exp_tangent)
    return out


cdef class Expm1Backward0(SavesResult):
    batches_gradients = True     # NOTE [Batched gradients]
    cpdef tuple apply(self, tuple grads):
        return (mul(grads[0], add(unpack_saved(self, 0), 1)),)


cdef object expm1_tangent(Tensor self_t, Tensor self, Tensor result, tuple extra):
    """``self_t * (result + 1)``."""
    return mul(self_t, add(result, 1))


def expm1(Tensor self):
    """``exp(self) - 1``, accurate near 0; backward ``grad * (result + 1)``."""
    out = wrap(quietly(np.expm1, floating(self)))
    if is_grad_enabled() and requires_grad(self):
        record1(Expm1Backward0(), self, out, (out,))
    if forward_level():
        forward1(out, self, expm1_tangent)
    return out


cdef class LogBackward0(Node):
    saved_names = ("self",)

    batches_gradients = True     # NOTE [Batched gradients]
    cpdef tuple apply(self, tuple grads):
        return (div(grads[0], unpack_saved(self, 0)),)


cdef object log_tangent(Tensor self_t, Tensor self, Tensor result, tuple extra):
    """``self_t / self``."""
    return div(self_t, self)


def log(Tensor self):
    """Natural logarithm (``-inf`` at 0, ``nan`` below); backward ``grad / self``."""
    out = wrap(quietly(np.log, floating(self)))
    if is_grad_enabled() and requires_grad(self):
        record1(LogBackward0(), self, out, (self,))
    if forward_level():
        forward1(out, self, log_tangent)
    return out


cdef class Log1PBackward0(Node):
    saved_names = ("self",)

    batches_gradients = True     # NOTE [Batched gradients]
    cpdef tuple apply(self, tuple grads):
        return (div(grads[0], add(unpack_saved(self, 0), 1)),)


cdef object log1p_tangent(Tensor self_t, Tensor self, Tensor result, tuple extra):
    """``self_t / (self + 1)``."""
    return div(self_t, add(self, 1))


def log1p(Tensor self):
    """``log(1 + self)``, accurate near 0; backward ``grad / (self + 1)``."""
    out = wrap(quietly(np.log1p, floating(self)))
    if is_grad_enabled() and requires_grad(self):
        record1(Log1PBackward0(), self, out, (self,))
    if forward_level():
        forward1(out, self, log1p_tangent)
    return out


# ------------------------------------------------------------------ powers and roots

cdef class SqrtBackward0(SavesResult):
    batches_gradients = True     # NOTE [Batched gradients]
    cpdef tuple apply(self, tuple grads):
        return (div(grads[0], mul(unpack_saved(self, 0), 2)),)


cdef object sqrt_tangent(Tensor self_t, Tensor self, Tensor result, tuple extra):
    """``self_t / (2 * result)``."""
    return div(self_t, mul(result, 2))


def sqrt(Tensor self):
    """Square root; backward ``grad / (2 * result)``."""
    out = wrap(quietly(np.sqrt, floating(self)))
    if is_grad_enabled() and requires_grad(self):
        record1(SqrtBackward0(), self, out, (out,))
    if forward_level():
        forward1(out, self, sqrt_tangent)
    return out


cdef class RsqrtBackward0(SavesResult):
    batches_gradients = True     # NOTE [Batched gradients]
    cpdef tuple apply(self, tuple grads):
        # d/dx x^(-1/2) = -1/2 x^(-3/2) = -1/2 result^3
        return (mul(grads[0], mul(pow(unpack_saved(self, 0), 3), -0.5)),)


def _rsqrt_array(array):
    # An explicit buffer: NumPy would return a 0-dim result as a scalar, without ``out=``.
    result = np.sqrt(array, out=empty_result_like(array))
    return np.reciprocal(result, out=result)


cdef object rsqrt_tangent(Tensor self_t, Tensor self, Tensor result, tuple extra):
    """``-0.5 * self_t * result ** 3``."""
    return mul(self_t, mul(pow(result, 3), -0.5))


def rsqrt(Tensor self):
    """``1 / sqrt(self)``; backward ``-0.5 * grad * result ** 3``."""
    out = wrap(quietly(_rsqrt_array, floating(self)))
    if is_grad_enabled() and requires_grad(self):
        record1(RsqrtBackward0(), self, out, (out,))
    if forward_level():
        forward1(out, self, rsqrt_tangent)
    return out


cdef class ReciprocalBackward0(SavesResult):
    batches_gradients = True     # NOTE [Batched gradients]
    cpdef tuple apply(self, tuple grads):
        result = unpack_saved(self, 0)
        return (mul(grads[0], neg(mul(result, result))),)


cdef object reciprocal_tangent(Tensor self_t, Tensor self, Tensor result, tuple extra):
    """``-self_t * result ** 2``."""
    return mul(self_t, neg(mul(result, result)))


def reciprocal(Tensor self):
    """``1 / self`` (integers give float32); backward ``-grad * result ** 2``."""
    out = wrap(quietly(np.reciprocal, floating(self)))
    if is_grad_enabled() and requires_grad(self):
        record1(ReciprocalBackward0(), self, out, (out,))
    if forward_level():
        forward1(out, self, reciprocal_tangent)
    return out


def square(Tensor self):
    """``self ** 2``; as in PyTorch it is ``pow(self, 2)`` (PowBackward0), ints stay ints."""
    return pow(self, 2)


# ------------------------------------------------------------------ trigonometric

cdef class SinBackward0(Node):
    saved_names = ("self",)

    batches_gradients = True     # NOTE [Batched gradients]
    cpdef tuple apply(self, tuple grads):
        return (mul(grads[0], cos(unpack_saved(self, 0))),)


cdef object sin_tangent(Tensor self_t, Tensor self, Tensor result, tuple extra):
    """``self_t * cos(self)``."""
    return mul(self_t, cos(self))


def sin(Tensor self):
    """Sine; backward ``grad * cos(self)``."""
    out = wrap(quietly(np.sin, floating(self)))
    if is_grad_enabled() and requires_grad(self):
        record1(SinBackward0(), self, out, (self,))
    if forward_level():
        forward1(out, self, sin_tangent)
    return out


cdef class CosBackward0(Node):
    saved_names = ("self",)

    batches_gradients = True     # NOTE [Batched gradients]
    cpdef tuple apply(self, tuple grads):
        return (mul(grads[0], neg(sin(unpack_saved(self, 0)))),)


cdef object cos_tangent(Tensor self_t, Tensor self, Tensor result, tuple extra):
    """``-self_t * sin(self)``."""
    return mul(self_t, neg(sin(self)))


def cos(Tensor self):
    """Cosine; backward ``-grad * sin(self)``."""
    out = wrap(quietly(np.cos, floating(self)))
    if is_grad_enabled() and requires_grad(self):
        record1(CosBackward0(), self, out, (self,))
    if forward_level():
        forward1(out, self, cos_tangent)
    return out


# ------------------------------------------------------------------ activations

cdef class TanhBackward0(SavesResult):
    batches_gradients = True     # NOTE [Batched gradients]
    cpdef tuple apply(self, tuple grads):
        grad = grads[0]
        fused = self.fused_backward(grad, tanh_backward_kernel)
        if fused is not None:
            return (fused,)
        # NOTE [Activation backwards are ops]: one op that create_graph records as such.
        return (tanh_backward(grad, unpack_saved(self, 0)),)


cdef object np_tanh = np.tanh


cdef object tanh_tangent(Tensor self_t, Tensor self, Tensor result, tuple extra):
    """``self_t * (1 - result ** 2)``: tanh's backward formula, fused alike."""
    return result_formula(self_t, result, tanh_backward_kernel, TanhBackward0)


def tanh(Tensor self):
    """Hyperbolic tangent; backward ``grad * (1 - result ** 2)``."""
    cdef object array = tanh_kernel(self._data)
    if array is None:
        array = quietly(np_tanh, floating(self))
    cdef Tensor out = wrap(array)
    cdef TanhBackward0 node
    if is_grad_enabled() and requires_grad(self):
        node = TanhBackward0.__new__(TanhBackward0)
        record1(node, self, out, (out,))
    if forward_level():
        forward1(out, self, tanh_tangent)
    return out


cdef class SigmoidBackward0(SavesResult):
    batches_gradients = True     # NOTE [Batched gradients]
    cpdef tuple apply(self, tuple grads):
        fused = self.fused_backward(grads[0], sigmoid_backward_kernel)
        if fused is not None:
            return (fused,)
        return (sigmoid_backward(grads[0], unpack_saved(self, 0)),)


def _sigmoid_array(array):
    # 1 / (1 + exp(-x)) in one buffer; exp overflows to inf for very negative x,
    # which correctly gives 0. A backend with the functor (CUDA) runs it in one launch.
    fused = backend_of(array).unary("Sigmoid", array)
    if fused is not None:
        return fused
    result = np.negative(array, out=empty_result_like(array))
    np.exp(result, out=result)
    result += 1
    return np.reciprocal(result, out=result)


cdef object sigmoid_tangent(Tensor self_t, Tensor self, Tensor result, tuple extra):
    """``self_t * result * (1 - result)``."""
    return result_formula(self_t, result, sigmoid_backward_kernel, SigmoidBackward0)


def sigmoid(Tensor self):
    """Logistic function ``1 / (1 + exp(-self))``; backward ``grad * result * (1 - result)``."""
    out = wrap(quietly(_sigmoid_array, floating(self)))
    if is_grad_enabled() and requires_grad(self):
        record1(SigmoidBackward0(), self, out, (out,))
    if forward_level():
        forward1(out, self, sigmoid_tangent)
    return out


cdef class ReluBackward0(SavesResult):
    batches_gradients = True     # NOTE [Batched gradients]
    cpdef tuple apply(self, tuple grads):
        grad = grads[0]
        fused = self.fused_backward(grad, threshold_backward_kernel)
        if fused is not None:
            return (fused,)
        # NOTE [relu's gradient depends on its result] in activation_backward.pyx
        return (threshold_backward(grad, unpack_saved(self, 0), 0),)


cdef object relu_tangent(Tensor self_t, Tensor self, Tensor result, tuple extra):
    """``self_t where result > 0, else 0``."""
    return threshold_backward(self_t, result, 0)


def relu(Tensor self):
    """``max(self, 0)``; keeps the dtype (integers stay integers)."""
    if self._data.dtype.kind == "b":
        raise RuntimeError("Boolean inputs not supported for relu")
    out = wrap(np.maximum(self._data, 0))
    if is_grad_enabled() and requires_grad(self):
        record1(ReluBackward0(), self, out, (out,))
    if forward_level():
        forward1(out, self, relu_tangent)
    return out


# ------------------------------------------------------------------ abs / sign

cdef class AbsBackward0(Node):
    saved_names = ("self",)

    batches_gradients = True     # NOTE [Batched gradients]
    cpdef tuple apply(self, tuple grads):
        return (mul(grads[0], sign(unpack_saved(self, 0))),)


cdef object abs_tangent(Tensor self_t, Tensor self, Tensor result, tuple extra):
    """``self_t * sign(self)``."""
    return mul(self_t, sign(self))


def abs(Tensor self):
    """``|self|``; integers stay integers; backward ``grad * sign(self)`` (0 at 0)."""
    if self._data.dtype.kind == "b":
        raise NotImplementedError("\"abs_cpu\" not implemented for 'Bool'")
    out = wrap(np.abs(self._data))
    if is_grad_enabled() and requires_grad(self):
        record1(AbsBackward0(), self, out, (self,))
    if forward_level():
        forward1(out, self, abs_tangent)
    return out


cdef class SignBackward0(Node):
    batches_gradients = True     # NOTE [Batched gradients]
    cpdef tuple apply(self, tuple grads):
        return (zeros_like_grad(grads[0]),)


cdef object sign_tangent(Tensor self_t, Tensor self, Tensor result, tuple extra):
    """``0``."""
    return zeros_like_grad(result)


def sign(Tensor self):
    """-1, 0 or 1 with the dtype of ``self`` (``sign(nan)`` is 0, as in PyTorch)."""
    cdef Tensor out
    array = self._data
    if array.dtype.kind == "b":
        out = wrap(array.copy())
    else:
        result = np.sign(array)
        if array.dtype.kind == "f":
            nans = np.isnan(result)
            if nans.any():
                result = np.where(nans, 0, result)
        out = wrap(result)
    if is_grad_enabled() and requires_grad(self):
        record1(SignBackward0(), self, out)
    if forward_level():
        forward1(out, self, sign_tangent)
    return out


# ------------------------------------------------------------------ atan2

cdef class Atan2Backward0(Node):
    """d atan2(y, x) = (x dy - y dx) / (x^2 + y^2)."""
    saved_names = ("self", "other")

    batches_gradients = True     # NOTE [Batched gradients]
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


cdef object abs_op(object self):
    return abs(self)


tensor_operators().abs = abs_op


# NOTE [Batched tangents]: these formulas are elementwise in the tangent (sign's is not: it
# makes zeros of the result's shape).
batch_unary(exp_tangent)
batch_unary(expm1_tangent)
batch_unary(log_tangent)
batch_unary(log1p_tangent)
batch_unary(sqrt_tangent)
batch_unary(rsqrt_tangent)
batch_unary(reciprocal_tangent)
batch_unary(sin_tangent)
batch_unary(cos_tangent)
batch_unary(tanh_tangent)
batch_unary(sigmoid_tangent)
batch_unary(relu_tangent)
batch_unary(abs_tangent)
batch_binary(atan2_tangent, True)

register_methods({name: globals()[name] for name in __tensor_methods__})
