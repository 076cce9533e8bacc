"""What running PyTorch's test/functorch/test_vmap.py over autograd_cy found (the runner
stays outside the repository; these are our own cases, checked against torch): vmap's
argument checks, the identity of an in-place op's result, ``functools.partial`` of an op,
``out=`` inside vmap, and batches of size 0 through the per-element fallback."""
import collections
import functools

import numpy as np
import pytest
import torch

import autograd_cy as ag
from tests.oracle import assert_close, assert_same_error, randn

X = randn(2, 3, seed=1)


def t(lib, array=X):
    return lib.tensor(np.array(array))


# ------------------------------------------------------------------ argument checks

@pytest.mark.parametrize("tensor_input", [True, False])
def test_no_tensor_to_map_over(tensor_input):
    """Every input unmapped, a tensor or not: torch's one message for both."""
    assert_same_error(
        lambda lib: lib.func.vmap(lambda x: x, in_dims=(None,))(t(lib) if tensor_input else 3),
        ValueError, exact=True)


@pytest.mark.parametrize("out_dims", [(1,), 1, (-1,)])
def test_one_output_takes_a_one_tuple_of_out_dims(out_dims):
    ours = ag.func.vmap(lambda x: x * 2, out_dims=out_dims)(t(ag))
    theirs = torch.func.vmap(lambda x: x * 2, out_dims=out_dims)(t(torch))
    assert_close(ours, theirs)


@pytest.mark.parametrize("out_dims", [("lol",), 1.0, {"a": "b"}, [None, 2.5]])
def test_out_dims_leaves_must_be_ints(out_dims):
    """Checked before the function runs: torch's message names the leaves' rule."""
    assert_same_error(lambda lib: lib.func.vmap(lambda x: (x, x), out_dims=out_dims)(t(lib)),
                      ValueError, "`out_dims` must be an int, None or a python collection "
                      "of ints")


@pytest.mark.parametrize("case", ["list_out_tuple_dims", "tuple_out_list_dims",
                                  "namedtuple_out", "tensor_out_list_dims",
                                  "tensor_out_two_dims"])
def test_out_dims_structure_is_strict(case):
    """A tuple of out_dims does not match a list of outputs (nor a named tuple), as in
    torch's pytree."""
    pair = collections.namedtuple("pair", "a b")
    fn, out_dims = {
        "list_out_tuple_dims": (lambda x: [x, x], (0, 1)),
        "tuple_out_list_dims": (lambda x: (x, x), [0, 1]),
        "namedtuple_out": (lambda x: pair(x, x), (0, 1)),
        "tensor_out_list_dims": (lambda x: x, [1]),
        "tensor_out_two_dims": (lambda x: x, (1, 1)),
    }[case]
    assert_same_error(lambda lib: lib.func.vmap(fn, out_dims=out_dims)(t(lib)), ValueError,
                      "out_dims is not compatible with the structure of `outputs`")


@pytest.mark.parametrize("in_dims, container", [(((0, 0),), list), (([0, 0],), tuple)])
def test_in_dims_structure_is_strict(in_dims, container):
    assert_same_error(
        lambda lib: lib.func.vmap(lambda z: z[0] + z[1], in_dims=in_dims)(
            container([t(lib), t(lib)])),
        ValueError, "in_dims is not compatible with the structure of `inputs`")


def test_matching_containers_still_map():
    outs = []
    for lib in (ag, torch):
        outs.append(lib.func.vmap(lambda z: z[0] * z[1], in_dims=([0, 1],))(
            [t(lib), t(lib).t()]))
    assert_close(*outs)


# ------------------------------------------------------------------ results

@pytest.mark.parametrize("nest", [1, 2])
def test_inplace_op_returns_its_input(nest):
    """vmap of an in-place op with out_dims 0 returns the input tensor itself."""
    for lib in (ag, torch):
        x = lib.rand(2, 3, 4)
        fn = lib.Tensor.acos_
        for _ in range(nest):
            fn = lib.func.vmap(fn)
        assert fn(x) is x, lib.__name__


def test_inplace_op_with_out_dims_is_a_view_of_its_input():
    for lib in (ag, torch):
        x = lib.rand(2, 3)
        expected = x.clone().acos().t()
        result = lib.func.vmap(lib.Tensor.acos_, out_dims=(1,))(x)
        assert result._base is x, lib.__name__
        assert_close(result, expected)


def test_partial_of_an_op_is_batched():
    """functools.partial(op, unbatched) reaches op's batching rule (the op inside the
    partial was looked up before vmap swapped the ops)."""
    outs = [lib.func.vmap(functools.partial(lib.mul, t(lib, X[0])))(t(lib))
            for lib in (ag, torch)]
    assert_close(*outs)
    outs = [lib.func.vmap(functools.partial(lib.sum, dim=0))(t(lib)) for lib in (ag, torch)]
    assert_close(*outs)


def test_out_argument_inside_vmap():
    assert_same_error(
        lambda lib: lib.func.vmap(lambda a, b: lib.abs(a, out=b))(t(lib), t(lib)),
        RuntimeError, r"Batching rule not implemented for aten::abs\.out; the fallback path "
        "doesn't work on out= or view ops")


@pytest.mark.parametrize("in_dims", [(0, None), (None, 0), 0])
def test_size_zero_batch_through_the_fallback(in_dims):
    """copysign has no rule here: an empty batch still gives an empty result of the
    right shape and dtype, as torch's rule does."""
    outs = []
    for lib in (ag, torch):
        x = lib.zeros(0, 11)
        y = lib.ones(11) if in_dims != 0 else lib.ones(0, 11)
        args = (y, x) if in_dims == (None, 0) else (x, y)
        outs.append(lib.func.vmap(lib.copysign, in_dims)(*args))
    assert_close(*outs)
