"""``linalg.tensorinv``, ``linalg.tensorsolve``, ``linalg.vander`` and ``linalg.cond``:
composites of the package's ops, as torch composes them, so their gradients and double
backward are those ops'.

- ``tensorinv(A, ind)``: ``A`` read as a square matrix (its first ``ind`` dims the rows,
  the rest the columns), inverted, and read back with the two groups of dims swapped.
- ``tensorsolve(A, B, dims)``: ``X`` with ``tensordot(A, X, X.ndim) = B``, one ``solve`` of
  ``A`` read as a matrix (``dims`` of ``A`` first moved to the end).
- ``vander(x, N)``: the columns ``x^0, x^1 ... x^(N-1)``, a ``cumprod`` after a column of
  ones (integers stay integers).
- ``cond(A, p)``: the ratio of the extreme singular values for ``p`` in (None, 2, -2);
  ``norm(A, p) * norm(inv(A), p)`` for the other norms, inf for a singular matrix.

>>> import autograd_cy as ag
>>> ag.linalg.vander(ag.tensor([1, 2, 3]))
tensor([[1, 1, 1],
        [1, 2, 4],
        [1, 3, 9]])
"""
import math

import autograd_cy as _ag
from autograd_cy.linalg.inverse import inv, inv_ex, solve
from autograd_cy.linalg.norms import matrix_norm
from autograd_cy.linalg.svd import svdvals

__all__ = ["tensorinv", "tensorsolve", "vander", "cond"]


def _check_products(rows, columns, what):
    if rows != columns:
        raise RuntimeError(f"Expected self to satisfy the requirement prod(self.shape[{what}:]) "
                           f"== prod(self.shape[:{what}]), but got {columns} != {rows}")


def tensorinv(A, ind=2, *, out=None):
    """The inverse of ``A`` for ``tensordot`` over ``ind`` dims."""
    if ind <= 0:
        raise RuntimeError(f"Expected a strictly positive integer for 'ind', but got {ind}")
    rows_shape, columns_shape = tuple(A.shape[:ind]), tuple(A.shape[ind:])
    rows, columns = math.prod(rows_shape), math.prod(columns_shape)
    _check_products(rows, columns, "ind")
    result = inv(A.reshape(rows, columns)).reshape(columns_shape + rows_shape)
    return result if out is None else out.copy_(result)


def tensorsolve(A, B, dims=None, *, out=None):
    """``X`` such that ``tensordot(A, X, dims=X.ndim) == B``."""
    if dims is not None:
        moved = [d % A.dim() for d in dims]
        A = A.permute([d for d in range(A.dim()) if d not in moved] + moved)
    rows = math.prod(tuple(A.shape[:B.dim()]))
    solution_shape = tuple(A.shape[B.dim():])
    columns = math.prod(solution_shape)
    _check_products(rows, columns, "other.ndim")
    result = solve(A.reshape(rows, columns), B.reshape(rows)).reshape(solution_shape)
    return result if out is None else out.copy_(result)


def vander(x, *, N=None):
    """The Vandermonde matrix of ``x`` (batched over its leading dims): powers 0 .. N-1."""
    if x.dtype in (_ag.bool, _ag.float16, _ag.bfloat16):
        raise RuntimeError("linalg.vander supports floating point, complex, and integer "
                           f"tensors, but got {x.dtype._scalar_name}")
    count = x.shape[-1] if x.dim() else 1
    N = count if N is None else N
    if N <= 1:
        raise RuntimeError("N must be greater than 1.")
    if x.dim() == 0:
        x = x.reshape(1)
    powers = x.unsqueeze(-1).expand(*x.shape, N - 1).cumprod(-1)
    ones = _ag.ones(*x.shape, 1, dtype=powers.dtype, device=x.device)
    return _ag.cat([ones, powers], -1)


_SINGULAR_VALUE_ORDERS = (None, 2, -2)
_NORM_ORDERS = ("fro", "nuc", 1, -1, math.inf, -math.inf)


def cond(A, p=None, *, out=None):
    """The condition number of each matrix of ``A`` in the ``p`` norm (a real tensor)."""
    if p not in _SINGULAR_VALUE_ORDERS and p not in _NORM_ORDERS:
        raise RuntimeError(f"linalg.cond got an invalid norm type: {p}")
    if p in _SINGULAR_VALUE_ORDERS:
        values = svdvals(A)
        largest, smallest = values[..., 0], values[..., -1]
        result = smallest / largest if p == -2 else largest / smallest
    else:
        if A.shape[-1] != A.shape[-2]:
            raise RuntimeError(f"linalg.cond(ord={p}): A must be batches of square matrices, "
                               f"but they are {A.shape[-2]} by {A.shape[-1]} matrices")
        inverse, info = inv_ex(A)
        result = matrix_norm(A, p) * matrix_norm(inverse, p)
        result = result.masked_fill(info > 0, math.inf)
    return result if out is None else out.copy_(result)
