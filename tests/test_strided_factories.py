"""torch.empty_permuted (autograd_cy/factories.py), Tensor.new_empty_strided
(autograd_cy/tensor_methods.py) against torch's: shapes, strides, dtypes, devices,
requires_grad and the errors, and the errors of data whose dtype tensor() cannot infer."""
import pytest

from oracle import assert_same, assert_same_error


def _layout(t):
    return [list(t.shape), list(t.stride()), str(t.dtype).split(".")[-1], t.requires_grad,
            t.is_leaf]


@pytest.mark.parametrize("size, layout", [
    ((2, 3, 4), (2, 0, 1)), ((2, 3, 4), (0, 1, 2)), ((2, 3), (1, 0)), ((), ()),
    ((1, 2, 3, 4), (0, 2, 3, 1)),
])
def test_empty_permuted(size, layout):
    assert_same(lambda lib: _layout(lib.empty_permuted(size, layout)))
    assert_same(lambda lib: _layout(lib.empty_permuted(list(size), list(layout),
                                                       dtype=lib.float64, requires_grad=True)))


@pytest.mark.parametrize("fn", [
    lambda lib: lib.empty_permuted((2, 3), (0,)),
    lambda lib: lib.empty_permuted((2, 3), (0, 0)),
    lambda lib: lib.empty_permuted((2, 3), (1, -1)),
    lambda lib: lib.empty_permuted((2, 3), (1, 2)),
    lambda lib: lib.empty_permuted((2, 3), (1, 0), dtype=lib.int64, requires_grad=True),
])
def test_empty_permuted_errors(fn):
    assert_same_error(fn, RuntimeError, exact=True)


def test_new_empty_strided():
    def run(lib):
        x = lib.zeros(2, 3, dtype=lib.float64)
        return [_layout(x.new_empty_strided((2, 2), (1, 2))),
                _layout(x.new_empty_strided([3], [2], dtype=lib.int32)),
                _layout(x.new_empty_strided((2, 3), (3, 1), requires_grad=True)),
                str(x.new_empty_strided((1,), (1,), device="cpu").device)]
    assert_same(run)
    assert_same_error(lambda lib: lib.zeros(2).new_empty_strided((2, 2), (1,)), RuntimeError,
                      exact=True)


@pytest.mark.parametrize("data, kind", [
    (None, RuntimeError), (object(), RuntimeError), ([None], RuntimeError),
    ([[1], [None]], RuntimeError), ({1: 2}, RuntimeError), ("abc", TypeError),
    ([1, "a"], TypeError),
])
def test_data_whose_dtype_cannot_be_inferred(data, kind):
    """tensor()'s errors, which asarray's sequences reach (a RuntimeError naming the first
    element that is not a number; a string is a TypeError)."""
    assert_same_error(lambda lib: lib.tensor(data), kind, exact=True)
