"""Pointwise ops: exp, log, sqrt, sin, tanh, sigmoid, relu, abs, clamp, maximum, where ...

Each op computes its result with one array call, then, if grad mode is on and
its input requires grad, records its backward Node (defined right above it).
Formulas reuse the forward's result where PyTorch does: ``exp``, ``expm1``,
``sqrt``, ``rsqrt``, ``reciprocal``, ``tanh``, ``sigmoid`` and ``relu`` save their
output, not their input, so backward recomputes nothing. Formulas are written
with Tensor ops (mul, div, where ...), so ``create_graph=True`` differentiates
them again. Masks (``x >= min`` in clamp's backward) are plain boolean arrays:
they carry no gradient, exactly as in PyTorch.

Integer and bool inputs of floating functions compute in float32, as in PyTorch.
NumPy's floating-point warnings are silenced: ``log(0)`` is ``-inf`` without a
warning, as in PyTorch.
"""
import numpy as np

from autograd_cy._C.grad_mode cimport is_grad_enabled
from autograd_cy._C.tensor cimport (
    Tensor, make_tensor, requires_grad, register_methods, tensor_operators, TensorOperators,
)
from autograd_cy._C.node cimport Node
from autograd_cy._C.saved_tensor cimport SavedTensor, save
from autograd_cy._C.recording cimport set_history1, set_history2, set_history, any_requires_grad2
from autograd_cy._C.promotion cimport (
    wrap, result_type, operand_array, result_type_of, floating, broadcasting, expect_tensor,
)
from autograd_cy._C.fp_errors cimport quietly
from autograd_cy._C.kernels cimport tanh_backward_kernel, tanh_kernel, threshold_backward_kernel
from autograd_cy._C.views cimport apply_inplace
from autograd_cy._C.ops.arithmetic import mul, div, add, sub, neg, pow

__all__ = ["exp", "log", "log1p", "expm1", "sqrt", "rsqrt", "sin", "cos", "tanh", "sigmoid",
           "relu", "abs", "sign", "reciprocal", "square", "clamp", "clip", "maximum",
           "minimum", "where",
           "exp_", "log_", "log1p_", "expm1_", "sqrt_", "rsqrt_", "sin_", "cos_", "tanh_",
           "sigmoid_", "relu_", "abs_", "sign_", "reciprocal_", "square_", "clamp_", "clip_"]
__tensor_methods__ = tuple(name for name in __all__ if name != "where")


# ------------------------------------------------------------------ helpers

def zeros_like_grad(Tensor grad):
    """A gradient of zeros (ops whose derivative is zero almost everywhere)."""
    return make_tensor(np.zeros_like(grad._data))


cdef object BOOL = np.dtype(np.bool_)
cdef object INT64 = np.dtype(np.int64)
cdef object FLOAT32 = np.dtype(np.float32)


cdef inline object mask(object array):
    """A boolean array as a Tensor that needs no gradient (the condition of ``where``)."""
    return make_tensor(array)


# ------------------------------------------------------------------ node bases

ctypedef object (*ResultKernel)(object grad, object result)


cdef class SavesResult(Node):
    """A backward that reads the forward's output (``_saved_result``)."""
    cdef readonly SavedTensor saved_result

    cdef object fused_backward(self, object grad, ResultKernel kernel):
        """``kernel(grad, result)`` as a Tensor when nothing is recorded (no create_graph)
        and the kernel takes the arrays; None, and the caller runs its Tensor formula."""
        if is_grad_enabled() or not isinstance(grad, Tensor):
            return None
        array = kernel((<Tensor>grad)._data, self.saved_result.unpack_array(self))
        return None if array is None else make_tensor(array)

    cdef void release_variables(self):
        self.saved_result.release()


cdef class SavesSelf(Node):
    """A backward that reads the forward's input (``_saved_self``)."""
    cdef readonly SavedTensor saved_self

    cdef void release_variables(self):
        self.saved_self.release()


cdef void record_result(SavesResult node, Tensor self, Tensor out) except *:
    """Make ``node`` the grad_fn of ``out = op(self)`` and save ``out`` in it."""
    set_history1(node, self, out)
    node.saved_result = save(out, True)


cdef void record_self(SavesSelf node, Tensor self, Tensor out) except *:
    """Make ``node`` the grad_fn of ``out = op(self)`` and save ``self`` in it."""
    node.saved_self = save(self, False)
    set_history1(node, self, out)


