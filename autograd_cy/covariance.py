"""``cov`` and ``corrcoef``: the covariance and the correlation matrices of variables
(the rows of a 2-D input; a 1-D input is one variable), composed as torch composes them.

``cov(input, *, correction=1, fweights=None, aweights=None)``: the observations weighted by
integer frequencies times float weights, averaged, centred, multiplied by their conjugate
transposes and divided by ``w_sum - correction`` (``w_sum - correction * sum(w * aweights) /
w_sum`` with ``aweights``), a non-positive divisor warned about and made 0; the result
squeezed. ``corrcoef``: ``cov`` divided by the standard deviations of both variables,
clipped to [-1, 1] (each part, for complex). Gradients, double backward and tangents are
the composed ops'.

>>> import autograd_cy as ag
>>> ag.cov(ag.tensor([[0.0, 1.0, 2.0], [2.0, 1.0, 0.0]]))
tensor([[ 1., -1.],
        [-1.,  1.]])
"""
import warnings

import autograd_cy as _ag
from autograd_cy._C.tensor import _register_methods

__all__ = ["cov", "corrcoef"]


def _check_weights(weights, name, observations, integral):
    if weights.dim() > 1:
        raise RuntimeError(f"cov(): expected {name} to have one or fewer dimensions but got "
                           f"{name} with {weights.dim()} dimensions")
    if integral and (weights.is_floating_point() or weights.is_complex()):
        raise RuntimeError(f"cov(): expected {name} to have integral dtype but got {name} "
                           f"with {weights.dtype._scalar_name} dtype")
    if not integral and not weights.is_floating_point():
        raise RuntimeError(f"cov(): expected {name} to have floating point dtype but got "
                           f"{name} with {weights.dtype._scalar_name} dtype")
    if weights.numel() != observations:
        raise RuntimeError(f"cov(): expected {name} to have the same numel as there are "
                           f"observations in the input but got {weights.numel()} != "
                           f"{observations}")
    if observations and not bool(weights.min() >= 0):
        raise RuntimeError(f"cov(): {name} cannot be negative")


def cov(input, *, correction=1, fweights=None, aweights=None):
    """The covariance matrix of the rows of ``input`` (observations in the columns)."""
    if input.dim() > 2:
        raise RuntimeError(f"cov(): expected input to have two or fewer dimensions but got an "
                           f"input with {input.dim()} dimensions")
    if input.dtype is _ag.bool:
        raise RuntimeError("cov(): bool dtype is not supported for input")
    variables = input.reshape(1, -1) if input.dim() < 2 else input
    observations = variables.shape[1]
    weights = None
    if fweights is not None:
        _check_weights(fweights, "fweights", observations, integral=True)
        weights = fweights
    if aweights is not None:
        _check_weights(aweights, "aweights", observations, integral=False)
        weights = aweights if weights is None else weights * aweights
    if weights is None:
        w_sum = _ag.tensor(observations, dtype=_ag.int64, device=input.device)
    else:
        w_sum = weights.sum()
        if not bool(w_sum != 0):
            raise RuntimeError("cov(): weights sum to zero, can't be normalized")
    weighted = variables if weights is None else variables * weights
    average = weighted.sum(1) / w_sum
    if weights is not None and correction != 0 and aweights is not None:
        norm_factor = w_sum - correction * (weights * aweights).sum() / w_sum
    else:
        norm_factor = w_sum - correction
    if bool(norm_factor <= 0):
        warnings.warn("cov(): degrees of freedom is <= 0. Correction should be strictly less "
                      "than the number of observations.", UserWarning, stacklevel=2)
        norm_factor = _ag.zeros_like(norm_factor)
    centred = variables - average.unsqueeze(1)
    weighted = centred if weights is None else centred * weights
    product = _ag.mm(centred, weighted.t().conj())
    return _ag.true_divide(product, norm_factor).squeeze()


def corrcoef(input):
    """The Pearson correlation coefficients of the rows of ``input``."""
    if input.dim() > 2:
        raise RuntimeError(f"corrcoef(): expected input to have two or fewer dimensions but "
                           f"got an input with {input.dim()} dimensions")
    c = cov(input)
    if c.dim() == 0:
        return c / c
    d = c.diagonal()
    stddev = (d.real if d.is_complex() else d).sqrt()
    c = c / stddev.view(-1, 1)
    c = c / stddev.view(1, -1)
    if c.is_complex():
        return _ag.complex(c.real.clip(-1, 1), c.imag.clip(-1, 1))
    return c.clip(-1, 1)


_register_methods({"cov": cov, "corrcoef": corrcoef})
