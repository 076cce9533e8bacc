"""``linalg.eig`` / ``eigvals``: the (complex) eigenvalues and unit-norm eigenvectors of
general square matrices, on NumPy's LAPACK (``geev``, as torch's CPU; NOTE [Linear
algebra on the CPU's LAPACK]). The results are complex even for a real ``A``.

The gradient (torch's ``LinalgEigBackward0``), with ``X = V^H gV`` and the eigenvectors'
norms held at 1 (which removes ``V^H V diag(Re X_ii)`` from ``X``):

    gA = V^{-H} ((X - V^H V diag(Re X_ii)) / (conj(E_j) - conj(E_i)) off the diagonal,
                 gE on it) V^H

its real part for a real ``A``. As for ``eigh``, a loss that depends on the eigenvectors'
phases (``Im X_ii != 0``) raises torch's error (NOTE [The eigh backward and its gauge]).

>>> import autograd_cy as ag
>>> ag.linalg.eigvals(ag.tensor([[0.0, -1.0], [1.0, 0.0]]))
tensor([0.+1.j, 0.-1.j])
"""
from collections import namedtuple

import numpy as np

import autograd_cy as _ag
from autograd_cy.autograd.function import Function
from autograd_cy.linalg._lapack import array_of, check_matrix, diag_embed, mH, tensor_like
from autograd_cy.linalg.inverse import solve

__all__ = ["eig", "eigvals"]

eig_result = namedtuple("linalg_eig", ["eigenvalues", "eigenvectors"])


class LinalgEig(Function):
    """``eig``'s op: ``(eigenvalues, eigenvectors)``, complex."""
    builtin_op = True

    @staticmethod
    def forward(ctx, A):
        a = array_of(A)
        complex_dtype = np.result_type(a.dtype, np.complex64)
        values, vectors = np.linalg.eig(a)
        E = tensor_like(values.astype(complex_dtype, copy=False), A)
        V = tensor_like(vectors.astype(complex_dtype, copy=False), A)
        ctx.save_for_backward(E, V)
        ctx.real_input = not A.is_complex()
        ctx.set_materialize_grads(False)
        return E, V

    @staticmethod
    def backward(ctx, gE, gV):
        E, V = ctx.saved_tensors
        n = E.shape[-1]
        if gV is None:
            inner = diag_embed(gE)
        else:
            X = _ag.matmul(mH(V), gV)
            diagonal = X.diagonal(0, -2, -1)
            if not _ag.allclose(diagonal.imag, _ag.zeros_like(diagonal.imag), rtol=1e-2,
                                atol=1e-2):
                raise RuntimeError(
                    "linalg_eig_backward: The eigenvectors in the complex case are "
                    "specified up to multiplication by e^{i phi}. The specified loss "
                    "function depends on this quantity, so it is ill-defined.")
            X = X - _ag.matmul(mH(V), V * diagonal.real.unsqueeze(-2))
            Ec = E.conj()
            eye = _ag.eye(n, dtype=E.dtype, device=E.device)
            inner = X / (Ec.unsqueeze(-2) - Ec.unsqueeze(-1) + eye) * (1 - eye)
            if gE is not None:
                inner = inner + diag_embed(gE)
        gA = solve(mH(V), _ag.matmul(inner, mH(V)))
        return gA.real if ctx.real_input else gA


LinalgEig._backward_cls.__name__ = "LinalgEigBackward0"


def eig(A):
    """``(eigenvalues, eigenvectors)`` of each square matrix of ``A``, complex, the
    eigenvectors of norm 1."""
    check_matrix(A, "linalg.eig")
    return eig_result(*LinalgEig.apply(A))


def eigvals(A):
    """The (complex) eigenvalues of each square matrix of ``A``."""
    check_matrix(A, "linalg.eigvals")
    return LinalgEig.apply(A)[0]
