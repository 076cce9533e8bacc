"""Pooling: ``max_pool1d/2d``, ``avg_pool1d/2d`` and ``adaptive_avg_pool2d``, over the
sliding windows of ``windows.py``; the two 2-D ops have their own nodes, named as torch's
(``MaxPool2DWithIndicesBackward0``, ``AvgPool2DBackward0``), and the 1-D forms are the 2-D
ops on a height of one, as in torch.

Max pooling keeps, for each window, the flat index of its maximum in the input plane (the
first one on ties, a NaN if any: torch's rule); its backward adds each output gradient at
that index. Average pooling's backward spreads each output gradient evenly over its window
(``fold_windows``), divided by the same divisor as the forward.
"""
import functools

import numpy as np

from autograd_cy import factories
from autograd_cy.autograd.function import Function
from autograd_cy.nn.tuples import _pair
from autograd_cy.nn.padding import pad
from autograd_cy.nn.windows import fold_windows, output_size, sliding_windows

__all__ = ["max_pool1d", "max_pool2d", "avg_pool1d", "avg_pool2d", "adaptive_avg_pool2d"]


def _settings(input, kernel_size, stride, padding, dilation, ceil_mode):
    """Pairs of kernel, stride, padding, dilation and the output size, with torch's checks."""
    kernel = _pair(kernel_size)
    stride = kernel if stride is None or stride == [] or stride == () else _pair(stride)
    padding, dilation = _pair(padding), _pair(dilation)
    if input.dim() not in (3, 4) or input.numel() == 0:
        raise RuntimeError("non-empty 3D or 4D (batch mode) tensor expected for input")
    for d in range(2):
        if padding[d] > (dilation[d] * (kernel[d] - 1) + 1) // 2:
            raise RuntimeError(
                f"pad should be at most half of effective kernel size, but got "
                f"pad={padding[d]}, kernel_size={kernel[d]} and dilation={dilation[d]}")
    size = tuple(input.shape[-2:])
    out = tuple(output_size(size[d], kernel[d], stride[d], padding[d], dilation[d], ceil_mode)
                for d in range(2))
    if min(out) < 1:
        channels = input.shape[-3]
        raise RuntimeError(f"Given input size: ({channels}x{size[0]}x{size[1]}). Calculated "
                           f"output size: ({channels}x{out[0]}x{out[1]}). Output size is too "
                           "small")
    return kernel, stride, padding, dilation, out


def _padded(input, kernel, stride, padding, dilation, out, value):
    """``input`` padded by ``padding`` with ``value``, and past the bottom and right as far
    as a ceil_mode window reaches."""
    extra = [max(0, (out[d] - 1) * stride[d] + dilation[d] * (kernel[d] - 1) + 1
                 - input.shape[-2 + d] - 2 * padding[d]) for d in range(2)]
    sides = (padding[1], padding[1] + extra[1], padding[0], padding[0] + extra[0])
    return pad(input, sides, value=value) if any(sides) else input


