"""Batching rules: how each op runs once on the physical tensors of a batch.

A rule is ``rule(original, args, kwargs)``: it gets the op's original function and its
arguments (some of them BatchedTensors), calls ``original`` once on physical tensors, and
wraps the result (NOTE [The batched tensor]). The rules come in a few kinds, each a function
below, and ``RULES`` says which kind each op is; an op missing from it runs once per batch
element (fallback.py). The kinds:

- elementwise: the operands' physical tensors broadcast once lined up (``aligned``); an
  in-place form needs ``self`` to carry every level the others do;
- dims: the op names logical dims (transpose, sum, softmax, cat ...): each is wrapped
  against the logical ndim, torch's IndexError if out of range, and moved past the batch
  dims; a reduction over "all dims" becomes one over the logical dims;
- shapes: view, reshape, expand, permute, repeat name a logical shape or order: the batch
  dims go in front of it;
- matrix products: a logical vector becomes a matrix and back, so that matmul broadcasts
  over the batch dims as over any leading dims;
- losses: computed unreduced on the physical tensors, then reduced over the logical dims;
- indexing: the index gets one ``:`` per batch dim in front.
"""
import operator

from autograd_cy._C.ops.op_table import unary_ops
from autograd_cy._C.dtype import dtype as _dtype
from autograd_cy._C.tensor import Tensor
from autograd_cy.dtypes import result_type
from autograd_cy.nn.functional import _get_softmax_dim, _legacy_reduction
from autograd_cy.func.batched_tensor import (
    INPLACE_ERROR, batched, is_batched, levels_of, logical_ndim, union_levels,
    aligned, materialized, restand, wrap_result,
)

__all__ = ["RULES", "FALLBACK", "wrap_logical_dim", "elementwise", "matmul_rule"]

FALLBACK = object()      # what a rule returns to decline: the op runs once per element


def wrap_logical_dim(dim, ndim):
    """``dim`` of a tensor of ``ndim`` logical dims as a non-negative dim, with torch's
    IndexError outside ``[-ndim, ndim - 1]`` (a 0-dim tensor takes -1 and 0)."""
    dim = operator.index(dim)
    bound = max(ndim, 1)
    if not -bound <= dim < bound:
        raise IndexError(f"Dimension out of range (expected to be in range of "
                         f"[{-bound}, {bound - 1}], but got {dim})")
    return dim + bound if dim < 0 else dim


def _tensors(args, kwargs):
    found = [a for a in args if isinstance(a, Tensor)]
    found += [v for v in kwargs.values() if isinstance(v, Tensor)]
    return found


# ------------------------------------------------------------------ elementwise

def elementwise(original, args, kwargs):
    """The op on the operands' physical tensors, lined up to broadcast."""
    tensors = _tensors(args, kwargs)
    levels = union_levels(tensors)
    ndim = max(logical_ndim(t) for t in tensors)
    args = [aligned(a, levels, ndim) if isinstance(a, Tensor) else a for a in args]
    kwargs = {k: aligned(v, levels, ndim) if isinstance(v, Tensor) else v
              for k, v in kwargs.items()}
    return wrap_result(original(*args, **kwargs), levels)


def elementwise_inplace(original, args, kwargs):
    """``self.op_(others)``: ``self`` must vary over every level the others vary over (it
    cannot hold a batch of results otherwise)."""
    self = args[0]
    levels = union_levels(_tensors(args, kwargs))
    if levels_of(self) != levels:
        raise RuntimeError(INPLACE_ERROR)
    ndim = logical_ndim(self)
    # an operand's leading size-1 dims beyond self's go, as torch's vmap lets them
    rest = [_operand_of_inplace(a, levels, ndim) for a in args[1:]]
    kwargs = {k: _operand_of_inplace(v, levels, ndim) for k, v in kwargs.items()}
    original(self._physical, *rest, **kwargs)
    return self


def _operand_of_inplace(value, levels, ndim):
    if not is_batched(value):
        return value
    value = _without_leading_ones(value, ndim)
    # padded to self's dims: a shorter operand must not broadcast against the batch dims
    return aligned(value, levels, max(ndim, logical_ndim(value)))


def _without_leading_ones(value, ndim):
    """``value`` with the leading size-1 logical dims it has beyond ``ndim`` taken away (a
    value written into a tensor of ``ndim`` dims broadcasts from the right, as torch lets
    it)."""
    logical = tuple(value.shape)
    excess = len(logical) - ndim
    if excess <= 0 or any(size != 1 for size in logical[:excess]):
        return value
    physical = value._physical
    batch = tuple(physical.shape)[:len(value._levels)]
    return batched(physical.reshape(batch + logical[excess:]), value._levels)


# ------------------------------------------------------------------ dims

_ALL = object()      # "every logical dim": a reduction's dim left out or None


def _get(args, kwargs, position, keyword, default):
    if len(args) > position:
        return args[position]
    return kwargs.get(keyword, default)


def _put(args, kwargs, position, keyword, value):
    if len(args) > position:
        args[position] = value
    else:
        kwargs[keyword] = value


def _shift(dim, ndim, nb):
    if isinstance(dim, (tuple, list)):
        return tuple(wrap_logical_dim(d, ndim) + nb for d in dim)
    return wrap_logical_dim(dim, ndim) + nb


def dims_rule(*specs, extra=0, index_like_self=False):
    """A rule for an op whose arguments at ``specs`` (``(position, keyword, default)``)
    are dims of the logical tensor ``args[0]`` (of ``ndim + extra`` dims: unsqueeze's and
    stack's new dim counts). Another tensor argument gets the same batch when it has
    ``self``'s dims (``index_like_self``: gather's index); otherwise it must not be batched
    (index_select's index), or the op runs per element."""
    def rule(original, args, kwargs):
        args, kwargs = list(args), dict(kwargs)
        self = args[0]
        tensors = _tensors(args, kwargs)
        if not index_like_self and any(is_batched(t) for t in tensors[1:]):
            return FALLBACK
        levels = union_levels(tensors)
        nb, ndim = len(levels), logical_ndim(self) + extra
        if ndim == 0:
            return _dims_of_a_0_dim_tensor(original, args, kwargs, specs, levels,
                                           index_like_self)
        for position, keyword, default in specs:
            dim = _get(args, kwargs, position, keyword, default)
            _put(args, kwargs, position, keyword, _shift(dim, ndim, nb))
        args = [materialized(self, levels)] + [
            materialized(a, levels) if index_like_self and isinstance(a, Tensor) else a
            for a in args[1:]]
        kwargs = {k: materialized(v, levels) if index_like_self and isinstance(v, Tensor)
                  else v for k, v in kwargs.items()}
        return wrap_result(original(*args, **kwargs), levels)
    return rule


