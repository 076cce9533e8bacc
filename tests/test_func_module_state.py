"""torch.func's model-ensembling names against torch: stack_module_state (with vmap over
functional_call), replace_all_batch_norm_modules_, functionalize, debug_unwrap."""
import numpy as np
import pytest
import torch

import autograd_cy as ag
from oracle import assert_same_error

pytestmark = pytest.mark.cpu_only


def _models(lib, count=3):
    """``count`` small models with the same seeded weights in both libraries."""
    rng = np.random.default_rng(0)
    models = []
    for _ in range(count):
        model = lib.nn.Sequential(lib.nn.Linear(5, 4), lib.nn.BatchNorm1d(4), lib.nn.ReLU(),
                                  lib.nn.Linear(4, 2))
        with lib.no_grad():
            for p in model.parameters():
                p.copy_(lib.from_numpy(rng.standard_normal(tuple(p.shape)).astype(np.float32)))
        models.append(model)
    return models


def _ensemble(lib):
    models = _models(lib)
    params, buffers = lib.func.stack_module_state(models)
    x = lib.from_numpy(np.random.default_rng(1).standard_normal((3, 6, 5)).astype(np.float32))

    def run(params, buffers, x):
        return lib.func.functional_call(models[0], (params, buffers), (x,))
    out = lib.func.vmap(run)(params, buffers, x)
    out.square().sum().backward()
    return params, buffers, out


def test_stack_module_state_with_vmap_as_torch():
    ours, theirs = _ensemble(ag), _ensemble(torch)
    assert list(ours[0]) == list(theirs[0]) and list(ours[1]) == list(theirs[1])
    for name in theirs[0]:
        a, b = ours[0][name], theirs[0][name]
        assert a.is_leaf and a.requires_grad and tuple(a.shape) == tuple(b.shape)
        np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=1e-4, atol=1e-4)
    for name in theirs[1]:
        assert not ours[1][name].requires_grad
        # the running statistics, updated in place through vmap in training mode
        np.testing.assert_allclose(ours[1][name].numpy(), theirs[1][name].numpy(), rtol=1e-5,
                                   atol=1e-6)
    np.testing.assert_allclose(ours[2].detach().numpy(), theirs[2].detach().numpy(), rtol=1e-5,
                               atol=1e-5)


def test_stack_module_state_errors():
    assert_same_error(lambda lib: lib.func.stack_module_state([]), RuntimeError,
                      "Expected at least one model, got 0")
    assert_same_error(lambda lib: lib.func.stack_module_state(
        [lib.nn.Linear(2, 2), lib.nn.Linear(2, 2).eval()]), RuntimeError,
        "same training/eval mode")
    assert_same_error(lambda lib: lib.func.stack_module_state(
        [lib.nn.Linear(2, 2), lib.nn.Sequential(lib.nn.Linear(2, 2))]), RuntimeError,
        "same class")

    def mixed(lib):
        a, b = lib.nn.Linear(2, 2), lib.nn.Linear(2, 2)
        b.bias.requires_grad_(False)
        return lib.func.stack_module_state([a, b])
    assert_same_error(mixed, RuntimeError, "Expected bias from each model to have the same "
                                           ".requires_grad")


def test_replace_all_batch_norm_modules():
    for lib in (ag, torch):
        model = _models(lib, 1)[0]
        assert lib.func.replace_all_batch_norm_modules_(model) is model
        norm = model[1]
        assert norm.running_mean is None and norm.running_var is None
        assert norm.num_batches_tracked is None and not norm.track_running_stats
    ours = ag.func.replace_all_batch_norm_modules_(_models(ag, 1)[0])
    theirs = torch.func.replace_all_batch_norm_modules_(_models(torch, 1)[0])
    assert list(ours.state_dict()) == list(theirs.state_dict())


def test_functionalize_and_debug_unwrap():
    def f(lib, x):
        y = x.clone()
        y.mul_(2)
        x.add_(1)               # an input mutation is written back, as torch's
        return y
    for lib in (ag, torch):
        x = lib.ones(3)
        out = lib.func.functionalize(lambda t: f(lib, t))(x)
        assert out.tolist() == [2.0, 2.0, 2.0] and x.tolist() == [2.0, 2.0, 2.0]
    assert_same_error(lambda lib: lib.func.functionalize(lambda t: t, remove="views"),
                      RuntimeError, "received invalid argument for remove=views")
    seen = []
    ag.func.vmap(lambda t: seen.append(ag.func.debug_unwrap(t)) or t)(ag.ones(4, 2))
    assert type(seen[0]) is ag.Tensor and tuple(seen[0].shape) == (4, 2)
    plain = ag.ones(2)
    assert ag.func.debug_unwrap(plain) is plain
