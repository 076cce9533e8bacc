"""``linalg.inv`` / ``inv_ex`` and ``linalg.solve`` / ``solve_ex``: ``A^{-1}`` and
``A^{-1} B`` (``B A^{-1}`` with ``left=False``), on NumPy's LAPACK (NOTE [Linear algebra
on the CPU's LAPACK]).

With ``X = A^{-1}`` the differential is ``dX = -X dA X``, so the gradients are

    inv:    gA = -X^H g X^H
    solve:  gB = A^{-H} g (a solve with A^H),  gA = -gB X^H       (left)
            gB = g A^{-H},                     gA = -X^H gB       (left=False)

(``^H``: conjugate transpose; for complex tensors these are torch's conjugate gradients,
NOTE [Complex gradients]). Each op's node is named as torch's: ``LinalgInvExBackward0``,
``LinalgSolveExBackward0``.

>>> import autograd_cy as ag
>>> ag.linalg.inv(ag.tensor([[2.0, 0.0], [0.0, 4.0]]))
tensor([[0.5000, 0.0000],
        [0.0000, 0.2500]])
"""
from collections import namedtuple

import numpy as np

import autograd_cy as _ag
from autograd_cy.autograd.function import Function
from autograd_cy.linalg._lapack import (
    LinAlgError, array_of, batch_prefix, check_matrix, column_major_like, mH, scalar_type,
    singular_pivots, tensor_like,
)

__all__ = ["inv", "inv_ex", "solve", "solve_ex", "inverse"]

inv_ex_result = namedtuple("linalg_inv_ex", ["inverse", "info"])
solve_ex_result = namedtuple("linalg_solve_ex", ["result", "info"])


def _inverse_arrays(a):
    """``(inverse, info)`` of each matrix of ``a``: info 0 where it is invertible, else
    LAPACK's first zero pivot (its inverse is then NaN)."""
    try:
        return np.linalg.inv(a), np.zeros(a.shape[:-2], dtype=np.int32)
    except np.linalg.LinAlgError:
        info = singular_pivots(a)
        out = np.full(a.shape, np.nan, dtype=a.dtype).reshape((-1,) + a.shape[-2:])
        flat = a.reshape(out.shape)
        for index in np.flatnonzero(info == 0):
            out[index] = np.linalg.inv(flat[index])
        return out.reshape(a.shape), info.reshape(a.shape[:-2])


def _raise_singular(info, name, batched):
    """torch's error for the first singular matrix of a batch."""
    index = int(np.flatnonzero(info.reshape(-1))[0])
    raise LinAlgError(
        f"{name}: {batch_prefix(index, batched)}The diagonal element "
        f"{int(info.reshape(-1)[index])} is zero, the inversion could not be completed "
        "because the input matrix is singular.")


class LinalgInvEx(Function):
    """``inv_ex``'s op: the inverse, and LAPACK's info (not differentiable)."""
    builtin_op = True

    @staticmethod
    def forward(ctx, A, check_errors):
        inverse, info = _inverse_arrays(array_of(A))
        if check_errors and info.any():
            _raise_singular(info, "linalg.inv_ex", A.dim() > 2)
        out = column_major_like(inverse, A)
        info = tensor_like(info, A)
        ctx.mark_non_differentiable(info)
        ctx.save_for_backward(out)
        ctx.save_for_forward(out)
        return out, info

    @staticmethod
    def backward(ctx, grad, grad_info):
        (inverse,) = ctx.saved_tensors
        inverse_h = mH(inverse)
        return -_ag.matmul(inverse_h, _ag.matmul(grad, inverse_h)), None

    @staticmethod
    def jvp(ctx, A_t, check_errors_t):
        (inverse,) = ctx.saved_tensors
        return -_ag.matmul(inverse, _ag.matmul(A_t, inverse)), None


LinalgInvEx._backward_cls.__name__ = "LinalgInvExBackward0"


def inv_ex(A, *, check_errors=False):
    """The inverse of each square matrix of ``A``, with ``info`` (int32): 0 where the
    matrix is invertible, else the first zero pivot of its LU factorization."""
    check_matrix(A, "linalg.inv_ex")
    return inv_ex_result(*LinalgInvEx.apply(A, check_errors))


def inv(A):
    """The inverse of each square matrix of ``A``; a singular one raises ``LinAlgError``."""
    check_matrix(A, "linalg.inv")
    inverse, info = LinalgInvEx.apply(A, False)
    if info.any():
        _raise_singular(array_of(info), "linalg.inv", A.dim() > 2)
    return inverse


def inverse(input):
    """``torch.inverse``: ``linalg.inv``."""
    return inv(input)


# ------------------------------------------------------------------ solve

def _vector_case(A, B):
    """torch's rule: ``B`` is a (batch of) vector(s) when it is 1-D, or has one dim less
    than ``A`` and ``A``'s leading shape."""
    return B.dim() == 1 or (B.dim() == A.dim() - 1 and tuple(B.shape) == tuple(A.shape[:-1]))


