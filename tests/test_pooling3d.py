"""F.max_pool3d, avg_pool3d, adaptive_avg_pool3d, adaptive_max_pool3d, max_unpool3d,
lp_pool3d and their modules against torch: values, gradients and double backward
(check_op) over kernel, stride, padding, dilation, ceil_mode, return_indices,
count_include_pad and divisor_override, with ties and NaN; forward AD; gradcheck; vmap;
node names and indices; integer inputs and empty batches; torch's errors (and the 2-D
op's padding check the 3-D one shares)."""
import numpy as np
import pytest
import torch

import autograd_cy as ag
from oracle import (assert_same, assert_same_error, check_batched_grad, check_gradcheck,
                    check_jvp, check_op, randn)


def F(lib):
    return lib.nn.functional


def _ties(*shape):
    """Values with many equal maxima in a window (the first one wins the gradient)."""
    return np.random.default_rng(3).integers(0, 3, shape).astype(np.float64)


def _with_nan(*shape):
    values = randn(*shape, seed=4)
    values[0, 0, 1, 1, 1] = np.nan
    return values


def _unpooled(lib, x, kernel, stride, padding, output_size=None):
    out, indices = F(lib).max_pool3d(x, kernel, stride, padding, return_indices=True)
    return F(lib).max_unpool3d(out * 2, indices, kernel, stride, padding, output_size)


# name: (fn(lib, x), input values)
CASES = {
    "max_2": (lambda lib, x: F(lib).max_pool3d(x, 2), randn(2, 2, 4, 4, 6)),
    "max_options": (lambda lib, x: F(lib).max_pool3d(x, (2, 3, 2), (1, 2, 1), (1, 1, 0),
                                                     (2, 1, 2), ceil_mode=True),
                    randn(1, 2, 5, 6, 5)),
    "max_indices": (lambda lib, x: F(lib).max_pool3d(x, 3, 2, 1, return_indices=True),
                    randn(2, 1, 4, 5, 5)),
    "max_unbatched": (lambda lib, x: F(lib).max_pool3d(x, 2, 1, ceil_mode=True),
                      randn(2, 3, 3, 4)),
    "max_ties": (lambda lib, x: F(lib).max_pool3d(x, 3, 1, 1, return_indices=True),
                 _ties(1, 2, 3, 4, 4)),
    "max_nan": (lambda lib, x: F(lib).max_pool3d(x, 2, 1, return_indices=True),
                _with_nan(1, 1, 3, 3, 4)),
    "avg_3": (lambda lib, x: F(lib).avg_pool3d(x, 3, 2, 1), randn(2, 2, 4, 5, 6)),
    "avg_ceil_exclude_pad": (lambda lib, x: F(lib).avg_pool3d(
        x, (3, 2, 2), (2, 3, 1), (1, 1, 0), ceil_mode=True, count_include_pad=False),
        randn(1, 2, 5, 6, 4)),
    "avg_ceil_include_pad": (lambda lib, x: F(lib).avg_pool3d(x, 3, 2, 1, ceil_mode=True),
                             randn(1, 1, 4, 6, 6)),
    "avg_divisor": (lambda lib, x: F(lib).avg_pool3d(x, 2, 1, divisor_override=3),
                    randn(1, 2, 3, 3, 4)),
    "avg_unbatched": (lambda lib, x: F(lib).avg_pool3d(x, (1, 2, 2)), randn(3, 2, 4, 5)),
    "adaptive_avg_uneven": (lambda lib, x: F(lib).adaptive_avg_pool3d(x, (2, 3, 4)),
                            randn(1, 2, 5, 5, 7)),
    "adaptive_avg_none": (lambda lib, x: F(lib).adaptive_avg_pool3d(x, (None, 2, 1)),
                          randn(2, 3, 5, 4)),
    "adaptive_avg_one": (lambda lib, x: F(lib).adaptive_avg_pool3d(x, 1), randn(1, 2, 3, 3, 2)),
    "adaptive_avg_larger": (lambda lib, x: F(lib).adaptive_avg_pool3d(x, (3, 4, 3)),
                            randn(1, 1, 2, 3, 2)),
    "adaptive_max_uneven": (lambda lib, x: F(lib).adaptive_max_pool3d(x, (2, 3, 4), True),
                            randn(2, 1, 5, 5, 7)),
    "adaptive_max_none": (lambda lib, x: F(lib).adaptive_max_pool3d(x, (3, None, 2)),
                          randn(2, 4, 3, 5)),
    "adaptive_max_ties": (lambda lib, x: F(lib).adaptive_max_pool3d(x, 2, True),
                          _ties(1, 2, 3, 5, 4)),
    "unpool": (lambda lib, x: _unpooled(lib, x, 2, None, 0), randn(2, 2, 4, 4, 6)),
    # (windows that do not overlap: a maximum in two windows would be written twice)
    "unpool_options": (lambda lib, x: _unpooled(lib, x, (2, 1, 2), (2, 1, 2), (1, 0, 1),
                                                (5, 3, 7)), randn(1, 2, 5, 3, 7)),
    "unpool_unbatched": (lambda lib, x: _unpooled(lib, x, 2, 1, 0), randn(2, 3, 3, 4)),
    "lp_2": (lambda lib, x: F(lib).lp_pool3d(x, 2, (2, 1, 2), ceil_mode=True),
             randn(1, 2, 3, 3, 5)),
    "lp_3_stride": (lambda lib, x: F(lib).lp_pool3d(x, 3, 2, 1), randn(1, 2, 3, 3, 3)),
    "lp_inf": (lambda lib, x: F(lib).lp_pool3d(x, float("inf"), 2), randn(2, 1, 2, 4, 4)),
}


