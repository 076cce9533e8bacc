"""autograd_cy.distributions against torch.distributions: log_prob, cdf, icdf, entropy and
the moments, with their gradients and second derivatives in the parameters (check_op: the
same distribution built in both libraries from the same arrays); sample and rsample shapes,
dtypes and statistics (autograd_cy draws from its own generator, so samples are compared in
distribution, never bit for bit); reparameterized gradients; validation errors; reprs."""
import math

import numpy as np
import pytest
import torch

import autograd_cy as ag
from oracle import LIBS, assert_same, assert_same_error, check_op, node_name, plain

RNG = np.random.default_rng(7)


def positive(*shape):
    return RNG.uniform(0.5, 2.0, shape)


def unit(*shape):
    return RNG.uniform(0.05, 0.95, shape)


def normal(*shape):
    return RNG.standard_normal(shape)


def simplex(*shape):
    values = RNG.uniform(0.1, 1.0, shape)
    return values / values.sum(-1, keepdims=True)


def scale_tril(lib, raw, log_diagonal):
    return lib.tril(raw, -1) + lib.diag_embed(log_diagonal.exp())


# name: (make(D, *parameters), parameters, value for log_prob/cdf, value for icdf or None,
#        the outputs compared)
SCORES = ("log_prob", "entropy", "mean", "variance")
CASES = {
    "Normal": (lambda D, loc, scale: D.Normal(loc, scale), (normal(2, 3), positive(2, 3)),
               normal(2, 3), unit(2, 3), SCORES + ("cdf", "icdf", "stddev", "mode")),
    "Normal_broadcast": (lambda D, loc, scale: D.Normal(loc, scale), (normal(3), positive(2, 1)),
                         normal(4, 1, 1), None, ("log_prob",)),
    "Bernoulli_probs": (lambda D, p: D.Bernoulli(probs=p), (unit(5),),
                        np.array([0.0, 1.0, 1.0, 0.0, 1.0]), None, SCORES),
    "Bernoulli_logits": (lambda D, lg: D.Bernoulli(logits=lg), (normal(5),),
                         np.array([0.0, 1.0, 1.0, 0.0, 1.0]), None, SCORES + ("probs",)),
    "Categorical_probs": (lambda D, p: D.Categorical(probs=p), (positive(2, 4),),
                          np.array([[3, 0], [1, 2], [0, 0]]), None,
                          ("log_prob", "entropy", "probs", "logits", "mode")),
    "Categorical_logits": (lambda D, lg: D.Categorical(logits=lg), (normal(3, 4),),
                           np.array([3, 0, 2]), None, ("log_prob", "entropy", "probs")),
    "Uniform": (lambda D, low, width: D.Uniform(low, low + width),
                (normal(4), positive(4)), None, unit(4), SCORES + ("icdf", "stddev")),
    "Exponential": (lambda D, rate: D.Exponential(rate), (positive(4),), positive(4),
                    unit(4), SCORES + ("cdf", "icdf", "stddev")),
    "Laplace": (lambda D, loc, scale: D.Laplace(loc, scale), (normal(4), positive(4)),
                normal(4), unit(4), SCORES + ("cdf", "icdf", "stddev")),
    "LogNormal": (lambda D, loc, scale: D.LogNormal(loc, scale), (normal(4), positive(4)),
                  positive(4), unit(4), SCORES + ("cdf", "icdf", "mode")),
    "OneHotCategorical": (lambda D, p: D.OneHotCategorical(probs=p), (positive(2, 3),),
                          np.array([[0.0, 1.0, 0.0], [1.0, 0.0, 0.0]]), None, SCORES),
    "Independent": (lambda D, loc, scale: D.Independent(D.Normal(loc, scale), 1),
                    (normal(2, 3), positive(2, 3)), normal(2, 3), None, SCORES),
    "MultivariateNormal_scale_tril": (
        lambda D, loc, raw, d: D.MultivariateNormal(loc, scale_tril=scale_tril(ag if isinstance(
            raw, ag.Tensor) else torch, raw, d)),
        (normal(2, 3), normal(3, 3), normal(3)), normal(4, 2, 3), None,
        SCORES + ("covariance_matrix", "precision_matrix", "scale_tril")),
    "Beta": (lambda D, a, b: D.Beta(a, b), (positive(4), positive(4)), unit(4), None,
             SCORES),
    "Gamma": (lambda D, c, r: D.Gamma(c, r), (positive(4), positive(4)), positive(4), None,
              SCORES + ("mode",)),
    "Chi2": (lambda D, df: D.Chi2(df), (positive(4) + 1,), positive(4), None, SCORES),
    "Dirichlet": (lambda D, c: D.Dirichlet(c), (positive(2, 3),), simplex(2, 3), None,
                  SCORES),
    "Poisson": (lambda D, rate: D.Poisson(rate), (positive(4),),
                np.array([0.0, 1.0, 3.0, 2.0]), None, ("log_prob", "mean", "variance")),
    "Binomial": (lambda D, p: D.Binomial(5, probs=p), (unit(4),),
                 np.array([0.0, 1.0, 5.0, 2.0]), None, SCORES),
    "Binomial_logits": (lambda D, lg: D.Binomial(4, logits=lg), (normal(3),),
                        np.array([0.0, 4.0, 2.0]), None, SCORES),
    "Geometric": (lambda D, p: D.Geometric(p), (unit(4),), np.array([0.0, 1.0, 4.0, 2.0]),
                  None, SCORES),
    "StudentT": (lambda D, df, loc, scale: D.StudentT(df + 2, loc, scale),
                 (positive(4), normal(4), positive(4)), normal(4), None, SCORES),
    "Cauchy": (lambda D, loc, scale: D.Cauchy(loc, scale), (normal(4), positive(4)),
               normal(4), unit(4), ("log_prob", "entropy", "cdf", "icdf")),
    "Gumbel": (lambda D, loc, scale: D.Gumbel(loc, scale), (normal(4), positive(4)),
               normal(4), unit(4), SCORES + ("cdf", "icdf", "stddev")),
    "RelaxedBernoulli": (lambda D, t, p: D.RelaxedBernoulli(t, probs=p),
                         (positive(1), unit(4)), unit(4), None, ("log_prob",)),
    "RelaxedOneHotCategorical": (lambda D, t, p: D.RelaxedOneHotCategorical(t, probs=p),
                                 (positive(1), positive(2, 3)), simplex(2, 3), None,
                                 ("log_prob",)),
    "MixtureSameFamily": (
        lambda D, lg, loc, scale: D.MixtureSameFamily(D.Categorical(logits=lg),
                                                      D.Normal(loc, scale)),
        (normal(2, 3), normal(2, 3), positive(2, 3)), normal(4, 2), None,
        ("log_prob", "mean", "variance", "cdf")),
    "LowRankMultivariateNormal": (
        lambda D, loc, W, d: D.LowRankMultivariateNormal(loc, W, d),
        (normal(2, 3), normal(3, 2), positive(3)), normal(2, 3), None,
        SCORES + ("covariance_matrix", "precision_matrix", "scale_tril")),
    "FisherSnedecor": (lambda D, d1, d2: D.FisherSnedecor(d1, d2 + 4),
                       (positive(4), positive(4)), positive(4), None,
                       ("log_prob", "mean", "variance", "mode")),
    "LogisticNormal": (lambda D, loc, scale: D.LogisticNormal(loc, scale),
                       (normal(2, 3), positive(2, 3)), simplex(2, 4), None, ("log_prob",)),
    "GeneralizedPareto": (lambda D, loc, scale, c: D.GeneralizedPareto(loc, scale, c),
                          (normal(4) - 3, positive(4), np.array([0.2, 0.0, 0.1, 0.3])),
                          positive(4), unit(4), SCORES + ("cdf", "icdf")),
    "GeneralizedPareto_bounded": (lambda D, scale, c: D.GeneralizedPareto(0.0, scale, -c),
                                  (positive(4), unit(4)), unit(4) * 0.3, unit(4),
                                  ("log_prob", "cdf", "icdf", "mean", "variance")),
    "VonMises": (lambda D, loc, k: D.VonMises(loc, k), (normal(4), positive(4) * 3),
                 normal(4), None, ("log_prob", "mean", "variance")),
    "Wishart": (lambda D, df, raw, d: D.Wishart(df + 3, scale_tril=scale_tril(
        ag if isinstance(raw, ag.Tensor) else torch, raw, d)),
        (positive(2), normal(2, 2) * 0.3, normal(2) * 0.3), np.array([[2.0, 0.3], [0.3, 1.0]]),
        None, SCORES + ("precision_matrix", "mode")),
    "LKJCholesky": (lambda D, c: D.LKJCholesky(3, c), (positive(2),),
                    torch.distributions.transforms.CorrCholeskyTransform()(
                        torch.tensor(normal(2, 3))).numpy(), None, ("log_prob",)),
    "HalfNormal": (lambda D, s: D.HalfNormal(s), (positive(4),), positive(4), unit(4),
                   SCORES + ("cdf", "icdf")),
    "HalfCauchy": (lambda D, s: D.HalfCauchy(s), (positive(4),), positive(4), unit(4),
                   ("log_prob", "entropy", "cdf", "icdf")),
    "InverseGamma": (lambda D, c, r: D.InverseGamma(c + 2, r), (positive(4), positive(4)),
                     positive(4), None, SCORES + ("mode",)),
    "Weibull": (lambda D, s, c: D.Weibull(s, c), (positive(4), positive(4)), positive(4),
                unit(4), SCORES + ("cdf", "icdf", "mode")),
    "Pareto": (lambda D, s, a: D.Pareto(s, a + 2), (positive(4), positive(4)),
               positive(4) + 2.5, unit(4), SCORES + ("cdf", "icdf")),
    "Kumaraswamy": (lambda D, a, b: D.Kumaraswamy(a, b), (positive(4), positive(4)),
                    unit(4), None, SCORES),
    "ContinuousBernoulli": (lambda D, p: D.ContinuousBernoulli(p),
                            (np.array([0.1, 0.4995, 0.5, 0.8]),), unit(4), unit(4),
                            SCORES + ("cdf", "icdf")),
    "ContinuousBernoulli_logits": (lambda D, lg: D.ContinuousBernoulli(logits=lg),
                                   (normal(4),), unit(4), None, SCORES),
    "Multinomial": (lambda D, p: D.Multinomial(5, probs=p), (positive(2, 3),),
                    np.array([[1.0, 4.0, 0.0], [2.0, 2.0, 1.0]]), None, SCORES),
    "NegativeBinomial": (lambda D, n, p: D.NegativeBinomial(n, probs=p),
                         (positive(4), unit(4)), np.array([0.0, 1.0, 5.0, 2.0]), None,
                         ("log_prob", "mean", "variance")),
    "ExponentialFamily_entropy": (
        lambda D, loc, scale: type("E", (), {"entropy": lambda self: (
            D.ExponentialFamily.entropy(D.Normal(loc, scale)),
            D.ExponentialFamily.entropy(D.Gamma(scale, scale + 1)),
            D.ExponentialFamily.entropy(D.Exponential(scale)))})(),
        (normal(3), positive(3)), None, None, ("entropy",)),
}

