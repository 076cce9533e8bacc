"""amp.GradScaler against torch's on the CPU: scaled losses, unscaled gradients, skipped
steps, the scale's growth and backoff, state_dict, errors, and the disabled pass-through."""
import os
import subprocess
import sys
import textwrap
import warnings

import numpy as np
import pytest

import autograd_cy as ag
import torch
from oracle import LIBS, assert_close, assert_same_error, same_warning


def _train(lib, steps, poison=(), **scaler_args):
    """A few SGD steps of a linear model with a CPU GradScaler; a step in ``poison`` gets an
    inf in a gradient. Returns the scales, the weights and the losses."""
    rng = np.random.default_rng(0)
    weight = lib.tensor(rng.standard_normal((3, 2)), dtype=lib.float32, requires_grad=True)
    data = lib.tensor(rng.standard_normal((4, 3)), dtype=lib.float32)
    optimizer = lib.optim.SGD([weight], lr=0.1)
    scaler = lib.amp.GradScaler("cpu", **scaler_args)
    scales, losses = [], []
    for step in range(steps):
        optimizer.zero_grad()
        loss = (data @ weight).square().mean()
        scaled = scaler.scale(loss)
        losses.append(scaled.item())
        scaled.backward()
        if step in poison:
            with lib.no_grad():
                weight.grad[0, 0] = float("inf")
        scaler.step(optimizer)
        scaler.update()
        scales.append(scaler.get_scale())
    return scales, weight.detach(), losses, scaler.state_dict()


@pytest.mark.parametrize("args", [
    {},
    {"init_scale": 8.0, "growth_interval": 2},
    {"init_scale": 4.0, "growth_interval": 3, "growth_factor": 4.0, "backoff_factor": 0.25},
])
@pytest.mark.parametrize("poison", [(), (1,), (0, 3)])
def test_training_matches_torch(args, poison):
    ours = _train(ag, 5, poison, **args)
    theirs = _train(torch, 5, poison, **args)
    assert ours[0] == theirs[0]                       # the scales
    assert_close(ours[1], theirs[1])                  # the weights
    np.testing.assert_allclose(ours[2], theirs[2], rtol=1e-5)
    assert ours[3] == theirs[3]                       # state_dict


def test_scale_of_nested_outputs_and_unscale():
    results = []
    for lib in LIBS:
        scaler = lib.amp.GradScaler("cpu", init_scale=4.0)
        a, b = lib.tensor([1.0, 2.0]), lib.tensor([3.0])
        scaled = scaler.scale([a, (b, a)])
        p = lib.tensor([1.0, -1.0], requires_grad=True)
        optimizer = lib.optim.SGD([p], lr=1.0)
        scaler.scale((p * 3).sum()).backward()
        grad_scaled = p.grad.tolist()
        scaler.unscale_(optimizer)
        results.append((type(scaled).__name__, [scaled[0].tolist(), scaled[1][0].tolist()],
                        grad_scaled, p.grad.tolist(), scaler.get_scale()))
    assert results[0] == results[1]


def _scaler_with_grads(lib):
    p = lib.tensor([1.0], requires_grad=True)
    optimizer = lib.optim.SGD([p], lr=1.0)
    scaler = lib.amp.GradScaler("cpu")
    scaler.scale(p.sum()).backward()
    return scaler, optimizer


def test_errors():
    def twice(lib):
        scaler, optimizer = _scaler_with_grads(lib)
        scaler.unscale_(optimizer)
        scaler.unscale_(optimizer)

    def after_step(lib):
        scaler, optimizer = _scaler_with_grads(lib)
        scaler.step(optimizer)
        scaler.unscale_(optimizer)

    def step_twice(lib):
        scaler, optimizer = _scaler_with_grads(lib)
        scaler.step(optimizer)
        scaler.step(optimizer)

    def closure(lib):
        scaler, optimizer = _scaler_with_grads(lib)
        scaler.step(optimizer, closure=lambda: None)

    assert_same_error(twice, RuntimeError, exact=True)
    assert_same_error(after_step, RuntimeError, exact=True)
    assert_same_error(step_twice, RuntimeError, exact=True)
    assert_same_error(closure, RuntimeError, exact=True)
    assert_same_error(lambda lib: lib.amp.GradScaler("cpu").update(), AssertionError,
                      "did not use scaler.scale")
    assert_same_error(lambda lib: lib.amp.GradScaler("cpu", enabled=True).load_state_dict({}),
                      RuntimeError, exact=True)


