"""``flip``, ``fliplr``, ``flipud``, ``roll`` and ``rot90``: the same entries in another order
along some dims, each in a new tensor (a copy, never a view), as torch's.

Each is one op with torch's node (``FlipBackward0``, ``RollBackward0``, ``Rot90Backward0``;
``fliplr`` and ``flipud`` are ``flip``). Each one's gradient is the inverse reordering of
the gradient (flip again, roll back, rotate back), through the same op, so it records for
a double backward; a tangent is reordered as the input.

>>> import autograd_cy as ag
>>> x = ag.arange(6).view(2, 3)
>>> x.flip(1)
tensor([[2, 1, 0],
        [5, 4, 3]])
>>> ag.roll(x, 1)
tensor([[5, 0, 1],
        [2, 3, 4]])
>>> x.rot90()
tensor([[2, 5],
        [1, 4],
        [0, 3]])
"""
import operator

import autograd_cy as _ag
from autograd_cy._C.ops.arguments import is_int
from autograd_cy._C.tensor import _register_methods
from autograd_cy.autograd.function import Function
from autograd_cy.factories import arange

__all__ = ["flip", "fliplr", "flipud", "roll", "rot90"]


# ------------------------------------------------------------------ arguments

def _ints(name, argument, value, position, int_ok):
    """A "tuple of ints" argument as torch's parser reads it (a lone int where ``int_ok``),
    with its TypeErrors; ``position`` None for a keyword."""
    where = "" if position is None else f" (position {position})"
    if int_ok and is_int(value):
        return (operator.index(value),)
    if not isinstance(value, (tuple, list)):
        raise TypeError(f"{name}(): argument '{argument}'{where} must be tuple of ints, not "
                        f"{type(value).__name__}")
    for i, item in enumerate(value):
        if is_int(item):
            continue
        if i == 0:
            raise TypeError(f"{name}(): argument '{argument}'{where} must be tuple of ints, "
                            f"but found element of type {type(item).__name__} at pos 0")
        raise TypeError(f"{name}(): argument '{argument}' failed to unpack the object at pos "
                        f"{i + 1} with error \"type must be tuple of ints,but got "
                        f"{type(item).__name__}\"")
    return tuple(operator.index(item) for item in value)


def _wrap(dim, ndim):
    """``dim`` made non-negative, with torch's IndexError when out of range (a 0-d tensor
    takes 0 and -1)."""
    rank = max(ndim, 1)
    if not -rank <= dim < rank:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-rank}, "
                         f"{rank - 1}], but got {dim})")
    return dim % rank


def _flip_dims(input, dims):
    wrapped = []
    for dim in dims:
        dim = _wrap(dim, input.dim())
        if dim in wrapped:
            raise RuntimeError(f"dim {dim} appears multiple times in the list of dims")
        wrapped.append(dim)
    return tuple(wrapped) if input.dim() else ()


# ------------------------------------------------------------------ the reorderings

def _flipped(input, dims):
    """A new tensor of ``input``'s layout holding its entries reversed along ``dims``."""
    reversed_ = input
    for dim in dims:
        size = input.shape[dim]
        if size > 1:
            reversed_ = reversed_.index_select(
                dim, arange(size - 1, -1, -1, device=input.device))
    if reversed_ is input:
        return input.clone()
    return reversed_ if input.is_contiguous() else input.clone().copy_(reversed_)


def _rolled(input, shift, dim):
    """``input``'s entries moved ``shift`` places along ``dim``, wrapping around."""
    size = input.shape[dim]
    shift = shift % size if size else 0
    if not shift:
        return input
    # the package's cat, which vmap reroutes through its batching rule
    tail, head = input.narrow(dim, size - shift, shift), input.narrow(dim, 0, size - shift)
    return _ag.cat([tail, head], dim)


def _roll(input, shifts, dims):
    """torch's roll: along each of ``dims`` by its shift, or by ``shifts[0]`` over the
    flattened tensor when ``dims`` is empty; a new contiguous tensor."""
    if not dims:
        out = _rolled(input.reshape(-1), shifts[0], 0).view(tuple(input.shape))
    else:
        out = input
        for shift, dim in zip(shifts, dims):
            out = _rolled(out, shift, dim)
    return _own(out.contiguous(), input)


def _own(out, input):
    """``out``, or a copy of it where it is ``input`` or a view (of it or of a step)."""
    return out.clone() if out is input or out._base is not None else out


def _rotated(input, k, dims):
    """torch's rot90: ``k`` quarter turns from ``dims[0]`` towards ``dims[1]``; an odd
    number of turns is a flip and a transpose, in a new tensor with the transposed strides
    (as torch's, which transposes its flip in place)."""
    first, second = dims
    k %= 4
    if k == 0:
        return _own(input.contiguous(), input)
    if k == 2:
        return _flipped(input, dims)
    return _flipped(input, (second,) if k == 1 else (first,)).transpose(first, second).clone()


class Flip(Function):
    """``flip``'s op (``FlipBackward0``): its gradient is the gradient flipped again."""
    builtin_op = True

    @staticmethod
    def forward(ctx, input, dims):
        ctx.dims = dims
        return _flipped(input, dims)

    @staticmethod
    def backward(ctx, grad):
        return Flip.apply(grad, ctx.dims), None

    @staticmethod
    def jvp(ctx, input_t, dims_t):
        return Flip.apply(input_t, ctx.dims)


