"""``cumsum``, ``cumprod``, ``cummax`` and ``cummin``: running sums, products, maxima and
minima along a dim.

``cummax`` and ``cummin`` return the int64 index of each running extreme too (torch's
nodes ``CummaxBackward0``, ``CumminBackward0``; the gradient goes to those entries,
through ``scatter_add``, as sort's).

One op with torch's node (``CumsumBackward0``). Each input entry adds to every output at
or after it along the dim, so its gradient is the sum of the output gradients from its
place to the end: the gradient's cumsum in reverse order (flip, cumsum, flip), through the
same op, so a double backward records again; a tangent is summed as the input.

Integer and bool inputs sum in int64, as torch's; ``dtype=`` converts the input first (and
the backward converts the gradient back to the input's dtype). float16 and bfloat16 sum in
float32, float32 in float64, each output rounded once, as torch's CPU kernel accumulates.

# NOTE [A scan on a device]
NumPy's ``cumsum`` is a loop over the host's memory. On a device array the sum is a scan
of ``log2(n)`` elementwise steps (Hillis and Steele): after the step of ``shift``, entry
``i`` holds the sum of the ``2 * shift`` entries ending at ``i``, so the step adds to each
entry the one ``shift`` places before it. Each step is one add and one concatenate, ops
every device has; float results may differ from the sequential sum in the last bits.

>>> import autograd_cy as ag
>>> ag.arange(1, 5).cumsum(0)
tensor([ 1,  3,  6, 10])
"""
from collections import namedtuple

import ml_dtypes
import numpy as np

import autograd_cy as _ag
from autograd_cy._C.tensor import _array_of, _register_methods, _wrap_array
from autograd_cy.autograd.function import Function
from autograd_cy.dtypes import _refuse_complex
from autograd_cy.log_add_exp import complex_log_add_exp
from autograd_cy.reorder import _wrap

__all__ = ["cumsum", "cumprod", "cummax", "cummin", "logcumsumexp"]

cummax_result = namedtuple("cummax", ["values", "indices"])
cummin_result = namedtuple("cummin", ["values", "indices"])

# The dtype torch's CPU kernel accumulates each dtype in (its acc_type), where it is wider.
_ACCUMULATE = {np.dtype(np.float16): np.float32, np.dtype(ml_dtypes.bfloat16): np.float32,
               np.dtype(np.float32): np.float64, np.dtype(np.complex64): np.complex128}


def _scan(array, axis, combine):
    """``combine`` (an associative ufunc: add, maximum, minimum) accumulated along
    ``axis``: NumPy's ``accumulate`` on the host, a scan of log2(n) steps on a device
    (NOTE [A scan on a device])."""
    if isinstance(array, np.ndarray):
        return combine.accumulate(array, axis=axis)
    size = array.shape[axis]
    if size <= 1:               # nothing to combine: a copy, never the input's memory
        return array.copy()
    before = (slice(None),) * axis
    shift = 1
    while shift < size:
        head = array[before + (slice(0, shift),)]
        tail = combine(array[before + (slice(shift, None),)],
                       array[before + (slice(0, size - shift),)])
        array = np.concatenate([head, tail], axis=axis)
        shift *= 2
    return array


def _running_sum(array, axis):
    """The cumulative sum of ``array`` along ``axis``, accumulated as torch's CPU kernel
    does and rounded to ``array``'s dtype."""
    accumulate = _ACCUMULATE.get(array.dtype)
    total = array if accumulate is None else array.astype(accumulate)
    return _scan(total, axis, np.add).astype(array.dtype, copy=False)


class Cumsum(Function):
    """``cumsum``'s op (``CumsumBackward0``)."""
    builtin_op = True

    @staticmethod
    def forward(ctx, input, dim, dtype):
        ctx.dim, ctx.dtype, ctx.input_dtype = dim, dtype, input.dtype
        converted = input if dtype is None else input.to(dtype)
        if not converted.is_floating_point() and not converted.is_complex():
            converted = converted.to(_ag.int64)
        array = _array_of(converted)
        if array.ndim == 0:
            return _wrap_array(array.copy())
        return _wrap_array(_running_sum(array, dim))

    @staticmethod
    def backward(ctx, grad):
        if grad.dim() == 0:
            return grad.to(ctx.input_dtype), None, None
        grad = grad.to(ctx.input_dtype).flip(ctx.dim)
        return Cumsum.apply(grad, ctx.dim, None).flip(ctx.dim), None, None

    @staticmethod
    def jvp(ctx, input_t, dim_t, dtype_t):
        return Cumsum.apply(input_t, ctx.dim, ctx.dtype)


Cumsum._backward_cls.__name__ = "CumsumBackward0"


