"""mode (values, indices, ModeBackward0's gradient) and tril_indices / triu_indices,
against torch."""
import numpy as np
import pytest

import autograd_cy as ag
import torch
from oracle import (LIBS, assert_same_error, check_gradcheck, check_jvp, check_op,
                    node_name, to_numpy)

REPEATS = np.array([[1., 2, 2, 3, 3, 0], [5, 5, 1, 1, 1, 5], [4, 4, 4, 4, 4, 4],
                    [0.5, -1, 7, -1, 0.5, 2]])


@pytest.mark.parametrize("dim, keepdim", [(-1, False), (1, True), (0, False), (0, True)])
def test_mode_values_indices_and_gradients(dim, keepdim):
    check_op(lambda lib, x: tuple(lib.mode(x, dim, keepdim)), REPEATS)
    check_op(lambda lib, x: tuple(x.mode(dim=dim, keepdim=keepdim)), REPEATS)


@pytest.mark.parametrize("values", [
    np.array([2., np.nan, np.nan, 1.]),          # NaN never equals NaN
    np.array([3., 3., 1., 1.]),                  # a tie: the smaller value
    np.array(7.0),                               # a 0-d tensor
    np.arange(24.0).reshape(2, 3, 4) % 3,        # three dims
])
def test_mode_special_inputs(values):
    check_op(lambda lib, x: tuple(lib.mode(x)), values)


@pytest.mark.parametrize("dtype", ["int64", "int32", "float32", "bool"])
def test_mode_of_other_dtypes(dtype):
    results = []
    for lib in LIBS:
        x = lib.tensor([[1, 0, 1, 1], [0, 0, 1, 0]]).to(getattr(lib, dtype))
        values, indices = lib.mode(x, 1)
        results.append((str(values.dtype).split(".")[-1], to_numpy(values).tolist(),
                        to_numpy(indices).tolist()))
    assert results[0] == results[1]


def test_mode_result_and_node():
    for lib in LIBS:
        x = lib.tensor([[1.0, 1.0, 2.0]], requires_grad=True)
        result = lib.mode(x)
        assert type(result).__name__ == "mode"
        assert result.values is result[0] and result.indices is result[1]
        assert node_name(result.values.grad_fn) == "ModeBackward0"
        assert not result.indices.requires_grad


def test_mode_gradcheck_and_jvp():
    # distinct values (a perturbation would break a tie, so a repeated mode has no finite
    # difference): the mode of each row is then its smallest value
    check_gradcheck(lambda lib, x: lib.mode(x, 1).values, np.arange(12.0).reshape(3, 4) % 5
                    + np.linspace(0, 0.5, 12).reshape(3, 4))
    check_jvp(lambda lib, x: lib.mode(x, 0).values, REPEATS)


def test_mode_errors():
    assert_same_error(lambda lib: lib.mode(lib.ones(2, 3), 2), IndexError, exact=True)
    assert_same_error(lambda lib: lib.mode(lib.ones(2, 0), 1), IndexError,
                      "Expected reduction dim 1 to have non-zero size")


@pytest.mark.parametrize("function", ["tril_indices", "triu_indices"])
@pytest.mark.parametrize("row, col, offset", [(3, 3, 0), (3, 4, 1), (4, 3, -1), (5, 2, 7),
                                              (3, 3, -7), (0, 3, 0), (1, 1, 0)])
def test_triangle_indices(function, row, col, offset):
    ours = getattr(ag, function)(row, col, offset)
    theirs = getattr(torch, function)(row, col, offset)
    assert ours.dtype is ag.int64 and tuple(ours.shape) == tuple(theirs.shape)
    assert to_numpy(ours).tolist() == theirs.tolist()


def test_triangle_indices_dtype_and_device():
    ours = ag.tril_indices(3, 3, dtype=ag.int32, device="cpu")
    theirs = torch.tril_indices(3, 3, dtype=torch.int32)
    assert ours.dtype is ag.int32 and ours.tolist() == theirs.tolist()
    on_device = ag.triu_indices(2, 2, device="cuda")
    assert on_device.is_cuda and on_device.tolist() == torch.triu_indices(2, 2).tolist()


def test_triangle_indices_errors():
    assert_same_error(lambda lib: lib.tril_indices(-1, 3), RuntimeError, exact=True)
    assert_same_error(lambda lib: lib.triu_indices(3, -2), RuntimeError, exact=True)


@pytest.mark.parametrize("shape", [(2, 3), (0, 3), ()])
def test_complex_tensors(shape):
    # torch's kernel refuses them; a 0-dim or an empty tensor reaches none
    def run(lib):
        values, indices = lib.mode(lib.ones(shape, dtype=lib.complex64), -1)
        return values.shape, indices.tolist()
    if shape == (2, 3):
        assert_same_error(run, NotImplementedError, exact=True)
    else:
        assert [str(part) for part in run(ag)] == [str(part).replace("torch", "autograd_cy")
                                                   for part in run(torch)]
