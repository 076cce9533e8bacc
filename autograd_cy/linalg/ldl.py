"""``linalg.ldl_factor_ex``, ``linalg.ldl_factor`` and ``linalg.ldl_solve``: the LDL
factorization ``A = P L D L^T P^T`` (``L^H`` with ``hermitian``) of a symmetric (Hermitian)
matrix, read from its lower triangle, ``D`` block diagonal with 1 x 1 and 2 x 2 blocks.

# NOTE [Bunch-Kaufman pivoting as LAPACK's sytrf]
NumPy has no ``sytrf``, so the factorization is LAPACK's unblocked ``sytf2`` / ``hetf2``
(lower) redone here, matrix by matrix, to give torch's ``LD`` and ``pivots``. At column
``k``, with ``alpha = (1 + sqrt(17)) / 8``, ``colmax`` the largest entry below the
diagonal (row ``imax``) and ``rowmax`` the largest off-diagonal entry of row/column
``imax``: ``|a_kk| >= alpha colmax`` or ``|a_kk| colmax >= alpha colmax^2 / rowmax`` keeps a
1 x 1 pivot in place; ``|a_imax,imax| >= alpha rowmax`` swaps ``imax`` in as a 1 x 1
pivot; otherwise rows ``k+1`` and ``imax`` swap and ``(k, k+1)`` is a 2 x 2 pivot.
Magnitudes are LAPACK's: ``|Re| + |Im|`` for complex entries (BLAS's i*amax), the real
part of a Hermitian diagonal. ``pivots`` are LAPACK's 1-based ``ipiv``: ``p > 0`` for a
1 x 1 block (row ``k`` swapped with ``p``), ``-p`` twice for a 2 x 2 block (row ``k+1``
swapped with ``p``). ``LD`` holds ``L`` below the diagonal and ``D`` on and (2 x 2 blocks)
just below it; its strict upper triangle is zero. A zero column stops nothing: ``info`` is
its 1-based index (the first one), as LAPACK's, and the factorization goes on.
``ldl_solve`` is ``sytrs`` / ``hetrs`` on those factors. As in torch, neither is
differentiable (their node, ``NotImplemented``, raises in backward).

>>> import autograd_cy as ag
>>> A = ag.tensor([[4.0, 2.0], [2.0, 3.0]])
>>> LD, pivots = ag.linalg.ldl_factor(A)
>>> ag.linalg.ldl_solve(LD, pivots, ag.tensor([[6.0], [5.0]]))
tensor([[1.],
        [1.]])
"""
from collections import namedtuple

import numpy as np

import autograd_cy as _ag
from autograd_cy.autograd.function import Function
from autograd_cy.linalg._lapack import array_of, check_matrix, scalar_type, tensor_like

__all__ = ["ldl_factor_ex", "ldl_factor", "ldl_solve"]

ldl_factor_ex_result = namedtuple("linalg_ldl_factor_ex", ["LD", "pivots", "info"])
ldl_factor_result = namedtuple("linalg_ldl_factor", ["LD", "pivots"])

_ALPHA = (1 + np.sqrt(17.0)) / 8


def _size(x):
    """BLAS's magnitude of a pivot candidate: ``|Re| + |Im|`` for complex numbers."""
    return np.abs(x.real) + np.abs(x.imag) if np.iscomplexobj(x) else np.abs(x)


