"""The optimizers beyond SGD and Adam (Adadelta, Adagrad, Adamax, ASGD, NAdam, RAdam,
RMSprop, Rprop) against ``torch.optim``: from the same parameters and gradient sequence,
the same parameters and ``state_dict()`` after the steps, for every option that changes
the formula; parameter groups, complex parameters, resuming from a state dict, defaults,
reprs and argument errors. torch runs its single-tensor path (``foreach=False``)."""
from copy import deepcopy

import numpy as np
import pytest
import torch

import autograd_cy as ag
from tests.oracle import assert_close, assert_same_error
from tests.test_optim import (TOLERANCES, assert_same_state_dict, gradient_sequence,
                              initial_values, leaves, make_optimizer, set_grads, to_ours,
                              train)

CONFIGS = [
    ("RMSprop", {}),
    ("RMSprop", {"lr": 0.01, "alpha": 0.9, "eps": 1e-6, "weight_decay": 0.1}),
    ("RMSprop", {"lr": 0.01, "centered": True}),
    ("RMSprop", {"lr": 0.01, "alpha": 0.3, "centered": True}),     # lerp's large weight
    ("RMSprop", {"lr": 0.01, "momentum": 0.9, "maximize": True}),
    ("RMSprop", {"lr": 0.01, "momentum": 0.5, "centered": True, "weight_decay": 0.05,
                 "maximize": True}),
    ("Adagrad", {}),
    ("Adagrad", {"lr": 0.1, "lr_decay": 0.05, "eps": 1e-6}),
    ("Adagrad", {"lr": 0.1, "weight_decay": 0.1, "initial_accumulator_value": 0.3,
                 "maximize": True}),
    ("Adadelta", {}),
    ("Adadelta", {"lr": 0.5, "rho": 0.5, "eps": 1e-4, "weight_decay": 0.1}),
    ("Adadelta", {"rho": 0.95, "maximize": True}),
    ("Adamax", {}),
    ("Adamax", {"lr": 0.01, "betas": (0.3, 0.5), "eps": 1e-3, "weight_decay": 0.1}),
    ("Adamax", {"lr": 0.01, "maximize": True}),
    ("NAdam", {}),
    ("NAdam", {"lr": 0.01, "betas": (0.3, 0.9), "momentum_decay": 0.1,
               "weight_decay": 0.1}),
    ("NAdam", {"lr": 0.01, "weight_decay": 0.1, "decoupled_weight_decay": True,
               "maximize": True}),
    ("RAdam", {}),                          # rho_t > 5 from step 6: both branches
    ("RAdam", {"lr": 0.01, "betas": (0.8, 0.9), "weight_decay": 0.1}),
    ("RAdam", {"lr": 0.01, "betas": (0.3, 0.99), "weight_decay": 0.1,
               "decoupled_weight_decay": True, "maximize": True}),
    ("RAdam", {"lr": 0.01, "betas": (0.9, 0.5)}),       # rho_t never above 5
    ("ASGD", {}),
    ("ASGD", {"lr": 0.1, "lambd": 0.01, "alpha": 0.5, "t0": 3, "weight_decay": 0.1}),
    ("ASGD", {"lr": 0.05, "t0": 0, "maximize": True}),
    ("Rprop", {}),
    ("Rprop", {"lr": 0.1, "etas": (0.3, 1.7), "step_sizes": (0.01, 0.15)}),
    ("Rprop", {"lr": 0.05, "maximize": True}),
]
IDS = [f"{n}-{k}" for n, k in CONFIGS]
NAMES = sorted({n for n, _ in CONFIGS})


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name, kwargs", CONFIGS, ids=IDS)
def test_steps_match_torch(name, kwargs, dtype):
    """Parameters and state after each step (a parameter without a gradient at some steps
    skips them, its state untouched)."""
    values, grads = initial_values(dtype), gradient_sequence(dtype)
    make = make_optimizer(name, kwargs)
    params = {lib: [lib.tensor(v, requires_grad=True) for v in values] for lib in (ag, torch)}
    opts = {lib: make(lib, params[lib]) for lib in (ag, torch)}
    rtol, atol = TOLERANCES[dtype]
    for step, step_grads in enumerate(grads):
        for lib in (ag, torch):
            set_grads(lib, params[lib], step_grads)
            opts[lib].step()
        assert_close(params[ag], params[torch], rtol, atol, f"parameters at step {step}")
        assert_same_state_dict(opts[ag].state_dict(), opts[torch].state_dict(), rtol, atol)
    assert all(p.requires_grad and p.is_leaf and p.grad_fn is None for p in params[ag])


