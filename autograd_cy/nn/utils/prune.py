"""``nn.utils.prune``: zero out parts of a module's parameter with a mask, as torch's.

Pruning ``module.weight`` moves the parameter to ``weight_orig``, adds a buffer
``weight_mask`` (1 keeps an entry, 0 prunes it) and makes ``weight`` a plain attribute,
``weight_orig * weight_mask``, recomputed before every forward by the pruning method, which is
registered as a forward pre-hook. Gradients reach ``weight_orig`` through that product, so
the pruned entries get zero gradient. ``remove`` makes the pruning permanent: the product
becomes the parameter ``weight`` again.

# NOTE [Pruning the same parameter twice]
A second pruning of the same parameter acts on what the first one left: its mask starts
from the current mask, and the new method chooses among the entries (unstructured), the
channels (structured) or all values (global) that are still kept. The hook that was
registered becomes a ``PruningContainer`` holding the methods in order, so one pre-hook per
parameter recomputes the product, and ``remove`` undoes all of them at once.

>>> import autograd_cy as ag
>>> layer = ag.nn.Linear(4, 2)
>>> _ = ag.nn.utils.prune.l1_unstructured(layer, "weight", amount=0.5)
>>> int((layer.weight == 0).sum()), sorted(name for name, _ in layer.named_buffers())
(4, ['weight_mask'])
"""
import numbers
from abc import ABC, abstractmethod
from collections.abc import Iterable

import autograd_cy as _ag

__all__ = ["BasePruningMethod", "PruningContainer", "Identity", "RandomUnstructured",
           "L1Unstructured", "RandomStructured", "LnStructured", "CustomFromMask", "identity",
           "random_unstructured", "l1_unstructured", "random_structured", "ln_structured",
           "global_unstructured", "custom_from_mask", "remove", "is_pruned"]


class BasePruningMethod(ABC):
    """A way of choosing a mask; also the forward pre-hook that applies it.

    A subclass sets ``PRUNING_TYPE`` ("unstructured", "structured" or "global") and
    implements ``compute_mask(t, default_mask)``.
    """
    _tensor_name = None

    def __call__(self, module, inputs):
        setattr(module, self._tensor_name, self.apply_mask(module))

    @abstractmethod
    def compute_mask(self, t, default_mask):
        """The new mask for ``t``, given the current one (``default_mask``)."""

    def apply_mask(self, module):
        """``<name>_orig * <name>_mask`` of ``module``: the pruned tensor."""
        if self._tensor_name is None:
            raise AssertionError(f"Module {module} has to be pruned")
        mask = getattr(module, self._tensor_name + "_mask")
        original = getattr(module, self._tensor_name + "_orig")
        return mask.to(dtype=original.dtype) * original

    @classmethod
    def apply(cls, module, name, *args, importance_scores=None, **kwargs):
        """Prune ``module.<name>`` with ``cls(*args, **kwargs)`` (NOTE [Pruning the same
        parameter twice]); ``importance_scores`` (the parameter itself by default) is what
        the method ranks. Returns the method registered as the pre-hook."""
        method = _method_after(cls, module, name, *args, **kwargs)
        original = getattr(module, name)
        if importance_scores is None:
            importance_scores = original
        elif importance_scores.shape != original.shape:
            raise AssertionError(
                f"importance_scores should have the same shape as parameter {name} of "
                f"{module}, got {importance_scores.shape} vs {original.shape}")
        first = not isinstance(method, PruningContainer)
        if first:
            module.register_parameter(name + "_orig", original)
            del module._parameters[name]
            default_mask = _ag.ones_like(original)
        else:
            default_mask = getattr(module, name + "_mask").detach().clone(
                memory_format=_ag.contiguous_format)
        try:
            mask = method.compute_mask(importance_scores, default_mask=default_mask)
            module.register_buffer(name + "_mask", mask)
            setattr(module, name, method.apply_mask(module))
            module.register_forward_pre_hook(method)
        except Exception:
            if first:               # put the parameter back as it was
                module.register_parameter(name, getattr(module, name + "_orig"))
                del module._parameters[name + "_orig"]
            raise
        return method

    def prune(self, t, default_mask=None, importance_scores=None):
        """``t`` times the mask this method computes for it (no module involved)."""
        if importance_scores is None:
            importance_scores = t
        elif importance_scores.shape != t.shape:
            raise AssertionError(f"importance_scores should have the same shape as tensor t, "
                                 f"got {importance_scores.shape} vs {t.shape}")
        if default_mask is None:
            default_mask = _ag.ones_like(t)
        return t * self.compute_mask(importance_scores, default_mask=default_mask)

    def remove(self, module):
        """Make the pruning permanent: ``<name>`` becomes a parameter holding the pruned
        values, and ``<name>_orig`` and ``<name>_mask`` go away."""
        if self._tensor_name is None:
            raise AssertionError(f"Module {module} has to be pruned before pruning can be "
                                 "removed")
        pruned = self.apply_mask(module)
        if hasattr(module, self._tensor_name):
            delattr(module, self._tensor_name)
        original = module._parameters[self._tensor_name + "_orig"]
        original.data = pruned.data
        del module._parameters[self._tensor_name + "_orig"]
        del module._buffers[self._tensor_name + "_mask"]
        setattr(module, self._tensor_name, original)


