"""quantile and nanquantile (autograd_cy/quantiles.py) against torch's: every
interpolation, scalar, 0-d and 1-D q, dim/keepdim, NaN rows, gradients, double backward,
forward AD, and errors."""
import numpy as np
import pytest

from oracle import assert_same, assert_same_error, check_jvp, check_op, randn

NAN = float("nan")
MODES = ["linear", "lower", "higher", "midpoint", "nearest"]
CALLS = {
    "all": lambda lib, op, x, mode: getattr(lib, op)(x, 0.3, interpolation=mode),
    "all_keepdim_q_tensor": lambda lib, op, x, mode: getattr(x, op)(
        lib.tensor([0.0, 0.25, 0.5, 1.0], dtype=x.dtype), keepdim=True, interpolation=mode),
    "dim0_q0d": lambda lib, op, x, mode: getattr(lib, op)(
        x, lib.tensor(0.75, dtype=x.dtype), dim=0, interpolation=mode),
    "dim1_keepdim": lambda lib, op, x, mode: getattr(x, op)(0.4, 1, True,
                                                             interpolation=mode),
    "dim_last_q1d": lambda lib, op, x, mode: getattr(lib, op)(
        x, lib.tensor([0.1, 0.9], dtype=x.dtype), dim=-1, interpolation=mode),
    "dim0_q1d_keepdim": lambda lib, op, x, mode: getattr(lib, op)(
        x, lib.tensor([0.5, 0.2], dtype=x.dtype), 0, True, interpolation=mode),
}


@pytest.mark.parametrize("op", ["quantile", "nanquantile"])
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("call", CALLS)
def test_values_and_gradients(op, mode, call):
    fn = lambda lib, x: CALLS[call](lib, op, x, mode)  # noqa: E731
    check_op(fn, randn(4, 5))
    check_op(fn, randn(4, 5), dtype=np.float32)


@pytest.mark.parametrize("op", ["quantile", "nanquantile"])
@pytest.mark.parametrize("call", CALLS)
def test_with_nan(op, call):
    x = randn(4, 5)
    x[0, 1] = x[2, 3] = NAN
    x[3] = NAN
    # which NaN a NaN result is read from (so gets the gradient) is the sort's choice
    requires_grad = [op == "nanquantile"]
    for mode in MODES:
        check_op(lambda lib, t: CALLS[call](lib, op, t, mode), x, double=False,
                 requires_grad=requires_grad)


@pytest.mark.parametrize("call", CALLS)
def test_forward_ad(call):
    check_jvp(lambda lib, x: CALLS[call](lib, "quantile", x, "linear"), randn(4, 5))


def test_shapes():
    assert_same(lambda lib: [
        lib.tensor(2.0).quantile(0.5, dim=0), lib.tensor(2.0).quantile(
            lib.tensor([0.2, 0.5])), lib.ones(2, 3).quantile(0.5, keepdim=True).shape,
        lib.ones(2, 3).nanquantile(lib.tensor([0.5]), dim=0).shape])


@pytest.mark.parametrize("op", ["quantile", "nanquantile"])
@pytest.mark.parametrize("fn", [
    lambda lib, op: getattr(lib.ones(3, 4), op)(1.5),
    lambda lib, op: getattr(lib.ones(3, 4), op)(lib.tensor([0.1, 1.5])),
    lambda lib, op: getattr(lib.ones(3, 4), op)(lib.tensor([0.5], dtype=lib.float64)),
    lambda lib, op: getattr(lib.ones(3, 4), op)(lib.ones(2, 2) * 0.5),
    lambda lib, op: getattr(lib.arange(3), op)(0.5),
    lambda lib, op: getattr(lib.ones(3, 4), op)(0.5, interpolation="foo"),
    lambda lib, op: getattr(lib.tensor([]), op)(0.5),
    lambda lib, op: getattr(lib.ones(3, 4), op)(0.5, dim=3),
])
def test_errors(op, fn):
    assert_same_error(lambda lib: fn(lib, op), exact=True)
