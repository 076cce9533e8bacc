"""The torch-level names of ``nn.functional``'s ops: ``torch.conv2d``, ``torch.max_pool1d``,
``torch.batch_norm``, ``torch.embedding``, ``torch.dropout`` ...

Where torch's signature is ``nn.functional``'s (``conv1d``, ``conv2d``, ``conv3d``,
``conv_transpose1d/2d/3d``, ``avg_pool1d``, ``adaptive_avg_pool1d``, ``pixel_shuffle``,
``pixel_unshuffle``, ``channel_shuffle``, ``rms_norm``, ``bilinear``) the torch-level name
is the same function object. The others are ATen's forms, whose arguments differ from the
Python ones and are spelled out below: every argument of ``torch.dropout(input, p, train)`` and of
``torch.batch_norm`` required (the weight and bias before the running statistics), the
indices second in ``torch.embedding(weight, indices)`` with ``padding_idx=-1`` for none, an
int ``reduction`` (0 none, 1 mean, 2 sum), ``(output, indices)`` from
``adaptive_max_pool1d`` and ``max_pool1d_with_indices``, and no ``return_indices`` in
``max_pool1d/2d/3d``. Each calls ``nn.functional``'s op through the module, looked up when
called, so that vmap's and the profiler's swaps see it (NOTE [How vmap reaches the ops]).

>>> import autograd_cy as ag
>>> ag.dropout(ag.ones(3), 0.5, False)
tensor([1., 1., 1.])
>>> ag.embedding(ag.tensor([[0., 1.], [2., 3.]]), ag.tensor([1, 1]))
tensor([[2., 3.],
        [2., 3.]])
"""
import autograd_cy as _ag
from autograd_cy.nn import functional as _F
from autograd_cy.nn.losses import _reduction_name
from autograd_cy.nn import dropout_variants as _dropout_variants

# the same objects as nn.functional's: the signatures agree
conv1d = _F.conv1d
conv2d = _F.conv2d
conv3d = _F.conv3d
conv_transpose1d = _F.conv_transpose1d
conv_transpose2d = _F.conv_transpose2d
conv_transpose3d = _F.conv_transpose3d
avg_pool1d = _F.avg_pool1d
adaptive_avg_pool1d = _F.adaptive_avg_pool1d
pixel_shuffle = _F.pixel_shuffle
pixel_unshuffle = _F.pixel_unshuffle
channel_shuffle = _F.channel_shuffle
rms_norm = _F.rms_norm
bilinear = _F.bilinear

__all__ = ["conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d",
           "conv_transpose3d", "avg_pool1d",
           "adaptive_avg_pool1d", "pixel_shuffle", "pixel_unshuffle", "channel_shuffle",
           "rms_norm", "bilinear", "max_pool1d", "max_pool2d", "max_pool3d",
           "max_pool1d_with_indices",
           "adaptive_max_pool1d", "batch_norm", "instance_norm", "layer_norm", "group_norm",
           "embedding", "dropout", "dropout_", "alpha_dropout", "alpha_dropout_",
           "feature_dropout", "feature_dropout_", "feature_alpha_dropout",
           "feature_alpha_dropout_", "binary_cross_entropy_with_logits", "constant_pad_nd"]


# ------------------------------------------------------------------ pooling

def max_pool1d(input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    """The maximum of each window over the last dim (``stride`` empty: ``kernel_size``)."""
    return _F.max_pool1d(input, kernel_size, stride or None, padding, dilation, ceil_mode)


def max_pool2d(input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    """The maximum of each window over the last two dims (``stride`` empty:
    ``kernel_size``)."""
    return _F.max_pool2d(input, kernel_size, stride or None, padding, dilation, ceil_mode)


def max_pool3d(input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    """The maximum of each window over the last three dims (``stride`` empty:
    ``kernel_size``)."""
    return _F.max_pool3d(input, kernel_size, stride or None, padding, dilation, ceil_mode)


def max_pool1d_with_indices(input, kernel_size, stride=(), padding=0, dilation=1,
                            ceil_mode=False):
    """``(output, indices)`` of ``max_pool1d``: each maximum and where in the row it is."""
    return _F.max_pool1d(input, kernel_size, stride or None, padding, dilation, ceil_mode,
                         return_indices=True)


def adaptive_max_pool1d(input, output_size):
    """``(output, indices)``: the maximum of ``output_size`` windows over the last dim."""
    return _F.adaptive_max_pool1d(input, output_size, return_indices=True)


# ------------------------------------------------------------------ normalization

def batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps,
               cudnn_enabled):
    """``F.batch_norm`` in ATen's argument order; ``cudnn_enabled`` is not used."""
    return _F.batch_norm(input, running_mean, running_var, weight, bias, training, momentum,
                         eps)


def instance_norm(input, weight, bias, running_mean, running_var, use_input_stats, momentum,
                  eps, cudnn_enabled):
    """``F.instance_norm`` in ATen's argument order; ``cudnn_enabled`` is not used."""
    return _F.instance_norm(input, running_mean, running_var, weight, bias, use_input_stats,
                            momentum, eps)


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5, cudnn_enable=True):
    """``F.layer_norm``; ``cudnn_enable`` is not used."""
    return _F.layer_norm(input, normalized_shape, weight, bias, eps)


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-5, cudnn_enabled=True):
    """``F.group_norm``; ``cudnn_enabled`` is not used."""
    return _F.group_norm(input, num_groups, weight, bias, eps)


