"""Shape ops, views and indexing against PyTorch: values, gradients, double backward,
view semantics (``_is_view``, ``_base``, shared memory and version counter) and errors."""
import re
import warnings

import numpy as np
import pytest
import torch

import autograd_cy as ag
from oracle import LIBS, assert_same, assert_same_error, check_op, randn, to_numpy

DTYPES = [np.float32, np.float64]
MASK = np.array([[True, False, True], [False, False, True], [True, True, False],
                 [False, True, False]])
ROWS = np.array([True, False, True, True])


def squared(result):
    """Square every output, so the gradient of the op's backward gets checked too."""
    if isinstance(result, (tuple, list)):
        return tuple(r * r for r in result)
    return result * result


def set_and_return(index):
    def fn(lib, x, v):
        y = x * 1
        y[index] = v
        return y
    return fn


# (id, fn(lib, *tensors), input arrays): each is checked as is and squared.
CASES = [
    ("reshape", lambda lib, x: x.reshape(3, 4), [randn(4, 3)]),
    ("reshape_fn", lambda lib, x: lib.reshape(x, (-1,)), [randn(2, 3, 4)]),
    ("reshape_copy", lambda lib, x: x.t().reshape(12), [randn(4, 3)]),
    ("view", lambda lib, x: x.view(2, -1, 3), [randn(2, 3, 4)]),
    ("view_as", lambda lib, x, y: x.view_as(y), [randn(4, 3), randn(12)]),
    ("reshape_as", lambda lib, x, y: x.t().reshape_as(y), [randn(4, 3), randn(2, 6)]),
    ("flatten", lambda lib, x: x.flatten(), [randn(2, 3, 4)]),
    ("flatten_range", lambda lib, x: lib.flatten(x, 1, 2), [randn(2, 3, 4)]),
    ("flatten_0d", lambda lib, x: x.flatten(), [np.array(1.5)]),
    ("flatten_strided", lambda lib, x: x.transpose(0, 2).flatten(0, 1), [randn(2, 3, 4)]),
    ("unflatten", lambda lib, x: x.unflatten(2, (2, -1)), [randn(2, 3, 4)]),
    ("unflatten_fn", lambda lib, x: lib.unflatten(x, -2, (3, 1)), [randn(2, 3, 4)]),
    ("squeeze", lambda lib, x: x.squeeze(), [randn(1, 3, 1)]),
    ("squeeze_dim", lambda lib, x: x.squeeze(-1), [randn(1, 3, 1)]),
    ("squeeze_dims", lambda lib, x: lib.squeeze(x, (0, 1)), [randn(1, 3, 1)]),
    ("unsqueeze", lambda lib, x: x.unsqueeze(-1), [randn(4, 3)]),
    ("transpose", lambda lib, x: x.transpose(0, 2), [randn(2, 3, 4)]),
    ("swapaxes", lambda lib, x: lib.swapaxes(x, 0, 1), [randn(2, 3, 4)]),
    ("swapdims", lambda lib, x: x.swapdims(-1, 1), [randn(2, 3, 4)]),
    ("permute", lambda lib, x: x.permute(2, 0, 1), [randn(2, 3, 4)]),
    ("permute_fn", lambda lib, x: lib.permute(x, (1, 2, 0)), [randn(2, 3, 4)]),
    ("t", lambda lib, x: x.t(), [randn(4, 3)]),
    ("t_1d", lambda lib, x: lib.t(x), [randn(5)]),
    ("T", lambda lib, x: x.T, [randn(4, 3)]),
    ("mT", lambda lib, x: x.mT, [randn(2, 3, 4)]),
    ("movedim", lambda lib, x: x.movedim(0, -1), [randn(2, 3, 4)]),
    ("movedim_many", lambda lib, x: lib.movedim(x, (0, 1), (2, 0)), [randn(2, 3, 4)]),
    ("moveaxis", lambda lib, x: lib.moveaxis(x, 2, 0), [randn(2, 3, 4)]),
    ("expand", lambda lib, x: x.expand(2, 4, 3), [randn(4, 1)]),
    ("expand_keep", lambda lib, x: x.expand(3, -1, -1), [randn(4, 1)]),
    ("expand_as", lambda lib, x, y: x.expand_as(y), [randn(3), randn(2, 3)]),
    ("repeat", lambda lib, x: x.repeat(2, 3), [randn(4, 3)]),
    ("repeat_new_dims", lambda lib, x: x.repeat(2, 1, 2), [randn(4, 3)]),
    ("narrow", lambda lib, x: x.narrow(1, 1, 2), [randn(4, 3)]),
    ("narrow_neg", lambda lib, x: lib.narrow(x, 0, -2, 2), [randn(4, 3)]),
    ("select", lambda lib, x: x.select(1, -1), [randn(4, 3)]),
    ("select_fn", lambda lib, x: lib.select(x, 0, 2), [randn(4, 3)]),
    ("split", lambda lib, x: x.split(3), [randn(4, 3)]),
    ("split_dim", lambda lib, x: lib.split(x, 2, dim=1), [randn(4, 3)]),
    ("split_sizes", lambda lib, x: x.split([1, 3]), [randn(4, 3)]),
    ("split_with_sizes", lambda lib, x: lib.split_with_sizes(x, [2, 1], 1), [randn(4, 3)]),
    ("split_one_used", lambda lib, x: x.split(2)[1], [randn(4, 3)]),
    ("chunk", lambda lib, x: x.chunk(3), [randn(4, 3)]),
    ("chunk_dim", lambda lib, x: lib.chunk(x, 2, 1), [randn(4, 3)]),
    ("unbind", lambda lib, x: x.unbind(1), [randn(4, 3)]),
    ("unbind_one_used", lambda lib, x: lib.unbind(x)[2], [randn(4, 3)]),
    ("cat", lambda lib, x, y: lib.cat([x, y]), [randn(4, 3), randn(2, 3)]),
    ("cat_dim", lambda lib, x, y: lib.cat((x, y, x), dim=-1), [randn(2, 3), randn(2, 1)]),
    ("cat_legacy_empty", lambda lib, x, y: lib.cat([x, y]), [randn(2, 3), np.zeros(0)]),
    ("concat", lambda lib, x, y: lib.concat([x, y], 1), [randn(2, 3), randn(2, 2)]),
    ("concatenate", lambda lib, x, y: lib.concatenate([x, y], axis=1),
     [randn(2, 3), randn(2, 2)]),
    ("stack", lambda lib, x, y: lib.stack([x, y]), [randn(4, 3), randn(4, 3, seed=1)]),
    ("stack_dim", lambda lib, x, y: lib.stack((x, y), dim=-1), [randn(4, 3),
                                                                 randn(4, 3, seed=1)]),
    # inputs in another memory order: the result keeps it, with the stacked shape
    ("stack_transposed", lambda lib, x, y: lib.stack([x.t(), y.t()]),
     [randn(4, 3), randn(4, 3, seed=1)]),
    ("cat_transposed", lambda lib, x, y: lib.cat([x.t(), y.t()], 1),
     [randn(4, 3), randn(4, 3, seed=1)]),
    # basic indexing
    ("getitem_int", lambda lib, x: x[1], [randn(4, 3)]),
    ("getitem_neg_int", lambda lib, x: x[-1, -2], [randn(4, 3)]),
    ("getitem_slice", lambda lib, x: x[1:3], [randn(4, 3)]),
    ("getitem_step", lambda lib, x: x[::2, 1::2], [randn(5, 4)]),
    ("getitem_clamped", lambda lib, x: x[-10:10, 2:100], [randn(4, 3)]),
    ("getitem_none", lambda lib, x: x[None, :, None], [randn(4, 3)]),
    ("getitem_ellipsis", lambda lib, x: x[..., 1], [randn(2, 3, 4)]),
    ("getitem_mixed_basic", lambda lib, x: x[1:, None, ..., -1], [randn(2, 3, 4)]),
    ("getitem_all", lambda lib, x: x[...], [randn(4, 3)]),
    # advanced indexing
    ("getitem_mask", lambda lib, x, m: x[m], [randn(4, 3), MASK]),
    ("getitem_row_mask", lambda lib, x, m: x[m], [randn(4, 3), ROWS]),
    ("getitem_mask_mid", lambda lib, x, m: x[:, m[:3]], [randn(2, 3, 4), ROWS]),
    ("getitem_index", lambda lib, x, i: x[i], [randn(4, 3), np.array([0, 2, 2, -1])]),
    ("getitem_list", lambda lib, x: x[[0, 0, 3]], [randn(4, 3)]),
    ("getitem_ndarray_2d", lambda lib, x: x[:, np.array([[0, 1], [2, 2]])], [randn(4, 3)]),
    ("getitem_two_indices", lambda lib, x: x[[0, 1, 1], [2, 2, 0]], [randn(4, 3)]),
    ("getitem_broadcast_indices", lambda lib, x, i, j: x[i, j],
     [randn(4, 3), np.array([[0], [3]]), np.array([1, 1, 2])]),
    ("getitem_split_indices", lambda lib, x: x[[0, 1], :, [1, 1]], [randn(2, 3, 4)]),
    ("getitem_slice_then_index", lambda lib, x: x[1:, [0, 2, 0]], [randn(4, 3)]),
    ("getitem_int_and_index", lambda lib, x: x[1, :, [0, 3]], [randn(2, 3, 4)]),
    ("getitem_true", lambda lib, x: x[True], [randn(4, 3)]),
    ("getitem_false", lambda lib, x: x[False], [randn(4, 3)]),
    ("getitem_ellipsis_index", lambda lib, x: x[..., [0, 0]], [randn(2, 3, 4)]),
    # gather-like ops
    ("index_select", lambda lib, x, i: x.index_select(1, i), [randn(4, 3), np.array([2, 0, 2])]),
    ("index_select_fn", lambda lib, x, i: lib.index_select(x, 0, i), [randn(4, 3),
                                                                       np.array([3, 3])]),
    ("gather", lambda lib, x, i: x.gather(1, i),
     [randn(4, 3), np.array([[0, 0], [1, 2], [2, 2], [0, 1]])]),
    ("gather_dim0", lambda lib, x, i: lib.gather(x, 0, i), [randn(4, 3),
                                                             np.array([[3, 0, 1], [0, 0, 2]])]),
    ("scatter_add", lambda lib, x, i, s: x.scatter_add(1, i, s),
     [randn(4, 3), np.array([[0, 0], [1, 2], [2, 2], [0, 1]]), randn(4, 2)]),
    ("index_add", lambda lib, x, i, s: x.index_add(0, i, s),
     [randn(4, 3), np.array([0, 2, 0]), randn(3, 3)]),
    ("index_add_alpha", lambda lib, x, i, s: x.index_add(1, i, s, alpha=2.0),
     [randn(4, 3), np.array([1, 1]), randn(4, 2)]),
    ("masked_fill", lambda lib, x, m: x.masked_fill(m, 2.5), [randn(4, 3), MASK]),
    ("masked_fill_tensor", lambda lib, x, m, v: x.masked_fill(m, v),
     [randn(4, 3), MASK, np.array(0.7)]),
    ("masked_fill_broadcast", lambda lib, x, m: lib.masked_fill(x, m, -1.0),
     [randn(4, 3), MASK[0]]),
    ("index_put", lambda lib, x, i, v: x.index_put((i,), v),
     [randn(4, 3), np.array([2, 0]), randn(3)]),
    ("index_put_accumulate", lambda lib, x, i, v: x.index_put((i,), v, accumulate=True),
     [randn(4, 3), np.array([2, 0, 2]), randn(3, 3)]),
    ("index_put_mask", lambda lib, x, m, v: x.index_put((m,), v), [randn(4, 3), MASK,
                                                                    np.array(3.0)]),
    # x[index] = value on a non-leaf
    ("setitem_int", set_and_return(1), [randn(4, 3), randn(3)]),
    ("setitem_slice", set_and_return(slice(1, 3)), [randn(4, 3), randn(3)]),
    ("setitem_broadcast", set_and_return((slice(None), 1)), [randn(4, 3), randn(1)]),
    ("setitem_leading_ones", set_and_return(2), [randn(4, 3), randn(1, 3)]),
    ("setitem_scalar_tensor", set_and_return((0, 2)), [randn(4, 3), np.array(2.0)]),
    ("setitem_none", set_and_return(None), [randn(4, 3), randn(3)]),
    ("setitem_index", set_and_return([3, 0]), [randn(4, 3), randn(2, 3)]),
    ("setitem_index_broadcast", set_and_return(([0, 2], [1, 1])), [randn(4, 3), randn(1)]),
    ("setitem_mixed", set_and_return((slice(1, None), [0, 2])), [randn(4, 3), randn(3, 2)]),
]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name, fn, arrays", CASES, ids=[c[0] for c in CASES])
def test_op_matches_torch(name, fn, arrays, dtype):
    check_op(fn, *arrays, dtype=dtype)


