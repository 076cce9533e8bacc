"""``linalg.solve_triangular``: ``X = A^{-1} B`` (``B A^{-1}`` unless ``left``) for
triangular ``A``: only its ``upper`` (or lower) triangle is read, and with
``unitriangular`` its diagonal is taken to be ones. The forward solves with NumPy's
LAPACK (NOTE [Linear algebra on the CPU's LAPACK]) when the triangle is finite with no zero
on its diagonal; otherwise it substitutes row by row, as BLAS ``trsm`` (torch's kernel)
does: an exactly singular triangle gives torch's infinities (``b / 0``) and the NaNs they
make further on (``inf * 0``, ``inf - inf``), where the LAPACK solve refuses the matrix.

The gradient is ``solve``'s, kept to the triangle that was read (torch's
``LinalgSolveTriangularBackward0``):

    gB = solve_triangular(A^H, g) (the other triangle),   gA = -gB X^H  (left)
    gB = g A^{-H},                                         gA = -X^H gB  (left=False)
    gA = triu(gA) (upper) or tril(gA), without the diagonal when unitriangular

>>> import autograd_cy as ag
>>> ag.linalg.solve_triangular(ag.tensor([[2.0, 1.0], [0.0, 4.0]]), ag.ones(2, 1), upper=True)
tensor([[0.3750],
        [0.2500]])
"""
import numpy as np

import autograd_cy as _ag
from autograd_cy.autograd.function import Function
from autograd_cy.linalg._lapack import array_of, check_matrix, mH, tensor_like

__all__ = ["solve_triangular"]


def _triangle(a, upper, unitriangular):
    """The triangle of the array ``a`` that is read, its diagonal ones if unitriangular."""
    out = np.triu(a) if upper else np.tril(a)
    if unitriangular:
        index = np.arange(a.shape[-1])
        out[..., index, index] = 1
    return out


def _substitute(a, b, upper):
    """``x`` with ``a x = b`` for the triangular (batch of) ``a``: forward substitution
    (backward when ``upper``), one row at a time over the whole batch; the products are
    summed elementwise, so that ``inf * 0`` is NaN as in ``trsm`` (a BLAS ``gemv`` may skip
    zeros). A complex ``s / 0`` is NaN in both parts as in ``ztrsm`` (NumPy's is ``inf``
    in one)."""
    n = a.shape[-1]
    x = np.empty(b.shape, dtype=np.result_type(a, b))
    complex_zero = x.dtype.kind == "c" and not np.all(np.diagonal(a, axis1=-2, axis2=-1))
    for i in (range(n - 1, -1, -1) if upper else range(n)):
        done = slice(i + 1, n) if upper else slice(0, i)
        s = b[..., i, :] - (a[..., i, done, None] * x[..., done, :]).sum(-2)
        d = a[..., i, i, None]
        x[..., i, :] = np.where(d == 0, complex(np.nan, np.nan), s / d) if complex_zero else s / d
    return x


def _keep_triangle(gA, upper, unitriangular):
    return gA.triu(int(unitriangular)) if upper else gA.tril(-int(unitriangular))


class LinalgSolveTriangular(Function):
    """``solve_triangular``'s op."""
    builtin_op = True

    @staticmethod
    def forward(ctx, A, B, upper, left, unitriangular):
        a = _triangle(array_of(A), upper, unitriangular)
        b = array_of(B).astype(a.dtype, copy=False)     # the result is of A's dtype, as torch's
        if not left:                                 # X A = B  <=>  A^T X^T = B^T
            a, b = np.swapaxes(a, -1, -2), np.swapaxes(b, -1, -2)
        batch = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
        a = np.broadcast_to(a, batch + a.shape[-2:])
        b = np.broadcast_to(b, batch + b.shape[-2:])
        with np.errstate(all="ignore"):
            regular = (np.isfinite(a).all() and np.isfinite(b).all()
                       and np.diagonal(a, axis1=-2, axis2=-1).all())
            x = np.linalg.solve(a, b) if regular else _substitute(a, b, upper if left else
                                                                  not upper)
        if not left:
            x = np.swapaxes(x, -1, -2)
        out = tensor_like(x, A)
        ctx.save_for_backward(A, out)
        ctx.save_for_forward(A, out)
        ctx.options = (upper, left, unitriangular)
        ctx.shapes = (tuple(A.shape), tuple(B.shape))
        return out

    @staticmethod
    def backward(ctx, grad):
        A, X = ctx.saved_tensors
        upper, left, unitriangular = ctx.options
        gB = solve_triangular(mH(A), grad, upper=not upper, left=left,
                              unitriangular=unitriangular)
        grad_A = grad_B = None
        if ctx.needs_input_grad[0]:
            grad_A = -(_ag.matmul(gB, mH(X)) if left else _ag.matmul(mH(X), gB))
            grad_A = _keep_triangle(grad_A, upper, unitriangular).sum_to_size(ctx.shapes[0])
        if ctx.needs_input_grad[1]:
            grad_B = gB.sum_to_size(ctx.shapes[1])
        return grad_A, grad_B, None, None, None

    @staticmethod
    def jvp(ctx, A_t, B_t, upper_t, left_t, unitriangular_t):
        A, X = ctx.saved_tensors
        upper, left, unitriangular = ctx.options
        rhs = B_t if B_t is not None else _ag.zeros_like(X)
        if A_t is not None:
            A_t = _keep_triangle(A_t, upper, unitriangular)
            rhs = rhs - (_ag.matmul(A_t, X) if left else _ag.matmul(X, A_t))
        return solve_triangular(A, rhs, upper=upper, left=left, unitriangular=unitriangular)


LinalgSolveTriangular._backward_cls.__name__ = "LinalgSolveTriangularBackward0"


def solve_triangular(A, B, *, upper, left=True, unitriangular=False):
    """``X`` with ``A X = B`` (``X A = B`` when not ``left``) for the triangle of ``A`` that
    ``upper`` names, batched and broadcast; ``B`` a (batch of) matrix."""
    name = "linalg.solve_triangular"
    check_matrix(A, name)
    if B.dim() < 2:
        raise RuntimeError(f"{name}: The input tensor B must have at least 2 dimensions.")
    if B.shape[-2 if left else -1] != A.shape[-1]:
        raise RuntimeError(
            f"{name}: Incompatible shapes of A and B for the equation "
            f"{'AX = B' if left else 'XA = B'} ({'x'.join(map(str, A.shape))} and "
            f"{'x'.join(map(str, B.shape))})")
    return LinalgSolveTriangular.apply(A, B, upper, left, unitriangular)
