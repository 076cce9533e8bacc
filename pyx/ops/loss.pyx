# cython: allow_none_for_extension_args=False
"""Loss primitives: mse_loss, nll_loss, binary_cross_entropy(_with_logits), with their backward.

# Design
nn.functional composes the public losses (cross_entropy = log_softmax + nll_loss,
the weighted and label-smoothed variants) from these primitives and the
Tensor-level ops. Each primitive computes its loss with NumPy in one go and
reduces it (``reduction``: 0 none, 1 mean, 2 sum, PyTorch's enum); its backward
Node writes the gradient with Tensor-level ops, so double backward works. The
exception is nll_loss, whose backward is a scatter: it is a primitive of its
own (``nll_loss_backward``) whose backward is nll_loss again.
"""
import numpy as np

from autograd_cy._C.grad_mode cimport is_grad_enabled, forward_level, needs_tensor_ops
from autograd_cy._C.forward cimport forward1, forward2
from autograd_cy._C.dtype cimport from_numpy_dtype, half_precision, kind_of
from autograd_cy._C.device cimport as_array, backend_of
from autograd_cy._C.tensor cimport Tensor, array_module, make_tensor, requires_grad
from autograd_cy._C.node cimport Node, unpack_saved
from autograd_cy._C.saved_tensor cimport SavedTensor
from autograd_cy._C.recording cimport record1, record2, any_requires_grad2
from autograd_cy._C.promotion cimport wrap, result_type
from autograd_cy._C.fp_errors cimport ignoring_fp_errors
from autograd_cy._C.ops.arithmetic import add, sub, mul, div, neg
from autograd_cy._C.ops.arithmetic cimport add_terms
from autograd_cy._C.ops.pointwise import log, sigmoid
from autograd_cy._C.ops.selection import where
from autograd_cy._C.ops.activation import _log_sigmoid
from autograd_cy._C.ops.activation_kernels cimport log_sigmoid_array
from autograd_cy._C.ops.gather_scatter cimport tangent_or_zeros, broadcast_shape
from autograd_cy._C.ops.reduction import sum as tensor_sum, mean as tensor_mean

__all__ = []

cdef enum Reduction:
    NONE = 0
    MEAN = 1
    SUM = 2

cdef double BCE_EPSILON = 1e-12       # floor of x (1 - x) in the BCE gradient, as in PyTorch


cdef str scalar_name(object numpy_dtype):
    return from_numpy_dtype(numpy_dtype)._scalar_name


cdef object reduce_array(object loss, int reduction):
    """Apply ``reduction`` to an elementwise loss array (mean of nothing is nan); float16
    and bfloat16 accumulate in float32 and round once, as PyTorch's sum and mean (NOTE
    [Half-precision products and reductions] in reduction.pyx)."""
    if reduction == NONE:
        return loss
    work_dtype = np.dtype(np.float32) if half_precision(loss.dtype) else loss.dtype
    with ignoring_fp_errors():
        total = loss.sum(dtype=work_dtype)
        if reduction == MEAN:
            total = total / work_dtype.type(loss.size)
    return as_array(total, loss.dtype)


cdef object scale_grad(object grad, int reduction, Py_ssize_t numel):
    """The gradient's share of a reduced loss: ``grad / numel`` for 'mean'."""
    return div(grad, numel) if reduction == MEAN else grad


cdef object fused_loss_backward(str kernel, object x, object target, object grad,
                                int reduction):
    """A pointwise loss's input gradient by the input's backend (one launch of cuda/loss.cu
    on a CUDA device), when nothing is recorded and input and target share a dtype; else
    None (the Tensor ops)."""
    xa, ta = (<Tensor>x)._data, (<Tensor>target)._data
    if needs_tensor_ops() or xa.dtype != ta.dtype:
        return None
    result = backend_of(xa).loss(kernel, (xa, ta, (<Tensor>grad)._data),
                                 (xa.size if reduction == MEAN else 1,))
    return None if result is None else wrap(result)


# NOTE [Tangents of losses]
# A pointwise loss's tangent is its elementwise derivative times each operand's tangent
# (``d loss / d input * input_t + d loss / d target * target_t``, a missing tangent zero),
# reduced as the loss is: summed, or averaged for 'mean'. nll_loss is linear in its input,
# so its tangent is nll_loss of the input's tangent (with the same total weight).

