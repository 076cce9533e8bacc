"""Containers: modules that hold other modules (or parameters) and name them by position or
key, as torch's ``Sequential``, ``ModuleList``, ``ModuleDict``, ``ParameterList`` and
``ParameterDict``. Their entries are ordinary registered children (or parameters), so
``parameters()``, ``state_dict()`` and ``to()`` see through them."""
import operator
import warnings
from collections import OrderedDict
from itertools import islice

from autograd_cy._C.tensor import Tensor
from autograd_cy.nn.modules.module import Module, _indented
from autograd_cy.nn.parameter import Parameter

__all__ = ["Container", "Sequential", "ModuleList", "ModuleDict", "ParameterList",
           "ParameterDict"]


class Container(Module):
    """A Module holding the modules given as keywords; deprecated (a FutureWarning on
    construction), as torch's: subclass ``Module`` instead."""

    def __init__(self, **kwargs):
        warnings.warn("`nn.Container` is deprecated. All of its functionality is now "
                      "implemented in `nn.Module`. Subclass that instead.", FutureWarning,
                      stacklevel=2)
        super().__init__()
        for key, value in kwargs.items():
            self.add_module(key, value)


def _position(index, length):
    """``index`` (maybe negative) as a position in ``0 .. length-1``, or torch's IndexError."""
    index = operator.index(index)
    if not -length <= index < length:
        raise IndexError(f"index {index} is out of range")
    return index % length


class _Indexed(Module):
    """What Sequential and ModuleList share: children named "0", "1", ... in order."""

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules.values())

    def _renumbered(self, modules):
        """Make ``modules`` the children, named by position again."""
        self._modules.clear()
        for index, module in enumerate(modules):
            self.add_module(str(index), module)

    def __getitem__(self, index):
        if isinstance(index, slice):     # a Sequential keeps the names, a list renumbers
            if isinstance(self, Sequential):
                return type(self)(OrderedDict(list(self._modules.items())[index]))
            return type(self)(list(self)[index])
        keys = list(self._modules)
        return self._modules[keys[_position(index, len(keys))]]

    def __setitem__(self, index, module):
        keys = list(self._modules)
        setattr(self, keys[_position(index, len(keys))], module)

    def __delitem__(self, index):
        modules = list(self._modules.values())
        if isinstance(index, slice):
            del modules[index]
        else:
            del modules[_position(index, len(modules))]
        self._renumbered(modules)

    def append(self, module):
        self.add_module(str(len(self)), module)
        return self

    def extend(self, modules):
        if not hasattr(modules, "__iter__"):
            raise TypeError(f"{type(self).__name__}.extend should be called with an iterable, "
                            f"but got {type(modules).__name__}")
        for module in modules:
            self.append(module)
        return self

    def insert(self, index, module):
        modules = list(self._modules.values())
        modules.insert(index, module)
        self._renumbered(modules)

    def pop(self, index=-1):
        module = self[index]
        del self[index]
        return module

    def __dir__(self):
        return [name for name in super().__dir__() if not name.isdigit()]


class Sequential(_Indexed):
    """Modules called one after another, each on the previous one's output.

    >>> model = ag.nn.Sequential(ag.nn.Linear(2, 3), ag.nn.ReLU())
    >>> model
    Sequential(
      (0): Linear(in_features=2, out_features=3, bias=True)
      (1): ReLU()
    )
    """

    def __init__(self, *args):
        super().__init__()
        if len(args) == 1 and isinstance(args[0], OrderedDict):
            for key, module in args[0].items():
                self.add_module(key, module)
        else:
            for index, module in enumerate(args):
                self.add_module(str(index), module)

    def forward(self, input):
        for module in self._modules.values():
            input = module(input)
        return input

    def __add__(self, other):
        if not isinstance(other, Sequential):
            raise ValueError("add operator supports only objects of Sequential class, but "
                             f"{type(other)} is given.")
        return Sequential(*self, *other)


class ModuleList(_Indexed):
    """A list of modules, registered as children "0", "1", ...; it has no forward."""

    def __init__(self, modules=None):
        super().__init__()
        if modules is not None:
            self.extend(modules)

    def __iadd__(self, modules):
        return self.extend(modules)

    def __add__(self, other):
        return ModuleList(list(self) + list(other))

    def __repr__(self):
        """Runs of equal children print once, as ``(0-2): 3 x Linear(...)``, as in torch."""
        reprs = [repr(module) for module in self]
        if not reprs:
            return type(self).__name__ + "()"
        lines, start = [], 0
        while start < len(reprs):
            end = start
            while end + 1 < len(reprs) and reprs[end + 1] == reprs[start]:
                end += 1
            text = _indented(reprs[start], 2)
            lines.append(f"({start}): {text}" if end == start
                         else f"({start}-{end}): {end - start + 1} x {text}")
            start = end + 1
        return type(self).__name__ + "(\n  " + "\n  ".join(lines) + "\n)"