@pytest.mark.parametrize("name, kwargs", CONFIGS, ids=IDS)
def test_complex_parameters_match_torch(name, kwargs):
    """torch's optimizers view a complex parameter (and its state) as pairs of reals."""
    rng = np.random.default_rng(3)
    values = [v + 1j * rng.standard_normal(v.shape) for v in initial_values()]
    grads = [[None if g is None else g + 1j * rng.standard_normal(g.shape) for g in step]
             for step in gradient_sequence()]
    make = make_optimizer(name, kwargs)
    ours, our_opt = train(ag, make, values, grads)
    theirs, their_opt = train(torch, make, values, grads)
    assert_close(ours, theirs, *TOLERANCES[np.float64])
    assert_same_state_dict(our_opt.state_dict(), their_opt.state_dict())


GROUP_OPTIONS = {
    "RMSprop": ({"lr": 0.01, "momentum": 0.9}, {"lr": 0.1, "centered": True, "alpha": 0.5}),
    "Adagrad": ({"lr": 0.1}, {"lr_decay": 0.1, "weight_decay": 0.2}),
    "Adadelta": ({"rho": 0.8}, {"lr": 0.3, "rho": 0.5}),
    "Adamax": ({"lr": 0.01}, {"betas": (0.5, 0.6), "maximize": True}),
    "NAdam": ({"lr": 0.01}, {"momentum_decay": 0.2, "weight_decay": 0.1,
                             "decoupled_weight_decay": True}),
    "RAdam": ({"lr": 0.01, "betas": (0.9, 0.99)}, {"betas": (0.5, 0.6), "weight_decay": 0.1}),
    "ASGD": ({"lr": 0.1, "t0": 2}, {"lambd": 0.1, "alpha": 0.9}),
    "Rprop": ({"lr": 0.1}, {"etas": (0.2, 1.5), "step_sizes": (0.05, 0.2)}),
}


@pytest.mark.parametrize("name", NAMES)
def test_param_groups_take_their_own_options(name):
    values, grads = initial_values(), gradient_sequence()
    defaults, own = GROUP_OPTIONS[name]

    def make(lib, params):
        return getattr(lib.optim, name)([{"params": params[:2]}, {"params": params[2:], **own}],
                                        **defaults, foreach=False)

    ours, our_opt = train(ag, make, values, grads)
    theirs, their_opt = train(torch, make, values, grads)
    assert_close(ours, theirs, *TOLERANCES[np.float64])
    assert_same_state_dict(our_opt.state_dict(), their_opt.state_dict())


@pytest.mark.parametrize("name", NAMES)
def test_load_state_dict_then_steps_continue_as_torch(name):
    """An optimizer that loads another's state dict continues as torch's does (loading casts
    the floating state to the parameter's dtype, all but "step": ASGD's eta and mu and
    NAdam's mu_product too, so those continue in float64, as torch's)."""
    values, grads = initial_values(), gradient_sequence()
    make = make_optimizer(name, GROUP_OPTIONS[name][0])
    results = []
    for lib in (ag, torch):
        params, opt = train(lib, make, values, grads[:4])
        twins = [p.detach().clone().requires_grad_() for p in params]
        twin_opt = make(lib, twins)
        twin_opt.load_state_dict(deepcopy(opt.state_dict()))
        for step_grads in grads[4:]:
            set_grads(lib, params, step_grads)
            set_grads(lib, twins, step_grads)
            opt.step()
            twin_opt.step()
        results.append((twins, twin_opt.state_dict()))
    assert_close(results[0][0], results[1][0], *TOLERANCES[np.float64])
    assert_same_state_dict(results[0][1], results[1][1])