# ------------------------------------------------------------------ exp / log

cdef class ExpBackward0(SavesResult):
    cpdef tuple apply(self, tuple grads):
        return (mul(grads[0], self.saved_result.unpack(self)),)


def exp(Tensor self):
    """``e ** self``; backward ``grad * result``."""
    out = wrap(quietly(np.exp, floating(self)))
    if is_grad_enabled() and requires_grad(self):
        record_result(ExpBackward0(), self, out)
    return out


cdef class Expm1Backward0(SavesResult):
    cpdef tuple apply(self, tuple grads):
        return (mul(grads[0], add(self.saved_result.unpack(self), 1)),)


def expm1(Tensor self):
    """``exp(self) - 1``, accurate near 0; backward ``grad * (result + 1)``."""
    out = wrap(quietly(np.expm1, floating(self)))
    if is_grad_enabled() and requires_grad(self):
        record_result(Expm1Backward0(), self, out)
    return out


cdef class LogBackward0(SavesSelf):
    cpdef tuple apply(self, tuple grads):
        return (div(grads[0], self.saved_self.unpack(self)),)


def log(Tensor self):
    """Natural logarithm (``-inf`` at 0, ``nan`` below); backward ``grad / self``."""
    out = wrap(quietly(np.log, floating(self)))
    if is_grad_enabled() and requires_grad(self):
        record_self(LogBackward0(), self, out)
    return out


cdef class Log1PBackward0(SavesSelf):
    cpdef tuple apply(self, tuple grads):
        return (div(grads[0], add(self.saved_self.unpack(self), 1)),)


def log1p(Tensor self):
    """``log(1 + self)``, accurate near 0; backward ``grad / (self + 1)``."""
    out = wrap(quietly(np.log1p, floating(self)))
    if is_grad_enabled() and requires_grad(self):
        record_self(Log1PBackward0(), self, out)
    return out


# ------------------------------------------------------------------ powers and roots

cdef class SqrtBackward0(SavesResult):
    cpdef tuple apply(self, tuple grads):
        return (div(grads[0], mul(self.saved_result.unpack(self), 2)),)


def sqrt(Tensor self):
    """Square root; backward ``grad / (2 * result)``."""
    out = wrap(quietly(np.sqrt, floating(self)))
    if is_grad_enabled() and requires_grad(self):
        record_result(SqrtBackward0(), self, out)
    return out


cdef class RsqrtBackward0(SavesResult):
    cpdef tuple apply(self, tuple grads):
        # d/dx x^(-1/2) = -1/2 x^(-3/2) = -1/2 result^3
        return (mul(grads[0], mul(pow(self.saved_result.unpack(self), 3), -0.5)),)


def _rsqrt_array(array):
    # An explicit buffer: NumPy would return a 0-dim result as a scalar, without ``out=``.
    result = np.sqrt(array, out=np.empty_like(array))
    return np.reciprocal(result, out=result)


def rsqrt(Tensor self):
    """``1 / sqrt(self)``; backward ``-0.5 * grad * result ** 3``."""
    out = wrap(quietly(_rsqrt_array, floating(self)))
    if is_grad_enabled() and requires_grad(self):
        record_result(RsqrtBackward0(), self, out)
    return out


cdef class ReciprocalBackward0(SavesResult):
    cpdef tuple apply(self, tuple grads):
        result = self.saved_result.unpack(self)
        return (mul(grads[0], neg(mul(result, result))),)


def reciprocal(Tensor self):
    """``1 / self`` (integers give float32); backward ``-grad * result ** 2``."""
    out = wrap(quietly(np.reciprocal, floating(self)))
    if is_grad_enabled() and requires_grad(self):
        record_result(ReciprocalBackward0(), self, out)
    return out


def square(Tensor self):
    """``self ** 2``; as in PyTorch it is ``pow(self, 2)`` (PowBackward0), ints stay ints."""
    return pow(self, 2)


# ------------------------------------------------------------------ trigonometric

cdef class SinBackward0(SavesSelf):
    cpdef tuple apply(self, tuple grads):
        return (mul(grads[0], cos(self.saved_self.unpack(self))),)


