"""``embedding_bag``: the rows of a weight matrix looked up and reduced per bag, as in
PyTorch.

A bag is a run of indices: the rows of a 2-D ``input``, or the slices of a 1-D ``input``
that ``offsets`` starts. Each bag's rows of ``weight`` are summed (``mode='sum'``, each
row scaled by its ``per_sample_weights`` when given), averaged (``'mean'``) or reduced by
their column-wise maximum (``'max'``). ``padding_idx``'s row takes no part in a bag (nor
in the count of a mean); a bag with no row left gives zeros.

>>> import autograd_cy as ag
>>> import autograd_cy.nn.functional as F
>>> weight = ag.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
>>> F.embedding_bag(ag.tensor([0, 2, 1]), weight, ag.tensor([0, 2]), mode="sum")
tensor([[6., 8.],
        [3., 4.]])
"""
import warnings

import autograd_cy as _ag
from autograd_cy.nn.embedding import _renorm_rows, _tensor_type

__all__ = ["embedding_bag"]

_MODES = ("sum", "mean", "max")


class EmbeddingBag(_ag.autograd.Function):
    """The bags' reductions of NOTE [Embedding bags as kept rows]; the backward adds the
    output's gradient rows into the weight's rows with ``index_add`` (``per_sample_weights``
    gets each kept row's dot product with its bag's gradient). Both are Tensor ops of the
    gradient, the saved weight and ``per_sample_weights``, so they record for double
    backward."""
    builtin_op = True

    @staticmethod
    def forward(ctx, weight, per_sample_weights, kept, bags, num_bags, mode,
                scale_grad_by_freq, indices):
        ctx.save_for_backward(weight, per_sample_weights)
        ctx.kept, ctx.bags, ctx.num_bags, ctx.mode = kept, bags, num_bags, mode
        ctx.scale_grad_by_freq, ctx.indices = scale_grad_by_freq, indices
        ctx.num_indices = indices.shape[0]
        picked = weight.index_select(0, kept[1])
        if mode == "max":
            ctx.argmax = _bag_argmax(picked, bags, num_bags)
            padded = _ag.cat([picked, picked.new_zeros((1, weight.shape[1]))])
            return padded.gather(0, ctx.argmax)
        coefficients = _coefficients(ctx, per_sample_weights, picked.dtype)
        out = _ag.zeros(num_bags, weight.shape[1], dtype=weight.dtype, device=weight.device)
        return out.index_add(0, bags, picked * coefficients.unsqueeze(1))

    @staticmethod
    def backward(ctx, grad):
        weight, per_sample_weights = ctx.saved_tensors
        positions, rows = ctx.kept
        grad_weight = grad_samples = None
        if ctx.mode == "max":     # each chosen row gets its bag's gradient; others none
            picked_grad = grad.new_zeros((rows.shape[0] + 1, grad.shape[1]))
            picked_grad = picked_grad.scatter_add(0, ctx.argmax, grad)[:-1]
        else:                       # each kept row gets its bag's gradient
            picked_grad = grad.index_select(0, ctx.bags)
        if ctx.needs_input_grad[0]:
            scaled = picked_grad
            if ctx.mode != "max":
                coefficients = _coefficients(ctx, per_sample_weights, grad.dtype)
                scaled = scaled * coefficients.unsqueeze(1)
            if ctx.scale_grad_by_freq:
                scaled = scaled / _frequencies(ctx, weight, grad.dtype)
            grad_weight = _ag.zeros(weight.shape, dtype=grad.dtype, device=grad.device)
            grad_weight = grad_weight.index_add(0, rows, scaled)
        if per_sample_weights is not None and ctx.needs_input_grad[1]:
            products = (picked_grad * weight.index_select(0, rows)).sum(1)
            grad_samples = _ag.zeros(ctx.num_indices, dtype=grad.dtype, device=grad.device)
            grad_samples = grad_samples.index_add(0, positions, products)
        return grad_weight, grad_samples, None, None, None, None, None, None


# The node named as torch's (a Function's node is otherwise <Function>Backward).
EmbeddingBag._backward_cls.__name__ = "EmbeddingBagBackward0"


