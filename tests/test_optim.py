"""``autograd_cy.optim`` against ``torch.optim``: the same parameters and gradient sequence
give the same parameters step after step (SGD, Adam, AdamW and their options, parameter
groups, skipped parameters, half and complex dtypes), the same ``state_dict()``, the same
state after ``load_state_dict`` (its casts, its checks), the same errors, warnings, reprs,
``zero_grad`` and step hooks. torch runs its single-tensor path (``foreach=False``), the
reference of NOTE [Optimizer steps on the arrays]."""
from copy import deepcopy
import warnings

import numpy as np
import pytest
import torch

import autograd_cy as ag
from tests.oracle import assert_close, assert_same_error, same_warning

SHAPES = [(4, 3), (5,), (), (2, 1, 2)]
STEPS = 8
TOLERANCES = {np.float32: (1e-5, 1e-6), np.float64: (1e-12, 1e-14)}


def initial_values(dtype=np.float64, seed=0):
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(s).astype(dtype) for s in SHAPES]


def gradient_sequence(dtype=np.float64, seed=1, skip=((2, 1), (5, 1), (5, 3))):
    """One gradient per parameter per step; None at the (step, parameter) pairs of
    ``skip`` (a parameter without a gradient is left out of that step)."""
    rng = np.random.default_rng(seed)
    return [[None if (k, i) in skip else rng.standard_normal(s).astype(dtype)
             for i, s in enumerate(SHAPES)] for k in range(STEPS)]


def leaves(lib, values):
    return [lib.tensor(v, requires_grad=True) for v in values]


def set_grads(lib, params, grads):
    for p, g in zip(params, grads):
        p.grad = None if g is None else lib.tensor(g)


def train(lib, make, values, grads, **kwargs):
    """Parameters from ``values``, the optimizer ``make(lib, params)``, one step per entry
    of ``grads``; returns (params, optimizer)."""
    params = leaves(lib, values)
    opt = make(lib, params)
    for step_grads in grads:
        set_grads(lib, params, step_grads)
        opt.step(**kwargs)
    return params, opt


def assert_same_state_dict(ours, theirs, rtol=1e-6, atol=1e-7):
    """Same groups (plain values), same state keys, same state tensors (dtype included)."""
    assert ours.keys() == theirs.keys() == {"state", "param_groups"}
    assert ours["param_groups"] == theirs["param_groups"]
    assert ours["state"].keys() == theirs["state"].keys()
    for index, state in theirs["state"].items():
        assert ours["state"][index].keys() == state.keys(), index
        for key, value in state.items():
            assert_close(ours["state"][index][key], value, rtol, atol, f"state[{index}][{key}]")


CONFIGS = [
    ("SGD", {"lr": 0.1}),
    ("SGD", {"maximize": True}),
    ("SGD", {"lr": 0.1, "momentum": 0.9}),
    ("SGD", {"lr": 0.05, "momentum": 0.9, "dampening": 0.5, "weight_decay": 0.01}),
    ("SGD", {"lr": 0.1, "momentum": 0.9, "nesterov": True}),
    ("SGD", {"lr": 0.1, "momentum": 0.5, "nesterov": True, "weight_decay": 0.1,
             "maximize": True}),
    ("Adam", {}),
    ("Adam", {"lr": 0.01, "betas": (0.8, 0.99), "eps": 1e-6, "weight_decay": 0.1}),
    ("Adam", {"lr": 0.01, "amsgrad": True}),
    ("Adam", {"lr": 0.01, "maximize": True, "amsgrad": True, "weight_decay": 0.05}),
    ("Adam", {"lr": 0.01, "betas": (0.3, 0.5)}),        # lerp's large-weight formula
    ("Adam", {"lr": 0.01, "decoupled_weight_decay": True, "weight_decay": 0.1}),
    ("AdamW", {}),
    ("AdamW", {"lr": 0.01, "weight_decay": 0.1, "amsgrad": True, "maximize": True}),
]


