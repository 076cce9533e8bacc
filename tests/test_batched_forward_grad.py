"""Batched tangents (NOTE [Batched tangents] in pyx/forward.pyx) and gradcheck's
``check_batched_forward_grad``: one forward-AD pass whose tangents carry a leading batch dim
must give, row by row, what torch's forward AD gives for each tangent on its own (PyTorch's
check vmaps its forward AD; the oracle here is torch's tangent per row).

Every case of the forward-AD op tests runs batched. The formulas registered to run once on
the batch (``NATIVE``) must not fall back to one run per row.
"""
import warnings

import numpy as np
import pytest
import torch

import autograd_cy as ag
import autograd_cy.autograd.forward_ad as ag_fwad
from autograd_cy._C.forward import _per_row_tangent_runs
from autograd_cy.autograd import gradcheck
from autograd_cy.autograd.gradcheck import GradcheckError
from oracle import DEVICE, on_test_device, randn, to_numpy
from test_forward_ad import BINARY, UNARY, UNARY_POSITIVE
from test_forward_ad_ops import CASES

BATCH = 3          # not 2: a batch dim must not broadcast by chance against a dim of size 2


def cases():
    """``(id, fn(lib, *tensors), arrays)`` of every forward-AD op test."""
    a, b, p = randn(2, 3), randn(2, 3, seed=5), randn(2, 3, positive=True)
    found = [(f"unary_{n}", f, [a]) for n, f in UNARY.items()]
    found += [(f"positive_{n}", f, [p]) for n, f in UNARY_POSITIVE.items()]
    found += [(f"binary_{n}", f, [a, b]) for n, f in BINARY.items()]
    found += [(f"matmul_{sa}_{sb}", lambda lib, x, y: x @ y, [randn(*sa), randn(*sb, seed=4)])
              for sa, sb in [((2, 3), (3, 4)), ((3,), (3,)), ((2, 3), (3,)), ((3,), (3, 4)),
                             ((2, 2, 3), (2, 3, 4)), ((2, 2, 3), (3,)), ((3,), (2, 3, 4)),
                             ((4, 2, 3), (3, 2))]]
    found += [("addmm", lambda lib, c, x, y: lib.addmm(c, x, y, beta=0.5, alpha=2.0),
               [randn(4, seed=6), randn(2, 3), randn(3, 4, seed=3)])]
    found += [("broadcast_ranks", lambda lib, x, r: x * r + r - x / (r * r + 1),
               [randn(2, 3), randn(3, seed=7)])]
    found += [("pow_broadcast", lambda lib, x, r: lib.abs(x) ** r, [randn(2, 3), randn(3)])]
    found += [("addmm_beta_0", lambda lib, c, x, y: lib.addmm(c, x, y, beta=0),
               [randn(2, 4), randn(2, 3), randn(3, 4, seed=3)])]
    found += [("scalar_operand", lambda lib, x, s: x * s + s, [randn(2, 3), np.array(0.7)])]
    found += [("inplace_through_view", lambda lib, x: _write_through_view(x), [randn(3, 4)])]
    found += [(f"ops_{name}", fn, arrays) for name, fn, arrays in CASES]
    return found


def _write_through_view(x):
    y = x * 1
    y[1].mul_(3).add_(x[0])
    return y, y.t()[1:]


def output_tangents(lib, outputs, batch=()):
    """The tangents of the floating outputs, as arrays (zeros where an output has none)."""
    outputs = outputs if isinstance(outputs, (tuple, list)) else (outputs,)
    results = []
    for out in outputs:
        if not isinstance(out, (ag.Tensor, torch.Tensor)) or not out.is_floating_point():
            continue
        tangent = lib.autograd.forward_ad.unpack_dual(out).tangent
        results.append(np.zeros(batch + tuple(out.shape)) if tangent is None
                       else to_numpy(tangent))
    return results


def our_batched_tangents(fn, arrays, which, directions):
    """Our outputs' tangents in one batched pass."""
    with ag_fwad.dual_level(), on_test_device(), ag_fwad._batched_tangents(BATCH):
        inputs = [ag.tensor(a, device=DEVICE) for a in arrays]
        inputs[which] = ag_fwad.make_dual(inputs[which], ag.tensor(directions, device=DEVICE))
        return output_tangents(ag, fn(ag, *inputs), (BATCH,))