@pytest.mark.parametrize("name, fn, arrays", CASES, ids=[c[0] for c in CASES])
def test_op_squared_double_backward(name, fn, arrays):
    check_op(lambda lib, *args: squared(fn(lib, *args)), *arrays)


def test_setitem_value_from_the_base_itself():
    def fn(lib, x):
        y = x * 2
        y[0] = y[1] * 3 + y[2]
        return y
    check_op(fn, randn(4, 3), double=False)


def test_setitem_over_a_saved_view_fails_backward_as_in_torch():
    def run(lib):
        x = lib.ones(4, 3, requires_grad=True)
        y = x * 2
        y[0] = y[1] * y[2]          # MulBackward0 saved y[1] and y[2], which share y's version
        y.sum().backward()
    assert_same_error(run, RuntimeError, "one of the variables needed for gradient computation "
                                         "has been modified by an inplace")


def test_setitem_ellipsis_copies_into_the_tensor_itself():
    # As in PyTorch, y[...] = v is y.copy_(v): no view, no CopySlices.
    names = []
    for lib in LIBS:
        y = lib.ones(4, 3, requires_grad=True) * 1
        y[...] = lib.full((4, 1), 2.0, requires_grad=True)
        names.append((y.grad_fn.name().split("::")[-1], y._version, y._is_view()))
        np.testing.assert_array_equal(to_numpy(y), np.full((4, 3), 2.0))
    assert names[0] == names[1] == ("CopyBackwards", 1, False)