cdef object reduce_tangent(object tangent, int reduction):
    """An elementwise loss tangent reduced as the loss (``reduction``)."""
    if reduction == NONE:
        return tangent
    return tensor_mean(tangent) if reduction == MEAN else tensor_sum(tangent)


cdef void check_no_grad(object tensor, str name, str function) except *:
    """Weights are constants for these losses; PyTorch refuses them requiring grad."""
    if tensor is not None and is_grad_enabled() and requires_grad(<Tensor>tensor):
        raise RuntimeError(f"The function '{function}' is not differentiable with respect to "
                           f"argument '{name}'. This input cannot have requires_grad True.")


cdef inline object unpack_optional(Node node, Py_ssize_t i):
    """``unpack_saved`` for an optional tensor (a weight), saved as None when not given."""
    saved = node.saved_tensors[i]
    return None if saved is None else (<SavedTensor>saved).unpack(node)


# ------------------------------------------------------------------ mse_loss

cdef class MseLossBackward0(Node):
    saved_names = ("self", "target")
    cdef readonly int saved_reduction

    cpdef tuple apply(self, tuple grads):
        x = unpack_saved(self, 0)
        target = unpack_saved(self, 1)
        # d/dx (x - t)^2 = 2 (x - t); the target gets the opposite.
        grad = fused_loss_backward("mse_loss_backward", x, target, grads[0],
                                   self.saved_reduction)
        if grad is None:
            grad = mul(mul(sub(x, target), 2.0), grads[0])
            grad = scale_grad(grad, self.saved_reduction, (<Tensor>x)._data.size)
        return (grad if self.should_compute_output(0) else None,
                neg(grad) if self.should_compute_output(1) else None)


def mse_loss(Tensor input, Tensor target, int reduction=MEAN):
    """Squared error ``(input - target)^2``, reduced; the operands have one shape."""
    cdef MseLossBackward0 node
    dtype = result_type(input, target)
    if kind_of(dtype) != "f":
        raise NotImplementedError(f"\"mse_cpu\" not implemented for '{scalar_name(dtype)}'")
    x, t = input._data.astype(dtype, copy=False), target._data.astype(dtype, copy=False)
    loss = backend_of(x).loss("mse_loss", (x, t, None), (reduction,))
    if loss is None:
        with ignoring_fp_errors():      # an overflow is inf, quietly, as in PyTorch
            loss = reduce_array((x - t) * (x - t), reduction)
    cdef Tensor out = wrap(loss)
    if any_requires_grad2(input, target):
        node = MseLossBackward0()
        node.saved_reduction = reduction
        record2(node, input, target, out, (input, target))
    if forward_level():
        forward2(out, input, target, mse_loss_tangent, (reduction,))
    return out


cdef object mse_loss_tangent(input_t, target_t, input, target, Tensor result, tuple extra):
    """``2 (input - target) (input_t - target_t)``, reduced (``extra``: ``(reduction,)``)."""
    difference_t = add_terms(input_t, None if target_t is None else neg(target_t))
    return reduce_tangent(mul(mul(sub(input, target), 2.0), difference_t), extra[0])


# ------------------------------------------------------------------ nll_loss

cdef class NllLossBackward0(Node):
    """Scatter ``-weight[target] * grad`` into the target positions of a zero gradient."""
    saved_names = ("self", "target", "weight")
    cdef readonly object saved_total_weight
    cdef readonly int saved_reduction
    cdef readonly object saved_ignore_index

    cpdef tuple apply(self, tuple grads):
        return (nll_loss_backward(grads[0], unpack_saved(self, 0), unpack_saved(self, 1),
                                  unpack_optional(self, 2),
                                  self.saved_reduction, self.saved_ignore_index,
                                  self.saved_total_weight),)


cdef class NllLoss2DBackward0(NllLossBackward0):
    """nll_loss over inputs with spatial dims ``(N, C, d1, ...)``."""


