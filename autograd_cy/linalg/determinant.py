"""``linalg.det``, ``linalg.slogdet`` and ``logdet``: the determinant, its sign (phase)
and the log of its magnitude, on NumPy's LAPACK (NOTE [Linear algebra on the CPU's
LAPACK]).

Jacobi's formula, ``d det(A) = det(A) tr(A^{-1} dA)``, gives the gradients

    det:     gA = (g conj(det)) A^{-H}
    slogdet: gA = g A^{-H}, with g = g_logabsdet (real A), or for complex A
             g = g_logabsdet + i Im(g_sign conj(sign))   (the phase moves the sign)

written with ``linalg.inv`` so that they differentiate again. ``slogdet``'s needs an
invertible ``A``; ``logdet`` is torch's composite: ``where(sign == -1, nan, logabsdet)``
(``log(sign) + logabsdet`` for complex A).

# NOTE [The determinant's gradient at a singular matrix]
``det(A) A^{-H}`` is the matrix of cofactors, which stays finite where ``A`` is singular.
As torch, a batch holding a singular matrix takes it from the SVD ``A = U diag(S) Vh``:
``gA = U diag(g conj(det(U) det(Vh)) prod_{j != i} S_j) Vh`` (the products of all but one
singular value, without dividing by a zero one).

>>> import autograd_cy as ag
>>> ag.linalg.det(ag.tensor([[2.0, 1.0], [1.0, 3.0]]))
tensor(5.)
"""
from collections import namedtuple

import numpy as np

import autograd_cy as _ag
from autograd_cy.autograd.function import Function
from autograd_cy.linalg._lapack import array_of, check_matrix, mH, tensor_like
from autograd_cy.linalg.inverse import inv, solve
from autograd_cy.linalg.svd import svd

__all__ = ["det", "slogdet", "logdet"]

slogdet_result = namedtuple("linalg_slogdet", ["sign", "logabsdet"])


def _trace_of_solve(A, A_t):
    """``tr(A^{-1} A_t)``: the directional derivative of ``log det`` at ``A``."""
    return solve(A, A_t).diagonal(0, -2, -1).sum(-1)


class LinalgDet(Function):
    """``det``'s op."""
    builtin_op = True

    @staticmethod
    def forward(ctx, A):
        with np.errstate(all="ignore"):
            out = tensor_like(np.linalg.det(array_of(A)), A)
        ctx.save_for_backward(A, out)
        ctx.save_for_forward(A, out)
        return out

    @staticmethod
    def backward(ctx, grad):
        A, det = ctx.saved_tensors
        if A.shape[-1] == 1:        # det(a) = a: the gradient itself, free of A (as torch's)
            return grad.unsqueeze(-1).unsqueeze(-1).to(A.dtype)
        if (det == 0).any():
            return _singular_gradient(grad, A)
        scale = (grad * det.conj()).unsqueeze(-1).unsqueeze(-1)
        return mH(inv(A)) * scale

    @staticmethod
    def jvp(ctx, A_t):
        A, det = ctx.saved_tensors
        return det * _trace_of_solve(A, A_t)


LinalgDet._backward_cls.__name__ = "LinalgDetBackward0"


def _singular_gradient(grad, A):
    """``det``'s gradient through the SVD (NOTE [The determinant's gradient at a singular
    matrix])."""
    U, S, Vh = svd(A)
    n = S.shape[-1]
    eye = _ag.eye(n, dtype=_ag.bool, device=S.device)
    others = _ag.where(eye, 1.0, S.unsqueeze(-2).expand(S.shape[:-1] + (n, n))).prod(-1)
    alpha = (det(U) * det(Vh)).conj()
    D = (grad * alpha).unsqueeze(-1) * others
    return _ag.matmul(U * D.unsqueeze(-2), Vh)


def det(A):
    """The determinant of each square matrix of ``A``."""
    check_matrix(A, "linalg.det")
    return LinalgDet.apply(A)


class LinalgSlogdet(Function):
    """``slogdet``'s op: ``(sign, logabsdet)``."""
    builtin_op = True

    @staticmethod
    def forward(ctx, A):
        with np.errstate(all="ignore"):
            sign, logabsdet = np.linalg.slogdet(array_of(A))
        sign, logabsdet = tensor_like(sign, A), tensor_like(logabsdet, A)
        ctx.save_for_backward(A, sign)
        ctx.save_for_forward(A, sign)
        ctx.set_materialize_grads(False)
        return sign, logabsdet

    @staticmethod
    def backward(ctx, grad_sign, grad_logabsdet):
        A, sign = ctx.saved_tensors
        if A.is_complex() and grad_sign is not None:
            g = 1j * (grad_sign * sign.conj()).imag
            g = g if grad_logabsdet is None else g + grad_logabsdet
        elif grad_logabsdet is None:
            return None         # a real sign has no gradient: A gets none, as torch's
        else:
            g = grad_logabsdet
        return mH(inv(A)) * g.unsqueeze(-1).unsqueeze(-1)

    @staticmethod
    def jvp(ctx, A_t):
        A, sign = ctx.saved_tensors
        trace = _trace_of_solve(A, A_t)
        if not A.is_complex():
            return _ag.zeros_like(sign), trace
        return sign * (1j * trace.imag), trace.real


LinalgSlogdet._backward_cls.__name__ = "LinalgSlogdetBackward0"


def slogdet(A):
    """``(sign, logabsdet)`` of the determinant of each square matrix of ``A``: its sign
    (for complex A its phase, ``det / |det|``) and ``log |det|``; 0 and -inf for a
    singular matrix."""
    check_matrix(A, "linalg.slogdet")
    return slogdet_result(*LinalgSlogdet.apply(A))


def logdet(input):
    """``log det(A)``: NaN where the determinant is negative (real A), -inf where 0."""
    check_matrix(input, "logdet")
    sign, logabsdet = LinalgSlogdet.apply(input)
    if input.is_complex():
        return sign.log() + logabsdet
    return _ag.where(sign == -1, float("nan"), logabsdet)
