"""Views and in-place ops against PyTorch: gradients through
CopySlices, regenerated view grad_fns, the forbidden cases and their messages, and version
counters shared by a base and its views."""
import re

import numpy as np
import pytest

import autograd_cy as ag
from oracle import (
    DEVICE_NAME, LIBS, assert_same, assert_same_error, both, check_op, node_name, randn,
    to_numpy,
)


def begins(text):
    """A pattern for a message that starts with ``text``."""
    return "^" + re.escape(text)


# ------------------------------------------------------------------ gradients through views

def test_inplace_on_view_of_nonleaf_routes_the_gradient():
    for lib in LIBS:
        x = lib.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
        y = x * 1
        y[:2].mul_(3)
        y.sum().backward()
        np.testing.assert_array_equal(to_numpy(x.grad), [3.0, 3.0, 1.0, 1.0])


def test_base_gets_copyslices_and_view_gets_asstrided():
    facts = []
    for lib in LIBS:
        x = lib.ones(4, requires_grad=True)
        y = x * 1
        v = y[:2]
        assert node_name(v.grad_fn) == "SliceBackward0"
        v.mul_(3)
        facts.append((node_name(y.grad_fn), node_name(y.grad_fn.next_functions[0][0]),
                      node_name(v.grad_fn), node_name(v.grad_fn.next_functions[0][0]),
                      y._version, v._version, v._base is y, y.is_leaf, v.requires_grad))
    assert facts[0] == facts[1]
    assert facts[0][:3] == ("CopySlices", "MulBackward0", "AsStridedBackward0")


def _mul_view(lib, x, w):
    y = x * 1
    y[1:3].mul_(w[1:3])
    return y


def _add_column(lib, x, w):
    y = x * 2
    y[:, 1].add_(w[:, 0])
    return y


def _transposed_row(lib, x, w):
    y = x * 1
    y.t()[0].mul_(w[0, 0])
    return y


def _view_of_view(lib, x, w):
    y = x * 1
    v = y[1:]
    v[:2].mul_(3)
    return y, v


def _copy_into_row(lib, x, w):
    y = x + 0
    y[1].copy_(w[1] * 2)
    return y


def _fill_row(lib, x, w):
    y = x * 3
    y[0].fill_(2.0)
    return y


def _zero_strided(lib, x, w):
    y = x * 1
    y[::2].zero_()
    return y


def _narrow_then_mul(lib, x, w):
    y = x * 1
    y.narrow(1, 0, 2).mul_(w[:, :2])
    return y.exp()


def _two_inplace_views(lib, x, w):
    y = x * 1
    y[0].mul_(2)
    y[:, 0].mul_(w[:, 0])
    return y


def _base_modified_then_view_used(lib, x, w):
    y = x * 1
    v = y[1:3]
    y.mul_(w)
    return v


def _sibling_modified_then_view_used(lib, x, w):
    y = x * 1
    v1, v2 = y[:2], y[1:3]
    v1.mul_(3)
    return v2 * w[1:3]


def _unsqueezed_view(lib, x, w):
    y = x * 1
    y.unsqueeze(0)[0, 1:].mul_(w[1:])
    return y


def _inplace_on_split_base(lib, x, w):
    y = x * 1
    y.mul_(2)
    return y.split(2)


def test_inplace_op_on_a_view_with_an_operand_of_another_dtype_backpropagates():
    """The in-place op's node gives the view's gradient in the operand's promoted dtype;
    CopySlices casts it into the base's, as torch's copy_ does (fuzz seed 9789726)."""
    def fn(lib, x):
        y = (x * 1).squeeze()
        y.div_(lib.tensor([[2.75]], dtype=lib.float64))
        return y
    check_op(fn, randn(4, 1, 3), dtype=np.float32)


