"""``linalg.lu_factor`` / ``lu_factor_ex`` and ``linalg.lu``: the LU factorization with
partial pivoting, ``A = P L U`` (``L`` unit lower triangular, ``U`` upper triangular).

NumPy has no LU, so the elimination is done here, batched over the leading dims, with
LAPACK's ``getrf`` choices: at step ``j`` the row of the largest magnitude in column
``j`` (the first on ties) is the pivot, ``pivots`` records it 1-based (int32, as torch),
and a zero pivot leaves its column as it is (``info`` is then its 1-based index).

The gradient (torch's ``LinalgLuBackward0``, and ``LinalgLuFactorExBackward0`` through
the packed ``LU``), for square ``A``:

    gA = P L^{-H} (tril(L^H gL, -1) + triu(gU U^H)) U^{-H}

two triangular solves, so it differentiates again. (A non-square matrix's backward raises
NotImplementedError here; torch has one.)

>>> import autograd_cy as ag
>>> P, L, U = ag.linalg.lu(ag.tensor([[1.0, 2.0], [3.0, 4.0]]))
>>> U
tensor([[3.0000, 4.0000],
        [0.0000, 0.6667]])
"""
from collections import namedtuple

import numpy as np

import autograd_cy as _ag
from autograd_cy.autograd.function import Function
from autograd_cy.linalg._lapack import array_of, batch_prefix, check_matrix, mH, tensor_like
from autograd_cy.linalg.triangular_solve import solve_triangular

__all__ = ["lu_factor", "lu_factor_ex", "lu"]

lu_factor_result = namedtuple("linalg_lu_factor", ["LU", "pivots"])
lu_factor_ex_result = namedtuple("linalg_lu_factor_ex", ["LU", "pivots", "info"])
lu_result = namedtuple("linalg_lu", ["P", "L", "U"])


def _getrf(a):
    """``(LU, pivots, info, permutation)`` of each matrix of ``a``: the packed factors,
    LAPACK's 1-based pivots and info, and the rows' order (``a[perm] = L U``)."""
    lu = np.array(a, copy=True)
    batch, (m, n) = lu.shape[:-2], lu.shape[-2:]
    k = min(m, n)
    flat = lu.reshape((-1, m, n))
    count = flat.shape[0]
    pivots = np.zeros((count, k), dtype=np.int32)
    info = np.zeros(count, dtype=np.int32)
    perm = np.tile(np.arange(m), (count, 1))
    rows = np.arange(count)
    for j in range(k):
        p = j + np.argmax(np.abs(flat[:, j:, j]), axis=1)
        pivots[:, j] = p + 1
        _swap(flat, rows, j, p)
        _swap(perm, rows, j, p)
        pivot = flat[:, j, j]
        zero = pivot == 0
        info[(info == 0) & zero] = j + 1
        safe = np.where(zero, 1, pivot)
        multipliers = np.where(zero[:, None], 0, flat[:, j + 1:, j] / safe[:, None])
        flat[:, j + 1:, j] = np.where(zero[:, None], flat[:, j + 1:, j], multipliers)
        flat[:, j + 1:, j + 1:] -= multipliers[:, :, None] * flat[:, j, None, j + 1:]
    return (flat.reshape(lu.shape), pivots.reshape(batch + (k,)), info.reshape(batch),
            perm.reshape(batch + (m,)))


def _swap(array, rows, j, p):
    """Swap, in each matrix ``rows[b]`` of ``array``, row ``j`` with row ``p[b]``."""
    first, second = array[rows, j].copy(), array[rows, p].copy()
    array[rows, j], array[rows, p] = second, first


def _unpack(lu, perm):
    """``(P, L, U)`` arrays from the packed factors and the rows' order."""
    m, n = lu.shape[-2:]
    k = min(m, n)
    L = np.tril(lu[..., :, :k], -1) + np.eye(m, k, dtype=lu.dtype)
    U = np.triu(lu[..., :k, :])
    P = np.zeros(lu.shape[:-2] + (m, m), dtype=lu.dtype)
    np.put_along_axis(P, perm[..., :, None], 1, axis=-1)     # P[i, perm[i]] = 1: P^T
    return np.swapaxes(P, -1, -2), L, U