def test_cat_and_stack_promote_dtypes():
    for lib in LIBS:
        a = lib.ones(2, 3, dtype=lib.float32, requires_grad=True)
        b = lib.ones(1, 3, dtype=lib.float64, requires_grad=True)
        out = lib.cat([a, b])
        assert str(out.dtype).split(".")[-1] == "float64"
        (out * 2).sum().backward()
        assert str(a.grad.dtype).split(".")[-1] == "float32"
        np.testing.assert_array_equal(to_numpy(a.grad), np.full((2, 3), 2.0))
    for a, b in [(np.int32, np.float16), (np.bool_, np.int32), (np.int32, np.int64)]:
        ours = ag.stack([ag.tensor(np.zeros(2, dtype=a)), ag.tensor(np.zeros(2, dtype=b))])
        theirs = torch.stack([torch.tensor(np.zeros(2, dtype=a)),
                              torch.tensor(np.zeros(2, dtype=b))])
        assert str(ours.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1]


# ------------------------------------------------------------------ node names and fields

NODE_CASES = [
    (lambda lib, y: y.view(12), "ViewBackward0", {"_saved_self_sym_sizes": (4, 3)}),
    (lambda lib, y: y.t().reshape(12), "UnsafeViewBackward0",
     {"_saved_self_sym_sizes": (3, 4)}),
    (lambda lib, y: y.t().reshape(12).grad_fn.next_functions[0][0], "CloneBackward0", {}),
    (lambda lib, y: y.t(), "TBackward0", {}),
    (lambda lib, y: y.transpose(0, 1), "TransposeBackward0",
     {"_saved_dim0": 0, "_saved_dim1": 1}),
    (lambda lib, y: y.movedim(0, 1), "PermuteBackward0", {"_saved_dims": (1, 0)}),
    (lambda lib, y: y[:1].squeeze(), "SqueezeBackward0", {}),
    (lambda lib, y: y[:1].squeeze(0), "SqueezeBackward1", {"_saved_dim": 0}),
    (lambda lib, y: y[:1].squeeze((0,)), "SqueezeBackward2", {"_saved_dim": (0,)}),
    (lambda lib, y: y.unsqueeze(1), "UnsqueezeBackward0", {"_saved_dim": 1}),
    (lambda lib, y: y[:1].expand(4, 3), "ExpandBackward0", {"_saved_self_sym_sizes": (1, 3)}),
    (lambda lib, y: y.repeat(2, 2), "RepeatBackward0", {"_saved_repeats": (2, 2)}),
    (lambda lib, y: y.narrow(0, 1, 2), "SliceBackward0",
     {"_saved_dim": 0, "_saved_start": 1, "_saved_end": 3, "_saved_step": 1}),
    (lambda lib, y: y[1:3:2], "SliceBackward0", {"_saved_step": 2}),
    (lambda lib, y: y.select(1, 2), "SelectBackward0", {"_saved_dim": 1, "_saved_index": 2}),
    (lambda lib, y: y[1], "SelectBackward0", {"_saved_index": 1}),
    (lambda lib, y: y[None], "UnsqueezeBackward0", {}),
    (lambda lib, y: y[...], "AliasBackward0", {}),
    (lambda lib, y: y[:, :], "AliasBackward0", {}),
    (lambda lib, y: y[:], "SliceBackward0", {}),
    (lambda lib, y: y[[0, 1]], "IndexBackward0", {"_saved_self_sym_sizes": (4, 3)}),
    (lambda lib, y: y.split(3)[0], "SplitBackward0",
     {"_saved_dim": 0, "_saved_split_size": 3}),
    (lambda lib, y: y.chunk(2)[1], "SplitBackward0", {"_saved_split_size": 2}),
    (lambda lib, y: y.split([1, 3])[1], "SplitWithSizesBackward0",
     {"_saved_split_sizes": (1, 3)}),
    (lambda lib, y: y.unbind(1)[0], "UnbindBackward0", {"_saved_dim": 1}),
    (lambda lib, y: lib.cat([y, y]), "CatBackward0", {"_saved_dim": 0}),
    (lambda lib, y: lib.stack([y, y], 1), "StackBackward0", {"_saved_dim": 1}),
    (lambda lib, y: y.index_select(0, lib.tensor([0, 2])), "IndexSelectBackward0",
     {"_saved_dim": 0}),
    (lambda lib, y: y.gather(1, lib.tensor([[0], [1], [2], [0]])), "GatherBackward0",
     {"_saved_dim": 1, "_saved_sparse_grad": False}),
    (lambda lib, y: y.masked_fill(lib.tensor(MASK), 1.0), "MaskedFillBackward0", {}),
    (lambda lib, y: y.masked_fill(lib.tensor(MASK), lib.tensor(1.0)), "MaskedFillBackward1",
     {}),
    (lambda lib, y: y.index_put((lib.tensor([0, 1]),), lib.tensor(1.0), accumulate=True),
     "IndexPutBackward0", {"_saved_accumulate": True}),
    (lambda lib, y: y.index_add(0, lib.tensor([0, 1]), lib.ones(2, 3)), "IndexAddBackward0",
     {"_saved_dim": 0, "_saved_alpha": 1}),
    (lambda lib, y: y.scatter_add(1, lib.tensor([[0], [1], [2], [0]]), lib.ones(4, 1)),
     "ScatterAddBackward0", {"_saved_dim": 1}),
]


