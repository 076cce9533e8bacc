"""``scatter_reduce`` and ``Tensor.scatter_reduce_``: ``src``'s entries reduced into
``input`` at the places ``index`` names along ``dim`` (``sum``, ``prod``, ``mean``,
``amax``, ``amin``), with ``input``'s own values taking part or not (``include_self``).

One op with torch's node (``ScatterReduceBackward0``). The forward is NumPy's unbuffered
``ufunc.at`` on the host (a CUDA tensor's values go through the host): places that
receive values start from the reduction's identity when ``include_self=False``; ``mean``
divides by the count of values reduced into each place (1 for a place that received
none), rounding down for integers as torch's. The index checks and their messages are
``scatter_add``'s (torch shares them).

# NOTE [scatter_reduce's gradients]
torch's formulas, written with Tensor ops (so a double backward records again):
- sum: input gets ``grad``, src ``grad.gather(dim, index)``;
- mean: both divided by the count of each place (``include_self`` counted);
- amax / amin: shared evenly among the entries equal to the result, input's entries
  counted among them even without ``include_self`` (whose share is then dropped, as
  torch's);
- prod: input gets ``grad * result / input`` with its zeros read as ones (the product of
  the rest); src the same, except an entry that is the only zero reduced into its place,
  which gets ``grad`` times the product of the others (the op run again with that zero made
  a one). Two zeros in one place have no double backward in torch: src's gradient is then
  routed through an Error node (torch's DelayedError), so differentiating it raises
  instead of returning the wrong zeros of the formula's derivative.
Without ``include_self``, input's gradient is zero where anything was scattered.

>>> import autograd_cy as ag
>>> ag.zeros(3).scatter_reduce(0, ag.tensor([0, 0, 2]), ag.tensor([1.0, 2.0, 3.0]), "amax")
tensor([2., 0., 3.])
"""
import numpy as np

import autograd_cy as _ag
from autograd_cy._C.function import delayed_error as _delayed_error
from autograd_cy._C.ops.inplace import apply_in_place
from autograd_cy._C.tensor import _array_of, _register_methods, _wrap_array
from autograd_cy.autograd.function import Function
from autograd_cy.reorder import _wrap
from autograd_cy.slice_scatters import _refuse_complex_autograd

__all__ = ["scatter_reduce"]

_UFUNCS = {"sum": np.add, "mean": np.add, "prod": np.multiply, "amax": np.maximum,
           "amin": np.minimum}


def _identity(reduce, dtype):
    if reduce in ("sum", "mean"):
        return 0
    if reduce == "prod":
        return 1
    if dtype.kind in "fV":          # (ml_dtypes' bfloat16 is of kind "V")
        return -np.inf if reduce == "amax" else np.inf
    if dtype.kind == "b":
        return reduce == "amin"
    info = np.iinfo(dtype)
    return info.min if reduce == "amax" else info.max


def _targets(index, dim):
    """Where each entry of ``index`` sends its value: the index of ``input`` with the entry's
    own position in every dim but ``dim``."""
    grid = list(np.indices(index.shape, sparse=True))
    grid[dim] = index
    return tuple(grid)


def _host(tensor):
    return np.asarray(_array_of(tensor.detach().cpu()))


def _reduced(input, dim, index, src, reduce, include_self):
    """The values of ``scatter_reduce`` (a new tensor on ``input``'s device). float16 and
    bfloat16 accumulate in float32 and round once, as torch's CPU kernel does."""
    # a 0-dim tensor is read as one element (NOTE [A 0-dim tensor as one element])
    out = _host(input).copy().reshape(tuple(input.shape) or (1,))
    dtype = out.dtype
    if dtype.itemsize == 2 and input.dtype.is_floating_point:
        out = out.astype(np.float32)
    positions = _host(index).reshape(tuple(index.shape) or (1,))
    values = _host(src).reshape(tuple(src.shape) or (1,))
    values = values[tuple(slice(0, size) for size in positions.shape)]
    targets = _targets(positions, dim)
    if not include_self and positions.size:
        out[targets] = _identity(reduce, out.dtype)
    with np.errstate(all="ignore"):             # NaN propagates silently, as torch's
        _UFUNCS[reduce].at(out, targets, values)
    if reduce == "mean":
        count = np.full(out.shape, 1 if include_self else 0, dtype=np.int64)
        np.add.at(count, targets, 1)
        count[count == 0] = 1
        if out.dtype.kind in "fc":
            out = (out / count).astype(out.dtype)
        else:
            out = np.floor_divide(out, count).astype(out.dtype)
    return _wrap_array(out.astype(dtype, copy=False).reshape(tuple(input.shape))).to(
        input.device)


