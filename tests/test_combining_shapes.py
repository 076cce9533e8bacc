"""block_diag (autograd_cy/diagonals.py), cartesian_prod and combinations
(combinatorics.py), broadcast_shapes and row_stack (stacking.py) against torch: values,
dtypes, gradients, double backward, nodes, errors."""
import numpy as np
import pytest
import torch

import autograd_cy as ag
from oracle import assert_same, assert_same_error, check_jvp, check_op, node_name, randn


def test_block_diag_values_and_gradients():
    check_op(lambda lib, a, b, c: lib.block_diag(a, b, c), randn(2, 3), randn(4), np.array(1.5))
    check_op(lambda lib, a, b: lib.block_diag(a, b), randn(0, 2), randn(1, 1))
    check_op(lambda lib, a: lib.block_diag(a), randn(2, 2))
    check_op(lambda lib, a, b: lib.block_diag(a, b.to(lib.float32)), randn(2, 2), randn(3))
    check_jvp(lambda lib, a, b: lib.block_diag(a, b), randn(2, 3), randn(2))
    for lib in (ag, torch):
        a = lib.tensor(randn(2, 2), requires_grad=True)
        assert node_name(lib.block_diag(a, lib.ones(1)).grad_fn) == "BlockDiagBackward0"


@pytest.mark.parametrize("make", [
    lambda lib: lib.block_diag(),
    lambda lib: lib.block_diag(lib.tensor([1, 2]), lib.tensor([[1.5]])),
    lambda lib: lib.block_diag(lib.tensor([1.0]), lib.tensor(2.0, dtype=lib.float64)),
    lambda lib: lib.block_diag(lib.tensor([1]), lib.tensor(2.0, dtype=lib.float64)),
    lambda lib: lib.block_diag(lib.tensor([1], dtype=lib.int32), lib.tensor(2)),
    lambda lib: lib.block_diag(lib.tensor([True]), lib.tensor([[False, True]])),
])
def test_block_diag_dtypes(make):
    assert_same(lambda lib: (make(lib), str(make(lib).dtype).split(".")[-1],
                             tuple(make(lib).shape)))


def test_block_diag_errors():
    assert_same_error(lambda lib: lib.block_diag(lib.ones(2), lib.ones(2, 2, 2)), exact=True)


def test_cartesian_prod():
    check_op(lambda lib, a, b: lib.cartesian_prod(a, b), randn(3), randn(2))
    check_op(lambda lib, a, b, c: lib.cartesian_prod(a, b, c), randn(2), randn(3), randn(2))
    assert_same(lambda lib: lib.cartesian_prod(lib.tensor([1, 2]), lib.tensor([3, 4, 5])))
    for lib in (ag, torch):
        a = lib.tensor(randn(3), requires_grad=True)
        assert lib.cartesian_prod(a) is a
        assert node_name(lib.cartesian_prod(a, a).grad_fn) == "StackBackward0"
    assert_same_error(lambda lib: lib.cartesian_prod(lib.ones(2, 2)), exact=True)
    assert_same_error(lambda lib: lib.cartesian_prod(), exact=True)
    assert_same_error(lambda lib: lib.cartesian_prod(lib.ones(2), lib.tensor([1])),
                      exact=True)


@pytest.mark.parametrize("r", [1, 2, 3, 4])
@pytest.mark.parametrize("with_replacement", [False, True])
def test_combinations(r, with_replacement):
    check_op(lambda lib, a: lib.combinations(a, r, with_replacement), randn(3))
    assert_same(lambda lib: lib.combinations(lib.tensor([1, 2, 3, 4]), r=r,
                                             with_replacement=with_replacement))


def test_combinations_edges_and_errors():
    assert_same(lambda lib: (lib.combinations(lib.tensor([1.0, 2.0]), 0),
                             lib.combinations(lib.tensor([1.0, 2.0]), 0).requires_grad))
    assert_same(lambda lib: tuple(lib.combinations(lib.ones(0)).shape))
    for lib in (ag, torch):
        a = lib.tensor(randn(3), requires_grad=True)
        assert node_name(lib.combinations(a).grad_fn) == "StackBackward0"
    assert_same_error(lambda lib: lib.combinations(lib.ones(2, 2)), exact=True)
    assert_same_error(lambda lib: lib.combinations(lib.ones(2), -1), exact=True)


@pytest.mark.parametrize("shapes", [((2, 1), (3,)), (2, (3, 1)), (), ((2,),), ((0,), (1,)),
                                    ((2, 2), (), 1), ([1, 3], (4, 1, 1)),
                                    (ag.Size([2, 1]), (3,))])
def test_broadcast_shapes(shapes):
    for lib in (ag, torch):
        result = lib.broadcast_shapes(*shapes)
        assert isinstance(result, lib.Size)
    assert ag.broadcast_shapes(*shapes) == torch.broadcast_shapes(*shapes)


@pytest.mark.parametrize("shapes", [((2, 3), (4, 3)), ((5, 2, 3), (1, 4, 3)), ([2], [3]),
                                    ((2,), 3), ((0,), (2,))])
def test_broadcast_shapes_errors(shapes):
    assert_same_error(lambda lib: lib.broadcast_shapes(*shapes), exact=True)


def test_broadcast_shapes_negative():
    assert_same_error(lambda lib: lib.broadcast_shapes((-1,)), exact=True)


def test_row_stack_is_vstack():
    assert ag.row_stack is ag.vstack
    check_op(lambda lib, a, b: lib.row_stack([a, b]), randn(3), randn(2, 3))
