"""F.conv3d, F.conv_transpose3d, nn.Conv3d and nn.ConvTranspose3d against torch: values,
gradients and double backward (check_op) over stride, padding (ints, tuples, 'same',
'valid'), output_padding, dilation, groups, bias and unbatched inputs, in float64 and
float32; forward AD; gradcheck; vmap; the node's name; the modules' parameters, padding
modes, output_size and repr; torch's errors."""
import numpy as np
import pytest
import torch

import autograd_cy as ag
from oracle import (assert_same, assert_same_error, check_batched_grad, check_gradcheck,
                    check_jvp, check_op, randn)


def F(lib):
    return lib.nn.functional


# name: (fn(lib, *tensors), shapes of the tensors: input, weight[, bias])
CASES = {
    "bias": (lambda lib, x, w, b: F(lib).conv3d(x, w, b), (2, 2, 4, 3, 5), (3, 2, 2, 2, 3),
             (3,)),
    "stride_padding": (lambda lib, x, w: F(lib).conv3d(x, w, stride=(2, 1, 3),
                                                       padding=(1, 0, 2)),
                       (1, 2, 5, 4, 6), (2, 2, 3, 2, 2)),
    "dilation": (lambda lib, x, w: F(lib).conv3d(x, w, dilation=(1, 2, 1), padding=1),
                 (1, 1, 4, 5, 4), (2, 1, 2, 2, 3)),
    "groups_bias": (lambda lib, x, w, b: F(lib).conv3d(x, w, b, padding=1, groups=2),
                    (2, 4, 3, 3, 3), (4, 2, 2, 3, 2), (4,)),
    "same_even_dilated": (lambda lib, x, w, b: F(lib).conv3d(
        x, w, b, padding="same", dilation=(1, 1, 2)), (1, 2, 3, 4, 5), (2, 2, 2, 3, 2), (2,)),
    "valid": (lambda lib, x, w: F(lib).conv3d(x, w, padding="valid"), (1, 1, 3, 4, 4),
              (2, 1, 2, 2, 3)),
    "unbatched": (lambda lib, x, w, b: F(lib).conv3d(x, w, b, padding=[0, 1, 0]),
                  (2, 3, 2, 4), (3, 2, 2, 2, 2), (3,)),
    "stride_skips": (lambda lib, x, w: F(lib).conv3d(x, w, stride=3), (1, 1, 7, 5, 7),
                     (1, 1, 2, 2, 2)),
    "transposed_bias": (lambda lib, x, w, b: F(lib).conv_transpose3d(x, w, b),
                        (2, 2, 2, 3, 2), (2, 3, 2, 2, 3), (3,)),
    "transposed_options": (lambda lib, x, w, b: F(lib).conv_transpose3d(
        x, w, b, stride=(2, 1, 3), padding=(1, 0, 1), output_padding=(1, 0, 2),
        dilation=(1, 2, 1), groups=2), (1, 4, 2, 3, 2), (4, 1, 2, 2, 3), (2,)),
    "transposed_unbatched": (lambda lib, x, w: F(lib).conv_transpose3d(x, w, stride=2,
                                                                       padding=1),
                             (2, 2, 3, 2), (2, 2, 3, 2, 2)),
}


def _arrays(shapes):
    return [randn(*shape, seed=i) for i, shape in enumerate(shapes)]


@pytest.mark.parametrize("name", CASES)
def test_values_gradients_and_double_backward(name):
    fn, *shapes = CASES[name]
    check_op(fn, *_arrays(shapes))


@pytest.mark.parametrize("name", ["bias", "groups_bias", "transposed_options"])
def test_float32(name):
    fn, *shapes = CASES[name]
    check_op(fn, *_arrays(shapes), dtype=np.float32)


def test_only_the_input_or_only_the_weight_requires_grad():
    fn, *shapes = CASES["groups_bias"]
    check_op(fn, *_arrays(shapes), requires_grad=[True, False, False])
    check_op(fn, *_arrays(shapes), requires_grad=[False, True, True])


@pytest.mark.parametrize("name", ["bias", "stride_padding", "unbatched", "transposed_options"])
def test_forward_ad(name):
    fn, *shapes = CASES[name]
    check_jvp(fn, *_arrays(shapes))


@pytest.mark.cpu_only             # gradcheck's many small evaluations: once is enough
def test_gradcheck_and_gradgradcheck():
    check_gradcheck(lambda lib, x, w, b: F(lib).conv3d(x, w, b, stride=(1, 2, 1), padding=1,
                                                       groups=2),
                    randn(1, 2, 3, 3, 2), randn(2, 1, 2, 2, 2, seed=1), randn(2, seed=2))
    check_gradcheck(CASES["transposed_options"][0], *_arrays(CASES["transposed_options"][1:]))


