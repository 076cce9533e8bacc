"""``interpolate`` (and its older names ``upsample``, ``upsample_nearest``,
``upsample_bilinear``): resizing the spatial dims of ``(N, C, *)`` by nearest neighbours,
(bi/tri)linear or bicubic interpolation, or area averaging.

Every mode but ``'area'`` is separable: each output entry along one spatial dim depends
on input entries along that dim only, by the same rule for every other coordinate, so a
resize is one 1-D resize per dim. A 1-D resize is a linear map from ``in`` to ``out``
entries: for the nearest modes a choice of one source index per output
(``index_select``; its adjoint adds each gradient back at its source, ``index_add``), for
the interpolating ones a ``(out, in)`` matrix of weights (a product; its adjoint the
transposed product). Both adjoints are ops on tensors, so the backward records. The op
takes torch's node names (``UpsampleNearest2DBackward0``, ``UpsampleBilinear2DBackward0``,
...). ``'area'`` is adaptive average pooling, as in torch; of a 5-D input it is the same
separable resize with window means for weights (``AdaptiveAvgPool3DBackward0``).
"""
import math
import warnings

import numpy as np

from autograd_cy import factories
from autograd_cy.autograd.function import Function
from autograd_cy.nn.adaptive_pooling import adaptive_avg_pool1d
from autograd_cy.nn.pooling import _window_means, adaptive_avg_pool2d

__all__ = ["interpolate", "upsample", "upsample_nearest", "upsample_bilinear"]

# NOTE [Source coordinates of a resize]
# Output index ``j`` along a dim of ``in`` -> ``out`` entries reads the input at a source
# coordinate, by torch's rules:
# * the scale is ``1 / scale_factor`` when a scale factor is given (and not recomputed),
#   else ``in / out``; with ``align_corners`` (interpolating modes) it is
#   ``(in - 1) / (out - 1)`` (0 for one output) and the corners map to the corners;
# * 'nearest' reads ``floor(j * scale)``, 'nearest-exact' ``floor((j + 0.5) * scale)``
#   (both in float32 arithmetic, as torch's kernels, and capped at ``in - 1``);
# * linear reads ``(j + 0.5) * scale - 0.5`` (``j * scale`` with align_corners), clamped at
#   0, and mixes its two neighbours (the right one capped at ``in - 1``);
# * cubic reads the same coordinate unclamped and mixes four neighbours ``i - 1 .. i + 2``
#   (each clamped into the input) with Keys' cubic weights, ``A = -0.75``.


def _scale(size, out, scale_factor, align_corners):
    if align_corners:
        return (size - 1) / (out - 1) if out > 1 else 0.0
    return 1.0 / scale_factor if scale_factor is not None and scale_factor > 0 else size / out


def _nearest_sources(size, out, scale_factor, exact):
    scale = np.float32(1.0 / scale_factor if scale_factor is not None and scale_factor > 0
                       else size / out)
    offset = np.float32(0.5 if exact else 0.0)
    positions = (np.arange(out, dtype=np.float32) + offset) * scale
    return np.minimum(np.floor(positions).astype(np.int64), size - 1)


def _cubic_weights(t):
    """Keys' cubic convolution weights of the four neighbours at fraction ``t``."""
    a = -0.75

    def near(x):
        return ((a + 2) * x - (a + 3)) * x * x + 1

    def far(x):
        return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a
    return (far(t + 1), near(t), near(1 - t), far(2 - t))


def _weights(size, out, scale_factor, align_corners, cubic):
    """The ``(out, in)`` interpolation matrix along one dim (NOTE [Source coordinates of a
    resize])."""
    scale = _scale(size, out, scale_factor, align_corners)
    j = np.arange(out, dtype=np.float64)
    source = j * scale if align_corners else (j + 0.5) * scale - 0.5
    matrix = np.zeros((out, size))
    rows = np.arange(out)
    if cubic:
        first = np.floor(source).astype(np.int64)
        for k, weight in enumerate(_cubic_weights(source - first)):
            np.add.at(matrix, (rows, np.clip(first - 1 + k, 0, size - 1)), weight)
        return matrix
    source = np.maximum(source, 0.0)
    left = source.astype(np.int64)
    right = left + (left < size - 1)
    fraction = source - left
    np.add.at(matrix, (rows, left), 1.0 - fraction)
    np.add.at(matrix, (rows, right), fraction)
    return matrix


