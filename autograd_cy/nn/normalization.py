"""Normalization layers' functional forms: ``layer_norm``, ``batch_norm`` and ``group_norm``,
and two composites of other ops, as in torch: ``instance_norm`` (a batch_norm of the input
seen as one example of ``N * C`` channels) and ``rms_norm`` (NOTE [RMSNorm's computation]).

All three compute ``xhat = (x - mean) * rstd`` with ``rstd = 1 / sqrt(var + eps)``, the
variance biased (divided by the count), over some dims of ``x``, then an affine
``xhat * weight + bias``. They differ only in which dims are reduced and which dims the
affine parameters run along, so one forward, one backward and one jvp serve them all,
each op a ``Function`` named as torch names its node (``NativeLayerNormBackward0``...);
a layout object (``_Rows``, ``_Channels``, ``_Groups``) says how the input is viewed, how
its means are taken and how the parameters broadcast.

# NOTE [The normalization backward]
With ``g = grad * weight`` and ``mean`` over the reduced dims, the gradient of the input is

    dx = rstd * (g - mean(g) - xhat * mean(g * xhat))

(the two means remove the parts of ``g`` that moving ``mean`` and scaling ``rstd``
cancel); ``dweight`` and ``dbias`` are sums of ``grad * xhat`` and ``grad`` over every dim
the parameters do not run along. The map ``t -> rstd * (t - mean(t) - xhat * mean(t *
xhat))`` is symmetric, so the jvp uses the same formula on the tangent. For double
backward the backward is written with Tensor ops, and under ``create_graph`` it recomputes
``xhat`` and ``rstd`` from the saved input so that they depend on it in the new graph;
without ``create_graph`` it reuses those kept by the forward.

float16 and bfloat16 inputs are normalized in float32 and rounded once, as torch's CPU
kernels do.

>>> import autograd_cy as ag
>>> import autograd_cy.nn.functional as F
>>> x = ag.tensor([[1.0, 2.0, 3.0]], requires_grad=True)
>>> y = F.layer_norm(x, (3,))
>>> [round(v, 4) for v in y.tolist()[0]]
[-1.2247, 0.0, 1.2247]
>>> y.grad_fn.name()
'NativeLayerNormBackward0'
"""
import functools
import math
import warnings

import autograd_cy as _ag
from autograd_cy._C.dtype import _c10_name
from autograd_cy._C.ops import normalization_kernels as _row_kernels
from autograd_cy._C.tensor import _array_of, _wrap_array
from autograd_cy.attached_gradients import attach, attached_op
from autograd_cy.grad_mode import is_grad_enabled

__all__ = ["layer_norm", "batch_norm", "group_norm", "instance_norm", "rms_norm"]


def _compute_dtype(x):
    """float32 for a half or bfloat16 tensor, else its own dtype."""
    return _ag.float32 if x.dtype in (_ag.float16, _ag.bfloat16) else x.dtype


class _Rows:
    """layer_norm's layout: the input seen as a matrix ``(rows, D)``, each row normalized,
    weight and bias of the normalized shape along the rows.

    The row means are products with a column of ``1 / D`` and the parameters' sums over the
    rows products with a row of ones: matrix products, fast on both backends, where NumPy's
    reductions along a short last axis are slow.
    """

    def __init__(self, input, normalized_shape):
        self.size = math.prod(normalized_shape)
        self.normalized_shape = normalized_shape
        self.rows = input.numel() // self.size if self.size else 0

    def view(self, x):
        return x.reshape(self.rows, self.size)

    def unview(self, out, input):
        return out.reshape(input.shape)

    def mean(self, t):
        scale = 1.0 / self.size if self.size else math.nan     # the mean of no values
        return _ag.matmul(t, _constant((self.size, 1), scale, t.dtype, t.device))

    def param(self, param):
        return param.reshape(self.size)

    def param_sum(self, t):
        ones = _constant((1, self.rows), 1.0, t.dtype, t.device)
        return _ag.matmul(ones, t).reshape(self.normalized_shape)