DISCRETE_VALUES = {"Bernoulli_probs", "Bernoulli_logits", "Categorical_probs",
                   "Categorical_logits", "OneHotCategorical", "Poisson", "Binomial",
                   "Binomial_logits", "Geometric", "Multinomial", "NegativeBinomial"}


def outputs(make, outputs_wanted, lib, *tensors):
    value, u = tensors[-2], tensors[-1]
    dist = make(lib.distributions, *tensors[:-2])
    results = []
    for name in outputs_wanted:
        if name in ("log_prob", "cdf"):
            results.append(getattr(dist, name)(value))
        elif name == "icdf":
            results.append(dist.icdf(u))
        elif name == "entropy":
            results.append(dist.entropy())
        else:
            results.append(getattr(dist, name))
    return tuple(results)


@pytest.mark.parametrize("name", CASES)
def test_scores_moments_and_their_gradients(name):
    make, parameters, value, u, wanted = CASES[name]
    if value is None:       # Uniform: values inside [low, high)
        value = parameters[0] + 0.5 * parameters[1]
    u = unit(1) if u is None else u
    grads = [True] * len(parameters) + [name not in DISCRETE_VALUES, True]
    # torch's GeneralizedPareto.log_prob compares with a float32 zero: float64 fails there
    dtype = np.float32 if name.startswith("GeneralizedPareto") else np.float64
    check_op(lambda lib, *t: outputs(make, wanted, lib, *t), *parameters,
             np.asarray(value, dtype=np.float64 if np.asarray(value).dtype.kind == "f"
                        else np.int64), u, requires_grad=grads, dtype=dtype)


