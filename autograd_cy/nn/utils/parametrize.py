"""``nn.utils.parametrize``: a module's parameter or buffer seen through modules that compute
it from other tensors (``torch.nn.utils.parametrize``).

# NOTE [Parametrized modules]
``register_parametrization(module, "weight", P)`` moves the tensor out of the module into
``module.parametrizations.weight``, a ``ParametrizationList`` (a ModuleList of ``P`` and
the parametrizations chained after it) that holds it as ``original`` (or ``original0``,
``original1`` ... when ``P.right_inverse`` returns a sequence). The module's class becomes
a subclass made for it, ``Parametrized<Name>``, with a property ``weight``: reading it runs
the chain on the originals (``P_n(...P_1(P_0(original)))``), so gradients reach the
originals, which are what optimizers and ``state_dict`` see
(``parametrizations.weight.original``); assigning it (``module.weight = X``) stores
``right_inverse(X)`` through the chain in reverse. Under ``cached()`` a read is computed once
per module and name. Removing the last parametrization puts the original class back.
"""
import collections.abc
import copy
import copyreg
from contextlib import contextmanager

from autograd_cy._C.tensor import Tensor
from autograd_cy.grad_mode import no_grad
from autograd_cy.nn.modules.container import ModuleDict, ModuleList
from autograd_cy.nn.parameter import Parameter

__all__ = ["cached", "ParametrizationList", "register_parametrization", "is_parametrized",
           "remove_parametrizations", "type_before_parametrizations",
           "transfer_parametrizations_and_params"]

_cache_depth = 0          # how many cached() blocks are open
_cache = {}               # (id(module), tensor name) -> the parametrized tensor


@contextmanager
def cached():
    """Compute each parametrized tensor once inside the block and reuse it (a weight used
    several times in a forward, as an RNN's recurrent kernel); the values are dropped when
    the outermost block exits."""
    global _cache_depth, _cache
    _cache_depth += 1
    try:
        yield
    finally:
        _cache_depth -= 1
        if not _cache_depth:
            _cache = {}


def _register_parameter_or_buffer(module, name, value):
    if isinstance(value, Parameter):
        module.register_parameter(name, value)
    else:
        module.register_buffer(name, value)


def _set_in_place(dest, src):
    """``dest`` takes ``src``'s values, shape and storage, staying the same object (an
    optimizer holding it still does): torch's ``dest.set_(src)``."""
    with no_grad():
        dest.data = src


