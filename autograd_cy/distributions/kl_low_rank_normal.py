"""KL(p || q) with a LowRankMultivariateNormal on either side (the other low rank too, or a
MultivariateNormal), through the Woodbury identity: no full covariance is inverted."""
from autograd_cy.distributions.kl import _batch_trace_XXT, register_kl
from autograd_cy.distributions.lowrank_multivariate_normal import (
    LowRankMultivariateNormal, _batch_lowrank_logdet, _batch_lowrank_mahalanobis)
from autograd_cy.distributions.multivariate_normal import (
    MultivariateNormal, _batch_mahalanobis)

import autograd_cy as torch

__all__ = []

_GAP = " " * 26       # torch's messages keep a source line's indentation


def _check_event_shapes(p, q, which):
    if p.event_shape != q.event_shape:
        raise ValueError(f"KL-divergence between two {which} Normals with{_GAP}different "
                         "event shapes cannot be computed")


def _logdet(d):
    return _batch_lowrank_logdet(d._unbroadcasted_cov_factor, d._unbroadcasted_cov_diag,
                                 d._capacitance_tril)


def _q_inverse_factor(q):
    """``A`` with ``inv(q's covariance) = inv(D) - A^T A``."""
    qWt_qDinv = q._unbroadcasted_cov_factor.mT / q._unbroadcasted_cov_diag.unsqueeze(-2)
    return torch.linalg.solve_triangular(q._capacitance_tril, qWt_qDinv, upper=False)


def _q_mahalanobis(p, q):
    return _batch_lowrank_mahalanobis(q._unbroadcasted_cov_factor,
                                      q._unbroadcasted_cov_diag, q.loc - p.loc,
                                      q._capacitance_tril)


@register_kl(LowRankMultivariateNormal, LowRankMultivariateNormal)
def _kl_lowrank_lowrank(p, q):
    _check_event_shapes(p, q, "Low Rank Multivariate")
    term1 = _logdet(q) - _logdet(p)
    term3 = _q_mahalanobis(p, q)
    A = _q_inverse_factor(q)
    term21 = (p._unbroadcasted_cov_diag / q._unbroadcasted_cov_diag).sum(-1)
    term22 = _batch_trace_XXT(p._unbroadcasted_cov_factor
                              * q._unbroadcasted_cov_diag.rsqrt().unsqueeze(-1))
    term23 = _batch_trace_XXT(A * p._unbroadcasted_cov_diag.sqrt().unsqueeze(-2))
    term24 = _batch_trace_XXT(A.matmul(p._unbroadcasted_cov_factor))
    term2 = term21 + term22 - term23 - term24
    return 0.5 * (term1 + term2 + term3 - p.event_shape[0])


@register_kl(MultivariateNormal, LowRankMultivariateNormal)
def _kl_full_lowrank(p, q):
    _check_event_shapes(p, q, "(Low Rank) Multivariate")
    term1 = _logdet(q) - 2 * p._unbroadcasted_scale_tril.diagonal(
        dim1=-2, dim2=-1).log().sum(-1)
    term3 = _q_mahalanobis(p, q)
    A = _q_inverse_factor(q)
    term21 = _batch_trace_XXT(p._unbroadcasted_scale_tril
                              * q._unbroadcasted_cov_diag.rsqrt().unsqueeze(-1))
    term22 = _batch_trace_XXT(A.matmul(p._unbroadcasted_scale_tril))
    return 0.5 * (term1 + term21 - term22 + term3 - p.event_shape[0])


@register_kl(LowRankMultivariateNormal, MultivariateNormal)
def _kl_lowrank_full(p, q):
    _check_event_shapes(p, q, "(Low Rank) Multivariate")
    term1 = (2 * q._unbroadcasted_scale_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1)
             - _logdet(p))
    term3 = _batch_mahalanobis(q._unbroadcasted_scale_tril, q.loc - p.loc)
    combined = tuple(torch.broadcast_shapes(tuple(q._unbroadcasted_scale_tril.shape)[:-2],
                                            tuple(p._unbroadcasted_cov_factor.shape)[:-2]))
    n = p.event_shape[0]
    q_scale_tril = q._unbroadcasted_scale_tril.expand(combined + (n, n))
    p_cov_factor = p._unbroadcasted_cov_factor.expand(combined + (n, p.cov_factor.size(-1)))
    p_cov_diag = torch.diag_embed(p._unbroadcasted_cov_diag.sqrt()).expand(combined + (n, n))
    term21 = _batch_trace_XXT(torch.linalg.solve_triangular(q_scale_tril, p_cov_factor,
                                                            upper=False))
    term22 = _batch_trace_XXT(torch.linalg.solve_triangular(q_scale_tril, p_cov_diag,
                                                            upper=False))
    return 0.5 * (term1 + term21 + term22 + term3 - p.event_shape[0])
