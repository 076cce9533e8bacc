"""The linalg ops as torch's own namespace and Tensor spell them: ``torch.det``,
``torch.logdet``, ``torch.slogdet``, ``torch.inverse``, ``torch.cholesky``, ``torch.svd``,
``torch.matrix_exp``, ``torch.matrix_power``, ``torch.qr``,
``torch.pinverse``, ``torch.cholesky_solve``, ``torch.cholesky_inverse``,
``torch.chain_matmul`` and the methods ``A.det()``, ``A.inverse()`` ...

They are ``linalg``'s ops under other names, except ``torch.cholesky``: deprecated in
torch, its node is ``CholeskyBackward0`` (not ``LinalgCholeskyExBackward0``), and it
warns once that ``linalg.cholesky`` replaces it. ``torch.slogdet``'s result is the named
tuple ``slogdet``. ``torch.chain_matmul``, deprecated too, warns that ``linalg.multi_dot``
replaces it and multiplies its matrices left to right (one matrix: a clone).
"""
import warnings
from collections import namedtuple

from autograd_cy._C.dtype import _c10_name
from autograd_cy._C.tensor import _register_methods
from autograd_cy.linalg import cholesky_factor as _cholesky
from autograd_cy.linalg import determinant as _determinant
from autograd_cy.linalg import inverse as _inverse
from autograd_cy.linalg._lapack import array_of, check_matrix
from autograd_cy.linalg.svd import torch_svd as svd
from autograd_cy.linalg.matrix_exp import matrix_exp
from autograd_cy.linalg.products import matrix_power
from autograd_cy.linalg.qr import torch_qr as qr
from autograd_cy.linalg.pinv import pinverse
from autograd_cy.linalg.cholesky_solve import cholesky_solve, cholesky_inverse

__all__ = ["det", "logdet", "slogdet", "inverse", "cholesky", "svd", "matrix_exp",
           "matrix_power", "qr", "pinverse", "cholesky_solve", "cholesky_inverse",
           "chain_matmul"]

slogdet_result = namedtuple("slogdet", ["sign", "logabsdet"])

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


_register_methods({"det": det, "logdet": logdet, "slogdet": slogdet, "inverse": inverse,
                   "cholesky": cholesky, "svd": svd, "matrix_exp": matrix_exp,
                   "matrix_power": matrix_power, "qr": qr, "pinverse": pinverse,
                   "cholesky_solve": cholesky_solve, "cholesky_inverse": cholesky_inverse})
