"""Sliding windows over the last k dims of a tensor (k = ``len(kernel)``: 1, 2 or 3), and
their inverse: the two moves that convolution and pooling are built from on every device.

``sliding_windows`` is im2col without the copy: a strided view of shape
``(..., *out, *kernel)`` (for k = 2, ``(..., out_h, out_w, kernel_h, kernel_w)``) whose element
``[..., i, j, p, q]`` is the input at ``(i * stride_h + p * dilation_h, j * stride_w +
q * dilation_w)``. ``fold_windows`` is its adjoint (col2im): it adds each window position's
values back where they came from, one strided slice per kernel offset, so overlapping
windows sum as the chain rule wants.
"""
import functools
import itertools
import operator

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
    """The view ``(..., *out, *kernel)`` of ``x``'s last ``len(kernel)`` dims."""
    lead = x.dim() - len(kernel)
    strides = x.stride()
    steps = strides[lead:]
    return x.as_strided(
        (*x.shape[:lead], *out, *kernel),
        (*strides[:lead], *map(operator.mul, steps, stride), *map(operator.mul, steps, dilation)))


def fold_windows(windows, size, stride, dilation, image=None):
    """The adjoint of ``sliding_windows``: a tensor of ``size`` (the last ``len(size)`` dims)
    where each position holds the sum of the window entries taken from it. ``image``, zeros
    of that shape in any layout, is what it adds into (NOTE [Folding with the batch
    innermost])."""
    dims = len(size)
    shape = tuple(windows.shape)
    lead, out, kernel = shape[:-2 * dims], shape[-2 * dims:-dims], shape[-dims:]
    if image is None:
        image = factories.zeros((*lead, *size), dtype=windows.dtype, device=windows.device)
    # Recording (a double backward), the additions are ops on the tensors; otherwise the
    # same additions run on the arrays, without the per-op bookkeeping of kh * kw ops.
    recording = is_grad_enabled() and windows.requires_grad
    target, source = (image, windows) if recording else (_array_of(image), _array_of(windows))
    for where, offset in _offsets(kernel, tuple(stride), tuple(dilation), out):
        target[where] += source[offset]
    return image


@functools.lru_cache(maxsize=128)
def _offsets(kernel, stride, dilation, out):
    """For each kernel offset, the image's strided slice its window entries go to and the
    index of those entries in the windows: the keys of ``fold_windows``'s additions, made
    once per configuration."""
    spans = [[slice(k * dilation[d], k * dilation[d] + stride[d] * (out[d] - 1) + 1, stride[d])
              for k in range(kernel[d])] for d in range(len(kernel))]
    return tuple(((Ellipsis, *where), (Ellipsis, *offset)) for offset, where in
                 zip(itertools.product(*map(range, kernel)), itertools.product(*spans)))