def torch_tangents(fn, arrays, which, direction):
    """torch's outputs' tangents for one direction."""
    with torch.autograd.forward_ad.dual_level():
        inputs = [torch.tensor(a) for a in arrays]
        inputs[which] = torch.autograd.forward_ad.make_dual(inputs[which],
                                                            torch.tensor(direction))
        return output_tangents(torch, fn(torch, *inputs))


ALL_CASES = cases()


@pytest.mark.parametrize("name, fn, arrays", ALL_CASES, ids=[c[0] for c in ALL_CASES])
def test_batched_tangents_are_torchs_tangents_row_by_row(name, fn, arrays):
    rng = np.random.default_rng(1)
    for which, array in enumerate(arrays):
        if array.dtype.kind != "f":
            continue
        directions = rng.standard_normal((BATCH,) + array.shape)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ours = our_batched_tangents(fn, arrays, which, directions)
            rows = [torch_tangents(fn, arrays, which, d) for d in directions]
        assert len(ours) == len(rows[0])
        for index, mine in enumerate(ours):
            expected = np.stack([r[index] for r in rows])
            assert mine.shape == expected.shape, f"input {which}, output {index}"
            np.testing.assert_allclose(mine, expected, rtol=1e-7, atol=1e-9,
                                       err_msg=f"input {which}, output {index}")


# The ops whose formulas run once on the whole batch; any other runs once per row.
NATIVE = ["unary_exp", "unary_expm1", "unary_sin", "unary_cos", "unary_tanh",
          "unary_sigmoid", "unary_relu", "unary_abs", "unary_neg", "unary_pow_number",
          "unary_rpow", "unary_sum", "unary_sum_dim", "unary_mean", "unary_view",
          "unary_transpose", "unary_permute", "unary_select", "unary_slice", "unary_narrow",
          "unary_unsqueeze_squeeze", "unary_expand", "unary_chain",
          "positive_log", "positive_log1p", "positive_sqrt", "positive_rsqrt",
          "positive_reciprocal", "positive_pow_fraction",
          "binary_add", "binary_add_alpha", "binary_sub", "binary_sub_alpha", "binary_rsub",
          "binary_mul", "binary_div", "binary_atan2", "binary_pow_tensor",
          "addmm", "addmm_beta_0", "broadcast_ranks", "pow_broadcast", "scalar_operand",
          "inplace_through_view"]
NATIVE += [c[0] for c in ALL_CASES if c[0].startswith("matmul_")]


@pytest.mark.parametrize("name", NATIVE)
def test_registered_formulas_run_once_on_the_batch(name):
    fn, arrays = {c[0]: (c[1], c[2]) for c in ALL_CASES}[name]
    directions = np.random.default_rng(2).standard_normal((BATCH,) + arrays[0].shape)
    before = _per_row_tangent_runs()
    our_batched_tangents(fn, arrays, 0, directions)
    assert _per_row_tangent_runs() == before


