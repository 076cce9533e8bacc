"""np.sort, np.argsort and np.partition of DeviceArrays: one ``sort_rows`` launch.

The sorted axis is moved last and the input made contiguous (a ``cast`` copy when it is
not already), so the kernel sorts contiguous rows (NOTE [Sorting by rank] in cuda/sort.cu);
the results are moved back. The sort is stable, which is NumPy's ``kind="stable"``; a
stable sort is also a valid answer for the other kinds and for ``np.partition`` (every
element before the kth is no larger, every one after no smaller).
"""
import numpy as np

from autograd_cy.cuda.array import empty, kernel_name, require_kernel
from autograd_cy.cuda.launch import elementwise_config


def _sorted_rows(a, axis):
    """(values, indices), both of ``a``'s shape, sorted along ``axis`` (None: flattened)."""
    if axis is None:
        a, axis = a.reshape(-1), 0
    if a.ndim == 0:
        a, axis = a.reshape(1), 0
    axis = axis % a.ndim
    work = a.astype(np.uint8, copy=False) if a.dtype == np.bool_ else a
    moved = work.swapaxes(axis, -1)
    rows_first = moved.copy() if not moved.flags.c_contiguous else moved
    values = empty(rows_first.shape, work.dtype, a.device)
    indices = empty(rows_first.shape, np.dtype(np.int64), a.device)
    if values.size:
        length = rows_first.shape[-1]
        name = kernel_name("sort_rows", work.dtype)
        require_kernel(name, f"np.sort of {a.dtype}")
        seam = a.device.seam
        grid, block = elementwise_config(values.size, seam)
        seam.launch(name, grid, block, (rows_first.raw, values.raw, indices.raw,
                                        np.int64(values.size // length), np.int64(length)))
    values = values.swapaxes(axis, -1).astype(a.dtype, copy=False)
    return values, indices.swapaxes(axis, -1)


def sort(a, axis=-1, kind=None, order=None, *, stable=None):
    return _sorted_rows(a, axis)[0]


def argsort(a, axis=-1, kind=None, order=None, *, stable=None):
    return _sorted_rows(a, axis)[1]


def partition(a, kth, axis=-1, kind="introselect", order=None):
    return _sorted_rows(a, axis)[0]
