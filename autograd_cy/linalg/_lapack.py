"""What every ``linalg`` op shares: the checks of its matrix argument, the trip of the
arrays through NumPy's LAPACK, torch's ``LinAlgError`` and the small matrix helpers the
backward formulas are written with.

# NOTE [Linear algebra on the CPU's LAPACK]
Every factorization runs on NumPy's LAPACK (``numpy.linalg``), batched over the leading
dims. A tensor on the CUDA device is copied to the CPU, factorized there and its results
copied back to its device: the matrices of these ops are small next to the products
around them, and torch's CUDA build does the same for small matrices (its MAGMA paths
factorize on the host). The backward formulas are written with Tensor ops (``matmul``,
``linalg.solve`` ...), so they run on the tensor's own device, and ``create_graph=True``
differentiates them again.
"""
import numpy as np

import autograd_cy as _ag

__all__ = ["LinAlgError"]


class LinAlgError(RuntimeError):
    """A matrix that the factorization cannot handle (singular, not positive-definite):
    torch's ``torch.linalg.LinAlgError``, a ``RuntimeError``."""


LinAlgError.__module__ = "autograd_cy.linalg"


def check_matrix(A, name, square=True, arg="A", low_precision=False):
    """torch's checks of a (batch of) matrix argument: at least 2 dims, floating or
    complex (float16 and bfloat16 only where ``low_precision``), and square where
    ``square``."""
    if A.dim() < 2:
        raise RuntimeError(f"{name}: The input tensor {arg} must have at least 2 dimensions.")
    if not (A.dtype.is_floating_point or A.dtype.is_complex):
        raise RuntimeError(f"{name}: Expected a floating point or complex tensor as input. "
                           f"Got {scalar_type(A.dtype)}")
    low = A.dtype in (_ag.float16, _ag.bfloat16) and not low_precision
    kernel = _CPU_KERNELS.get(name) if low and A.device.type == "cpu" else None
    if low and kernel is None:
        raise RuntimeError(f"{name}: Low precision dtypes not supported. "
                           f"Got {scalar_type(A.dtype)}")
    if square and A.shape[-1] != A.shape[-2]:
        raise RuntimeError(f"{name}: {arg} must be batches of square matrices, but they are "
                           f"{A.shape[-2]} by {A.shape[-1]} matrices")
    if kernel is not None:      # the checks pass; torch's CPU kernel has no such dtype
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{scalar_type(A.dtype)}'")


# The LAPACK-backed CPU kernels torch dispatches to (after its own checks), which refuse
# float16 and bfloat16 with a NotImplementedError that names them.
_CPU_KERNELS = {"linalg.det": "lu_cpu", "linalg.solve": "lu_cpu", "linalg.lu_factor": "lu_cpu",
                "linalg.cholesky": "cholesky_cpu", "linalg.eigh": "linalg_eigh_cpu",
                "linalg.eigvalsh": "linalg_eigh_cpu", "linalg.qr": "geqrf_cpu",
                "linalg.svd": "linalg_svd_cpu", "linalg.svdvals": "linalg_svd_cpu",
                "linalg.solve_triangular": "triangular_solve_cpu",
                "linalg.eigvals": "linalg_eig_out_cpu", "linalg.eig": "linalg_eig_out_cpu",
                "linalg.lu": "lu_cpu", "linalg.lu_factor_ex": "lu_cpu",
                "cholesky": "cholesky_cpu", "linalg.cholesky_ex": "cholesky_cpu",
                "cholesky_inverse": "cholesky_inverse_out_cpu",
                "torch.linalg.ldl_factor_ex": "ldl_factor_kernel_cpu"}


def scalar_type(dtype):
    """ATen's name of a dtype in messages: Long, Int, Half, ComplexFloat ..."""
    return {"int64": "Long", "int32": "Int", "int16": "Short", "int8": "Char",
            "uint8": "Byte", "bool": "Bool", "float16": "Half", "bfloat16": "BFloat16",
            "float32": "Float", "float64": "Double", "complex64": "ComplexFloat",
            "complex128": "ComplexDouble"}.get(str(dtype).split(".")[-1], str(dtype))


