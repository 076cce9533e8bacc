"""``masked_select``, ``nonzero`` and ``argwhere``: the entries a mask picks, and where the
nonzero entries of a tensor are.

``masked_select`` is one op with torch's node ``MaskedSelectBackward0``: input and mask
broadcast together, and the picked entries come out as a 1-D tensor in row-major order.
Its gradient puts the gradient's entries back where they were picked (``masked_scatter``
into zeros of the broadcast shape, as torch's, which records, so a double backward
differentiates it),
summed back to the input's shape where the mask broadcast it. ``nonzero`` and ``argwhere``
return int64 indices: ``(count, ndim)``, or with ``as_tuple=True`` one index tensor per dim.

>>> import autograd_cy as ag
>>> ag.tensor([[1, 0], [0, 2]]).nonzero()
tensor([[0, 0],
        [1, 1]])
>>> ag.masked_select(ag.tensor([1.0, 2.0, 3.0]), ag.tensor([True, False, True]))
tensor([1., 3.])
"""
import numpy as np

import autograd_cy as _ag
from autograd_cy._C.tensor import _array_of, _register_methods, _wrap_array
from autograd_cy.autograd.function import Function

__all__ = ["masked_select", "nonzero", "argwhere", "nonzero_static"]


def _broadcast_shape(a, b):
    """The shape ``a`` and ``b`` broadcast to, with torch's error where they do not."""
    rank = max(len(a), len(b))
    a, b = (1,) * (rank - len(a)) + a, (1,) * (rank - len(b)) + b
    for k, (m, n) in enumerate(zip(a, b)):
        if m != n and 1 not in (m, n):
            raise RuntimeError(f"The size of tensor a ({m}) must match the size of tensor b "
                               f"({n}) at non-singleton dimension {k}")
    return tuple(n if m == 1 else m for m, n in zip(a, b))


class MaskedSelect(Function):
    """``masked_select``'s op (``MaskedSelectBackward0``)."""
    builtin_op = True

    @staticmethod
    def forward(ctx, input, mask):
        shape = _broadcast_shape(tuple(mask.shape), tuple(input.shape))
        ctx.input_shape, ctx.shape = tuple(input.shape), shape
        expanded = mask.expand(shape)
        # the input and the mask too, unread, as torch's node saves them: writing one in
        # place afterwards makes the backward refuse
        ctx.save_for_backward(expanded, input, mask)
        ctx.save_for_forward(expanded)
        return input.expand(shape)[expanded]

    @staticmethod
    def backward(ctx, grad):
        mask = ctx.saved_tensors[0]
        placed = grad.new_zeros(ctx.shape).masked_scatter(mask, grad)
        if ctx.shape != ctx.input_shape:
            placed = placed.sum_to_size(ctx.input_shape)
        return placed, None

    @staticmethod
    def jvp(ctx, input_t, mask_t):
        mask = ctx.saved_tensors[0]
        return input_t.expand(ctx.shape)[mask]


MaskedSelect._backward_cls.__name__ = "MaskedSelectBackward0"


def masked_select(input, mask):
    """The entries of ``input`` where ``mask`` (a bool tensor broadcast with it) is True,
    as a 1-D tensor."""
    if mask.dtype != _ag.bool:
        raise RuntimeError("masked_select: expected BoolTensor for mask")
    return MaskedSelect.apply(input, mask)


def nonzero(input, *, as_tuple=False):
    """The int64 indices of the nonzero entries, one row per entry (``as_tuple``: one
    tensor per dim), in row-major order."""
    array = _array_of(input)
    if array.ndim == 0:
        count = 1 if bool(array != 0) else 0
        if as_tuple:
            return (_ag.zeros(count, dtype=_ag.int64, device=input.device),)
        return _ag.zeros((count, 0), dtype=_ag.int64, device=input.device)
    positions = np.nonzero(array)
    if as_tuple:
        return tuple(_wrap_array(p.astype(np.int64, copy=False)) for p in positions)
    return _wrap_array(np.stack([p.astype(np.int64, copy=False) for p in positions], axis=1))


def argwhere(input):
    """``nonzero(input)``: the indices of the nonzero entries, one row each."""
    return nonzero(input)


def nonzero_static(input, *, size, fill_value=-1):
    """``nonzero`` with exactly ``size`` rows: the first ``size`` indices, padded with rows
    of ``fill_value`` (a shape known before the data, as compilers want)."""
    if not isinstance(size, int) or size < 0:
        raise RuntimeError("nonzero_static: 'size' must be an non-negative integer")
    found = nonzero(input)
    rows = found.shape[0]
    if rows >= size:
        return found[:size].clone()
    padding = _ag.full((size - rows, found.shape[1]), fill_value, dtype=_ag.int64,
                       device=found.device)
    return _ag.cat([found, padding])


_register_methods({"masked_select": masked_select, "nonzero": nonzero, "argwhere": argwhere,
                   "nonzero_static": nonzero_static})
