"""Pooling: ``max_pool1d/2d/3d``, ``avg_pool1d/2d/3d`` and ``adaptive_avg_pool2d/3d``, over
the sliding windows of ``windows.py``; the 2-D and 3-D ops are one code over the last 2 or 3
dims with each its own node, named as torch's (``MaxPool2DWithIndicesBackward0``,
``MaxPool3DWithIndicesBackward0``, ``AvgPool2DBackward0`` ...), and the 1-D forms are the
2-D ops on a height of one, as in torch.

Max pooling keeps, for each window, the flat index of its maximum in the input plane or
volume (the
first one on ties, a NaN if any: torch's rule); its backward adds each output gradient at
that index. Average pooling's backward spreads each output gradient evenly over its window
(``fold_windows``), divided by the same divisor as the forward.
"""
import functools
import math

import numpy as np

from autograd_cy import factories
from autograd_cy.autograd.function import Function
from autograd_cy.nn.padding import pad
from autograd_cy.nn.windows import fold_windows, output_size, sliding_windows

__all__ = ["max_pool1d", "max_pool2d", "max_pool3d", "avg_pool1d", "avg_pool2d",
           "avg_pool3d", "adaptive_avg_pool2d", "adaptive_avg_pool3d"]

_COUNT = {2: "two", 3: "three"}
_LETTERS = {2: "HW", 3: "THW"}


def refuse_avg_pool_dtype(name, dtype):
    """torch's NotImplementedError of a dtype its CPU kernel is not compiled for:
    ``avg_pool2d``'s (also ``avg_pool1d``'s) takes the floating dtypes and the integers,
    ``avg_pool3d``'s neither float16 nor bfloat16; neither takes bool or complex."""
    if dtype.is_complex or dtype.itemsize == 1 and dtype._scalar_name == "Bool" or (
            name == "avg_pool3d" and dtype.is_floating_point and dtype.itemsize == 2):
        kernel = "avg_pool3d_out_frame" if name == "avg_pool3d" else name
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{dtype._scalar_name}'")


def _dims_tuple(name, what, value, dims, words="must {either}be a single int, or a tuple of"):
    """One setting of a ``dims``-D pooling as ``dims`` ints, or torch's error for another
    length (``words`` ends with the count: "or a tuple of three ints")."""
    values = tuple(value) if isinstance(value, (tuple, list)) else (value,)
    if len(values) not in (1, dims):
        # (avg_pool3d words them without "either")
        words = words.format(either="" if name == "avg_pool3d" else "either ")
        raise RuntimeError(f"{name}: {what} {words} {_COUNT[dims]} ints")
    return values * dims if len(values) == 1 else values


def _spelled(prefix, values, dims):
    """torch's listing of a setting per dim: ``kT: 1 kH: 2 kW: 2``."""
    return " ".join(f"{prefix}{letter}: {v}" for letter, v in zip(_LETTERS[dims], values))


def _half(n):
    """``n / 2`` rounded toward zero, as C++ divides (a negative kernel's bound is 0)."""
    return n // 2 if n >= 0 else -(-n // 2)