@pytest.mark.parametrize("name", CASES)
def test_values_gradients_and_double_backward(name):
    fn, values = CASES[name]
    check_op(fn, values)


@pytest.mark.parametrize("name", ["max_options", "avg_ceil_exclude_pad", "adaptive_avg_uneven",
                                  "adaptive_max_uneven", "unpool_options"])
def test_float32(name):
    fn, values = CASES[name]
    check_op(fn, values, dtype=np.float32)


@pytest.mark.parametrize("name", ["max_options", "avg_divisor", "adaptive_avg_uneven",
                                  "adaptive_max_uneven", "unpool_options"])
def test_forward_ad(name):
    fn, values = CASES[name]
    check_jvp(fn, values)


@pytest.mark.cpu_only             # gradcheck's many small evaluations: once is enough
@pytest.mark.parametrize("name", ["max_options", "avg_ceil_exclude_pad", "adaptive_avg_uneven",
                                  "adaptive_max_uneven", "unpool_options"])
def test_gradcheck_and_gradgradcheck(name):
    fn, values = CASES[name]
    check_gradcheck(fn, values)


@pytest.mark.parametrize("name", ["max_options", "avg_ceil_exclude_pad", "adaptive_avg_uneven",
                                  "adaptive_max_uneven", "unpool_options"])
def test_batched_gradients(name):
    """``is_grads_batched``: a batch of output gradients at once. (Not with create_graph: as
    for the 2-D ops, a pooling gradient that does not depend on the input does not require
    grad here, where torch's does, with zero second derivatives.)"""
    fn, values = CASES[name]
    check_batched_grad(fn, values)


def test_node_names_and_indices():
    def run(lib):
        x = lib.tensor(randn(1, 2, 3, 4, 5), requires_grad=True)
        out, indices = F(lib).max_pool3d(x, 3, 2, 1, return_indices=True)
        pooled, where = F(lib).adaptive_max_pool3d(x, (2, 3, 2), return_indices=True)
        names = [out.grad_fn.name(), F(lib).avg_pool3d(x, 2).grad_fn.name(),
                 F(lib).adaptive_avg_pool3d(x, 2).grad_fn.name(),
                 F(lib).adaptive_avg_pool3d(x, 1).grad_fn.name(), pooled.grad_fn.name(),
                 F(lib).max_unpool3d(out, indices, 3, 2, 1, x.shape).grad_fn.name(),
                 F(lib).max_pool3d_with_indices(x, 2)[0].grad_fn.name(),
                 F(lib).adaptive_max_pool3d_with_indices(x, 2)[1].tolist(),
                 lib.max_pool3d(x, 2, (), 1).grad_fn.name()]
        return (names, indices.tolist(), str(indices.dtype).split(".")[-1], where.tolist(),
                str(where.dtype).split(".")[-1])
    assert run(ag) == run(torch)


