"""Draws torch has a kernel for and autograd_cy does not: ``standard_gamma`` (with its
reparameterization gradient), ``poisson`` and ``binomial``, through NumPy's generator on the
default generator's stream (so ``manual_seed`` makes them repeat; they are not torch's
numbers).

NOTE [The gamma sample's gradient]
A gamma sample ``x ~ Gamma(alpha, 1)`` is ``F⁻¹(u; alpha)`` for a uniform ``u`` and ``F``
the regularized lower incomplete gamma function; with the noise ``u`` held fixed,
``dx/dalpha = -(dF/dalpha) / (dF/dx)`` (implicit reparameterization). ``dF/dx`` is the
density ``x^(alpha-1) e^-x / Gamma(alpha)``; ``dF/dalpha`` has no closed form, and is taken
here by a central difference of ``igamma`` in float64 (step ``1e-5 * alpha``), about 1e-8
relative, against torch's ``_standard_gamma_grad`` (a fitted approximation) which agrees to
about 1e-4. Dirichlet and Beta samples are normalized gamma samples, so their gradients
follow (``_Dirichlet``, torch's node name; torch's own ``_dirichlet_grad`` is another
approximation). Like torch's, the gradient has no derivative of its own.
"""
import numpy as np

import autograd_cy as torch
from autograd_cy import factories as _factories
from autograd_cy.autograd.function import Function, once_differentiable

__all__ = ["standard_gamma", "dirichlet", "poisson", "binomial"]


def _values(tensor):
    return tensor.detach().cpu().numpy().astype(np.float64)


def _as_tensor(values, like):
    return torch.tensor(values, dtype=like.dtype, device=like.device)


def _gamma_sample_grad(alpha, x):
    """``dx/dalpha`` of a Gamma(alpha, 1) sample ``x`` (NOTE [The gamma sample's
    gradient])."""
    a = torch.tensor(alpha, dtype=torch.float64, device="cpu")
    v = torch.tensor(np.maximum(x, np.finfo(np.float64).tiny), dtype=torch.float64,
                     device="cpu")
    step = 1e-5 * a
    with torch.no_grad():
        dF_da = (torch.igamma(a + step, v) - torch.igamma(a - step, v)) / (2 * step)
        log_density = (a - 1) * v.log() - v - torch.lgamma(a)
        result = -dF_da / log_density.exp()
    return np.nan_to_num(result.numpy(), nan=0.0, posinf=0.0, neginf=0.0)


class StandardGamma(Function):
    """Gamma(alpha, 1) samples, reparameterized (NOTE [The gamma sample's gradient])."""

    @staticmethod
    def forward(ctx, concentration):
        alpha = _values(concentration)
        sample = _factories._rng(None).standard_gamma(alpha)
        tiny = np.finfo(np.dtype(str(concentration.dtype).split(".")[-1])).tiny
        sample = np.maximum(sample, tiny)
        result = _as_tensor(sample, concentration)
        ctx.save_for_backward(concentration, result)
        return result

    @staticmethod
    @once_differentiable
    def backward(ctx, grad):
        concentration, sample = ctx.saved_tensors
        dx_da = _gamma_sample_grad(_values(concentration), _values(sample))
        return grad * _as_tensor(dx_da, concentration)


StandardGamma._backward_cls.__name__ = "StandardGammaBackward0"      # torch's node name


def standard_gamma(concentration):
    """Samples of Gamma(concentration, 1), differentiable in ``concentration``."""
    return StandardGamma.apply(concentration)


class _Dirichlet(Function):
    """Dirichlet samples, normalized gamma samples ``x = g / sum(g)``, reparameterized:
    ``dL/dalpha_j = dg_j/dalpha_j * (dL/dx_j - sum_i dL/dx_i x_i) / sum(g)`` (NOTE [The
    gamma sample's gradient]). The node is torch's ``_DirichletBackward``."""

    @staticmethod
    def forward(ctx, concentration):
        alpha = _values(concentration)
        tiny = np.finfo(np.dtype(str(concentration.dtype).split(".")[-1])).tiny
        gammas = np.maximum(_factories._rng(None).standard_gamma(alpha), tiny)
        total = gammas.sum(-1, keepdims=True)
        ctx.alpha, ctx.gammas, ctx.total = alpha, gammas, total
        ctx.x = gammas / total
        return _as_tensor(ctx.x, concentration)

    @staticmethod
    @once_differentiable
    def backward(ctx, grad):
        g = _values(grad)
        dg_da = _gamma_sample_grad(ctx.alpha, ctx.gammas)
        inner = (g * ctx.x).sum(-1, keepdims=True)
        return _as_tensor(dg_da * (g - inner) / ctx.total, grad)


def dirichlet(concentration):
    """Dirichlet samples with ``concentration`` (last dim: the categories), differentiable
    in it."""
    return _Dirichlet.apply(concentration)


def poisson(rate):
    """Poisson samples with rates ``rate`` (no gradient)."""
    return _as_tensor(_factories._rng(None).poisson(_values(rate)), rate)


def binomial(count, prob):
    """Binomial samples: successes in ``count`` trials of probability ``prob`` (no
    gradient)."""
    n = _values(count).astype(np.int64)
    p = np.clip(_values(prob), 0.0, 1.0)
    return _as_tensor(_factories._rng(None).binomial(n, p).astype(np.float64), prob)