@pytest.mark.parametrize("fn, name, saved", NODE_CASES, ids=[c[1] for c in NODE_CASES])
def test_node_names_and_saved_fields(fn, name, saved):
    for lib in LIBS:
        y = lib.tensor(randn(4, 3).astype(np.float32), requires_grad=True) * 1
        result = fn(lib, y)
        grad_fn = result if not isinstance(result, lib.Tensor) else result.grad_fn
        assert grad_fn.name() == name
        for field, value in saved.items():
            assert getattr(grad_fn, field) == value, (lib.__name__, field)


# ------------------------------------------------------------------ view semantics

VIEW_CASES = [
    ("view", lambda lib, b: b.view(3, 4)),
    ("reshape_view", lambda lib, b: b.reshape(-1)),
    ("reshape_copy", lambda lib, b: b.t().reshape(-1)),
    ("view_as", lambda lib, b: b.view_as(lib.zeros(2, 6))),
    ("flatten", lambda lib, b: b.flatten()),
    ("flatten_copy", lambda lib, b: b.t().flatten()),
    ("flatten_same", lambda lib, b: b.flatten(1, 1)),
    ("unflatten", lambda lib, b: b.unflatten(0, (2, 2))),
    ("transpose", lambda lib, b: b.transpose(0, 1)),
    ("t", lambda lib, b: b.t()),
    ("T", lambda lib, b: b.T),
    ("permute", lambda lib, b: b.permute(1, 0)),
    ("movedim", lambda lib, b: b.movedim(1, 0)),
    ("squeeze", lambda lib, b: b[:1].squeeze(0)),
    ("unsqueeze", lambda lib, b: b.unsqueeze(0)),
    ("expand", lambda lib, b: b[:1].expand(5, 3)),
    ("narrow", lambda lib, b: b.narrow(1, 1, 2)),
    ("select", lambda lib, b: b.select(0, 2)),
    ("getitem_int", lambda lib, b: b[2]),
    ("getitem_scalar", lambda lib, b: b[2, 1]),
    ("getitem_slice", lambda lib, b: b[1:, ::2]),
    ("getitem_none", lambda lib, b: b[None, 1]),
    ("getitem_ellipsis", lambda lib, b: b[...]),
    ("getitem_index", lambda lib, b: b[[0, 1]]),
    ("getitem_mask", lambda lib, b: b[lib.tensor(ROWS)]),
    ("repeat", lambda lib, b: b.repeat(1, 1)),
    ("cat", lambda lib, b: lib.cat([b])),
    ("stack", lambda lib, b: lib.stack([b])),
    ("index_select", lambda lib, b: b.index_select(0, lib.tensor([0, 1]))),
    ("split", lambda lib, b: b.split(3)),
    ("split_sizes", lambda lib, b: b.split([1, 3])),
    ("chunk", lambda lib, b: b.chunk(2, 1)),
    ("unbind", lambda lib, b: b.unbind(1)),
]


def _outputs(result):
    return result if isinstance(result, tuple) else (result,)


def _view_facts(lib, fn, requires_grad):
    base = lib.tensor(np.arange(12.0).reshape(4, 3), requires_grad=requires_grad)
    if requires_grad:
        base = base * 1
    outs = _outputs(fn(lib, base))
    facts = [(out._is_view(), out._base is base, tuple(out.shape)) for out in outs]
    shares = []
    for out in outs:
        if lib is torch:
            shares.append(out.untyped_storage().data_ptr() == base.untyped_storage().data_ptr())
        else:
            # base owns its memory: a view's first element lies inside it, a copy's does not
            start = base.data_ptr()
            end = start + base.numel() * base.element_size()
            shares.append(out.numel() > 0 and start <= out.data_ptr() < end)
    names = [out.grad_fn.name() if out.grad_fn is not None else None for out in outs]
    with lib.no_grad():
        base.add_(1)
    versions = [(out._version, base._version) for out in outs]
    values = [to_numpy(out).copy() for out in outs]
    return facts, shares, versions, values, names


