"""F.conv1d and F.conv2d against torch.nn.functional: values, gradients and double backward
(check_op) over stride, padding (ints, tuples, 'same', 'valid'), dilation, groups, bias and
unbatched inputs, in float64 and float32; forward AD; gradcheck and gradgradcheck; the node's
name; torch's errors for bad ranks, settings, channels, groups, bias and kernel sizes."""
import numpy as np
import pytest
import torch

import autograd_cy as ag
from oracle import assert_same_error, check_gradcheck, check_jvp, check_op, randn


def F(lib):
    return lib.nn.functional


# name: (fn(lib, *tensors), shapes of the tensors: input, weight[, bias])
CASES = {
    "2d_bias": (lambda lib, x, w, b: F(lib).conv2d(x, w, b), (2, 3, 5, 4), (4, 3, 3, 2), (4,)),
    "2d_stride_padding": (lambda lib, x, w: F(lib).conv2d(x, w, stride=(2, 3), padding=(2, 1)),
                          (1, 2, 7, 8), (3, 2, 3, 3)),
    "2d_dilation": (lambda lib, x, w: F(lib).conv2d(x, w, dilation=(2, 1), padding=1),
                    (1, 2, 7, 5), (2, 2, 3, 2)),
    "2d_stride_skips_rows": (lambda lib, x, w: F(lib).conv2d(x, w, stride=3), (1, 1, 8, 7),
                             (2, 1, 2, 2)),
    "2d_groups_bias": (lambda lib, x, w, b: F(lib).conv2d(x, w, b, padding=1, groups=2),
                       (2, 4, 4, 4), (6, 2, 3, 3), (6,)),
    "2d_depthwise": (lambda lib, x, w: F(lib).conv2d(x, w, stride=2, groups=3),
                     (1, 3, 5, 5), (3, 1, 2, 2)),
    "2d_same_odd": (lambda lib, x, w: F(lib).conv2d(x, w, padding="same"), (1, 2, 4, 5),
                    (2, 2, 3, 3)),
    "2d_same_even_dilated": (lambda lib, x, w, b: F(lib).conv2d(
        x, w, b, padding="same", dilation=(1, 2)), (1, 2, 5, 6), (3, 2, 4, 2), (3,)),
    "2d_valid": (lambda lib, x, w: F(lib).conv2d(x, w, padding="valid"), (2, 1, 4, 4),
                 (2, 1, 2, 3)),
    "2d_unbatched": (lambda lib, x, w, b: F(lib).conv2d(x, w, b, padding=(0, 1)), (2, 4, 3),
                     (3, 2, 2, 2), (3,)),
    "2d_1x1": (lambda lib, x, w: F(lib).conv2d(x, w), (2, 3, 3, 2), (4, 3, 1, 1)),
    "1d_bias": (lambda lib, x, w, b: F(lib).conv1d(x, w, b), (2, 3, 7), (4, 3, 3), (4,)),
    "1d_options": (lambda lib, x, w: F(lib).conv1d(x, w, stride=2, padding=2, dilation=2,
                                                   groups=2), (1, 4, 9), (2, 2, 3)),
    "1d_same_even": (lambda lib, x, w: F(lib).conv1d(x, w, padding="same"), (1, 2, 6),
                     (3, 2, 4)),
    "1d_unbatched": (lambda lib, x, w: F(lib).conv1d(x, w, padding=[1]), (2, 5), (3, 2, 2)),
}


def _arrays(shapes):
    return [randn(*shape, seed=i) for i, shape in enumerate(shapes)]


@pytest.mark.parametrize("name", CASES)
def test_values_gradients_and_double_backward(name):
    fn, *shapes = CASES[name]
    check_op(fn, *_arrays(shapes))


@pytest.mark.parametrize("name", ["2d_bias", "2d_groups_bias", "1d_options"])
def test_float32(name):
    fn, *shapes = CASES[name]
    check_op(fn, *_arrays(shapes), dtype=np.float32)


def test_only_the_input_or_only_the_weight_requires_grad():
    fn, *shapes = CASES["2d_groups_bias"]
    check_op(fn, *_arrays(shapes), requires_grad=[True, False, False])
    check_op(fn, *_arrays(shapes), requires_grad=[False, True, True])