class ScatterReduce(Function):
    """``scatter_reduce``'s op (``ScatterReduceBackward0``; NOTE [scatter_reduce's
    gradients])."""
    builtin_op = True

    @staticmethod
    def forward(ctx, input, dim, index, src, reduce, include_self, op_name="scatter_reduce"):
        # op_name: the public op this node computes, for its double backward's error
        ctx.dim, ctx.reduce, ctx.include_self, ctx.op_name = dim, reduce, include_self, op_name
        out = _reduced(input, dim, index, src, reduce, include_self)
        # the result too, unread, as torch's node saves it (whatever the reduction): writing
        # it in place afterwards makes the backward refuse
        ctx.save_for_backward(input, index, src, out)
        return out

    @staticmethod
    def backward(ctx, grad):
        input, index, src, _ = ctx.saved_tensors
        dim, reduce, include_self = ctx.dim, ctx.reduce, ctx.include_self
        if reduce == "sum":
            grad_input, grad_src = grad, grad.gather(dim, index)
        elif reduce == "mean":
            count = _ag.full_like(grad, 1 if include_self else 0).scatter_add(
                dim, index, _ag.ones_like(src))
            count = _ag.where(count == 0, _ag.ones_like(count), count)
            grad_input = grad / count
            grad_src = grad_input.gather(dim, index)
        elif reduce in ("amax", "amin"):
            result = _reduced(input.detach(), dim, index, src.detach(), reduce, include_self)
            input_is_result = (input == result).to(grad.dtype)
            src_is_result = (src == result.gather(dim, index)).to(grad.dtype)
            shares = input_is_result.scatter_add(dim, index, src_is_result)
            distributed = grad / shares
            grad_input = input_is_result * distributed
            grad_src = src_is_result * distributed.gather(dim, index)
        else:
            grad_input, grad_src = ScatterReduce._product_gradients(ctx, grad, input, index,
                                                                    src)
        if not include_self:
            grad_input = grad_input.scatter(dim, index, 0)
        return grad_input, None, None, grad_src, None, None, None

    @staticmethod
    def _product_gradients(ctx, grad, input, index, src):
        dim, include_self, op_name = ctx.dim, ctx.include_self, ctx.op_name
        one = _ag.ones((), dtype=input.dtype, device=input.device)
        result = ScatterReduce.apply(input, dim, index, src, "prod", include_self, op_name)
        input_ones = _ag.where(input == 0, one, input)
        grad_input = grad * ScatterReduce.apply(input_ones, dim, index, src, "prod",
                                                include_self, op_name) / input_ones
        src_zero = src == 0
        zeros_at = _ag.zeros_like(input).scatter_add(dim, index, src_zero.to(input.dtype))
        single_zero = _ag.logical_and(src_zero, zeros_at.gather(dim, index) == 1)
        others = ScatterReduce.apply(input, dim, index, _ag.where(single_zero, one, src),
                                     "prod", include_self, op_name)
        grad_src = _ag.where(single_zero, (grad * others).gather(dim, index),
                             (grad * result).gather(dim, index) / _ag.where(src_zero, one,
                                                                             src))
        if grad_src.requires_grad and bool((zeros_at > 1).any()):
            name = "src" if op_name == "scatter_reduce" else "source"
            (grad_src,) = _delayed_error(
                f"{op_name}(): Double backward is unsupported for {name} when >1 zeros in "
                f"{name} are scattered to the same position in self", (grad_src,),
                keep_history=True)
        return grad_input, grad_src


ScatterReduce._backward_cls.__name__ = "ScatterReduceBackward0"


def scatter_reduce(input, dim, index, src, reduce, *, include_self=True):
    """``input`` with ``src``'s entries reduced into the places ``index`` names along
    ``dim``: ``reduce`` is "sum", "prod", "mean", "amax" or "amin"."""
    if reduce not in _UFUNCS:
        raise RuntimeError(f"reduce argument must be either sum, prod, mean, amax or amin, "
                           f"got {reduce}")
    dim = _wrap(dim, input.dim())
    _ag.scatter_add(input.detach(), dim, index, src.detach())    # its checks and messages
    _refuse_dtype(input, index, reduce)
    out = ScatterReduce.apply(input, dim, index, src, reduce, include_self)
    _refuse_complex_autograd("scatter_reduce", input, src)     # (after torch's kernel)
    return out


def _refuse_dtype(input, index, reduce):
    """torch's CPU kernel has no amax/amin of complex numbers and no mean of bools (an
    empty index reaches no kernel, but the mean's division refuses bools still)."""
    dtype = input.dtype
    if (reduce in ("amax", "amin") and dtype.is_complex or reduce == "mean"
            and dtype.itemsize == 1 and dtype._scalar_name == "Bool"):
        kernel = (f"scatter_gather_tensor_cpu_reduce_{reduce}" if index.numel()
                  else "div_floor_cpu")
        if index.numel() or reduce == "mean":
            raise NotImplementedError(f"\"{kernel}\" not implemented for "
                                      f"'{dtype._scalar_name}'")


def scatter_reduce_(self, dim, index, src, reduce, *, include_self=True):
    """``scatter_reduce`` in place."""
    return apply_in_place(self, lambda source: scatter_reduce(
        source, dim, index, src, reduce, include_self=include_self), (index, src))


_register_methods({"scatter_reduce": scatter_reduce, "scatter_reduce_": scatter_reduce_})