@pytest.mark.parametrize("requires_grad", [False, True])
@pytest.mark.parametrize("name, fn", VIEW_CASES, ids=[c[0] for c in VIEW_CASES])
def test_view_semantics_match_torch(name, fn, requires_grad):
    ours = _view_facts(ag, fn, requires_grad)
    theirs = _view_facts(torch, fn, requires_grad)
    facts, shares, versions, values, names = ours
    assert facts == theirs[0]
    assert shares == theirs[1]
    assert versions == theirs[2]
    for a, b in zip(values, theirs[3]):
        np.testing.assert_array_equal(a, b)
    assert names == theirs[4]


def test_flatten_of_1d_returns_self():
    for lib in LIBS:
        x = lib.ones(3, requires_grad=True)
        y = lib.ones(2, 3) * 1
        assert x.flatten() is x
        assert y.flatten(1, -1) is y


def test_views_of_views_keep_the_root_base():
    results = []
    for lib in LIBS:
        x = lib.ones(4, 3, 2)
        v = x[1:].transpose(0, 1)[0].unsqueeze(0)
        assert v._base is x
        with lib.no_grad():
            v.mul_(5)
        results.append((to_numpy(x).copy(), x._version, v._version))
    np.testing.assert_array_equal(results[0][0], results[1][0])
    assert results[0][1:] == results[1][1:] == (1, 1)


def test_setitem_writes_through_views_and_bumps_shared_version():
    results = []
    for lib in LIBS:
        x = lib.zeros(4, 3)
        v = x[1]
        x[1, 2] = 7.0
        x[[0, 3]] = 1.0
        w = x.t()
        w[0] = -1.0
        results.append((to_numpy(x).copy(), x._version, v._version, w._version))
    np.testing.assert_array_equal(results[0][0], results[1][0])
    assert results[0][1:] == results[1][1:]


# ------------------------------------------------------------------ errors

