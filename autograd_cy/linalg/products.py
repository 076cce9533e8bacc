"""The linalg ops that torch composes from others: ``vecdot``, ``multi_dot``,
``diagonal``, ``matrix_power`` and ``matrix_rank``. Each is built from the package's ops,
so its graph is torch's (``matrix_power(A, 3)`` is two ``MmBackward0``; a negative power
goes through ``linalg.inv``).

>>> import autograd_cy as ag
>>> ag.linalg.matrix_power(ag.tensor([[1.0, 1.0], [0.0, 1.0]]), 3)
tensor([[1., 3.],
        [0., 1.]])
"""
import numpy as np

import autograd_cy as _ag
from autograd_cy.linalg._lapack import array_of, check_matrix, tensor_like
from autograd_cy.linalg.inverse import inv
from autograd_cy.linalg.pinv import cutoff, tolerances

__all__ = ["vecdot", "multi_dot", "diagonal", "matrix_power", "matrix_rank"]


def vecdot(x, y, *, dim=-1):
    """``sum(conj(x) * y)`` along ``dim``, broadcast."""
    return (x.conj() * y).sum(dim)


def multi_dot(tensors):
    """The product of a chain of matrices (the first and last may be vectors) by ``mm``, in
    torch's order (the cheapest, by its count of multiplications), viewed to the result's
    shape."""
    if len(tensors) < 2:
        raise RuntimeError("multi_dot(): expected at least 2 tensors but got "
                           f"{len(tensors)}")
    last = len(tensors) - 1
    for i, tensor in enumerate(tensors):       # torch's checks, in its order
        if i == 0 and tensor.dim() not in (1, 2):
            raise RuntimeError("multi_dot(): the first tensor must be 1D or 2D but got "
                               f"{tensor.dim()}D")
        if i == last and tensor.dim() not in (1, 2):
            raise RuntimeError("multi_dot(): the last tensor must be 1D or 2D but got "
                               f"{tensor.dim()}D")
        if 0 < i < last and tensor.dim() != 2:
            raise RuntimeError(f"multi_dot(): tensor {i} must be 2D but got {tensor.dim()}D")
        if tensor.dtype != tensors[0].dtype:
            raise RuntimeError("multi_dot(): all tensors must have be the same dtype but tensor "
                               f"0 is {_type_name(tensors[0].dtype)} and tensor {i} "
                               f"{_type_name(tensor.dtype)}")
    shape = [n for n in (tensors[0].shape[0] if tensors[0].dim() == 2 else None,
                         tensors[-1].shape[-1] if tensors[-1].dim() == 2 else None)
             if n is not None]
    matrices = list(tensors)
    if matrices[0].dim() == 1:
        matrices[0] = matrices[0].unsqueeze(0)
    if matrices[-1].dim() == 1:
        matrices[-1] = matrices[-1].unsqueeze(-1)
    for i in range(1, len(matrices)):
        if matrices[i - 1].shape[-1] != matrices[i].shape[0]:
            raise RuntimeError(f"multi_dot(): tensors {i - 1} and {i} with shapes "
                               f"{list(tensors[i - 1].shape)} and {list(tensors[i].shape)} "
                               "cannot be multiplied")
    return _chain(matrices, _chain_order(matrices), 0, len(matrices) - 1).view(shape)


def _chain_order(matrices):
    """torch's order of the products: for three matrices (a x b)(b x c)(c x d), ``A(BC)``
    when ``ac(b + d) > bd(a + c)``; for more, the cheapest split of each sub-chain by
    dynamic programming, the first of equal costs. ``split[i][j]``: the last matrix of the
    left factor of ``i .. j``."""
    n = len(matrices)
    split = [[i] * n for i in range(n)]
    if n == 3:
        a, b = matrices[0].shape
        c, d = matrices[2].shape
        split[0][2] = 0 if a * c * (b + d) > b * d * (a + c) else 1
        split[1][2] = 1
        split[0][1] = 0
        return split
    dims = [m.shape[0] for m in matrices] + [matrices[-1].shape[1]]
    cost = [[0] * n for _ in range(n)]
    for length in range(1, n):
        for i in range(n - length):
            j = i + length
            cost[i][j] = None
            for k in range(i, j):
                q = cost[i][k] + cost[k + 1][j] + dims[i] * dims[k + 1] * dims[j + 1]
                if cost[i][j] is None or q < cost[i][j]:
                    cost[i][j], split[i][j] = q, k
    return split


def _chain(matrices, split, i, j):
    """The product of ``matrices[i .. j]`` in the order ``split`` gives, by ``mm``."""
    if i == j:
        return matrices[i]
    k = split[i][j]
    return _ag.mm(_chain(matrices, split, i, k), _chain(matrices, split, k + 1, j))


def _type_name(dtype):
    """The C++ type's name, as torch's multi_dot message says it."""
    name = str(dtype).split(".")[-1]
    return {"float32": "float", "float64": "double", "float16": "c10::Half",
            "bfloat16": "c10::BFloat16", "complex64": "c10::complex<float>",
            "complex128": "c10::complex<double>", "int64": "long int", "int32": "int",
            "int16": "short int", "int8": "signed char", "uint8": "unsigned char"}.get(name, name)


def diagonal(A, *, offset=0, dim1=-2, dim2=-1):
    """The ``offset``-th diagonal of the matrices of ``A`` (a view), by default of its last
    two dims."""
    return _ag.diagonal(A, offset, dim1, dim2)


def matrix_power(A, n):
    """``A^n`` for an integer ``n``: repeated squaring; ``A^0`` the identity, a negative
    ``n`` a power of ``linalg.inv(A)``."""
    if A.dim() < 2 or A.shape[-1] != A.shape[-2]:
        raise RuntimeError("linalg.matrix_power: A must be batches of square matrices, but "
                           f"they are {A.shape[-2] if A.dim() > 1 else 1} by "
                           f"{A.shape[-1]} matrices")
    if n == 0:     # torch's: the identity copied into a clone (a zero gradient, not none)
        eye = _ag.eye(A.shape[-1], dtype=A.dtype, device=A.device)
        return A.clone().copy_(eye.expand(A.shape))
    if n < 0:
        A, n = inv(A), -n
    if n == 1:
        return A.clone()
    result, power = None, A
    while n:
        if n & 1:
            result = power if result is None else _ag.matmul(power, result)
        n >>= 1
        if n:
            power = _ag.matmul(power, power)
    return result


def matrix_rank(A, tol=None, hermitian=False, *, atol=None, rtol=None):
    """The number of singular values (absolute eigenvalues of the lower triangle, for a
    ``hermitian`` ``A``) above ``max(atol, rtol * S_max)`` per matrix (int64); ``atol`` and
    ``rtol`` numbers or tensors, as ``linalg.pinv``'s; ``tol`` is torch's older ``atol``
    (with ``rtol`` 0); a matrix with no elements has rank 0."""
    check_matrix(A, "linalg.matrix_rank", square=False)
    if tol is not None:
        atol, rtol = tol, 0.0
    atol, rtol = tolerances(A, atol, rtol, "torch.linalg.matrix_rank")
    batch = tuple(A.shape[:-2])
    if A.numel() == 0:
        return _ag.zeros(batch, dtype=_ag.int64, device=A.device)
    a = array_of(A)
    if hermitian:
        S = np.abs(np.linalg.eigvalsh(a, UPLO="L"))
        largest = S.max(-1, keepdims=True)
    else:
        S = np.linalg.svd(a, compute_uv=False)
        largest = S[..., :1]
    rank = (S > cutoff(atol, rtol, largest)).sum(-1).astype(np.int64)
    return tensor_like(rank, A)
