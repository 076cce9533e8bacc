"""kl_divergence and register_kl against torch's: KL values of the common pairs with their
gradients and second derivatives in both distributions' parameters (check_op), infinite
KLs, dispatch through subclasses, ambiguity warnings and errors."""
import numpy as np
import pytest

import autograd_cy as ag
import torch
from oracle import assert_same, assert_same_error, check_op, same_warning

RNG = np.random.default_rng(11)


def positive(*shape):
    return RNG.uniform(0.5, 2.0, shape)


def unit(*shape):
    return RNG.uniform(0.05, 0.95, shape)


def normal(*shape):
    return RNG.standard_normal(shape)


def tril(lib, raw, log_diagonal):
    return lib.tril(raw, -1) + lib.diag_embed(log_diagonal.exp())


# name: (make_p(D, *a), make_q(D, *b), arrays of p, arrays of q)
PAIRS = {
    "Normal": (lambda D, m, s: D.Normal(m, s), lambda D, m, s: D.Normal(m, s),
               (normal(2, 3), positive(2, 3)), (normal(3), positive(2, 3))),
    "Bernoulli": (lambda D, p: D.Bernoulli(p), lambda D, lg: D.Bernoulli(logits=lg),
                  (unit(4),), (normal(4),)),
    "Categorical": (lambda D, p: D.Categorical(probs=p), lambda D, lg: D.Categorical(logits=lg),
                    (positive(2, 4),), (normal(2, 4),)),
    "OneHotCategorical": (lambda D, p: D.OneHotCategorical(p),
                          lambda D, p: D.OneHotCategorical(p), (positive(3),), (positive(3),)),
    "MultivariateNormal": (
        lambda D, m, raw, d: D.MultivariateNormal(m, scale_tril=tril(
            ag if isinstance(m, ag.Tensor) else torch, raw, d)),
        lambda D, m, raw, d: D.MultivariateNormal(m, covariance_matrix=(lambda L: L @ L.mT)(
            tril(ag if isinstance(m, ag.Tensor) else torch, raw, d))),
        (normal(2, 3), normal(3, 3), normal(3)), (normal(3), normal(2, 3, 3), normal(2, 3))),
    "Independent": (lambda D, m, s: D.Independent(D.Normal(m, s), 1),
                    lambda D, m, s: D.Independent(D.Normal(m, s), 1),
                    (normal(2, 3), positive(2, 3)), (normal(2, 3), positive(2, 3))),
    "Uniform": (lambda D, low, w: D.Uniform(low, low + w),
                lambda D, low, w: D.Uniform(low - 3, low + w + 3),
                (normal(4), positive(4)), (normal(4) * 0.1, positive(4))),
    "Beta": (lambda D, a, b: D.Beta(a, b), lambda D, a, b: D.Beta(a, b),
             (positive(4), positive(4)), (positive(4), positive(4))),
    "Gamma": (lambda D, a, b: D.Gamma(a, b), lambda D, a, b: D.Gamma(a, b),
              (positive(4), positive(4)), (positive(4), positive(4))),
    "Dirichlet": (lambda D, c: D.Dirichlet(c), lambda D, c: D.Dirichlet(c),
                  (positive(2, 3),), (positive(2, 3),)),
    "Exponential": (lambda D, r: D.Exponential(r), lambda D, r: D.Exponential(r),
                    (positive(4),), (positive(4),)),
    "Laplace": (lambda D, m, s: D.Laplace(m, s), lambda D, m, s: D.Laplace(m, s),
                (normal(4), positive(4)), (normal(4), positive(4))),
    "Poisson": (lambda D, r: D.Poisson(r), lambda D, r: D.Poisson(r),
                (positive(4),), (positive(4),)),
    "Geometric": (lambda D, p: D.Geometric(p), lambda D, p: D.Geometric(p),
                  (unit(4),), (unit(4),)),
    "Gumbel": (lambda D, m, s: D.Gumbel(m, s), lambda D, m, s: D.Gumbel(m, s),
               (normal(4), positive(4)), (normal(4), positive(4))),
    "Cauchy": (lambda D, m, s: D.Cauchy(m, s), lambda D, m, s: D.Cauchy(m, s),
               (normal(4), positive(4)), (normal(4), positive(4))),
    "LogNormal": (lambda D, m, s: D.LogNormal(m, s), lambda D, m, s: D.LogNormal(m, s),
                  (normal(4), positive(4)), (normal(4), positive(4))),
    "Chi2_Gamma": (lambda D, df: D.Chi2(df), lambda D, a, b: D.Gamma(a, b),
                   (positive(4),), (positive(4), positive(4))),
    "Binomial": (lambda D, p: D.Binomial(5, p), lambda D, p: D.Binomial(5, p),
                 (unit(4),), (unit(4),)),
    "Uniform_Normal": (lambda D, low, w: D.Uniform(low, low + w),
                       lambda D, m, s: D.Normal(m, s),
                       (normal(4), positive(4)), (normal(4), positive(4))),
    "LowRank": (lambda D, m, W, d: D.LowRankMultivariateNormal(m, W, d),
                lambda D, m, W, d: D.LowRankMultivariateNormal(m, W, d),
                (normal(2, 3), normal(3, 2), positive(3)),
                (normal(3), normal(2, 3, 1), positive(2, 3))),
    "MultivariateNormal_LowRank": (
        lambda D, m, raw, d: D.MultivariateNormal(m, scale_tril=tril(
            ag if isinstance(m, ag.Tensor) else torch, raw, d)),
        lambda D, m, W, d: D.LowRankMultivariateNormal(m, W, d),
        (normal(2, 3), normal(3, 3), normal(3)), (normal(3), normal(3, 2), positive(3))),
    "LowRank_MultivariateNormal": (
        lambda D, m, W, d: D.LowRankMultivariateNormal(m, W, d),
        lambda D, m, raw, d: D.MultivariateNormal(m, scale_tril=tril(
            ag if isinstance(m, ag.Tensor) else torch, raw, d)),
        (normal(2, 3), normal(3, 2), positive(3)), (normal(3), normal(3, 3), normal(3))),
    "Wishart": (lambda D, df, raw, d: D.Wishart(df + 2, scale_tril=tril(
        ag if isinstance(raw, ag.Tensor) else torch, raw, d)),
        lambda D, df, raw, d: D.Wishart(df + 2, scale_tril=tril(
            ag if isinstance(raw, ag.Tensor) else torch, raw, d)),
        (positive(3), normal(2, 2) * 0.3, normal(2) * 0.3),
        (positive(3), normal(2, 2) * 0.3, normal(2) * 0.3)),
    "HalfNormal": (lambda D, s: D.HalfNormal(s), lambda D, s: D.HalfNormal(s),
                   (positive(4),), (positive(4),)),
    "Pareto": (lambda D, s, a: D.Pareto(s, a), lambda D, s, a: D.Pareto(s * 0.5, a),
               (positive(4), positive(4)), (positive(4) * 0.9, positive(4))),
    "ContinuousBernoulli": (lambda D, p: D.ContinuousBernoulli(p),
                            lambda D, lg: D.ContinuousBernoulli(logits=lg),
                            (unit(4),), (normal(4),)),
    "Bernoulli_Poisson": (lambda D, p: D.Bernoulli(p), lambda D, r: D.Poisson(r),
                          (unit(4),), (positive(4),)),
    "Beta_Exponential": (lambda D, a, b: D.Beta(a, b), lambda D, r: D.Exponential(r),
                         (positive(4), positive(4)), (positive(4),)),
    "Beta_Gamma": (lambda D, a, b: D.Beta(a, b), lambda D, c, r: D.Gamma(c, r),
                   (positive(4), positive(4)), (positive(4), positive(4))),
    "Beta_Normal": (lambda D, a, b: D.Beta(a, b), lambda D, m, s: D.Normal(m, s),
                    (positive(4), positive(4)), (normal(4), positive(4))),
    "Beta_Uniform": (lambda D, a, b: D.Beta(a, b), lambda D, lo, hi: D.Uniform(lo - 1, hi + 1),
                     (positive(4), positive(4)), (unit(4), unit(4))),
    "Beta_ContinuousBernoulli": (lambda D, a, b: D.Beta(a, b),
                                 lambda D, p: D.ContinuousBernoulli(p),
                                 (positive(4), positive(4)), (unit(4),)),
    "ContinuousBernoulli_Exponential": (lambda D, p: D.ContinuousBernoulli(p),
                                        lambda D, r: D.Exponential(r), (unit(4),),
                                        (positive(4),)),
    "ContinuousBernoulli_Normal": (lambda D, p: D.ContinuousBernoulli(p),
                                   lambda D, m, s: D.Normal(m, s), (unit(4),),
                                   (normal(4), positive(4))),
    "ContinuousBernoulli_Uniform": (lambda D, p: D.ContinuousBernoulli(p),
                                    lambda D, lo, w: D.Uniform(lo - 1, lo + w),
                                    (unit(4),), (unit(4), positive(4))),
    "Exponential_Gamma": (lambda D, r: D.Exponential(r), lambda D, c, r: D.Gamma(c, r),
                          (positive(4),), (positive(4), positive(4))),
    "Exponential_Gumbel": (lambda D, r: D.Exponential(r), lambda D, m, s: D.Gumbel(m, s),
                           (positive(4),), (normal(4), positive(4))),
    "Exponential_Normal": (lambda D, r: D.Exponential(r), lambda D, m, s: D.Normal(m, s),
                           (positive(4),), (normal(4), positive(4))),
    "Gamma_Exponential": (lambda D, c, r: D.Gamma(c, r), lambda D, r: D.Exponential(r),
                          (positive(4), positive(4)), (positive(4),)),
    "Gamma_Gumbel": (lambda D, c, r: D.Gamma(c, r), lambda D, m, s: D.Gumbel(m, s),
                     (positive(4), positive(4)), (normal(4), positive(4))),
    "Gamma_Normal": (lambda D, c, r: D.Gamma(c, r), lambda D, m, s: D.Normal(m, s),
                     (positive(4), positive(4)), (normal(4), positive(4))),
    "Gumbel_Normal": (lambda D, m, s: D.Gumbel(m, s), lambda D, m2, s2: D.Normal(m2, s2),
                      (normal(4), positive(4)), (normal(4), positive(4))),
    "Laplace_Normal": (lambda D, m, s: D.Laplace(m, s), lambda D, m2, s2: D.Normal(m2, s2),
                       (normal(4), positive(4)), (normal(4), positive(4))),
    "Normal_Gumbel": (lambda D, m, s: D.Normal(m, s), lambda D, m2, s2: D.Gumbel(m2, s2),
                      (normal(4), positive(4)), (normal(4), positive(4))),
    "Normal_Laplace": (lambda D, m, s: D.Normal(m, s), lambda D, m2, s2: D.Laplace(m2, s2),
                       (normal(4), positive(4)), (normal(4), positive(4))),
    "Pareto_Exponential": (lambda D, s, a: D.Pareto(s, a + 0.5), lambda D, r: D.Exponential(r),
                           (positive(4), positive(4)), (positive(4),)),
    "Pareto_Gamma": (lambda D, s, a: D.Pareto(s, a + 0.5), lambda D, c, r: D.Gamma(c, r),
                     (positive(4), positive(4)), (positive(4), positive(4))),
    "Pareto_Normal": (lambda D, s, a: D.Pareto(s, a + 1.5), lambda D, m, sc: D.Normal(m, sc),
                      (positive(4), positive(4)), (normal(4), positive(4))),
    "Uniform_Beta": (lambda D, lo, w: D.Uniform(lo * 0.4, lo * 0.4 + w * 0.2),
                     lambda D, a, b: D.Beta(a, b), (unit(4), unit(4)),
                     (positive(4), positive(4))),
    "Uniform_ContinuousBernoulli": (lambda D, lo, w: D.Uniform(lo * 0.4, lo * 0.4 + w * 0.2),
                                    lambda D, p: D.ContinuousBernoulli(p),
                                    (unit(4), unit(4)), (unit(4),)),
    "Uniform_Exponential": (lambda D, lo, w: D.Uniform(lo, lo + w),
                            lambda D, r: D.Exponential(r), (unit(4), positive(4)),
                            (positive(4),)),
    "Uniform_Gamma": (lambda D, lo, w: D.Uniform(lo, lo + w), lambda D, c, r: D.Gamma(c, r),
                      (unit(4), positive(4)), (positive(4), positive(4))),
    "Uniform_Gumbel": (lambda D, lo, w: D.Uniform(lo, lo + w), lambda D, m, s: D.Gumbel(m, s),
                       (normal(4), positive(4)), (normal(4), positive(4))),
    "Uniform_Pareto": (lambda D, lo, w: D.Uniform(lo + 2, lo + 2 + w),
                       lambda D, s, a: D.Pareto(s, a), (unit(4), positive(4)),
                       (positive(4), positive(4))),
}


