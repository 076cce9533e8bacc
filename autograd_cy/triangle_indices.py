"""``tril_indices`` / ``triu_indices``: the coordinates of a matrix's lower or upper
triangle, as a 2 x N tensor (row indices, then column indices), in row-major order.

``offset`` moves the boundary as ``tril``'s ``diagonal`` does: 0 is the main diagonal,
positive values move it up (to the right), negative ones down.
"""
import numpy as np

from autograd_cy import dtypes as _dtypes
from autograd_cy.factories import tensor

__all__ = ["tril_indices", "triu_indices"]


def _check(row, col):
    if row < 0:
        raise RuntimeError(f"row must be non-negative, got{row}")
    if col < 0:
        raise RuntimeError(f"col must be non-negative, got{col}")


def _indices(rows, cols, dtype, device):
    coordinates = np.stack([rows, cols]).astype(np.int64).reshape(2, -1)
    return tensor(coordinates, dtype=dtype, device=device)


def tril_indices(row, col, offset=0, *, dtype=_dtypes.int64, device=None, layout=None,
                 pin_memory=False):
    """The (row, column) indices of ``tril(ones(row, col), offset)``'s kept entries."""
    _check(row, col)
    return _indices(*np.tril_indices(row, offset, col), dtype, device)


def triu_indices(row, col, offset=0, *, dtype=_dtypes.int64, device=None, layout=None,
                 pin_memory=False):
    """The (row, column) indices of ``triu(ones(row, col), offset)``'s kept entries."""
    _check(row, col)
    return _indices(*np.triu_indices(row, offset, col), dtype, device)
