"""einsum (autograd_cy/einsum.py), masked_select, nonzero, argwhere (masked_selection.py),
unique (uniqueness.py) and Tensor.where against torch's: values, gradients and double
backward (check_op), gradcheck and gradgradcheck in float64, forward AD, the nodes where
they are torch's (einsum's lone-operand permutes, MaskedSelectBackward0, Unique2Backward0),
and errors.

einsum's nodes differ from torch's where torch contracts with bmm (the module's docstring
says why): those cases check values and gradients only."""
import numpy as np
import pytest

import autograd_cy as ag
from oracle import (
    assert_same, assert_same_error, check_gradcheck, check_jvp, check_op, node_name, randn,
)

EINSUM = {
    "matmul": ("ij,jk->ik", [(3, 4), (4, 5)]),
    "trace": ("ii", [(3, 3)]),
    "diagonal": ("ii->i", [(3, 3)]),
    "transpose": ("ij->ji", [(3, 4)]),
    "identity": ("ij", [(3, 4)]),
    "implicit_transpose": ("ji", [(3, 4)]),
    "dot": ("i,i->", [(4,), (4,)]),
    "outer": ("i,j->ij", [(3,), (4,)]),
    "hadamard": ("ij,ij->ij", [(3, 4), (3, 4)]),
    "batched": ("bij,bjk->bik", [(2, 3, 4), (2, 4, 3)]),
    "implicit": ("ij,kj", [(3, 4), (2, 4)]),
    "sum_all": ("ijk->", [(2, 3, 4)]),
    "three": ("ij,jk,kl->il", [(2, 3), (3, 4), (4, 2)]),
    "repeated_in_one": ("iij->ij", [(3, 3, 2)]),
    "broadcast_one": ("ij,ij->i", [(3, 1), (3, 4)]),
    "spaces": ("i j , j k -> i k", [(2, 3), (3, 2)]),
}
SAME_NODES = {"trace", "diagonal", "transpose", "identity", "implicit_transpose", "outer",
              "hadamard", "sum_all", "repeated_in_one"}


def _inputs(shapes):
    return [randn(*shape, seed=k) for k, shape in enumerate(shapes)]


@pytest.mark.parametrize("name", EINSUM)
def test_einsum_values_gradients_and_double_backward(name):
    equation, shapes = EINSUM[name]
    check_op(lambda lib, *xs: lib.einsum(equation, *xs), *_inputs(shapes))


@pytest.mark.parametrize("name", EINSUM)
def test_einsum_forward_ad(name):
    equation, shapes = EINSUM[name]
    check_jvp(lambda lib, *xs: lib.einsum(equation, *xs), *_inputs(shapes))


@pytest.mark.parametrize("name", ["matmul", "trace", "three", "repeated_in_one"])
def test_einsum_gradcheck(name):
    equation, shapes = EINSUM[name]
    check_gradcheck(lambda lib, *xs: lib.einsum(equation, *xs), *_inputs(shapes))


@pytest.mark.parametrize("name", sorted(SAME_NODES))
def test_einsum_nodes(name):
    equation, shapes = EINSUM[name]
    assert_same(lambda lib: node_name(lib.einsum(equation, *[
        lib.tensor(a, requires_grad=True) for a in _inputs(shapes)]).grad_fn))


def test_einsum_operands_as_a_list_and_integers():
    assert_same(lambda lib: [lib.einsum("ij,jk", [lib.arange(6).view(2, 3),
                                                  lib.arange(6).view(3, 2)]),
                             lib.einsum("i,i", lib.arange(3), lib.arange(3))])


@pytest.mark.parametrize("fn", [
    lambda lib: lib.einsum("ij,jk->ik", lib.zeros(2, 3)),
    lambda lib: lib.einsum("ij->ik", lib.zeros(2, 3)),
    lambda lib: lib.einsum("ij->ii", lib.zeros(2, 3)),
    lambda lib: lib.einsum("ijk->i", lib.zeros(2, 3)),
    lambda lib: lib.einsum("ij,jk->ik", lib.zeros(2, 3), lib.zeros(4, 2)),
])
def test_einsum_errors(fn):
    assert_same_error(fn, RuntimeError)


# (equation, dtypes of the operands): torch contracts pairs left to right, and a pair with a
# letter leaving on both sides is a bmm, which takes one dtype; a pair without is a promoting
# multiply (mixed dtypes pass).
MIXED = [("a,az->z", ("float32", "float64")), ("za,a->z", ("float64", "float32")),
         ("a,a->", ("float32", "bfloat16")), ("a,a,a->", ("float64", "float64", "float32")),
         ("a,a->a", ("float32", "float64")), ("a,b->ab", ("float32", "bfloat16")),
         ("a,a,a->", ("float32", "float64", "float64")), ("i,j->", ("float32", "float64"))]


