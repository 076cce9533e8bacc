"""``Optimizer``: the base class of every optimizer, as ``torch.optim.Optimizer``.

An optimizer holds ``param_groups``, a list of dicts each with its ``"params"`` (a list of
leaf Tensors) and its hyperparameters (those the group does not give come from
``defaults``), and ``state``, a dict from parameter to that parameter's buffers (Adam's
moments, SGD's momentum). A subclass implements ``step``; the base class gives the
bookkeeping every optimizer shares: building and checking groups, ``zero_grad``, step
hooks, and ``state_dict``/``load_state_dict`` in torch's format, so that a checkpoint
written by one library is read by the other::

    >>> import autograd_cy as torch
    >>> w = torch.zeros(2, requires_grad=True)
    >>> opt = torch.optim.SGD([w], lr=0.5)
    >>> w.grad = torch.ones(2)
    >>> opt.step()
    >>> w
    tensor([-0.5000, -0.5000], requires_grad=True)
    >>> opt.state_dict()["param_groups"][0]["params"]
    [0]
"""
import functools
from collections import defaultdict
from copy import deepcopy
from itertools import chain
from typing import Callable, Optional
import warnings

from autograd_cy._C.node import RemovableHandle
from autograd_cy._C.tensor import Tensor
from autograd_cy.foreach import _foreach_zero_
from autograd_cy.grad_mode import enable_grad, set_grad_enabled
from autograd_cy.optim._arrays import Scratch

__all__ = ["Optimizer", "required", "register_optimizer_step_pre_hook",
           "register_optimizer_step_post_hook"]


class _RequiredParameter:
    """The default of a hyperparameter that every group must give (torch's ``required``)."""

    def __repr__(self):
        return "<required parameter>"


required = _RequiredParameter()


def _typename(value):
    kind = type(value)
    return kind.__qualname__ if kind.__module__ == "builtins" else \
        f"{kind.__module__}.{kind.__qualname__}"


#: the step hooks of every optimizer: pre-hooks run before an optimizer's own, post-hooks
#: after its own
_global_optimizer_pre_hooks = {}
_global_optimizer_post_hooks = {}


def register_optimizer_step_pre_hook(hook):
    """Register ``hook(optimizer, args, kwargs) -> None or (new_args, new_kwargs)`` to run
    before every optimizer's ``step`` (before its own pre-hooks). Returns a handle whose
    ``remove()`` takes it off."""
    return _add_hook(_global_optimizer_pre_hooks, hook, False)


def register_optimizer_step_post_hook(hook):
    """Register ``hook(optimizer, args, kwargs) -> None`` to run after every optimizer's
    ``step`` (after its own post-hooks). Returns a handle whose ``remove()`` takes it
    off."""
    return _add_hook(_global_optimizer_post_hooks, hook, False)


def _run_step_hooks(step):
    """``step`` wrapped so that the step pre- and post-hooks run around it (the global
    ones first for pre-hooks, last for post-hooks; a pre-hook may return new
    ``(args, kwargs)``, ``args`` starting with the optimizer), inside a profiler range
    ``Optimizer.step#<class>.step`` as torch's."""
    @functools.wraps(step)
    def hooked_step(*args, **kwargs):
        self = args[0]          # the hooks see (and may replace) self among the args
        with _record_function(f"Optimizer.step#{type(self).__name__}.step"):
            for hook in [*_global_optimizer_pre_hooks.values(),
                         *self._optimizer_step_pre_hooks.values()]:
                result = hook(self, args, kwargs)
                if result is not None:
                    if not (isinstance(result, tuple) and len(result) == 2):
                        raise RuntimeError(f"{step} must return None or a tuple of "
                                           f"(new_args, new_kwargs), but got {result}.")
                    args, kwargs = result
            out = step(*args, **kwargs)
            for hook in [*self._optimizer_step_post_hooks.values(),
                         *_global_optimizer_post_hooks.values()]:
                hook(self, args, kwargs)
            return out
    return hooked_step


def _record_function(name):
    from autograd_cy.autograd.profiler import record_function   # the profiler sits above
    return record_function(name)