def test_gamma_cdf_in_the_rate_and_the_value():
    """torch does not differentiate igamma in its first argument: only rate and value."""
    check_op(lambda lib, c, r, x: lib.distributions.Gamma(c, r).cdf(x),
             positive(4), positive(4), positive(4), requires_grad=[False, True, True])


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_float32_and_float64_scores(dtype):
    check_op(lambda lib, loc, scale, x: (lib.distributions.Normal(loc, scale).log_prob(x),
                                         lib.distributions.Gamma(scale, scale).entropy()),
             normal(3), positive(3), normal(3), dtype=dtype, double=False)


def test_number_parameters_have_the_default_dtype_and_no_batch_shape():
    def run(lib):
        D = lib.distributions
        made = [D.Normal(0.0, 1.0), D.Exponential(2.0), D.Gamma(2.0, 1.0), D.Beta(2.0, 3.0),
                D.Bernoulli(0.3), D.Uniform(0.0, 2.0), D.Laplace(0.0, 1.0),
                D.Gumbel(0.0, 1.0), D.LogNormal(0.0, 1.0)]
        return [(tuple(d.batch_shape), tuple(d.event_shape),
                 str(d.sample().dtype).split(".")[-1], tuple(d.sample((2, 3)).shape))
                for d in made]
    assert_same(run)


# ------------------------------------------------------------------ samples

