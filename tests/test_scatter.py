"""scatter (of a tensor or a number), the in-place forms scatter_, scatter_add_ and
index_add_ (pyx/ops/gather_scatter.pyx), take, index_fill, index_copy (index_writes.py)
against torch's: values, gradients and double backward (check_op), gradcheck and
gradgradcheck in float64, forward AD, the nodes (ScatterBackward0/1, ScatterAddBackward0,
IndexAddBackward0 on the written tensor, TakeBackward0, IndexFillBackward0/1,
IndexCopyBackward0), an index smaller than self, version counters, and torch's errors.

Indices written twice by scatter keep an unspecified one of the values in torch: every
index here writes each place once."""
import numpy as np
import pytest

import autograd_cy as ag
from oracle import (
    assert_same, assert_same_error, check_gradcheck, check_jvp, check_op, node_name, randn,
)

INDEX = np.array([[2, 0, 1, 3], [1, 2, 3, 0]])          # a permutation per row (dim 1)
COLUMN_INDEX = np.array([[1, 0, 1], [0, 1, 0]])         # along dim 0 of a (2, 3) self


def _index(lib, array, device_of):
    """An int64 index tensor on the device of ``device_of``."""
    return lib.tensor(array).to(device_of.device)


CASES = {
    "scatter_src": lambda lib, x, s: x.scatter(1, _index(lib, INDEX, x), s),
    "scatter_src_function": lambda lib, x, s: lib.scatter(x, 1, _index(lib, INDEX[:, :2], x),
                                                          s[:, :2]),
    "scatter_value": lambda lib, x, s: x.scatter(1, _index(lib, INDEX[:1, :3], x), 1.5) + s,
    "scatter_value_keyword": lambda lib, x, s: x.scatter(1, _index(lib, INDEX, x), value=-2.0)
    * s,
    "scatter_dim0": lambda lib, x, s: x[:, :3].scatter(0, _index(lib, COLUMN_INDEX, x),
                                                       s[:, :3]),
    "scatter_inplace": lambda lib, x, s: (x * 1).scatter_(1, _index(lib, INDEX, x), s),
    "scatter_inplace_value": lambda lib, x, s: (x * s).scatter_(1, _index(lib, INDEX[:, :1], x),
                                                                0.5),
    "scatter_add_inplace": lambda lib, x, s: (x * 1).scatter_add_(1, _index(lib, INDEX, x), s),
    "index_add_inplace": lambda lib, x, s: (x * 1).index_add_(
        1, _index(lib, np.array([3, 1]), x), s[:, :2]),
    "index_add_inplace_alpha": lambda lib, x, s: (x * 1).index_add_(
        0, _index(lib, np.array([1, 1]), x), s, alpha=-0.5),
}

INPUTS = (randn(2, 4), randn(2, 4, seed=5))


@pytest.mark.parametrize("name", CASES)
def test_values_gradients_and_double_backward(name):
    check_op(CASES[name], *INPUTS)


@pytest.mark.parametrize("name", CASES)
def test_forward_ad(name):
    check_jvp(CASES[name], *INPUTS)


@pytest.mark.parametrize("name", CASES)
def test_gradcheck(name):
    check_gradcheck(CASES[name], *INPUTS, check_forward_ad=True)


def test_nodes_and_versions():
    def run(lib):
        x, s = (lib.tensor(a, requires_grad=True) for a in INPUTS)
        index = lib.tensor(INDEX)
        y = x * 1
        version = y._version
        y.scatter_add_(1, index, s)
        names = [node_name(x.scatter(1, index, s).grad_fn),
                 node_name(x.scatter(1, index, 0.0).grad_fn), node_name(y.grad_fn),
                 y._version - version]
        z = x * 1
        z.index_add_(0, lib.tensor([1, 0]), s)
        w = x * 1
        w.scatter_(1, index, 1.0)
        grad, = lib.autograd.grad(x.scatter(1, index, s), x, lib.ones(2, 4), create_graph=True)
        return names + [node_name(z.grad_fn), node_name(w.grad_fn), z, w,
                        node_name(grad.grad_fn) if grad.grad_fn else None]
    assert_same(run)


def test_integers_and_no_grad():
    assert_same(lambda lib: [lib.zeros(2, 4, dtype=lib.int64).scatter(1, lib.tensor(INDEX), 3),
                             lib.arange(8).view(2, 4).scatter(
                                 1, lib.tensor(INDEX), lib.arange(8, 16).view(2, 4)),
                             lib.zeros(3).index_add_(0, lib.tensor([0, 0]), lib.ones(2)),
                             lib.zeros(3).scatter_add_(0, lib.tensor([2, 2]), lib.ones(2)),
                             lib.zeros(2, 4).scatter(1, lib.tensor([[]], dtype=lib.int64),
                                                     1.0)])


