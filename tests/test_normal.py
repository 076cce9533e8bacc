"""normal in all its overloads against torch: the same numbers after the same seed, shapes,
dtypes, out=, generator=, the zero gradients of NormalBackward1/2/3, and the errors."""
import numpy as np
import pytest

import autograd_cy as ag
from oracle import LIBS, assert_close, assert_same_error, node_name, on_test_device, to_numpy


def _seeded(fn):
    """``fn(lib)`` on both libraries after the same seed."""
    results = []
    for lib in LIBS:
        lib.manual_seed(1234)
        results.append(fn(lib))
    return results


def _same_draws(fn, cpu=True):
    """The same values (on the CPU: torch's bits, up to float rounding), shape and dtype."""
    ours, theirs = _seeded(fn)
    assert tuple(ours.shape) == tuple(theirs.shape)
    assert str(ours.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1]
    if cpu:
        np.testing.assert_allclose(to_numpy(ours), to_numpy(theirs), rtol=1e-6, atol=1e-6)
    return ours, theirs


MEAN = np.linspace(-3, 3, 20).reshape(4, 5)
STD = np.linspace(0.1, 2, 20).reshape(4, 5)


@pytest.mark.parametrize("make", [
    lambda lib: lib.normal(lib.tensor(MEAN, device="cpu"), lib.tensor(STD, device="cpu")),
    lambda lib: lib.normal(lib.tensor(MEAN, device="cpu", dtype=lib.float32), 2.5),
    lambda lib: lib.normal(lib.tensor(MEAN, device="cpu")),
    lambda lib: lib.normal(-1.0, lib.tensor(STD, device="cpu", dtype=lib.float32)),
    lambda lib: lib.normal(lib.tensor(MEAN[:, :1], device="cpu"),
                           lib.tensor(STD[0], device="cpu", dtype=lib.float32)),
    lambda lib: lib.normal(2.0, 3.0, (3, 7), device="cpu"),
    lambda lib: lib.normal(2.0, 3.0, size=(40,), dtype=lib.float64, device="cpu"),
    lambda lib: lib.normal(0, 1, (5,), device="cpu"),
    lambda lib: lib.normal(lib.tensor([1.0, 2.0, 3.0], device="cpu"), 0.0),
])
def test_normal_draws_torch_numbers(make):
    with on_test_device():
        _same_draws(make)


def test_normal_with_a_generator():
    def make(lib):
        generator = lib.Generator().manual_seed(7)
        return lib.normal(lib.zeros(30, device="cpu"), 1.0, generator=generator)
    _same_draws(make)


def test_normal_out():
    def make(lib):
        out = lib.empty(4, 5, device="cpu")
        result = lib.normal(lib.tensor(MEAN, device="cpu", dtype=lib.float32), 1.0, out=out)
        assert result is out
        return out
    _same_draws(make)

    def make_sized(lib):
        out = lib.empty(6, device="cpu")
        assert lib.normal(0.5, 2.0, (2, 3), out=out) is out
        return out
    _same_draws(make_sized)

    def make_both(lib):
        out = lib.empty(0, device="cpu", dtype=lib.float64)
        return lib.normal(lib.tensor(MEAN, device="cpu"), lib.tensor(STD[0], device="cpu"),
                          out=out)
    _same_draws(make_both)
    # torch broadcasts a tensor mean with out's shape when std is a number
    assert_same_error(lambda lib: lib.normal(lib.zeros(4, 5), 1.0, out=lib.empty(0)),
                      RuntimeError, exact=True)


@pytest.mark.parametrize("which, name", [("mean", "NormalBackward1"), ("std", "NormalBackward2"),
                                         ("both", "NormalBackward3")])
def test_normal_gradients_are_zero(which, name):
    results = []
    for lib in LIBS:
        mean = lib.tensor(MEAN, requires_grad=True) if which != "std" else 0.5
        std = lib.tensor(STD, requires_grad=True) if which != "mean" else 0.5
        sample = lib.normal(mean, std)
        assert node_name(sample.grad_fn) == name
        sample.sum().backward()
        grads = [t.grad for t in (mean, std) if isinstance(t, lib.Tensor)]
        results.append(grads)
    assert_close(results[0], results[1])


def test_normal_requires_grad_of_a_sized_draw():
    for lib in LIBS:
        sample = lib.normal(0.0, 1.0, (2,), requires_grad=True)
        assert sample.requires_grad and sample.is_leaf


def test_normal_on_the_test_device():
    with on_test_device():
        sample = ag.normal(ag.zeros(1000), ag.ones(1000) * 2)
        assert tuple(sample.shape) == (1000,)
        values = to_numpy(sample)
        assert 1.5 < values.std() < 2.5 and abs(values.mean()) < 0.3


def test_normal_errors():
    assert_same_error(lambda lib: lib.normal(0.0, lib.tensor([-1.0])), RuntimeError, exact=True)
    assert_same_error(lambda lib: lib.normal(lib.zeros(2), -1.0), RuntimeError, exact=True)
    assert_same_error(lambda lib: lib.normal(1.0, -2.0, (2,)), RuntimeError, exact=True)
    assert_same_error(lambda lib: lib.normal(lib.zeros(2), lib.ones(3)), RuntimeError,
                      exact=True)
    assert_same_error(lambda lib: lib.normal(0.0, 1.0), TypeError,
                      "received an invalid combination of arguments")
    assert_same_error(lambda lib: lib.normal(lib.zeros(2, requires_grad=True), 1.0,
                                             out=lib.empty(2)), RuntimeError, exact=True)