SAMPLED = {
    # name: (make(D, lib), has_rsample, exact mean, exact variance)
    "Normal": (lambda D, lib: D.Normal(lib.tensor([1.0, -2.0]), lib.tensor([0.5, 2.0])), True),
    "Bernoulli": (lambda D, lib: D.Bernoulli(lib.tensor([0.2, 0.7])), False),
    "Categorical": (lambda D, lib: D.Categorical(lib.tensor([0.2, 0.5, 0.3])), False),
    "Uniform": (lambda D, lib: D.Uniform(lib.tensor([0.0, -1.0]), lib.tensor([1.0, 3.0])),
                True),
    "Exponential": (lambda D, lib: D.Exponential(lib.tensor([0.5, 3.0])), True),
    "Laplace": (lambda D, lib: D.Laplace(lib.tensor([0.0, 1.0]), lib.tensor([1.0, 0.5])), True),
    "LogNormal": (lambda D, lib: D.LogNormal(lib.tensor([0.0, 0.5]), lib.tensor([0.25, 0.5])),
                  True),
    "OneHotCategorical": (lambda D, lib: D.OneHotCategorical(lib.tensor([0.2, 0.8])), False),
    "MultivariateNormal": (lambda D, lib: D.MultivariateNormal(
        lib.tensor([1.0, -1.0]), lib.tensor([[2.0, 0.6], [0.6, 1.0]])), True),
    "Beta": (lambda D, lib: D.Beta(lib.tensor([2.0, 0.5]), lib.tensor([3.0, 0.5])), True),
    "Gamma": (lambda D, lib: D.Gamma(lib.tensor([0.5, 4.0]), lib.tensor([1.0, 2.0])), True),
    "Chi2": (lambda D, lib: D.Chi2(lib.tensor([3.0])), True),
    "Dirichlet": (lambda D, lib: D.Dirichlet(lib.tensor([1.0, 2.0, 3.0])), True),
    "Poisson": (lambda D, lib: D.Poisson(lib.tensor([0.5, 7.0])), False),
    "Binomial": (lambda D, lib: D.Binomial(lib.tensor([10.0, 3.0]), lib.tensor([0.3, 0.9])),
                 False),
    "Geometric": (lambda D, lib: D.Geometric(lib.tensor([0.3, 0.8])), False),
    "StudentT": (lambda D, lib: D.StudentT(lib.tensor([5.0]), lib.tensor([1.0]),
                                           lib.tensor([2.0])), True),
    "Gumbel": (lambda D, lib: D.Gumbel(lib.tensor([0.0, 1.0]), lib.tensor([1.0, 2.0])), True),
    "Independent": (lambda D, lib: D.Independent(D.Normal(lib.zeros(2, 3), lib.ones(2, 3)), 2),
                    True),
    "MixtureSameFamily": (lambda D, lib: D.MixtureSameFamily(
        D.Categorical(lib.tensor([0.3, 0.7])),
        D.Normal(lib.tensor([-2.0, 2.0]), lib.tensor([0.5, 1.0]))), False),
    "LowRankMultivariateNormal": (lambda D, lib: D.LowRankMultivariateNormal(
        lib.tensor([1.0, -1.0]), lib.tensor([[1.0], [0.5]]), lib.tensor([0.5, 1.0])), True),
    "FisherSnedecor": (lambda D, lib: D.FisherSnedecor(lib.tensor([3.0]), lib.tensor([12.0])),
                       True),
    "GeneralizedPareto": (lambda D, lib: D.GeneralizedPareto(
        lib.tensor([0.0, 1.0]), lib.tensor([1.0, 2.0]), lib.tensor([0.1, -0.2])), True),
    "Wishart": (lambda D, lib: D.Wishart(lib.tensor(6.0),
                                         lib.tensor([[1.0, 0.3], [0.3, 0.5]])), True),
    "HalfNormal": (lambda D, lib: D.HalfNormal(lib.tensor([0.5, 2.0])), True),
    "InverseGamma": (lambda D, lib: D.InverseGamma(lib.tensor([10.0]), lib.tensor([2.0])),
                     True),
    "Weibull": (lambda D, lib: D.Weibull(lib.tensor([1.0, 2.0]), lib.tensor([0.8, 3.0])), True),
    "Pareto": (lambda D, lib: D.Pareto(lib.tensor([1.0]), lib.tensor([9.0])), True),
    "Kumaraswamy": (lambda D, lib: D.Kumaraswamy(lib.tensor([2.0, 0.5]),
                                                 lib.tensor([3.0, 0.5])), True),
    "ContinuousBernoulli": (lambda D, lib: D.ContinuousBernoulli(lib.tensor([0.2, 0.5, 0.9])),
                            True),
    "Multinomial": (lambda D, lib: D.Multinomial(6, lib.tensor([0.2, 0.5, 0.3])), False),
    "NegativeBinomial": (lambda D, lib: D.NegativeBinomial(lib.tensor([3.0, 0.5]),
                                                           lib.tensor([0.4, 0.7])), False),
    "OneHotCategoricalStraightThrough": (
        lambda D, lib: D.OneHotCategoricalStraightThrough(lib.tensor([0.2, 0.8])), True),
}


@pytest.mark.parametrize("name", SAMPLED)
def test_sample_shapes_dtypes_and_has_rsample(name):
    make, _ = SAMPLED[name]

    def run(lib):
        lib.manual_seed(0)
        dist = make(lib.distributions, lib)
        one, many = dist.sample(), dist.sample((4, 2))
        results = [dist.has_rsample, tuple(one.shape), tuple(many.shape),
                   str(many.dtype).split(".")[-1], many.requires_grad]
        if dist.has_rsample:
            draw = dist.rsample((3,))
            results += [tuple(draw.shape), str(draw.dtype).split(".")[-1]]
        return results
    assert_same(run)


@pytest.mark.parametrize("name", SAMPLED)
def test_float64_parameters_give_float64_samples(name):
    make, _ = SAMPLED[name]

    def run(lib):
        lib.set_default_dtype(lib.float64)
        try:
            dist = make(lib.distributions, lib)
            draws = [dist.sample((2,))] + ([dist.rsample((2,))] if dist.has_rsample else [])
            return [str(d.dtype).split(".")[-1] for d in draws]
        finally:
            lib.set_default_dtype(lib.float32)
    assert_same(run)


@pytest.mark.parametrize("name", SAMPLED)
def test_sample_statistics(name):
    """Means and variances of 4000 draws within 5 standard errors of the exact ones
    (torch's ``mean`` and ``variance``); StudentT's variance needs df > 4 to settle."""
    make, _ = SAMPLED[name]
    ag.manual_seed(1)
    dist = make(ag.distributions, ag)
    samples = dist.sample((4000,)).double().cpu().numpy()
    expected = make(torch.distributions, torch)
    mean = expected.mean.double().cpu().numpy()
    variance = expected.variance.double().cpu().numpy()
    error = np.sqrt(variance / 4000)
    np.testing.assert_array_less(np.abs(samples.mean(0) - mean), 5 * error + 1e-12)
    fourth = ((samples - mean) ** 4).mean(0)
    variance_error = np.sqrt(np.maximum(fourth - variance ** 2, 0) / 4000)
    np.testing.assert_array_less(np.abs(samples.var(0) - variance),
                                 5 * variance_error + 1e-9)