# ------------------------------------------------------------------ embedding

def embedding(weight, indices, padding_idx=-1, scale_grad_by_freq=False, sparse=False):
    """The rows of ``weight`` that ``indices`` name; a negative ``padding_idx`` is none."""
    return _F.embedding(indices, weight, None if padding_idx < 0 else padding_idx,
                        scale_grad_by_freq=scale_grad_by_freq, sparse=sparse)


# ------------------------------------------------------------------ dropout

def _check_probability(p):
    if p < 0 or p > 1:
        raise RuntimeError(f"dropout probability has to be between 0 and 1, but got {p}")


def dropout(input, p, train):
    """Each element zeroed with probability ``p``, the rest scaled by ``1 / (1 - p)``."""
    _check_probability(p)
    return _F.dropout(input, p, train)


def dropout_(input, p, train):
    """``dropout`` in place."""
    _check_probability(p)
    return _F.dropout(input, p, train, inplace=True)


def alpha_dropout(input, p, train):
    """Dropout that keeps a SELU network's mean and variance (NOTE [Alpha dropout])."""
    _check_probability(p)
    return _dropout_variants._dropout(input, p, train, False, feature=False, alpha=True)


def alpha_dropout_(input, p, train):
    """``alpha_dropout`` in place."""
    _check_probability(p)
    return _dropout_variants._dropout(input, p, train, True, feature=False, alpha=True)


def feature_dropout(input, p, train):
    """Whole channels (dim 1) of each example zeroed with probability ``p``, the rest
    scaled by ``1 / (1 - p)``."""
    _check_probability(p)
    return _dropout_variants._dropout(input, p, train, False, feature=True, alpha=False)


def feature_dropout_(input, p, train):
    """``feature_dropout`` in place."""
    _check_probability(p)
    return _dropout_variants._dropout(input, p, train, True, feature=True, alpha=False)


def feature_alpha_dropout(input, p, train):
    """Alpha dropout of whole channels (NOTE [Alpha dropout])."""
    _check_probability(p)
    return _dropout_variants._dropout(input, p, train, False, feature=True, alpha=True)


def feature_alpha_dropout_(input, p, train):
    """``feature_alpha_dropout`` in place."""
    _check_probability(p)
    return _dropout_variants._dropout(input, p, train, True, feature=True, alpha=True)


# ------------------------------------------------------------------ losses, padding

def binary_cross_entropy_with_logits(input, target, weight=None, pos_weight=None, reduction=0):
    """``F.binary_cross_entropy_with_logits`` with an int ``reduction``: as
    torch's, left out it is 0, no reduction. The input and target broadcast."""
    if input.shape != target.shape:
        input, target = _ag.broadcast_tensors(input, target)
    return _F.binary_cross_entropy_with_logits(
        input, target, weight, reduction=_reduction_name(
            "binary_cross_entropy_with_logits", reduction, 5), pos_weight=pos_weight)


def constant_pad_nd(input, pad, value=0):
    """``input`` padded with ``value``: ``pad`` is (before, after) pairs from the last dim
    backwards; negative amounts crop."""
    if len(pad) % 2:
        raise RuntimeError(f"Length of pad must be even but instead it equals {len(pad)}")
    if len(pad) > 2 * input.dim():
        raise RuntimeError("Length of pad should be no more than twice the number of "
                           f"dimensions of the input. Pad length is {len(pad)}while the "
                           f"input has {input.dim()}dimensions.")
    return _F.pad(input, pad, "constant", value)
