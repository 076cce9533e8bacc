"""Tensor.polygamma_ (autograd_cy/gamma_functions.py) against torch's: values, gradients
and double backward through the in-place write, its node (PolygammaBackward1), a view,
and the errors (negative n, an integer tensor that cannot hold the result, a leaf)."""
import pytest

from oracle import assert_same, assert_same_error, check_op, node_name, randn


@pytest.mark.parametrize("n", [0, 1, 2, 3])
def test_values_and_gradients(n):
    check_op(lambda lib, x: (x * 1).polygamma_(n), randn(3, 2, positive=True) + 0.5)
    check_op(lambda lib, x: (x * 1)[1:].polygamma_(n), randn(3, positive=True) + 0.5,
             double=False)


def test_node_and_version():
    def run(lib):
        y = lib.tensor([1.5, 2.0], requires_grad=True) * 1
        out = y.polygamma_(1)
        return [out is y, node_name(out.grad_fn), y._version, y]
    assert_same(run)


@pytest.mark.parametrize("fn", [
    lambda lib: lib.tensor([1.0, 2.0]).polygamma_(-1),
    lambda lib: lib.tensor([1, 2]).polygamma_(1),
    lambda lib: lib.tensor([1.0], requires_grad=True).polygamma_(1),
])
def test_errors(fn):
    assert_same_error(fn, RuntimeError)
