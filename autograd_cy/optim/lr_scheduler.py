"""Learning-rate schedules, as ``torch.optim.lr_scheduler``: an ``LRScheduler`` rewrites
each parameter group's ``"lr"`` at every ``scheduler.step()`` (once per epoch, after
``optimizer.step()``). This module holds the base class and the first schedules; the other
families (the decays, the cyclic schedules, the combined ones, ``ReduceLROnPlateau``) are
in sibling modules and imported here, torch's one namespace for them all.

    >>> import autograd_cy as torch
    >>> w = torch.zeros(1, requires_grad=True)
    >>> opt = torch.optim.SGD([w], lr=1.0)
    >>> sched = torch.optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.5)
    >>> lrs = []
    >>> for epoch in range(5):
    ...     opt.step()
    ...     sched.step()
    ...     lrs.append(sched.get_last_lr()[0])
    >>> lrs
    [1.0, 0.5, 0.5, 0.25, 0.25]
"""
import math
import types
import warnings
from functools import wraps
from weakref import ref

from autograd_cy.optim.optimizer import Optimizer

__all__ = ["LRScheduler", "LambdaLR", "StepLR", "CosineAnnealingLR", "MultiplicativeLR",
           "MultiStepLR", "ExponentialLR", "ConstantLR", "LinearLR", "PolynomialLR",
           "SequentialLR", "ChainedScheduler", "ReduceLROnPlateau", "CyclicLR", "OneCycleLR",
           "CosineAnnealingWarmRestarts"]

EPOCH_DEPRECATION_WARNING = (
    "The epoch parameter in `scheduler.step()` was not necessary and is being deprecated "
    "where possible. Please use `scheduler.step()` to step the scheduler. During the "
    "deprecation, if epoch is different from None, the closed form is used instead of the "
    "new chainable form, where available. Please open an issue if you are unable to "
    "replicate your use case: https://github.com/pytorch/pytorch/issues/new/choose.")


# NOTE [Which step came first]
# A schedule's first value is meant for the first optimizer.step(); calling
# scheduler.step() before it skips that value, so torch warns. To know, the scheduler wraps
# its optimizer's bound step (once: the wrapper is marked) so that each call sets
# optimizer._opt_called; the first scheduler.step() after construction warns if it is not
# set, and warns differently if step has been replaced since (the mark is gone).

def _track_step_called(optimizer):
    """Wrap ``optimizer.step`` to record that it ran (NOTE [Which step came first])."""
    if hasattr(optimizer.step, "_wrapped_by_lr_sched"):
        return
    optimizer_ref = ref(optimizer)
    function = optimizer.step.__func__

    @wraps(function)
    def step(*args, **kwargs):
        opt = optimizer_ref()
        opt._opt_called = True
        return function.__get__(opt, type(opt))(*args, **kwargs)

    step._wrapped_by_lr_sched = True
    optimizer.step = step


