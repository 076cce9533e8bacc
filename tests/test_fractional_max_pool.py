"""Fractional max pooling (autograd_cy/nn/fractional_max_pooling.py) against torch's: with the
same ``_random_samples`` (given to both) the values, indices, gradients and double backward
(check_op), the tangent; torch's OpInfo samples with the draws seeded alike (autograd_cy's
default generator draws torch's numbers); NaN and -inf windows; the modules; the errors in
torch's order."""
import math

import numpy as np
import pytest
import torch

import autograd_cy as ag
from oracle import assert_close, assert_same, assert_same_error, check_jvp, check_op, randn

# dims, input shape, kernel, output size, output ratio
CASES = {
    "2d": (2, (2, 3, 7, 6), (3, 2), (4, 3), None),
    "2d_unbatched_square": (2, (3, 9, 8), 2, (5, 7), None),
    "2d_ratio": (2, (1, 2, 8, 9), 2, None, (0.5, 0.7)),
    "2d_one_window": (2, (1, 1, 4, 4), 4, 1, None),
    "3d": (3, (2, 2, 5, 6, 7), (2, 3, 2), (3, 2, 4), None),
    "3d_unbatched": (3, (1, 4, 5, 6), 2, (2, 3, 4), None),
    "3d_ratio": (3, (1, 1, 6, 6, 5), (2, 2, 1), None, 0.5),
}


def _samples(dims, shape, seed=0):
    lead = shape[:-dims]
    batch = lead[0] if len(lead) == 2 else 1
    return np.random.default_rng(seed).random((batch, lead[-1], dims))


def _pool(name):
    dims, _, kernel, out, ratio = CASES[name]

    def fn(lib, x, samples):
        pool = getattr(lib.nn.functional, f"fractional_max_pool{dims}d")
        return pool(x, kernel, output_size=out, output_ratio=ratio, return_indices=True,
                    _random_samples=samples)
    return fn


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("name", CASES)
def test_values_indices_gradients(name, dtype):
    dims, shape = CASES[name][:2]
    check_op(_pool(name), randn(*shape), _samples(dims, shape), dtype=dtype,
             requires_grad=[True, False])


@pytest.mark.parametrize("name", ["2d", "3d_unbatched"])
def test_forward_ad(name):
    dims, shape = CASES[name][:2]
    check_jvp(lambda lib, x, s: _pool(name)(lib, x, s)[0], randn(*shape),
              _samples(dims, shape))


def test_nodes_and_return_indices():
    def run(lib):
        F = lib.nn.functional
        x = lib.tensor(randn(1, 2, 5, 5, 5), requires_grad=True)
        s3 = lib.tensor(_samples(3, (1, 2, 5, 5, 5)))
        s2 = lib.tensor(_samples(2, (5, 5, 5)))
        y2, i2 = F.fractional_max_pool2d_with_indices(x[0, 0], 2, (3, 3),
                                                      _random_samples=s2)
        y3 = F.fractional_max_pool3d(x, 2, (3, 3, 3), _random_samples=s3)
        return [y2.grad_fn.name(), str(i2.dtype).split(".")[-1], i2.requires_grad,
                y3.grad_fn.name(), isinstance(y3, lib.Tensor)]
    assert_same(run)


def test_nan_and_minus_inf_windows():
    """torch's CPU loop keeps a window's last NaN, and the first entry of a -inf window."""
    x = np.array([[[[1.0, np.nan, 2.0, np.nan, 0.0, -np.inf, -np.inf, 3.0]]]])
    check_op(lambda lib, x, s: lib.nn.functional.fractional_max_pool2d(
        x, (1, 4), (1, 2), return_indices=True, _random_samples=s), x,
        np.full((1, 1, 2), 0.3), requires_grad=[True, False], double=False)
    x = np.full((1, 1, 2, 2), -np.inf)
    check_op(lambda lib, x, s: lib.nn.functional.fractional_max_pool2d(
        x, 2, 1, return_indices=True, _random_samples=s), x, np.full((1, 1, 2), 0.6),
        requires_grad=[True, False], double=False)