def _method_after(cls, module, name, *args, **kwargs):
    """The method to register for a new pruning of ``name``: ``cls(...)`` itself, or, when
    the parameter was pruned before, a container of the old methods and the new one (the
    old pre-hook is taken off)."""
    found = [(key, hook) for key, hook in module._forward_pre_hooks.items()
             if isinstance(hook, BasePruningMethod) and hook._tensor_name == name]
    if len(found) > 1:
        raise AssertionError(f"Avoid adding multiple pruning hooks to the same tensor {name} "
                             f"of module {module}. Use a PruningContainer.")
    for key, _ in found:
        del module._forward_pre_hooks[key]
    method = cls(*args, **kwargs)
    method._tensor_name = name
    if not found:
        return method
    previous = found[0][1]
    container = previous if isinstance(previous, PruningContainer) else PruningContainer(previous)
    container.add_pruning_method(method)
    return container


class PruningContainer(BasePruningMethod):
    """The methods applied, in order, to one parameter; its mask is the last one's, computed
    on what the earlier ones kept."""

    def __init__(self, *args):
        self._pruning_methods = ()
        if len(args) == 1 and isinstance(args[0], BasePruningMethod):
            self._tensor_name = args[0]._tensor_name
            self.add_pruning_method(args[0])
        else:
            for method in args:
                self.add_pruning_method(method)

    def add_pruning_method(self, method):
        """Append ``method``, which must prune the same parameter."""
        if method is not None and not isinstance(method, BasePruningMethod):
            raise TypeError(f"{type(method)} is not a BasePruningMethod subclass")
        if method is not None and self._tensor_name != method._tensor_name:
            raise ValueError("Can only add pruning methods acting on the parameter named "
                             f"'{self._tensor_name}' to PruningContainer {self}. Found "
                             f"'{method._tensor_name}'")
        self._pruning_methods += (method,)

    def __len__(self):
        return len(self._pruning_methods)

    def __iter__(self):
        return iter(self._pruning_methods)

    def __getitem__(self, index):
        return self._pruning_methods[index]

    def compute_mask(self, t, default_mask):
        """The last method's mask over the part of ``t`` the current mask still keeps."""
        method = self._pruning_methods[-1]
        new_mask = default_mask.to(dtype=t.dtype)
        if method.PRUNING_TYPE == "unstructured":
            kept = default_mask == 1
        elif method.PRUNING_TYPE == "structured":
            if not hasattr(method, "dim"):
                raise AttributeError('Pruning methods of PRUNING_TYPE "structured" need to '
                                     "have the attribute `dim` defined.")
            ndim = t.dim()
            dim = method.dim + ndim if method.dim < 0 else method.dim
            if dim < 0:
                raise IndexError(f"Index is out of bounds for tensor with dimensions {ndim}")
            channels = default_mask.sum(dim=[d for d in range(ndim) if d != dim]) != 0
            kept = tuple(channels if d == dim else slice(None) for d in range(ndim))
        elif method.PRUNING_TYPE == "global":
            kept = (slice(None),) * t.dim()
        else:
            raise ValueError(f"Unrecognized PRUNING_TYPE {method.PRUNING_TYPE}")
        partial = method.compute_mask(t[kept], default_mask=default_mask[kept])
        new_mask[kept] = partial.to(dtype=new_mask.dtype)
        return new_mask


class Identity(BasePruningMethod):
    """Prunes nothing: the mask is all ones (the reparametrization alone)."""
    PRUNING_TYPE = "unstructured"

    def compute_mask(self, t, default_mask):
        return default_mask

    @classmethod
    def apply(cls, module, name):
        return super().apply(module, name)