def test_inplace_op_on_a_moved_view_with_a_float64_operand_backpropagates_through_max():
    """The same cast, the view a movedim of the base and the loss a max (a fuzzer program
    that failed in backward's index_put before the cast)."""
    def run(lib):
        x = lib.tensor([[0.5, 0.13, -0.8], [-0.04, -0.02, 0.94]], requires_grad=True)
        w = lib.tensor([-1.04], dtype=lib.float64, requires_grad=True)
        y = lib.sub(x, 1.67, alpha=2).movedim(0, -2)
        y.mul_(w.reshape((1,)))
        (y.squeeze() * 2).max().backward()
        return y, x.grad, w.grad
    assert_same(run, rtol=1e-5, atol=1e-6)


def test_fill_of_an_empty_expanded_view_backpropagates():
    """An expand with no elements shares no memory: torch writes into it, and its CopySlices
    backward runs (fuzz seed 11731160 found ours refusing it)."""
    def fn(lib, x):
        y = lib.stack([x, x, x], dim=-1)
        z = y.expand(2, -1, 3)
        z.fill_(1.875)
        return z.mean()
    check_op(fn, np.zeros((0,)), double=False)


@pytest.mark.parametrize("fn", [
    _mul_view, _add_column, _transposed_row, _view_of_view, _copy_into_row, _fill_row,
    _zero_strided, _narrow_then_mul, _two_inplace_views, _base_modified_then_view_used,
    _sibling_modified_then_view_used, _unsqueezed_view, _inplace_on_split_base,
], ids=lambda f: f.__name__.strip("_"))
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_inplace_on_views_matches_torch_gradients(fn, dtype):
    check_op(fn, randn(4, 3), randn(4, 3, seed=7), dtype=dtype)


def test_view_grad_fn_is_refreshed_after_inplace_on_base():
    facts = []
    for lib in LIBS:
        x = lib.ones(4, 3, requires_grad=True)
        y = x * 1
        v = y[1:3]
        first = v.grad_fn
        y.mul_(2)
        second = v.grad_fn
        facts.append((node_name(first), node_name(second), second is v.grad_fn,
                      node_name(second.next_functions[0][0]), v._version))
    assert facts[0] == facts[1] == ("SliceBackward0", "AsStridedBackward0", True,
                                    "MulBackward0", 1)


def test_inplace_on_view_with_operand_makes_base_require_grad():
    facts = []
    for lib in LIBS:
        w = lib.tensor([2.0, 3.0], requires_grad=True)
        a = lib.ones(4)
        a[1:3].mul_(w)
        (a * lib.tensor([1.0, 10.0, 100.0, 1000.0])).sum().backward()
        facts.append((a.requires_grad, a.is_leaf, node_name(a.grad_fn), a._version,
                      to_numpy(w.grad).tolist()))
    assert facts[0] == facts[1] == (True, False, "CopySlices", 1, [10.0, 100.0])


# ------------------------------------------------------------------ forbidden view + in-place cases

NO_GRAD_VIEW = "A view was created in no_grad mode and is being modified inplace with grad mode"


def test_view_made_in_no_grad_modified_with_grad_raises():
    def fn(lib):
        y = lib.ones(4, requires_grad=True) * 1
        with lib.no_grad():
            v = y[:2]
        v.mul_(2)
    assert_same_error(fn, RuntimeError, begins(NO_GRAD_VIEW), exact=True)


def test_gradient_summed_over_leading_dims_is_a_view_made_in_no_grad():
    """autograd.grad's gradient of a broadcast input is a view of a keepdim sum (NOTE
    [sum_to returns a view]), made while backward ran without grad mode: an in-place op
    on it that records is refused."""
    def fn(lib):
        x = lib.randn(4, 2, 1, 1, requires_grad=True)
        w = lib.tensor([0.67], requires_grad=True)
        g, = lib.autograd.grad(lib.minimum(w, x).sum(), [w])
        g -= w.contiguous()
    assert_same_error(fn, RuntimeError, begins(NO_GRAD_VIEW), exact=True)


@pytest.mark.parametrize("shapes", [((4, 2, 3), (2, 1)), ((4, 3), (3,)), ((2, 3), (1, 3)),
                                    ((2, 3), (2, 3))])
