"""Every differentiable op through gradcheck and gradgradcheck (float64 finite differences).

The torch comparisons in the test_ops_* files say autograd_cy agrees with PyTorch;
this file says both agree with the mathematics: analytical first and second
derivatives against central differences, independently of any reference library.
"""
import numpy as np
import pytest

import autograd_cy as ag
import autograd_cy.nn.functional as F
from autograd_cy.autograd import gradcheck, gradgradcheck


def leaf(*shape, low=None, seed=0):
    """A float64 leaf with values away from kinks (|x| >= 0.2) or above ``low``."""
    rng = np.random.default_rng(seed + sum(shape))
    values = rng.uniform(0.2, 1.5, shape) * rng.choice([-1.0, 1.0], shape)
    if low is not None:
        values = np.abs(values) + low
    return ag.tensor(values, dtype=ag.float64, requires_grad=True)


# (name, function, inputs): each function maps leaves to a tensor.
CASES = [
    ("add", lambda a, b: a + b, lambda: (leaf(3, 4), leaf(4, seed=1))),
    ("sub_alpha", lambda a, b: ag.sub(a, b, alpha=2.5), lambda: (leaf(3, 4), leaf(3, 1))),
    ("mul", lambda a, b: a * b, lambda: (leaf(2, 3), leaf(3, seed=2))),
    ("div", lambda a, b: a / b, lambda: (leaf(2, 3), leaf(3, low=0.5))),
    ("rdiv", lambda a: 2.0 / a, lambda: (leaf(4, low=0.5),)),
    ("neg", lambda a: -a, lambda: (leaf(5),)),
    ("pow_scalar", lambda a: a ** 3, lambda: (leaf(4),)),
    ("pow_tensor", lambda a, b: a ** b, lambda: (leaf(4, low=0.5), leaf(4, seed=3))),
    ("rpow", lambda a: 2.0 ** a, lambda: (leaf(4),)),
    ("matmul_2d", lambda a, b: a @ b, lambda: (leaf(3, 4), leaf(4, 2, seed=1))),
    ("matmul_batched", lambda a, b: a @ b, lambda: (leaf(2, 3, 4), leaf(4, 2, seed=1))),
    ("matmul_vector", lambda a, b: a @ b, lambda: (leaf(4), leaf(2, 4, 3, seed=1))),
    ("addmm", lambda c, a, b: ag.addmm(c, a, b, beta=0.5, alpha=2.0),
     lambda: (leaf(3), leaf(2, 4, seed=1), leaf(4, 3, seed=2))),
    ("exp", lambda a: a.exp(), lambda: (leaf(4),)),
    ("log", lambda a: a.log(), lambda: (leaf(4, low=0.3),)),
    ("log1p", lambda a: a.log1p(), lambda: (leaf(4, low=0.3),)),
    ("expm1", lambda a: a.expm1(), lambda: (leaf(4),)),
    ("sqrt", lambda a: a.sqrt(), lambda: (leaf(4, low=0.3),)),
    ("rsqrt", lambda a: a.rsqrt(), lambda: (leaf(4, low=0.3),)),
    ("sin", lambda a: a.sin(), lambda: (leaf(4),)),
    ("cos", lambda a: a.cos(), lambda: (leaf(4),)),
    ("tanh", lambda a: a.tanh(), lambda: (leaf(4),)),
    ("sigmoid", lambda a: a.sigmoid(), lambda: (leaf(4),)),
    ("relu", lambda a: a.relu(), lambda: (leaf(6),)),
    ("abs", lambda a: a.abs(), lambda: (leaf(6),)),
    ("reciprocal", lambda a: a.reciprocal(), lambda: (leaf(4, low=0.3),)),
    ("square", lambda a: a.square(), lambda: (leaf(4),)),
    ("clamp", lambda a: a.clamp(-0.5, 0.7), lambda: (leaf(8),)),
    ("clamp_tensor", lambda a, lo: ag.clamp(a, min=lo),
     lambda: (leaf(6), leaf(6, seed=5))),
    ("maximum", lambda a, b: ag.maximum(a, b), lambda: (leaf(5), leaf(5, seed=4))),
    ("minimum", lambda a, b: ag.minimum(a, b), lambda: (leaf(5), leaf(5, seed=4))),
    ("where", lambda a, b: ag.where(a > 0, a, b), lambda: (leaf(6), leaf(6, seed=2))),
    ("sum_dim", lambda a: a.sum(dim=(0, 2), keepdim=True), lambda: (leaf(2, 3, 4),)),
    ("mean", lambda a: a.mean(1), lambda: (leaf(3, 4),)),
    ("var", lambda a: a.var(0), lambda: (leaf(4, 3),)),
    ("std", lambda a: a.std(), lambda: (leaf(5),)),
    ("prod", lambda a: a.prod(1), lambda: (leaf(2, 4),)),
    ("amax", lambda a: a.amax(1), lambda: (leaf(3, 4),)),
    ("max_dim", lambda a: a.max(1).values, lambda: (leaf(3, 4),)),
    ("min_full", lambda a: a.min(), lambda: (leaf(3, 4),)),
    ("norm", lambda a: a.norm(), lambda: (leaf(3, 4),)),
    ("norm_p3_dim", lambda a: a.norm(p=3, dim=1), lambda: (leaf(3, 4),)),
    ("logsumexp", lambda a: a.logsumexp(1), lambda: (leaf(3, 4),)),
    ("reshape", lambda a: a.reshape(4, 3), lambda: (leaf(3, 4),)),
    ("transpose", lambda a: a.transpose(0, 2), lambda: (leaf(2, 3, 4),)),
    ("permute", lambda a: a.permute(2, 0, 1), lambda: (leaf(2, 3, 4),)),
    ("expand", lambda a: a.expand(3, 4), lambda: (leaf(1, 4),)),
    ("repeat", lambda a: a.repeat(2, 3), lambda: (leaf(2, 2),)),
    ("squeeze_unsqueeze", lambda a: a.squeeze(1).unsqueeze(0), lambda: (leaf(3, 1, 2),)),
    ("narrow", lambda a: a.narrow(1, 1, 2), lambda: (leaf(3, 4),)),
    ("split", lambda a: a.split(2, dim=1)[1], lambda: (leaf(3, 5),)),
    ("unbind", lambda a: a.unbind(0)[1], lambda: (leaf(3, 2),)),
    ("cat", lambda a, b: ag.cat([a, b], 1), lambda: (leaf(2, 3), leaf(2, 2, seed=1))),
    ("stack", lambda a, b: ag.stack([a, b], 0), lambda: (leaf(2, 3), leaf(2, 3, seed=1))),
    ("getitem_basic", lambda a: a[1:, ::2], lambda: (leaf(3, 5),)),
    ("getitem_advanced", lambda a: a[ag.tensor([0, 2, 0])], lambda: (leaf(3, 4),)),
    ("getitem_mask", lambda a: a[a > 0], lambda: (leaf(3, 4),)),
    ("index_select", lambda a: a.index_select(1, ag.tensor([2, 0, 2])), lambda: (leaf(3, 4),)),
    ("gather", lambda a: a.gather(1, ag.tensor([[0, 1], [2, 2], [1, 0]])),
     lambda: (leaf(3, 4),)),
    ("masked_fill", lambda a: a.masked_fill(a > 0.5, 2.0), lambda: (leaf(3, 4),)),
    ("clone_to", lambda a: a.clone().to(ag.float64), lambda: (leaf(3),)),
    ("setitem_nonleaf", lambda a, v: _setitem(a, v), lambda: (leaf(3, 4), leaf(4, seed=3))),
    ("inplace_view", lambda a: _inplace_view(a), lambda: (leaf(3, 4),)),
    ("softmax", lambda a: F.softmax(a, dim=1), lambda: (leaf(3, 4),)),
    ("log_softmax", lambda a: F.log_softmax(a, dim=0), lambda: (leaf(3, 4),)),
    ("gelu", lambda a: F.gelu(a), lambda: (leaf(5),)),
    ("gelu_tanh", lambda a: F.gelu(a, approximate="tanh"), lambda: (leaf(5),)),
    ("silu", lambda a: F.silu(a), lambda: (leaf(5),)),
    ("softplus", lambda a: F.softplus(a, beta=2.0), lambda: (leaf(5),)),
    ("leaky_relu", lambda a: F.leaky_relu(a, 0.1), lambda: (leaf(6),)),
    ("linear", lambda x, w, b: F.linear(x, w, b),
     lambda: (leaf(2, 3), leaf(4, 3, seed=1), leaf(4, seed=2))),
    ("mse_loss", lambda a, b: F.mse_loss(a, b), lambda: (leaf(3, 4), leaf(3, 4, seed=1))),
    ("cross_entropy", lambda a: F.cross_entropy(a, ag.tensor([1, 0, 3])),
     lambda: (leaf(3, 4),)),
    ("cross_entropy_probs", lambda a, p: F.cross_entropy(a, F.softmax(p, dim=1)),
     lambda: (leaf(3, 4), leaf(3, 4, seed=7))),
    ("bce", lambda a: F.binary_cross_entropy(a.sigmoid(), ag.tensor([0.0, 1.0, 1.0],
                                                                  dtype=ag.float64)),
     lambda: (leaf(3),)),
    ("bce_with_logits", lambda a: F.binary_cross_entropy_with_logits(
        a, ag.tensor([0.0, 1.0, 0.3], dtype=ag.float64)), lambda: (leaf(3),)),
]


def _setitem(a, v):
    y = a * 2
    y[1] = v * 3
    return y


def _inplace_view(a):
    y = a * 1
    y[:, 1:3].mul_(y[:, :2].exp())
    return y


@pytest.mark.parametrize("name, fn, make_inputs", CASES, ids=[c[0] for c in CASES])
def test_gradcheck(name, fn, make_inputs):
    assert gradcheck(fn, make_inputs())


@pytest.mark.parametrize("name, fn, make_inputs", CASES, ids=[c[0] for c in CASES])
def test_gradgradcheck(name, fn, make_inputs):
    assert gradgradcheck(fn, make_inputs())