def _dims_of_a_0_dim_tensor(original, args, kwargs, specs, levels, index_like_self):
    """A dim op on a 0-dim logical tensor: torch lets it name dim 0 or -1 (a unit dim),
    except narrow and select; flatten makes it one element long."""
    name = original.__name__
    if name in ("narrow", "select"):
        raise RuntimeError(f"{name}() cannot be applied to a 0-dim tensor.")
    physical = materialized(args[0], levels)
    if name == "flatten":
        return batched(physical.reshape(tuple(physical.shape) + (1,)), levels)
    args = [physical] + [materialized(a, levels) if index_like_self and isinstance(a, Tensor)
                         else a for a in args[1:]]
    return _over_unit_dim(original, args, kwargs, specs, levels, index_like_self)


def reduction_rule(position=1, keyword="dim"):
    """A reduction whose dim (int, tuple, or left out / None for all) is at ``position``."""
    def rule(original, args, kwargs):
        args, kwargs = list(args), dict(kwargs)
        second = args[position] if len(args) > position else kwargs.get("other")
        if isinstance(second, Tensor):      # max(input, other), min(...): elementwise
            return elementwise(original, tuple(args), kwargs)
        if isinstance(second, bool) and len(args) > position:
            # var(input, unbiased), std(...): the bool is unbiased, not a dim
            kwargs["unbiased"] = args.pop(position)
        self = args[0]
        levels = levels_of(self)
        nb, ndim = len(levels), logical_ndim(self)
        physical = self._physical
        args[0] = physical
        dim = _get(args, kwargs, position, keyword, _ALL)
        if dim is _ALL or dim is None or (isinstance(dim, (tuple, list)) and len(dim) == 0):
            # over every logical dim: over one dim holding them all
            args[0] = physical.reshape(tuple(physical.shape)[:nb] + (-1,))
            keepdim = _get(args, kwargs, position + 1, "keepdim", False)
            if original.__name__ in ("max", "min", "median"):    # the value only
                return wrap_result(original(args[0], nb)[0], levels)
            _put(args, kwargs, position, keyword, nb)
            result = original(*args, **kwargs)
            if keepdim:     # one unit dim per logical dim
                kept = tuple(physical.shape)[:nb] + (1,) * ndim
                result = tuple(r.reshape(kept) for r in result) \
                    if isinstance(result, tuple) else result.reshape(kept)
            return wrap_result(result, levels)
        elif ndim == 0:
            return _over_unit_dim(original, args, kwargs, ((position, keyword, None),),
                                  levels)
        else:
            _put(args, kwargs, position, keyword, _shift(dim, ndim, nb))
        return wrap_result(original(*args, **kwargs), levels)
    return rule


def _check_0_dim(dim):
    """``dim`` (an int or several) names the one dim of a 0-dim tensor: 0 or -1."""
    for d in (dim if isinstance(dim, (tuple, list)) else (dim,)):
        wrap_logical_dim(d, 0)


def _over_unit_dim(original, args, kwargs, specs, levels, index_too=False):
    """An op along the one dim torch lets a 0-dim tensor name (0 or -1), ``specs`` saying
    where its dims are: along a unit dim added to the physical tensor (and to an index with
    the tensor's dims, ``index_too``), taken away again."""
    nb = len(levels)
    args, kwargs = list(args), dict(kwargs)
    for position, keyword, default in specs:
        _check_0_dim(_get(args, kwargs, position, keyword, default))
        _put(args, kwargs, position, keyword, nb)
    args = [args[0].unsqueeze(-1)] + [a.unsqueeze(-1) if index_too and isinstance(a, Tensor)
                                      else a for a in args[1:]]
    result = original(*args, **kwargs)
    if isinstance(result, tuple):
        parts = [r.squeeze(-1) if r.dim() > nb else r for r in result]
        result = type(result)(*parts) if hasattr(result, "_fields") else tuple(parts)
    elif isinstance(result, Tensor) and result.dim() > nb:
        result = result.squeeze(-1)
    return wrap_result(result, levels)


def softmax_rule(original, args, kwargs):
    """softmax / log_softmax / softmin; ``nn.functional``'s ``dim=None`` picks the logical
    dim as torch does (with its warning)."""
    args, kwargs = list(args), dict(kwargs)
    self = args[0]
    dim = _get(args, kwargs, 1, "dim", None)
    if dim is None:
        dim = _get_softmax_dim(original.__name__, logical_ndim(self), 5)
    levels = levels_of(self)
    args[0] = self._physical
    _put(args, kwargs, 1, "dim", dim)
    if logical_ndim(self) == 0:
        return _over_unit_dim(original, args, kwargs, ((1, "dim", None),), levels)
    _put(args, kwargs, 1, "dim", _shift(dim, logical_ndim(self), len(levels)))
    return wrap_result(original(*args, **kwargs), levels)


def squeeze_rule(original, args, kwargs):
    """squeeze(): only logical dims of size 1 go (a batch of one stays)."""
    self = args[0]
    dim = _get(args, kwargs, 1, "dim", _ALL)
    levels = levels_of(self)
    nb, ndim = len(levels), logical_ndim(self)
    if dim is _ALL or dim is None:
        shape = tuple(self.shape)
        dims = tuple(nb + i for i, size in enumerate(shape) if size == 1)
    elif ndim == 0:         # its one unit dim: nothing to take away
        given = list(dim) if isinstance(dim, (tuple, list)) else [dim]
        if given not in ([], [0]):      # torch's rule for a 0-dim example (-1 included)
            raise RuntimeError("Dimension is out of range (expected to be in range of "
                               f"[-1, 0], but got [{', '.join(map(str, given))}]")
        dims = ()
    else:
        dims = _shift(dim, ndim, nb)
    physical = self._physical
    # nothing to squeeze: still a view of the input, as torch's squeeze always is
    return batched(physical.squeeze(dims) if dims != () else physical.view(physical.shape),
                   levels)


def cat_rule(extra):
    """cat and stack: every tensor gets the full batch, the dim moves past it."""
    def rule(original, args, kwargs):
        args, kwargs = list(args), dict(kwargs)
        tensors = list(_get(args, kwargs, 0, "tensors", ()))
        levels = union_levels(tensors)
        ndims = [logical_ndim(t) for t in tensors if tuple(t.shape) != (0,)] or [1]
        if extra == 0 and ndims[0] != 1:
            # cat skips a 1-D empty tensor beside tensors of other ranks (torch's legacy
            # rule); materialized it would have the batch dims and not be skipped
            tensors = [t for t in tensors if tuple(t.shape) != (0,)]
        dim = _get(args, kwargs, 1, "dim", 0)
        _put(args, kwargs, 1, "dim", _shift(dim, ndims[0] + extra, len(levels)))
        _put(args, kwargs, 0, "tensors", [materialized(t, levels) for t in tensors])
        return wrap_result(original(*args, **kwargs), levels)
    return rule