@pytest.mark.parametrize("create_graph", [False, True])
def test_gradient_of_a_broadcast_input_is_a_view_when_leading_dims_went(shapes, create_graph):
    def run(lib):
        x = lib.ones(shapes[0], requires_grad=True)
        w = lib.ones(shapes[1], requires_grad=True)
        g, = lib.autograd.grad((x * w).sum(), [w], create_graph=create_graph)
        grad_fn = g.grad_fn and node_name(g.grad_fn)
        with lib.no_grad():
            g += 1                              # allowed: the view and the write in no_grad
        return g._base is not None, grad_fn, g
    assert_same(run)


def test_view_of_leaf_made_in_no_grad_raises_the_no_grad_message():
    def fn(lib):
        x = lib.ones(4, requires_grad=True)
        with lib.no_grad():
            v = x[:2]
        v.mul_(2)
    assert_same_error(fn, RuntimeError, begins(NO_GRAD_VIEW), exact=True)


def test_view_made_in_no_grad_modified_in_no_grad_is_allowed():
    for lib in LIBS:
        y = lib.ones(4, requires_grad=True) * 1
        with lib.no_grad():
            v = y[:2]
            v.mul_(2)
        assert y._version == v._version == 1
        assert node_name(y.grad_fn) == "MulBackward0"


MULTI_OUTPUT = [
    ("unbind", lambda lib, y: y.unbind(0)),
    ("unbind_dim", lambda lib, y: lib.unbind(y, 1)),
    ("split", lambda lib, y: y.split(3)),
    ("split_sizes", lambda lib, y: y.split([1, 3])),
    ("split_with_sizes", lambda lib, y: lib.split_with_sizes(y, [2, 2])),
    ("chunk", lambda lib, y: y.chunk(2)),
]


@pytest.mark.parametrize("op, fn", MULTI_OUTPUT, ids=[c[0] for c in MULTI_OUTPUT])
@pytest.mark.parametrize("leaf", [False, True])
def test_multi_output_view_modified_inplace_raises(op, fn, leaf):
    def run(lib):
        x = lib.ones(4, 3, requires_grad=True)
        y = x if leaf else x * 1
        fn(lib, y)[-1].mul_(2)
    assert_same_error(run, RuntimeError,
                      r"^Output \d of (Unbind|Split|SplitWithSizes) is a view and is being "
                      r"modified inplace\. This view is the output of a function that returns "
                      r"multiple views\.", exact=True)


def test_multi_output_message_names_the_view_op_of_a_view_of_it():
    def via_setitem(lib):
        y = lib.ones(4, 3, requires_grad=True) * 1
        v = y.unbind(0)[1]
        v[0] = 2.0
    assert_same_error(via_setitem, RuntimeError,
                      begins("Output 0 of Select is a view and is being modified inplace"),
                      exact=True)

    def via_slice(lib):
        y = lib.ones(4, 3, requires_grad=True) * 1
        y.unbind(0)[0][1:].mul_(2)
    assert_same_error(via_slice, RuntimeError,
                      begins("Output 0 of Slice is a view and is being modified inplace"),
                      exact=True)


def test_multi_output_view_without_grad_fn_and_a_grad_operand_raises():
    def fn(lib):
        w = lib.ones(3, requires_grad=True)
        lib.ones(4, 3).unbind(0)[1].mul_(w)
    assert_same_error(fn, RuntimeError, begins(NO_GRAD_VIEW), "returns multiple views",
                      exact=True)


def test_multi_output_view_without_grad_is_writable():
    results = []
    for lib in LIBS:
        a = lib.ones(4, 3)
        parts = a.unbind(0)
        parts[1].mul_(2)
        results.append((to_numpy(a).tolist(), a._version, parts[0]._version))
    assert results[0] == results[1]