def sin(Tensor self):
    """Sine; backward ``grad * cos(self)``."""
    out = wrap(quietly(np.sin, floating(self)))
    if is_grad_enabled() and requires_grad(self):
        record_self(SinBackward0(), self, out)
    return out


cdef class CosBackward0(SavesSelf):
    cpdef tuple apply(self, tuple grads):
        return (mul(grads[0], neg(sin(self.saved_self.unpack(self)))),)


def cos(Tensor self):
    """Cosine; backward ``-grad * sin(self)``."""
    out = wrap(quietly(np.cos, floating(self)))
    if is_grad_enabled() and requires_grad(self):
        record_self(CosBackward0(), self, out)
    return out


# ------------------------------------------------------------------ activations

cdef class TanhBackward0(SavesResult):
    cpdef tuple apply(self, tuple grads):
        grad = grads[0]
        fused = self.fused_backward(grad, tanh_backward_kernel)
        if fused is not None:
            return (fused,)
        result = self.saved_result.unpack(self)
        return (mul(grad, sub(1, mul(result, result))),)


cdef object np_tanh = np.tanh


def tanh(Tensor self):
    """Hyperbolic tangent; backward ``grad * (1 - result ** 2)``."""
    cdef object array = tanh_kernel(self._data)
    if array is None:
        array = quietly(np_tanh, floating(self))
    cdef Tensor out = wrap(array)
    cdef TanhBackward0 node
    if is_grad_enabled() and requires_grad(self):
        node = TanhBackward0.__new__(TanhBackward0)
        record_result(node, self, out)
    return out


cdef class SigmoidBackward0(SavesResult):
    cpdef tuple apply(self, tuple grads):
        result = self.saved_result.unpack(self)
        return (mul(grads[0], mul(result, sub(1, result))),)


def _sigmoid_array(array):
    # 1 / (1 + exp(-x)) in one buffer; exp overflows to inf for very negative x,
    # which correctly gives 0.
    result = np.negative(array, out=np.empty_like(array))
    np.exp(result, out=result)
    result += 1
    return np.reciprocal(result, out=result)


def sigmoid(Tensor self):
    """Logistic function ``1 / (1 + exp(-self))``; backward ``grad * result * (1 - result)``."""
    out = wrap(quietly(_sigmoid_array, floating(self)))
    if is_grad_enabled() and requires_grad(self):
        record_result(SigmoidBackward0(), self, out)
    return out


cdef class ReluBackward0(SavesResult):
    cpdef tuple apply(self, tuple grads):
        # PyTorch's threshold_backward: zero where result <= 0 (a NaN result passes grad).
        grad = grads[0]
        fused = self.fused_backward(grad, threshold_backward_kernel)
        if fused is not None:
            return (fused,)
        result = <Tensor>self.saved_result.unpack(self)
        return (where(mask(result._data <= 0), 0.0, grad),)


def relu(Tensor self):
    """``max(self, 0)``; keeps the dtype (integers stay integers)."""
    if self._data.dtype.kind == "b":
        raise RuntimeError("Boolean inputs not supported for relu")
    out = wrap(np.maximum(self._data, 0))
    if is_grad_enabled() and requires_grad(self):
        record_result(ReluBackward0(), self, out)
    return out


# ------------------------------------------------------------------ abs / sign

cdef class AbsBackward0(SavesSelf):
    cpdef tuple apply(self, tuple grads):
        return (mul(grads[0], sign(self.saved_self.unpack(self))),)


def abs(Tensor self):
    """``|self|``; integers stay integers; backward ``grad * sign(self)`` (0 at 0)."""
    if self._data.dtype.kind == "b":
        raise NotImplementedError("\"abs_cpu\" not implemented for 'Bool'")
    out = wrap(np.abs(self._data))
    if is_grad_enabled() and requires_grad(self):
        record_self(AbsBackward0(), self, out)
    return out


cdef class SignBackward0(Node):
    cpdef tuple apply(self, tuple grads):
        return (zeros_like_grad(grads[0]),)


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
        set_history1(SignBackward0(), self, out)
    return out


# ------------------------------------------------------------------ clamp

