"""Fractional max pooling (Graham, 2014): ``fractional_max_pool2d/3d`` and their
``_with_indices`` forms, each its own node (``FractionalMaxPool2DBackward0``,
``FractionalMaxPool3DBackward0``).

Each ``(n, c)`` plane pools ``kernel_size`` windows whose starts along a dim of ``size``
entries pooled to ``out`` are pseudo-random: with ``u`` that plane's sample for the dim
(``_random_samples[n, c, d]`` in ``[0, 1)``, drawn by ``rand`` unless given; in 2-D the
first sample is the width's, in 3-D the samples go time, height, width) and
``alpha = (size - k) / (out - 1)``, window ``i`` starts at
``int((i + u) * alpha) - int(u * alpha)`` and the last at ``size - k``, computed in the
input's dtype as torch does. Each window's entries are gathered into a row; the maximum
is the row's first maximum, or its last NaN (torch's CPU loop); the backward and the tangent
are ``MaxPool2d``'s, which read only the flat indices.
"""
import math

import numpy as np

from autograd_cy import factories, int64
from autograd_cy._C.ops.selection import where
from autograd_cy._C.tensor import Tensor
from autograd_cy.nn.pooling import MaxPool2d, _row_starts
from autograd_cy.nn.tuples import _ntuple, _pair

__all__ = ["fractional_max_pool2d", "fractional_max_pool3d",
           "fractional_max_pool2d_with_indices", "fractional_max_pool3d_with_indices"]

_triple = _ntuple(3)


def _starts(samples, size, out, kernel):
    """``(planes, out)``: the start of each window along one dim, for each plane's sample
    (a NumPy array in the input's dtype)."""
    dtype = samples.dtype.type
    starts = np.empty((samples.shape[0], out), np.int64)
    if out > 1:
        alpha = dtype(size - kernel) / dtype(out - 1)
        steps = np.arange(out - 1).astype(dtype)[None, :] + samples[:, None]
        starts[:, :-1] = ((steps * alpha).astype(np.float64).astype(np.int64)
                          - (samples * alpha).astype(np.float64).astype(np.int64)[:, None])
    if out > 0:
        starts[:, -1] = size - kernel
    return starts


def _window_entries(samples, size, out, kernel, order):
    """``(planes, prod(out), prod(kernel))``: the flat plane index of every entry of every
    window; ``order[d]`` is the column of ``samples`` that dim ``d`` reads."""
    dims = len(size)
    planes = samples.shape[0]
    flat = np.zeros((planes,) + (1,) * (2 * dims), np.int64)
    for d in range(dims):
        starts = _starts(samples[:, order[d]], size[d], out[d], kernel[d])
        entries = starts[:, :, None] + np.arange(kernel[d])              # planes, out, k
        shape = [planes] + [1] * (2 * dims)
        shape[1 + d], shape[1 + dims + d] = out[d], kernel[d]
        flat = flat + entries.reshape(shape) * math.prod(size[d + 1:])
    return flat.reshape(planes, math.prod(out), math.prod(kernel))


