"""``affine_grid`` (and ATen's ``affine_grid_generator``): the sampling grid of a batch of
affine maps, for ``grid_sample`` (spatial transformer networks).

The grid ``(N, H, W, 2)`` (or ``(N, D, H, W, 3)``) is the base grid of the output's
normalized coordinates ``(x, y[, z], 1)``, -1 to 1 along each dim (the pixels' centres
without align_corners: scaled by ``(n - 1) / n``; 0 for a dim of one), times ``theta``
``(N, 2, 3)`` (or ``(N, 3, 4)``) transposed. One op under torch's node
(``AffineGridGeneratorBackward0``); its backward, the base grid transposed times the grid's
gradient, is a Tensor op, so it records for double backward.

>>> import autograd_cy as ag
>>> import autograd_cy.nn.functional as F
>>> F.affine_grid(ag.tensor([[[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]]), (1, 1, 1, 2),
...               align_corners=True)
tensor([[[[-1.,  0.],
          [ 1.,  0.]]]])
"""
import warnings

import autograd_cy as _ag
from autograd_cy.autograd.function import Function
from autograd_cy.nn.grid_sample import ALIGN_CORNERS_WARNING

__all__ = ["affine_grid", "affine_grid_generator"]


def _steps(theta, count, align_corners):
    """``count`` coordinates from -1 to 1 (0 for one), scaled to the pixels' centres
    without ``align_corners``."""
    if count <= 1:
        return _ag.zeros((), dtype=theta.dtype, device=theta.device)
    line = _ag.linspace(-1, 1, count, dtype=theta.dtype, device=theta.device)
    return line if align_corners else line * (count - 1) / count


def _base_grid(theta, size, align_corners):
    """``(N, *spatial, dims + 1)``: each output point's ``(x, y[, z], 1)``."""
    spatial = list(size[2:])
    dims = len(spatial)
    columns = []
    for d in range(dims):                 # x along the last spatial dim, then y, z
        extent = spatial[dims - 1 - d]
        line = _steps(theta, extent, align_corners)
        shape = [1] * dims
        if line.dim():
            shape[dims - 1 - d] = extent
        columns.append(line.reshape(shape).expand(spatial))
    columns.append(_ag.ones(spatial, dtype=theta.dtype, device=theta.device))
    base = _ag.stack(columns, -1)
    return base.unsqueeze(0).expand([size[0], *spatial, dims + 1])


class AffineGridGenerator(Function):
    """The base grid times ``theta`` transposed, ``(N, points, dims)``."""
    builtin_op = True

    @staticmethod
    def forward(ctx, theta, size, align_corners):
        base = _base_grid(theta, size, align_corners)
        dims = len(size) - 2
        ctx.base = base.reshape(size[0], -1, dims + 1)
        ctx.shape = [size[0], *size[2:], dims]
        return ctx.base.bmm(theta.transpose(1, 2)).reshape(ctx.shape)

    @staticmethod
    def backward(ctx, grad):
        base = ctx.base
        flat = grad.reshape(base.shape[0], base.shape[1], -1)
        return base.transpose(1, 2).bmm(flat).transpose(1, 2), None, None

    @staticmethod
    def jvp(ctx, theta_t, size_t, align_corners_t):
        return ctx.base.bmm(theta_t.transpose(1, 2)).reshape(ctx.shape)


AffineGridGenerator._backward_cls.__name__ = "AffineGridGeneratorBackward0"


def affine_grid_generator(theta, size, align_corners):
    """ATen's op behind ``affine_grid``, without its checks of ``theta``."""
    size = [int(n) for n in size]
    if len(size) not in (4, 5):
        raise RuntimeError("AffineGridGenerator needs 4d (spatial) or 5d (volumetric) inputs.")
    return AffineGridGenerator.apply(theta, size, bool(align_corners))


def affine_grid(theta, size, align_corners=None):
    """The sampling grid ``(N, H, W, 2)`` (``size`` ``(N, C, H, W)``, ``theta`` ``(N, 2,
    3)``) or ``(N, D, H, W, 3)`` (``size`` ``(N, C, D, H, W)``, ``theta`` ``(N, 3, 4)``) of
    the affine maps ``theta``, in ``grid_sample``'s normalized coordinates."""
    if align_corners is None:
        warnings.warn(ALIGN_CORNERS_WARNING, stacklevel=2)
        align_corners = False
    if not theta.is_floating_point():
        raise ValueError(f"Expected theta to have floating point type, but got {theta.dtype}")
    if len(size) == 4:
        if theta.dim() != 3 or theta.shape[-2] != 2 or theta.shape[-1] != 3:
            raise ValueError(f"Expected a batch of 2D affine matrices of shape Nx2x3 for size "
                             f"{size}. Got {theta.shape}.")
        spatial = size[-2:]
    elif len(size) == 5:
        if theta.dim() != 3 or theta.shape[-2] != 3 or theta.shape[-1] != 4:
            raise ValueError(f"Expected a batch of 3D affine matrices of shape Nx3x4 for size "
                             f"{size}. Got {theta.shape}.")
        spatial = size[-3:]
    else:
        raise NotImplementedError(f"affine_grid only supports 4D and 5D sizes, for 2D and 3D "
                                  f"affine transforms, respectively. Got size {size}.")
    if align_corners and min(spatial) == 1:
        warnings.warn("Since version 1.3.0, affine_grid behavior has changed for unit-size "
                      "grids when align_corners=True. This is not an intended use case of "
                      "affine_grid. See the documentation of affine_grid for details.",
                      stacklevel=2)
    elif min(size) <= 0:
        raise ValueError(f"Expected non-zero, positive output size. Got {size}")
    return affine_grid_generator(theta, size, align_corners)