def make_optimizer(name, kwargs):
    """``make(lib, params)``: torch's optimizer on its single-tensor path (ours takes the
    flag too: on the CPU it changes nothing, NOTE [Optimizer steps on the arrays])."""
    def make(lib, params):
        return getattr(lib.optim, name)(params, **kwargs, foreach=False)
    return make


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name, kwargs", CONFIGS, ids=[f"{n}-{k}" for n, k in CONFIGS])
def test_steps_match_torch(name, kwargs, dtype):
    values, grads = initial_values(dtype), gradient_sequence(dtype)
    make = make_optimizer(name, kwargs)
    ours, our_opt = train(ag, make, values, grads)
    theirs, their_opt = train(torch, make, values, grads)
    rtol, atol = TOLERANCES[dtype]
    assert_close(ours, theirs, rtol, atol, "parameters")
    assert_same_state_dict(our_opt.state_dict(), their_opt.state_dict(), rtol, atol)
    assert all(p.requires_grad and p.is_leaf and p.grad_fn is None for p in ours)


@pytest.mark.parametrize("name, group_options", [
    ("SGD", {"lr": 0.5, "momentum": 0.0, "nesterov": False}),
    ("Adam", {"lr": 0.1, "betas": (0.5, 0.9), "amsgrad": True}),
])
def test_param_groups_take_their_own_options(name, group_options):
    values, grads = initial_values(), gradient_sequence()

    def make(lib, params):
        momentum = {"momentum": 0.9, "nesterov": True} if name == "SGD" else {}
        return getattr(lib.optim, name)(
            [{"params": params[:2]}, {"params": params[2:], **group_options}],
            lr=0.01, **momentum, foreach=False)

    ours, our_opt = train(ag, make, values, grads)
    theirs, their_opt = train(torch, make, values, grads)
    assert_close(ours, theirs, *TOLERANCES[np.float64])
    assert_same_state_dict(our_opt.state_dict(), their_opt.state_dict())


@pytest.mark.parametrize("name", ["SGD", "Adam"])
def test_a_parameter_without_grad_is_left_alone(name):
    values = initial_values()
    grads = [[g if i != 1 else None for i, g in enumerate(step)]
             for step in gradient_sequence()]
    make = make_optimizer(name, {"lr": 0.1, "momentum": 0.9} if name == "SGD" else {})
    ours, our_opt = train(ag, make, values, grads)
    theirs, their_opt = train(torch, make, values, grads)
    assert_close(ours[1], values[1])
    assert_same_state_dict(our_opt.state_dict(), their_opt.state_dict())
    assert 1 not in our_opt.state_dict()["state"]


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("name, kwargs", [
    ("Adam", {"lr": 0.01, "weight_decay": 0.1, "amsgrad": True}),
    ("AdamW", {"lr": 0.01}),
    ("SGD", {"lr": 0.1, "momentum": 0.9, "nesterov": True, "weight_decay": 0.1}),
])
def test_half_precision_parameters_compute_as_torch(name, kwargs, dtype):
    """torch's CPU kernels compute each op in float32 and round its result to the half
    dtype; the CPU step does the same (NOTE [Optimizer steps on the arrays])."""
    values, grads = initial_values(), gradient_sequence()
    make = make_optimizer(name, kwargs)
    results = []
    for lib in (ag, torch):
        params = [p.to(getattr(lib, dtype)).detach().requires_grad_()
                  for p in leaves(lib, values)]
        opt = make(lib, params)
        for step_grads in grads:
            for p, g in zip(params, step_grads):
                p.grad = None if g is None else lib.tensor(g).to(getattr(lib, dtype))
            opt.step()
        results.append((params, opt.state_dict()))
    (ours, our_state), (theirs, their_state) = results
    # Within an ulp of 1.0 in the half dtype: torch's vectorised loop (a large tensor's)
    # computes as described, to its fused multiply-adds (64x64 parameters agree bit for
    # bit in bfloat16), but its scalar loop (these small tensors) rounds some
    # intermediates to the half dtype; the CUDA path rounds them all.
    ulp = {"float16": 2.0 ** -10, "bfloat16": 2.0 ** -7}[dtype]
    assert_close([p.float() for p in ours], [p.float() for p in theirs], ulp, ulp)
    assert all(str(p.dtype) == f"autograd_cy.{dtype}" for p in ours)
    assert_same_state_dict(in_float32(our_state), in_float32(their_state), ulp, ulp)


