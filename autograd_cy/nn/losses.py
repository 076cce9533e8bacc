"""The losses of ``nn.functional`` beyond mse, l1, nll, cross entropy and binary cross
entropy: the regression losses (smooth L1, Huber, Poisson and Gaussian negative log
likelihood, KL divergence) and the margin losses (ranking, hinge, cosine embedding, soft
margin, multi-class and multi-label margins, triplet).

Each is built as torch builds it, so each graph ends in the node torch's ends in. Most
are composites of the library's ops (``kl_div``'s graph ends in ``SubBackward0``,
``margin_ranking_loss``'s in ``ClampMinBackward0``, a reduced one in ``MeanBackward0`` or
``SumBackward0``), and so have double backward and forward-mode AD from their parts.
Five have a node of their own in torch (``SmoothL1LossBackward0``, ``HuberLossBackward0``,
``SoftMarginLossBackward0``, ``MultiMarginLossBackward0``,
``MultilabelMarginLossBackward0``): here each is a ``Function`` whose backward is the
loss's gradient written with Tensor ops, so it is differentiable again.

>>> import autograd_cy as ag
>>> import autograd_cy.nn.functional as F
>>> x = ag.tensor([0.5, 3.0], requires_grad=True)
>>> loss = F.smooth_l1_loss(x, ag.zeros(2))
>>> loss.item(), loss.grad_fn.name()
(1.3125, 'SmoothL1LossBackward0')
"""
import math
import warnings

import autograd_cy as _ag
from autograd_cy._C.tensor import _array_of, _wrap_array
from autograd_cy.dtypes import _refuse_complex
from autograd_cy.nn import functional as _F
from autograd_cy.nn.distance import pairwise_distance

__all__ = ["smooth_l1_loss", "huber_loss", "kl_div", "poisson_nll_loss", "gaussian_nll_loss",
           "margin_ranking_loss", "hinge_embedding_loss", "cosine_embedding_loss",
           "soft_margin_loss", "multi_margin_loss", "multilabel_margin_loss",
           "multilabel_soft_margin_loss", "triplet_margin_loss",
           "triplet_margin_with_distance_loss"]


# ------------------------------------------------------------------ helpers

def _reduction(size_average, reduce, reduction):
    """``reduction``, or the one the deprecated ``size_average`` / ``reduce`` name."""
    if size_average is not None or reduce is not None:
        return _F._legacy_reduction(size_average, reduce)
    return reduction


def _reduce(loss, reduction):
    """``loss`` summed, averaged or left as it is, after checking ``reduction``."""
    _F._reduction_enum(reduction)
    return _F._apply_reduction(loss, reduction)


# ------------------------------------------------------------------ pointwise losses with a node

class _Pointwise:
    """What a pointwise loss with its own node computes: ``value(x, t)`` of the input and
    the target and its partial derivatives; ``promotes``: whether the result takes the
    promoted dtype of the two (torch's smooth_l1_loss) or the input's (huber, soft margin);
    ``same_dtype_backward``: whether the backward refuses a target of another dtype;
    ``own_dtype``: computed in that dtype even for float16 and bfloat16 (else in float32)."""
    promotes = False
    same_dtype_backward = False
    own_dtype = False


class _SmoothL1(_Pointwise):
    """``0.5 d^2 / beta`` where ``|d| < beta``, else ``|d| - 0.5 beta``."""
    promotes = True

    def __init__(self, beta):
        self.beta = beta

    def value(self, x, t):
        d = (x - t).abs()
        return _ag.where(d < self.beta, d * d * (0.5 / self.beta), d - 0.5 * self.beta)

    def partials(self, x, t):
        d = x - t
        if self.beta == 0:      # l1_loss's
            dx = d.sign()
        else:                   # torch's tests, so that NaN takes the middle (d / beta)
            dx = _ag.where(d < -self.beta, -1.0, _ag.where(d > self.beta, 1.0, d / self.beta))
        return dx, -dx


class _Huber(_Pointwise):
    """``0.5 d^2`` where ``|d| < delta``, else ``delta (|d| - 0.5 delta)``: smooth L1
    scaled by ``delta``."""

    # torch's backward kernel takes the target in the input's dtype only (its forward
    # converts it)
    same_dtype_backward = True

    def __init__(self, delta):
        self.delta = delta

    def value(self, x, t):
        d = (x - t).abs()
        return _ag.where(d < self.delta, d * d * 0.5, (d - 0.5 * self.delta) * self.delta)

    def partials(self, x, t):
        d = x - t
        dx = d.clamp(-self.delta, self.delta)
        return dx, -dx