def test_unbatched_inputs_record_the_ops_node():
    """An unbatched input (no N) is pooled by the op itself, as torch's: its node, not a
    squeeze's (the 2-D ops too)."""
    def run(lib):
        plane = lib.tensor(randn(2, 4, 4), requires_grad=True)
        volume = lib.tensor(randn(2, 4, 4, 4), requires_grad=True)
        pooled, where = F(lib).max_pool2d(plane, 2, return_indices=True)
        pooled3, where3 = F(lib).max_pool3d(volume, 2, return_indices=True)
        outs = [pooled, F(lib).avg_pool2d(plane, 2), F(lib).adaptive_max_pool2d(plane, 3),
                F(lib).max_unpool2d(pooled, where, 2), pooled3, F(lib).avg_pool3d(volume, 2),
                F(lib).adaptive_max_pool3d(volume, 3), F(lib).adaptive_avg_pool3d(volume, 3),
                F(lib).max_unpool3d(pooled3, where3, 2), F(lib).max_pool1d(plane, 2)]
        return [out.grad_fn.name() for out in outs]
    assert run(ag) == run(torch)


def test_integer_inputs_and_empty_batches():
    def run(lib):
        ints = lib.arange(-30, 34).reshape(1, 1, 4, 4, 4)
        empty = lib.zeros(0, 2, 4, 4, 4)
        return [F(lib).max_pool3d(ints, 2), F(lib).avg_pool3d(ints, 3, 1, 1),
                F(lib).avg_pool3d(ints, 3, 1, 1, divisor_override=2),
                tuple(F(lib).max_pool3d(empty, 2).shape),
                tuple(F(lib).avg_pool3d(empty, 2).shape),
                tuple(F(lib).adaptive_avg_pool3d(empty, 3).shape),
                tuple(F(lib).adaptive_max_pool3d(empty, 3).shape),
                tuple(F(lib).adaptive_avg_pool3d(lib.ones(1, 2, 4, 4, 4), 0).shape),
                *F(lib).adaptive_max_pool3d(lib.ones(1, 2, 4, 4, 4), (2, 0, 1), True),
                *F(lib).adaptive_max_pool2d(lib.ones(2, 4, 4), (0, 2), True)]
    ours, theirs = assert_same(run)
    assert [str(t.dtype).split(".")[-1] for t in ours[:3]] == \
        [str(t.dtype).split(".")[-1] for t in theirs[:3]]


def test_modules():
    """The layers: their settings, output, gradient and repr."""
    def run(lib):
        x = lib.tensor(randn(2, 2, 4, 5, 6), requires_grad=True)
        pool = lib.nn.MaxPool3d((2, 2, 3), stride=(1, 2, 2), padding=(1, 0, 1),
                                return_indices=True)
        out, indices = pool(x)
        layers = [lib.nn.AvgPool3d(3, 2, 1, ceil_mode=True, count_include_pad=False),
                  lib.nn.AdaptiveAvgPool3d((2, None, 3)), lib.nn.AdaptiveMaxPool3d(2),
                  lib.nn.LPPool3d(2, (2, 3, 2), stride=1)]
        outs = [out, lib.nn.MaxUnpool3d((2, 2, 3), (1, 2, 2), (1, 0, 1))(
            out, indices, output_size=x.shape)] + [layer(x) for layer in layers]
        sum(o.sum() for o in outs).backward()
        return [repr(m) for m in [pool, lib.nn.MaxUnpool3d(2)] + layers], outs, x.grad
    assert_same(run)


def test_batch_norm_3d():
    """nn.BatchNorm3d: training statistics, the running estimates, eval, and its check of
    the input's rank."""
    def run(lib):
        lib.manual_seed(0)
        layer = lib.nn.BatchNorm3d(3)
        x = lib.tensor(randn(2, 3, 2, 3, 2), dtype=lib.float32, requires_grad=True)
        out = layer(x)
        (out * lib.tensor(randn(2, 3, 2, 3, 2, seed=1), dtype=lib.float32)).sum().backward()
        layer.eval()
        return repr(layer), out, x.grad, layer.running_mean, layer.running_var, layer(x)
    assert_same(run)
    assert_same_error(lambda lib: lib.nn.BatchNorm3d(3)(lib.ones(2, 3, 4, 4)))


