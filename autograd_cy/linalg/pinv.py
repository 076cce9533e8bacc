"""``linalg.pinv`` and ``torch.pinverse``: the Moore-Penrose pseudo-inverse, from the SVD
(NumPy's LAPACK, NOTE [Linear algebra on the CPU's LAPACK]): the singular values above
``max(atol, rtol * S_max)`` inverted, the others dropped. ``rtol`` defaults to
``eps * max(m, n)`` when neither tolerance is given.

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
from autograd_cy.linalg._lapack import array_of, check_matrix, mH, tensor_like

__all__ = ["pinv", "pinverse", "pinv_array", "pinv_backward"]


def pinv_array(a, atol, rtol):
    """The pseudo-inverse of each matrix of ``a`` with the tolerances (NumPy floats)."""
    U, S, Vh = np.linalg.svd(a, full_matrices=False)
    if atol is None and rtol is None:
        rtol = np.finfo(S.dtype).eps * max(a.shape[-2], a.shape[-1])
    s_max = S[..., :1] if S.shape[-1] else S
    cutoff = np.maximum(atol or 0.0, (rtol or 0.0) * s_max)
    keep = S > cutoff
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
    def forward(ctx, A, atol, rtol):
        out = tensor_like(pinv_array(array_of(A), atol, rtol), A)
        ctx.save_for_backward(A, out)
        return out

    @staticmethod
    def backward(ctx, grad):
        A, P = ctx.saved_tensors
        return pinv_backward(grad, P, A), None, None


LinalgPinv._backward_cls.__name__ = "LinalgPinvBackward0"


def _as_float(value):
    if isinstance(value, _ag.Tensor):
        return value.item()
    return value


def pinv(A, *, atol=None, rtol=None, hermitian=False):
    """The pseudo-inverse of each matrix of ``A``; ``hermitian`` is accepted (the result
    is the same, computed from the SVD)."""
    check_matrix(A, "linalg.pinv", square=False)
    return LinalgPinv.apply(A, _as_float(atol), _as_float(rtol))


def pinverse(input, rcond=1e-15):
    """``torch.pinverse``: ``linalg.pinv`` with ``rtol=rcond``."""
    return pinv(input, rtol=rcond)