@pytest.mark.parametrize("name", NAMES)
def test_a_torch_state_dict_loads_and_continues(name):
    """The format is torch's: a torch optimizer's state dict, its tensors converted through
    NumPy, resumes here the training a torch optimizer resumes from it (loading casts
    ASGD's eta and mu and NAdam's mu_product to the parameters' float64, in both)."""
    values, grads = initial_values(), gradient_sequence()
    make = make_optimizer(name, GROUP_OPTIONS[name][0])
    trained, trained_opt = train(torch, make, values, grads[:4])
    state_dict = trained_opt.state_dict()
    theirs = [p.detach().clone().requires_grad_() for p in trained]
    their_opt = make(torch, theirs)
    their_opt.load_state_dict(deepcopy(state_dict))
    ours = leaves(ag, [p.detach().numpy() for p in trained])
    our_opt = make(ag, ours)
    our_opt.load_state_dict(to_ours(state_dict))
    for step_grads in grads[4:]:
        set_grads(ag, ours, step_grads)
        set_grads(torch, theirs, step_grads)
        our_opt.step()
        their_opt.step()
    assert_close(ours, theirs, *TOLERANCES[np.float64])
    assert_same_state_dict(our_opt.state_dict(), their_opt.state_dict())


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("name", NAMES)
def test_half_precision_parameters_compute_as_torch(name, dtype):
    """Each op computes in float32 and rounds to the half dtype (NOTE [Optimizer steps on
    the arrays]): within an ulp of 1.0 of torch's (its scalar loop rounds some
    intermediates differently)."""
    values, grads = initial_values(), gradient_sequence()
    make = make_optimizer(name, GROUP_OPTIONS[name][0])
    results = []
    for lib in (ag, torch):
        half = getattr(lib, dtype)
        params = [lib.tensor(v).to(half).requires_grad_() for v in values]
        opt = make(lib, params)
        for step_grads in grads[:4]:
            for p, g in zip(params, step_grads):
                p.grad = None if g is None else lib.tensor(g).to(half)
            opt.step()
        results.append([p.detach().float() for p in params])
    ulp = {"float16": 2.0 ** -10, "bfloat16": 2.0 ** -7}[dtype]
    assert_close(results[0], results[1], 2 * ulp, 2 * ulp)


def test_adagrad_creates_its_state_at_construction():
    def run(lib):
        ws = [lib.zeros(2, requires_grad=True), lib.zeros(1, dtype=lib.complex128,
                                                          requires_grad=True)]
        opt = lib.optim.Adagrad(ws, initial_accumulator_value=0.5)
        return opt.state_dict()

    assert_same_state_dict(run(ag), run(torch))


def test_state_tensors_dtypes_and_devices_match_torch():
    """The counters (step, NAdam's mu_product, ASGD's eta and mu) are 0-dim tensors of the
    default dtype, ASGD's on the parameter's device and the others on the CPU."""
    def run(lib):
        seen = {}
        for name in NAMES:
            w = lib.zeros(3, dtype=lib.float64, requires_grad=True)
            opt = getattr(lib.optim, name)([w])
            w.grad = lib.ones(3, dtype=lib.float64)
            opt.step()
            seen[name] = {k: (str(v.dtype).split(".")[-1], v.dim(),
                              v.device.type if v.dim() == 0 else "param")
                          for k, v in opt.state[w].items()}
        return seen

    ours, theirs = run(ag), run(torch)
    assert {n: {k: v[:2] for k, v in s.items()} for n, s in ours.items()} == \
        {n: {k: v[:2] for k, v in s.items()} for n, s in theirs.items()}
    for name in NAMES:
        for key, (_, _, device) in ours[name].items():
            expected = ("param" if device == "param" else
                        ag.zeros(1).device.type if name == "ASGD" else "cpu")
            assert device == expected, (name, key)


def test_defaults_groups_and_repr_match_torch():
    def run(lib):
        ws = [lib.zeros(2, requires_grad=True) for _ in range(2)]
        seen = []
        for name in NAMES:
            opt = getattr(lib.optim, name)([{"params": ws[:1]}, {"params": ws[1:], "lr": 0.5}])
            groups = [{k: v for k, v in g.items() if k != "params"} for g in opt.param_groups]
            seen.append((opt.defaults, groups, opt.state_dict()["param_groups"], repr(opt)))
        return seen

    assert run(ag) == run(torch)


