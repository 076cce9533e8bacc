"""put / put_ and index_reduce / index_reduce_ (autograd_cy/indexed_writes.py) against
torch's: values, gradients and double backward (check_op), nodes, in-place forms, errors."""
import numpy as np
import pytest

import autograd_cy as ag
from oracle import assert_same, assert_same_error, check_op, node_name, randn

INDEX = np.array([0, 5, -1, 7])
SLICES = np.array([0, 2, 0, 1])


@pytest.mark.parametrize("accumulate", [False, True])
def test_put(accumulate):
    def fn(lib, x, source):
        out = x.put(lib.tensor(INDEX), source, accumulate=accumulate)
        assert node_name(out.grad_fn) == "PutBackward0"
        return out
    check_op(fn, randn(3, 4), randn(2, 2, seed=1))


def test_put_in_place():
    def fn(lib, x, source):
        out = x * 1
        out.put_(lib.tensor(INDEX), source, accumulate=True)
        return out
    check_op(fn, randn(3, 4), randn(4, seed=1))


@pytest.mark.parametrize("reduce", ["prod", "mean", "amax", "amin"])
@pytest.mark.parametrize("include_self", [True, False])
def test_index_reduce(reduce, include_self):
    def fn(lib, x, source):
        out = x.index_reduce(0, lib.tensor(SLICES), source, reduce, include_self=include_self)
        assert node_name(out.grad_fn) == "IndexReduceBackward0"
        return out
    check_op(fn, randn(3, 5), randn(4, 5, seed=2))
    check_op(lambda lib, x, s: (x * 1).index_reduce_(1, lib.tensor([1, 1]), s, reduce,
                                                     include_self=include_self),
             randn(2, 3), randn(2, 2, seed=3))


@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
@pytest.mark.parametrize("reduce", ["sum", "mean", "amin"])
def test_scatter_reduce_of_half_types_accumulates_in_float32(dtype, reduce):
    """3000 ones summed one at a time in bfloat16 would stop at 256 (and amin's identity
    must be found for a dtype NumPy calls 'V')."""
    def fn(lib):
        ones = lib.ones(3000, dtype=getattr(lib, dtype))
        return lib.zeros(2, dtype=ones.dtype).scatter_reduce(
            0, lib.zeros(3000, dtype=lib.int64), ones, reduce, include_self=False).tolist()
    assert_same(fn)


def test_index_reduce_warns_it_is_in_beta():
    with pytest.warns(UserWarning, match="index_reduce\\(\\) is in beta"):
        ag.zeros(2).index_reduce(0, ag.tensor([0]), ag.ones(1), "amax")


@pytest.mark.parametrize("call, error, words", [
    (lambda lib, x: x.put(lib.tensor([12]), x[0, :1]), IndexError,
     "out of range: tried to access index 12 on a tensor of 12 elements"),
    (lambda lib, x: x.put(lib.tensor([1]), lib.tensor([1.0])), RuntimeError,
     r"put_\(\): self and source expected to have the same dtype, but got self.dtype = "
     "Double and source.dtype = Float"),
    (lambda lib, x: x.index_reduce(0, lib.tensor([0, 1]), x[:2], "sum"), RuntimeError,
     "Expected reduce to be one of prod, mean, amax or amin but got sum"),
    (lambda lib, x: x.index_reduce(0, lib.tensor([[0, 1]]), x[:2], "prod"), IndexError,
     "Index is supposed to be a vector"),
    (lambda lib, x: x.index_reduce(0, lib.tensor([0.0, 1.0]), x[:2], "prod"), RuntimeError,
     "Expected dtype int32/int64 for index"),
    (lambda lib, x: x.index_reduce(0, lib.tensor([0, 1]), x[:2, :3], "prod"), RuntimeError,
     "source tensor shape must match self tensor shape"),
    (lambda lib, x: x.index_reduce(0, lib.tensor([0, 5]), x[:2], "prod"), IndexError,
     "index out of range in self"),
])
def test_errors(call, error, words):
    assert_same_error(lambda lib: call(lib, lib.tensor(randn(3, 4))), error, words)


def test_remainder_operator():
    """``%``, ``%=`` and a number on the left (whose derivative torch does not implement)."""
    check_op(lambda lib, x: x % 1.5, randn(3, 4))
    check_op(lambda lib, x, y: x % y, randn(3, 4), np.abs(randn(4, seed=5)) + 0.5)
    assert_same(lambda lib: (7 % lib.tensor([2, 3, -4])).tolist())

    def in_place(lib):
        x = lib.tensor([5.0, -3.0])
        x %= 2
        return x.tolist(), x._version
    assert_same(in_place)
    assert_same_error(lambda lib: (3 % lib.tensor([5.0], requires_grad=True)).sum().backward(),
                      RuntimeError, "derivative for aten::remainder is not implemented")


def test_index_reduce_saves_its_result():
    """IndexReduceBackward0 saves its result, as torch's: writing it in place makes the
    backward refuse (fuzz seed 953000254)."""
    def fn(lib):
        source = lib.tensor([[-0.25], [1.5]], requires_grad=True)
        out = lib.tensor([[2.0, -1.5], [1.25, 3.0]]).index_reduce(
            -1, lib.tensor([1]), source, "amin")
        out.copy_(lib.tensor([[0.25]]))
        out.backward(lib.ones(2, 2))
    assert_same_error(fn, "modified by an inplace operation")


@pytest.mark.filterwarnings("ignore:index_reduce")
@pytest.mark.parametrize("dtype", ["complex64", "bool"])
@pytest.mark.parametrize("include_self", [True, False])
@pytest.mark.parametrize("length", [0, 1])
def test_index_reduce_refuses_complex_and_bool(dtype, include_self, length):
    # fuzz seeds 985000694, 985002243, 985004030: no CPU kernel, even for an empty index
    assert_same_error(lambda lib: lib.ones(2, dtype=getattr(lib, dtype)).index_reduce(
        0, lib.zeros(length, dtype=lib.int64), lib.ones(length, dtype=getattr(lib, dtype)),
        "amin", include_self=include_self), NotImplementedError, exact=True)


@pytest.mark.filterwarnings("ignore:index_reduce")
@pytest.mark.parametrize("dtype", ["complex64", "bool"])
@pytest.mark.parametrize("reduce", ["prod", "mean", "amax", "amin"])
@pytest.mark.parametrize("length", [0, 2])
def test_index_reduce_of_a_matrix_goes_slice_by_slice(dtype, reduce, length):
    # torch reduces a tensor of more than one dim with maximum/minimum/div on slices: only
    # complex amax/amin and a bool mean are refused, where any slice is (fuzz seed 988006088)
    def run(lib):
        x = lib.ones(2, 2, dtype=getattr(lib, dtype))
        source = lib.ones(2, length, dtype=getattr(lib, dtype))
        return x.index_reduce(1, lib.ones(length, dtype=lib.int64), source, reduce).tolist()
    refused = length and (reduce in ("amax", "amin") if dtype == "complex64" else
                          reduce == "mean")
    if refused:
        assert_same_error(run, NotImplementedError, exact=True)
    else:
        assert_same(run)
