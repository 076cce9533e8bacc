"""``autograd_cy.nn.functional``: activations, dropout, linear and losses, as in PyTorch.

The activations beyond relu, leaky_relu, gelu, silu, softplus and the softmaxes live in
autograd_cy/nn/activations.py, re-exported here with the layers' ops.

A thin layer: PyTorch's signatures, defaults, argument checks and warnings live
here; the computation is done by the primitives of pyx/ops/activation.pyx and
pyx/ops/loss.pyx (each with its own backward Node) and by the Tensor-level ops,
so every function below is differentiable, twice.

>>> import autograd_cy as ag
>>> import autograd_cy.nn.functional as F
>>> logits = ag.tensor([[2.0, 0.5, -1.0]], requires_grad=True)
>>> loss = F.cross_entropy(logits, ag.tensor([0]))
>>> round(loss.item(), 4)
0.2413
>>> loss.backward()
>>> [round(v, 4) for v in logits.grad.numpy()[0].tolist()]
[-0.2144, 0.1753, 0.0391]
"""
import math
import warnings

import numpy as np

import autograd_cy as _ag
from autograd_cy._C.dtype import _c10_name
from autograd_cy._C.ops import activation as _activation
from autograd_cy._C.ops import loss as _loss
from autograd_cy._C.ops.arithmetic import add, sub, mul, div, neg
from autograd_cy._C.ops.power import pow
from autograd_cy._C.ops.matmul import matmul
from autograd_cy._C.ops.selection import where
from autograd_cy._C.ops.reduction import sum as _sum, mean as _mean
from autograd_cy._C.ops.shape import reshape, transpose, expand
from autograd_cy._C.tensor import _array_of, _wrap_array
from autograd_cy import cpu_random as _cpu_random
from autograd_cy import factories as _factories

__all__ = ["relu", "leaky_relu", "gelu", "silu", "softplus", "softmax", "log_softmax",
           "dropout", "linear", "mse_loss", "l1_loss", "nll_loss", "cross_entropy",
           "binary_cross_entropy", "binary_cross_entropy_with_logits"]


# ------------------------------------------------------------------ activations

def relu(input, inplace=False):
    """``max(input, 0)`` elementwise."""
    return _ag.relu_(input) if inplace else _ag.relu(input)


def leaky_relu(input, negative_slope=0.01, inplace=False):
    """``input`` where positive, else ``negative_slope * input``."""
    if inplace:
        return _activation.leaky_relu_(input, negative_slope)
    return _activation.leaky_relu(input, negative_slope)


def gelu(input, *, approximate="none"):
    """``x * Phi(x)`` with Phi the standard normal CDF; ``approximate='tanh'`` for the
    tanh approximation."""
    return _activation.gelu(input, approximate=approximate)


def silu(input, inplace=False):
    """``x * sigmoid(x)``."""
    return _activation.silu_(input) if inplace else _activation.silu(input)


def softplus(input, beta=1.0, threshold=20.0):
    """``log(1 + exp(beta * x)) / beta``; linear where ``beta * x > threshold``."""
    return _activation.softplus(input, beta, threshold)


def _get_softmax_dim(name, ndim, stacklevel):
    warnings.warn(f"Implicit dimension choice for {name} has been deprecated. Change the call "
                  "to include dim=X as an argument.", stacklevel=stacklevel)
    return 0 if ndim in (0, 1, 3) else 1


def softmax(input, dim=None, _stacklevel=3, dtype=None):
    """``exp(x_i) / sum_j exp(x_j)`` along ``dim``; ``dtype`` casts the input first."""
    if dim is None:
        dim = _get_softmax_dim("softmax", input.dim(), _stacklevel)
    return _activation.softmax(input, dim, dtype)


def log_softmax(input, dim=None, _stacklevel=3, dtype=None):
    """``log(softmax(x))`` along ``dim``, computed stably."""
    if dim is None:
        dim = _get_softmax_dim("log_softmax", input.dim(), _stacklevel)
    return _activation.log_softmax(input, dim, dtype)


