"""F.max_pool1d/2d, F.avg_pool1d/2d and F.adaptive_avg_pool2d against torch.nn.functional:
values, gradients and double backward (check_op) over kernel, stride, padding, dilation,
ceil_mode, return_indices, count_include_pad and divisor_override, with ties and NaN;
forward AD; gradcheck and gradgradcheck; node names and index dtypes; torch's errors."""
import numpy as np
import pytest
import torch

import autograd_cy as ag
from oracle import assert_same, assert_same_error, check_gradcheck, check_jvp, check_op, randn


def F(lib):
    return lib.nn.functional


def _ties(*shape):
    """Values with many equal maxima in a window (the first one wins the gradient)."""
    return np.random.default_rng(3).integers(0, 3, shape).astype(np.float64)


def _with_nan(*shape):
    values = randn(*shape, seed=4)
    values[0, 0, 1, 1] = np.nan
    return values


# name: (fn(lib, x), input values)
CASES = {
    "max_2": (lambda lib, x: F(lib).max_pool2d(x, 2), randn(2, 3, 4, 6)),
    "max_options": (lambda lib, x: F(lib).max_pool2d(x, (3, 2), (2, 1), (1, 0), (1, 2),
                                                     ceil_mode=True), randn(1, 2, 7, 6)),
    "max_indices": (lambda lib, x: F(lib).max_pool2d(x, 3, 2, 1, return_indices=True),
                    randn(2, 2, 5, 6)),
    "max_unbatched": (lambda lib, x: F(lib).max_pool2d(x, 2, 1, ceil_mode=True),
                      randn(2, 3, 4)),
    "max_ties": (lambda lib, x: F(lib).max_pool2d(x, 3, 1, 1, return_indices=True),
                 _ties(1, 2, 4, 4)),
    "max_nan": (lambda lib, x: F(lib).max_pool2d(x, 2, 1, return_indices=True),
                _with_nan(1, 1, 4, 4)),
    "max_1d": (lambda lib, x: F(lib).max_pool1d(x, 3, 2, 1, 2, ceil_mode=True), randn(2, 3, 9)),
    "max_1d_indices": (lambda lib, x: F(lib).max_pool1d(x, 2, return_indices=True),
                       randn(3, 7)),
    "avg_3": (lambda lib, x: F(lib).avg_pool2d(x, 3, 2, 1), randn(2, 2, 5, 6)),
    "avg_ceil_exclude_pad": (lambda lib, x: F(lib).avg_pool2d(
        x, (3, 2), (2, 3), (1, 1), ceil_mode=True, count_include_pad=False), randn(1, 2, 6, 7)),
    "avg_ceil_include_pad": (lambda lib, x: F(lib).avg_pool2d(x, 3, 2, 1, ceil_mode=True),
                             randn(1, 1, 6, 6)),
    "avg_divisor": (lambda lib, x: F(lib).avg_pool2d(x, 2, 1, divisor_override=3),
                    randn(1, 2, 3, 4)),
    "avg_unbatched": (lambda lib, x: F(lib).avg_pool2d(x, 2), randn(3, 4, 5)),
    "avg_1d": (lambda lib, x: F(lib).avg_pool1d(x, 3, 2, 1, count_include_pad=False),
               randn(2, 3, 8)),
    "adaptive_divisible": (lambda lib, x: F(lib).adaptive_avg_pool2d(x, 2), randn(2, 2, 4, 6)),
    "adaptive_uneven": (lambda lib, x: F(lib).adaptive_avg_pool2d(x, (3, 4)), randn(1, 2, 5, 7)),
    "adaptive_none": (lambda lib, x: F(lib).adaptive_avg_pool2d(x, (None, 2)), randn(2, 3, 5)),
    "adaptive_one": (lambda lib, x: F(lib).adaptive_avg_pool2d(x, 1), randn(1, 2, 3, 3)),
    "adaptive_larger": (lambda lib, x: F(lib).adaptive_avg_pool2d(x, (4, 3)), randn(1, 1, 3, 2)),
}


@pytest.mark.parametrize("name", CASES)
def test_values_gradients_and_double_backward(name):
    fn, values = CASES[name]
    check_op(fn, values)