def test_foreach_and_fused_flags_are_taken_as_torch_takes_them():
    """``foreach`` changes nothing on the CPU; Adagrad's ``fused`` keeps a float32 step."""
    values, grads = initial_values(), gradient_sequence()
    for name, kwargs in [("RMSprop", {"foreach": True}), ("Adagrad", {"fused": True}),
                         ("NAdam", {"foreach": True})]:
        def make(lib, params):
            return getattr(lib.optim, name)(params, **kwargs)
        ours, our_opt = train(ag, make, values, grads)
        theirs, their_opt = train(torch, make, values, grads)
        assert_close(ours, theirs, 1e-6, 1e-6)
        assert our_opt.state_dict()["param_groups"] == their_opt.state_dict()["param_groups"]
        for index, state in their_opt.state_dict()["state"].items():
            assert str(our_opt.state_dict()["state"][index]["step"].dtype).split(".")[-1] == \
                str(state["step"].dtype).split(".")[-1]


def opt_of(name, **kwargs):
    return lambda lib: getattr(lib.optim, name)([lib.ones(2)], **kwargs)


ERRORS = [
    (opt_of("RMSprop", lr=-0.1), "Invalid learning rate: -0.1"),
    (opt_of("RMSprop", eps=-1.0), "Invalid epsilon value: -1.0"),
    (opt_of("RMSprop", momentum=-0.5), "Invalid momentum value: -0.5"),
    (opt_of("RMSprop", weight_decay=-1), "Invalid weight_decay value: -1"),
    (opt_of("RMSprop", alpha=-0.5), "Invalid alpha value: -0.5"),
    (opt_of("Adagrad", lr=-1.0), "Invalid learning rate: -1.0"),
    (opt_of("Adagrad", lr_decay=-1.0), "Invalid lr_decay value: -1.0"),
    (opt_of("Adagrad", weight_decay=-1.0), "Invalid weight_decay value: -1.0"),
    (opt_of("Adagrad", initial_accumulator_value=-1.0),
     "Invalid initial_accumulator_value value: -1.0"),
    (opt_of("Adagrad", eps=-1.0), "Invalid epsilon value: -1.0"),
    (opt_of("Adagrad", fused=True, foreach=True), "`fused` and `foreach` cannot be `True`"),
    (opt_of("Adadelta", lr=-1.0), "Invalid learning rate: -1.0"),
    (opt_of("Adadelta", rho=1.5), "Invalid rho value: 1.5"),
    (opt_of("Adadelta", eps=-1.0), "Invalid epsilon value: -1.0"),
    (opt_of("Adadelta", weight_decay=-1.0), "Invalid weight_decay value: -1.0"),
    (opt_of("Adamax", lr=-1.0), "Invalid learning rate: -1.0"),
    (opt_of("Adamax", betas=(1.0, 0.9)), r"Invalid beta parameter at index 0: 1\.0"),
    (opt_of("Adamax", betas=(0.9, -0.1)), r"Invalid beta parameter at index 1: -0\.1"),
    (opt_of("Adamax", eps=-1.0), "Invalid epsilon value: -1.0"),
    (opt_of("Adamax", weight_decay=-1.0), "Invalid weight_decay value: -1.0"),
    (opt_of("NAdam", lr=-1.0), "Invalid learning rate: -1.0"),
    (opt_of("NAdam", betas=(0.9, 1.0)), r"Invalid beta parameter at index 1: 1\.0"),
    (opt_of("NAdam", momentum_decay=-1.0), "Invalid momentum_decay value: -1.0"),
    (opt_of("NAdam", weight_decay=-1.0), "Invalid weight_decay value: -1.0"),
    (opt_of("RAdam", lr=-1.0), "Invalid learning rate: -1.0"),
    (opt_of("RAdam", betas=(-0.1, 0.9)), r"Invalid beta parameter at index 0: -0\.1"),
    (opt_of("RAdam", eps=-1.0), "Invalid epsilon value: -1.0"),
    (opt_of("RAdam", weight_decay=-1.0), "Invalid weight_decay value: -1.0"),
    (opt_of("ASGD", lr=-1.0), "Invalid learning rate: -1.0"),
    (opt_of("ASGD", weight_decay=-1.0), "Invalid weight_decay value: -1.0"),
    (opt_of("Rprop", lr=-1.0), "Invalid learning rate: -1.0"),
    (opt_of("Rprop", etas=(1.5, 2.0)), "Invalid eta values: 1.5, 2.0"),
    (opt_of("Rprop", etas=(0.5, 0.9)), "Invalid eta values: 0.5, 0.9"),
    (lambda lib: lib.optim.RMSprop([], lr=0.1), "optimizer got an empty parameter list"),
]


