"""The CPU generator against torch: after the same manual_seed (or with the same explicit
Generator), the random factories and the in-place random fills give torch's numbers, in
the order torch writes them into strided tensors; the state bytes are torch's, and the
errors are torch's. On the emulated device the tests of numbers keep their tensors on the
CPU: the CUDA generator is Philox and makes no promise of torch's CUDA numbers."""
import numpy as np
import pytest
import torch

import autograd_cy as ag
from autograd_cy import cpu_random
from oracle import assert_same_error

cpu_only = pytest.mark.cpu_only         # the CPU generator's numbers


def both_seeded(make, seed=0):
    """``make(lib)`` after ``lib.manual_seed(seed)``, for both libraries, as arrays."""
    results = []
    for lib in (ag, torch):
        lib.manual_seed(seed)
        results.append(plain(make(lib)))
    return results


def plain(value):
    if hasattr(value, "detach"):
        if value.dtype in (ag.bfloat16, torch.bfloat16):
            value = value.float()
        return np.asarray(value.detach().numpy())
    return np.asarray(value)


def filled_through(view):
    """Fill ``view(x)`` of a zero 3x6 tensor in place; the whole base shows where torch
    wrote each value."""
    def make(lib, fill):
        base = lib.zeros(3, 6, dtype=lib.float64)
        fill(view(base))
        return base
    return make


FACTORIES = {
    "rand": lambda lib: lib.rand(7, 3),
    "rand_float64": lambda lib: lib.rand(5, dtype=lib.float64),
    "rand_float16": lambda lib: lib.rand(9, dtype=lib.float16),
    "rand_bfloat16": lambda lib: lib.rand(9, dtype=lib.bfloat16),
    "rand_complex": lambda lib: lib.rand(4, dtype=lib.complex64),
    "rand_like": lambda lib: lib.rand_like(lib.zeros(2, 5)),
    "rand_like_transposed": lambda lib: lib.rand_like(lib.zeros(3, 5).t()),
    "uniform_": lambda lib: lib.empty(40).uniform_(-0.37, 1.25),
    "uniform_float16": lambda lib: lib.empty(20, dtype=lib.float16).uniform_(-2, 3),
    "uniform_transposed": lambda lib: filled_through(lambda x: x.t())(
        lib, lambda v: v.uniform_()),
    "uniform_sliced": lambda lib: filled_through(lambda x: x[:, ::2])(
        lib, lambda v: v.uniform_(1, 2)),
    "randint": lambda lib: lib.randint(3, 17, (20,)),
    "randint_high_only": lambda lib: lib.randint(5, size=(2, 3)),
    "randint_int32": lambda lib: lib.randint(-3, 10, (9,), dtype=lib.int32),
    "randint_float": lambda lib: lib.randint(0, 10, (9,), dtype=lib.float32),
    "randint_wide": lambda lib: lib.randint(-2 ** 40, 2 ** 40, (6,)),
    "randperm": lambda lib: lib.randperm(25),
    "randperm_long": lambda lib: lib.randperm(3000)[:50],
    "randperm_float": lambda lib: lib.randperm(10, dtype=lib.float32),
    "randperm_int32": lambda lib: lib.randperm(10, dtype=lib.int32),
    "randperm_empty": lambda lib: lib.randperm(0),
    "random_": lambda lib: lib.empty(6, dtype=lib.int64).random_(),
    "random_int32": lambda lib: lib.empty(6, dtype=lib.int32).random_(),
    "random_uint8": lambda lib: lib.empty(8, dtype=lib.uint8).random_(),
    "random_int8": lambda lib: lib.empty(8, dtype=lib.int8).random_(),
    "random_int16": lambda lib: lib.empty(8, dtype=lib.int16).random_(),
    "random_bool": lambda lib: lib.empty(8, dtype=lib.bool).random_(),
    "random_float": lambda lib: lib.empty(6).random_(),
    "random_float64": lambda lib: lib.empty(6, dtype=lib.float64).random_(),
    "random_float16": lambda lib: lib.empty(6, dtype=lib.float16).random_(),
    "random_bounds": lambda lib: lib.empty(6, dtype=lib.int64).random_(-5, 9),
    "random_to": lambda lib: lib.empty(6, dtype=lib.int64).random_(4),
    "random_from_to_max": lambda lib: lib.empty(6, dtype=lib.int64).random_(-5, None),
    "random_from_to_max_int8": lambda lib: lib.empty(6, dtype=lib.int8).random_(-5, None),
    "random_from_to_max_float": lambda lib: lib.empty(6).random_(5, None),
    "random_wide_float64": lambda lib: lib.empty(4, dtype=lib.float64).random_(0, 2 ** 40),
    "random_transposed": lambda lib: filled_through(lambda x: x.t())(
        lib, lambda v: v.random_(100)),
    "randn_small_float64": lambda lib: lib.randn(5, dtype=lib.float64),
    "randn_small": lambda lib: lib.randn(7),
    "randn_block_float64": lambda lib: lib.randn(37, dtype=lib.float64),
    "randn_many_float64": lambda lib: lib.randn(50, 41, dtype=lib.float64),
    "normal_float64_scaled": lambda lib: lib.empty(333, dtype=lib.float64).normal_(-1.0, 0.3),
    "randn_blocks_float16": lambda lib: lib.randn(37, dtype=lib.float16),
    "randn_blocks_bfloat16": lambda lib: lib.randn(20, dtype=lib.bfloat16),
    "normal_small": lambda lib: lib.empty(3, dtype=lib.float64).normal_(2.0, 3.0),
    "normal_float16_scaled": lambda lib: lib.empty(50, dtype=lib.float16).normal_(1.5, 0.3),
    "normal_transposed_one_by_one": lambda lib: filled_through(lambda x: x.t())(
        lib, lambda v: v.normal_(1.0, 2.0)),
    "randn_like_transposed": lambda lib: lib.randn_like(
        lib.zeros(5, 4, dtype=lib.float64).t()),
    "randn_pairs_across_calls": lambda lib: [lib.randn(1, dtype=lib.float64).item()
                                             for _ in range(3)],
    "exponential_": lambda lib: lib.empty(5, dtype=lib.float64).exponential_(2.0),
    "exponential_float32": lambda lib: lib.empty(9).exponential_(),
    "exponential_many": lambda lib: lib.empty(3000, dtype=lib.float64).exponential_(0.7),
    "generator": lambda lib: lib.rand(4, generator=lib.Generator().manual_seed(7)),
    "large_seed": lambda lib: lib.randperm(8, generator=lib.Generator().manual_seed(2 ** 40 + 5)),
    "negative_seed": lambda lib: lib.rand(3, generator=lib.Generator().manual_seed(-1)),
    "loader_shuffle": lambda lib: lib.randperm(
        12, generator=lib.Generator().manual_seed(
            int(lib.empty((), dtype=lib.int64).random_().item()))),
}