# NOTE [Embedding bags as kept rows]
# The indices that count are kept, with the position each has in ``input`` and the bag it
# falls in: those not ``padding_idx`` and (``include_last_offset``) not past the last
# offset. Every reduction then runs over the kept rows alone, so a padding row's values,
# even inf or NaN, never reach a bag. 'sum' and 'mean' are an ``index_add`` of the kept
# rows, scaled by ``per_sample_weights`` or by one over the bag's kept count. 'max' keeps,
# per bag and column, the kept row torch's kernel keeps: it walks the bag and takes a row
# only when its value is greater than the maximum so far, so the first of equal values
# wins and a NaN wins only as the bag's first value (after it nothing is greater). That is
# the NaN-ignoring maximum and its first position, unless the bag's first value is NaN.
# The chosen rows are numbered in the kept order, one past the last for an empty bag,
# whose row is a row of zeros: the output is a gather, its gradient a ``scatter_add``.
#
# Two readings differ from torch 2.13's CPU kernels on purpose. With include_last_offset,
# indices past the last offset belong to the last bag (torch's float64 kernel; its float32
# kernel drops them from the sum but not from the mean's count, and leaves their rows'
# gradient uninitialized). scale_grad_by_freq divides each row's gradient by its index's
# count, as F.embedding does (torch's kernel divides the k-th distinct index's gradient by
# the count of the k-th smallest index, repeats included).


def _coefficients(ctx, per_sample_weights, dtype):
    """Each kept row's factor in its bag's sum: its per-sample weight, or one over its
    bag's count for 'mean', else one."""
    positions, rows = ctx.kept
    if per_sample_weights is not None:
        return per_sample_weights.index_select(0, positions)
    ones = _ag.ones(rows.shape[0], dtype=dtype, device=rows.device)
    if ctx.mode == "sum":
        return ones
    counts = _ag.zeros(ctx.num_bags, dtype=dtype, device=rows.device).index_add(
        0, ctx.bags, ones)
    return 1 / counts.index_select(0, ctx.bags)


def _frequencies(ctx, weight, dtype):
    """For ``scale_grad_by_freq``: each kept row's index's count among all the indices, as
    a column."""
    indices = ctx.indices
    ones = _ag.ones(indices.shape[0], dtype=dtype, device=indices.device)
    counts = _ag.zeros(weight.shape[0], dtype=dtype, device=indices.device).index_add(
        0, indices, ones)
    return counts.index_select(0, ctx.kept[1]).unsqueeze(1)


def _bag_argmax(picked, bags, num_bags):
    """Per bag and column, the kept position of torch's maximum (NOTE [Embedding bags as
    kept rows]); ``len(picked)`` for an empty bag."""
    count, columns = picked.shape
    where = bags.unsqueeze(1).expand(count, columns)
    values = picked.masked_fill(picked.isnan(), float("-inf"))
    top = _ag.full((num_bags, columns), float("-inf"), dtype=picked.dtype,
                   device=picked.device).scatter_reduce(0, where, values, "amax")
    order = _ag.arange(count, device=picked.device)
    hits = values.eq(top.gather(0, where))
    candidates = order.unsqueeze(1).expand(count, columns).masked_fill(~hits, count)
    argmax = _ag.full((num_bags, columns), count, dtype=_ag.int64,
                      device=picked.device).scatter_reduce(0, where, candidates, "amin")
    first = _ag.full((num_bags,), count, dtype=_ag.int64, device=picked.device)
    first = first.scatter_reduce(0, bags, order, "amin")
    nonempty = first.lt(count)
    starts_nan = _ag.zeros((num_bags, columns), dtype=_ag.bool, device=picked.device)
    starts_nan[nonempty] = picked.index_select(0, first[nonempty]).isnan()
    return _ag.where(starts_nan, first.unsqueeze(1).expand(num_bags, columns), argmax)