def test_von_mises_samples_are_angles_around_loc():
    """Circular statistics: the mean resultant direction of 4000 draws is loc, its length
    I1(k) / I0(k), within a few standard errors."""
    ag.manual_seed(6)
    loc, k = 2.5, 2.0
    x = ag.distributions.VonMises(ag.tensor([loc]), ag.tensor([k])).sample((4000,))
    angles = x.double().cpu().numpy()[:, 0]
    assert ((angles >= -np.pi) & (angles < np.pi)).all()
    c, s = np.cos(angles - loc).mean(), np.sin(angles - loc).mean()
    expected = 1 - torch.distributions.VonMises(torch.tensor(loc), torch.tensor(k)).variance
    assert abs(c - expected.item()) < 0.03 and abs(s) < 0.03


def test_samples_repeat_after_manual_seed():
    draws = []
    for _ in range(2):
        ag.manual_seed(3)
        D = ag.distributions
        draws.append([D.Normal(0.0, 1.0).sample((3,)), D.Gamma(2.0, 1.0).sample((3,)),
                      D.Poisson(ag.tensor([4.0])).sample((3,))])
    assert plain(draws[0]) == plain(draws[1])


def test_rsample_is_loc_plus_scale_times_noise():
    loc = ag.tensor([1.0, -1.0], requires_grad=True)
    scale = ag.tensor([2.0, 0.5], requires_grad=True)
    x = ag.distributions.Normal(loc, scale).rsample()
    x.sum().backward()
    assert loc.grad.tolist() == [1.0, 1.0]
    np.testing.assert_allclose(scale.grad.cpu().numpy(), ((x - loc) / scale).detach().cpu().numpy(),
                               rtol=1e-6)
    assert ag.distributions.Normal(loc, scale).sample().grad_fn is None


@pytest.mark.parametrize("make", [
    lambda D, a: D.Exponential(a), lambda D, a: D.Laplace(a, a), lambda D, a: D.Uniform(-a, a),
    lambda D, a: D.LogNormal(a, a), lambda D, a: D.Gumbel(a, a), lambda D, a: D.Cauchy(a, a)])
def test_rsample_of_a_location_scale_family_is_proportional_to_its_scale(make):
    """For these families x(a) = a * x(1) (or loc + scale * noise with both = a): the
    gradient of x in a, noise fixed, is x / a (LogNormal: x * (1 + log x / a) / a ...);
    checked through d rsample / d a == finite difference with the same seed."""
    a = ag.tensor([0.7, 1.3], dtype=ag.float64, requires_grad=True)
    ag.manual_seed(5)
    x = make(ag.distributions, a).rsample()
    (grad,) = ag.autograd.grad(x.sum(), a)
    values = []
    for step in (1e-6, -1e-6):
        ag.manual_seed(5)
        values.append(make(ag.distributions, (a + step).detach()).rsample().cpu().numpy())
    np.testing.assert_allclose(grad.cpu().numpy(), (values[0] - values[1]) / 2e-6, rtol=1e-5)


def test_gamma_rsample_gradient_against_torchs_standard_gamma_grad():
    alpha = ag.tensor([0.3, 1.0, 2.5, 10.0], dtype=ag.float64, requires_grad=True)
    ag.manual_seed(2)
    x = ag.distributions.Gamma(alpha, ag.ones(4, dtype=ag.float64)).rsample()
    (grad,) = ag.autograd.grad(x.sum(), alpha)
    theirs = torch._standard_gamma_grad(torch.tensor(alpha.detach().cpu().numpy()),
                                        torch.tensor(x.detach().cpu().numpy()))
    np.testing.assert_allclose(grad.cpu().numpy(), theirs.cpu().numpy(), rtol=1e-3)


def test_beta_and_dirichlet_rsample_gradients_are_unbiased():
    """d/da E[x] of Beta(a, b) is b / (a + b)^2: the mean of the sample gradients over
    4000 draws is within 5 standard errors."""
    a = ag.tensor(2.0, dtype=ag.float64, requires_grad=True)
    b = ag.tensor(3.0, dtype=ag.float64)
    ag.manual_seed(4)
    x = ag.distributions.Beta(a.expand(4000), b.expand(4000)).rsample()
    grads = ag.autograd.grad(x.sum(), a)
    ag.manual_seed(4)
    alpha = ag.tensor([2.0, 3.0], dtype=ag.float64, requires_grad=True)
    x = ag.distributions.Dirichlet(alpha.expand(4000, 2)).rsample()
    (dirichlet_grad,) = ag.autograd.grad(x[:, 0].sum(), alpha)
    exact = 3.0 / 25.0
    assert abs(grads[0].item() / 4000 - exact) < 0.01
    assert abs(dirichlet_grad[0].item() / 4000 - exact) < 0.01
    assert abs(dirichlet_grad[1].item() / 4000 + 2.0 / 25.0) < 0.01


def test_node_names_of_rsample_and_log_prob():
    def run(lib):
        D = lib.distributions
        a = lib.tensor([1.0, 2.0], requires_grad=True)
        made = [D.Normal(a, 1.0).rsample(), D.Gamma(a, 1.0).rsample(), D.Dirichlet(a).rsample(),
                D.Beta(a, a).rsample(), D.Normal(a, 1.0).log_prob(lib.zeros(2)),
                D.Categorical(logits=a).log_prob(lib.tensor(1)),
                D.MultivariateNormal(a, lib.eye(2)).log_prob(lib.zeros(2))]
        inner = made[1].grad_fn.next_functions[0][0]        # the gamma draw under the division
        return [node_name(x.grad_fn) for x in made] + [node_name(inner)]
    assert_same(run)


