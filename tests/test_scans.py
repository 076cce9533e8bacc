"""cumsum, cummax and cummin (autograd_cy/scans.py) against torch's: values, gradients and
double backward (check_op), gradcheck and gradgradcheck in float64, forward AD, the nodes
(CumsumBackward0, also under create_graph; CummaxBackward0, CumminBackward0), integer and
bool inputs summed in int64, ``dtype=``, half precision, scalars and empty tensors, the
index of a running extreme on ties and NaN, and torch's errors."""
import numpy as np
import pytest
import torch

import autograd_cy as ag
from oracle import assert_same, assert_same_error, check_jvp, check_op, node_name, randn

CASES = {
    "last": lambda lib, x: lib.cumsum(x, -1),
    "first": lambda lib, x: x.cumsum(0),
    "middle": lambda lib, x: x.cumsum(dim=1),
    "dtype": lambda lib, x: x.cumsum(2, dtype=lib.float32).double(),
    "transposed": lambda lib, x: x.transpose(0, 2).cumsum(1),
}


# the float32 sum of "dtype" is rounded once on the CPU (as torch's), at each step of a
# device's scan
TOLERANCE = {"dtype": dict(rtol=1e-6, atol=1e-7)}


@pytest.mark.parametrize("name", CASES)
def test_values_gradients_and_double_backward(name):
    check_op(CASES[name], randn(2, 5, 3), **TOLERANCE.get(name, {}))


@pytest.mark.parametrize("name", CASES)
def test_forward_ad(name):
    check_jvp(CASES[name], randn(2, 5, 3), **TOLERANCE.get(name, {}))


def test_gradcheck():
    x = ag.tensor(randn(3, 4), requires_grad=True)
    assert ag.autograd.gradcheck(lambda t: t.cumsum(1), [x], check_forward_ad=True)
    assert ag.autograd.gradgradcheck(lambda t: t.cumsum(0), [x])


def test_long_rows():
    """More entries than one step of a device's scan covers."""
    check_op(lambda lib, x: x.cumsum(0), randn(37, 2))


def test_scalar_and_empty():
    check_op(lambda lib, x: x.cumsum(0), randn())
    check_op(lambda lib, x: x.cumsum(-1), randn())
    assert_same(lambda lib: [lib.zeros(0, 3).cumsum(0), lib.zeros(2, 0).cumsum(1)])


def test_node_and_dtype_of_the_gradient():
    def run(lib):
        x = lib.tensor(randn(3, 4), requires_grad=True)
        y = x.cumsum(1, dtype=lib.float32)
        grad, = lib.autograd.grad(y, x, lib.ones_like(y), create_graph=True)
        return [node_name(y.grad_fn), str(y.dtype).split(".")[-1], grad,
                str(grad.dtype).split(".")[-1]]
    assert_same(run)


def test_integers_bools_and_half_precision():
    def run(lib):
        ints = lib.tensor([[1, 2, 3], [4, 5, 6]], dtype=lib.int32)
        bools = lib.tensor([True, False, True, True])
        half = lib.tensor(np.linspace(0, 3, 40), dtype=lib.float16)
        brain = lib.tensor(np.linspace(0, 3, 40), dtype=lib.bfloat16)
        return [[str(t.dtype).split(".")[-1] for t in (
                    ints.cumsum(1), bools.cumsum(0), half.cumsum(0), brain.cumsum(0),
                    ints.cumsum(0, dtype=lib.float64))],
                ints.cumsum(1), bools.cumsum(0), half.cumsum(0).float(),
                brain.cumsum(0).float(), ints.cumsum(0, dtype=lib.float64)]
    assert_same(run)


@pytest.mark.parametrize("fn", [
    lambda lib: lib.zeros(2, 3).cumsum(2),
    lambda lib: lib.zeros(2, 3).cumsum(-3),
    lambda lib: lib.zeros(()).cumsum(1),
])
def test_errors(fn):
    assert_same_error(fn)


def test_missing_dim():
    assert_same_error(lambda lib: lib.zeros(2, 3).cumsum(), TypeError, "missing 1 required")


EXTREMES = {
    "cummax": lambda lib, x: lib.cummax(x, 1),
    "cummax_dim0": lambda lib, x: x.cummax(0),
    "cummin": lambda lib, x: lib.cummin(x, -1),
    "cummin_dim0": lambda lib, x: x.cummin(dim=0),
}