class _SoftMargin(_Pointwise):
    """``log(1 + exp(-target * input))``; torch has no derivative for the target. Composed
    of ops in the input's own dtype, as torch's (a float16 ``exp`` overflows to inf)."""
    own_dtype = True

    def value(self, x, t):
        return (-(x * t)).exp().log1p()

    def partials(self, x, t):
        z = (-(t * x)).exp()
        return -(t * z) / (z + 1), None

    def input_gradient(self, x, t, grad, norm):
        """torch's order: ``t z (-norm) / (1 + z) * grad``, ``z = exp(-t x)``."""
        z = (-(t * x)).exp()
        return t * z * -norm / (z + 1) * grad


class _PointwiseLoss(_ag.autograd.Function):
    """A pointwise loss reduced by ``reduction``; ``kind`` (a ``_Pointwise``) says what.

    The backward is ``grad * d loss / d input`` (divided by the count for 'mean'), with the
    partials recomputed from the saved inputs, so under ``create_graph`` they depend on them.
    """
    builtin_op = True

    @staticmethod
    def forward(ctx, input, target, reduction, kind):
        result_dtype = (_ag.promote_types(input.dtype, target.dtype) if kind.promotes
                        else input.dtype)
        dtype = result_dtype if kind.own_dtype else _compute_dtype(result_dtype)
        x, t = input.to(dtype), target.to(dtype)
        ctx.save_for_backward(input, target)
        ctx.kind, ctx.reduction, ctx.dtype = kind, reduction, dtype
        ctx.operands = x, t               # for the jvp (saved tensors are for the backward)
        ctx.result_dtype = result_dtype
        value = kind.value(x, t)
        if dtype != result_dtype:   # torch's kernel rounds each loss to float16/bfloat16 first
            value = value.to(result_dtype).to(dtype)
        return _F._apply_reduction(value, reduction).to(result_dtype)

    @staticmethod
    def backward(ctx, grad):
        input, target = ctx.saved_tensors
        if ctx.kind.same_dtype_backward and target.dtype != input.dtype:
            raise RuntimeError(f"Found dtype {target.dtype._scalar_name} but expected "
                               f"{input.dtype._scalar_name}")
        if ctx.kind.own_dtype:
            # (torch's 1. / numel: inf for an empty input, whose gradient is empty anyway)
            norm = (1.0 / input.numel() if input.numel() else math.inf) \
                if ctx.reduction == "mean" else 1.0
            grad_input = ctx.kind.input_gradient(input, target, grad, norm)
            return grad_input if ctx.needs_input_grad[0] else None, None, None, None
        dx, dt = ctx.kind.partials(input.to(ctx.dtype), target.to(ctx.dtype))
        scale = grad.to(ctx.dtype)
        if ctx.reduction == "mean":
            scale = scale / input.numel()
        needs = ctx.needs_input_grad
        grad_input = (scale * dx).to(input.dtype) if needs[0] else None
        grad_target = (scale * dt).to(target.dtype) if needs[1] and dt is not None else None
        return grad_input, grad_target, None, None

    @staticmethod
    def jvp(ctx, input_t, target_t, reduction_t, kind_t):
        dx, dt = ctx.kind.partials(*ctx.operands)
        out_t = 0
        if input_t is not None:
            out_t = dx * input_t.to(ctx.dtype)
        if target_t is not None and dt is not None:
            out_t = out_t + dt * target_t.to(ctx.dtype)
        return _F._apply_reduction(out_t, ctx.reduction).to(ctx.result_dtype)


def _compute_dtype(dtype):
    """float32 for half or bfloat16 (torch computes these losses in float32)."""
    return _ag.float32 if dtype in (_ag.float16, _ag.bfloat16) else dtype


class SmoothL1Loss(_PointwiseLoss):
    """``smooth_l1_loss``'s op."""


class HuberLoss(_PointwiseLoss):
    """``huber_loss``'s op."""


class SoftMarginLoss(_PointwiseLoss):
    """``soft_margin_loss``'s op."""


