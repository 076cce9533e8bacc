"""The schedules of ``optim.lr_scheduler`` beyond StepLR, CosineAnnealingLR and LambdaLR,
against torch's: the learning rates (and the cycled momentum) over many epochs, exactly
(the same float operations in the same order); ``state_dict``/``load_state_dict`` and
resuming; ``ReduceLROnPlateau`` on a metric sequence in every mode; the combined
schedules; the warnings and the errors."""
import math

import pytest
import torch

import autograd_cy as ag
from tests.oracle import assert_same_error, no_warning, same_warning


class Shrinking:
    """A callable object as a schedule's function: its ``__dict__`` is saved."""

    def __init__(self):
        self.factor = 0.9

    def __call__(self, epoch):
        return self.factor


def sgd(lib):
    w, b = lib.zeros(2, requires_grad=True), lib.zeros(1, requires_grad=True)
    return lib.optim.SGD([{"params": [w]}, {"params": [b], "lr": 0.5}], lr=0.1, momentum=0.9)


def adam(lib):
    w, b = lib.zeros(2, requires_grad=True), lib.zeros(1, requires_grad=True)
    return lib.optim.Adam([{"params": [w]}, {"params": [b], "lr": 0.02}], lr=0.01)


SCHEDULES = [
    ("MultiplicativeLR", sgd, lambda s, o: s.MultiplicativeLR(o, lambda e: 0.95)),
    ("MultiplicativeLR per group", sgd,
     lambda s, o: s.MultiplicativeLR(o, [lambda e: 0.9 if e % 2 else 1.0, Shrinking()])),
    ("MultiStepLR", sgd, lambda s, o: s.MultiStepLR(o, milestones=[3, 7, 7, 20], gamma=0.3)),
    ("ExponentialLR", sgd, lambda s, o: s.ExponentialLR(o, gamma=0.87)),
    ("ConstantLR", sgd, lambda s, o: s.ConstantLR(o, factor=0.3, total_iters=6)),
    ("ConstantLR default", sgd, lambda s, o: s.ConstantLR(o)),
    ("LinearLR", sgd, lambda s, o: s.LinearLR(o, start_factor=0.1, total_iters=9)),
    ("LinearLR down", sgd,
     lambda s, o: s.LinearLR(o, start_factor=1.0, end_factor=0.2, total_iters=13)),
    ("PolynomialLR", sgd, lambda s, o: s.PolynomialLR(o, total_iters=17, power=2.0)),
    ("PolynomialLR linear", sgd, lambda s, o: s.PolynomialLR(o, total_iters=10)),
    ("CosineAnnealingWarmRestarts", sgd,
     lambda s, o: s.CosineAnnealingWarmRestarts(o, T_0=5, eta_min=0.001)),
    ("CosineAnnealingWarmRestarts T_mult", sgd,
     lambda s, o: s.CosineAnnealingWarmRestarts(o, T_0=3, T_mult=2)),
    ("CyclicLR triangular", sgd,
     lambda s, o: s.CyclicLR(o, base_lr=0.01, max_lr=0.1, step_size_up=4)),
    ("CyclicLR triangular2", sgd,
     lambda s, o: s.CyclicLR(o, base_lr=[0.01, 0.02], max_lr=0.3, step_size_up=3,
                             step_size_down=5, mode="triangular2")),
    ("CyclicLR exp_range", sgd,
     lambda s, o: s.CyclicLR(o, base_lr=0.01, max_lr=0.1, step_size_up=4, mode="exp_range",
                             gamma=0.97, base_momentum=0.7, max_momentum=[0.9, 0.95])),
    ("CyclicLR custom scale, no momentum", sgd,
     lambda s, o: s.CyclicLR(o, base_lr=0.01, max_lr=0.1, step_size_up=2,
                             scale_fn=lambda x: 1 / (x + 1), scale_mode="iterations",
                             cycle_momentum=False)),
    ("CyclicLR on Adam's beta1", adam,
     lambda s, o: s.CyclicLR(o, base_lr=0.001, max_lr=0.01, step_size_up=5)),
    ("OneCycleLR cos", sgd, lambda s, o: s.OneCycleLR(o, max_lr=1.0, total_steps=41)),
    ("OneCycleLR linear", adam,
     lambda s, o: s.OneCycleLR(o, max_lr=[0.1, 0.2], epochs=4, steps_per_epoch=10,
                               anneal_strategy="linear", pct_start=0.25)),
    ("OneCycleLR three phase", sgd,
     lambda s, o: s.OneCycleLR(o, max_lr=0.5, total_steps=41, three_phase=True,
                               div_factor=10.0, final_div_factor=100.0,
                               base_momentum=0.8, max_momentum=0.9)),
    ("OneCycleLR without momentum", sgd,
     lambda s, o: s.OneCycleLR(o, max_lr=0.5, total_steps=41, cycle_momentum=False)),
    ("SequentialLR", sgd,
     lambda s, o: s.SequentialLR(o, [s.LinearLR(o, start_factor=0.1, total_iters=5),
                                     s.ExponentialLR(o, gamma=0.9),
                                     s.CosineAnnealingLR(o, T_max=8)], milestones=[5, 15])),
    ("ChainedScheduler", sgd,
     lambda s, o: s.ChainedScheduler([s.ConstantLR(o, factor=0.5, total_iters=4),
                                      s.ExponentialLR(o, gamma=0.9),
                                      s.MultiStepLR(o, milestones=[10, 20])])),
]
IDS = [s[0] for s in SCHEDULES]