@pytest.mark.cpu_only
@pytest.mark.parametrize("name, kwargs", [
    ("Adam", {"lr": 0.01, "weight_decay": 0.1, "amsgrad": True}),
    ("SGD", {"lr": 0.1, "momentum": 0.9, "nesterov": True, "weight_decay": 0.1}),
])
def test_large_bfloat16_parameters_match_torch_bit_for_bit(name, kwargs):
    """torch's vectorised CPU loop: each op in float32, its number operand as torch keeps
    it (NOTE [Optimizer steps on the arrays]), one rounding to bfloat16 per op."""
    rng = np.random.default_rng(4)
    value, grads = rng.standard_normal((64, 64)), rng.standard_normal((6, 64, 64))
    results = []
    for lib in (ag, torch):
        p = lib.tensor(value).to(lib.bfloat16).requires_grad_()
        opt = make_optimizer(name, kwargs)(lib, [p])
        for g in grads:
            p.grad = lib.tensor(g).to(lib.bfloat16)
            opt.step()
        results.append(p.detach().float().numpy())
    np.testing.assert_array_equal(*results)


def in_float32(state_dict):
    """A state dict with its half tensors as float32 (NumPy, so the oracle, has no
    bfloat16); "step" keeps its dtype, which the comparison checks."""
    return {"param_groups": state_dict["param_groups"],
            "state": {i: {k: v if k == "step" else v.float() for k, v in s.items()}
                      for i, s in state_dict["state"].items()}}


@pytest.mark.parametrize("name, kwargs", [
    ("Adam", {"lr": 0.01, "amsgrad": True, "weight_decay": 0.1}),
    ("AdamW", {"lr": 0.01, "maximize": True}),
    ("SGD", {"lr": 0.1, "momentum": 0.9, "weight_decay": 0.1}),
])
def test_complex_parameters_match_torch(name, kwargs):
    """torch's Adam views a complex parameter (and its state) as pairs of reals."""
    rng = np.random.default_rng(3)
    values = [v + 1j * rng.standard_normal(v.shape) for v in initial_values()]
    grads = [[None if g is None else g + 1j * rng.standard_normal(g.shape) for g in step]
             for step in gradient_sequence()]
    make = make_optimizer(name, kwargs)
    ours, our_opt = train(ag, make, values, grads)
    theirs, their_opt = train(torch, make, values, grads)
    assert_close(ours, theirs, *TOLERANCES[np.float64])
    assert_same_state_dict(our_opt.state_dict(), their_opt.state_dict())


def test_closure_runs_with_grad_enabled_and_its_loss_is_returned():
    def run(lib):
        w = lib.tensor([1.0, -2.0], requires_grad=True)
        opt = lib.optim.SGD([w], lr=0.1)
        seen = []

        def closure():
            opt.zero_grad()
            loss = (w * w).sum()
            seen.append(lib.is_grad_enabled())
            loss.backward()
            return loss

        with lib.no_grad():
            loss = opt.step(closure)
        return float(loss.detach()), seen, w.detach().tolist()

    assert run(ag) == run(torch)


# ------------------------------------------------------------------ state dicts

@pytest.mark.parametrize("name, kwargs", [
    ("SGD", {"lr": 0.1, "momentum": 0.9}),
    ("Adam", {"lr": 0.01, "amsgrad": True}),
    ("AdamW", {"lr": 0.01}),
])
def test_load_state_dict_then_steps_continue_as_torch(name, kwargs):
    """An optimizer that loads another's state dict continues exactly as the other would."""
    values, grads = initial_values(), gradient_sequence()
    make = make_optimizer(name, kwargs)
    results = []
    for lib in (ag, torch):
        params, opt = train(lib, make, values, grads[:4])
        twins = [p.detach().clone().requires_grad_() for p in params]
        twin_opt = make(lib, twins)
        twin_opt.load_state_dict(deepcopy(opt.state_dict()))   # else the two share state
        for step_grads in grads[4:]:
            set_grads(lib, params, step_grads)
            set_grads(lib, twins, step_grads)
            opt.step()
            twin_opt.step()
        assert_close(twins, params, 0, 0)
        results.append((twins, twin_opt.state_dict()))
    assert_close(results[0][0], results[1][0], *TOLERANCES[np.float64])
    assert_same_state_dict(results[0][1], results[1][1])


