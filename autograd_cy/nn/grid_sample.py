"""``grid_sample`` (and ATen's ``grid_sampler``, ``grid_sampler_2d``, ``grid_sampler_3d``):
the input ``(N, C, H, W)`` (or ``(N, C, D, H, W)``) read at the points of a sampling grid
``(N, H_out, W_out, 2)`` (or ``(N, D_out, H_out, W_out, 3)``) of normalized ``(x, y[, z])``
coordinates, -1 and 1 being the input's edges; by bilinear (trilinear), nearest or (2-D
only) bicubic interpolation, outside points padded with zeros, the border or its reflection.

One op per rank under torch's node names (``GridSampler2DBackward0``,
``GridSampler3DBackward0``). The forward is NumPy, vectorised over every output point, on
the array module of the input (NOTE [Grid sampling as taps]); the backward is written with
Tensor ops of the output's gradient, the input and the grid, so it records for double
backward as torch's does.

>>> import autograd_cy as ag
>>> import autograd_cy.nn.functional as F
>>> image = ag.tensor([[[[0.0, 1.0], [2.0, 3.0]]]])
>>> F.grid_sample(image, ag.tensor([[[[0.0, 0.0]]]]), align_corners=True)
tensor([[[[1.5000]]]])
"""
import warnings

import numpy as np

import autograd_cy as _ag
from autograd_cy._C.tensor import _array_of, _wrap_array
from autograd_cy.autograd.function import Function

__all__ = ["grid_sample", "grid_sampler", "grid_sampler_2d", "grid_sampler_3d"]

# torch's integer codes of the modes (GridSamplerInterpolation, GridSamplerPadding)
_MODES = {"bilinear": 0, "nearest": 1, "bicubic": 2}
_PADDINGS = {"zeros": 0, "border": 1, "reflection": 2}
BILINEAR, NEAREST, BICUBIC = 0, 1, 2
ZEROS, BORDER, REFLECTION = 0, 1, 2
_CUBIC_A = -0.75

# NOTE [Grid sampling as taps]
# Along each spatial dim of size ``n``, a grid coordinate ``g`` becomes a source coordinate
# by torch's rules: unnormalized to ``(g + 1) / 2 * (n - 1)`` (align_corners) or
# ``((g + 1) * n - 1) / 2``; then, for bilinear and nearest, padded: 'border' clips it to
# ``[0, n - 1]``, 'reflection' reflects it about the edges (the corner pixels' centres with
# align_corners, else the image's borders half a pixel further out) and clips it. Each step
# is piecewise linear, so the coordinate is locally ``mult * g + const``; ``mult`` (the
# unnormalizing scale times 0 or +-1 from the padding; 0 at a clip, as torch's
# clip_coordinates_set_grad) is all the backward needs of it.
#
# A grid that is not finite follows torch's two CPU kernels. 2-D (the vectorized kernel):
# the clip takes NaN to 0, and a NaN or infinite coordinate makes NaN weights, so the
# output is NaN (but for nearest, which has no weights). 3-D (the scalar kernel): the clip
# takes NaN to ``n - 1``, then a coordinate not finite or beyond int32 becomes -100, off
# the image (safe_downgrade_to_int_range). Its backward's clip keeps NaN (and reflecting an
# infinity makes NaN), so a NaN point under 'border', a point not finite under
# 'reflection', reads the edge in the forward but takes no gradient.
#
# The coordinate then gives a few taps along the dim, each an integer index, whether it
# lies inside the input, and a weight that is a polynomial of the fraction ``t = x -
# floor(x)``: bilinear the two neighbours with ``1 - t`` and ``t``; nearest the one at
# ``x`` rounded half to even, weight 1; bicubic the four ``floor(x) - 1 .. + 2`` with
# Keys' weights (A = -0.75), each index padded as a coordinate of its own ('border' and
# 'reflection'; bicubic pads the taps, not the coordinate, so ``mult`` is the scale alone).
# A point's value is the sum over the corners (one tap per dim) of the weights' product
# times the input there, zero outside the input. Everything is arrays of one entry per
# output point, so the forward is a few gathers (``take``) and products; the backward adds
# the gradient back at the same corners (``index_add``) and differentiates the weights'
# polynomials in ``t`` for the grid, ``t`` being ``t + (g - g) * mult`` as a Tensor of the
# grid, so that the second derivative follows too.


def _unnormalize(g, size, align_corners):
    if align_corners:
        return (g + 1) / 2 * (size - 1), (size - 1) / 2
    return ((g + 1) * size - 1) / 2, size / 2


