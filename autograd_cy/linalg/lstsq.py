"""``linalg.lstsq``: the least-squares solution ``X = argmin ||A X - B||`` (``pinv(A) B``)
with torch's four results ``(solution, residuals, rank, singular_values)``, each filled as
torch fills it for the ``driver`` ('gelsy', the default on the CPU, 'gels', 'gelsd',
'gelss': residuals for tall full-rank matrices except with 'gelsy', the rank except with
'gels', the singular values with 'gelsd' and 'gelss'). The solution comes from NumPy's
LAPACK (NOTE [Linear algebra on the CPU's LAPACK]), whatever the driver.

Its gradient is torch's ``LinalgLstsqBackward0``: that of ``pinv(A) B`` (NOTE [The
pseudo-inverse's backward]), plus the residuals' where the driver returns them.

>>> import autograd_cy as ag
>>> round(ag.linalg.lstsq(ag.tensor([[1.0], [1.0]]), ag.tensor([[1.0], [3.0]])).solution.item(), 4)
2.0
"""
from collections import namedtuple

import numpy as np

import autograd_cy as _ag
from autograd_cy.autograd.function import Function
from autograd_cy.linalg._lapack import array_of, check_matrix, mH, tensor_like
from autograd_cy.linalg.pinv import pinv, pinv_array, pinv_backward

__all__ = ["lstsq"]

lstsq_result = namedtuple("linalg_lstsq", ["solution", "residuals", "rank", "singular_values"])
DRIVERS = ("gels", "gelsy", "gelsd", "gelss")


class LinalgLstsq(Function):
    """``lstsq``'s op."""
    builtin_op = True

    @staticmethod
    def forward(ctx, A, B, rcond, driver, vector):
        a, b = array_of(A), array_of(B)
        if vector:
            b = b[..., None]
        batch = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
        a = np.broadcast_to(a, batch + a.shape[-2:])
        b = np.broadcast_to(b, batch + b.shape[-2:])
        m, n = a.shape[-2:]
        S = np.linalg.svd(a, compute_uv=False)
        rtol = rcond if rcond is not None else np.finfo(S.dtype).eps * max(m, n)
        rank = (S > rtol * (S[..., :1] if n and m else S)).sum(-1).astype(np.int64)
        P = pinv_array(a, None, rtol)
        x = P @ b
        empty = np.zeros((0,), dtype=S.dtype)
        residuals = empty
        if driver != "gelsy" and m > n and (rank == n).all():
            residuals = (np.abs(a @ x - b) ** 2).sum(-2)
            residuals = residuals[..., 0] if vector else residuals
        out = tensor_like(x[..., 0] if vector else x, A)
        results = (out, tensor_like(residuals, A),
                   tensor_like(rank if driver != "gels" else np.zeros((0,), np.int64), A),
                   tensor_like(S if driver in ("gelsd", "gelss") else empty, A))
        ctx.mark_non_differentiable(results[2], results[3])
        ctx.save_for_backward(A, B, out)
        ctx.vector = vector
        ctx.set_materialize_grads(False)
        return results

    @staticmethod
    def backward(ctx, grad, grad_residuals, grad_rank, grad_values):
        A, B, X = ctx.saved_tensors
        B_shape = tuple(B.shape)
        if ctx.vector:
            B, X = B.unsqueeze(-1), X.unsqueeze(-1)
            grad = None if grad is None else grad.unsqueeze(-1)
            grad_residuals = None if grad_residuals is None else grad_residuals.unsqueeze(-1)
        grad_A = grad_B = None
        if grad is not None:
            P = pinv(A)
            if ctx.needs_input_grad[0]:
                grad_A = pinv_backward(_ag.matmul(grad, mH(B)), P, A)
            if ctx.needs_input_grad[1]:
                grad_B = _ag.matmul(mH(P), grad)
        if grad_residuals is not None and grad_residuals.numel():
            # residuals = sum |A X - B|^2 over the rows: at the optimum (A^H (AX - B) = 0)
            # only A's and B's direct appearances move it
            weighted = 2 * (_ag.matmul(A, X) - B) * grad_residuals.unsqueeze(-2)
            if ctx.needs_input_grad[0]:
                term = _ag.matmul(weighted, mH(X))
                grad_A = term if grad_A is None else grad_A + term
            if ctx.needs_input_grad[1]:
                grad_B = -weighted if grad_B is None else grad_B - weighted
        if grad_A is not None:
            grad_A = grad_A.sum_to_size(tuple(A.shape))
        if grad_B is not None:
            grad_B = (grad_B.squeeze(-1) if ctx.vector else grad_B).sum_to_size(B_shape)
        return grad_A, grad_B, None, None, None


LinalgLstsq._backward_cls.__name__ = "LinalgLstsqBackward0"


def lstsq(A, B, rcond=None, *, driver=None):
    """The least-squares solution of ``A X = B`` and torch's diagnostics for ``driver``."""
    check_matrix(A, "torch.linalg.lstsq", square=False)
    driver = driver or "gelsy"
    if driver not in DRIVERS:
        raise RuntimeError("torch.linalg.lstsq: parameter `driver` should be one of "
                           "(gels, gelsy, gelsd, gelss)")
    vector = B.dim() == A.dim() - 1
    rows = B.shape[-1] if vector else B.shape[-2]
    if rows != A.shape[-2]:
        raise RuntimeError("torch.linalg.lstsq: input.size(-2) should match other.size(-2)")
    return lstsq_result(*LinalgLstsq.apply(A, B, rcond, driver, vector))
