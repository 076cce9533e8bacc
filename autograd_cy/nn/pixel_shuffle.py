"""``pixel_shuffle``, ``pixel_unshuffle`` and ``channel_shuffle``: moving entries between the
channel dim and the spatial dims (or among the channels) without changing any value. Each
is a reshape, a permute and a reshape; torch gives each its own node
(``PixelShuffleBackward0``, ``PixelUnshuffleBackward0``, ``ChannelShuffleBackward0``), so
each is an op here, whose backward is the inverse reordering (an op too, so a double
backward records) and whose tangent is the same reordering of the input's tangent.
"""
from autograd_cy.autograd.function import Function

__all__ = ["pixel_shuffle", "pixel_unshuffle", "channel_shuffle"]


def _shuffled(input, r):
    """``(*, C * r * r, H, W)`` as ``(*, C, H * r, W * r)``: channel ``c * r * r + i * r + j``
    becomes the pixel at offset ``(i, j)`` of each ``r x r`` block of channel ``c``."""
    *lead, channels, height, width = input.shape
    blocks = input.reshape(*lead, channels // (r * r), r, r, height, width)
    k = len(lead)
    order = (*range(k), k, k + 3, k + 1, k + 4, k + 2)       # * C H r W r
    return blocks.permute(order).reshape(*lead, channels // (r * r), height * r, width * r)


def _unshuffled(input, r):
    """The inverse of ``_shuffled``: ``(*, C, H * r, W * r)`` as ``(*, C * r * r, H, W)``."""
    *lead, channels, height, width = input.shape
    blocks = input.reshape(*lead, channels, height // r, r, width // r, r)
    k = len(lead)
    order = (*range(k), k, k + 2, k + 4, k + 1, k + 3)       # * C r r H W
    return blocks.permute(order).reshape(*lead, channels * r * r, height // r, width // r)


def _channels_shuffled(input, groups):
    """``(N, C, *)`` with the channels read as a ``(groups, C / groups)`` matrix,
    transposed: channel ``g * (C / groups) + i`` moves to ``i * groups + g``."""
    n, channels, *rest = input.shape
    return input.reshape(n, groups, channels // groups, *rest).transpose(1, 2).reshape(
        n, channels, *rest)


class PixelShuffle(Function):
    """``_shuffled`` as an op: its backward unshuffles the gradient."""

    builtin_op = True

    @staticmethod
    def forward(ctx, input, r):
        ctx.r = r
        return _shuffled(input, r)

    @staticmethod
    def backward(ctx, grad):
        return PixelUnshuffle.apply(grad, ctx.r), None

    @staticmethod
    def jvp(ctx, input_t, r_t):
        return _shuffled(input_t, ctx.r)


class PixelUnshuffle(Function):
    """``_unshuffled`` as an op: its backward shuffles the gradient."""

    builtin_op = True

    @staticmethod
    def forward(ctx, input, r):
        ctx.r = r
        return _unshuffled(input, r)

    @staticmethod
    def backward(ctx, grad):
        return PixelShuffle.apply(grad, ctx.r), None

    @staticmethod
    def jvp(ctx, input_t, r_t):
        return _unshuffled(input_t, ctx.r)


class ChannelShuffle(Function):
    """``_channels_shuffled`` as an op: its backward is the shuffle by ``C / groups``
    groups, which puts every channel back."""

    builtin_op = True

    @staticmethod
    def forward(ctx, input, groups):
        ctx.groups = groups
        return _channels_shuffled(input, groups)

    @staticmethod
    def backward(ctx, grad):
        return ChannelShuffle.apply(grad, grad.shape[1] // ctx.groups), None

    @staticmethod
    def jvp(ctx, input_t, groups_t):
        return _channels_shuffled(input_t, ctx.groups)


PixelShuffle._backward_cls.__name__ = "PixelShuffleBackward0"
PixelUnshuffle._backward_cls.__name__ = "PixelUnshuffleBackward0"
ChannelShuffle._backward_cls.__name__ = "ChannelShuffleBackward0"


def _check_rank(name, input):
    if input.dim() < 3:
        raise RuntimeError(f"{name} expects input to have at least 3 dimensions, but got "
                           f"input with {input.dim()} dimension(s)")


def pixel_shuffle(input, upscale_factor):
    """``(*, C * r^2, H, W)`` to ``(*, C, H * r, W * r)`` with ``r = upscale_factor``: the
    sub-pixel convolution's rearrangement."""
    _check_rank("pixel_shuffle", input)
    if upscale_factor <= 0:
        raise RuntimeError(f"pixel_shuffle expects a positive upscale_factor, but got "
                           f"{upscale_factor}")
    channels, square = input.shape[-3], upscale_factor * upscale_factor
    if channels % square:
        raise RuntimeError("pixel_shuffle expects its input's 'channel' dimension to be "
                           "divisible by the square of upscale_factor, but input.size(-3)="
                           f"{channels} is not divisible by {square}")
    return PixelShuffle.apply(input, upscale_factor)


def pixel_unshuffle(input, downscale_factor):
    """The inverse of ``pixel_shuffle``: ``(*, C, H * r, W * r)`` to
    ``(*, C * r^2, H, W)``."""
    _check_rank("pixel_unshuffle", input)
    if downscale_factor <= 0:
        raise RuntimeError(f"pixel_unshuffle expects a positive downscale_factor, but got "
                           f"{downscale_factor}")
    for dim, what in ((-2, "height"), (-1, "width")):
        if input.shape[dim] % downscale_factor:
            raise RuntimeError(f"pixel_unshuffle expects {what} to be divisible by "
                               f"downscale_factor, but input.size({dim})={input.shape[dim]} "
                               f"is not divisible by {downscale_factor}")
    return PixelUnshuffle.apply(input, downscale_factor)


def channel_shuffle(input, groups):
    """The channels of ``(N, C, *)`` interleaved across ``groups`` (ShuffleNet's mixing
    of grouped convolutions' outputs)."""
    if input.dim() <= 2:
        raise RuntimeError(f"channel_shuffle expects input with > 2 dims, but got input with "
                           f"sizes {list(input.shape)}")
    if groups <= 0:
        raise RuntimeError(f"Number of groups to divide channels in must be positive. Value "
                           f"of groups:{groups}")
    if input.shape[1] % groups:
        raise RuntimeError(f"Number of channels must be divisible by groups. Got "
                           f"{input.shape[1]} channels and {groups} groups.")
    return ChannelShuffle.apply(input, groups)