def trace_rule(original, args, kwargs):
    self = args[0]
    if logical_ndim(self) != 2:
        raise RuntimeError("trace: expected a matrix, but got tensor with dim "
                           f"{logical_ndim(self)}")
    nb = len(self._levels)
    return batched(self._physical.diagonal(0, nb, nb + 1).sum(-1), self._levels)


# ------------------------------------------------------------------ shapes

def _shape_argument(args, kwargs, keyword):
    """The shape given as varargs (``view(2, 3)``), one sequence or a keyword."""
    if keyword in kwargs:
        return tuple(kwargs[keyword])
    rest = args[1:]
    if len(rest) == 1 and isinstance(rest[0], (tuple, list)):
        return tuple(rest[0])
    return tuple(rest)


def _batch_shape(self):
    return tuple(self._physical.shape)[:len(self._levels)]


def reshape_rule(method, keyword):
    def rule(original, args, kwargs):
        self = args[0]
        shape = _shape_argument(args, kwargs, keyword)
        physical = getattr(self._physical, method)(_batch_shape(self) + shape)
        return batched(physical, self._levels)
    return rule


def view_rule(original, args, kwargs):
    """``view(shape)`` as ``reshape_rule``; ``view(dtype)`` on the physical tensor, whose
    batch dims lead, so the last dim that the element size rescales is a logical one."""
    target = args[1] if len(args) == 2 else kwargs.get("dtype")
    if not isinstance(target, _dtype):
        return _view_shape(original, args, kwargs)
    self = args[0]
    if logical_ndim(self) == 0:     # torch's check, on a tensor of the logical shape
        self._physical.new_empty(()).view(target)
    return batched(self._physical.view(target), self._levels)


_view_shape = reshape_rule("view", "size")


def like_rule(method):
    """view_as, reshape_as, expand_as: view, reshape, expand to ``other``'s logical shape."""
    shaped = method[:-len("_as")]

    def rule(original, args, kwargs):
        self, other = args[0], _get(args, kwargs, 1, "other", None)
        if not is_batched(self):
            # other batched only: the result does not vary over the batch
            return getattr(self, shaped)(tuple(other.shape))
        return RULES[shaped](None, (self, tuple(other.shape)), {})
    return rule


def expand_rule(original, args, kwargs):
    self = args[0]
    sizes = _shape_argument(args, kwargs, "size")
    levels, ndim = self._levels, logical_ndim(self)
    if len(sizes) < ndim:       # torch's error, from a tensor of the logical shape
        return self._physical.new_empty(tuple(self.shape)).expand(sizes)
    physical = aligned(self, levels, len(sizes))
    return batched(physical.expand(_batch_shape(self) + sizes), levels)


def permute_rule(original, args, kwargs):
    self = args[0]
    dims = _shape_argument(args, kwargs, "dims")
    nb, ndim = len(self._levels), logical_ndim(self)
    order = tuple(range(nb)) + tuple(wrap_logical_dim(d, ndim) + nb for d in dims)
    return batched(self._physical.permute(order), self._levels)


def repeat_rule(original, args, kwargs):
    self = args[0]
    repeats = _shape_argument(args, kwargs, "repeats")
    levels, nb = self._levels, len(self._levels)
    physical = aligned(self, levels, max(len(repeats), logical_ndim(self)))
    return batched(physical.repeat((1,) * nb + repeats), levels)


def t_rule(original, args, kwargs):
    self = args[0]
    if logical_ndim(self) > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is "
                           f"{logical_ndim(self)}D")
    if logical_ndim(self) < 2:
        return self
    nb = len(self._levels)
    return batched(self._physical.transpose(nb, nb + 1), self._levels)


def movedim_rule(original, args, kwargs):
    self = args[0]
    source = _get(args, kwargs, 1, "source", None)
    destination = _get(args, kwargs, 2, "destination", None)
    nb, ndim = len(self._levels), logical_ndim(self)
    return batched(self._physical.movedim(_shift(source, ndim, nb),
                                          _shift(destination, ndim, nb)), self._levels)


# ------------------------------------------------------------------ matrix products

def matmul_rule(original, args, kwargs):
    """matmul (and mm, bmm, mv, dot): vectors become matrices, matmul broadcasts over the
    batch dims, the added dims go again."""
    a, b = args[0], _get(args, kwargs, 1, "other", None)
    levels = union_levels((a, b))
    a_vector, b_vector = logical_ndim(a) == 1, logical_ndim(b) == 1
    pa = _as_matrix(a, levels, -2 if a_vector else None)
    pb = _as_matrix(b, levels, -1 if b_vector else None)
    ndim = max(pa.dim(), pb.dim())
    pa, pb = _padded(pa, len(levels), ndim), _padded(pb, len(levels), ndim)
    product = pa.matmul(pb)
    if b_vector:
        product = product.squeeze(-1)
    if a_vector:
        product = product.squeeze(-1 if b_vector else -2)
    return batched(product, levels)


def _padded(physical, nb, ndim):
    """``physical`` with size-1 dims after its ``nb`` batch dims, to ``ndim`` dims: its
    matrix dims broadcast against another operand's leading (logical) dims."""
    missing = ndim - physical.dim()
    if missing == 0:
        return physical
    shape = tuple(physical.shape)
    return physical.reshape(shape[:nb] + (1,) * missing + shape[nb:])


def _as_matrix(value, levels, unsqueeze_at):
    """``value``'s physical tensor with a batch dim per level (size 1 where it has none),
    a vector made a row (-2) or a column (-1)."""
    ndim = logical_ndim(value)
    physical = aligned(value, levels, ndim) if is_batched(value) else value.reshape(
        (1,) * len(levels) + tuple(value.shape))
    if unsqueeze_at is not None:
        physical = physical.unsqueeze(unsqueeze_at)
    return physical


