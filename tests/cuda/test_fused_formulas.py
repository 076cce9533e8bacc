"""Backward formulas run as one fused kernel on a CUDA device (NOTE [Fused formulas on
CUDA] in pyx/device.pyx): the launches counted at the seam, the values against torch."""
import numpy as np
import pytest
import torch

import autograd_cy as ag

X = np.linspace(-3, 3, 12).reshape(3, 4)


def seam():
    return ag.cuda.devices.get(0).seam


@pytest.mark.parametrize("name, op, kernel", [
    ("tanh", lambda lib, x: x.tanh(), "tanh_backward<float>"),
    ("sigmoid", lambda lib, x: x.sigmoid(), "sigmoid_backward<float>"),
    ("relu", lambda lib, x: x.relu(), "threshold_backward<float>"),
    ("gelu", lambda lib, x: lib.nn.functional.gelu(x), "gelu_backward<float>"),
    ("gelu tanh", lambda lib, x: lib.nn.functional.gelu(x, approximate="tanh"),
     "gelu_tanh_backward<float>"),
    ("silu", lambda lib, x: lib.nn.functional.silu(x), "silu_backward<float>"),
    ("softplus", lambda lib, x: lib.nn.functional.softplus(x, beta=2.0, threshold=3.0),
     "softplus_backward<float>"),
])
def test_an_activation_backward_is_one_launch(name, op, kernel):
    x = ag.tensor(X, dtype=ag.float32, device="cuda", requires_grad=True)
    y = op(ag, x)
    grad = ag.tensor(np.cos(X), dtype=ag.float32, device="cuda")
    counters = seam().counters
    counters.reset()
    (got,) = ag.autograd.grad(y, x, grad)
    assert counters.by_kernel == {kernel: 1}, counters.by_kernel
    expected_x = torch.tensor(X, dtype=torch.float32, requires_grad=True)
    (expected,) = torch.autograd.grad(op(torch, expected_x), expected_x,
                                      torch.tensor(np.cos(X), dtype=torch.float32))
    np.testing.assert_allclose(got.cpu().numpy(), expected.numpy(), rtol=1e-5, atol=1e-6)


def test_mul_computes_both_gradients_in_one_launch():
    a = ag.tensor(X, dtype=ag.float32, device="cuda", requires_grad=True)
    b = ag.tensor(np.sin(X) + 2, dtype=ag.float32, device="cuda", requires_grad=True)
    counters = seam().counters
    y = a * b
    counters.reset()
    grads = ag.autograd.grad(y, (a, b), ag.ones(3, 4, device="cuda"))
    assert counters.by_kernel == {"mul_backward<float>": 1}, counters.by_kernel
    np.testing.assert_allclose(grads[0].cpu().numpy(), b.detach().cpu().numpy(), rtol=1e-6)
    np.testing.assert_allclose(grads[1].cpu().numpy(), a.detach().cpu().numpy(), rtol=1e-6)


def test_with_create_graph_the_formula_is_recorded_instead():
    x = ag.tensor(X, device="cuda", requires_grad=True)
    (g,) = ag.autograd.grad(x.tanh().sum(), x, create_graph=True)
    assert g.grad_fn is not None                    # double backward goes through it
    (gg,) = ag.autograd.grad(g.sum(), x)
    t = torch.tensor(X, dtype=torch.float32, requires_grad=True)
    (tg,) = torch.autograd.grad(t.tanh().sum(), t, create_graph=True)
    (tgg,) = torch.autograd.grad(tg.sum(), t)
    np.testing.assert_allclose(gg.cpu().numpy(), tgg.numpy(), rtol=1e-5, atol=1e-6)
