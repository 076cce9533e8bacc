"""Tensor.fill_diagonal_ (autograd_cy/diagonals.py) against torch's: the values (square,
wide, tall with and without wrap, more than two dims, a transposed view), the gradient
through the in-place write (CopySlices), the dtype of the fill, and the errors."""
import pytest

from oracle import assert_same, assert_same_error, check_op, node_name, randn


@pytest.mark.parametrize("shape, wrap", [
    ((3, 3), False), ((2, 4), False), ((7, 3), False), ((7, 3), True), ((8, 2), True),
    ((4, 3), True), ((3, 3, 3), True), ((2, 2, 2, 2), False),
])
def test_values_and_gradients(shape, wrap):
    check_op(lambda lib, x: (x * 1).fill_diagonal_(-2.5, wrap=wrap), randn(*shape))


def test_a_transposed_view_and_the_node():
    check_op(lambda lib, x: (x * 1).t().fill_diagonal_(0.5, True), randn(2, 5))

    def run(lib):
        x = lib.ones(3, 2, requires_grad=True) * 1
        out = x.fill_diagonal_(7)
        return [out is x, node_name(out.grad_fn).split("::")[-1], out]
    assert_same(run)


def test_fill_value_is_cast_to_the_dtype():
    assert_same(lambda lib: [lib.zeros(3, 3, dtype=lib.int64).fill_diagonal_(2.7),
                             lib.zeros(2, 2, dtype=lib.bool).fill_diagonal_(1)])


@pytest.mark.parametrize("shape", [(3,), (), (2, 3, 3)])
def test_errors(shape):
    assert_same_error(lambda lib: lib.zeros(shape).fill_diagonal_(1.0), RuntimeError)