@pytest.mark.parametrize("name", PAIRS)
def test_kl_values_and_gradients(name):
    make_p, make_q, p_arrays, q_arrays = PAIRS[name]
    count = len(p_arrays)

    def run(lib, *tensors):
        D = lib.distributions
        return D.kl_divergence(make_p(D, *tensors[:count]), make_q(D, *tensors[count:]))
    check_op(run, *p_arrays, *q_arrays)


BREGMAN = {
    "Normal": (lambda D, a, b: D.Normal(a - 1, b), 2),
    "Gamma": (lambda D, a, b: D.Gamma(a, b), 2),
    "Beta": (lambda D, a, b: D.Beta(a, b), 2),
    "Dirichlet": (lambda D, a: D.Dirichlet(a), 1),
    "Poisson": (lambda D, a: D.Poisson(a), 1),
    "Bernoulli": (lambda D, a: D.Bernoulli(a / 2.5), 1),
    "Exponential": (lambda D, a: D.Exponential(a), 1),
    "ContinuousBernoulli": (lambda D, a: D.ContinuousBernoulli(a / 2.5), 1),
}


@pytest.mark.parametrize("name", BREGMAN)
def test_the_exponential_family_bregman_kl(name):
    """KL through the log normalizer's gradient (what a same-family pair without a closed
    form gets), called directly, as torch's _kl_expfamily_expfamily."""
    make, count = BREGMAN[name]

    def run(lib, *tensors):
        D = lib.distributions
        return D.kl._kl_expfamily_expfamily(make(D, *tensors[:count]),
                                            make(D, *tensors[count:]))
    shape = (2, 3) if name == "Dirichlet" else (3,)
    check_op(run, *(positive(*shape) for _ in range(2 * count)))