@pytest.mark.parametrize("name", EXTREMES)
def test_running_extremes(name):
    check_op(EXTREMES[name], randn(3, 5))
    check_jvp(EXTREMES[name], randn(3, 5))
    x = ag.tensor(randn(3, 5), requires_grad=True)
    assert ag.autograd.gradcheck(lambda t: EXTREMES[name](ag, t)[0], [x])
    assert ag.autograd.gradgradcheck(lambda t: EXTREMES[name](ag, t)[0], [x])


def test_running_extremes_ties_nan_nodes_and_integers():
    values = np.array([1.0, 3.0, 3.0, 2.0, np.nan, 5.0, np.nan, 1.0])

    def run(lib):
        x = lib.tensor(values, requires_grad=True)
        top, bottom = lib.cummax(x, 0), lib.cummin(x, 0)
        grad, = lib.autograd.grad(top.values.sum() + bottom.values.sum(), x)
        return [str(top.values.tolist()), top.indices, str(bottom.values.tolist()),
                bottom.indices, grad, node_name(top.values.grad_fn),
                node_name(bottom.values.grad_fn), top.indices.requires_grad,
                tuple(lib.cummax(lib.tensor([[1, 3, 2], [4, 0, 4]]), 1)),
                tuple(lib.cummin(lib.tensor(3.0), 0)),
                tuple(lib.cummax(lib.tensor([True, False, True]), 0))]
    assert_same(run)


def test_running_extreme_errors():
    assert_same_error(lambda lib: lib.cummax(lib.zeros(2, 3), 2))


@pytest.mark.parametrize("name", ["cummax", "cummin"])
def test_running_extremes_of_complex_tensors(name):
    # refused unless torch's kernel does not run: a 0-d or an empty tensor (fuzz seeds
    # 985001906, 985000588)
    assert_same_error(lambda lib: getattr(lib, name)(lib.tensor([[1j], [2j]]), 1),
                      NotImplementedError, exact=True)
    assert_same(lambda lib: [tuple(getattr(lib, name)(x, 0)) for x in (
        lib.tensor(1j), lib.zeros(1, 0, dtype=lib.complex64),
        lib.zeros(0, 2, dtype=lib.complex128))])
    # without a kernel, torch's autograd refuses to record them (fuzz seed 988007131)
    assert_same_error(lambda lib: getattr(lib, name)(lib.tensor(1j, requires_grad=True), 0),
                      RuntimeError, exact=True)


@pytest.mark.parametrize("name", ["cummax", "cummin"])
def test_cummax_saves_its_input(name):
    """CummaxBackward0 / CumminBackward0 save self, as torch's: writing the input in place
    after the op makes the backward refuse (fuzz seed 85 with the widened vocabulary)."""
    def fn(lib):
        x = lib.tensor([[0.625, 0.375]], dtype=lib.float64, requires_grad=True) * 1
        values, _ = getattr(x, name)(-2)
        x.masked_fill_(lib.tensor([False, False]), -1.25)
        values.sum().backward()
    assert_same_error(fn, "modified by an inplace operation")


def test_logcumsumexp_saves_its_result():
    """LogcumsumexpBackward0 saves its result, as torch's: writing it in place makes the
    backward refuse (fuzz seed 954002994)."""
    def fn(lib):
        x = lib.tensor([-0.25, 1.0], requires_grad=True)
        out = x.logcumsumexp(dim=0)
        out.neg_()
        out.sum().backward()
    assert_same_error(fn, "modified by an inplace operation")


@pytest.mark.parametrize("op", ["cumsum", "cumprod", "cummax", "cummin", "logcumsumexp"])
def test_a_scan_over_one_element_is_a_new_tensor(op):
    """Along a dim of size 1 the result is a copy (the device's scan returned its input, so
    writing the result in place wrote the input: fuzz seed 229 on the emulated device)."""
    def run(lib):
        x = lib.tensor([[2.5], [0.5]], requires_grad=True) * 1
        out = getattr(x, op)(1)
        out = out[0] if isinstance(out, tuple) else out
        with lib.no_grad():
            out.sub_(-1)
        return x, out
    assert_same(run)


@pytest.mark.parametrize("name", ["cummax", "cummin"])
def test_cummax_gradient_of_an_empty_input_is_the_input(name):
    """torch's formula returns the saved input itself when it is empty: autograd.grad gives
    back the leaf, which requires grad (fuzz seed 985002494)."""
    def run(lib):
        x = lib.zeros(2, 2, 0, requires_grad=True)
        values = getattr(x, name)(-1)[0]
        (g,) = lib.autograd.grad(values, [x], grad_outputs=lib.zeros(2, 2, 0))
        return g is x, g.requires_grad
    assert run(ag) == run(torch) == (True, True)