ERROR_CASES = [
    (lambda lib: lib.zeros(4, 3).view(5), RuntimeError,
     "shape '[5]' is invalid for input of size 12"),
    (lambda lib: lib.zeros(4, 3).view(-1, -1), RuntimeError,
     "only one dimension can be inferred"),
    (lambda lib: lib.zeros(4, 3).view(-2, 6), RuntimeError,
     "invalid shape dimension -2 at index 0 of shape [-2, 6]"),
    (lambda lib: lib.zeros(4, 3).t().view(12), RuntimeError,
     "view size is not compatible with input tensor's size and stride"),
    (lambda lib: lib.zeros(2, 2, 2).t(), RuntimeError,
     "t() expects a tensor with <= 2 dimensions, but self is 3D"),
    (lambda lib: lib.zeros(2, 3).flatten(1, 0), RuntimeError,
     "flatten() has invalid args: start_dim cannot come after end_dim"),
    (lambda lib: lib.zeros(4, 3).unflatten(0, (3, 2)), RuntimeError,
     "unflatten: Provided sizes [3, 2] don't multiply up to the size of dim 0 (4) in the "
     "input tensor"),
    (lambda lib: lib.zeros(4, 3).unflatten(0, ()), RuntimeError,
     "unflatten: sizes must be non-empty"),
    (lambda lib: lib.zeros(4, 3).transpose(0, 2), IndexError,
     "Dimension out of range (expected to be in range of [-2, 1], but got 2)"),
    (lambda lib: lib.zeros(4, 3).permute(0, 0), RuntimeError,
     "permute(): duplicate dims are not allowed."),
    (lambda lib: lib.zeros(4, 3).permute(0), RuntimeError,
     "number of dimensions in the tensor input does not match the length of the desired "
     "ordering of dimensions i.e. input.dim() = 2 is not equal to len(dims) = 1"),
    (lambda lib: lib.zeros(4, 3).movedim((0, 1), (1,)), RuntimeError,
     "movedim: Invalid source or destination dims: source ([0, 1] dims) should contain the "
     "same number of dims as destination ([1] dims)"),
    (lambda lib: lib.zeros(4, 3).movedim((0, 0), (1, 0)), RuntimeError,
     "movedim: repeated dim in `source` ([0, 0])"),
    (lambda lib: lib.zeros(4, 3).expand(2, 3), RuntimeError,
     "The expanded size of the tensor (2) must match the existing size (4) at non-singleton "
     "dimension 0.  Target sizes: [2, 3].  Tensor sizes: [4, 3]"),
    (lambda lib: lib.zeros(4, 3).expand(3), RuntimeError,
     "the number of sizes provided (1) must be greater or equal to the number of dimensions "
     "in the tensor (2)"),
    (lambda lib: lib.zeros(4, 3).expand(-1, 4, 3), RuntimeError,
     "The expanded size of the tensor (-1) isn't allowed in a leading, non-existing "
     "dimension 0"),
    (lambda lib: lib.zeros(4, 3).repeat(2), RuntimeError,
     "Number of dimensions of repeat dims can not be smaller than number of dimensions of "
     "tensor"),
    (lambda lib: lib.zeros(4, 3).narrow(0, 3, 2), RuntimeError,
     "start (3) + length (2) exceeds dimension size (4)."),
    (lambda lib: lib.zeros(4, 3).narrow(0, 5, 0), IndexError,
     "start out of range (expected to be in range of [-4, 4], but got 5)"),
    (lambda lib: lib.zeros(4, 3).narrow(0, 0, -1), RuntimeError,
     "narrow(): length must be non-negative."),
    (lambda lib: lib.zeros(4, 3).select(0, 4), IndexError,
     "select(): index 4 out of range for tensor of size [4, 3] at dimension 0"),
    (lambda lib: lib.zeros(4, 3).split([1, 2]), RuntimeError,
     "split_with_sizes expects split_sizes to sum exactly to 4 (input tensor's size at "
     "dimension 0), but got split_sizes=[1, 2]"),
    (lambda lib: lib.zeros(4, 3).split(-1), RuntimeError,
     "split expects split_size be non-negative, but got split_size=-1"),
    (lambda lib: lib.zeros(4, 3).split(0), RuntimeError,
     "split_size can only be 0 if dimension size is 0, but got dimension size of 4"),
    (lambda lib: lib.zeros(4, 3).chunk(0), RuntimeError,
     "chunk expects `chunks` to be greater than 0, got: 0"),
    (lambda lib: lib.tensor(1.0).chunk(1), RuntimeError,
     "chunk expects at least a 1-dimensional tensor"),
    (lambda lib: lib.tensor(1.0).unbind(0), IndexError,
     "Dimension specified as 0 but tensor has no dimensions"),
    (lambda lib: lib.cat([lib.zeros(4, 3), lib.zeros(4, 2)]), RuntimeError,
     "Sizes of tensors must match except in dimension 0. Expected size 3 but got size 2 for "
     "tensor number 1 in the list."),
    (lambda lib: lib.cat([lib.zeros(4, 3), lib.zeros(4)]), RuntimeError,
     "Tensors must have same number of dimensions: got 2 and 1"),
    (lambda lib: lib.cat([lib.tensor(1.0), lib.tensor(2.0)]), RuntimeError,
     "zero-dimensional tensor (at position 0) cannot be concatenated"),
    (lambda lib: lib.cat([]), ValueError, "expected a non-empty list of Tensors"),
    (lambda lib: lib.cat([lib.zeros(2), 1]), TypeError,
     "expected Tensor as element 1 in argument 0, but got int"),
    (lambda lib: lib.cat([lib.zeros(2, 2)], 2), IndexError, "Dimension out of range"),
    (lambda lib: lib.stack([lib.zeros(4, 3), lib.zeros(2, 3)]), RuntimeError,
     "stack expects each tensor to be equal size, but got [4, 3] at entry 0 and [2, 3] at "
     "entry 1"),
    (lambda lib: lib.stack([]), RuntimeError, "stack expects a non-empty TensorList"),
    # a tensor is not a list of tensors (it is not iterated)
    (lambda lib: lib.cat(lib.zeros(2, 2)), TypeError,
     "cat(): argument 'tensors' (position 1) must be tuple of Tensors, not Tensor"),
    (lambda lib: lib.concatenate(lib.zeros(2, 2)), TypeError,
     "concatenate(): argument 'tensors' (position 1) must be tuple of Tensors, not Tensor"),
    (lambda lib: lib.stack(lib.zeros(2, 2)), TypeError,
     "stack(): argument 'tensors' (position 1) must be tuple of Tensors, not Tensor"),
    # indexing
    (lambda lib: lib.zeros(4, 3)[4], IndexError,
     "index 4 is out of bounds for dimension 0 with size 4"),
    (lambda lib: lib.zeros(4, 3)[:, -4], IndexError,
     "index -4 is out of bounds for dimension 1 with size 3"),
    (lambda lib: lib.zeros(4, 3)[1, 1, 1], IndexError,
     "too many indices for tensor of dimension 2"),
    (lambda lib: lib.tensor(1.0)[0], IndexError, "invalid index of a 0-dim tensor. Use "
     "`tensor.item()` in Python or `tensor.item<T>()` in C++ to convert a 0-dim tensor to a "
     "number"),
    (lambda lib: lib.tensor(1.0)[0:1], IndexError, "slice() cannot be applied to a 0-dim tensor."),
    (lambda lib: lib.zeros(4, 3)[::-1], ValueError, "step must be greater than zero"),
    (lambda lib: lib.zeros(4, 3)[::0], ValueError, "slice step cannot be zero"),
    (lambda lib: lib.zeros(4, 3)[1.0], IndexError,
     "only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables are "
     "valid indices (got float)"),
    (lambda lib: lib.zeros(4, 3)[lib.tensor([0.0])], IndexError,
     "tensors used as indices must be long, int, byte or bool tensors"),
    (lambda lib: lib.zeros(4, 3)[lib.tensor([0, 4])], IndexError,
     "index 4 is out of bounds for dimension 0 with size 4"),
    (lambda lib: lib.zeros(4, 3)[[0], [0, 3]], IndexError,
     "index 3 is out of bounds for dimension 1 with size 3"),
    (lambda lib: lib.zeros(4, 3)[:, [0, 3]], IndexError,
     "index 3 is out of bounds for dimension 0 with size 3"),
    (lambda lib: lib.zeros(4, 3)[[0, 1], [0, 1, 2]], IndexError,
     "shape mismatch: indexing tensors could not be broadcast together with shapes [2], [3]"),
    (lambda lib: lib.zeros(4, 3)[lib.tensor([True, False, True])], IndexError,
     "The shape of the mask [3] at index 0 does not match the shape of the indexed tensor "
     "[4, 3] at index 0"),
    (lambda lib: lib.zeros(4, 3).__setitem__(slice(1, 3), lib.ones(2)), RuntimeError,
     "The expanded size of the tensor (3) must match the existing size (2) at non-singleton "
     "dimension 1.  Target sizes: [2, 3].  Tensor sizes: [2]"),
    (lambda lib: lib.zeros(4, 3).__setitem__([0, 1], lib.ones(2)), RuntimeError,
     "shape mismatch: value tensor of shape [2] cannot be broadcast to indexing result of "
     "shape [2, 3]"),
    (lambda lib: lib.zeros(4, 3).__setitem__([0, 1], lib.ones(3, dtype=lib.float64)),
     RuntimeError, "Index put requires the source and destination dtypes match, got Float for "
     "the destination and Double for the source."),
    (lambda lib: lib.zeros(4, 3).__setitem__(lib.tensor([0.5]), 1.0), IndexError,
     "tensors used as indices must be long, int, byte or bool tensors"),
    (lambda lib: lib.zeros(4, 3).__setitem__(0, [1.0, 2.0, 3.0]), TypeError,
     "can't assign a list to a "),
    (lambda lib: lib.zeros(4, 3).__setitem__(0, np.ones(3)), TypeError,
     "can't assign a numpy.ndarray to a "),
    (lambda lib: lib.zeros(4, 3).index_select(0, lib.tensor([[0]])), IndexError,
     "index_select(): Index is supposed to be a vector"),
    (lambda lib: lib.zeros(4, 3).index_select(0, lib.tensor([0.0])), RuntimeError,
     "index_select(): Expected dtype int32 or int64 for index"),
    (lambda lib: lib.zeros(4, 3).index_select(0, lib.tensor([4])), IndexError,
     "index out of range in self"),
    (lambda lib: lib.zeros(4, 3).gather(0, lib.tensor([0])), RuntimeError,
     "Index tensor must have the same number of dimensions as input tensor"),
    (lambda lib: lib.zeros(4, 3).gather(1, lib.tensor([[0, 5]])), RuntimeError,
     "index 5 is out of bounds for dimension 1 with size 3"),
    (lambda lib: lib.zeros(4, 3).gather(0, lib.tensor([[0, 1, 2, 0]])), RuntimeError,
     "Size does not match at dimension 1 expected index [1, 4] to be no larger than self "
     "[4, 3] apart from dimension 0"),
    (lambda lib: lib.zeros(4, 3).gather(0, lib.tensor([[0.0]])), RuntimeError,
     "gather(): Expected dtype int32/int64 for index"),
    (lambda lib: lib.zeros(4, 3).scatter_add(0, lib.tensor([[0.0]]), lib.ones(2, 2)),
     RuntimeError, "scatter(): Expected dtype int32/int64 for index"),
    (lambda lib: lib.zeros(4, 3).scatter_add(0, lib.tensor([[]]), lib.ones(2, 2).double()),
     RuntimeError, "scatter(): Expected self.dtype to be equal to src.dtype"),
    (lambda lib: lib.zeros(4, 3).index_add(0, lib.tensor([0.0]), lib.ones(1, 3)),
     RuntimeError, "index_add_(): Expected dtype int32/int64 for index but got: Float"),
    (lambda lib: lib.zeros(4, 3).scatter_add(0, lib.tensor([[0, 0, 0, 0]]), lib.ones(2, 2)),
     RuntimeError, "Expected index [1, 4] to be no larger than self [4, 3] apart from "
     "dimension 0 and to be no larger size than src [2, 2]"),
    (lambda lib: lib.zeros(4, 3).index_add(0, lib.tensor([0, 1]), lib.ones(3, 3)),
     RuntimeError, "index_add_(): Number of indices (2) should be equal to source.size(dim): "
     "(3), for dim: 0"),
    (lambda lib: lib.zeros(4, 3).masked_fill(lib.ones(4, 3), 1.0), RuntimeError,
     "masked_fill_ only supports boolean masks, but got mask with dtype float"),
    (lambda lib: lib.zeros(4, 3).masked_fill(lib.tensor(MASK), lib.ones(2)), RuntimeError,
     "masked_fill_ only supports a 0-dimensional value tensor, but got tensor with 1 "
     "dimension(s)."),
    (lambda lib: lib.zeros(4, 3).masked_fill(lib.tensor([True, False]), 1.0), RuntimeError,
     "The size of tensor a (2) must match the size of tensor b (3) at non-singleton "
     "dimension 1"),
    (lambda lib: lib.zeros(4, 3).masked_fill_(lib.ones(2, 4, 3, dtype=lib.bool), 1.0),
     RuntimeError, "output with shape [4, 3] doesn't match the broadcast shape [2, 4, 3]"),
]