class LRScheduler:
    """Base class of the schedules: a subclass implements ``get_lr()``, the next learning
    rate of each group from ``last_epoch`` (the number of ``step()`` calls so far, 0 at
    construction, when the initial rates are set)."""

    _get_lr_called_within_step = False
    _is_initial = False

    def __init__(self, optimizer, last_epoch=-1):
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"{type(optimizer).__name__} is not an Optimizer")
        self.optimizer = optimizer
        if last_epoch == -1:
            for group in optimizer.param_groups:
                group.setdefault("initial_lr", group["lr"])
        else:
            for i, group in enumerate(optimizer.param_groups):
                if "initial_lr" not in group:
                    raise KeyError(
                        f"param 'initial_lr' is not specified in param_groups[{i}] when "
                        f"resuming scheduler with last_epoch >= 0.\nThis typically happens "
                        f"when:\n1. You're trying to resume training from a checkpoint but "
                        f"haven't properly loaded the optimizer state\n2. You're using "
                        f"last_epoch >= 0 for a fresh training run (not recommended)")
        self.base_lrs = [group["initial_lr"] for group in optimizer.param_groups]
        self.last_epoch = last_epoch
        _track_step_called(optimizer)
        self._initial_step()

    def _initial_step(self):
        """Reset the step count and take the step that sets the initial rates (get_lr
        sees ``_is_initial``)."""
        self._step_count = 0
        self._is_initial = True
        try:
            self.step()
        finally:
            self._is_initial = False

    def state_dict(self):
        """Every attribute but the optimizer."""
        return {key: value for key, value in self.__dict__.items() if key != "optimizer"}

    def load_state_dict(self, state_dict):
        """Take the attributes of ``state_dict`` (from ``state_dict()``)."""
        self.__dict__.update(state_dict)

    def get_last_lr(self):
        """The learning rates of the groups as the last ``step()`` set them."""
        return self._last_lr

    def get_lr(self):
        """The learning rates the next ``step()`` sets (each schedule's rule)."""
        raise NotImplementedError

    def step(self, epoch=None):
        """Advance the schedule by one epoch (or, deprecated, to ``epoch``) and write the
        new rates into the optimizer's groups. Call it after ``optimizer.step()``."""
        if self._step_count == 1:
            if not hasattr(self.optimizer.step, "_wrapped_by_lr_sched"):
                warnings.warn(
                    "Seems like `optimizer.step()` has been overridden after learning rate "
                    "scheduler initialization. Please, make sure to call `optimizer.step()` "
                    "before `lr_scheduler.step()`. See more details at "
                    "https://pytorch.org/docs/stable/optim.html#how-to-adjust-learning-rate",
                    UserWarning, stacklevel=2)
            elif not getattr(self.optimizer, "_opt_called", False):
                warnings.warn(
                    "Detected call of `lr_scheduler.step()` before `optimizer.step()`. In "
                    "PyTorch 1.1.0 and later, you should call them in the opposite order: "
                    "`optimizer.step()` before `lr_scheduler.step()`.  Failure to do this "
                    "will result in PyTorch skipping the first value of the learning rate "
                    "schedule. See more details at "
                    "https://pytorch.org/docs/stable/optim.html#how-to-adjust-learning-rate",
                    UserWarning, stacklevel=2)
        self._step_count += 1
        if epoch is not None:
            warnings.warn(EPOCH_DEPRECATION_WARNING, UserWarning, stacklevel=2)
        self._update_lr(epoch)

    def _update_lr(self, epoch=None):
        """The step without its bookkeeping: the next rates (of ``epoch``, by the closed
        form where there is one), written into the groups."""
        self._get_lr_called_within_step = True
        try:
            if epoch is None:
                self.last_epoch += 1
                values = self.get_lr()
            else:
                self.last_epoch = epoch
                closed_form = getattr(self, "_get_closed_form_lr", None)
                values = closed_form() if closed_form is not None else self.get_lr()
        finally:
            self._get_lr_called_within_step = False
        for group, lr in zip(self.optimizer.param_groups, values):
            group["lr"] = lr
        self._last_lr = [group["lr"] for group in self.optimizer.param_groups]

    def _current_lrs(self):
        return [group["lr"] for group in self.optimizer.param_groups]

    def _warn_if_called_outside_step(self):
        if not self._get_lr_called_within_step:
            warnings.warn("To get the last learning rate computed by the scheduler, please "
                          "use `get_last_lr()`.", UserWarning, stacklevel=3)


class _PerGroupLambdas(LRScheduler):
    """A scheduler driven by functions of the epoch, one for every group (LambdaLR,
    MultiplicativeLR): their checks, and their state (a callable object's ``__dict__``; a
    function or a lambda is not saved: None)."""

    _refuses_non_callables = False        # MultiplicativeLR checks them, LambdaLR does not

    def __init__(self, optimizer, lr_lambda, last_epoch=-1):
        self.optimizer = optimizer
        if not isinstance(lr_lambda, (list, tuple)):
            self.lr_lambdas = [lr_lambda] * len(optimizer.param_groups)
        else:
            if len(lr_lambda) != len(optimizer.param_groups):
                raise ValueError(f"Expected {len(optimizer.param_groups)} lr_lambdas, but "
                                 f"got {len(lr_lambda)}")
            self.lr_lambdas = list(lr_lambda)
        for fn in self.lr_lambdas if self._refuses_non_callables else ():
            if not callable(fn):
                raise TypeError(f"lr_lambda should be a function, but got "
                                f"{type(fn).__name__}")
        super().__init__(optimizer, last_epoch)

    def state_dict(self):
        state = {key: value for key, value in self.__dict__.items()
                 if key not in ("optimizer", "lr_lambdas")}
        state["lr_lambdas"] = [None if isinstance(fn, types.FunctionType) else
                               fn.__dict__.copy() for fn in self.lr_lambdas]
        return state

    def load_state_dict(self, state_dict):
        state = dict(state_dict)
        lr_lambdas = state.pop("lr_lambdas")
        self.__dict__.update(state)
        for fn, saved in zip(self.lr_lambdas, lr_lambdas):
            if saved is not None:
                fn.__dict__.update(saved)