def to_ours(value):
    """A torch state dict's tensors as autograd_cy's ("step" stays on the CPU)."""
    if isinstance(value, torch.Tensor):
        device = "cpu" if value.dim() == 0 else None
        return ag.tensor(value.numpy(), device=device)
    if isinstance(value, dict):
        return {k: to_ours(v) for k, v in value.items()}
    if isinstance(value, list):
        return [to_ours(v) for v in value]
    return deepcopy(value)


def test_a_torch_state_dict_loads_and_continues():
    """The format is torch's: a state dict from torch.optim, its tensors converted through
    NumPy, resumes the same training here."""
    values, grads = initial_values(), gradient_sequence()
    make = make_optimizer("Adam", {"lr": 0.01, "amsgrad": True})
    theirs, their_opt = train(torch, make, values, grads[:4])
    ours = leaves(ag, [p.detach().numpy() for p in theirs])
    our_opt = make(ag, ours)
    our_opt.load_state_dict(to_ours(their_opt.state_dict()))
    for step_grads in grads[4:]:
        set_grads(ag, ours, step_grads)
        set_grads(torch, theirs, step_grads)
        our_opt.step()
        their_opt.step()
    assert_close(ours, theirs, *TOLERANCES[np.float64])
    assert_same_state_dict(our_opt.state_dict(), their_opt.state_dict())


def test_load_state_dict_casts_state_to_the_parameter_dtype_but_not_step():
    values, grads = initial_values(), gradient_sequence()
    make = make_optimizer("Adam", {"lr": 0.01})
    results = []
    for lib in (ag, torch):
        _, opt = train(lib, make, values, grads[:3])              # float64 state
        params = [p.float().detach().requires_grad_() for p in leaves(lib, values)]
        loaded = make(lib, params)
        loaded.load_state_dict(opt.state_dict())
        results.append(loaded.state_dict())
    assert_same_state_dict(*results)
    assert results[0]["state"][0]["exp_avg"].dtype == ag.float32
    assert results[0]["state"][0]["step"].dtype == ag.float32


def test_state_dict_of_a_fresh_optimizer_and_the_step_counter():
    def run(lib):
        w = lib.zeros(2, requires_grad=True)
        opt = lib.optim.Adam([w, lib.ones(1, requires_grad=True)], lr=0.5)
        fresh = deepcopy(opt.state_dict())
        w.grad = lib.ones(2)
        opt.step()
        step = opt.state[w]["step"]
        return fresh, step.dtype, step.device.type, step.dim(), step.item()

    ours, theirs = run(ag), run(torch)
    assert ours[0] == theirs[0]
    assert str(ours[1]).split(".")[-1] == str(theirs[1]).split(".")[-1]
    assert ours[2:] == theirs[2:]


def test_the_step_counter_follows_the_default_dtype():
    steps = []
    for lib in (ag, torch):
        lib.set_default_dtype(lib.float64)
        try:
            w = lib.zeros(2, requires_grad=True)
            opt = lib.optim.Adam([w])
            w.grad = lib.ones(2)
            opt.step()
        finally:
            lib.set_default_dtype(lib.float32)
        steps.append(str(opt.state[w]["step"].dtype).split(".")[-1])
    assert steps[0] == steps[1] == "float64"


# ------------------------------------------------------------------ errors and warnings

def sgd_of(lib, params, **kwargs):
    return lib.optim.SGD(params, lr=0.1, **kwargs)