class Roll(Function):
    """``roll``'s op (``RollBackward0``): its gradient is the gradient rolled back."""
    builtin_op = True

    @staticmethod
    def forward(ctx, input, shifts, dims):
        ctx.shifts, ctx.dims = shifts, dims
        return _roll(input, shifts, dims)

    @staticmethod
    def backward(ctx, grad):
        return Roll.apply(grad, tuple(-shift for shift in ctx.shifts), ctx.dims), None, None

    @staticmethod
    def jvp(ctx, input_t, shifts_t, dims_t):
        return Roll.apply(input_t, ctx.shifts, ctx.dims)


class Rot90(Function):
    """``rot90``'s op (``Rot90Backward0``): its gradient is the gradient turned back."""
    builtin_op = True

    @staticmethod
    def forward(ctx, input, k, dims):
        ctx.k, ctx.dims = k, dims
        return _rotated(input, k, dims)

    @staticmethod
    def backward(ctx, grad):
        return Rot90.apply(grad, -ctx.k, ctx.dims), None, None

    @staticmethod
    def jvp(ctx, input_t, k_t, dims_t):
        return Rot90.apply(input_t, ctx.k, ctx.dims)


# The nodes named as torch's (a Function's node is otherwise <Function>Backward).
Flip._backward_cls.__name__ = "FlipBackward0"
Roll._backward_cls.__name__ = "RollBackward0"
Rot90._backward_cls.__name__ = "Rot90Backward0"


# ------------------------------------------------------------------ functions and methods

def _flip(input, dims, position):
    return Flip.apply(input, _flip_dims(input, _ints("flip", "dims", dims, position, False)))


def flip(input, dims):
    """``input``'s entries in reverse order along each of ``dims``."""
    return _flip(input, dims, 2)


def _flip_method(self, *dims, **kwargs):
    """``x.flip(0, 1)``, ``x.flip((0, 1))`` or ``x.flip(dims=[0, 1])``."""
    if "dims" in kwargs:
        if dims:
            raise TypeError("flip() got multiple values for argument 'dims'")
        return _flip(self, kwargs.pop("dims"), None)
    if kwargs:
        raise TypeError(f"flip() got an unexpected keyword argument '{next(iter(kwargs))}'")
    if not dims:
        raise TypeError('flip() missing 1 required positional arguments: "dims"')
    if len(dims) == 1 and isinstance(dims[0], (tuple, list)):
        return _flip(self, dims[0], 1)
    if not is_int(dims[0]):
        if len(dims) > 1:
            raise TypeError(f"flip() takes 1 positional argument but {len(dims)} were given")
        return _flip(self, dims[0], 1)
    return _flip(self, dims, 1)


def fliplr(input):
    """``input`` flipped left to right: along dim 1 (of at least two)."""
    if input.dim() < 2:
        raise RuntimeError("Input must be >= 2-d.")
    return Flip.apply(input, (1,))


def flipud(input):
    """``input`` flipped upside down: along dim 0 (of at least one)."""
    if input.dim() < 1:
        raise RuntimeError("Input must be >= 1-d.")
    return Flip.apply(input, (0,))


def _roll_arguments(input, shifts, dims, position):
    shifts = _ints("roll", "shifts", shifts, position, True)
    dims = () if dims is None else _ints("roll", "dims", dims, position + 1, True)
    if not shifts:
        raise RuntimeError("`shifts` required")
    if len(shifts) != len(dims) and not (len(shifts) == 1 and not dims):
        raise RuntimeError(f"shifts and dimensions must align. shifts: {len(shifts)}, "
                           f"dims:{len(dims)}")
    if dims and not input.dim():
        raise IndexError(f"Dimension specified as {dims[0]} but tensor has no dimensions")
    return shifts, tuple(_wrap(dim, input.dim()) for dim in dims)


def roll(input, shifts, dims=None):
    """``input``'s entries moved ``shifts`` places along ``dims`` (each shift along its
    dim), wrapping around; with no ``dims``, over the flattened tensor."""
    return Roll.apply(input, *_roll_arguments(input, shifts, dims, 2))


def _roll_method(self, shifts, dims=None):
    """``x.roll(shifts, dims=None)``."""
    return Roll.apply(self, *_roll_arguments(self, shifts, dims, 1))


def _rot90_arguments(input, k, dims, position):
    if not is_int(k):
        where = "" if position is None else f" (position {position})"
        raise TypeError(f"rot90(): argument 'k'{where} must be int, not {type(k).__name__}")
    dims = _ints("rot90", "dims", dims, None if position is None else position + 1, False)
    if len(dims) != 2:
        raise RuntimeError(f"expected total rotation dims == 2, but got dims = {len(dims)}")
    if input.dim() < 2:
        raise RuntimeError(f"expected total dims >= 2, but got total dims = {input.dim()}")
    wrapped = tuple(_wrap(dim, input.dim()) for dim in dims)
    if wrapped[0] == wrapped[1]:            # torch words it with the dims as given
        raise RuntimeError(f"expected rotation dims to be different, but got dim0 = "
                           f"{dims[0]} and dim1 = {dims[1]}")
    return operator.index(k), wrapped


def rot90(input, k=1, dims=(0, 1)):
    """``input`` turned ``k`` quarter turns in the plane of ``dims``, from the first dim
    towards the second (a negative ``k`` turns the other way)."""
    return Rot90.apply(input, *_rot90_arguments(input, k, dims, 2))


def _rot90_method(self, k=1, dims=(0, 1)):
    """``x.rot90(k=1, dims=(0, 1))``."""
    return Rot90.apply(self, *_rot90_arguments(self, k, dims, 1))


_register_methods({"flip": _flip_method, "fliplr": fliplr, "flipud": flipud,
                   "roll": _roll_method, "rot90": _rot90_method})