class ParametrizationList(ModuleList):
    """The parametrizations of one tensor, in order, and the original tensor(s) they are
    computed from (``original``, or ``original0``, ``original1`` ...): the type of
    ``module.parametrizations[name]``. Made by ``register_parametrization``, not by users."""

    def __init__(self, modules, original, unsafe=False):
        if len(modules) == 0:
            raise ValueError("ParametrizationList requires one or more modules.")
        super().__init__(modules)
        self.unsafe = unsafe
        shape, dtype = original.shape, original.dtype
        with no_grad():
            new = original
            for module in reversed(list(self)):
                if hasattr(module, "right_inverse"):
                    try:
                        new = module.right_inverse(new)
                    except NotImplementedError:
                        pass
        if not isinstance(new, (Tensor, collections.abc.Sequence)):
            raise ValueError("'right_inverse' must return a Tensor or a Sequence of tensors "
                             f"(list, tuple...). Got {type(new).__name__}")
        self.is_tensor = isinstance(new, Tensor)
        self.ntensors = 1 if self.is_tensor else len(new)
        if self.is_tensor:
            if original.dtype != new.dtype:
                raise ValueError(
                    "When `right_inverse` outputs one tensor, it may not change the dtype.\n"
                    f"original.dtype: {original.dtype}\n"
                    f"right_inverse(original).dtype: {new.dtype}")
            if original.device != new.device:
                raise ValueError(
                    "When `right_inverse` outputs one tensor, it may not change the device.\n"
                    f"original.device: {original.device}\n"
                    f"right_inverse(original).device: {new.device}")
            if new is not original:
                _set_in_place(original, new)
            _register_parameter_or_buffer(self, "original", original)
        else:
            for i, value in enumerate(new):
                if not isinstance(value, Tensor):
                    raise ValueError(
                        "'right_inverse' must return a Tensor or a Sequence of tensors "
                        f"(list, tuple...). Got element {i} of the sequence with type "
                        f"{type(value).__name__}.")
                if isinstance(original, Parameter):
                    value = Parameter(value, original.requires_grad)
                value.requires_grad_(original.requires_grad)
                _register_parameter_or_buffer(self, f"original{i}", value)
        if not self.unsafe:
            result = self()
            if not isinstance(result, Tensor):
                raise ValueError(
                    f"A parametrization must return a tensor. Got {type(result).__name__}.")
            if result.dtype != dtype:
                raise ValueError(
                    "Registering a parametrization may not change the dtype of the tensor, "
                    "unless `unsafe` flag is enabled.\n"
                    f"unparametrized dtype: {dtype}\nparametrized dtype: {result.dtype}")
            if result.shape != shape:
                raise ValueError(
                    "Registering a parametrization may not change the shape of the tensor, "
                    "unless `unsafe` flag is enabled.\n"
                    f"unparametrized shape: {shape}\nparametrized shape: {result.shape}")

    def right_inverse(self, value):
        """Store ``value`` as the originals: the parametrizations' ``right_inverse`` applied
        in reverse registration order, written into ``original`` (or ``original0`` ...)."""
        with no_grad():
            for module in reversed(list(self)):
                if not hasattr(module, "right_inverse"):
                    raise RuntimeError(f"parametrization {type(module).__name__} does not "
                                       "implement right_inverse.")
                value = module.right_inverse(value)
            if self.is_tensor:
                if not isinstance(value, Tensor):
                    raise ValueError("`right_inverse` should return a tensor. Got "
                                     f"{type(value).__name__}")
                if value.dtype != self.original.dtype:
                    raise ValueError(f"The tensor returned by `right_inverse` has dtype "
                                     f"{value.dtype} while `original` has dtype "
                                     f"{self.original.dtype}")
                _set_in_place(self.original, value)
                return
            if not isinstance(value, collections.abc.Sequence):
                raise ValueError("'right_inverse' must return a sequence of tensors. Got "
                                 f"{type(value).__name__}.")
            if len(value) != self.ntensors:
                raise ValueError("'right_inverse' must return a sequence of tensors of length "
                                 f"{self.ntensors}. Got a sequence of length {len(value)}.")
            for i, tensor in enumerate(value):
                original = getattr(self, f"original{i}")
                if not isinstance(tensor, Tensor):
                    raise ValueError("'right_inverse' must return a sequence of tensors or "
                                     f"reference-type opaques. Got element {i} of type "
                                     f"{type(tensor).__name__}.")
                if original.dtype != tensor.dtype:
                    raise ValueError(f"Tensor {i} returned by `right_inverse` has dtype "
                                     f"{tensor.dtype} while `original{i}` has dtype "
                                     f"{original.dtype}")
                _set_in_place(original, tensor)

    def forward(self):
        """The parametrized tensor: the chain applied to the originals."""
        if self.is_tensor:
            value = self[0](self.original)
        else:
            value = self[0](*(getattr(self, f"original{i}") for i in range(self.ntensors)))
        for module in list(self)[1:]:
            value = module(value)
        return value


def _deepcopy_by_dict(self, memo):
    """A parametrized module's deepcopy when its class has none: the instance dict copied."""
    if id(self) in memo:
        return memo[id(self)]
    replica = self.__new__(type(self))
    memo[id(self)] = replica
    replica.__dict__ = copy.deepcopy(self.__dict__, memo)
    for slot in copyreg._slotnames(type(self)):
        if hasattr(self, slot):
            setattr(replica, slot, copy.deepcopy(getattr(self, slot), memo))
    return replica