class ModuleDict(Module):
    """A dict of modules, registered as children under their keys, in insertion order."""

    def __init__(self, modules=None):
        super().__init__()
        if modules is not None:
            self.update(modules)

    def __getitem__(self, key):
        return self._modules[key]

    def __setitem__(self, key, module):
        self.add_module(key, module)

    def __delitem__(self, key):
        del self._modules[key]

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules)

    def __contains__(self, key):
        return key in self._modules

    def clear(self):
        self._modules.clear()

    def pop(self, key):
        module = self[key]
        del self[key]
        return module

    def keys(self):
        return self._modules.keys()

    def items(self):
        return self._modules.items()

    def values(self):
        return self._modules.values()

    def update(self, modules):
        pairs = modules.items() if hasattr(modules, "items") else modules
        for key, module in pairs:
            self[key] = module


def _describe(value):
    """``Parameter containing: [autograd_cy.float32 of size 2x3]``, as torch's lists print."""
    if not isinstance(value, Tensor):
        return f"Object of type: {type(value).__name__}"
    size = "x".join(str(n) for n in value.shape)
    device = f" ({value.device})" if value.device.type == "cuda" else ""
    kind = "Parameter" if isinstance(value, Parameter) else "Tensor"
    return f"{kind} containing: [{value.dtype} of size {size}{device}]"


class ParameterList(Module):
    """A list of parameters, registered as "0", "1", ...; a plain tensor put in becomes a
    Parameter, as in torch."""

    def __init__(self, values=None):
        super().__init__()
        self._size = 0
        if values is not None:
            self.extend(values)

    def __len__(self):
        return self._size

    def __iter__(self):
        return (self[i] for i in range(len(self)))

    def __getitem__(self, index):
        if isinstance(index, slice):
            return ParameterList(list(islice(self, *index.indices(len(self)))))
        return getattr(self, str(_position(index, len(self))))

    def __setitem__(self, index, param):
        index = _position(index, len(self))
        if isinstance(param, Tensor) and not isinstance(param, Parameter):
            param = Parameter(param)
        setattr(self, str(index), param)

    def append(self, value):
        self._size += 1
        self[self._size - 1] = value
        return self

    def extend(self, values):
        for value in values:
            self.append(value)
        return self

    def __iadd__(self, values):
        return self.extend(values)

    def extra_repr(self):
        return "\n".join(f"  ({i}): {_describe(value)}" for i, value in enumerate(self))


class ParameterDict(Module):
    """A dict of parameters, registered under their keys; plain tensors become Parameters."""

    def __init__(self, parameters=None):
        super().__init__()
        self._keys = {}
        if parameters is not None:
            self.update(parameters)

    def __getitem__(self, key):
        return getattr(self, key)

    def __setitem__(self, key, value):
        self._keys[key] = None
        if isinstance(value, Tensor) and not isinstance(value, Parameter):
            value = Parameter(value)
        setattr(self, key, value)

    def __delitem__(self, key):
        del self._keys[key]
        delattr(self, key)

    def __len__(self):
        return len(self._keys)

    def __iter__(self):
        return iter(self._keys)

    def __contains__(self, key):
        return key in self._keys

    def keys(self):
        return self._keys.keys()

    def items(self):
        return ((key, self[key]) for key in self._keys)

    def values(self):
        return (self[key] for key in self._keys)

    def pop(self, key):
        value = self[key]
        del self[key]
        return value

    def update(self, parameters):
        pairs = parameters.items() if hasattr(parameters, "items") else parameters
        for key, value in pairs:
            self[key] = value

    def extra_repr(self):
        lines = []
        for key, value in self.items():
            if isinstance(value, Tensor):
                size = "x".join(str(n) for n in value.shape)
                kind = "Parameter" if isinstance(value, Parameter) else "Tensor"
                lines.append(f"  ({key}): {kind} containing: "
                             f"[autograd_cy.{value.dtype._tensor_type} of size {size}]")
            else:
                lines.append(f"  ({key}): Object of type: {type(value).__name__}")
        return "\n".join(lines)
