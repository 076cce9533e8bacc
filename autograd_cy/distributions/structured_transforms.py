"""Transforms of vectors and matrices (stick-breaking to the simplex, to lower Cholesky
factors, to correlation Cholesky factors, to positive-definite matrices), transforms
applied by slices (CatTransform, StackTransform), and the transform by a distribution's
cdf."""
import math

import autograd_cy as torch
from autograd_cy.distributions import constraints
from autograd_cy.distributions.transforms import Transform, _clipped_sigmoid
from autograd_cy.distributions.utils import (
    _sum_rightmost, lazy_property, tril_matrix_to_vec, vec_to_tril_matrix)
from autograd_cy.nn.functional import logsigmoid, pad, softplus

__all__ = ["CatTransform", "CorrCholeskyTransform", "CumulativeDistributionTransform",
           "LowerCholeskyTransform",
           "PositiveDefiniteTransform", "StackTransform", "StickBreakingTransform"]


def _offsets(x, size):
    """``size, size - 1, ..., size - n + 1`` for the last dim of ``x`` (n entries)."""
    return size - torch.ones(x.shape[-1], dtype=x.dtype, device=x.device).cumsum(-1)


class StickBreakingTransform(Transform):
    """From R^(K-1) onto the K-simplex by breaking a stick: each sigmoid takes its share
    of what is left (bijective)."""

    domain = constraints.real_vector
    codomain = constraints.simplex
    bijective = True

    def __eq__(self, other):
        return isinstance(other, StickBreakingTransform)

    def _call(self, x):
        offset = _offsets(x, x.shape[-1] + 1)
        z = _clipped_sigmoid(x - offset.log())
        z_cumprod = (1 - z).cumprod(-1)
        return pad(z, [0, 1], value=1) * pad(z_cumprod, [1, 0], value=1)

    def _inverse(self, y):
        y_crop = y[..., :-1]
        offset = _offsets(y_crop, y.shape[-1])
        sf = 1 - y_crop.cumsum(-1)
        sf = torch.clamp(sf, min=torch.finfo(y.dtype).tiny)    # 0 when y[-1] ~ 0
        return y_crop.log() - sf.log() + offset.log()

    def log_abs_det_jacobian(self, x, y):
        offset = _offsets(x, x.shape[-1] + 1)
        x = x - offset.log()
        # 1 - sigmoid(x) = exp(-x) * sigmoid(x)
        return (-x + logsigmoid(x) + y[..., :-1].log()).sum(-1)

    def forward_shape(self, shape):
        if len(shape) < 1:
            raise ValueError("Too few dimensions on input")
        return torch.Size(tuple(shape)[:-1] + (shape[-1] + 1,))

    def inverse_shape(self, shape):
        if len(shape) < 1:
            raise ValueError("Too few dimensions on input")
        return torch.Size(tuple(shape)[:-1] + (shape[-1] - 1,))


class LowerCholeskyTransform(Transform):
    """From square matrices to lower-triangular ones with a positive diagonal (``exp`` of
    the diagonal, the strict lower triangle kept)."""

    domain = constraints.independent(constraints.real, 2)
    codomain = constraints.lower_cholesky

    def __eq__(self, other):
        return isinstance(other, LowerCholeskyTransform)

    def _call(self, x):
        return x.tril(-1) + x.diagonal(dim1=-2, dim2=-1).exp().diag_embed()

    def _inverse(self, y):
        return y.tril(-1) + y.diagonal(dim1=-2, dim2=-1).log().diag_embed()


class PositiveDefiniteTransform(Transform):
    """From square matrices to positive-definite ones: ``L @ L.mT`` of the lower Cholesky
    transform."""

    domain = constraints.independent(constraints.real, 2)
    codomain = constraints.positive_definite

    def __eq__(self, other):
        return isinstance(other, PositiveDefiniteTransform)

    def _call(self, x):
        x = LowerCholeskyTransform()(x)
        return x @ x.mT

    def _inverse(self, y):
        return LowerCholeskyTransform().inv(torch.linalg.cholesky(y))


def _check_dim(name, tensor, dim, length, what="tensor"):
    if not -tensor.dim() <= dim < tensor.dim():
        raise AssertionError(f"dim {dim} out of range for {what} with {tensor.dim()} "
                             "dimensions")
    if tensor.size(dim) != length:
        raise AssertionError(f"{name}.size({dim}) = {tensor.size(dim)} must equal "
                             f"length {length}")