@pytest.mark.parametrize("fn, words", ERRORS, ids=[e[1] for e in ERRORS])
def test_errors_match_torch(fn, words):
    assert_same_error(fn, words)


@pytest.mark.parametrize("name", NAMES)
def test_each_step_bumps_the_parameter_version_as_torch(name):
    """A graph that saved the parameter refuses to backward after a step."""
    def run(lib):
        w = lib.tensor([1.0, 2.0], requires_grad=True)
        opt = getattr(lib.optim, name)([w], lr=0.1)
        y = (w * w).sum()
        w.grad = lib.ones(2)
        opt.step()
        y.backward()

    assert_same_error(run, RuntimeError, "modified by an inplace operation")


# ------------------------------------------------------------------ LBFGS

def lbfgs_run(lib, dtype, steps=3, **kwargs):
    """LBFGS on a least-squares problem with quartic terms (two parameters, one complex
    when ``dtype`` is): each step's returned loss, the parameters, the state dict."""
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((6, 4)).astype(dtype), rng.standard_normal(6).astype(dtype)
    x = lib.tensor(np.ones(4, dtype), requires_grad=True)
    w = lib.tensor(np.ones(2, dtype), requires_grad=True)
    a, b = lib.tensor(a), lib.tensor(b)
    opt = lib.optim.LBFGS([x, w], **kwargs)
    seen = []

    def closure():
        opt.zero_grad()
        seen.append(lib.is_grad_enabled())
        loss = ((a @ x - b) ** 2).sum() + ((w - 3) ** 4).sum() + 0.1 * (x ** 4).sum()
        loss.backward()
        return loss

    with lib.no_grad():
        losses = [float(opt.step(closure).detach()) for _ in range(steps)]
    assert all(seen)
    return losses, [x, w], opt.state_dict()


def assert_same_lbfgs_state(ours, theirs, rtol, atol):
    """The same entries; numbers (or 0-dim tensors, as torch has them) and tensors alike."""
    assert ours["param_groups"] == theirs["param_groups"]
    assert ours["state"].keys() == theirs["state"].keys() == {0}
    ours, theirs = ours["state"][0], theirs["state"][0]
    assert ours.keys() == theirs.keys()
    for key, value in theirs.items():
        mine = ours[key]
        if isinstance(value, list):
            assert len(mine) == len(value), key
            pairs = [(m, v) for m, v in zip(mine, value) if v is not None]
            assert all(m is not None for m, _ in pairs), key
        else:
            pairs = [(mine, value)]
        for m, v in pairs:
            assert isinstance(m, ag.Tensor) == isinstance(v, torch.Tensor), key
            if isinstance(v, torch.Tensor):
                assert_close(m, v, rtol, atol, key)
            else:
                assert type(m) is type(v) and np.isclose(m, v, rtol, atol), key


LBFGS_CONFIGS = [{"max_iter": 4}, {"line_search_fn": "strong_wolfe", "max_iter": 4},
                 {"history_size": 2, "max_iter": 4, "lr": 0.5},
                 {"line_search_fn": "strong_wolfe", "history_size": 2, "max_iter": 3},
                 {"max_iter": 4, "max_eval": 3, "tolerance_grad": 1e-3},
                 {"tolerance_change": 1e-2, "history_size": 1, "max_iter": 4}]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("kwargs", LBFGS_CONFIGS, ids=str)
