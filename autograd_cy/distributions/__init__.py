"""torch.distributions: parameterizable probability distributions, their sampling
(``sample``, reparameterized ``rsample``), scoring (``log_prob``, ``cdf``, ``entropy``),
transforms, and ``kl_divergence``, written on autograd_cy's ops so that every score and
every reparameterized sample is differentiable in the parameters.

Samples come from autograd_cy's generator (``manual_seed`` repeats them); they agree with
torch's in distribution, not bit for bit. Gamma, Dirichlet, Beta, Chi2 and StudentT draw
their gamma variates through NumPy on that stream, with an implicit reparameterization
gradient (NOTE [The gamma sample's gradient] in numpy_draws.py); Poisson and Binomial draw
through NumPy too. See docs/distributions.md.

>>> import autograd_cy as ag
>>> from autograd_cy.distributions import Normal, kl_divergence
>>> p = Normal(ag.tensor([0.0, 1.0]), ag.tensor([1.0, 2.0]))
>>> p
Normal(loc: autograd_cy.Size([2]), scale: autograd_cy.Size([2]))
>>> p.log_prob(ag.tensor([0.5, 0.5]))
tensor([-1.0439, -1.6433])
>>> kl_divergence(p, Normal(0.0, 1.0))
tensor([0.0000, 1.3069])
"""
from autograd_cy.distributions import constraints, transforms  # noqa: F401
from autograd_cy.distributions.bernoulli import Bernoulli
from autograd_cy.distributions.beta import Beta
from autograd_cy.distributions.binomial import Binomial
from autograd_cy.distributions.categorical import Categorical
from autograd_cy.distributions.cauchy import Cauchy
from autograd_cy.distributions.chi2 import Chi2
from autograd_cy.distributions.continuous_bernoulli import ContinuousBernoulli
from autograd_cy.distributions.dirichlet import Dirichlet
from autograd_cy.distributions.distribution import Distribution
from autograd_cy.distributions.exp_family import ExponentialFamily
from autograd_cy.distributions.exponential import Exponential
from autograd_cy.distributions.fishersnedecor import FisherSnedecor
from autograd_cy.distributions.gamma import Gamma
from autograd_cy.distributions.generalized_pareto import GeneralizedPareto
from autograd_cy.distributions.geometric import Geometric
from autograd_cy.distributions.gumbel import Gumbel
from autograd_cy.distributions.half_cauchy import HalfCauchy
from autograd_cy.distributions.half_normal import HalfNormal
from autograd_cy.distributions.independent import Independent
from autograd_cy.distributions.inverse_gamma import InverseGamma
from autograd_cy.distributions.kl import kl_divergence, register_kl
from autograd_cy.distributions import kl_cross_families  # noqa: F401  (registers the pairs)
from autograd_cy.distributions.kumaraswamy import Kumaraswamy
from autograd_cy.distributions.laplace import Laplace
from autograd_cy.distributions.lkj_cholesky import LKJCholesky
from autograd_cy.distributions.log_normal import LogNormal
from autograd_cy.distributions.logistic_normal import LogisticNormal
from autograd_cy.distributions.lowrank_multivariate_normal import LowRankMultivariateNormal
from autograd_cy.distributions import kl_low_rank_normal  # noqa: F401  (registers the pairs)
from autograd_cy.distributions.mixture_same_family import MixtureSameFamily
from autograd_cy.distributions.multinomial import Multinomial
from autograd_cy.distributions.multivariate_normal import MultivariateNormal
from autograd_cy.distributions.negative_binomial import NegativeBinomial
from autograd_cy.distributions.normal import Normal
from autograd_cy.distributions.one_hot_categorical import (
    OneHotCategorical, OneHotCategoricalStraightThrough)
from autograd_cy.distributions.pareto import Pareto
from autograd_cy.distributions.poisson import Poisson
from autograd_cy.distributions.relaxed_bernoulli import RelaxedBernoulli
from autograd_cy.distributions.relaxed_categorical import RelaxedOneHotCategorical
from autograd_cy.distributions.constraint_registry import biject_to, transform_to
from autograd_cy.distributions.structured_transforms import (
    CatTransform, CorrCholeskyTransform, CumulativeDistributionTransform,
    LowerCholeskyTransform, PositiveDefiniteTransform, StackTransform, StickBreakingTransform)
from autograd_cy.distributions.studentT import StudentT
from autograd_cy.distributions.transformed_distribution import TransformedDistribution
from autograd_cy.distributions.transforms import (
    AbsTransform, AffineTransform, ComposeTransform, ExpTransform, IndependentTransform,
    PowerTransform, ReshapeTransform, SigmoidTransform, SoftmaxTransform, SoftplusTransform,
    TanhTransform, Transform, identity_transform)
from autograd_cy.distributions.uniform import Uniform
from autograd_cy.distributions.von_mises import VonMises
from autograd_cy.distributions.weibull import Weibull
from autograd_cy.distributions.wishart import Wishart

__all__ = [
    "Bernoulli", "Beta", "Binomial", "Categorical", "Cauchy", "Chi2", "ContinuousBernoulli",
    "Dirichlet", "Distribution", "Exponential", "ExponentialFamily", "FisherSnedecor", "Gamma",
    "GeneralizedPareto", "Geometric", "Gumbel", "HalfCauchy", "HalfNormal", "Independent",
    "InverseGamma", "Kumaraswamy", "LKJCholesky", "Laplace", "LogNormal", "LogisticNormal",
    "LowRankMultivariateNormal", "MixtureSameFamily", "Multinomial", "MultivariateNormal",
    "NegativeBinomial", "Normal", "OneHotCategorical", "OneHotCategoricalStraightThrough",
    "Pareto", "Poisson", "RelaxedBernoulli", "RelaxedOneHotCategorical", "StudentT",
    "TransformedDistribution", "Uniform", "VonMises", "Weibull", "Wishart", "kl_divergence",
    "register_kl", "AbsTransform", "AffineTransform", "ComposeTransform", "ExpTransform",
    "IndependentTransform", "PowerTransform", "ReshapeTransform", "SigmoidTransform",
    "SoftmaxTransform", "SoftplusTransform", "TanhTransform", "Transform", "identity_transform",
    "biject_to", "transform_to", "CatTransform", "CumulativeDistributionTransform",
    "LowerCholeskyTransform", "PositiveDefiniteTransform", "StackTransform",
    "StickBreakingTransform", "CorrCholeskyTransform"]