SmoothL1Loss._backward_cls.__name__ = "SmoothL1LossBackward0"
HuberLoss._backward_cls.__name__ = "HuberLossBackward0"
SoftMarginLoss._backward_cls.__name__ = "SoftMarginLossBackward0"


def smooth_l1_loss(input, target, size_average=None, reduce=None, reduction="mean",
                   beta=1.0):
    """Squared error below ``beta`` (scaled by ``1 / beta``), absolute error above: L1's
    robustness to outliers with a gradient that goes to 0 at the target. ``beta = 0`` is
    the L1 loss (and its graph)."""
    _F._warn_target_size(input, target, stacklevel=3)
    reduction = _reduction(size_average, reduce, reduction)
    _F._reduction_enum(reduction)
    if beta < 0:
        raise RuntimeError("smooth_l1_loss does not support negative values for beta.")
    if beta == 0.0:
        return _F.l1_loss(input, target, reduction=reduction)
    input, target = _F._broadcast_pair(input, target)
    _refuse_complex(_ag.promote_types(input.dtype, target.dtype), "smooth_l1_cpu")
    return SmoothL1Loss.apply(input, target, reduction, _SmoothL1(beta))


def huber_loss(input, target, reduction="mean", delta=1.0, weight=None):
    """Squared error (halved) below ``delta``, ``delta`` times the absolute error above;
    a ``weight`` of the input's shape scales each term (and 'mean' is then the plain mean of
    the weighted terms)."""
    _F._warn_target_size(input, target, stacklevel=3)
    if delta <= 0:
        raise RuntimeError("huber_loss does not support non-positive values for delta.")
    input, target = _F._broadcast_pair(input, target)
    _check_written_into_input(input, target)    # before the kernel's dtype refusal, as torch
    _refuse_complex(_ag.promote_types(input.dtype, target.dtype), "huber_cpu")
    if weight is None:
        _F._reduction_enum(reduction)
        return HuberLoss.apply(input, target, reduction, _Huber(delta))
    if weight.shape != input.shape:
        raise ValueError("Weights and input must have the same size.")
    loss = HuberLoss.apply(input, target, "none", _Huber(delta)) * weight
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(f"Invalid reduction mode: {reduction}. Expected one of 'none', "
                         "'mean', 'sum'.")
    return _F._apply_reduction(loss, reduction)


def soft_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    """``log(1 + exp(-y x))`` for labels ``y`` of 1 or -1: a smooth two-class margin."""
    reduction = _reduction(size_average, reduce, reduction)
    _F._reduction_enum(reduction)
    if target.requires_grad:
        raise RuntimeError("The function 'soft_margin_loss' is not differentiable with respect "
                           "to argument 'target'. This input cannot have requires_grad True.")
    if input.is_complex() and input.requires_grad and _ag.is_grad_enabled():
        raise RuntimeError("soft_margin_loss does not support automatic differentiation for "
                           "outputs with complex dtype.")
    shape = _ag.broadcast_shapes(input.shape, target.shape)
    if shape != input.shape:     # torch's kernel writes -input * target into input's shape
        raise RuntimeError(f"output with shape {list(input.shape)} doesn't match the "
                           f"broadcast shape {list(shape)}")
    input, target = _F._broadcast_pair(input, target)
    _check_written_into_input(input, target)
    return SoftMarginLoss.apply(input, target, reduction, _SoftMargin())


def _check_written_into_input(input, target):
    """torch computes the loss into a tensor of ``input``'s dtype (``mul_(target)``): a
    complex target of a real input is refused as the in-place cast is."""
    result = _ag.promote_types(input.dtype, target.dtype)
    if not _ag.can_cast(result, input.dtype):
        raise RuntimeError(f"result type {result._scalar_name} can't be cast to the desired "
                           f"output type {input.dtype._scalar_name}")


# ------------------------------------------------------------------ composite regression losses

