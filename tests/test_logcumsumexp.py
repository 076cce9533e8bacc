"""logcumsumexp (autograd_cy/scans.py) against torch's: values (large and -inf entries),
LogcumsumexpBackward0, gradients in log space, double backward, forward AD, float32,
complex inputs and their special values, a 0-d input, and errors."""
import numpy as np
import pytest

from oracle import assert_same, assert_same_error, check_jvp, check_op, node_name, randn

CASES = {
    "dim1": lambda lib, x: lib.logcumsumexp(x, 1),
    "dim0": lambda lib, x: x.logcumsumexp(0),
    "negative_dim": lambda lib, x: x.logcumsumexp(-1) * 2,
    "zero_dim": lambda lib, x: x[0, 0].logcumsumexp(0),
}


@pytest.mark.parametrize("name", CASES)
def test_values_and_gradients(name):
    check_op(CASES[name], randn(3, 5))
    check_op(CASES[name], randn(3, 5), dtype=np.float32)
    check_jvp(CASES[name], randn(3, 5))


@pytest.mark.parametrize("name", ["dim1", "dim0", "zero_dim"])
def test_complex(name):
    x = randn(3, 5) + 1j * randn(3, 5, seed=9)
    check_op(CASES[name], x)
    check_op(CASES[name], x, dtype=np.float32)
    rng = np.random.default_rng(2)
    tangent = rng.standard_normal(x.shape) + 1j * rng.standard_normal(x.shape)
    check_jvp(CASES[name], x, dtype=np.complex128, tangents=[tangent], rtol=1e-7, atol=1e-9)


def test_complex_special_values():
    inf, nan = float("inf"), float("nan")
    assert_same(lambda lib: [[part(lib.logcumsumexp(lib.tensor(values, dtype=lib.complex128),
                                                    0)) for part in (_real, _imag)]
                             for values in ([complex(nan, 0), 1 + 0j],
                                            [complex(inf, 1), complex(inf, 2)],
                                            [complex(-inf, 1), complex(-inf, 2)],
                                            [1 + 2j, complex(-inf, 0), complex(inf, 0)])])


def _real(t):
    return t.real


def _imag(t):
    return t.imag


def test_large_and_infinite_entries():
    x = np.array([[-1000.0, 0.0, 800.0, 1.0], [-np.inf, 2.0, -np.inf, 3.0]])
    check_op(lambda lib, t: t.logcumsumexp(1), x)


def test_node_and_shapes():
    def run(lib):
        x = lib.tensor(randn(2, 3), requires_grad=True)
        return [node_name(x.logcumsumexp(0).grad_fn), lib.logcumsumexp(lib.tensor(1.0), 0),
                lib.logcumsumexp(lib.tensor([-float("inf")] * 2), 0),
                lib.logcumsumexp(lib.empty(0, 2), 0).shape]
    assert_same(run)


@pytest.mark.parametrize("fn", [
    lambda lib: lib.logcumsumexp(lib.arange(3), 0),
    lambda lib: lib.logcumsumexp(lib.ones(2, 3), 2),
])
def test_errors(fn):
    assert_same_error(fn, exact=True)