def dropout(input, p=0.5, training=True, inplace=False):
    """Zero each element with probability ``p`` and scale the rest by ``1 / (1 - p)``.

    The mask is drawn from ``autograd_cy.default_generator``, so ``manual_seed``
    makes it reproducible. Outside training (or with ``p=0``) ``input`` itself is
    returned.
    """
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if not training or p == 0 or input.numel() == 0:
        return input
    dtype = input.dtype
    if not (dtype.is_floating_point or dtype.is_complex):
        raise RuntimeError(f"result type Float can't be cast to the desired output type "
                           f"{dtype._scalar_name}")
    if dtype.is_complex and p != 1:     # PyTorch draws the mask in the input's dtype
        raise NotImplementedError(f"\"bernoulli_scalar_cpu_\" not implemented for "
                                  f"'{dtype._scalar_name}'")
    if input.is_cuda and not dtype.is_complex:    # (a complex one is p = 1: zeros, below)
        output = NativeDropout.apply(input, p)
        return input.copy_(output) if inplace else output
    if p == 1:
        noise = np.zeros((), dtype.numpy)
    else:
        # torch's mask: bernoulli_(1 - p) into a tensor laid out as the input (its memory
        # order), divided by 1 - p in the dtype's opmath (float32 for the half types): NOTE
        # [Bernoulli draws]
        opmath = np.float32 if dtype.numpy.itemsize < 4 else dtype.numpy.type
        generator = _factories._generator(None)
        keep = _cpu_random.in_memory_order(
            lambda shape: _cpu_random.bernoulli(generator, shape, opmath, 1 - p),
            tuple(input.shape), input.stride())
        noise = (keep / opmath(1 - p)).astype(dtype.numpy, copy=False)
    noise = _wrap_array(noise)
    return input.mul_(noise) if inplace else mul(input, noise)


class NativeDropout(_ag.autograd.Function):
    """Dropout of a CUDA tensor: output and keep-mask in one launch from the device's
    Philox stream (autograd_cy/cuda/random.py); the backward is one launch of
    ``grad * keep * scale`` with the same mask. The mask stays on the node (``keep``).
    An op of the library, as torch's aten::native_dropout: the transforms treat it as one
    (``builtin_op``), not as a user's Function."""
    builtin_op = True

    @staticmethod
    def forward(ctx, input, p):
        from autograd_cy.cuda import random
        output, ctx.keep = random.dropout(_array_of(input.contiguous()), p)
        ctx.scale = random.dropout_scale(p, output.dtype)
        return _wrap_array(output)

    @staticmethod
    def backward(ctx, grad):
        return NativeDropoutBackward.apply(grad, ctx.keep, ctx.scale), None

    @staticmethod
    def jvp(ctx, input_t, p_t):
        """Forward AD: dropout is linear in its input, the tangent is dropped alike."""
        return NativeDropoutBackward.apply(input_t, ctx.keep, ctx.scale)


class NativeDropoutBackward(_ag.autograd.Function):
    """``grad * keep * scale``: dropout's backward, linear in ``grad``, so its own
    backward is itself (double backward through dropout)."""
    builtin_op = True

    @staticmethod
    def forward(ctx, grad, keep, scale):
        from autograd_cy.cuda import random
        ctx.keep, ctx.scale = keep, scale
        return _wrap_array(random.dropout_backward(_array_of(grad), keep, scale))

    @staticmethod
    def backward(ctx, grad):
        return NativeDropoutBackward.apply(grad, ctx.keep, ctx.scale), None, None

    @staticmethod
    def jvp(ctx, grad_t, keep_t, scale_t):
        """Forward AD: linear in ``grad``."""
        return NativeDropoutBackward.apply(grad_t, ctx.keep, ctx.scale)


# The nodes as torch names those of its fused CUDA dropout (a Function's node is otherwise
# called <Function>Backward).
NativeDropout._backward_cls.__name__ = "NativeDropoutBackward0"
NativeDropoutBackward._backward_cls.__name__ = "NativeDropoutBackwardBackward0"


