"""``torch.cholesky_solve`` and ``torch.cholesky_inverse``: ``(L L^H)^{-1} B`` and
``(L L^H)^{-1}`` from a Cholesky factor ``L`` (``U^H U`` with ``upper=True``), only the
factor's triangle read, on NumPy's LAPACK (NOTE [Linear algebra on the CPU's LAPACK]).

With ``A = L L^H`` (Hermitian) and ``X = A^{-1} B``, ``gB = A^{-1} g`` (a cholesky_solve
again) and ``gA = -gB X^H``; through ``A = L L^H`` that is ``gL = (gA + gA^H) L``
(``U (gA + gA^H)`` for the upper factor), torch's ``CholeskySolveBackward0``. For the
inverse, ``gA = -X g X`` symmetrized the same way (``CholeskyInverseBackward0``).

>>> import autograd_cy as ag
>>> ag.cholesky_inverse(ag.tensor([[2.0, 0.0], [1.0, 1.0]]))
tensor([[ 0.5000, -0.5000],
        [-0.5000,  1.0000]])
"""
import numpy as np

import autograd_cy as _ag
from autograd_cy.autograd.function import Function
from autograd_cy.linalg._lapack import array_of, check_matrix, mH, tensor_like

__all__ = ["cholesky_solve", "cholesky_inverse"]


def _product(factor, upper):
    """``L L^H`` (``U^H U``) of the array's triangle."""
    if upper:
        u = np.triu(factor)
        return np.conj(np.swapaxes(u, -1, -2)) @ u
    lower = np.tril(factor)
    return lower @ np.conj(np.swapaxes(lower, -1, -2))


def _factor_gradient(term, factor, upper):
    """``L``'s gradient from ``gA``'s Hermitian part ``term`` (``gA + gA^H``)."""
    return -_ag.matmul(factor, term) if upper else -_ag.matmul(term, factor)


class CholeskySolve(Function):
    """``cholesky_solve``'s op: ``X = (L L^H)^{-1} B``."""
    builtin_op = True

    @staticmethod
    def forward(ctx, B, L, upper):
        a, b = _product(array_of(L), upper), array_of(B)
        batch = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
        with np.errstate(all="ignore"):
            x = np.linalg.solve(np.broadcast_to(a, batch + a.shape[-2:]),
                                np.broadcast_to(b, batch + b.shape[-2:]))
        out = tensor_like(x, B)
        ctx.save_for_backward(L, out)
        ctx.upper, ctx.shapes = upper, (tuple(B.shape), tuple(L.shape))
        return out

    @staticmethod
    def backward(ctx, grad):
        L, X = ctx.saved_tensors
        gB = cholesky_solve(grad, L, ctx.upper)
        grad_B = grad_L = None
        if ctx.needs_input_grad[0]:
            grad_B = gB.sum_to_size(ctx.shapes[0])
        if ctx.needs_input_grad[1]:
            term = _ag.matmul(gB, mH(X))
            grad_L = _factor_gradient(term + mH(term), L, ctx.upper).sum_to_size(ctx.shapes[1])
        return grad_B, grad_L, None


CholeskySolve._backward_cls.__name__ = "CholeskySolveBackward0"


class CholeskyInverse(Function):
    """``cholesky_inverse``'s op: ``(L L^H)^{-1}``."""
    builtin_op = True

    @staticmethod
    def forward(ctx, L, upper):
        with np.errstate(all="ignore"):
            out = tensor_like(np.linalg.inv(_product(array_of(L), upper)), L)
        ctx.save_for_backward(L, out)
        ctx.upper = upper
        return out

    @staticmethod
    def backward(ctx, grad):
        L, inverse = ctx.saved_tensors
        term = _ag.matmul(inverse, _ag.matmul(grad + mH(grad), inverse))
        return _factor_gradient(term, L, ctx.upper), None


CholeskyInverse._backward_cls.__name__ = "CholeskyInverseBackward0"


def cholesky_solve(B, L, upper=False):
    """``X`` with ``L L^H X = B`` (``U^H U X = B`` with ``upper``), batched and broadcast."""
    for tensor, name in ((B, "b"), (L, "u")):
        if tensor.dim() < 2:
            raise RuntimeError(f"{name} should have at least 2 dimensions, but has "
                               f"{tensor.dim()} dimensions instead")
    check_matrix(L, "cholesky_solve")
    return CholeskySolve.apply(B, L, upper)


def cholesky_inverse(L, upper=False):
    """``(L L^H)^{-1}`` (``(U^H U)^{-1}`` with ``upper``): the inverse of the matrix whose
    Cholesky factor ``L`` is."""
    check_matrix(L, "cholesky_inverse")
    return CholeskyInverse.apply(L, upper)
