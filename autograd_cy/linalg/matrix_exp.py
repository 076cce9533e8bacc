"""``linalg.matrix_exp``: ``exp(A) = sum_k A^k / k!`` of each square matrix.

The forward scales ``A`` by ``2^-s`` until its norm is below 1/2, sums the Taylor series
there (to float64 precision in 18 terms) and squares the result ``s`` times.

# NOTE [The matrix exponential's backward]
The Fréchet derivative of ``exp`` at ``A`` in direction ``E`` is the upper-right block of
``exp([[A, E], [0, A]])``, and the gradient is that derivative at ``A^H`` in the direction
``g`` (torch's formula): one matrix exponential of twice the size, itself differentiable,
so double backward is the same op again. The node is ``LinalgMatrixExpBackward0``.

>>> import autograd_cy as ag
>>> ag.linalg.matrix_exp(ag.zeros(2, 2))
tensor([[1., 0.],
        [0., 1.]])
"""
import math

import numpy as np

import autograd_cy as _ag
from autograd_cy.autograd.function import Function
from autograd_cy.linalg._lapack import array_of, check_matrix, mH, tensor_like

__all__ = ["matrix_exp"]

TAYLOR_TERMS = 18


def _expm(a):
    """``exp`` of each matrix of the array ``a`` by scaling and squaring."""
    norm = np.abs(a).sum(-2).max() if a.size else 0.0
    squarings = max(0, int(math.ceil(math.log2(norm / 0.5)))) if norm > 0.5 else 0
    x = a / (2.0 ** squarings)
    term = np.broadcast_to(np.eye(a.shape[-1], dtype=a.dtype), a.shape).copy()
    total = term.copy()
    for k in range(1, TAYLOR_TERMS + 1):
        term = term @ x / k
        total += term
    for _ in range(squarings):
        total = total @ total
    return total


def _frechet(A, E):
    """The derivative of ``exp`` at ``A`` in direction ``E``: the upper-right block of the
    exponential of ``[[A, E], [0, A]]`` (NOTE [The matrix exponential's backward])."""
    n = A.shape[-1]
    top = _ag.cat([A, E], -1)
    bottom = _ag.cat([_ag.zeros_like(A), A], -1)
    return matrix_exp(_ag.cat([top, bottom], -2))[..., :n, n:]


class LinalgMatrixExp(Function):
    """``matrix_exp``'s op."""
    builtin_op = True

    @staticmethod
    def forward(ctx, A):
        ctx.save_for_backward(A)
        ctx.save_for_forward(A)
        a = array_of(A)
        if a.dtype.itemsize == 2:       # float16, bfloat16: in float32, rounded once
            return tensor_like(_expm(a.astype(np.float32)), A, dtype=A.dtype)
        return tensor_like(_expm(a), A)

    @staticmethod
    def backward(ctx, grad):
        (A,) = ctx.saved_tensors
        return _frechet(mH(A), grad)

    @staticmethod
    def jvp(ctx, A_t):
        (A,) = ctx.saved_tensors
        return _frechet(A, A_t)


LinalgMatrixExp._backward_cls.__name__ = "LinalgMatrixExpBackward0"


def matrix_exp(A):
    """The matrix exponential of each square matrix of ``A``."""
    check_matrix(A, "linalg.matrix_exp", low_precision=True)
    return LinalgMatrixExp.apply(A)
