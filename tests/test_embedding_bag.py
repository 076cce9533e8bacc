"""F.embedding_bag and nn.EmbeddingBag (autograd_cy/nn/embedding_bag.py) against torch's:
values and gradients of the weight and per_sample_weights for 'sum', 'mean' and 'max'
(padding_idx left out, empty bags, include_last_offset, 2-D input, scale_grad_by_freq),
max's ties and NaN, max_norm's in-place renormalization, the node name, torch's errors,
the module (repr, from_pretrained, forward), and the double backward torch lacks."""
import numpy as np
import pytest
import torch

import autograd_cy as ag
from oracle import (assert_same, assert_same_error, check_batched_grad, check_op, node_name,
                    randn, same_warning)

DTYPES = [np.float32, np.float64]
MODES = ["sum", "mean", "max"]
INDICES = np.array([1, 2, 1, 4, 0, 3, 3])
OFFSETS = np.array([0, 2, 2, 5])        # the second bag is empty


def fn_of(lib):
    return lib.nn.functional


# every case: (indices, offsets or None, keyword arguments)
CASES = {
    "offsets": (INDICES, OFFSETS, {}),
    "2d": (INDICES[:6].reshape(2, 3), None, {}),
    "padding": (INDICES, OFFSETS, {"padding_idx": 1}),
    "negative_padding": (INDICES, OFFSETS, {"padding_idx": -2}),
    "bag_of_padding_only": (np.array([1, 1, 2, 0]), np.array([0, 2]), {"padding_idx": 1}),
    "include_last_offset": (INDICES, np.array([0, 2, 2, 5, 7]), {"include_last_offset": True}),
    "past_the_last_offset": (INDICES, np.array([0, 2, 4]), {"include_last_offset": True}),
    # indices whose counts torch 2.13's CPU kernel reads right (test_scale_grad_by_freq)
    "scale_grad_by_freq": (np.array([1, 1, 3, 2, 2, 0]), np.array([0, 2, 2, 5]),
                           {"scale_grad_by_freq": True, "padding_idx": 3}),
    "last_bag_empty": (INDICES, np.array([0, 3, 7]), {}),
    "int32": (INDICES.astype(np.int32), OFFSETS.astype(np.int32), {}),
    "int32_offsets": (INDICES, OFFSETS.astype(np.int32), {}),
}


# Left out: max with scale_grad_by_freq (refused: test_errors), and past_the_last_offset in
# float32, where torch's kernel stops the forward at the last offset but not the mean's count
# and leaves the gradient of those rows uninitialized (test_past_the_last_offset_in_float32
# compares with torch's float64 values instead).
COMBINATIONS = [(case, mode, dtype) for dtype in DTYPES for mode in MODES for case in CASES
                if not (mode == "max" and CASES[case][2].get("scale_grad_by_freq"))
                and not (case == "past_the_last_offset" and dtype != np.float64)]


@pytest.mark.parametrize("case, mode, dtype", COMBINATIONS)
def test_values_and_weight_gradient(case, mode, dtype):
    indices, offsets, options = CASES[case]

    def fn(lib, weight):
        out = fn_of(lib).embedding_bag(lib.tensor(indices), weight,
                                       None if offsets is None else lib.tensor(offsets),
                                       mode=mode, **options)
        assert node_name(out.grad_fn) == "EmbeddingBagBackward0"
        return out
    # torch has no double backward for embedding_bag: first order only
    check_op(fn, randn(5, 3), dtype=dtype, double=False)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("case", ["offsets", "2d", "padding", "include_last_offset",
                                  "scale_grad_by_freq"])
def test_per_sample_weights(case, dtype):
    indices, offsets, options = CASES[case]

    def fn(lib, weight, samples):
        return fn_of(lib).embedding_bag(lib.tensor(indices), weight,
                                        None if offsets is None else lib.tensor(offsets),
                                        mode="sum", per_sample_weights=samples, **options)
    check_op(fn, randn(5, 3), randn(*indices.shape, seed=3), dtype=dtype, double=False)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("indices, offsets", [
    (INDICES, np.zeros(0, np.int64)),                   # no bags
    (np.zeros(0, np.int64), np.array([0, 0])),          # no indices: empty bags
])
def test_no_bags_or_no_indices(mode, indices, offsets):
    """Values only: torch 2.13 crashes (a segmentation fault) in their backward, and in
    the forward with no bags (float64, or 'max')."""
    if not offsets.size:
        assert fn_of(ag).embedding_bag(ag.tensor(indices), ag.ones(5, 3), ag.tensor(offsets),
                                       mode=mode).shape == (0, 3)
        return
    check_op(lambda lib, w: fn_of(lib).embedding_bag(lib.tensor(indices), w,
                                                     lib.tensor(offsets), mode=mode),
             randn(5, 3), requires_grad=[False])