cdef class NllLossBackwardBackward0(Node):
    """nll_loss_backward is a scatter, linear in the gradient: its adjoint, the gather,
    is nll_loss itself. Inputs (grad_output, self); ``self`` gets zeros."""
    saved_names = ("target", "weight")
    cdef readonly object saved_total_weight
    cdef readonly int saved_reduction
    cdef readonly object saved_ignore_index
    cdef readonly tuple saved_self_sym_sizes

    cpdef tuple apply(self, tuple grads):
        gg = grads[0]
        grad_grad = grad_self = None
        if self.should_compute_output(0):
            grad_grad, _ = nll_loss_forward(gg, unpack_saved(self, 0), unpack_optional(self, 1),
                                            self.saved_reduction, self.saved_ignore_index,
                                            self.saved_total_weight)
        if self.should_compute_output(1):
            grad_self = make_tensor(array_module((<Tensor>gg)._data).zeros(
                self.saved_self_sym_sizes, (<Tensor>gg)._data.dtype))
        return (grad_grad, grad_self)


cdef tuple nll_layout(tuple input_shape, object target):
    """``(N, C, S)`` of an input seen as ``(N, C, S)`` and the target as ``(N, S)``."""
    if len(input_shape) == 1:
        return (1, input_shape[0], 1), target.reshape(1, 1)
    n, c = input_shape[0], input_shape[1]
    s = 1
    for d in input_shape[2:]:
        s *= d
    return (n, c, s), target.reshape(n, s)


cdef tuple nll_picks(tuple layout, object target2, object ignore_index):
    """The class each ``(n, s)`` picks (0 where ignored) and its weight (0 where ignored)."""
    _, c, _ = layout
    ignored = target2 == ignore_index
    classes = np.where(ignored, 0, target2)
    bad = (classes < 0) | (classes >= c)
    if bad.any():
        raise IndexError(f"Target {classes[bad].flat[0]} is out of bounds.")
    return classes, ignored


cdef object nll_weights(object classes, object ignored, object weight, object dtype):
    w = (array_module(classes).ones(classes.shape, dtype) if weight is None
         else weight[classes].astype(dtype))
    w[ignored] = 0
    return w


cdef tuple nll_loss_array(object x, object target, object weight, int reduction,
                          object ignore_index, object total_weight):
    """nll_loss's general case (any rank, class weights, every reduction) in NumPy calls:
    ``(loss array, total_weight)``."""
    layout, target2 = nll_layout(x.shape, target)
    w_array = None if weight is None else (<Tensor>weight)._data
    classes, ignored = nll_picks(layout, target2, ignore_index)
    w = nll_weights(classes, ignored, w_array, x.dtype)
    picked = np.take_along_axis(x.reshape(layout), classes[:, None, :], axis=1)[:, 0, :]
    with ignoring_fp_errors():
        # an unbatched loss is torch's running total from 0: 0 - w x, +0.0 where w x is 0
        losses = 0 - w * picked if x.ndim == 1 else -w * picked
    losses[ignored] = 0            # an ignored pick may be -inf: 0 * inf must not leak a nan
    if total_weight is None:
        total_weight = w.sum(dtype=x.dtype)
    if reduction == NONE:
        array = losses.reshape(() if x.ndim == 1 else target.shape)
    else:
        array = losses.sum(dtype=x.dtype)
        if reduction == MEAN:
            with ignoring_fp_errors():
                array = array / total_weight
    return as_array(array, x.dtype), total_weight


def nll_loss_forward(Tensor input, Tensor target, weight, int reduction, ignore_index,
                     total_weight=None):
    """``-weight[t] * input[n, t]`` per target ``t``; 'mean' divides by the summed weight.

    Returns ``(loss, total_weight)``. Checks of shapes and dtypes are nll_loss_nd's.
    """
    cdef NllLossBackward0 node
    x = input._data
    w_array = None if weight is None else (<Tensor>weight)._data
    # The backend's loss: the typed loops of loss_kernels.pyx for the common case on the CPU,
    # one launch of cuda/loss.cu on a CUDA device, where an out-of-range target is a
    # device-side assert (NOTE [Device-side asserts]), so nothing is read back here.
    fast = backend_of(x).loss("nll_loss", (x, target._data, w_array, total_weight),
                              (reduction, ignore_index))
    if fast is not None:
        array, total_weight = fast
    else:
        array, total_weight = nll_loss_array(x, target._data, weight, reduction, ignore_index,
                                             total_weight)
    cdef Tensor out = wrap(array)
    if is_grad_enabled() and requires_grad(input):
        node = NllLossBackward0() if x.ndim <= 2 else NllLoss2DBackward0()
        node.saved_total_weight = total_weight
        node.saved_reduction = reduction
        node.saved_ignore_index = ignore_index
        record1(node, input, out, (input, target, weight))
    if forward_level():
        forward1(out, input, nll_loss_tangent,
                 (target, weight, reduction, ignore_index, total_weight))
    return out, total_weight


