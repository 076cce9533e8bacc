"""i0 (autograd_cy/bessel.py) against torch's: float64 values over a wide range (the
series/asymptotic seam at 30 included, overflow, infinities, NaN), integer inputs,
I0Backward0, gradients through i1 to the third order, forward AD, and errors."""
import numpy as np
import pytest

from oracle import assert_same, assert_same_error, check_jvp, check_op, node_name

RNG = np.random.default_rng(0)
WIDE = np.concatenate([RNG.uniform(-50, 50, 4000), RNG.uniform(-3, 3, 2000),
                       RNG.uniform(28, 32, 2000), RNG.uniform(700, 720, 200),
                       [0.0, 30.0, -30.0, 1e-300, np.inf, -np.inf, np.nan]])


def test_float64_values_to_torch_accuracy():
    check_op(lambda lib, x: lib.i0(x), WIDE, requires_grad=[False], rtol=1e-13, atol=0)


@pytest.mark.parametrize("x", [np.array([[0.0, 0.3, -1.7], [4.2, -12.5, 31.0]])])
def test_gradients(x):
    check_op(lambda lib, t: lib.i0(t), x)
    check_op(lambda lib, t: t.i0(), x, dtype=np.float32)
    check_jvp(lambda lib, t: lib.i0(t), x)


def test_third_derivative():
    import torch

    import autograd_cy as ag
    results = []
    for lib in (ag, torch):
        x = lib.tensor([0.0, 0.7, -3.1, 40.0], dtype=lib.float64, requires_grad=True)
        y = lib.i0(x).sum()
        for _ in range(3):
            (y,) = lib.autograd.grad(y, x, create_graph=True)
            y = y.sum()
        results.append(y.item())
    assert np.isclose(results[0], results[1], rtol=1e-12)


def test_integers_and_node():
    assert_same(lambda lib: [lib.i0(lib.arange(3)), lib.i0(lib.tensor([True])), node_name(
        lib.i0(lib.ones(2, requires_grad=True)).grad_fn)])


def test_complex_refused():
    assert_same_error(lambda lib: lib.i0(lib.tensor([1j])), NotImplementedError,
                      "not implemented for 'ComplexFloat'")
