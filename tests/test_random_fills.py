"""The in-place random fills cauchy_, geometric_ and log_normal_ (autograd_cy/
tensor_methods.py): torch's numbers after the same seed (NOTE [torch's CPU random
numbers]), their distributions, torch's argument and dtype errors, and the nodes they
record (zero gradients)."""
import math

import numpy as np
import pytest

import autograd_cy as ag
from oracle import LIBS, assert_same, assert_same_error, node_name, to_numpy

FILLS = {
    "cauchy": lambda t, g=None: t.cauchy_(0.5, 2.0, generator=g),
    "cauchy_defaults": lambda t, g=None: t.cauchy_(generator=g),
    "geometric": lambda t, g=None: t.geometric_(0.3, generator=g),
    "log_normal": lambda t, g=None: t.log_normal_(0.25, 0.5, generator=g),
    "log_normal_defaults": lambda t, g=None: t.log_normal_(generator=g),
}


def _seeded(fn, seed=7):
    results = []
    for lib in LIBS:
        lib.manual_seed(seed)
        results.append(to_numpy(fn(lib).double()))
    return results


@pytest.mark.cpu_only
@pytest.mark.parametrize("dtype", ["float64", "float32", "float16", "bfloat16"])
@pytest.mark.parametrize("name", FILLS)
def test_torchs_numbers_after_the_same_seed(name, dtype):
    ours, theirs = _seeded(lambda lib: FILLS[name](lib.empty(5, 7, dtype=getattr(lib, dtype))))
    np.testing.assert_array_equal(ours, theirs)


@pytest.mark.cpu_only
@pytest.mark.parametrize("name", FILLS)
def test_memory_order_generators_and_integer_dtypes(name):
    ours, theirs = _seeded(lambda lib: FILLS[name](lib.empty(4, 6, dtype=lib.float64).t()))
    np.testing.assert_array_equal(ours, theirs)
    results = []
    for lib in LIBS:
        generator = lib.Generator().manual_seed(11)
        results.append(to_numpy(FILLS[name](lib.empty(9), generator)))
    np.testing.assert_array_equal(*results)
    ours, theirs = _seeded(lambda lib: lib.empty(3, 4, dtype=lib.int64).geometric_(0.6))
    np.testing.assert_array_equal(ours, theirs)


@pytest.mark.cpu_only
def test_log_normal_shares_the_normal_pair_with_the_next_draw():
    ours, theirs = _seeded(lambda lib: lib.cat([lib.empty(3).log_normal_(),
                                                lib.empty(2, dtype=lib.float64).normal_()]))
    np.testing.assert_array_equal(ours, theirs)


def test_distributions():
    ag.manual_seed(0)
    n = 4000
    cauchy = to_numpy(ag.empty(n, dtype=ag.float64).cauchy_(1.0, 2.0))
    q25, q50, q75 = np.quantile(cauchy, [0.25, 0.5, 0.75])
    assert abs(q50 - 1.0) < 0.2 and abs((q75 - q25) / 2 - 2.0) < 0.3
    geometric = to_numpy(ag.empty(n, dtype=ag.float64).geometric_(0.25))
    assert geometric.min() >= 1 and np.all(geometric == np.round(geometric))
    assert abs(geometric.mean() - 4.0) < 0.25
    assert abs((geometric == 1).mean() - 0.25) < 0.03
    log_normal = np.log(to_numpy(ag.empty(n, dtype=ag.float64).log_normal_(0.5, 0.75)))
    assert abs(log_normal.mean() - 0.5) < 0.06 and abs(log_normal.std() - 0.75) < 0.06


@pytest.mark.parametrize("fn, kind", [
    (lambda lib: lib.zeros(2).cauchy_(0, 0), RuntimeError),
    (lambda lib: lib.zeros(2).cauchy_(0, -1.5), RuntimeError),
    (lambda lib: lib.zeros(2, dtype=lib.int64).cauchy_(), RuntimeError),
    (lambda lib: lib.zeros(2, dtype=lib.complex64).cauchy_(), RuntimeError),
    (lambda lib: lib.zeros(2).log_normal_(1, 0), RuntimeError),
    (lambda lib: lib.zeros(2, dtype=lib.int64).log_normal_(), NotImplementedError),
    (lambda lib: lib.zeros(2, dtype=lib.complex64).log_normal_(), NotImplementedError),
    (lambda lib: lib.zeros(2).geometric_(0), RuntimeError),
    (lambda lib: lib.zeros(2).geometric_(1), RuntimeError),
    (lambda lib: lib.zeros(2).geometric_(1.5), RuntimeError),
    (lambda lib: lib.zeros(2, dtype=lib.bool).geometric_(0.5), NotImplementedError),
    (lambda lib: lib.zeros(2, dtype=lib.complex64).geometric_(0.5), NotImplementedError),
    (lambda lib: lib.zeros(2, requires_grad=True).cauchy_(), RuntimeError),
])
def test_errors(fn, kind):
    assert_same_error(fn, kind, exact=True)


@pytest.mark.parametrize("name", ["cauchy_", "geometric_", "log_normal_"])
def test_nodes_and_zero_gradients(name):
    args = (0.5,) if name == "geometric_" else ()

    def run(lib):
        x = lib.ones(3, requires_grad=True)
        y = x * 2
        out = getattr(y, name)(*args)
        (out * 3).sum().backward()
        return [out is y, node_name(out.grad_fn), x.grad, y._version]
    assert_same(run)


def test_seed():
    def run(lib):
        seed = lib.seed()
        first = lib.initial_seed() == seed
        lib.manual_seed(seed)
        a = lib.rand(3)
        lib.manual_seed(seed)
        return [first, isinstance(seed, int), 0 <= seed < 2 ** 64,
                bool((a == lib.rand(3)).all()), lib.seed() != seed]
    assert_same(run)


def test_geometric_tail_is_finite():
    assert math.isfinite(float(ag.empty(1000, dtype=ag.float64).geometric_(0.999).max()))
