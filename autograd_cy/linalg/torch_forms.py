"""The linalg ops as torch's own namespace and Tensor spell them: ``torch.det``,
``torch.logdet``, ``torch.slogdet``, ``torch.inverse``, ``torch.cholesky``, ``torch.svd``,
``torch.matrix_exp``, ``torch.matrix_power``, ``torch.qr``,
``torch.pinverse``, ``torch.cholesky_solve``, ``torch.cholesky_inverse``,
``torch.chain_matmul``, the deprecated ``torch.lu``, ``torch.lu_solve``,
``torch.triangular_solve`` and the methods ``A.det()``, ``A.inverse()``, ``A.lu()`` ...

They are ``linalg``'s ops under other names, except ``torch.cholesky``: deprecated in
torch, its node is ``CholeskyBackward0`` (not ``LinalgCholeskyExBackward0``), and it
warns once that ``linalg.cholesky`` replaces it. ``torch.slogdet``'s result is the named
tuple ``slogdet``. ``torch.chain_matmul``, deprecated too, warns that ``linalg.multi_dot``
replaces it and multiplies its matrices left to right (one matrix: a clone).
``torch.lu`` is ``linalg.lu_factor_ex`` (its node ``LinalgLuFactorExBackward0``),
``torch.lu_solve`` is ``linalg.lu_solve`` with ``B`` first, and ``torch.triangular_solve``
returns ``(solution, cloned_coefficient)`` from one node, ``TriangularSolveBackward0``;
each warns that its ``linalg`` form replaces it.
"""
import warnings
from collections import namedtuple

import numpy as np

import autograd_cy as _ag

from autograd_cy._C.dtype import _c10_name
from autograd_cy._C.tensor import _register_methods
from autograd_cy.linalg import cholesky_factor as _cholesky
from autograd_cy.linalg import determinant as _determinant
from autograd_cy.linalg import inverse as _inverse
from autograd_cy.linalg.lu import lu_factor_ex as _lu_factor_ex
from autograd_cy.linalg.lu_solve import lu_solve as _linalg_lu_solve
from autograd_cy.autograd.function import Function
from autograd_cy.linalg._lapack import mH, scalar_type
from autograd_cy.linalg.triangular_solve import solve_triangular
from autograd_cy.linalg._lapack import array_of, check_matrix
from autograd_cy.linalg.svd import torch_svd as svd
from autograd_cy.linalg.matrix_exp import matrix_exp
from autograd_cy.linalg.products import matrix_power
from autograd_cy.linalg.qr import torch_qr as qr
from autograd_cy.linalg.pinv import pinverse
from autograd_cy.linalg.cholesky_solve import cholesky_solve, cholesky_inverse

__all__ = ["det", "logdet", "slogdet", "inverse", "cholesky", "svd", "matrix_exp",
           "matrix_power", "qr", "pinverse", "cholesky_solve", "cholesky_inverse",
           "chain_matmul", "lu", "lu_solve", "triangular_solve"]

slogdet_result = namedtuple("slogdet", ["sign", "logabsdet"])
lu_with_info_result = namedtuple("_lu_with_info", ["LU", "pivots", "info"])
triangular_solve_result = namedtuple("triangular_solve", ["solution", "cloned_coefficient"])

det = _determinant.det
logdet = _determinant.logdet
inverse = _inverse.inverse


def slogdet(input):
    """``torch.slogdet``: ``linalg.slogdet``'s ``(sign, logabsdet)``."""
    return slogdet_result(*_determinant.slogdet(input))


class Cholesky(_cholesky.LinalgCholeskyEx):
    """``torch.cholesky``'s op: ``linalg.cholesky_ex``'s, under torch's older node name."""


Cholesky._backward_cls.__name__ = "CholeskyBackward0"


def cholesky(input, upper=False):
    """``torch.cholesky`` (deprecated in torch): the factor ``L``, or ``U`` with
    ``upper``."""
    warnings.warn(
        "torch.cholesky is deprecated in favor of torch.linalg.cholesky and will be removed "
        "in a future PyTorch release.\nL = torch.cholesky(A)\nshould be replaced with\n"
        "L = torch.linalg.cholesky(A)\nand\nU = torch.cholesky(A, upper=True)\nshould be "
        "replaced with\nU = torch.linalg.cholesky(A).mH\nThis transform will produce "
        "equivalent results for all valid (symmetric positive definite) inputs.",
        UserWarning, stacklevel=2)
    check_matrix(input, "cholesky")
    L, info = Cholesky.apply(input, upper, False)
    if info.any():
        _cholesky._raise_not_positive(array_of(info), "linalg.cholesky", input.dim() > 2)
    return L