def cumsum(input, dim, *, dtype=None):
    """The running sum of ``input`` along ``dim``; integer and bool inputs give int64 (or
    ``dtype``)."""
    return Cumsum.apply(input, _wrap(dim, input.dim()), dtype)


# NOTE [cumprod's gradient with zeros]
# Output j is the product of the inputs up to j, so input k's gradient is the sum over j >= k
# of grad_j times the product of the inputs up to j but k. Without a zero in the row that is
# ``sum_{j >= k} grad_j out_j / x_k``: a reversed cumsum divided by the input (one pass).
# With a zero the division is 0/0, so those rows take the sum as it is written: for each k
# the running product of the row with x_k replaced by 1, kept where j >= k, weighted by the
# gradient and summed (n^2 values a row). Both are written with Tensor ops (cumprod itself
# among them), so a double backward records again; complex inputs take the conjugates.

def _running_product(array, axis):
    """The cumulative product of ``array`` along ``axis``, accumulated as cumsum's."""
    accumulate = _ACCUMULATE.get(array.dtype)
    total = array if accumulate is None else array.astype(accumulate)
    if isinstance(total, np.ndarray):
        return np.multiply.accumulate(total, axis=axis).astype(array.dtype, copy=False)
    return _scan(total, axis, np.multiply).astype(array.dtype, copy=False)


class Cumprod(Function):
    """``cumprod``'s op (``CumprodBackward0``; NOTE [cumprod's gradient with zeros])."""
    builtin_op = True

    @staticmethod
    def forward(ctx, input, dim, dtype):
        ctx.dim, ctx.dtype, ctx.input_dtype = dim, dtype, input.dtype
        converted = input if dtype is None else input.to(dtype)
        if not converted.is_floating_point() and not converted.is_complex():
            converted = converted.to(_ag.int64)
        ctx.converted = converted       # the jvp's operand (saved tensors are for backward)
        array = _array_of(converted)
        out = _wrap_array(array.copy() if array.ndim == 0 else _running_product(array, dim))
        # the result too, unread, as torch's node saves it: writing it in place afterwards
        # makes the backward refuse
        # (and the input, where dtype= converted it: torch's formula reads self)
        ctx.save_for_backward(converted, out, *(() if converted is input else (input,)))
        return out

    @staticmethod
    def backward(ctx, grad):
        saved = ctx.saved_tensors
        x, self = saved[0], saved[2] if len(saved) > 2 else saved[0]
        if x.dim() == 0 or x.shape[ctx.dim] <= 1:
            # torch's formula returns the gradient itself for a dim of one element (or none):
            # under create_graph it depends on nothing the forward saved
            return grad.to(ctx.input_dtype), None, None
        dim = ctx.dim
        out = Cumprod.apply(x, dim, None)
        # torch's: the gradient in self's dtype, divided by self (a complex self converted
        # to a real dtype= gets a complex gradient)
        grad = grad.to(self.dtype) if self.is_complex() and not x.is_complex() else grad
        reversed_sum = Cumsum.apply((grad * out.conj()).flip(dim), dim, None).flip(dim)
        if bool((self != 0).all()):
            return (reversed_sum / self.conj()).to(ctx.input_dtype), None, None
        nonzero = x != 0
        if bool(nonzero.all()):
            return (reversed_sum / x.conj()).to(ctx.input_dtype), None, None
        # rows with a zero: the products written out (n^2 a row)
        n = x.shape[dim]
        rows = x.movedim(dim, -1).unsqueeze(-2).expand(*x.movedim(dim, -1).shape[:-1], n, n)
        diagonal = _ag.eye(n, dtype=_ag.bool, device=x.device)
        excluded = _ag.where(diagonal, _ag.ones((), dtype=x.dtype, device=x.device), rows)
        products = Cumprod.apply(excluded, excluded.dim() - 1, None)
        after = _ag.ones(n, n, dtype=_ag.bool, device=x.device).triu()
        weighted = products.conj() * grad.movedim(dim, -1).unsqueeze(-2)
        full = _ag.where(after, weighted, _ag.zeros((), dtype=weighted.dtype,
                                                        device=x.device)).sum(-1)
        result = full.movedim(-1, dim)
        return result.to(ctx.input_dtype), None, None

    @staticmethod
    def jvp(ctx, input_t, dim_t, dtype_t):
        """The tangent: output j's is the sum over k <= j of x_t[k] times the product of the
        row's inputs up to j but k (the backward's products, summed the other way)."""
        x = ctx.converted
        t = input_t if ctx.dtype is None else input_t.to(ctx.dtype)
        if x.dim() == 0:
            return t
        dim, n = ctx.dim, x.shape[ctx.dim]
        rows = x.movedim(dim, -1).unsqueeze(-2).expand(*x.movedim(dim, -1).shape[:-1], n, n)
        diagonal = _ag.eye(n, dtype=_ag.bool, device=x.device)
        excluded = _ag.where(diagonal, _ag.ones((), dtype=x.dtype, device=x.device), rows)
        products = Cumprod.apply(excluded, excluded.dim() - 1, None)    # [k, j]
        after = _ag.ones(n, n, dtype=_ag.bool, device=x.device).triu()
        terms = _ag.where(after, products * t.movedim(dim, -1).unsqueeze(-1),
                          _ag.zeros((), dtype=products.dtype, device=x.device))
        return terms.sum(-2).movedim(-1, dim)