@cpu_only
@pytest.mark.parametrize("name", FACTORIES)
def test_factories_give_torchs_numbers(name):
    ours, theirs = both_seeded(FACTORIES[name])
    assert ours.dtype == theirs.dtype
    np.testing.assert_array_equal(ours, theirs)


@cpu_only
@pytest.mark.parametrize("count", [16, 37, 100])
@pytest.mark.parametrize("mean,std", [(0.0, 1.0), (1.5, 0.25)])
def test_float32_normal_blocks_within_an_ulp(count, mean, std):
    """torch's float32 normals come from vectorized log/sin/cos: equal up to the last bit."""
    ours, theirs = both_seeded(lambda lib: lib.empty(count).normal_(mean, std))
    np.testing.assert_array_max_ulp(ours, theirs, maxulp=2)


@cpu_only
def test_float64_uniform_with_bounds_to_the_last_bit():
    ours, theirs = both_seeded(lambda lib: lib.empty(500, dtype=lib.float64).uniform_(-0.3, 0.7))
    np.testing.assert_allclose(ours, theirs, rtol=2e-16, atol=0)


DRAWS_WITH_A_GENERATOR = {
    "rand": lambda lib, g: lib.rand(5, generator=g),
    "randn": lambda lib, g: lib.randn(20, dtype=lib.float64, generator=g),
    "randint": lambda lib, g: lib.randint(0, 9, (5,), generator=g),
    "randperm": lambda lib, g: lib.randperm(9, generator=g),
    "uniform_": lambda lib, g: lib.empty(5).uniform_(generator=g),
    "normal_": lambda lib, g: lib.empty(3, dtype=lib.float64).normal_(generator=g),
    "random_": lambda lib, g: lib.empty(5, dtype=lib.int64).random_(generator=g),
    "exponential_": lambda lib, g: lib.empty(5).exponential_(generator=g),
}