def _lu_backward(gL, gU, P, L, U):
    """The square case's formula; None gradients are zeros."""
    if gL is None and gU is None:
        return None
    gR = None
    if gL is not None:
        gR = _ag.matmul(mH(L), gL).tril(-1)
    if gU is not None:
        term = _ag.matmul(gU, mH(U)).triu()
        gR = term if gR is None else gR + term
    gA = solve_triangular(mH(L), gR, upper=True, unitriangular=True)
    gA = solve_triangular(mH(U), gA, upper=False, left=False)
    return _ag.matmul(P, gA)


def _check_square_backward(L, U):
    if L.shape[-2] != U.shape[-1]:
        raise NotImplementedError("the LU backward of a non-square matrix is not supported")


class LinalgLu(Function):
    """``lu``'s op: ``(P, L, U)``."""
    builtin_op = True

    @staticmethod
    def forward(ctx, A):
        lu, _, _, perm = _getrf(array_of(A))
        P, L, U = (tensor_like(x, A) for x in _unpack(lu, perm))
        ctx.mark_non_differentiable(P)
        ctx.save_for_backward(P, L, U)
        ctx.set_materialize_grads(False)
        return P, L, U

    @staticmethod
    def backward(ctx, gP, gL, gU):
        P, L, U = ctx.saved_tensors
        _check_square_backward(L, U)
        return _lu_backward(gL, gU, P, L, U)


LinalgLu._backward_cls.__name__ = "LinalgLuBackward0"


class LinalgLuFactorEx(Function):
    """``lu_factor_ex``'s op: ``(LU, pivots, info)``."""
    builtin_op = True

    @staticmethod
    def forward(ctx, A):
        lu, pivots, info, perm = _getrf(array_of(A))
        ctx.permutation = tensor_like(_unpack(lu, perm)[0], A)       # a constant
        LU, pivots, info = tensor_like(lu, A), tensor_like(pivots, A), tensor_like(info, A)
        ctx.mark_non_differentiable(pivots, info)
        ctx.save_for_backward(LU)
        return LU, pivots, info

    @staticmethod
    def backward(ctx, gLU, gpivots, ginfo):
        (LU,) = ctx.saved_tensors
        _check_square_backward(LU, LU)
        n = LU.shape[-1]
        # L and U unpacked from the saved output, so that they depend on A in a new graph
        L = LU.tril(-1) + _ag.eye(n, dtype=LU.dtype, device=LU.device)
        U = LU.triu()
        return _lu_backward(gLU.tril(-1), gLU.triu(), ctx.permutation, L, U)


LinalgLuFactorEx._backward_cls.__name__ = "LinalgLuFactorExBackward0"


def _check(A, name):
    check_matrix(A, name, square=False)


def lu_factor_ex(A, *, pivot=True, check_errors=False):
    """The packed LU factorization ``(LU, pivots, info)`` of each matrix of ``A``."""
    _check(A, "linalg.lu_factor_ex")
    LU, pivots, info = LinalgLuFactorEx.apply(A)
    if check_errors and info.any():
        raise _singular(info, "torch.linalg.lu_factor_ex")
    return lu_factor_ex_result(LU, pivots, info)


def lu_factor(A, *, pivot=True):
    """The packed LU factorization ``(LU, pivots)``; an exactly singular matrix raises."""
    _check(A, "linalg.lu_factor")
    LU, pivots, info = LinalgLuFactorEx.apply(A)
    if info.any():
        raise _singular(info, "torch.linalg.lu_factor")
    return lu_factor_result(LU, pivots)


def _singular(info, name):
    """torch's error (a RuntimeError) for the first exactly singular matrix."""
    flat = array_of(info).reshape(-1)
    index = int(np.flatnonzero(flat)[0])
    return RuntimeError(f"{name}: {batch_prefix(index, info.dim() > 0)}U[{flat[index]},"
                       f"{flat[index]}] is zero and using it on lu_solve would result in a "
                       "division by zero. If you still want to perform the factorization, "
                       "consider calling linalg.lu(A, pivot) or linalg.lu_factor_ex(A, "
                       "pivot)")


def lu(A, *, pivot=True):
    """``(P, L, U)`` with ``A = P L U``."""
    _check(A, "linalg.lu")
    return lu_result(*LinalgLu.apply(A))
