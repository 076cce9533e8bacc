"""``mode``: the most frequent value along a dim, and the index where it occurs.

NOTE [Which mode, which index]
torch's CPU kernel sorts each row and scans it: among values that occur equally often the
smallest wins, and its index is the last position where it occurs in the row. NaN never
equals NaN, so each NaN counts once. The gradient goes, as for ``max(dim)``, to the one
element the index names (``ModeBackward0``).
"""
from collections import namedtuple

import numpy as np

from autograd_cy._C.tensor import _register_methods, _wrap_array
from autograd_cy.autograd.function import Function
from autograd_cy.dtypes import _refuse_complex, int64
from autograd_cy.factories import zeros
from autograd_cy.reorder import _wrap

__all__ = ["mode"]

mode_result = namedtuple("mode", ["values", "indices"])


def _row_mode(row):
    """(value, index) of one row (NOTE [Which mode, which index])."""
    order = np.argsort(row, kind="stable")
    ordered = row[order]
    # a run starts where a value differs from the one before (NaN differs from NaN)
    starts = np.flatnonzero(np.concatenate(([True], ordered[1:] != ordered[:-1])))
    lengths = np.diff(np.append(starts, len(ordered)))
    best = int(np.argmax(lengths))                  # the first longest run: the smallest value
    run = order[starts[best]:starts[best] + lengths[best]]
    return ordered[starts[best]], int(run.max())


def _mode_arrays(array, dim):
    moved = np.moveaxis(array, dim, -1)
    rows = moved.reshape(-1, moved.shape[-1])
    values = np.empty(rows.shape[0], dtype=array.dtype)
    indices = np.empty(rows.shape[0], dtype=np.int64)
    for i, row in enumerate(rows):
        values[i], indices[i] = _row_mode(row)
    return values.reshape(moved.shape[:-1]), indices.reshape(moved.shape[:-1])


class Mode(Function):
    """``mode``'s op: values (differentiable) and indices."""
    builtin_op = True

    @staticmethod
    def forward(ctx, input, dim, keepdim):
        if input.dim() == 0:
            values, indices = input.clone(), zeros((), dtype=int64, device=input.device)
        else:
            if input.shape[dim] == 0:
                raise IndexError(f"mode(): Expected reduction dim {dim} to have non-zero "
                                 f"size.")
            value_array, index_array = _mode_arrays(input.detach().cpu().numpy(), dim)
            values = _wrap_array(value_array.copy()).to(input.device)
            indices = _wrap_array(index_array.copy()).to(input.device)
            if keepdim:
                values, indices = values.unsqueeze(dim), indices.unsqueeze(dim)
        ctx.dim, ctx.keepdim, ctx.shape = dim, keepdim, tuple(input.shape)
        ctx.mark_non_differentiable(indices)
        ctx.save_for_backward(indices)
        ctx.indices = indices              # for jvp, which runs before anything is saved
        return values, indices

    @staticmethod
    def backward(ctx, grad, grad_indices):
        (indices,) = ctx.saved_tensors
        if not ctx.shape:
            return grad, None, None
        if not ctx.keepdim:
            grad, indices = grad.unsqueeze(ctx.dim), indices.unsqueeze(ctx.dim)
        result = zeros(ctx.shape, dtype=grad.dtype, device=grad.device)
        return result.scatter_add(ctx.dim, indices, grad), None, None

    @staticmethod
    def jvp(ctx, input_t, dim_t, keepdim_t):
        indices = ctx.indices
        if not ctx.shape:
            return input_t, None
        index = indices if ctx.keepdim else indices.unsqueeze(ctx.dim)
        picked = input_t.gather(ctx.dim, index)
        return (picked if ctx.keepdim else picked.squeeze(ctx.dim)), None


Mode._backward_cls.__name__ = "ModeBackward0"


def mode(input, dim=-1, keepdim=False):
    """``(values, indices)``: the most frequent value along ``dim`` and its index (NOTE
    [Which mode, which index])."""
    dim = _wrap(dim, input.dim())
    if input.dim() and input.numel():       # (no kernel runs for a 0-dim or empty tensor)
        _refuse_complex(input.dtype, "mode_cpu")
    values, indices = Mode.apply(input, dim, keepdim)
    return mode_result(values, indices)


_register_methods({"mode": mode})