@pytest.mark.parametrize("fn", [
    lambda lib: lib.zeros(2, 4).scatter(1, lib.tensor(INDEX), lib.zeros(2, 4).double()),
    lambda lib: lib.zeros(2, 4).scatter(1, lib.tensor(INDEX).float(), 1.0),
    lambda lib: lib.zeros(2, 4).scatter(1, lib.tensor(INDEX) + 4, 1.0),
    lambda lib: lib.zeros(2, 4).scatter(2, lib.tensor(INDEX), 1.0),
    lambda lib: lib.zeros(2, 4).scatter(1, lib.tensor([0, 1]), 1.0),
    lambda lib: lib.zeros(2, 4).scatter(1, lib.tensor(INDEX), lib.zeros(1, 4)),
    lambda lib: lib.zeros(2, 4).requires_grad_().scatter_(1, lib.tensor(INDEX), 1.0),
    lambda lib: lib.zeros(2, 4).requires_grad_().index_add_(0, lib.tensor([0]),
                                                            lib.ones(1, 4)),
])
def test_errors(fn):
    assert_same_error(fn, exact=False)


WRITES = {
    "take": lambda lib, x, s: lib.take(x, _index(lib, [[0, 5], [5, -1]], x)),
    "take_method": lambda lib, x, s: x.take(_index(lib, [7, 0, 2], x)),
    "index_fill": lambda lib, x, s: x.index_fill(1, _index(lib, [0, 2], x), 1.5) * s,
    "index_fill_tensor": lambda lib, x, s: lib.index_fill(x, 0, _index(lib, [1], x),
                                                          s[0, 0]),
    "index_copy": lambda lib, x, s: x.index_copy(1, _index(lib, [3, 0], x), s[:, :2]),
    "index_copy_function": lambda lib, x, s: lib.index_copy(x, 0, _index(lib, [1, 0], x), s),
}


@pytest.mark.parametrize("name", WRITES)
def test_index_writes(name):
    check_op(WRITES[name], *INPUTS)
    check_jvp(WRITES[name], *INPUTS)
    inputs = [ag.tensor(a, requires_grad=True) for a in INPUTS]
    assert ag.autograd.gradcheck(lambda *xs: WRITES[name](ag, *xs), inputs)
    assert ag.autograd.gradgradcheck(lambda *xs: WRITES[name](ag, *xs), inputs)


def test_index_write_nodes_and_errors():
    def run(lib):
        x, s = (lib.tensor(a, requires_grad=True) for a in INPUTS)
        return [node_name(WRITES[name](lib, x, s).grad_fn) for name in (
            "take", "index_fill_tensor", "index_copy")] + [
            node_name(x.index_fill(1, lib.tensor([0]), 2.0).grad_fn),
            lib.arange(6).view(2, 3).take(lib.tensor([4, 1])),
            lib.arange(6).view(2, 3).index_fill(1, lib.tensor([1]), -1)]
    assert_same(run)
    assert_same_error(lambda lib: lib.take(lib.zeros(2, 3), lib.tensor([6])), IndexError)
    assert_same_error(lambda lib: lib.zeros(2, 3).index_copy(1, lib.tensor([0]),
                                                             lib.ones(2, 2)), IndexError)


@pytest.mark.parametrize("dtypes", [("float32", "float64"), ("int64", "float32")])
def test_index_copy_refuses_a_source_of_another_dtype(dtypes):
    def run(lib):
        x = lib.ones(2, 3, dtype=getattr(lib, dtypes[0]))
        x.index_copy(0, lib.tensor([1]), lib.ones(1, 3, dtype=getattr(lib, dtypes[1])))
    assert_same_error(run, exact=True)


def test_take_saves_its_input():
    """torch's TakeBackward0 saves self: writing it in place afterwards makes the backward
    refuse (fuzz seed 989101331)."""
    def fn(lib):
        x = lib.nn.functional.gelu(lib.tensor([-2.5, 1.0], requires_grad=True))
        out = lib.take(x, lib.tensor([1]))
        x.reciprocal_()
        out.backward()
    assert_same_error(fn, RuntimeError, r"which is output 0 of Reciprocal, is at version 1")