@cpu_only
@pytest.mark.parametrize("name", DRAWS_WITH_A_GENERATOR)
def test_an_explicit_generator_leaves_the_default_alone(name):
    def run(lib):
        lib.manual_seed(1)
        drawn = plain(DRAWS_WITH_A_GENERATOR[name](lib, lib.Generator().manual_seed(11)))
        return drawn, plain(lib.rand(3))
    (ours, ours_after), (theirs, theirs_after) = run(ag), run(torch)
    np.testing.assert_array_equal(ours, theirs)
    np.testing.assert_array_equal(ours_after, theirs_after)
    ag.manual_seed(1)
    np.testing.assert_array_equal(ours_after, plain(ag.rand(3)))


@cpu_only
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


@cpu_only
@pytest.mark.parametrize("draws", [0, 1, 623, 624, 700])
def test_state_bytes_are_torchs(draws):
    """The state tensor is torch's byte for byte, a waiting normal value included, so
    either library's state restores the other's stream."""
    def state(lib):
        lib.manual_seed(12)
        lib.rand(draws)
        lib.randn(1, dtype=lib.float64)
        return lib.get_rng_state()
    ours, theirs = state(ag), state(torch)
    np.testing.assert_array_equal(ours.numpy(), theirs.numpy())
    ag.set_rng_state(ag.tensor(theirs.numpy()))
    torch.set_rng_state(torch.from_numpy(ours.numpy()))
    np.testing.assert_array_equal(plain(ag.randn(3, dtype=ag.float64)),
                                  plain(torch.randn(3, dtype=torch.float64)))


@cpu_only
def test_generator_state_and_seeds():
    def run(lib):
        g = lib.Generator().manual_seed(2 ** 64 - 1)
        lib.rand(2, generator=g)
        state = g.get_state()
        first = plain(lib.rand(4, generator=g))
        g.set_state(state)
        return g.initial_seed(), first, plain(lib.rand(4, generator=g))
    (seed, first, again), theirs = run(ag), run(torch)
    assert seed == theirs[0]
    np.testing.assert_array_equal(first, again)
    np.testing.assert_array_equal(first, theirs[1])
    for lib in (ag, torch):
        lib.manual_seed(-1)
    assert ag.initial_seed() == torch.initial_seed()


@cpu_only
def test_inside_out_permutation_is_a_permutation():
    """torch's randperm from 2**32 // 20 on (too long to compare with torch in a test):
    every number once, from the stream."""
    generator = ag.Generator().manual_seed(4)
    order = cpu_random._inside_out_permutation(generator, 3000)
    assert sorted(order.tolist()) == list(range(3000))
    assert order.tolist() != cpu_random._inside_out_permutation(generator, 3000).tolist()


ERRORS = {
    "uniform_reversed": lambda lib: lib.empty(3).uniform_(2, 1),
    "uniform_out_of_float16": lambda lib: lib.empty(3, dtype=lib.float16).uniform_(-1e5, 1),
    "uniform_span": lambda lib: lib.empty(3).uniform_(-3e38, 3e38),
    "uniform_integer": lambda lib: lib.empty(3, dtype=lib.int32).uniform_(),
    "normal_integer": lambda lib: lib.empty(3, dtype=lib.int64).normal_(),
    "normal_bool": lambda lib: lib.empty(3, dtype=lib.bool).normal_(),
    "normal_negative_std": lambda lib: lib.empty(3).normal_(0, -1),
    "random_reversed": lambda lib: lib.empty(3, dtype=lib.int64).random_(5, 2),
    "random_to_out_of_uint8": lambda lib: lib.empty(3, dtype=lib.uint8).random_(0, 300),
    "random_from_out_of_int8": lambda lib: lib.empty(3, dtype=lib.int8).random_(-200, 1),
    "random_from_out_of_bool": lambda lib: lib.empty(3, dtype=lib.bool).random_(5, None),
    "random_to_out_of_float16": lambda lib: lib.empty(3, dtype=lib.float16).random_(0, 2 ** 40),
    "randint_reversed": lambda lib: lib.randint(5, 2, (3,)),
    "randint_out_of_uint8": lambda lib: lib.randint(0, 300, (3,), dtype=lib.uint8),
    "randperm_negative": lambda lib: lib.randperm(-1),
    "randperm_float16_too_long": lambda lib: lib.randperm(3000, dtype=lib.float16),
    "randperm_int8_too_long": lambda lib: lib.randperm(300, dtype=lib.int8),
    "randperm_bool": lambda lib: lib.randperm(3, dtype=lib.bool),
    "exponential_zero_rate": lambda lib: lib.empty(3).exponential_(0),
    "exponential_integer": lambda lib: lib.empty(3, dtype=lib.int64).exponential_(),
    "state_size": lambda lib: lib.set_rng_state(lib.zeros(5048, dtype=lib.uint8)),
    "state_invalid": lambda lib: lib.set_rng_state(lib.zeros(5056, dtype=lib.uint8)),
}


