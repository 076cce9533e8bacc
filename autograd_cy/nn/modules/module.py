"""``nn.Module``: the base class of every layer and model, as torch's.

A Module holds three ordered tables, filled by plain attribute assignment
(``Module.__setattr__``): ``_parameters`` (``nn.Parameter``s, which optimizers update),
``_buffers`` (tensors that are state but not learned, such as BatchNorm's running mean) and
``_modules`` (child Modules). Everything else follows from walking those tables: the
``parameters()``/``named_modules()`` iterators, ``state_dict()`` with dotted names,
``to()``/``half()``, ``train()``/``eval()`` and ``zero_grad()``.

Calling a module runs ``forward`` between its hooks (NOTE [Calling a module]).
"""
import functools
import warnings
import weakref
from collections import OrderedDict, namedtuple
from typing import Any, TypeVar

from autograd_cy import __future__ as _future
from autograd_cy._C.dtype import _from_numpy_dtype, _to_numpy_dtype
from autograd_cy.device import device as device_class
from autograd_cy._C.node import RemovableHandle
from autograd_cy._C.tensor import Tensor
from autograd_cy.grad_mode import no_grad
from autograd_cy.nn.modules.backward_hook import BackwardHook
from autograd_cy.nn.parameter import Buffer, Parameter, is_lazy
from autograd_cy.utils.swap import swap_tensors

__all__ = ["register_module_forward_pre_hook", "register_module_forward_hook",
           "register_module_full_backward_pre_hook", "register_module_backward_hook",
           "register_module_full_backward_hook", "register_module_buffer_registration_hook",
           "register_module_module_registration_hook",
           "register_module_parameter_registration_hook", "Module"]

#: the state-dict key, under a module's prefix, of what ``get_extra_state`` returns
_EXTRA_STATE_KEY_SUFFIX = "_extra_state"

# Hooks every module runs (torch.nn.modules.module's global hooks), before its own.
_global_forward_pre_hooks = {}
_global_forward_hooks = {}
_global_forward_hooks_with_kwargs = {}
_global_forward_hooks_always_called = {}
_global_backward_pre_hooks = {}
_global_backward_hooks = {}
#: None until a global backward hook is registered: True for full ones, False for the
#: deprecated ``register_module_backward_hook`` ones (only one kind at a time)
_global_is_full_backward_hook = None
_global_buffer_registration_hooks = {}
_global_parameter_registration_hooks = {}
_global_module_registration_hooks = {}


def register_module_forward_pre_hook(hook):
    """``hook(module, args)`` before every module's forward."""
    return _add_hook(_global_forward_pre_hooks, hook, False)


def register_module_forward_hook(hook, *, with_kwargs=False, always_call=False):
    """``hook(module, args, output)`` (or ``(module, args, kwargs, output)``) after every
    module's forward; ``always_call``: also when the call raises."""
    handle = RemovableHandle(_global_forward_hooks, extra_dict=[
        _global_forward_hooks_with_kwargs, _global_forward_hooks_always_called])
    _global_forward_hooks[handle.id] = hook
    if with_kwargs:
        _global_forward_hooks_with_kwargs[handle.id] = True
    if always_call:
        _global_forward_hooks_always_called[handle.id] = True
    return handle


def register_module_full_backward_pre_hook(hook):
    """``hook(module, grad_output)`` when the gradients of any module's outputs are ready."""
    return _add_hook(_global_backward_pre_hooks, hook, False)


def _set_global_backward_kind(full):
    global _global_is_full_backward_hook
    if _global_is_full_backward_hook is (not full):
        raise RuntimeError("Cannot use both regular backward hooks and full backward hooks as a "
                           "global Module hook. Please use only one of them.")
    _global_is_full_backward_hook = full


def register_module_full_backward_hook(hook):
    """``hook(module, grad_input, grad_output)`` when any module's input gradients are ready."""
    _set_global_backward_kind(True)
    return _add_hook(_global_backward_hooks, hook, False)


def register_module_backward_hook(hook):
    """Deprecated (``register_module_full_backward_hook`` is the documented behaviour): the
    non-full hook of every module (NOTE [Non-full module backward hooks])."""
    _set_global_backward_kind(False)
    return _add_hook(_global_backward_hooks, hook, False)


def register_module_buffer_registration_hook(hook):
    """``hook(module, name, buffer)`` whenever a module registers a buffer; what it returns,
    if not None, is registered instead."""
    return _add_hook(_global_buffer_registration_hooks, hook, False)


def register_module_parameter_registration_hook(hook):
    """``hook(module, name, param)`` whenever a module registers a parameter; what it returns,
    if not None, is registered instead."""
    return _add_hook(_global_parameter_registration_hooks, hook, False)


def register_module_module_registration_hook(hook):
    """``hook(module, name, submodule)`` whenever a module registers a child; what it returns,
    if not None, is registered instead."""
    return _add_hook(_global_module_registration_hooks, hook, False)


def _registration_hooks(hooks, module, name, value):
    """``value`` after the registration ``hooks`` (each may replace it)."""
    for hook in list(hooks.values()):
        output = hook(module, name, value)
        if output is not None:
            value = output
    return value


class _WrappedHook:
    """A hook called with its module first, holding the module weakly (a module's hook
    tables keep no reference cycle to it); pickles with the module."""

    def __init__(self, hook, module=None):
        self.hook = hook
        functools.update_wrapper(self, hook)
        self.with_module = module is not None
        if self.with_module:
            self.module = weakref.ref(module)

    def __call__(self, *args, **kwargs):
        if self.with_module:
            module = self.module()
            if module is None:
                raise RuntimeError("You are trying to call the hook of a dead Module!")
            return self.hook(module, *args, **kwargs)
        return self.hook(*args, **kwargs)

    def __getstate__(self):
        state = {"hook": self.hook, "with_module": self.with_module}
        if self.with_module:
            state["module"] = self.module()
        return state

    def __setstate__(self, state):
        self.hook = state["hook"]
        self.with_module = state["with_module"]
        if self.with_module:
            if state["module"] is None:
                raise RuntimeError("You are trying to revive the hook of a dead Module!")
            self.module = weakref.ref(state["module"])