def _checked_matmul(name, a_dims, b_dims):
    def rule(original, args, kwargs):
        a, b = args[0], _get(args, kwargs, 1, "mat2", None)
        if b is None:
            b = _get(args, kwargs, 1, "vec", _get(args, kwargs, 1, "other", None))
        if logical_ndim(a) != a_dims or logical_ndim(b) != b_dims:
            if name == "mm":    # torch's words (its spaces too)
                raise RuntimeError(
                    f"Shape mismatch: Got incorrect dims for mm(a, b). a has dim "
                    f"{logical_ndim(a)}and b has dim {logical_ndim(b)}but expected them to "
                    "have dim 2 and dim 2")
            raise RuntimeError(f"{name}: expected {a_dims}-D and {b_dims}-D tensors, got "
                               f"{logical_ndim(a)}-D and {logical_ndim(b)}-D")
        return matmul_rule(original, (a, b), {})
    return rule


def linear_rule(original, args, kwargs):
    """``input @ weight.mT + bias`` through the rules above; an input batched alone is one
    linear over its physical tensor (the batch dims lead), so each row rounds as unbatched
    (the bias added in the product, as torch's addmm)."""
    x = args[0]
    weight = _get(args, kwargs, 1, "weight", None)
    bias = _get(args, kwargs, 2, "bias", None)
    if (original is not None and is_batched(x) and not is_batched(weight)
            and not is_batched(bias) and logical_ndim(x) >= 1 and logical_ndim(weight) == 2):
        return batched(original(x._physical, weight, bias), x._levels)
    if logical_ndim(weight) < 2:        # a weight vector: input @ weight
        transposed = weight
    else:
        transposed = RULES["mT"](None, (weight,), {}) if is_batched(weight) else weight.mT
    product = matmul_rule(None, (x, transposed), {})
    if bias is None:
        return product
    return elementwise(operator.add, (product, bias), {})


def addmm_rule(original, args, kwargs):
    bias, m1, m2 = args[0], args[1], args[2]
    beta, alpha = kwargs.get("beta", 1), kwargs.get("alpha", 1)
    product = matmul_rule(None, (m1, m2), {})
    if alpha != 1:
        product = elementwise(operator.mul, (product, alpha), {})
    scaled = bias if beta == 1 else elementwise(operator.mul, (bias, beta), {})
    return elementwise(operator.add, (scaled, product), {})


def mT_rule(original, args, kwargs):
    self = args[0]
    if logical_ndim(self) < 2:
        raise RuntimeError("tensor.mT is only supported on matrices or batches of matrices. "
                           f"Got {logical_ndim(self)}-D tensor.")
    return batched(self._physical.mT, self._levels)


def T_rule(original, args, kwargs):
    self = args[0]
    nb, ndim = len(self._levels), logical_ndim(self)
    order = tuple(range(nb)) + tuple(range(nb + ndim - 1, nb - 1, -1))
    return batched(self._physical.permute(order), self._levels)


# ------------------------------------------------------------------ losses

def _reduce_logical(loss, levels, reduction):
    nb = len(levels)
    if reduction == "none" or loss.dim() == nb:
        return batched(loss, levels)
    dims = tuple(range(nb, loss.dim()))
    total = loss.sum(dims) if reduction == "sum" else loss.mean(dims)
    return batched(total, levels)


def pointwise_loss_rule(original, args, kwargs):
    """mse, l1, binary cross entropy (with logits): elementwise, then the reduction over
    the logical dims."""
    kwargs = dict(kwargs)
    reduction = kwargs.pop("reduction", "mean")
    if kwargs.get("size_average") is not None or kwargs.get("reduce") is not None:
        reduction = _legacy_reduction(kwargs.pop("size_average", None),
                                      kwargs.pop("reduce", None))
    # every tensor with the whole batch: binary cross entropy wants equal sizes, so an
    # unbatched target does not broadcast against the batch dims
    tensors = _tensors(args, kwargs)
    levels = union_levels(tensors)
    ndim = max(logical_ndim(t) for t in tensors)

    def full(value):
        if not isinstance(value, Tensor):
            return value
        return aligned(batched(materialized(value, levels), levels), levels, ndim)
    loss = original(*[full(a) for a in args], reduction="none",
                    **{k: full(v) for k, v in kwargs.items()})
    return _reduce_logical(loss, levels, reduction)


def class_loss_rule(original, args, kwargs):
    """nll_loss and cross_entropy: the batch dims fold into the examples dim N, the loss is
    computed unreduced and unfolded, then reduced as torch reduces it (a weighted mean
    divides by the weights of the targets that count)."""
    kwargs = dict(kwargs)
    x = args[0]
    target = _get(args, kwargs, 1, "target", None)
    reduction = kwargs.pop("reduction", "mean")
    weight = kwargs.get("weight")
    ignore_index = kwargs.get("ignore_index", -100)
    if is_batched(weight) or kwargs.get("size_average") is not None \
            or kwargs.get("reduce") is not None:
        return FALLBACK
    x_dims, t_dims = logical_ndim(x), logical_ndim(target)
    if t_dims != x_dims - 1 or x.dtype == target.dtype:
        return FALLBACK      # probabilities as targets, or a shape torch refuses
    levels = union_levels((x, target))
    px, pt = materialized(x, levels), materialized(target, levels)
    nb = len(levels)
    batch = tuple(px.shape)[:nb]
    if x_dims == 1:        # one example: classes only
        flat_x, flat_t = px.reshape((-1,) + tuple(px.shape)[nb:]), pt.reshape(-1)
        per_example = batch
    else:
        flat_x = px.reshape((-1,) + tuple(px.shape)[nb + 1:])
        flat_t = pt.reshape((-1,) + tuple(pt.shape)[nb + 1:])
        per_example = batch + tuple(pt.shape)[nb:]
    loss = original(flat_x, flat_t, reduction="none", **kwargs).reshape(per_example)
    if reduction == "none":
        return batched(loss, levels)
    dims = tuple(range(nb, loss.dim()))
    if reduction == "sum":
        return batched(loss.sum(dims) if dims else loss, levels)
    counts = (pt != ignore_index).to(loss.dtype)
    if weight is not None:
        counts = counts * weight[pt.clamp(0, weight.shape[0] - 1)]
    total = loss.sum(dims) if dims else loss
    count = counts.sum(dims) if dims else counts
    return batched(total / count, levels)


# ------------------------------------------------------------------ indexing

def _index_tuple(index):
    return index if type(index) is tuple else (index,)


def _advanced_adjacent(entries):
    """Are the tensor (or list) entries of an index next to each other? NumPy puts the
    result dims of separated ones first, which would move the batch dims."""
    positions = [i for i, e in enumerate(entries) if isinstance(e, (Tensor, list))]
    return not positions or positions[-1] - positions[0] + 1 == len(positions)