ERRORS = [
    ("empty", lambda lib: sgd_of(lib, []), "optimizer got an empty parameter list"),
    ("a tensor", lambda lib: sgd_of(lib, lib.ones(2, requires_grad=True)),
     "should be an iterable of Tensors or dicts"),
    ("a set in a group", lambda lib: sgd_of(lib, [{"params": {lib.ones(2)}}]),
     "need to be organized in ordered collections"),
    ("non-leaf", lambda lib: sgd_of(lib, [lib.ones(2, requires_grad=True) * 2]),
     "can't optimize a non-leaf Tensor"),
    ("not a tensor", lambda lib: sgd_of(lib, [lib.ones(2), 3.0]),
     "optimizer can only optimize Tensors"),
    ("two groups", lambda lib: (lambda w: sgd_of(lib, [{"params": [w]}, {"params": [w]}]))(
        lib.ones(2, requires_grad=True)),
     "some parameters appear in more than one parameter group"),
    ("group not a dict", lambda lib: sgd_of(lib, [lib.ones(2)]).add_param_group([1]),
     "param_group must be a dict"),
    ("names missing", lambda lib: sgd_of(lib, [("w", lib.ones(2)), lib.ones(1)]),
     "Some param names are missing"),
    ("lr", lambda lib: lib.optim.SGD([lib.ones(2)], lr=-1.0), "Invalid learning rate: -1.0"),
    ("momentum", lambda lib: sgd_of(lib, [lib.ones(2)], momentum=-0.5),
     "Invalid momentum value: -0.5"),
    ("weight decay", lambda lib: sgd_of(lib, [lib.ones(2)], weight_decay=-1),
     "Invalid weight_decay value: -1"),
    ("nesterov without momentum", lambda lib: sgd_of(lib, [lib.ones(2)], nesterov=True),
     "Nesterov momentum requires a momentum and zero dampening"),
    ("nesterov with dampening",
     lambda lib: sgd_of(lib, [lib.ones(2)], momentum=0.9, dampening=0.1, nesterov=True),
     "Nesterov momentum requires a momentum and zero dampening"),
    ("fused and foreach", lambda lib: lib.optim.Adam([lib.ones(2)], fused=True, foreach=True),
     "`fused` and `foreach` cannot be `True` together."),
    ("adam lr", lambda lib: lib.optim.Adam([lib.ones(2)], lr=-0.1),
     "Invalid learning rate: -0.1"),
    ("adam eps", lambda lib: lib.optim.Adam([lib.ones(2)], eps=-1e-8),
     "Invalid epsilon value: -1e-08"),
    ("beta 0", lambda lib: lib.optim.Adam([lib.ones(2)], betas=(1.0, 0.9)),
     r"Invalid beta parameter at index 0: 1\.0"),
    ("beta 1", lambda lib: lib.optim.AdamW([lib.ones(2)], betas=(0.9, -0.1)),
     r"Invalid beta parameter at index 1: -0\.1"),
    ("betas of ints", lambda lib: lib.optim.Adam([lib.ones(2)], betas=(0, 0)),
     "betas must be either both floats or both Tensors"),
    ("adam weight decay", lambda lib: lib.optim.Adam([lib.ones(2)], weight_decay=-0.1),
     "Invalid weight_decay value: -0.1"),
]


@pytest.mark.parametrize("name, fn, words", ERRORS, ids=[e[0] for e in ERRORS])
def test_errors_match_torch(name, fn, words):
    assert_same_error(fn, words)


def test_load_state_dict_errors_match_torch():
    def loading(groups, saved_groups):
        def run(lib):
            def grouped(sizes):
                return [{"params": [lib.zeros(2, requires_grad=True) for _ in range(n)]}
                        for n in sizes]
            source = lib.optim.SGD(grouped(saved_groups), lr=0.1)
            target = lib.optim.SGD(grouped(groups), lr=0.1)
            target.load_state_dict(source.state_dict())
        return run

    assert_same_error(loading([1, 2], [1]), ValueError,
                      "loaded state dict has a different number of parameter groups")
    assert_same_error(loading([2], [3]), ValueError, "loaded state dict contains a parameter "
                      "group that doesn't match the size of optimizer's group")


def test_a_duplicate_parameter_warns_as_torch():
    same_warning(lambda lib: (lambda w: sgd_of(lib, [w, w]))(lib.ones(2, requires_grad=True)),
                 UserWarning, "optimizer contains a parameter group with duplicate parameters")


def test_a_graph_that_saved_a_parameter_refuses_backward_after_a_step():
    """The step writes the parameter in place: its version moves as torch's does."""
    def run(lib):
        w = lib.tensor([1.0, 2.0], requires_grad=True)
        opt = lib.optim.Adam([w], lr=0.1)
        y = (w * w).sum()
        w.grad = lib.ones(2)
        opt.step()
        y.backward()

    assert_same_error(run, RuntimeError, "modified by an inplace operation")


@pytest.mark.parametrize("name, kwargs", [("SGD", {"lr": 0.1}), ("Adam", {}),
                                          ("SGD", {"lr": 0.1, "momentum": 0.9})])
def test_each_step_bumps_the_parameter_version_as_torch(name, kwargs):
    versions = []
    for lib in (ag, torch):
        w = lib.tensor([1.0, 2.0], requires_grad=True)
        opt = make_optimizer(name, kwargs)(lib, [w])
        for _ in range(3):
            w.grad = lib.ones(2)
            opt.step()
        versions.append(w._version)
    assert versions[0] == versions[1]