def _ones(lib, *shape, dtype=None):
    return lib.ones(*shape, dtype=dtype or lib.float32)


def _index(lib, *shape, value=0):
    return lib.full(shape, value, dtype=lib.int64)


ERRORS = [
    lambda lib: F(lib).max_pool3d(_ones(lib, 5, 5, 5), 2),
    lambda lib: F(lib).max_pool3d(_ones(lib, 1, 1, 1, 5, 5, 5), 2),
    lambda lib: F(lib).max_pool3d(_ones(lib, 1, 0, 5, 5, 5), 2),
    lambda lib: F(lib).max_pool3d(_ones(lib, 1, 2, 0, 5, 5), 2),
    lambda lib: F(lib).max_pool3d(_ones(lib, 1, 3, 5, 5, 5), 3, padding=2),
    lambda lib: F(lib).max_pool3d(_ones(lib, 1, 3, 2, 5, 5), 3),
    lambda lib: F(lib).max_pool3d(_ones(lib, 1, 1, 5, 5, 5), 0),
    lambda lib: F(lib).max_pool3d(_ones(lib, 1, 1, 5, 5, 5), -1, 1),
    lambda lib: F(lib).max_pool3d(_ones(lib, 1, 1, 5, 5, 5), 2, -1),
    lambda lib: F(lib).max_pool3d(_ones(lib, 1, 1, 5, 5, 5), 2, dilation=0),
    lambda lib: F(lib).max_pool3d(_ones(lib, 1, 1, 5, 5, 5), 2, padding=-1),
    lambda lib: F(lib).max_pool3d(_ones(lib, 1, 1, 6, 6, 6), 2, 1, 2, 3),
    lambda lib: F(lib).max_pool3d(_ones(lib, 1, 1, 5, 5, 5), (2, 2)),
    lambda lib: F(lib).max_pool3d(_ones(lib, 1, 1, 5, 5, 5), 2, (1, 1)),
    lambda lib: F(lib).max_pool3d(_ones(lib, 1, 1, 5, 5, 5), 2, padding=(1, 1)),
    lambda lib: F(lib).max_pool3d(_ones(lib, 1, 1, 5, 5, 5), 2, dilation=(1, 1)),
    lambda lib: F(lib).max_pool3d(_ones(lib, 1, 1, 4, 4, 4, dtype=lib.bool), 2),
    lambda lib: F(lib).max_pool2d(_ones(lib, 1, 1, 6, 6), 2, 1, 2, 3),
    lambda lib: F(lib).avg_pool3d(_ones(lib, 5, 5, 5), 2),
    lambda lib: F(lib).avg_pool3d(_ones(lib, 1, 0, 5, 5, 5), 2),
    lambda lib: F(lib).avg_pool3d(_ones(lib, 1, 3, 5, 5, 5), 3, padding=2),
    lambda lib: F(lib).avg_pool3d(_ones(lib, 1, 2, 1, 4, 4), 2, 1, 1),
    lambda lib: F(lib).avg_pool3d(_ones(lib, 1, 1, 4, 4, 4), 2, divisor_override=0),
    lambda lib: F(lib).avg_pool3d(_ones(lib, 1, 1, 5, 5, 5), 2, 0),
    lambda lib: F(lib).avg_pool3d(_ones(lib, 1, 1, 5, 5, 5), -1, 1),
    lambda lib: F(lib).avg_pool3d(_ones(lib, 1, 1, 5, 5, 5), (2, 2)),
    lambda lib: F(lib).avg_pool3d(_ones(lib, 1, 1, 5, 5, 5), 2, (2, 2)),
    lambda lib: F(lib).avg_pool3d(_ones(lib, 1, 1, 5, 5, 5), 2, 2, (1, 1)),
    lambda lib: F(lib).avg_pool3d(_ones(lib, 1, 1, 4, 4, 4, dtype=lib.bool), 2),
    lambda lib: F(lib).avg_pool3d(_ones(lib, 1, 1, 4, 4, 4, dtype=lib.float16), 2),
    lambda lib: F(lib).avg_pool3d(_ones(lib, 1, 1, 4, 4, 4, dtype=lib.complex64), 2),
    lambda lib: F(lib).avg_pool2d(_ones(lib, 1, 1, 4, 4, dtype=lib.complex128), 2),
    lambda lib: F(lib).adaptive_avg_pool3d(_ones(lib, 5, 5), 2),
    lambda lib: F(lib).adaptive_avg_pool3d(_ones(lib, 1, 1, 0, 4, 4), 2),
    lambda lib: F(lib).adaptive_avg_pool3d(_ones(lib, 1, 2, 5, 5, 5), -1),
    lambda lib: F(lib).adaptive_avg_pool3d(_ones(lib, 1, 2, 5, 5, 5), (1, 2)),
    lambda lib: F(lib).adaptive_avg_pool3d(_ones(lib, 1, 1, 4, 4, 4, dtype=lib.int64), 2),
    lambda lib: F(lib).adaptive_max_pool3d(_ones(lib, 5, 5), 2),
    lambda lib: F(lib).adaptive_max_pool3d(_ones(lib, 1, 1, 0, 4, 4), 2),
    lambda lib: F(lib).adaptive_max_pool3d(_ones(lib, 1, 2, 5, 5, 5), -1),
    lambda lib: F(lib).adaptive_max_pool3d(_ones(lib, 1, 2, 5, 5, 5), (1, 2)),
    lambda lib: F(lib).adaptive_max_pool3d(_ones(lib, 1, 1, 4, 4, 4, dtype=lib.int64), 2),
    lambda lib: F(lib).max_unpool3d(_ones(lib, 2, 2, 2), _index(lib, 2, 2, 2), 2),
    lambda lib: F(lib).max_unpool3d(_ones(lib, 1, 2, 2, 2, 2),
                                    _index(lib, 1, 2, 2, 2, 2).int(), 2),
    lambda lib: F(lib).max_unpool3d(_ones(lib, 1, 2, 2, 2, 2), _index(lib, 1, 2, 2, 2, 1), 2),
    lambda lib: F(lib).max_unpool3d(_ones(lib, 1, 2, 2, 2, 2),
                                    _index(lib, 1, 2, 2, 2, 2, value=64), 2),
    lambda lib: F(lib).max_unpool3d(_ones(lib, 1, 2, 2, 2, 2),
                                    _index(lib, 1, 2, 2, 2, 2, value=-1), 2),
    lambda lib: F(lib).max_unpool3d(_ones(lib, 1, 2, 2, 2, 2), _index(lib, 1, 2, 2, 2, 2), 2,
                                    output_size=(1, 4, 5)),
    lambda lib: F(lib).max_unpool3d(_ones(lib, 1, 2, 2, 2, 2), _index(lib, 1, 2, 2, 2, 2), 2,
                                    output_size=(4, 5)),
    lambda lib: F(lib).max_unpool3d(_ones(lib, 1, 2, 2, 2, 2), _index(lib, 1, 2, 2, 2, 2), 2,
                                    0),
]


