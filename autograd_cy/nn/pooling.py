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
from autograd_cy.nn.padding import pad
from autograd_cy.nn.windows import fold_windows, output_size, sliding_windows

__all__ = ["max_pool1d", "max_pool2d", "avg_pool1d", "avg_pool2d", "adaptive_avg_pool2d"]


def _two(name, what, value, words="must either be a single int, or a tuple of two ints"):
    """One setting of a 2-D pooling as a pair, or torch's error for another length."""
    values = tuple(value) if isinstance(value, (tuple, list)) else (value,)
    if len(values) not in (1, 2):
        raise RuntimeError(f"{name}: {what} {words}")
    return values * 2 if len(values) == 1 else values


def _half(n):
    """``n / 2`` rounded toward zero, as C++ divides (a negative kernel's bound is 0)."""
    return n // 2 if n >= 0 else -(-n // 2)


def _settings(name, input, kernel_size, stride, padding, dilation, ceil_mode):
    """Pairs of kernel, stride, padding, dilation and the output size, after torch's checks
    in torch's order: the settings' lengths, the input's rank, each dim's output-size
    checks, then the settings' signs, empty dims and the output size."""
    kernel = _two(name, "kernel_size", kernel_size)
    if stride is None or (isinstance(stride, (tuple, list)) and len(stride) == 0):
        stride = kernel
    else:
        stride = _two(name, "stride", stride,
                      "must either be omitted, a single int, or a tuple of two ints")
    padding = _two(name, "padding", padding)
    dilation = _two(name, "dilation", dilation,
                    "must be either a single int, or a tuple of two ints")
    if input.dim() not in (3, 4):
        if name == "max_pool2d":
            raise RuntimeError("non-empty 3D or 4D (batch mode) tensor expected for input")
        if input.dim() < 3:       # avg_pool2d reads input.size(-3) first
            raise IndexError(f"Dimension out of range (expected to be in range of "
                             f"[{-max(input.dim(), 1)}, {max(input.dim(), 1) - 1}], but got -3)")
    for d in range(2):
        if stride[d] == 0:
            raise RuntimeError("stride should not be zero")
        if padding[d] < 0:
            raise RuntimeError(f"pad must be non-negative, but got pad: {padding[d]}")
        if padding[d] > _half(dilation[d] * (kernel[d] - 1) + 1):
            raise RuntimeError(
                f"pad should be at most half of effective kernel size, but got "
                f"pad={padding[d]}, kernel_size={kernel[d]} and dilation={dilation[d]}")
    if min(kernel) <= 0:
        raise RuntimeError(f"kernel size should be greater than zero, but got kH: "
                           f"{kernel[0]} kW: {kernel[1]}")
    if min(stride) <= 0:
        raise RuntimeError(f"stride should be greater than zero, but got dH: {stride[0]} "
                           f"dW: {stride[1]}")
    if min(dilation) <= 0:
        raise RuntimeError(f"dilation should be greater than zero, but got dilationH: "
                           f"{dilation[0]} dilationW: {dilation[1]}")
    if input.dim() not in (3, 4) or 0 in tuple(input.shape[-3:]):
        raise RuntimeError("Expected 3D or 4D (batch mode) tensor with optional 0 dim batch "
                           f"size for input, but got:{list(input.shape)}")
    if input.dtype._scalar_name == "Bool":
        raise NotImplementedError(f"\"{name}\" not implemented for 'Bool'")
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
    """Where the windows are in a flattened input plane: the index of each window's first
    entry ``(out_h, out_w)``, and of each entry relative to it ``(kh * kw,)``; max pooling
    returns their sum at the entry that won. One pair per configuration."""
    starts = ((np.arange(out[0])[:, None] * stride[0] - padding[0]) * width
              + np.arange(out[1]) * stride[1] - padding[1])
    entry = np.arange(kernel[0] * kernel[1])
    entries = (entry // kernel[1]) * dilation[0] * width + (entry % kernel[1]) * dilation[1]
    return factories.tensor(starts, device=device), factories.tensor(entries, device=device)


@functools.lru_cache(maxsize=64)
def _row_starts(rows, length, device):
    """The flat index of the first entry of each of ``rows`` rows of ``length``."""
    return factories.arange(0, rows * length, length, device=device)


class MaxPool2d(Function):
    """Max over each window of ``(N, C, H, W)``; the output and the argmax indices.

    The windows are copied once into rows of ``kh * kw``; the argmax of each row picks
    both outputs with ``index_select`` (a gather along a row costs several times more on
    NumPy): the value from the flattened rows, the index from the window's entries."""

    builtin_op = True

    @staticmethod
    def forward(ctx, input, kernel, stride, padding, dilation, out):
        n, c, height, width = input.shape
        padded = _padded(input, kernel, stride, padding, dilation, out, float("-inf"))
        area = kernel[0] * kernel[1]
        rows = sliding_windows(padded, kernel, stride, dilation, out).reshape(-1, area)
        position = rows.argmax(-1)                          # first maximum; NaN wins
        flat = position + _row_starts(rows.shape[0], area, input.device)
        output = rows.reshape(-1).index_select(0, flat).reshape(n, c, *out)
        starts, entries = _plane_indices(width, kernel, stride, padding, dilation, out,
                                         input.device)
        indices = entries.index_select(0, position).reshape(n, c, *out) + starts
        ctx.mark_non_differentiable(indices)
        ctx.save_for_backward(indices)
        ctx.save_for_forward(indices)
        ctx.input_shape = tuple(input.shape)
        return output, indices

    @staticmethod
    def backward(ctx, grad, grad_indices):
        """Each output gradient added at its argmax: one ``index_add`` into the flattened
        input (an order of magnitude cheaper than ``scatter_add`` along the planes)."""
        size = 1
        for extent in ctx.input_shape:
            size *= extent
        plane = factories.zeros((size,), dtype=grad.dtype, device=grad.device)
        plane = plane.index_add(0, _flat_indices(ctx), grad.reshape(-1))
        return plane.reshape(ctx.input_shape), None, None, None, None, None

    @staticmethod
    def jvp(ctx, input_t, *settings):
        """The tangent at each window's argmax."""
        (indices,) = ctx.saved_tensors
        return input_t.reshape(-1).index_select(0, _flat_indices(ctx)).reshape(
            indices.shape), None


def _flat_indices(ctx):
    """The saved indices (per input plane) as indices into the whole flattened input."""
    (indices,) = ctx.saved_tensors
    n, c, height, width = ctx.input_shape
    starts = _row_starts(n * c, height * width, indices.device)
    return (indices.reshape(n * c, -1) + starts.reshape(-1, 1)).reshape(-1)


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
        total = sliding_windows(padded, kernel, stride, (1, 1), out).sum((-2, -1))
        if not input.dtype.is_floating_point:        # integers: divided toward zero
            return total.div(divisor, rounding_mode="trunc").to(input.dtype)
        return total / divisor

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
    kernel, stride, padding, dilation, out = _settings("max_pool2d", input, kernel_size,
                                                       stride, padding, dilation, ceil_mode)
    output, indices = _batched(input, lambda x: MaxPool2d.apply(x, kernel, stride, padding,
                                                                dilation, out))
    return (output, indices) if return_indices else output


def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True, divisor_override=None):
    """The mean of each window."""
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError("divisor must be not zero")
    kernel, stride, padding, _, out = _settings("avg_pool2d", input, kernel_size, stride,
                                                padding, 1, ceil_mode)
    return _batched(input, lambda x: AvgPool2d.apply(x, kernel, stride, padding, out,
                                                     count_include_pad, divisor_override))


