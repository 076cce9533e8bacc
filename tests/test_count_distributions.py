"""poisson and binomial (autograd_cy/count_distributions.py): torch's numbers after the same
seed (NOTE [Poisson and binomial draws]), in every regime of their samplers, their means
and variances, torch's errors, the nodes (PoissonBackward0 with zero gradients, binomial's
NotImplemented) and binomial's broadcast with torch's resize warning."""
import numpy as np
import pytest

import autograd_cy as ag
from oracle import LIBS, assert_same, assert_same_error, node_name, same_warning, to_numpy

RATES = [0.0, 0.3, 2.5, 9.9, 10.0, 15.5, 100.0, 1e4, 3.0, 1e-3]
COUNTS = [0, 5, 20, 50, 100, 1000, 7, 30, 200, 1e5, -3, 4]
PROBS = [0.5, 0.3, 0.4, 0.1, 0.9, 0.55, 1.0, 0.02, 0.97, 0.3, 0.5, 0.0]


def _seeded(fn, seed=5):
    results = []
    for lib in LIBS:
        lib.manual_seed(seed)
        results.append(to_numpy(fn(lib)))
    return results


@pytest.mark.cpu_only
@pytest.mark.parametrize("dtype", ["float64", "float32", "float16", "bfloat16"])
def test_poisson_is_torchs_sample(dtype):
    ours, theirs = _seeded(lambda lib: lib.poisson(
        lib.tensor(RATES * 3, dtype=getattr(lib, dtype)).reshape(3, 10).t()).double())
    np.testing.assert_array_equal(ours, theirs)


@pytest.mark.cpu_only
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_binomial_is_torchs_sample(dtype):
    def fn(lib):
        kind = getattr(lib, dtype)
        return lib.binomial(lib.tensor(COUNTS * 3, dtype=kind),
                            lib.tensor(PROBS * 3, dtype=kind))
    ours, theirs = _seeded(fn)
    np.testing.assert_array_equal(ours, theirs)


@pytest.mark.cpu_only
def test_generator_and_broadcast():
    results = []
    for lib in LIBS:
        generator = lib.Generator().manual_seed(3)
        results.append([to_numpy(lib.poisson(lib.full((4,), 12.0), generator)),
                        to_numpy(lib.binomial(lib.tensor([30.0, 2.0]),
                                              lib.tensor([[0.5], [0.2], [0.9]]), generator))])
    for ours, theirs in zip(*results):
        np.testing.assert_array_equal(ours, theirs)


def test_moments():
    ag.manual_seed(1)
    for rate in (3.0, 40.0):
        sample = to_numpy(ag.poisson(ag.full((4000,), rate, dtype=ag.float64)))
        assert abs(sample.mean() - rate) < 0.1 * rate ** 0.5 * 3
        assert abs(sample.var() / rate - 1) < 0.15
    for n, p in ((8.0, 0.3), (200.0, 0.4), (200.0, 0.8)):
        sample = to_numpy(ag.binomial(ag.full((4000,), n), ag.full((4000,), p)))
        assert sample.min() >= 0 and sample.max() <= n
        assert abs(sample.mean() - n * p) < 3 * (n * p * (1 - p) / 4000) ** 0.5 + 1e-9
        assert abs(sample.var() / (n * p * (1 - p)) - 1) < 0.15


def test_edge_values():
    def run(lib):
        return [lib.poisson(lib.tensor([0.0, float("inf")])),
                lib.binomial(lib.tensor([3.0, 3.0, -2.0, 5.0]),
                             lib.tensor([1.5, -0.5, 0.5, float("nan")]))]
    assert_same(run)


@pytest.mark.parametrize("fn, kind", [
    (lambda lib: lib.poisson(lib.tensor([-1.0])), RuntimeError),
    (lambda lib: lib.poisson(lib.tensor([float("nan")])), RuntimeError),
    (lambda lib: lib.poisson(lib.tensor([1])), NotImplementedError),
    (lambda lib: lib.poisson(lib.tensor([1j])), NotImplementedError),
    (lambda lib: lib.poisson(3.0), TypeError),
    (lambda lib: lib.binomial(lib.tensor([3]), lib.tensor([0.5])), ValueError),
    (lambda lib: lib.binomial(lib.tensor([3.0]), lib.tensor([1])), ValueError),
    (lambda lib: lib.binomial(lib.tensor([3.0]), lib.tensor([0.5], dtype=lib.float64)),
     RuntimeError),
    (lambda lib: lib.binomial(lib.tensor([3.0], dtype=lib.float16),
                              lib.tensor([0.5], dtype=lib.float16)), NotImplementedError),
    (lambda lib: lib.binomial(lib.tensor([3.0]), 0.5), TypeError),
])
def test_errors(fn, kind):
    assert_same_error(fn, kind, exact=True)


def test_nodes():
    def run(lib):
        rate = lib.tensor([1.0, 20.0], requires_grad=True)
        sample = lib.poisson(rate * 2)
        sample.sum().backward()
        count = lib.tensor([3.0], requires_grad=True)
        drawn = lib.binomial(count, lib.tensor([0.5]))
        return [node_name(sample.grad_fn), sample.requires_grad, rate.grad,
                node_name(drawn.grad_fn), drawn.requires_grad]
    assert_same(run)
    assert_same_error(lambda lib: lib.binomial(lib.tensor([3.0], requires_grad=True),
                                               lib.tensor([0.5])).sum().backward(),
                      RuntimeError, exact=True)


def test_binomial_resize_warning():
    same_warning(lambda lib: lib.binomial(lib.tensor([3.0, 2.0]), lib.tensor([[0.5], [0.2]])),
                 UserWarning, "An output with one or more elements was resized")