class RandomUnstructured(BasePruningMethod):
    """Prunes ``amount`` entries (a fraction, or a count) chosen at random."""
    PRUNING_TYPE = "unstructured"

    def __init__(self, amount):
        _validate_pruning_amount_init(amount)
        self.amount = amount

    def compute_mask(self, t, default_mask):
        count = _count_to_prune(self.amount, t.nelement())
        mask = default_mask.clone(memory_format=_ag.contiguous_format)
        if count:
            chosen = _ag.topk(_ag.rand_like(t).view(-1), k=count).indices
            mask.view(-1)[chosen] = 0
        return mask

    @classmethod
    def apply(cls, module, name, amount):
        return super().apply(module, name, amount=amount)


class L1Unstructured(BasePruningMethod):
    """Prunes the ``amount`` entries of smallest magnitude."""
    PRUNING_TYPE = "unstructured"

    def __init__(self, amount):
        _validate_pruning_amount_init(amount)
        self.amount = amount

    def compute_mask(self, t, default_mask):
        count = _count_to_prune(self.amount, t.nelement())
        mask = default_mask.clone(memory_format=_ag.contiguous_format)
        if count:
            smallest = _ag.topk(_ag.abs(t).view(-1), k=count, largest=False).indices
            mask.view(-1)[smallest] = 0
        return mask

    @classmethod
    def apply(cls, module, name, amount, importance_scores=None):
        return super().apply(module, name, amount=amount, importance_scores=importance_scores)


class RandomStructured(BasePruningMethod):
    """Prunes ``amount`` whole channels along ``dim``, chosen at random."""
    PRUNING_TYPE = "structured"

    def __init__(self, amount, dim=-1):
        _validate_pruning_amount_init(amount)
        self.amount = amount
        self.dim = dim

    def compute_mask(self, t, default_mask):
        _check_structured(t, self.dim)
        channels = t.shape[self.dim]
        count = _count_to_prune(self.amount, channels)
        if not count:
            return default_mask
        draws = _ag.rand(channels)
        kept = draws > _ag.kthvalue(draws, k=count).values
        mask = _channel_mask(t, self.dim, kept)
        mask *= default_mask.to(dtype=mask.dtype)
        return mask

    @classmethod
    def apply(cls, module, name, amount, dim=-1):
        return super().apply(module, name, amount=amount, dim=dim)


class LnStructured(BasePruningMethod):
    """Prunes the ``amount`` channels along ``dim`` of smallest ``n``-norm."""
    PRUNING_TYPE = "structured"

    def __init__(self, amount, n, dim=-1):
        _validate_pruning_amount_init(amount)
        self.amount = amount
        self.n = n
        self.dim = dim

    def compute_mask(self, t, default_mask):
        _check_structured(t, self.dim)
        channels = t.shape[self.dim]
        count = _count_to_prune(self.amount, channels)
        other_dims = list(range(t.dim()))
        del other_dims[self.dim]
        largest = _ag.topk(_ag.norm(t, p=self.n, dim=other_dims), k=channels - count,
                           largest=True).indices
        if not count:
            return default_mask
        mask = _channel_mask(t, self.dim, largest)
        mask *= default_mask.to(dtype=mask.dtype)
        return mask

    @classmethod
    def apply(cls, module, name, amount, n, dim, importance_scores=None):
        return super().apply(module, name, amount=amount, n=n, dim=dim,
                             importance_scores=importance_scores)


class CustomFromMask(BasePruningMethod):
    """Prunes where a given ``mask`` is 0."""
    PRUNING_TYPE = "global"

    def __init__(self, mask):
        self.mask = mask

    def compute_mask(self, t, default_mask):
        if default_mask.shape != self.mask.shape:
            raise AssertionError(f"default_mask shape {default_mask.shape} must match "
                                 f"self.mask shape {self.mask.shape}")
        return default_mask * self.mask.to(dtype=default_mask.dtype)

    @classmethod
    def apply(cls, module, name, mask):
        return super().apply(module, name, mask=mask)


def _channel_mask(t, dim, channels):
    """Zeros like ``t`` with ones in the ``channels`` (indices or booleans) along ``dim``."""
    mask = _ag.zeros_like(t)
    mask[tuple(channels if d == dim % t.dim() else slice(None) for d in range(t.dim()))] = 1
    return mask


def _validate_pruning_amount_init(amount):
    """torch's check of ``amount`` when a method is made: a count >= 0 or a fraction."""
    if not isinstance(amount, numbers.Real):
        raise TypeError(f"Invalid type for amount: {amount}. Must be int or float.")
    if ((isinstance(amount, numbers.Integral) and amount < 0)
            or (not isinstance(amount, numbers.Integral)
                and not 0.0 <= float(amount) <= 1.0)):
        raise ValueError(f"amount={amount} should either be a float in the range [0, 1] or a "
                         "non-negative integer")


