"""``linalg.eigh`` / ``eigvalsh``: the eigenvalues (ascending, real) and orthonormal
eigenvectors of Hermitian matrices, on NumPy's LAPACK (NOTE [Linear algebra on the CPU's
LAPACK]); only the triangle ``UPLO`` names ("L" or "U") is read.

# NOTE [The eigh backward and its gauge]
An eigenvector is defined up to a unit factor (a sign for real matrices, a phase
``e^{i phi}`` for complex ones). With ``E`` the eigenvalues, ``V`` the eigenvectors and
``X = V^H gV``, torch's gradient is

    gA = V (skew(X) / (E_j - E_i)  off the diagonal,  gE  on it) V^H,
    skew(X) = (X - X^H) / 2

It depends on the loss only through gauge-invariant quantities when the loss does: the
diagonal of ``V^H gV`` is then real. A complex loss that depends on the phases makes it
non-real, and the backward raises torch's error, as torch does. Repeated eigenvalues
divide by zero (inf / NaN gradients), as in torch.

>>> import autograd_cy as ag
>>> ag.linalg.eigvalsh(ag.tensor([[2.0, 1.0], [1.0, 2.0]]))
tensor([1., 3.])
"""
from collections import namedtuple

import numpy as np

import autograd_cy as _ag
from autograd_cy.autograd.function import Function
from autograd_cy.linalg._lapack import array_of, check_matrix, diag_embed, mH, tensor_like

__all__ = ["eigh", "eigvalsh"]

eigh_result = namedtuple("linalg_eigh", ["eigenvalues", "eigenvectors"])


def _check_uplo(UPLO, name):
    if UPLO not in ("L", "U"):
        raise RuntimeError(f"{name}: Expected UPLO argument to be 'L' or 'U', but got {UPLO}")


def _differences(E):
    """``E_j - E_i`` at ``[i, j]``, with ones on the diagonal (where nothing divides)."""
    diff = E.unsqueeze(-2) - E.unsqueeze(-1)
    return diff + _ag.eye(E.shape[-1], dtype=E.dtype, device=E.device)


def _off_diagonal(x):
    """``x`` with its diagonal zeroed."""
    n = x.shape[-1]
    return x * (1 - _ag.eye(n, dtype=x.real.dtype if x.is_complex() else x.dtype,
                            device=x.device))


class LinalgEigh(Function):
    """``eigh``'s op: ``(eigenvalues, eigenvectors)``."""
    builtin_op = True

    @staticmethod
    def forward(ctx, A, UPLO):
        values, vectors = np.linalg.eigh(array_of(A), UPLO=UPLO)
        E, V = tensor_like(values, A), tensor_like(vectors, A)
        ctx.save_for_backward(E, V)
        ctx.save_for_forward(E, V)
        ctx.set_materialize_grads(False)
        return E, V

    @staticmethod
    def backward(ctx, gE, gV):
        E, V = ctx.saved_tensors
        if gV is None:      # eigenvalues only (eigvalsh): no division by their gaps, as torch's
            if gE is None:
                return None, None
            return _ag.matmul(V, _ag.matmul(diag_embed(gE.to(V.dtype)), mH(V))), None
        X = _ag.matmul(mH(V), gV)
        if V.is_complex():
            phases = X.diagonal(0, -2, -1).imag
            if not _ag.allclose(phases, _ag.zeros_like(phases), rtol=1e-2, atol=1e-2):
                raise RuntimeError(
                    "linalg_eigh_backward: The eigenvectors in the complex case are "
                    "specified up to multiplication by e^{i phi}. The specified loss "
                    "function depends on this quantity, so it is ill-defined.")
        inner = _off_diagonal(0.5 * (X - mH(X)) / _differences(E))
        if gE is not None:
            inner = inner + diag_embed(gE)
        return _ag.matmul(V, _ag.matmul(inner, mH(V))), None

    @staticmethod
    def jvp(ctx, A_t, UPLO_t):
        E, V = ctx.saved_tensors
        X = _ag.matmul(mH(V), _ag.matmul(A_t, V))
        E_t = X.diagonal(0, -2, -1)
        E_t = E_t.real if E_t.is_complex() else E_t
        V_t = _ag.matmul(V, _off_diagonal(X / _differences(E)))
        return E_t, V_t


LinalgEigh._backward_cls.__name__ = "LinalgEighBackward0"


def eigh(A, UPLO="L"):
    """``(eigenvalues, eigenvectors)`` of each Hermitian matrix of ``A``: the eigenvalues
    real and ascending, ``A = V diag(E) V^H`` (NOTE [The eigh backward and its gauge])."""
    check_matrix(A, "linalg.eigh")
    _check_uplo(UPLO, "linalg.eigh")
    return eigh_result(*LinalgEigh.apply(A, UPLO))


def eigvalsh(A, UPLO="L"):
    """The eigenvalues (real, ascending) of each Hermitian matrix of ``A``."""
    check_matrix(A, "linalg.eigvalsh")
    _check_uplo(UPLO, "linalg.eigvalsh")
    return LinalgEigh.apply(A, UPLO)[0]