class CatTransform(Transform):
    """Each transform of ``tseq`` on its slice of ``dim`` (``lengths`` long), as
    ``torch.cat`` lays them out."""

    def __init__(self, tseq, dim=0, lengths=None, cache_size=0):
        if not all(isinstance(t, Transform) for t in tseq):
            raise AssertionError("All elements of tseq must be Transform instances")
        if cache_size:
            tseq = [t.with_cache(cache_size) for t in tseq]
        super().__init__(cache_size=cache_size)
        self.transforms = list(tseq)
        self.lengths = [1] * len(self.transforms) if lengths is None else list(lengths)
        if len(self.lengths) != len(self.transforms):
            raise AssertionError(f"lengths ({len(self.lengths)}) must match transforms "
                                 f"({len(self.transforms)})")
        self.dim = dim

    @lazy_property
    def event_dim(self):
        return max(t.event_dim for t in self.transforms)

    @lazy_property
    def length(self):
        return sum(self.lengths)

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return CatTransform(self.transforms, self.dim, self.lengths, cache_size)

    def _pieces(self, tensor):
        start = 0
        for transform, length in zip(self.transforms, self.lengths):
            yield transform, tensor.narrow(self.dim, start, length)
            start = start + length

    def _call(self, x):
        _check_dim("x", x, self.dim, self.length)
        return torch.cat([t(piece) for t, piece in self._pieces(x)], dim=self.dim)

    def _inverse(self, y):
        _check_dim("y", y, self.dim, self.length)
        return torch.cat([t.inv(piece) for t, piece in self._pieces(y)], dim=self.dim)

    def log_abs_det_jacobian(self, x, y):
        _check_dim("x", x, self.dim, self.length, "x")
        _check_dim("y", y, self.dim, self.length, "y")
        logdetjacs = []
        for (transform, x_piece), (_, y_piece) in zip(self._pieces(x), self._pieces(y)):
            logdetjac = transform.log_abs_det_jacobian(x_piece, y_piece)
            if transform.event_dim < self.event_dim:
                logdetjac = _sum_rightmost(logdetjac, self.event_dim - transform.event_dim)
            logdetjacs.append(logdetjac)
        dim = self.dim - x.dim() if self.dim >= 0 else self.dim
        dim = dim + self.event_dim
        if dim < 0:
            return torch.cat(logdetjacs, dim=dim)
        total = logdetjacs[0]
        for term in logdetjacs[1:]:
            total = total + term
        return total

    @property
    def bijective(self):
        return all(t.bijective for t in self.transforms)

    @constraints.dependent_property
    def domain(self):
        return constraints.cat([t.domain for t in self.transforms], self.dim, self.lengths)

    @constraints.dependent_property
    def codomain(self):
        return constraints.cat([t.codomain for t in self.transforms], self.dim, self.lengths)


class StackTransform(Transform):
    """Each transform of ``tseq`` on its index of ``dim``, as ``torch.stack`` lays them
    out."""

    def __init__(self, tseq, dim=0, cache_size=0):
        if not all(isinstance(t, Transform) for t in tseq):
            raise AssertionError("All elements of tseq must be Transform instances")
        if cache_size:
            tseq = [t.with_cache(cache_size) for t in tseq]
        super().__init__(cache_size=cache_size)
        self.transforms = list(tseq)
        self.dim = dim

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return StackTransform(self.transforms, self.dim, cache_size)

    def _slice(self, z):
        return [z.select(self.dim, i) for i in range(z.size(self.dim))]

    def _check(self, name, tensor, what="tensor"):
        if not -tensor.dim() <= self.dim < tensor.dim():
            raise AssertionError(f"dim {self.dim} out of range for {what} with "
                                 f"{tensor.dim()} dimensions")
        if tensor.size(self.dim) != len(self.transforms):
            raise AssertionError(f"{name}.size({self.dim}) = {tensor.size(self.dim)} must "
                                 f"equal len(transforms) {len(self.transforms)}")

    def _call(self, x):
        self._check("x", x)
        return torch.stack([t(s) for s, t in zip(self._slice(x), self.transforms)],
                           dim=self.dim)

    def _inverse(self, y):
        self._check("y", y)
        return torch.stack([t.inv(s) for s, t in zip(self._slice(y), self.transforms)],
                           dim=self.dim)

    def log_abs_det_jacobian(self, x, y):
        self._check("x", x, "x")
        self._check("y", y, "y")
        return torch.stack([t.log_abs_det_jacobian(xs, ys) for xs, ys, t in
                            zip(self._slice(x), self._slice(y), self.transforms)],
                           dim=self.dim)

    @property
    def bijective(self):
        return all(t.bijective for t in self.transforms)

    @constraints.dependent_property
    def domain(self):
        return constraints.stack([t.domain for t in self.transforms], self.dim)

    @constraints.dependent_property
    def codomain(self):
        return constraints.stack([t.codomain for t in self.transforms], self.dim)


