"""Adaptive pooling beyond ``adaptive_avg_pool2d/3d`` (``pooling.py``): ``adaptive_max_pool2d``
and ``adaptive_max_pool3d`` (one code, each its own node, ``AdaptiveMaxPool2DBackward0``,
``AdaptiveMaxPool3DBackward0``), and the 1-D forms, which torch runs as the
2-D ops on a height of one (their node is the final squeeze's).

Adaptive windows along a dim of ``size`` entries pooled to ``out`` are
``[floor(i * size / out), ceil((i + 1) * size / out))``: their lengths differ by at most
one. Max pooling gathers each window's entries into a row of the longest window's length,
a shorter window repeating its first entry (which changes neither the maximum nor which
entry is first to hold it), then proceeds as ``max_pool2d``: the argmax of each row, the
value and the flat index in the input plane, and a backward that adds each gradient at its
index (``MaxPool2d``'s).
"""
import functools
import math

import numpy as np

from autograd_cy import factories, int64
from autograd_cy.nn.pooling import (
    MaxPool2d, _adaptive_output, _check_rank_1d, _check_spatial_sizes, _one,
    adaptive_avg_pool2d,
)

__all__ = ["adaptive_avg_pool1d", "adaptive_max_pool1d", "adaptive_max_pool2d",
           "adaptive_max_pool3d"]


def _bounds(size, out):
    """The start and end of each adaptive window along one dim."""
    i = np.arange(out)
    return (i * size) // out, -(-((i + 1) * size) // out)


@functools.lru_cache(maxsize=64)
def _window_table(size, out, device):
    """``(out_h * out_w, longest window's area)``: the flat plane index of each entry of
    each window, a short window padded with its first entry (over ``len(size)`` dims: a
    volume's windows in 3-D)."""
    dims = len(size)
    flat, inside, first = 0, True, 0
    for d in range(dims):
        start, end = _bounds(size[d], out[d])
        entries = start[:, None] + np.arange(int((end - start).max()))      # out_d, k_d
        step = math.prod(size[d + 1:])
        shape = [1] * (2 * dims)                                            # *out, *k
        shape[d], shape[dims + d] = entries.shape
        flat = flat + (entries * step).reshape(shape)
        inside = inside & (entries < end[:, None]).reshape(shape)
        first = first + (start * step).reshape(shape[:dims] + [1] * dims)
    flat = np.where(inside, flat, first)
    return factories.tensor(flat.reshape(math.prod(out), -1), device=device)


class AdaptiveMaxPool2d(MaxPool2d):
    """The maximum of each adaptive window of ``(N, C, H, W)`` or ``(C, H, W)`` (or of 3-D
    volumes) and its flat index; the backward and tangent are ``MaxPool2d``'s (they read only the
    indices)."""

    builtin_op = True

    @staticmethod
    def forward(ctx, input, out):
        lead = tuple(input.shape)[:input.dim() - len(out)]            # (N, C) or (C,)
        size = tuple(input.shape)[len(lead):]
        ctx.input_shape = tuple(input.shape)
        ctx.planes = (math.prod(lead), math.prod(size))
        if 0 in out:                     # no windows: empty results
            output = factories.zeros((*lead, *out), dtype=input.dtype, device=input.device)
            indices = factories.zeros((*lead, *out), dtype=int64, device=input.device)
            ctx.mark_non_differentiable(indices)
            ctx.save_for_backward(indices)
            ctx.save_for_forward(indices)
            return output, indices
        table = _window_table(size, out, input.device)
        windows, area = table.shape
        count = math.prod(lead)
        planes = input.reshape(count, math.prod(size))
        rows = planes.index_select(1, table.reshape(-1)).reshape(-1, area)
        position = rows.argmax(-1)                          # first maximum
        starts = factories.arange(0, rows.shape[0] * area, area, device=input.device)
        output = rows.reshape(-1).index_select(0, position + starts).reshape(*lead, *out)
        window = factories.arange(windows, device=input.device).expand(count, -1).reshape(-1)
        indices = table.reshape(-1).index_select(0, window * area + position).reshape(
            *lead, *out)
        ctx.mark_non_differentiable(indices)
        ctx.save_for_backward(indices)
        ctx.save_for_forward(indices)
        return output, indices

    @staticmethod
    def backward(ctx, grad, grad_indices):
        return MaxPool2d.backward(ctx, grad, grad_indices)[:2]

    @staticmethod
    def jvp(ctx, input_t, out_t):
        return MaxPool2d.jvp(ctx, input_t)