cdef object nll_loss_tangent(Tensor input_t, Tensor input, Tensor result, tuple extra):
    """nll_loss of ``input_t`` (linear in its input); ``extra``: nll_loss_forward's rest."""
    return nll_loss_forward(input_t, *extra)[0]


cdef object nll_loss_backward_array(object g, tuple input_shape, object target, object weight,
                                    int reduction, object ignore_index, object total_weight):
    """nll_loss_backward's general case in NumPy calls."""
    layout, target2 = nll_layout(input_shape, target)
    w_array = None if weight is None else (<Tensor>weight)._data
    classes, ignored = nll_picks(layout, target2, ignore_index)
    values = -nll_weights(classes, ignored, w_array, g.dtype)
    if reduction == NONE:
        values *= g.reshape(target2.shape)
    else:
        with ignoring_fp_errors():
            values *= g / total_weight if reduction == MEAN else g
    values[ignored] = 0
    grad = array_module(g).zeros(layout, g.dtype)
    np.put_along_axis(grad, classes[:, None, :], values[:, None, :], axis=1)
    return grad.reshape(input_shape)


def nll_loss_backward(Tensor grad_output, Tensor self, Tensor target, weight,
                      int reduction, ignore_index, total_weight):
    """The gradient of nll_loss: ``-weight[t] * grad`` at each target position, else 0."""
    cdef NllLossBackwardBackward0 node
    w_array = None if weight is None else (<Tensor>weight)._data
    grad = backend_of(grad_output._data).loss(
        "nll_loss_backward",
        (grad_output._data, self._data, target._data, w_array, total_weight),
        (reduction, ignore_index))
    if grad is None:
        grad = nll_loss_backward_array(grad_output._data, self._data.shape, target._data,
                                       weight, reduction, ignore_index, total_weight)
    cdef Tensor out = wrap(grad)
    if any_requires_grad2(grad_output, self):
        node = NllLossBackwardBackward0()
        node.saved_total_weight = total_weight
        node.saved_reduction = reduction
        node.saved_ignore_index = ignore_index
        node.saved_self_sym_sizes = self._data.shape
        record2(node, grad_output, self, out, (target, weight))
    if forward_level():
        forward2(out, grad_output, self, nll_loss_backward_tangent,
                 (target, weight, reduction, ignore_index, total_weight))
    return out


cdef object nll_loss_backward_tangent(grad_t, self_t, grad_output, self, Tensor result,
                                      tuple extra):
    """Linear in ``grad_output``, constant in ``self``: the backward of ``grad_t``
    (``extra``: ``(target, weight, reduction, ignore_index, total_weight)``)."""
    return nll_loss_backward(tangent_or_zeros(grad_t, grad_output), self, *extra)


cdef void check_nll_target(Tensor input, Tensor target, object weight) except *:
    """PyTorch's checks of nll_loss's target and weight, in PyTorch's order."""
    x, t = input._data, target._data
    if input._data.ndim <= 2:
        if t.ndim > 1:
            raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    elif x.ndim == 4 and t.ndim != 3:
        raise RuntimeError("only batches of spatial targets supported (3D tensors) but got "
                           f"targets of dimension: {t.ndim}")
    if t.dtype != np.int64:
        raise RuntimeError("expected target dtype to be Long or Byte, but got "
                           f"{scalar_name(t.dtype)}")
    if x.ndim == 4 and (t.shape[0] != x.shape[0] or t.shape[1:] != x.shape[2:]):
        raise RuntimeError(f"size mismatch (got input: {list(x.shape)} , target: "
                           f"{list(t.shape)}")
    classes = x.shape[0] if x.ndim == 1 else x.shape[1]
    if weight is not None:
        w = (<Tensor>weight)._data
        if w.ndim != 1 or w.size != classes:
            raise RuntimeError(f"weight tensor should be defined either for all {classes} "
                               "classes or no classes but got weight tensor of shape: "
                               f"{list(w.shape)}")
        if w.dtype != x.dtype:
            raise RuntimeError(f"expected scalar type {scalar_name(x.dtype)} but found "
                               f"{scalar_name(w.dtype)}")
    if kind_of(x.dtype) != "f":
        kernel = "nll_loss_out_frame" if x.ndim <= 2 else "nll_loss2d_forward_out_frame"
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{scalar_name(x.dtype)}'")


