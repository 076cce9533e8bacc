"""The deprecated Tensor.resize / resize_as (autograd_cy/legacy_resize.py) against torch's:
the warning, values, shared memory for a contiguous input, the node (ResizeBackward) and
its gradient, and the element-count error."""
import pytest

from oracle import assert_same, assert_same_error, check_op, node_name, randn, same_warning


def test_warnings():
    same_warning(lambda lib: lib.zeros(4).resize(2, 2), UserWarning,
                 "^non-inplace resize is deprecated$")
    same_warning(lambda lib: lib.zeros(4).resize_as(lib.zeros(2, 2)), UserWarning,
                 "^non-inplace resize_as is deprecated$")


@pytest.mark.filterwarnings("ignore:non-inplace")
def test_values_gradients_and_memory():
    check_op(lambda lib, x: x.resize(3, 2), randn(2, 3))
    check_op(lambda lib, x: x.t().resize_as(x.reshape(6)), randn(2, 3))

    def run(lib):
        x = lib.arange(6.0).requires_grad_()
        y = x.resize(2, 3)
        t = lib.arange(6.0).reshape(2, 3).t()
        return [node_name(y.grad_fn), list(y.shape), y.data_ptr() == x.data_ptr(),
                t.resize_as(t.reshape(6)).data_ptr() == t.data_ptr(), y._version]
    assert_same(run)


@pytest.mark.filterwarnings("ignore:non-inplace")
def test_element_count_error():
    assert_same_error(lambda lib: lib.zeros(2, 3).resize(4, 2), RuntimeError, exact=True)
    assert_same_error(lambda lib: lib.zeros(2, 3).resize_as(lib.zeros(5)), RuntimeError,
                      exact=True)