def test_scale_grad_by_freq():
    """Each index's gradient divided by its count among the indices, as F.embedding's (a bag
    of one row per index is an embedding). torch 2.13's CPU kernel divides the k-th distinct
    index's gradient by the count of the k-th smallest index (sorted with repeats), which
    agrees only when the two coincide (CASES["scale_grad_by_freq"]): here it would give row
    2 half its gradient and row 3 twice its gradient."""
    indices = np.array([[1], [2], [1], [4], [0], [3], [3]])
    bagged = lambda lib, w: fn_of(lib).embedding_bag(      # noqa: E731
        lib.tensor(indices), w, mode="sum", scale_grad_by_freq=True)
    looked_up = lambda lib, w: fn_of(lib).embedding(       # noqa: E731
        lib.tensor(indices), w, scale_grad_by_freq=True).sum(1)
    check_op(lambda lib, w: bagged(ag, w) if lib is ag else looked_up(lib, w),
             randn(5, 3), double=False)


def test_max_ties_take_the_first_and_nan_only_as_first_value():
    """Torch's kernel replaces the maximum only by a greater value (NOTE [Embedding bags as
    kept rows]): ties go to the first row; a NaN wins only when a bag starts with it."""
    nan = np.nan
    weight = np.array([[nan, 1.0], [2.0, nan], [0.0, 0.0], [2.0, 1.0], [-np.inf, 5.0]])
    indices = np.array([0, 1, 2, 2, 0, 1, 3, 1, 3, 4, 4, 0])
    offsets = np.array([0, 3, 6, 9])

    def fn(lib, w):
        return fn_of(lib).embedding_bag(lib.tensor(indices), w, lib.tensor(offsets),
                                        mode="max")
    check_op(fn, weight, double=False)


@pytest.mark.parametrize("mode", MODES)
def test_padding_row_values_never_reach_a_bag(mode):
    """A padding row of inf and NaN is left out, not multiplied by zero."""
    weight = randn(4, 2)
    weight[2] = [np.inf, np.nan]
    check_op(lambda lib, w: fn_of(lib).embedding_bag(
        lib.tensor([2, 0, 2, 3, 2]), w, lib.tensor([0, 2, 4]), mode=mode, padding_idx=2),
        weight, double=False)


@pytest.mark.parametrize("norm_type", [2.0, 1.0])
def test_max_norm_renormalizes_in_place(norm_type):
    def run(lib):
        weight = lib.tensor(randn(6, 3) * 3, requires_grad=True)
        out = fn_of(lib).embedding_bag(lib.tensor([[0, 2], [2, 5]]), weight, max_norm=1.5,
                                       norm_type=norm_type, mode="sum")
        out.sum().backward()
        return out, weight.detach(), weight.grad
    assert_same(run)


@pytest.mark.parametrize("mode", MODES)
def test_double_backward(mode):
    """torch refuses to differentiate its backward; ours records Tensor ops of the gradient,
    weight and per_sample_weights, checked here by gradgradcheck."""
    indices, offsets = ag.tensor(INDICES), ag.tensor(OFFSETS)
    weight = ag.tensor(randn(5, 3), requires_grad=True)
    samples = ag.tensor(randn(7, seed=2), requires_grad=True) if mode == "sum" else None
    inputs = [weight] + ([samples] if samples is not None else [])

    def fn(w, *rest):
        return ag.nn.functional.embedding_bag(indices, w, offsets, mode=mode, padding_idx=4,
                                              per_sample_weights=rest[0] if rest else None)
    assert ag.autograd.gradcheck(fn, inputs)
    assert ag.autograd.gradgradcheck(fn, inputs)


def test_bag_of_int16_indices():
    """The indices are promoted with the offsets before the type check."""
    assert_same(lambda lib: fn_of(lib).embedding_bag(
        lib.tensor([0, 2, 1], dtype=lib.int16), lib.eye(3), lib.tensor([0, 1])))