def embedding_bag(input, weight, offsets=None, max_norm=None, norm_type=2,
                  scale_grad_by_freq=False, mode="mean", sparse=False,
                  per_sample_weights=None, include_last_offset=False, padding_idx=None):
    """Per bag of indices of ``input``, the sum, mean or maximum of their rows of ``weight``
    (``(num_embeddings, embedding_dim)``): an output of shape ``(bags, embedding_dim)``.

    A 2-D ``input`` is one bag per row; a 1-D one is cut into bags where ``offsets``
    starts them (``include_last_offset``: its last element ends the last bag).
    ``per_sample_weights`` (shape of ``input``, ``mode='sum'`` only) scales each row.
    ``padding_idx``'s row takes no part; an empty bag gives zeros. ``max_norm`` first
    rescales in place (outside autograd, as torch does) each picked row whose
    ``norm_type``-norm exceeds it.
    """
    if weight.dtype == _ag.int64 and input.is_floating_point():
        warnings.warn("Argument order of nn.functional.embedding_bag was changed. Usage "
                      "`embedding_bag(weight, input, ...)` is deprecated, and should now be "
                      "`embedding_bag(input, weight, ...)`.", stacklevel=2)
        weight, input = input, weight
    if per_sample_weights is not None and input.shape != per_sample_weights.shape:
        raise ValueError(f"embedding_bag: If per_sample_weights ({per_sample_weights.shape})"
                         " is not None, then it must have the same shape as the input "
                         f"({input.shape})")
    if weight.dim() != 2:
        raise ValueError(f"weight has to be a 2D Tensor, but got Tensor of dimension "
                         f"{weight.dim()}")
    if input.dim() == 2:
        if offsets is not None:
            raise ValueError("if input is 2D, then offsets has to be None, as input is "
                             "treated is a mini-batch of fixed length sequences. However, "
                             f"found offsets of type {type(offsets)}")
        offsets = _ag.arange(0, input.numel(), input.shape[1], dtype=input.dtype,
                             device=input.device)
        include_last_offset = False
        input = input.reshape(-1)
        if per_sample_weights is not None:
            per_sample_weights = per_sample_weights.reshape(-1)
    elif input.dim() == 1:
        if offsets is None:
            raise ValueError("offsets has to be a 1D Tensor but got None")
        if offsets.dim() != 1:
            raise ValueError("offsets has to be a 1D Tensor")
    else:
        raise ValueError(f"input has to be 1D or 2D Tensor, but got Tensor of dimension "
                         f"{input.dim()}")
    if mode not in _MODES:
        raise ValueError("mode has to be one of sum, mean or max")
    if mode == "max" and scale_grad_by_freq:
        raise ValueError("max mode does not support scaling the gradient by the frequency")
    if mode == "max" and sparse:
        raise ValueError("max mode does not support sparse weights")
    if sparse:
        raise NotImplementedError("embedding_bag: sparse=True (a sparse gradient) is not "
                                  "supported; autograd_cy has no sparse tensors")
    if max_norm is not None:
        _renorm_rows(weight, input, max_norm, norm_type)
    if per_sample_weights is not None and mode != "sum":
        raise NotImplementedError(
            "embedding_bag: per_sample_weights was not None. per_sample_weights is only "
            f"supported for mode='sum' (got mode='{mode}'). Please open a feature request "
            "on GitHub.")
    indices, offsets, padding_idx = _checked(input, weight, offsets, per_sample_weights,
                                             include_last_offset, padding_idx, mode)
    kept, bags, num_bags = _kept(indices, offsets, include_last_offset, padding_idx)
    return EmbeddingBag.apply(weight, per_sample_weights, kept, bags, num_bags, mode,
                              scale_grad_by_freq, indices)