@cpu_only
@pytest.mark.parametrize("name", ERRORS)
def test_errors_are_torchs(name):
    assert_same_error(ERRORS[name], exact=True)


FILLS = {
    "uniform_": (lambda t: t.uniform_(2, 3), 2, 3),
    "normal_": (lambda t: t.normal_(0, 1e-3), -1, 1),
    "random_": (lambda t: t.random_(3, 7), 3, 6),
    "exponential_": (lambda t: t.exponential_(4.0), 0, float("inf")),
}


@pytest.mark.parametrize("name", FILLS)
def test_fills_stay_on_the_tensors_device(name):
    """On the test device too (the emulated CUDA device in the device run), a fill writes
    in place, through views, in the distribution's range."""
    fill, low, high = FILLS[name]
    dtype = ag.int64 if name == "random_" else ag.float32
    base = ag.zeros(3, 5, dtype=dtype)
    view = base.t()
    assert fill(view) is view
    values = plain(base.cpu()).ravel()
    assert base.device.type == ag.get_default_device().type and base._version == 1
    assert values.min() >= low and values.max() <= high and len(set(values.tolist())) > 1


MULTINOMIAL_CASES = [([1.0, 2.0, 3.0, 0.5], 6, True), ([1.0, 2.0, 3.0, 0.5], 1, True),
                     ([[1.0, 2.0, 3.0, 0.5], [0.0, 1.0, 1.0, 1.0]], 3, False),
                     ([1.0, 2.0, 3.0, 0.5], 1, False), ([1.0, 0.0], 2, False),
                     ([[0.1] * 50, [float(i) for i in range(50)]], 20, True),
                     ([float(i) for i in range(100)], 30, False)]


@cpu_only
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16"])
@pytest.mark.parametrize("weights, n, replacement", MULTINOMIAL_CASES)
def test_multinomial_draws_torchs_categories(weights, n, replacement, dtype):
    theirs_generator = torch.Generator().manual_seed(3)
    ours_generator = ag.Generator().manual_seed(3)
    for _ in range(3):       # and leaves the generators in the same state
        theirs = torch.multinomial(torch.tensor(weights, dtype=getattr(torch, dtype)), n,
                                   replacement, generator=theirs_generator)
        ours = ag.multinomial(ag.tensor(weights, dtype=getattr(ag, dtype)), n, replacement,
                              generator=ours_generator)
        assert ours.dtype == ag.int64 and ours.tolist() == theirs.tolist()
    assert ag.tensor([1.0, 2.0]).multinomial(1).shape == (1,)


@cpu_only
@pytest.mark.parametrize("weights, n, replacement", [
    ([1.0, 2.0], 0, False), ([1.0, 2.0], 3, False), ([1.0, -1.0], 1, False),
    ([1.0, float("nan")], 1, False), ([0.0, 0.0], 1, False), ([[[1.0]]], 1, False),
    ([1, 2], 1, False), ([1.0, -1.0], 2, True), ([0.0, 0.0], 2, True),
    ([1.0, float("inf")], 2, True)])
def test_multinomial_errors_as_torch(weights, n, replacement):
    assert_same_error(lambda lib: lib.multinomial(lib.tensor(weights), n, replacement))


def test_the_default_generator_starts_from_entropy_as_torchs():
    """torch 2.13 seeds its default generator from the system at start (two unseeded runs
    differ), while a new Generator starts from the fixed seed 67280421310721."""
    import subprocess
    import sys
    script = "import {0} as lib; print(lib.initial_seed(), lib.Generator().initial_seed())"

    def fresh_seeds(name):
        runs = [subprocess.run([sys.executable, "-c", script.format(name)], capture_output=True,
                               text=True, check=True, timeout=300).stdout.split()
                for _ in range(2)]
        return [int(run[0]) for run in runs], [int(run[1]) for run in runs]
    for name in ("torch", "autograd_cy"):
        defaults, new = fresh_seeds(name)
        assert defaults[0] != defaults[1], name
        assert new == [67280421310721, 67280421310721], name