@pytest.mark.parametrize("name", ["2d_bias", "2d_stride_padding", "1d_options"])
def test_forward_ad(name):
    fn, *shapes = CASES[name]
    check_jvp(fn, *_arrays(shapes))


@pytest.mark.cpu_only             # gradcheck's many small evaluations: once is enough
@pytest.mark.parametrize("name", ["2d_groups_bias", "2d_same_even_dilated", "1d_options"])
def test_gradcheck_and_gradgradcheck(name):
    fn, *shapes = CASES[name]
    check_gradcheck(fn, *_arrays(shapes))


def test_node_names_shapes_and_dtypes():
    def run(lib):
        x = lib.tensor(randn(1, 2, 5, 5), requires_grad=True)
        w = lib.tensor(randn(3, 2, 3, 3), requires_grad=True)
        line = lib.tensor(randn(2, 6), requires_grad=True)
        outs = [F(lib).conv2d(x, w), F(lib).conv2d(x[0], w),
                F(lib).conv1d(line.unsqueeze(0), w[:, :, 0]), F(lib).conv1d(line, w[:, :, 0]),
                F(lib).conv2d(x.float(), w.float(), stride=2)]
        return [(o.grad_fn.name(), tuple(o.shape), str(o.dtype).split(".")[-1]) for o in outs]
    assert run(ag) == run(torch)


def _ones(lib, *shape, dtype=None):
    return lib.ones(*shape, dtype=dtype or lib.float32)


