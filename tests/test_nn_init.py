"""nn.init and the CPU generator against torch: after the same manual_seed (or with the same
explicit Generator), the random factories, the in-place fills and every initializer give
torch's numbers; their errors and warnings are torch's."""
import math

import numpy as np
import pytest
import torch

import autograd_cy as ag
from oracle import assert_same_error, same_warning

pytestmark = pytest.mark.cpu_only       # the CPU generator's numbers


def both_seeded(make, seed=0):
    """``make(lib)`` after ``lib.manual_seed(seed)``, for both libraries, as arrays."""
    results = []
    for lib in (ag, torch):
        lib.manual_seed(seed)
        results.append(np.asarray(make(lib)))
    return results


def plain(value):
    return value.detach().numpy() if hasattr(value, "detach") else value


FACTORIES = {
    "rand": lambda lib: lib.rand(7, 3),
    "rand_float64": lambda lib: lib.rand(5, dtype=lib.float64),
    "rand_float16": lambda lib: lib.rand(9, dtype=lib.float16),
    "rand_bfloat16": lambda lib: lib.rand(9, dtype=lib.bfloat16).float(),
    "rand_complex": lambda lib: lib.rand(4, dtype=lib.complex64),
    "rand_like": lambda lib: lib.rand_like(lib.zeros(2, 5)),
    "uniform_": lambda lib: lib.empty(40).uniform_(-0.37, 1.25),
    "randint": lambda lib: lib.randint(3, 17, (20,)),
    "randint_wide": lambda lib: lib.randint(0, 2 ** 40, (6,)),
    "randperm": lambda lib: lib.randperm(25),
    "randperm_long": lambda lib: lib.randperm(3000)[:50],
    "random_": lambda lib: lib.empty(6, dtype=lib.int64).random_(),
    "random_int32": lambda lib: lib.empty(6, dtype=lib.int32).random_(),
    "random_float": lambda lib: lib.empty(6).random_(),
    "random_bounds": lambda lib: lib.empty(6, dtype=lib.int64).random_(-5, 9),
    "random_to": lambda lib: lib.empty(6, dtype=lib.int64).random_(4),
    "randn_small_float64": lambda lib: lib.randn(5, dtype=lib.float64),
    "randn_small": lambda lib: lib.randn(7),
    "randn_block_float64": lambda lib: lib.randn(37, dtype=lib.float64),
    "normal_small": lambda lib: lib.empty(3, dtype=lib.float64).normal_(2.0, 3.0),
    "randn_pairs_across_calls": lambda lib: [lib.randn(1, dtype=lib.float64).item()
                                             for _ in range(3)],
    "generator": lambda lib: lib.rand(4, generator=lib.Generator().manual_seed(7)),
    "large_seed": lambda lib: lib.randperm(8, generator=lib.Generator().manual_seed(2 ** 40 + 5)),
}


@pytest.mark.parametrize("name", FACTORIES)
def test_factories_give_torchs_numbers(name):
    ours, theirs = both_seeded(lambda lib: plain(FACTORIES[name](lib)))
    np.testing.assert_array_equal(ours, theirs)


@pytest.mark.parametrize("count", [16, 37, 100])
def test_randn_blocks_within_an_ulp(count):
    """torch's float32 normals come from vectorized log/sin/cos: equal up to the last bit."""
    ours, theirs = both_seeded(lambda lib: plain(lib.randn(count)))
    np.testing.assert_allclose(ours, theirs, rtol=3e-7, atol=3e-7)


def test_float64_uniform_with_bounds_to_the_last_bit():
    ours, theirs = both_seeded(lambda lib: plain(lib.empty(500, dtype=lib.float64)
                                                 .uniform_(-0.3, 0.7)))
    np.testing.assert_allclose(ours, theirs, rtol=2e-16, atol=0)


