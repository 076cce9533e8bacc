"""``lu_unpack`` and ``linalg.lu_solve``: what ``linalg.lu_factor``'s packed ``(LU, pivots)``
are used for.

``lu_unpack`` gives ``(P, L, U)``: ``L`` is the strict lower part of ``LU`` with a unit
diagonal, ``U`` its upper part, and ``P`` the permutation the 1-based ``pivots`` describe
(row ``i`` was swapped with row ``pivots[i] - 1``, in order). Its node (torch's
``LuUnpackBackward0``) gives ``LU`` the gradient ``tril(gL, -1) + triu(gU)``, laid out in
``LU``'s shape, as recorded ops.

``linalg.lu_solve`` solves ``A X = B`` (``X A = B`` with ``left=False``, ``A^H`` for
``adjoint=True``) for ``A = P L U``: a permutation and two triangular solves, recorded, so
``LU`` and ``B`` get their gradients (and double backward) from those ops.

>>> import autograd_cy as ag
>>> A = ag.tensor([[2.0, 1.0], [4.0, 3.0]])
>>> LU, pivots = ag.linalg.lu_factor(A)
>>> ag.linalg.lu_solve(LU, pivots, ag.tensor([[1.0], [1.0]]))
tensor([[ 1.],
        [-1.]])
"""
from collections import namedtuple

import numpy as np

import autograd_cy as _ag
from autograd_cy.autograd.function import Function
from autograd_cy.linalg._lapack import array_of, mH, tensor_like
from autograd_cy.linalg.triangular_solve import solve_triangular

__all__ = ["lu_unpack", "lu_solve"]

lu_unpack_result = namedtuple("lu_unpack", ["P", "L", "U"])


def _permutation(pivots, m, dtype):
    """``P`` (m x m, of ``dtype``) from LAPACK's 1-based row swaps, batched."""
    count = int(np.prod(pivots.shape[:-1]))
    swaps = pivots.reshape((count, pivots.shape[-1])).astype(np.int64) - 1
    order = np.tile(np.arange(m), (count, 1))
    rows = np.arange(swaps.shape[0])
    for i in range(swaps.shape[1]):
        first, second = order[rows, i].copy(), order[rows, swaps[:, i]].copy()
        order[rows, i], order[rows, swaps[:, i]] = second, first
    P = np.zeros((count, m, m), dtype=dtype)
    P[rows[:, None], order, np.arange(m)[None, :]] = 1      # A's row order[i] is row i of LU
    return P.reshape(pivots.shape[:-1] + (m, m))


class LuUnpack(Function):
    """``lu_unpack``'s op: ``(L, U)`` of the packed ``LU``."""
    builtin_op = True

    @staticmethod
    def forward(ctx, LU):
        m, n = LU.shape[-2:]
        k = min(m, n)
        lu = array_of(LU)
        ctx.shape = (m, n)
        L = np.tril(lu[..., :, :k], -1) + np.eye(m, k, dtype=lu.dtype)
        return tensor_like(L, LU), tensor_like(np.triu(lu[..., :k, :]), LU)

    @staticmethod
    def backward(ctx, gL, gU):
        m, n = ctx.shape
        parts = []
        if gL is not None:
            lower = gL.tril(-1)
            if n > m:
                lower = _ag.cat([lower, _ag.zeros(lower.shape[:-1] + (n - m,),
                                                  dtype=lower.dtype, device=lower.device)], -1)
            parts.append(lower)
        if gU is not None:
            upper = gU.triu()
            if m > n:
                upper = _ag.cat([upper, _ag.zeros(upper.shape[:-2] + (m - n, n),
                                                  dtype=upper.dtype, device=upper.device)], -2)
            parts.append(upper)
        return None if not parts else parts[0] if len(parts) == 1 else parts[0] + parts[1]


LuUnpack._backward_cls.__name__ = "LuUnpackBackward0"


def _check_pivots(pivots, name):
    if pivots.dtype != _ag.int32:
        raise RuntimeError(f"{name}: LU_pivots is expected to be a contiguous tensor of "
                           "torch.int32 dtype.\nNote: this function is intended to be used "
                           "with the output produced by torch.linalg.lu_factor")


def lu_unpack(LU_data, LU_pivots, unpack_data=True, unpack_pivots=True):
    """``(P, L, U)`` from ``linalg.lu_factor``'s ``(LU, pivots)``; an empty tensor for a part
    not asked for."""
    _check_pivots(LU_pivots, "torch.lu_unpack")
    empty = _ag.empty(0, dtype=LU_data.dtype, device=LU_data.device)
    if unpack_data:
        L, U = LuUnpack.apply(LU_data)
    else:
        L, U = empty, empty
    P = empty
    if unpack_pivots:
        m = LU_data.shape[-2]
        P = tensor_like(_permutation(array_of(LU_pivots), m, array_of(LU_data).dtype),
                        LU_data)
    return lu_unpack_result(P, L, U)


def lu_solve(LU, pivots, B, *, left=True, adjoint=False, out=None):
    """``X`` with ``A X = B`` (``X A = B`` if not ``left``; ``A^H`` if ``adjoint``), where
    ``(LU, pivots)`` is ``linalg.lu_factor(A)``."""
    n = LU.shape[-1]
    rows = B.shape[-2] if left else B.shape[-1]
    if LU.dim() < 2 or LU.shape[-2] != n:
        raise RuntimeError("linalg.lu_solve: A must be batches of square matrices, but they "
                           f"are {LU.shape[-2]} by {n} matrices")
    if rows != n:
        equation = "AX = B" if left else "XA = B"
        shapes = (f"{n}x{n} and {B.shape[-2]}x{B.shape[-1]}")
        raise RuntimeError(f"linalg.lu_solve: Incompatible shapes of A and B for the equation "
                           f"{equation} ({shapes})")
    if pivots.dtype != _ag.int32:
        raise RuntimeError("linalg.lu_solve: pivots should be a Tensor of scalar type "
                           "torch.int32")
    if pivots.shape[-1:] != (n,):
        raise RuntimeError("linalg.lu_solve: Number of pivots per batch should be same as the "
                           "dimension of the matrix")
    if pivots.shape[:-1] != LU.shape[:-2]:
        raise RuntimeError("linalg.lu_solve: Expected LU.shape[:-1] and pivots.shape to be the "
                           f"same, but got pivots with shape {list(pivots.shape)} instead")
    P, L, U = lu_unpack(LU, pivots)
    if not left:
        # X A = B  <=>  A^H X^H = B^H
        result = mH(lu_solve(LU, pivots, mH(B), adjoint=not adjoint))
    elif adjoint:
        # A^H = U^H L^H P^T: X = P L^-H U^-H B
        Y = solve_triangular(mH(U), B, upper=False)
        Y = solve_triangular(mH(L), Y, upper=True, unitriangular=True)
        result = _ag.matmul(P, Y)
    else:
        Y = _ag.matmul(mH(P), B)
        Y = solve_triangular(L, Y, upper=False, unitriangular=True)
        result = solve_triangular(U, Y, upper=True)
    if out is not None:
        out.copy_(result)
        return out
    return result
