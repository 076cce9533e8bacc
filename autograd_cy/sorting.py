"""``sort``, ``argsort``, ``msort``, ``topk`` and ``kthvalue``: a tensor's entries in order
along a dim, with the int64 indices they came from.

Each op with values is one op with torch's node (``SortBackward0``, ``TopkBackward0``,
``KthvalueBackward0``; ``msort`` is ``sort`` along dim 0). The gradient of a value goes back
to the entry it was taken from: zeros with the gradient scattered at the indices (through
``scatter_add``, which records, so a double backward differentiates it again; the indices
along the dim are distinct, so adding is placing). A tangent is the input's tangent gathered
at the indices. ``argsort`` returns indices only and records nothing.

# NOTE [A stable sort in both directions]
NumPy's stable argsort is ascending. A stable descending sort must keep equal entries in
their original order too, so it cannot sort the negated values (nor reverse an ascending
sort, which reverses the equal runs). It sorts the input reversed along the dim, ascending
and stable, then reverses that order and maps each index ``i`` of the reversed input back to
``n - 1 - i``: equal runs come out in their original order. NaN sorts last ascending in
NumPy and is the largest value in torch, so it comes first descending, as torch's. Every
sort here is the stable one: torch's ``stable=False`` promises no order among equal
entries, and the stable order is one of those it allows.

>>> import autograd_cy as ag
>>> ag.tensor([3.0, 1.0, 2.0]).sort(descending=True)
sort(values=tensor([3., 2., 1.]), indices=tensor([0, 2, 1]))
>>> ag.tensor([3.0, 1.0, 2.0]).topk(2, largest=False).indices
tensor([1, 2])
"""
from collections import namedtuple

import ml_dtypes
import numpy as np

from autograd_cy._C.tensor import _array_of, _register_methods, _wrap_array
from autograd_cy.autograd.function import Function
from autograd_cy.dtypes import _refuse_complex
from autograd_cy.factories import zeros
from autograd_cy.reorder import _wrap
from autograd_cy.selection_order import kth_index, tied_rows, top_pairs

__all__ = ["sort", "argsort", "msort", "topk", "kthvalue"]

sort_result = namedtuple("sort", ["values", "indices"])
topk_result = namedtuple("topk", ["values", "indices"])
kthvalue_result = namedtuple("kthvalue", ["values", "indices"])


# ------------------------------------------------------------------ arrays

def _order(array, axis, descending):
    """The int64 indices that sort ``array`` along ``axis`` (NOTE [A stable sort in both
    directions])."""
    if array.dtype == ml_dtypes.bfloat16:
        # NumPy's sort of ml_dtypes' bfloat16 does not put NaN last: sorted by the exact
        # float32 values instead
        array = array.astype(np.float32)
    if not descending:
        return np.argsort(array, axis=axis, kind="stable")
    backwards = (slice(None),) * axis + (slice(None, None, -1),)
    order = np.argsort(array[backwards], axis=axis, kind="stable")[backwards]
    return (array.shape[axis] - 1) - order


def _sorted(input, dim, descending):
    """(values, indices) arrays of ``input`` sorted along ``dim`` (a 0-d input: itself, 0)."""
    array = _array_of(input)
    if array.ndim == 0:
        return array.copy(), np.zeros_like(array, dtype=np.int64)
    indices = _order(array, dim, descending)
    return np.take_along_axis(array, indices, dim), indices


def _replay_ties(input_array, values, indices, dim, first, last, pick):
    """``indices`` (of the ``values`` sorted along ``dim``, cut to the selected positions)
    with each row that holds equal values among the sorted positions ``first .. last``
    answered by ``pick(row)`` (a list of indices) instead, and ``values`` gathered again:
    torch's CPU choice among equal entries (NOTE [The order of equal entries in kthvalue and
    topk]). A device's arrays are left as they are."""
    if not isinstance(input_array, np.ndarray) or input_array.size == 0:
        return values, indices
    full = np.moveaxis(_order_values(input_array, dim), dim, -1)
    n = full.shape[-1]
    rows = full.reshape(-1, n)
    tied = np.flatnonzero(tied_rows(rows, first, last))
    if not len(tied):
        return values, indices
    chosen = np.moveaxis(indices, dim, -1).copy()
    flat = chosen.reshape(-1, chosen.shape[-1])
    plain = np.moveaxis(input_array, dim, -1).reshape(-1, n)
    if plain.dtype == ml_dtypes.bfloat16:
        plain = plain.astype(np.float32)
    for row in tied:
        flat[row] = pick(plain[row].tolist())
    indices = np.moveaxis(flat.reshape(chosen.shape), -1, dim)
    return np.take_along_axis(input_array, indices, dim), indices


def _order_values(array, dim):
    """``array`` sorted ascending along ``dim`` (NaN last), for the search for equal
    neighbours."""
    if array.dtype == ml_dtypes.bfloat16:
        array = array.astype(np.float32)
    return np.sort(array, axis=dim)


# ------------------------------------------------------------------ the ops

def _scattered(ctx, grad, indices):
    """The input's gradient: ``grad`` placed back where each value came from."""
    if not ctx.input_shape:
        return grad.reshape(())
    if ctx.squeezed:
        grad, indices = grad.unsqueeze(ctx.dim), indices.unsqueeze(ctx.dim)
    base = zeros(ctx.input_shape, dtype=grad.dtype, device=grad.device)
    return base.scatter_add(ctx.dim, indices, grad)


