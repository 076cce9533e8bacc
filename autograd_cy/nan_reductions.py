"""Reductions that skip NaN: ``nansum``, ``nanmean``, ``nanmedian``.

Each treats a NaN as absent: ``nansum`` as a zero (an integer or bool input sums as
``sum``), ``nanmean`` divides by the count of the others (all NaN: NaN), ``nanmedian``
takes the lower median of the others (all NaN: NaN). ``nansum`` is an op with torch's node
(``NansumBackward0``), ``nanmean`` its quotient by the count; a NaN entry gets none of a
finite gradient (the gradient times the mask, as torch's);
``nanmedian`` over all elements shares the gradient evenly among the entries equal to the
result (torch's ``evenly_distribute_backward``, ``NanmedianBackward0``), over a dim gives it
to the chosen entry (``NanmedianBackward1``).

>>> import autograd_cy as ag
>>> ag.tensor([1.0, float("nan"), 3.0]).nansum()
tensor(4.)
"""
from collections import namedtuple

import autograd_cy as _ag
from autograd_cy._C.tensor import _register_methods
from autograd_cy.autograd.function import Function
from autograd_cy.dtypes import _refuse_complex
from autograd_cy.reorder import _wrap

__all__ = ["nansum", "nanmean", "nanmedian"]

nanmedian_result = namedtuple("nanmedian", ["values", "indices"])


def _without_nan(input):
    """``input`` with each NaN replaced by a zero (a gradient of zero there)."""
    if not (input.is_floating_point() or input.is_complex()):
        return input
    return _ag.where(_ag.isnan(input), _ag.zeros((), dtype=input.dtype, device=input.device),
                     input)


def _reduced_dims(input, dim):
    """``dim`` (an int, a tuple, or None for all) as a sorted tuple of wrapped dims."""
    if dim is None:
        return tuple(range(input.dim()))
    dims = (dim,) if isinstance(dim, int) else tuple(dim)
    return tuple(sorted(_wrap(d, input.dim()) for d in dims)) if dims else tuple(
        range(input.dim()))


class Nansum(Function):
    """``nansum``'s op (``NansumBackward0``): the gradient broadcast back, zero at the NaN
    entries; the tangent summed alike."""
    builtin_op = True

    @staticmethod
    def forward(ctx, input, dims, keepdim, dtype):
        ctx.dims, ctx.keepdim, ctx.dtype = dims, keepdim, dtype
        ctx.save_for_backward(input)
        ctx.input = input
        if not keepdim and len(dims) == input.dim():
            return _without_nan(input).sum(dtype=dtype)
        return _without_nan(input).sum(dims, keepdim=keepdim, dtype=dtype)

    @staticmethod
    def backward(ctx, grad):
        (input,) = ctx.saved_tensors
        grad = grad.to(input.dtype)
        if not ctx.keepdim and input.dim():     # (a 0-dim input's dim 0 is no dim)
            for d in ctx.dims:
                grad = grad.unsqueeze(d)
        # times the mask, as torch's formula: a NaN or infinite gradient (the quotient of
        # an all-NaN nanmean) makes the NaN entries' NaN, not 0
        return (grad.expand(input.shape) * _ag.logical_not(_ag.isnan(input)), None, None,
                None)

    @staticmethod
    def jvp(ctx, input_t, dims_t, keepdim_t, dtype_t):
        return Nansum.apply(_ag.where(_ag.isnan(ctx.input), input_t.new_zeros(()), input_t),
                            ctx.dims, ctx.keepdim, ctx.dtype)


Nansum._backward_cls.__name__ = "NansumBackward0"


def nansum(input, dim=None, keepdim=False, *, dtype=None):
    """The sum of the entries that are not NaN, over all dims or over ``dim`` (an int or a
    tuple); integers and bools sum as int64, as ``sum``."""
    if input.is_complex():
        raise RuntimeError("nansum on CPU does not support complex inputs")
    return Nansum.apply(input, _reduced_dims(input, dim), keepdim, dtype)


def nanmean(input, dim=None, keepdim=False, *, dtype=None):
    """The mean of the entries that are not NaN (``nansum`` over their count)."""
    if not (input.is_floating_point() or input.is_complex()):
        raise RuntimeError(f"nanmean(): expected input to have floating point or complex "
                           f"dtype but got {input.dtype._scalar_name}")
    count = _ag.logical_not(_ag.isnan(input))
    dims = tuple(range(input.dim())) if dim is None else dim
    return nansum(input, dims, keepdim, dtype=dtype) / count.sum(dims, keepdim=keepdim)