@functools.lru_cache(maxsize=32)
def _constant(shape, value, dtype, device):
    """A tensor full of ``value``, made once per shape, dtype and device (never written)."""
    return _ag.full(shape, value, dtype=dtype, device=device)


class _Channels:
    """batch_norm's layout: each channel (dim 1) normalized over the batch and the other
    dims, weight and bias one value per channel; ``stats_dtype``: the dtype the batch's
    statistics are rounded to (NOTE [Saved statistics in the parameters' dtype]).

    # NOTE [Saved statistics in the parameters' dtype]
    torch's CPU batch_norm of a float16 or bfloat16 input computes the batch's mean and
    1 / std in float32 but saves them in the parameters' dtype: the input's own where the
    weight, bias and running statistics are of it (or absent, as instance_norm's), float32
    where they are float32 (its "mixed type"). The output is then computed in float32 from
    the rounded statistics (``x * alpha + beta``, ``alpha = rstd * weight``, ``beta = bias -
    mean * alpha``), so a normalized value moves by up to the rounding of the mean (four
    units in the last place of a bfloat16 result, fuzz seed 985002639). bfloat16 also rounds
    the sum of squares and the variance (its ``BFloat16 / int64`` is a bfloat16), and updates
    the running statistics in bfloat16 arithmetic; float16 updates them from the unrounded
    float32 statistics, in double. ``_rounded_statistics`` does the same.
    """
    stats_dtype = None

    def __init__(self, input):
        self.dims = (0,) + tuple(range(2, input.dim()))
        self.param_shape = (input.shape[1],) + (1,) * (input.dim() - 2)

    def view(self, x):
        return x

    def unview(self, out, input):
        return out

    def mean(self, t):
        return t.mean(self.dims, keepdim=True)

    def param(self, param):
        return param.reshape(self.param_shape)

    def param_sum(self, t):
        return t.sum(self.dims)


class _Groups:
    """group_norm's layout: the channels (dim 1) split into groups, each group of each
    sample normalized over its channels and the other dims, seen as ``(N, G, C / G, L)``;
    weight and bias one value per channel."""

    def __init__(self, input, groups):
        # the last size spelled out: -1 is ambiguous in an empty batch
        self.shape = (input.shape[0], groups, input.shape[1] // groups,
                      math.prod(input.shape[2:]))
        self.channels = input.shape[1]

    def view(self, x):
        return x.reshape(self.shape)

    def unview(self, out, input):
        return out.reshape(input.shape)

    def mean(self, t):
        return t.mean((2, 3), keepdim=True)

    def param(self, param):
        return param.reshape(1, self.shape[1], self.shape[2], 1)

    def param_sum(self, t):
        return t.sum((0, 3)).reshape(self.channels)


def _normalized(x, layout, eps):
    """``(xhat, rstd, mean, var)`` of ``x`` (biased variance); the statistics keep the
    reduced dims at size 1."""
    mean = layout.mean(x)
    centered = x - mean
    var = layout.mean(centered * centered)
    rstd = (var + eps).rsqrt()
    return centered * rstd, rstd, mean, var


def _as_saved(x, xhat, rstd, mean, input_dtype):
    """``(xhat, rstd)`` as torch's backward reads them: for a half or bfloat16 input its
    forward saves mean and rstd rounded to the input's dtype (computing in float32 all the
    same), so the backward's come from the rounded statistics."""
    if x.dtype == input_dtype:
        return xhat, rstd
    rstd = rstd.to(input_dtype).to(x.dtype)
    return (x - mean.to(input_dtype).to(x.dtype)) * rstd, rstd


