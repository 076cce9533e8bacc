"""The variants of dropout: channel-wise (``dropout1d/2d/3d``, ``feature_alpha_dropout``)
and self-normalizing (``alpha_dropout``, ``feature_alpha_dropout``).

A channel-wise ("feature") dropout draws one keep-or-drop per channel of each example, a
noise of shape ``(N, C, 1, ..., 1)`` broadcast over the spatial dims, so that whole feature
maps are zeroed: neighbouring values of a map are correlated and dropping them one by one
regularises little.

# NOTE [Alpha dropout]
For SELU networks, whose activations have mean 0 and variance 1, a dropped value is set to
SELU's negative saturation ``-alpha'`` (``alpha' = 1.7580993408473766``) instead of 0, and
the result is ``a * (x * keep + alpha' * (keep - 1)) + a * alpha' * p``, with ``a = 1 /
sqrt((alpha'^2 p + 1)(1 - p))``, which keeps the mean and the variance. As torch computes
it, ``noise = keep * a`` and ``b = (keep - 1) * alpha' * a + alpha' * a * p``, the output
``input * noise + b``.

The keep-masks are drawn by ``bernoulli_`` from the default generator, as torch's, so on
the CPU they are torch's numbers after the same seed (as ``F.dropout``'s; NOTE [Bernoulli
draws] says where not). The ops are composites, as in torch: the output's node is
``MulBackward0`` (``AddBackward0`` for the alpha forms).
"""
import math
import warnings

import autograd_cy as _ag

__all__ = ["dropout1d", "dropout2d", "dropout3d", "alpha_dropout", "feature_alpha_dropout"]

_SELU_ALPHA_PRIME = 1.7580993408473766


def _check_p(p):
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")


def _dropout(input, p, train, inplace, feature, alpha):
    """torch's dropout kernel: one keep per element, or per channel with ``feature``; the
    kept values scaled by ``1 / (1 - p)``, or NOTE [Alpha dropout] with ``alpha``."""
    if p == 0 or not train or input.numel() == 0:
        return input
    if feature and input.dim() < 2:
        raise RuntimeError("Feature dropout requires at least 2 dimensions in the input")
    dtype = input.dtype
    if not (dtype.is_floating_point or dtype.is_complex):
        raise RuntimeError(f"result type Float can't be cast to the desired output type "
                           f"{dtype._scalar_name}")
    if dtype.is_complex and p != 1:     # torch draws the noise in the input's dtype
        raise NotImplementedError(f"\"bernoulli_scalar_cpu_\" not implemented for "
                                  f"'{dtype._scalar_name}'")
    if p == 1:
        zero = _ag.zeros((), dtype=input.dtype, device=input.device)
        return input.mul_(zero) if inplace else input * zero
    shape = (tuple(input.shape[:2]) + (1,) * (input.dim() - 2) if feature
             else tuple(input.shape))
    # torch's noise: a new tensor (laid out as the input for an elementwise mask) filled by
    # bernoulli_(1 - p), so after the same seed the CPU masks are torch's (NOTE [Bernoulli
    # draws] in cpu_random.py)
    noise = (_ag.empty(shape, dtype=dtype, device=input.device) if feature
             else _ag.empty_like(input))
    keep = noise.bernoulli_(1 - p)
    if alpha:
        a = 1.0 / math.sqrt((_SELU_ALPHA_PRIME ** 2 * p + 1) * (1 - p))
        b = (keep - 1) * (_SELU_ALPHA_PRIME * a) + _SELU_ALPHA_PRIME * a * p
        noise = keep * a
        return input.mul_(noise).add_(b) if inplace else (input * noise).add_(b)
    noise = keep / (1 - p)
    return input.mul_(noise) if inplace else input * noise


def _channel_dropout(input, p, training, inplace, batched):
    """Feature dropout of ``input``, unbatched inputs given a batch dim of 1 for it (in
    place: written through a view of ``input``, which is returned)."""
    if batched:
        return _dropout(input, p, training, inplace, feature=True, alpha=False)
    result = _dropout(input.unsqueeze(0), p, training, inplace, feature=True, alpha=False)
    return input if inplace else result.squeeze(0)


def dropout1d(input, p=0.5, training=True, inplace=False):
    """Zero whole channels of ``(N, C, L)`` or ``(C, L)`` inputs with probability ``p``."""
    _check_p(p)
    if input.dim() not in (2, 3):
        raise RuntimeError(
            f"dropout1d: Expected 2D or 3D input, but received a {input.dim()}D input. Note "
            "that dropout1d exists to provide channel-wise dropout on inputs with 1 spatial "
            "dimension, a channel dimension, and an optional batch dimension (i.e. 2D or 3D "
            "inputs).")
    return _channel_dropout(input, p, training, inplace, input.dim() == 3)


def dropout2d(input, p=0.5, training=True, inplace=False):
    """Zero whole channels of ``(N, C, H, W)`` inputs with probability ``p``; as torch, a
    3-D input is taken as ``(N, C, L)`` (with a warning), not as unbatched."""
    _check_p(p)
    dim = input.dim()
    if dim not in (3, 4):
        warnings.warn(
            f"dropout2d: Received a {dim}-D input to dropout2d, which is deprecated and will "
            "result in an error in a future release. To retain the behavior and silence this "
            "warning, please use dropout instead. Note that dropout2d exists to provide "
            "channel-wise dropout on inputs with 2 spatial dimensions, a channel dimension, "
            "and an optional batch dimension (i.e. 3D or 4D inputs).", stacklevel=2)
    if dim == 3:
        warnings.warn(
            "dropout2d: Received a 3D input to dropout2d and assuming that channel-wise 1D "
            "dropout behavior is desired - input is interpreted as shape (N, C, L), where C "
            "is the channel dim. This behavior will change in a future release to interpret "
            "the input as one without a batch dimension, i.e. shape (C, H, W). To maintain "
            "the 1D channel-wise dropout behavior, please switch to using dropout1d instead.",
            stacklevel=2)
    return _dropout(input, p, training, inplace, feature=True, alpha=False)


def dropout3d(input, p=0.5, training=True, inplace=False):
    """Zero whole channels of ``(N, C, D, H, W)`` or ``(C, D, H, W)`` inputs with
    probability ``p``."""
    _check_p(p)
    dim = input.dim()
    if dim not in (4, 5):
        warnings.warn(
            f"dropout3d: Received a {dim}-D input to dropout3d, which is deprecated and will "
            "result in an error in a future release. To retain the behavior and silence this "
            "warning, please use dropout instead. Note that dropout3d exists to provide "
            "channel-wise dropout on inputs with 3 spatial dimensions, a channel dimension, "
            "and an optional batch dimension (i.e. 4D or 5D inputs).", stacklevel=2)
    return _channel_dropout(input, p, training, inplace, dim == 5)


def alpha_dropout(input, p=0.5, training=False, inplace=False):
    """Dropout that keeps a SELU network's mean and variance (NOTE [Alpha dropout])."""
    _check_p(p)
    return _dropout(input, p, training, inplace, feature=False, alpha=True)


def feature_alpha_dropout(input, p=0.5, training=False, inplace=False):
    """Alpha dropout of whole channels (NOTE [Alpha dropout])."""
    _check_p(p)
    return _dropout(input, p, training, inplace, feature=True, alpha=True)