def kl_div(input, target, size_average=None, reduce=None, reduction="mean", log_target=False):
    """KL divergence ``target * (log target - input)`` of log-probabilities ``input``
    (``target`` probabilities, or log-probabilities with ``log_target``). 'batchmean' divides
    the sum by the batch size (the KL divergence's definition); 'mean' divides by every
    element, and warns so."""
    if size_average is not None or reduce is not None:
        reduction = _F._legacy_reduction(size_average, reduce)
    elif reduction == "mean":
        warnings.warn("reduction: 'mean' divides the total loss by both the batch size and the "
                      "support size.'batchmean' divides only by the batch size, and aligns with "
                      "the KL div math definition.'mean' will be changed to behave the same as "
                      "'batchmean' in the next major release.", stacklevel=2)
    summed = "sum" if reduction == "batchmean" else reduction
    _F._reduction_enum(summed)
    if input.is_complex() or target.is_complex():
        raise RuntimeError("kl_div: Complex inputs not supported.")
    if log_target:
        loss = target.exp() * (target - input)
    else:
        loss = _xlogy(target, target) - target * input
    loss = _F._apply_reduction(loss, summed)
    if reduction == "batchmean" and input.dim() != 0:
        loss = loss / input.shape[0]
    return loss


def _xlogy(x, y):
    """``x * log(y)``, 0 where ``x`` is 0 (NaN where ``y`` is)."""
    product = x * y.log()
    return _ag.where(x.eq(0) & y.isnan().logical_not(), 0.0, product)


def poisson_nll_loss(input, target, log_input=True, full=False, size_average=None, eps=1e-8,
                     reduce=None, reduction="mean"):
    """Negative log likelihood of ``target`` counts under a Poisson of rate ``exp(input)``
    (``log_input``) or ``input``; ``full`` adds Stirling's approximation of ``log(target!)``
    where ``target > 1``."""
    reduction = _reduction(size_average, reduce, reduction)
    _F._reduction_enum(reduction)
    if log_input:
        loss = input.exp() - target * input
    else:
        loss = input - target * (input + eps).log()
    if full:
        stirling = target * target.log() - target + (target * (2 * math.pi)).log() * 0.5
        loss = loss + stirling.masked_fill(target <= 1, 0)
    return _F._apply_reduction(loss, reduction)


def gaussian_nll_loss(input, target, var, full=False, eps=1e-6, reduction="mean"):
    """Negative log likelihood of ``target`` under Gaussians of mean ``input`` and variance
    ``var``: ``0.5 (log var + (input - target)^2 / var)``, plus ``0.5 log(2 pi)`` with
    ``full``. ``var`` is of ``input``'s shape, or one dim short of it, or differs from it in
    one dim of size 1 (one variance shared); it is clamped at ``eps`` without a gradient
    there."""
    if isinstance(var, float):
        if var < 0:
            raise ValueError("var has negative entry/entries")
        var = var * _ag.ones_like(input)
    elif bool((var < 0).any()):
        raise ValueError("var has negative entry/entries")
    if var.shape != input.shape:
        if tuple(input.shape[:-1]) == tuple(var.shape):
            var = var.unsqueeze(-1)
        elif not (input.dim() == var.dim()
                  and sum(m for n, m in zip(input.shape, var.shape) if n != m) == 1):
            raise ValueError("var is of incorrect size")
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(reduction + " is not valid")
    var = var.clone()
    with _ag.no_grad():
        var.clamp_(min=eps)
    loss = (var.log() + (input - target) ** 2 / var) * 0.5
    if full:
        loss = loss + 0.5 * math.log(2 * math.pi)
    return _F._apply_reduction(loss, reduction)


# ------------------------------------------------------------------ composite margin losses

def margin_ranking_loss(input1, input2, target, margin=0.0, size_average=None, reduce=None,
                        reduction="mean"):
    """``max(0, -target * (input1 - input2) + margin)``: ``target`` 1 asks ``input1`` to
    rank above ``input2`` by ``margin``, -1 below."""
    reduction = _reduction(size_average, reduce, reduction)
    _F._reduction_enum(reduction)
    if input1.dim() != input2.dim() or input1.dim() != target.dim():
        raise RuntimeError(
            "margin_ranking_loss : All input tensors should have same dimension but got sizes: "
            f"input1: {input1.size()}, input2: {input2.size()}, target: {target.size()} ")
    return _reduce(_ag.clamp_min(-target * (input1 - input2) + margin, 0), reduction)