class CumulativeDistributionTransform(Transform):
    """``y = distribution.cdf(x)``, onto the unit interval (a copula's marginals)."""

    bijective = True
    codomain = constraints.unit_interval
    sign = +1

    def __init__(self, distribution, cache_size=0):
        super().__init__(cache_size=cache_size)
        self.distribution = distribution

    @property
    def domain(self):
        return self.distribution.support

    def _call(self, x):
        return self.distribution.cdf(x)

    def _inverse(self, y):
        return self.distribution.icdf(y)

    def log_abs_det_jacobian(self, x, y):
        return self.distribution.log_prob(x)

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return CumulativeDistributionTransform(self.distribution, cache_size=cache_size)


class CorrCholeskyTransform(Transform):
    """From R^(D(D-1)/2) to Cholesky factors of D x D correlation matrices (lower
    triangular, positive diagonal, rows of unit norm): each row of the filled lower triangle
    is squashed by tanh and broken like a stick, with signs kept."""

    domain = constraints.real_vector
    codomain = constraints.corr_cholesky
    bijective = True

    def __eq__(self, other):
        return isinstance(other, CorrCholeskyTransform)

    def _call(self, x):
        x = torch.tanh(x)
        eps = torch.finfo(x.dtype).eps
        x = x.clamp(min=-1 + eps, max=1 - eps)
        r = vec_to_tril_matrix(x, diag=-1)
        z1m_cumprod_sqrt = (1 - r ** 2).sqrt().cumprod(-1)
        r = r + torch.eye(r.shape[-1], dtype=r.dtype, device=r.device)
        return r * pad(z1m_cumprod_sqrt[..., :-1], [1, 0], value=1)

    def _inverse(self, y):
        y_cumsum = 1 - torch.cumsum(y * y, dim=-1)
        y_cumsum_shifted = pad(y_cumsum[..., :-1], [1, 0], value=1)
        y_vec = tril_matrix_to_vec(y, diag=-1)
        y_cumsum_vec = tril_matrix_to_vec(y_cumsum_shifted, diag=-1)
        t = y_vec / y_cumsum_vec.sqrt()
        return (t.log1p() - t.neg().log1p()) / 2       # atanh

    def log_abs_det_jacobian(self, x, y, intermediates=None):
        y1m_cumsum = 1 - (y * y).cumsum(dim=-1)
        y1m_cumsum_tril = tril_matrix_to_vec(y1m_cumsum, diag=-2)
        stick_breaking_logdet = 0.5 * y1m_cumsum_tril.log().sum(-1)
        tanh_logdet = -2 * (x + softplus(-2 * x) - math.log(2.0)).sum(dim=-1)
        return stick_breaking_logdet + tanh_logdet

    def forward_shape(self, shape):
        if len(shape) < 1:
            raise ValueError("Too few dimensions on input")
        n = shape[-1]
        d = round((0.25 + 2 * n) ** 0.5 + 0.5)
        if d * (d - 1) // 2 != n:
            raise ValueError("Input is not a flattened lower-diagonal number")
        return torch.Size(tuple(shape)[:-1] + (d, d))

    def inverse_shape(self, shape):
        if len(shape) < 2:
            raise ValueError("Too few dimensions on input")
        if shape[-2] != shape[-1]:
            raise ValueError("Input is not square")
        d = shape[-1]
        return torch.Size(tuple(shape)[:-2] + (d * (d - 1) // 2,))