class _IncompatibleKeys(namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])):
    """What ``load_state_dict`` returns: the keys it missed and the ones it did not expect."""

    def __repr__(self):
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return super().__repr__()

    __str__ = __repr__


def _tensor_type(value):
    """How torch's assignment errors name a value: ``autograd_cy.FloatTensor`` or ``int``."""
    if isinstance(value, Tensor):
        return "autograd_cy." + value.dtype._tensor_type
    return type(value).__name__


def _indented(text, spaces):
    """Every line of ``text`` after the first indented by ``spaces`` (a child's repr)."""
    lines = text.split("\n")
    return "\n".join(lines[:1] + [" " * spaces + line for line in lines[1:]])


def _add_hook(hooks, hook, prepend, extra_dict=None):
    """Add ``hook`` to the table ``hooks`` (a plain dict: the handle removes from it at the
    C level), last or first; its handle (which also removes its id from ``extra_dict``)."""
    handle = RemovableHandle(hooks, extra_dict=extra_dict)
    if prepend:
        others = list(hooks.items())
        hooks.clear()
        hooks[handle.id] = hook
        hooks.update(others)
    else:
        hooks[handle.id] = hook
    return handle


# NOTE [Non-full module backward hooks]
# ``register_backward_hook`` (deprecated) is torch's older module hook: after ``forward``
# it becomes a hook of the node that made the module's first output tensor (found through
# nested tuples, lists and dicts), so ``grad_input`` is that node's gradients with respect
# to its own inputs and ``grad_output`` the gradients of its outputs. For a module of one
# op these are the module's; for more ops, the last op's only (torch warns, FutureWarning,
# in the cases it can see). What the hook returns replaces the node's grad_input. The node
# holds the module weakly: a hook of a module that is gone raises.
def _register_non_full_backward_hooks(module, hooks, inputs, result):
    var = result
    while not isinstance(var, Tensor):
        var = next(v for v in var.values() if isinstance(v, Tensor)) \
            if isinstance(var, dict) else var[0]
    grad_fn = var.grad_fn
    if grad_fn is None:
        return
    for hook in hooks:
        grad_fn.register_hook(_WrappedHook(hook, module))
    _warn_non_full_backward_hook(inputs, result, grad_fn)


def _warn_non_full_backward_hook(inputs, result, grad_fn):
    """torch's FutureWarnings for the cases where a non-full hook misses gradients."""
    def tensors(value):
        if isinstance(value, Tensor):
            return (value,)
        if isinstance(value, tuple) and all(isinstance(v, Tensor) for v in value):
            return value
        return None
    outputs = tensors(result)
    if outputs is None:
        warnings.warn(
            "Using non-full backward hooks on a Module that does not return a single Tensor "
            "or a tuple of Tensors is deprecated and will be removed in future versions. "
            "This hook will be missing some of the grad_output. Please use "
            "register_full_backward_hook to get the documented behavior.", FutureWarning,
            stacklevel=3)
        return
    inputs = tensors(inputs)
    if inputs is None:
        warnings.warn(
            "Using non-full backward hooks on a Module that does not take as input a single "
            "Tensor or a tuple of Tensors is deprecated and will be removed in future "
            "versions. This hook will be missing some of the grad_input. Please use "
            "register_full_backward_hook to get the documented behavior.", FutureWarning,
            stacklevel=3)
        return
    out_grad_fn = {r.grad_fn for r in outputs if r.grad_fn is not None}
    if not out_grad_fn or (len(out_grad_fn) == 1 and grad_fn not in out_grad_fn):
        warnings.warn(
            "Using a non-full backward hook when outputs are nested in python data structure "
            "is deprecated and will be removed in future versions. This hook will be missing "
            "some grad_output.", FutureWarning, stacklevel=3)
    elif len(out_grad_fn) > 1:
        warnings.warn(
            "Using a non-full backward hook when outputs are generated by different autograd "
            "Nodes is deprecated and will be removed in future versions. This hook will be "
            "missing some grad_output. Please use register_full_backward_hook to get the "
            "documented behavior.", FutureWarning, stacklevel=3)
    elif {i.grad_fn for i in inputs if i.grad_fn is not None} != \
            {n[0] for n in grad_fn.next_functions}:
        warnings.warn(
            "Using a non-full backward hook when the forward contains multiple autograd "
            "Nodes is deprecated and will be removed in future versions. This hook will be "
            "missing some grad_input. Please use register_full_backward_hook to get the "
            "documented behavior.", FutureWarning, stacklevel=3)