class FractionalMaxPool2d(MaxPool2d):
    """The maximum of each pseudo-random window of ``(N, C, H, W)`` or ``(C, H, W)`` (or of
    3-D volumes: the kernel's length says) and its flat index in the plane."""

    builtin_op = True

    @staticmethod
    def forward(ctx, input, kernel, out, samples, order):
        lead = tuple(input.shape)[:input.dim() - len(kernel)]          # (N, C) or (C,)
        size = tuple(input.shape)[len(lead):]
        planes = math.prod(lead)
        ctx.input_shape = tuple(input.shape)
        ctx.planes = (planes, math.prod(size))
        if planes == 0 or 0 in out:
            ctx.planes = (1, math.prod(size))     # (a reshape to (0, -1) is ambiguous)
            output = factories.empty((*lead, *out), dtype=input.dtype, device=input.device)
            indices = factories.empty((*lead, *out), dtype=int64, device=input.device)
        else:
            host = samples.detach().cpu().numpy()
            host = host[:lead[0] if len(lead) == 2 else 1].reshape(planes, -1)
            table = _window_entries(host, size, out, kernel, order)          # P, O, K
            windows, area = table.shape[1:]
            table = factories.tensor(table, device=input.device)
            offsets = _row_starts(planes, math.prod(size), input.device).reshape(-1, 1, 1)
            rows = input.reshape(-1).index_select(0, (table + offsets).reshape(-1))
            rows = rows.reshape(-1, area)
            position = rows.argmax(-1)                      # the first maximum, or NaN
            nan = rows.isnan()
            if bool(nan.any()):                             # torch's loop keeps the last NaN
                last = area - 1 - nan.flip(-1).to(int64).argmax(-1)
                position = where(nan.any(-1), last, position)
            chosen = _row_starts(rows.shape[0], area, input.device) + position
            output = rows.reshape(-1).index_select(0, chosen).reshape(*lead, *out)
            indices = table.reshape(-1).index_select(0, chosen).reshape(*lead, *out)
        ctx.mark_non_differentiable(indices)
        ctx.save_for_backward(indices)
        ctx.save_for_forward(indices)
        return output, indices

    @staticmethod
    def backward(ctx, grad, grad_indices):
        return MaxPool2d.backward(ctx, grad, grad_indices)[:1] + (None,) * 4

    @staticmethod
    def jvp(ctx, input_t, *settings):
        return MaxPool2d.jvp(ctx, input_t)


FractionalMaxPool2d._backward_cls.__name__ = "FractionalMaxPool2DBackward0"


class FractionalMaxPool3d(FractionalMaxPool2d):
    """``FractionalMaxPool2d`` over ``(N, C, D, H, W)``, under torch's 3-D node name."""

    builtin_op = True


FractionalMaxPool3d._backward_cls.__name__ = "FractionalMaxPool3DBackward0"


def _sizes(name, input, kernel_size, output_size, output_ratio, dims):
    """The output size from ``output_size`` or ``output_ratio`` (torch's Python checks)."""
    if output_size is None and output_ratio is None:
        raise ValueError(f"{name} requires specifying either an output_size or an "
                         "output_ratio")
    if output_size is None:
        if dims == 2 and len(output_ratio) > 2:     # (a float has no len(), as in torch)
            raise ValueError("fractional_max_pool2d requires output_ratio to either be a "
                             "single Int or tuple of Ints.")
        ratio = (_pair if dims == 2 else _triple)(output_ratio)
        output_size = [int(input.size(d - dims) * ratio[d]) for d in range(dims)]
    return output_size