def _settings(name, input, kernel_size, stride, padding, dilation, ceil_mode, dims=2):
    """Tuples of kernel, stride, padding, dilation and the output size over the last
    ``dims`` dims, after torch's checks in torch's order: the settings' lengths, the input's
    rank, each dim's output-size checks, then the settings' signs, empty dims, the padding
    against the kernel and the output size."""
    kernel = _dims_tuple(name, "kernel_size", kernel_size, dims)
    if stride is None or (isinstance(stride, (tuple, list)) and len(stride) == 0):
        stride = kernel
    else:
        stride = _dims_tuple(name, "stride", stride, dims,
                             "must {either}be omitted, a single int, or a tuple of")
    padding = _dims_tuple(name, "padding", padding, dims)
    dilation = _dims_tuple(name, "dilation", dilation, dims,
                           "must be either a single int, or a tuple of")
    if input.dim() not in (dims + 1, dims + 2):
        if name != "avg_pool2d":
            raise RuntimeError(f"non-empty {dims + 1}D or {dims + 2}D (batch mode) tensor "
                               "expected for input")
        if input.dim() < 3:       # avg_pool2d reads input.size(-3) first
            raise IndexError(f"Dimension out of range (expected to be in range of "
                             f"[{-max(input.dim(), 1)}, {max(input.dim(), 1) - 1}], but got -3)")
    beyond_half = False                 # checked after the signs (torch's order)
    for d in range(dims):
        beyond_half = beyond_half or padding[d] > kernel[d] // 2
        if stride[d] == 0:
            raise RuntimeError("stride should not be zero")
        if padding[d] < 0:
            raise RuntimeError(f"pad must be non-negative, but got pad: {padding[d]}")
        if padding[d] > _half(dilation[d] * (kernel[d] - 1) + 1):
            raise RuntimeError(
                f"pad should be at most half of effective kernel size, but got "
                f"pad={padding[d]}, kernel_size={kernel[d]} and dilation={dilation[d]}")
    if min(kernel) <= 0:
        raise RuntimeError("kernel size should be greater than zero, but got "
                           + _spelled("k", kernel, dims))
    if min(stride) <= 0:
        raise RuntimeError("stride should be greater than zero, but got "
                           + _spelled("d", stride, dims))
    if min(dilation) <= 0:
        raise RuntimeError("dilation should be greater than zero, but got "
                           + _spelled("dilation", dilation, dims))
    size = tuple(input.shape[-dims:])
    if dims == 2 and (input.dim() not in (3, 4) or 0 in tuple(input.shape[-3:])):
        raise RuntimeError("Expected 3D or 4D (batch mode) tensor with optional 0 dim batch "
                           f"size for input, but got:{list(input.shape)}")
    if dims == 3:
        if 0 in tuple(input.shape[-4:]):
            where = "avg_pool3d" if name == "avg_pool3d" else \
                "max_pool3d_with_indices_out_cpu_template"
            # (torch's message shows the empty dim's length, 0, where it means its index)
            raise RuntimeError(f"{where}(): Expected input's non-batch dimensions to have "
                               f"positive length, but input has a shape of "
                               f"{list(input.shape)} and non-batch dimension 0 has length "
                               "zero!")
        if name == "avg_pool3d" and any(s < k for s, k in zip(size, kernel)):
            raise RuntimeError(f"input image (T: {size[0]} H: {size[1]} W: {size[2]}) "
                               f"smaller than kernel size ({_spelled('k', kernel, 3)})")
    if beyond_half:
        order = (1, 0) if dims == 2 else (0, 2, 1)       # torch's order: W before H
        raise RuntimeError(
            "pad should be smaller than or equal to half of kernel size, but got " + (
                ", ".join(f"pad{'TWH'[i + 3 - dims]} = {padding[d]}" for i, d in
                          enumerate(order)) + ", " + ", ".join(
                    f"k{'TWH'[i + 3 - dims]} = {kernel[d]}" for i, d in enumerate(order))
                if dims == 2 else
                " ".join(f"k{'TWH'[i]}: {kernel[d]}" for i, d in enumerate(order)) + " "
                + " ".join(f"pad{'TWH'[i]}: {padding[d]}" for i, d in enumerate(order))))
    if name.startswith("avg_pool"):
        refuse_avg_pool_dtype(name, input.dtype)
    elif input.dtype._scalar_name == "Bool":
        raise NotImplementedError(f"\"{name}\" not implemented for 'Bool'")
    out = tuple(output_size(size[d], kernel[d], stride[d], padding[d], dilation[d], ceil_mode)
                for d in range(dims))
    if min(out) < 1:
        channels = input.shape[-dims - 1]
        raise RuntimeError(f"Given input size: ({'x'.join(map(str, (channels, *size)))}). "
                           f"Calculated output size: ({'x'.join(map(str, (channels, *out)))}). "
                           "Output size is too small")
    return kernel, stride, padding, dilation, out


def _padded(input, kernel, stride, padding, dilation, out, value):
    """``input`` padded by ``padding`` with ``value``, and past the bottom and right (and
    back) as far as a ceil_mode window reaches."""
    dims = len(kernel)
    shape = input.shape
    sides = []
    for d in range(dims - 1, -1, -1):
        extra = (out[d] - 1) * stride[d] + dilation[d] * (kernel[d] - 1) + 1 \
            - shape[d - dims] - 2 * padding[d]
        sides += (padding[d], padding[d] + extra if extra > 0 else padding[d])
    return pad(input, sides, value=value) if any(sides) else input