def test_empty_batch_and_output():
    def run(lib):
        F = lib.nn.functional
        x = lib.zeros(0, 2, 5, 5, requires_grad=True)
        y = F.fractional_max_pool2d(x, 2, (3, 3))
        z, i = F.fractional_max_pool2d(lib.ones(1, 2, 5, 5), 2, (0, 3), return_indices=True)
        return list(y.shape), list(z.shape), list(i.shape)
    assert_same(run)


@pytest.mark.cpu_only
def test_default_samples_are_torchs_draws():
    def run(lib):
        lib.manual_seed(4)
        x = lib.tensor(randn(2, 3, 7, 7), requires_grad=True)
        y, i = lib.nn.functional.fractional_max_pool2d(x, 2, output_ratio=(0.5, 0.5),
                                                       return_indices=True)
        pool = lib.nn.FractionalMaxPool3d((2, 1, 2), output_ratio=(0.6, 0.5, 0.5))
        z = pool(x)
        return y, i, z
    assert_same(run)


def _opinfo_samples(name, dtype):
    # imported here, not at collection: importing torch.testing._internal freezes torch's
    # backend flags (disable_global_flags), which test_api_runtime.py sets
    from torch.testing._internal.common_methods_invocations import op_db
    (op,) = [op for op in op_db if op.name == name]
    return op, list(op.sample_inputs("cpu", dtype, requires_grad=dtype == torch.float64))


def _float(result):
    """The values as float64 (NumPy has no bfloat16), the indices as they are."""
    if isinstance(result, tuple):
        return _float(result[0]), result[1]
    return result.double()


@pytest.mark.cpu_only
@pytest.mark.parametrize("dtype", ["float64", "float32", "float16", "bfloat16"])
@pytest.mark.parametrize("dims", [2, 3])
def test_opinfo_samples_with_seeded_draws(dims, dtype):
    """Every OpInfo sample, both libraries drawing ``_random_samples`` from the same seed:
    values and indices, and in float64 the input's gradient."""
    name = f"nn.functional.fractional_max_pool{dims}d"
    _, samples = _opinfo_samples(name, getattr(torch, dtype))
    # (the OpInfo's op seeds torch with 42 itself: the functions are called directly)
    pool = f"fractional_max_pool{dims}d"
    ours, torchs = getattr(ag.nn.functional, pool), getattr(torch.nn.functional, pool)
    for index, sample in enumerate(samples):
        torch.manual_seed(index)
        theirs = torchs(sample.input, *sample.args, **sample.kwargs)
        x = ag.tensor(sample.input.detach().double().numpy(), dtype=getattr(ag, dtype),
                      requires_grad=sample.input.requires_grad)
        kwargs = {key: ag.tensor(value.double().numpy(), dtype=x.dtype)
                  if isinstance(value, torch.Tensor) else value     # a _random_samples
                  for key, value in sample.kwargs.items()}
        ag.manual_seed(index)
        result = ours(x, *sample.args, **kwargs)
        assert_close(_float(result), _float(theirs), rtol=0, atol=0, what=f"sample {index}")
        if dtype == "float64":
            first = result[0] if isinstance(result, tuple) else result
            their_first = theirs[0] if isinstance(theirs, tuple) else theirs
            weights = randn(*first.shape, seed=index)
            first.backward(ag.tensor(weights))
            (grad,) = torch.autograd.grad(their_first, sample.input, torch.tensor(weights))
            assert_close(x.grad, grad, what=f"sample {index} gradient")


def test_modules():
    def run(lib):
        samples = lib.tensor(_samples(2, (2, 3, 7, 6)))
        pool = lib.nn.FractionalMaxPool2d(3, output_size=(4, 3), return_indices=True,
                                          _random_samples=samples)
        pool3 = lib.nn.FractionalMaxPool3d(2, output_ratio=0.5)
        x = lib.tensor(randn(2, 3, 7, 6))
        return [repr(pool), repr(pool3), pool.kernel_size, pool.output_size,
                pool3.kernel_size, pool3.output_ratio, pool3.output_size,
                list(pool.state_dict()), pool(x)]
    assert_same(run)


