"""Forward-mode AD of selection, extrema, variance, indexing, gather/scatter, diagonal,
strided, activation and loss ops against PyTorch: inside a dual level each op's output
tangent (its Jacobian-vector product) equals torch's, and the tangent is itself
differentiable in reverse mode (reverse-over-forward) as torch's is.

Each case is ``(id, fn(lib, *tensors), input arrays)``: every floating array becomes a dual
tensor with a random tangent (integer and bool arrays stay plain, e.g. indices and masks).
"""
import warnings

import numpy as np
import pytest
import torch
import torch.autograd.forward_ad as torch_fwad

import autograd_cy as ag
import autograd_cy.autograd.forward_ad as ag_fwad
from oracle import DEVICE, assert_close, on_test_device, randn, to_numpy

FORWARD_AD = {ag: ag_fwad, torch: torch_fwad}
TOLERANCE = dict(rtol=1e-7, atol=1e-9)


def probabilities(*shape, seed=0):
    return np.random.default_rng(seed).uniform(0.1, 0.9, shape)


def ties(*shape):
    """Values with repeats, so that extrema tie (the tangent is then a mean)."""
    return np.round(randn(*shape) * 2) / 2


def make_tensor(lib, array, requires_grad=False):
    if lib is ag:
        return ag.tensor(array, device=DEVICE, requires_grad=requires_grad)
    return torch.tensor(array, requires_grad=requires_grad)


def run_dual(lib, fn, arrays, tangents, requires_grad=False):
    """``fn(lib, *duals)`` in a dual level: the primals (for reverse mode), the outputs and
    their tangents (None where an output has none)."""
    fwad = FORWARD_AD[lib]
    primals = [make_tensor(lib, a, requires_grad and a.dtype.kind == "f") for a in arrays]
    with fwad.dual_level(), on_test_device() if lib is ag else warnings.catch_warnings():
        duals = [fwad.make_dual(p, make_tensor(lib, t)) if t is not None else p
                 for p, t in zip(primals, tangents)]
        result = fn(lib, *duals)
        outputs = result if isinstance(result, (tuple, list)) else (result,)
        unpacked = [fwad.unpack_dual(o) for o in outputs]
    return primals, [u.primal for u in unpacked], [u.tangent for u in unpacked]


def check_tangent(fn, *arrays, seed=0, reverse=True):
    """The outputs' values and tangents match torch's; with ``reverse``, so does the
    gradient of ``sum(tangent * v)`` with respect to the primals (reverse-over-forward)."""
    rng = np.random.default_rng(seed)
    tangents = [rng.standard_normal(a.shape) if a.dtype.kind == "f" else None for a in arrays]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ours = run_dual(ag, fn, arrays, tangents, reverse)
        theirs = run_dual(torch, fn, arrays, tangents, reverse)
    assert_close(ours[1], theirs[1], what="value", **TOLERANCE)
    for index, (mine, expected) in enumerate(zip(ours[2], theirs[2])):
        if expected is None or not expected.dtype.is_floating_point:
            assert mine is None, f"tangent[{index}]: torch has none"
            continue
        assert mine is not None, f"tangent[{index}] missing"
        assert str(mine.device) == str(ours[1][index].device)
        np.testing.assert_allclose(to_numpy(mine), to_numpy(expected),
                                   err_msg=f"tangent[{index}]", **TOLERANCE)
        assert str(mine.dtype).split(".")[-1] == str(expected.dtype).split(".")[-1]
    if not reverse:
        return
    pairs = [(m, e) for m, e in zip(ours[2], theirs[2]) if e is not None and e.requires_grad]
    if not pairs:
        return
    inputs = [i for i, a in enumerate(arrays) if a.dtype.kind == "f"]
    directions = [rng.standard_normal(tuple(e.shape)) for _, e in pairs]
    their_total = sum((e * torch.tensor(v)).sum() for (_, e), v in zip(pairs, directions))
    our_total = sum((m * make_tensor(ag, v)).sum() for (m, _), v in zip(pairs, directions))
    expected = torch.autograd.grad(their_total, [theirs[0][i] for i in inputs],
                                   allow_unused=True)
    if not our_total.requires_grad:
        # Our tangent does not depend on the primals: torch's derivative must be zero.
        assert all(e is None or not e.any() for e in expected), "tangent not differentiable"
        return
    got = ag.autograd.grad(our_total, [ours[0][i] for i in inputs], allow_unused=True)
    assert_close(got, expected, what="gradient of the tangent", **TOLERANCE)


def index(*values):
    return np.array(values, dtype=np.int64)


MASK = np.array([[True, False, True], [False, False, True]])