ERRORS = [
    lambda lib: F(lib).conv2d(_ones(lib, 2, 5), _ones(lib, 2, 2, 1, 1)),
    lambda lib: F(lib).conv2d(_ones(lib, 1, 1, 2, 5, 5), _ones(lib, 2, 1, 3, 3)),
    lambda lib: F(lib).conv1d(_ones(lib, 1, 1, 2, 2), _ones(lib, 2, 1, 3)),
    lambda lib: F(lib).conv2d(_ones(lib, 1, 1, 5, 5), _ones(lib, 2, 1, 3)),
    lambda lib: F(lib).conv1d(_ones(lib, 1, 1, 5), _ones(lib, 2, 1, 3, 3)),
    lambda lib: F(lib).conv2d(_ones(lib, 1, 3, 5, 5), _ones(lib, 2, 2, 3, 3)),
    lambda lib: F(lib).conv2d(_ones(lib, 3, 5, 5), _ones(lib, 2, 2, 3, 3)),
    lambda lib: F(lib).conv2d(_ones(lib, 1, 4, 5, 5), _ones(lib, 3, 2, 3, 3), groups=2),
    lambda lib: F(lib).conv2d(_ones(lib, 1, 3, 5, 5), _ones(lib, 4, 1, 3, 3), groups=2),
    lambda lib: F(lib).conv2d(_ones(lib, 1, 1, 5, 5), _ones(lib, 0, 1, 3, 3)),
    lambda lib: F(lib).conv2d(_ones(lib, 1, 2, 2, 2), _ones(lib, 2, 2, 3, 3)),
    lambda lib: F(lib).conv2d(_ones(lib, 1, 2, 2, 2), _ones(lib, 2, 2, 3, 4), padding=(1, 0)),
    lambda lib: F(lib).conv2d(_ones(lib, 1, 2, 4, 4), _ones(lib, 2, 2, 3, 3), dilation=2),
    lambda lib: F(lib).conv1d(_ones(lib, 1, 2, 2), _ones(lib, 2, 2, 3)),
    lambda lib: F(lib).conv2d(_ones(lib, 1, 2, 5, 5), _ones(lib, 3, 2, 3, 3), _ones(lib, 2)),
    lambda lib: F(lib).conv2d(_ones(lib, 1, 2, 5, 5), _ones(lib, 3, 2, 3, 3), _ones(lib, 3, 1)),
    lambda lib: F(lib).conv2d(_ones(lib, 1, 2, 5, 5), _ones(lib, 3, 2, 3, 3), padding="full"),
    lambda lib: F(lib).conv2d(_ones(lib, 1, 2, 5, 5), _ones(lib, 3, 2, 3, 3), stride=2,
                              padding="same"),
    lambda lib: F(lib).conv2d(_ones(lib, 1, 2, 5, 5), _ones(lib, 3, 2, 3, 3), padding=-1),
    lambda lib: F(lib).conv1d(_ones(lib, 1, 2, 5), _ones(lib, 3, 2, 3), padding=-1),
    lambda lib: F(lib).conv2d(_ones(lib, 1, 2, 5, 5), _ones(lib, 3, 2, 3, 3), stride=0),
    lambda lib: F(lib).conv2d(_ones(lib, 1, 2, 5, 5), _ones(lib, 3, 2, 3, 3), stride=(1, -1)),
    lambda lib: F(lib).conv2d(_ones(lib, 1, 2, 5, 5), _ones(lib, 3, 2, 3, 3), groups=0),
    lambda lib: F(lib).conv2d(_ones(lib, 1, 1, 5, 5), _ones(lib, 2, 1, 3, 3), dilation=(0, 1)),
    lambda lib: F(lib).conv2d(_ones(lib, 1, 1, 5, 5), _ones(lib, 2, 1, 3, 3), dilation=-1),
    lambda lib: F(lib).conv1d(_ones(lib, 1, 1, 5), _ones(lib, 2, 1, 3), dilation=0),
    lambda lib: F(lib).conv2d(_ones(lib, 1, 2, 5, 5), _ones(lib, 3, 2, 3, 3), stride=(1, 1, 1)),
    lambda lib: F(lib).conv2d(_ones(lib, 1, 2, 5, 5), _ones(lib, 3, 2, 3, 3), padding=[1, 1, 1]),
    lambda lib: F(lib).conv2d(_ones(lib, 1, 2, 5, 5), _ones(lib, 3, 2, 3, 3),
                              dilation=(1, 1, 1)),
    lambda lib: F(lib).conv2d(_ones(lib, 1, 2, 5, 5),
                              _ones(lib, 3, 2, 3, 3, dtype=lib.float64)),
    lambda lib: F(lib).conv2d(_ones(lib, 1, 2, 5, 5, dtype=lib.float64),
                              _ones(lib, 3, 2, 3, 3)),
    lambda lib: F(lib).conv2d(_ones(lib, 1, 2, 5, 5), _ones(lib, 3, 2, 3, 3),
                              _ones(lib, 3, dtype=lib.float64)),
    lambda lib: F(lib).conv2d(_ones(lib, 1, 3, 5, 5), _ones(lib, 2, 1, 3, 3),
                              _ones(lib, 2, dtype=lib.float64)),
]


@pytest.mark.parametrize("index", range(len(ERRORS)))
def test_errors(index):
    assert_same_error(ERRORS[index])


# ------------------------------------------------------------------ found by tests/opinfo

def test_conv_transpose2d_output_padding_of_a_stride_or_more():
    # output_padding 3 >= stride 2 (allowed: it is < dilation): the gradient's convolution
    # covers one more column than the input has
    check_op(lambda lib, x, w, b: F(lib).conv_transpose2d(
        x, w, b, stride=(3, 2), padding=(1, 2), output_padding=(2, 3), groups=2,
        dilation=(4, 4)), randn(2, 2, 4, 4), randn(2, 2, 4, 5, seed=1), randn(4, seed=2))


@pytest.mark.parametrize("fn", [
    lambda lib, x, w, b: F(lib).conv2d(x, w, b, stride=2, padding=1),
    lambda lib, x, w, b: F(lib).conv_transpose2d(x, w, b, stride=2, padding=1,
                                                 output_padding=1),
], ids=["conv2d", "conv_transpose2d"])
def test_complex_gradients_take_the_conjugates(fn):
    def complex_randn(*shape, seed):
        return randn(*shape, seed=seed) + 1j * randn(*shape, seed=seed + 10)
    check_op(fn, complex_randn(1, 3, 4, 4, seed=0), complex_randn(3, 3, 3, 3, seed=1),
             complex_randn(3, seed=2))