def _lower_median_of_rows(input):
    """The lower median of the non-NaN entries of each row of a 2-D ``input`` (NaN where a
    row has none) and its index in the row."""
    values, order = input.sort(-1)                   # NaN sorts last
    present = _ag.logical_not(_ag.isnan(values)).sum(-1, keepdim=True)
    middle = ((present - 1).clamp_min(0)) // 2
    return values.gather(-1, middle).squeeze(-1), order.gather(-1, middle).squeeze(-1)


class _NanmedianAll(Function):
    """``nanmedian(input)`` over all elements (``NanmedianBackward0``): the gradient shared
    evenly among the entries equal to the result (the NaN entries, for a NaN result)."""
    builtin_op = True

    @staticmethod
    def forward(ctx, input):
        value = _lower_median_of_rows(input.reshape(1, -1))[0].reshape(())
        ctx.save_for_backward(input, value)
        ctx.save_for_forward(input, value)
        return value

    @staticmethod
    def _share(ctx):
        input, value = ctx.saved_tensors
        chosen = _ag.isnan(input) if bool(_ag.isnan(value)) else input == value
        chosen = chosen.to(input.dtype)
        return chosen / chosen.sum()

    @staticmethod
    def backward(ctx, grad):
        return grad * _NanmedianAll._share(ctx)

    @staticmethod
    def jvp(ctx, input_t):
        return (input_t * _NanmedianAll._share(ctx)).sum()


_NanmedianAll._backward_cls.__name__ = "NanmedianBackward0"


def nanmedian(input, dim=None, keepdim=False):
    """The lower median of the entries that are not NaN: a tensor over all elements, or
    ``(values, indices)`` over ``dim``."""
    if input.dtype is _ag.bool:
        raise NotImplementedError("\"median_cpu\" not implemented for 'Bool'")
    if dim is None:
        if input.numel() == 0:
            if input.is_complex() and input.requires_grad and _ag.is_grad_enabled():
                raise RuntimeError("nanmedian does not support automatic differentiation "
                                   "for outputs with complex dtype.")
            return _ag.full((), float("nan"), dtype=input.dtype, device=input.device)
        _refuse_complex(input.dtype, "median_cpu")
        return _NanmedianAll.apply(input)
    dim = _wrap(dim, input.dim())
    if input.dim() and input.shape[dim] == 0:
        raise IndexError(f"median(): Expected reduction dim {dim} to have non-zero size.")
    _refuse_complex(input.dtype, "median_out")
    if input.dim() == 0:
        return nanmedian_result(input.clone(), _ag.zeros((), dtype=_ag.int64,
                                                         device=input.device))
    return nanmedian_result(*NanmedianDim.apply(input, dim, keepdim))


class NanmedianDim(Function):
    """``nanmedian(input, dim)``'s op (``NanmedianBackward1``): the gradient goes to the
    chosen entries (``scatter`` at the indices), the tangent is read there (``gather``)."""
    builtin_op = True

    @staticmethod
    def forward(ctx, input, dim, keepdim):
        moved = input.movedim(dim, -1)
        values, indices = _lower_median_of_rows(moved.reshape(-1, moved.shape[-1]))
        shape = tuple(moved.shape[:-1])
        values, indices = values.reshape(shape), indices.reshape(shape)
        if keepdim:
            values, indices = values.unsqueeze(dim), indices.unsqueeze(dim)
        ctx.dim, ctx.keepdim, ctx.shape = dim, keepdim, tuple(input.shape)
        ctx.save_for_backward(indices)
        ctx.indices = indices
        ctx.mark_non_differentiable(indices)
        return values, indices

    @staticmethod
    def backward(ctx, grad, grad_indices):
        (indices,) = ctx.saved_tensors
        if not ctx.keepdim:
            grad, indices = grad.unsqueeze(ctx.dim), indices.unsqueeze(ctx.dim)
        return grad.new_zeros(ctx.shape).scatter(ctx.dim, indices, grad), None, None

    @staticmethod
    def jvp(ctx, input_t, dim_t, keepdim_t):
        indices = ctx.indices if ctx.keepdim else ctx.indices.unsqueeze(ctx.dim)
        values = input_t.gather(ctx.dim, indices)
        return (values if ctx.keepdim else values.squeeze(ctx.dim)), None


NanmedianDim._backward_cls.__name__ = "NanmedianBackward1"


_register_methods({"nansum": nansum, "nanmean": nanmean, "nanmedian": nanmedian})