@pytest.mark.parametrize("name", ["groups_bias", "transposed_options"])
def test_batched_gradients(name):
    """``is_grads_batched``: a batch of output gradients at once, and its double backward."""
    fn, *shapes = CASES[name]
    check_batched_grad(fn, *_arrays(shapes), create_graph=True)


def test_node_names_shapes_and_dtypes():
    def run(lib):
        x = lib.tensor(randn(1, 2, 3, 4, 4), requires_grad=True)
        w = lib.tensor(randn(3, 2, 2, 3, 3), requires_grad=True)
        outs = [F(lib).conv3d(x, w), F(lib).conv3d(x.float(), w.float(), stride=2),
                lib.conv3d(x, w, padding=1), lib.conv_transpose3d(x, w.transpose(0, 1)),
                F(lib).conv_transpose3d(x.float(), w.float().transpose(0, 1), stride=2)]
        return [(o.grad_fn.name(), tuple(o.shape), str(o.dtype).split(".")[-1]) for o in outs]
    assert run(ag) == run(torch)


@pytest.mark.parametrize("mode", ["zeros", "reflect", "replicate", "circular"])
def test_module(mode):
    """nn.Conv3d: its parameters' shapes, its padding modes, its output and repr."""
    def run(lib):
        lib.manual_seed(0)
        layer = lib.nn.Conv3d(2, 4, (2, 3, 3), stride=(1, 2, 1), padding=(1, 1, 2),
                              dilation=(1, 1, 2), groups=2, padding_mode=mode)
        with lib.no_grad():
            layer.weight.copy_(lib.tensor(randn(4, 1, 2, 3, 3), dtype=lib.float32))
            layer.bias.copy_(lib.tensor(randn(4, seed=1), dtype=lib.float32))
        x = lib.tensor(randn(1, 2, 3, 4, 5, seed=2), dtype=lib.float32, requires_grad=True)
        out = layer(x)
        out.sum().backward()
        return (repr(layer), tuple(layer.weight.shape), out, x.grad, layer.weight.grad,
                layer(x[0]).shape, repr(lib.nn.Conv3d(2, 2, 3, padding="same", bias=False)))
    assert_same(run, rtol=1e-5, atol=1e-5)


def test_transposed_module():
    """nn.ConvTranspose3d: its weight's shape, output, gradients, ``output_size`` and repr."""
    def run(lib):
        lib.manual_seed(0)
        layer = lib.nn.ConvTranspose3d(2, 4, (2, 3, 2), stride=(2, 1, 2), padding=(0, 1, 1),
                                       groups=2)
        with lib.no_grad():
            layer.weight.copy_(lib.tensor(randn(2, 2, 2, 3, 2), dtype=lib.float32))
            layer.bias.copy_(lib.tensor(randn(4, seed=1), dtype=lib.float32))
        x = lib.tensor(randn(1, 2, 2, 3, 3, seed=2), dtype=lib.float32, requires_grad=True)
        out = layer(x, output_size=(5, 3, 5))
        out.sum().backward()
        return (repr(layer), tuple(layer.weight.shape), out, x.grad, layer.weight.grad,
                layer.bias.grad, layer(x[0]).shape)
    assert_same(run, rtol=1e-5, atol=1e-5)


def _ones(lib, *shape, dtype=None):
    return lib.ones(*shape, dtype=dtype or lib.float32)


