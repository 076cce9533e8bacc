"""The oracle itself: each comparison fails when autograd_cy and torch differ in what it
claims to compare, so that a passing op test cannot be an accident of a lax helper."""
import pytest

import autograd_cy as ag
from oracle import assert_same_error, check_op, randn, run_threads


def ours_differs(ours, theirs):
    """``fn(lib, x)`` that computes ``ours`` with autograd_cy and ``theirs`` with torch."""
    return lambda lib, x: ours(lib, x) if lib is ag else theirs(lib, x)


def scaled_gradient(factor):
    """``x * 2`` whose backward multiplies by ``factor`` (a wrong one for autograd_cy)."""
    def build(lib, wrong):
        class Double(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2

            @staticmethod
            def backward(ctx, grad):
                return grad * (factor if wrong else 2)
        return Double
    return lambda lib, x: build(lib, lib is ag).apply(x)


@pytest.mark.parametrize("fn, complaint", [
    (ours_differs(lambda lib, x: x * 2.001, lambda lib, x: x * 2), "forward"),
    (ours_differs(lambda lib, x: (x * 2).float(), lambda lib, x: x * 2), "dtype"),
    (ours_differs(lambda lib, x: (x * 2).reshape(-1), lambda lib, x: x * 2), "shape"),
    (ours_differs(lambda lib, x: (x * 2).detach(), lambda lib, x: x * 2), "requires_grad"),
    (ours_differs(lambda lib, x: (x * 2).detach().requires_grad_(), lambda lib, x: x * 2),
     "grad_fn"),
    (scaled_gradient(3), "gradient"),
    (ours_differs(lambda lib, x: x * x.detach(), lambda lib, x: x * x), "gradient"),
    # x * x with a right first derivative (2x) that is a constant for the second one.
    (ours_differs(lambda lib, x: 2 * x * x.detach() - x.detach() ** 2, lambda lib, x: x * x),
     "double backward"),
], ids=["value", "dtype", "shape", "requires_grad", "grad_fn", "wrong backward",
        "missing gradient", "wrong second order"])
def test_check_op_catches_a_difference(fn, complaint):
    with pytest.raises(AssertionError, match=complaint):
        check_op(fn, randn(2, 3))


def test_check_op_passes_on_the_same_computation():
    check_op(lambda lib, x: (x * x).tanh(), randn(2, 3))


def raises(error):
    def fail(*args):
        raise error
    return fail


@pytest.mark.parametrize("fn, expected", [
    (ours_differs(lambda lib, x: x, raises(RuntimeError("boom"))), ()),
    (ours_differs(raises(RuntimeError("boom")), lambda lib, x: x), ()),
    (ours_differs(raises(RuntimeError("boom")), raises(NotImplementedError("boom"))), ()),
    (ours_differs(raises(NotImplementedError("boom")), raises(RuntimeError("boom"))), ()),
    (ours_differs(raises(RuntimeError("boom!")), raises(RuntimeError("boom"))), ()),
    (ours_differs(raises(RuntimeError("a boom")), raises(RuntimeError("boom"))), ("^boom",)),
    (ours_differs(raises(RuntimeError("boom")), raises(RuntimeError("bang"))), ("boom",)),
    (ours_differs(raises(TypeError("boom")), raises(TypeError("boom"))), (RuntimeError,)),
], ids=["ours does not raise", "torch does not raise", "subclass in torch",
        "subclass in ours", "other message", "key word missing in ours",
        "key word missing in torch", "not the expected type"])
def test_assert_same_error_catches_a_difference(fn, expected):
    with pytest.raises((AssertionError, pytest.fail.Exception, TypeError)):
        assert_same_error(lambda lib: fn(lib, None), *expected)


def test_assert_same_error_passes_on_the_same_error():
    assert_same_error(lambda lib: lib.ones(2).sum().backward(), RuntimeError,
                      "does not require grad")
    assert_same_error(lambda lib: lib.ones(2).sum().backward())


def test_run_threads_reraises_what_a_worker_raised():
    with pytest.raises(KeyError, match="from a worker"):
        run_threads(lambda: None, raises(KeyError("from a worker")))