def nll_loss_nd(Tensor input, Tensor target, weight=None, int reduction=MEAN,
                ignore_index=-100):
    """nll_loss for inputs ``(C)``, ``(N, C)`` and ``(N, C, d1, ...)``, with PyTorch's checks."""
    x, t = input._data, target._data
    if x.ndim < 1:
        raise ValueError(f"Expected 1 or more dimensions (got {x.ndim})")
    if x.ndim != 1 and x.shape[0] != (t.shape[0] if t.ndim else 0):
        raise ValueError(f"Expected input batch_size ({x.shape[0]}) to match target "
                         f"batch_size ({t.shape[0] if t.ndim else 0}).")
    if x.ndim == 1 and t.ndim == 1 and t.shape[0] != 1:
        raise ValueError("For 1D input, 1D target must have size 1, but got target size: "
                         f"{t.shape[0]}")
    if x.ndim == 3 or x.ndim > 4:
        expected = (x.shape[0],) + x.shape[2:]
        if t.shape != expected:
            raise RuntimeError(f"Expected target size {list(expected)}, got {list(t.shape)}")
    check_no_grad(weight, "weight", "nll_loss_forward")     # PyTorch's autograd, first
    check_nll_target(input, target, weight)
    return nll_loss_forward(input, target, weight, reduction, ignore_index)[0]


# ------------------------------------------------------------------ binary_cross_entropy

cdef class BinaryCrossEntropyBackward0(Node):
    saved_names = ("self", "target", "weight")
    cdef readonly int saved_reduction

    cpdef tuple apply(self, tuple grads):
        x = unpack_saved(self, 0)
        target = unpack_saved(self, 1)
        weight = unpack_optional(self, 2)
        grad = grads[0] if weight is None else mul(grads[0], weight)
        grad_x = grad_target = None
        if self.should_compute_output(0) and not self.should_compute_output(1):
            grad_x = fused_loss_backward("binary_cross_entropy_backward", x, target, grad,
                                         self.saved_reduction)
            if grad_x is not None:
                return (grad_x, None)
        if self.should_compute_output(0):
            # PyTorch's order, each step rounded in float16/bfloat16: grad (x - t) divided by
            # (1 - x) x floored at BCE_EPSILON (0 in float16: 1e-12 underflows), then times
            # the weight, then divided by the count for 'mean'
            denominator = mul(sub(1.0, x), x)
            floored = where(make_tensor((<Tensor>denominator)._data > BCE_EPSILON),
                            denominator, BCE_EPSILON)
            grad_x = div(mul(grads[0], sub(x, target)), floored)
            if weight is not None:
                grad_x = mul(grad_x, weight)
            grad_x = scale_grad(grad_x, self.saved_reduction, (<Tensor>x)._data.size)
        grad = scale_grad(grad, self.saved_reduction, (<Tensor>x)._data.size)
        if self.should_compute_output(1):
            grad_target = mul(grad, sub(log(sub(1.0, x)), log(x)))      # -logit(x)
        return (grad_x, grad_target)