@functools.lru_cache(maxsize=64)
def _plane_indices(size, kernel, stride, padding, dilation, out, device):
    """Where the windows are in a flattened input plane (or volume) of ``size``: the index of
    each window's first entry ``(*out)``, and of each entry relative to it ``(kernel's
    volume,)``; max pooling returns their sum at the entry that won. One pair per
    configuration."""
    dims = len(size)
    steps = [math.prod(size[d + 1:]) for d in range(dims)]
    starts = np.zeros(out, dtype=np.int64)
    entries = np.zeros(kernel, dtype=np.int64)
    for d in range(dims):
        shape = [1] * dims
        shape[d] = -1
        starts = starts + ((np.arange(out[d]) * stride[d] - padding[d]) * steps[d]).reshape(shape)
        entries = entries + (np.arange(kernel[d]) * dilation[d] * steps[d]).reshape(shape)
    return (factories.tensor(starts, device=device),
            factories.tensor(entries.reshape(-1), device=device))


@functools.lru_cache(maxsize=64)
def _row_starts(rows, length, device):
    """The flat index of the first entry of each of ``rows`` rows of ``length``."""
    return factories.arange(0, rows * length, length, device=device)


class MaxPool2d(Function):
    """Max over each window of ``(N, C, H, W)`` or ``(C, H, W)`` (or of 3-D volumes: the
    kernel's length says); the output and the argmax indices.

    The windows are copied once into rows of ``kh * kw``; the argmax of each row picks
    both outputs with ``index_select`` (a gather along a row costs several times more on
    NumPy): the value from the flattened rows, the index from the window's entries."""

    builtin_op = True

    @staticmethod
    def forward(ctx, input, kernel, stride, padding, dilation, out):
        lead = tuple(input.shape)[:input.dim() - len(kernel)]         # (N, C) or (C,)
        size = tuple(input.shape)[len(lead):]
        padded = _padded(input, kernel, stride, padding, dilation, out, float("-inf"))
        area = math.prod(kernel)
        rows = sliding_windows(padded, kernel, stride, dilation, out).reshape(-1, area)
        position = rows.argmax(-1)                          # first maximum; NaN wins
        flat = position + _row_starts(rows.shape[0], area, input.device)
        output = rows.reshape(-1).index_select(0, flat).reshape(*lead, *out)
        starts, entries = _plane_indices(size, kernel, stride, padding, dilation, out,
                                         input.device)
        indices = entries.index_select(0, position).reshape(*lead, *out) + starts
        ctx.mark_non_differentiable(indices)
        ctx.save_for_backward(indices)
        ctx.save_for_forward(indices)
        ctx.input_shape = tuple(input.shape)
        ctx.planes = (math.prod(lead), math.prod(size))
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
    planes, area = ctx.planes
    starts = _row_starts(planes, area, indices.device)
    return (indices.reshape(planes, -1) + starts.reshape(-1, 1)).reshape(-1)


MaxPool2d._backward_cls.__name__ = "MaxPool2DWithIndicesBackward0"


class MaxPool3d(MaxPool2d):
    """``MaxPool2d`` over ``(N, C, D, H, W)``, under torch's 3-D node name."""

    builtin_op = True


MaxPool3d._backward_cls.__name__ = "MaxPool3DWithIndicesBackward0"


def _average_divisors(size, kernel, stride, padding, out, count_include_pad, device, dtype):
    """What each window's sum is divided by (torch's rule): the window's area inside the
    padded input, or inside the input itself without ``count_include_pad``."""
    counts = []
    for d in range(len(size)):
        start = np.arange(out[d]) * stride[d] - padding[d]
        end = np.minimum(start + kernel[d], size[d] + padding[d])
        if count_include_pad:
            counts.append(end - start)
        else:
            counts.append(np.minimum(end, size[d]) - np.maximum(start, 0))
    divisors = functools.reduce(np.multiply.outer, counts).astype(np.float64)
    return factories.tensor(divisors, dtype=dtype, device=device)