def _rounded_statistics(x, w, bias, layout, eps, running, dtype):
    """``(xhat, rstd, out)`` of a batch_norm whose statistics round to ``layout.stats_dtype``
    (NOTE [Saved statistics in the parameters' dtype]), ``running`` updated as torch's
    kernel updates it."""
    low = layout.stats_dtype
    count = x.numel() // x.shape[1]
    mean = layout.mean(x)
    var_sum = ((x - mean) * (x - mean)).sum(layout.dims, keepdim=True)
    if low == _ag.bfloat16:     # the sum and its quotient by the count round to bfloat16
        var_sum = var_sum.to(low).to(dtype)
        var = (var_sum / count).to(low).to(dtype)
    else:
        var = var_sum / count
    rstd = (var.double() + eps).rsqrt().to(dtype).to(low).to(dtype)
    if running is not None and low == _ag.float16:      # from the unrounded statistics
        _update_running(running, mean, var, count)
        running = None
    mean_low = mean.to(low)
    mean = mean_low.to(dtype)
    xhat = (x - mean) * rstd
    alpha = rstd if w is None else rstd * w      # torch's x * alpha + beta
    beta = -(mean * alpha)
    if bias is not None:
        beta = _param_view(bias, layout, dtype) + beta
    out = x * alpha + beta
    if running is not None:
        running_mean, running_var, momentum = running
        momentum = _ag.tensor(momentum, dtype=low)
        keep = 1 - momentum                  # each op of the low dtype rounds to it
        if running_mean is not None:
            _overwrite(running_mean, momentum * mean_low.reshape(running_mean.shape)
                       + keep * running_mean)
        if running_var is not None:
            unbiased = (var_sum / (count - 1)).to(low).to(dtype)
            _overwrite(running_var, (momentum.to(dtype) * unbiased.reshape(running_var.shape)
                                     + (keep * running_var).to(dtype)).to(low))
    return xhat, rstd, out


def _input_gradient(g, xhat, rstd, layout):
    """NOTE [The normalization backward]: ``rstd * (g - mean(g) - xhat * mean(g * xhat))``."""
    centered = g - layout.mean(g)
    return (centered - xhat * layout.mean(g * xhat)) * rstd