def linear(input, weight, bias=None):
    """``input @ weight.T + bias`` over any leading batch dims of ``input``."""
    if input.dim() == 0 or weight.dim() == 0:
        raise RuntimeError("both arguments to linear need to be at least 1D, but they are "
                           f"{input.dim()}D and {weight.dim()}D")
    if weight.dim() > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is "
                           f"{weight.dim()}D")
    if input.dtype != weight.dtype:
        raise RuntimeError("expected m1 and m2 to have the same dtype, but got: "
                           f"{_c10_name(input.dtype)} != {_c10_name(weight.dtype)}")
    weight_t = transpose(weight, 0, 1) if weight.dim() == 2 else weight
    # PyTorch's three paths, each with its own graph (and its own errors):
    if bias is not None and input.dim() == 2:
        return _ag.addmm(bias, input, weight_t)                   # AddmmBackward0
    if (bias is not None and input.is_contiguous() and bias.is_contiguous()
            and (bias.dim() == 1 or bias.squeeze().dim() == 1)):
        # Rows folded into one matrix, then a view back: a view of the addmm result. A
        # (1, 3) or (1, 1, 3) bias takes this path too (addmm refuses the latter).
        leading = tuple(input.shape[:-1])
        # (rows, k), not (-1, k): with k = 0 the -1 could not be inferred.
        flat = reshape(input, (math.prod(leading), input.shape[-1]))
        out = _ag.addmm(bias, flat, weight_t)
        return out.view(leading + (out.shape[1],))
    out = matmul(input, weight_t)
    if bias is not None:
        # in place, with type promotion: a float32 bias of a float64 product passes here,
        # where the two addmm paths above refuse it with addmm's message, as torch's do
        out.add_(bias)                                            # AddBackward0, in place
    return out


def _broadcasts_to(shape, target):
    if len(shape) > len(target):
        return False
    return all(n == 1 or n == m for n, m in zip(reversed(shape), reversed(target)))


# ------------------------------------------------------------------ reductions

_REDUCTIONS = {"none": 0, "mean": 1, "sum": 2}


def _reduction_enum(reduction):
    if reduction == "elementwise_mean":
        warnings.warn("reduction='elementwise_mean' is deprecated. Please use "
                      "reduction='mean' instead.")
        return 1
    try:
        return _REDUCTIONS[reduction]
    except (KeyError, TypeError):
        raise ValueError(f"{reduction} is not a valid value for reduction") from None


def _legacy_reduction(size_average, reduce):
    """The reduction named by the deprecated ``size_average`` / ``reduce`` flags."""
    size_average = True if size_average is None else size_average
    reduce = True if reduce is None else reduce
    result = "mean" if size_average and reduce else "sum" if reduce else "none"
    warnings.warn("size_average and reduce args will be deprecated, please use "
                  f"reduction='{result}' instead.")
    return result


def _apply_reduction(loss, reduction):
    if reduction == "none":
        return loss
    if reduction == "sum":
        return _sum(loss)
    if reduction == "mean":
        return _mean(loss)
    raise ValueError(f"{reduction} is not a valid value for reduction")


def _broadcast_pair(input, target):
    """``torch.broadcast_tensors`` for two tensors (expand views)."""
    if input.shape == target.shape:
        return input, target
    shape = _loss._broadcast_shape(tuple(input.shape), tuple(target.shape))
    return expand(input, shape), expand(target, shape)


def _warn_target_size(input, target, stacklevel):
    """torch's warning for a pointwise loss whose target broadcasts against the input;
    ``stacklevel`` points it at the caller of the loss."""
    if target.shape != input.shape:
        warnings.warn(f"Using a target size ({target.size()}) that is different to the input "
                      f"size ({input.size()}). This will likely lead to incorrect results due "
                      "to broadcasting. Please ensure they have the same size.",
                      stacklevel=stacklevel)