def _resize(x, axis, kind, rule):
    """One 1-D resize of ``x`` along ``axis``: ``rule`` is source indices or a matrix."""
    if kind == "index":
        return x.index_select(axis, rule)
    return (x.movedim(axis, -1) @ rule.transpose(0, 1)).movedim(-1, axis)


def _resize_adjoint(grad, axis, kind, rule, size):
    """The adjoint of ``_resize``: the gradient of a resize back onto ``size`` entries."""
    if kind == "index":
        shape = list(grad.shape)
        shape[axis] = size
        zeros = factories.zeros(shape, dtype=grad.dtype, device=grad.device)
        return zeros.index_add(axis, rule, grad)
    return (grad.movedim(axis, -1) @ rule).movedim(-1, axis)


class _Upsample(Function):
    """A separable resize of the spatial dims of ``(N, C, *)``: one rule per dim."""

    builtin_op = True

    @staticmethod
    def forward(ctx, input, kind, rules):
        ctx.kind, ctx.rules = kind, rules
        ctx.sizes = tuple(input.shape[2:])
        output = input
        for d, rule in enumerate(rules):
            output = _resize(output, 2 + d, kind, rule)
        return output

    @staticmethod
    def backward(ctx, grad):
        for d, rule in enumerate(ctx.rules):
            grad = _resize_adjoint(grad, 2 + d, ctx.kind, rule, ctx.sizes[d])
        return grad, None, None

    @staticmethod
    def jvp(ctx, input_t, kind_t, rules_t):
        """Linear: the tangent resized alike."""
        for d, rule in enumerate(ctx.rules):
            input_t = _resize(input_t, 2 + d, ctx.kind, rule)
        return input_t


def _op(name):
    """A subclass of ``_Upsample`` whose node is named ``name`` (torch has one per mode and
    rank)."""
    op = type(name.replace("Backward0", ""), (_Upsample,), {"builtin_op": True})
    op._backward_cls.__name__ = name
    return op


_OPS = {(mode, dims): _op(f"Upsample{word}{dims}DBackward0")
        for mode, word, ranks in (("nearest", "Nearest", (1, 2, 3)),
                                  ("nearest-exact", "NearestExact", (1, 2, 3)),
                                  ("linear", "Linear", (1,)), ("bilinear", "Bilinear", (2,)),
                                  ("trilinear", "Trilinear", (3,)),
                                  ("bicubic", "Bicubic", (2,)))
        for dims in ranks}
_OPS["area", 3] = _op("AdaptiveAvgPool3DBackward0")


def _rules(input, mode, out, scales, align_corners):
    """Per spatial dim, the source indices (nearest modes) or weights (the others)."""
    sizes = tuple(input.shape[2:])
    if mode in ("nearest", "nearest-exact"):
        return "index", tuple(
            factories.tensor(_nearest_sources(size, o, s, mode == "nearest-exact"),
                             device=input.device)
            for size, o, s in zip(sizes, out, scales))
    return "matrix", tuple(
        factories.tensor(_weights(size, o, s, align_corners, mode == "bicubic"),
                         dtype=input.dtype, device=input.device)
        for size, o, s in zip(sizes, out, scales))


def _is_integer(value):
    return isinstance(value, int) or (hasattr(value, "dim") and value.dim() == 0
                                      and not value.dtype.is_floating_point)


