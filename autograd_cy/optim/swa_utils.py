"""Weight averaging, as ``torch.optim.swa_utils``: ``AveragedModel`` keeps a running
average (SWA, equal weights; or EMA through ``get_ema_multi_avg_fn``) of a model's
parameters, ``update_bn`` recomputes its BatchNorm statistics with one pass over the data,
and ``SWALR`` anneals each group's learning rate to a constant ``swa_lr``.

    >>> import autograd_cy as torch
    >>> from autograd_cy.optim.swa_utils import AveragedModel
    >>> model = torch.nn.Linear(1, 1, bias=False)
    >>> swa = AveragedModel(model)
    >>> for value in (1.0, 2.0, 6.0):
    ...     with torch.no_grad():
    ...         _ = model.weight.fill_(value)
    ...     swa.update_parameters(model)
    >>> swa.module.weight.item(), swa.n_averaged.item()
    (3.0, 3)
"""
import itertools
import math
from copy import deepcopy

import autograd_cy as torch
from autograd_cy.nn.modules.batchnorm import _BatchNorm
from autograd_cy.nn.modules.module import Module
from autograd_cy.optim.lr_scheduler import LRScheduler
from autograd_cy.optim.lr_schedules_cyclic import _format_param

__all__ = ["AveragedModel", "update_bn", "SWALR", "get_ema_multi_avg_fn",
           "get_swa_multi_avg_fn", "get_ema_avg_fn", "get_swa_avg_fn"]


def _check_decay(decay):
    if decay < 0.0 or decay > 1.0:
        raise ValueError(f"Invalid decay value {decay} provided. Please provide a value in "
                         f"[0,1] range.")


def _floating(t):
    return torch.is_floating_point(t) or torch.is_complex(t)


def get_ema_multi_avg_fn(decay=0.999):
    """An in-place EMA over lists of parameters: ``ema = decay * ema + (1 - decay) * p``."""
    _check_decay(decay)

    @torch.no_grad()
    def ema_update(ema_param_list, current_param_list, _):
        if _floating(ema_param_list[0]):
            torch._foreach_lerp_(ema_param_list, current_param_list, 1 - decay)
        else:
            for p_ema, p_model in zip(ema_param_list, current_param_list):
                p_ema.copy_(p_ema * decay + p_model * (1 - decay))
    return ema_update


def get_swa_multi_avg_fn():
    """An in-place equal-weight average over lists of parameters (the ``n``-th model
    weighs ``1 / (n + 1)``)."""
    @torch.no_grad()
    def swa_update(averaged_param_list, current_param_list, num_averaged):
        if _floating(averaged_param_list[0]):
            torch._foreach_lerp_(averaged_param_list, current_param_list,
                                 float(1 / (num_averaged + 1)))
            return
        for p_avg, p_model in zip(averaged_param_list, current_param_list):
            diff = p_model - p_avg
            if isinstance(num_averaged, torch.Tensor):
                p_avg.addcdiv_(diff, num_averaged + 1)
            else:
                p_avg.add_(diff, alpha=1.0 / (num_averaged + 1))
    return swa_update


def get_ema_avg_fn(decay=0.999):
    """The EMA of one parameter: returns ``decay * ema + (1 - decay) * p``."""
    _check_decay(decay)

    @torch.no_grad()
    def ema_update(ema_param, current_param, num_averaged):
        return decay * ema_param + (1 - decay) * current_param
    return ema_update


def get_swa_avg_fn():
    """The equal-weight average of one parameter: ``avg + (p - avg) / (n + 1)``."""
    @torch.no_grad()
    def swa_update(averaged_param, current_param, num_averaged):
        return averaged_param + (current_param - averaged_param) / (num_averaged + 1)
    return swa_update


def _by_device_and_dtype(averaged, current):
    """Pairs of lists grouped by (device, dtype) of the averaged tensor, in first-seen
    order."""
    groups = {}
    for a, c in zip(averaged, current):
        mine = groups.setdefault((a.device, a.dtype), ([], []))
        mine[0].append(a)
        mine[1].append(c)
    return groups


