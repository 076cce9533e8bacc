"""Schedules made of other schedules (re-exported by ``optim.lr_scheduler``):
``SequentialLR`` runs one after another, switching at milestones; ``ChainedScheduler``
steps them all together, each multiplying in its own change (they compute from the
group's current lr, so their changes compose)."""
from bisect import bisect_right

from autograd_cy.optim.lr_scheduler import LRScheduler

__all__ = ["SequentialLR", "ChainedScheduler"]


def _check_schedulers(kind, optimizer, schedulers):
    """torch's checks: every scheduler belongs to ``optimizer``, none is a
    ``ReduceLROnPlateau`` (its step needs the metric)."""
    from autograd_cy.optim.lr_plateau import ReduceLROnPlateau
    for index, scheduler in enumerate(schedulers):
        if not hasattr(scheduler, "optimizer"):
            raise TypeError(f"{kind} at index {index} should have `optimizer` as its "
                            f"attribute.")
        if isinstance(scheduler, ReduceLROnPlateau):
            raise ValueError(f"{kind} does not support `ReduceLROnPlateau` scheduler as it "
                             f"requires additional kwargs to be specified when calling "
                             f"`step`, but got one at index {index} in the given schedulers "
                             f"sequence.")
        if optimizer != scheduler.optimizer:
            raise ValueError(f"{kind} expects all schedulers to belong to the same optimizer, "
                             f"but got scheduler {type(scheduler).__name__} at index {index} "
                             f"has {scheduler.optimizer}, which is different from "
                             f"{type(optimizer).__name__}.")


def _state_with_schedulers(scheduler):
    """The attributes but the optimizer, with each inner scheduler's own state dict."""
    state = {key: value for key, value in scheduler.__dict__.items()
             if key not in ("optimizer", "_schedulers")}
    state["_schedulers"] = [s.state_dict() for s in scheduler._schedulers]
    return state


def _load_with_schedulers(scheduler, state_dict):
    state = dict(state_dict)
    inner = state.pop("_schedulers")
    scheduler.__dict__.update(state)
    for s, saved in zip(scheduler._schedulers, inner):
        s.load_state_dict(saved)


class SequentialLR(LRScheduler):
    """``schedulers[i]`` drives the rates from epoch ``milestones[i - 1]`` on; at each
    milestone the next scheduler starts over from the initial rates (its epoch 0)."""

    def __init__(self, optimizer, schedulers, milestones, last_epoch=-1):
        kind = type(self).__name__
        if len(schedulers) < 1:
            raise ValueError(f"{kind} expects at least one scheduler, but got no scheduler.")
        _check_schedulers(kind, optimizer, schedulers)
        if len(milestones) != len(schedulers) - 1:
            raise ValueError(
                f"Sequential Schedulers expects number of schedulers provided to be one more "
                f"than the number of milestone points, but got number of schedulers "
                f"{len(schedulers)} and the number of milestones to be equal to "
                f"{len(milestones)}")
        self._schedulers = schedulers
        self._milestones = milestones
        self.last_epoch = last_epoch + 1
        self.optimizer = optimizer
        # the inner schedulers each took their initial step when built: undo them all,
        # then start the first one afresh
        for group in optimizer.param_groups:
            group["lr"] = group["initial_lr"]
        self.recursive_undo()
        first = self._schedulers[bisect_right(self._milestones, 0)]
        first._initial_step()
        self._last_lr = first.get_last_lr()

    def recursive_undo(self, sched=None):
        """Take one epoch off every scheduler inside (nested ones included)."""
        scheds = self if sched is None else sched
        if hasattr(scheds, "_schedulers"):
            for s in scheds._schedulers:
                self.recursive_undo(s)
        elif hasattr(scheds, "last_epoch"):
            scheds.last_epoch -= 1

    def step(self):
        """One epoch of the scheduler in charge (at a milestone, the next one's epoch 0)."""
        self.last_epoch += 1
        index = bisect_right(self._milestones, self.last_epoch)
        scheduler = self._schedulers[index]
        if index > 0 and self._milestones[index - 1] == self.last_epoch:
            scheduler._update_lr(0)
        else:
            scheduler.step()
        self._last_lr = scheduler.get_last_lr()

    def state_dict(self):
        return _state_with_schedulers(self)

    def load_state_dict(self, state_dict):
        _load_with_schedulers(self, state_dict)


class ChainedScheduler(LRScheduler):
    """Step every scheduler of ``schedulers`` at each ``step()``, in order."""

    def __init__(self, schedulers, optimizer=None):
        kind = type(self).__name__
        if len(schedulers) < 1:
            raise ValueError(f"{kind} expects at least one scheduler to be chained, but got "
                             f"no scheduler.")
        optimizer = optimizer or schedulers[0].optimizer
        _check_schedulers(kind, optimizer, schedulers)
        self._schedulers = schedulers
        self.optimizer = optimizer
        self._last_lr = self._schedulers[-1]._current_lrs()

    def step(self):
        for scheduler in self._schedulers:
            scheduler.step()
        self._last_lr = self._schedulers[-1]._current_lrs()

    def state_dict(self):
        return _state_with_schedulers(self)

    def load_state_dict(self, state_dict):
        _load_with_schedulers(self, state_dict)
