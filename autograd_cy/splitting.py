"""``tensor_split``, ``hsplit``, ``vsplit`` and ``dsplit``: a tensor cut into views along a
dim, into a number of nearly equal sections or at given indices, each piece a slice
(``SliceBackward0``, as torch's).

``tensor_split(x, n)`` gives the first ``size % n`` sections one entry more than the
others (``size // n``); ``tensor_split(x, [i, j])`` cuts before ``i`` and ``j``.
``hsplit``, ``vsplit`` and ``dsplit`` split along dim 1 (0 for a 1-D tensor), 0 and 2, and
refuse a number of sections that does not divide the size.

>>> import autograd_cy as ag
>>> [t.tolist() for t in ag.arange(5).tensor_split(2)]
[[0, 1, 2], [3, 4]]
"""
import operator

from autograd_cy._C.ops.arguments import is_int
from autograd_cy._C.tensor import Tensor, _register_methods
from autograd_cy.reorder import _wrap

__all__ = ["tensor_split", "hsplit", "vsplit", "dsplit"]


def _pieces(input, dim, bounds):
    """The slices of ``input`` along ``dim`` between consecutive ``bounds`` (clipped)."""
    size = input.shape[dim]
    before = (slice(None),) * dim
    pieces = []
    for start, stop in zip(bounds[:-1], bounds[1:]):
        start, stop = min(max(start, 0), size), min(max(stop, 0), size)
        pieces.append(input[before + (slice(start, max(start, stop)),)])
    return tuple(pieces)


def tensor_split(input, indices_or_sections, dim=0):
    """Views of ``input`` along ``dim``: ``n`` nearly equal sections, or cut at each of
    the given indices."""
    if input.dim() == 0:
        raise RuntimeError("tensor_split expected at least a 1-dimensional tensor, but got a "
                           "tensor with 0 dims")
    dim = _wrap(dim, input.dim())
    split = indices_or_sections
    if isinstance(split, Tensor):
        split = split.item() if split.dim() == 0 else split.tolist()
    if is_int(split):
        sections = operator.index(split)
        if sections <= 0:
            raise RuntimeError(f"number of sections must be larger than 0, got {sections}")
        size = input.shape[dim]
        small, extra = divmod(size, sections)
        bounds = [0]
        for k in range(sections):
            bounds.append(bounds[-1] + small + (1 if k < extra else 0))
        return _pieces(input, dim, bounds)
    return _pieces(input, dim, [0] + [operator.index(i) for i in split] + [input.shape[dim]])


def _split_evenly(name, input, split, dim, least):
    if input.dim() < least:
        raise RuntimeError(f"torch.{name} requires a tensor with at least {least} dimension, "
                           f"but got a tensor with {input.dim()} dimensions!")
    if is_int(split):
        size = input.shape[dim]
        if split == 0 or size % split:
            raise RuntimeError(f"torch.{name} attempted to split along dimension {dim}, but "
                               f"the size of the dimension {size} is not divisible by the "
                               f"split_size {split}!")
    return tensor_split(input, split, dim)


def hsplit(input, indices_or_sections):
    """``tensor_split`` along dim 1 (dim 0 of a 1-D tensor), sections dividing the size."""
    if input.dim() == 0:
        raise RuntimeError("torch.hsplit requires a tensor with at least 1 dimension, but got "
                           "a tensor with 0 dimensions!")
    return _split_evenly("hsplit", input, indices_or_sections, 1 if input.dim() > 1 else 0, 1)


def vsplit(input, indices_or_sections):
    """``tensor_split`` along dim 0 of a tensor of at least two dims."""
    return _split_evenly("vsplit", input, indices_or_sections, 0, 2)


def dsplit(input, indices_or_sections):
    """``tensor_split`` along dim 2 of a tensor of at least three dims."""
    return _split_evenly("dsplit", input, indices_or_sections, 2, 3)


_register_methods({"tensor_split": tensor_split, "hsplit": hsplit, "vsplit": vsplit,
                   "dsplit": dsplit})