def _checked(indices, weight, offsets, per_sample_weights, include_last_offset,
             padding_idx, mode="sum"):
    """ATen's checks of ``embedding_bag``'s arguments; the indices and offsets as int64,
    ``padding_idx`` as a row number (-1 for none)."""
    common = _ag.promote_types(indices.dtype, offsets.dtype)
    if common not in (_ag.int64, _ag.int32):
        name = _tensor_type(_ag.empty(0, dtype=common, device=indices.device))
        raise RuntimeError(
            "Expected tensor for argument #1 'indices' to have one of the following scalar "
            f"types: Long, Int; but got {name} instead (while checking arguments for "
            "embedding_bag)")
    if weight.dtype not in (_ag.float16, _ag.bfloat16, _ag.float32, _ag.float64):
        raise RuntimeError(
            "Expected tensor for argument #1 'weight' to have one of the following scalar "
            f"types: Half, BFloat16, Float, Double; but got {_tensor_type(weight)} instead "
            "(while checking arguments for embedding_bag)")
    if per_sample_weights is not None and per_sample_weights.dtype != weight.dtype:
        raise RuntimeError(
            "Expected tensor for argument #1 'weight' to have the same type as tensor for "
            f"argument #1 'per_sample_weights'; but type {_tensor_type(weight)} does not "
            f"equal {_tensor_type(per_sample_weights)} (while checking arguments for "
            "embedding_bag)")
    num_weights = weight.shape[0]
    if padding_idx is None:
        padding_idx = -1
    elif -num_weights <= padding_idx < num_weights:
        padding_idx %= num_weights
    else:
        raise RuntimeError(f"padding_idx must be within the number of embeddings, "
                           f"{-num_weights} through {num_weights - 1}, but got {padding_idx}")
    if include_last_offset and offsets.numel() < 1:
        raise RuntimeError("include_last_offset: number of offset should be at least 1")
    starts = [int(v) for v in offsets.tolist()]
    if starts and starts[0] != 0:
        raise RuntimeError(
            "offsets[0] has to be 0, i.e., the first sequence in the mini-batch has to "
            f"start from position 0. However, got {starts[0]}")
    if starts and starts[-1] > indices.numel():
        raise RuntimeError(f"offsets[-1] can not be greater than input's length "
                           f"{indices.numel()} but got offsets[-1] of {starts[-1]}")
    if any(later < earlier for earlier, later in zip(starts, starts[1:])):
        raise RuntimeError("Expected i < index_size to be true, but got false.  (Could this "
                           "error message be improved?  If so, please report an "
                           "enhancement request to PyTorch.)")
    indices = indices.to(_ag.int64)
    if indices.numel():
        bad = (indices.lt(0) | indices.ge(num_weights)).nonzero().reshape(-1)
        if bad.numel():
            position = int(bad[0])
            value = int(indices[position])
            # ATen's CPU kernels word it two ways: its index-select fast path (sum or mean
            # over float/half/bfloat16 rows, no padding_idx) and every other path
            if mode == "max" or padding_idx >= 0 or weight.dtype == _ag.float64:
                raise RuntimeError("embedding_bag: Expected idx >= 0 && idx < num_embeddings "
                                   f"but found idx to be {value}")
            raise RuntimeError(f"Index {position} of input takes value {value} which is not "
                               f"in the valid range [0, {num_weights})")
    return indices, offsets.to(_ag.int64), padding_idx


def _kept(indices, offsets, include_last_offset, padding_idx):
    """The kept indices of NOTE [Embedding bags as kept rows]: ``(positions, rows)``, the
    bag of each, and the number of bags."""
    num_bags = offsets.shape[0] - (1 if include_last_offset else 0)
    keep = indices.ne(padding_idx)
    if num_bags == 0:
        keep = keep & False
    starts = offsets[:-1] if include_last_offset else offsets
    positions = keep.nonzero().reshape(-1)
    bags = _ag.searchsorted(starts, positions, right=True) - 1
    return (positions, indices.index_select(0, positions)), bags, num_bags


# NOTE [torch.embedding_bag's auxiliary outputs]
# The ATen form returns, besides the output, three int tensors its backward reads; their
# values are those of torch's CPU kernel:
# - offset2bag: each index's bag (a cumulative sum of the bag starts), or nothing (size 0)
#   for mode sum on the kernel's fast path (a float32/half weight, no padding_idx, and
#   per_sample_weights, when given, contiguous);
# - bag_size: for mean and max (or with a weight that requires grad) each bag's length
#   from the offsets (the last bag runs to the end of the indices, whatever the last
#   offset with include_last_offset), less its padding_idx entries for mean and max; zeros
#   for sum (one per offset when no gradient is wanted);
# - max_indices: for max, per bag and column, the weight row of the first maximum (0 for
#   an empty bag); for sum and mean, a copy of bag_size.

_MODE_NUMBERS = {0: "sum", 1: "mean", 2: "max"}