ERRORS = {
    "index_too_large": lambda F, t, w: F.embedding_bag(t([1, 5]), w, t([0])),
    "index_negative": lambda F, t, w: F.embedding_bag(t([1, -1]), w, t([0])),
    "first_offset": lambda F, t, w: F.embedding_bag(t([1, 2]), w, t([1, 2])),
    "last_offset": lambda F, t, w: F.embedding_bag(t([1, 2]), w, t([0, 3])),
    "last_offset_included": lambda F, t, w: F.embedding_bag(t([1, 2]), w, t([0, 3]),
                                                            include_last_offset=True),
    "no_offsets_included": lambda F, t, w: F.embedding_bag(t([1, 2]), w, t([0])[:0],
                                                           include_last_offset=True),
    "float_indices": lambda F, t, w: F.embedding_bag(t([1, 2]).float(), w, t([0])),
    "float_offsets": lambda F, t, w: F.embedding_bag(t([1, 2]), w, t([0]).float()),
    "integer_weight": lambda F, t, w: F.embedding_bag(t([1, 2]), w.int(), t([0])),
    "weight_1d": lambda F, t, w: F.embedding_bag(t([1, 2]), w[0], t([0])),
    "input_3d": lambda F, t, w: F.embedding_bag(t([[[1, 2]]]), w),
    "2d_with_offsets": lambda F, t, w: F.embedding_bag(t([[1, 2]]), w, t([0])),
    "1d_without_offsets": lambda F, t, w: F.embedding_bag(t([1, 2]), w),
    "2d_offsets": lambda F, t, w: F.embedding_bag(t([1, 2]), w, t([[0]])),
    "empty_rows": lambda F, t, w: F.embedding_bag(t([[1, 2]])[:, :0], w),
    "mode": lambda F, t, w: F.embedding_bag(t([1, 2]), w, t([0]), mode="min"),
    "max_scale": lambda F, t, w: F.embedding_bag(t([1, 2]), w, t([0]), mode="max",
                                                 scale_grad_by_freq=True),
    "max_sparse": lambda F, t, w: F.embedding_bag(t([1, 2]), w, t([0]), mode="max",
                                                  sparse=True),
    "weights_with_mean": lambda F, t, w: F.embedding_bag(t([1, 2]), w, t([0]),
                                                         per_sample_weights=w[0, :2]),
    "weights_shape": lambda F, t, w: F.embedding_bag(t([1, 2]), w, t([0]), mode="sum",
                                                     per_sample_weights=w[0]),
    "weights_dtype": lambda F, t, w: F.embedding_bag(t([1, 2]), w, t([0]), mode="sum",
                                                     per_sample_weights=w[0, :2].double()),
    "padding_idx": lambda F, t, w: F.embedding_bag(t([1, 2]), w, t([0]), padding_idx=5),
    "negative_padding_idx": lambda F, t, w: F.embedding_bag(t([1, 2]), w, t([0]),
                                                            padding_idx=-6),
}


# torch's message ends with the offset as a tensor, or names torch.Tensor's class
NOT_EXACT = {"first_offset": r"^offsets\[0\] has to be 0, i\.e\., the first sequence in the "
             r"mini-batch has to start from position 0\. However, got 1",
             "2d_with_offsets": r"^if input is 2D, then offsets has to be None, as input is "
             r"treated is a mini-batch of fixed length sequences\. However, found offsets of "
             r"type <class '.*Tensor'>$"}


# messages that name the tensor type (torch.cuda.FloatTensor on the CUDA device)
TYPE_NAMED = {"float_indices", "float_offsets", "integer_weight", "weights_dtype"}


@pytest.mark.parametrize("name", [
    pytest.param(name, marks=pytest.mark.cpu_only) if name in TYPE_NAMED else name
    for name in ERRORS])
def test_errors(name):
    def fn(lib):
        return ERRORS[name](fn_of(lib), lib.tensor, lib.ones(5, 3))
    if name in NOT_EXACT:
        assert_same_error(fn, NOT_EXACT[name])
    else:
        assert_same_error(fn, exact=True)


def test_sparse_is_refused():
    """autograd_cy has no sparse tensors (as F.embedding's sparse=True)."""
    with pytest.raises(NotImplementedError, match="sparse=True"):
        ag.nn.functional.embedding_bag(ag.tensor([1, 2]), ag.ones(5, 3), ag.tensor([0]),
                                       sparse=True)


def test_old_argument_order_warns_and_swaps():
    same_warning(lambda lib: fn_of(lib).embedding_bag(
        lib.eye(3), lib.tensor([0, 2, 1]), lib.tensor([0, 2])).tolist(),
        UserWarning, "Argument order of nn.functional.embedding_bag was changed")