# ------------------------------------------------------------------ the rest of the API

def test_repr_matches_torch():
    def reprs(lib):
        ws = [lib.zeros(2, requires_grad=True) for _ in range(3)]
        return [repr(lib.optim.SGD([{"params": ws[:1]}, {"params": ws[1:], "lr": 0.5}],
                                   lr=0.1, momentum=0.9)),
                repr(lib.optim.Adam(ws, amsgrad=True)), repr(lib.optim.AdamW(ws))]

    assert reprs(ag) == reprs(torch)


def test_param_groups_and_defaults_match_torch():
    def run(lib):
        ws = [lib.zeros(2, requires_grad=True) for _ in range(3)]
        opt = lib.optim.Adam([("a", ws[0]), ("b", ws[1])], lr=0.1)
        opt.add_param_group({"params": [("c", ws[2])], "betas": (0.5, 0.6)})
        groups = [{k: v for k, v in g.items() if k != "params"} for g in opt.param_groups]
        return opt.defaults, groups, opt.state_dict()["param_groups"]

    ours, theirs = run(ag), run(torch)
    assert ours == theirs


@pytest.mark.parametrize("set_to_none", [True, False])
def test_zero_grad_matches_torch(set_to_none):
    def run(lib):
        ws = [lib.tensor([1.0, 2.0], requires_grad=True), lib.ones(3, requires_grad=True),
              lib.ones(1, requires_grad=True)]
        (ws[0] ** 3).sum().backward(create_graph=True)     # a grad recorded in a graph
        ws[1].grad = lib.full((3,), 5.0)
        opt = lib.optim.SGD(ws, lr=0.1)
        opt.zero_grad(set_to_none=set_to_none)
        return [None if w.grad is None else (w.grad.tolist(), w.grad.requires_grad,
                                              w.grad.grad_fn is None) for w in ws]

    with warnings.catch_warnings():     # of backward(create_graph=True) into leaves' .grad
        warnings.simplefilter("ignore")
        assert run(ag) == run(torch)


def test_step_hooks_run_in_torch_order():
    def run(lib):
        w = lib.ones(2, requires_grad=True)
        opt = lib.optim.SGD([w], lr=0.1)
        log = []

        def closure():
            log.append("closure")
            return lib.tensor(3.0)

        def pre(optimizer, args, kwargs):      # args: the optimizer, then step's own
            log.append(("pre", optimizer is opt, args[0] is opt, len(args), dict(kwargs)))
            return (optimizer,), {"closure": closure}

        first = opt.register_step_pre_hook(pre)
        opt.register_step_pre_hook(lambda o, a, k: log.append(("pre2", len(a), sorted(k))))
        opt.register_step_post_hook(lambda o, a, k: log.append(("post", len(a), sorted(k))))
        w.grad = lib.ones(2)
        log.append(float(opt.step()))
        first.remove()
        opt.step()
        return log

    assert run(ag) == run(torch)


# ------------------------------------------------------------------ launches on CUDA

def launches_of_a_step(name, count, **kwargs):
    """The kernel launches of one step (after the first, which creates the state) over
    ``count`` CUDA parameters of one dtype, by kernel."""
    seam = ag.cuda.devices.get(0).seam
    rng = np.random.default_rng(6)
    params = [ag.tensor(rng.standard_normal(3 + k).astype(np.float32), device="cuda",
                        requires_grad=True) for k in range(count)]
    for p in params:
        p.grad = ag.ones_like(p)
    opt = getattr(ag.optim, name)(params, **kwargs)
    opt.step()
    seam.counters.reset()
    opt.step()
    return dict(seam.counters.by_kernel)


def test_a_cuda_sgd_step_is_one_launch_per_op_for_the_list():
    assert launches_of_a_step("SGD", 9, lr=0.1) == {"foreach_apply<float, AddScaled>": 1}
    assert launches_of_a_step("SGD", 9, lr=0.1, momentum=0.9) == {
        "foreach_apply<float, MulScalar>": 1, "foreach_apply<float, AddScaled>": 2}


