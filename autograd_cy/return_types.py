"""``autograd_cy.return_types``: the named tuples the ops return, as ``torch.return_types``
(``max(x, 0)`` is a ``return_types.max``; ``isinstance`` and pickling find them here)."""
from autograd_cy._C.ops.extrema import max_result, median_result, min_result
from autograd_cy.binning import histogram_result, histogramdd_result
from autograd_cy.float_parts import frexp_result
from autograd_cy.linalg.cholesky_factor import cholesky_ex_result
from autograd_cy.linalg.determinant import slogdet_result as linalg_slogdet_result
from autograd_cy.linalg.eig import eig_result
from autograd_cy.linalg.hermitian_eigen import eigh_result
from autograd_cy.linalg.householder import geqrf_result
from autograd_cy.linalg.inverse import inv_ex_result, solve_ex_result
from autograd_cy.linalg.ldl import ldl_factor_ex_result, ldl_factor_result
from autograd_cy.linalg.lstsq import lstsq_result
from autograd_cy.linalg.lu import lu_factor_ex_result, lu_factor_result, lu_result
from autograd_cy.linalg.lu_solve import lu_unpack_result
from autograd_cy.linalg.qr import qr_result, torch_qr_result
from autograd_cy.linalg.svd import svd_result, torch_svd_result
from autograd_cy.linalg.torch_forms import slogdet_result, triangular_solve_result
from autograd_cy.min_max import aminmax_result
from autograd_cy.mode import mode_result
from autograd_cy.nan_reductions import nanmedian_result
from autograd_cy.scans import cummax_result, cummin_result
from autograd_cy.sorting import kthvalue_result, sort_result, topk_result

_TYPES = (
    max_result, min_result, median_result, histogram_result, histogramdd_result, frexp_result,
    cholesky_ex_result, linalg_slogdet_result, eig_result, eigh_result, geqrf_result,
    inv_ex_result, solve_ex_result, ldl_factor_ex_result, ldl_factor_result, lstsq_result,
    lu_factor_ex_result, lu_factor_result, lu_result, lu_unpack_result, qr_result,
    torch_qr_result, svd_result, torch_svd_result, slogdet_result, triangular_solve_result,
    aminmax_result, mode_result, nanmedian_result, cummax_result, cummin_result,
    kthvalue_result, sort_result, topk_result,
)

__all__ = []
for _type in _TYPES:       # each under its own name (torch's): max, linalg_svd, svd ...
    _type.__module__ = __name__
    globals()[_type.__name__] = _type
    __all__.append(_type.__name__)
del _type
