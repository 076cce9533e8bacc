"""``linalg.qr`` and ``torch.qr``: ``A = Q R``, ``Q`` with orthonormal columns, ``R``
upper triangular, on NumPy's LAPACK (Householder reflections, as torch's ``geqrf`` /
``orgqr``; NOTE [Linear algebra on the CPU's LAPACK]). ``mode``: 'reduced' (``Q`` m x k,
``R`` k x n, k = min(m, n)), 'complete' (``Q`` m x m) or 'r' (``R`` only, ``Q`` empty).

# NOTE [The QR backward]
The factorization is unique up to a unit factor per column of ``Q`` (and row of ``R``):
LAPACK's choice is torch's, but a test compares ``Q`` and ``R`` after making ``R``'s
diagonal positive. For ``m >= n`` torch's gradient is

    gA = (gQ + Q syminvadj(triu(gR R^H - Q^H gQ))) R^{-H},
    syminvadj(X) = X + X^H with the real part of its diagonal halved

(the solve with ``R^H`` a triangular one). For ``m < n``, ``A = [X | Y]`` with ``X = Q R_1``
square: ``Y = Q R_2`` moves ``gQ`` by ``Y gR_2^H``, ``gY = Q gR_2``, and ``X`` takes the
square case's formula. As torch, mode 'r' and 'complete' with ``m > n`` are not
differentiable (their backward raises torch's error).

>>> import autograd_cy as ag
>>> A = ag.tensor([[3.0, 0.0], [4.0, 5.0]])
>>> Q, R = ag.linalg.qr(A)
>>> ag.allclose(Q @ R, A, atol=1e-6), ag.allclose(Q.mT @ Q, ag.eye(2), atol=1e-6)
(True, True)
"""
import warnings
from collections import namedtuple

import numpy as np

import autograd_cy as _ag
from autograd_cy.autograd.function import Function
from autograd_cy.linalg._lapack import array_of, check_matrix, column_major_like, mH
from autograd_cy.linalg.triangular_solve import solve_triangular

__all__ = ["qr", "torch_qr"]

qr_result = namedtuple("linalg_qr", ["Q", "R"])
torch_qr_result = namedtuple("qr", ["Q", "R"])


def _syminvadj(X):
    """``X + X^H`` with the real part of its diagonal halved."""
    out = X + mH(X)
    diagonal = out.diagonal(0, -2, -1)
    real = diagonal.real if diagonal.is_complex() else diagonal
    return out - 0.5 * (real.unsqueeze(-1) * _ag.eye(X.shape[-1], dtype=real.dtype,
                                                      device=X.device))


def _square_backward(gQ, gR, Q, R):
    """The ``m >= n`` formula (NOTE [The QR backward]); None gradients are zeros."""
    inner = None
    if gR is not None:
        inner = _ag.matmul(gR, mH(R))
    if gQ is not None:
        term = _ag.matmul(mH(Q), gQ)
        inner = -term if inner is None else inner - term
    gA = _ag.matmul(Q, _syminvadj(inner.triu()))
    if gQ is not None:
        gA = gA + gQ
    return solve_triangular(mH(R), gA, upper=False, left=False)


class LinalgQr(Function):
    """``qr``'s op: ``(Q, R)`` in ``mode``."""
    builtin_op = True

    @staticmethod
    def forward(ctx, A, mode):
        a = array_of(A)
        if mode == "r":
            R = np.linalg.qr(a, mode="r")
            Q = np.zeros((0,), dtype=a.dtype)
        else:
            Q, R = np.linalg.qr(a, mode=mode)
        Q, R = column_major_like(Q, A), column_major_like(R, A)
        ctx.save_for_backward(Q, R)
        ctx.mode = mode
        ctx.set_materialize_grads(False)
        return Q, R

    @staticmethod
    def backward(ctx, gQ, gR):
        Q, R = ctx.saved_tensors
        if ctx.mode == "r":
            raise RuntimeError(
                "The derivative of linalg.qr depends on Q, which is not computed when "
                "mode='r'. Please use linalg.qr(A, mode='reduced') if you are going to "
                "differentiate through linalg.qr.")
        m, n = Q.shape[-2], R.shape[-1]
        if ctx.mode == "complete" and m > n:
            raise RuntimeError("The QR decomposition is not differentiable when "
                               "mode='complete' and nrows > ncols.")
        if gQ is None and gR is None:
            return None, None
        if m >= n:
            return _square_backward(gQ, gR, Q, R), None
        R1, R2 = R[..., :m], R[..., m:]
        gR1 = None if gR is None else gR[..., :m]
        Y = _ag.matmul(Q, R2)
        if gR is not None:
            gR2 = gR[..., m:]
            moved = _ag.matmul(Y, mH(gR2))
            gQ = moved if gQ is None else gQ + moved
            gY = _ag.matmul(Q, gR2)
        else:
            gY = _ag.zeros_like(Y)
        return _ag.cat([_square_backward(gQ, gR1, Q, R1), gY], -1), None


LinalgQr._backward_cls.__name__ = "LinalgQrBackward0"


def qr(A, mode="reduced"):
    """``(Q, R)`` with ``A = Q R`` (NOTE [The QR backward])."""
    check_matrix(A, "linalg.qr", square=False)
    if mode not in ("reduced", "complete", "r"):
        raise RuntimeError(f"qr received unrecognized mode '{mode}' but expected one of "
                           "'reduced' (default), 'r', or 'complete'")
    return qr_result(*LinalgQr.apply(A, mode))


def torch_qr(input, some=True):
    """``torch.qr`` (deprecated in torch): ``linalg.qr`` in mode 'reduced', or 'complete'
    when not ``some``."""
    warnings.warn(
        "torch.qr is deprecated in favor of torch.linalg.qr and will be removed in a future "
        "PyTorch release.\nThe boolean parameter 'some' has been replaced with a string "
        "parameter 'mode'.\nQ, R = torch.qr(A, some)\nshould be replaced with\nQ, R = "
        "torch.linalg.qr(A, 'reduced' if some else 'complete')", UserWarning, stacklevel=2)
    return torch_qr_result(*qr(input, "reduced" if some else "complete"))