cdef class ClampBackward1(Node):
    """clamp with number bounds: the gradient passes where ``min <= self <= max``."""
    cdef readonly SavedTensor saved_self
    cdef readonly object saved_min
    cdef readonly object saved_max

    cpdef tuple apply(self, tuple grads):
        x = (<Tensor>self.saved_self.unpack(self))._data
        inside = None
        if self.saved_min is not None:
            inside = x >= self.saved_min
        if self.saved_max is not None:
            below_max = x <= self.saved_max
            inside = below_max if inside is None else inside & below_max
        return (where(mask(inside), grads[0], 0.0),)

    cdef void release_variables(self):
        self.saved_self.release()


cdef class ClampBackward0(Node):
    """clamp with tensor bounds; a bound gets the gradient where it is the output."""
    cdef readonly SavedTensor saved_self
    cdef readonly SavedTensor saved_min
    cdef readonly SavedTensor saved_max

    cpdef tuple apply(self, tuple grads):
        grad = grads[0]
        x = (<Tensor>self.saved_self.unpack(self))._data
        low = (<Tensor>self.saved_min.unpack(self))._data if self.saved_min is not None else None
        high = (<Tensor>self.saved_max.unpack(self))._data if self.saved_max is not None else None
        self_grad = min_grad = max_grad = None
        if self.should_compute_output(0):
            if low is None:
                inside = x <= high
            elif high is None:
                inside = x >= low
            else:
                inside = (x >= low) & (x <= high)
            self_grad = where(mask(inside), grad, 0.0)
        # With min > max the output is max everywhere: min never wins, max always does.
        if low is not None and self.should_compute_output(1):
            below = x < low if high is None else (x < low) & (low < high)
            min_grad = where(mask(below), grad, 0.0)
        if high is not None and self.should_compute_output(2):
            above = x > high if low is None else (x > high) | (high < low)
            max_grad = where(mask(above), grad, 0.0)
        return (self_grad, min_grad, max_grad)

    cdef void release_variables(self):
        self.saved_self.release()
        if self.saved_min is not None:
            self.saved_min.release()
        if self.saved_max is not None:
            self.saved_max.release()


def _clamp_arrays(x, low, high):
    """``min(max(x, low), high)``, NaN-propagating, at most one new buffer."""
    if low is None:
        return np.minimum(x, high)
    result = np.maximum(x, low)
    if high is None:
        return result
    if isinstance(result, np.generic):  # NumPy gives a 0-dim result as a scalar
        return np.minimum(result, high)
    return np.minimum(result, high, out=result)


def clamp(Tensor self, min=None, max=None):
    """Limit ``self`` to ``[min, max]``; bounds are numbers or tensors (broadcast), or None.

    The gradient passes where ``min <= self <= max``; a tensor bound gets it where
    it is the output (where ``min > max`` the output is ``max``).

    >>> import autograd_cy as ag
    >>> x = ag.tensor([-2.0, 0.5, 3.0], requires_grad=True)
    >>> y = ag.clamp(x, min=0.0, max=1.0)
    >>> y.sum().backward()
    >>> y, x.grad
    (tensor([0.0000, 0.5000, 1.0000], grad_fn=<ClampBackward1>), tensor([0., 1., 0.]))
    """
    cdef ClampBackward1 node1
    cdef ClampBackward0 node0
    min_is_tensor, max_is_tensor = isinstance(min, Tensor), isinstance(max, Tensor)
    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    if (min_is_tensor and not max_is_tensor and max is not None) or (
            max_is_tensor and not min_is_tensor and min is not None):
        raise TypeError(
            f"clamp() received an invalid combination of arguments - got (Tensor, "
            f"{type(min).__name__}, {type(max).__name__}), but expected one of:\n"
            " * (Tensor input, Tensor min = None, Tensor max = None)\n"
            " * (Tensor input, Number min = None, Number max = None)")
    dtype = result_type_of((self, min, max))
    x = operand_array(self, dtype)
    if not (min_is_tensor or max_is_tensor):
        out = wrap(_clamp_arrays(x, min, max))
        if is_grad_enabled() and requires_grad(self):
            node1 = ClampBackward1()
            node1.saved_self = save(self, False)
            node1.saved_min, node1.saved_max = min, max
            set_history1(node1, self, out)
        return out
    low = operand_array(min, dtype) if min is not None else None
    high = operand_array(max, dtype) if max is not None else None
    out = wrap(broadcasting(_clamp_arrays, (self, min, max), (x, low, high)))
    if is_grad_enabled() and (requires_grad(self) or (min_is_tensor and requires_grad(min))
                              or (max_is_tensor and requires_grad(max))):
        node0 = ClampBackward0()
        node0.saved_self = save(self, False)
        node0.saved_min = save(min, False) if min is not None else None
        node0.saved_max = save(max, False) if max is not None else None
        set_history(node0, (self, min, max), (out,))
    return out