def test_indirect_modification_raises_at_grad_fn_access():
    def setup(lib):
        y = lib.ones(4, 3, requires_grad=True) * 1
        parts = y.unbind(0)
        y.mul_(2)                 # no error here: the views are not modified directly
        return parts

    assert_same_error(lambda lib: setup(lib)[1].grad_fn, RuntimeError,
                      begins("Output 1 of Unbind is a view and its base or another view of its "
                             "base has been modified inplace."), exact=True)
    assert_same_error(lambda lib: setup(lib)[2] * 2, RuntimeError,
                      begins("Output 2 of Unbind is a view and its base"), exact=True)


def test_indirect_modification_through_a_sibling_raises_lazily():
    def fn(lib):
        y = lib.ones(4, 3, requires_grad=True) * 1
        parts = y.split(2)
        with lib.no_grad():
            parts[1].add_(1)
        return parts[0].grad_fn
    assert_same_error(fn, RuntimeError,
                      begins("Output 0 of Split is a view and its base or another view of its "
                             "base"), exact=True)


def test_indirect_modification_of_no_grad_view_raises_lazily():
    def fn(lib):
        y = lib.ones(4, requires_grad=True) * 1
        with lib.no_grad():
            v = y[:2]
        y.mul_(2)
        return v.grad_fn
    assert_same_error(fn, RuntimeError,
                      begins("A view was created in no_grad mode and its base or another view "
                             "of its base has been modified inplace with grad mode enabled."),
                      exact=True)


def test_view_made_in_inference_mode_modified_outside_raises():
    def fn(lib):
        y = lib.ones(4, requires_grad=True) * 1
        with lib.inference_mode():
            v = y[:2]
        v.mul_(2)
    assert_same_error(fn, RuntimeError,
                      begins("A view was created in inference mode and is being modified "
                             "inplace in normal mode."), exact=True)


# ------------------------------------------------------------------ in-place on leaves

LEAF = "a leaf Variable that requires grad is being used in an in-place operation."
VIEW_OF_LEAF = "a view of a leaf Variable that requires grad is being used in an in-place " \
               "operation."


@pytest.mark.parametrize("fn, message", [
    (lambda lib, x: x.mul_(2), LEAF),
    (lambda lib, x: x[:2].mul_(2), VIEW_OF_LEAF),
    (lambda lib, x: x.t()[0].zero_(), VIEW_OF_LEAF),
    (lambda lib, x: x.__setitem__(0, 1.0), VIEW_OF_LEAF),
    (lambda lib, x: x.__setitem__((slice(None), 1), lib.ones(4)), VIEW_OF_LEAF),
    (lambda lib, x: x.__setitem__([0], 1.0), LEAF),
    (lambda lib, x: x.__setitem__(lib.tensor([True, False, True, False]), 1.0), LEAF),
    (lambda lib, x: x.masked_fill_(lib.ones(4, 3, dtype=lib.bool), 0.0), LEAF),
    (lambda lib, x: x.index_put_((lib.tensor([0]),), lib.tensor(1.0)), LEAF),
], ids=["mul_", "view_mul_", "view_zero_", "setitem_int", "setitem_column", "setitem_list",
        "setitem_mask", "masked_fill_", "index_put_"])
def test_inplace_on_leaf_or_its_view_raises(fn, message):
    leaves = []

    def run(lib):
        leaves.append(lib.ones(4, 3, requires_grad=True))
        fn(lib, leaves[-1])
    assert_same_error(run, RuntimeError, re.escape(message))
    assert [x._version for x in leaves] == [0, 0]


def test_inplace_on_a_view_of_a_base_detached_in_place_raises():
    """detach_() makes the base a leaf that does not require grad, but its view keeps its
    grad_fn (it requires grad): an in-place op on it is one on a view of a leaf."""
    def fn(lib):
        x = lib.tensor([[-2.06, -0.25], [1.66, 1.79]], dtype=lib.float64, requires_grad=True)
        y = lib.tanh(x * 2)
        view = y.flatten(0)
        y.detach_()
        view.reciprocal_()
    assert_same_error(fn, RuntimeError, re.escape(VIEW_OF_LEAF), exact=True)