def _pointwise_loss(elementwise, primitive, input, target, size_average, reduce,
                    reduction, weight):
    """mse_loss and l1_loss: broadcast, optional elementwise weight, reduce."""
    _warn_target_size(input, target, stacklevel=4)
    if size_average is not None or reduce is not None:
        reduction = _legacy_reduction(size_average, reduce)
    input, target = _broadcast_pair(input, target)
    if weight is None:
        return primitive(input, target, reduction)
    if weight.shape != input.shape:
        raise ValueError("Weights and input must have the same size.")
    weighted = mul(elementwise(input, target), weight)
    if reduction == "none":
        return weighted
    if reduction == "sum":
        return _sum(weighted)
    if reduction == "mean":
        return div(_sum(weighted), _sum(weight))
    raise ValueError(f"Invalid reduction mode: {reduction}. Expected one of 'none', 'mean', "
                     "'sum'.")


# ------------------------------------------------------------------ losses

def mse_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    """Mean squared error ``(input - target)^2``, optionally weighted elementwise."""
    return _pointwise_loss(
        lambda x, t: pow(sub(x, t), 2),
        lambda x, t, r: _loss.mse_loss(x, t, _reduction_enum(r)),
        input, target, size_average, reduce, reduction, weight)


def l1_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    """Mean absolute error ``|input - target|``, optionally weighted elementwise."""
    def unweighted(x, t, r):
        _reduction_enum(r)
        return _apply_reduction(_ag.abs(sub(x, t)), r)
    return _pointwise_loss(lambda x, t: _ag.abs(sub(x, t)), unweighted,
                           input, target, size_average, reduce, reduction, weight)


def nll_loss(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None,
             reduction="mean"):
    """Negative log likelihood of class indices ``target`` under log-probabilities ``input``.

    ``input`` is ``(C)``, ``(N, C)`` or ``(N, C, d1, ...)``; targets equal to
    ``ignore_index`` count for nothing, and 'mean' divides by the summed ``weight``
    of the targets that count.
    """
    if size_average is not None or reduce is not None:
        reduction = _legacy_reduction(size_average, reduce)
    return _loss.nll_loss_nd(input, target, weight, _reduction_enum(reduction), ignore_index)


def _cpp_float(value):
    """A float as PyTorch's C++ messages print it (``0.5``, ``2``)."""
    return f"{value:g}"


def _class_weight_view(weight, ndim, class_dim):
    """``weight`` shaped to broadcast along the class dim of an ``ndim``-D input."""
    shape = [1] * ndim
    shape[class_dim] = weight.shape[0]
    return reshape(weight, tuple(shape))


def cross_entropy(input, target, weight=None, size_average=None, ignore_index=-100,
                  reduce=None, reduction="mean", label_smoothing=0.0):
    """Cross entropy between logits ``input`` and ``target``: class indices (as
    ``nll_loss(log_softmax(input), target)``) or class probabilities of ``input``'s
    shape; ``label_smoothing`` mixes the target with the uniform distribution."""
    if size_average is not None or reduce is not None:
        reduction = _legacy_reduction(size_average, reduce)
    reduction_enum = _reduction_enum(reduction)
    class_dim = 0 if input.dim() == 1 else 1
    if input.shape == target.shape:
        if not target.dtype.is_floating_point:
            raise RuntimeError("Expected floating point type for target with class "
                               f"probabilities, got {target.dtype._scalar_name}")
        if ignore_index >= 0:
            raise RuntimeError("ignore_index is not supported for floating point target")
        return _cross_entropy_probabilities(input, target, weight, reduction, label_smoothing,
                                            class_dim)
    if label_smoothing > 0.0:
        if label_smoothing > 1.0:
            raise RuntimeError("label_smoothing must be between 0.0 and 1.0. Got: "
                               f"{_cpp_float(label_smoothing)}")
        return _cross_entropy_smoothed(input, target, weight, reduction, reduction_enum,
                                       ignore_index, label_smoothing, class_dim)
    log_probs = _activation.log_softmax(input, class_dim)
    return _loss.nll_loss_nd(log_probs, target, weight, reduction_enum, ignore_index)