def _validate_pruning_amount(amount, tensor_size):
    """A count of entries or channels to prune must not be above ``tensor_size``."""
    if isinstance(amount, numbers.Integral) and amount > tensor_size:
        raise ValueError(f"amount={amount} should be smaller than the number of "
                         f"parameters to prune={tensor_size}")


def _compute_nparams_toprune(amount, tensor_size):
    """How many of ``tensor_size`` entries or channels ``amount`` (a count or a fraction)
    prunes."""
    if isinstance(amount, numbers.Integral):
        return amount
    return round(amount * tensor_size)


def _count_to_prune(amount, size):
    """How many of ``size`` entries or channels to prune; a count above ``size`` raises."""
    _validate_pruning_amount(amount, size)
    return _compute_nparams_toprune(amount, size)


def _check_structured(t, dim):
    if t.dim() <= 1:
        raise ValueError("Structured pruning can only be applied to multidimensional tensors. "
                         f"Found tensor of shape {t.shape} with {t.dim()} dims")
    if dim >= t.dim():
        raise IndexError(f"Invalid index {dim} for tensor of size {t.shape}")


# ------------------------------------------------------------------ the functions

def identity(module, name):
    """Reparametrize ``module.<name>`` with a mask of ones (nothing pruned)."""
    Identity.apply(module, name)
    return module


def random_unstructured(module, name, amount):
    """Prune ``amount`` entries of ``module.<name>`` chosen at random."""
    RandomUnstructured.apply(module, name, amount)
    return module


def l1_unstructured(module, name, amount, importance_scores=None):
    """Prune the ``amount`` entries of ``module.<name>`` of smallest magnitude."""
    L1Unstructured.apply(module, name, amount=amount, importance_scores=importance_scores)
    return module


def random_structured(module, name, amount, dim):
    """Prune ``amount`` channels of ``module.<name>`` along ``dim``, chosen at random."""
    RandomStructured.apply(module, name, amount, dim)
    return module


def ln_structured(module, name, amount, n, dim, importance_scores=None):
    """Prune the ``amount`` channels of ``module.<name>`` along ``dim`` of smallest n-norm."""
    LnStructured.apply(module, name, amount, n, dim, importance_scores=importance_scores)
    return module


def custom_from_mask(module, name, mask):
    """Prune ``module.<name>`` where ``mask`` is 0."""
    CustomFromMask.apply(module, name, mask)
    return module


def global_unstructured(parameters, pruning_method, importance_scores=None, **kwargs):
    """Prune the ``(module, name)`` pairs of ``parameters`` together: ``pruning_method``
    (unstructured) ranks all their entries as one vector, and each gets its part of the
    mask."""
    if not isinstance(parameters, Iterable):
        raise TypeError("global_unstructured(): parameters is not an Iterable")
    parameters = list(parameters)
    importance_scores = {} if importance_scores is None else importance_scores
    if not isinstance(importance_scores, dict):
        raise TypeError("global_unstructured(): importance_scores must be of type dict")
    to_vector = _ag.nn.utils.parameters_to_vector
    scores = to_vector([importance_scores.get((module, name), getattr(module, name))
                        for module, name in parameters])
    current = to_vector([getattr(module, name + "_mask") if hasattr(module, name + "_mask")
                         else _ag.ones_like(getattr(module, name))
                         for module, name in parameters])
    container = PruningContainer()
    container._tensor_name = "temp"
    method = pruning_method(**kwargs)
    method._tensor_name = "temp"
    if method.PRUNING_TYPE != "unstructured":
        raise TypeError('Only "unstructured" PRUNING_TYPE supported for the `pruning_method`. '
                        f"Found method {pruning_method} of type {method.PRUNING_TYPE}")
    container.add_pruning_method(method)
    mask = container.compute_mask(scores, current)
    start = 0
    for module, name in parameters:
        parameter = getattr(module, name)
        count = parameter.numel()
        custom_from_mask(module, name, mask=mask[start:start + count].view_as(parameter))
        start += count


def remove(module, name):
    """Make the pruning of ``module.<name>`` permanent (see ``BasePruningMethod.remove``)."""
    for key, hook in module._forward_pre_hooks.items():
        if isinstance(hook, BasePruningMethod) and hook._tensor_name == name:
            hook.remove(module)
            del module._forward_pre_hooks[key]
            return module
    raise ValueError(f"Parameter '{name}' of module {module} has to be pruned before pruning "
                     "can be removed")


def is_pruned(module):
    """Does ``module`` or a submodule have a pruning pre-hook?"""
    return any(isinstance(hook, BasePruningMethod)
               for _, submodule in module.named_modules()
               for hook in submodule._forward_pre_hooks.values())
