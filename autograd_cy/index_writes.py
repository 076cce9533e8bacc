"""``take``, ``index_fill`` and ``index_copy``: entries read from, or slices written into,
a tensor by an index tensor, each one op with torch's node (``TakeBackward0``,
``IndexFillBackward0`` / ``IndexFillBackward1`` with a 0-d tensor value,
``IndexCopyBackward0``).

- ``take(x, index)`` reads the flattened ``x`` at ``index`` (its gradient is an
  ``index_add`` of the gradient into zeros, so repeated indices add);
- ``index_fill(x, dim, index, value)`` writes ``value`` into the slices ``index`` of
  ``dim``: those slices get no gradient (the value's is their sum, for a tensor value);
- ``index_copy(x, dim, index, source)`` writes ``source``'s slices there: ``x`` gets the
  gradient with zeros in those slices, ``source`` the gradient's slices.

All write through ``index_select`` / ``index_add`` / ``index_fill`` again, which record, so
a double backward differentiates them.

>>> import autograd_cy as ag
>>> ag.tensor([[1, 2], [3, 4]]).take(ag.tensor([0, 3]))
tensor([1, 4])
"""
import autograd_cy as _ag
from autograd_cy._C.tensor import Tensor, _array_of, _register_methods, _wrap_array
from autograd_cy.autograd.function import Function
from autograd_cy.reorder import _wrap

__all__ = ["take", "index_fill", "index_copy"]


class Take(Function):
    """``take``'s op (``TakeBackward0``)."""
    builtin_op = True

    @staticmethod
    def forward(ctx, input, index):
        ctx.shape = tuple(input.shape)
        # the input too, unread, as torch's node saves self: writing it in place afterwards
        # makes the backward refuse
        ctx.save_for_backward(index, input)
        ctx.save_for_forward(index)
        taken = input.reshape(-1).index_select(0, index.reshape(-1)).reshape(index.shape)
        return _wrap_array(_array_of(taken))      # no view: an in-place op may write it

    @staticmethod
    def backward(ctx, grad):
        index = ctx.saved_tensors[0]
        flat = _ag.zeros(_numel(ctx.shape), dtype=grad.dtype, device=grad.device)
        flat = flat.index_add(0, index.reshape(-1), grad.reshape(-1))
        return flat.reshape(ctx.shape), None

    @staticmethod
    def jvp(ctx, input_t, index_t):
        (index,) = ctx.saved_tensors
        return input_t.reshape(-1).index_select(0, index.reshape(-1)).reshape(index.shape)


def _numel(shape):
    count = 1
    for size in shape:
        count *= size
    return count


def _filled(input, dim, index, value):
    """(the mask of the slices ``index`` of ``dim``, ``input`` with them set to ``value``)."""
    if input.dim():
        shape = [1] * input.dim()
        shape[dim] = input.shape[dim]
        mask = _slice_mask(_ag.zeros(shape, dtype=_ag.bool, device=input.device), dim, index)
    else:
        mask = _ag.ones((), dtype=_ag.bool, device=input.device)
    if isinstance(value, Tensor):
        value = value.to(input.dtype)
    else:
        value = _ag.tensor(value, dtype=input.dtype, device=input.device)
    return mask, _ag.where(mask, value, input)


def _slice_mask(mask, dim, index):
    """A bool mask, True at the positions ``index`` along ``dim``."""
    flags = _ag.zeros(mask.shape[dim], dtype=_ag.int64, device=mask.device)
    flags = flags.index_add(0, index.reshape(-1), _ag.ones(index.numel(), dtype=_ag.int64,
                                                           device=mask.device))
    shape = [1] * mask.dim()
    shape[dim] = mask.shape[dim]
    return (flags > 0).reshape(shape)


class IndexFill(Function):
    """``index_fill`` with a number (``IndexFillBackward0``)."""
    builtin_op = True

    @staticmethod
    def forward(ctx, input, dim, index, value):
        mask, out = _filled(input, dim, index, value)
        ctx.save_for_backward(mask)
        ctx.save_for_forward(mask)
        return out

    @staticmethod
    def backward(ctx, grad):
        (mask,) = ctx.saved_tensors
        return _ag.where(mask, grad.new_zeros(()), grad), None, None, None

    @staticmethod
    def jvp(ctx, input_t, *unused):
        (mask,) = ctx.saved_tensors
        return _ag.where(mask, input_t.new_zeros(()), input_t)


class IndexFillTensor(Function):
    """``index_fill`` with a 0-d tensor value (``IndexFillBackward1``)."""
    builtin_op = True

    @staticmethod
    def forward(ctx, input, dim, index, value):
        mask, out = _filled(input, dim, index, value.detach())
        ctx.save_for_backward(mask)
        ctx.save_for_forward(mask)
        return out

    @staticmethod
    def backward(ctx, grad):
        (mask,) = ctx.saved_tensors
        zero = grad.new_zeros(())
        return (_ag.where(mask, zero, grad), None, None,
                _ag.where(mask, grad, zero).sum())

    @staticmethod
    def jvp(ctx, input_t, dim_t, index_t, value_t):
        (mask,) = ctx.saved_tensors
        value_t = 0 if value_t is None else value_t
        if input_t is None:
            return _ag.where(mask, value_t * mask.to(value_t.dtype), 0)
        return _ag.where(mask, value_t + input_t * 0, input_t)