def hyperparameters(opt):
    """Each group's lr and whatever momentum it has."""
    return [(g["lr"], g.get("momentum"), g.get("betas")) for g in opt.param_groups]


def run(lib, make_opt, make, epochs=40):
    """The scheduler's last rates and the groups' hyperparameters after construction and
    after each of ``epochs`` steps (optimizer, then scheduler)."""
    opt = make_opt(lib)
    scheduler = make(lib.optim.lr_scheduler, opt)
    seen = [(scheduler.get_last_lr(), hyperparameters(opt))]
    for _ in range(epochs):
        opt.step()
        scheduler.step()
        seen.append((scheduler.get_last_lr(), hyperparameters(opt)))
        assert seen[-1][0] == [group["lr"] for group in opt.param_groups]
    return seen, scheduler, opt


@pytest.mark.parametrize("name, make_opt, make", SCHEDULES, ids=IDS)
def test_rates_match_torch_step_by_step(name, make_opt, make):
    ours, _, _ = run(ag, make_opt, make)
    theirs, _, _ = run(torch, make_opt, make)
    assert ours == theirs


def plain_state(state):
    """A state dict without what cannot compare across libraries (functions)."""
    if isinstance(state, dict):
        return {k: plain_state(v) for k, v in state.items() if not callable(v)}
    if isinstance(state, list):
        return [plain_state(v) for v in state]
    return state


@pytest.mark.parametrize("name, make_opt, make", SCHEDULES, ids=IDS)
def test_state_dict_matches_torch_and_resumes(name, make_opt, make):
    results = []
    for lib in (ag, torch):
        _, scheduler, opt = run(lib, make_opt, make, epochs=12)
        state = scheduler.state_dict()
        resumed_opt = make_opt(lib)
        resumed = make(lib.optim.lr_scheduler, resumed_opt)
        resumed.load_state_dict(state)
        resumed_opt.load_state_dict(opt.state_dict())
        for _ in range(9):
            resumed_opt.step()
            resumed.step()
        results.append((plain_state(state), resumed.get_last_lr(),
                        hyperparameters(resumed_opt)))
    assert results[0] == results[1]


# ------------------------------------------------------------------ ReduceLROnPlateau

METRICS = [1.0, 0.9, 0.95, 0.9, 0.9, 0.89999, 0.85, 0.86, 0.87, 0.88, 0.84, 0.84, 0.9, 0.91,
           0.8, 0.81, 0.82, 0.83, 0.84, 0.85, 0.86, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5]