def _sytf2(a, hermitian):
    """LAPACK's lower ``sytf2`` (``hetf2``) of one matrix, in place: ``(ipiv, info)``
    (NOTE [Bunch-Kaufman pivoting as LAPACK's sytrf])."""
    n = a.shape[0]
    herm = hermitian and np.iscomplexobj(a)
    cj = np.conj if herm else (lambda x: x)
    diag_size = (lambda x: abs(x.real)) if herm else _size
    ipiv = np.zeros(n, dtype=np.int32)
    info = 0
    k = 0
    while k < n:
        kstep = 1
        absakk = diag_size(a[k, k])
        if k + 1 < n:
            imax = k + 1 + int(np.argmax(_size(a[k + 1:, k])))
            colmax = _size(a[imax, k])
        else:
            imax, colmax = k, 0.0
        if max(absakk, colmax) == 0 or np.isnan(absakk):
            info = info or k + 1
            kp = k
            if herm:
                a[k, k] = a[k, k].real
        else:
            if absakk >= _ALPHA * colmax:
                kp = k
            else:
                row = _size(a[imax, k:imax])
                rowmax = row.max()
                if imax + 1 < n:
                    rowmax = max(rowmax, _size(a[imax + 1:, imax]).max())
                if absakk >= _ALPHA * colmax * (colmax / rowmax):
                    kp = k
                elif diag_size(a[imax, imax]) >= _ALPHA * rowmax:
                    kp = imax
                else:
                    kp, kstep = imax, 2
            kk = k + kstep - 1
            if kp != kk:
                a[kp + 1:, [kk, kp]] = a[kp + 1:, [kp, kk]]
                between = a[kk + 1:kp, kk].copy()
                a[kk + 1:kp, kk] = cj(a[kp, kk + 1:kp])
                a[kp, kk + 1:kp] = cj(between)
                if herm:
                    a[kp, kk] = np.conj(a[kp, kk])
                a[kk, kk], a[kp, kp] = a[kp, kp], a[kk, kk]
                if kstep == 2:
                    a[k + 1, k], a[kp, k] = a[kp, k], a[k + 1, k]
            if herm:
                a[k, k] = a[k, k].real
                if kstep == 2:
                    a[k + 1, k + 1] = a[k + 1, k + 1].real
            if kstep == 1:
                _eliminate_1x1(a, k, herm)
            else:
                _eliminate_2x2(a, k, herm)
        if kstep == 1:
            ipiv[k] = kp + 1
        else:
            ipiv[k] = ipiv[k + 1] = -(kp + 1)
        k += kstep
    return ipiv, info


def _eliminate_1x1(a, k, herm):
    """The rank-1 update of the trailing lower triangle by the 1 x 1 pivot ``a_kk``."""
    if k + 1 >= len(a):
        return
    d11 = 1 / (a[k, k].real if herm else a[k, k])
    x = a[k + 1:, k].copy()
    update = d11 * np.outer(x, np.conj(x) if herm else x)
    a[k + 1:, k + 1:] -= np.tril(update)
    if herm:
        index = np.arange(k + 1, len(a))
        a[index, index] = a[index, index].real
    a[k + 1:, k] = d11 * x


def _eliminate_2x2(a, k, herm):
    """The rank-2 update of the trailing lower triangle by the 2 x 2 pivot at ``k``."""
    n = len(a)
    if k + 2 >= n:
        return
    if herm:
        d = abs(a[k + 1, k])
        d11 = a[k + 1, k + 1].real / d
        d22 = a[k, k].real / d
        d21 = a[k + 1, k] / d
        d = (1 / (d11 * d22 - 1)) / d
        wk = d * (d11 * a[k + 2:, k] - d21 * a[k + 2:, k + 1])
        wkp1 = d * (d22 * a[k + 2:, k + 1] - np.conj(d21) * a[k + 2:, k])
        update = np.outer(a[k + 2:, k], np.conj(wk)) + np.outer(a[k + 2:, k + 1], np.conj(wkp1))
    else:
        d21 = a[k + 1, k]
        d11 = a[k + 1, k + 1] / d21
        d22 = a[k, k] / d21
        d21 = (1 / (d11 * d22 - 1)) / d21
        wk = d21 * (d11 * a[k + 2:, k] - a[k + 2:, k + 1])
        wkp1 = d21 * (d22 * a[k + 2:, k + 1] - a[k + 2:, k])
        update = np.outer(a[k + 2:, k], wk) + np.outer(a[k + 2:, k + 1], wkp1)
    a[k + 2:, k + 2:] -= np.tril(update)
    if herm:
        index = np.arange(k + 2, n)
        a[index, index] = a[index, index].real
    a[k + 2:, k] = wk
    a[k + 2:, k + 1] = wkp1