def _sizes_and_scales(input, size, scale_factor, dims):
    """torch's reading of ``size`` / ``scale_factor``: exactly one, one value per spatial
    dim (a single value repeats)."""
    if size is not None and scale_factor is not None:
        raise ValueError("only one of size or scale_factor should be defined")
    if size is not None:
        if isinstance(size, (list, tuple)):
            if len(size) != dims:
                raise ValueError(
                    "Input and output must have the same number of spatial dimensions, but "
                    f"got input with spatial dimensions of {list(input.shape[2:])} and output "
                    f"size of {size}. Please provide input tensor in (N, C, d1, d2, ...,dK) "
                    "format and output size in (o1, o2, ...,oK) format.")
            if not all(_is_integer(x) for x in size):
                raise TypeError(
                    "expected size to be one of int or Tuple[int] or Tuple[int, int] or "
                    "Tuple[int, int, int], but got size with types "
                    f"{[type(x) for x in size]}")
            return [int(x) for x in size], None
        return [int(size)] * dims, None
    if scale_factor is not None:
        if isinstance(scale_factor, (list, tuple)):
            if len(scale_factor) != dims:
                raise ValueError(
                    "Input and scale_factor must have the same number of spatial dimensions, "
                    f"but got input with spatial dimensions of {list(input.shape[2:])} and "
                    f"scale_factor of shape {scale_factor}. Please provide input tensor in "
                    "(N, C, d1, d2, ...,dK) format and scale_factor in (s1, s2, ...,sK) "
                    "format.")
            return None, [float(s) for s in scale_factor]
        return None, [float(scale_factor)] * dims
    raise ValueError("either size or scale_factor should be defined")


# the rank each interpolating mode needs
_RANKS = {"linear": 3, "bilinear": 4, "trilinear": 5}


def interpolate(input, size=None, scale_factor=None, mode="nearest", align_corners=None,
                recompute_scale_factor=None, antialias=False):
    """Resize the spatial dims of ``(N, C, L)``, ``(N, C, H, W)`` or ``(N, C, D, H, W)`` to
    ``size``, or by ``scale_factor`` (output ``floor(in * scale_factor)``), with ``mode``
    'nearest', 'nearest-exact', 'linear' (3-D), 'bilinear' (4-D), 'trilinear' (5-D),
    'bicubic' (4-D) or 'area' (adaptive average pooling). ``antialias`` is not supported.
    ``align_corners`` (interpolating modes only) maps the corner pixels' centres onto
    each other; ``recompute_scale_factor`` derives the scale from the rounded output size
    instead of using ``scale_factor`` itself."""
    if mode in ("nearest", "area", "nearest-exact"):
        if align_corners is not None:
            raise ValueError("align_corners option can only be set with the interpolating "
                             "modes: linear | bilinear | bicubic | trilinear")
    elif align_corners is None:
        align_corners = False
    dims = input.dim() - 2
    out, scales = _sizes_and_scales(input, size, scale_factor, dims)
    if recompute_scale_factor and out is not None:
        raise ValueError("recompute_scale_factor is not meaningful with an explicit size.")
    if mode == "area" and out is None:
        recompute_scale_factor = True
    if recompute_scale_factor:
        out = [math.floor(float(input.shape[2 + d]) * scales[d]) for d in range(dims)]
        scales = None
    if antialias and not (mode in ("bilinear", "bicubic", "lanczos") and input.dim() == 4):
        raise ValueError("Anti-alias option is restricted to bilinear, bicubic, and lanczos "
                         "modes and requires a 4-D tensor as input")
    if antialias:
        raise NotImplementedError("interpolate: antialias=True is not supported")
    if out is None:
        out = [math.floor(input.shape[2 + d] * scales[d]) for d in range(dims)]
    if scales is None:
        scales = [None] * dims
    if mode == "area":
        if dims == 1:
            return adaptive_avg_pool1d(input, out)
        if dims == 2:
            return adaptive_avg_pool2d(input, out)
        if dims == 3:
            return _adaptive_avg_pool3d(input, out)
    if mode in _RANKS and input.dim() in (3, 4, 5) and input.dim() != _RANKS[mode]:
        raise NotImplementedError(f"Got {input.dim()}D input, but {mode} mode needs "
                                  f"{_RANKS[mode]}D input")
    if (mode, dims) not in _OPS:
        raise NotImplementedError(
            f"Input Error: Only 3D, 4D and 5D input Tensors supported (got {input.dim()}D) "
            "for the modes: nearest | linear | bilinear | bicubic | trilinear | lanczos | "
            f"area | nearest-exact (got {mode})")
    sizes = tuple(input.shape[2:])
    if min(sizes) <= 0 or min(out) <= 0:
        names = ("D", "H", "W")[3 - dims:]
        raise RuntimeError(
            "Input and output sizes should be greater than 0, but got input ("
            + ", ".join(f"{n}: {s}" for n, s in zip(names, sizes)) + ") and output ("
            + ", ".join(f"{n}: {o}" for n, o in zip(names, out)) + ")")
    _check_dtype(input, mode, dims)
    kind, rules = _rules(input, mode, out, scales, align_corners)
    return _OPS[mode, dims].apply(input, kind, rules)