CASES = [
    # split / cat: views of the tangent, and the tangents joined
    ("split", lambda lib, x: x.split(2, 1), [randn(3, 5)]),
    ("split_sizes", lambda lib, x: lib.split(x, [1, 2], 0), [randn(3, 2)]),
    ("chunk", lambda lib, x: x.chunk(2, -1), [randn(2, 3)]),
    ("unbind", lambda lib, x: x.unbind(1), [randn(2, 3)]),
    ("cat", lambda lib, x, y: lib.cat([x, y], 1), [randn(2, 3), randn(2, 2)]),
    ("cat_tangent_missing", lambda lib, x, y: lib.cat([x, y.detach()], 0) * y.sum(),
     [randn(2, 3), randn(1, 3)]),
    ("stack", lambda lib, x, y: lib.stack([x, y], -1), [randn(2, 3), randn(2, 3)]),
    ("stack_transposed", lambda lib, x: lib.stack([x.t(), x.t() * 2]), [randn(3, 2)]),
    # selection
    ("clamp", lambda lib, x: lib.clamp(x, -0.5, 0.5), [randn(3, 4)]),
    ("clamp_min", lambda lib, x: x.clamp(min=0.0), [randn(3, 4)]),
    ("clamp_tensors", lambda lib, x, lo, hi: lib.clamp(x, lo, hi),
     [randn(3, 4), randn(4) - 0.5, randn(3, 1) + 0.5]),
    ("clamp_min_over_max", lambda lib, x, lo, hi: lib.clamp(x, lo, hi),
     [randn(3, 4), randn(4) + 1, randn(3, 1) - 1]),
    ("clamp_max_tensor", lambda lib, x, hi: lib.clamp(x, max=hi), [randn(3, 4), randn(4)]),
    ("clamp_", lambda lib, x: (x * 1).clamp_(-0.5, 0.5), [randn(3, 4)]),
    ("maximum", lambda lib, a, b: lib.maximum(a, b), [ties(3, 4), ties(4)]),
    ("minimum", lambda lib, a, b: lib.minimum(a, b), [ties(3, 4), ties(3, 1)]),
    ("maximum_nan", lambda lib, a, b: lib.maximum(a, b),
     [np.array([1.0, np.nan, 2.0]), np.array([np.nan, 0.0, 2.0])]),
    ("max_binary", lambda lib, a, b: lib.max(a, b), [ties(2, 3), ties(2, 3)]),
    # extrema
    ("amax", lambda lib, x: lib.amax(x, 1), [ties(3, 4)]),
    ("amin_keepdim", lambda lib, x: x.amin((0, 2), keepdim=True), [ties(2, 3, 2)]),
    ("amax_all", lambda lib, x: x.amax(), [ties(3, 4)]),
    ("amax_0d", lambda lib, x: x.amax(), [np.array(1.5)]),
    ("max_full_ties", lambda lib, x: x.max(), [np.array([[1.0, 3.0], [3.0, 0.0]])]),
    ("min_full_nan", lambda lib, x: x.min(), [np.array([1.0, np.nan, 0.0, np.nan])]),
    ("max_dim", lambda lib, x: x.max(1), [ties(3, 4)]),
    ("min_dim_keepdim", lambda lib, x: lib.min(x, 0, keepdim=True), [randn(3, 4)]),
    ("max_dim_0d", lambda lib, x: x.max(0), [np.array(2.0)]),
    ("median", lambda lib, x: x.median(), [randn(3, 5)]),
    ("median_dim", lambda lib, x: x.median(-1), [randn(3, 4)]),
    ("median_dim_keepdim", lambda lib, x: x.median(0, keepdim=True), [ties(3, 4)]),
    ("argmax", lambda lib, x: (x.argmax(), x.argmin(1)), [randn(3, 4)]),
    # variance
    ("var", lambda lib, x: x.var(), [randn(3, 4)]),
    ("var_dim", lambda lib, x: lib.var(x, 1, keepdim=True), [randn(3, 4)]),
    ("var_correction0", lambda lib, x: x.var((0, 2), correction=0), [randn(2, 3, 2)]),
    ("var_dof_zero", lambda lib, x: x.var(1, correction=4), [randn(2, 4)]),
    ("std", lambda lib, x: x.std(0), [randn(3, 4)]),
    ("std_zero", lambda lib, x: x.std(1), [np.array([[1.0, 1.0], [0.0, 2.0]])]),
    ("var_mean", lambda lib, x: lib.var_mean(x, 1), [randn(3, 4)]),
    ("std_mean", lambda lib, x: lib.std_mean(x, keepdim=True, dim=0), [randn(3, 4)]),
    # indexing
    ("index_tensor", lambda lib, x, i: x[i], [randn(4, 3), index(2, 0, 2)]),
    ("index_mask", lambda lib, x: x[x > 0], [randn(3, 4)]),
    ("index_mixed", lambda lib, x, i: x[1:, i], [randn(3, 4), index(3, 0)]),
    ("index_put", lambda lib, x, v, i: x.index_put((i,), v),
     [randn(4, 3), randn(2, 3), index(3, 1)]),
    ("index_put_accumulate", lambda lib, x, v, i: x.index_put((i,), v, accumulate=True),
     [randn(4, 3), randn(3, 3), index(1, 1, 0)]),
    ("setitem", lambda lib, x, v, i: _setitem(x, i, v), [randn(4, 3), randn(3), index(0, 2)]),
    ("setitem_plain_value", lambda lib, x, i: _setitem(x, i, 2.0), [randn(4, 3), index(1)]),
    ("setitem_mask", lambda lib, x, v: _setitem(x, x > 0, v), [randn(3, 4), np.array(0.5)]),
    # gather / scatter
    ("index_select", lambda lib, x, i: x.index_select(1, i), [randn(3, 4), index(3, 0, 3)]),
    ("index_add", lambda lib, x, s, i: x.index_add(0, i, s, alpha=2.0),
     [randn(4, 3), randn(2, 3), index(1, 1)]),
    ("gather", lambda lib, x, i: x.gather(1, i), [randn(3, 4), np.array([[0, 3], [1, 1],
                                                                       [2, 0]])]),
    ("scatter_add", lambda lib, x, s, i: x.scatter_add(0, i, s),
     [randn(3, 2), randn(2, 2), np.array([[0, 2], [0, 1]])]),
    ("masked_fill", lambda lib, x: x.masked_fill(lib.tensor(MASK), 3.0), [randn(2, 3)]),
    ("masked_fill_tensor", lambda lib, x, v: x.masked_fill(lib.tensor(MASK), v),
     [randn(2, 3), np.array(0.5)]),
    ("masked_fill_", lambda lib, x, v: (x * 1).masked_fill_(lib.tensor(MASK), v),
     [randn(2, 3), np.array(0.5)]),
    # diagonal / strided
    ("diagonal", lambda lib, x: x.diagonal(1, 0, 2), [randn(3, 2, 4)]),
    ("trace", lambda lib, x: x.trace(), [randn(3, 4)]),
    ("as_strided", lambda lib, x: x.as_strided((2, 2), (1, 2), 1), [randn(6)]),
    ("transpose_", lambda lib, x: (x * 1).transpose_(0, 1), [randn(2, 3)]),
    ("as_strided_", lambda lib, x: (x * 1).as_strided_((2, 2), (1, 2), 1), [randn(6)]),
    # activations
    ("softmax", lambda lib, x: lib.softmax(x, 1), [randn(3, 4)]),
    ("softmax_0d", lambda lib, x: lib.softmax(x, 0), [np.array(0.3)]),
    ("log_softmax", lambda lib, x: lib.log_softmax(x, 0), [randn(3, 4)]),
    ("gelu", lambda lib, x: lib.nn.functional.gelu(x), [randn(3, 4)]),
    ("gelu_tanh", lambda lib, x: lib.nn.functional.gelu(x, approximate="tanh"), [randn(5)]),
    ("silu", lambda lib, x: lib.nn.functional.silu(x), [randn(3, 4)]),
    ("softplus", lambda lib, x: lib.nn.functional.softplus(x, beta=2.0, threshold=1.0),
     [randn(3, 4)]),
    ("leaky_relu", lambda lib, x: lib.nn.functional.leaky_relu(x, 0.2), [randn(3, 4)]),
    ("leaky_relu_", lambda lib, x: lib.nn.functional.leaky_relu(x * 1, 0.2, inplace=True),
     [randn(3, 4)]),
    # losses
    ("mse_loss", lambda lib, x, t: lib.nn.functional.mse_loss(x, t), [randn(3, 4), randn(3, 4)]),
    ("mse_loss_none", lambda lib, x, t: lib.nn.functional.mse_loss(x, t, reduction="none"),
     [randn(3, 4), randn(3, 4)]),
    ("nll_loss", lambda lib, x, t: lib.nn.functional.nll_loss(x, t),
     [randn(3, 4), index(1, 0, 3)]),
    ("nll_loss_weight_ignore",
     lambda lib, x, w, t: lib.nn.functional.nll_loss(x, t, weight=w.detach(), ignore_index=0),
     [randn(3, 4), probabilities(4), index(1, 0, 3)]),
    ("nll_loss_2d_sum", lambda lib, x, t: lib.nn.functional.nll_loss(x, t, reduction="sum"),
     [randn(2, 3, 2, 2), np.array([[[0, 1], [2, 2]], [[1, 1], [0, 2]]])]),
    ("cross_entropy", lambda lib, x, t: lib.nn.functional.cross_entropy(x, t),
     [randn(3, 4), index(1, 0, 3)]),
    ("binary_cross_entropy", lambda lib, x, t: lib.nn.functional.binary_cross_entropy(x, t),
     [probabilities(3, 4), probabilities(3, 4, seed=1)]),
    ("binary_cross_entropy_weight_sum",
     lambda lib, x, t, w: lib.nn.functional.binary_cross_entropy(
         x, t, weight=w.detach(), reduction="sum"),
     [probabilities(3, 4), probabilities(3, 4, seed=1), probabilities(4, seed=2)]),
    ("bce_with_logits", lambda lib, x, t: lib.nn.functional.binary_cross_entropy_with_logits(
        x, t, reduction="none"), [randn(3, 4), probabilities(3, 4)]),
    ("bce_with_logits_pos_weight",
     lambda lib, x, t, p: lib.nn.functional.binary_cross_entropy_with_logits(
         x, t, pos_weight=p.detach()), [randn(3, 4), probabilities(3, 4), probabilities(4)]),
]