_HOOK_TABLES = ("_optimizer_step_pre_hooks", "_optimizer_step_post_hooks",
                "_optimizer_state_dict_pre_hooks", "_optimizer_state_dict_post_hooks",
                "_optimizer_load_state_dict_pre_hooks", "_optimizer_load_state_dict_post_hooks")


def _add_hook(hooks, hook, prepend):
    """Add ``hook`` to the table ``hooks``, last or (``prepend``) first; its handle."""
    handle = RemovableHandle(hooks)
    others = list(hooks.items()) if prepend else []
    if prepend:
        hooks.clear()
    hooks[handle.id] = hook
    hooks.update(others)
    return handle


class Optimizer:
    """Base class for all optimizers: ``Optimizer(params, defaults)``.

    ``params`` is an iterable of Tensors, or of dicts (parameter groups, each with a
    ``"params"`` entry); ``defaults`` holds the hyperparameters a group may leave out.
    """

    #: the options a subclass's groups take that a state of an older version may lack,
    #: with their defaults (``__setstate__`` fills them in)
    _option_defaults = {}

    #: the per-parameter state entries that are 0-dim tensors, which an older state may
    #: hold as Python numbers (``__setstate__`` turns them back into tensors)
    _scalar_state = ("step",)

    #: a step pre-hook: ``hook(optimizer, args, kwargs) -> (args, kwargs) or None``
    OptimizerPreHook = Callable[["Optimizer", tuple, dict], Optional[tuple]]
    #: a step post-hook: ``hook(optimizer, args, kwargs) -> None``
    OptimizerPostHook = Callable[["Optimizer", tuple, dict], None]

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        step = cls.__dict__.get("step")
        if step is not None and not getattr(step, "hooked", False):
            cls.step = Optimizer.profile_hook_step(step)
            cls.step.hooked = True

    @staticmethod
    def profile_hook_step(func):
        """``func`` (a ``step``) wrapped so that the optimizer's step pre- and post-hooks
        run around it, in a profiler range named ``Optimizer.step#<class>.step``."""
        return _run_step_hooks(func)

    def __init__(self, params, defaults):
        self.defaults = defaults
        for table in _HOOK_TABLES:
            setattr(self, table, {})
        if isinstance(params, Tensor):
            raise TypeError("params argument given to the optimizer should be an iterable "
                            "of Tensors or dicts, but got " + _typename(params))
        self.state = defaultdict(dict)
        self.param_groups = []
        param_groups = list(params)
        if len(param_groups) == 0:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(param_groups[0], dict):
            param_groups = [{"params": param_groups}]
        for param_group in param_groups:
            self.add_param_group(param_group)
        if defaults.get("fused") and defaults.get("foreach"):
            raise RuntimeError("`fused` and `foreach` cannot be `True` together.")
        self._scratch = Scratch()       # the CPU step's (NOTE [Optimizer steps on the arrays])

    def __getstate__(self):
        return {"defaults": self.defaults, "state": self.state,
                "param_groups": self.param_groups}

    def __setstate__(self, state):
        self.__dict__.update(state)
        for table in _HOOK_TABLES:                  # not pickled
            self.__dict__.setdefault(table, {})
        for group in self.param_groups:
            for key, value in self._option_defaults.items():
                group.setdefault(key, value)
            self._scalar_state_as_tensors(group)
        self.__dict__.setdefault("_scratch", Scratch())

    def _scalar_state_as_tensors(self, group):
        """A state whose ``"step"`` (and ASGD's ``"eta"``/``"mu"``, NAdam's
        ``"mu_product"``) is a number, as a state_dict edited or saved by an older version
        may hold, gets it back as the tensor a step keeps (NOTE [The step counter]):
        float32 on the parameter's device with ``fused``, the default scalar dtype there
        with ``capturable``, else the default scalar dtype on the CPU."""
        from autograd_cy import float32, float64, get_default_dtype, tensor
        fused, capturable = group.get("fused"), group.get("capturable")
        dtype = float32 if fused or get_default_dtype() != float64 else float64
        for p in group["params"]:
            state = self.state.get(p)
            if not state:
                continue
            for key in self._scalar_state:
                if key in state and not isinstance(state[key], Tensor):
                    device = p.device if fused or capturable or self._scalar_state_on_device \
                        else "cpu"
                    state[key] = tensor(float(state[key]), dtype=dtype, device=device)

    #: torch's refusal of ``capturable=True`` for parameters on the CPU (at the step)
    _capturable_error = None

    #: whether a ``differentiable`` step may also ask for ``foreach`` (torch's SGD)
    _foreach_differentiable = False

    def _check_capturable(self, group):
        """``capturable=True`` (CUDA graphs): refused at the step as torch refuses it on the
        CPU; on a CUDA device, autograd_cy has no capturable step. Also torch's refusal of
        ``differentiable`` with ``foreach=True``."""
        if group.get("differentiable") and group.get("foreach") and \
                not self._foreach_differentiable:
            raise AssertionError("_foreach ops don't support autograd")
        if not group.get("capturable") or self._capturable_error is None:
            return
        if any(not p.is_cuda for p in group["params"] if p.grad is not None):
            raise AssertionError(self._capturable_error)
        raise NotImplementedError(f"autograd_cy's {type(self).__name__} has no capturable "
                                  f"mode")

    #: whether those tensors live on the parameter's device whatever the options (ASGD)
    _scalar_state_on_device = False

    def __repr__(self):
        text = f"{type(self).__name__} ("
        for i, group in enumerate(self.param_groups):
            text += f"\nParameter Group {i}\n"
            text += "".join(f"    {key}: {group[key]}\n" for key in sorted(group)
                            if key != "params")
        return text + ")"

    # -------------------------------------------------------------- parameter groups

    def add_param_group(self, param_group):
        """Add a group of parameters (a dict with ``"params"`` and any hyperparameters;
        those it lacks are taken from ``defaults``). A parameter may be in one group only."""
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, but got {type(param_group)}")
        params = param_group["params"]
        if isinstance(params, Tensor):
            params = [params]
        elif isinstance(params, set):
            raise TypeError("optimizer parameters need to be organized in ordered "
                            "collections, but the ordering of tensors in sets will change "
                            "between runs. Please use a list instead.")
        params = list(params)
        named = [p for p in params if isinstance(p, tuple)]
        if named:
            if len(named) != len(params):
                raise ValueError("all optimizer params should be with/without names. Some "
                                 "param names are missing")
            param_group["param_names"] = [name for name, _ in named]
            params = [p for _, p in named]
        param_group["params"] = params
        for param in params:
            if not isinstance(param, Tensor):
                raise TypeError("optimizer can only optimize Tensors, but one of the params "
                                "is " + _typename(param))
            if not self.defaults.get("differentiable", None) and \
                    not (param.is_leaf or param.retains_grad):
                raise ValueError("can't optimize a non-leaf Tensor")
        for name, default in self.defaults.items():
            if default is required and name not in param_group:
                raise ValueError(f"parameter group didn't specify a value of required "
                                 f"optimization parameter {name}")
            param_group.setdefault(name, default)
        if len(params) != len(set(params)):
            warnings.warn("optimizer contains a parameter group with duplicate parameters; "
                          "in future, this will cause an error; see "
                          "github.com/pytorch/pytorch/issues/40967 for more information",
                          stacklevel=3)
        taken = set()
        for group in self.param_groups:
            taken.update(group["params"])
            if ("param_names" in param_group) != ("param_names" in group):
                kind = "with names" if "param_names" in param_group else "without names"
                raise ValueError(f"all optimizer param groups should be with/without names. "
                                 f"cannot add param group {kind} to the optimizer")
        if not taken.isdisjoint(params):
            raise ValueError("some parameters appear in more than one parameter group")
        self.param_groups.append(param_group)

    # -------------------------------------------------------------- gradients and steps

    def zero_grad(self, set_to_none=True):
        """Reset every parameter's ``.grad``: to None (the default), or to zeros, in place
        (a gradient recorded in a graph is detached first); the zeroing of CUDA gradients
        is one ``_foreach_zero_`` per device and dtype."""
        together = defaultdict(list)
        for group in self.param_groups:
            for p in group["params"]:
                grad = p.grad
                if grad is None:
                    continue
                if set_to_none:
                    p.grad = None
                    continue
                if grad.grad_fn is not None:
                    grad.detach_()
                else:
                    grad.requires_grad_(False)
                if grad.is_cuda:
                    together[(grad.device, grad.dtype)].append(grad)
                else:
                    grad.zero_()
        for grads in together.values():
            _foreach_zero_(grads)

    def step(self, closure=None):
        """Update the parameters once from their ``.grad`` (each optimizer's rule).
        ``closure``, if given, re-evaluates the model and returns the loss."""
        raise NotImplementedError

    def _step_groups(self, closure, update_group):
        """A step: ``closure()`` with grad mode on (its loss is returned), then
        ``update_group(group)`` for every group under ``no_grad`` (with grad mode on for a
        ``differentiable`` optimizer, whose groups take the Tensor-ops path, recorded)."""
        loss = None
        if closure is not None:
            with enable_grad():
                loss = closure()
        with set_grad_enabled(bool(self.defaults.get("differentiable"))):
            for group in self.param_groups:
                lr = group.get("lr")
                self._check_capturable(group)
                if isinstance(lr, Tensor):      # NOTE [A Tensor lr]
                    group = {**group, "lr": _host_scalar(lr)}
                update_group(group)
        return loss

    def _gather_state(self, group, names, fresh):
        """The group's parameters that have a gradient, their gradients, then for each of
        ``names`` the list of that state entry of those parameters (None: an empty list,
        for an entry the group's options leave out). ``fresh(p)`` is the state of a
        parameter at its first step, as a dict in torch's order of keys (state_dict shows
        it)."""
        params, grads = [], []
        columns = [[] for _ in names]
        for p in group["params"]:
            if p.grad is None:
                continue
            params.append(p)
            grads.append(p.grad)
            state = self.state[p]
            if len(state) == 0:
                state.update(fresh(p))
            for column, name in zip(columns, names):
                if name is not None:
                    column.append(state[name])
        return (params, grads, *columns)

    def register_step_pre_hook(self, hook):
        """``hook(optimizer, args, kwargs)`` runs before each ``step``; it may return new
        ``(args, kwargs)`` for the step. Returns a handle whose ``remove()`` unregisters it."""
        handle = RemovableHandle(self._optimizer_step_pre_hooks)
        self._optimizer_step_pre_hooks[handle.id] = hook
        return handle

    def register_step_post_hook(self, hook):
        """``hook(optimizer, args, kwargs)`` runs after each ``step``. Returns a handle."""
        handle = RemovableHandle(self._optimizer_step_post_hooks)
        self._optimizer_step_post_hooks[handle.id] = hook
        return handle

    # -------------------------------------------------------------- state dicts

    def register_state_dict_pre_hook(self, hook, prepend=False):
        """``hook(optimizer)`` runs at the start of ``state_dict()`` (first of all with
        ``prepend=True``). Returns a handle whose ``remove()`` unregisters it."""
        return _add_hook(self._optimizer_state_dict_pre_hooks, hook, prepend)

    def register_state_dict_post_hook(self, hook, prepend=False):
        """``hook(optimizer, state_dict)`` runs on the dict ``state_dict()`` made; it may
        change it in place or return a new one. Returns a handle."""
        return _add_hook(self._optimizer_state_dict_post_hooks, hook, prepend)

    def register_load_state_dict_pre_hook(self, hook, prepend=False):
        """``hook(optimizer, state_dict)`` runs before ``load_state_dict`` on a shallow
        copy of the dict given; it may return a new dict, which is loaded instead."""
        return _add_hook(self._optimizer_load_state_dict_pre_hooks, hook, prepend)

    def register_load_state_dict_post_hook(self, hook, prepend=False):
        """``hook(optimizer)`` runs after ``load_state_dict`` has loaded. Returns a
        handle."""
        return _add_hook(self._optimizer_load_state_dict_post_hooks, hook, prepend)

    def state_dict(self):
        """``{"state": ..., "param_groups": ...}`` with every parameter replaced by its
        index in the order of the groups (so the dict outlives the parameters' identity).
        The state's tensors are the optimizer's own, not copies. State-dict pre-hooks run
        first, post-hooks on the result (one may return a new dict)."""
        for hook in list(self._optimizer_state_dict_pre_hooks.values()):
            hook(self)
        index_of = {}
        groups = []
        for group in self.param_groups:
            packed = {k: v for k, v in group.items() if k != "params"}
            for p in group["params"]:
                index_of.setdefault(id(p), len(index_of))
            packed["params"] = [index_of[id(p)] for p in group["params"]]
            groups.append(packed)
        state = {(index_of[id(k)] if isinstance(k, Tensor) else k): v
                 for k, v in self.state.items()}
        state_dict = {"state": state, "param_groups": groups}
        for hook in list(self._optimizer_state_dict_post_hooks.values()):
            result = hook(self, state_dict)
            if result is not None:
                state_dict = result
        return state_dict

    def load_state_dict(self, state_dict):
        """Take the state and the hyperparameters of ``state_dict`` (from ``state_dict()``
        of an optimizer over parameters of the same shapes, in the same group layout).

        State tensors are moved to their parameter's device, and floating ones cast to
        its dtype, except ``"step"``, which keeps its own (NOTE [The step counter]).
        Load pre-hooks see (and may replace) a shallow copy of ``state_dict``; post-hooks
        run after."""
        state_dict = state_dict.copy()
        for hook in list(self._optimizer_load_state_dict_pre_hooks.values()):
            result = hook(self, state_dict)
            if result is not None:
                state_dict = result
        groups = self.param_groups
        saved_groups = deepcopy(state_dict["param_groups"])
        if len(groups) != len(saved_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        if any(len(g["params"]) != len(s["params"]) for g, s in zip(groups, saved_groups)):
            raise ValueError("loaded state dict contains a parameter group that doesn't "
                             "match the size of optimizer's group")
        param_of = dict(zip(chain.from_iterable(g["params"] for g in saved_groups),
                            chain.from_iterable(g["params"] for g in groups)))
        state = defaultdict(dict)
        for key, value in state_dict["state"].items():
            if key in param_of:
                state[param_of[key]] = _cast_state(param_of[key], value)
            else:
                state[key] = value
        for group, saved in zip(groups, saved_groups):
            saved["params"] = group["params"]
            if "param_names" in group and "param_names" not in saved:
                saved["param_names"] = group["param_names"]
        self.__setstate__({"state": state, "param_groups": saved_groups})
        for hook in list(self._optimizer_load_state_dict_post_hooks.values()):
            hook(self)


# NOTE [A Tensor lr]
# torch's optimizers take lr as a 1-element Tensor too (an LR scheduler then writes into
# it). The step reads it as a NumPy scalar of its dtype, on a shallow copy of the group
# (the group keeps the tensor): the arithmetic on it (lr / bias_correction, 1 - lr *
# weight_decay) is then in that dtype, as torch's on the 0-dim tensor (float32 for
# torch.tensor(1e-3)), and Adam's one-loop step, which computes in double, is skipped.


def _host_scalar(t):
    """A 1-element tensor's value as a NumPy scalar of its dtype."""
    return t.detach().cpu().numpy().reshape(())[()]


def _cast_state(param, value, key=None):
    """``value`` (a parameter's state, nested) with its tensors on ``param``'s device,
    floating ones of ``param``'s dtype; a ``"step"`` tensor as it is."""
    if isinstance(value, Tensor):
        if key == "step":
            return value
        if param.is_floating_point():
            return value.to(dtype=param.dtype, device=param.device)
        return value.to(device=param.device)
    if isinstance(value, dict):
        return {k: _cast_state(param, v, k) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_cast_state(param, v) for v in value)
    return value