class LambdaLR(_PerGroupLambdas):
    """``lr = initial_lr * lr_lambda(epoch)``, with one function or one per group."""

    def get_lr(self):
        self._warn_if_called_outside_step()
        return [base_lr * fn(self.last_epoch)
                for fn, base_lr in zip(self.lr_lambdas, self.base_lrs)]


class StepLR(LRScheduler):
    """Multiply each group's lr by ``gamma`` every ``step_size`` epochs."""

    def __init__(self, optimizer, step_size, gamma=0.1, last_epoch=-1):
        self.step_size = step_size
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        self._warn_if_called_outside_step()
        if self.last_epoch == 0 or self.last_epoch % self.step_size != 0:
            return self._current_lrs()
        return [group["lr"] * self.gamma for group in self.optimizer.param_groups]

    def _get_closed_form_lr(self):
        return [base_lr * self.gamma ** (self.last_epoch // self.step_size)
                for base_lr in self.base_lrs]


# NOTE [Cosine annealing, step by step]
# The schedule is eta_min + (base_lr - eta_min) * (1 + cos(pi * epoch / T_max)) / 2, but
# torch computes each value from the group's current lr (a recursion), so that another
# scheduler or the user may change lr between steps and the cosine continues from there.
# Each step multiplies (lr - eta_min) by the ratio of two consecutive cosine factors; at
# the epochs where that ratio would be 0/0 (the end of each half period, then the lr
# climbs again) it adds the increment instead. The values therefore match torch's to the
# last bit only when computed the same way, which is what get_lr does.

class CosineAnnealingLR(LRScheduler):
    """Anneal each group's lr from its initial value to ``eta_min`` over ``T_max``
    epochs along half a cosine (NOTE [Cosine annealing, step by step])."""

    def __init__(self, optimizer, T_max, eta_min=0.0, last_epoch=-1):
        self.T_max = T_max
        self.eta_min = eta_min
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        self._warn_if_called_outside_step()
        if self._is_initial:
            return self._current_lrs()
        if self._step_count == 1 and self.last_epoch > 0:
            return self._get_closed_form_lr()         # a scheduler resumed at last_epoch
        if (self.last_epoch - 1 - self.T_max) % (2 * self.T_max) == 0:
            return [group["lr"] + (base_lr - self.eta_min)
                    * (1 - math.cos(math.pi / self.T_max)) / 2
                    for base_lr, group in zip(self.base_lrs, self.optimizer.param_groups)]
        return [(1 + math.cos(math.pi * self.last_epoch / self.T_max))
                / (1 + math.cos(math.pi * (self.last_epoch - 1) / self.T_max))
                * (group["lr"] - self.eta_min) + self.eta_min
                for group in self.optimizer.param_groups]

    def _get_closed_form_lr(self):
        return [self.eta_min + (base_lr - self.eta_min)
                * (1 + math.cos(math.pi * self.last_epoch / self.T_max)) / 2
                for base_lr in self.base_lrs]


# The other families live in sibling modules, each built on LRScheduler above; they are
# imported last so that this module, torch's namespace of every schedule, holds them all.
from autograd_cy.optim.lr_schedules_decay import (  # noqa: E402
    ConstantLR, ExponentialLR, LinearLR, MultiStepLR, MultiplicativeLR, PolynomialLR)
from autograd_cy.optim.lr_schedules_combined import ChainedScheduler, SequentialLR  # noqa: E402
from autograd_cy.optim.lr_plateau import ReduceLROnPlateau  # noqa: E402
from autograd_cy.optim.lr_schedules_cyclic import (  # noqa: E402
    CosineAnnealingWarmRestarts, CyclicLR, OneCycleLR)