@pytest.mark.parametrize("name", ["max_options", "avg_ceil_exclude_pad", "adaptive_uneven"])
def test_float32(name):
    fn, values = CASES[name]
    check_op(fn, values, dtype=np.float32)


@pytest.mark.parametrize("name", ["max_options", "avg_divisor", "adaptive_uneven"])
def test_forward_ad(name):
    fn, values = CASES[name]
    check_jvp(fn, values)


@pytest.mark.cpu_only             # gradcheck's many small evaluations: once is enough
@pytest.mark.parametrize("name", ["max_options", "avg_ceil_exclude_pad", "adaptive_uneven",
                                  "max_1d"])
def test_gradcheck_and_gradgradcheck(name):
    fn, values = CASES[name]
    check_gradcheck(fn, values)


def test_node_names_and_indices():
    def run(lib):
        x = lib.tensor(randn(1, 2, 5, 5), requires_grad=True)
        out, indices = F(lib).max_pool2d(x, 3, 2, 1, return_indices=True)
        names = [out.grad_fn.name(), F(lib).avg_pool2d(x, 2).grad_fn.name(),
                 F(lib).adaptive_avg_pool2d(x, 2).grad_fn.name(),
                 F(lib).adaptive_avg_pool2d(x, 1).grad_fn.name(),
                 F(lib).max_pool1d(x[0], 2).grad_fn.name(),
                 F(lib).avg_pool1d(x[0], 2).grad_fn.name()]
        return names, indices.tolist(), str(indices.dtype).split(".")[-1]
    assert run(ag) == run(torch)


def test_integer_inputs_and_empty_batches():
    def run(lib):
        ints = lib.arange(-20, 16).reshape(1, 1, 6, 6)
        empty = lib.zeros(0, 2, 4, 4)
        return [F(lib).max_pool2d(ints, 2), F(lib).avg_pool2d(ints, 3, 2, 1),
                F(lib).avg_pool2d(ints, 2, divisor_override=3),
                tuple(F(lib).max_pool2d(empty, 2).shape),
                tuple(F(lib).avg_pool2d(empty, 2).shape),
                tuple(F(lib).adaptive_avg_pool2d(empty, 3).shape),
                tuple(F(lib).adaptive_avg_pool2d(lib.ones(1, 0, 4, 4), 2).shape),
                tuple(F(lib).adaptive_avg_pool2d(lib.ones(1, 2, 4, 4), 0).shape)]
    ours, theirs = assert_same(run)
    assert [str(t.dtype).split(".")[-1] for t in ours[:3]] == \
        [str(t.dtype).split(".")[-1] for t in theirs[:3]]


def _ones(lib, *shape, dtype=None):
    return lib.ones(*shape, dtype=dtype or lib.float32)


