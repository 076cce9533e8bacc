"""``autograd_cy.optim.lr_scheduler`` against ``torch.optim.lr_scheduler``: the learning
rates step by step (exactly: the same float operations, NOTE [Cosine annealing, step by
step]), ``state_dict``/``load_state_dict``, the warnings of a wrong call order and the
errors."""
import warnings

import pytest
import torch

import autograd_cy as ag
from tests.oracle import assert_same_error, no_warning, same_warning


class Halving:
    """A callable object as lr_lambda: its ``__dict__`` goes into the state dict."""

    def __init__(self):
        self.factor = 0.5

    def __call__(self, epoch):
        return self.factor ** epoch


SCHEDULES = [
    ("StepLR", lambda s, o: s.StepLR(o, step_size=3, gamma=0.3)),
    ("CosineAnnealingLR", lambda s, o: s.CosineAnnealingLR(o, T_max=5, eta_min=0.01)),
    ("CosineAnnealingLR no floor", lambda s, o: s.CosineAnnealingLR(o, T_max=7)),
    ("LambdaLR", lambda s, o: s.LambdaLR(o, lambda epoch: 0.95 ** epoch)),
    ("LambdaLR per group", lambda s, o: s.LambdaLR(o, [lambda e: 1 / (e + 1), Halving()])),
]


def optimizer(lib):
    w, b = lib.zeros(2, requires_grad=True), lib.zeros(1, requires_grad=True)
    return lib.optim.SGD([{"params": [w]}, {"params": [b], "lr": 0.5}], lr=0.1,
                         momentum=0.9)


def rates(lib, make, epochs=25):
    """The rates of every group after each of ``epochs`` steps (optimizer, then scheduler)."""
    opt = optimizer(lib)
    scheduler = make(lib.optim.lr_scheduler, opt)
    seen = [scheduler.get_last_lr()]
    for _ in range(epochs):
        opt.step()
        scheduler.step()
        seen.append(scheduler.get_last_lr())
        assert seen[-1] == [group["lr"] for group in opt.param_groups]
    return seen, scheduler


@pytest.mark.parametrize("name, make", SCHEDULES, ids=[s[0] for s in SCHEDULES])
def test_rates_match_torch_step_by_step(name, make):
    ours, _ = rates(ag, make)
    theirs, _ = rates(torch, make)
    assert ours == theirs         # exact: the same float operations in the same order


@pytest.mark.parametrize("name, make", SCHEDULES, ids=[s[0] for s in SCHEDULES])
def test_state_dict_matches_torch_and_resumes(name, make):
    results = []
    for lib in (ag, torch):
        _, scheduler = rates(lib, make, epochs=7)
        state = scheduler.state_dict()
        opt = optimizer(lib)
        resumed = make(lib.optim.lr_scheduler, opt)
        resumed.load_state_dict(state)
        opt.load_state_dict(scheduler.optimizer.state_dict())
        for _ in range(6):
            opt.step()
            resumed.step()
        results.append((state, resumed.get_last_lr(), resumed.last_epoch))
    assert results[0] == results[1]


def test_a_callable_objects_state_is_saved_and_loaded():
    results = []
    for lib in (ag, torch):
        opt = optimizer(lib)
        halving = Halving()
        halving.factor = 0.25
        scheduler = lib.optim.lr_scheduler.LambdaLR(opt, [lambda e: 1.0, halving])
        state = scheduler.state_dict()
        fresh = Halving()
        lib.optim.lr_scheduler.LambdaLR(optimizer(lib), [lambda e: 1.0, fresh]) \
            .load_state_dict(state)
        results.append((state["lr_lambdas"], fresh.factor))
    assert results[0] == results[1] == ([None, {"factor": 0.25}], 0.25)


def test_the_deprecated_epoch_argument_uses_the_closed_form():
    def run(lib):
        opt = optimizer(lib)
        schedulers = [lib.optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.5),
                      lib.optim.lr_scheduler.CosineAnnealingLR(optimizer(lib), T_max=4)]
        opt.step()
        seen = []
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            for scheduler in schedulers:
                scheduler.step(5)
                seen.append(scheduler.get_last_lr())
        return seen, [str(w.message)[:60] for w in caught]

    assert run(ag) == run(torch)


def test_stepping_the_scheduler_first_warns_as_torch():
    def scheduler_first(lib):
        opt = optimizer(lib)
        scheduler = lib.optim.lr_scheduler.StepLR(opt, step_size=1)
        scheduler.step()
        opt.step()

    same_warning(scheduler_first, UserWarning,
                 r"Detected call of `lr_scheduler.step\(\)` before `optimizer.step\(\)`")


def test_the_right_order_does_not_warn():
    def optimizer_first(lib):
        opt = optimizer(lib)
        scheduler = lib.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=3)
        for _ in range(3):
            opt.step()
            scheduler.step()
        return scheduler.get_last_lr()

    no_warning(optimizer_first)


def test_an_overridden_optimizer_step_warns_as_torch():
    def overridden(lib):
        opt = optimizer(lib)
        scheduler = lib.optim.lr_scheduler.StepLR(opt, step_size=1)
        opt.step = lambda closure=None: None
        opt.step()
        scheduler.step()

    same_warning(overridden, UserWarning, r"`optimizer.step\(\)` has been overridden after")


def test_get_lr_outside_step_warns_as_torch():
    same_warning(lambda lib: lib.optim.lr_scheduler.StepLR(optimizer(lib), 2).get_lr(),
                 UserWarning, r"please use `get_last_lr\(\)`")


def test_errors_match_torch():
    assert_same_error(lambda lib: lib.optim.lr_scheduler.StepLR(object(), 2), TypeError,
                      "object is not an Optimizer")
    assert_same_error(lambda lib: lib.optim.lr_scheduler.StepLR(optimizer(lib), 2,
                                                                last_epoch=3),
                      KeyError, r"param 'initial_lr' is not specified in param_groups\[0\]")
    assert_same_error(lambda lib: lib.optim.lr_scheduler.LambdaLR(optimizer(lib), [abs]),
                      ValueError, "Expected 2 lr_lambdas, but got 1")


def test_a_scheduler_sets_initial_lr_and_resumes_from_last_epoch():
    def run(lib):
        opt = optimizer(lib)
        lib.optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.5)
        groups = [dict((k, v) for k, v in g.items() if k != "params") for g in opt.param_groups]
        resumed = lib.optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.5, last_epoch=3)
        cosine = lib.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=10, eta_min=0.01,
                                                          last_epoch=3)
        return (groups, resumed.base_lrs, resumed.last_epoch, resumed.get_last_lr(),
                cosine.get_last_lr())

    assert run(ag) == run(torch)