# An empty index is not checked (NOTE [An empty index]): float32 (torch.tensor([[]])), of
# another rank, or larger than self.
EMPTY_INDEX_CASES = {
    "gather_float_index_of_empty_self": lambda lib, x: lib.gather(
        lib.zeros(1, 0, 2) + x.sum(), 0, lib.tensor([[]])),
    "gather_float_index": lambda lib, x: lib.gather(x, 0, lib.tensor([[]])),
    "gather_other_rank": lambda lib, x: lib.gather(x, 1, lib.zeros(0)),
    "gather_larger": lambda lib, x: x.gather(0, lib.zeros(0, 5, dtype=lib.int64)),
    "scatter_add_float_index": lambda lib, x: x.scatter_add(0, lib.zeros(0, 3),
                                                            lib.ones(2, 3, dtype=x.dtype)),
    "scatter_add_larger": lambda lib, x: x.scatter_add(0, lib.zeros(0, 7),
                                                       lib.ones(1, 3, dtype=x.dtype)),
}


@pytest.mark.parametrize("name", EMPTY_INDEX_CASES)
def test_empty_index_is_not_checked(name):
    check_op(EMPTY_INDEX_CASES[name], randn(2, 3), double=False)


@pytest.mark.parametrize("fn, error, message", ERROR_CASES,
                         ids=[f"error{i}" for i in range(len(ERROR_CASES))])
def test_errors_match_torch(fn, error, message):
    assert_same_error(fn, error, re.escape(message))


def test_expand_error_names_the_tensor_type():
    with pytest.raises(RuntimeError, match=re.escape("expand(autograd_cy.FloatTensor{[4, 3]}, "
                                                     "size=[3])")):
        ag.zeros(4, 3).expand(3)


def test_list_of_sequences_is_a_tuple_index_with_warning():
    values = []
    for lib in LIBS:
        x = lib.tensor(np.arange(12.0).reshape(4, 3))
        with pytest.warns(UserWarning, match="Using a non-tuple sequence for multidimensional "
                                             "indexing is deprecated"):
            values.append(to_numpy(x[[[0, 1], [1, 2]]]))
    np.testing.assert_array_equal(values[0], values[1])