def _clip(x, size, nan):
    """``x`` clipped to ``[0, size - 1]``, NaN to ``nan``, and its derivative (0 at or past
    an edge)."""
    inside = (x > 0) & (x < size - 1)
    return np.where(np.isnan(x), nan, np.minimum(np.maximum(x, 0), size - 1)), inside


def _reflect(x, twice_low, twice_high):
    """``x`` reflected into ``[twice_low / 2, twice_high / 2]`` and its derivative (+-1)."""
    if twice_low == twice_high:
        return np.zeros_like(x), np.zeros_like(x)
    low, span = twice_low / 2, (twice_high - twice_low) / 2
    shifted = x - low
    sign = np.where(shifted < 0, -1.0, 1.0)
    shifted = np.abs(shifted)
    extra = np.fmod(shifted, span)
    even = np.fmod(np.floor(shifted / span), 2) == 0
    return np.where(even, extra + low, span - extra + low), np.where(even, sign, -sign)


def _pad(x, size, padding, align_corners, nan):
    """The padded coordinate and its derivative (NOTE [Grid sampling as taps])."""
    if padding == BORDER:
        x, grad = _clip(x, size, nan)
        return x, grad * 1.0
    if padding == REFLECTION:
        if align_corners:
            x, grad = _reflect(x, 0, 2 * (size - 1))
        else:
            x, grad = _reflect(x, -1, 2 * size - 1)
        x, inside = _clip(x, size, nan)
        return x, grad * inside
    return x, None


def _safe(x):
    """torch's safe_downgrade_to_int_range: a coordinate not finite or beyond int32 is -100."""
    return np.where(np.isfinite(x) & (np.abs(x) < 2.0 ** 31 - 1), x, -100.0)


def _round_half_even(x):
    """``x`` rounded to the nearest integer, ties to even (torch's nearbyint)."""
    low = np.floor(x)
    fraction = x - low
    odd = np.fmod(low, 2) != 0
    return np.where((fraction > 0.5) | ((fraction == 0.5) & odd), low + 1, low)


def _cubic_near(x):
    return ((_CUBIC_A + 2) * x - (_CUBIC_A + 3)) * x * x + 1


def _cubic_far(x):
    return ((_CUBIC_A * x - 5 * _CUBIC_A) * x + 8 * _CUBIC_A) * x - 4 * _CUBIC_A


def _cubic_near_slope(x):
    return (3 * (_CUBIC_A + 2) * x - 2 * (_CUBIC_A + 3)) * x


def _cubic_far_slope(x):
    return (3 * _CUBIC_A * x - 10 * _CUBIC_A) * x + 8 * _CUBIC_A


def _weights(t, mode):
    """The taps' weights, a polynomial of the fraction ``t`` (an array or a Tensor)."""
    if mode == BILINEAR:
        return [1 - t, t]
    rest = 1 - t
    return [_cubic_far(t + 1), _cubic_near(t), _cubic_near(rest), _cubic_far(rest + 1)]


def _slopes(t, mode):
    """The derivatives of ``_weights`` in ``t``."""
    if mode == BILINEAR:
        return [-1.0, 1.0]
    return [_cubic_far_slope(t + 1), _cubic_near_slope(t), -_cubic_near_slope(1 - t),
            -_cubic_far_slope(2 - t)]


class _Axis:
    """One spatial dim's taps for every output point: ``indices`` and ``inside`` per tap,
    the fraction ``t`` and ``mult`` (NOTE [Grid sampling as taps])."""

    def __init__(self, g, size, mode, padding, align_corners, vectorized):
        x, scale = _unnormalize(g, size, align_corners)
        self.t = self.mult = None
        nan = 0 if vectorized else size - 1
        if mode == BICUBIC:
            self.mult = np.zeros_like(x) + scale
            first = np.floor(x)
            self.t = x - first
            positions = [_pad(first + k, size, padding, align_corners, nan)[0]
                         for k in (-1, 0, 1, 2)]
        else:
            x, grad = _pad(x, size, padding, align_corners, nan)
            self.mult = np.zeros_like(x) + (scale if grad is None else grad * scale)
            if not vectorized:
                x = _safe(x)
            if mode == NEAREST:
                positions = [_round_half_even(x)]
            else:
                first = np.floor(x)
                self.t = x - first
                positions = [first, first + 1]
        self.inside = [(p >= 0) & (p <= size - 1) for p in positions]
        self.indices = [np.where(inside, p, 0).astype(np.int64)
                        for p, inside in zip(positions, self.inside)]