def hinge_embedding_loss(input, target, margin=1.0, size_average=None, reduce=None,
                         reduction="mean"):
    """``input`` where ``target`` is 1, ``max(0, margin - input)`` where it is -1: for
    distances ``input`` of pairs labelled similar (1) or dissimilar (-1)."""
    reduction = _reduction(size_average, reduce, reduction)
    _F._reduction_enum(reduction)
    margin_clamp = _ag.clamp_min(margin - input, 0)
    output_margin = _ag.where(target.ne(1), margin_clamp, 0.0)
    output_self = _ag.where(target.ne(-1), input, 0.0)
    return _reduce(output_margin + output_self, reduction)


_EPSILON = 1e-12


def cosine_embedding_loss(input1, input2, target, margin=0, size_average=None, reduce=None,
                          reduction="mean"):
    """``1 - cos(x1, x2)`` for pairs labelled 1, ``max(0, cos(x1, x2) - margin)`` for pairs
    labelled -1; the cosine along the last dim of 1-D or 2-D inputs."""
    reduction = _reduction(size_average, reduce, reduction)
    _F._reduction_enum(reduction)
    targ_dim = target.dim()
    if targ_dim not in (0, 1):
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    if targ_dim == 1:
        if input1.dim() != 2 or input2.dim() != 2:
            raise RuntimeError(f"1D target tensor expects 2D input tensors, but found inputs "
                               f"with sizes {list(input1.shape)} and {list(input2.shape)}.")
    elif input1.dim() != 1 or input2.dim() != 1:
        raise RuntimeError(f"0D target tensor expects 1D input tensors, but found inputs with "
                           f"sizes {list(input1.shape)} and {list(input2.shape)}.")
    prod_sum = (input1 * input2).sum(targ_dim)
    mag_square1 = (input1 * input1).sum(targ_dim) + _EPSILON
    mag_square2 = (input2 * input2).sum(targ_dim) + _EPSILON
    cos = prod_sum / (mag_square1 * mag_square2).sqrt()
    zeros = _ag.zeros_like(cos)
    output_pos = _ag.where(target.eq(1), 1 - cos, zeros)
    output_neg = _ag.where(target.eq(-1), _ag.clamp_min(cos - margin, 0), zeros)
    return _reduce(output_pos + output_neg, reduction)


def multilabel_soft_margin_loss(input, target, weight=None, size_average=None, reduce=None,
                                reduction="mean"):
    """Binary cross entropy of ``sigmoid(input)`` per class, averaged over the classes
    (the last dim): one loss per sample, for targets of several labels."""
    reduction = _reduction(size_average, reduce, reduction)
    _refuse_complex(input.dtype, "log_sigmoid_cpu")
    log_sig, log_sig_neg = -_F.softplus(-input), -_F.softplus(input)
    loss = -(target * log_sig + (1 - target) * log_sig_neg)
    if weight is not None:
        loss = loss * weight
    class_dim = input.dim() - 1
    loss = loss.sum(class_dim) / input.shape[class_dim]
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(reduction + " is not valid")
    return _F._apply_reduction(loss, reduction)


def triplet_margin_with_distance_loss(anchor, positive, negative, *, distance_function=None,
                                      margin=1.0, swap=False, reduction="mean"):
    """``max(0, d(a, p) - d(a, n) + margin)``: the anchor nearer its positive than its
    negative by ``margin``, under ``distance_function`` (``pairwise_distance`` by default);
    ``swap`` uses ``d(p, n)`` where it is the smaller."""
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    a_dim, p_dim, n_dim = anchor.dim(), positive.dim(), negative.dim()
    if not (a_dim == p_dim and p_dim == n_dim):
        raise RuntimeError(f"The anchor, positive, and negative tensors are expected to have the "
                           f"same number of dimensions, but got: anchor {a_dim}D, positive "
                           f"{p_dim}D, and negative {n_dim}D inputs")
    if distance_function is None:
        distance_function = pairwise_distance
    dist_pos = distance_function(anchor, positive)
    dist_neg = distance_function(anchor, negative)
    if swap:
        dist_neg = _ag.minimum(dist_neg, distance_function(positive, negative))
    return _F._apply_reduction(_ag.clamp_min(margin + dist_pos - dist_neg, 0), reduction)


def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-6, swap=False,
                        size_average=None, reduce=None, reduction="mean"):
    """``triplet_margin_with_distance_loss`` under the ``p``-norm distance."""
    reduction = _reduction(size_average, reduce, reduction)
    _F._reduction_enum(reduction)
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    return triplet_margin_with_distance_loss(
        anchor, positive, negative, margin=margin, swap=swap, reduction=reduction,
        distance_function=lambda x, y: pairwise_distance(x, y, p, eps))