def test_unregistered_formulas_and_custom_jvp_run_per_row():
    class Cube(ag.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_forward(x)
            return x ** 3

        @staticmethod
        def jvp(ctx, t):
            x, = ctx.saved_tensors
            assert t.shape == x.shape          # jvp sees one row at a time
            return 3 * x * x * t

    x, directions = randn(2, 3), np.random.default_rng(3).standard_normal((BATCH, 2, 3))
    for fn in (lambda lib, x: x.sign() + x.prod(1, keepdim=True),
               lambda lib, x: Cube.apply(x)):
        before = _per_row_tangent_runs()
        ours = our_batched_tangents(fn, [x], 0, directions)
        assert _per_row_tangent_runs() > before
    expected = 3 * x * x * directions
    np.testing.assert_allclose(ours[0], expected, rtol=1e-12)


def test_an_inplace_custom_jvp_updates_the_batched_tangent_in_place():
    class Double(ag.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.mark_dirty(x)
            return x.mul_(2)

        @staticmethod
        def jvp(ctx, t):
            return t.mul_(2)

    directions = np.random.default_rng(4).standard_normal((BATCH, 3))
    with ag_fwad.dual_level(), ag_fwad._batched_tangents(BATCH):
        tangent = ag.tensor(directions)
        dual = ag_fwad.make_dual(ag.tensor(randn(3)), tangent) * 1
        inner = ag_fwad.unpack_dual(dual).tangent
        out = Double.apply(dual)
        assert ag_fwad.unpack_dual(out).tangent is inner
    np.testing.assert_allclose(to_numpy(inner), 2 * directions)


def test_make_dual_wants_a_batch_of_tangents_and_relays_their_rows():
    with ag_fwad.dual_level(), ag_fwad._batched_tangents(BATCH):
        with pytest.raises(RuntimeError, match=r"batch of 3 forward gradients of size \[2, 3\]"):
            ag_fwad.make_dual(ag.zeros(2, 3), ag.zeros(2, 3))
        primal = ag.tensor(randn(3, 2)).t()          # strides (1, 2)
        directions = np.random.default_rng(5).standard_normal((BATCH, 2, 3))
        dual = ag_fwad.make_dual(primal, ag.tensor(directions))
        tangent = ag_fwad.unpack_dual(dual).tangent
        assert tangent.stride()[1:] == primal.stride()
        np.testing.assert_array_equal(to_numpy(tangent), directions)
        row = ag_fwad.unpack_dual(dual[1]).tangent
        np.testing.assert_array_equal(to_numpy(row), directions[:, 1])
    assert ag_fwad._tangent_batch() == 0


def test_tangents_are_not_batched_in_a_batched_backward():
    """Forward-over-reverse inside ``is_grads_batched``: the gradients are batched, the
    tangents riding on them are not; the tangent formulas must see them unbatched."""
    x_value, v_value = randn(4), randn(4, seed=1)
    eye = np.eye(4)
    results = {}
    for lib in (ag, torch):
        fw = lib.autograd.forward_ad
        with fw.dual_level():
            x = fw.make_dual(lib.tensor(x_value, requires_grad=True), lib.tensor(v_value))
            y = (x.tanh() * x).sum(0, keepdim=True).expand(4)
            grads, = lib.autograd.grad(y, x, lib.tensor(eye), create_graph=True,
                                       is_grads_batched=True)
            results[lib] = (grads, fw.unpack_dual(grads).tangent)
    for mine, theirs in zip(results[ag], results[torch]):
        np.testing.assert_allclose(to_numpy(mine), theirs.detach().numpy(), rtol=1e-10)


# ------------------------------------------------------------------ gradcheck


def double(*shape, seed=0):
    return ag.tensor(randn(*shape, seed=seed), requires_grad=True)


@pytest.mark.parametrize("name, fn, inputs", [
    ("mlp", lambda x, w, b: (x @ w + b).tanh().sum(1), (double(3, 4), double(4, 5, seed=1),
                                                        double(5, seed=2))),
    ("views", lambda x: x.t()[1:].exp() * x[:, 0], (double(4, 3),)),
    ("per_row", lambda x: x.prod(0) * x.norm(), (double(2, 3),)),
])
def test_gradcheck_checks_batched_forward_grad(name, fn, inputs):
    assert gradcheck(fn, inputs, check_forward_ad=True, check_batched_forward_grad=True)


def test_gradcheck_reports_a_batched_pass_that_fails(monkeypatch):
    """A batched pass that raises (here make_dual, given a batch with the switch off) is
    reported as torch words it."""
    import contextlib
    monkeypatch.setattr(ag_fwad, "_batched_tangents", lambda batch: contextlib.nullcontext())
    with pytest.raises(GradcheckError, match="(?s)While computing batched gradients, got: "
                       "Trying to set a forward gradient.*batched gradient computation with "
                       "forward-mode AD.*check_batched_forward_grad=False"):
        gradcheck(lambda x: x.exp(), (double(3),), check_forward_ad=True,
                  check_batched_forward_grad=True)


def test_gradcheck_reports_batched_tangents_that_differ(monkeypatch):
    """Batched tangents that differ from the per-tangent ones (here: the batch doubled on
    its way out) fail the check, with torch's message."""
    import sys
    gradcheck_module = sys.modules["autograd_cy.autograd.gradcheck"]

    class Doubling:
        def __getattr__(self, name):
            return getattr(ag_fwad, name)

        def _jvp_of_tangent_batch(self, func, primals, batches):
            outputs, tangents = ag_fwad._jvp_of_tangent_batch(func, primals, batches)
            return outputs, tuple(t * 2 for t in tangents)

    monkeypatch.setattr(gradcheck_module, "_forward_ad", Doubling)   # called: an instance
    with pytest.raises(GradcheckError, match="(?s)^For output 0 and input 0:.*forward-mode AD"
                       ".*Got:.*Expected:"):
        gradcheck(lambda x: x.exp(), (double(3),), check_forward_ad=True,
                  check_batched_forward_grad=True)