# the kernel torch names when it refuses a dtype, by mode
_KERNELS = {"nearest": "upsample_nearest{dims}d_channels_last",
            "nearest-exact": "upsample_nearest{dims}d_channels_last",
            "linear": "compute_indices_weights_linear",
            "bilinear": "upsample_bilinear2d_channels_last",
            "trilinear": "compute_indices_weights_linear",
            "bicubic": "compute_indices_weights_cubic"}


def _check_dtype(input, mode, dims):
    """Floating inputs, and uint8 ones in the nearest modes (whose values are copied, not
    mixed: torch's uint8 interpolation rounds its own way, which is not done here)."""
    dtype = input.dtype
    if dtype.is_floating_point or (mode.startswith("nearest") and dtype._scalar_name == "Byte"):
        return
    if dtype._scalar_name == "Byte":
        raise NotImplementedError(f"interpolate: mode '{mode}' of a uint8 input is not "
                                  "supported")
    raise NotImplementedError(f"\"{_KERNELS[mode].format(dims=dims)}\" not implemented for "
                              f"'{dtype._scalar_name}'")


def _adaptive_avg_pool3d(input, out):
    """Adaptive average pooling of ``(N, C, D, H, W)``: a window's mean is the mean along
    each dim in turn, so one ``(out, in)`` window-mean matrix per dim (torch: the mean
    itself for a ``1x1x1`` output)."""
    if tuple(out) == (1, 1, 1):
        return input.mean((-3, -2, -1), keepdim=True)
    rules = tuple(_window_means(size, o, input.dtype, input.device)
                  for size, o in zip(tuple(input.shape[2:]), out))
    return _OPS["area", 3].apply(input, "matrix", rules)


def upsample(input, size=None, scale_factor=None, mode="nearest", align_corners=None):
    """The old name of ``interpolate`` (deprecated, as in torch)."""
    warnings.warn("`nn.functional.upsample` is deprecated. Use `nn.functional.interpolate` "
                  "instead.", stacklevel=2)
    return interpolate(input, size, scale_factor, mode, align_corners)


def upsample_nearest(input, size=None, scale_factor=None):
    """``interpolate`` with mode 'nearest' (deprecated, as in torch)."""
    warnings.warn("`nn.functional.upsample_nearest` is deprecated. Use "
                  "`nn.functional.interpolate` instead.", stacklevel=2)
    return interpolate(input, size, scale_factor, mode="nearest")


def upsample_bilinear(input, size=None, scale_factor=None):
    """``interpolate`` with mode 'bilinear' and ``align_corners=True`` (deprecated, as in
    torch)."""
    warnings.warn("`nn.functional.upsample_bilinear` is deprecated. Use "
                  "`nn.functional.interpolate` instead.", stacklevel=2)
    return interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)
