"""The host side of cuda/gemm.cu (NOTE [GEMM epilogues]): a matrix product with addmm's
epilogues in one launch.

``gemm(a, b, alpha, bias, beta, column_sums)`` returns ``(out, sums)``: ``out = alpha * (a
@ b) + beta * bias`` (a new contiguous m x n array; no bias term when ``bias`` is None) and,
when ``column_sums``, ``sums = beta * b.sum(0)`` (a new array of n), both from one launch.
``a`` and ``b`` are 2-D DeviceArrays of one float dtype with any strides (a transposed
view is read as it is); ``bias`` broadcasts to (m, n). The ops check shapes and dtypes
first (pyx/ops/matmul.pyx), so errors read as on the CPU.
"""
import numpy as np

from autograd_cy.cuda.array import (
    check_same_device, empty, kernel_name, require_kernel, scalar_operand,
)
from autograd_cy.cuda.layout import GEMM_LAYOUT_DTYPE, broadcast_strides
from autograd_cy.cuda.manifest import COMPLEX_CTYPES, FLOAT_CTYPES

#: outputs per tile side, as cuda/gemm.cu's AGCY_GEMM_TILE
TILE = 32
#: threads per block (each owns TILE * TILE / BLOCK_SIZE outputs of its tile)
BLOCK_SIZE = 256
#: the float and complex dtypes (a complex addmm's backward takes the matmul path: its
#: gradients conjugate the operands, NOTE [Complex gradients] in pyx/ops/conjugate.pyx)
GEMM_DTYPES = frozenset(np.dtype(name) for name in {**FLOAT_CTYPES, **COMPLEX_CTYPES})


def gemm(a, b, alpha=1, bias=None, beta=1, column_sums=False):
    """One launch of ``gemm<T>`` (see the module docstring)."""
    check_same_device(a, b, bias)
    dtype = a.dtype
    name = kernel_name("gemm", dtype)
    require_kernel(name, f"addmm of {dtype}")
    (m, k), n = a.shape, b.shape[1]
    device = a.device
    out = empty((m, n), dtype, device)
    sums = empty((n,), dtype, device) if column_sums else None
    layout = np.zeros((), GEMM_LAYOUT_DTYPE)
    layout["m"], layout["n"], layout["k"] = m, n, k
    layout["a_stride"] = a.element_strides
    layout["b_stride"] = b.element_strides
    layout["out_stride"] = out.element_strides
    if bias is not None:
        layout["bias_stride"] = broadcast_strides((m, n), bias.shape, bias.element_strides)
    layout["sums_stride"] = 1
    rows = m + (1 if column_sums else 0)
    tiles = -(-rows // TILE) * -(-n // TILE)
    if tiles == 0:
        return out, sums
    seam = device.seam
    grid = min(tiles, seam.max_grid_size)
    block = min(BLOCK_SIZE, seam.max_block_size)
    seam.launch(name, (grid,), (block,),
                (out.raw, None if sums is None else sums.raw, a.raw, b.raw,
                 None if bias is None else bias.raw, layout[()],
                 scalar_operand(alpha, dtype), scalar_operand(beta, dtype)))
    return out, sums