def chain_matmul(*matrices, out=None):
    """``torch.chain_matmul`` (deprecated in torch): the product of 2-D matrices, left to
    right."""
    warnings.warn(
        "torch.chain_matmul is deprecated and will be removed in a future PyTorch release. Use "
        "torch.linalg.multi_dot instead, which accepts a list of two or more tensors rather "
        "than multiple parameters.", UserWarning, stacklevel=2)
    if len(matrices) == 1 and isinstance(matrices[0], (list, tuple)):
        matrices = tuple(matrices[0])
    if not matrices:
        raise RuntimeError("chain_matmul(): Expected one or more matrices")
    for m in matrices:
        if m.dim() != 2:
            raise RuntimeError(f"Tensor dimension is {m.dim()}, expected 2 instead.")
    if len(matrices) == 1:
        result = matrices[0].clone()
    else:
        for i, m in enumerate(matrices[1:], 1):
            if m.dtype != matrices[0].dtype:
                raise RuntimeError(
                    "multi_dot(): all tensors must have be the same dtype but tensor 0 is "
                    f"{_c10_name(matrices[0].dtype)} and tensor {i} {_c10_name(m.dtype)}")
            if matrices[i - 1].shape[1] != m.shape[0]:
                raise RuntimeError(
                    f"multi_dot(): tensors {i - 1} and {i} with shapes "
                    f"{list(matrices[i - 1].shape)} and {list(m.shape)} cannot be multiplied")
        result = matrices[0]
        for m in matrices[1:]:
            result = result.mm(m)
    return result if out is None else out.resize_(result.shape).copy_(result)


def lu(A, pivot=True, get_infos=False, out=None):
    """``torch.lu`` (deprecated in torch): ``(LU, pivots)`` of ``linalg.lu_factor_ex``, and
    its ``info`` with ``get_infos``; a singular matrix does not raise."""
    warnings.warn(
        "torch.lu is deprecated in favor of torch.linalg.lu_factor / torch.linalg.lu_factor_ex "
        "and will be removed in a future PyTorch release.\nLU, pivots = torch.lu(A, "
        "compute_pivots)\nshould be replaced with\nLU, pivots = torch.linalg.lu_factor(A, "
        "compute_pivots)\nand\nLU, pivots, info = torch.lu(A, compute_pivots, get_infos=True)"
        "\nshould be replaced with\nLU, pivots, info = torch.linalg.lu_factor_ex(A, "
        "compute_pivots)", UserWarning, stacklevel=2)
    if A.dim() < 2:
        raise RuntimeError("torch.lu_factor: Expected tensor with 2 or more dimensions. Got "
                           f"size: {list(A.shape)} instead")
    if not (A.dtype.is_floating_point or A.dtype.is_complex):
        raise NotImplementedError(f'"lu_cpu" not implemented for \'{scalar_type(A.dtype)}\'')
    if not pivot:
        # every device's LU runs on the CPU (NOTE [Linear algebra on the CPU's LAPACK])
        raise RuntimeError("linalg.lu_factor: LU without pivoting is not implemented on the CPU")
    result = lu_with_info_result(*_lu_factor_ex(A))
    if out is not None:
        for target, value in zip(out, result):
            target.resize_(value.shape).copy_(value)
        return out
    return result if get_infos else tuple(result[:2])


def lu_solve(b, LU_data, LU_pivots, *, out=None):
    """``torch.lu_solve`` (deprecated in torch): ``linalg.lu_solve(LU_data, LU_pivots, b)``."""
    warnings.warn(
        "torch.lu_solve is deprecated in favor of torch.linalg.lu_solveand will be removed in a "
        "future PyTorch release.\nNote that torch.linalg.lu_solve has its arguments reversed.\n"
        "X = torch.lu_solve(B, LU, pivots)\nshould be replaced with\nX = "
        "torch.linalg.lu_solve(LU, pivots, B)", UserWarning, stacklevel=2)
    return _linalg_lu_solve(LU_data, LU_pivots, b, out=out)