def test_infinite_kls():
    def run(lib):
        D = lib.distributions
        return [D.kl_divergence(D.Uniform(0.0, 2.0), D.Uniform(lib.tensor([0.5, -1.0]), 3.0)),
                D.kl_divergence(D.Categorical(lib.tensor([0.5, 0.5, 0.0])),
                                D.Categorical(lib.tensor([0.0, 1.0, 1.0]))),
                D.kl_divergence(D.Bernoulli(lib.tensor([0.0, 1.0, 0.5])),
                                D.Bernoulli(lib.tensor([1.0, 0.0, 0.0]))),
                D.kl_divergence(D.Normal(0.0, 1.0), D.Uniform(0.0, 1.0)),
                D.kl_divergence(D.Poisson(lib.ones(2)), D.Binomial(3, lib.ones(2) * 0.5)),
                D.kl_divergence(D.Gumbel(0.0, lib.ones(2)), D.Exponential(1.0)),
                D.kl_divergence(D.Exponential(lib.ones(2)), D.Uniform(0.0, 1.0)),
                D.kl_divergence(D.Pareto(lib.ones(2), 1.0), D.Normal(0.0, 1.0)),
                D.kl_divergence(D.Uniform(lib.tensor([-1.0, 0.2]), 0.5), D.Exponential(1.0)),
                D.kl_divergence(D.Pareto(lib.tensor([1.0, 2.0]), 2.0),
                                D.Pareto(lib.tensor([1.5, 1.5]), 2.0))]
    assert_same(run)