@pytest.mark.parametrize("kwargs", [
    {},
    {"patience": 2},
    {"patience": 1, "factor": 0.5, "cooldown": 2},
    {"patience": 0, "threshold": 0.05, "threshold_mode": "abs"},
    {"mode": "max", "patience": 1, "factor": 0.3},
    {"mode": "max", "patience": 2, "threshold": 0.01, "threshold_mode": "abs", "cooldown": 1},
    {"patience": 0, "factor": 0.5, "min_lr": [0.02, 0.2]},
    {"patience": 0, "factor": 0.5, "min_lr": 0.01, "eps": 0.02},
], ids=str)
def test_reduce_on_plateau_matches_torch(kwargs):
    def go(lib):
        opt = sgd(lib)
        scheduler = lib.optim.lr_scheduler.ReduceLROnPlateau(opt, **kwargs)
        seen = [scheduler.get_last_lr()]
        for metric in METRICS:
            opt.step()
            scheduler.step(lib.tensor(metric) if metric < 0.6 else metric)
            seen.append((scheduler.get_last_lr(), scheduler.num_bad_epochs,
                         scheduler.cooldown_counter, scheduler.best, scheduler.last_epoch))
        return seen, plain_state(scheduler.state_dict())

    assert go(ag) == go(torch)


def test_reduce_on_plateau_state_dict_resumes():
    results = []
    for lib in (ag, torch):
        opt = sgd(lib)
        scheduler = lib.optim.lr_scheduler.ReduceLROnPlateau(opt, patience=1, mode="max")
        for metric in METRICS[:10]:
            scheduler.step(metric)
        resumed = lib.optim.lr_scheduler.ReduceLROnPlateau(sgd(lib))
        resumed.load_state_dict(scheduler.state_dict())
        resumed.optimizer.load_state_dict(opt.state_dict())
        for metric in METRICS[10:]:
            resumed.step(metric)
        results.append((resumed.get_last_lr(), resumed.mode, resumed.best))
    assert results[0] == results[1]


def test_a_group_added_later_takes_the_default_min_lr():
    def go(lib):
        opt = sgd(lib)
        scheduler = lib.optim.lr_scheduler.ReduceLROnPlateau(opt, patience=0, min_lr=0.04)
        opt.add_param_group({"params": [lib.zeros(1, requires_grad=True)], "lr": 1.0})
        for metric in [1.0, 2.0, 3.0]:
            scheduler.step(metric)
        return scheduler.get_last_lr(), scheduler.min_lrs

    assert go(ag) == go(torch)

    def with_a_list(lib):
        opt = sgd(lib)
        scheduler = lib.optim.lr_scheduler.ReduceLROnPlateau(opt, patience=0,
                                                             min_lr=[0.0, 0.0])
        opt.add_param_group({"params": [lib.zeros(1, requires_grad=True)]})
        for metric in [1.0, 2.0]:
            scheduler.step(metric)

    assert_same_error(with_a_list, RuntimeError, r"The number of param groups in the "
                      r"`optimizer` \(3\) differs from when `ReduceLROnPlateau` was "
                      r"initialized \(2\)")


# ------------------------------------------------------------------ epochs, warnings

def test_the_deprecated_epoch_argument_uses_the_closed_form():
    def go(lib):
        s = lib.optim.lr_scheduler
        makes = [lambda o: s.MultiStepLR(o, [2, 4, 4]), lambda o: s.ExponentialLR(o, 0.5),
                 lambda o: s.ConstantLR(o), lambda o: s.LinearLR(o, total_iters=4),
                 lambda o: s.PolynomialLR(o, total_iters=8, power=1.5)]
        seen = []
        for make in makes:
            opt = sgd(lib)
            scheduler = make(opt)
            opt.step()
            with pytest.warns(UserWarning, match="The epoch parameter"):
                for epoch in (5, 2, 3):
                    scheduler.step(epoch)
                    seen.append(scheduler.get_last_lr())
        return seen

    assert go(ag) == go(torch)


@pytest.mark.parametrize("epochs", [[0.5, 1.25, 3.0, 7.5, 12.0, 30.2], [4, 40, 2, 100]])
def test_warm_restarts_take_fractional_epochs(epochs):
    def go(lib):
        seen = []
        for t_mult in (1, 2, 3):
            opt = sgd(lib)
            scheduler = lib.optim.lr_scheduler.CosineAnnealingWarmRestarts(opt, 3, t_mult)
            opt.step()
            for epoch in epochs:
                scheduler.step(epoch)
                seen.append((scheduler.get_last_lr(), scheduler.T_cur, scheduler.T_i,
                             scheduler.last_epoch))
        return seen

    assert go(ag) == go(torch)


@pytest.mark.parametrize("make", [
    lambda s, o: s.ExponentialLR(o, 0.9), lambda s, o: s.MultiStepLR(o, [1]),
    lambda s, o: s.OneCycleLR(o, 1.0, total_steps=10),
    lambda s, o: s.CyclicLR(o, 0.01, 0.1)])
