"""``torch.special``: the special functions, by torch's names.

Most are other names of the package's ops, the very functions (``expit`` is ``sigmoid``,
``gammaln`` ``lgamma``, ``psi`` ``digamma``, ``multigammaln`` ``mvlgamma``, ``gammainc``
``igamma`` ...). The others live by concept:
- normal_distribution.py: ``ndtr``, ``log_ndtr``, ``ndtri``, ``erfcx``;
- bessel.py (the package's): ``i1``, ``i0e``, ``i1e``, with gradients;
- logarithmic.py (the package's): ``xlog1py``, ``entr``;
- zeta.py: ``zeta`` (gradient for ``other`` only, as torch's);
- incomplete_gamma.py (the package's): ``gammainc``, ``gammaincc``;
- bessel_functions.py: ``bessel_j0`` ... ``airy_ai`` (no gradient, as torch's);
- orthogonal_polynomials.py: the Chebyshev, Hermite, Laguerre and Legendre polynomials
  (no gradient, as torch's).

>>> import autograd_cy as ag
>>> ag.special.expit(ag.tensor([0.0]))
tensor([0.5000])
"""
import autograd_cy as _ag
from autograd_cy.bessel import i0, i0e, i1, i1e
from autograd_cy.incomplete_gamma import igamma as gammainc, igammac as gammaincc
from autograd_cy.logarithmic import entr, logit, xlog1py, xlogy
from autograd_cy.special.bessel_functions import (  # noqa: F401
    airy_ai, bessel_j0, bessel_j1, bessel_y0, bessel_y1, modified_bessel_i0,
    modified_bessel_i1, modified_bessel_k0, modified_bessel_k1, scaled_modified_bessel_k0,
    scaled_modified_bessel_k1, spherical_bessel_j0)
from autograd_cy.special.normal_distribution import erfcx, log_ndtr, ndtr, ndtri
from autograd_cy.special.orthogonal_polynomials import (  # noqa: F401
    chebyshev_polynomial_t, chebyshev_polynomial_u, chebyshev_polynomial_v,
    chebyshev_polynomial_w, hermite_polynomial_h, hermite_polynomial_he,
    laguerre_polynomial_l, legendre_polynomial_p, shifted_chebyshev_polynomial_t,
    shifted_chebyshev_polynomial_u, shifted_chebyshev_polynomial_v,
    shifted_chebyshev_polynomial_w)
from autograd_cy.special.zeta import zeta

# other names of the package's ops
expit = _ag.sigmoid
erf, erfc, erfinv = _ag.erf, _ag.erfc, _ag.erfinv
exp2, expm1, log1p = _ag.exp2, _ag.expm1, _ag.log1p
gammaln = _ag.lgamma
digamma = psi = _ag.digamma
polygamma = _ag.polygamma
multigammaln = _ag.mvlgamma
logsumexp, softmax, log_softmax = _ag.logsumexp, _ag.softmax, _ag.log_softmax
round = _ag.round
sinc = _ag.sinc

__all__ = [
    "airy_ai", "bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1", "chebyshev_polynomial_t",
    "chebyshev_polynomial_u", "chebyshev_polynomial_v", "chebyshev_polynomial_w", "digamma",
    "entr", "erf", "erfc", "erfcx", "erfinv", "exp2", "expit", "expm1", "gammainc",
    "gammaincc", "gammaln", "hermite_polynomial_h", "hermite_polynomial_he", "i0", "i0e",
    "i1", "i1e", "laguerre_polynomial_l", "legendre_polynomial_p", "log1p", "log_ndtr",
    "log_softmax", "logit", "logsumexp", "modified_bessel_i0", "modified_bessel_i1",
    "modified_bessel_k0", "modified_bessel_k1", "multigammaln", "ndtr", "ndtri",
    "polygamma", "psi", "round", "scaled_modified_bessel_k0", "scaled_modified_bessel_k1",
    "shifted_chebyshev_polynomial_t", "shifted_chebyshev_polynomial_u",
    "shifted_chebyshev_polynomial_v", "shifted_chebyshev_polynomial_w", "sinc", "softmax",
    "spherical_bessel_j0", "xlog1py", "xlogy", "zeta"]
