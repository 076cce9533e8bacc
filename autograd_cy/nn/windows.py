"""Sliding windows over the last two dims of a tensor, and their inverse: the two moves that
convolution and pooling are built from on every device.

``sliding_windows`` is im2col without the copy: a strided view of shape
``(..., out_h, out_w, kernel_h, kernel_w)`` whose element ``[..., i, j, p, q]`` is the input at
``(i * stride_h + p * dilation_h, j * stride_w + q * dilation_w)``. ``fold_windows`` is its
adjoint (col2im): it adds each window position's values back where they came from, one
strided slice per kernel offset, so overlapping windows sum as the chain rule wants.
"""
from autograd_cy import factories
from autograd_cy._C.tensor import _array_of
from autograd_cy.grad_mode import is_grad_enabled

__all__ = ["sliding_windows", "fold_windows", "output_size"]


def output_size(size, kernel, stride, padding, dilation, ceil_mode=False):
    """The number of window positions along one dim (torch's pooling formula; with
    ``ceil_mode`` a last partial window counts if it starts inside the input or left
    padding)."""
    span = size + 2 * padding - dilation * (kernel - 1) - 1
    if ceil_mode:
        count = -(-span // stride) + 1
        if (count - 1) * stride >= size + padding:
            count -= 1
        return count
    return span // stride + 1


def sliding_windows(x, kernel, stride, dilation, out):
    """The view ``(..., out_h, out_w, kernel_h, kernel_w)`` of ``x``'s last two dims."""
    *lead, _, _ = x.shape
    *lead_strides, stride_h, stride_w = x.stride()
    shape = (*lead, out[0], out[1], kernel[0], kernel[1])
    strides = (*lead_strides, stride_h * stride[0], stride_w * stride[1],
               stride_h * dilation[0], stride_w * dilation[1])
    return x.as_strided(shape, strides)


def fold_windows(windows, size, stride, dilation, image=None):
    """The adjoint of ``sliding_windows``: a tensor of ``size`` (the last two dims) where each
    position holds the sum of the window entries taken from it. ``image``, zeros of that
    shape in any layout, is what it adds into (NOTE [Folding with the batch innermost])."""
    *lead, out_h, out_w, kernel_h, kernel_w = windows.shape
    if image is None:
        image = factories.zeros((*lead, *size), dtype=windows.dtype, device=windows.device)
    # Recording (a double backward), the additions are ops on the tensors; otherwise the
    # same additions run on the arrays, without the per-op bookkeeping of kh * kw ops.
    recording = is_grad_enabled() and windows.requires_grad
    target, source = (image, windows) if recording else (_array_of(image), _array_of(windows))
    for p in range(kernel_h):
        top = p * dilation[0]
        rows = slice(top, top + stride[0] * (out_h - 1) + 1, stride[0])
        for q in range(kernel_w):
            left = q * dilation[1]
            cols = slice(left, left + stride[1] * (out_w - 1) + 1, stride[1])
            target[..., rows, cols] += source[..., p, q]
    return image