clip = clamp


# ------------------------------------------------------------------ maximum / minimum

cdef class MaximumBackward0(Node):
    """The larger operand gets the gradient; ties split it half and half (as PyTorch)."""
    cdef readonly SavedTensor saved_self
    cdef readonly SavedTensor saved_other

    cpdef tuple apply(self, tuple grads):
        a = (<Tensor>self.saved_self.unpack(self))._data
        b = (<Tensor>self.saved_other.unpack(self))._data
        return split_grad(self, grads[0], a, b, a < b, a > b)

    cdef void release_variables(self):
        self.saved_self.release()
        self.saved_other.release()


cdef class MinimumBackward0(MaximumBackward0):
    """The smaller operand gets the gradient; ties split it half and half."""

    cpdef tuple apply(self, tuple grads):
        a = (<Tensor>self.saved_self.unpack(self))._data
        b = (<Tensor>self.saved_other.unpack(self))._data
        return split_grad(self, grads[0], a, b, a > b, a < b)


cdef tuple split_grad(Node node, object grad, object a, object b, object self_loses,
                      object other_loses):
    """Gradients of an elementwise max/min: zero for the losing side, half each on ties.

    Where either operand is NaN nobody loses and both get the whole gradient (PyTorch).
    """
    ties = a == b
    shared = where(mask(ties), mul(grad, 0.5), grad) if ties.any() else grad
    return (where(mask(self_loses), 0.0, shared) if node.should_compute_output(0) else None,
            where(mask(other_loses), 0.0, shared) if node.should_compute_output(1) else None)


cdef Tensor binary_extremum(object self, object other, str name, object ufunc,
                                MaximumBackward0 node):
    cdef Tensor a = expect_tensor(self, name, "input", 1)
    cdef Tensor b = expect_tensor(other, name, "other", 2)
    dtype = result_type(a, b)
    out = wrap(broadcasting(ufunc, (a, b), (operand_array(a, dtype), operand_array(b, dtype))))
    if is_grad_enabled() and (requires_grad(a) or requires_grad(b)):
        node.saved_self = save(a, False)
        node.saved_other = save(b, False)
        set_history2(node, a, b, out)
    return out


def maximum(self, other):
    """Elementwise maximum of two tensors (NaN-propagating, broadcasting).

    Where the operands tie, each gets half of the gradient, as in PyTorch:

    >>> import autograd_cy as ag
    >>> a = ag.tensor([1.0, 2.0], requires_grad=True)
    >>> b = ag.tensor([1.0, 0.0], requires_grad=True)
    >>> ag.maximum(a, b).sum().backward()
    >>> a.grad, b.grad
    (tensor([0.5000, 1.0000]), tensor([0.5000, 0.0000]))
    """
    return binary_extremum(self, other, "maximum", np.maximum, MaximumBackward0())


def minimum(self, other):
    """Elementwise minimum of two tensors (NaN-propagating, broadcasting)."""
    return binary_extremum(self, other, "minimum", np.minimum, MinimumBackward0())


# ------------------------------------------------------------------ where

cdef class WhereBackward0(Node):
    """``input`` gets the gradient where the condition holds, ``other`` elsewhere."""
    cdef readonly SavedTensor saved_condition

    cpdef tuple apply(self, tuple grads):
        condition = self.saved_condition.unpack(self)
        grad = grads[0]
        return (where(condition, grad, 0.0) if self.should_compute_output(0) else None,
                where(condition, 0.0, grad) if self.should_compute_output(1) else None)

    cdef void release_variables(self):
        self.saved_condition.release()


cdef object _MISSING = object()