class Module:
    """Base class for all neural network modules; subclasses define ``forward``.

    >>> class Affine(ag.nn.Module):
    ...     def __init__(self):
    ...         super().__init__()
    ...         self.scale = ag.nn.Parameter(ag.ones(2))
    ...     def forward(self, x):
    ...         return x * self.scale
    >>> model = Affine()
    >>> [name for name, _ in model.named_parameters()]
    ['scale']
    >>> model(ag.tensor([1.0, 2.0]))
    tensor([1., 2.], grad_fn=<MulBackward0>)
    """

    _version = 1          # the state dict's format version, kept in its _metadata
    training: bool
    call_super_init = False
    #: torch's flag for printing a module's source changes on unpickling (unused, as there)
    dump_patches = False
    #: the type of ``state_dict``'s ``destination`` (a typing name, as torch's)
    T_destination = TypeVar("T_destination", bound=dict[str, Any])
    #: None until a backward hook is registered: True for full hooks, False for the
    #: deprecated ``register_backward_hook`` ones (a module takes only one kind)
    _is_full_backward_hook = None

    def __init__(self, *args, **kwargs):
        if kwargs and not self.call_super_init:
            raise TypeError(f"{type(self).__name__}.__init__() got an unexpected keyword "
                            f"argument '{next(iter(kwargs))}'")
        if args and not self.call_super_init:
            raise TypeError(f"{type(self).__name__}.__init__() takes 1 positional argument "
                            f"but {len(args) + 1} were given")
        setattr_ = object.__setattr__
        setattr_(self, "training", True)
        setattr_(self, "_parameters", {})
        setattr_(self, "_buffers", {})
        setattr_(self, "_non_persistent_buffers_set", set())
        setattr_(self, "_modules", {})
        for table in ("_forward_pre_hooks", "_forward_hooks", "_backward_pre_hooks",
                      "_backward_hooks", "_state_dict_hooks", "_state_dict_pre_hooks",
                      "_load_state_dict_pre_hooks", "_load_state_dict_post_hooks"):
            setattr_(self, table, {})
        for table in ("_forward_pre_hooks_with_kwargs", "_forward_hooks_with_kwargs",
                      "_forward_hooks_always_called"):
            setattr_(self, table, {})
        setattr_(self, "_is_full_backward_hook", None)

    def forward(self, *args, **kwargs):
        raise NotImplementedError(
            f'Module [{type(self).__name__}] is missing the required "forward" function')

    # ------------------------------------------------------------------ registration

    def _check_name(self, kind, name, table):
        if not isinstance(name, str):
            raise TypeError(f"{kind} name should be a string. Got {type(name).__name__}")
        if "." in name:
            raise KeyError(f'{kind} name can\'t contain ".", got: {name}')
        if name == "":
            raise KeyError(f'{kind} name can\'t be empty string ""')
        if hasattr(self, name) and name not in table:
            raise KeyError(f"attribute '{name}' already exists")

    def register_buffer(self, name, tensor, persistent=True):
        """A tensor of the module's state that is not a parameter (saved in the state dict
        unless ``persistent=False``; moved by ``to()``)."""
        if "_buffers" not in self.__dict__:
            raise AttributeError("cannot assign buffer before Module.__init__() call")
        self._check_name("buffer", name, self._buffers)
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(f"cannot assign '{_tensor_type(tensor)}' object to buffer "
                            f"'{name}' (torch Tensor or None required)")
        if isinstance(tensor, Buffer):
            persistent = tensor.persistent
            tensor = tensor.data.requires_grad_(tensor.requires_grad)
        tensor = _registration_hooks(_global_buffer_registration_hooks, self, name, tensor)
        self._buffers[name] = tensor
        if persistent:
            self._non_persistent_buffers_set.discard(name)
        else:
            self._non_persistent_buffers_set.add(name)

    def register_parameter(self, name, param):
        """Add ``param`` (an ``nn.Parameter`` or None) under ``name``."""
        if "_parameters" not in self.__dict__:
            raise AttributeError("cannot assign parameter before Module.__init__() call")
        self._check_name("parameter", name, self._parameters)
        if param is None:
            self._parameters[name] = None
            return
        if not isinstance(param, Parameter):
            raise TypeError(f"cannot assign '{_tensor_type(param)}' object to parameter "
                            f"'{name}' (torch.nn.Parameter or None required)")
        if param.grad_fn is not None:
            raise ValueError(
                f"Cannot assign non-leaf Tensor to parameter '{name}'. Model parameters must "
                f"be created explicitly. To express '{name}' as a function of another Tensor, "
                f"compute the value in the forward() method.")
        param = _registration_hooks(_global_parameter_registration_hooks, self, name, param)
        self._parameters[name] = param

    def add_module(self, name, module):
        """Add the child ``module`` (or None) under ``name``."""
        if module is not None and not isinstance(module, Module):
            raise TypeError(f"{type(module).__name__} is not a Module subclass")
        self._check_name("module", name, self._modules)
        module = _registration_hooks(_global_module_registration_hooks, self, name, module)
        self._modules[name] = module

    register_module = add_module

    def _lookup(self, target, kind, table):
        """The module, parameter or buffer at the dotted path ``target``."""
        module_path, _, name = target.rpartition(".")
        module = self.get_submodule(module_path)
        if not hasattr(module, name):
            raise AttributeError(f"{module._get_name()} has no attribute `{name}`")
        value = getattr(module, name)
        if name not in getattr(module, table):
            raise AttributeError(f"`{name}` is not {kind}")
        return value

    def get_submodule(self, target):
        """The submodule at the dotted path ``target`` (``""`` is this module)."""
        module = self
        for item in target.split(".") if target else ():
            if not hasattr(module, item):
                raise AttributeError(f"{module._get_name()} has no attribute `{item}`")
            module = getattr(module, item)
            if not isinstance(module, Module):
                raise AttributeError(f"`{item}` is not an nn.Module")
        return module

    def set_submodule(self, target, module, strict=False):
        """Put ``module`` at the dotted path ``target``, whose parent must exist; with
        ``strict``, the attribute must exist too. What it replaces must be a Module."""
        if target == "":
            raise ValueError("Cannot set the submodule without a target name!")
        if not isinstance(module, Module):
            raise ValueError(f"`module` is not an nn.Module, found {type(module)}")
        parent_path, _, name = target.rpartition(".")
        parent = self.get_submodule(parent_path)
        if strict and not hasattr(parent, name):
            raise AttributeError(f"{parent._get_name()} has no attribute `{name}`")
        if hasattr(parent, name) and not isinstance(getattr(parent, name), Module):
            raise AttributeError(f"`{name}` is not an nn.Module")
        setattr(parent, name, module)

    def get_parameter(self, target):
        return self._lookup(target, "an nn.Parameter", "_parameters")

    def get_buffer(self, target):
        return self._lookup(target, "a buffer", "_buffers")

    # ------------------------------------------------------------------ attributes

    def __getattr__(self, name):
        # Only reached when ordinary lookup fails: the three tables hold the registered names.
        tables = self.__dict__
        for table in ("_parameters", "_buffers", "_modules"):
            entries = tables.get(table)
            if entries is not None and name in entries:
                return entries[name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __setattr__(self, name, value):
        def remove_from(*tables):
            for table in tables:
                if name in table:
                    del table[name]
            self._non_persistent_buffers_set.discard(name)

        params = self.__dict__.get("_parameters")
        if isinstance(value, Parameter):
            if params is None:
                raise AttributeError("cannot assign parameters before Module.__init__() call")
            remove_from(self.__dict__, self._buffers, self._modules)
            self.register_parameter(name, value)
        elif params is not None and name in params:
            if value is not None:
                raise TypeError(f"cannot assign '{_tensor_type(value)}' as parameter "
                                f"'{name}' (torch.nn.Parameter or None expected)")
            self.register_parameter(name, value)
        else:
            modules = self.__dict__.get("_modules")
            if isinstance(value, Module):
                if modules is None:
                    raise AttributeError(
                        "cannot assign module before Module.__init__() call")
                remove_from(self.__dict__, self._parameters, self._buffers)
                modules[name] = _registration_hooks(_global_module_registration_hooks, self,
                                                    name, value)
            elif modules is not None and name in modules:
                if value is not None:
                    raise TypeError(f"cannot assign '{_tensor_type(value)}' as child module "
                                    f"'{name}' (torch.nn.Module or None expected)")
                modules[name] = _registration_hooks(_global_module_registration_hooks, self,
                                                    name, value)
            else:
                buffers = self.__dict__.get("_buffers")
                # a Buffer, or a tensor flagged as one (an UninitializedBuffer), as torch's
                flagged = isinstance(value, Buffer) or (isinstance(value, Tensor) and getattr(
                    value, "_is_buffer", False))
                if flagged or (buffers is not None and name in buffers):
                    if value is not None and not isinstance(value, Tensor):
                        raise TypeError(f"cannot assign '{_tensor_type(value)}' as buffer "
                                        f"'{name}' (torch.nn.Buffer, torch.Tensor or None "
                                        f"expected)")
                    persistent = (getattr(value, "persistent", True) if flagged
                                  else name not in self._non_persistent_buffers_set)
                    if flagged:
                        remove_from(self.__dict__, self._parameters, self._modules)
                    self.register_buffer(name, value, persistent)
                else:
                    object.__setattr__(self, name, value)

    def __delattr__(self, name):
        for table in (self._parameters, self._buffers, self._modules):
            if name in table:
                del table[name]
                self._non_persistent_buffers_set.discard(name)
                return
        object.__delattr__(self, name)

    def __dir__(self):
        names = set(dir(type(self))) | set(self.__dict__)
        names |= set(self._parameters) | set(self._buffers) | set(self._modules)
        return sorted(name for name in names if not name[:1].isdigit())

    # ------------------------------------------------------------------ iteration

    def _named_members(self, get_members, prefix="", recurse=True, remove_duplicate=True):
        seen = set()
        modules = (self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate)
                   if recurse else [(prefix, self)])
        for module_prefix, module in modules:
            for name, value in get_members(module):
                if value is None or (remove_duplicate and id(value) in seen):
                    continue
                if remove_duplicate:
                    seen.add(id(value))
                yield (module_prefix + "." if module_prefix else "") + name, value

    def named_parameters(self, prefix="", recurse=True, remove_duplicate=True):
        """``(dotted name, parameter)`` pairs, this module's first, then its children's."""
        return self._named_members(lambda m: m._parameters.items(), prefix, recurse,
                                   remove_duplicate)

    def parameters(self, recurse=True):
        for _, param in self.named_parameters(recurse=recurse):
            yield param

    def named_buffers(self, prefix="", recurse=True, remove_duplicate=True):
        return self._named_members(lambda m: m._buffers.items(), prefix, recurse,
                                   remove_duplicate)

    def buffers(self, recurse=True):
        for _, buffer in self.named_buffers(recurse=recurse):
            yield buffer

    def named_children(self):
        seen = set()
        for name, module in self._modules.items():
            if module is not None and id(module) not in seen:
                seen.add(id(module))
                yield name, module

    def children(self):
        for _, module in self.named_children():
            yield module

    def named_modules(self, memo=None, prefix="", remove_duplicate=True):
        """``(dotted name, module)`` for this module and every descendant, depth first;
        a module reachable twice is listed once unless ``remove_duplicate=False``."""
        if memo is None:
            memo = set()
        stack = [(prefix, self)]          # NOTE: a stack, not recursion: deep Sequentials
        while stack:
            name, module = stack.pop()
            if remove_duplicate:
                if id(module) in memo:
                    continue
                memo.add(id(module))
            yield name, module
            children = [(name + "." + key if name else key, child)
                        for key, child in module._modules.items() if child is not None]
            stack.extend(reversed(children))

    def modules(self):
        for _, module in self.named_modules():
            yield module

    # ------------------------------------------------------------------ modes and grads

    def train(self, mode=True):
        """Training mode (dropout drops, batch norm updates its running statistics)."""
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
        for module in self.modules():
            object.__setattr__(module, "training", mode)
        return self

    def eval(self):
        return self.train(False)

    def requires_grad_(self, requires_grad=True):
        for param in self.parameters():
            param.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none=True):
        """Reset every parameter's ``.grad``: to None (the default), or zero it in place."""
        for param in self.parameters():
            if param.grad is None:
                continue
            if set_to_none:
                param.grad = None
            else:
                grad = param.grad
                if grad.grad_fn is not None:
                    grad.detach_()
                else:
                    grad.requires_grad_(False)
                grad.zero_()

    def apply(self, fn):
        """``fn(module)`` for every descendant, children before their parent, as torch's
        recursion (a module shared by two parents is visited under each); returns self."""
        stack = [(self, False)]                 # (module, its children already pushed)
        while stack:
            module, expanded = stack.pop()
            if expanded:
                fn(module)
                continue
            stack.append((module, True))
            stack.extend((child, False) for child in reversed(list(module.children())))
        return self

    def share_memory(self):
        """Move every parameter, buffer and gradient to memory shared between processes
        (``Tensor.share_memory_``, autograd_cy.multiprocessing); returns ``self``."""
        for module in self.modules():
            for tensor in [*module._parameters.values(), *module._buffers.values()]:
                if tensor is not None:
                    tensor.share_memory_()
                    if getattr(tensor, "grad", None) is not None:
                        tensor.grad.share_memory_()
        return self

    # ------------------------------------------------------------------ conversions

    def _apply(self, fn, recurse=True):
        """``fn`` on every parameter, buffer and gradient, in place of each: the Parameter
        object stays (its ``.data`` is replaced, or the converted Parameter is swapped into
        it under ``__future__.set_swap_module_params_on_conversion(True)``), so an optimizer
        that holds it still does; ``set_overwrite_module_params_on_conversion(True)`` puts
        new Parameters in the module instead."""
        swap = _future.get_swap_module_params_on_conversion()
        overwrite = _future.get_overwrite_module_params_on_conversion()
        for module in (self.modules() if recurse else [self]):
            for key, param in list(module._parameters.items()):
                if param is None:
                    continue
                with no_grad():
                    converted = fn(param)
                grad = param.grad
                if swap:
                    param.grad = None
                    try:
                        swap_tensors(param, Parameter(converted,
                                                      requires_grad=param.requires_grad))
                    except Exception as error:
                        param.grad = grad
                        raise RuntimeError(f"_apply(): Couldn't swap {module._get_name()}."
                                           f"{key}") from error
                    out = param
                elif not overwrite:
                    if converted is not param:
                        param.data = converted
                    out = param
                else:
                    out = module._parameters[key] = Parameter(converted, param.requires_grad)
                if grad is None:
                    continue
                with no_grad():
                    grad_converted = fn(grad)
                if swap:
                    grad_converted.requires_grad_(grad.requires_grad)
                    try:
                        swap_tensors(grad, grad_converted)
                    except Exception as error:
                        raise RuntimeError(f"_apply(): Couldn't swap {module._get_name()}."
                                           f"{key}.grad") from error
                    out.grad = grad
                elif not overwrite:
                    if grad_converted is not grad:
                        grad.data = grad_converted
                else:
                    out.grad = grad_converted.requires_grad_(grad.requires_grad)
            for name, buffer in module._buffers.items():
                if buffer is not None:
                    module._buffers[name] = fn(buffer)
        return self

    def to(self, *args, **kwargs):
        """``to(device)``, ``to(dtype)``, ``to(device, dtype)``, ``to(tensor)``: moves every
        parameter and buffer; a dtype applies to floating and complex ones only, a
        ``memory_format=`` (``channels_last``) to the 4-D and 5-D ones."""
        device, dtype = kwargs.get("device"), kwargs.get("dtype")
        memory_format = kwargs.get("memory_format")
        for arg in args:
            if isinstance(arg, Tensor):
                device, dtype = arg.device, arg.dtype
            elif isinstance(arg, (str, device_class)):
                device = arg
            elif arg is not None:
                dtype = arg
        if dtype is not None:
            dtype = _from_numpy_dtype(_to_numpy_dtype(dtype))
            if not (dtype.is_floating_point or dtype.is_complex):
                raise TypeError("nn.Module.to only accepts floating point or complex dtypes, "
                                f"but got desired dtype={dtype}")

        def convert(t):
            if dtype is not None and (t.is_floating_point() or t.is_complex()):
                t = t.to(device, dtype) if device is not None else t.to(dtype)
            elif device is not None:
                t = t.to(device)
            if memory_format is not None and t.dim() in (4, 5):    # as torch's: 4-D/5-D only
                t = t.to(memory_format=memory_format)
            return t
        return self._apply(convert)

    def to_empty(self, *, device, recurse=True):
        """Uninitialised parameters and buffers of the same shapes on ``device``: how a
        module described on the meta device (NOTE [Meta tensors]) gets storage."""
        from autograd_cy import empty_like
        return self._apply(lambda t: empty_like(t, device=device), recurse=recurse)

    def cuda(self, device=None):
        return self._apply(lambda t: t.cuda(device))

    def cpu(self):
        return self._apply(lambda t: t.cpu())

    def type(self, dst_type):
        return self._apply(lambda t: t.to(dst_type))

    def _floating(self, convert):
        return self._apply(lambda t: convert(t) if t.is_floating_point() else t)

    def float(self):
        return self._floating(lambda t: t.float())

    def double(self):
        return self._floating(lambda t: t.double())

    def half(self):
        return self._floating(lambda t: t.half())

    def bfloat16(self):
        return self._floating(lambda t: t.bfloat16())

    # ------------------------------------------------------------------ state dict

    def get_extra_state(self):
        """What to save in the state dict besides parameters and buffers (under the key
        ``<prefix>_extra_state``) for a subclass that overrides this and
        ``set_extra_state``; the base class's is never called."""
        raise RuntimeError(
            "Reached a code path in Module.get_extra_state() that should never be called. "
            "Please file an issue at https://github.com/pytorch/pytorch/issues/new?"
            "template=bug-report.yml to report this bug.")

    def set_extra_state(self, state):
        """Take back what ``get_extra_state`` saved (``load_state_dict`` calls it when a
        subclass overrides it); the base class's is never called."""
        raise RuntimeError(
            "Reached a code path in Module.set_extra_state() that should never be called. "
            "Please file an issue at https://github.com/pytorch/pytorch/issues/new?"
            "template=bug-report.yml to report this bug.")

    def _save_to_state_dict(self, destination, prefix, keep_vars):
        for name, param in self._parameters.items():
            if param is not None:
                destination[prefix + name] = param if keep_vars else param.detach()
        for name, buffer in self._buffers.items():
            if buffer is not None and name not in self._non_persistent_buffers_set:
                destination[prefix + name] = buffer if keep_vars else buffer.detach()
        if type(self).get_extra_state is not Module.get_extra_state:
            destination[prefix + _EXTRA_STATE_KEY_SUFFIX] = self.get_extra_state()

    def state_dict(self, *args, destination=None, prefix="", keep_vars=False):
        """An OrderedDict of every parameter and persistent buffer by dotted name, detached
        (``keep_vars=True`` keeps the tensors themselves)."""
        if args:      # torch's deprecated positional form (destination, prefix, keep_vars)
            warnings.warn("Positional args are being deprecated, use kwargs instead. Refer to "
                          "https://pytorch.org/docs/main/generated/torch.nn.Module.html"
                          "#torch.nn.Module.state_dict for details.", FutureWarning,
                          stacklevel=2)
            given = dict(zip(("destination", "prefix", "keep_vars"), args))
            destination = given.get("destination", destination)
            prefix = given.get("prefix", prefix)
            keep_vars = given.get("keep_vars", keep_vars)
        if destination is None:
            destination = OrderedDict()
            destination._metadata = OrderedDict()
        local_metadata = {"version": self._version}
        if hasattr(destination, "_metadata"):
            destination._metadata[prefix[:-1]] = local_metadata
        for hook in self._state_dict_pre_hooks.values():
            hook(self, prefix, keep_vars)
        self._save_to_state_dict(destination, prefix, keep_vars)
        for name, module in self._modules.items():
            if module is not None:
                module.state_dict(destination=destination, prefix=prefix + name + ".",
                                  keep_vars=keep_vars)
        # a private hook's result replaces the root's dict (a child's result is dropped by
        # the recursion); a public hook must return None
        for hook in self._state_dict_hooks.values():
            hook_result = hook(self, destination, prefix, local_metadata)
            if not getattr(hook, "_from_public_api", False):
                if hook_result is not None:
                    destination = hook_result
            elif hook_result is not None:
                raise RuntimeError("state_dict post-hook must return None")
        return destination

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict,
                              missing_keys, unexpected_keys, error_msgs):
        """Copy this module's own entries of ``state_dict`` (under ``prefix``) in place, or
        with ``local_metadata["assign_to_params_buffers"]`` (``load_state_dict(assign=True)``)
        make them the parameters and buffers."""
        for hook in self._load_state_dict_pre_hooks.values():
            hook(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                 error_msgs)
        assign = local_metadata.get("assign_to_params_buffers", False)
        persistent = {name: value for name, value in self._buffers.items()
                      if name not in self._non_persistent_buffers_set}
        local = {**self._parameters, **persistent}
        for name, param in local.items():
            key = prefix + name
            if param is None:
                continue
            if key not in state_dict:
                if strict:
                    missing_keys.append(key)
                continue
            value = state_dict[key]
            if not isinstance(value, Tensor):
                error_msgs.append(
                    f'While copying the parameter named "{key}", expected torch.Tensor or '
                    f"Tensor-like object from checkpoint but received {type(value)}")
                continue
            if not is_lazy(param) and param.dim() == 0 and tuple(value.shape) == (1,):
                value = value[0]         # a 0-dim entry saved as one element (older torch)
            if is_lazy(param):           # NOTE [Uninitialized parameters]: no shape yet
                pass
            elif tuple(value.shape) != tuple(param.shape):
                error_msgs.append(
                    f"size mismatch for {key}: copying a param with shape {value.shape} "
                    f"from checkpoint, the shape in current model is {param.shape}.")
                continue
            if param.is_meta and not value.is_meta and not assign:
                warnings.warn(
                    f"for {key}: copying from a non-meta parameter in the checkpoint to a meta "
                    "parameter in the current model, which is a no-op. (Did you mean to "
                    "pass `assign=True` to assign items in the state dictionary to their "
                    "corresponding key in the module instead of copying them in place?)",
                    stacklevel=2)
            if assign and _future.get_swap_module_params_on_conversion():
                with no_grad():      # the object stays, with the entry's tensor as its data
                    param.data = value.detach()
                continue
            if assign:           # a Parameter keeps its requires_grad
                if name in self._parameters:
                    if isinstance(value, Parameter):
                        self._parameters[name] = value.requires_grad_(param.requires_grad)
                    else:
                        self._parameters[name] = Parameter(value, param.requires_grad)
                else:
                    self._buffers[name] = value
                continue
            try:
                with no_grad():
                    param.copy_(value)
            except Exception as error:
                error_msgs.append(
                    f'While copying the parameter named "{key}", whose dimensions in the '
                    f"model are {param.shape} and whose dimensions in the checkpoint are "
                    f"{value.shape}, an exception occurred : {error.args}.")
        extra_key = prefix + _EXTRA_STATE_KEY_SUFFIX
        if type(self).set_extra_state is not Module.set_extra_state:
            if extra_key in state_dict:
                self.set_extra_state(state_dict[extra_key])
            elif strict:
                missing_keys.append(extra_key)
        elif strict and extra_key in state_dict:
            unexpected_keys.append(extra_key)
        if strict:
            for key in state_dict:
                if key.startswith(prefix) and key != extra_key:
                    # a dotted name must be a child's ("weight.x" is unexpected)
                    name, *rest = key[len(prefix):].split(".", 1)
                    if name not in (self._modules if rest else local):
                        unexpected_keys.append(key)

    def load_state_dict(self, state_dict, strict=True, assign=False):
        """Copy ``state_dict``'s tensors into the parameters and buffers of the same name;
        with ``strict``, missing and unexpected keys are an error, as in torch."""
        if not hasattr(state_dict, "keys") or not hasattr(state_dict, "__getitem__"):
            raise TypeError(f"Expected state_dict to be dict-like, got {type(state_dict)}.")
        missing_keys, unexpected_keys, error_msgs = [], [], []
        metadata = getattr(state_dict, "_metadata", None)
        state_dict = OrderedDict(state_dict)        # the pre-hooks may rename entries

        def load(module, local_state_dict, prefix=""):
            # each child sees the entries under its prefix; its post-hooks run after its
            # children are loaded, with the keys missed and unexpected so far
            local_metadata = dict({} if metadata is None else metadata.get(prefix[:-1], {}))
            if assign:
                local_metadata["assign_to_params_buffers"] = True
            module._load_from_state_dict(local_state_dict, prefix, local_metadata, True,
                                         missing_keys, unexpected_keys, error_msgs)
            for name, child in module._modules.items():
                if child is not None:
                    child_prefix = prefix + name + "."
                    load(child, {key: value for key, value in local_state_dict.items()  # noqa: F821
                                 if key.startswith(child_prefix)}, child_prefix)
            incompatible = _IncompatibleKeys(missing_keys, unexpected_keys)
            for hook in module._load_state_dict_post_hooks.values():
                out = hook(module, incompatible)
                assert out is None, (
                    "Hooks registered with ``register_load_state_dict_post_hook`` are not"
                    "expected to return new values, if incompatible_keys need to be modified,"
                    "it should be done inplace.")

        load(self, state_dict)
        del load        # a recursive closure is a reference cycle
        if strict:
            if unexpected_keys:
                error_msgs.insert(0, "Unexpected key(s) in state_dict: {}. ".format(
                    ", ".join(f'"{k}"' for k in unexpected_keys)))
            if missing_keys:
                error_msgs.insert(0, "Missing key(s) in state_dict: {}. ".format(
                    ", ".join(f'"{k}"' for k in missing_keys)))
        if error_msgs:
            raise RuntimeError("Error(s) in loading state_dict for {}:\n\t{}".format(
                type(self).__name__, "\n\t".join(error_msgs)))
        return _IncompatibleKeys(missing_keys, unexpected_keys)

    def register_state_dict_pre_hook(self, hook):
        return _add_hook(self._state_dict_pre_hooks, hook, False)

    def register_state_dict_post_hook(self, hook):
        """``hook(module, state_dict, prefix, local_metadata)`` after the module's entries
        are saved; it edits ``state_dict`` in place (it must return None)."""
        hook._from_public_api = True
        return _add_hook(self._state_dict_hooks, hook, False)

    def _register_state_dict_hook(self, hook):
        """torch's private form: what the root module's hook returns, if not None, is the
        ``state_dict`` returned."""
        if getattr(hook, "_from_public_api", False):
            raise RuntimeError("Cannot register the same function as the state dict post hook "
                               "that was previously registered via register_state_dict_post_hook")
        return _add_hook(self._state_dict_hooks, hook, False)

    def register_load_state_dict_pre_hook(self, hook):
        """``hook(module, state_dict, prefix, local_metadata, strict, missing_keys,
        unexpected_keys, error_msgs)`` before the module loads its entries."""
        return self._register_load_state_dict_pre_hook(hook, with_module=True)

    def _register_load_state_dict_pre_hook(self, hook, with_module=False):
        """torch's private form: ``hook(state_dict, prefix, local_metadata, strict,
        missing_keys, unexpected_keys, error_msgs)``, the module first ``with_module``."""
        return _add_hook(self._load_state_dict_pre_hooks,
                         _WrappedHook(hook, self if with_module else None), False)

    def register_load_state_dict_post_hook(self, hook):
        return _add_hook(self._load_state_dict_post_hooks, hook, False)

    # ------------------------------------------------------------------ hooks

    def register_forward_pre_hook(self, hook, *, prepend=False, with_kwargs=False):
        """``hook(module, args)`` (or ``(module, args, kwargs)``) before ``forward``; what it
        returns, if not None, replaces the arguments."""
        handle = _add_hook(self._forward_pre_hooks, hook, prepend,
                           extra_dict=self._forward_pre_hooks_with_kwargs)
        if with_kwargs:
            self._forward_pre_hooks_with_kwargs[handle.id] = True
        return handle

    def register_forward_hook(self, hook, *, prepend=False, with_kwargs=False,
                              always_call=False):
        """``hook(module, args, output)`` after ``forward``; what it returns, if not None,
        replaces the output."""
        handle = _add_hook(self._forward_hooks, hook, prepend, extra_dict=[
            self._forward_hooks_with_kwargs, self._forward_hooks_always_called])
        if with_kwargs:
            self._forward_hooks_with_kwargs[handle.id] = True
        if always_call:
            self._forward_hooks_always_called[handle.id] = True
        return handle

    def register_full_backward_pre_hook(self, hook, prepend=False):
        """``hook(module, grad_output)`` when the gradients of the module's outputs are
        ready; may return new ones (NOTE [Module backward hooks])."""
        return _add_hook(self._backward_pre_hooks, hook, prepend)

    def register_full_backward_hook(self, hook, prepend=False):
        """``hook(module, grad_input, grad_output)`` when the gradients of the module's
        inputs are ready; may return new ``grad_input`` (NOTE [Module backward hooks])."""
        if self._is_full_backward_hook is False:
            raise RuntimeError("Cannot use both regular backward hooks and full backward "
                               "hooks on a single Module. Please use only one of them.")
        self._is_full_backward_hook = True
        return _add_hook(self._backward_hooks, hook, prepend)

    def register_backward_hook(self, hook):
        """Deprecated (``register_full_backward_hook`` is the documented behaviour):
        ``hook(module, grad_input, grad_output)`` as a hook of the node that made the
        module's (first) output (NOTE [Non-full module backward hooks])."""
        if self._is_full_backward_hook is True:
            raise RuntimeError("Cannot use both regular backward hooks and full backward "
                               "hooks on a single Module. Please use only one of them.")
        self._is_full_backward_hook = False
        return _add_hook(self._backward_hooks, hook, False)

    def _get_backward_hooks(self):
        """``(full_backward_hooks, non_full_backward_hooks)``: the hooks a call sets up,
        the global ones first."""
        full, non_full = [], []
        if _global_is_full_backward_hook is True:
            full += _global_backward_hooks.values()
        if self._is_full_backward_hook is True:
            full += self._backward_hooks.values()
        if _global_is_full_backward_hook is False:
            non_full += _global_backward_hooks.values()
        if self._is_full_backward_hook is False:
            non_full += self._backward_hooks.values()
        return full, non_full

    def compile(self, *args, **kwargs):
        """Compile the module's call with ``torch.compile(*args, **kwargs)``: an identity
        here, so the module runs as before; the arguments are checked as torch.compile's."""
        from autograd_cy.compiler import compile as compile_   # the op layer sits above
        self._compiled_call_impl = compile_(self.__call__, *args, **kwargs)

    # NOTE [Calling a module]
    # ``module(*args)`` is ``forward(*args)`` between hooks, in torch's order: the global then
    # the module's forward pre-hooks (each may replace the arguments), the backward hooks'
    # identity Function around the tensor arguments, ``forward``, the global then the
    # module's forward hooks (each may replace the output), and the identity Function around
    # the outputs. A module without hooks (the common case) calls ``forward`` directly.
    def __call__(self, *args, **kwargs):
        if not (self._forward_pre_hooks or self._forward_hooks or self._backward_hooks
                or self._backward_pre_hooks or _global_forward_pre_hooks
                or _global_forward_hooks or _global_backward_hooks
                or _global_backward_pre_hooks):
            return self.forward(*args, **kwargs)
        return self._call_with_hooks(args, kwargs)

    def _call_with_hooks(self, args, kwargs):
        # NOTE [Always-called forward hooks]
        # A forward hook registered with ``always_call=True`` runs even when the call raises
        # (in a pre-hook, ``forward`` or another forward hook): after the error, every such
        # hook (global, then the module's) that has not run yet is called with the output
        # so far (None), an exception of its own only warned, and the error re-raised.
        state = {"args": args, "kwargs": kwargs, "result": None, "called": set()}
        try:
            return self._call_hooks_and_forward(state)
        except Exception:
            args, kwargs, result = state["args"], state["kwargs"], state["result"]
            for table, with_kwargs, always, where in (
                    (_global_forward_hooks, _global_forward_hooks_with_kwargs,
                     _global_forward_hooks_always_called, "global module forward hook"),
                    (self._forward_hooks, self._forward_hooks_with_kwargs,
                     self._forward_hooks_always_called, "module forward hook")):
                for hook_id, hook in tuple(table.items()):
                    if hook_id not in always or hook_id in state["called"]:
                        continue
                    try:
                        hook_result = (hook(self, args, kwargs, result) if hook_id in with_kwargs
                                       else hook(self, args, result))
                    except Exception as error:
                        warnings.warn(f"{where} with ``always_call=True`` raised an exception "
                                      f"that was silenced as another error was raised in "
                                      f"forward: {error}", stacklevel=2)
                        continue
                    if hook_result is not None:
                        result = hook_result
            raise

    def _call_hooks_and_forward(self, state):
        """The body of a call with hooks (NOTE [Calling a module]); ``state`` keeps the
        arguments, the output and the always-called hooks that ran, for the error path."""
        full_hooks, non_full_hooks = self._get_backward_hooks()
        pre_hooks = [*_global_backward_pre_hooks.values(), *self._backward_pre_hooks.values()]
        # a snapshot: a hook may remove itself (a lazy module's does) or register others
        for hook_id, hook in (*_global_forward_pre_hooks.items(),
                              *self._forward_pre_hooks.items()):
            if hook_id in self._forward_pre_hooks_with_kwargs:
                result = hook(self, state["args"], state["kwargs"])
                if result is not None:
                    if not (isinstance(result, tuple) and len(result) == 2):
                        raise RuntimeError("forward pre-hook must return None or a tuple of "
                                           f"(new_args, new_kwargs), but got {result}.")
                    state["args"], state["kwargs"] = result
            else:
                result = hook(self, state["args"])
                if result is not None:
                    state["args"] = result if isinstance(result, tuple) else (result,)
        backward_hook = None
        if full_hooks or pre_hooks:
            backward_hook = BackwardHook(self, full_hooks, pre_hooks)
            state["args"] = backward_hook.setup_input_hook(state["args"])
        args, kwargs = state["args"], state["kwargs"]
        result = state["result"] = self.forward(*args, **kwargs)
        for hook_id, hook in (*_global_forward_hooks.items(), *self._forward_hooks.items()):
            if hook_id in self._forward_hooks_always_called or \
                    hook_id in _global_forward_hooks_always_called:
                state["called"].add(hook_id)
            if hook_id in self._forward_hooks_with_kwargs or \
                    hook_id in _global_forward_hooks_with_kwargs:
                hook_result = hook(self, args, kwargs, result)
            else:
                hook_result = hook(self, args, result)
            if hook_result is not None:
                result = state["result"] = hook_result
        if backward_hook is not None:
            if not isinstance(result, (Tensor, tuple)):
                warnings.warn("For backward hooks to be called, module output should be a "
                              f"Tensor or a tuple of Tensors but received {type(result)}",
                              stacklevel=3)
            result = backward_hook.setup_output_hook(result)
        if non_full_hooks:
            _register_non_full_backward_hooks(self, non_full_hooks, args, result)
        return result

    # ------------------------------------------------------------------ printing

    def _get_name(self):
        return type(self).__name__

    def extra_repr(self):
        """The module's own settings for its repr (``in_features=2, ...``)."""
        return ""

    def __repr__(self):
        extra = self.extra_repr()
        extra_lines = extra.split("\n") if extra else []
        child_lines = [f"({key}): " + _indented(repr(module), 2)
                       for key, module in self._modules.items()]
        lines = extra_lines + child_lines
        body = ""
        if len(extra_lines) == 1 and not child_lines:
            body = extra_lines[0]
        elif lines:
            body = "\n  " + "\n  ".join(lines) + "\n"
        return self._get_name() + "(" + body + ")"

    def __setstate__(self, state):
        self.__dict__.update(state)
        # modules pickled before a table existed get an empty one, as torch's do
        for table in ("_forward_pre_hooks", "_forward_pre_hooks_with_kwargs",
                      "_forward_hooks_with_kwargs", "_forward_hooks_always_called",
                      "_state_dict_hooks", "_state_dict_pre_hooks", "_load_state_dict_pre_hooks",
                      "_load_state_dict_post_hooks", "_backward_pre_hooks"):
            self.__dict__.setdefault(table, OrderedDict())
        self.__dict__.setdefault("_non_persistent_buffers_set", set())
        self.__dict__.setdefault("_is_full_backward_hook", None)