def test_stepping_the_scheduler_first_warns_as_torch(make):
    def scheduler_first(lib):
        opt = sgd(lib)
        scheduler = make(lib.optim.lr_scheduler, opt)
        scheduler.step()
        opt.step()

    same_warning(scheduler_first, UserWarning,
                 r"Detected call of `lr_scheduler.step\(\)` before `optimizer.step\(\)`")


def test_the_right_order_does_not_warn():
    def optimizer_first(lib):
        opt = sgd(lib)
        s = lib.optim.lr_scheduler
        schedulers = [s.ExponentialLR(opt, 0.9), s.LinearLR(opt)]
        for _ in range(3):
            opt.step()
            for scheduler in schedulers:
                scheduler.step()

    no_warning(optimizer_first)


def test_get_lr_outside_step_warns_as_torch():
    same_warning(lambda lib: lib.optim.lr_scheduler.ExponentialLR(sgd(lib), 0.5).get_lr(),
                 UserWarning, r"please use `get_last_lr\(\)`")


def test_one_cycle_refuses_a_step_past_its_total():
    def go(lib):
        opt = sgd(lib)
        scheduler = lib.optim.lr_scheduler.OneCycleLR(opt, 1.0, total_steps=3)
        for _ in range(4):
            opt.step()
            scheduler.step()

    assert_same_error(go, ValueError, "Tried to step 4 times. The specified number of total "
                      "steps is 3")


def scheduler_of(name, *args, opt=sgd, **kwargs):
    return lambda lib: getattr(lib.optim.lr_scheduler, name)(opt(lib), *args, **kwargs)


def adagrad(lib):
    return lib.optim.Adagrad([lib.zeros(1, requires_grad=True)])