class _Selection(Function):
    """The shared backward and tangent of the ops that select entries by indices along a
    dim (the indices saved by the forward, in the output's shape)."""
    builtin_op = True

    @staticmethod
    def backward(ctx, grad, grad_indices):
        (indices,) = ctx.saved_tensors
        return (_scattered(ctx, grad, indices),) + (None,) * ctx.arguments

    @staticmethod
    def jvp(ctx, input_t, *arguments_t):
        (indices,) = ctx.saved_tensors
        if not ctx.input_shape:
            return input_t.clone(), None
        if ctx.squeezed:
            return input_t.gather(ctx.dim, indices.unsqueeze(ctx.dim)).squeeze(ctx.dim), None
        return input_t.gather(ctx.dim, indices), None

    @staticmethod
    def _outputs(ctx, input, dim, values, indices, arguments, squeezed=False):
        ctx.input_shape, ctx.dim, ctx.arguments = tuple(input.shape), dim, arguments
        ctx.squeezed = squeezed
        values, indices = _wrap_array(values), _wrap_array(indices)
        ctx.mark_non_differentiable(indices)
        ctx.save_for_backward(indices)
        ctx.save_for_forward(indices)
        return values, indices


class Sort(_Selection):
    """``sort``'s op (``SortBackward0``)."""

    @staticmethod
    def forward(ctx, input, dim, descending):
        values, indices = _sorted(input, dim, descending)
        return _Selection._outputs(ctx, input, dim, values, indices, 2)


class Topk(_Selection):
    """``topk``'s op (``TopkBackward0``): the first ``k`` of a full sort."""

    @staticmethod
    def forward(ctx, input, k, dim, largest):
        values, indices = _sorted(input, dim, largest)
        if values.ndim:
            first = (slice(None),) * dim + (slice(0, k),)
            values, indices = values[first].copy(), indices[first].copy()
            if k:
                n = input.shape[dim]      # positions 0 .. k of the order, from its top
                span = (0, k) if not largest else (n - 1 - k, n - 1)
                values, indices = _replay_ties(_array_of(input), values, indices, dim, *span,
                                               lambda row: top_pairs(row, k, largest))
        return _Selection._outputs(ctx, input, dim, values, indices, 3)


class Kthvalue(_Selection):
    """``kthvalue``'s op (``KthvalueBackward0``): the ``k``-th smallest along ``dim``; the
    backward and the tangent put back a dim the forward removed (not ``keepdim``)."""

    @staticmethod
    def forward(ctx, input, k, dim, keepdim):
        values, indices = _sorted(input, dim, False)
        squeezed = values.ndim > 0 and not keepdim
        if values.ndim:
            kth = (slice(None),) * dim + (slice(k - 1, k),)
            values, indices = values[kth].copy(), indices[kth].copy()
            values, indices = _replay_ties(_array_of(input), values, indices, dim, k - 2, k,
                                           lambda row: [kth_index(row, k - 1)])
            if squeezed:
                values, indices = values.squeeze(dim), indices.squeeze(dim)
        return _Selection._outputs(ctx, input, dim, values, indices, 3, squeezed)


Sort._backward_cls.__name__ = "SortBackward0"
Topk._backward_cls.__name__ = "TopkBackward0"
Kthvalue._backward_cls.__name__ = "KthvalueBackward0"


# ------------------------------------------------------------------ functions and methods

def sort(input, dim=-1, descending=False, *, stable=False):
    """``input``'s entries in ascending (or descending) order along ``dim``, and the int64
    indices they came from; equal entries keep their order (NOTE [A stable sort in both
    directions])."""
    if input.is_complex():
        raise RuntimeError(" Sort does not support complex dtypes on CPU")
    values, indices = Sort.apply(input, _wrap(dim, input.dim()), bool(descending))
    return sort_result(values, indices)


def argsort(input, dim=-1, descending=False, *, stable=False):
    """The int64 indices that sort ``input`` along ``dim``."""
    return sort(input, dim, descending, stable=stable).indices.detach()


def msort(input):
    """``input`` sorted along its first dim (``sort(input, 0).values``)."""
    return sort(input, 0).values


def topk(input, k, dim=-1, largest=True, sorted=True):
    """The ``k`` largest (or smallest) entries along ``dim``, in order, and their int64
    indices; ``sorted=False`` returns them in that order too."""
    if input.is_complex():
        raise RuntimeError(" topk does not support complex dtypes on CPU")
    dim = _wrap(dim, input.dim())
    size = input.shape[dim] if input.dim() else 1
    if not 0 <= k <= size:
        raise RuntimeError("selected index k out of range")
    return topk_result(*Topk.apply(input, k, dim, bool(largest)))


def kthvalue(input, k, dim=-1, keepdim=False):
    """The ``k``-th smallest entry along ``dim`` (``k`` counts from 1) and its int64 index,
    the dim removed unless ``keepdim``."""
    if input.dim():
        _refuse_complex(input.dtype, "kthvalue_cpu")
    dim = _wrap(dim, input.dim())
    size = input.shape[dim] if input.dim() else 1
    if size == 0:       # torch checks the dim before k
        raise IndexError(f"kthvalue(): Expected reduction dim {dim} to have non-zero size.")
    if not 1 <= k <= size:
        raise RuntimeError(f"kthvalue(): selected number k out of range for dimension {dim}")
    return kthvalue_result(*Kthvalue.apply(input, k, dim, bool(keepdim)))


_register_methods({"sort": sort, "argsort": argsort, "msort": msort, "topk": topk,
                   "kthvalue": kthvalue})