Cumprod._backward_cls.__name__ = "CumprodBackward0"


def cumprod(input, dim, *, dtype=None):
    """The running product of ``input`` along ``dim``; integer and bool inputs give int64
    (or ``dtype``)."""
    return Cumprod.apply(input, _wrap(dim, input.dim()), dtype)


# NOTE [The index of a running maximum]
# cummax's index at i is that of the entry the running maximum came from, the latest one on
# a tie (torch's kernel takes x >= max). The running maximum only changes where an entry
# equals it, so the index is the latest j <= i with x[j] == max[j] (or x[j] NaN, which
# stays the maximum once met): a running maximum of j over those places.

def _running_extreme(array, axis, largest, device):
    """(values, int64 indices) of the running maximum (minimum) along ``axis`` of the
    array of a tensor on ``device``."""
    values = _scan(array, axis, np.maximum if largest else np.minimum)
    shape = [1] * array.ndim
    shape[axis] = array.shape[axis]
    positions = np.arange(array.shape[axis], dtype=np.int64).reshape(shape)
    if not isinstance(array, np.ndarray):
        positions = _array_of(_ag.tensor(positions, device=device))
    reached = array == values
    if array.dtype.kind in "fc" or array.dtype in _ACCUMULATE:
        reached = reached | np.isnan(array)
    marked = np.where(reached, positions, np.zeros_like(positions))
    return values, _scan(marked, axis, np.maximum)


class _Cumextreme(Function):
    builtin_op = True

    @staticmethod
    def forward(ctx, input, dim, largest):
        ctx.dim, ctx.shape = dim, tuple(input.shape)
        array = _array_of(input)
        if array.ndim == 0:
            values, indices = array.copy(), np.zeros_like(array, dtype=np.int64)
        else:
            values, indices = _running_extreme(array, dim, largest, input.device)
        values, indices = _wrap_array(values), _wrap_array(indices)
        ctx.mark_non_differentiable(indices)
        # the input too, unread, as torch's node saves self: writing it in place afterwards
        # makes the backward refuse
        ctx.save_for_backward(indices, input)
        ctx.save_for_forward(indices)
        return values, indices

    @staticmethod
    def backward(ctx, grad, grad_indices):
        indices, input = ctx.saved_tensors
        if input.numel() == 0:
            return input, None, None    # torch's formula returns the saved input itself
        if not ctx.shape:
            return grad, None, None
        base = _ag.zeros(ctx.shape, dtype=grad.dtype, device=grad.device)
        return base.scatter_add(ctx.dim, indices, grad), None, None

    @staticmethod
    def jvp(ctx, input_t, dim_t, largest_t):
        indices = ctx.saved_tensors[0]
        if not ctx.shape:
            return input_t.clone(), None
        return input_t.gather(ctx.dim, indices), None


class Cummax(_Cumextreme):
    """``cummax``'s op (``CummaxBackward0``)."""


class Cummin(_Cumextreme):
    """``cummin``'s op (``CumminBackward0``)."""


Cummax._backward_cls.__name__ = "CummaxBackward0"
Cummin._backward_cls.__name__ = "CumminBackward0"


def _refuse_complex_extreme(input, name):
    """A complex tensor: refused by torch's kernel, which runs on neither a 0-dim nor an
    empty one; those are refused by its autograd where the result would record."""
    if not input.is_complex():
        return
    if input.dim() and input.numel():
        _refuse_complex(input.dtype, f"{name}_cpu")
    if _ag.is_grad_enabled() and input.requires_grad:
        raise RuntimeError(f"{name} does not support automatic differentiation for outputs "
                           "with complex dtype.")


def cummax(input, dim):
    """The running maximum along ``dim`` and the int64 index each came from (NOTE [The
    index of a running maximum]); its gradient goes to those entries."""
    _refuse_complex_extreme(input, "cummax")
    return cummax_result(*Cummax.apply(input, _wrap(dim, input.dim()), True))


def cummin(input, dim):
    """The running minimum along ``dim`` and the int64 index each came from."""
    _refuse_complex_extreme(input, "cummin")
    return cummin_result(*Cummin.apply(input, _wrap(dim, input.dim()), False))


