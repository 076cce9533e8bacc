"""The out-of-place writes into a view: ``diagonal_scatter``, ``select_scatter``,
``slice_scatter``, ``as_strided_scatter`` (``src`` written into that view of a copy of
``input``) and ``masked_scatter`` (the entries of ``source``, in order, written where
``mask`` is True).

The first four are a clone with ``copy_`` into its view (``src`` cast to ``input``'s
dtype), ops with torch's nodes (``DiagonalScatterBackward0`` ...): ``input`` gets the
gradient outside the view, ``src`` the view's part. ``masked_scatter`` reads ``source`` at
the running count of the mask (``gather``) and picks it with ``where``; its op
(``MaskedScatterBackward0``) gives ``source`` the gradient of the masked entries in order,
``input`` the rest.

``as_strided_scatter``'s ``input`` gets the gradient outside the view, as for the others;
torch's formula gives it the gradient inside the view instead (its own gradcheck fails),
the one difference from torch here.

>>> import autograd_cy as ag
>>> ag.select_scatter(ag.zeros(2, 2), ag.ones(2), 0, 0)
tensor([[1., 1.],
        [0., 0.]])
"""
import math

import autograd_cy as _ag
from autograd_cy._C.tensor import _register_methods
from autograd_cy.autograd.function import Function

__all__ = ["diagonal_scatter", "select_scatter", "slice_scatter", "masked_scatter",
           "as_strided_scatter"]


def _write_into(input, src, view_of):
    out = input.clone()
    view_of(out).copy_(src)
    return out


class _ScatterIntoView(Function):
    """``src`` written into a view (``view_of``) of a copy of ``input``: ``input``'s
    gradient is ``grad`` with the view zeroed, ``src``'s the view of ``grad`` (cast to its
    dtype); the tangent is the op applied to the tangents."""
    builtin_op = True

    @staticmethod
    def forward(ctx, input, src, view_of):
        ctx.view_of, ctx.src_dtype = view_of, src.dtype
        view = view_of(input)
        if tuple(src.shape) != tuple(view.shape):
            raise RuntimeError(f"expected src to have a size equal to the slice of self. src "
                               f"size = {list(src.shape)}, slice size = {list(view.shape)}")
        return _write_into(input, src, view_of)

    @staticmethod
    def backward(ctx, grad):
        grad_input = grad_src = None
        if ctx.needs_input_grad[0]:
            grad_input = _write_into(grad, grad.new_zeros(()), ctx.view_of)
        if ctx.needs_input_grad[1]:
            grad_src = ctx.view_of(grad).to(ctx.src_dtype)
        return grad_input, grad_src, None

    @staticmethod
    def jvp(ctx, input_t, src_t, view_of_t):
        if input_t is None:
            input_t = _ag.zeros(tuple(ctx.view_of.shape), dtype=src_t.dtype,
                                device=src_t.device)
        return _write_into(input_t, src_t if src_t is not None else input_t.new_zeros(()),
                           ctx.view_of)


class DiagonalScatter(_ScatterIntoView):
    """``diagonal_scatter``'s op (``DiagonalScatterBackward0``)."""


class SelectScatter(_ScatterIntoView):
    """``select_scatter``'s op (``SelectScatterBackward0``)."""


class SliceScatter(_ScatterIntoView):
    """``slice_scatter``'s op (``SliceScatterBackward0``)."""


class AsStridedScatter(_ScatterIntoView):
    """``as_strided_scatter``'s op (``AsStridedScatterBackward0``): the strided view is
    read in a contiguous gradient, as torch's formula reads it."""

    @staticmethod
    def backward(ctx, grad):
        return _ScatterIntoView.backward(ctx, grad.contiguous())


DiagonalScatter._backward_cls.__name__ = "DiagonalScatterBackward0"
AsStridedScatter._backward_cls.__name__ = "AsStridedScatterBackward0"
SelectScatter._backward_cls.__name__ = "SelectScatterBackward0"
SliceScatter._backward_cls.__name__ = "SliceScatterBackward0"


class _View:
    """A view of a tensor, named by its op and arguments, that knows the shape of the
    tensor it was first taken of (a missing ``input`` tangent is zeros of it)."""

    def __init__(self, take, shape):
        self.take, self.shape = take, shape

    def __call__(self, tensor):
        return self.take(tensor)


def diagonal_scatter(input, src, offset=0, dim1=0, dim2=1):
    """``input`` with ``src`` written into its diagonal (``diagonal(offset, dim1, dim2)``)."""
    return DiagonalScatter.apply(input, src, _View(
        lambda out: out.diagonal(offset, dim1, dim2), tuple(input.shape)))