def getitem_rule(original, args, kwargs):
    self, index = args[0], args[1]
    entries = _index_tuple(index)
    if not is_batched(self) or any(is_batched(e) for e in entries) \
            or not _advanced_adjacent(entries):
        return FALLBACK
    nb = len(self._levels)
    return batched(self._physical[(slice(None),) * nb + entries], self._levels)


def setitem_rule(original, args, kwargs):
    self, index, value = args[0], args[1], args[2]
    entries = _index_tuple(index)
    if any(is_batched(e) for e in entries) or not _advanced_adjacent(entries):
        return FALLBACK
    if not set(levels_of(value)) <= set(levels_of(self)):
        raise RuntimeError(INPLACE_ERROR)
    levels = levels_of(self)
    region = self._physical[(slice(None),) * len(levels) + entries]
    if is_batched(value):
        value = aligned(_without_leading_ones(value, region.dim() - len(levels)), levels,
                        region.dim() - len(levels))
    self._physical[(slice(None),) * len(levels) + entries] = value
    return None


# ------------------------------------------------------------------ the rest

def index_add_rule(original, args, kwargs):
    """index_add(self, dim, index, source): self and source get the full batch, the index
    stays one list of positions (a batched index runs per element)."""
    args, kwargs = list(args), dict(kwargs)
    index = _get(args, kwargs, 2, "index", None)
    self, source = args[0], _get(args, kwargs, 3, "source", None)
    if is_batched(index) or logical_ndim(self) == 0:     # a 0-dim self: its dim 0 is unit
        return FALLBACK
    levels = union_levels((self, source))
    _put(args, kwargs, 1, "dim", _shift(_get(args, kwargs, 1, "dim", None),
                                        logical_ndim(self), len(levels)))
    args[0] = materialized(self, levels)
    _put(args, kwargs, 3, "source", materialized(source, levels))
    return batched(original(*args, **kwargs), levels)


def sum_to_size_rule(original, args, kwargs):
    self = args[0]
    size = _shape_argument(args, kwargs, "size")
    return batched(self._physical.sum_to_size(_batch_shape(self) + size), self._levels)


def transpose_inplace_rule(original, args, kwargs):
    """transpose_ changes the batched tensor's own shape: its stand-in follows."""
    self = args[0]
    nb, ndim = len(self._levels), logical_ndim(self)
    self._physical.transpose_(_shift(_get(args, kwargs, 1, "dim0", None), ndim, nb),
                              _shift(_get(args, kwargs, 2, "dim1", None), ndim, nb))
    restand(self)
    return self


def swapaxes_inplace_rule(original, args, kwargs):
    """swapaxes_ (its arguments named axis0, axis1): transpose_'s rule."""
    return transpose_inplace_rule(original, (args[0], _get(args, kwargs, 1, "axis0", None),
                                             _get(args, kwargs, 2, "axis1", None)), {})


def t_inplace_rule(original, args, kwargs):
    """t_: the two logical dims of a matrix swap; fewer stay as they are."""
    self = args[0]
    ndim = logical_ndim(self)
    if ndim > 2:
        raise RuntimeError(f"t_() expects a tensor with <= 2 dimensions, but self is {ndim}D")
    return transpose_inplace_rule(original, (self, 0, 1), {}) if ndim == 2 else self


def unsqueeze_inplace_rule(original, args, kwargs):
    """unsqueeze_: the new unit dim among the logical dims, past the batch dims."""
    self = args[0]
    nb, ndim = len(self._levels), logical_ndim(self)
    self._physical.unsqueeze_(_shift(_get(args, kwargs, 1, "dim", None), ndim + 1, nb))
    restand(self)
    return self


def squeeze_inplace_rule(original, args, kwargs):
    """squeeze_: squeeze's choice of dims, the batched tensor's own shape changing."""
    self = args[0]
    dim = _get(args, kwargs, 1, "dim", _ALL)
    nb, ndim = len(self._levels), logical_ndim(self)
    if dim is _ALL or dim is None:
        dims = tuple(nb + i for i, size in enumerate(tuple(self.shape)) if size == 1)
    elif ndim == 0:         # its one unit dim: nothing to take away
        given = list(dim) if isinstance(dim, (tuple, list)) else [dim]
        if given not in ([], [0]):      # torch's rule for a 0-dim example (-1 included)
            raise RuntimeError("Dimension is out of range (expected to be in range of "
                               f"[-1, 0], but got [{', '.join(map(str, given))}]")
        dims = ()
    else:
        dims = _shift(dim, ndim, nb)
    if dims != ():
        self._physical.squeeze_(dims)
    restand(self)
    return self


def vdot_rule(original, args, kwargs):
    """vdot: the dot product of ``a``'s conjugate with ``b``."""
    a, b = args[0], _get(args, kwargs, 1, "other", None)
    conjugate = batched(a._physical.conj(), a._levels) if is_batched(a) else a.conj()
    return _checked_matmul("vdot", 1, 1)(None, (conjugate, b), {})


def refused(message):
    """An op torch does not batch, with torch's error."""
    def rule(original, args, kwargs):
        raise RuntimeError(message)
    return rule


def metadata_rule(original, args, kwargs):
    """is_conj, is_neg, is_same_size: about the logical tensors, the same for every element."""
    if original.__name__ == "is_same_size":
        return tuple(args[0].shape) == tuple(args[1].shape)
    return original(args[0]._physical)


# ------------------------------------------------------------------ layers

def _only_first_batched(args, kwargs):
    """The first argument, if it is the only batched tensor of the call (else None)."""
    first = args[0]
    others = [v for v in list(args[1:]) + list(kwargs.values()) if is_batched(v)]
    return first if is_batched(first) and not others else None


def leading_dims_rule(original, args, kwargs):
    """An op that treats every dim before the ones it works on alike (layer_norm, pad,
    embedding's indices, one_hot, tril/triu): the batch dims are more of them, as long as
    only its first argument is batched."""
    first = _only_first_batched(args, kwargs)
    if first is None:
        return FALLBACK
    return wrap_result(original(first._physical, *args[1:], **kwargs), first._levels)


def pad_rule(original, args, kwargs):
    """pad: a constant pad treats every leading dim alike (leading_dims_rule); the other
    modes take only ``(C, *padded)`` or ``(N, C, *padded)``, so the batch dims and N fold
    into one N, and unfold after."""
    first = _only_first_batched(args, kwargs)
    mode = args[2] if len(args) > 2 else kwargs.get("mode", "constant")
    if first is None or mode == "constant":
        return leading_dims_rule(original, args, kwargs)
    pad = args[1] if len(args) > 1 else kwargs.get("pad")
    kept = len(pad) // 2 + 1                        # C and the padded dims
    physical, levels = first._physical, first._levels
    shape = tuple(physical.shape)
    if shape[len(levels):] and len(shape) - len(levels) not in (kept, kept + 1):
        return FALLBACK                             # pad's own error, per example
    result = original(physical.reshape((-1,) + shape[len(shape) - kept:]), *args[1:],
                      **kwargs)
    return wrap_result(result.reshape(shape[:len(shape) - kept] + tuple(result.shape)[1:]),
                       levels)