def test_inplace_on_leaf_view_is_allowed_under_no_grad():
    results = []
    for lib in LIBS:
        x = lib.ones(4, 3, requires_grad=True)
        with lib.no_grad():
            x[:2].mul_(2)
            x[3] = 5.0
            x[[0, 0]] = -1.0
        results.append((to_numpy(x).tolist(), x._version, x.is_leaf, x.grad_fn))
    assert results[0] == results[1]


# ------------------------------------------------------------------ setitem on non-leaves

SETITEM_CASES = [
    ("int", 1, (3,)),
    ("slice", slice(1, 3), (2, 3)),
    ("column", (slice(None), 2), (4,)),
    ("scalar", (0, 0), ()),
    ("none", None, (1, 4, 3)),
    ("list", [0, 2], (2, 3)),
    ("repeated", [1, 1], (3,)),
    ("mask", ag.tensor([True, False, True, False]), (2, 3)),
    ("mixed", (slice(1, None), [0, 2]), (3, 2)),
    ("two_lists", ([0, 3], [2, 1]), (2,)),
]


def _index_for(lib, index):
    if isinstance(index, ag.Tensor):
        return lib.tensor(index.numpy())
    return index


@pytest.mark.parametrize("name, index, shape", SETITEM_CASES, ids=[c[0] for c in SETITEM_CASES])
def test_setitem_on_nonleaf_matches_torch(name, index, shape):
    def fn(lib, x, v):
        y = x * 2
        y[_index_for(lib, index)] = v * 3
        return y
    check_op(fn, randn(4, 3), randn(*shape) if shape else np.array(0.5))


@pytest.mark.parametrize("name, index, shape", SETITEM_CASES, ids=[c[0] for c in SETITEM_CASES])
def test_setitem_graph_and_version_match_torch(name, index, shape):
    facts = []
    for lib in LIBS:
        x = lib.ones(4, 3, requires_grad=True)
        v = lib.ones(shape, requires_grad=True)
        y = x * 2
        before = y._version
        y[_index_for(lib, index)] = v
        facts.append((node_name(y.grad_fn),
                      [node_name(f) for f, _ in y.grad_fn.next_functions],
                      y._version - before, y.is_leaf, y._is_view()))
    assert facts[0] == facts[1]


def test_setitem_number_on_nonleaf():
    def fn(lib, x):
        y = x * 2
        y[1:, 0] = 7.0
        y[0] = 1
        return y * x
    check_op(fn, randn(4, 3))


def test_setitem_makes_a_plain_tensor_part_of_the_graph():
    facts = []
    for lib in LIBS:
        w = lib.tensor([1.0, 2.0], requires_grad=True)
        a = lib.zeros(4)
        a[1:3] = w * 2
        b = lib.zeros(4)
        b[[3, 0]] = w * w
        c = lib.zeros(4)
        c[lib.tensor([True, False, True, False])] = 5.0
        (a * lib.arange(4.0) + b).sum().backward()
        facts.append((node_name(a.grad_fn), a.requires_grad, node_name(b.grad_fn),
                      c.grad_fn, c._version, to_numpy(w.grad).tolist()))
    assert facts[0] == facts[1]
    assert facts[0][:3] == ("CopySlices", True, "IndexPutBackward0")


def test_setitem_under_no_grad_is_not_recorded():
    facts = []
    for lib in LIBS:
        y = lib.ones(4, 3, requires_grad=True) * 1
        with lib.no_grad():
            y[0] = 2.0
            y[[1, 2]] = lib.ones(3, requires_grad=True)
        facts.append((node_name(y.grad_fn), y._version, to_numpy(y).tolist()))
    assert facts[0] == facts[1]


# ------------------------------------------------------------------ version counters