def _cross_entropy_probabilities(input, target, weight, reduction, label_smoothing,
                                 class_dim):
    """``-sum_c w_c p_c log softmax(x)_c``; 'mean' averages over the samples."""
    classes = input.shape[class_dim]
    if weight is not None and (weight.dim() != 1 or weight.numel() != classes):
        raise RuntimeError(f"cross_entropy: weight tensor should be defined either for all "
                           f"{classes} classes or no classes but got weight tensor of shape: "
                           f"{list(weight.shape)}")
    if label_smoothing > 1.0:
        raise RuntimeError("label_smoothing must be between 0.0 and 1.0. Got: "
                           f"{_cpp_float(label_smoothing)}")
    log_probs = _activation.log_softmax(input, class_dim)
    if label_smoothing > 0.0:
        target = add(mul(target, 1.0 - label_smoothing), label_smoothing / classes)
    terms = mul(log_probs, target)
    if weight is not None:
        terms = mul(terms, _class_weight_view(weight, input.dim(), class_dim))
    if reduction == "none":
        return neg(_sum(terms, class_dim))
    # Negated after the sum, as PyTorch does: a sum of zeros is +0.0, and its negation -0.0.
    total = neg(_sum(terms))
    if reduction == "sum":
        return total
    samples = input.numel() // classes if classes else 0
    return div(total, samples) if samples else mul(total, float("nan"))


def _cross_entropy_smoothed(input, target, weight, reduction, reduction_enum, ignore_index,
                            label_smoothing, class_dim):
    """``(1 - e) * nll + e / C * sum_c -w_c log softmax(x)_c``, ignored targets left out."""
    classes = input.shape[class_dim]
    log_probs = _activation.log_softmax(input, class_dim)
    nll = _loss.nll_loss_nd(log_probs, target, weight, reduction_enum, ignore_index)
    terms = log_probs
    if weight is not None:
        terms = mul(terms, _class_weight_view(weight, input.dim(), class_dim))
    smooth = neg(_sum(terms, class_dim))
    ignored = target.eq(ignore_index)             # tensor ops: on the target's device
    smooth = where(ignored, 0.0, smooth)
    if reduction == "sum":
        smooth = _sum(smooth)
    elif reduction == "mean":
        counted = ignored.logical_not()
        if weight is None:
            denominator = float(counted.sum())
        else:
            picked = weight.detach()[where(counted, target, 0)]   # ignored rows read class 0
            denominator = float(mul(picked, counted).sum())
        total = _sum(smooth)
        smooth = div(total, denominator) if denominator else mul(total, float("nan"))
    return add(mul(nll, 1.0 - label_smoothing), mul(smooth, label_smoothing / classes))


def _broadcast_weight(weight, shape):
    """``weight.expand(broadcast_shapes(shape, weight.shape))`` with torch's message."""
    result = list(shape)
    weight_shape = tuple(weight.shape)
    for i in range(1, len(weight_shape) + 1):
        size = weight_shape[-i]
        if i > len(result):
            result.insert(0, size)
        elif result[-i] == 1:
            result[-i] = size
        elif size != 1 and size != result[-i]:
            raise RuntimeError(
                f"Attempting to broadcast a dimension of length {size} at {-i}! Mismatching "
                f"argument at index 1 had {weight.size()}; but expected shape should be "
                f"broadcastable to {result}")
    return weight if tuple(result) == weight_shape else expand(weight, tuple(result))


def binary_cross_entropy(input, target, weight=None, size_average=None, reduce=None,
                         reduction="mean"):
    """``-w (t log x + (1 - t) log(1 - x))`` for probabilities ``input``; logs floored
    at -100, so ``x`` of exactly 0 or 1 gives a finite loss."""
    if size_average is not None or reduce is not None:
        reduction = _legacy_reduction(size_average, reduce)
    reduction_enum = _reduction_enum(reduction)
    if target.shape != input.shape:
        raise ValueError(f"Using a target size ({target.size()}) that is different to the "
                         f"input size ({input.size()}) is deprecated. Please ensure they have "
                         "the same size.")
    if weight is not None:
        weight = _broadcast_weight(weight, tuple(target.shape))
    return _loss.binary_cross_entropy(input, target, weight, reduction_enum)