class LinalgSolveEx(Function):
    """``solve_ex``'s op on matrices: ``X = A^{-1} B`` (``B A^{-1}`` unless ``left``)."""
    builtin_op = True

    @staticmethod
    def forward(ctx, A, B, left, check_errors, vector):
        a, b = array_of(A), array_of(B)
        axis = -1                            # a vector B is a column, as in torch
        if vector:
            b = np.expand_dims(b, axis)
        dtype = np.result_type(a, b)
        a, b = a.astype(dtype, copy=False), b.astype(dtype, copy=False)
        if not left:                   # X A = B  <=>  A^T X^T = B^T
            a, b = np.swapaxes(a, -1, -2), np.swapaxes(b, -1, -2)
        batch = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
        a = np.broadcast_to(a, batch + a.shape[-2:])
        b = np.broadcast_to(b, batch + b.shape[-2:])
        info = np.zeros(batch, dtype=np.int32)
        try:
            x = np.linalg.solve(a, b)
        except np.linalg.LinAlgError:
            info = singular_pivots(a).reshape(batch)
            x = np.full(b.shape, np.nan, dtype=dtype)
            for index in np.ndindex(*batch):
                if info[index] == 0:
                    x[index] = np.linalg.solve(a[index], b[index])
        if check_errors and info.any():
            raise LinAlgError("torch.linalg.solve_ex: The solver failed because the input "
                              "matrix is singular.")
        if not left:
            x = np.swapaxes(x, -1, -2)
        out = tensor_like(np.squeeze(x, axis) if vector else x, A)
        info = tensor_like(info, A)
        ctx.mark_non_differentiable(info)
        ctx.save_for_backward(A, out)
        ctx.save_for_forward(A, out)
        ctx.left, ctx.axis, ctx.vector = left, axis, vector
        ctx.shapes = (tuple(A.shape), tuple(B.shape))
        return out, info

    @staticmethod
    def backward(ctx, grad, grad_info):
        A, X = ctx.saved_tensors
        A_shape, B_shape = ctx.shapes
        if ctx.vector:
            grad, X = grad.unsqueeze(ctx.axis), X.unsqueeze(ctx.axis)
        grad_A = grad_B = None
        gB = solve(mH(A), grad, left=ctx.left)
        if ctx.needs_input_grad[0]:
            grad_A = -(_ag.matmul(gB, mH(X)) if ctx.left else _ag.matmul(mH(X), gB))
            grad_A = grad_A.sum_to_size(A_shape)
        if ctx.needs_input_grad[1]:
            grad_B = (gB.squeeze(ctx.axis) if ctx.vector else gB).sum_to_size(B_shape)
        return grad_A, grad_B, None, None, None

    @staticmethod
    def jvp(ctx, A_t, B_t, left_t, check_errors_t, vector_t):
        A, X = ctx.saved_tensors
        # dX = A^{-1} (dB - dA X)   (left),   dX = (dB - X dA) A^{-1}   (right)
        if ctx.vector:
            X = X.unsqueeze(ctx.axis)
            B_t = None if B_t is None else B_t.unsqueeze(ctx.axis)
        rhs = B_t if B_t is not None else _ag.zeros_like(X)
        if A_t is not None:
            rhs = rhs - (_ag.matmul(A_t, X) if ctx.left else _ag.matmul(X, A_t))
        X_t = solve(A, rhs, left=ctx.left)
        return (X_t.squeeze(ctx.axis) if ctx.vector else X_t), None


LinalgSolveEx._backward_cls.__name__ = "LinalgSolveExBackward0"


def _check_same_dtype(A, B, name):
    if A.dtype != B.dtype:
        raise RuntimeError(f"{name}: Expected A and B to have the same dtype, but found "
                           f"A of type {scalar_type(A.dtype)} and B of type {scalar_type(B.dtype)} "
                           "instead")


def _check_solve(A, B, left, name):
    try:
        check_matrix(A, name)
    except NotImplementedError:     # the kernel's refusal of a dtype comes after this check
        _check_same_dtype(A, B, name)
        raise
    _check_same_dtype(A, B, name)
    vector = _vector_case(A, B)
    B_shape = tuple(B.shape) + (1,) if vector else tuple(B.shape)   # a vector is a column
    if B_shape[-2 if left else -1] != A.shape[-1]:
        raise RuntimeError(f"{name}: Incompatible shapes of A and B for the equation "
                           f"{'AX = B' if left else 'XA = B'} ({_dims(A.shape)} and "
                           f"{_dims(B_shape)})")
    return vector


def _dims(shape):
    return "x".join(str(s) for s in shape)


def solve_ex(A, B, *, left=True, check_errors=False):
    """``X`` with ``A X = B`` (``X A = B`` when not ``left``) for square ``A``, batched and
    broadcast, and LAPACK's ``info``; ``B`` may be a (batch of) vector(s)."""
    vector = _check_solve(A, B, left, "linalg.solve_ex")
    return solve_ex_result(*LinalgSolveEx.apply(A, B, left, check_errors, vector))


def solve(A, B, *, left=True):
    """``A^{-1} B`` (``B A^{-1}`` when not ``left``); a singular ``A`` raises
    ``LinAlgError``."""
    vector = _check_solve(A, B, left, "linalg.solve")
    X, info = LinalgSolveEx.apply(A, B, left, False, vector)
    if info.any():
        raise LinAlgError("torch.linalg.solve: The solver failed because the input matrix "
                          "is singular.")
    return X