def _setitem(x, i, value):
    y = x * 1
    y[i] = value
    return y


# torch computes these tangents in place over a saved result: differentiating them raises
# in torch itself, so only their values are compared.
NOT_DIFFERENTIABLE_IN_TORCH = {"softmax", "softmax_0d", "log_softmax", "cross_entropy"}


@pytest.mark.parametrize("name, fn, arrays", CASES, ids=[c[0] for c in CASES])
def test_tangent_matches_torch(name, fn, arrays):
    check_tangent(fn, *arrays, reverse=name not in NOT_DIFFERENTIABLE_IN_TORCH)


# The backward primitives have tangents too: forward AD through a backward pass built with
# create_graph=True (forward-over-reverse, what a Hessian-vector product needs).
BACKWARD_CASES = [
    ("softmax", lambda lib, x: lib.softmax(x, 1), randn(2, 3)),
    ("log_softmax", lambda lib, x: lib.log_softmax(x, 0), randn(2, 3)),
    ("gelu", lambda lib, x: lib.nn.functional.gelu(x), randn(4)),
    ("softplus", lambda lib, x: lib.nn.functional.softplus(x, threshold=0.5), randn(4)),
    ("leaky_relu", lambda lib, x: lib.nn.functional.leaky_relu(x, 0.3), randn(4)),
    ("diagonal", lambda lib, x: x.diagonal(), randn(3, 3)),
    ("nll_loss", lambda lib, x: lib.nn.functional.nll_loss(
        lib.log_softmax(x, 1), make_tensor(lib, index(1, 0))), randn(2, 3)),
]