def test_lbfgs_matches_torch(kwargs, dtype):
    """Losses, parameters and the whole state (history, direction, step, counts), over
    three steps (one in float32) of a few iterations each: still far from the optimum,
    where the history would hold differences of nearly equal gradients, rounding noise."""
    rtol, atol = TOLERANCES[dtype]
    steps = 3 if dtype == np.float64 else 1     # float32's rounding grows with the history
    our_losses, ours, our_state = lbfgs_run(ag, dtype, steps, **kwargs)
    their_losses, theirs, their_state = lbfgs_run(torch, dtype, steps, **kwargs)
    np.testing.assert_allclose(our_losses, their_losses, rtol, atol)
    assert_close(ours, theirs, rtol, atol, "parameters")
    assert_same_lbfgs_state(our_state, their_state, 10 * rtol, 10 * atol)


@pytest.mark.parametrize("kwargs", [{}, {"line_search_fn": "strong_wolfe"},
                                    {"line_search_fn": "strong_wolfe", "history_size": 2,
                                     "max_iter": 30}], ids=str)
def test_lbfgs_converges_as_torch(kwargs):
    """Run to the optimum: the same losses, parameters and evaluation counts."""
    our_losses, ours, our_state = lbfgs_run(ag, np.float64, **kwargs)
    their_losses, theirs, their_state = lbfgs_run(torch, np.float64, **kwargs)
    np.testing.assert_allclose(our_losses, their_losses, 1e-12, 1e-14)
    assert_close(ours, theirs, 1e-11, 1e-13, "parameters")
    for key in ("func_evals", "n_iter"):
        assert our_state["state"][0][key] == their_state["state"][0][key]


def test_lbfgs_on_complex_parameters_matches_torch():
    """A complex parameter is two reals in the flat vector."""
    def run(lib):
        z = lib.tensor(np.array([1 + 2j, -0.5j]), requires_grad=True)
        target = lib.tensor(np.array([0.3 - 1j, 2 + 0.5j]))
        opt = lib.optim.LBFGS([z], line_search_fn="strong_wolfe")

        def closure():
            opt.zero_grad()
            loss = ((z - target).abs() ** 2).sum() + (z.real ** 4).sum()
            loss.backward()
            return loss
        opt.step(closure)
        return z, opt.state_dict()["state"][0]["func_evals"]

    (ours, our_evals), (theirs, their_evals) = run(ag), run(torch)
    assert_close(ours, theirs, 1e-9, 1e-12)
    assert our_evals == their_evals


@pytest.mark.parametrize("fn, kind, words", [
    (lambda lib: lib.optim.LBFGS([lib.ones(2)], lr=-1.0), ValueError,
     "Invalid learning rate: -1.0"),
    (lambda lib: lib.optim.LBFGS([{"params": [lib.ones(2)]}, {"params": [lib.ones(1)]}]),
     ValueError, r"LBFGS doesn't support per-parameter options \(parameter groups\)"),
    (lambda lib: (lambda w, opt: opt.step(lambda: (w * w).sum().backward() or
                                          (w * w).sum()))(
        *(lambda w: (w, lib.optim.LBFGS([w], line_search_fn="armijo")))(
            lib.ones(2, requires_grad=True))),
     RuntimeError, "only 'strong_wolfe' is supported"),
])
def test_lbfgs_errors_match_torch(fn, kind, words):
    assert_same_error(fn, kind, words)


def test_lbfgs_defaults_match_torch():
    def run(lib):
        opt = lib.optim.LBFGS([lib.ones(2, requires_grad=True)], max_iter=8)
        return opt.defaults, repr(opt)

    assert run(ag) == run(torch)


def signature(fn):
    import inspect
    return [(p.name, p.kind, p.default) for p in inspect.signature(fn).parameters.values()]


@pytest.mark.parametrize("name", NAMES + ["LBFGS"])
def test_constructor_signatures_match_torch(name):
    """The same arguments in the same order, keyword-only where torch's are, with the same
    defaults."""
    assert signature(getattr(ag.optim, name)) == signature(getattr(torch.optim, name))