def examples_dim_rule(spatial):
    """An op on ``(N, C, *spatial)`` or unbatched ``(C, *spatial)`` inputs whose examples are
    independent (convolution, pooling; group_norm, whose input always has N: ``spatial``
    None): the batch dims fold into N (or become it), the op runs once, and N unfolds. Only
    the input may be batched."""
    def rule(original, args, kwargs):
        first = _only_first_batched(args, kwargs)
        if first is None:
            return FALLBACK
        physical, levels = first._physical, first._levels
        batch = tuple(physical.shape)[:len(levels)]
        logical = tuple(physical.shape)[len(levels):]
        kept = len(logical) - 1 if spatial is None else spatial + 1     # C and the rest
        folded = physical.reshape((-1,) + logical[len(logical) - kept:])
        leading = batch + logical[:len(logical) - kept]

        def unfold(result):
            return result.reshape(leading + tuple(result.shape)[1:])
        result = original(folded, *args[1:], **kwargs)
        result = tuple(unfold(r) for r in result) if isinstance(result, tuple) \
            else unfold(result)
        return wrap_result(result, levels)
    return rule


def attention_rule(original, args, kwargs):
    """scaled_dot_product_attention treats every dim before the last two as a batch dim:
    query, key and value line up over the levels; a batched mask declines."""
    mask = kwargs.get("attn_mask", args[3] if len(args) > 3 else None)
    if is_batched(mask):
        return FALLBACK
    levels = union_levels(args[:3])
    ndim = max(logical_ndim(t) for t in args[:3])
    lined_up = [aligned(t, levels, ndim) for t in args[:3]]
    return wrap_result(original(*lined_up, *args[3:], **kwargs), levels)


# ------------------------------------------------------------------ the table

def _one(original, args, kwargs):
    """An op of one tensor that does not care how many leading dims it has."""
    self = args[0]
    return wrap_result(original(self._physical, *args[1:], **kwargs), self._levels)


# Besides the op table's entries (below, from the table itself): their torch aliases and
# the elementwise ops of several tensors.
_ELEMENTWISE = """
absolute arccos arccosh arcsin arcsinh arctan arctanh negative neg square add sub mul div
subtract multiply divide
true_divide floor_divide pow rpow rsub rdiv atan2 arctan2 maximum minimum clamp clip where eq
ne lt le gt ge greater greater_equal less less_equal not_equal logical_and logical_or
logical_xor logical_not bitwise_and bitwise_or bitwise_xor bitwise_not isfinite isinf isnan
isreal isclose complex polar gelu silu softplus leaky_relu masked_fill type_as
elu selu celu hardtanh relu6 hardsigmoid hardswish mish logsigmoid softsign softshrink
hardshrink tanhshrink threshold
""".split()

_ONE_TENSOR = """
clone contiguous to float double half bfloat16 int long bool cpu cuda conj conj_physical
resolve_conj resolve_neg real imag view_as_real view_as_complex
zeros_like ones_like empty_like full_like
""".split()

_INPLACE = """
absolute_ arccos_ arccosh_ arcsin_ arcsinh_ arctan_ arctanh_ neg_ square_ add_ sub_ mul_
div_ floor_divide_ pow_ clamp_ clip_ copy_ fill_ zero_ masked_fill_ conj_physical_
elu_ selu_ celu_ hardtanh_ threshold_ leaky_relu_
""".split()

# the elementwise in-place forms of autograd_cy/inplace_forms.py (its others: fallback)
_INPLACE_FORMS = """
addcdiv_ addcmul_ lerp_ divide_ multiply_ subtract_ true_divide_ negative_ float_power_
fmod_ remainder_ atan2_ arctan2_ hypot_ copysign_ heaviside_ xlogy_ logit_ sinc_
nan_to_num_ ceil_ floor_ round_ trunc_ fix_ frac_ clamp_min_ clamp_max_ eq_ ne_ not_equal_
lt_ less_ le_ less_equal_ gt_ greater_ ge_ greater_equal_ logical_and_ logical_or_
logical_xor_ logical_not_ bitwise_and_ bitwise_or_ bitwise_xor_ bitwise_not_
deg2rad_ rad2deg_ ldexp_ lgamma_ digamma_ mvlgamma_ i0_ bitwise_left_shift_
bitwise_right_shift_ gcd_ lcm_ nextafter_ igamma_ igammac_
""".split()

def fill_rule(original, args, kwargs):
    """``self.fill_(value)`` with a batched 0-dim value: each example's own value."""
    self, value = args[0], _get(args, kwargs, 1, "value", None)
    if not is_batched(value):
        return elementwise_inplace(original, args, kwargs)
    if not set(levels_of(value)) <= set(levels_of(self)):
        raise RuntimeError(INPLACE_ERROR.replace("inplace arithmetic", "fill_"))
    if logical_ndim(value) != 0:
        return original(self._physical, value._physical)    # torch's 0-dim error
    self._physical.copy_(aligned(value, self._levels, logical_ndim(self)))
    return self


_MEMORY_FORMAT_NAMES = {"channels_last": "ChannelsLast", "channels_last_3d": "ChannelsLast3d"}


def _format_checked(name, rule):
    """clone and contiguous of a batched tensor only in the contiguous (or preserved)
    format: a per-example strides format is not something vmap batches, as in torch."""
    def checked(original, args, kwargs):
        memory_format = kwargs.get("memory_format")
        fmt = str(memory_format).rsplit(".", 1)[-1]
        if fmt in _MEMORY_FORMAT_NAMES:
            if name == "clone":
                raise RuntimeError(
                    "NYI: Tensor.clone(memory_format) inside vmap is only supported with "
                    "memory_format torch.preserve_format or torch.contiguous_format (got "
                    f"{_MEMORY_FORMAT_NAMES[fmt]})")
            raise RuntimeError(NYI_IS_CONTIGUOUS)
        return rule(original, args, kwargs)
    return checked


NYI_IS_CONTIGUOUS = ("NYI: querying is_contiguous inside of vmap for memory_format other "
                     "than torch.contiguous_format")