def test_sample_has_no_graph_and_rsample_needs_has_rsample():
    def run(lib):
        D = lib.distributions
        p = lib.tensor([0.3], requires_grad=True)
        return [D.Bernoulli(p).sample().requires_grad, D.Normal(p, 1.0).sample().requires_grad,
                D.Normal(p, 1.0).rsample().requires_grad, D.Bernoulli(p).has_rsample]
    assert_same(run)
    assert_same_error(lambda lib: lib.distributions.Bernoulli(0.3).rsample(),
                      NotImplementedError)


# ------------------------------------------------------------------ shapes and expand

def test_batch_event_shapes_and_expand():
    def run(lib):
        D = lib.distributions
        normal = D.Normal(lib.zeros(3), lib.ones(3))
        mvn = D.MultivariateNormal(lib.zeros(2), scale_tril=lib.eye(2))
        made = [normal, normal.expand((2, 3)), D.Independent(normal, 1),
                D.Independent(normal.expand((2, 3)), 1).expand((4, 2)), mvn,
                mvn.expand((5,)), D.Dirichlet(lib.ones(2, 3)), D.Categorical(lib.ones(2, 4)),
                D.OneHotCategorical(lib.ones(4)).expand((3,)), D.LogNormal(0.0, 1.0).expand((2,)),
                D.Beta(lib.ones(3), lib.ones(3)).expand((2, 3)),
                D.MixtureSameFamily(D.Categorical(lib.ones(2)),
                                    D.Normal(lib.zeros(2), lib.ones(2))).expand((3,))]
        return [(tuple(d.batch_shape), tuple(d.event_shape), tuple(d.sample((2,)).shape))
                for d in made]
    assert_same(run)


def test_perplexity_enumerate_support_and_mode():
    def run(lib):
        D = lib.distributions
        return [D.Categorical(lib.tensor([0.2, 0.8])).perplexity(),
                D.Bernoulli(lib.tensor([0.2, 0.5])).enumerate_support(),
                D.Bernoulli(lib.tensor([0.2, 0.5])).mode,
                D.Categorical(lib.ones(2, 3)).enumerate_support(expand=False),
                D.Binomial(3, lib.tensor([0.2, 0.5])).enumerate_support(),
                D.OneHotCategorical(lib.ones(3)).enumerate_support(),
                D.Dirichlet(lib.tensor([[2.0, 3.0], [0.5, 0.2]])).mode,
                D.Categorical(lib.ones(3)).mean, D.Cauchy(0.0, 1.0).variance]
    assert_same(run)


# ------------------------------------------------------------------ validation and errors

@pytest.mark.parametrize("fn", [
    lambda lib: lib.distributions.Normal(lib.tensor([0.0]), lib.tensor([-1.0])),
    lambda lib: lib.distributions.Bernoulli(lib.tensor([1.5])),
    lambda lib: lib.distributions.Categorical(lib.tensor([0.5, -0.5])),
    lambda lib: lib.distributions.Gamma(lib.tensor([1.0, 0.0]), 1.0),
    lambda lib: lib.distributions.Dirichlet(lib.tensor([1.0, -2.0])),
    lambda lib: lib.distributions.MultivariateNormal(lib.zeros(2), scale_tril=-lib.eye(2)),
    lambda lib: lib.distributions.Normal(0.0, 1.0).log_prob(lib.tensor([float("nan")])),
    lambda lib: lib.distributions.Exponential(1.0).log_prob(lib.tensor([-1.0])),
    lambda lib: lib.distributions.Bernoulli(0.3).log_prob(lib.tensor([0.5])),
    lambda lib: lib.distributions.Categorical(lib.ones(3)).log_prob(lib.tensor([3])),
    lambda lib: lib.distributions.Beta(2.0, 2.0).log_prob(lib.tensor(1.5)),
    lambda lib: lib.distributions.Normal(lib.zeros(3), 1.0).log_prob(lib.zeros(2)),
    lambda lib: lib.distributions.Normal(lib.zeros(3), 1.0).log_prob([0.0]),
    lambda lib: lib.distributions.Dirichlet(lib.ones(3)).log_prob(lib.ones(2)),
    lambda lib: lib.distributions.Bernoulli(),
    lambda lib: lib.distributions.Bernoulli(0.2, logits=0.1),
    lambda lib: lib.distributions.Categorical(lib.tensor(1.0)),
    lambda lib: lib.distributions.Dirichlet(lib.tensor(1.0)),
    lambda lib: lib.distributions.Uniform(1.0, 0.0),
    lambda lib: lib.distributions.Geometric(lib.tensor([0.0, 0.5])),
    lambda lib: lib.distributions.MultivariateNormal(lib.zeros(2)),
    lambda lib: lib.distributions.MultivariateNormal(lib.tensor(0.0), lib.eye(2)),
    lambda lib: lib.distributions.MultivariateNormal(lib.zeros(2), lib.ones(2)),
    lambda lib: lib.distributions.Independent(lib.distributions.Normal(0.0, 1.0), 1),
    lambda lib: lib.distributions.LowRankMultivariateNormal(lib.zeros(3), lib.ones(2, 1),
                                                            lib.ones(3)),
    lambda lib: lib.distributions.LowRankMultivariateNormal(lib.zeros(3), lib.ones(3, 1),
                                                            lib.ones(2)),
    lambda lib: lib.distributions.LowRankMultivariateNormal(lib.zeros(2, 3), lib.ones(3, 3, 1),
                                                            lib.ones(3)),
    lambda lib: lib.distributions.Normal("a", 1.0),
    lambda lib: lib.distributions.TransformedDistribution(
        lib.distributions.Normal(0.0, 1.0), "exp"),
    lambda lib: lib.distributions.MixtureSameFamily(
        lib.distributions.Categorical(lib.ones(3)),
        lib.distributions.Normal(lib.zeros(2), lib.ones(2))),
    lambda lib: lib.distributions.Distribution.set_default_validate_args(2),
])
@pytest.mark.cpu_only     # the messages print tensors, which name a CUDA device
def test_errors(fn):
    assert_same_error(fn)