ERRORS = [
    lambda lib: F(lib).conv3d(_ones(lib, 2, 5, 5), _ones(lib, 2, 2, 1, 1, 1)),
    lambda lib: F(lib).conv3d(_ones(lib, 1, 1, 1, 2, 5, 5), _ones(lib, 2, 1, 3, 3, 3)),
    lambda lib: F(lib).conv3d(_ones(lib, 1, 1, 5, 5, 5), _ones(lib, 2, 1, 3, 3)),
    lambda lib: F(lib).conv3d(_ones(lib, 1, 3, 5, 5, 5), _ones(lib, 2, 2, 3, 3, 3)),
    lambda lib: F(lib).conv3d(_ones(lib, 1, 4, 5, 5, 5), _ones(lib, 3, 2, 3, 3, 3), groups=2),
    lambda lib: F(lib).conv3d(_ones(lib, 1, 2, 2, 5, 5), _ones(lib, 2, 2, 3, 3, 3)),
    lambda lib: F(lib).conv3d(_ones(lib, 1, 2, 5, 5, 5), _ones(lib, 3, 2, 3, 3, 3),
                              _ones(lib, 2)),
    lambda lib: F(lib).conv3d(_ones(lib, 1, 2, 5, 5, 5), _ones(lib, 3, 2, 3, 3, 3), stride=2,
                              padding="same"),
    lambda lib: F(lib).conv3d(_ones(lib, 1, 2, 5, 5, 5), _ones(lib, 3, 2, 3, 3, 3), padding=-1),
    lambda lib: F(lib).conv3d(_ones(lib, 1, 2, 5, 5, 5), _ones(lib, 3, 2, 3, 3, 3), stride=0),
    lambda lib: F(lib).conv3d(_ones(lib, 1, 1, 5, 5, 5), _ones(lib, 2, 1, 3, 3, 3),
                              dilation=(0, 1, 1)),
    lambda lib: F(lib).conv3d(_ones(lib, 1, 1, 5, 5, 5), _ones(lib, 2, 1, 3, 3, 3), dilation=-1),
    lambda lib: F(lib).conv3d(_ones(lib, 1, 2, 5, 5, 5), _ones(lib, 3, 2, 3, 3, 3),
                              stride=(1, 1)),
    lambda lib: F(lib).conv3d(_ones(lib, 1, 2, 5, 5, 5), _ones(lib, 3, 2, 3, 3, 3),
                              padding=(1, 1)),
    lambda lib: F(lib).conv3d(_ones(lib, 1, 2, 5, 5, 5),
                              _ones(lib, 3, 2, 3, 3, 3, dtype=lib.float64)),
    lambda lib: F(lib).conv_transpose3d(_ones(lib, 1, 2, 3, 3, 3), _ones(lib, 2, 2, 2, 2, 2),
                                        output_padding=1),
    lambda lib: F(lib).conv_transpose3d(_ones(lib, 1, 2, 3, 3, 3), _ones(lib, 2, 2, 2, 2, 2),
                                        stride=2, output_padding=(0, 2, 0)),
    lambda lib: F(lib).conv_transpose3d(_ones(lib, 1, 2, 3, 3, 3), _ones(lib, 2, 2, 2, 2, 2),
                                        dilation=0),
    lambda lib: F(lib).conv_transpose3d(_ones(lib, 1, 2, 3, 3, 3), _ones(lib, 2, 2, 2, 2, 2),
                                        padding=3),
    lambda lib: F(lib).conv_transpose3d(_ones(lib, 2, 3, 3), _ones(lib, 2, 2, 2, 2, 2)),
    lambda lib: F(lib).conv_transpose3d(_ones(lib, 1, 2, 3, 3, 3), _ones(lib, 2, 2, 2, 2, 2),
                                        stride=(1, 1)),
    lambda lib: F(lib).conv_transpose3d(_ones(lib, 1, 3, 3, 3, 3), _ones(lib, 2, 2, 2, 2, 2)),
    lambda lib: lib.nn.ConvTranspose3d(2, 3, 2, padding_mode="reflect"),
    lambda lib: lib.nn.ConvTranspose3d(2, 2, 2, stride=2)(_ones(lib, 1, 2, 2, 2, 2),
                                                           output_size=(9, 4, 4)),
    lambda lib: lib.nn.Conv3d(3, 4, 3, groups=2),
    lambda lib: lib.nn.Conv3d(2, 4, 3, stride=2, padding="same"),
]


@pytest.mark.parametrize("index", range(len(ERRORS)))
def test_errors(index):
    assert_same_error(ERRORS[index])


def test_vmap():
    """vmap's rule: the examples of a vmapped batch are independent (unbatched and batched
    examples), as in torch.func.vmap."""
    def run(lib):
        w, b = lib.tensor(randn(3, 2, 2, 2, 2, seed=1)), lib.tensor(randn(3, seed=2))
        conv = lib.func.vmap(lambda t: F(lib).conv3d(t, w, b, padding=1))
        transposed = lib.func.vmap(lambda t: F(lib).conv_transpose3d(t, w.transpose(0, 1),
                                                                     stride=2))
        return (conv(lib.tensor(randn(2, 2, 3, 3, 4))), conv(lib.tensor(randn(2, 4, 2, 3, 3, 4))),
                transposed(lib.tensor(randn(2, 2, 2, 2, 3))))
    assert_same(run, rtol=1e-12, atol=1e-12)
