"""``linalg.lu_factor`` / ``lu_factor_ex`` and ``linalg.lu``: the LU factorization with
partial pivoting, ``A = P L U`` (``L`` unit lower triangular, ``U`` upper triangular).

NumPy has no LU, so the elimination is done here, batched over the leading dims, with
LAPACK's ``getrf`` choices: at step ``j`` the row of the largest magnitude in column
``j`` (the first on ties; ``|Re| + |Im|`` for complex numbers, as BLAS sizes them) is the
pivot, ``pivots`` records it 1-based (int32, as torch), and a zero pivot leaves its column
as it is (``info`` is then its 1-based index).

The gradient (torch's ``LinalgLuBackward0``, and ``LinalgLuFactorExBackward0`` through
the packed ``LU``), for square ``A``:

    gA = P L^{-H} (tril(L^H gL, -1) + triu(gU U^H)) U^{-H}

two triangular solves, so it differentiates again; a wide or tall ``A`` adds the part of
``U`` or ``L`` beyond the square (NOTE [The LU backward of a non-square matrix]).

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
        p = j + np.argmax(_pivot_size(flat[:, j:, j]), axis=1)
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


def _pivot_size(column):
    """How LAPACK's getrf sizes pivot candidates: ``|x|``, and for a complex ``x`` the
    cheaper ``|Re x| + |Im x|`` (BLAS's i*amax), which may pick another row than ``|x|``."""
    if np.iscomplexobj(column):
        return np.abs(column.real) + np.abs(column.imag)
    return np.abs(column)


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
    """``A``'s gradient from those of ``L`` and ``U`` (NOTE [The LU backward of a
    non-square matrix]); None gradients are zeros."""
    if gL is None and gU is None:
        return None
    m, n = L.shape[-2], U.shape[-1]
    if m == n:
        return _ag.matmul(P, _square_lu_backward(gL, gU, L, U))
    if m < n:
        # wide: U = [U1 U2], and U2 = L^-1 P^T A2 passes its gradient to A2 and to L
        U1, U2 = U[..., :m], U[..., m:]
        gU1 = None if gU is None else gU[..., :m]
        gU2 = None if gU is None else gU[..., m:]
        gL_from_U2 = None if gU2 is None else -_unit_lower_solve_h(L, _ag.matmul(gU2, mH(U2)))
        gL = gL_from_U2 if gL is None else (gL if gL_from_U2 is None else gL + gL_from_U2)
        left = _square_lu_backward(gL, gU1, L, U1)
        right = _ag.zeros_like(U2) if gU2 is None else _unit_lower_solve_h(L, gU2)
        return _ag.matmul(P, _ag.cat([left, right], -1))
    # tall: L = [L1; L2], and L2 = A2 U^-1 passes its gradient to A2 and to U
    L1, L2 = L[..., :n, :], L[..., n:, :]
    gL1 = None if gL is None else gL[..., :n, :]
    gL2 = None if gL is None else gL[..., n:, :]
    gU_from_L2 = None if gL2 is None else -_ag.matmul(mH(L2), _upper_solve_h_right(U, gL2))
    gU = gU_from_L2 if gU is None else (gU if gU_from_L2 is None else gU + gU_from_L2)
    top = _square_lu_backward(gL1, gU, L1, U)
    bottom = _ag.zeros_like(L2) if gL2 is None else _upper_solve_h_right(U, gL2)
    return _ag.matmul(P, _ag.cat([top, bottom], -2))


# NOTE [The LU backward of a non-square matrix]
# A wide A (m < n) is P L [U1 U2]: its first m columns are a square LU, and U2 = L^-1 P^T A2
# is a function of A2 and of L. So gU2 reaches A2 as P L^-H gU2 and L as -L^-H gU2 U2^H,
# added to gL before the square formula runs on (L, U1). A tall A (m > n) is P [L1; L2] U
# with L2 = A2 U^-1: gL2 reaches A2 as gL2 U^-H and U as -L2^H gL2 U^-H. Every step is a
# recorded op (products, triangular solves, cat), so the gradient differentiates again.

def _square_lu_backward(gL, gU, L, U):
    """``P^T gA`` of a square LU: ``L^-H (tril(L^H gL, -1) + triu(gU U^H)) U^-H``."""
    gR = None
    if gL is not None:
        gR = _ag.matmul(mH(L), gL).tril(-1)
    if gU is not None:
        term = _ag.matmul(gU, mH(U)).triu()
        gR = term if gR is None else gR + term
    if gR is None:
        return _ag.zeros(L.shape[:-1] + U.shape[-1:], dtype=L.dtype, device=L.device)
    return _upper_solve_h_right(U, _unit_lower_solve_h(L, gR))


def _unit_lower_solve_h(L, X):
    """``L^-H X`` for a unit lower triangular ``L``."""
    return solve_triangular(mH(L), X, upper=True, unitriangular=True)


def _upper_solve_h_right(U, X):
    """``X U^-H`` for an upper triangular ``U``."""
    return solve_triangular(mH(U), X, upper=False, left=False)


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
        m, n = LU.shape[-2:]
        k = min(m, n)
        # L and U unpacked from the saved output, so that they depend on A in a new graph
        L = LU[..., :, :k].tril(-1) + _ag.eye(m, k, dtype=LU.dtype, device=LU.device)
        U = LU[..., :k, :].triu()
        return _lu_backward(gLU[..., :, :k].tril(-1), gLU[..., :k, :].triu(),
                            ctx.permutation, L, U)


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
