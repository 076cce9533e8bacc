"""The out-of-place writes into a view: ``diagonal_scatter``, ``select_scatter``,
``slice_scatter`` (``src`` written into that view of a copy of ``input``) and
``masked_scatter`` (the entries of ``source``, in order, written where ``mask`` is True).

The first three are a clone with ``copy_`` into its view (``src`` cast to ``input``'s
dtype), so the gradient is ``copy_``'s through CopySlices: ``input`` gets it outside the
view, ``src`` the view's part. ``masked_scatter`` reads ``source`` at the running count of
the mask (``gather``) and picks it with ``where``, so ``source`` gets the gradient of the
masked entries in order, ``input`` the rest.

>>> import autograd_cy as ag
>>> ag.select_scatter(ag.zeros(2, 2), ag.ones(2), 0, 0)
tensor([[1., 1.],
        [0., 0.]])
"""
import autograd_cy as _ag
from autograd_cy._C.tensor import _register_methods

__all__ = ["diagonal_scatter", "select_scatter", "slice_scatter", "masked_scatter"]


def _write_into(input, src, view_of):
    out = input.clone()
    view = view_of(out)
    if tuple(src.shape) != tuple(view.shape):
        raise RuntimeError(f"expected src to have a size equal to the slice of self. src size "
                           f"= {list(src.shape)}, slice size = {list(view.shape)}")
    view.copy_(src)
    return out


def diagonal_scatter(input, src, offset=0, dim1=0, dim2=1):
    """``input`` with ``src`` written into its diagonal (``diagonal(offset, dim1, dim2)``)."""
    return _write_into(input, src, lambda out: out.diagonal(offset, dim1, dim2))


def select_scatter(input, src, dim, index):
    """``input`` with ``src`` written into ``input.select(dim, index)``."""
    return _write_into(input, src, lambda out: out.select(dim, index))


def slice_scatter(input, src, dim=0, start=None, end=None, step=1):
    """``input`` with ``src`` written into the slice ``start:end:step`` of ``dim``."""
    def view_of(out):
        index = [slice(None)] * out.dim()
        index[dim] = slice(start, end, step)
        return out[tuple(index)]
    return _write_into(input, src, view_of)


def masked_scatter(input, mask, source):
    """``input`` (broadcast with ``mask``) with the entries of ``source``, in row-major
    order, written where ``mask`` is True."""
    if mask.dtype is not _ag.bool:
        raise RuntimeError(f"masked_scatter_ only supports boolean masks, but got mask with "
                           f"dtype {mask.dtype._scalar_name}")
    if source.dtype is not input.dtype:
        raise RuntimeError(f"masked_scatter: expected self and source to have same dtypes but "
                           f"got{input.dtype._scalar_name} and {source.dtype._scalar_name}")
    base, mask = _ag.broadcast_tensors(input, mask)
    if bool(mask.sum() > source.numel()):
        raise RuntimeError("Number of elements of source < number of ones in mask")
    if source.numel() == 0:
        return base.clone()
    flat = mask.reshape(-1)
    positions = (flat.long().cumsum(0) - 1).clamp_min(0)
    taken = source.reshape(-1).gather(0, positions).reshape(base.shape)
    return _ag.where(mask, taken, base)


_register_methods({"diagonal_scatter": diagonal_scatter, "select_scatter": select_scatter,
                   "slice_scatter": slice_scatter, "masked_scatter": masked_scatter})
