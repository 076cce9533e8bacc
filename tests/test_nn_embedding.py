"""F.embedding and F.one_hot against torch.nn.functional: values, gradients (rows
accumulated, padding_idx's row left out, scale_grad_by_freq), double backward, forward AD,
max_norm's in-place renormalization, node names, errors."""
import numpy as np
import pytest
import torch

import autograd_cy as ag
import autograd_cy.nn.embedding as embedding_module
from oracle import DEVICE, assert_close, assert_same, assert_same_error, check_op, randn

DTYPES = [np.float32, np.float64]
INDICES = np.array([[1, 3, 1], [0, 4, 3]])


def fn_of(lib):
    return lib.nn.functional


# ------------------------------------------------------------------ embedding

@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("options", [
    {},
    {"padding_idx": 3},
    {"padding_idx": -2},
    {"scale_grad_by_freq": True},
    {"padding_idx": 1, "scale_grad_by_freq": True},
])
def test_embedding(dtype, options):
    def fn(lib, indices, weight):
        out = fn_of(lib).embedding(indices, weight, **options)
        assert out.grad_fn.name() == "EmbeddingBackward0"
        return out
    check_op(fn, INDICES, randn(5, 4), dtype=dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("options", [{}, {"padding_idx": 0, "scale_grad_by_freq": True}])
def test_embedding_gradient_by_index_add(monkeypatch, dtype, options):
    """The path of large vocabularies (NOTE [Embedding's gradient as a matrix product])."""
    monkeypatch.setattr(embedding_module, "_SELECTION_ROWS", 0)
    check_op(lambda lib, i, w: fn_of(lib).embedding(i, w, **options), INDICES, randn(5, 3),
             dtype=dtype)


@pytest.mark.parametrize("shape", [(), (4,), (2, 0)])
def test_embedding_index_shapes(shape):
    indices = np.asarray(np.arange(int(np.prod(shape))).reshape(shape) % 3)
    check_op(lambda lib, i, w: fn_of(lib).embedding(i, w), indices, randn(3, 2))


def test_embedding_int32_indices():
    check_op(lambda lib, i, w: fn_of(lib).embedding(i, w), INDICES.astype(np.int32),
             randn(5, 2))


def test_embedding_gradient_accumulates_repeated_rows():
    """A row picked twice gets both gradients; padding_idx's row none; the others zero."""
    def grad_of(lib):
        weight = lib.ones(4, 2, requires_grad=True)
        fn_of(lib).embedding(lib.tensor([[2, 2, 0], [3, 2, 0]]), weight, padding_idx=0).sum(
        ).backward()
        return weight.grad
    assert_same(grad_of)


def test_embedding_gradcheck():
    """padding_idx and scale_grad_by_freq change the gradient on purpose (it is no longer
    the derivative), so finite differences check the plain lookup; the backward of each is
    checked by gradgradcheck."""
    indices = ag.tensor(INDICES)
    weight = ag.tensor(randn(5, 3), requires_grad=True)
    assert ag.autograd.gradcheck(lambda w: fn_of(ag).embedding(indices, w), [weight],
                                 check_forward_ad=True)
    for options in ({}, {"padding_idx": 1, "scale_grad_by_freq": True}):
        def fn(w):
            return fn_of(ag).embedding(indices, w, **options)
        assert ag.autograd.gradgradcheck(fn, [weight])


def test_embedding_forward_ad():
    """The tangent of the weight, looked up like the weight (indices carry none)."""
    for lib in (ag, torch):
        fwad = lib.autograd.forward_ad
        with fwad.dual_level():
            weight = fwad.make_dual(lib.tensor(randn(5, 2)), lib.tensor(randn(5, 2, seed=1)))
            out = fn_of(lib).embedding(lib.tensor(INDICES), weight)
            tangent = fwad.unpack_dual(out).tangent
        if lib is ag:
            ours = tangent
    assert_close(ours, tangent)


@pytest.mark.parametrize("norm_type", [2.0, 1.0])
def test_embedding_max_norm_renormalizes_in_place(norm_type):
    def run(lib):
        weight = lib.tensor(randn(5, 3) * 2, requires_grad=True)
        out = fn_of(lib).embedding(lib.tensor(INDICES), weight, max_norm=1.5,
                                   norm_type=norm_type)
        out.sum().backward()
        return out, weight, weight.grad
    assert_same(run)


@pytest.mark.parametrize("call, expected", [
    (lambda lib: fn_of(lib).embedding(lib.tensor([5]), lib.ones(4, 3)),
     ("^index out of range in self$",)),
    (lambda lib: fn_of(lib).embedding(lib.tensor([-1]), lib.ones(4, 3)),
     ("^index out of range in self$",)),
    (lambda lib: fn_of(lib).embedding(lib.tensor([1.0]), lib.ones(4, 3)),
     ("^Expected tensor for argument #1 'indices' to have one of the following scalar types: "
      "Long, Int; but got torch.+FloatTensor instead",)),
    (lambda lib: fn_of(lib).embedding(lib.tensor([1]), lib.ones(4)), ("'weight' must be 2-D",)),
    (lambda lib: fn_of(lib).embedding(lib.tensor([1]), lib.ones(4, 3), padding_idx=4),
     (AssertionError, "Padding_idx must be within num_embeddings")),
    (lambda lib: fn_of(lib).embedding(lib.tensor([1]), lib.ones(4, 3), padding_idx=-5),
     (AssertionError, "Padding_idx must be within num_embeddings")),
])
def test_embedding_errors(call, expected):
    assert_same_error(call, *expected)


# ------------------------------------------------------------------ one_hot

@pytest.mark.parametrize("values, classes", [
    ([1, 0, 3], -1), ([[1, 0], [2, 2]], 4), ([], 3), (2, 5),
])
def test_one_hot(values, classes):
    def run(lib):
        out = fn_of(lib).one_hot(lib.tensor(values, dtype=lib.int64), classes)
        return out, str(out.dtype).split(".")[-1], str(out.device)
    ours, theirs = run(ag), run(torch)
    assert_close(ours[0], theirs[0])
    assert ours[1] == theirs[1] == "int64"
    assert ours[2] == ("cuda:0" if DEVICE.startswith("cuda") else "cpu")


@pytest.mark.parametrize("values, classes, words", [
    ([1, 5], 3, "^Class values must be smaller than num_classes.$"),
    ([-1], 3, "^Class values must be non-negative.$"),
    ([], -1, "^Can not infer total number of classes from empty tensor.$"),
])
def test_one_hot_errors(values, classes, words):
    assert_same_error(lambda lib: fn_of(lib).one_hot(lib.tensor(values, dtype=lib.int64),
                                                     classes), words)


def test_one_hot_refuses_other_dtypes():
    assert_same_error(lambda lib: fn_of(lib).one_hot(lib.tensor([1.0]), 3),
                      "^one_hot is only applicable to index tensor of type LongTensor.$")