class AveragedModel(Module):
    """A copy of ``model`` (on ``device`` if given) whose parameters (and buffers, with
    ``use_buffers=True``) are the running average of those passed to
    ``update_parameters``: equal weights unless ``avg_fn`` (per tensor, returns the new
    value) or ``multi_avg_fn`` (per list, in place) says otherwise. The first call copies;
    ``n_averaged`` (a long buffer) counts the calls."""

    def __init__(self, model, device=None, avg_fn=None, multi_avg_fn=None,
                 use_buffers=False):
        super().__init__()
        if avg_fn is not None and multi_avg_fn is not None:
            raise AssertionError("Only one of avg_fn and multi_avg_fn should be provided")
        self.module = deepcopy(model)
        if device is not None:
            self.module = self.module.to(device)
        self.register_buffer("n_averaged", torch.tensor(0, dtype=torch.long, device=device))
        self.avg_fn = avg_fn
        self.multi_avg_fn = multi_avg_fn
        self.use_buffers = use_buffers

    def forward(self, *args, **kwargs):
        """The averaged module's forward."""
        return self.module(*args, **kwargs)

    def update_parameters(self, model):
        """Average ``model``'s parameters into this one (copy them on the first call)."""
        if self.use_buffers:
            mine = itertools.chain(self.module.parameters(), self.module.buffers())
            theirs = itertools.chain(model.parameters(), model.buffers())
        else:
            mine, theirs = self.parameters(), model.parameters()
        averaged, current = [], []
        first = bool(self.n_averaged == 0)
        for p_avg, p_model in zip(mine, theirs):
            p_model_ = p_model.detach().to(p_avg.device)
            averaged.append(p_avg.detach())
            current.append(p_model_)
            if first:
                p_avg.detach().copy_(p_model_)
        if self.n_averaged > 0:
            if self.multi_avg_fn is not None or self.avg_fn is None:
                avg_fn = get_swa_avg_fn()
                for (device, _), (avg_list, cur_list) in _by_device_and_dtype(
                        averaged, current).items():
                    n = self.n_averaged.to(device)
                    if self.multi_avg_fn is not None:
                        self.multi_avg_fn(avg_list, cur_list, n)
                    else:
                        for p_avg, p_model in zip(avg_list, cur_list):
                            p_avg.copy_(avg_fn(p_avg, p_model, n))
            else:
                for p_avg, p_model in zip(averaged, current):
                    n = self.n_averaged.to(p_avg.device)
                    p_avg.detach().copy_(self.avg_fn(p_avg.detach(), p_model, n))
        if not self.use_buffers:
            # the buffers (BatchNorm's statistics) follow the model rather than average
            for b_swa, b_model in zip(self.module.buffers(), model.buffers()):
                b_swa.detach().copy_(b_model.detach().to(b_swa.device))
        self.n_averaged += 1


@torch.no_grad()
def update_bn(loader, model, device=None):
    """Recompute the running statistics of ``model``'s BatchNorm layers as the cumulative
    average over one pass of ``loader`` (batches are tensors, or lists/tuples whose first
    element is the input), in train mode; the modes and momenta are restored after."""
    momenta = {}
    for module in model.modules():
        if isinstance(module, _BatchNorm):
            module.reset_running_stats()
            momenta[module] = module.momentum
    if not momenta:
        return
    was_training = model.training
    model.train()
    for module in momenta:
        module.momentum = None
    for batch in loader:
        if isinstance(batch, (list, tuple)):
            batch = batch[0]
        if device is not None:
            batch = batch.to(device)
        model(batch)
    for module, momentum in momenta.items():
        module.momentum = momentum
    model.train(was_training)


class SWALR(LRScheduler):
    """Anneals each group's learning rate from its current value to ``swa_lr`` (one value,
    or one per group) over ``anneal_epochs`` epochs, by ``anneal_strategy`` ``"cos"`` or
    ``"linear"``, then keeps it there."""

    def __init__(self, optimizer, swa_lr, anneal_epochs=10, anneal_strategy="cos",
                 last_epoch=-1):
        swa_lrs = _format_param("swa_lr", optimizer, swa_lr)
        for value, group in zip(swa_lrs, optimizer.param_groups):
            group["swa_lr"] = value
        if anneal_strategy not in ["cos", "linear"]:
            raise ValueError("anneal_strategy must be one of 'cos' or 'linear', "
                             f"instead got {anneal_strategy}")
        self._set_anneal_func(anneal_strategy)
        if not isinstance(anneal_epochs, int) or anneal_epochs < 0:
            raise ValueError(f"anneal_epochs must be equal or greater than 0, got "
                             f"{anneal_epochs}")
        self.anneal_epochs = anneal_epochs
        super().__init__(optimizer, last_epoch)

    @staticmethod
    def _linear_anneal(t):
        return t

    @staticmethod
    def _cosine_anneal(t):
        return (1 - math.cos(math.pi * t)) / 2

    @staticmethod
    def _get_initial_lr(lr, swa_lr, alpha):
        if alpha == 1:
            return swa_lr
        return (lr - alpha * swa_lr) / (1 - alpha)

    def get_lr(self):
        """The rates of the next step: each group's start value (recovered from its current
        ``lr`` and the previous step's fraction) moved toward ``swa_lr``."""
        self._warn_if_called_outside_step()
        step = self._step_count - 1
        if self.anneal_epochs == 0:
            step = max(1, step)
        prev_alpha = self.anneal_func(max(0, min(1, (step - 1) / max(1, self.anneal_epochs))))
        prev_lrs = [self._get_initial_lr(group["lr"], group["swa_lr"], prev_alpha)
                    for group in self.optimizer.param_groups]
        alpha = self.anneal_func(max(0, min(1, step / max(1, self.anneal_epochs))))
        return [group["swa_lr"] * alpha + lr * (1 - alpha)
                for group, lr in zip(self.optimizer.param_groups, prev_lrs)]

    def _set_anneal_func(self, anneal_strategy):
        self._anneal_strategy = anneal_strategy
        self.anneal_func = (self._cosine_anneal if anneal_strategy == "cos"
                            else self._linear_anneal)

    def state_dict(self):
        """Every attribute but the optimizer and the annealing function."""
        return {key: value for key, value in self.__dict__.items()
                if key not in ("optimizer", "anneal_func")}

    def load_state_dict(self, state_dict):
        """Take the attributes of ``state_dict`` and the annealing function it names."""
        self.__dict__.update(state_dict)
        self._set_anneal_func(self._anneal_strategy)
