"""atleast_1d/2d/3d, hstack, vstack, dstack, column_stack, broadcast_to, broadcast_tensors
(autograd_cy/stacking.py), tensor_split, hsplit, vsplit, dsplit (splitting.py), diff and
take_along_dim (differences.py) against torch's: values, gradients and double backward
(check_op), gradcheck and gradgradcheck in float64, forward AD, the nodes, and errors."""
import pytest

import autograd_cy as ag
from oracle import assert_same, assert_same_error, check_jvp, check_op, node_name, randn


def _long(lib, values, like):
    return lib.tensor(values).to(like.device)


CASES = {
    "atleast_1d": (lambda lib, x: lib.atleast_1d(x[0, 0]), (2, 3)),
    "atleast_2d": (lambda lib, x: lib.atleast_2d(x[0]), (2, 3)),
    "atleast_3d_vector": (lambda lib, x: lib.atleast_3d(x[0]), (2, 3)),
    "atleast_3d_matrix": (lambda lib, x: lib.atleast_3d(x), (2, 3)),
    "atleast_3d_scalar": (lambda lib, x: lib.atleast_3d(x[1, 1]), (2, 3)),
    "atleast_2d_many": (lambda lib, x: lib.atleast_2d(x[0], x[1, 2]), (2, 3)),
    "atleast_1d_list": (lambda lib, x: lib.atleast_1d([x, x[0, 0] * 2]), (2, 3)),
    "hstack_vectors": (lambda lib, x: lib.hstack([x[0], x[1]]), (2, 3)),
    "hstack_matrices": (lambda lib, x: lib.hstack((x, x * 2)), (2, 3)),
    "vstack": (lambda lib, x: lib.vstack([x[0], x]), (2, 3)),
    "dstack": (lambda lib, x: lib.dstack([x[0], x[1]]), (2, 3)),
    "column_stack": (lambda lib, x: lib.column_stack([x[0], x.t(), x[1, 1:2].sum()
                                                      .expand(3)]), (2, 3)),
    "broadcast_to": (lambda lib, x: x[0].broadcast_to((4, 3)), (2, 3)),
    "broadcast_to_function": (lambda lib, x: lib.broadcast_to(x[:, :1], [2, 5]), (2, 3)),
    "broadcast_tensors": (lambda lib, x: lib.broadcast_tensors(x[0], x[:, :1], x), (2, 3)),
    "tensor_split_sections": (lambda lib, x: lib.tensor_split(x, 3, dim=1), (2, 7)),
    "tensor_split_indices": (lambda lib, x: x.tensor_split((1, 5, 4), 1), (2, 7)),
    "tensor_split_tensor": (lambda lib, x: x.tensor_split(lib.tensor([2]), -1), (2, 7)),
    "tensor_split_many": (lambda lib, x: x.tensor_split(4), (3, 2)),
    "hsplit": (lambda lib, x: lib.hsplit(x, 2), (3, 4)),
    "hsplit_vector": (lambda lib, x: x[0].hsplit([1, 3]), (3, 4)),
    "vsplit": (lambda lib, x: x.vsplit(3), (3, 4)),
    "dsplit": (lambda lib, x: lib.dsplit(x.reshape(3, 1, 4), 2), (3, 4)),
    "diff": (lambda lib, x: lib.diff(x), (3, 4)),
    "diff_twice": (lambda lib, x: x.diff(n=2, dim=0), (4, 3)),
    "diff_ends": (lambda lib, x: x.diff(dim=1, prepend=x[:, :1] * 2, append=x[:, :2]), (3, 4)),
    "diff_too_often": (lambda lib, x: x.diff(5), (3, 4)),
    "take_along_dim": (lambda lib, x: lib.take_along_dim(
        x, _long(lib, [[0], [3], [1]], x), 1), (3, 4)),
    "take_along_dim_broadcast": (lambda lib, x: x.take_along_dim(
        _long(lib, [[2], [0]], x), 0), (3, 4)),
    "take_along_dim_flat": (lambda lib, x: lib.take_along_dim(
        x, _long(lib, [0, 11, 5], x)), (3, 4)),
}


@pytest.mark.parametrize("name", CASES)
def test_values_gradients_and_double_backward(name):
    fn, shape = CASES[name]
    check_op(fn, randn(*shape))


@pytest.mark.parametrize("name", CASES)
def test_forward_ad(name):
    fn, shape = CASES[name]
    check_jvp(fn, randn(*shape))


@pytest.mark.parametrize("name", ["hstack_matrices", "column_stack", "tensor_split_sections",
                                  "diff_ends", "take_along_dim_broadcast", "broadcast_tensors"])
def test_gradcheck(name):
    fn, shape = CASES[name]
    x = ag.tensor(randn(*shape), requires_grad=True)
    assert ag.autograd.gradcheck(lambda t: fn(ag, t), [x])
    assert ag.autograd.gradgradcheck(lambda t: fn(ag, t), [x])


@pytest.mark.parametrize("name", CASES)
def test_nodes(name):
    fn, shape = CASES[name]

    def run(lib):
        x = lib.tensor(randn(*shape), requires_grad=True)
        outs = fn(lib, x)
        outs = outs if isinstance(outs, tuple) else (outs,)
        return [(node_name(out.grad_fn), tuple(out.shape)) for out in outs]
    assert_same(run)


def test_same_tensor_returned():
    def run(lib):
        x = lib.ones(2, 3)
        return [lib.atleast_1d(x) is x, lib.atleast_2d(x) is x, lib.atleast_3d(x) is x,
                lib.broadcast_tensors(x, x[0])[0] is x]
    assert_same(run)


def test_integers_and_bools():
    assert_same(lambda lib: [lib.diff(lib.tensor([1, 4, 9, 16])),
                             lib.diff(lib.tensor([True, False, False, True])),
                             lib.hstack([lib.arange(2), lib.arange(3)]),
                             lib.column_stack([lib.tensor(1), lib.tensor(2)]),
                             lib.take_along_dim(lib.arange(6).view(2, 3), lib.tensor([[1], [2]]),
                                                1)])


@pytest.mark.parametrize("fn", [
    lambda lib: lib.hsplit(lib.ones(2, 5), 2),
    lambda lib: lib.vsplit(lib.ones(5), 2),
    lambda lib: lib.dsplit(lib.ones(2, 2), 2),
    lambda lib: lib.tensor_split(lib.ones(5), 0),
    lambda lib: lib.tensor_split(lib.ones(5), 2, dim=1),
    lambda lib: lib.diff(lib.tensor(1.0)),
    lambda lib: lib.diff(lib.ones(3), n=-1),
    lambda lib: lib.take_along_dim(lib.ones(2, 3), lib.tensor([[0]]).float(), 1),
    lambda lib: lib.take_along_dim(lib.ones(3, 4), lib.tensor([[0, 2]]), 0),
    lambda lib: lib.take_along_dim(lib.ones(3, 4), lib.tensor([0, 2]), 0),
    lambda lib: lib.broadcast_tensors(lib.ones(2), lib.ones(3)),
    lambda lib: lib.ones(3).broadcast_to((2, 2)),
    lambda lib: lib.vstack([]),
])
def test_errors(fn):
    assert_same_error(fn, exact=False)