def test_a_cuda_adam_step_is_one_launch():
    """NOTE [Adam in one launch]: Adam's and AdamW's whole float32 step is one launch, for 4
    parameters or for 40 (two tables of 32); with amsgrad, each op of the multi-tensor step
    is one launch for the whole list (13, and one for the maximum)."""
    assert launches_of_a_step("Adam", 4) == {"adam_apply<float>": 1}
    assert launches_of_a_step("AdamW", 4, weight_decay=0.1) == {"adam_apply<float>": 1}
    assert launches_of_a_step("Adam", 40) == {"adam_apply<float>": 2}
    amsgrad = launches_of_a_step("Adam", 8, amsgrad=True)
    assert all(k.startswith("foreach_apply") for k in amsgrad)
    assert sum(amsgrad.values()) == 14


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name, kwargs", [(n, k) for n, k in CONFIGS if n != "SGD"],
                         ids=[f"{n}-{k}" for n, k in CONFIGS if n != "SGD"])
def test_cuda_adam_steps_match_torch(name, kwargs, dtype):
    """The one-launch step (and amsgrad's multi-tensor one) on a CUDA device against torch's
    single-tensor step on the CPU."""
    values, grads = initial_values(dtype), gradient_sequence(dtype)
    ours = [ag.tensor(v, device="cuda", requires_grad=True) for v in values]
    theirs = [torch.tensor(v, requires_grad=True) for v in values]
    our_opt = getattr(ag.optim, name)(ours, **kwargs)
    their_opt = getattr(torch.optim, name)(theirs, **kwargs, foreach=False)
    for step in grads:
        for p, g in zip(ours, step):
            p.grad = None if g is None else ag.tensor(g, device="cuda")
        for p, g in zip(theirs, step):
            p.grad = None if g is None else torch.tensor(g)
        our_opt.step()
        their_opt.step()
    rtol, atol = TOLERANCES[dtype]
    assert_close([p.cpu() for p in ours], theirs, rtol, atol, "parameters")


def test_a_pickled_optimizer_steps_on():
    """The pickle holds the groups, the state and the defaults (not the hooks), as torch's."""
    import pickle
    results = []
    for lib in (ag, torch):
        params, opt = train(lib, make_optimizer("Adam", {"lr": 0.01}), initial_values(),
                            gradient_sequence()[:3])
        copy = pickle.loads(pickle.dumps(opt))
        for p in copy.param_groups[0]["params"]:
            p.grad = lib.ones_like(p)
        copy.step()
        results.append((copy.param_groups[0]["params"], copy.state_dict()))
    assert_close(results[0][0], results[1][0], *TOLERANCES[np.float64])
    assert_same_state_dict(results[0][1], results[1][1])


ADAM_CONFIGS = [(n, k) for n, k in CONFIGS if n in ("Adam", "AdamW") and not k.get("amsgrad")]
ADAM_CONFIGS.append(("Adam", {"lr": 0.01, "maximize": True, "weight_decay": 0.05}))


@pytest.mark.cpu_only
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name, kwargs", ADAM_CONFIGS,
                         ids=[f"{n}-{k}" for n, k in ADAM_CONFIGS])
def test_fused_adam_loop_gives_the_numpy_paths_bits(name, kwargs, dtype):
    """NOTE [Fused optimizer steps]: a contiguous parameter takes the fused C loop, a
    transposed one the NumPy path; both give the same bits, step after step."""
    rng = np.random.default_rng(3)
    values = rng.standard_normal((6, 5)).astype(dtype)
    grads = [rng.standard_normal((6, 5)).astype(dtype) for _ in range(4)]
    from autograd_cy._C.optim_steps import adam_step
    fused = ag.tensor(values, requires_grad=True)
    strided = ag.from_numpy(np.asfortranarray(values)).requires_grad_()  # not C-contiguous
    assert not adam_step(strided.detach().numpy(), grads[0], values, values, 0.9, 0.99, 1.0,
                         1.0, 1e-8, 0.0, 0.1, False, False)
    opt_fused = getattr(ag.optim, name)([fused], **kwargs)
    opt_strided = getattr(ag.optim, name)([strided], **kwargs)
    for g in grads:
        fused.grad = ag.tensor(g)
        strided.grad = ag.from_numpy(np.asfortranarray(g))
        opt_fused.step()
        opt_strided.step()
        assert np.array_equal(fused.detach().numpy(), strided.detach().numpy())