def _sytrs(ld, ipiv, b, hermitian):
    """LAPACK's lower ``sytrs`` (``hetrs``): ``A^{-1} b`` from one matrix's factors."""
    herm = hermitian and np.iscomplexobj(ld)
    cj = np.conj if herm else (lambda x: x)
    n = len(ld)
    b = b.copy()
    k = 0
    while k < n:                                    # L D y = P^T b
        if ipiv[k] > 0:
            kp = ipiv[k] - 1
            b[[k, kp]] = b[[kp, k]]
            b[k + 1:] -= np.outer(ld[k + 1:, k], b[k])
            b[k] /= ld[k, k].real if herm else ld[k, k]
            k += 1
        else:
            kp = -ipiv[k + 1] - 1
            b[[k + 1, kp]] = b[[kp, k + 1]]
            b[k + 2:] -= np.outer(ld[k + 2:, k], b[k]) + np.outer(ld[k + 2:, k + 1], b[k + 1])
            akm1k = ld[k + 1, k]
            akm1 = ld[k, k] / cj(akm1k)
            ak = ld[k + 1, k + 1] / akm1k
            denom = akm1 * ak - 1
            bkm1, bk = b[k] / cj(akm1k), b[k + 1] / akm1k
            b[k], b[k + 1] = (ak * bkm1 - bk) / denom, (akm1 * bk - bkm1) / denom
            k += 2
    k = n - 1
    while k >= 0:                                   # L^T P^T x = y
        if ipiv[k] > 0:
            b[k] -= cj(ld[k + 1:, k]) @ b[k + 1:]
            kp = ipiv[k] - 1
            b[[k, kp]] = b[[kp, k]]
            k -= 1
        else:
            b[k] -= cj(ld[k + 1:, k]) @ b[k + 1:]
            b[k - 1] -= cj(ld[k + 1:, k - 1]) @ b[k + 1:]
            kp = -ipiv[k] - 1
            b[[k, kp]] = b[[kp, k]]
            k -= 2
    return b


class LinalgLdlFactorEx(Function):
    """``ldl_factor_ex``'s op; torch has no derivative for it."""
    builtin_op = True

    @staticmethod
    def forward(ctx, A, hermitian):
        a = array_of(A)
        n = a.shape[-1]
        flat = np.tril(a.reshape((int(np.prod(a.shape[:-2])), n, n)))
        pivots = np.zeros(flat.shape[:2], dtype=np.int32)
        info = np.zeros(flat.shape[0], dtype=np.int32)
        for i, matrix in enumerate(flat):
            pivots[i], info[i] = _sytf2(matrix, hermitian)
        LD = tensor_like(np.tril(flat).reshape(a.shape), A)
        pivots = tensor_like(pivots.reshape(a.shape[:-1]), A)
        info = tensor_like(info.reshape(a.shape[:-2]), A)
        ctx.mark_non_differentiable(pivots, info)
        return LD, pivots, info

    @staticmethod
    def backward(ctx, gLD, gpivots, ginfo):
        raise RuntimeError("derivative for aten::linalg_ldl_factor_ex is not implemented")


LinalgLdlFactorEx._backward_cls.__name__ = "NotImplemented"


class LinalgLdlSolve(Function):
    """``ldl_solve``'s op; torch has no derivative for it."""
    builtin_op = True

    @staticmethod
    def forward(ctx, LD, pivots, B, hermitian):
        ld, piv, b = array_of(LD), array_of(pivots), array_of(B)
        n = ld.shape[-1]
        batch = np.broadcast_shapes(ld.shape[:-2], b.shape[:-2])
        count = int(np.prod(batch))
        ld = np.broadcast_to(ld, batch + (n, n)).reshape((count, n, n))
        piv = np.broadcast_to(piv, batch + (n,)).reshape((count, n))
        b = np.broadcast_to(b, batch + b.shape[-2:]).reshape((count,) + b.shape[-2:])
        out = np.empty(b.shape, dtype=np.result_type(ld, b))
        for i in range(len(b)):
            out[i] = _sytrs(ld[i], piv[i], b[i], hermitian)
        return tensor_like(out.reshape(batch + b.shape[-2:]), B)

    @staticmethod
    def backward(ctx, grad):
        raise RuntimeError("derivative for aten::linalg_ldl_solve is not implemented")