def test_state_round_trip_and_reseeding():
    def run(lib):
        lib.manual_seed(3)
        lib.randn(1, dtype=lib.float64)       # leaves the pair's second value waiting
        state = lib.get_rng_state()
        first = [lib.rand(3).tolist(), lib.randn(1, dtype=lib.float64).tolist()]
        lib.set_rng_state(state)
        again = [lib.rand(3).tolist(), lib.randn(1, dtype=lib.float64).tolist()]
        return first, again, lib.initial_seed()
    ours, theirs = run(ag), run(torch)
    assert ours[0] == ours[1] and ours == theirs


SHAPES = {"linear": (5, 7), "conv2d": (4, 3, 3, 3), "embedding": (11, 6), "conv1d": (2, 4, 5)}
INITS = {
    "uniform_": lambda init, t: init.uniform_(t, -0.5, 2.0),
    "xavier_uniform_": lambda init, t: init.xavier_uniform_(t, gain=1.5),
    "kaiming_uniform_": lambda init, t: init.kaiming_uniform_(t, a=math.sqrt(5)),
    "kaiming_uniform_relu_fan_out": lambda init, t: init.kaiming_uniform_(
        t, mode="fan_out", nonlinearity="relu"),
    "constant_": lambda init, t: init.constant_(t, 0.25),
    "ones_": lambda init, t: init.ones_(t),
    "zeros_": lambda init, t: init.zeros_(t),
}
APPROXIMATE_INITS = {
    "normal_": lambda init, t: init.normal_(t, 1.0, 0.5),
    "xavier_normal_": lambda init, t: init.xavier_normal_(t),
    "kaiming_normal_": lambda init, t: init.kaiming_normal_(t, nonlinearity="relu"),
    "trunc_normal_": lambda init, t: init.trunc_normal_(t, 0.1, 0.5, -0.3, 0.8),
    "orthogonal_": lambda init, t: init.orthogonal_(t, gain=2.0),
}


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("name", INITS)
def test_initializers_give_torchs_numbers(name, shape):
    ours, theirs = both_seeded(lambda lib: plain(INITS[name](
        lib.nn.init, lib.empty(SHAPES[shape]))))
    np.testing.assert_array_equal(ours, theirs)


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("name", APPROXIMATE_INITS)
def test_normal_initializers_agree_with_torch(name, shape):
    ours, theirs = both_seeded(lambda lib: plain(APPROXIMATE_INITS[name](
        lib.nn.init, lib.empty(SHAPES[shape], dtype=lib.float64))))
    np.testing.assert_allclose(ours, theirs, rtol=1e-6, atol=1e-7)


def test_gain_fans_errors_and_warnings():
    for args in [("linear",), ("tanh",), ("relu",), ("leaky_relu",), ("leaky_relu", 0.2),
                 ("selu",), ("conv2d",), ("sigmoid",)]:
        assert ag.nn.init.calculate_gain(*args) == torch.nn.init.calculate_gain(*args)
    assert_same_error(lambda lib: lib.nn.init.calculate_gain("swish"), ValueError, exact=True)
    assert_same_error(lambda lib: lib.nn.init.calculate_gain("leaky_relu", "x"), ValueError,
                      exact=True)
    assert_same_error(lambda lib: lib.nn.init.xavier_uniform_(lib.empty(3)), ValueError,
                      exact=True)
    assert_same_error(lambda lib: lib.nn.init.kaiming_uniform_(lib.empty(3, 3), mode="x"),
                      ValueError, exact=True)
    assert_same_error(lambda lib: lib.nn.init.eye_(lib.empty(3)), ValueError, exact=True)
    assert_same_error(lambda lib: lib.empty(3).uniform_(2, 1), RuntimeError, exact=True)
    assert_same_error(lambda lib: lib.empty(3, dtype=lib.int64).random_(5, 2), RuntimeError,
                      "random_ expects 'from' to be less than 'to'")
    same_warning(lambda lib: lib.nn.init.kaiming_uniform_(lib.empty(0, 3)), UserWarning,
                 "zero-element tensors is a no-op")
    assert (ag.nn.init.eye_(ag.empty(2, 3)).numpy() == np.eye(2, 3)).all()
