"""local_response_norm, nn.LocalResponseNorm and the ``*_with_indices`` pooling names
against torch's: values, gradients and double backward (check_op), forward AD, sizes odd and
even, 3-D and 4-D inputs, and the error for a 2-D input."""
import pytest

from oracle import assert_same, assert_same_error, check_jvp, check_op, randn

CASES = {
    "3d_size_3": (lambda lib, x: lib.nn.functional.local_response_norm(x, 3), (2, 5, 4)),
    "4d_size_2": (lambda lib, x: lib.nn.functional.local_response_norm(
        x, 2, alpha=0.5, beta=0.6, k=2.0), (2, 4, 3, 3)),
    "5d_size_4": (lambda lib, x: lib.nn.LocalResponseNorm(4, alpha=0.1)(x), (1, 6, 2, 2, 2)),
    "size_above_channels": (lambda lib, x: lib.nn.functional.local_response_norm(x, 7),
                            (1, 3, 4)),
}


@pytest.mark.parametrize("name", CASES)
def test_values_gradients_and_double_backward(name):
    fn, shape = CASES[name]
    check_op(fn, randn(*shape))


@pytest.mark.parametrize("name", ["3d_size_3", "4d_size_2"])
def test_forward_ad(name):
    fn, shape = CASES[name]
    check_jvp(fn, randn(*shape))


def test_a_2d_input_is_refused():
    assert_same_error(lambda lib: lib.nn.functional.local_response_norm(lib.ones(2, 3), 2),
                      ValueError, r"Expected 3D or higher dimensionality\s+input \(got 2")


def test_module_repr():
    assert_same(lambda lib: repr(lib.nn.LocalResponseNorm(3, k=2.0)))


@pytest.mark.parametrize("call", [
    lambda lib, x: lib.nn.functional.max_pool2d_with_indices(x, 2),
    lambda lib, x: lib.nn.functional.max_pool1d_with_indices(x[0], 2, stride=1),
    lambda lib, x: lib.nn.functional.adaptive_max_pool2d_with_indices(x, 2),
    lambda lib, x: lib.nn.functional.adaptive_max_pool1d_with_indices(x[0], 3),
])
def test_pooling_with_indices(call):
    check_op(lambda lib, x: call(lib, x)[0], randn(2, 3, 4, 4))
    assert_same(lambda lib: [part.tolist() for part in call(lib, lib.tensor(randn(2, 3, 4, 4)))])


@pytest.mark.parametrize("shape,dtype", [
    ((1, 1, 1, 1), "float16"), ((1, 2, 1, 1, 2), "bfloat16"), ((1, 2, 2), "complex64"),
    ((1, 2, 2, 1), "complex128"), ((1, 2, 2), "bool")])
def test_dtypes_torch_s_average_pooling_refuses(shape, dtype):
    # a 3-D input is averaged by avg_pool2d (float16 allowed), more dims by avg_pool3d,
    # which has no float16 kernel (fuzz seed 985002363)
    assert_same_error(lambda lib: lib.nn.functional.local_response_norm(
        lib.ones(shape, dtype=getattr(lib, dtype)), 2), NotImplementedError, exact=True)


def test_half_precision_of_a_3d_input():
    assert_same(lambda lib: lib.nn.functional.local_response_norm(
        lib.tensor([[[-0.25, 2.0], [1.5, 3.0]]], dtype=lib.float16), 2))