def test_validation_can_be_turned_off():
    def run(lib):
        D = lib.distributions
        quiet = D.Normal(lib.tensor([0.0]), lib.tensor([-1.0]), validate_args=False)
        result = [quiet.log_prob(lib.tensor([1.0])).isnan().item()]
        D.Distribution.set_default_validate_args(False)
        try:
            result.append(D.Exponential(lib.tensor([-1.0])).rate.item())
            result.append(D.Exponential(1.0).log_prob(lib.tensor([-1.0])).item())
        finally:
            D.Distribution.set_default_validate_args(True)
        return result
    assert_same(run)


# ------------------------------------------------------------------ reprs

@pytest.mark.cpu_only     # a CUDA tensor's repr names its device
def test_reprs():
    def run(lib):
        D, C = lib.distributions, lib.distributions.constraints
        made = [D.Normal(0.0, 1.0), D.Normal(lib.zeros(2), lib.ones(2)), D.Bernoulli(0.3),
                D.Categorical(logits=lib.zeros(3)), D.Independent(D.Normal(lib.zeros(2), 1.0), 1),
                D.MultivariateNormal(lib.zeros(2), lib.eye(2)), D.LogNormal(0.0, 1.0),
                D.Beta(2.0, 3.0), D.Gamma(lib.tensor([2.0]), 1.0), D.Uniform(0.0, 1.0),
                D.MixtureSameFamily(D.Categorical(lib.ones(2)),
                                    D.Normal(lib.zeros(2), lib.ones(2)))]
        supports = [D.Normal(0.0, 1.0).support, D.Exponential(1.0).support,
                    D.Bernoulli(0.2).support, D.Categorical(lib.ones(3)).support,
                    D.Dirichlet(lib.ones(3)).support, D.Beta(1.0, 1.0).support,
                    D.MultivariateNormal(lib.zeros(2), lib.eye(2)).support,
                    D.Poisson(1.0).support, D.OneHotCategorical(lib.ones(2)).support,
                    D.Binomial(3, lib.tensor(0.5)).support, C.lower_cholesky,
                    C.positive_definite, C.greater_than(2.0), C.half_open_interval(0, 1),
                    D.Gumbel(0.0, 1.0).support]
        transforms = [D.ExpTransform(), D.ExpTransform().inv, D.AffineTransform(0.0, 2.0),
                      D.ComposeTransform([D.ExpTransform(), D.SigmoidTransform()])]
        return [repr(d) for d in made + supports + transforms]
    ours, theirs = assert_same_repr(run)


def assert_same_repr(run):
    ours, theirs = run(ag), run(torch)
    assert [s.replace("autograd_cy", "torch") for s in ours] == theirs
    return ours, theirs


def test_constraint_checks():
    def run(lib):
        C = lib.distributions.constraints
        x = lib.tensor([[0.2, 0.8], [0.5, 0.6]])
        m = lib.tensor([[[1.0, 0.0], [0.5, 2.0]], [[1.0, 1.0], [0.0, 1.0]]])
        return [C.simplex.check(x), C.unit_interval.check(x - 0.3), C.positive.check(x - 0.5),
                C.boolean.check(lib.tensor([0.0, 1.0, 0.5])), C.lower_triangular.check(m),
                C.lower_cholesky.check(m), C.positive_definite.check(m @ m.mT),
                C.independent(C.real, 1).check(lib.tensor([[1.0, float("nan")], [1.0, 2.0]])),
                C.integer_interval(0, 3).check(lib.tensor([0.0, 1.5, 3.0, 4.0])),
                C.nonnegative_integer.check(lib.tensor([-1.0, 0.0, 2.0])),
                C.one_hot.check(lib.tensor([[0.0, 1.0], [1.0, 1.0]])),
                C.is_dependent(C.dependent), C.real.event_dim, C.real_vector.event_dim]
    assert_same(run)


# ------------------------------------------------------------------ transforms

@pytest.mark.parametrize("make", [
    lambda D: D.ExpTransform(), lambda D: D.SigmoidTransform(), lambda D: D.TanhTransform(),
    lambda D: D.SoftplusTransform(), lambda D: D.AffineTransform(1.0, -2.0),
    lambda D: D.ComposeTransform([D.AffineTransform(0.5, 3.0), D.TanhTransform()]),
    lambda D: D.ExpTransform().inv, lambda D: D.PowerTransform(2.0),
    lambda D: D.StickBreakingTransform(),
    lambda D: D.CatTransform([D.ExpTransform(), D.SigmoidTransform()], dim=-1, lengths=[2, 3]),
    lambda D: D.StackTransform([D.ExpTransform(), D.TanhTransform()], dim=0),
    lambda D: D.CumulativeDistributionTransform(D.Normal(0.0, 2.0)),
    lambda D: D.biject_to(D.constraints.simplex),
    lambda D: D.biject_to(D.constraints.interval(-1.0, 2.0)),
    lambda D: D.transform_to(D.constraints.greater_than(1.0)),
    lambda D: D.biject_to(D.constraints.unit_interval),
    lambda D: D.biject_to(D.constraints.real_vector)])