class IndexCopy(Function):
    """``index_copy``'s op (``IndexCopyBackward0``)."""
    builtin_op = True

    @staticmethod
    def forward(ctx, input, dim, index, source):
        ctx.dim, ctx.source_shape = dim, tuple(source.shape)
        mask, _ = _filled(input, dim, index, 0)
        kept = _ag.where(mask, input.new_zeros(()), input)
        ctx.save_for_backward(mask, index)
        ctx.save_for_forward(mask, index)
        return kept.index_add(dim, index, _as_rank_of(source, input))

    @staticmethod
    def backward(ctx, grad):
        mask, index = ctx.saved_tensors
        grad_input = _ag.where(mask, grad.new_zeros(()), grad)
        return grad_input, None, None, grad.index_select(ctx.dim, index).reshape(
            ctx.source_shape)

    @staticmethod
    def jvp(ctx, input_t, dim_t, index_t, source_t):
        mask, index = ctx.saved_tensors
        kept = 0 if input_t is None else _ag.where(mask, input_t.new_zeros(()), input_t)
        if source_t is None:
            return kept
        base = kept if isinstance(kept, Tensor) else _ag.zeros(
            mask.shape, dtype=source_t.dtype, device=source_t.device)
        return base.index_add(ctx.dim, index, _as_rank_of(source_t, base))


def _as_rank_of(source, input):
    """``source`` of ``input``'s rank: a 0-dim one and a one-element vector stand for each
    other where either side is 0-dim (index_copy's slices are then both empty)."""
    if source.dim() == input.dim():
        return source
    return source.reshape(()) if input.dim() == 0 else source.reshape(1)


Take._backward_cls.__name__ = "TakeBackward0"
IndexFill._backward_cls.__name__ = "IndexFillBackward0"
IndexFillTensor._backward_cls.__name__ = "IndexFillBackward1"
IndexCopy._backward_cls.__name__ = "IndexCopyBackward0"


def take(input, index):
    """The entries of the flattened ``input`` at ``index``, in ``index``'s shape."""
    size = input.numel()
    if index.numel() and (int(index.max()) >= size or int(index.min()) < -size):
        bad = int(index.max()) if int(index.max()) >= size else int(index.min())
        raise IndexError(f"out of range: tried to access index {bad} on a tensor of {size} "
                         f"elements.")
    return Take.apply(input, _ag.remainder(index, size) if index.numel() else index)


def index_fill(input, dim, index, value):
    """A copy of ``input`` with the slices ``index`` of ``dim`` filled with ``value``."""
    dim = _wrap(dim, input.dim())
    if isinstance(value, Tensor):
        return IndexFillTensor.apply(input, dim, index, value)
    return IndexFill.apply(input, dim, index, value)


def index_copy(input, dim, index, source):
    """A copy of ``input`` with ``source``'s slices written at the slices ``index`` of
    ``dim``."""
    if source.dtype != input.dtype:
        raise RuntimeError(f"index_copy_(): self and source expected to have the same dtype, "
                           f"but got (self) {input.dtype._scalar_name} and (source) "
                           f"{source.dtype._scalar_name}")
    count = index.numel()
    if index.dim() > 1:
        raise IndexError(f"index_copy_(): Index should have dimension 1 or 0 (got "
                         f"{index.dim()})")
    if source.dim() == 0 and count != 1:
        raise IndexError(f"index_copy_(): When source is scalar, index should have one "
                         f"element (got {count})")
    if source.dim() != input.dim() and source.dim() and input.dim():
        raise IndexError(f"index_copy_(): When source and destination are not scalars, their "
                         f"dimensionality must match. Source dimensionality ({source.dim()}),"
                         f" destination dimensionality ({input.dim()})")
    dim = _wrap(dim, input.dim())
    slices = [[n for k, n in enumerate(t.shape) if k != dim] for t in (input, source)]
    if slices[0] != slices[1]:
        raise RuntimeError(
            f"index_copy_(): Source/destination tensor must have same slice shapes. "
            f"Destination slice shape: {' '.join(map(str, slices[0]))} at dimension {dim} "
            f"and source slice shape: {' '.join(map(str, slices[1]))} at dimension 0.")
    if source.dim() and count != source.shape[dim]:
        raise IndexError(f"index_copy_(): Number of indices ({count}) should be "
                         f"equal to source.size(dim) ({source.shape[dim]})")
    return IndexCopy.apply(input, dim, index, source)


_register_methods({"take": take, "index_fill": index_fill, "index_copy": index_copy})