def _one(name, what, value, words):
    """One setting of a 1-D pooling as an int, or torch's error for a longer list."""
    if isinstance(value, (tuple, list)):
        if len(value) != 1:
            raise RuntimeError(words.format(name=name, what=what, size=len(value)))
        return value[0]
    return value


def _check_rank_1d(name, input):
    if input.dim() not in (2, 3):
        raise RuntimeError(f"Expected 2 to 3 dimensions, but got {input.dim()}-dimensional "
                           f"tensor for argument #1 'self' (while checking arguments for "
                           f"{name})")


def _check_max_pool1d(input, kernel, stride, padding, dilation, ceil_mode):
    """The checks of torch's max_pool1d (its own kernel, without indices), in its order."""
    if input.dim() not in (2, 3) or 0 in tuple(input.shape[-2:]):
        raise RuntimeError("max_pool1d: Expected 2D or 3D (batch mode) tensor with optional 0 "
                           f"dim batch size for input, but got:{list(input.shape)}")
    sized = "{name}() {what} must be an int, list of ints or tuple of ints of size 1 but got " \
        "size {size}"
    kernel = _one("max_pool1d", "kernel_size", kernel, sized)
    stride = kernel if stride is None or stride == [] or stride == () else _one(
        "max_pool1d", "stride", stride, "{name}() {what} must be None, an int, list of ints, "
        "or tuple of ints of size 1 but got size {size}")
    padding = _one("max_pool1d", "padding", padding, "{name}() {what} must be an int, list "
                   "of ints, or tuple of ints of size 1 but got size {size}")
    dilation = _one("max_pool1d", "dilation", dilation, sized)
    for what, value, rule in (("kernel_size", kernel, "be greater than zero"),
                              ("stride", stride, "be greater than zero"),
                              ("padding", padding, "be non-negative")):
        if value < (0 if what == "padding" else 1):
            raise RuntimeError(f"max_pool1d() {what} must {rule}, but got {value}")
    if padding > kernel // 2:
        raise RuntimeError(f"max_pool1d() padding should be at most half of kernel size, but "
                           f"got padding={padding} and kernel_size={kernel}")
    if dilation < 1:
        raise RuntimeError(f"max_pool1d() dilation must be greater than zero, but got "
                           f"{dilation}")
    out = output_size(input.shape[-1], kernel, stride, padding, dilation, ceil_mode)
    if out < 1:
        raise RuntimeError(f"max_pool1d() Invalid computed output size: {out}")
    return kernel, stride, padding, dilation