def where(Tensor condition, input=_MISSING, other=_MISSING):
    """Elements of ``input`` where ``condition`` holds, else of ``other`` (broadcasting).

    ``input`` and ``other`` may be tensors or numbers; they are promoted to a common
    dtype. ``where(condition)`` alone is ``nonzero(condition, as_tuple=True)``.

    >>> import autograd_cy as ag
    >>> x = ag.tensor([-1.0, 2.0])
    >>> ag.where(x > 0, x, 0.0)
    tensor([0., 2.])
    """
    cdef WhereBackward0 node
    if input is _MISSING and other is _MISSING:
        return tuple([make_tensor(index.astype(np.int64, copy=False))
                      for index in np.nonzero(condition._data)])
    if input is _MISSING or other is _MISSING:
        raise TypeError("where() missing required argument 'input' or 'other'")
    if condition._data.dtype.kind != "b":
        raise RuntimeError(f"where expected condition to be a boolean tensor, but got a tensor "
                           f"with dtype {condition.dtype._scalar_name}")
    if isinstance(input, np.ndarray):
        input = make_tensor(input)
    if isinstance(other, np.ndarray):
        other = make_tensor(other)
    dtype = result_type_of((input, other))
    array = broadcasting(np.where, (condition, input, other),
                         (condition._data, operand_array(input, dtype),
                          operand_array(other, dtype)))
    if array.dtype != dtype:  # two Python numbers: NumPy's float64, PyTorch's float32
        array = array.astype(dtype)
    out = wrap(array)
    if any_requires_grad2(input, other):
        node = WhereBackward0()
        node.saved_condition = save(condition, False)
        set_history2(node, input, other, out)
    return out


# ------------------------------------------------------------------ in-place

cdef Tensor inplace_saving_result(Tensor self, object op):
    """``self.op_()`` for an op whose node saves its result.

    The node saved the out-of-place result, a separate array; it is replaced by
    ``self``, which now holds the same values, so that modifying ``self`` in place
    again is caught at backward by the version check, as in PyTorch. (Views keep
    the copy: their history goes through CopySlices on the base.)
    """
    cdef SavedTensor saved
    old_grad_fn = self._grad_fn
    apply_inplace(self, op, (), False)
    node = self._grad_fn
    if node is not old_grad_fn and self._base is None and isinstance(node, SavesResult):
        saved = (<SavesResult>node).saved_result
        if saved is not None and saved.unpack_hook is None:
            (<SavesResult>node).saved_result = save(self, True)
    return self


def exp_(Tensor self):
    """In-place :func:`exp`."""
    return inplace_saving_result(self, exp)


def expm1_(Tensor self):
    """In-place :func:`expm1`."""
    return inplace_saving_result(self, expm1)


def sqrt_(Tensor self):
    """In-place :func:`sqrt`."""
    return inplace_saving_result(self, sqrt)


def rsqrt_(Tensor self):
    """In-place :func:`rsqrt`."""
    return inplace_saving_result(self, rsqrt)


def reciprocal_(Tensor self):
    """In-place :func:`reciprocal`."""
    return inplace_saving_result(self, reciprocal)


def tanh_(Tensor self):
    """In-place :func:`tanh`."""
    return inplace_saving_result(self, tanh)


def sigmoid_(Tensor self):
    """In-place :func:`sigmoid`."""
    return inplace_saving_result(self, sigmoid)


def relu_(Tensor self):
    """In-place :func:`relu`."""
    return inplace_saving_result(self, relu)


def sign_(Tensor self):
    """In-place :func:`sign`."""
    return apply_inplace(self, sign, (), False)


# These nodes read the input: apply_inplace hands them a copy of the old value.

def log_(Tensor self):
    """In-place :func:`log`."""
    return apply_inplace(self, log, (), True)


def log1p_(Tensor self):
    """In-place :func:`log1p`."""
    return apply_inplace(self, log1p, (), True)


def sin_(Tensor self):
    """In-place :func:`sin`."""
    return apply_inplace(self, sin, (), True)


def cos_(Tensor self):
    """In-place :func:`cos`."""
    return apply_inplace(self, cos, (), True)


def abs_(Tensor self):
    """In-place :func:`abs`."""
    return apply_inplace(self, abs, (), True)


def square_(Tensor self):
    """In-place :func:`square`."""
    return apply_inplace(self, square, (), True)


def clamp_(Tensor self, min=None, max=None):
    """In-place :func:`clamp`."""
    return apply_inplace(self, lambda x: clamp(x, min, max), (min, max), True)


clip_ = clamp_


cdef object abs_op(object self):
    return abs(self)


tensor_operators().abs = abs_op


register_methods({name: globals()[name] for name in __tensor_methods__})