def binary_cross_entropy(Tensor input, Tensor target, weight=None, int reduction=MEAN):
    """``-w (t log x + (1 - t) log(1 - x))``, each log floored at -100 as in PyTorch."""
    x, t = input._data, target._data
    check_no_grad(weight, "weight", "binary_cross_entropy")     # PyTorch's autograd, first
    if t.dtype != x.dtype:
        raise RuntimeError(f"Found dtype {scalar_name(t.dtype)} but expected "
                           f"{scalar_name(x.dtype)}")
    if kind_of(x.dtype) != "f":
        raise NotImplementedError("\"binary_cross_entropy\" not implemented for "
                                  f"'{scalar_name(x.dtype)}'")
    w_array = None if weight is None else (<Tensor>weight)._data
    # On a CUDA device the backend's loss is one launch, whose kernel flags an input outside
    # [0, 1] as torch's device-side assert does (NOTE [Device-side asserts] in cuda/loss.cu).
    fused = backend_of(x).loss("binary_cross_entropy", (x, t, w_array), (reduction,))
    if fused is not None:
        return bce_result(fused, input, target, weight, reduction)
    # PyTorch's loop checks each element's input, then its target, so the first bad element
    # names the culprit; NaN is out of range too.
    bad_x, bad_t = ~((x >= 0) & (x <= 1)), ~((t >= 0) & (t <= 1))
    if bad_x.any() or bad_t.any():
        culprit = "input" if bad_x.any() else "target"
        if bad_x.shape == bad_t.shape:
            bad = (bad_x | bad_t).reshape(-1)
            culprit = "input" if bad_x.reshape(-1)[np.argmax(bad)] else "target"
        raise RuntimeError(f"all elements of {culprit} should be between 0 and 1")
    with ignoring_fp_errors():
        log_x = np.maximum(np.log(x), -100)
        log_1mx = np.maximum(np.log1p(-x), -100)
    loss = -(t * log_x + (1 - t) * log_1mx)
    if weight is not None:
        loss = loss * (<Tensor>weight)._data
    return bce_result(reduce_array(loss.astype(x.dtype, copy=False), reduction), input,
                      target, weight, reduction)


cdef Tensor bce_result(object array, Tensor input, Tensor target, object weight,
                       int reduction):
    """binary_cross_entropy's output, with its node when the operands require grad."""
    cdef BinaryCrossEntropyBackward0 node
    cdef Tensor out = wrap(array)
    if any_requires_grad2(input, target):
        node = BinaryCrossEntropyBackward0()
        node.saved_reduction = reduction
        record2(node, input, target, out, (input, target, weight))
    if forward_level():
        forward2(out, input, target, bce_tangent, (weight, reduction))
    return out


cdef object bce_tangent(input_t, target_t, input, target, Tensor result, tuple extra):
    """``w ((x - t) / (x (1 - x)) x_t + (log(1 - x) - log(x)) t_t)``, reduced (the
    denominator floored at BCE_EPSILON, as the gradient's)."""
    weight, reduction = extra
    x = input
    input_part = target_part = None
    if input_t is not None:
        denominator = mul(x, sub(1.0, x))
        floored = where(make_tensor((<Tensor>denominator)._data > BCE_EPSILON),
                        denominator, BCE_EPSILON)
        input_part = div(mul(input_t, sub(x, target)), floored)
    if target_t is not None:
        target_part = mul(target_t, sub(log(sub(1.0, x)), log(x)))
    tangent = add_terms(input_part, target_part)
    if weight is not None:
        tangent = mul(tangent, weight)
    return reduce_tangent(tangent, reduction)


# ------------------------------------------------------- binary_cross_entropy_with_logits

cdef class BinaryCrossEntropyWithLogitsBackward0(Node):
    saved_names = ("self", "target", "weight", "pos_weight")
    cdef readonly int saved_reduction

    cpdef tuple apply(self, tuple grads):
        x = unpack_saved(self, 0)
        target = unpack_saved(self, 1)
        weight = unpack_optional(self, 2)
        pos_weight = unpack_optional(self, 3)
        grad = grads[0] if weight is None else mul(grads[0], weight)
        grad = scale_grad(grad, self.saved_reduction, (<Tensor>x)._data.size)
        grad_x = grad_target = None
        if self.should_compute_output(0):
            if pos_weight is None:
                grad_x = mul(grad, sub(sigmoid(x), target))
            else:
                # (l sigmoid(x) - p t), l = (p - 1) t + 1 the positive-class log weight
                log_weight = add(mul(sub(pos_weight, 1.0), target), 1.0)
                grad_x = mul(grad, sub(mul(log_weight, sigmoid(x)), mul(pos_weight, target)))
        if self.should_compute_output(1):
            if pos_weight is None:
                grad_target = neg(mul(grad, x))
            else:
                # d/dt = -(x + (p - 1) log sigmoid(x))
                grad_target = neg(mul(grad, add(x, mul(sub(pos_weight, 1.0),
                                                       _log_sigmoid(x)))))
        return (grad_x, grad_target)