def array_of(tensor):
    """The tensor's values as a NumPy array on the CPU (NOTE [Linear algebra on the CPU's
    LAPACK]); a conjugate view is resolved."""
    return tensor.detach().cpu().numpy(force=True)


def tensor_like(array, like, dtype=None):
    """``array`` as a new tensor on ``like``'s device (of ``dtype``, else the array's)."""
    array = np.asarray(array, order="C")      # a 0-d result stays 0-d
    if dtype is not None:
        array = array.astype(dtype.numpy, copy=False)
    out = _ag.from_numpy(array)
    return out if like.device.type == "cpu" else out.to(like.device)


def column_major_like(array, like):
    """``array`` as ``tensor_like`` makes it, each matrix laid out column-major (the last
    two dims' strides swapped), as LAPACK writes a result and torch returns it: a
    ``contiguous()`` of it is a copy, and a ``view`` that merges the last two dims fails, as
    torch's."""
    array = np.asarray(array)
    if array.ndim < 2:
        return tensor_like(array, like)
    if like.device.type == "cpu":
        return _ag.from_numpy(np.swapaxes(np.ascontiguousarray(np.swapaxes(array, -1, -2)),
                                          -1, -2))
    # on a device: the transposed matrices copied there, then a clone of their transposed
    # view (a clone keeps a dense layout)
    return tensor_like(np.swapaxes(array, -1, -2), like).mT.clone()


def mH(x):
    """The conjugate transpose of the last two dims (``x.mT`` for a real tensor)."""
    return x.mT.conj() if x.is_complex() else x.mT


def diag_embed(v):
    """Matrices with ``v``'s last dim on their diagonals, as a differentiable product."""
    n = v.shape[-1]
    return v.unsqueeze(-1) * _ag.eye(n, dtype=v.dtype, device=v.device)


def first_zero_pivot(matrix):
    """LAPACK's ``info`` of ``getrf`` for one square matrix: the 1-based index of the first
    exactly zero pivot of its LU factorization with partial pivoting, 0 when none is.

    NumPy reports only "Singular matrix"; torch names the pivot, so the elimination is
    redone here, with LAPACK's choice of pivot (the first largest magnitude), and only
    once a factorization has failed."""
    u = np.array(matrix, dtype=np.complex128 if np.iscomplexobj(matrix) else np.float64)
    n = u.shape[0]
    first = 0
    for k in range(n):
        pivot = k + int(np.argmax(np.abs(u[k:, k])))
        if u[pivot, k] == 0:
            first = first or k + 1
            continue
        u[[k, pivot]] = u[[pivot, k]]
        u[k + 1:, k:] -= np.outer(u[k + 1:, k] / u[k, k], u[k, k:])
    return first


def batch_prefix(flat_index, batched):
    """torch's ``(Batch element i): `` before the message of a batched input's failure."""
    return f"(Batch element {flat_index}): " if batched else ""


def singular_pivots(a):
    """``getrf``'s info of each matrix of ``a`` (any leading dims), flattened: 0 where the
    matrix is invertible, else its first zero pivot (``first_zero_pivot``)."""
    flat = a.reshape((-1,) + a.shape[-2:])
    return np.array([first_zero_pivot(m) for m in flat], dtype=np.int32)


def svd_of_finite(a, full_matrices=True):
    """``np.linalg.svd(a)`` (U, S, Vh) where LAPACK's gesdd cannot hang: a matrix with an
    infinite or NaN entry is decomposed as zeros and gets NaN singular values (torch's
    singular values of such a matrix are NaN; gesdd may loop forever on it)."""
    bad = ~np.isfinite(a).all(axis=(-2, -1))
    if not bad.any():
        return np.linalg.svd(a, full_matrices=full_matrices)
    U, S, Vh = np.linalg.svd(np.where(bad[..., None, None], 0, a), full_matrices=full_matrices)
    S = np.where(bad[..., None], np.nan, S)
    return U, S, Vh