def test_dispatch_through_subclasses_and_register_kl():
    def run(lib):
        D = lib.distributions

        class MyNormal(D.Normal):
            pass

        kl = D.kl_divergence(MyNormal(0.0, 1.0), D.Normal(1.0, 2.0))

        class Special(D.Normal):
            pass

        @D.register_kl(Special, D.Normal)
        def _special(p, q):
            return lib.tensor(42.0)

        try:
            return [kl, D.kl_divergence(Special(0.0, 1.0), D.Normal(0.0, 1.0)),
                    D.kl_divergence(D.Normal(0.0, 1.0), D.Normal(0.0, 1.0))]
        finally:
            del D.kl._KL_REGISTRY[Special, D.Normal]
            D.kl._KL_MEMOIZE.clear()
    assert_same(run)


def test_an_ambiguous_pair_warns():
    def run(lib):
        D = lib.distributions

        class P(D.Normal):
            pass

        class Q(D.Normal):
            pass
        D.register_kl(P, D.Normal)(lambda p, q: lib.tensor(1.0))
        D.register_kl(D.Normal, Q)(lambda p, q: lib.tensor(2.0))
        try:
            return D.kl_divergence(P(0.0, 1.0), Q(0.0, 1.0))
        finally:
            del D.kl._KL_REGISTRY[P, D.Normal], D.kl._KL_REGISTRY[D.Normal, Q]
            D.kl._KL_MEMOIZE.clear()
    ours, theirs = same_warning(run, RuntimeWarning, r"Ambiguous kl_divergence\(P, Q\)")
    assert ours.item() == theirs.item()