def test_transforms_values_inverses_and_jacobians(make):
    def run(lib, x):
        t = make(lib.distributions)
        y = t(x)
        return y, t.inv(y), t.log_abs_det_jacobian(x, y)
    check_op(run, unit(2, 5))


def test_corr_cholesky_transform():
    def run(lib, x):
        t = lib.distributions.biject_to(lib.distributions.constraints.corr_cholesky)
        y = t(x)
        return y, t.inv(y), t.log_abs_det_jacobian(x, y)
    check_op(run, normal(2, 3))


def test_lkj_cholesky_samples_are_correlation_factors():
    def run(lib):
        lib.manual_seed(0)
        D = lib.distributions
        x = D.LKJCholesky(3, lib.tensor([0.5, 2.0])).sample((5,))
        rows = (x * x).sum(-1)
        return [tuple(x.shape), bool(D.constraints.corr_cholesky.check(x).all()),
                bool(((rows - 1).abs() < 1e-5).all())]
    assert_same(run)
    assert_same_error(lambda lib: lib.distributions.LKJCholesky(1), ValueError, exact=True)


@pytest.mark.parametrize("name", ["LowerCholeskyTransform", "PositiveDefiniteTransform"])
def test_matrix_transforms(name):
    def run(lib, x):
        t = getattr(lib.distributions, name)()
        y = t(x)
        return y, t.inv(y)
    check_op(run, normal(2, 3, 3) * 0.3)


def test_constraint_registry():
    def run(lib):
        D, C = lib.distributions, lib.distributions.constraints
        made = [D.biject_to(c) for c in (C.real, C.positive, C.simplex, C.unit_interval,
                                          C.interval(0.0, 2.0), C.less_than(1.0),
                                          C.real_vector)]
        made += [D.transform_to(c) for c in (C.simplex, C.lower_cholesky,
                                             C.positive_definite, C.nonnegative)]
        shapes = [tuple(D.biject_to(C.simplex).forward_shape((2, 3))),
                  tuple(D.biject_to(C.simplex).inverse_shape((2, 3)))]
        return [repr(t) for t in made] + shapes
    assert_same(run)
    assert_same_error(lambda lib: lib.distributions.biject_to(
        lib.distributions.constraints.lower_cholesky), NotImplementedError,
        "^Cannot transform _LowerCholesky constraints$")
    assert_same_error(lambda lib: lib.distributions.transform_to.register(3, lambda c: c),
                      TypeError, "^Expected constraint to be either a Constraint subclass")


def test_transformed_distribution_of_a_tanh_squashed_normal():
    """A tanh-squashed Gaussian policy, as SAC writes it."""
    def run(lib, loc, scale, y):
        D = lib.distributions
        dist = D.TransformedDistribution(D.Normal(loc, scale), [D.TanhTransform()])
        return dist.log_prob(y), tuple(dist.sample((2,)).shape)
    check_op(run, normal(3), positive(3), unit(3) - 0.5)


def test_transformed_distribution_with_an_event_dim():
    def run(lib, loc, scale, y):
        D = lib.distributions
        dist = D.TransformedDistribution(D.Normal(loc, scale),
                                         [D.AffineTransform(1.0, scale, event_dim=1)])
        return dist.log_prob(y), tuple(dist.batch_shape), tuple(dist.event_shape)
    check_op(run, normal(2, 3), positive(2, 3), normal(2, 3))


def test_lazy_probs_and_logits():
    def run(lib, logits):
        D = lib.distributions
        dist = D.Categorical(logits=logits)
        return dist.probs, D.utils.probs_to_logits(dist.probs), \
            D.utils.logits_to_probs(logits, is_binary=True), D.utils.clamp_probs(logits)
    check_op(run, normal(2, 3))

    def made(lib):
        dist = lib.distributions.Bernoulli(logits=lib.zeros(2))
        before = sorted(k for k in ("probs", "logits") if k in dist.__dict__)
        dist.probs
        return before, sorted(k for k in ("probs", "logits") if k in dist.__dict__)
    assert_same(made)


def test_broadcast_all():
    def run(lib):
        out = lib.distributions.utils.broadcast_all(lib.zeros(2, 1, dtype=lib.float64), 1.5,
                                                    lib.ones(3, dtype=lib.float64))
        return [(tuple(t.shape), str(t.dtype).split(".")[-1]) for t in out]
    assert_same(run)
    assert math.isclose(ag.distributions.utils.euler_constant, 0.5772156649015329)
    assert set(torch.distributions.__all__) <= set(ag.distributions.__all__)
    for name in torch.distributions.__all__:
        assert callable(getattr(ag.distributions, name)), name
    assert set(torch.distributions.transforms.__all__) <= set(ag.distributions.transforms.__all__)
    assert set(torch.distributions.constraints.__all__) <= set(
        ag.distributions.constraints.__all__)
    assert LIBS[0] is ag