def _auxiliary(weight, indices, offsets, mode, per_sample_weights, include_last_offset,
               padding_idx, kind):
    """offset2bag, bag_size and max_indices as torch's CPU kernel computes them."""
    import numpy as np
    index_list = np.asarray(indices.detach().cpu().tolist(), dtype=np.int64)
    starts = np.asarray(offsets.detach().cpu().tolist(), dtype=np.int64)
    count = index_list.shape[0]
    num_bags = starts.shape[0] - (1 if include_last_offset else 0)
    bag_starts = starts[:num_bags]
    fast_sum = (weight.dtype in (_ag.float32, _ag.float16, _ag.bfloat16) and padding_idx < 0
                and (per_sample_weights is None or per_sample_weights.is_contiguous()))
    if mode != "sum" or not fast_sum:
        marks = np.zeros(count + 1, dtype=np.int64)
        np.add.at(marks, bag_starts, 1)
        marks[0] -= 1
        offset2bag = np.cumsum(marks)[:count]
    else:
        offset2bag = np.zeros(0, dtype=np.int64)
    if weight.requires_grad or mode != "sum":
        bag_size = np.zeros(num_bags, dtype=np.int64)
        if num_bags:
            bag_size[:-1] = np.diff(bag_starts)
            bag_size[-1] = count - bag_starts[-1]
    else:
        bag_size = np.zeros(starts.shape[0], dtype=np.int64)
    if mode == "sum":
        bag_size[:] = 0
    elif padding_idx >= 0:
        for position in np.flatnonzero(index_list == padding_idx):
            bag_size[offset2bag[position]] -= 1
    if mode == "max":
        values = np.asarray(weight.detach().cpu().double().tolist(), dtype=np.float64)
        max_indices = np.zeros((num_bags, weight.shape[1]), dtype=np.int64)
        best = np.zeros((num_bags, weight.shape[1]))
        seen = np.zeros(num_bags, dtype=bool)
        for position, row in enumerate(index_list):
            if row == padding_idx:
                continue
            bag = offset2bag[position]
            better = ~seen[bag] | (values[row] > best[bag])
            best[bag][better] = values[row][better]
            max_indices[bag][better] = row
            seen[bag] = True
    else:
        max_indices = bag_size.copy()
    return tuple(_ag.tensor(a, dtype=kind, device=indices.device)
                 for a in (offset2bag, bag_size, max_indices))


def torch_embedding_bag(weight, indices, offsets, scale_grad_by_freq=False, mode=0,
                        sparse=False, per_sample_weights=None, include_last_offset=False,
                        padding_idx=None):
    """``torch.embedding_bag``: ATen's form (``weight`` first, an int ``mode``: 0 sum, 1
    mean, 2 max), returning ``(output, offset2bag, bag_size, max_indices)`` (NOTE
    [torch.embedding_bag's auxiliary outputs]); the output is ``F.embedding_bag``'s."""
    if mode not in _MODE_NUMBERS:
        raise RuntimeError(f"Unknown mode for embedding_bag: {mode}")
    name = _MODE_NUMBERS[mode]
    # ATen's rank checks (RuntimeErrors; F.embedding_bag's are ValueErrors)
    if indices.dim() not in (1, 2):
        raise RuntimeError(f"input has to be a 1D or 2D Tensor, but got Tensor of dimension "
                           f"{indices.dim()}")
    if weight.dim() != 2:
        raise RuntimeError(f"weight has to be a 2D Tensor, but got Tensor of dimension "
                           f"{weight.dim()}")
    if offsets.dim() != 1:
        raise RuntimeError(f"offsets has to be a 1D Tensor, but got Tensor of dimension "
                           f"{offsets.dim()}")
    output = embedding_bag(indices, weight, offsets, None, 2, scale_grad_by_freq, name, sparse,
                           per_sample_weights, include_last_offset, padding_idx)
    checked, checked_offsets, padding = _checked(indices, weight, offsets, per_sample_weights,
                                                 include_last_offset, padding_idx, name)
    kind = _ag.promote_types(indices.dtype, offsets.dtype)
    return (output,) + _auxiliary(weight, checked, checked_offsets, name, per_sample_weights,
                                  include_last_offset, padding, kind)
