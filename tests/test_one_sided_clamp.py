"""clamp_min and clamp_max (autograd_cy/one_sided_clamp.py) against torch's: values,
gradients and double backward (check_op), gradcheck in float64, forward AD, the nodes
(ClampMinBackward0/1, ClampMaxBackward0/1), NaN, ties at the bound, broadcast tensor
bounds, and type promotion."""
import numpy as np
import pytest

import autograd_cy as ag
from oracle import assert_same, assert_same_error, check_jvp, check_op, node_name, randn

CASES = {
    "min_number": (lambda lib, x, b: lib.clamp_min(x, 0.2), False),
    "max_number": (lambda lib, x, b: x.clamp_max(-0.1), False),
    "min_tensor": (lambda lib, x, b: lib.clamp_min(x, b), True),
    "max_tensor": (lambda lib, x, b: x.clamp_max(b), True),
    "min_tensor_broadcast": (lambda lib, x, b: x.clamp_min(b[0]), True),
    "max_tensor_keyword": (lambda lib, x, b: lib.clamp_max(x, max=b[:, :1]), True),
}


@pytest.mark.parametrize("name", CASES)
def test_values_gradients_and_double_backward(name):
    fn, _ = CASES[name]
    check_op(fn, randn(3, 4), randn(3, 4, seed=1))


@pytest.mark.parametrize("name", CASES)
def test_forward_ad(name):
    fn, _ = CASES[name]
    check_jvp(fn, randn(3, 4), randn(3, 4, seed=1))


@pytest.mark.parametrize("name", CASES)
def test_gradcheck(name):
    fn, _ = CASES[name]
    x = ag.tensor(randn(3, 4), requires_grad=True)
    b = ag.tensor(randn(3, 4, seed=1), requires_grad=True)
    assert ag.autograd.gradcheck(lambda s, t: fn(ag, s, t), [x, b], check_forward_ad=True)
    assert ag.autograd.gradgradcheck(lambda s, t: fn(ag, s, t), [x, b])


@pytest.mark.parametrize("name", CASES)
def test_nan_and_ties(name):
    fn, _ = CASES[name]
    x = np.array([[np.nan, 0.2, -0.1, 1.0], [0.5, -2.0, np.nan, 0.0], [3.0, 0.2, -0.1, 0.1]])
    bound = np.array([[0.0, 0.2, -0.1, np.nan], [0.5, 1.0, 0.0, 0.0], [1.0, 0.2, -1.0, 0.1]])
    check_op(fn, x, bound, double=False)
    check_jvp(fn, x, bound)


def test_nodes_and_promotion():
    def run(lib):
        x = lib.tensor(randn(3), requires_grad=True)
        b = lib.tensor(randn(3, seed=2), requires_grad=True)
        outs = [lib.clamp_min(x, 0), lib.clamp_max(x, 0), lib.clamp_min(x, b), x.clamp_max(b)]
        return [node_name(out.grad_fn) for out in outs] + [
            lib.clamp_min(lib.arange(4), 1), lib.clamp_max(lib.arange(4), 1.5),
            str(lib.clamp_max(lib.arange(4), 1.5).dtype).split(".")[-1],
            lib.clamp_min(lib.arange(4), lib.tensor([2.0]))]
    assert_same(run)


@pytest.mark.parametrize("name", ["clamp_min", "clamp_max", "clamp_min_", "clamp_max_"])
@pytest.mark.parametrize("input, bound", [
    ("float32", "complex64"), ("complex64", "float32"), ("complex64", "number"),
    ("float32", "complex number")])
@pytest.mark.parametrize("expanded", [False, True])
def test_complex_operands_are_refused(name, input, bound, expanded):
    # a tensor bound: the kernel of maximum/minimum refuses the complex result type (fuzz
    # seed 985003162), after an in-place form's overlap and cast checks; a number: clamp's
    # own refusal, before them (985002857)
    def run(lib):
        x = lib.ones(1, dtype=getattr(lib, input))
        x = x.expand(2, 3) if expanded else x
        other = {"number": 0.5, "complex number": 0.5j}.get(bound)
        return getattr(x, name)(other if other is not None else
                                lib.ones(1, dtype=getattr(lib, bound)))
    assert_same_error(run, exact=True)