def _fractional(input, kernel_size, output_size, samples, dims, op):
    """The checks of torch's ATen op, in its order, then ``op``."""
    two = dims == 2
    name = "fractional_max_pool2d" if two else "fractional_max_pool3d"
    where = "fractional_max_pool2d()" if two else "fractional_max_pool3d_out()"
    count = "" if two else " three"
    kernel = (_pair if two else _triple)(kernel_size)
    out = (_pair if two else _triple)(output_size)
    if len(kernel) != dims:
        raise RuntimeError(f"{name}: kernel_size must either be a single Int or tuple of"
                           f"{count} Ints")
    if len(out) != dims:
        raise RuntimeError(f"{name}: output_size must either be a single Int or tuple of"
                           f"{count} Ints")
    if input.dim() not in (dims + 1, dims + 2):
        raise RuntimeError(f"{where}: Expected {dims + 1}D or {dims + 2}D tensor, but got: "
                           f"{list(input.shape)}")
    for i in range(1, input.dim()):
        if input.shape[i] == 0:
            raise RuntimeError(f"{where}: Expected input to have non-zero size for non-batch "
                               f"dimensions, but got{list(input.shape)} with dimension {i} "
                               "being empty.")
    names = ("height", "width") if two else ("time", "height", "width")
    for d, word in enumerate(names):
        size = input.shape[d - dims]
        if out[d] + kernel[d] - 1 > size - (0 if two else 1):   # 3-D's check is strict
            raise RuntimeError(f"{where}: pool {word} {kernel[d]} too large relative to "
                               f"input {word} {size}")
    if samples.dtype != input.dtype:
        raise RuntimeError("Expect _random_samples to have the same dtype as input")
    if samples.dim() != 3:
        raise RuntimeError(f"Expect _random_samples to have 3 dimensions, got {samples.dim()}")
    batch = input.shape[0] if input.dim() == dims + 2 else 1
    if samples.shape[0] < batch:
        raise RuntimeError("Expect _random_samples.size(0) no less then input batch size.")
    if samples.shape[1] != input.shape[-dims - 1]:
        raise RuntimeError("Expect _random_samples.size(1) equals to input channel size.")
    if samples.shape[2] != dims:
        raise RuntimeError(f"Expect _random_samples.size(2) equals to {dims}; got "
                           f"{samples.shape[2]}.")
    if not input.dtype.is_floating_point:
        raise NotImplementedError(f"\"{name}_out_frame\" not implemented for "
                                  f"'{input.dtype._scalar_name}'")
    if min(out) < 0:
        raise RuntimeError(f"Trying to create tensor with negative dimension {min(out)}: "
                           f"{[*input.shape[:-dims], *out]}")
    order = (1, 0) if two else (0, 1, 2)         # 2-D: the first sample is the width's
    return op.apply(input, kernel, tuple(out), samples, order)


def _samples(input, samples, dims):
    """``_random_samples`` or ``rand(N, C, dims)`` in the input's dtype (torch's draw)."""
    if samples is not None:
        return samples
    if not isinstance(input, Tensor):
        raise TypeError(f"fractional_max_pool{dims}d(): argument 'input' must be Tensor, "
                        f"not {type(input).__name__}")
    batch = 1 if input.dim() == dims + 1 else input.size(0)
    return factories.rand(batch, input.size(-dims - 1), dims, dtype=input.dtype,
                          device=input.device)


def fractional_max_pool2d_with_indices(input, kernel_size, output_size=None,
                                       output_ratio=None, return_indices=False,
                                       _random_samples=None):
    """Fractional max pooling over the last two dims, and the flat index of each maximum
    in its plane."""
    out = _sizes("fractional_max_pool2d", input, kernel_size, output_size, output_ratio, 2)
    samples = _samples(input, _random_samples, 2)
    return _fractional(input, kernel_size, out, samples, 2, FractionalMaxPool2d)


def fractional_max_pool3d_with_indices(input, kernel_size, output_size=None,
                                       output_ratio=None, return_indices=False,
                                       _random_samples=None):
    """Fractional max pooling over the last three dims, and the flat index of each maximum
    in its volume."""
    out = _sizes("fractional_max_pool3d", input, kernel_size, output_size, output_ratio, 3)
    samples = _samples(input, _random_samples, 3)
    return _fractional(input, kernel_size, out, samples, 3, FractionalMaxPool3d)


def fractional_max_pool2d(input, kernel_size, output_size=None, output_ratio=None,
                          return_indices=False, _random_samples=None):
    """Max pooling over pseudo-random ``kernel_size`` windows of the last two dims, to
    ``output_size`` (or ``output_ratio`` of the input's); with ``return_indices``, also the
    flat index of each maximum."""
    output, indices = fractional_max_pool2d_with_indices(
        input, kernel_size, output_size, output_ratio, return_indices, _random_samples)
    return (output, indices) if return_indices else output


def fractional_max_pool3d(input, kernel_size, output_size=None, output_ratio=None,
                          return_indices=False, _random_samples=None):
    """Max pooling over pseudo-random ``kernel_size`` windows of the last three dims, to
    ``output_size`` (or ``output_ratio`` of the input's); with ``return_indices``, also the
    flat index of each maximum."""
    output, indices = fractional_max_pool3d_with_indices(
        input, kernel_size, output_size, output_ratio, return_indices, _random_samples)
    return (output, indices) if return_indices else output