def _refuse_dynamic_shape(name, rule, refused):
    """An op whose result's shape depends on the values (``where(condition)``): torch's
    vmap refuses it."""
    def checked(original, args, kwargs):
        if refused(args, kwargs):
            raise RuntimeError(
                "vmap: We do not support batching operators that can output dynamic shape. "
                f"Attempted to vmap over aten::{name}. Please file an issue at "
                "https://github.com/pytorch/pytorch/issues if you need this feature.")
        return rule(original, args, kwargs)
    return checked


def _one_hot_checked(rule):
    def checked(original, args, kwargs):
        if _get(args, kwargs, 1, "num_classes", -1) <= 0:
            raise RuntimeError("When vmap-ing torch.nn.functional.one_hot, please provide an "
                               "explicit positive num_classes argument.")
        return rule(original, args, kwargs)
    return checked


# binary ops whose batched 0-dim operand promotes as the 0-dim tensor it is logically
_BINARY = """
add sub mul div subtract multiply divide true_divide floor_divide pow rsub atan2 arctan2
maximum minimum eq ne lt le gt ge greater greater_equal less less_equal not_equal
""".split()


def _logical_promotion(rule):
    """``rule`` with torch's type promotion for a batched operand that is 0-dim logically
    and an operand that is not: its physical tensor has the batch dims, which would make it
    a dimensioned tensor to the op (``float32[2] + float64[]`` is float32 in torch, not
    float64), so it is first cast to the logical result type."""
    def promoting(original, args, kwargs):
        if len(args) >= 2 and isinstance(args[0], Tensor) and isinstance(args[1], Tensor):
            a, b = args[0], args[1]
            a_zero = is_batched(a) and logical_ndim(a) == 0 and logical_ndim(b) > 0
            b_zero = is_batched(b) and logical_ndim(b) == 0 and logical_ndim(a) > 0
            if a_zero or b_zero:
                dtype = result_type(a, b)
                if a_zero and a.dtype != dtype:
                    a = batched(a._physical.to(dtype), a._levels)
                if b_zero and b.dtype != dtype:
                    b = batched(b._physical.to(dtype), b._levels)
                args = (a, b) + tuple(args[2:])
        return rule(original, args, kwargs)
    return promoting


RULES = {}
RULES.update({name: elementwise for name in _ELEMENTWISE})
RULES.update({name: _one for name in _ONE_TENSOR})
RULES.update({name: elementwise_inplace for name in _INPLACE + _INPLACE_FORMS})
for _entry in unary_ops():      # the op table's entries: elementwise by declaration
    RULES[_entry.name] = elementwise
    if _entry.inplace is not None:
        RULES[_entry.inplace] = elementwise_inplace
del _entry
RULES.update({
    # reductions
    "sum": reduction_rule(), "mean": reduction_rule(), "prod": reduction_rule(),
    "amax": reduction_rule(), "amin": reduction_rule(), "all": reduction_rule(),
    "any": reduction_rule(), "count_nonzero": reduction_rule(),
    "logsumexp": reduction_rule(), "norm": reduction_rule(2), "var": reduction_rule(),
    "std": reduction_rule(), "var_mean": reduction_rule(), "std_mean": reduction_rule(),
    "max": reduction_rule(), "min": reduction_rule(), "median": reduction_rule(),
    "argmax": reduction_rule(), "argmin": reduction_rule(),
    "trace": trace_rule,
    # dims
    "transpose": dims_rule((1, "dim0", None), (2, "dim1", None)),
    "swapaxes": dims_rule((1, "axis0", None), (2, "axis1", None)),
    "swapdims": dims_rule((1, "dim0", None), (2, "dim1", None)),
    "movedim": movedim_rule, "moveaxis": movedim_rule,
    "unsqueeze": dims_rule((1, "dim", None), extra=1),
    "squeeze": squeeze_rule,
    "select": dims_rule((1, "dim", None)), "narrow": dims_rule((1, "dim", None)),
    "flatten": dims_rule((1, "start_dim", 0), (2, "end_dim", -1)),
    "unflatten": dims_rule((1, "dim", None)),
    "split": dims_rule((2, "dim", 0)), "split_with_sizes": dims_rule((2, "dim", 0)),
    "chunk": dims_rule((2, "dim", 0)), "unbind": dims_rule((1, "dim", 0)),
    "diagonal": dims_rule((2, "dim1", 0), (3, "dim2", 1)),
    "gather": dims_rule((1, "dim", None), index_like_self=True),
    "index_select": dims_rule((1, "dim", None)),
    "softmax": softmax_rule, "log_softmax": softmax_rule, "softmin": softmax_rule,
    "_safe_softmax": softmax_rule,
    "glu": dims_rule((1, "dim", -1)),
    "cat": cat_rule(0), "concat": cat_rule(0), "concatenate": cat_rule(0), "stack": cat_rule(1),
    # shapes
    "view": view_rule, "reshape": reshape_rule("reshape", "shape"),
    "view_as": like_rule("view_as"), "reshape_as": like_rule("reshape_as"),
    "expand": expand_rule, "expand_as": like_rule("expand_as"),
    "permute": permute_rule, "repeat": repeat_rule, "t": t_rule, "mT": mT_rule, "T": T_rule,
    # matrix products
    "matmul": matmul_rule, "mm": _checked_matmul("mm", 2, 2),
    "bmm": _checked_matmul("bmm", 3, 3), "mv": _checked_matmul("mv", 2, 1),
    "dot": _checked_matmul("dot", 1, 1), "linear": linear_rule, "addmm": addmm_rule,
    # losses
    "mse_loss": pointwise_loss_rule, "l1_loss": pointwise_loss_rule,
    "binary_cross_entropy": pointwise_loss_rule,
    "binary_cross_entropy_with_logits": pointwise_loss_rule,
    "nll_loss": class_loss_rule, "cross_entropy": class_loss_rule,
    "smooth_l1_loss": pointwise_loss_rule, "huber_loss": pointwise_loss_rule,
    "pairwise_distance": leading_dims_rule,
    # the rest
    "index_add": index_add_rule, "scatter_add": dims_rule((1, "dim", None), index_like_self=True),
    "sum_to_size": sum_to_size_rule, "transpose_": transpose_inplace_rule, "vdot": vdot_rule,
    "swapdims_": transpose_inplace_rule, "swapaxes_": swapaxes_inplace_rule,
    "t_": t_inplace_rule, "unsqueeze_": unsqueeze_inplace_rule,
    "squeeze_": squeeze_inplace_rule,
    "_sum": reduction_rule(), "_mean": reduction_rule(),
    "is_conj": metadata_rule, "is_neg": metadata_rule, "is_same_size": metadata_rule,
    "rrelu": refused("vmap: we do not yet support aten::rrelu. Please file an issue"),
    "rrelu_": refused("vmap: we do not yet support aten::rrelu_. Please file an issue"),
    "equal": refused("Batching rule not implemented for aten::equal. We could not generate "
                     "a fallback."),
    "allclose": refused("vmap over torch.allclose isn't supported yet. Please file an issue "
                        "at https://github.com/pytorch/pytorch/issues if you need this "
                        "feature."),
    "as_strided_": refused("Batching rule not implemented for aten::as_strided_; the "
                           "fallback path doesn't work on out= or view ops."),
    "resize_": refused("Batching rule not implemented for aten::resize_; the fallback path "
                       "doesn't work on out= or view ops."),
    # layers
    "layer_norm": leading_dims_rule, "embedding": leading_dims_rule,
    "one_hot": leading_dims_rule, "pad": pad_rule, "tril": leading_dims_rule,
    "triu": leading_dims_rule,
    "conv1d": examples_dim_rule(1), "conv2d": examples_dim_rule(2),
    "conv3d": examples_dim_rule(3),
    "max_pool1d": examples_dim_rule(1), "max_pool2d": examples_dim_rule(2),
    "avg_pool1d": examples_dim_rule(1), "avg_pool2d": examples_dim_rule(2),
    "adaptive_avg_pool2d": examples_dim_rule(2), "group_norm": examples_dim_rule(None),
    "conv_transpose1d": examples_dim_rule(1), "conv_transpose2d": examples_dim_rule(2),
    "conv_transpose3d": examples_dim_rule(3),
    "adaptive_avg_pool1d": examples_dim_rule(1), "adaptive_max_pool1d": examples_dim_rule(1),
    "adaptive_max_pool2d": examples_dim_rule(2), "unfold": examples_dim_rule(2),
    "max_pool3d": examples_dim_rule(3), "avg_pool3d": examples_dim_rule(3),
    "adaptive_avg_pool3d": examples_dim_rule(3), "adaptive_max_pool3d": examples_dim_rule(3),
    "fold": examples_dim_rule(1), "interpolate": examples_dim_rule(None),
    "channel_shuffle": examples_dim_rule(None), "pixel_shuffle": leading_dims_rule,
    "pixel_unshuffle": leading_dims_rule, "upsample": examples_dim_rule(None),
    "upsample_nearest": examples_dim_rule(None), "upsample_bilinear": examples_dim_rule(None),
    "lp_pool1d": examples_dim_rule(1), "lp_pool2d": examples_dim_rule(2),
    "lp_pool3d": examples_dim_rule(3),
    "scaled_dot_product_attention": attention_rule,
    # indexing
    "getitem": getitem_rule, "__getitem__": getitem_rule, "setitem": setitem_rule,
    "__setitem__": setitem_rule,
})


