"""``autograd_cy.linalg``: torch.linalg's linear algebra, differentiable.

Each factorization runs on NumPy's LAPACK, batched over the leading dims (NOTE [Linear
algebra on the CPU's LAPACK] in _lapack.py), its backward is torch's formula written with
Tensor ops (so ``create_graph=True`` differentiates it again) in a node named as torch's
(``LinalgDetBackward0``, ``LinalgInvExBackward0`` ...), and results of several tensors are
named tuples with torch's field names (``slogdet(A).logabsdet``, ``eigh(A).eigenvectors``).
A matrix the factorization cannot handle raises ``linalg.LinAlgError`` (a
``RuntimeError``) with torch's message.

| module | ops |
| --- | --- |
| norms | vector_norm, matrix_norm, norm |
| determinant | det, slogdet (and torch.logdet) |
| inverse | inv, inv_ex, solve, solve_ex |
| cholesky_factor | cholesky, cholesky_ex |
| hermitian_eigen | eigh, eigvalsh |
| svd | svd, svdvals (and torch.svd) |
| matrix_exp | matrix_exp |
| triangular_solve | solve_triangular |
| qr | qr (and torch.qr) |
| householder | householder_product (torch.orgqr), torch.geqrf, torch.ormqr |
| pinv | pinv (and torch.pinverse) |
| lstsq | lstsq |
| lu | lu, lu_factor, lu_factor_ex |
| lu_solve | lu_solve, lu_unpack (torch.lu_unpack) |
| ldl | ldl_factor, ldl_factor_ex, ldl_solve |
| tensor_equations | tensorinv, tensorsolve, vander, cond (composites) |
| eig | eig, eigvals |
| cholesky_solve | torch.cholesky_solve, torch.cholesky_inverse |
| cross | cross (torch.cross is autograd_cy/cross_product.py) |
| products | vecdot, multi_dot, diagonal, matrix_power, matrix_rank (composites) |
| torch_forms | torch.det, logdet, cholesky, svd, lu, lu_solve, triangular_solve ... (and methods) |
| removed_forms | torch.solve, eig, symeig, lstsq, matrix_rank: they raise, as torch's |

>>> import autograd_cy as ag
>>> A = ag.tensor([[3.0, 1.0], [1.0, 2.0]], requires_grad=True)
>>> ag.linalg.det(A)
tensor(5., grad_fn=<LinalgDetBackward0>)
>>> ag.linalg.slogdet(A).logabsdet.grad_fn.name()
'LinalgSlogdetBackward0'
"""
from autograd_cy.linalg._lapack import LinAlgError
from autograd_cy.linalg.norms import vector_norm, matrix_norm, norm
from autograd_cy.linalg.inverse import inv, inv_ex, solve, solve_ex
from autograd_cy.linalg.determinant import det, slogdet
from autograd_cy.linalg.cholesky_factor import cholesky, cholesky_ex
from autograd_cy.linalg.hermitian_eigen import eigh, eigvalsh
from autograd_cy.linalg.svd import svd, svdvals
from autograd_cy.linalg.matrix_exp import matrix_exp
from autograd_cy.linalg.triangular_solve import solve_triangular
from autograd_cy.linalg.qr import qr
from autograd_cy.linalg.householder import householder_product
from autograd_cy.linalg.pinv import pinv
from autograd_cy.linalg.lstsq import lstsq
from autograd_cy.linalg.lu import lu, lu_factor, lu_factor_ex
from autograd_cy.linalg.lu_solve import lu_solve
from autograd_cy.linalg.ldl import ldl_factor, ldl_factor_ex, ldl_solve
from autograd_cy.linalg.tensor_equations import tensorinv, tensorsolve, vander, cond
from autograd_cy.linalg.eig import eig, eigvals
from autograd_cy.linalg.cross import cross
from autograd_cy.linalg.products import vecdot, multi_dot, diagonal, matrix_power, matrix_rank
from autograd_cy.linalg import torch_forms as _torch_forms  # noqa: F401  (torch.det, A.det())
from autograd_cy.linalg import removed_forms as _removed_forms  # noqa: F401  (A.solve())

__all__ = ["LinAlgError", "vector_norm", "matrix_norm", "norm", "inv", "inv_ex", "solve",
           "solve_ex", "det", "slogdet", "cholesky", "cholesky_ex", "eigh", "eigvalsh", "svd",
           "svdvals", "matrix_exp", "cross", "vecdot", "multi_dot", "diagonal", "matrix_power",
           "matrix_rank", "solve_triangular", "qr", "householder_product", "pinv", "lstsq", "lu",
           "lu_factor", "lu_factor_ex", "lu_solve", "ldl_factor", "ldl_factor_ex", "ldl_solve",
           "eig", "eigvals", "tensorinv",
           "tensorsolve", "vander", "cond"]
