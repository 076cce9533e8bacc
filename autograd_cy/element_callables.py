"""``Tensor.apply_(callable)``, ``map_(other, callable)`` and ``map2_(x, y, callable)``: a
Python function called on each element (with the elements of ``other``, or ``x`` and
``y``, broadcast to ``self``'s shape, at the same position), its result written back in
place, in the logical row-major order of ``self``. CPU tensors only, none of them
requiring grad; nothing is recorded and the version is not bumped (torch writes the
memory directly).

The elements reach the function as Python numbers (``float``, ``int``, ``bool``,
``complex`` by dtype), and a result is stored as torch stores a Python number into a
tensor: a float dtype takes anything ``float()`` takes but a string (an overflow becomes
inf); an integer dtype an ``int``, or a ``float`` truncated, refusing what its range does
not hold (negative ints wrap into an unsigned dtype, as two's complement); bool the truth
of a number.

>>> import autograd_cy as ag
>>> ag.tensor([1.0, 2.0]).apply_(lambda v: v * 10)
tensor([10., 20.])
"""
import math
import operator

import numpy as np

from autograd_cy._C.tensor import Tensor, _array_of, _register_methods

_INT64 = (-2 ** 63, 2 ** 63 - 1)


def _real(value):
    """PyFloat_AsDouble's reading of ``value``."""
    if isinstance(value, float):
        return value
    kind = type(value)
    if not (hasattr(kind, "__float__") or hasattr(kind, "__index__")) or isinstance(
            value, complex):
        raise TypeError(f"must be real number, not {kind.__name__}")
    return float(value)


def _integer(value, dtype):
    """torch's store of a Python number into an integer tensor (c10's checked_convert)."""
    info = np.iinfo(dtype)
    name = dtype.name
    if isinstance(value, float):
        if math.isnan(value) or not info.min <= value <= info.max:
            raise RuntimeError(f"value cannot be converted to type {name} without overflow")
        return int(value)
    value = operator.index(value)
    if not _INT64[0] <= value <= _INT64[1]:
        raise ValueError("Overflow when unpacking long long")
    fits = info.min <= value <= info.max or (info.min == 0 and -value <= info.max)
    if not fits:
        raise RuntimeError(f"value cannot be converted to type {name} without overflow")
    return value % (info.max + 1) if info.min == 0 else value


def _boolean(value):
    if isinstance(value, (float, complex)):
        return bool(value)
    return bool(operator.index(value))


def _complex(value):
    if isinstance(value, complex):
        return value
    kind = type(value)
    if not any(hasattr(kind, name) for name in ("__complex__", "__float__", "__index__")):
        raise TypeError(f"must be real number, not {kind.__name__}")
    return complex(value)


def _store(dtype):
    """How a Python result becomes an element of ``dtype`` (a NumPy dtype)."""
    if dtype.kind == "b":
        return _boolean
    if dtype.kind in "iu":
        return lambda value: _integer(value, dtype)
    if dtype.kind == "c":
        return _complex
    return _real


def _check(self, name, **others):
    """torch's checks in its order: the arguments are tensors, none requires grad, each of
    ``self``'s type, all on the CPU."""
    for position, (argument, other) in enumerate(others.items(), 1):
        if not isinstance(other, Tensor):
            raise TypeError(f"{name}(): argument '{argument}' (position {position}) must be "
                            f"Tensor, not {type(other).__name__}")
    if any(t.requires_grad for t in (self, *others.values())):
        raise RuntimeError(f"Can't call {name}() on Variable that requires grad. Use "
                           f"var.detach().{name}() instead.")
    for argument, other in others.items():
        if other.type() != self.type():
            quoted = f"'{argument}'" if name == "map_" else f"argument '{argument}'"
            raise TypeError(f"{name}: expected {self.type()} for {quoted} (got "
                            f"{other.type()})")
    if any(t.is_cuda for t in (self, *others.values())):
        raise TypeError(f"{name} is only implemented on CPU tensors")


def _run(self, callable, others):
    array = _array_of(self)
    store = _store(array.dtype)
    sources = [_array_of(other.expand(self.shape)) for other in others]
    with np.errstate(over="ignore", invalid="ignore"):
        for index in np.ndindex(*array.shape):
            result = callable(array[index].item(), *(s[index].item() for s in sources))
            array[index] = store(result)
    return self


def apply_(self, callable):
    """Replace each element ``v`` by ``callable(v)``, in place (CPU only)."""
    _check(self, "apply_")
    return _run(self, callable, ())


def map_(self, other, callable):
    """Replace each element ``v`` by ``callable(v, w)``, ``w`` the element of ``other``
    (broadcast to ``self``, of ``self``'s type) at the same position (CPU only)."""
    _check(self, "map_", other=other)
    return _run(self, callable, (other,))


def map2_(self, x, y, callable):
    """Replace each element ``v`` by ``callable(v, a, b)``, ``a`` and ``b`` the elements of
    ``x`` and ``y`` (broadcast to ``self``, of ``self``'s type) there (CPU only)."""
    _check(self, "map2_", x=x, y=y)
    return _run(self, callable, (x, y))


_register_methods({"apply_": apply_, "map_": map_, "map2_": map2_})
