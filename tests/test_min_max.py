"""aminmax, fmax, fmin (autograd_cy/min_max.py) against torch's: values, NaN rules,
gradients to the chosen operand (ties to input), broadcasting, promotion, double backward,
forward AD and errors."""
import numpy as np
import pytest

from oracle import assert_same, assert_same_error, check_jvp, check_op, node_name, randn

NAN = float("nan")
X = np.array([[NAN, 1.0, 2.0, -1.0], [0.5, NAN, 3.0, 0.0], [1.0, 2.0, -2.0, 4.0]])
Y = np.array([[2.0, NAN, 2.0, -3.0], [0.5, NAN, 1.0, 1.0], [1.0, 5.0, -2.5, 4.0]])

CASES = {
    "fmax": lambda lib, x, y: lib.fmax(x, y),
    "fmin": lambda lib, x, y: x.fmin(y),
    "fmax_broadcast": lambda lib, x, y: lib.fmax(x, y[0]),
    "fmin_broadcast": lambda lib, x, y: lib.fmin(x[:, :1], y),
}


@pytest.mark.parametrize("name", CASES)
def test_fmax_fmin(name):
    check_op(CASES[name], X, Y)
    check_op(CASES[name], randn(3, 4), randn(3, 4, seed=1))
    check_jvp(CASES[name], X, Y)


AMINMAX = {
    "all": lambda lib, x: lib.aminmax(x),
    "all_keepdim": lambda lib, x: lib.aminmax(x, keepdim=True),
    "dim": lambda lib, x: x.aminmax(dim=1),
    "dim_keepdim": lambda lib, x: lib.aminmax(x, dim=0, keepdim=True),
}


@pytest.mark.parametrize("name", AMINMAX)
def test_aminmax(name):
    check_op(AMINMAX[name], randn(3, 4))
    ties = np.array([[1.0, 3.0, 3.0], [1.0, 0.0, 1.0]])
    check_op(AMINMAX[name], ties)
    check_jvp(AMINMAX[name], randn(3, 4))


def test_types_and_fields():
    def run(lib):
        i = lib.arange(6).reshape(2, 3)
        x = lib.ones(2, requires_grad=True)
        result = lib.aminmax(i, dim=1)
        return [lib.fmax(i, lib.tensor([0.5, 1.5, 9.0])), lib.fmin(i, lib.tensor([1, 2, 3])),
                lib.fmax(lib.tensor([True, False]), lib.tensor([False, False])),
                result.min, result.max, type(result).__name__,
                tuple(lib.aminmax(lib.tensor([True]))), tuple(lib.aminmax(lib.tensor(1.0), dim=0)),
                tuple(lib.aminmax(lib.empty(2, 0), dim=0)),
                node_name(lib.fmax(x, x).grad_fn), node_name(lib.fmin(x, x).grad_fn),
                node_name(lib.aminmax(x).min.grad_fn), node_name(x.aminmax(dim=0).max.grad_fn)]
    assert_same(run)


@pytest.mark.parametrize("fn", [
    lambda lib: lib.aminmax(lib.tensor([])),
    lambda lib: lib.aminmax(lib.empty(2, 0), dim=1),
    lambda lib: lib.fmax(lib.ones(2), 2.0),
    lambda lib: lib.fmin(lib.tensor([1j]), lib.tensor([1j])),
    lambda lib: lib.fmax(lib.ones(2), lib.ones(3)),
])
def test_errors(fn):
    assert_same_error(fn)