@pytest.mark.parametrize("equation,dtypes", MIXED)
def test_einsum_of_two_dtypes_as_torch(equation, dtypes):
    def fn(lib):
        operands = [lib.ones(*((2, 2) if "z" in letters else (2,)),
                             dtype=getattr(lib, dtype))
                    for letters, dtype in zip(equation.split("->")[0].split(","), dtypes)]
        return lib.einsum(equation, *operands)

    try:
        ours, theirs = assert_same(fn)
    except RuntimeError:
        assert_same_error(fn, RuntimeError, "expected scalar type")
    else:
        assert str(ours.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1]


MASKED = {
    "same_shape": (lambda lib, x: lib.masked_select(x, x > 0)),
    "broadcast_mask": (lambda lib, x: x.masked_select(lib.tensor([True, False, True]).to(
        x.device))),
    "broadcast_input": (lambda lib, x: lib.masked_select(x[0], (x > 0))),
    "none": (lambda lib, x: x.masked_select(x > 100)),
}


@pytest.mark.parametrize("name", MASKED)
def test_masked_select(name):
    check_op(MASKED[name], randn(2, 3))
    check_jvp(MASKED[name], randn(2, 3))
    x = ag.tensor(randn(2, 3), requires_grad=True)
    assert ag.autograd.gradcheck(lambda t: MASKED[name](ag, t), [x])
    assert ag.autograd.gradgradcheck(lambda t: MASKED[name](ag, t), [x])
    assert_same(lambda lib: node_name(MASKED[name](lib, lib.tensor(
        randn(2, 3), requires_grad=True)).grad_fn))


def test_nonzero_and_argwhere():
    values = np.array([[1.0, 0.0, -2.0], [0.0, 0.0, 3.0]])
    assert_same(lambda lib: [lib.nonzero(lib.tensor(values)), lib.tensor(values).nonzero(),
                             lib.nonzero(lib.tensor(values), as_tuple=True),
                             lib.argwhere(lib.tensor(values)), lib.tensor([0, 1, 1]).argwhere(),
                             lib.nonzero(lib.tensor(2.0)), lib.nonzero(lib.tensor(0.0)),
                             lib.nonzero(lib.tensor(3.0), as_tuple=True),
                             lib.nonzero(lib.zeros(0, 2)), lib.tensor([True, False]).nonzero(),
                             str(lib.nonzero(lib.tensor(values)).dtype).split(".")[-1]])


def test_nonzero_static():
    values = np.array([[1.0, 0.0, -2.0], [0.0, 0.0, 3.0]])
    assert_same(lambda lib: [lib.nonzero_static(lib.tensor(values), size=2).tolist(),
                             lib.nonzero_static(lib.tensor(values), size=5).tolist(),
                             lib.tensor(values).nonzero_static(size=4, fill_value=7).tolist(),
                             lib.nonzero_static(lib.tensor(3.0), size=2).shape,
                             lib.nonzero_static(lib.zeros(3), size=0).shape])
    assert_same_error(lambda lib: lib.nonzero_static(lib.ones(2), size=-1), RuntimeError,
                      "'size' must be an non-negative integer")


def test_masked_select_errors():
    assert_same_error(lambda lib: lib.masked_select(lib.zeros(3), lib.ones(3)))
    assert_same_error(lambda lib: lib.masked_select(lib.zeros(3), lib.ones(4).bool()),
                      RuntimeError, "must match")


def test_unique():
    values = np.array([[3.0, 1.0, 2.0], [1.0, np.nan, 3.0]])

    def run(lib):
        x = lib.tensor(values, requires_grad=True)
        full = lib.unique(x, return_inverse=True, return_counts=True)
        return [lib.unique(x), x.unique(return_counts=True), full,
                node_name(full[0].grad_fn), full[1].requires_grad,
                lib.unique(lib.tensor([[1, 2], [1, 2], [0, 5]]), dim=0, return_inverse=True),
                node_name(lib.unique(x, dim=1).grad_fn), lib.unique(lib.tensor(5.0)),
                lib.unique(lib.tensor(5.0), return_inverse=True),
                lib.unique(lib.tensor([3, 1, 3, 2]), sorted=False).sort().values,
                lib.unique(lib.tensor([True, False, True]), return_counts=True)]
    assert_same(run)


@pytest.mark.parametrize("dim", [None, 0])
def test_unique_has_no_derivative(dim):
    assert_same_error(lambda lib: lib.unique(lib.tensor([[1.0, 2.0]], requires_grad=True),
                                             dim=dim).sum().backward(), NotImplementedError)