def _refuse_pickling(self):
    raise RuntimeError(
        "Serialization of parametrized modules is only supported through state_dict(). "
        "See:\nhttps://pytorch.org/tutorials/beginner/saving_loading_models.html"
        "#saving-loading-a-general-checkpoint-for-inference-and-or-resuming-training")


def _make_class_parametrized(module):
    """Give ``module`` a class of its own, ``Parametrized<Name>``, to hold the properties."""
    cls = type(module)
    namespace = {"__getstate__": _refuse_pickling}
    if not hasattr(cls, "__deepcopy__"):
        namespace["__deepcopy__"] = _deepcopy_by_dict
    module.__class__ = type(f"Parametrized{cls.__name__}", (cls,), namespace)


def _add_property(module, tensor_name):
    """The property ``tensor_name`` of the module's class: reading it runs the
    parametrizations (once per ``cached()`` block), assigning it stores ``right_inverse``."""
    if hasattr(module, tensor_name):
        raise AssertionError(f"Module already has an attribute named '{tensor_name}'")

    def get(self):
        parametrization = self.parametrizations[tensor_name]
        if not _cache_depth:
            return parametrization()
        key = (id(self), tensor_name)
        value = _cache.get(key)
        if value is None:
            value = _cache[key] = parametrization()
        return value

    def set(self, value):
        self.parametrizations[tensor_name].right_inverse(value)

    setattr(type(module), tensor_name, property(get, set))


def _check_chained(module, tensor_name, parametrization):
    """torch's checks when a parametrization is chained after others: it keeps the
    tensor's dtype and shape, and so does its ``right_inverse``."""
    before = getattr(module, tensor_name)
    after = parametrization(before)
    if not isinstance(after, Tensor):
        raise ValueError(f"A parametrization must return a tensor. Got {type(after).__name__}.")
    if after.dtype != before.dtype:
        raise ValueError(
            "Registering a parametrization may not change the dtype of the tensor, unless "
            f"the `unsafe` flag is enabled.\nmodule.{tensor_name}.dtype: {before.dtype}\n"
            f"parametrization(module.{tensor_name}).dtype: {after.dtype}")
    if after.shape != before.shape:
        raise ValueError(
            "Registering a parametrization may not change the shape of the tensor, unless "
            f"the `unsafe` flag is enabled.\nmodule.{tensor_name}.shape: {before.shape}\n"
            f"parametrization(module.{tensor_name}).shape: {after.shape}")
    if not hasattr(parametrization, "right_inverse"):
        return
    try:
        inverse = parametrization.right_inverse(after)
    except NotImplementedError:
        return
    if not isinstance(inverse, Tensor):
        raise ValueError("parametrization.right_inverse must return a tensor. Got: "
                         f"{type(inverse).__name__}")
    if inverse.dtype != before.dtype:
        raise ValueError(
            "The tensor returned by parametrization.right_inverse must have the same dtype "
            f"as module.{tensor_name}, unless the `unsafe` flag is enabled.\n"
            f"module.{tensor_name}.dtype: {before.dtype}\nreturned dtype: {inverse.dtype}")
    if inverse.shape != before.shape:
        raise ValueError(
            "The tensor returned by parametrization.right_inverse must have the same shape "
            f"as module.{tensor_name}, unless the `unsafe` flag is enabled.\n"
            f"module.{tensor_name}.shape: {before.shape}\nreturned shape: {inverse.shape}")


