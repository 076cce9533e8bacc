"""torch.fill (autograd_cy/fill.py) and unravel_index (flat_indices.py) against torch's:
values, gradients (FillBackward0/1), forward AD, wrapping, errors."""
import numpy as np
import pytest

from oracle import assert_same, assert_same_error, check_jvp, check_op, node_name, randn


def test_fill_with_a_number():
    def fn(lib, x):
        out = lib.fill(x, 2.5)
        assert node_name(out.grad_fn) == "FillBackward0"
        return out
    check_op(fn, randn(2, 3))


def test_fill_with_a_tensor_value():
    def fn(lib, x, value):
        out = lib.fill(x, value.sum())
        return out * x
    check_op(fn, randn(2, 3), randn(2, seed=1))
    check_jvp(lambda lib, x, value: lib.fill(x, value.sum()), randn(2, 3), randn(2, seed=1))

    def nodes(lib):
        x, value = lib.ones(2, requires_grad=True), lib.tensor(2.0, requires_grad=True)
        out = lib.fill(x, value)
        out.sum().backward()
        return node_name(out.grad_fn), x.grad.tolist(), value.grad.tolist()
    assert_same(nodes)


def test_fill_errors_and_casts():
    assert_same(lambda lib: lib.fill(lib.ones(2, dtype=lib.int64), lib.tensor(2.5)).tolist())
    assert_same_error(lambda lib: lib.fill(lib.ones(2), lib.ones(2)), RuntimeError,
                      "fill_ only supports 0-dimension value tensor but got tensor with 1 "
                      "dimensions")


@pytest.mark.parametrize("indices, shape", [
    ([4, 1, -1], (2, 3)), (5, (2, 3)), ([6, -7], (2, 3)), ([1], 6), ([[1, 2]], (2, 3)),
    ([0], ()), (np.arange(24).reshape(2, 12), (2, 3, 4)),
])
def test_unravel_index(indices, shape):
    assert_same(lambda lib: [part.tolist() for part in lib.unravel_index(lib.tensor(indices),
                                                                         shape)])


def test_unravel_index_errors():
    assert_same_error(lambda lib: lib.unravel_index(lib.tensor([1.0]), (2, 3)), TypeError,
                      "expected 'indices' to be integer dtype, but got torch.float32")
    assert_same_error(lambda lib: lib.unravel_index(lib.tensor([1]), (2, -3)), ValueError,
                      r"'shape' cannot have negative values, but got \(2, -3\)")