# ------------------------------------------------------------------ class-margin losses with a node

class _ClassMargin:
    """What a class-margin loss computes on ``(N, C)`` scores: the per-sample loss and its
    gradient, both from the ``margins``: scores against each sample's target scores;
    ``saved``: the other tensors torch's node saves (unread: writing one in place
    afterwards makes the backward refuse)."""
    saved = ()


class _MultiMargin(_ClassMargin):
    """``sum_{j != y} w_y max(0, margin - x_y + x_j)^p / C`` for each sample's class ``y``."""

    def __init__(self, target, p, margin, weight):
        self.target = target.unsqueeze(1)                         # (N, 1)
        self.p, self.margin = p, margin
        self.weight = None if weight is None else weight[target].unsqueeze(1)

    def _margins(self, x):
        """``margin - x_y + x_j`` and where it counts (positive, ``j != y``)."""
        z = x - x.gather(1, self.target) + self.margin
        others = _ag.arange(x.shape[1], device=x.device).unsqueeze(0).ne(self.target)
        return z, (z > 0) & others, others.logical_not()

    def loss(self, x):
        z, active, _ = self._margins(x)
        terms = z if self.p == 1 else z * z
        if self.weight is not None:
            terms = terms * self.weight
        return _ag.where(active, terms, 0.0).sum(1) / x.shape[1]

    def gradient(self, x, grad):
        """``grad`` (one value per sample) through the loss: each active ``j`` gets
        ``w_y p z^(p-1) / C``, the target class minus their sum."""
        z, active, is_target = self._margins(x)
        slope = z * 2 if self.p == 2 else _ag.ones_like(z)
        if self.weight is not None:
            slope = slope * self.weight
        dz = _ag.where(active, slope, 0.0) * (grad.unsqueeze(1) / x.shape[1])
        return dz - _ag.where(is_target, dz.sum(1, keepdim=True), 0.0)


class _MultilabelMargin(_ClassMargin):
    """``sum_{j in targets} sum_{k not in targets} max(0, 1 - x_j + x_k) / C``; a sample's
    targets are its target row's leading labels, up to the first -1."""

    def __init__(self, target, classes):
        idx = _ag.arange(classes, device=target.device)
        end = _ag.where(target.eq(-1), idx, classes).amin(-1, keepdim=True)
        self.listed = idx < end                                   # (N, T)
        self.labels = _ag.where(self.listed, target, 0)          # a valid index everywhere
        # picks[n, t, k]: label t of sample n is class k
        self.picks = self.labels.unsqueeze(-1).eq(idx) & self.listed.unsqueeze(-1)
        self.is_target = self.picks.any(1)                        # (N, C)

    def _margins(self, x):
        z = 1 - x.gather(1, self.labels).unsqueeze(-1) + x.unsqueeze(1)   # (N, T, C)
        active = (z > 0) & self.listed.unsqueeze(-1) & self.is_target.logical_not().unsqueeze(1)
        return z, active

    def loss(self, x):
        z, active = self._margins(x)
        return _ag.where(active, z, 0.0).sum((1, 2)) / x.shape[1]

    def gradient(self, x, grad):
        """Each active pair ``(j, k)`` gives ``grad / C`` to ``x_k`` and takes it from
        ``x_j``."""
        z, active = self._margins(x)
        dz = _ag.where(active, 1.0, 0.0).to(x.dtype) * (grad.view(-1, 1, 1) / x.shape[1])
        taken = _ag.where(self.picks, dz.sum(2, keepdim=True), 0.0).sum(1)
        return dz.sum(1) - taken