def _refuse_complex_autograd(name, input, src):
    """torch's select_scatter and slice_scatter have no complex derivative formula: they
    refuse to record a complex output."""
    if (_ag.is_grad_enabled() and (input.requires_grad or src.requires_grad)
            and input.is_complex()):            # (the result has input's dtype)
        raise RuntimeError(f"{name} does not support automatic differentiation for outputs "
                           "with complex dtype.")


def select_scatter(input, src, dim, index):
    """``input`` with ``src`` written into ``input.select(dim, index)``."""
    _refuse_complex_autograd("select_scatter", input, src)
    return SelectScatter.apply(input, src, _View(lambda out: out.select(dim, index),
                                                 tuple(input.shape)))


def slice_scatter(input, src, dim=0, start=None, end=None, step=1):
    """``input`` with ``src`` written into the slice ``start:end:step`` of ``dim``."""
    _refuse_complex_autograd("slice_scatter", input, src)

    def view_of(out):
        index = [slice(None)] * out.dim()
        index[dim] = slice(start, end, step)
        return out[tuple(index)]
    return SliceScatter.apply(input, src, _View(view_of, tuple(input.shape)))


def as_strided_scatter(input, src, size, stride, storage_offset=None):
    """``input`` with ``src`` written into the strided view ``as_strided(size, stride,
    storage_offset)`` of a copy of it; with autograd, ``input`` must be contiguous (as in
    torch)."""
    if input.requires_grad and not input.is_contiguous():
        raise RuntimeError("!self.requires_grad() || self.is_contiguous() INTERNAL ASSERT "
                           "FAILED: as_strided_scatter is currently only supported for "
                           "contiguous inputs")
    size, stride = tuple(size), tuple(stride)
    return AsStridedScatter.apply(input, src, _View(
        lambda out: out.as_strided(size, stride, storage_offset), tuple(input.shape)))


def _scattered(input, mask, source):
    """``masked_scatter``'s values (``input`` and ``mask`` already broadcast)."""
    if source.numel() == 0:
        return input.clone()
    positions = (mask.reshape(-1).long().cumsum(0) - 1).clamp_min(0)
    taken = source.reshape(-1).gather(0, positions).reshape(input.shape)
    return _ag.where(mask, taken, input)


class MaskedScatter(Function):
    """``masked_scatter``'s op (``MaskedScatterBackward0``): ``input`` gets the gradient
    where ``mask`` is False, summed to its shape; ``source`` the masked gradient in order,
    zeros past the last one written."""
    builtin_op = True

    @staticmethod
    def forward(ctx, input, mask, source):
        base, mask = _ag.broadcast_tensors(input, mask)
        if bool(mask.sum() > source.numel()):
            raise RuntimeError("Number of elements of source < number of ones in mask")
        ctx.input_shape, ctx.source_shape = tuple(input.shape), tuple(source.shape)
        ctx.save_for_backward(mask)
        ctx.mask = mask
        return _scattered(base, mask, source)

    @staticmethod
    def backward(ctx, grad):
        (mask,) = ctx.saved_tensors
        grad_input = grad_source = None
        if ctx.needs_input_grad[0]:
            grad_input = _ag.where(mask, grad.new_zeros(()), grad).sum_to_size(ctx.input_shape)
        if ctx.needs_input_grad[2]:
            written = grad.masked_select(mask)
            size = math.prod(ctx.source_shape)
            rest = grad.new_zeros(size - written.numel())
            grad_source = _ag.cat([written, rest]).reshape(ctx.source_shape)
        return grad_input, None, grad_source

    @staticmethod
    def jvp(ctx, input_t, mask_t, source_t):
        shape = tuple(ctx.mask.shape)
        if input_t is None:
            input_t = source_t.new_zeros(shape)
        if source_t is None:
            return _ag.where(ctx.mask, input_t.new_zeros(()), input_t.expand(shape))
        return _scattered(input_t.expand(shape), ctx.mask, source_t)


MaskedScatter._backward_cls.__name__ = "MaskedScatterBackward0"


def masked_scatter(input, mask, source):
    """``input`` (broadcast with ``mask``) with the entries of ``source``, in row-major
    order, written where ``mask`` is True."""
    if mask.dtype is not _ag.bool:
        raise RuntimeError(f"masked_scatter_ only supports boolean masks, but got mask with "
                           f"dtype {mask.dtype._scalar_name}")
    if source.dtype is not input.dtype:
        raise RuntimeError(f"masked_scatter: expected self and source to have same dtypes but "
                           f"got{input.dtype._scalar_name} and {source.dtype._scalar_name}")
    return MaskedScatter.apply(input, mask, source)


_register_methods({"diagonal_scatter": diagonal_scatter, "select_scatter": select_scatter,
                   "slice_scatter": slice_scatter, "masked_scatter": masked_scatter,
                   "as_strided_scatter": as_strided_scatter})