@pytest.mark.parametrize("index", range(len(ERRORS)))
def test_errors(index):
    assert_same_error(ERRORS[index])


VMAPPED = {
    "max_pool3d": lambda lib, t: F(lib).max_pool3d(t, 2, 1, return_indices=True),
    "avg_pool3d": lambda lib, t: F(lib).avg_pool3d(t, 2, 1, 1),
    "adaptive_avg_pool3d": lambda lib, t: F(lib).adaptive_avg_pool3d(t, (2, 3, 2)),
    "adaptive_max_pool3d": lambda lib, t: F(lib).adaptive_max_pool3d(t, 2, True),
    "max_unpool3d": lambda lib, t: F(lib).max_unpool3d(*F(lib).max_pool3d(
        t, 2, return_indices=True), 2),
    "lp_pool3d": lambda lib, t: F(lib).lp_pool3d(t, 2, 2, 1),
}


@pytest.mark.parametrize("name", VMAPPED)
@pytest.mark.parametrize("batched_input", [(3, 2, 3, 4, 4), (2, 3, 2, 3, 4, 4)])
def test_vmap(name, batched_input):
    """vmap's rules (or its per-example fallback, max_unpool3d) on unbatched and batched
    examples, as torch.func.vmap."""
    fn = VMAPPED[name]
    assert_same(lambda lib: lib.func.vmap(lambda t: fn(lib, t))(
        lib.tensor(randn(*batched_input))), rtol=1e-12, atol=1e-12)