class _ClassMarginLoss(_ag.autograd.Function):
    """A class-margin loss (``kind``, a ``_ClassMargin``) of ``(N, C)`` scores, reduced by
    ``reduction``; the gradient flows to the scores only (the targets are class indices)."""
    builtin_op = True

    @staticmethod
    def forward(ctx, input, kind, reduction, shape):
        ctx.save_for_backward(input, *kind.saved)
        ctx.kind, ctx.reduction, ctx.shape = kind, reduction, shape
        ctx.input = input                 # for the jvp (saved tensors are for the backward)
        loss = kind.loss(input)
        if reduction != "none":
            return _F._apply_reduction(loss, reduction)
        return _wrap_array(_array_of(loss.reshape(shape)))      # no view: it may be written

    @staticmethod
    def backward(ctx, grad):
        input = ctx.saved_tensors[0]
        rows = input.shape[0]
        if ctx.reduction == "none":
            per_sample = grad.reshape(rows)
        else:
            scale = grad / rows if ctx.reduction == "mean" else grad
            per_sample = scale.expand(rows)
        return ctx.kind.gradient(input, per_sample), None, None, None

    @staticmethod
    def jvp(ctx, input_t, kind_t, reduction_t, shape_t):
        input = ctx.input
        ones = _ag.ones(input.shape[0], dtype=input.dtype, device=input.device)
        per_sample = (ctx.kind.gradient(input, ones) * input_t).sum(1)
        if ctx.reduction == "none":
            return per_sample.reshape(ctx.shape)
        return _F._apply_reduction(per_sample, ctx.reduction)


class MultiMarginLoss(_ClassMarginLoss):
    """``multi_margin_loss``'s op."""


class MultilabelMarginLoss(_ClassMarginLoss):
    """``multilabel_margin_loss``'s op."""


MultiMarginLoss._backward_cls.__name__ = "MultiMarginLossBackward0"
MultilabelMarginLoss._backward_cls.__name__ = "MultilabelMarginLossBackward0"


def _check_class_scores(input, target, kernel):
    if input.dtype in (_ag.float16, _ag.bfloat16) or not input.dtype.is_floating_point:
        raise NotImplementedError(f"\"{kernel}\" not implemented for "
                                  f"'{input.dtype._scalar_name}'")
    if target.dtype != _ag.int64:
        raise RuntimeError(f"expected scalar type Long but found {target.dtype._scalar_name}")


def multi_margin_loss(input, target, p=1, margin=1.0, weight=None, size_average=None,
                      reduce=None, reduction="mean"):
    """Multi-class hinge loss: each class ``j`` should score at least ``margin`` below the
    target class ``y``, ``max(0, margin - x_y + x_j)^p`` (``p`` 1 or 2) averaged over the
    classes, weighted by ``weight[y]``."""
    reduction = _reduction(size_average, reduce, reduction)
    _F._reduction_enum(reduction)
    if p not in (1, 2):
        raise ValueError("only p == 1 and p == 2 supported")
    if weight is not None and weight.dim() != 1:
        raise ValueError("weight must be one-dimensional")
    if weight is not None and weight.requires_grad and _ag.is_grad_enabled():
        raise RuntimeError("The function 'multi_margin_loss' is not differentiable with "
                           "respect to argument 'weight'. This input cannot have "
                           "requires_grad True.")
    rows = input.shape[0] if input.dim() == 2 else 1
    classes = input.shape[-1] if input.dim() else 1
    if input.dim() > 2 or (input.dim() and classes == 0):
        raise RuntimeError("Expected non-empty vector or matrix with optional 0-dim batch "
                           f"size, but got: {list(input.shape)}")
    if target.dim() > 1 or target.numel() != rows:
        raise RuntimeError(
            "multi_margin_loss: target tensor should be 1-D with size equal to the number of "
            f"input samples (batch size). Expected target size [{rows}], but got "
            f"{list(target.shape)}. Input has shape {list(input.shape)}.")
    if weight is not None and weight.numel() != classes:
        raise RuntimeError(f"inconsistent weight size, expected {classes} but got "
                           f"{list(weight.shape)}")
    _check_class_scores(input, target, "multi_margin_loss_cpu_kernel")     # after the shapes
    if weight is not None and weight.dtype != input.dtype:     # the kernel reads it so
        raise RuntimeError(f"expected scalar type {input.dtype._scalar_name} but found "
                           f"{weight.dtype._scalar_name}")
    flat_target = target.reshape(rows)
    if rows and bool(((flat_target < 0) | (flat_target >= classes)).any()):
        raise RuntimeError("target out of range")
    kind = _MultiMargin(flat_target, p, margin, weight)
    kind.saved = (target,) if weight is None else (target, weight)     # as torch's node
    shape = tuple(target.shape)
    return MultiMarginLoss.apply(input.reshape(rows, classes), kind, reduction, shape)