def binary_cross_entropy_with_logits(input, target, weight=None, size_average=None,
                                     reduce=None, reduction="mean", pos_weight=None):
    """Binary cross entropy of ``sigmoid(input)``, computed from the logits without overflow;
    ``pos_weight`` weighs the positive class (broadcast along the last dim)."""
    if size_average is not None or reduce is not None:
        reduction = _legacy_reduction(size_average, reduce)
    reduction_enum = _reduction_enum(reduction)
    if target.shape != input.shape:
        raise ValueError(f"Target size ({target.size()}) must be the same as input size "
                         f"({input.size()})")
    return _loss.binary_cross_entropy_with_logits(input, target, weight, pos_weight,
                                                  reduction_enum)


# ------------------------------------------------------------------ layers
# The ops of the layers, each in a file of its own (autograd_cy/nn/*.py).
from autograd_cy.nn.padding import pad  # noqa: E402
from autograd_cy.nn.convolution import conv1d, conv2d, conv3d  # noqa: E402
from autograd_cy.nn.conv_transpose import (  # noqa: E402
    conv_transpose1d, conv_transpose2d, conv_transpose3d,
)
from autograd_cy.nn.fold import unfold, fold  # noqa: E402
from autograd_cy.nn.pixel_shuffle import (  # noqa: E402
    pixel_shuffle, pixel_unshuffle, channel_shuffle,
)
from autograd_cy.nn.pooling import (  # noqa: E402
    max_pool1d, max_pool2d, max_pool3d, avg_pool1d, avg_pool2d, avg_pool3d,
    adaptive_avg_pool2d, adaptive_avg_pool3d,
)
from autograd_cy.nn.adaptive_pooling import (  # noqa: E402
    adaptive_avg_pool1d, adaptive_max_pool1d, adaptive_max_pool2d, adaptive_max_pool3d,
)
from autograd_cy.nn.lp_pooling import lp_pool1d, lp_pool2d, lp_pool3d  # noqa: E402
from autograd_cy.nn.fractional_max_pooling import (  # noqa: E402
    fractional_max_pool2d, fractional_max_pool3d, fractional_max_pool2d_with_indices,
    fractional_max_pool3d_with_indices,
)


# The functions behind ``return_indices=True``, under the names torch also exports.
def max_pool1d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1,
                            ceil_mode=False, return_indices=False):
    """``max_pool1d`` and the flat index of each maximum, always."""
    return max_pool1d(input, kernel_size, stride, padding, dilation, ceil_mode,
                      return_indices=True)


def max_pool2d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1,
                            ceil_mode=False, return_indices=False):
    """``max_pool2d`` and the flat index of each maximum, always."""
    return max_pool2d(input, kernel_size, stride, padding, dilation, ceil_mode,
                      return_indices=True)


def max_pool3d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1,
                            ceil_mode=False, return_indices=False):
    """``max_pool3d`` and the flat index of each maximum, always."""
    return max_pool3d(input, kernel_size, stride, padding, dilation, ceil_mode,
                      return_indices=True)


def adaptive_max_pool1d_with_indices(input, output_size, return_indices=False):
    """``adaptive_max_pool1d`` and the index of each maximum, always."""
    return adaptive_max_pool1d(input, output_size, return_indices=True)


def adaptive_max_pool2d_with_indices(input, output_size, return_indices=False):
    """``adaptive_max_pool2d`` and the flat index of each maximum, always."""
    return adaptive_max_pool2d(input, output_size, return_indices=True)


def adaptive_max_pool3d_with_indices(input, output_size, return_indices=False):
    """``adaptive_max_pool3d`` and the flat index of each maximum, always."""
    return adaptive_max_pool3d(input, output_size, return_indices=True)