class _Normalization(_ag.autograd.Function):
    """``normalize(input) * weight + bias``, the dims as ``layout`` (``_Rows`` or
    ``_Channels``) says. ``stats`` fixes ``(mean, rstd)`` (batch_norm's eval mode, not
    differentiated: torch's running statistics get no gradient); None computes them, and
    then ``running`` (``(running_mean, running_var, momentum)`` or None) is updated in
    place with them, as torch's kernel does. The running statistics given are saved.
    """
    builtin_op = True

    @staticmethod
    def forward(ctx, input, weight, bias, layout, eps, stats, running):
        dtype = _compute_dtype(input)
        x = layout.view(input.to(dtype))
        w = _param_view(weight, layout, dtype)
        # (not for a half input, whose backward reads rounded statistics: _as_saved)
        fused = (_rows_forward(x, w, bias, layout, eps) if stats is None and x.dtype == input.dtype
                 else None)
        if fused is not None:
            out, xhat, rstd = fused
        elif stats is None and getattr(layout, "stats_dtype", None) is not None:
            xhat, rstd, out = _rounded_statistics(x, w, bias, layout, eps, running, dtype)
            fused = (out, xhat, rstd)       # the output is complete
        elif stats is None:
            xhat, rstd, mean, var = _normalized(x, layout, eps)
            if running is not None:
                _update_running(running, mean, var, x.numel() // mean.numel())
        else:
            xhat = (x - stats[0]) * stats[1]
            rstd = stats[1]
        if fused is None:
            out = xhat if w is None else xhat * w
        if fused is None and bias is not None:    # in place on a new product, never on xhat
            b = _param_view(bias, layout, dtype)
            out = out + b if w is None else out.add_(b)
        if fused is None and stats is None:
            xhat, rstd = _as_saved(x, xhat, rstd, mean, input.dtype)
        # the running statistics too, unread, as torch's node saves them (in either mode):
        # writing one in place afterwards makes the backward refuse
        buffers = () if running is None else tuple(b for b in running[:2] if b is not None)
        ctx.save_for_backward(input, weight, *buffers)
        ctx.xhat, ctx.rstd, ctx.layout, ctx.eps, ctx.stats = xhat, rstd, layout, eps, stats
        ctx.weight_view = w
        ctx.bias_dtype = None if bias is None else bias.dtype
        ctx.bias = bias if bias is not None and bias.requires_grad else None
        return _fresh_output(layout.unview(out, input).to(input.dtype), xhat)

    @staticmethod
    def backward(ctx, grad):
        input, weight = ctx.saved_tensors[:2]
        layout = ctx.layout
        dtype = _compute_dtype(input)
        grad = layout.view(grad.to(dtype))
        xhat, rstd, w = ctx.xhat, ctx.rstd, ctx.weight_view
        if is_grad_enabled():       # create_graph: xhat and weight as functions of inputs
            x = layout.view(input.to(dtype))
            if ctx.stats is None and getattr(layout, "stats_dtype", None) is not None:
                # the forward's own rounding (bfloat16's variance included)
                xhat, rstd, _ = _rounded_statistics(x, None, None, layout, ctx.eps, None,
                                                    dtype)
            elif ctx.stats is None:
                xhat, rstd, mean, _ = _normalized(x, layout, ctx.eps)
                xhat, rstd = _as_saved(x, xhat, rstd, mean, input.dtype)
            else:
                xhat = (x - ctx.stats[0]) * rstd
            w = _param_view(weight, layout, dtype)
        needs = ctx.needs_input_grad
        grad_input = grad_weight = grad_bias = None
        if needs[0]:
            grad_input = _rows_input_gradient(grad, xhat, rstd, w, layout)
            g = grad if w is None or grad_input is not None else grad * w
            if grad_input is not None:
                pass
            elif ctx.stats is None:
                grad_input = _input_gradient(g, xhat, rstd, layout)
            else:
                grad_input = g * rstd
            grad_input = layout.unview(grad_input, input).to(input.dtype)
        if needs[1]:
            grad_weight = layout.param_sum(grad * xhat).to(weight.dtype)
        if needs[2]:
            grad_bias = layout.param_sum(grad).to(ctx.bias_dtype)
        if is_grad_enabled():       # NOTE [Normalization gradients that require grad]
            attached = type(ctx)._forward_cls.attached
            inputs = [t for kind, t in zip("iwb", ctx.saved_tensors[:2] + (ctx.bias,))
                      if kind in attached.tied]
            grad_input, grad_weight, grad_bias = (
                attach(g, attached.op, *inputs) if kind in attached else g
                for kind, g in zip("iwb", (grad_input, grad_weight, grad_bias)))
        return grad_input, grad_weight, grad_bias, None, None, None, None

    @staticmethod
    def jvp(ctx, input_t, weight_t, bias_t, layout_t, eps_t, stats_t, running_t):
        """Forward AD: the Jacobian of ``xhat`` is symmetric (NOTE [The normalization
        backward]), so the input's tangent goes through the backward's formula."""
        layout = ctx.layout
        dtype = _compute_dtype(input_t)
        t = layout.view(input_t.to(dtype))
        if ctx.stats is None:
            xhat_t = _input_gradient(t, ctx.xhat, ctx.rstd, layout)
        else:
            xhat_t = t * ctx.rstd
        w = ctx.weight_view
        out_t = xhat_t if w is None else xhat_t * w
        if weight_t is not None:
            out_t = out_t + ctx.xhat * _param_view(weight_t, layout, dtype)
        if bias_t is not None:
            out_t = out_t + _param_view(bias_t, layout, dtype)
        return layout.unview(out_t, input_t).to(input_t.dtype)


def _rows_forward(x, w, bias, layout, eps):
    """``(out, xhat, rstd)`` of layer_norm by its row loops (NOTE [Layer norm in rows] in
    pyx/ops/normalization_kernels.pyx), or None: for ``_Rows`` of a CPU float32/float64
    input with parameters of its dtype, where nothing records (the Function's forward)."""
    if type(layout) is not _Rows or is_grad_enabled():
        return None
    b = None if bias is None else _array_of(bias)
    result = _row_kernels.normalize(_array_of(x), None if w is None else _array_of(w),
                                    None if b is None else b.reshape(-1), eps)
    if result is None:
        return None
    out, xhat, _, rstd, _ = result
    if out is xhat:         # no weight, no bias: the output is a copy (the backward keeps xhat)
        out = out.copy()
    return _wrap_array(out), _wrap_array(xhat), _wrap_array(rstd)


def _rows_input_gradient(grad, xhat, rstd, w, layout):
    """layer_norm's input gradient by the row loops, or None (as ``_rows_forward``; under
    create_graph the backward records Tensor ops instead)."""
    if type(layout) is not _Rows or is_grad_enabled():
        return None
    result = _row_kernels.input_gradient(_array_of(grad), _array_of(xhat), _array_of(rstd),
                                         None if w is None else _array_of(w))
    return None if result is None else _wrap_array(result)


def _fresh_output(out, xhat):
    """``out`` as a tensor of its own, as torch's kernels return it: a copy where it is
    ``xhat`` or a view of it (no weight, no bias), which the backward keeps, and no view
    (of the 2-D or grouped form it was computed in), so that an in-place op may write it."""
    if out is xhat or out._base is not None and (out._base is xhat or out._base is xhat._base):
        return out.clone()
    return _wrap_array(_array_of(out)) if out._base is not None else out


def _param_view(param, layout, dtype):
    """``param`` (None allowed) in ``dtype``, shaped to broadcast against the input."""
    return None if param is None else layout.param(param.to(dtype))


def _update_running(running, mean, var, count):
    """``running = (1 - momentum) * running + momentum * batch``, with the batch's unbiased
    variance (``var * n / (n - 1)``) for the running estimate: the biased one normalizes.
    Written into the buffers' arrays, as torch's kernel writes them: their version does not
    change, so a graph that saved them stays usable."""
    running_mean, running_var, momentum = running
    if any(r is not None and r.dtype == _ag.float16 for r in (running_mean, running_var)):
        # torch's float16 kernel: the float32 statistics, in double, rounded once
        for buffer, batch in ((running_mean, mean), (running_var, var * (count / (count - 1)))):
            if buffer is not None:
                _overwrite(buffer, (batch.reshape(buffer.shape).double() * momentum
                                    + buffer.double() * (1 - momentum)).to(buffer.dtype))
        return
    if running_mean is not None:
        batch = mean.reshape(running_mean.shape).to(running_mean.dtype)
        _overwrite(running_mean, batch * momentum + running_mean * (1 - momentum))
    if running_var is not None:
        unbiased = var.reshape(running_var.shape) * (count / (count - 1))
        _overwrite(running_var, unbiased.to(running_var.dtype) * momentum
                   + running_var * (1 - momentum))


def _overwrite(buffer, values):
    _array_of(buffer)[...] = _array_of(values)


# NOTE [Normalization gradients that require grad]
# Under create_graph torch's layer_norm and batch_norm backward is one op
# (native_layer_norm_backward, batch_norm_backward) whose inputs include the forward's
# mean and rstd outputs, which require grad wherever the node exists: every gradient it
# returns requires grad, that of a bias too, though it is a sum of ``grad`` alone.
# group_norm's is written with Tensor ops, where only the weight's gradient reads mean and
# rstd. Ours recomputes the statistics from the input, so a gradient that does not depend
# on an input requiring grad is attached to the op's inputs (NOTE [Gradients attached to
# the inputs of torch's backward op]).

class _AttachedGradients(str):
    """Which gradients (of "iwb": input, weight, bias) torch's backward gives a history,
    the op (``attached_op``) that records it and which of the op's inputs (``tied``, of
    "iwb") torch's backward-of-the-backward reaches (batch_norm's not the bias)."""

    def __new__(cls, kinds, node_name, tied="iwb"):
        self = super().__new__(cls, kinds)
        self.op, self.tied = attached_op(node_name), tied
        return self


class NativeLayerNorm(_Normalization):
    """``layer_norm``'s op: the last dims normalized, weight and bias along them."""
    attached = _AttachedGradients("iwb", "NativeLayerNormBackwardBackward0")


class NativeGroupNorm(_Normalization):
    """``group_norm``'s op: groups of channels normalized per sample, weight and bias per
    channel."""
    attached = _AttachedGradients("w", "ViewBackward0")     # torch reshapes it last


class NativeBatchNorm(_Normalization):
    """``batch_norm``'s op: every dim but the channels' (dim 1) normalized, weight and bias
    per channel."""
    attached = _AttachedGradients("iwb", "NativeBatchNormBackwardBackward0", tied="iw")


# The nodes named as torch's (a Function's node is otherwise <Function>Backward).
NativeLayerNorm._backward_cls.__name__ = "NativeLayerNormBackward0"
NativeBatchNorm._backward_cls.__name__ = "NativeBatchNormBackward0"
NativeGroupNorm._backward_cls.__name__ = "NativeGroupNormBackward0"


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5):
    """Normalize over the last ``len(normalized_shape)`` dims (mean 0, biased variance 1),
    then scale by ``weight`` and shift by ``bias`` (both of ``normalized_shape``)."""
    if not isinstance(normalized_shape, (tuple, list, _ag.Size)):
        raise TypeError("layer_norm(): argument 'normalized_shape' (position 2) must be tuple "
                        f"of ints, not {type(normalized_shape).__name__}")
    shape = tuple(int(n) for n in normalized_shape)
    _check_layer_norm(input, shape, weight, bias)
    return NativeLayerNorm.apply(input, weight, bias, _Rows(input, shape), eps, None, None)