def multilabel_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    """Multi-label hinge loss: every target class ``j`` (the leading entries of a target
    row, up to the first -1) should score at least 1 above every other class ``k``,
    ``max(0, 1 - x_j + x_k)`` summed over the pairs and averaged over the classes."""
    reduction = _reduction(size_average, reduce, reduction)
    _F._reduction_enum(reduction)
    _check_class_scores(input, target, "multilabel_margin_loss_forward_out_frame")
    classes = input.shape[-1] if input.dim() else 1
    if input.dim() > 2 or (input.dim() and classes == 0):
        raise RuntimeError("Expected non-empty vector or matrix with optional 0-dim batch "
                           f"size, but got: {list(input.shape)}")
    if target.dim() > 2 or target.shape != input.shape:
        raise RuntimeError(f"inconsistent target size: {list(target.shape)} for input of "
                           f"size: {list(input.shape)}")
    if target.numel() and bool(((target < -1) | (target >= classes)).any()):
        raise RuntimeError("argument #2 'target' is out of range")
    rows = input.shape[0] if input.dim() == 2 else 1
    kind = _MultilabelMargin(target.reshape(rows, classes), classes)
    shape = (rows,) if input.dim() == 2 else ()
    return MultilabelMarginLoss.apply(input.reshape(rows, classes), kind, reduction, shape)


# ------------------------------------------------------------------ torch-level forms
# torch.kl_div, torch.margin_ranking_loss ... are ATen's ops: the reduction is an int
# (0 'none', 1 'mean', 2 'sum') and, as torch's, left out it is 0, no reduction.

_REDUCTION_NAMES = ("none", "mean", "sum")


def _reduction_name(function, reduction, position):
    if not isinstance(reduction, int) or isinstance(reduction, bool):
        raise TypeError(f"{function}(): argument 'reduction' (position {position}) must be "
                        f"int, not {type(reduction).__name__}")
    return _REDUCTION_NAMES[reduction]


def _aten_kl_div(input, target, reduction=0, *, log_target=False):
    """``torch.kl_div``: ``F.kl_div`` with an int reduction, without its warning."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return kl_div(input, target, reduction=_reduction_name("kl_div", reduction, 3),
                      log_target=log_target)


def _aten_margin_ranking_loss(input1, input2, target, margin=0.0, reduction=0):
    """``torch.margin_ranking_loss``."""
    return margin_ranking_loss(input1, input2, target, margin, reduction=_reduction_name(
        "margin_ranking_loss", reduction, 5))


def _aten_hinge_embedding_loss(input, target, margin=1.0, reduction=0):
    """``torch.hinge_embedding_loss``."""
    return hinge_embedding_loss(input, target, margin, reduction=_reduction_name(
        "hinge_embedding_loss", reduction, 4))


def _aten_cosine_embedding_loss(input1, input2, target, margin=0.0, reduction=0):
    """``torch.cosine_embedding_loss``."""
    return cosine_embedding_loss(input1, input2, target, margin, reduction=_reduction_name(
        "cosine_embedding_loss", reduction, 5))


def _aten_poisson_nll_loss(input, target, log_input, full, eps, reduction):
    """``torch.poisson_nll_loss``: every argument required."""
    return poisson_nll_loss(input, target, log_input, full, eps=eps,
                            reduction=_reduction_name("poisson_nll_loss", reduction, 6))


def _aten_triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-6,
                              swap=False, reduction=0):
    """``torch.triplet_margin_loss``."""
    return triplet_margin_loss(anchor, positive, negative, margin, p, eps, swap,
                               reduction=_reduction_name("triplet_margin_loss", reduction, 8))


# What ``autograd_cy`` exports under torch's names.
TORCH_LEVEL = {"kl_div": _aten_kl_div, "margin_ranking_loss": _aten_margin_ranking_loss,
               "hinge_embedding_loss": _aten_hinge_embedding_loss,
               "cosine_embedding_loss": _aten_cosine_embedding_loss,
               "poisson_nll_loss": _aten_poisson_nll_loss,
               "triplet_margin_loss": _aten_triplet_margin_loss}
for _name, _function in TORCH_LEVEL.items():
    _function.__name__ = _function.__qualname__ = _name
