"""vmap against torch.vmap: values, shapes, nesting, pytrees, in-place ops, autograd through
and inside vmap, randomness, the per-element fallback, and the errors in torch's words."""
import warnings

import numpy as np
import pytest
import torch

import autograd_cy as ag
from autograd_cy._C import batching
from autograd_cy.func.batching_rules import RULES
from tests.oracle import assert_close, assert_same_error, randn


def lib_tensor(lib, array, requires_grad=False):
    return lib.tensor(np.array(array), requires_grad=requires_grad)


def compare(fn, *arrays, rtol=1e-6, atol=1e-7, grad=False):
    """``fn(lib, *tensors)`` on both libraries: values, shapes, dtypes; with ``grad``, the
    gradients of every input through a random linear function of the output."""
    results = []
    for lib in (ag, torch):
        tensors = [lib_tensor(lib, a, requires_grad=grad) for a in arrays]
        out = fn(lib, *tensors)
        grads = None
        if grad and out.requires_grad:
            weight = lib_tensor(lib, randn(*tuple(out.shape), seed=7))
            grads = lib.autograd.grad((out * weight).sum(), tensors, allow_unused=True)
        results.append((out, grads))
    (ours, our_grads), (theirs, their_grads) = results
    assert tuple(ours.shape) == tuple(theirs.shape)
    assert str(ours.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1]
    assert_close(ours, theirs, rtol=rtol, atol=atol)
    assert ours.requires_grad == theirs.requires_grad
    if grad and theirs.requires_grad:
        for g, tg in zip(our_grads, their_grads):
            assert (g is None) == (tg is None)
            if tg is not None:
                assert_close(g, tg, rtol=rtol, atol=atol, what="gradient")


X = randn(4, 3, seed=1)
Y = randn(4, 3, seed=2)
SQUARE = randn(4, 3, 3, seed=3)

