"""``atleast_1d``, ``atleast_2d``, ``atleast_3d``, ``hstack``, ``vstack`` (and its other
name ``row_stack``), ``dstack``, ``column_stack``, ``broadcast_to``, ``broadcast_tensors``
and ``broadcast_shapes``: tensors given the dims an op
needs, and joined along the classic axes, composed of views and ``cat`` as torch composes
them (their nodes are those ops': UnsqueezeBackward0, ViewBackward0, ExpandBackward0,
CatBackward0).

``atleast_Nd`` returns a tensor with enough dims as it is (the same tensor), else a view
with size-1 dims added: a 1-D ``(n,)`` becomes ``(1, n)`` and ``(1, n, 1)``, a 2-D
``(m, n)`` becomes ``(m, n, 1)``. ``vstack`` joins along dim 0 after ``atleast_2d``,
``hstack`` along dim 1 (dim 0 for 1-D tensors), ``dstack`` along dim 2 after
``atleast_3d``; ``column_stack`` makes 0-d and 1-D tensors columns first.

>>> import autograd_cy as ag
>>> ag.vstack([ag.tensor([1, 2]), ag.tensor([3, 4])])
tensor([[1, 2],
        [3, 4]])
>>> ag.column_stack([ag.tensor([1, 2]), ag.tensor([3, 4])])
tensor([[1, 3],
        [2, 4]])
"""
import autograd_cy as _ag
from autograd_cy._C.tensor import Size, Tensor, _register_methods

__all__ = ["atleast_1d", "atleast_2d", "atleast_3d", "hstack", "vstack", "row_stack",
           "dstack", "column_stack", "broadcast_to", "broadcast_tensors", "broadcast_shapes"]


def _each(function, tensors):
    """``function`` of one tensor, or of each of several (a tuple, as torch's)."""
    if len(tensors) == 1 and isinstance(tensors[0], Tensor):
        return function(tensors[0])
    if len(tensors) == 1:
        tensors = tensors[0]
    return tuple(function(t) for t in tensors)


def _at_least_1d(t):
    return t.reshape(1) if t.dim() == 0 else t


def _at_least_2d(t):
    if t.dim() == 0:
        return t.reshape(1, 1)
    return t.unsqueeze(0) if t.dim() == 1 else t


def _at_least_3d(t):
    if t.dim() == 0:
        return t.reshape(1, 1, 1)
    if t.dim() == 1:
        return t.unsqueeze(0).unsqueeze(-1)
    return t.unsqueeze(-1) if t.dim() == 2 else t


def atleast_1d(*tensors):
    """Each tensor with at least one dim (a 0-d one as ``(1,)``)."""
    return _each(_at_least_1d, tensors)


def atleast_2d(*tensors):
    """Each tensor with at least two dims (``(n,)`` as ``(1, n)``)."""
    return _each(_at_least_2d, tensors)


def atleast_3d(*tensors):
    """Each tensor with at least three dims (``(n,)`` as ``(1, n, 1)``, ``(m, n)`` as
    ``(m, n, 1)``)."""
    return _each(_at_least_3d, tensors)


def _check_nonempty(name, tensors):
    if not len(tensors):
        raise RuntimeError(f"{name} expects a non-empty TensorList")


def vstack(tensors):
    """The tensors joined along dim 0, 1-D ones as rows."""
    _check_nonempty("vstack", tensors)
    return _ag.cat([_at_least_2d(t) for t in tensors], 0)


row_stack = vstack


def hstack(tensors):
    """The tensors joined along dim 1 (along dim 0 when they are 1-D)."""
    _check_nonempty("hstack", tensors)
    tensors = [_at_least_1d(t) for t in tensors]
    return _ag.cat(tensors, 0 if tensors[0].dim() == 1 else 1)


def dstack(tensors):
    """The tensors joined along dim 2, after ``atleast_3d``."""
    _check_nonempty("dstack", tensors)
    return _ag.cat([_at_least_3d(t) for t in tensors], 2)


def column_stack(tensors):
    """The tensors joined along dim 1, 0-d and 1-D ones as columns."""
    _check_nonempty("column_stack", tensors)
    return _ag.cat([t.reshape(t.numel(), 1) if t.dim() <= 1 else t for t in tensors], 1)


def broadcast_to(input, size):
    """``input.expand(size)``: a view of ``input`` with the shape ``size``."""
    return input.expand(tuple(size)) if isinstance(size, (tuple, list)) else input.expand(size)


def broadcast_tensors(*tensors):
    """The tensors expanded to their common broadcast shape (views; a tensor of that shape
    already is returned as it is)."""
    if len(tensors) == 1 and not isinstance(tensors[0], Tensor):
        tensors = tuple(tensors[0])
    shape = ()
    for t in tensors:
        rank = max(len(shape), t.dim())
        a = (1,) * (rank - len(shape)) + tuple(shape)
        b = (1,) * (rank - t.dim()) + tuple(t.shape)
        for k, (m, n) in enumerate(zip(a, b)):
            if m != n and 1 not in (m, n):
                raise RuntimeError(f"The size of tensor a ({m}) must match the size of tensor "
                                   f"b ({n}) at non-singleton dimension {k}")
        shape = tuple(n if m == 1 else m for m, n in zip(a, b))
    return tuple(t if tuple(t.shape) == shape else t.expand(*shape) for t in tensors)


def broadcast_shapes(*shapes):
    """The shape that tensors of ``shapes`` broadcast to (an int is a 1-D shape), without
    making tensors."""
    rank = max((1 if isinstance(s, int) else len(s) for s in shapes), default=0)
    result = [1] * rank
    for index, shape in enumerate(shapes):
        sizes = (shape,) if isinstance(shape, int) else tuple(shape)
        for position in range(-1, -len(sizes) - 1, -1):
            size = sizes[position]
            if size < 0:
                raise ValueError("Attempting to broadcast a dimension with negative length!")
            if result[position] == 1:
                result[position] = size
            elif size not in (1, result[position]):
                shown = (shape,) if isinstance(shape, int) else shape
                raise RuntimeError(
                    f"Attempting to broadcast a dimension of length {size} at {position}! "
                    f"Mismatching argument at index {index} had {shown}; but expected shape "
                    f"should be broadcastable to {result}")
    return Size(result)


_register_methods({"broadcast_to": broadcast_to})
