"""``CrossMapLRN2d``'s Function: the legacy (Lua Torch) local response normalization across
channels that ``nn.CrossMapLRN2d`` applies, with torch's own forward and backward.

NOTE [CrossMapLRN2d's legacy windows]
The forward divides ``x`` by ``(k + alpha / size * S)^beta``, with ``S[c]`` a running sum of
squares over the channels: ``S[0]`` sums the first ``p = int((size - 1) / 2 + 1)`` channels,
and each next channel adds channel ``c + p - 1`` (while there is one) and, once ``c > p``,
drops channel ``c - p``; channel 0 is never dropped. The backward is torch's formula,
``scale^-beta * g - 2 alpha beta / size * x * R[c]``, with ``R[c]`` the sum of
``g * y / scale`` over the channels ``c - q .. c - q + size - 1`` (``q = int(size - (size -
1) / 2)``), which is not the derivative of that forward (torch's gradcheck fails on it
too); both are reproduced here, as the legacy module computes them, in NumPy.
"""
import numpy as np

from autograd_cy._C.tensor import _array_of, _wrap_array
from autograd_cy.autograd.function import Function, once_differentiable

__all__ = []


def _running_sums(squares, size):
    """``S`` of NOTE [CrossMapLRN2d's legacy windows] over dim 1 of ``squares``."""
    channels = squares.shape[1]
    pre_pad = int((size - 1) / 2 + 1)
    sums = np.empty_like(squares)
    sums[:, 0] = squares[:, :min(pre_pad, channels)].sum(1)
    for c in range(1, channels):
        sums[:, c] = sums[:, c - 1]
        if c < channels - pre_pad + 1:
            sums[:, c] += squares[:, c + pre_pad - 1]
        if c > pre_pad:
            sums[:, c] -= squares[:, c - pre_pad]
    return sums


class CrossMapLRN2d(Function):
    """``x / (k + alpha / size * S)^beta`` over ``(N, C, H, W)`` (NOTE [CrossMapLRN2d's
    legacy windows])."""

    @staticmethod
    def forward(ctx, input, size, alpha=1e-4, beta=0.75, k=1):
        if input.dim() != 4:
            raise ValueError(f"CrossMapLRN2d: Expected input to be 4D, got {input.dim()}D "
                             "instead.")
        x = _array_of(input.detach().cpu())
        scale = _running_sums(x * x, size) * x.dtype.type(alpha / size) + x.dtype.type(k)
        output = (scale ** x.dtype.type(-beta) * x).astype(x.dtype, copy=False)
        ctx.arrays = x, scale, output
        ctx.settings = size, alpha, beta
        return _wrap_array(output).to(input.device)

    @staticmethod
    @once_differentiable
    def backward(ctx, grad_output):
        x, scale, output = ctx.arrays
        size, alpha, beta = ctx.settings
        channels = x.shape[1]
        inverse_pre_pad = int(size - (size - 1) / 2)
        if inverse_pre_pad + channels > channels + size - 1:        # size 1, as torch's
            raise RuntimeError(f"start ({inverse_pre_pad}) + length ({channels}) exceeds "
                               f"dimension size ({channels + size - 1}).")
        g = _array_of(grad_output.detach().cpu()).astype(x.dtype, copy=False)
        padded = np.zeros((x.shape[0], channels + size - 1) + x.shape[2:], x.dtype)
        padded[:, inverse_pre_pad:inverse_pre_pad + channels] = g * output / scale
        window = np.cumsum(padded, axis=1)
        window = window[:, size - 1:size - 1 + channels] - np.concatenate(
            [np.zeros_like(window[:, :1]), window[:, :channels - 1]], axis=1)
        result = scale ** x.dtype.type(-beta) * g \
            - x.dtype.type(2 * alpha * beta / size) * x * window
        return (_wrap_array(result.astype(x.dtype, copy=False)).to(grad_output.device),
                None, None, None, None)
