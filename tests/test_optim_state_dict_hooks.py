"""Optimizer's state-dict hooks (register_state_dict_pre/post_hook,
register_load_state_dict_pre/post_hook, with prepend), profile_hook_step and the
OptimizerPreHook/OptimizerPostHook names, against torch's."""
import numpy as np

import autograd_cy as ag
from oracle import assert_same, both


def _sgd(lib):
    w = lib.tensor([1.0, 2.0], requires_grad=True)
    w.grad = lib.tensor([0.5, -1.0])
    opt = lib.optim.SGD([w], lr=0.1, momentum=0.9)
    opt.step()
    return w, opt


def test_state_dict_hooks_order_prepend_and_replacement():
    def run(lib):
        _, opt = _sgd(lib)
        calls = []
        opt.register_state_dict_pre_hook(lambda o: calls.append("pre1"))
        opt.register_state_dict_pre_hook(lambda o: calls.append("pre0"), prepend=True)
        handle = opt.register_state_dict_pre_hook(lambda o: calls.append("gone"))
        handle.remove()

        def post(o, sd):
            calls.append("post")
            sd["extra"] = 1

        def replace(o, sd):
            calls.append("replace")
            return {"replaced": sorted(sd)}
        opt.register_state_dict_post_hook(post)
        opt.register_state_dict_post_hook(replace)
        opt.register_state_dict_post_hook(lambda o, sd: calls.append("first"), prepend=True)
        return calls, opt.state_dict(), calls
    assert_same(run)


def test_load_state_dict_hooks():
    def run(lib):
        w, opt = _sgd(lib)
        saved = opt.state_dict()
        calls = []

        def pre(o, sd):
            calls.append(("pre", sorted(sd), sd is saved))
            sd["param_groups"] = [dict(sd["param_groups"][0], lr=0.25)]
            sd["junk"] = 1       # a shallow copy: the caller's dict keeps its keys

        def replace(o, sd):
            calls.append("replace")
            new = dict(sd)
            new["param_groups"] = [dict(sd["param_groups"][0], momentum=0.5)]
            return new
        opt.register_load_state_dict_pre_hook(pre)
        opt.register_load_state_dict_pre_hook(replace)
        opt.register_load_state_dict_pre_hook(lambda o, sd: calls.append("first"),
                                              prepend=True)
        opt.register_load_state_dict_post_hook(
            lambda o: calls.append(("post", o.param_groups[0]["lr"])))
        opt.register_load_state_dict_post_hook(lambda o: calls.append("post0"),
                                               prepend=True)
        opt.load_state_dict(saved)
        group = opt.param_groups[0]
        return calls, sorted(saved), group["lr"], group["momentum"]
    assert_same(run)


def test_hooks_survive_pickling_as_empty_tables():
    import pickle

    def run(lib):
        _, opt = _sgd(lib)
        opt.register_state_dict_pre_hook(print)
        again = pickle.loads(pickle.dumps(opt))
        return [len(getattr(again, name)) for name in (
            "_optimizer_state_dict_pre_hooks", "_optimizer_state_dict_post_hooks",
            "_optimizer_load_state_dict_pre_hooks", "_optimizer_load_state_dict_post_hooks")]
    assert_same(run)


def test_profile_hook_step_runs_the_step_hooks():
    def run(lib):
        calls = []

        class Plain(lib.optim.Optimizer):
            def __init__(self, params):
                super().__init__(params, {"lr": 1.0})

            def step(self, closure=None, scale=1):
                calls.append(("step", scale))

        w = lib.zeros(1, requires_grad=True)
        opt = Plain([w])
        opt.register_step_pre_hook(lambda o, args, kwargs: (args, {"scale": 3}))
        opt.register_step_post_hook(lambda o, args, kwargs: calls.append(("post", kwargs)))
        opt.step()
        wrapped = lib.optim.Optimizer.profile_hook_step(
            lambda self, x, scale=1: calls.append((x, scale)))
        wrapped(opt, "direct")
        return calls, getattr(type(opt).step, "hooked", None)
    assert_same(run)


def test_step_is_a_profiler_range():
    def run(lib):
        _, opt = _sgd(lib)
        with lib.autograd.profiler.profile() as prof:
            opt.step()
        return [e.name for e in prof.function_events if e.name.startswith("Optimizer.")]
    ours, theirs = both(run)
    assert ours == theirs == ["Optimizer.step#SGD.step"]


def test_hook_type_names():
    for name in ("OptimizerPreHook", "OptimizerPostHook"):
        assert hasattr(ag.optim.Optimizer, name)


def test_state_dict_still_loads_values():
    w, opt = _sgd(ag)
    opt.register_state_dict_post_hook(lambda o, sd: None)
    sd = opt.state_dict()
    opt.load_state_dict(sd)
    np.testing.assert_allclose(w.detach().cpu().numpy(), [0.95, 2.1])