def _check_layer_norm(input, shape, weight, bias):
    if not shape:
        raise RuntimeError("Expected normalized_shape to be at least 1-dimensional, i.e., "
                           "containing at least one element, but got normalized_shape = []")
    for name, param in (("weight", weight), ("bias", bias)):
        if param is not None and tuple(param.shape) != shape:
            raise RuntimeError(f"Expected {name} to be of same shape as normalized_shape, but "
                               f"got {name} of shape {list(param.shape)} and normalized_shape "
                               f"= {list(shape)}")
    if tuple(input.shape[input.dim() - len(shape):]) != shape or input.dim() < len(shape):
        raise RuntimeError(f"Given normalized_shape={list(shape)}, expected input with shape "
                           f"[*, {', '.join(str(n) for n in shape)}], but got input of size"
                           f"{list(input.shape)}")
    _check_parameter_dtypes(input, "LayerNormKernelImpl", weight, bias)


# NOTE [Mixed dtypes of a normalization on the CPU]
# torch's CPU layer_norm, group_norm and batch_norm call their parameters "mixed" when the
# first one given (in the order of the call: weight, bias, then running_mean, running_var)
# is not of the input's dtype. Mixed parameters must all be float32 ("expect parameter to
# have scalar type of Float"), and then the input float16 or bfloat16 ("all inputs must
# share same datatype"): both checked before the kernel's dispatch on the input's dtype,
# which refuses anything but a floating dtype (a complex one too). Parameters that are not
# mixed are read as the input's dtype by the kernel: one of another dtype is refused after
# the dispatch ("expected scalar type Half but found Double").