@pytest.mark.parametrize("fn", [
    lambda lib: lib.distributions.kl_divergence(
        lib.distributions.Categorical(lib.ones(2)), lib.distributions.Normal(0.0, 1.0)),
    lambda lib: lib.distributions.kl_divergence(
        lib.distributions.Normal(0.0, 1.0), lib.distributions.Bernoulli(0.3)),
    lambda lib: lib.distributions.kl_divergence(
        lib.distributions.MultivariateNormal(lib.zeros(2), lib.eye(2)),
        lib.distributions.MultivariateNormal(lib.zeros(3), lib.eye(3))),
    lambda lib: lib.distributions.kl_divergence(
        lib.distributions.LowRankMultivariateNormal(lib.zeros(2), lib.ones(2, 1), lib.ones(2)),
        lib.distributions.MultivariateNormal(lib.zeros(3), lib.eye(3))),
    lambda lib: lib.distributions.kl_divergence(
        lib.distributions.LowRankMultivariateNormal(lib.zeros(2), lib.ones(2, 1), lib.ones(2)),
        lib.distributions.LowRankMultivariateNormal(lib.zeros(3), lib.ones(3, 1),
                                                    lib.ones(3))),
    lambda lib: lib.distributions.kl_divergence(
        lib.distributions.Independent(lib.distributions.Normal(lib.zeros(2, 2), 1.0), 1),
        lib.distributions.Independent(lib.distributions.Normal(lib.zeros(2, 2), 1.0), 2)),
    lambda lib: lib.distributions.kl_divergence(
        lib.distributions.TransformedDistribution(lib.distributions.Normal(0.0, 1.0),
                                                  lib.distributions.ExpTransform()),
        lib.distributions.TransformedDistribution(lib.distributions.Normal(0.0, 1.0),
                                                  lib.distributions.SigmoidTransform())),
])
def test_errors(fn):
    assert_same_error(fn)