# One example's function, its inputs (batched along dim 0): every op family with a rule.
CASES = {
    "sin": (lambda lib, t: t.sin(), [X]),
    "exp_add_mul": (lambda lib, t, u: (t * 2 + u).exp() - u / 3, [X, Y]),
    "pow_rpow": (lambda lib, t: t ** 2 + 2 ** t, [X]),
    "where_clamp": (lambda lib, t, u: lib.where(t > u, t, u.clamp(min=0)), [X, Y]),
    "maximum": (lambda lib, t, u: lib.maximum(t, u), [X, Y]),
    "sum_all": (lambda lib, t: t.sum(), [X]),
    "sum_dim": (lambda lib, t: t.sum(0, keepdim=True), [SQUARE]),
    "mean_neg_dim": (lambda lib, t: t.mean(-1), [SQUARE]),
    "amax": (lambda lib, t: t.amax(1), [SQUARE]),
    "max_all": (lambda lib, t: t.max(), [X]),
    "max_dim": (lambda lib, t: t.max(1).values, [SQUARE]),
    "argmax": (lambda lib, t: t.argmax(), [SQUARE]),
    "argmin_dim": (lambda lib, t: t.argmin(0), [SQUARE]),
    "var_std": (lambda lib, t: t.var() + t.std(0).sum(), [SQUARE]),
    "norm": (lambda lib, t: t.norm(), [X]),
    "logsumexp": (lambda lib, t: t.logsumexp(0), [SQUARE]),
    "prod": (lambda lib, t: t.prod(), [X]),
    "softmax": (lambda lib, t: t.softmax(-1) + t.log_softmax(0), [SQUARE]),
    "transpose_t": (lambda lib, t: t.transpose(0, 1) + t.t() * 2 + t.T + t.mT, [SQUARE]),
    "permute": (lambda lib, t: t.permute(1, 0), [SQUARE]),
    "unsqueeze_squeeze": (lambda lib, t: t.unsqueeze(0).unsqueeze(-1).squeeze(), [X]),
    "view_reshape": (lambda lib, t: t.reshape(-1).view(3, 3).reshape(9), [SQUARE]),
    "expand": (lambda lib, t: t.unsqueeze(0).expand(2, 3), [X]),
    "repeat": (lambda lib, t: t.repeat(2, 1), [X]),
    "flatten": (lambda lib, t: t.flatten(), [SQUARE]),
    "select_narrow": (lambda lib, t: t.select(0, 1) + t.narrow(1, 1, 1).squeeze(1), [SQUARE]),
    "split_unbind": (lambda lib, t: t.split(2)[0].sum() + t.unbind(0)[2], [X]),
    "chunk": (lambda lib, t: t.chunk(3, 1)[1], [SQUARE]),
    "cat_stack": (lambda lib, t, u: lib.cat([t, u]) + lib.stack([t, u], 1).sum(1).repeat(2),
                  [X, Y]),
    "getitem": (lambda lib, t: t[1:, 0] + t[..., -1][:2] + t[None, 1, 1:], [SQUARE]),
    "getitem_index": (lambda lib, t: t[lib.tensor([2, 0])], [SQUARE]),
    "diagonal_trace": (lambda lib, t: t.diagonal() + t.trace(), [SQUARE]),
    "gather": (lambda lib, t: t.gather(1, lib.tensor([[0, 0, 1], [2, 1, 0], [1, 1, 1]])),
               [SQUARE]),
    "index_select": (lambda lib, t: t.index_select(1, lib.tensor([2, 0])), [SQUARE]),
    "matmul_vv": (lambda lib, t, u: t @ u, [X, Y]),
    "matmul_mv": (lambda lib, t, u: t @ u + u @ t, [SQUARE, X]),
    "matmul_mm": (lambda lib, t: t @ t.mT, [SQUARE]),
    "matmul_broadcast": (lambda lib, t, u: t @ (u.unsqueeze(-1) * u).unsqueeze(0).expand(
        2, 3, 3), [SQUARE, X]),
    "mm_mv_dot": (lambda lib, t, u: lib.mm(t, t) @ u + lib.mv(t, u) + lib.dot(u, u),
                  [SQUARE, X]),
    "linear": (lambda lib, t, w: lib.nn.functional.linear(t, w, w[0]), [X, SQUARE]),
    "relu_gelu": (lambda lib, t: lib.nn.functional.relu(t) + lib.nn.functional.gelu(t), [X]),
    "mse": (lambda lib, t, u: lib.nn.functional.mse_loss(t, u), [X, Y]),
    "cross_entropy": (lambda lib, t: lib.nn.functional.cross_entropy(
        t, lib.tensor([0, 2, 1])), [SQUARE]),
    "cross_entropy_one": (lambda lib, t: lib.nn.functional.cross_entropy(
        t[0], lib.tensor(1)), [SQUARE]),
    "nll_none": (lambda lib, t: lib.nn.functional.nll_loss(
        t, lib.tensor([0, 2, 1]), reduction="none"), [SQUARE]),
    "bce_logits": (lambda lib, t, u: lib.nn.functional.binary_cross_entropy_with_logits(
        t, u.sigmoid()), [X, Y]),
    "to_dtype": (lambda lib, t: t.float().double() + t.to(lib.float32), [X]),
    "index_add": (lambda lib, t: lib.index_add(t, 0, lib.tensor([0, 2]), t[:2] * 2),
                  [SQUARE]),
    "scatter_add": (lambda lib, t: lib.scatter_add(t, 0, lib.tensor([[0, 1, 0]]), t[:1]),
                    [SQUARE]),
    "sum_to_size": (lambda lib, t: t.sum_to_size(1, 3) + t.sum_to_size(3, 1).T, [SQUARE]),
    "transpose_": (lambda lib, t: t.clone().transpose_(0, 1) * 2, [SQUARE]),
    "vdot": (lambda lib, t, u: lib.vdot(t, u), [X, Y]),
    "pad_constant": (lambda lib, t: lib.nn.functional.pad(t, [1, 2], value=0.5), [SQUARE]),
    # the other modes take (C, L) or (N, C, L): the batch folds into N (stft pads so)
    "pad_reflect": (lambda lib, t: lib.nn.functional.pad(t, [2, 1], "reflect"), [SQUARE]),
    "pad_modes_with_n": (lambda lib, t: lib.nn.functional.pad(t[None], [1, 1], "replicate")
                         + lib.nn.functional.pad(t[None], (2, 0), mode="circular"), [SQUARE]),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_vmap_values_and_gradients(name):
    fn, arrays = CASES[name]
    compare(lambda lib, *ts: lib.vmap(lambda *xs: fn(lib, *xs))(*ts), *arrays, grad=True)


@pytest.mark.parametrize("name", ["sin", "sum_dim", "transpose_t", "matmul_mm", "softmax"])
def test_vmap_over_another_dim_and_out_dims(name):
    fn, arrays = CASES[name]
    moved = [np.moveaxis(a, 0, -1).copy() for a in arrays]
    compare(lambda lib, *ts: lib.vmap(lambda *xs: fn(lib, *xs), in_dims=-1, out_dims=1)(*ts),
            *moved, grad=True)


def test_nested_vmap_and_unbatched_arguments():
    def f(lib, t, u, w):
        inner = lib.vmap(lambda row, col: (row * col).sum() + w.sum(), in_dims=(0, None))
        return lib.vmap(inner, in_dims=(0, 1))(t, u)
    compare(f, SQUARE, randn(3, 4, seed=5), randn(3, seed=6), grad=True)


def test_pytrees_in_and_out():
    def f(lib, t, u):
        def g(pair, scale):
            return {"sum": pair[0] + pair[1] * scale["s"], "list": [pair[0].sin()]}
        out = lib.vmap(g, in_dims=((0, 1), {"s": None}))((t, u.T), {"s": u[0, 0]})
        return out["sum"] + out["list"][0]
    compare(f, X, Y, grad=True)


def test_chunk_size_gives_the_same_result():
    def f(lib, t):
        return lib.vmap(lambda r: r.softmax(0) * r.sum(), chunk_size=3)(t)
    compare(f, randn(7, 5, seed=4), grad=True)


@pytest.mark.cpu_only     # torch's tensors print no device; ours would on the device run
def test_a_batched_tensor_inside_the_function():
    seen = {}

    def f(t):
        seen.update(shape=tuple(t.shape), dim=t.dim(), is_tensor=isinstance(t, ag.Tensor),
                    numel=t.numel(), size=t.size(1), repr=repr(t), length=len(t))
        return t
    x = np.arange(6.0).reshape(2, 3, 1)
    ag.vmap(f)(ag.tensor(x))
    torch_repr = []
    torch.vmap(lambda t: torch_repr.append(repr(t)) or t)(torch.tensor(x))
    assert seen["shape"] == (3, 1) and seen["dim"] == 2 and seen["is_tensor"]
    assert seen["numel"] == 3 and seen["size"] == 1 and seen["length"] == 3
    assert seen["repr"].replace("autograd_cy.", "torch.") == torch_repr[0]


@pytest.mark.cpu_only
def test_nested_repr_matches_torch():
    reprs = {}
    for lib in (ag, torch):
        x = lib.tensor(np.arange(6.0).reshape(2, 3))
        lib.vmap(lib.vmap(lambda t: reprs.setdefault(lib.__name__, repr(t)) is None or t))(x)
    assert reprs["autograd_cy"].replace("autograd_cy.", "torch.") == reprs["torch"]


def test_inplace_on_a_batched_tensor():
    def f(lib, t, u):
        def g(row, other):
            row = row.clone()
            row.mul_(2).add_(other)
            row[0] = other[1]
            square = row.unsqueeze(0).repeat(3, 1)
            square.mul_(other)          # an operand of fewer dims than self, batched
            return square
        return lib.vmap(g)(t, u)
    compare(f, X, Y, grad=True)


def test_inplace_of_a_batched_value_into_an_unbatched_tensor_is_refused():
    assert_same_error(lambda lib: lib.vmap(lambda t: lib.zeros(3).copy_(t))(lib.ones(4, 3)),
                      RuntimeError, "inplace arithmetic", "vmapped over but `self` not being")
    assert_same_error(lambda lib: lib.vmap(lambda t: lib.zeros(3).mul_(t))(lib.ones(4, 3)),
                      RuntimeError)
    assert_same_error(lambda lib: lib.vmap(_write_into_unbatched(lib))(lib.ones(4, 3)),
                      RuntimeError, "inplace arithmetic", "vmapped over but `self` not being")


def _write_into_unbatched(lib):
    def write(row):
        plain = lib.zeros(3)
        plain[0] = row[0]
        return plain
    return write


def test_errors_in_torchs_words():
    x = lambda lib: lib.ones(3, 4)      # noqa: E731
    cases = [
        lambda lib: lib.vmap(lambda t: t.item())(x(lib)),
        lambda lib: lib.vmap(lambda t: bool(t.sum() > 0))(x(lib)),
        lambda lib: lib.vmap(lambda t: lib.rand(3))(x(lib)),
        lambda lib: lib.vmap(lambda t, u: t + u)(x(lib), lib.ones(5, 4)),
        lambda lib: lib.vmap(lambda t: t, in_dims=2)(x(lib)),
        lambda lib: lib.vmap(lambda t: 3)(x(lib)),
        lambda lib: lib.vmap(lambda t: t.sum(2))(x(lib)),
        lambda lib: lib.vmap(lambda t: t, out_dims=3)(x(lib)),
        lambda lib: lib.vmap(lambda t: t)(3),
        lambda lib: lib.vmap(lambda t: t)(),
        lambda lib: lib.vmap(lambda t: t, in_dims="a")(x(lib)),
        lambda lib: lib.vmap(lambda t: t.backward())(x(lib)),
        lambda lib: lib.vmap(lambda t: t.transpose(0, 2))(x(lib)),
        lambda lib: lib.vmap(lambda t: t, randomness="maybe")(x(lib)),
    ]
    for case in cases:
        assert_same_error(case)


def test_wrong_in_dims_structure():
    assert_same_error(lambda lib: lib.vmap(lambda t: t, in_dims=(0, 0))(lib.ones(2)),
                      ValueError, "in_dims is not compatible with the structure of `inputs`")


def test_wrong_out_dims():
    x = lambda lib: lib.ones(3, 2)      # noqa: E731
    assert_same_error(lambda lib: lib.vmap(lambda t: (t, t), out_dims=(0, 0, 0))(x(lib)),
                      ValueError, "out_dims is not compatible with the structure of `outputs`")
    assert_same_error(lambda lib: lib.vmap(lambda t: t, out_dims="a")(x(lib)), exact=True)


def test_randomness_modes():
    x = ag.ones(5, 3)
    different = ag.vmap(lambda t: t * ag.rand(3), randomness="different")(x)
    assert tuple(different.shape) == (5, 3)
    assert not np.allclose(different.cpu().numpy()[0], different.cpu().numpy()[1])
    same = ag.vmap(lambda t: t * ag.randn(3), randomness="same")(x)
    assert np.allclose(same.cpu().numpy()[0], same.cpu().numpy()[1])
    like = ag.vmap(lambda t: ag.rand_like(t), randomness="same")(x)
    assert np.allclose(like.cpu().numpy()[0], like.cpu().numpy()[4])
    dropped = ag.vmap(lambda t: ag.nn.functional.dropout(t, 0.5), randomness="different")(
        ag.ones(50, 40))
    dropped = dropped.cpu().numpy()
    assert 0.35 < (dropped != 0).mean() < 0.65 and not (dropped[0] == dropped[1]).all()
    assert_same_error(lambda lib: lib.vmap(lambda t: lib.nn.functional.dropout(t))(
        lib.ones(2, 3)))
    # no randomness drawn: allowed in the default mode
    out = ag.vmap(lambda t: ag.nn.functional.dropout(t, training=False))(x)
    assert np.array_equal(out.cpu().numpy(), x.cpu().numpy())


def test_autograd_grad_inside_vmap():
    """vmap over autograd.grad: batched cotangents (is_grads_batched's meaning), per-example
    gradients of a batched output, and of a weight the examples share."""
    def cotangents(lib, w):
        out = w.sin() * 2
        return lib.vmap(lambda v: lib.autograd.grad(out, w, v, retain_graph=True)[0])(
            lib.eye(3, dtype=w.dtype))
    compare(cotangents, randn(3, seed=9), grad=True)

    # torch's autograd does not see through vmap's wrappers (it raises "does not require
    # grad"); ours differentiates each example, which torch.func.grad computes so:
    x, w = ag.tensor(X, requires_grad=True), ag.tensor(randn(3, seed=8), requires_grad=True)
    ours = ag.vmap(lambda row: ag.autograd.grad((row * w).tanh().sum(), w,
                                                create_graph=True)[0])(x)
    theirs = torch.vmap(torch.func.grad(lambda v, row: (row * v).tanh().sum()),
                        in_dims=(None, 0))(torch.tensor(randn(3, seed=8)), torch.tensor(X))
    assert_close(ours, theirs)
    assert ours.requires_grad       # create_graph: differentiable again
    gx, gw = ag.autograd.grad(ours.sum(), [x, w])
    tx, tw = torch.tensor(X, requires_grad=True), torch.tensor(randn(3, seed=8),
                                                                requires_grad=True)
    again = torch.vmap(torch.func.grad(lambda v, row: (row * v).tanh().sum()),
                       in_dims=(None, 0))(tw, tx)
    their_gx, their_gw = torch.autograd.grad(again.sum(), [tx, tw])
    assert_close(gx, their_gx)
    assert_close(gw, their_gw)


def test_is_grads_batched_agrees_with_vmap_of_grad():
    x = ag.tensor(randn(4, seed=3), requires_grad=True)
    out = x.exp() * x
    basis = ag.eye(4, dtype=x.dtype)
    batched_grad = ag.autograd.grad(out, x, basis, retain_graph=True, is_grads_batched=True)[0]
    vmapped = ag.vmap(lambda v: ag.autograd.grad(out, x, v, retain_graph=True)[0])(basis)
    np.testing.assert_allclose(batched_grad.cpu().numpy(), vmapped.cpu().numpy())


def test_ops_are_restored_after_vmap():
    originals = (ag.mul, ag.Tensor.sum, ag.nn.functional.relu, ag.autograd.grad, ag.rand)
    with pytest.raises(RuntimeError):
        ag.vmap(lambda t: t.item())(ag.ones(2, 2))
    ag.vmap(lambda t: t.sum())(ag.ones(2, 2))
    assert originals == (ag.mul, ag.Tensor.sum, ag.nn.functional.relu, ag.autograd.grad,
                         ag.rand)


def test_a_batched_tensor_kept_after_vmap_refuses_to_compute():
    kept = []
    ag.vmap(lambda t: kept.append(t) or t)(ag.ones(2, 3))
    with pytest.raises(RuntimeError, match="read the values of a BatchedTensor"):
        ag.exp(kept[0])


# Ops the per-element fallback runs (torch batches them with rules; this list shrinks as
# rules are written): each is checked against torch, with the fallback's warning.
FALLBACK_OPS = {
    "index_put": lambda lib, t: lib.index_put(t, (lib.tensor([1]),), t[0]),
    "index_put_": lambda lib, t: t.clone().index_put_((lib.tensor([1]),), t[0] * 2),
    "as_strided": lambda lib, t: t.contiguous().as_strided((2, 2), (1, 2)),
    "resize_as_": lambda lib, t: t.clone().resize_as_(t),
    "scatter": lambda lib, t: t.scatter(0, lib.tensor([[2, 0, 1]]), t[:1] * 2),
    "scatter_": lambda lib, t: t.clone().scatter_(0, lib.tensor([[2, 0, 1]]), 5.0),
    "scatter_add_": lambda lib, t: t.clone().scatter_add_(0, lib.tensor([[2, 0, 2]]), t[:1]),
    "index_add_": lambda lib, t: t.clone().index_add_(0, lib.tensor([2, 2]), t[:2]),
    # in-place forms of autograd_cy/inplace_forms.py that are not elementwise
    "addmm_": lambda lib, t: t.clone().addmm_(t, t.t(), alpha=0.5),
    "cumsum_": lambda lib, t: t.clone().cumsum_(1),
    "cumprod_": lambda lib, t: t.clone().cumprod_(0),
    "tril_": lambda lib, t: t.clone().tril_(),
    "triu_": lambda lib, t: t.clone().triu_(1),
    "index_fill_": lambda lib, t: t.clone().index_fill_(1, lib.tensor([2, 0]), -1.0),
    "index_copy_": lambda lib, t: t.clone().index_copy_(0, lib.tensor([2]), t[:1] * 2),
    "addmv_": lambda lib, t: t[0].clone().addmv_(t, t[1], beta=0.5),
    "addr_": lambda lib, t: t.clone().addr_(t[0], t[1]),
    "baddbmm_": lambda lib, t: t[None].clone().baddbmm_(t[None], t.t()[None]),
    "addbmm_": lambda lib, t: t.clone().addbmm_(t[None], t.t()[None], alpha=2),
    "renorm_": lambda lib, t: t.clone().renorm_(2, 0, 1.0),
    "masked_scatter_": lambda lib, t: t.clone().masked_scatter_(t > 0, t * 2),
    # each example a batch of (N, C) = (3, 3): statistics over the example alone
    "batch_norm": lambda lib, t: lib.nn.functional.batch_norm(t, None, None, training=True),
    # one slope per channel of the example (its dim 1)
    "prelu": lambda lib, t: lib.nn.functional.prelu(t, lib.tensor([0.1, -0.2, 0.3],
                                                                   dtype=t.dtype)),
    # losses and distances torch.vmap runs per example too
    "pdist": lambda lib, t: lib.nn.functional.pdist(t),
    "soft_margin_loss": lambda lib, t: lib.nn.functional.soft_margin_loss(t, t.sign()),
    "multi_margin_loss": lambda lib, t: lib.nn.functional.multi_margin_loss(
        t, lib.tensor([1, 0, 2])),
    "multilabel_margin_loss": lambda lib, t: lib.nn.functional.multilabel_margin_loss(
        t, lib.tensor([[2, -1, 0], [0, 1, -1], [1, -1, 0]])),
    "ctc_loss": lambda lib, t: lib.nn.functional.ctc_loss(t.log_softmax(1), lib.tensor([1]),
                                                          (3,), (1,)),
    # the indices are batched with the values, or shared by every example
    "embedding_bag": lambda lib, t: lib.nn.functional.embedding_bag(
        lib.tensor([0, 2, 2, 1]), t, lib.tensor([0, 1, 1]), mode="max", padding_idx=1),
    "max_unpool1d": lambda lib, t: lib.nn.functional.max_unpool1d(
        *lib.nn.functional.max_pool1d(t, 2, return_indices=True), 2),
    "max_unpool2d": lambda lib, t: lib.nn.functional.max_unpool2d(
        *lib.nn.functional.max_pool2d(t.unsqueeze(0), 2, return_indices=True), 2),
    "max_unpool3d": lambda lib, t: lib.nn.functional.max_unpool3d(
        *lib.nn.functional.max_pool3d(t[None, None], (1, 2, 2), return_indices=True),
        (1, 2, 2)),
    # random windows: one draw per call, so the examples of a batch do not fold into N
    "fractional_max_pool2d": lambda lib, t: lib.nn.functional.fractional_max_pool2d(
        t[None], 2, 2, _random_samples=lib.full((1, 1, 2), 0.4, dtype=t.dtype)),
    "fractional_max_pool2d_with_indices": lambda lib, t:
        lib.nn.functional.fractional_max_pool2d_with_indices(
            t[None], 2, (2, 1), _random_samples=lib.full((1, 1, 2), 0.7, dtype=t.dtype))[0],
    "fractional_max_pool3d": lambda lib, t: lib.nn.functional.fractional_max_pool3d(
        t[None, :, :, None].expand(1, 3, 3, 2), 1, (2, 2, 1),
        _random_samples=lib.full((1, 1, 3), 0.4, dtype=t.dtype)),
    "fractional_max_pool3d_with_indices": lambda lib, t:
        lib.nn.functional.fractional_max_pool3d_with_indices(
            t[None, :, :, None].expand(1, 3, 3, 2), (2, 1, 1), (1, 2, 1),
            _random_samples=lib.full((1, 1, 3), 0.2, dtype=t.dtype))[0],
    # the example a (1, 1, 3, 3) image, read at its own first two columns as points
    "grid_sample": lambda lib, t: lib.nn.functional.grid_sample(
        t[None, None], t[:, :2].reshape(1, 1, 3, 2), mode="bicubic", align_corners=False),
    "affine_grid": lambda lib, t: lib.nn.functional.affine_grid(
        t[:2][None], (1, 1, 2, 3), align_corners=True),
}


def test_every_op_without_a_rule_is_listed():
    """The ops of the namespace, nn.functional and Tensor that have no batching rule are
    exactly FALLBACK_OPS, plus those vmap treats itself (dropout: randomness) and the
    internal sum_to."""
    from autograd_cy.op_swap import op_functions
    functions = op_functions()
    names = {name for namespace in (vars(ag), vars(ag.Tensor), vars(ag.nn.functional))
             for name, value in namespace.items() if id(value) in functions}
    assert names - set(RULES) == set(FALLBACK_OPS) | {"dropout", "sum_to"}


@pytest.mark.parametrize("case", [
    lambda lib: lib.vmap(lambda t: lib.equal(t, t))(lib.ones(3, 4)),
    lambda lib: lib.vmap(lambda t: lib.allclose(t, t))(lib.ones(3, 4)),
    lambda lib: lib.vmap(lambda t: t.is_conj())(lib.ones(3, 4)),
    lambda lib: lib.vmap(lambda t: t.is_same_size(t[:2]))(lib.ones(3, 4)),
])
def test_ops_torch_does_not_batch(case):
    assert_same_error(case)


@pytest.mark.parametrize("name", sorted(FALLBACK_OPS))
def test_ops_without_a_rule_run_per_element(name):
    fn = FALLBACK_OPS[name]
    compare(lambda lib, t: lib.vmap(lambda r: fn(lib, r))(t), SQUARE)
    batching._debug_only_display_vmap_fallback_warnings(True)
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            ag.vmap(lambda r: fn(ag, r))(ag.tensor(SQUARE))
    finally:
        batching._debug_only_display_vmap_fallback_warnings(False)
    assert any("There is a performance drop because we have not yet implemented the "
               "batching rule" in str(w.message) for w in caught)


def test_the_fallback_list_is_honest():
    """Every op named in FALLBACK_OPS has no rule."""
    for name in FALLBACK_OPS:
        assert name not in RULES


def test_no_warning_by_default():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ag.vmap(lambda r: ag.index_add(r, 0, ag.tensor([0]), r[:1]))(ag.ones(2, 3, 3))


def test_a_profile_around_vmap_records_the_batched_ops():
    """Both swaps at once: the profiler's wrappers wrap vmap's dispatchers (and the other
    way round), so the ops are batched and recorded, and both put back what they found."""
    originals = (ag.mul, ag.Tensor.sin)
    x = ag.tensor(X)
    with ag.autograd.profiler.profile() as prof:
        out = ag.vmap(lambda t: t.sin() * 2)(x)
    np.testing.assert_allclose(out.cpu().numpy(), np.sin(X) * 2)
    names = {event.name for event in prof.function_events}
    assert "aten::sin" in names and "aten::mul" in names
    inside = ag.vmap(lambda t: _profiled_sin(t))(x)
    np.testing.assert_allclose(inside.cpu().numpy(), np.sin(X))
    assert (ag.mul, ag.Tensor.sin) == originals


def _profiled_sin(t):
    with ag.autograd.profiler.profile() as prof:
        result = t.sin()
    assert "aten::sin" in {event.name for event in prof.function_events}
    return result


# NOTE [Ops written as Functions under vmap]: the ops of the Python modules run per example
PYTHON_MODULE_OPS = {
    "cumsum": lambda lib, t: t.cumsum(1),
    "cumprod": lambda lib, t: t.cumprod(0),
    "sort": lambda lib, t: lib.sort(t, dim=-1)[0],
    "argsort": lambda lib, t: lib.argsort(t, dim=0),
    "topk": lambda lib, t: lib.topk(t, 2)[0],
    "round": lambda lib, t: lib.round(t * 3),
    "lerp": lambda lib, t: lib.lerp(t, t * 2, 0.3),
    "clamp_min": lambda lib, t: lib.clamp_min(t, 0.1),
    "logaddexp": lambda lib, t: lib.logaddexp(t, t * 2),
    "cummax": lambda lib, t: lib.cummax(t, 1)[0],
    "diag_embed": lambda lib, t: lib.diag_embed(t),
}


@pytest.mark.parametrize("name", PYTHON_MODULE_OPS)
def test_ops_of_python_modules_under_vmap(name):
    x = np.random.default_rng(0).standard_normal((3, 4, 5)).astype(np.float32)
    op = PYTHON_MODULE_OPS[name]
    ours = ag.vmap(lambda t: op(ag, t))(ag.tensor(x))
    theirs = torch.vmap(lambda t: op(torch, t))(torch.tensor(x))
    assert tuple(ours.shape) == tuple(theirs.shape)
    np.testing.assert_allclose(np.asarray(ours.tolist()), theirs.numpy(), rtol=1e-6,
                               atol=1e-6)


def test_per_example_gradients_through_ops_of_python_modules():
    x = np.random.default_rng(1).standard_normal((3, 5)).astype(np.float32)

    def loss(lib, t):
        return (lib.sort(t)[0] * lib.arange(5.0)).sum() + t.cumsum(0).pow(2).sum()
    ours = ag.vmap(ag.func.grad(lambda t: loss(ag, t)))(ag.tensor(x))
    theirs = torch.vmap(torch.func.grad(lambda t: loss(torch, t)))(torch.tensor(x))
    np.testing.assert_allclose(np.asarray(ours.tolist()), theirs.numpy(), rtol=1e-5,
                               atol=1e-5)


def test_named_tuple_outputs_keep_their_type():
    # torch's pytrees take a named tuple apart and build it again: sort's (values, indices)
    x = np.random.default_rng(2).standard_normal((3, 4)).astype(np.float32)
    for lib in (ag, torch):
        result = lib.vmap(lambda t: lib.sort(t, descending=True))(lib.tensor(x))
        assert type(result).__name__ == "sort"
        np.testing.assert_allclose(np.asarray(result.values.tolist()), -np.sort(-x, axis=1))
        assert result.indices.tolist() == np.argsort(-x, axis=1, kind="stable").tolist()