def _corners(axes):
    """Every combination of one tap per dim, the last dim's taps varying fastest, as tuples
    of tap numbers."""
    corners = [()]
    for axis in axes:
        corners = [c + (k,) for c in corners for k in range(len(axis.indices))]
    return corners


class _Sampling:
    """What forward and backward share: the axes, the corners' flat indices into the input
    ``(N * C * area)`` and whether each lies inside, and the corner weights' factors."""

    def __init__(self, input, grid, mode, padding, align_corners):
        self.mode = mode
        shape = tuple(input.shape)
        self.batch, self.channels, self.sizes = shape[0], shape[1], shape[2:]
        self.out_sizes = tuple(grid.shape)[1:-1]
        dims = len(self.sizes)
        points = 1
        for n in self.out_sizes:
            points *= n
        self.points = points
        area = 1
        for n in self.sizes:
            area *= n
        # in the grid's own dtype: torch's CPU kernels compute a half type's coordinates
        # and sums in that type, rounding at each step
        grid_array = _array_of(grid.detach().contiguous()).reshape(self.batch, points, dims)
        # grid's last dim is (x, y[, z]): x indexes the input's last dim
        with np.errstate(invalid="ignore", over="ignore"):     # a grid not finite
            self.axes = [_Axis(grid_array[..., dims - 1 - d], self.sizes[d], mode, padding,
                               align_corners, dims == 2) for d in range(dims)]
        self.grid_array = grid_array
        self.corners = _corners(self.axes)
        base = _array_of(_ag.arange(self.batch * self.channels, device=input.device)
                         ).reshape(self.batch, self.channels, 1) * area
        self.flat, self.inside = [], []
        for corner in self.corners:
            index, inside = 0, True
            for d, k in enumerate(corner):
                index = index * self.sizes[d] + self.axes[d].indices[k]
                inside = inside & self.axes[d].inside[k]
            self.flat.append(base + index.reshape(self.batch, 1, points))
            self.inside.append(inside.reshape(self.batch, 1, points))
        self.backward_inside = self.inside
        if dims == 3 and padding != ZEROS:   # points torch's backward drops
            lost = np.isnan if padding == BORDER else (lambda a: ~np.isfinite(a))
            dropped = lost(grid_array[..., 0])
            for d in range(1, dims):
                dropped = dropped | lost(grid_array[..., d])
            kept = ~dropped.reshape(self.batch, 1, points)
            self.backward_inside = [inside & kept for inside in self.inside]

    def weights(self, fractions, slopes=False):
        """Per corner the product of its taps' weights (``fractions``: per dim ``t``, an
        array or a Tensor), and with ``slopes`` also per dim the product with that dim's
        factor differentiated."""
        mode = self.mode
        factors = [None if t is None else _weights(t, mode) for t in fractions]
        derivatives = [None if t is None else _slopes(t, mode) for t in fractions]
        out, grads = [], []
        for corner in self.corners:
            if factors[0] is None:      # nearest
                out.append(None)
                continue
            weight = 1.0
            for d, k in enumerate(corner):
                weight = weight * factors[d][k]
            out.append(weight)
            if slopes:
                per_dim = []
                for d in range(len(corner)):
                    term = 1.0
                    for e, k in enumerate(corner):
                        term = term * (derivatives[e][k] if e == d else factors[e][k])
                    per_dim.append(term)
                grads.append(per_dim)
        return (out, grads) if slopes else out


def _sampled(sampling, input):
    """The forward's values ``(N, C, *out_sizes)`` as an array of the input's module."""
    array = _array_of(input.detach().contiguous())
    flat = array.reshape(-1)
    picked = [np.where(inside, np.take(flat, index), 0)
              for index, inside in zip(sampling.flat, sampling.inside)]
    shape = (sampling.batch, 1, sampling.points)
    if sampling.mode == BICUBIC:    # each row of four along x, then the rows along y
        x_weights = [w.reshape(shape) for w in _weights(sampling.axes[1].t, BICUBIC)]
        y_weights = [w.reshape(shape) for w in _weights(sampling.axes[0].t, BICUBIC)]
        out = None
        for row in range(4):
            values = picked[4 * row:4 * row + 4]
            across = (x_weights[0] * values[0] + x_weights[1] * values[1]
                      + x_weights[2] * values[2] + x_weights[3] * values[3])
            out = y_weights[row] * across if out is None else out + y_weights[row] * across
    else:
        weights = sampling.weights([axis.t for axis in sampling.axes])
        out = None
        for values, weight in zip(picked, weights):
            term = values if weight is None else values * weight.reshape(shape)
            out = term if out is None else out + term
    return out.astype(array.dtype).reshape((sampling.batch, sampling.channels)
                                           + sampling.out_sizes)


