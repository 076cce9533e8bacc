"""``put`` / ``put_`` and ``index_reduce`` / ``index_reduce_``: writes at indices, as
compositions of the ops that already write at indices, each under torch's node
(``PutBackward0``, ``IndexReduceBackward0``: NOTE [An op that differentiates its
composition]).

- ``put(index, source, accumulate)``: ``input`` read as one flat row, ``source``'s values
  written (or added) at the flat positions ``index`` names: an ``index_put`` on the
  flattened tensor.
- ``index_reduce(dim, index, source, reduce, include_self)``: slice ``i`` of ``source``
  along ``dim`` reduced ("prod", "mean", "amax", "amin") into slice ``index[i]`` of
  ``input``: a ``scatter_reduce`` whose index is ``index`` spread over the slices; its
  gradients are scatter_reduce's (NOTE [scatter_reduce's gradients]).

>>> import autograd_cy as ag
>>> ag.zeros(2, 2).put(ag.tensor([0, 3]), ag.tensor([1.0, 2.0]))
tensor([[1., 0.],
        [0., 2.]])
"""
import warnings

from autograd_cy._C.ops.inplace import apply_in_place
from autograd_cy._C.tensor import _register_methods
from autograd_cy.composed_ops import ComposedOp
from autograd_cy.reorder import _wrap
from autograd_cy.scatter_reduce import ScatterReduce

__all__ = ["index_reduce"]
__tensor_methods__ = ["put", "put_", "index_reduce", "index_reduce_"]


class Put(ComposedOp):
    """``put``'s op (``PutBackward0``)."""


class IndexReduce(ComposedOp):
    """``index_reduce``'s op (``IndexReduceBackward0``, which saves its result)."""
    saves_result = True


Put._backward_cls.__name__ = "PutBackward0"
IndexReduce._backward_cls.__name__ = "IndexReduceBackward0"


def put(self, index, source, accumulate=False):
    """``self`` with ``source``'s values at the flat positions ``index`` (added to the old
    values with ``accumulate``)."""
    if source.dtype != self.dtype:
        raise RuntimeError(f"put_(): self and source expected to have the same dtype, but got "
                           f"self.dtype = {self.dtype._scalar_name} and source.dtype = "
                           f"{source.dtype._scalar_name}")
    count = self.numel()
    flat_index = index.reshape(-1)
    if flat_index.numel():
        low, high = int(flat_index.min()), int(flat_index.max())
        for value in (low, high):
            if not -count <= value < count:
                raise IndexError(f"out of range: tried to access index {value} on a tensor "
                                 f"of {count} elements.")
    if source.numel() != flat_index.numel():
        raise RuntimeError(f"put_(): Expected source and index to have the same number of "
                           f"elements, but got source.numel() = {source.numel()}, "
                           f"index.numel() = {flat_index.numel()}")
    return Put.apply(lambda input, values: input.reshape(-1).index_put(
        (flat_index,), values.reshape(-1), accumulate).reshape(input.shape), self, source)


def put_(self, index, source, accumulate=False):
    """``put`` in place."""
    return apply_in_place(self, lambda current: put(current, index, source, accumulate),
                          (index, source))


_REDUCTIONS = ("prod", "mean", "amax", "amin")


def _check_index_reduce(self, dim, index, source, reduce):
    if reduce not in _REDUCTIONS:
        raise RuntimeError(f"index_reduce(): Expected reduce to be one of prod, mean, amax or "
                           f"amin but got {reduce}.")
    if index.dim() > 1:
        raise IndexError(f"index_reduce_(): Index is supposed to be a vector, but got dim: "
                         f"{index.dim()} with type: {index.dtype._scalar_name} and size: "
                         f"{list(index.shape)}")
    if index.dtype.is_floating_point or index.dtype.is_complex or index.dtype.itemsize < 4:
        raise RuntimeError(f"index_reduce_(): Expected dtype int32/int64 for index but got: "
                           f"{index.dtype._scalar_name}")
    self_rest = [size for d, size in enumerate(self.shape) if d != dim]
    source_rest = [size for d, size in enumerate(source.shape) if d != dim]
    if self.dim() != max(source.dim(), 1) and self.dim() or self_rest != source_rest:
        raise RuntimeError(f"source tensor shape must match self tensor shape, excluding the "
                           f"specified dimension. Got self.shape = {list(self.shape)} "
                           f"source.shape = {list(source.shape)}")
    length = self.shape[dim] if self.dim() else 1
    if index.numel() and not -length <= int(index.min()) <= int(index.max()) < length:
        raise IndexError("index out of range in self")


def _refuse_index_reduce_dtype(input, index, reduce, include_self):
    """torch's CPU refusals of complex and bool tensors: the initialisation without
    ``include_self`` refuses both; then a tensor of more than one dim is reduced slice by
    slice with maximum/minimum/div (complex amax/amin and a bool mean refused where any
    slice is), one of at most one dim by a kernel that refuses both."""
    dtype = input.dtype
    is_bool = dtype.itemsize == 1 and dtype._scalar_name == "Bool"
    if not (dtype.is_complex or is_bool):
        return
    kernel = None
    if not include_self:
        kernel = "index_reduce_func_exclude_input_init"
    elif input.dim() <= 1:
        kernel = "index_func_"
    elif index.numel() and dtype.is_complex and reduce in ("amax", "amin"):
        kernel = "maximum_cpu" if reduce == "amax" else "minimum_cpu"
    elif index.numel() and is_bool and reduce == "mean":
        kernel = "div_floor_cpu"
    if kernel is not None:
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{dtype._scalar_name}'")


def index_reduce(input, dim, index, source, reduce, *, include_self=True):
    """``input`` with each slice ``i`` of ``source`` along ``dim`` reduced into slice
    ``index[i]`` ("prod", "mean", "amax" or "amin"; ``input``'s own values taking part
    unless ``include_self=False``)."""
    warnings.warn("index_reduce() is in beta and the API may change at any time.",
                  UserWarning, stacklevel=2)
    dim = _wrap(dim, input.dim())
    _check_index_reduce(input, dim, index, source, reduce)
    _refuse_index_reduce_dtype(input, index, reduce, include_self)
    if input.dim() == 0:
        spread = index.reshape(source.shape)
    else:
        shape = [1] * source.dim()
        shape[dim] = -1
        spread = (index % input.shape[dim]).reshape(shape).expand(source.shape)
    return IndexReduce.apply(lambda values, sources: ScatterReduce.apply(
        values, dim, spread, sources, reduce, include_self, "index_reduce"), input, source)


def index_reduce_(self, dim, index, source, reduce, *, include_self=True):
    """``index_reduce`` in place."""
    return apply_in_place(self, lambda current: index_reduce(
        current, dim, index, source, reduce, include_self=include_self), (index, source))


_register_methods({name: globals()[name] for name in __tensor_methods__})
