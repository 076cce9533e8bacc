"""``unfold`` (im2col) and ``fold`` (col2im): a batch of images as the columns of its
sliding blocks, and back. They are each other's adjoints, so each op's backward is the
other op (torch's nodes: ``Im2ColBackward0``, ``Col2ImBackward0``), and both are linear
(the tangent is transformed alike).

``unfold`` of ``(N, C, H, W)`` is ``(N, C * kh * kw, L)``: the zero-padded input's windows
(``windows.sliding_windows``, a strided view) with the channel and kernel offsets as rows
and the ``L`` window positions, row-major, as columns, the layout convolution's forward
multiplies by its weight. ``fold`` adds the columns back onto an image of
``output_size`` (``windows.fold_windows``), so overlapping blocks sum, and cuts the
padding off.
"""
from autograd_cy.autograd.function import Function
from autograd_cy.nn.padding import pad
from autograd_cy.nn.tuples import _pair
from autograd_cy.nn.windows import fold_windows, output_size as _count, sliding_windows

__all__ = ["unfold", "fold"]


def _blocks(size, kernel, dilation, padding, stride):
    """How many block positions fit along each of the two spatial dims."""
    return tuple(_count(size[d], kernel[d], stride[d], padding[d], dilation[d])
                 for d in range(2))


def _im2col(input, kernel, dilation, padding, stride):
    n, channels, height, width = input.shape
    out = _blocks((height, width), kernel, dilation, padding, stride)
    padded = pad(input, (padding[1], padding[1], padding[0], padding[0])) \
        if any(padding) else input
    windows = sliding_windows(padded, kernel, stride, dilation, out)     # N C oh ow kh kw
    return windows.permute(0, 1, 4, 5, 2, 3).reshape(
        n, channels * kernel[0] * kernel[1], out[0] * out[1])


def _col2im(columns, size, kernel, dilation, padding, stride):
    n, rows, _ = columns.shape
    channels = rows // (kernel[0] * kernel[1])
    out = _blocks(size, kernel, dilation, padding, stride)
    windows = columns.reshape(n, channels, *kernel, *out).permute(0, 1, 4, 5, 2, 3)
    full = (size[0] + 2 * padding[0], size[1] + 2 * padding[1])
    image = fold_windows(windows, full, stride, dilation)
    return image[:, :, padding[0]:padding[0] + size[0], padding[1]:padding[1] + size[1]]


class Im2Col(Function):
    """``_im2col`` as an op; its backward is ``Col2Im``."""

    builtin_op = True

    @staticmethod
    def forward(ctx, input, kernel, dilation, padding, stride):
        ctx.settings = (kernel, dilation, padding, stride)
        ctx.size = tuple(input.shape[2:])
        return _im2col(input, kernel, dilation, padding, stride).contiguous()

    @staticmethod
    def backward(ctx, grad):
        return Col2Im.apply(grad, ctx.size, *ctx.settings), None, None, None, None

    @staticmethod
    def jvp(ctx, input_t, *settings):
        return _im2col(input_t, *ctx.settings)


class Col2Im(Function):
    """``_col2im`` as an op; its backward is ``Im2Col``."""

    builtin_op = True

    @staticmethod
    def forward(ctx, columns, size, kernel, dilation, padding, stride):
        ctx.settings = (size, kernel, dilation, padding, stride)
        return _col2im(columns, size, kernel, dilation, padding, stride).contiguous()

    @staticmethod
    def backward(ctx, grad):
        return (Im2Col.apply(grad, *ctx.settings[1:]),) + (None,) * 5

    @staticmethod
    def jvp(ctx, columns_t, *settings):
        return _col2im(columns_t, *ctx.settings)


Im2Col._backward_cls.__name__ = "Im2ColBackward0"
Col2Im._backward_cls.__name__ = "Col2ImBackward0"