class GridSampler2d(Function):
    """``grid_sampler_2d``'s op: NumPy forward, Tensor-op backward (NOTE [Grid sampling as
    taps])."""
    builtin_op = True

    @staticmethod
    def forward(ctx, input, grid, mode, padding, align_corners):
        ctx.sampling = _Sampling(input, grid, mode, padding, align_corners)
        ctx.save_for_backward(input, grid)
        return _wrap_array(_sampled(ctx.sampling, input))

    @staticmethod
    def backward(ctx, grad):
        input, grid = ctx.saved_tensors
        s = ctx.sampling
        batch, channels, points = s.batch, s.channels, s.points
        grad = grad.reshape(batch, channels, points)
        dims = len(s.sizes)
        fractions = []
        for d, axis in enumerate(s.axes):
            if axis.t is None:
                fractions.append(None)
                continue
            g = grid.reshape(batch, points, dims)[..., dims - 1 - d]
            g_const = _wrap_array(s.grid_array[..., dims - 1 - d]).to(g.dtype)
            offset = (g - g_const) * _wrap_array(axis.mult).to(g.dtype)
            if dims == 3:   # finite weights at a point not finite (NOTE [Grid sampling as taps])
                offset = _ag.where(g_const.isfinite(), offset, 0)
            fractions.append(_wrap_array(axis.t).to(g.dtype) + offset)
        weights, slopes = s.weights(fractions, slopes=True)
        grad_input = grad_grid = None
        tensors = [(_wrap_array(index), _wrap_array(inside))
                   for index, inside in zip(s.flat, s.backward_inside)]
        if ctx.needs_input_grad[0]:
            indices, values = [], []
            for (index, inside), weight in zip(tensors, weights):
                term = grad if weight is None else grad * weight.unsqueeze(1)
                values.append(_ag.where(inside, term, 0).reshape(-1))
                indices.append(index.expand(batch, channels, points).reshape(-1))
            grad_input = _ag.zeros(input.numel(), dtype=grad.dtype, device=grad.device)
            if grad.numel():     # (index_add of no index fails on CUDA)
                grad_input = grad_input.index_add(0, _ag.cat(indices), _ag.cat(values))
            grad_input = grad_input.reshape(input.shape)
        if ctx.needs_input_grad[1]:
            if s.mode == NEAREST:
                grad_grid = _ag.zeros(grid.shape, dtype=grad.dtype, device=grad.device)
            else:
                flat_input = input.reshape(-1)
                per_dim = [0] * dims
                for (index, inside), corner_slopes in zip(tensors, slopes):
                    picked = flat_input.index_select(
                        0, index.expand(batch, channels, points).reshape(-1))
                    picked = _ag.where(inside, picked.reshape(batch, channels, points), 0)
                    products = (grad * picked).sum(1)
                    for d in range(dims):
                        per_dim[d] = per_dim[d] + products * corner_slopes[d]
                mults = [_wrap_array(axis.mult).to(grad.dtype) for axis in s.axes]
                grad_grid = _ag.stack([per_dim[d] * mults[d] for d in reversed(range(dims))],
                                      -1).reshape(grid.shape)
        return grad_input, grad_grid, None, None, None

    @staticmethod
    def jvp(ctx, *tangents):
        name = "grid_sampler_3d" if len(ctx.sampling.sizes) == 3 else "grid_sampler_2d"
        raise NotImplementedError(f"Trying to use forward AD with {name} that does not "
                                  "support it because it has not been implemented yet.")


GridSampler2d._backward_cls.__name__ = "GridSampler2DBackward0"


class GridSampler3d(GridSampler2d):
    """``grid_sampler_3d``'s op, under torch's 3-D node name."""
    builtin_op = True


GridSampler3d._backward_cls.__name__ = "GridSampler3DBackward0"


