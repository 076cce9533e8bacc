"""``tile``, ``repeat_interleave``, ``outer`` (``ger``): tensors built from copies of another's
entries, written with existing ops as torch writes them, so their nodes are torch's:

- ``tile(dims)`` is ``repeat`` with ``dims`` padded with leading ones to the input's rank
  (``RepeatBackward0``);
- ``repeat_interleave(n)`` repeats each entry ``n`` times in place: an ``unsqueeze``, an
  ``expand`` along the new dim, a contiguous copy and a ``view`` merging the two dims
  (``ViewBackward0``; the copy is a ``clone``, as torch's, so that ``n = 1`` makes a new
  tensor too); with a tensor of counts it is an ``index_select`` of each index
  repeated its count (``IndexSelectBackward0``);
- ``outer(a, b)`` is ``a.reshape(-1, 1) * b`` (``MulBackward0``).

>>> import autograd_cy as ag
>>> ag.tensor([1, 2]).repeat_interleave(2)
tensor([1, 1, 2, 2])
>>> ag.tensor([1, 2]).tile(2)
tensor([1, 2, 1, 2])
"""
import numpy as np

from autograd_cy._C.ops.arguments import is_int
from autograd_cy.memory_formats import contiguous_format as _contiguous
from autograd_cy._C.tensor import Tensor, _register_methods
from autograd_cy.factories import tensor as _tensor
from autograd_cy.reorder import _ints, _wrap

__all__ = ["tile", "repeat_interleave", "outer", "ger"]


def tile(input, dims):
    """``input`` repeated ``dims[i]`` times along each dim (``dims`` padded with leading ones
    to the input's rank; a longer ``dims`` adds leading dims)."""
    dims = _ints("tile", "dims", dims, 2, True)
    dims = (1,) * (input.dim() - len(dims)) + dims
    return input.repeat(dims)


def _tile_method(self, *dims):
    """``x.tile(2, 1)`` or ``x.tile((2, 1))``."""
    if len(dims) == 1 and not is_int(dims[0]):
        dims = dims[0]
    return tile(self, dims)


def repeat_interleave(input, repeats, dim=None, *, output_size=None):
    """Each entry of ``input`` repeated ``repeats`` times in place along ``dim`` (the
    flattened input without ``dim``); ``repeats`` a number or one count per entry."""
    if dim is None:
        input, dim = input.reshape(-1), 0
    else:
        dim = _wrap(dim, input.dim())
    if isinstance(repeats, Tensor) and repeats.dim() > 0 and repeats.numel() != 1:
        counts = np.asarray(repeats.cpu().numpy(), dtype=np.int64).reshape(-1)
        if counts.size != input.shape[dim]:
            raise RuntimeError("repeats must have the same size as input along dim, but got "
                               f"repeats.size(0) = {counts.size} and input.size({dim}) = "
                               f"{input.shape[dim]}")
        if (counts < 0).any():
            raise RuntimeError("repeats can not be negative")
        index = _tensor(np.repeat(np.arange(counts.size), counts), device=input.device)
        return input.index_select(dim, index)
    count = int(repeats.item() if isinstance(repeats, Tensor) else repeats)
    if count < 0:
        raise RuntimeError("Repeats must be non-negative")
    shape = list(input.shape)
    expanded = list(shape)
    expanded.insert(dim + 1, count)
    merged = shape[:dim] + [shape[dim] * count] + shape[dim + 1:]
    copied = input.unsqueeze(dim + 1).expand(*expanded).clone(memory_format=_contiguous)
    return copied.view(*merged)


def outer(input, vec2):
    """The outer product of two 1-D tensors: ``out[i, j] = input[i] * vec2[j]``."""
    for name, vector in (("self", input), ("vec2", vec2)):
        if vector.dim() != 1:
            raise RuntimeError(f"outer: Expected 1-D argument {name}, but got "
                               f"{vector.dim()}-D")
    return input.reshape(input.shape[0], 1) * vec2


def ger(input, vec2):
    """``outer``'s older name."""
    return outer(input, vec2)


_register_methods({"tile": _tile_method, "repeat_interleave": repeat_interleave,
                   "outer": outer, "ger": ger})