@pytest.mark.cpu_only       # the weight drawn from torch's CPU stream
def test_module():
    def run(lib):
        lib.manual_seed(0)
        bag = lib.nn.EmbeddingBag(6, 3, max_norm=2.0, norm_type=3, mode="sum",
                                  padding_idx=-1)
        out = bag(lib.tensor([0, 5, 2, 2]), lib.tensor([0, 1]),
                  per_sample_weights=lib.tensor([1.0, 2.0, 0.5, -1.0]))
        out.sum().backward()
        pretrained = lib.nn.EmbeddingBag.from_pretrained(
            lib.tensor([[1.0, 2.0], [3.0, 4.0]]), mode="max", include_last_offset=True)
        trainable = lib.nn.EmbeddingBag.from_pretrained(lib.ones(2, 2), freeze=False,
                                                        scale_grad_by_freq=True)
        return [repr(bag), bag.weight[5], out, bag.weight.grad, repr(pretrained),
                pretrained.weight.requires_grad, trainable.weight.requires_grad,
                repr(trainable),
                pretrained(lib.tensor([0, 1, 1]), lib.tensor([0, 2, 3])),
                repr(lib.nn.EmbeddingBag(4, 2)), node_name(out.grad_fn)]
    assert_same(run)


@pytest.mark.parametrize("make", [
    lambda lib: lib.nn.EmbeddingBag(3, 2, padding_idx=3),
    lambda lib: lib.nn.EmbeddingBag(3, 2, padding_idx=-4),
    lambda lib: lib.nn.EmbeddingBag(3, 2, _weight=lib.ones(2, 2)),
    lambda lib: lib.nn.EmbeddingBag.from_pretrained(lib.ones(2)),
])
def test_module_errors(make):
    assert_same_error(make, AssertionError, exact=True)


@pytest.mark.parametrize("mode", MODES)
def test_batched_gradients(mode):
    """``is_grads_batched``: the Function's backward runs once per gradient row."""
    samples = (randn(7, seed=2),) if mode == "sum" else ()
    check_batched_grad(lambda lib, w, *rest: fn_of(lib).embedding_bag(
        lib.tensor(INDICES), w, lib.tensor(OFFSETS), mode=mode, padding_idx=4,
        per_sample_weights=rest[0] if rest else None), randn(5, 3), *samples)


@pytest.mark.parametrize("requires_grad", [[True, False], [False, True]])
def test_one_of_weight_and_per_sample_weights_requires_grad(requires_grad):
    check_op(lambda lib, w, s: fn_of(lib).embedding_bag(
        lib.tensor(INDICES), w, lib.tensor(OFFSETS), mode="sum", per_sample_weights=s,
        padding_idx=1), randn(5, 3), randn(7, seed=4), requires_grad=requires_grad,
        double=False)


def test_forward_ad_is_refused():
    """torch has no forward-mode formula for embedding_bag; neither has autograd_cy."""
    def run(lib):
        forward_ad = lib.autograd.forward_ad
        with forward_ad.dual_level():
            weight = forward_ad.make_dual(lib.ones(5, 3), lib.ones(5, 3))
            fn_of(lib).embedding_bag(lib.tensor([0, 2]), weight, lib.tensor([0]))
    assert_same_error(run, NotImplementedError, "forward (mode )?AD")


@pytest.mark.parametrize("mode", MODES)
def test_past_the_last_offset_in_float32(mode):
    """Indices past the last offset belong to the last bag, as torch's float64 kernel puts
    them: our float32 result is torch's float64 one, rounded."""
    indices, offsets, options = CASES["past_the_last_offset"]
    weight = randn(5, 3)
    ours = ag.nn.functional.embedding_bag(
        ag.tensor(indices), ag.tensor(weight, dtype=ag.float32), ag.tensor(offsets),
        mode=mode, **options)
    theirs = torch.nn.functional.embedding_bag(torch.tensor(indices), torch.tensor(weight),
                                               torch.tensor(offsets), mode=mode, **options)
    np.testing.assert_allclose(ours.detach().cpu().numpy(), theirs.float().numpy(), rtol=1e-6,
                               atol=1e-6)


def test_decreasing_offsets():
    """torch 2.13 raises this when it runs alone, and in a long suite sometimes not: its
    check reads past the bag's end. Ours always raises torch's message."""
    with pytest.raises(RuntimeError, match=r"^Expected i < index_size to be true, but got "
                       r"false\."):
        ag.nn.functional.embedding_bag(ag.tensor([1, 2, 1, 4, 0, 3]), ag.ones(5, 3),
                                       ag.tensor([0, 3, 2]))