def _broadcast_shape(a, b):
    return broadcast_shape(tuple(a), tuple(b))


def binary_cross_entropy_with_logits(Tensor input, Tensor target, weight=None,
                                     pos_weight=None, int reduction=MEAN):
    """BCE of ``sigmoid(input)``, computed from the logits without overflow:
    ``(1 - t) x - l log sigmoid(x)`` with ``l = (pos_weight - 1) t + 1``, times ``weight``."""
    cdef BinaryCrossEntropyWithLogitsBackward0 node
    x, t = input._data, target._data
    check_no_grad(weight, "weight", "binary_cross_entropy_with_logits")
    check_no_grad(pos_weight, "pos_weight", "binary_cross_entropy_with_logits")
    if kind_of(x.dtype) == "c":
        raise NotImplementedError(f"\"log_sigmoid_cpu\" not implemented for "
                                  f"'{scalar_name(x.dtype)}'")
    if kind_of(t.dtype) not in "fc":       # the loss is built in place on 1 - target
        raise RuntimeError(f"result type Float can't be cast to the desired output type "
                           f"{scalar_name(t.dtype)}")
    if kind_of(t.dtype) == "c" and is_grad_enabled() and any_requires_grad2(input, target):
        raise RuntimeError("binary_cross_entropy_with_logits does not support automatic "
                           "differentiation for outputs with complex dtype.")
    result_type(input, target)      # refuses what PyTorch cannot promote
    # PyTorch's steps, each rounded to the dtype PyTorch keeps it in (what float16 and
    # bfloat16 operands show): log_sigmoid in the input's dtype, weighted in place by
    # ``(pos_weight - 1) * target + 1``; then the loss built in place on ``1 - target``, so
    # in the target's dtype: ``(1 - t) * x - log_sigmoid``, times ``weight``.
    log_sig = log_sigmoid_array(x)
    if pos_weight is not None:
        pw = (<Tensor>pos_weight)._data
        broadcast_shape(pw.shape, t.shape)
        log_sig = (log_sig * ((pw - 1) * t + 1)).astype(log_sig.dtype, copy=False)
    loss = ((1 - t) * x).astype(t.dtype, copy=False)
    loss = (loss - log_sig).astype(t.dtype, copy=False)
    if weight is not None:
        w = (<Tensor>weight)._data
        shape = broadcast_shape(loss.shape, w.shape)
        if shape != loss.shape:
            raise RuntimeError(f"output with shape {list(loss.shape)} doesn't match the "
                               f"broadcast shape {list(shape)}")
        loss = (loss * w).astype(t.dtype, copy=False)
    cdef Tensor out = wrap(reduce_array(loss, reduction))
    if any_requires_grad2(input, target):
        node = BinaryCrossEntropyWithLogitsBackward0()
        node.saved_reduction = reduction
        record2(node, input, target, out, (input, target, weight, pos_weight))
    if forward_level():
        forward2(out, input, target, bce_with_logits_tangent, (weight, pos_weight, reduction))
    return out


cdef object bce_with_logits_tangent(input_t, target_t, input, target, Tensor result,
                                    tuple extra):
    """``w ((l sigmoid(x) - p t) x_t - (x + (p - 1) log sigmoid(x)) t_t)``, reduced, with
    ``l = (p - 1) t + 1`` (``p`` = pos_weight; without it ``(sigmoid(x) - t) x_t - x t_t``)."""
    weight, pos_weight, reduction = extra
    x = input
    input_part = target_part = None
    if input_t is not None:
        if pos_weight is None:
            input_part = mul(input_t, sub(sigmoid(x), target))
        else:
            log_weight = add(mul(sub(pos_weight, 1.0), target), 1.0)
            input_part = mul(input_t, sub(mul(log_weight, sigmoid(x)), mul(pos_weight, target)))
    if target_t is not None:
        if pos_weight is None:
            target_part = neg(mul(target_t, x))
        else:
            target_part = neg(mul(target_t, add(x, mul(sub(pos_weight, 1.0), _log_sigmoid(x)))))
    tangent = add_terms(input_part, target_part)
    if weight is not None:
        tangent = mul(tangent, weight)
    return reduce_tangent(tangent, reduction)