def test_state_dict_round_trip():
    for lib in LIBS:
        source = lib.amp.GradScaler("cpu", init_scale=32.0, growth_interval=7)
        target = lib.amp.GradScaler("cpu")
        target.load_state_dict(source.state_dict())
        assert target.state_dict() == {"scale": 32.0, "growth_factor": 2.0,
                                       "backoff_factor": 0.5, "growth_interval": 7,
                                       "_growth_tracker": 0}


def test_update_with_a_new_scale():
    for lib in LIBS:
        scaler, optimizer = _scaler_with_grads(lib)
        scaler.step(optimizer)
        scaler.update(128.0)
        assert scaler.get_scale() == 128.0
        scaler.update(lib.tensor(16.0))
        assert scaler.get_scale() == 16.0


def test_disabled_scaler_passes_through():
    results = []
    for lib in LIBS:
        scaler = lib.amp.GradScaler("cpu", enabled=False)
        p = lib.tensor([1.0], requires_grad=True)
        optimizer = lib.optim.SGD([p], lr=0.5)
        loss = p.sum() * 2
        assert scaler.scale(loss) is loss
        loss.backward()
        scaler.unscale_(optimizer)
        scaler.step(optimizer)
        scaler.update()
        results.append((p.tolist(), scaler.get_scale(), scaler.state_dict(),
                        scaler.is_enabled()))
    assert results[0] == results[1] == ([0.0], 1.0, {}, False)


def test_cuda_scaler_without_cuda_disables_itself():
    """Without a CUDA device (AUTOGRAD_CY_CUDA=off, in a fresh interpreter) a "cuda" scaler
    warns and passes through, as torch's does on a CPU-only build."""
    script = textwrap.dedent("""
        import warnings
        import autograd_cy as ag
        assert not ag.cuda.is_available()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            scaler = ag.amp.GradScaler("cuda")
        print([str(w.message) for w in caught], scaler.is_enabled(), scaler.state_dict(),
              scaler.get_scale())
        """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          env={**os.environ, "AUTOGRAD_CY_CUDA": "off"}, timeout=300,
                          cwd=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    assert done.returncode == 0, done.stderr
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        scaler = torch.amp.GradScaler("cuda")
    expected = str([str(w.message) for w in caught if "CUDA" in str(w.message)])
    assert done.stdout.split("] ")[0] + "]" == expected
    assert done.stdout.strip().endswith("False {} 1.0")
    assert not scaler.is_enabled()


def test_legacy_cuda_scaler():
    same_warning(lambda lib: lib.cuda.amp.GradScaler(enabled=False), FutureWarning,
                 r"torch.cuda.amp.GradScaler\(args...\)` is deprecated")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        scaler = ag.cuda.amp.GradScaler(init_scale=8.0)
    assert scaler._device == "cuda"
    assert scaler.get_scale() == (8.0 if ag.cuda.is_available() else 1.0)


@pytest.mark.skipif(not ag.cuda.is_available(), reason="needs a CUDA device (or the emulator)")
def test_cuda_scaler_scales_on_the_device():
    p = ag.tensor([1.0, 2.0], device="cuda", requires_grad=True)
    optimizer = ag.optim.SGD([p], lr=1.0)
    scaler = ag.amp.GradScaler("cuda", init_scale=4.0)
    loss = scaler.scale((p * p).sum())
    assert loss.is_cuda and loss.item() == 20.0
    loss.backward()
    scaler.step(optimizer)
    scaler.update()
    assert p.tolist() == [-1.0, -2.0]