def _check_parameter_dtypes(input, kernel, *params):
    """torch's CPU checks of the input's and the parameters' dtypes, in its order (NOTE
    [Mixed dtypes of a normalization on the CPU]); ``kernel`` names the dispatch."""
    given = [p.dtype for p in params if p is not None]
    if given and given[0] != input.dtype:
        if any(dtype != _ag.float32 for dtype in given):
            raise RuntimeError("mixed dtype (CPU): expect parameter to have scalar type of "
                               "Float")
        if input.dtype not in (_ag.float16, _ag.bfloat16):
            raise RuntimeError("mixed dtype (CPU): all inputs must share same datatype.")
        return
    if not input.dtype.is_floating_point:
        if _ag.is_grad_enabled() and input.requires_grad:
            input.grad_fn       # torch's autograd reads it first: a stale view's error
        raise NotImplementedError(f"\"{kernel}\" not implemented for "
                                  f"'{input.dtype._scalar_name}'")
    for dtype in given[1:]:
        if dtype != input.dtype:
            raise RuntimeError(f"expected scalar type {input.dtype._scalar_name} but found "
                               f"{dtype._scalar_name}")


def batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False,
               momentum=0.1, eps=1e-5):
    """Normalize each channel (dim 1) of ``input`` over the batch and the other dims.

    In training the batch's statistics normalize (biased variance) and ``running_mean`` /
    ``running_var``, when given, move towards them by ``momentum`` in place (unbiased
    variance); in eval mode the running statistics normalize.
    """
    if training:
        size = input.shape[0] * math.prod(input.shape[2:])
        if size == 1:
            raise ValueError("Expected more than 1 value per channel when training, got "
                             f"input size {input.size()}")
    if training and eps <= 0.0:
        raise ValueError(f"batch_norm eps must be positive during training, but got {eps}")
    if eps < 0.0:
        raise ValueError(f"batch_norm eps must be non-negative, but got {eps}")
    if input.numel() == 0:      # torch's: a copy (weight and bias indexed), nothing checked
        out = input.clone()
        if weight is not None:
            out = out * weight[0]
        if bias is not None:
            out = out + bias[0]
        return out
    channels = input.shape[1] if input.dim() > 1 else 0
    _check_batch_norm(input, running_mean, running_var, weight, bias, channels, training)
    layout = _Channels(input)
    if training:
        if _compute_dtype(input) != input.dtype and all(
                p is None or p.dtype == input.dtype
                for p in (weight, bias, running_mean, running_var)):
            layout.stats_dtype = input.dtype
        running = None if running_mean is None and running_var is None else (
            running_mean, running_var, momentum)
        return NativeBatchNorm.apply(input, weight, bias, layout, eps, None, running)
    dtype = _compute_dtype(input)
    mean = layout.param(running_mean.to(dtype))
    rstd = layout.param((running_var.to(dtype) + eps).rsqrt())
    return NativeBatchNorm.apply(input, weight, bias, layout, eps, (mean, rstd),
                                 (running_mean, running_var, None))