ERRORS = [
    lambda lib: F(lib).max_pool2d(_ones(lib, 5, 5), 2),
    lambda lib: F(lib).max_pool2d(_ones(lib, 1, 1, 1, 5, 5), 2),
    lambda lib: F(lib).max_pool2d(_ones(lib, 1, 0, 5, 5), 2),
    lambda lib: F(lib).max_pool2d(_ones(lib, 1, 3, 5, 5), 3, padding=2),
    lambda lib: F(lib).max_pool2d(_ones(lib, 1, 3, 2, 2), 3),
    lambda lib: F(lib).max_pool2d(_ones(lib, 1, 1, 5, 5), 0),
    lambda lib: F(lib).max_pool2d(_ones(lib, 1, 1, 5, 5), 0, 1),
    lambda lib: F(lib).max_pool2d(_ones(lib, 1, 1, 5, 5), -1, 1),
    lambda lib: F(lib).max_pool2d(_ones(lib, 1, 1, 5, 5), 2, -1),
    lambda lib: F(lib).max_pool2d(_ones(lib, 1, 1, 5, 5), 2, dilation=0),
    lambda lib: F(lib).max_pool2d(_ones(lib, 1, 1, 5, 5), 2, padding=-1),
    lambda lib: F(lib).max_pool2d(_ones(lib, 1, 1, 5, 5), (2, 2, 2)),
    lambda lib: F(lib).max_pool2d(_ones(lib, 1, 1, 5, 5), 2, (1, 1, 1)),
    lambda lib: F(lib).max_pool2d(_ones(lib, 1, 1, 5, 5), 2, padding=(1, 1, 1)),
    lambda lib: F(lib).max_pool2d(_ones(lib, 1, 1, 5, 5), 2, dilation=(1, 1, 1)),
    lambda lib: F(lib).max_pool2d(_ones(lib, 1, 1, 4, 4, dtype=lib.bool), 2),
    lambda lib: F(lib).avg_pool2d(_ones(lib, 5, 5), 2),
    lambda lib: F(lib).avg_pool2d(_ones(lib, 1, 1, 1, 5, 5), 2),
    lambda lib: F(lib).avg_pool2d(_ones(lib, 1, 3, 5, 5), 3, padding=2),
    lambda lib: F(lib).avg_pool2d(_ones(lib, 1, 1, 4, 4), 2, divisor_override=0),
    lambda lib: F(lib).avg_pool2d(_ones(lib, 1, 1, 5, 5), 2, 0),
    lambda lib: F(lib).avg_pool2d(_ones(lib, 1, 1, 5, 5), (2, 2, 2)),
    lambda lib: F(lib).avg_pool2d(_ones(lib, 1, 1, 4, 4, dtype=lib.bool), 2),
    lambda lib: F(lib).max_pool1d(_ones(lib, 5), 2),
    lambda lib: F(lib).max_pool1d(_ones(lib, 1, 1, 5), 2, padding=2),
    lambda lib: F(lib).max_pool1d(_ones(lib, 1, 1, 2), 3),
    lambda lib: F(lib).max_pool1d(_ones(lib, 1, 1, 5), 2, 0),
    lambda lib: F(lib).max_pool1d(_ones(lib, 1, 1, 5), 0, 1),
    lambda lib: F(lib).max_pool1d(_ones(lib, 1, 1, 5), 2, dilation=0),
    lambda lib: F(lib).max_pool1d(_ones(lib, 1, 1, 5), 2, padding=-1),
    lambda lib: F(lib).max_pool1d(_ones(lib, 1, 1, 5), (2, 2)),
    lambda lib: F(lib).max_pool1d(_ones(lib, 1, 1, 5), 2, (1, 1)),
    lambda lib: F(lib).max_pool1d(_ones(lib, 5), 2, return_indices=True),
    lambda lib: F(lib).max_pool1d(_ones(lib, 1, 1, 5), 2, padding=2, return_indices=True),
    lambda lib: F(lib).max_pool1d(_ones(lib, 1, 1, 5), 0, 1, return_indices=True),
    lambda lib: F(lib).avg_pool1d(_ones(lib, 5), 2),
    lambda lib: F(lib).avg_pool1d(_ones(lib, 1, 1, 1, 5), 2),
    lambda lib: F(lib).avg_pool1d(_ones(lib, 1, 1, 5), (2, 2)),
    lambda lib: F(lib).avg_pool1d(_ones(lib, 1, 1, 5), 2, (1, 1)),
    lambda lib: F(lib).avg_pool1d(_ones(lib, 1, 1, 2), 3),
    lambda lib: F(lib).adaptive_avg_pool2d(_ones(lib, 5), 2),
    lambda lib: F(lib).adaptive_avg_pool2d(_ones(lib, 1, 1, 2, 5, 5), 2),
    lambda lib: F(lib).adaptive_avg_pool2d(_ones(lib, 1, 1, 0, 4), 2),
    lambda lib: F(lib).adaptive_avg_pool2d(_ones(lib, 1, 2, 5, 5), (2, -1)),
    lambda lib: F(lib).adaptive_avg_pool2d(_ones(lib, 1, 2, 5, 5), (1, 2, 3)),
    lambda lib: F(lib).adaptive_avg_pool2d(_ones(lib, 1, 1, 4, 4, dtype=lib.int64), 2),
]


@pytest.mark.parametrize("index", range(len(ERRORS)))
def test_errors(index):
    assert_same_error(ERRORS[index])