class AvgPool2d(Function):
    """Mean over each window of ``(N, C, H, W)`` or ``(C, H, W)`` (or of 3-D volumes) with
    torch's divisors."""

    builtin_op = True

    @staticmethod
    def forward(ctx, input, kernel, stride, padding, out, count_include_pad, divisor_override):
        dims = len(kernel)
        ones = (1,) * dims
        padded = _padded(input, kernel, stride, padding, ones, out, 0.0)
        if divisor_override:
            divisor = divisor_override
        else:
            divisor = _average_divisors(tuple(input.shape[-dims:]), kernel, stride, padding,
                                        out, count_include_pad, input.device, input.dtype)
        ctx.settings = (kernel, stride, padding, out, tuple(padded.shape[-dims:]),
                        tuple(input.shape[-dims:]), divisor)
        total = sliding_windows(padded, kernel, stride, ones, out).sum(tuple(range(-dims, 0)))
        if not input.dtype.is_floating_point:        # integers: divided toward zero
            return total.div(divisor, rounding_mode="trunc").to(input.dtype)
        return total / divisor

    @staticmethod
    def backward(ctx, grad):
        kernel, stride, padding, out, padded_size, size, divisor = ctx.settings
        dims = len(kernel)
        share = (grad / divisor).reshape(*grad.shape, *(1,) * dims).expand(
            *grad.shape, *kernel)
        image = fold_windows(share, padded_size, stride, (1,) * dims)
        return (image[(Ellipsis, *[slice(p, p + s) for p, s in zip(padding, size)])],
                None, None, None, None, None, None)

    @staticmethod
    def jvp(ctx, input_t, *settings):
        """Linear: the tangent pooled alike."""
        kernel, stride, padding, out, _, _, divisor = ctx.settings
        ones = (1,) * len(kernel)
        padded = _padded(input_t, kernel, stride, padding, ones, out, 0.0)
        return sliding_windows(padded, kernel, stride, ones, out).sum(
            tuple(range(-len(kernel), 0))) / divisor


AvgPool2d._backward_cls.__name__ = "AvgPool2DBackward0"


class AvgPool3d(AvgPool2d):
    """``AvgPool2d`` over ``(N, C, D, H, W)``, under torch's 3-D node name."""

    builtin_op = True


AvgPool3d._backward_cls.__name__ = "AvgPool3DBackward0"


def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    """The maximum of each window; with ``return_indices``, also where it was (the flat
    index in its input plane)."""
    kernel, stride, padding, dilation, out = _settings("max_pool2d", input, kernel_size,
                                                       stride, padding, dilation, ceil_mode)
    output, indices = MaxPool2d.apply(input, kernel, stride, padding, dilation, out)
    return (output, indices) if return_indices else output


def max_pool3d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    """The maximum of each window of ``(N, C, D, H, W)``; with ``return_indices``, also where
    it was (the flat index in its input volume)."""
    kernel, stride, padding, dilation, out = _settings("max_pool3d", input, kernel_size,
                                                       stride, padding, dilation, ceil_mode, 3)
    output, indices = MaxPool3d.apply(input, kernel, stride, padding, dilation, out)
    return (output, indices) if return_indices else output


def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True, divisor_override=None):
    """The mean of each window."""
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError("divisor must be not zero")
    kernel, stride, padding, _, out = _settings("avg_pool2d", input, kernel_size, stride,
                                                padding, 1, ceil_mode)
    return AvgPool2d.apply(input, kernel, stride, padding, out, count_include_pad,
                           divisor_override)


def avg_pool3d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True, divisor_override=None):
    """The mean of each window of ``(N, C, D, H, W)``."""
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError("divisor must be not zero")
    kernel, stride, padding, _, out = _settings("avg_pool3d", input, kernel_size, stride,
                                                padding, 1, ceil_mode, 3)
    return AvgPool3d.apply(input, kernel, stride, padding, out, count_include_pad,
                           divisor_override)


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


