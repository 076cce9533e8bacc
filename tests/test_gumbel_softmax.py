"""F.gumbel_softmax (autograd_cy/nn/gumbel_softmax.py) against torch's: autograd_cy's
default generator draws torch's numbers, so a seeded sample, its hard (straight-through)
form and their gradients must be torch's exactly (CPU); on any device, the argmax
frequencies of many samples follow softmax(logits) and the hard sample's gradient is the
soft sample's."""
import numpy as np
import pytest

import autograd_cy as ag
from oracle import DEVICE, assert_same, no_warning, randn, same_warning

CASES = {
    "soft": dict(),
    "soft_tau_dim0": dict(tau=0.3, dim=0),
    "hard": dict(hard=True),
    "hard_dim0_tau": dict(hard=True, tau=2.0, dim=0),
}


@pytest.mark.cpu_only
@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("name", CASES)
def test_seeded_sample_and_gradient(name, dtype):
    def run(lib):
        lib.manual_seed(7)
        x = lib.tensor(randn(3, 5), dtype=getattr(lib, dtype), requires_grad=True)
        y = lib.nn.functional.gumbel_softmax(x, **CASES[name])
        weights = lib.tensor(randn(3, 5, seed=1), dtype=getattr(lib, dtype))
        (y * weights).sum().backward()
        return y, x.grad, y.grad_fn.name()
    assert_same(run, rtol=1e-5, atol=1e-6)


@pytest.mark.cpu_only
def test_non_contiguous_logits_draw_in_logical_order():
    def run(lib):
        lib.manual_seed(3)
        x = lib.tensor(randn(4, 3)).t()
        return lib.nn.functional.gumbel_softmax(x, hard=True)
    assert_same(run)


def test_eps_is_deprecated():
    def run(lib):
        return lib.nn.functional.gumbel_softmax(lib.zeros(2, 3), eps=1e-5).shape
    same_warning(run, UserWarning, r"^`eps` parameter is deprecated and has no effect\.$")
    no_warning(lambda lib: lib.nn.functional.gumbel_softmax(lib.zeros(2, 3)), "eps")


def test_argmax_frequencies_follow_softmax():
    logits = np.array([1.0, 0.0, -1.0, 0.5])
    x = ag.tensor(np.tile(logits, (4000, 1)), device=DEVICE)
    ag.manual_seed(0)
    hard = ag.nn.functional.gumbel_softmax(x, tau=0.7, hard=True)
    counts = hard.sum(0).cpu().numpy() / 4000
    expected = np.exp(logits) / np.exp(logits).sum()
    np.testing.assert_allclose(counts, expected, atol=0.03)
    assert set(np.unique(hard.cpu().numpy())) == {0.0, 1.0}


def test_hard_gradient_is_the_soft_samples():
    x = ag.tensor(randn(3, 4), device=DEVICE, requires_grad=True)
    weights = ag.tensor(randn(3, 4, seed=2), device=DEVICE)
    grads = []
    for hard in (False, True):
        ag.manual_seed(11)
        (ag.nn.functional.gumbel_softmax(x, hard=hard) * weights).sum().backward()
        grads.append(x.grad.cpu().numpy())
        x.grad = None
    np.testing.assert_allclose(grads[1], grads[0], rtol=1e-12, atol=1e-12)