def _check(input, grid, mode, dims=None):
    """torch's checks: check_grid_sampler_common's, then check_grid_sampler_2d's or _3d's
    (``dims``, or by the input's rank), in its order."""
    if input.device != grid.device:
        raise RuntimeError(f"grid_sampler(): expected input and grid to be on same device, "
                           f"but input is on {input.device} and grid is on {grid.device}")
    if input.shape[0] != grid.shape[0]:
        raise RuntimeError(f"grid_sampler(): expected grid and input to have same batch size, "
                           f"but got input with sizes {list(input.shape)} and grid with "
                           f"sizes {list(grid.shape)}")
    if grid.shape[-1] != input.dim() - 2:
        raise RuntimeError(f"grid_sampler(): expected grid to have size {input.dim() - 2} in "
                           f"last dimension, but got grid with sizes {list(grid.shape)}")
    for d in range(2, input.dim()):
        if input.shape[d] <= 0:
            raise RuntimeError(f"grid_sampler(): expected input to have non-empty spatial "
                               f"dimensions, but input has sizes {list(input.shape)} with "
                               f"dimension {d} being empty")
    if dims is None:
        dims = 2 if input.dim() == 4 else 3
    if input.dim() != dims + 2 or grid.dim() != dims + 2:
        raise RuntimeError(f"grid_sampler(): expected {dims + 2}D input and grid with same "
                           f"number of dimensions, but got input with sizes "
                           f"{list(input.shape)} and grid with sizes {list(grid.shape)}")
    if dims == 3 and mode == BICUBIC:
        raise RuntimeError("grid_sampler(): bicubic interpolation only supports 4D input")


def _check_codes(mode, padding):
    """torch reads an unknown code as undefined behaviour; here it is an error."""
    if mode not in (BILINEAR, NEAREST, BICUBIC):
        raise RuntimeError(f"grid_sampler(): expected interpolation_mode 0, 1 or 2, but got "
                           f"{mode}")
    if padding not in (ZEROS, BORDER, REFLECTION):
        raise RuntimeError(f"grid_sampler(): expected padding_mode 0, 1 or 2, but got "
                           f"{padding}")


def _check_dtypes(input, grid, kernel):
    if not input.is_floating_point():
        raise NotImplementedError(f'"{kernel}" not implemented for '
                                  f"'{input.dtype._scalar_name}'")
    if grid.dtype != input.dtype:
        raise RuntimeError(f"expected scalar type {input.dtype._scalar_name} but found "
                           f"{grid.dtype._scalar_name}")


def _apply(input, grid, mode, padding, align_corners, dims=None):
    _check_codes(mode, padding)
    _check(input, grid, mode, dims)
    if input.dim() == 4:
        _check_dtypes(input, grid, "grid_sampler_2d_cpu_kernel_impl")
        return GridSampler2d.apply(input, grid, mode, padding, bool(align_corners))
    _check_dtypes(input, grid, "grid_sampler3d_cpu")
    return GridSampler3d.apply(input, grid, mode, padding, bool(align_corners))


def grid_sampler_2d(input, grid, interpolation_mode, padding_mode, align_corners):
    """``(N, C, H, W)`` read at ``grid`` ``(N, H_out, W_out, 2)``; the mode and padding by
    torch's codes (bilinear 0, nearest 1, bicubic 2; zeros 0, border 1, reflection 2)."""
    return _apply(input, grid, interpolation_mode, padding_mode, align_corners, dims=2)


def grid_sampler_3d(input, grid, interpolation_mode, padding_mode, align_corners):
    """``(N, C, D, H, W)`` read at ``grid`` ``(N, D_out, H_out, W_out, 3)``; bilinear (0) or
    nearest (1)."""
    return _apply(input, grid, interpolation_mode, padding_mode, align_corners, dims=3)


def grid_sampler(input, grid, interpolation_mode, padding_mode, align_corners):
    """``grid_sampler_2d`` or ``grid_sampler_3d`` by the input's rank."""
    return _apply(input, grid, interpolation_mode, padding_mode, align_corners)


def grid_sample(input, grid, mode="bilinear", padding_mode="zeros", align_corners=None):
    """``input`` read at the normalized coordinates of ``grid`` (NOTE [Grid sampling as
    taps]): ``mode`` 'bilinear', 'nearest' or 'bicubic' (4-D only), ``padding_mode``
    'zeros', 'border' or 'reflection'."""
    if mode not in _MODES:
        raise ValueError(f"nn.functional.grid_sample(): expected mode to be 'bilinear', "
                         f"'nearest' or 'bicubic', but got: '{mode}'")
    if padding_mode not in _PADDINGS:
        raise ValueError("nn.functional.grid_sample(): expected padding_mode to be 'zeros', "
                         f"'border', or 'reflection', but got: '{padding_mode}'")
    if align_corners is None:
        warnings.warn(ALIGN_CORNERS_WARNING, stacklevel=2)
        align_corners = False
    return grid_sampler(input, grid, _MODES[mode], _PADDINGS[padding_mode], align_corners)


ALIGN_CORNERS_WARNING = (
    "Default grid_sample and affine_grid behavior has changed to align_corners=False since "
    "1.3.0. Please specify align_corners=True if the old behavior is desired. See the "
    "documentation of grid_sample for details.")
