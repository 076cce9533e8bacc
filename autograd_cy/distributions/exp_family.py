"""ExponentialFamily: distributions with density ``exp(<t(x), theta> - F(theta) + k(x))``,
whose entropy (and KL within one family) follow from the log normalizer ``F`` by autograd
(Bregman divergences)."""
import autograd_cy as torch
from autograd_cy.distributions.distribution import Distribution

__all__ = ["ExponentialFamily"]


class ExponentialFamily(Distribution):
    """The base of exponential families: a subclass gives ``_natural_params`` (theta),
    ``_log_normalizer(*theta)`` (F) and ``_mean_carrier_measure`` (E[k(x)])."""

    @property
    def _natural_params(self):
        raise NotImplementedError

    def _log_normalizer(self, *natural_params):
        raise NotImplementedError

    @property
    def _mean_carrier_measure(self):
        raise NotImplementedError

    def entropy(self):
        """``F(theta) - <theta, grad F(theta)> - E[k(x)]``."""
        result = -self._mean_carrier_measure
        nparams = [p.detach().requires_grad_() for p in self._natural_params]
        lg_normal = self._log_normalizer(*nparams)
        gradients = torch.autograd.grad(lg_normal.sum(), nparams, create_graph=True)
        result = result + lg_normal
        for param, grad in zip(nparams, gradients):
            result = result - (param * grad).reshape(tuple(self._batch_shape) + (-1,)).sum(-1)
        return result
