"""scatter_reduce and Tensor.scatter_reduce_ (autograd_cy/scatter_reduce.py) against
torch's: every reduction with and without include_self, integers, NaN, ties, zeros in prod,
ScatterReduceBackward0's gradients and double backward, the in-place form, and errors."""
import numpy as np
import pytest

from oracle import assert_same, assert_same_error, check_op, node_name, randn

REDUCTIONS = ["sum", "prod", "mean", "amax", "amin"]
INDEX = np.array([[0, 1, 0, 2], [2, 2, 1, 0]])


def call(reduce, include_self, dim=0):
    return lambda lib, x, s: x.scatter_reduce(dim, lib.tensor(INDEX), s, reduce,
                                              include_self=include_self)


@pytest.mark.parametrize("include_self", [True, False])
@pytest.mark.parametrize("reduce", REDUCTIONS)
def test_values_and_gradients(reduce, include_self):
    check_op(call(reduce, include_self), randn(3, 4), randn(2, 4, seed=1))
    check_op(call(reduce, include_self, dim=1), randn(3, 4), randn(2, 4, seed=1))


@pytest.mark.parametrize("include_self", [True, False])
@pytest.mark.parametrize("reduce", ["amax", "amin"])
def test_ties_share_the_gradient(reduce, include_self):
    x = np.array([[1.0, 2.0, 3.0, 4.0], [1.0, 0.0, 3.0, 0.0], [2.0, 2.0, 2.0, 2.0]])
    src = np.array([[1.0, 2.0, 1.0, 4.0], [2.0, 2.0, 3.0, 1.0]])
    check_op(call(reduce, include_self), x, src)


@pytest.mark.parametrize("include_self", [True, False])
def test_prod_with_zeros(include_self):
    x = np.array([[0.0, 2.0, 3.0, 4.0], [1.0, 0.5, 3.0, 0.0], [2.0, 1.5, 0.0, 2.0]])
    src = np.array([[1.0, 0.0, 0.0, 4.0], [2.0, 3.0, 3.0, 0.0]])
    check_op(call("prod", include_self), x, src)


def test_torch_function_and_node():
    def run(lib):
        x = lib.tensor(randn(3, 4), requires_grad=True)
        out = lib.scatter_reduce(x, 0, lib.tensor(INDEX), x[:2] * 2, reduce="sum")
        return [node_name(out.grad_fn), out]
    assert_same(run)


@pytest.mark.parametrize("include_self", [True, False])
@pytest.mark.parametrize("reduce", REDUCTIONS)
def test_integers_and_nan(reduce, include_self):
    def run(lib):
        ints = lib.arange(12).reshape(3, 4) - 5
        floats = lib.tensor([1.0, 2.0]).scatter_reduce(
            0, lib.tensor([0, 0]), lib.tensor([float("nan"), 1.0]), reduce,
            include_self=include_self)
        return [ints.scatter_reduce(0, lib.tensor(INDEX), ints[:2] * 3, reduce,
                                    include_self=include_self), floats]
    assert_same(run)


@pytest.mark.parametrize("reduce", REDUCTIONS)
def test_in_place(reduce):
    def fn(lib, x, s):
        y = x * 1
        result = y.scatter_reduce_(0, lib.tensor(INDEX), s, reduce, include_self=False)
        assert result is y
        return y
    check_op(fn, randn(3, 4), randn(2, 4, seed=1))
    assert_same(lambda lib: [node_name(fn(lib, lib.tensor(randn(3, 4), requires_grad=True),
                                          lib.tensor(randn(2, 4))).grad_fn)])


@pytest.mark.parametrize("fn", [
    lambda lib: lib.ones(4).scatter_reduce(0, lib.tensor([0, 1]), lib.ones(2), "foo"),
    lambda lib: lib.ones(4).scatter_reduce(0, lib.tensor([0.0, 1.0]), lib.ones(2), "sum"),
    lambda lib: lib.ones(4).scatter_reduce(0, lib.tensor([0, 1]), lib.ones(2, dtype=lib.float64),
                                           "sum"),
    lambda lib: lib.ones(4).scatter_reduce(0, lib.tensor([0, 9]), lib.ones(2), "amax"),
    lambda lib: lib.ones(4).scatter_reduce(0, lib.tensor([0, 1, 2]), lib.ones(2), "sum"),
    lambda lib: lib.ones(4).scatter_reduce(0, lib.tensor([[0, 1]]), lib.ones(2), "sum"),
    lambda lib: lib.ones(4).scatter_reduce(1, lib.tensor([0, 1]), lib.ones(2), "sum"),
    lambda lib: lib.ones(4, requires_grad=True).scatter_reduce_(0, lib.tensor([0]),
                                                                 lib.ones(1), "sum"),
])
def test_errors(fn):
    assert_same_error(fn, exact=True)


@pytest.mark.parametrize("reduce", ["amax", "amin"])
def test_bfloat16_extrema_without_self(reduce):
    # the identity a place starts from is -inf or inf (bfloat16 is no integer type)
    def run(lib):
        x = lib.tensor([1.5, -2.0, 3.0], dtype=lib.bfloat16)
        src = lib.tensor([0.5, 4.0, -1.0, 2.0], dtype=lib.bfloat16)
        out = x.scatter_reduce(0, lib.tensor([0, 0, 2, 2]), src, reduce, include_self=False)
        return out.float().tolist()
    assert_same(run)


@pytest.mark.parametrize("reduce", ["sum", "prod", "mean", "amax", "amin"])
@pytest.mark.parametrize("requires_grad", [False, True])
@pytest.mark.parametrize("length", [0, 2])
def test_complex_tensors(reduce, requires_grad, length):
    # torch's CPU kernel has no complex amax/amin; a recorded complex result is refused
    # after it (fuzz seeds 985000223, 985000079); an empty index reaches no kernel
    def run(lib):
        x = lib.tensor([1 + 2j, -1j], requires_grad=requires_grad)
        index = lib.zeros(length, dtype=lib.int64)
        out = x.scatter_reduce(0, index, lib.ones(length, dtype=lib.complex64), reduce,
                               include_self=False)
        return out.detach()
    if requires_grad or reduce in ("amax", "amin") and length:
        assert_same_error(run, exact=True)
    else:
        assert_same(run)


@pytest.mark.cpu_only      # scatter_add's checks run it, and the device has no bool kernel
@pytest.mark.parametrize("length", [0, 2])
def test_mean_of_bools(length):
    assert_same_error(lambda lib: lib.zeros(2, dtype=lib.bool).scatter_reduce(
        0, lib.zeros(length, dtype=lib.int64), lib.ones(length, dtype=lib.bool), "mean"),
        NotImplementedError, exact=True)


@pytest.mark.parametrize("reduce", ["sum", "amin"])
def test_saves_its_result(reduce):
    """torch's node saves the result whatever the reduction: writing it in place makes the
    backward refuse (fuzz seed 985000437)."""
    def fn(lib):
        src = lib.tensor([-1.75], dtype=lib.float64, requires_grad=True)
        out = lib.tensor([-0.25, -1.5], dtype=lib.float64).scatter_reduce(
            0, lib.tensor([0]), src, reduce)
        out.div_(-1.625)
        lib.autograd.grad(out.sum(), [src])
    assert_same_error(fn, RuntimeError, r"which is output 0 of ScatterReduce, is at version 1")
