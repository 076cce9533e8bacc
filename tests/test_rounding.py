"""floor, ceil, trunc, fix, round (with decimals) and frac (autograd_cy/rounding.py) against
torch's: values (halves rounded to even, infinities, NaN, signed zeros), zero gradients
and double backward (check_op), frac's gradient, gradcheck in float64, forward AD, the
nodes, integer inputs, half precision, and frac's refusal of integers."""
import numpy as np
import pytest

import autograd_cy as ag
from oracle import assert_same, assert_same_error, check_jvp, check_op, node_name, randn

HALVES = np.array([-3.5, -2.5, -1.5, -0.5, -0.3, 0.0, 0.5, 1.5, 2.5, 2.7, 3.5, 1e6 + 0.5])

CASES = {
    "floor": lambda lib, x: lib.floor(x),
    "ceil": lambda lib, x: x.ceil(),
    "trunc": lambda lib, x: lib.trunc(x),
    "fix": lambda lib, x: x.fix(),
    "round": lambda lib, x: lib.round(x),
    "round_method": lambda lib, x: x.round(),
    "round_decimals": lambda lib, x: lib.round(x * 10, decimals=2),
    "round_negative_decimals": lambda lib, x: x.mul(1000).round(decimals=-2),
    "frac": lambda lib, x: lib.frac(x * 3),
    "frac_method": lambda lib, x: (x * 3).frac(),
}


@pytest.mark.parametrize("name", CASES)
def test_values_gradients_and_double_backward(name):
    check_op(CASES[name], randn(3, 4))


@pytest.mark.parametrize("name", CASES)
def test_forward_ad(name):
    check_jvp(CASES[name], randn(3, 4))


@pytest.mark.parametrize("name", CASES)
def test_gradcheck(name):
    # away from the jumps, where finite differences see the (zero or unit) derivative
    x = ag.tensor(np.array([0.21, 1.3, -2.6, 4.4]), requires_grad=True)
    assert ag.autograd.gradcheck(lambda t: CASES[name](ag, t), [x], check_forward_ad=True)
    assert ag.autograd.gradgradcheck(lambda t: CASES[name](ag, t), [x])


@pytest.mark.parametrize("name", CASES)
def test_halves_and_special_values(name):
    values = np.concatenate([HALVES, [np.inf, -np.inf, np.nan, -0.0, 1e-300]])
    assert_same(lambda lib: CASES[name](lib, lib.tensor(values)).tolist() if "decimals"
                not in name else CASES[name](lib, lib.tensor(HALVES)).tolist())


def test_signed_zeros():
    """-0.3 rounds, truncates and ceils to -0.0."""
    assert_same(lambda lib: [str(f(lib.tensor([-0.3, -0.0])).tolist())
                             for f in (lib.round, lib.trunc, lib.ceil, lib.frac)])


def test_nodes():
    def run(lib):
        x = lib.tensor(randn(3), requires_grad=True)
        outs = [lib.floor(x), lib.ceil(x), lib.trunc(x), lib.fix(x), lib.round(x),
                lib.round(x, decimals=1), lib.frac(x)]
        grad, = lib.autograd.grad(outs[0], x, lib.ones_like(x), create_graph=True)
        return [node_name(out.grad_fn) for out in outs] + [grad, grad.requires_grad]
    assert_same(run)


def test_integers_and_half_precision():
    assert_same(lambda lib: [f(lib.tensor([-3, 0, 7])) for f in (
        lib.floor, lib.ceil, lib.trunc, lib.round)] + [
        str(lib.round(lib.tensor([1, 2])).dtype).split(".")[-1]])
    for dtype in ("float16", "bfloat16"):
        assert_same(lambda lib: [[str(y.dtype).split(".")[-1], y.float().tolist()] for y in (
            f(lib.tensor(HALVES[:-1], dtype=getattr(lib, dtype))) for f in (
                lib.floor, lib.ceil, lib.trunc, lib.round, lib.frac,
                lambda t: t.round(decimals=1)))])


def test_frac_of_an_integer_tensor():
    assert_same_error(lambda lib: lib.frac(lib.arange(3)))


@pytest.mark.parametrize("dtype", ["int64", "int32", "bool", "uint8"])
def test_round_with_decimals_refuses_integers(dtype):
    assert_same_error(lambda lib: lib.round(lib.ones(2, dtype=getattr(lib, dtype)),
                                            decimals=1), exact=True)


@pytest.mark.parametrize("name", ["floor", "ceil", "trunc", "fix", "round", "floor_", "round_"])
def test_complex_tensors_are_refused(name):
    # fuzz seed 985001171: floor of a complex tensor raised NumPy's TypeError
    assert_same_error(lambda lib: getattr(lib.tensor([3 + 3j]), name)(), NotImplementedError,
                      exact=True)