from autograd_cy.nn.max_unpooling import max_unpool1d, max_unpool2d, max_unpool3d  # noqa: E402
from autograd_cy.nn.upsampling import (  # noqa: E402
    interpolate, upsample, upsample_nearest, upsample_bilinear,
)

from autograd_cy.nn.normalization import layer_norm, batch_norm, group_norm  # noqa: E402
from autograd_cy.nn.embedding import embedding, one_hot  # noqa: E402
from autograd_cy.nn.embedding_bag import embedding_bag  # noqa: E402
from autograd_cy.nn.attention import scaled_dot_product_attention  # noqa: E402
from autograd_cy.nn.distance import (  # noqa: E402,F401  (composites: see __all__)
    pairwise_distance, cosine_similarity, normalize, pdist,
)
from autograd_cy.nn.losses import (  # noqa: E402,F401
    smooth_l1_loss, huber_loss, kl_div, poisson_nll_loss, gaussian_nll_loss,
    margin_ranking_loss, hinge_embedding_loss, cosine_embedding_loss, soft_margin_loss,
    multi_margin_loss, multilabel_margin_loss, multilabel_soft_margin_loss,
    triplet_margin_loss, triplet_margin_with_distance_loss,
)
from autograd_cy.nn.ctc_loss import ctc_loss  # noqa: E402
from autograd_cy.nn.grid_sample import grid_sample  # noqa: E402
from autograd_cy.nn.affine_grid import affine_grid  # noqa: E402
from autograd_cy.nn import activations as _activations  # noqa: E402
from autograd_cy.nn.activations import *  # noqa: E402,F401,F403
# composites of the ops above, not ops (multi_head_attention's module says why): outside
# __all__, so that vmap batches through their ops
from autograd_cy.nn.multi_head_attention import multi_head_attention_forward  # noqa: E402,F401
from autograd_cy.nn.normalization import instance_norm, rms_norm  # noqa: E402,F401
from autograd_cy.nn.bilinear import bilinear  # noqa: E402,F401
from autograd_cy.nn.local_response_norm import local_response_norm  # noqa: E402,F401
from autograd_cy.nn.gumbel_softmax import gumbel_softmax  # noqa: E402,F401
from autograd_cy.nn.dropout_variants import (  # noqa: E402,F401
    dropout1d, dropout2d, dropout3d, alpha_dropout, feature_alpha_dropout,
)

__all__ += ["pad", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d",
            "conv_transpose3d",
            "unfold", "fold", "pixel_shuffle", "pixel_unshuffle", "channel_shuffle",
            "max_pool1d", "max_pool2d", "max_pool3d", "avg_pool1d", "avg_pool2d", "avg_pool3d",
            "adaptive_avg_pool2d", "adaptive_avg_pool3d", "adaptive_avg_pool1d",
            "adaptive_max_pool1d", "adaptive_max_pool2d", "adaptive_max_pool3d", "lp_pool1d",
            "lp_pool2d", "lp_pool3d", "fractional_max_pool2d", "fractional_max_pool3d",
            "fractional_max_pool2d_with_indices", "fractional_max_pool3d_with_indices",
            "max_unpool1d", "max_unpool2d", "max_unpool3d",
            "interpolate", "upsample", "upsample_nearest",
            "upsample_bilinear", "layer_norm", "batch_norm", "group_norm", "embedding",
            "embedding_bag", "one_hot", "scaled_dot_product_attention", "pairwise_distance",
            "pdist",
            "smooth_l1_loss", "huber_loss", "soft_margin_loss", "multi_margin_loss",
            "multilabel_margin_loss", "ctc_loss", "grid_sample", "affine_grid",
            ] + _activations.__all__
# The composite losses and distances (kl_div ... triplet_margin_loss, cosine_similarity,
# normalize) are importable here but not ops (outside __all__): vmap batches through the ops
# they are made of, as torch's does.