ERRORS = [
    (scheduler_of("MultiplicativeLR", [abs]), ValueError, "Expected 2 lr_lambdas, but got 1"),
    (scheduler_of("MultiplicativeLR", 0.5), TypeError,
     "lr_lambda should be a function, but got float"),
    (scheduler_of("ConstantLR", factor=1.5), ValueError,
     "Constant multiplicative factor expected to be between 0 and 1."),
    (scheduler_of("LinearLR", start_factor=0), ValueError,
     "Starting multiplicative factor expected to be greater than 0"),
    (scheduler_of("LinearLR", end_factor=1.5), ValueError,
     "Ending multiplicative factor expected to be between 0 and 1."),
    (scheduler_of("ReduceLROnPlateau", factor=1.0), ValueError, "Factor should be < 1.0."),
    (scheduler_of("ReduceLROnPlateau", mode="middle"), ValueError, "mode middle is unknown!"),
    (scheduler_of("ReduceLROnPlateau", threshold_mode="x"), ValueError,
     "threshold mode x is unknown!"),
    (scheduler_of("ReduceLROnPlateau", min_lr=[0.1]), ValueError, "expected 2 min_lrs, got 1"),
    (lambda lib: lib.optim.lr_scheduler.ReduceLROnPlateau(object()), TypeError,
     "object is not an Optimizer"),
    (scheduler_of("CosineAnnealingWarmRestarts", 0), ValueError,
     "Expected positive integer T_0, but got 0"),
    (scheduler_of("CosineAnnealingWarmRestarts", 2, 1.5), ValueError,
     "Expected integer T_mult >= 1, but got 1.5"),
    (scheduler_of("CosineAnnealingWarmRestarts", 2, eta_min="0"), ValueError,
     "Expected float or int eta_min"),
    (scheduler_of("CyclicLR", 0.1, 1.0, mode="square"), ValueError,
     "mode is invalid and scale_fn is None"),
    (scheduler_of("CyclicLR", [0.1], 1.0), ValueError,
     "base_lr must have the same length as optimizer.param_groups. base_lr has 1 values, "
     "param_groups has 2."),
    (scheduler_of("CyclicLR", 0.1, 1.0, opt=adagrad), ValueError,
     "optimizer must support momentum or beta1 with `cycle_momentum` option enabled"),
    (scheduler_of("OneCycleLR", 1.0), ValueError,
     r"You must define either total_steps OR \(epochs AND steps_per_epoch\)"),
    (scheduler_of("OneCycleLR", 1.0, total_steps=0), ValueError,
     "Expected positive integer total_steps, but got 0"),
    (scheduler_of("OneCycleLR", 1.0, epochs=2, steps_per_epoch=-1), ValueError,
     "Expected positive integer steps_per_epoch, but got -1"),
    (scheduler_of("OneCycleLR", 1.0, epochs=0, steps_per_epoch=1), ValueError,
     "Expected positive integer epochs, but got 0"),
    (scheduler_of("OneCycleLR", 1.0, total_steps=5, pct_start=1), ValueError,
     "Expected float between 0 and 1 pct_start, but got 1"),
    (scheduler_of("OneCycleLR", 1.0, total_steps=5, anneal_strategy="exp"), ValueError,
     "anneal_strategy must be one of 'cos' or 'linear', instead got exp"),
    (scheduler_of("OneCycleLR", 1.0, total_steps=5, opt=adagrad), ValueError,
     "optimizer must support momentum or beta1"),
    (lambda lib: lib.optim.lr_scheduler.SequentialLR(sgd(lib), [], []), ValueError,
     "SequentialLR expects at least one scheduler, but got no scheduler."),
    (lambda lib: (lambda o, s: s.SequentialLR(o, [s.ExponentialLR(o, 0.9)], [3]))(
        sgd(lib), lib.optim.lr_scheduler), ValueError,
     "Sequential Schedulers expects number of schedulers provided to be one more than the "
     "number of milestone points, but got number of schedulers 1 and the number of "
     "milestones to be equal to 1"),
    (lambda lib: (lambda s: s.SequentialLR(sgd(lib), [s.ExponentialLR(sgd(lib), 0.9)], []))(
        lib.optim.lr_scheduler), ValueError,
     "SequentialLR expects all schedulers to belong to the same optimizer, but got "
     "scheduler ExponentialLR at index 0"),
    (lambda lib: (lambda o, s: s.SequentialLR(o, [s.ReduceLROnPlateau(o)], []))(
        sgd(lib), lib.optim.lr_scheduler), ValueError,
     "SequentialLR does not support `ReduceLROnPlateau` scheduler"),
    (lambda lib: lib.optim.lr_scheduler.SequentialLR(sgd(lib), [object()], []), TypeError,
     "SequentialLR at index 0 should have `optimizer` as its attribute."),
    (lambda lib: lib.optim.lr_scheduler.ChainedScheduler([]), ValueError,
     "ChainedScheduler expects at least one scheduler to be chained, but got no scheduler."),
    (lambda lib: (lambda o, s: s.ChainedScheduler([s.ExponentialLR(o, 0.9),
                                                   s.ReduceLROnPlateau(o)]))(
        sgd(lib), lib.optim.lr_scheduler), ValueError,
     "ChainedScheduler does not support `ReduceLROnPlateau` scheduler as it requires "
     "additional kwargs to be specified when calling `step`, but got one at index 1"),
]


@pytest.mark.parametrize("fn, kind, words", ERRORS, ids=[e[2][:50] for e in ERRORS])
def test_errors_match_torch(fn, kind, words):
    assert_same_error(fn, kind, words)


def test_every_schedule_is_an_lr_scheduler():
    s = ag.optim.lr_scheduler
    names = ["MultiplicativeLR", "MultiStepLR", "ExponentialLR", "ConstantLR", "LinearLR",
             "PolynomialLR", "SequentialLR", "ChainedScheduler", "ReduceLROnPlateau",
             "CyclicLR", "OneCycleLR", "CosineAnnealingWarmRestarts"]
    assert all(issubclass(getattr(s, n), s.LRScheduler) for n in names)
    assert all(issubclass(getattr(torch.optim.lr_scheduler, n),
                          torch.optim.lr_scheduler.LRScheduler) for n in names)
    assert set(names) <= set(s.__all__)
    assert math.isclose(s.OneCycleLR._annealing_cos(1.0, 0.0, 0.5), 0.5)


@pytest.mark.parametrize("name", sorted({s[0].split()[0] for s in SCHEDULES}
                                        | {"ReduceLROnPlateau"}))
def test_constructor_signatures_match_torch(name):
    import inspect

    def signature(cls):
        return [(p.name, p.kind, p.default) for p in inspect.signature(cls).parameters.values()]
    assert signature(getattr(ag.optim.lr_scheduler, name)) == \
        signature(getattr(torch.optim.lr_scheduler, name))