def max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    """``max_pool2d`` over a height of one (torch's checks: those of its 1-D kernel, or
    with ``return_indices`` those of the 2-D op it then runs)."""
    if return_indices:
        _check_rank_1d("max_pool1d", input)
        two = [value if isinstance(value, (tuple, list)) else (value,)
               for value in (kernel_size, padding, dilation)]
        stride = (1, *stride) if isinstance(stride, (tuple, list)) and stride else \
            (None if stride is None or stride == [] or stride == () else (1, stride))
        output, indices = max_pool2d(input.unsqueeze(-2), (1, *two[0]), stride,
                                     (0, *two[1]), (1, *two[2]), ceil_mode, True)
        return output.squeeze(-2), indices.squeeze(-2)
    kernel, stride, padding, dilation = _check_max_pool1d(input, kernel_size, stride,
                                                          padding, dilation, ceil_mode)
    return max_pool2d(input.unsqueeze(-2), (1, kernel), (1, stride), (0, padding),
                      (1, dilation), ceil_mode).squeeze(-2)


def avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True):
    """``avg_pool2d`` over a height of one."""
    _check_rank_1d("avg_pool1d", input)
    words = "{name}() argument '{what}' should contain one int (got {size})"
    kernel = _one("avg_pool1d", "kernel_size", kernel_size, words)
    stride = kernel if stride is None or stride == [] or stride == () else \
        _one("avg_pool1d", "stride", stride, words)
    padding = _one("avg_pool1d", "padding", padding, words)
    return avg_pool2d(input.unsqueeze(-2), (1, kernel), (1, stride), (0, padding), ceil_mode,
                      count_include_pad).squeeze(-2)


def _window_means(size, out, dtype, device):
    """``(out, size)``: row ``i`` averages input positions ``[floor(i * size / out),
    ceil((i + 1) * size / out))``, the i-th window of adaptive pooling along one dim."""
    matrix = np.zeros((out, size))
    for i in range(out):
        start, end = (i * size) // out, -(-((i + 1) * size) // out)
        matrix[i, start:end] = 1 / (end - start)
    return factories.tensor(matrix, dtype=dtype, device=device)


class AdaptiveAvgPool2d(Function):
    """Adaptive average pooling of the last two dims, as two products: a window's mean is
    the mean over its rows of the means over its columns, so ``rows @ input @ cols.T``
    with ``rows``/``cols`` from ``_window_means``; the backward is the transposed
    products, and both are linear (the tangent is pooled alike)."""

    builtin_op = True

    @staticmethod
    def forward(ctx, input, out):
        size = tuple(input.shape[-2:])
        ctx.rows = _window_means(size[0], out[0], input.dtype, input.device)
        ctx.cols = _window_means(size[1], out[1], input.dtype, input.device)
        return ctx.rows @ input @ ctx.cols.transpose(0, 1)

    @staticmethod
    def backward(ctx, grad):
        return ctx.rows.transpose(0, 1) @ grad @ ctx.cols, None

    @staticmethod
    def jvp(ctx, input_t, out_t):
        return ctx.rows @ input_t @ ctx.cols.transpose(0, 1)


AdaptiveAvgPool2d._backward_cls.__name__ = "AdaptiveAvgPool2DBackward0"


def adaptive_avg_pool2d(input, output_size):
    """Means over windows chosen so that the output has ``output_size``: window ``i`` spans
    ``[floor(i * H / out), ceil((i + 1) * H / out))``."""
    sizes = tuple(output_size) if isinstance(output_size, (tuple, list)) else \
        (output_size, output_size)
    if len(sizes) != 2:
        raise RuntimeError("adaptive_avg_pool2d: output_size must be 2")
    if input.dim() not in (3, 4):
        raise RuntimeError(f"adaptive_avg_pool2d(): Expected 3D or 4D tensor, but got "
                           f"{list(input.shape)}")
    for dim in (input.dim() - 2, input.dim() - 1):
        if input.shape[dim] == 0:
            raise RuntimeError(
                "adaptive_avg_pool2d(): Expected input to have non-zero size for non-batch "
                f"dimensions, but input has sizes {list(input.shape)} with dimension {dim} "
                "being empty")
    out = tuple(s if o is None else o for o, s in zip(sizes, tuple(input.shape[-2:])))
    if min(out) < 0:
        raise RuntimeError("adaptive_avg_pool2d: elements of output_size must be greater "
                           f"than or equal to 0 but received {{{out[0]}, {out[1]}}}")
    if not (input.dtype.is_floating_point or input.dtype.is_complex):
        raise NotImplementedError(f"\"adaptive_avg_pool2d\" not implemented for "
                                  f"'{input.dtype._scalar_name}'")
    if out == (1, 1):
        return input.mean((-2, -1), keepdim=True)       # torch's path too: MeanBackward1
    return AdaptiveAvgPool2d.apply(input, out)