def test_tensor_where():
    check_op(lambda lib, x, y: x.where(x > 0, y), randn(2, 3), randn(2, 3, seed=4))
    check_op(lambda lib, x: x.where(x < 0, 1.5), randn(2, 3))
    assert_same(lambda lib: node_name(lib.tensor([1.0], requires_grad=True).where(
        lib.tensor([True]), 0.0).grad_fn))


# ------------------------------------------- ellipsis (NOTE [einsum's ellipsis] in einsum.py)

ELLIPSIS_CASES = {
    "sum_first": ("i...->...", [(3, 3)]),
    "summed_away": ("...ik, ...j -> ij", [(1, 2, 3), (3,)]),
    "batched_matmul": ("...ij,...jk", [(4, 2, 3), (3, 5)]),
    "broadcast_one": ("...i,...i", [(3, 1, 2), (4, 2)]),
    "right_aligned": ("i...,j...", [(2, 3), (4, 2, 3)]),
    "middle": ("a...b,b->...a", [(2, 3, 4, 5), (5,)]),
    "explicit_only_output": ("ij->...ij", [(2, 3)]),
    "scalar": ("...", [()]),
    "diagonal": ("...ii->...i", [(2, 3, 3)]),
}


@pytest.mark.parametrize("name", ELLIPSIS_CASES)
def test_ellipsis(name):
    equation, shapes = ELLIPSIS_CASES[name]
    check_op(lambda lib, *xs: lib.einsum(equation, *xs),
             *[randn(*shape, seed=k) for k, shape in enumerate(shapes)])


@pytest.mark.parametrize("equation,shapes", [
    ("i..j", [(2, 3)]), ("....ij", [(2, 3)]), ("...ijk", [(2, 3)]), ("ij...->i..", [(2, 3)]),
    ("...ij,...ij->...", [(4, 2, 3), (5, 2, 3)]),
])
def test_ellipsis_errors(equation, shapes):
    assert_same_error(lambda lib: lib.einsum(equation, *[lib.ones(s) for s in shapes]),
                      RuntimeError)


@pytest.mark.parametrize("equation, dtypes, refused", [
    ("abcd,dz->abcz", ("complex128", "complex64"), True),      # fuzz seed 988006333
    ("ij,j->i", ("float32", "float64"), True), ("ij,ij->ij", ("float64", "float32"), False),
    ("ij,kl->", ("float64", "float32"), False),
    ("i,j,j->", ("float32", "float64", "float32"), True),
    ("i,j,i->i", ("float64", "float32", "float32"), False)])
def test_operands_of_different_dtypes(equation, dtypes, refused):
    # torch's contraction of a summed letter is a bmm, which wants one dtype; its products
    # promote
    def run(lib):
        shapes = [(1, 1, 1, 2), (2, 1)] if equation.startswith("abcd") else [
            (2,) * len(letters) for letters in equation.split("->")[0].split(",")]
        return lib.einsum(equation, *[lib.ones(shape, dtype=getattr(lib, dtype))
                                      for shape, dtype in zip(shapes, dtypes)])
    if refused:
        assert_same_error(run, RuntimeError, exact=True)
    else:
        assert_same(run)


def test_masked_select_saves_its_input():
    """torch's node saves self and the mask: writing the input in place afterwards makes the
    backward refuse (fuzz seed 989102865)."""
    def fn(lib):
        x = lib.tensor([[[2.875]]], requires_grad=True) * 1
        out = x.masked_select(lib.tensor([[[False, True], [True, False]]]))
        x.masked_fill_(lib.tensor([[[True]]]), 1.25)
        out.backward(lib.ones(2))
    assert_same_error(fn, RuntimeError, r"which is output 0 of MaskedFill, is at version 1")


def test_einsum_ellipsis_of_an_empty_dim_broadcasts_to_empty():
    """A dim of size 1 broadcast against one of size 0 is 0, as torch's (the larger of the
    two was taken: fuzz seed 991004108)."""
    assert_same(lambda lib: lib.einsum("...c,...z->...cz", lib.zeros(1, 0, 1),
                                       lib.zeros(1, 0)).shape)
    assert_same(lambda lib: lib.einsum("ij,j->i", lib.ones(2, 1), lib.ones(0)))


def test_einsum_of_an_empty_operand_promotes_two_dtypes():
    """torch refuses two dtypes in a contraction's bmm, but not where an operand is empty:
    the result takes the promoted dtype (fuzz seed 993003248)."""
    assert_same(lambda lib: str(lib.einsum("abc,cz->abz", lib.zeros(0, 1, 3, dtype=lib.bfloat16),
                                           lib.ones(3, 1)).dtype).split(".")[-1])
    assert_same(lambda lib: lib.einsum("i,i->", lib.zeros(0, dtype=lib.bfloat16), lib.zeros(0)))