def test_mT_of_0d_is_the_tensor_itself_and_of_1d_an_error_as_in_torch():
    for lib in LIBS:
        x = lib.tensor(1.0, requires_grad=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            assert x.mT is x
    x = ag.tensor(1.0)
    with warnings.catch_warnings():      # torch warns once per process, so only ours is checked
        warnings.simplefilter("always")
        with pytest.warns(UserWarning, match="mT is deprecated on 0-D tensors"):
            x.mT
    assert_same_error(lambda lib: lib.ones(3).mT, RuntimeError,
                      "only supported on matrices or batches of matrices. Got 1-D tensor")


@pytest.mark.parametrize("source,destination", [(0, 0), (-1, 0), (0, -1)])
def test_movedim_of_a_0d_tensor_is_an_alias(source, destination):
    results = {}
    for lib in LIBS:
        x = lib.tensor(2.0, requires_grad=True)
        y = x.movedim(source, destination)
        y.backward()
        results[lib.__name__] = (y.item(), type(y.grad_fn).__name__, x.grad.item())
    assert results["torch"] == results["autograd_cy"]
    assert_same_error(lambda lib: lib.tensor(2.0).movedim(1, 0), IndexError,
                      "Dimension out of range")


def test_cat_and_stack_results_are_contiguous_as_in_torch():
    """NumPy keeps its inputs' memory order; PyTorch's cat and stack return contiguous
    results unless every input is channels-last."""
    def run(lib):
        a, b = lib.ones(4, 2).t(), lib.ones(3, 2).t()
        channels_last = lib.ones(2, 3, 4, 5).permute(0, 2, 3, 1).contiguous().permute(0, 3, 1, 2)
        return (lib.cat([a, b], 1).is_contiguous(), lib.stack([a, a]).is_contiguous(),
                lib.stack([a, a], 2).is_contiguous(), lib.cat([channels_last] * 2).stride(),
                lib.cat([channels_last, lib.ones(2, 3, 4, 5)]).stride(),
                tuple(lib.ones(4, 2).t().softmax(-2).view(-1, 2).shape))
    assert run(ag) == run(torch)


def test_cat_gives_a_skipped_legacy_empty_input_an_empty_gradient():
    """torch's CatBackward0 returns zeros of shape (0,) for a 1-d empty input it skipped."""
    grads = []
    for lib in LIBS:
        empty = lib.tensor([], dtype=lib.float64, requires_grad=True)
        x = lib.ones(2, 3, dtype=lib.float64, requires_grad=True)
        (lib.cat([x, empty]) * 2).sum().backward()
        grads.append(empty.grad)
    ours, theirs = grads
    assert theirs is not None and ours is not None
    assert tuple(ours.shape) == tuple(theirs.shape) == (0,)
    assert str(ours.dtype).split(".")[-1] == "float64"


def test_repeat_and_half_precision_products_are_contiguous_as_in_torch():
    for lib in LIBS:
        x = lib.tensor([[2.125, -2.0, 0.0], [0.125, 0.625, 0.0]]).swapaxes(-1, -2)
        assert x.repeat(1, 1).is_contiguous()
        for dtype in (lib.bfloat16, lib.float16):
            a = lib.tensor([[[-1.5]], [[-1.625]], [[1.5]]], dtype=dtype).expand(2, 3, 3, 2)
            assert (a @ lib.tensor([[-1.25], [3.0]], dtype=dtype)).is_contiguous()


@pytest.mark.parametrize("squeeze", [
    lambda x: x.squeeze(), lambda x: x.squeeze(1), lambda x: x.squeeze(2),
    lambda x: x.squeeze((0, 1)), lambda x: x.squeeze(())], ids=["all", "dim", "dim_not_one",
                                                              "dims", "no_dims"])
def test_squeeze_backward_unsqueezes_as_torch(squeeze):
    """torch's unsqueeze_to: one UnsqueezeBackward0 per squeezed dim under create_graph, and
    the gradient itself when nothing was squeezed (fuzzer seed 87306483: autograd.grad then
    returns the grad_outputs tensor, a leaf)."""
    def fn(T):
        x = T.tensor([[[0.375, -1.125]]], dtype=T.float64, requires_grad=True)
        y = squeeze(x)
        given = T.ones_like(y, requires_grad=True)
        grad, = T.autograd.grad(y, x, given, create_graph=True)
        names, node = [], grad.grad_fn
        while node is not None:
            names.append(type(node).__name__)
            node = node.next_functions[0][0] if node.next_functions else None
        return grad is given, grad.is_leaf, names, list(grad.shape)
    assert_same(fn)


def test_advanced_indexing_results_are_contiguous():
    """torch allocates the result of an index with tensors contiguous, where NumPy lays
    ``[..., i, j]`` out in its own order: contiguous() of an unsqueeze of it is then an alias
    in both, so an in-place write through it reaches what min() saved (fuzz seed
    991500154)."""
    def layouts(lib):
        x = lib.zeros(4, 4, 3)
        i, j = lib.tensor([0, 1, 1, 2]), lib.tensor([0, 0, 1, 0])
        return [x[..., i, j].stride(), x[:, i].stride(), x[i, :, j].stride(),
                x[..., i].stride()]

    def saved_then_written(lib):
        v = lib.zeros(4, 4, 3, requires_grad=True) * 1
        picked = v[..., lib.tensor([0, 1, 1, 2]), lib.tensor([0, 0, 1, 0])]
        alias = picked.unsqueeze(-2).contiguous()
        smallest = picked.min()
        alias.clamp_(max=1.375)
        (alias + smallest).sum().backward()
    assert_same(layouts)
    assert_same_error(saved_then_written, RuntimeError, "modified by an inplace operation")