LinalgLdlSolve._backward_cls.__name__ = "NotImplemented"


def ldl_factor_ex(A, *, hermitian=False, check_errors=False, out=None):
    """``(LD, pivots, info)``: the LDL factorization of each matrix of ``A`` (its lower
    triangle), pivots and ``info`` as LAPACK's sytrf gives them (NOTE [Bunch-Kaufman
    pivoting as LAPACK's sytrf])."""
    check_matrix(A, "torch.linalg.ldl_factor_ex")
    result = ldl_factor_ex_result(*LinalgLdlFactorEx.apply(A, hermitian))
    if check_errors and result.info.any():
        _raise_singular("torch.linalg.ldl_factor_ex", result.info)
    if out is not None:
        for target, value in zip(out, result):
            target.resize_(value.shape).copy_(value)
        return ldl_factor_ex_result(*out)
    return result


def ldl_factor(A, *, hermitian=False, out=None):
    """``(LD, pivots)`` of ``ldl_factor_ex``; a zero pivot raises, as in torch."""
    check_matrix(A, "torch.linalg.ldl_factor_ex")
    LD, pivots, info = LinalgLdlFactorEx.apply(A, hermitian)
    if info.any():
        _raise_singular("torch.linalg.ldl_factor", info)
    if out is not None:
        for target, value in zip(out, (LD, pivots)):
            target.resize_(value.shape).copy_(value)
        return ldl_factor_result(*out)
    return ldl_factor_result(LD, pivots)


def _raise_singular(name, info):
    """torch's error for a zero pivot (its words for LAPACK's positive info)."""
    first = int(array_of(info).reshape(-1)[np.flatnonzero(array_of(info).reshape(-1))[0]])
    raise RuntimeError(f"{name}: Unknown error code: {first}. (D[{first},{first}] is exactly "
                       "zero: the matrix is singular)")


def ldl_solve(LD, pivots, B, *, hermitian=False, out=None):
    """``X`` with ``A X = B``, ``(LD, pivots)`` being ``ldl_factor(A)``; batch dims broadcast
    between ``LD`` and ``B``."""
    name = "torch.linalg.ldl_solve"
    check_matrix(LD, name)
    if B.dim() < 2:
        raise IndexError(f"Dimension out of range (expected to be in range of [-{B.dim()}, "
                         f"{B.dim() - 1}], but got -2)")
    if pivots.dtype.is_floating_point or pivots.dtype.is_complex or pivots.dtype == _ag.bool:
        raise RuntimeError(f"{name}: Expected pivots to be integers. Got "
                           f"{scalar_type(pivots.dtype)}")
    if tuple(pivots.shape) != tuple(LD.shape[:-1]):
        raise RuntimeError(f"{name}: Expected LD.shape[:-1] and pivots.shape to be the same, "
                           f"but got pivots with shape {list(pivots.shape)} instead")
    if B.dtype != LD.dtype:
        raise RuntimeError(f"Expected b and A to have the same dtype, but found b of type "
                           f"{scalar_type(B.dtype)} and A of type {scalar_type(LD.dtype)} "
                           "instead.")
    if B.shape[-2] != LD.shape[-1]:
        raise RuntimeError(f"Incompatible matrix sizes for {name}: each A matrix is "
                           f"{LD.shape[-2]} by {LD.shape[-1]} but each b matrix is "
                           f"{B.shape[-2]} by {B.shape[-1]}")
    result = LinalgLdlSolve.apply(LD, pivots, B, hermitian)
    if out is not None:
        return out.resize_(result.shape).copy_(result)
    return result