AdaptiveMaxPool2d._backward_cls.__name__ = "AdaptiveMaxPool2DBackward0"


class AdaptiveMaxPool3d(AdaptiveMaxPool2d):
    """``AdaptiveMaxPool2d`` over ``(N, C, D, H, W)``, under torch's 3-D node name."""

    builtin_op = True


AdaptiveMaxPool3d._backward_cls.__name__ = "AdaptiveMaxPool3DBackward0"


def adaptive_max_pool2d(input, output_size, return_indices=False):
    """The maximum over windows chosen so that the output has ``output_size`` (``None``
    keeps a dim's size); with ``return_indices``, also where each was (the flat index in
    its input plane)."""
    sizes, out = _adaptive_output(output_size, input, 2)
    if input.dim() not in (3, 4):
        raise RuntimeError(f"adaptive_max_pool2d(): Expected 3D or 4D tensor, but got: "
                           f"{list(input.shape)}")
    _check_spatial_sizes("adaptive_max_pool2d", input, 2)
    if len(sizes) != 2:
        raise RuntimeError("adaptive_max_pool2d(): internal error: output_size.size() must "
                           "be 2")
    return _adaptive_max(input, out, AdaptiveMaxPool2d, return_indices)


def _adaptive_max(input, out, op, return_indices):
    """``op`` (batched or not) after the check of the output's size."""
    if min(out) < 0:
        raise RuntimeError(f"Trying to create tensor with negative dimension {min(out)}: "
                           f"{[*input.shape[:-len(out)], *out]}")
    output, indices = op.apply(input, out)
    return (output, indices) if return_indices else output


def adaptive_max_pool3d(input, output_size, return_indices=False):
    """The maximum over windows of ``(N, C, D, H, W)`` chosen so that the output has
    ``output_size`` (``None`` keeps a dim's size); with ``return_indices``, also where each
    was (the flat index in its input volume)."""
    sizes, out = _adaptive_output(output_size, input, 3)
    if input.dim() not in (4, 5):
        raise RuntimeError(f"adaptive_max_pool3d(): Expected 4D or 5D tensor, but got: "
                           f"{list(input.shape)}")
    _check_spatial_sizes("adaptive_max_pool3d", input, 3)
    if len(sizes) != 3:
        raise RuntimeError("adaptive_max_pool3d(): internal error: output_size.size() must "
                           "be 3")
    if not input.dtype.is_floating_point:
        raise NotImplementedError(f"\"adaptive_max_pool3d_cpu\" not implemented for "
                                  f"'{input.dtype._scalar_name}'")
    return _adaptive_max(input, out, AdaptiveMaxPool3d, return_indices)


_ONE_INT = "{name}() argument '{what}' should contain one int (got {size})"


def adaptive_avg_pool1d(input, output_size):
    """Adaptive average pooling of ``(N, C, L)``: ``adaptive_avg_pool2d`` on a height of
    one."""
    _check_rank_1d("adaptive_avg_pool1d", input)
    out = _one("adaptive_avg_pool1d", "output_size", output_size, _ONE_INT)
    return adaptive_avg_pool2d(input.unsqueeze(-2), (1, out)).squeeze(-2)


def adaptive_max_pool1d(input, output_size, return_indices=False):
    """Adaptive max pooling of ``(N, C, L)``: ``adaptive_max_pool2d`` on a height of one."""
    _check_rank_1d("adaptive_max_pool1d", input)
    out = _one("adaptive_max_pool1d", "output_size", output_size, _ONE_INT)
    output, indices = adaptive_max_pool2d(input.unsqueeze(-2), (1, out), True)
    output, indices = output.squeeze(-2), indices.squeeze(-2)
    return (output, indices) if return_indices else output
