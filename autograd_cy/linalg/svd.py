"""``linalg.svd`` / ``svdvals`` and ``torch.svd``: ``A = U diag(S) Vh``, the singular
values descending, on NumPy's LAPACK (NOTE [Linear algebra on the CPU's LAPACK]).

# NOTE [The SVD backward and its gauge]
Each pair of singular vectors ``(u_i, v_i)`` is defined up to one unit factor (a common
sign, or a common phase ``e^{i phi}`` for complex matrices). torch's gradient, for
distinct non-zero singular values, with ``skew(X) = X - X^H`` and
``E_ij = S_j^2 - S_i^2`` (1 on the diagonal),

    R  = (skew(U^H gU) S + S skew(Vh gVh^H)) / E  +  diag(gS)
         (+ diag(i Im(U^H gU)_ii / S) for complex matrices)
    gA = U R Vh  (+ (I - U U^H) gU S^{-1} Vh    when m > n)
                 (+ U S^{-1} gVh (I - V V^H)    when m < n)

Only the first ``k = min(m, n)`` columns of ``U`` and rows of ``Vh`` enter the loss's
gradient (``full_matrices``' extra ones are a basis of a complement, themselves arbitrary).
A complex loss that depends on the phases makes ``Im diag(U^H gU) != -Im diag(Vh gVh^H)``,
and the backward raises torch's error. Only ``S`` asked (``svdvals``): ``gA = U diag(gS)
Vh``.

>>> import autograd_cy as ag
>>> ag.linalg.svdvals(ag.tensor([[3.0, 0.0], [0.0, -4.0]]))
tensor([4., 3.])
"""
from collections import namedtuple

import autograd_cy as _ag
from autograd_cy.autograd.function import Function
from autograd_cy.linalg._lapack import (
    array_of, check_matrix, diag_embed, mH, svd_of_finite, tensor_like,
)

__all__ = ["svd", "svdvals"]

svd_result = namedtuple("linalg_svd", ["U", "S", "Vh"])
torch_svd_result = namedtuple("svd", ["U", "S", "V"])


def _skew(x):
    return x - mH(x)


def _svd_backward(gU, gS, gVh, U, S, Vh):
    """torch's gradient of ``A`` (NOTE [The SVD backward and its gauge]); ``U``, ``Vh``
    reduced to ``k`` columns / rows, a None gradient one the loss does not use."""
    m, n = U.shape[-2], Vh.shape[-1]
    if gU is None and gVh is None:
        return _ag.matmul(U * gS.unsqueeze(-2), Vh)
    UhgU = _skew(_ag.matmul(mH(U), gU)) if gU is not None else None
    VhgV = _skew(_ag.matmul(Vh, mH(gVh))) if gVh is not None else None
    if U.is_complex():
        im_u = UhgU.diagonal(0, -2, -1).imag if UhgU is not None else _ag.zeros_like(S)
        im_v = VhgV.diagonal(0, -2, -1).imag if VhgV is not None else _ag.zeros_like(S)
        if not _ag.allclose(im_u, -im_v, rtol=1e-2, atol=1e-2):
            raise RuntimeError(
                "svd_backward: The singular vectors in the complex case are specified up to "
                "multiplication by e^{i phi}. The specified loss function depends on this "
                "phase term, making it ill-defined.")
    S2 = S * S
    E = S2.unsqueeze(-2) - S2.unsqueeze(-1) + _ag.eye(S.shape[-1], dtype=S.dtype,
                                                      device=S.device)
    if gU is not None and gVh is not None:
        R = (UhgU * S.unsqueeze(-2) + S.unsqueeze(-1) * VhgV) / E
    elif gU is not None:
        R = UhgU / E * S.unsqueeze(-2)
    else:
        R = S.unsqueeze(-1) * VhgV / E
    if gS is not None:
        R = R + diag_embed(gS)
    if U.is_complex() and gU is not None:
        R = R + diag_embed(1j * UhgU.diagonal(0, -2, -1).imag / (2 * S))
    if m > n and gU is not None:
        gUSinv = gU / S.unsqueeze(-2)
        left = _ag.matmul(U, R) + gUSinv - _ag.matmul(U, _ag.matmul(mH(U), gUSinv))
        return _ag.matmul(left, Vh)
    if m < n and gVh is not None:
        SinvgVh = gVh / S.unsqueeze(-1)
        right = _ag.matmul(R, Vh) + SinvgVh - _ag.matmul(_ag.matmul(SinvgVh, mH(Vh)), Vh)
        return _ag.matmul(U, right)
    return _ag.matmul(U, _ag.matmul(R, Vh))


class LinalgSvd(Function):
    """``svd``'s op: ``(U, S, Vh)``, ``U`` and ``Vh`` square with ``full_matrices``."""
    builtin_op = True

    @staticmethod
    def forward(ctx, A, full_matrices):
        U, S, Vh = svd_of_finite(array_of(A), full_matrices=full_matrices)
        U, S, Vh = tensor_like(U, A), tensor_like(S, A), tensor_like(Vh, A)
        ctx.save_for_backward(U, S, Vh)
        ctx.set_materialize_grads(False)      # an unused output's gradient stays None
        return U, S, Vh

    @staticmethod
    def backward(ctx, gU, gS, gVh):
        U, S, Vh = ctx.saved_tensors
        k = S.shape[-1]
        U, Vh = U[..., :k], Vh[..., :k, :]
        gU = None if gU is None else gU[..., :k]
        gVh = None if gVh is None else gVh[..., :k, :]
        if gS is None and gU is None and gVh is None:
            return None, None
        return _svd_backward(gU, gS, gVh, U, S, Vh), None


LinalgSvd._backward_cls.__name__ = "LinalgSvdBackward0"


def svd(A, full_matrices=True, *, driver=None):
    """``(U, S, Vh)`` with ``A = U diag(S) Vh``: the singular values descending, ``U`` and
    ``Vh`` with orthonormal columns / rows (square with ``full_matrices``)."""
    check_matrix(A, "linalg.svd", square=False)
    return svd_result(*LinalgSvd.apply(A, full_matrices))


def svdvals(A, *, driver=None):
    """The singular values of each matrix of ``A``, descending."""
    check_matrix(A, "linalg.svdvals", square=False)
    return LinalgSvd.apply(A, False)[1]


def torch_svd(input, some=True, compute_uv=True):
    """``torch.svd``: ``(U, S, V)`` with ``V = Vh^H`` (not ``Vh``); reduced unless
    ``some=False``; without ``compute_uv``, ``U`` and ``V`` are zero matrices (full-size)
    and only ``S`` is differentiable."""
    check_matrix(input, "linalg.svd", square=False)
    if not compute_uv:
        S = svdvals(input)
        m, n = input.shape[-2], input.shape[-1]
        batch = tuple(input.shape[:-2])
        zeros = [_ag.zeros(batch + (size, size), dtype=input.dtype, device=input.device)
                 for size in (m, n)]
        return torch_svd_result(zeros[0], S, zeros[1])
    U, S, Vh = LinalgSvd.apply(input, not some)
    return torch_svd_result(U, S, mH(Vh))