ERRORS = {
    "neither": lambda F, x, s: F.fractional_max_pool2d(x, 3),
    "ratio_float_2d": lambda F, x, s: F.fractional_max_pool2d(x, 3, output_ratio=0.5),
    "ratio_length": lambda F, x, s: F.fractional_max_pool2d(x, 3,
                                                            output_ratio=(0.5, 0.5, 0.5)),
    "kernel_length": lambda F, x, s: F.fractional_max_pool2d(x, (3, 2, 1), (2, 2)),
    "output_length": lambda F, x, s: F.fractional_max_pool2d(x, 3, (2, 2, 2)),
    "rank": lambda F, x, s: F.fractional_max_pool2d(x[None], 2, (3, 3), _random_samples=s),
    "empty_plane": lambda F, x, s: F.fractional_max_pool2d(x[:, :0], 2, (3, 3)),
    "height": lambda F, x, s: F.fractional_max_pool2d(x, 3, (6, 4), _random_samples=s),
    "width": lambda F, x, s: F.fractional_max_pool2d(x, 3, (4, 5), _random_samples=s),
    "samples_dtype": lambda F, x, s: F.fractional_max_pool2d(x, 3, (4, 4),
                                                             _random_samples=s.float()),
    "samples_rank": lambda F, x, s: F.fractional_max_pool2d(x, 3, (4, 4),
                                                            _random_samples=s[0]),
    "samples_batch": lambda F, x, s: F.fractional_max_pool2d(x, 3, (4, 4),
                                                             _random_samples=s[:1]),
    "samples_channels": lambda F, x, s: F.fractional_max_pool2d(x, 3, (4, 4),
                                                                _random_samples=s[:, :2]),
    "samples_last": lambda F, x, s: F.fractional_max_pool2d(x, 3, (4, 4),
                                                            _random_samples=s[:, :, :1]),
    "integer": lambda F, x, s: F.fractional_max_pool2d(x.long(), 3, (4, 4),
                                                       _random_samples=s.long()),
    "negative": lambda F, x, s: F.fractional_max_pool2d(x, 3, (4, -1), _random_samples=s),
    "3d_time": lambda F, x, s: F.fractional_max_pool3d(x, 2, (6, 3, 3)),
    "3d_strict_width": lambda F, x, s: F.fractional_max_pool3d(x, 2, (3, 3, 5)),
    "3d_rank": lambda F, x, s: F.fractional_max_pool3d(x[None, None], 2, (3, 3, 3)),
    "3d_kernel": lambda F, x, s: F.fractional_max_pool3d(x, (2, 2), (3, 3, 3)),
    "3d_output": lambda F, x, s: F.fractional_max_pool3d(x, 2, (3, 3)),
    "3d_samples_last": lambda F, x, s: F.fractional_max_pool3d(x, 2, (3, 3, 3),
                                                               _random_samples=s),
    "module_neither": lambda F, x, s: F.__nn__.FractionalMaxPool2d(3),
    "module_both": lambda F, x, s: F.__nn__.FractionalMaxPool2d(3, 2, 0.5),
    "module_ratio": lambda F, x, s: F.__nn__.FractionalMaxPool3d(3, output_ratio=(0.5, 1, 0.5)),
    "module_kernel": lambda F, x, s: F.__nn__.FractionalMaxPool3d((2, 0, 1), 2),
}


@pytest.mark.parametrize("name", ERRORS)
def test_errors(name):
    def run(lib):
        F = lib.nn.functional
        F.__nn__ = lib.nn
        x = lib.tensor(randn(2, 3, 7, 6))
        s = lib.tensor(_samples(2, (2, 3, 7, 6)))
        return ERRORS[name](F, x, s)
    assert_same_error(run)


def test_windows_cover_the_plane():
    """Each output's window lies inside the input, and consecutive windows start in order
    with the last one at the end (the construction's invariants)."""
    from autograd_cy.nn.fractional_max_pooling import _starts
    samples = np.random.default_rng(1).random(50)
    for size, out, kernel in [(9, 4, 2), (25, 10, 3), (7, 7, 1), (6, 1, 3)]:
        starts = _starts(samples, size, out, kernel)
        assert starts.min() >= 0 and starts.max() == size - kernel
        assert np.all(np.diff(starts, axis=1) >= 0)
        assert math.isclose(starts[:, -1].mean(), size - kernel)
