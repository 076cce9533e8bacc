"""``linalg.cholesky`` / ``cholesky_ex``: ``A = L L^H`` for a Hermitian positive-definite
``A``, ``L`` lower triangular (``U = L^H`` with ``upper=True``), on NumPy's LAPACK (NOTE
[Linear algebra on the CPU's LAPACK]). As LAPACK's ``potrf``, only one triangle of ``A``
is read: the lower one, or the upper one with ``upper=True``.

# NOTE [The Cholesky backward]
From ``dA = dL L^H + L dL^H``, ``L^{-1} dA L^{-H} = L^{-1} dL + (L^{-1} dL)^H`` with
``L^{-1} dL`` lower triangular, so ``dL = L Phi(L^{-1} dA L^{-H})``, where ``Phi`` keeps
the lower triangle and halves the diagonal. Its adjoint on a lower triangular ``X`` is
``Phi*(X) = (X + tril(X, -1)^H) / 2``, the off-diagonal half mirrored; hence, as torch's
``cholesky_backward``,

    gA = L^{-H} Phi*(tril(L^H gL)) L^{-1}

Hermitian for real matrices. For complex ones it is not quite: the diagonal of ``L^H gL``
may have an imaginary part, which ``Phi*`` halves and keeps, where symmetrizing afterwards,
``(gA + gA^H) / 2``, would drop it; torch keeps it, so this does too. Both solves are
``linalg.solve``, so the formula differentiates again.

>>> import autograd_cy as ag
>>> ag.linalg.cholesky(ag.tensor([[4.0, 2.0], [2.0, 5.0]]))
tensor([[2., 0.],
        [1., 2.]])
"""
from collections import namedtuple

import numpy as np

import autograd_cy as _ag
from autograd_cy.autograd.function import Function
from autograd_cy.linalg._lapack import (
    LinAlgError, array_of, batch_prefix, check_matrix, column_major_like, mH, tensor_like,
)
from autograd_cy.linalg.inverse import solve

__all__ = ["cholesky", "cholesky_ex"]

cholesky_ex_result = namedtuple("linalg_cholesky_ex", ["L", "info"])


def _failing_order(matrix):
    """LAPACK's ``info`` of ``potrf`` on one (lower-triangle) matrix: the order of the first
    leading minor that is not positive-definite, 0 when none is."""
    for k in range(1, matrix.shape[-1] + 1):
        try:
            np.linalg.cholesky(matrix[:k, :k])
        except np.linalg.LinAlgError:
            return k
    return 0


def _factor(a):
    """``(L, info)`` of each matrix of ``a`` (its lower triangle read); a failed one's L
    is NaN."""
    try:
        return np.linalg.cholesky(a), np.zeros(a.shape[:-2], dtype=np.int32)
    except np.linalg.LinAlgError:
        flat = a.reshape((-1,) + a.shape[-2:])
        info = np.array([_failing_order(m) for m in flat], dtype=np.int32)
        out = np.full(flat.shape, np.nan, dtype=a.dtype)
        for index in np.flatnonzero(info == 0):
            out[index] = np.linalg.cholesky(flat[index])
        return out.reshape(a.shape), info.reshape(a.shape[:-2])


def _phi(x):
    """The lower triangle of ``x`` with its diagonal halved (NOTE [The Cholesky backward])."""
    return x.tril() - 0.5 * x.tril().triu()


def _phi_adjoint(x):
    """``(x + tril(x, -1)^H) / 2`` of a lower triangular ``x``: ``_phi``'s adjoint (NOTE
    [The Cholesky backward])."""
    return 0.5 * (x + mH(x.tril(-1)))


class LinalgCholeskyEx(Function):
    """``cholesky_ex``'s op: the factor (lower, or upper with ``upper``) and info."""
    builtin_op = True

    @staticmethod
    def forward(ctx, A, upper, check_errors):
        a = array_of(A)
        if upper:                 # the upper triangle read: factor its conjugate transpose
            a = np.conj(np.swapaxes(a, -1, -2))
        factor, info = _factor(a)
        if check_errors and info.any():
            _raise_not_positive(info, "linalg.cholesky_ex", A.dim() > 2)
        if upper:
            factor = np.conj(np.swapaxes(factor, -1, -2))
        # column-major, as LAPACK writes the factor and torch returns it (upper too)
        out, info = column_major_like(factor, A), tensor_like(info, A)
        ctx.mark_non_differentiable(info)
        ctx.save_for_backward(out)
        ctx.save_for_forward(out)
        ctx.upper = upper
        return out, info

    @staticmethod
    def backward(ctx, grad, grad_info):
        (L,) = ctx.saved_tensors
        if ctx.upper:
            L, grad = mH(L), mH(grad)
        phi = _phi_adjoint(_ag.matmul(mH(L), grad).tril())
        return solve(L, solve(mH(L), phi), left=False), None, None

    @staticmethod
    def jvp(ctx, A_t, upper_t, check_errors_t):
        (L,) = ctx.saved_tensors
        if ctx.upper:
            L, A_t = mH(L), mH(A_t)
        inner = solve(L, solve(mH(L), A_t, left=False))      # L^{-1} dA L^{-H}
        L_t = _ag.matmul(L, _phi(inner))
        return (mH(L_t) if ctx.upper else L_t), None


LinalgCholeskyEx._backward_cls.__name__ = "LinalgCholeskyExBackward0"


def _raise_not_positive(info, name, batched):
    index = int(np.flatnonzero(info.reshape(-1))[0])
    raise LinAlgError(
        f"{name}: {batch_prefix(index, batched)}The factorization could not be completed "
        "because the input is not positive-definite (the leading minor of order "
        f"{int(info.reshape(-1)[index])} is not positive-definite).")


def cholesky_ex(A, *, upper=False, check_errors=False):
    """The Cholesky factor of each Hermitian positive-definite matrix of ``A`` and ``info``
    (int32): 0, or the order of the first leading minor that is not positive-definite."""
    check_matrix(A, "linalg.cholesky_ex")
    return cholesky_ex_result(*LinalgCholeskyEx.apply(A, upper, check_errors))


def cholesky(A, *, upper=False):
    """The Cholesky factor ``L`` (``A = L L^H``; ``U = L^H`` with ``upper``); a matrix that
    is not positive-definite raises ``LinAlgError``."""
    check_matrix(A, "linalg.cholesky")
    L, info = LinalgCholeskyEx.apply(A, upper, False)
    if info.any():
        _raise_not_positive(array_of(info), "linalg.cholesky", A.dim() > 2)
    return L