RULES.update({name: _logical_promotion(RULES[name]) for name in _BINARY})
RULES["fill_"] = fill_rule


def to_rule(original, args, kwargs):
    """``x.to(other)``: other's dtype and device, whether or not other is batched."""
    other = args[1] if len(args) > 1 else kwargs.get("other")
    if is_batched(other):
        args = (args[0], other.device, other.dtype) + tuple(args[2:])
        kwargs = {k: v for k, v in kwargs.items() if k != "other"}
    return _one(original, args, kwargs)


def view_as_complex_rule(original, args, kwargs):
    if logical_ndim(args[0]) == 0:
        raise RuntimeError("Input tensor must have one or more dimensions")
    return _one(original, args, kwargs)


RULES["to"] = to_rule
# Tensor.unfold(dimension, size, step): a view, its windows in a new last dim
RULES["Tensor.unfold"] = dims_rule((1, "dimension", None))


def _nuclear_per_example(rule):
    """norm(x, 'nuc') of every logical dim is a matrix norm, not one over a flattening."""
    def checked(original, args, kwargs):
        dim = _get(args, kwargs, 2, "dim", None)
        if _get(args, kwargs, 1, "p", "fro") == "nuc" and dim is None:
            return FALLBACK
        return rule(original, args, kwargs)
    return checked


RULES["norm"] = _nuclear_per_example(RULES["norm"])


def _masked_fill_rule(inplace):
    """masked_fill with a batched 0-dim value tensor: each example's own value (the op
    itself takes a 0-dim value only), as ``where(mask, value, self)``."""
    plain = elementwise_inplace if inplace else elementwise

    def rule(original, args, kwargs):
        value = _get(args, kwargs, 2, "value", None)
        if not is_batched(value):
            return plain(original, args, kwargs)
        self, mask = args[0], _get(args, kwargs, 1, "mask", None)
        if logical_ndim(value) != 0:
            raise RuntimeError("masked_fill_ only supports a 0-dimensional value tensor, but "
                               f"got tensor with {logical_ndim(value)} dimension(s).")
        levels = union_levels((self, mask, value))
        if inplace and levels_of(self) != levels:
            raise RuntimeError(INPLACE_ERROR)
        ndim = max(logical_ndim(self), logical_ndim(mask))
        import autograd_cy
        x = aligned(self, levels, ndim)
        filled = autograd_cy.where(aligned(mask, levels, ndim),
                                   aligned(value, levels, ndim).to(x.dtype), x)
        if inplace:
            self._physical.copy_(filled)
            return self
        return batched(filled, levels)
    return rule


RULES["masked_fill"] = _masked_fill_rule(False)
RULES["masked_fill_"] = _masked_fill_rule(True)


def _transpose_of_0_dim(rule):
    """transpose of a 0-dim example (dims 0 and -1 are its one unit dim) is the input
    itself, as torch's rule returns it."""
    def transposed(original, args, kwargs):
        self = args[0]
        if is_batched(self) and logical_ndim(self) == 0:
            dims = (_get(args, kwargs, 1, "dim0", 0), _get(args, kwargs, 2, "dim1", 0))
            if all(d in (0, -1) for d in dims):
                return self
        return rule(original, args, kwargs)
    return transposed


RULES["transpose"] = _transpose_of_0_dim(RULES["transpose"])
RULES["view_as_complex"] = view_as_complex_rule
RULES["clone"] = _format_checked("clone", RULES["clone"])
RULES["contiguous"] = _format_checked("contiguous", RULES["contiguous"])
RULES["where"] = _refuse_dynamic_shape(
    "where", RULES["where"], lambda args, kwargs: len(args) + len(kwargs) == 1)
RULES["one_hot"] = _one_hot_checked(RULES["one_hot"])