def _check_settings(kernel, dilation, padding, stride):
    """torch's checks of the four settings, in its order."""
    if min(kernel) <= 0:
        raise RuntimeError(f"kernel size should be greater than zero, but got kernel_height: "
                           f"{kernel[0]} kernel_width: {kernel[1]}")
    if min(stride) <= 0:
        raise RuntimeError(f"stride should be greater than zero, but got stride_height: "
                           f"{stride[0]} stride_width: {stride[1]}")
    if min(dilation) <= 0:
        raise RuntimeError(f"dilation should be greater than zero, but got dilation_height: "
                           f"{dilation[0]} dilation_width: {dilation[1]}")
    if min(padding) < 0:
        raise RuntimeError(f"padding should be non-negative, but got pad_height: "
                           f"{padding[0]} pad_width: {padding[1]}")


def _check_blocks(size, kernel, dilation, padding, stride):
    """At least one block position along each dim, or torch's error."""
    out = _blocks(size, kernel, dilation, padding, stride)
    if min(out) < 1:
        raise RuntimeError(
            f"Given input with spatial size {tuple(size)}, kernel_size={tuple(kernel)}, "
            f"dilation={tuple(dilation)}, padding={tuple(padding)}, calculated shape of the "
            f"array of sliding blocks as {out}, but its components must be at least one.")
    return out


def unfold(input, kernel_size, dilation=1, padding=0, stride=1):
    """The sliding blocks of ``(N, C, H, W)`` (or ``(C, H, W)``) as the columns of
    ``(N, C * kh * kw, L)`` (im2col)."""
    settings = [_pair(v) for v in (kernel_size, dilation, padding, stride)]
    if input.dim() not in (3, 4) or 0 in tuple(input.shape[-3:]):
        if input.dim() < 3:               # torch reads input.size(-3) first
            raise IndexError(f"Dimension out of range (expected to be in range of "
                             f"[{-max(input.dim(), 1)}, {max(input.dim(), 1) - 1}], but got "
                             f"{input.dim()})")
        raise RuntimeError("Expected 3D or 4D (batch mode) tensor with possibly 0 batch size "
                           "and other non-zero dimensions for input, but got: "
                           f"{list(input.shape)}")
    _check_settings(*settings)
    _check_blocks(tuple(input.shape[-2:]), *settings)
    unbatched = input.dim() == 3
    if unbatched:
        input = input.unsqueeze(0)
    output = Im2Col.apply(input, *settings)
    return output.squeeze(0) if unbatched else output


def fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1):
    """The columns of ``(N, C * kh * kw, L)`` (or ``(C * kh * kw, L)``) added back onto an
    image ``(N, C, *output_size)`` (col2im): overlapping blocks sum."""
    size = _pair(output_size)
    settings = [_pair(v) for v in (kernel_size, dilation, padding, stride)]
    if input.dim() not in (2, 3) or 0 in tuple(input.shape[-2:]):
        raise RuntimeError("Expected 2D or 3D (batch mode) tensor for input with possibly 0 "
                           "batch size and non-zero dimensions for input, but got: "
                           f"{list(input.shape)}")
    _check_settings(*settings)
    rows, length = input.shape[-2], input.shape[-1]
    area = settings[0][0] * settings[0][1]
    if rows % area:
        raise RuntimeError("Expected size of input's dimension 1 to be divisible by the "
                           f"product of kernel_size, but got input.size(1)={rows} and "
                           f"kernel_size={tuple(settings[0])}.")
    out = [max(count, 0) for count in _blocks(size, *settings)]
    if out[0] * out[1] != length:
        raise RuntimeError(
            f"Given output_size={tuple(size)}, kernel_size={tuple(settings[0])}, "
            f"dilation={tuple(settings[1])}, padding={tuple(settings[2])}, "
            f"stride={tuple(settings[3])}, expected size of input's dimension 2 to match the "
            f"calculated number of sliding blocks {out[0]} * {out[1]} = {out[0] * out[1]}, "
            f"but got input.size(2)={length}.")
    unbatched = input.dim() == 2
    if unbatched:
        input = input.unsqueeze(0)
    output = Col2Im.apply(input, size, *settings)
    return output.squeeze(0) if unbatched else output
