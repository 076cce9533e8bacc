"""lgamma, digamma, polygamma, mvlgamma (autograd_cy/gamma_functions.py) against torch's:
float64 values over a wide range (to torch's accuracy), poles, infinities and NaN, integer
inputs, the nodes, gradients to the third order, forward AD, and errors."""
import numpy as np
import pytest

from oracle import assert_same, assert_same_error, check_jvp, check_op, node_name

RNG = np.random.default_rng(0)
WIDE = np.concatenate([RNG.uniform(-20, 20, 4000), RNG.uniform(-3, 3, 4000),
                       10 ** RNG.uniform(-8, 8, 2000), [10.0, 9.0, 1.0, 2.0, 0.5, -0.5,
                                                        1e-300, 1e300, 1.4616321449683622]])
SPECIAL = np.array([0.0, -0.0, -1.0, -2.0, -2.5, np.inf, -np.inf, np.nan, 1e-300])
FUNCTIONS = {
    "lgamma": lambda lib, x: lib.lgamma(x),
    "digamma": lambda lib, x: x.digamma(),
    "polygamma0": lambda lib, x: lib.polygamma(0, x),
    "polygamma1": lambda lib, x: x.polygamma(1),
    "polygamma2": lambda lib, x: lib.polygamma(2, x),
    "polygamma3": lambda lib, x: lib.polygamma(3, x),
    "polygamma6": lambda lib, x: lib.polygamma(6, x),
}


@pytest.mark.parametrize("name", FUNCTIONS)
def test_float64_values_to_torch_accuracy(name):
    # relative 1e-12, NaN and inf where torch's; near the roots of lgamma and digamma an
    # absolute 1e-15 (both libraries' error there is a few units of the last bit of 1)
    atol = 1e-15 if name in ("lgamma", "digamma", "polygamma0") else 1e-300
    check_op(FUNCTIONS[name], WIDE, requires_grad=[False], rtol=1e-12, atol=atol)
    check_op(FUNCTIONS[name], SPECIAL, requires_grad=[False], rtol=1e-12, atol=1e-300)


@pytest.mark.parametrize("name", FUNCTIONS)
def test_gradients(name):
    x = np.array([[0.3, 1.7, 4.2], [-0.6, 12.5, 2.0]])
    check_op(FUNCTIONS[name], x)
    check_op(FUNCTIONS[name], x, dtype=np.float32)
    check_jvp(FUNCTIONS[name], x)


@pytest.mark.parametrize("p", [1, 2, 3])
def test_mvlgamma(p):
    x = np.array([[1.3, 1.7, 4.2], [2.6, 12.5, 2.0]])
    check_op(lambda lib, t: lib.mvlgamma(t, p), x)
    check_op(lambda lib, t: t.mvlgamma(p=p), x, dtype=np.float32)
    check_jvp(lambda lib, t: lib.mvlgamma(t, p), x)


def test_third_derivative():
    import torch

    import autograd_cy as ag
    results = []
    for lib in (ag, torch):
        x = lib.tensor([0.7, 3.1], dtype=lib.float64, requires_grad=True)
        y = lib.lgamma(x).sum()
        for _ in range(3):
            (y,) = lib.autograd.grad(y, x, create_graph=True)
            y = y.sum()
        results.append(y.item())
    assert np.isclose(results[0], results[1], rtol=1e-12)


def test_integers_and_nodes():
    def run(lib):
        x = lib.tensor([0.5, 2.0], requires_grad=True)
        return [lib.lgamma(lib.arange(3)), lib.digamma(lib.arange(3)),
                lib.polygamma(1, lib.arange(3)), lib.mvlgamma(lib.arange(3, 5), 2),
                lib.lgamma(lib.tensor([True])), lib.mvlgamma(x, 2),
                [node_name(op(x).grad_fn) for op in (lib.lgamma, lib.digamma,
                                                     lambda t: t.polygamma(2),
                                                     lambda t: t.mvlgamma(1))]]
    assert_same(run, rtol=1e-6)


@pytest.mark.parametrize("fn", [
    lambda lib: lib.polygamma(-1, lib.ones(2)),
    lambda lib: lib.polygamma(1.5, lib.ones(2)),
    lambda lib: lib.mvlgamma(lib.ones(2), 0),
    lambda lib: lib.lgamma(lib.tensor([1j])),
    lambda lib: lib.digamma(lib.tensor([1j])),
])
def test_errors(fn):
    assert_same_error(fn, exact=True)