# NOTE [logcumsumexp's gradient in log space]
# Output i is log(sum_{j <= i} exp(x_j)), so input j's gradient is
# sum_{i >= j} grad_i exp(x_j - out_i): a reversed running sum, which overflows if summed as
# it is written. torch's formula sums in log space instead, the positive and the negative
# gradients apart: exp(x_j + reversed_logcumsumexp(log(grad+) - out)) minus the same of
# grad-, where an absent part is the dtype's lowest finite number (not -inf, whose
# difference with an infinite output would be NaN). It is written with logcumsumexp
# itself, so a double backward records again. A complex input is holomorphic: its gradient
# is conj(exp(x + reversed_logcumsumexp(log(conj(grad)) - out))). The tangent is torch's:
# cumsum(t * exp(x - max)) / cumsum(exp(x - max)), max over the dim (of the real parts).

def _complex_running_logaddexp(array, axis):
    """logcumsumexp of a complex array along ``axis``, from an accumulator of -inf, as
    torch's CPU kernel: complex64 accumulated in complex128, each output rounded."""
    moved = np.moveaxis(array, axis, 0)
    out = np.empty_like(moved)
    wide = _ACCUMULATE.get(moved.dtype, moved.dtype)
    accumulated = np.full(moved.shape[1:], complex(-np.inf, 0), dtype=wide)
    with np.errstate(all="ignore"):             # infinities and NaN are handled above
        for index in range(moved.shape[0]):
            accumulated = complex_log_add_exp(moved[index].astype(wide), accumulated).astype(
                wide)
            out[index] = accumulated
    return np.moveaxis(out, 0, axis)


class Logcumsumexp(Function):
    """``logcumsumexp``'s op (``LogcumsumexpBackward0``; NOTE [logcumsumexp's gradient in
    log space]): a running ``logaddexp``, float32 accumulated in float64 as torch's CPU
    kernel does (a CUDA tensor's on the host)."""
    builtin_op = True

    @staticmethod
    def forward(ctx, input, dim):
        ctx.dim = dim
        ctx.input = input           # the jvp's operand (saved tensors are for backward)
        array = _array_of(input.detach().cpu())     # a device's values through the host
        if array.ndim == 0:
            out = array.copy()
        elif array.dtype.kind == "c":
            out = _complex_running_logaddexp(array, dim)
        else:
            accumulate = _ACCUMULATE.get(array.dtype)
            total = array if accumulate is None else array.astype(accumulate)
            out = np.logaddexp.accumulate(total, axis=dim).astype(array.dtype, copy=False)
        out = _wrap_array(out).to(input.device)
        # the result too, as torch's node saves it: writing it in place makes backward refuse
        ctx.save_for_backward(input, out)
        return out

    @staticmethod
    def backward(ctx, grad):
        x, result = ctx.saved_tensors
        if grad.dim() == 0 or grad.numel() == 0:
            return grad, None
        dim = ctx.dim
        if _ag.is_grad_enabled():   # create_graph: the result as a function of the input
            result = Logcumsumexp.apply(x, dim)
        if grad.is_complex():
            # holomorphic: conj(exp(x + reversed_logcumsumexp(log(conj(g)) - out)))
            logs = grad.conj().log() - result
            return (Logcumsumexp.apply(logs.flip(dim), dim).flip(dim) + x).exp().conj(), None
        lowest = _ag.full((), _ag.finfo(grad.dtype).min, dtype=grad.dtype, device=grad.device)
        log_abs = grad.abs().log()

        def part(mask):
            logs = _ag.where(mask, log_abs, lowest) - result
            return (Logcumsumexp.apply(logs.flip(dim), dim).flip(dim) + x).exp()
        return part(grad > 0) - part(grad < 0), None

    @staticmethod
    def jvp(ctx, input_t, dim_t):
        x = ctx.input
        if x.dim() == 0:
            return input_t
        real = x.real if x.is_complex() else x
        exps = (x - real.amax(ctx.dim, keepdim=True)).exp()
        return (input_t * exps).cumsum(ctx.dim) / exps.cumsum(ctx.dim)


Logcumsumexp._backward_cls.__name__ = "LogcumsumexpBackward0"


def logcumsumexp(input, dim):
    """The running ``log(sum(exp(input)))`` along ``dim`` (floating or complex inputs)."""
    dim = _wrap(dim, input.dim())
    if not (input.is_floating_point() or input.is_complex()):
        raise NotImplementedError(f"\"logcumsumexp_out_cpu\" not implemented for "
                                  f"'{input.dtype._scalar_name}'")
    return Logcumsumexp.apply(input, dim)


_register_methods({"cumsum": cumsum, "cumprod": cumprod, "cummax": cummax, "cummin": cummin,
                   "logcumsumexp": logcumsumexp})