def test_version_counter_is_shared_by_base_views_and_detach():
    history = []
    for lib in LIBS:
        versions = []
        x = lib.zeros(4, 3)
        row, col, parts, flat, alias = x[1], x.t()[2], x.unbind(1), x.view(-1), x.detach()
        tracked = (x, row, col, parts[0], flat, alias)

        def record():
            versions.append(tuple(t._version for t in tracked))
        record()
        x[0] = 1.0
        record()
        row.add_(1)
        record()
        col.mul_(2)
        record()
        x[[0, 1]] = 3.0
        record()
        x.masked_fill_(lib.tensor(np.eye(4, 3, dtype=bool)), -1.0)
        record()
        x.index_put_((lib.tensor([2]),), lib.tensor(4.0), accumulate=True)
        record()
        parts[2].zero_()
        record()
        alias.add_(1)
        record()
        x.data.add_(1)          # .data has its own counter
        record()
        history.append((versions, to_numpy(x).tolist()))
    assert history[0] == history[1]


def test_views_see_writes_to_the_base():
    results = []
    for lib in LIBS:
        x = lib.zeros(3, 4)
        views = [x[1], x[:, ::2], x.t(), x.view(12)[5:], x.unflatten(1, (2, 2))[2, 1]]
        x[1, 1] = 5.0
        x[:, 2].add_(1)
        results.append([to_numpy(v).tolist() for v in views])
    assert results[0] == results[1]


@pytest.mark.parametrize("mode", ["no_grad", "inference_mode"])
def test_inplace_on_a_view_of_a_view_made_in_a_no_grad_mode_names_both(mode):
    """A view of such a view has a grad_fn; the message names it ("Output 0 of View is a
    view of a view which was created in ...")."""
    def direct(lib):
        x = lib.zeros(2)
        with getattr(lib, mode)():
            y = x.view(2)
        y.requires_grad_(True)
        z = y.view(2)
        z /= 2
    assert_same_error(direct, RuntimeError, exact=True)

    def indirect(lib):
        a = lib.ones(2, requires_grad=True).clone()
        with lib.no_grad():
            y = a.view(2)
        z = y.view(2)
        a.mul_(2)
        return z.grad_fn
    assert_same_error(indirect, RuntimeError, exact=True)


def test_repr_of_a_view_whose_grad_fn_cannot_be_rebuilt():
    def run(lib):
        a = lib.ones(1, requires_grad=True)
        with lib.no_grad():
            b = a[:]
            b *= 2
        return repr(b).replace("autograd_cy.", "").replace("tensor", "T")
    ours, theirs = run(ag), run(__import__("torch"))
    assert theirs == "T([2.], grad_fn=<Invalid>)"
    # torch writes a CUDA tensor's device as the first suffix
    device = "" if DEVICE_NAME == "cpu" else f"device='{DEVICE_NAME}', "
    assert ours == f"T([2.], {device}grad_fn=<Invalid>)"


def test_a_negative_zero_of_the_view_gradient_survives_copyslices_and_as_strided():
    """Both nodes copy the view's gradient into the base's (a sum into zeros would turn
    -0.0 into 0.0): an in-place multiply by a negative factor on a view, and a view read
    after its base changed."""
    def through_copyslices(lib):
        x = lib.tensor([[0.5, 0.13, -0.8], [-0.04, -0.02, 0.94]], requires_grad=True)
        y = (x * 1).movedim(0, -2)
        y.mul_(lib.tensor([-1.04], dtype=lib.float64))
        (y * 2).max().backward()
        return x.grad

    def through_as_strided(lib):
        x = lib.tensor([0.5, 0.13, -0.8, 0.2], requires_grad=True)
        y = x * 1
        v = y[1:]
        y.mul_(-1.0)
        (v * -0.0).sum().backward()
        return x.grad

    for fn in (through_copyslices, through_as_strided):
        ours, theirs = both(fn)
        np.testing.assert_array_equal(np.signbit(to_numpy(ours)), np.signbit(to_numpy(theirs)))
        np.testing.assert_array_equal(to_numpy(ours), to_numpy(theirs))
