"""``linalg.pinv`` and ``torch.pinverse``: the Moore-Penrose pseudo-inverse, from the SVD
(NumPy's LAPACK, NOTE [Linear algebra on the CPU's LAPACK]): the singular values above
``max(atol, rtol * S_max)`` inverted, the others dropped. ``rtol`` defaults to
``eps * max(m, n)`` unless ``atol`` is above 0 (torch's get_atol_rtol, ``tolerances``,
shared with ``matrix_rank``). A ``hermitian`` matrix's comes from the eigendecomposition of
its lower triangle (the absolute eigenvalues as the singular values), as torch's.

# NOTE [The pseudo-inverse's backward]
With ``P = pinv(A)`` (torch's ``LinalgPinvBackward0``, for ``m <= n``; the other case is
its conjugate transpose),

    K = g^H P,
    gA = -(P K)^H + K P^H - A P K P^H + P^H P (g^H - K A)

which holds where the rank is constant near ``A``; the products are ordered to keep the
matrices small.

>>> import autograd_cy as ag
>>> ag.linalg.pinv(ag.tensor([[2.0, 0.0], [0.0, 0.0]]))
tensor([[0.5000, 0.0000],
        [0.0000, 0.0000]])
"""
import numpy as np

import autograd_cy as _ag
from autograd_cy.autograd.function import Function
from autograd_cy.linalg._lapack import array_of, check_matrix, mH, svd_of_finite, tensor_like

__all__ = ["pinv", "pinverse", "pinv_array", "pinv_backward"]


def tolerances(A, atol, rtol, name):
    """``(atol, rtol)`` as float64 NumPy arrays, as torch's get_atol_rtol: numbers or
    tensors (one per matrix of a batch, broadcast); atol 0 when not given, rtol
    ``eps * max(m, n)`` when not given unless atol is above 0."""
    def values(value):
        if isinstance(value, _ag.Tensor):
            return np.asarray(value.detach().cpu().numpy(), dtype=np.float64)
        return np.asarray(value, dtype=np.float64)
    for which, value in (("atol", atol), ("rtol", rtol)):
        if isinstance(value, _ag.Tensor) and value.is_complex():
            raise RuntimeError(f"{name}: {which} tensor of complex type is not supported. "
                               f"Got {value.dtype._scalar_name}")
    atol_values = values(0.0 if atol is None else atol)
    if rtol is not None:
        return atol_values, values(rtol)
    default = np.float64(_ag.finfo(A.dtype).eps * max(A.shape[-2], A.shape[-1]))
    if atol is None:
        return atol_values, default
    return atol_values, np.where(atol_values > 0, 0.0, default)


def cutoff(atol, rtol, largest):
    """``max(atol, rtol * largest)`` per matrix, ``largest`` its largest singular value
    (or absolute eigenvalue) keeping a last dim of 1."""
    return np.maximum(np.asarray(atol)[..., None], np.asarray(rtol)[..., None] * largest)


def pinv_array(a, atol, rtol, hermitian=False):
    """The pseudo-inverse of each matrix of ``a`` with the tolerances (NumPy floats or
    arrays; ``rtol`` given when ``atol`` is not); a ``hermitian`` one from the
    eigendecomposition of its lower triangle, as torch's."""
    atol = 0.0 if atol is None else atol
    if hermitian:
        S, U = np.linalg.eigh(a, UPLO="L")
        magnitude = np.abs(S)
        largest = magnitude.max(-1, keepdims=True) if S.shape[-1] else magnitude
        keep = magnitude > cutoff(atol, rtol, largest)
        with np.errstate(all="ignore"):
            inverse = np.where(keep, 1 / np.where(keep, S, 1), 0).astype(S.dtype)
        return (U * inverse[..., None, :]) @ np.conj(np.swapaxes(U, -1, -2))
    U, S, Vh = svd_of_finite(a, full_matrices=False)
    s_max = S[..., :1] if S.shape[-1] else S
    keep = S > cutoff(atol, rtol, s_max)
    with np.errstate(all="ignore"):
        inverse = np.where(keep, 1 / np.where(keep, S, 1), 0).astype(S.dtype)
    return np.conj(np.swapaxes(Vh, -1, -2)) * inverse[..., None, :] @ np.conj(
        np.swapaxes(U, -1, -2))


def pinv_backward(grad, P, A):
    """The gradient of ``A`` from that of ``P = pinv(A)`` (NOTE [The pseudo-inverse's
    backward])."""
    m, n = A.shape[-2], A.shape[-1]
    Ph, gh = mH(P), mH(grad)
    if m <= n:
        K = _ag.matmul(gh, P)
        KPh = _ag.matmul(K, Ph)
        return (-mH(_ag.matmul(P, K)) + KPh - _ag.matmul(_ag.matmul(A, P), KPh)
                + _ag.matmul(_ag.matmul(Ph, P), gh - _ag.matmul(K, A)))
    K = _ag.matmul(P, gh)
    PhK = _ag.matmul(Ph, K)
    return (-mH(_ag.matmul(K, P)) + _ag.matmul(_ag.matmul(gh - _ag.matmul(A, K), P), Ph)
            + PhK - _ag.matmul(_ag.matmul(PhK, P), A))


class LinalgPinv(Function):
    """``pinv``'s op."""
    builtin_op = True

    @staticmethod
    def forward(ctx, A, atol, rtol, hermitian):
        out = tensor_like(pinv_array(array_of(A), atol, rtol, hermitian).astype(
            array_of(A).dtype, copy=False), A)
        ctx.save_for_backward(A, out)
        return out

    @staticmethod
    def backward(ctx, grad):
        A, P = ctx.saved_tensors
        return pinv_backward(grad, P, A), None, None, None


LinalgPinv._backward_cls.__name__ = "LinalgPinvBackward0"


def pinv(A, *, atol=None, rtol=None, hermitian=False):
    """The pseudo-inverse of each matrix of ``A``; ``atol`` and ``rtol`` numbers or tensors
    (one per matrix); a ``hermitian`` ``A`` is read from its lower triangle only."""
    check_matrix(A, "linalg.pinv", square=False)
    atol, rtol = tolerances(A, atol, rtol, "torch.linalg.pinv")
    return LinalgPinv.apply(A, atol, rtol, hermitian)


def pinverse(input, rcond=1e-15):
    """``torch.pinverse``: ``linalg.pinv`` with ``rtol=rcond``."""
    return pinv(input, rtol=rcond)