class AdaptiveAvgPool3d(Function):
    """Adaptive average pooling of the last three dims: ``AdaptiveAvgPool2d``'s products
    over height and width, then one over depth (``depth @ x`` with the volume as
    ``(..., D, h * w)``)."""

    builtin_op = True

    @staticmethod
    def forward(ctx, input, out):
        size = tuple(input.shape[-3:])
        ctx.means = [_window_means(size[d], out[d], input.dtype, input.device)
                     for d in range(3)]
        return AdaptiveAvgPool3d._pool(ctx, input, False)

    @staticmethod
    def _pool(ctx, x, adjoint):
        """The three products (``adjoint``: transposed, for the backward)."""
        depth, rows, cols = [m.transpose(0, 1) if adjoint else m for m in ctx.means]
        lead = tuple(x.shape[:-3])
        x = rows @ x @ cols.transpose(0, 1)
        planes = depth @ x.reshape(*lead, x.shape[-3], x.shape[-2] * x.shape[-1])
        return planes.reshape(*lead, depth.shape[0], *x.shape[-2:])

    @staticmethod
    def backward(ctx, grad):
        return AdaptiveAvgPool3d._pool(ctx, grad, True), None

    @staticmethod
    def jvp(ctx, input_t, out_t):
        return AdaptiveAvgPool3d._pool(ctx, input_t, False)


AdaptiveAvgPool3d._backward_cls.__name__ = "AdaptiveAvgPool3DBackward0"


def _check_spatial_sizes(name, input, dims):
    """torch's check of an adaptive pooling's input: none of its last ``dims`` dims (the
    spatial ones) is empty."""
    for dim in range(input.dim() - dims, input.dim()):
        if input.shape[dim] == 0:
            raise RuntimeError(
                f"{name}(): Expected input to have non-zero size for non-batch dimensions, "
                f"but input has sizes {list(input.shape)} with dimension {dim} being empty")


def _adaptive_output(output_size, input, dims):
    """The output's spatial sizes of an adaptive pooling over the last ``dims`` dims: one
    int for all, or one per dim (None keeps that dim's size); the given sizes first, for
    the caller's check of their count."""
    sizes = tuple(output_size) if isinstance(output_size, (tuple, list)) else \
        (output_size,) * dims
    return sizes, tuple(s if o is None else o for o, s in zip(sizes, tuple(input.shape[-dims:])))


def adaptive_avg_pool2d(input, output_size):
    """Means over windows chosen so that the output has ``output_size``: window ``i`` spans
    ``[floor(i * H / out), ceil((i + 1) * H / out))``."""
    sizes, out = _adaptive_output(output_size, input, 2)
    if len(sizes) != 2:
        raise RuntimeError("adaptive_avg_pool2d: output_size must be 2")
    if input.dim() not in (3, 4):
        raise RuntimeError(f"adaptive_avg_pool2d(): Expected 3D or 4D tensor, but got "
                           f"{list(input.shape)}")
    _check_spatial_sizes("adaptive_avg_pool2d", input, 2)
    if min(out) < 0:
        raise RuntimeError("adaptive_avg_pool2d: elements of output_size must be greater "
                           f"than or equal to 0 but received {{{out[0]}, {out[1]}}}")
    if not (input.dtype.is_floating_point or input.dtype.is_complex):
        raise NotImplementedError(f"\"adaptive_avg_pool2d\" not implemented for "
                                  f"'{input.dtype._scalar_name}'")
    if out == (1, 1):
        return input.mean((-2, -1), keepdim=True)       # torch's path too: MeanBackward1
    return AdaptiveAvgPool2d.apply(input, out)


def adaptive_avg_pool3d(input, output_size):
    """Means over windows of ``(N, C, D, H, W)`` chosen so that the output has
    ``output_size`` (``None`` keeps a dim's size)."""
    sizes, out = _adaptive_output(output_size, input, 3)
    if len(sizes) != 3:
        raise RuntimeError("adaptive_avg_pool3d: output_size must be 3")
    if input.dim() not in (4, 5):
        raise RuntimeError(f"adaptive_avg_pool3d(): Expected 4D or 5D tensor, but got "
                           f"{list(input.shape)}")
    _check_spatial_sizes("adaptive_avg_pool3d", input, 3)
    if min(out) < 0:
        raise RuntimeError("adaptive_avg_pool3d: elements of output_size must be greater "
                           f"than or equal to 0 but received {{{out[0]}, {out[1]},{out[2]}}}")
    if not (input.dtype.is_floating_point or input.dtype.is_complex):
        raise NotImplementedError(f"\"adaptive_avg_pool3d_cpu\" not implemented for "
                                  f"'{input.dtype._scalar_name}'")
    if out == (1, 1, 1):
        return input.mean((-3, -2, -1), keepdim=True)   # torch's path too: MeanBackward1
    return AdaptiveAvgPool3d.apply(input, out)
