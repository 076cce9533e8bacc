"""The meta device against torch's: tensors with a shape and a dtype and no data, for
describing a model without allocating it (NOTE [Meta tensors]). torch also computes ops on
meta tensors; autograd_cy refuses them with a clear error (tested here too)."""
import copy

import numpy as np
import pytest
import torch

import autograd_cy as ag
from oracle import assert_same_error

pytestmark = pytest.mark.cpu_only


def test_reprs_and_metadata():
    for make in (lambda lib: lib.ones(2, 3).to("meta"),
                 lambda lib: lib.zeros(2, dtype=lib.bool, device="meta"),
                 lambda lib: lib.empty(4, dtype=lib.float64, device="meta").requires_grad_(),
                 lambda lib: lib.arange(3, device="meta"),
                 lambda lib: lib.ones(2, requires_grad=True).to("meta"),
                 lambda lib: lib.nn.Linear(3, 2, device="meta").weight):
        ours, theirs = make(ag), make(torch)
        # (the dtype's longer name may wrap the line elsewhere)
        assert " ".join(repr(ours).replace("autograd_cy.", "torch.").split()) == " ".join(
            repr(theirs).split())
        assert ours.is_meta and str(ours.device) == "meta" and not ours.is_cuda
        assert not ours.is_cpu and not theirs.is_cpu
        assert (tuple(ours.shape), ours.stride(), ours.numel(), ours.element_size()) == (
            tuple(theirs.shape), theirs.stride(), theirs.numel(), theirs.element_size())
    assert not ag.ones(1).is_meta
    assert repr(ag.device("meta")) == repr(torch.device("meta"))
    assert str(ag.device("meta:0")) == str(torch.device("meta:0"))


def test_no_data_to_read():
    def meta(lib):
        return lib.ones(2, 3).to("meta")
    assert_same_error(lambda lib: meta(lib).cpu(), NotImplementedError,
                      "Cannot copy out of meta tensor; no data!")
    assert_same_error(lambda lib: meta(lib).tolist(), NotImplementedError,
                      "Cannot copy out of meta tensor; no data!")
    assert_same_error(lambda lib: meta(lib).numpy(), TypeError,
                      "can't convert meta device type tensor to numpy")
    assert_same_error(lambda lib: meta(lib).sum().item() if lib is torch else meta(lib).item(),
                      RuntimeError, "Tensor.item\\(\\) cannot be called on meta tensors")
    assert_same_error(lambda lib: lib.ones(2, 3).copy_(meta(lib)), NotImplementedError,
                      "Cannot copy out of meta tensor; no data!")


def test_ops_are_refused_with_a_clear_error():
    x = ag.ones(2, 3).to("meta")
    for op in (lambda: x * 2, lambda: x + x, lambda: x.sum(), lambda: x @ x.T,
               lambda: ag.nn.functional.relu(x), lambda: x.reshape(6), lambda: x[0]):
        with pytest.raises(NotImplementedError, match="runs no ops on meta tensors"):
            op()


def test_what_keeps_the_metadata():
    def run(lib):
        x = lib.ones(2, 3, requires_grad=True).to("meta")
        results = [x.to(lib.float64), x.half(), x.clone(), lib.zeros_like(x),
                   lib.empty_like(x, dtype=lib.int32), lib.randn_like(x), lib.full_like(x, 2.0),
                   lib.zeros_like(lib.ones(2), device="meta"), x.detach().fill_(1),
                   x.detach().zero_(), x.detach().copy_(lib.ones(3))]
        return [(r.is_meta, str(r.dtype).split(".")[-1], tuple(r.shape),
                 r.grad_fn.name() if r.grad_fn is not None else None) for r in results]
    assert run(ag) == run(torch)


def test_modules_on_the_meta_device():
    def run(lib):
        with lib.device("meta"):
            model = lib.nn.Sequential(lib.nn.Conv2d(3, 4, 3), lib.nn.BatchNorm2d(4),
                                      lib.nn.Flatten(), lib.nn.Linear(4, 2))
            inner = lib.ones(1).device
        outer = lib.ones(1).device
        described = [(name, t.is_meta, tuple(t.shape)) for name, t in model.state_dict().items()]
        model.to_empty(device="cpu")
        real = [(name, t.is_meta, str(t.device)) for name, t in model.state_dict().items()]
        return described, real, str(inner), str(outer)
    assert run(ag) == run(torch)


def test_ensembling_tutorial_skeleton():
    """torch.func's model-ensembling tutorial: a meta copy of a model as the skeleton that
    functional_call fills with each model's stacked parameters under vmap."""
    def run(lib):
        rng = np.random.default_rng(0)
        models = [lib.nn.Sequential(lib.nn.Linear(5, 4), lib.nn.ReLU(), lib.nn.Linear(4, 3))
                  for _ in range(3)]
        with lib.no_grad():
            for model in models:
                for p in model.parameters():
                    p.copy_(lib.from_numpy(rng.standard_normal(tuple(p.shape)).astype(
                        np.float32)))
        params, buffers = lib.func.stack_module_state(models)
        base = copy.deepcopy(models[0]).to("meta")
        x = lib.from_numpy(rng.standard_normal((3, 2, 5)).astype(np.float32))
        out = lib.func.vmap(lambda p, b, x: lib.func.functional_call(base, (p, b), (x,)))(
            params, buffers, x)
        return out.detach().numpy()
    np.testing.assert_allclose(run(ag), run(torch), rtol=1e-5, atol=1e-6)


def test_init_on_meta_tensors_does_nothing():
    for lib in (ag, torch):
        w = lib.empty(3, 4, device="meta")
        for init in (lib.nn.init.kaiming_uniform_, lib.nn.init.xavier_normal_,
                     lib.nn.init.zeros_, lib.nn.init.orthogonal_, lib.nn.init.trunc_normal_):
            assert init(w) is w and w.is_meta