@functools.lru_cache(maxsize=64)
def _plane_indices(width, kernel, stride, padding, dilation, out, device):
    """``(out_h, out_w, kh * kw)``: the flat index in the input plane of each window entry
    (what max pooling returns for the entry that won); one table per configuration."""
    rows = np.arange(out[0])[:, None, None] * stride[0] - padding[0] + \
        (np.arange(kernel[0] * kernel[1]) // kernel[1]) * dilation[0]
    cols = np.arange(out[1])[None, :, None] * stride[1] - padding[1] + \
        (np.arange(kernel[0] * kernel[1]) % kernel[1]) * dilation[1]
    return factories.tensor(rows * width + cols, device=device)


class MaxPool2d(Function):
    """Max over each window of ``(N, C, H, W)``; the output and the argmax indices."""

    builtin_op = True

    @staticmethod
    def forward(ctx, input, kernel, stride, padding, dilation, out):
        n, c, height, width = input.shape
        padded = _padded(input, kernel, stride, padding, dilation, out, float("-inf"))
        windows = sliding_windows(padded, kernel, stride, dilation, out).reshape(
            n, c, out[0], out[1], kernel[0] * kernel[1])
        position = windows.argmax(-1, keepdim=True)         # first maximum; NaN wins
        output = windows.gather(-1, position).squeeze(-1)
        table = _plane_indices(width, kernel, stride, padding, dilation, out, input.device)
        indices = table.expand(n, c, *table.shape).gather(-1, position).squeeze(-1)
        ctx.mark_non_differentiable(indices)
        ctx.save_for_backward(indices)
        ctx.save_for_forward(indices)
        ctx.input_shape = tuple(input.shape)
        return output, indices

    @staticmethod
    def backward(ctx, grad, grad_indices):
        (indices,) = ctx.saved_tensors
        n, c, height, width = ctx.input_shape
        plane = factories.zeros((n, c, height * width), dtype=grad.dtype, device=grad.device)
        plane = plane.scatter_add(2, indices.reshape(n, c, -1), grad.reshape(n, c, -1))
        return plane.reshape(ctx.input_shape), None, None, None, None, None

    @staticmethod
    def jvp(ctx, input_t, *settings):
        """The tangent at each window's argmax."""
        (indices,) = ctx.saved_tensors
        n, c = ctx.input_shape[:2]
        return (input_t.reshape(n, c, -1).gather(2, indices.reshape(n, c, -1))
                .reshape(indices.shape), None)


MaxPool2d._backward_cls.__name__ = "MaxPool2DWithIndicesBackward0"


def _average_divisors(size, kernel, stride, padding, out, count_include_pad, device, dtype):
    """What each window's sum is divided by (torch's rule): the window's area inside the
    padded input, or inside the input itself without ``count_include_pad``."""
    counts = []
    for d in range(2):
        start = np.arange(out[d]) * stride[d] - padding[d]
        end = np.minimum(start + kernel[d], size[d] + padding[d])
        if count_include_pad:
            counts.append(end - start)
        else:
            counts.append(np.minimum(end, size[d]) - np.maximum(start, 0))
    divisors = np.outer(counts[0], counts[1]).astype(np.float64)
    return factories.tensor(divisors, dtype=dtype, device=device)


class AvgPool2d(Function):
    """Mean over each window of ``(N, C, H, W)`` with torch's divisors."""

    builtin_op = True

    @staticmethod
    def forward(ctx, input, kernel, stride, padding, out, count_include_pad, divisor_override):
        padded = _padded(input, kernel, stride, padding, (1, 1), out, 0.0)
        if divisor_override:
            divisor = divisor_override
        else:
            divisor = _average_divisors(tuple(input.shape[-2:]), kernel, stride, padding, out,
                                        count_include_pad, input.device, input.dtype)
        ctx.settings = (kernel, stride, padding, out, tuple(padded.shape[-2:]),
                        tuple(input.shape[-2:]), divisor)
        return sliding_windows(padded, kernel, stride, (1, 1), out).sum((-2, -1)) / divisor

    @staticmethod
    def backward(ctx, grad):
        kernel, stride, padding, out, padded_size, size, divisor = ctx.settings
        share = (grad / divisor).unsqueeze(-1).unsqueeze(-1).expand(
            *grad.shape, kernel[0], kernel[1])
        image = fold_windows(share, padded_size, stride, (1, 1))
        return (image[..., padding[0]:padding[0] + size[0], padding[1]:padding[1] + size[1]],
                None, None, None, None, None, None)

    @staticmethod
    def jvp(ctx, input_t, *settings):
        """Linear: the tangent pooled alike."""
        kernel, stride, padding, out, _, _, divisor = ctx.settings
        padded = _padded(input_t, kernel, stride, padding, (1, 1), out, 0.0)
        return sliding_windows(padded, kernel, stride, (1, 1), out).sum((-2, -1)) / divisor


AvgPool2d._backward_cls.__name__ = "AvgPool2DBackward0"


def _batched(input, run):
    """``run`` on a 4-D input; a 3-D (unbatched) one gets a batch dim of one for it."""
    if input.dim() == 3:
        result = run(input.unsqueeze(0))
        return tuple(r.squeeze(0) for r in result) if isinstance(result, tuple) \
            else result.squeeze(0)
    return run(input)


def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    """The maximum of each window; with ``return_indices``, also where it was (the flat
    index in its input plane)."""
    kernel, stride, padding, dilation, out = _settings(input, kernel_size, stride, padding,
                                                       dilation, ceil_mode)
    output, indices = _batched(input, lambda x: MaxPool2d.apply(x, kernel, stride, padding,
                                                                dilation, out))
    return (output, indices) if return_indices else output


def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True, divisor_override=None):
    """The mean of each window."""
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError("divisor must be not zero")
    kernel, stride, padding, _, out = _settings(input, kernel_size, stride, padding, 1,
                                                ceil_mode)
    return _batched(input, lambda x: AvgPool2d.apply(x, kernel, stride, padding, out,
                                                     count_include_pad, divisor_override))


def _one_dim(value, default):
    value = default if value is None else value
    return (1, value[0] if isinstance(value, (tuple, list)) else value)


def max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    """``max_pool2d`` over a height of one."""
    if input.dim() not in (2, 3):
        raise RuntimeError("max_pool1d() Expected 2D or 3D input tensor, but got "
                           f"{list(input.shape)}")
    result = max_pool2d(input.unsqueeze(-2), _one_dim(kernel_size, None),
                        _one_dim(stride, kernel_size), (0, _one_dim(padding, 0)[1]),
                        (1, _one_dim(dilation, 1)[1]), ceil_mode, return_indices)
    if return_indices:
        return result[0].squeeze(-2), result[1].squeeze(-2)
    return result.squeeze(-2)


def avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True):
    """``avg_pool2d`` over a height of one."""
    if input.dim() not in (2, 3):
        raise RuntimeError(f"avg_pool1d() Expected 2D or 3D input tensor, but got "
                           f"{list(input.shape)}")
    return avg_pool2d(input.unsqueeze(-2), _one_dim(kernel_size, None),
                      _one_dim(stride, kernel_size), (0, _one_dim(padding, 0)[1]), ceil_mode,
                      count_include_pad).squeeze(-2)


def adaptive_avg_pool2d(input, output_size):
    """Means over windows chosen so that the output has ``output_size``: window ``i`` spans
    ``[floor(i * H / out), ceil((i + 1) * H / out))``."""
    size = tuple(input.shape[-2:])
    out = tuple(s if o is None else o for o, s in zip(_pair(output_size), size))
    if out == (1, 1):
        return input.mean((-2, -1), keepdim=True)
    if size[0] % out[0] == 0 and size[1] % out[1] == 0:
        kernel = (size[0] // out[0], size[1] // out[1])
        return avg_pool2d(input, kernel, kernel)
    from autograd_cy import stack
    rows = []
    for i in range(out[0]):
        top, bottom = (i * size[0]) // out[0], -(-((i + 1) * size[0]) // out[0])
        row = []
        for j in range(out[1]):
            left, right = (j * size[1]) // out[1], -(-((j + 1) * size[1]) // out[1])
            row.append(input[..., top:bottom, left:right].mean((-2, -1)))
        rows.append(stack(row, -1))
    return stack(rows, -2)
