"""``torch.svd_lowrank`` and ``torch.pca_lowrank``: randomized low-rank SVD and PCA
(Halko, Martinsson and Tropp, 2009), composed of recorded ops as torch composes them, so
their gradients are those of the composition.

``svd_lowrank(A, q=6, niter=2, M=None)`` approximates the SVD of ``A - M`` (``M``
broadcast to ``A``) with ``q`` singular triplets: a Gaussian test matrix ``R`` (``randn``,
torch's numbers after the same seed), the basis ``Q`` of ``(A - M) R`` refined by
``niter`` power iterations (a QR after each product), then the SVD of ``Q^H (A - M)``;
a wide matrix is handled through its conjugate transpose. ``pca_lowrank(A, q=None,
center=True, niter=2)`` is ``svd_lowrank`` of ``A`` less its column means (``q``
defaults to ``min(6, m, n)``). Both return ``(U, S, V)`` with ``A ~ U diag(S) V^H``.
"""
import autograd_cy as _ag

__all__ = ["svd_lowrank", "pca_lowrank"]


def _floating_dtype(A):
    """torch's ``get_floating_dtype``: A's dtype if floating, else float32."""
    return A.dtype if A.dtype.is_floating_point else _ag.float32


def _approximate_basis(A, q, niter, M):
    """An orthonormal basis (``q`` columns) of the range of ``A - M``."""
    niter = 2 if niter is None else niter
    dtype = A.dtype if A.is_complex() else _floating_dtype(A)
    R = _ag.randn(A.shape[-1], q, dtype=dtype, device=A.device)

    def minus_m(X, factor, adjoint):
        if M is None:
            return X
        return X - _ag.matmul(M.mH if adjoint else M, factor)
    Q = _ag.linalg.qr(minus_m(_ag.matmul(A, R), R, False)).Q
    for _ in range(niter):
        Q = _ag.linalg.qr(minus_m(_ag.matmul(A.mH, Q), Q, True)).Q
        Q = _ag.linalg.qr(minus_m(_ag.matmul(A, Q), Q, False)).Q
    return Q


def _svd_lowrank(A, q=6, niter=2, M=None):
    q = 6 if q is None else q
    m, n = A.shape[-2:]
    if M is not None:
        M = M.broadcast_to(A.size())
    if m < n:
        A = A.mH
        if M is not None:
            M = M.mH
    Q = _approximate_basis(A, q, niter, M)
    B = _ag.matmul(Q.mH, A)
    if M is not None:
        B = B - _ag.matmul(Q.mH, M)
    U, S, Vh = _ag.linalg.svd(B, full_matrices=False)
    V = Vh.mH
    U = Q.matmul(U)
    if m < n:
        U, V = V, U
    return U, S, V


def svd_lowrank(A, q=6, niter=2, M=None):
    """An approximate SVD ``(U, S, V)`` of ``A - M`` with ``q`` singular triplets (see the
    module's doc)."""
    return _svd_lowrank(A, q=q, niter=niter, M=M)


def pca_lowrank(A, q=None, center=True, niter=2):
    """``svd_lowrank`` of ``A`` less its column means (``center``): ``V``'s columns are the
    principal directions, ``S**2 / (m - 1)`` the variances along them."""
    m, n = A.shape[-2:]
    if q is None:
        q = min(6, m, n)
    elif not (q >= 0 and q <= min(m, n)):
        raise ValueError(f"q(={q}) must be non-negative integer and not greater than "
                         f"min(m, n)={min(m, n)}")
    if not niter >= 0:
        raise ValueError(f"niter(={niter}) must be non-negative integer")
    if not center:
        return _svd_lowrank(A, q, niter=niter, M=None)
    C = A.mean(dim=(-2,), keepdim=True)
    return _svd_lowrank(A - C, q, niter=niter, M=None)