def register_parametrization(module, tensor_name, parametrization, *, unsafe=False):
    """Make ``module.<tensor_name>`` the output of ``parametrization`` (a Module) on the
    tensor it was; a second registration chains after the first (NOTE [Parametrized
    modules]). ``unsafe=True`` lets the parametrization change the dtype and shape.

    >>> layer = ag.nn.Linear(2, 2)
    >>> class Symmetric(ag.nn.Module):
    ...     def forward(self, X):
    ...         return X.triu() + X.triu(1).mT
    >>> _ = ag.nn.utils.parametrize.register_parametrization(layer, "weight", Symmetric())
    >>> bool((layer.weight == layer.weight.T).all()), type(layer).__name__
    (True, 'ParametrizedLinear')
    """
    parametrization.train(module.training)
    if is_parametrized(module, tensor_name):
        if not unsafe:
            _check_chained(module, tensor_name, parametrization)
        chain = module.parametrizations[tensor_name]
        chain.append(parametrization)
        chain.unsafe |= unsafe
    elif tensor_name in module._buffers or tensor_name in module._parameters:
        original = getattr(module, tensor_name)
        chain = ParametrizationList([parametrization], original, unsafe=unsafe)
        delattr(module, tensor_name)
        if not is_parametrized(module):
            _make_class_parametrized(module)
            module.parametrizations = ModuleDict()
        _add_property(module, tensor_name)
        module.parametrizations[tensor_name] = chain
    else:
        raise ValueError(f"Module '{module}' does not have a parameter, a buffer, or a "
                         f"parametrized element with name '{tensor_name}'")
    return module


def is_parametrized(module, tensor_name=None):
    """Whether ``module`` has a parametrization (on ``tensor_name``, if given)."""
    parametrizations = getattr(module, "parametrizations", None)
    if not isinstance(parametrizations, ModuleDict):
        return False
    if tensor_name is None:
        return len(parametrizations) > 0
    return tensor_name in parametrizations


def remove_parametrizations(module, tensor_name, leave_parametrized=True):
    """Undo the parametrizations of ``tensor_name``: the tensor becomes a plain parameter
    (or buffer) again, holding its parametrized value (``leave_parametrized=True``, the
    original Parameter object keeps its identity) or the original one."""
    if not is_parametrized(module, tensor_name):
        raise ValueError(f"Module {module} does not have a parametrization on {tensor_name}")
    chain = module.parametrizations[tensor_name]
    if chain.is_tensor:
        original = chain.original
        if leave_parametrized:
            with no_grad():
                value = getattr(module, tensor_name)
            _set_in_place(original, value)
    elif leave_parametrized:
        value = getattr(module, tensor_name)
        original = Parameter(value) if value.requires_grad else value
    else:
        raise ValueError("Cannot leave unparametrized (`leave_parametrized=False`) a tensor "
                         "that is parametrized in terms of a sequence of tensors.")
    delattr(type(module), tensor_name)
    del module.parametrizations[tensor_name]
    _register_parameter_or_buffer(module, tensor_name, original)
    if not is_parametrized(module):
        delattr(module, "parametrizations")
        module.__class__ = type(module).__bases__[0]
    return module


def type_before_parametrizations(module):
    """The module's class before any parametrization was registered on it."""
    if is_parametrized(module):
        return type(module).__bases__[0]
    return type(module)


def transfer_parametrizations_and_params(from_module, to_module, tensor_name=None):
    """Register on ``to_module`` the parametrizations of ``from_module`` (of
    ``tensor_name``, or all), with its original tensors; a parametrized name ``to_module``
    lacks is first made a Parameter of ``from_module``'s value."""
    if not is_parametrized(from_module):
        return to_module
    names = list(from_module.parametrizations) if tensor_name is None else [tensor_name]
    for name in names:
        if not hasattr(to_module, name):
            setattr(to_module, name, Parameter(getattr(from_module, name)))
        source = from_module.parametrizations[name]
        for parametrization in source:
            register_parametrization(to_module, name, parametrization)
        target = to_module.parametrizations[name]
        if hasattr(source, "original"):
            target.original = source.original
        else:
            i = 0
            while hasattr(source, f"original{i}"):
                setattr(target, f"original{i}", getattr(source, f"original{i}"))
                i += 1
    return to_module