def _check_batch_norm(input, running_mean, running_var, weight, bias, channels, training):
    params = [p for p in (weight, bias, running_mean, running_var) if p is not None]
    for name, param in (("weight", weight), ("bias", bias), ("running_mean", running_mean),
                        ("running_var", running_var)):
        if param is not None and param.numel() != channels:
            raise RuntimeError(f"{name} should contain {channels} elements not "
                               f"{param.numel()}")
    if training and (running_mean is None) != (running_var is None):
        raise ValueError("running_mean and running_var must either both be None or neither "
                         "be None")
    if not training:
        for name, param in (("running_mean", running_mean), ("running_var", running_var)):
            if param is None:
                raise RuntimeError(f"{name} must be defined in evaluation mode")
    # the dispatch on the input's dtype comes first here (NOTE [Mixed dtypes of a
    # normalization on the CPU])
    _check_parameter_dtypes(input, "batch_norm")
    _check_parameter_dtypes(input, "batch_norm", *params)


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-5):
    """Split the channels (dim 1) into ``num_groups`` groups and normalize each group of
    each sample over its channels and the other dims; ``weight`` and ``bias`` per channel."""
    if input.dim() < 2:
        raise RuntimeError("Expected at least 2 dimensions for input tensor but received "
                           f"{input.dim()}")
    channels = input.shape[1]
    size = [input.shape[0] * channels // num_groups, num_groups] + list(input.shape[2:])
    if size[0] * math.prod(size[2:]) == 1:
        raise ValueError(f"Expected more than 1 value per channel when training, got input "
                         f"size {size}")
    if channels % num_groups:
        raise RuntimeError("Expected number of channels in input to be divisible by "
                           f"num_groups, but got input of shape {list(input.shape)} and "
                           f"num_groups={num_groups}")
    for name, param in (("weight", weight), ("bias", bias)):
        if param is not None and (param.dim() != 1 or param.numel() != channels):
            raise RuntimeError(f"Expected {name} to be a vector of size equal to the number of "
                               f"channels in input, but got {name} of shape "
                               f"{list(param.shape)} and input of shape {list(input.shape)}")
    _check_parameter_dtypes(input, "GroupNormKernelImpl", weight, bias)
    return NativeGroupNorm.apply(input, weight, bias, _Groups(input, num_groups), eps, None,
                                 None)


def instance_norm(input, running_mean=None, running_var=None, weight=None, bias=None,
                  use_input_stats=True, momentum=0.1, eps=1e-5):
    """Normalize each channel of each example over its spatial dims.

    As torch computes it: the input ``(N, C, *)`` viewed as ``(1, N * C, *)``, one
    ``batch_norm`` over it with the parameters and running statistics repeated ``N``
    times; the running statistics then take the mean of their ``N`` updated copies.
    """
    if use_input_stats:
        if math.prod(input.shape[2:]) == 1:
            raise ValueError("Expected more than 1 spatial element when training, got input "
                             f"size {input.size()}")
    if not use_input_stats and (running_mean is None or running_var is None):
        raise RuntimeError("Expected running_mean and running_var to be defined when "
                           "use_input_stats is false")
    if not input.dtype.is_floating_point:
        raise NotImplementedError(f"\"batch_norm\" not implemented for "
                                  f"'{input.dtype._scalar_name}'")
    batch, channels = input.shape[0], input.shape[1]

    def repeated(t):
        return None if t is None else t.repeat(batch)
    mean, var = repeated(running_mean), repeated(running_var)
    # looked up when called, as vmap may have swapped it (NOTE [How vmap reaches the ops])
    view = input.contiguous().view((1, batch * channels) + tuple(input.shape[2:]))
    out = _ag.nn.functional.batch_norm(view, mean, var, repeated(weight), repeated(bias),
                                       use_input_stats, momentum, eps)
    with _ag.no_grad():
        for running, updated in ((running_mean, mean), (running_var, var)):
            if running is not None:
                running.copy_(updated.view(batch, channels).mean(0))
    return out.view(input.shape)


def rms_norm(input, normalized_shape, weight=None, eps=None):
    """``input / sqrt(mean(input^2) + eps) * weight`` over the last
    ``len(normalized_shape)`` dims; ``eps=None`` is the machine epsilon of the computation's
    dtype.

    # NOTE [RMSNorm's computation]
    torch composes it of other ops (there is no RMSNorm node): half and bfloat16 inputs are
    computed in float32, ``x * rsqrt(mean(x^2) + eps)`` (so ``eps=None`` is float32's
    epsilon for them), times ``weight`` in the promoted dtype, and the result cast back to
    the input's dtype at the end. A complex input's ``x^2`` is the complex square, as
    torch's (not ``|x|^2``), and ``eps=None`` its real dtype's epsilon.
    """
    if not isinstance(normalized_shape, (tuple, list, _ag.Size)):
        raise TypeError("rms_norm(): argument 'normalized_shape' (position 2) must be tuple "
                        f"of ints, not {type(normalized_shape).__name__}")
    shape = tuple(int(n) for n in normalized_shape)
    _check_rms_norm(input, shape, weight)
    if weight is not None and weight.dtype != input.dtype:
        warnings.warn(f"Mismatch dtype between input and weight: input dtype = "
                      f"{_c10_name(input.dtype)}, weight dtype = {_c10_name(weight.dtype)}, "
                      "Cannot dispatch to fused implementation.", stacklevel=2)
    x = input.to(_compute_dtype(input))
    if eps is None:
        eps = _ag.finfo(x.dtype).eps
    dims = tuple(range(-len(shape), 0))
    result = x * (x.pow(2).mean(dims, keepdim=True) + eps).rsqrt()
    if weight is not None:
        result = result * weight
    return result.to(input.dtype)


def _check_rms_norm(input, shape, weight):
    if not shape:
        raise RuntimeError("Expected normalized_shape to be at least 1-dimensional, i.e., "
                           "containing at least one element, but got normalized_shape = []")
    if weight is not None and tuple(weight.shape) != shape:
        raise RuntimeError(f"Expected weight to be of same shape as normalized_shape, but got "
                           f"weight of shape {list(weight.shape)} and normalized_shape = "
                           f"{list(shape)}")
    if input.dim() < len(shape) or tuple(input.shape[input.dim() - len(shape):]) != shape:
        raise RuntimeError(f"Given normalized_shape={list(shape)}, expected input with shape "
                           f"[*{', '.join(str(n) for n in shape)}], but got input of size"
                           f"{list(input.shape)}")
    if not (input.dtype.is_floating_point or input.dtype.is_complex):
        raise NotImplementedError(f"\"rms_norm\" not implemented for "
                                  f"'{input.dtype._scalar_name}'")