class TriangularSolve(Function):
    """``torch.triangular_solve``'s op: ``(X, A)`` with ``op(A) X = b``, ``op(A)`` being
    ``A`` or, with ``transpose``, ``A^T``; ``A`` broadcast to the batch and cloned."""
    builtin_op = True

    @staticmethod
    def forward(ctx, b, A, upper, transpose, unitriangular):
        batch = tuple(np.broadcast_shapes(tuple(b.shape[:-2]), tuple(A.shape[:-2])))
        ctx.shapes = (tuple(b.shape), tuple(A.shape), batch + tuple(A.shape[-2:]))
        expanded = A.expand(ctx.shapes[2])
        X = solve_triangular(expanded.mT if transpose else expanded,
                             b.expand(batch + tuple(b.shape[-2:])), upper=upper != transpose,
                             unitriangular=unitriangular)
        ctx.save_for_backward(A, X)      # the input itself: its graph for double backward
        ctx.save_for_forward(A, X)
        ctx.options = (upper, transpose, unitriangular)
        ctx.set_materialize_grads(False)
        return X, expanded.clone()

    @staticmethod
    def backward(ctx, gX, gM):
        A, X = ctx.saved_tensors
        upper, transpose, unitriangular = ctx.options
        shape_b, shape_A, batch_A = ctx.shapes
        A = A.expand(batch_A)
        gb = gA = None
        if gX is not None:
            op = A.mT if transpose else A
            gb = solve_triangular(mH(op), gX, upper=upper == transpose,
                                  unitriangular=unitriangular)
            gA = -_ag.matmul(gb, mH(X))
            if transpose:
                gA = gA.mT
            gA = gA.triu(int(unitriangular)) if upper else gA.tril(-int(unitriangular))
        if gM is not None:
            gA = gM if gA is None else gA + gM
        gb = None if gb is None or not ctx.needs_input_grad[0] else gb.sum_to_size(shape_b)
        gA = None if gA is None or not ctx.needs_input_grad[1] else gA.sum_to_size(shape_A)
        return gb, gA, None, None, None


    @staticmethod
    def jvp(ctx, b_t, A_t, upper_t, transpose_t, unitriangular_t):
        A, X = ctx.saved_tensors
        upper, transpose, unitriangular = ctx.options
        A = A.expand(ctx.shapes[2])
        op = A.mT if transpose else A
        rhs = _ag.zeros_like(X) if b_t is None else b_t.expand(X.shape)
        M_t = None
        if A_t is not None:
            M_t = A_t.expand(ctx.shapes[2])
            triangle = M_t.triu(int(unitriangular)) if upper else M_t.tril(-int(unitriangular))
            rhs = rhs - _ag.matmul(triangle.mT if transpose else triangle, X)
        X_t = solve_triangular(op, rhs, upper=upper != transpose, unitriangular=unitriangular)
        return X_t, (_ag.zeros_like(A) if M_t is None else M_t.clone())


TriangularSolve._backward_cls.__name__ = "TriangularSolveBackward0"


def triangular_solve(b, A, upper=True, transpose=False, unitriangular=False, *, out=None):
    """``torch.triangular_solve`` (deprecated in torch): ``(X, A)`` with ``A X = b`` (``A^T X
    = b`` with ``transpose``) for the triangle of ``A`` that ``upper`` names, batched and
    broadcast; the second result a copy of ``A``."""
    warnings.warn(
        "torch.triangular_solve is deprecated in favor of torch.linalg.solve_triangularand will "
        "be removed in a future PyTorch release.\ntorch.linalg.solve_triangular has its "
        "arguments reversed and does not return a copy of one of the inputs.\nX = "
        "torch.triangular_solve(B, A).solution\nshould be replaced with\nX = "
        "torch.linalg.solve_triangular(A, B).", UserWarning, stacklevel=2)
    if b.dim() < 2:
        raise RuntimeError("torch.triangular_solve: Expected b to have at least 2 dimensions, "
                           f"but it has {b.dim()} dimensions instead")
    if A.dim() < 2:
        raise RuntimeError("torch.triangular_solve: Expected A to have at least 2 dimensions, "
                           f"but it has {A.dim()} dimensions instead")
    if b.dtype != A.dtype:
        raise RuntimeError(f"Expected b and A to have the same dtype, but found b of type "
                           f"{scalar_type(b.dtype)} and A of type {scalar_type(A.dtype)} "
                           "instead.")
    if A.shape[-1] != A.shape[-2]:
        raise RuntimeError(f"A must be batches of square matrices, but they are {A.shape[-2]} "
                           f"by {A.shape[-1]} matrices")
    if A.shape[-1] != b.shape[-2]:
        raise RuntimeError(f"Incompatible matrix sizes for triangular_solve: each A matrix is "
                           f"{A.shape[-2]} by {A.shape[-1]} but each b matrix is {b.shape[-2]} "
                           f"by {b.shape[-1]}")
    check_matrix(A, "triangular_solve")
    result = triangular_solve_result(*TriangularSolve.apply(b, A, upper, transpose,
                                                            unitriangular))
    if out is not None:
        for target, value in zip(out, result):
            target.resize_(value.shape).copy_(value)
        return triangular_solve_result(*out)
    return result


def _lu_method(self, pivot=True, get_infos=False):
    """``A.lu()``: ``torch.lu(A)``'s results as a plain tuple."""
    return tuple(lu(self, pivot, get_infos))


_lu_method.__name__ = "lu"
_register_methods({"lu": _lu_method, "lu_solve": lu_solve,
                   "triangular_solve": triangular_solve})
_register_methods({"det": det, "logdet": logdet, "slogdet": slogdet, "inverse": inverse,
                   "cholesky": cholesky, "svd": svd, "matrix_exp": matrix_exp,
                   "matrix_power": matrix_power, "qr": qr, "pinverse": pinverse,
                   "cholesky_solve": cholesky_solve, "cholesky_inverse": cholesky_inverse})