@pytest.mark.parametrize("name, fn, array", BACKWARD_CASES, ids=[c[0] for c in BACKWARD_CASES])
def test_tangent_of_the_gradient_matches_torch(name, fn, array):
    v = randn(*array.shape, seed=5)

    def gradient(lib, x):
        y = fn(lib, x)
        weight = make_tensor(lib, randn(*y.shape, seed=3))
        return lib.autograd.grad((y * weight).sum(), x, create_graph=True)[0]

    def hvp(lib):
        fwad = FORWARD_AD[lib]
        x = make_tensor(lib, array, requires_grad=True)
        with fwad.dual_level(), on_test_device() if lib is ag else warnings.catch_warnings():
            dual = fwad.make_dual(x, make_tensor(lib, v))
            return fwad.unpack_dual(gradient(lib, dual)).tangent

    assert_close(hvp(ag), hvp(torch), what="tangent of the gradient", **TOLERANCE)


def test_integer_outputs_carry_no_tangent_and_do_not_raise():
    x = randn(3, 4)
    with ag_fwad.dual_level():
        dual = ag_fwad.make_dual(ag.tensor(x, device=DEVICE), ag.tensor(x * 0 + 1,
                                                                         device=DEVICE))
        values, indices = dual.max(1)
        assert ag_fwad.unpack_dual(indices).tangent is None
        assert ag_fwad.unpack_dual(dual.argmax()).tangent is None
        assert ag_fwad.unpack_dual(values).tangent is not None


def test_dropout_tangent_is_dropped_with_the_same_mask():
    """F.dropout (NativeDropout's jvp on a CUDA device, a product with the mask on the CPU):
    the tangent is scaled where the output is, ``tangent = t * out / x`` (NumPy oracle)."""
    x, t = randn(4, 5, positive=True), randn(4, 5, seed=1)
    ag.manual_seed(0)
    with ag_fwad.dual_level():
        dual = ag_fwad.make_dual(ag.tensor(x, device=DEVICE), ag.tensor(t, device=DEVICE))
        primal, tangent = ag_fwad.unpack_dual(ag.nn.functional.dropout(dual, p=0.4))
    assert str(tangent.device) == str(primal.device)
    dropped = to_numpy(primal) / x
    assert set(np.round(dropped, 12).ravel()) <= {0.0, round(1 / 0.6, 12)}
    np.testing.assert_allclose(to_numpy(tangent), t * dropped, **TOLERANCE)
