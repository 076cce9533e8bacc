"""Distances and similarities between vectors, as in PyTorch: ``pairwise_distance``,
``cosine_similarity``, ``normalize``, ``pdist`` and ``cdist``.

All measure vectors along one dim with a p-norm. torch builds ``normalize`` and
``cosine_similarity`` from other ops; ``pairwise_distance`` ends in ``at::norm``, whose node
is ``NormBackward1`` (the Python ``Tensor.norm`` records ``LinalgVectorNormBackward0``), and
``pdist`` and ``cdist`` have nodes of their own (``PdistBackward0``, ``CdistBackward0``).
Those three are ``Function``s here, named as torch's, whose backward is the p-norm's
gradient (NOTE [The p-norm's gradient]) taken back through the differences.

# NOTE [The p-norm's gradient]
For ``n = (sum |x|^p)^(1/p)`` the gradient is ``sgn(x) |x|^(p-1) / n^(p-1)``: ``x / n``
for p = 2, ``sgn(x)`` for p = 1, zero for p = 0 (a count), and for p = inf ``sgn(x)``
shared among the entries that reach the maximum; ``sgn(x)`` is ``x / |x|``, the phase of
a complex ``x`` (``sign`` refuses complex tensors). Where ``n`` is 0 the gradient is 0, as
torch's. It is written with Tensor ops of ``x`` so that it can be differentiated again.

>>> import autograd_cy as ag
>>> import autograd_cy.nn.functional as F
>>> x = ag.tensor([[0.0, 0.0], [3.0, 4.0]], requires_grad=True)
>>> d = F.pdist(x)
>>> d.tolist(), d.grad_fn.name()
([5.0], 'PdistBackward0')
"""
import math

import numpy as np

import autograd_cy as _ag
from autograd_cy._C.tensor import _array_of, _wrap_array
from autograd_cy.nn.functional import _broadcast_pair

__all__ = ["pairwise_distance", "cosine_similarity", "normalize", "pdist", "cdist"]


def _norm_gradient(x, norm, p, dim):
    """d ``norm`` / d ``x`` (NOTE [The p-norm's gradient]); ``norm`` keeps ``dim``."""
    if p == 0:
        return _ag.zeros_like(x)
    if p == 1:
        return x.sgn()
    if math.isinf(p):
        hit = x.abs().eq(norm) | x.isnan()
        share = hit.to(x.dtype)
        return x.sgn() * (share / share.sum(dim, keepdim=True))
    zero = norm.detach().eq(0)
    safe_norm = _ag.where(zero, 1.0, norm)
    if p == 2:
        return _ag.where(zero, 0.0, x / safe_norm)
    magnitude = x.abs()
    if p < 1:
        at_zero = x.detach().eq(0)
        powered = x.sgn() * _ag.where(at_zero, 1.0, magnitude) ** (p - 1)
        return _ag.where(at_zero, 0.0, powered) * norm ** (1 - p)
    powered = x.sgn() * magnitude ** (p - 1) if p < 2 else x * magnitude ** (p - 2)
    return _ag.where(zero, 0.0, powered / safe_norm ** (p - 1))


class _Norm(_ag.autograd.Function):
    """``input.norm(p, dim, keepdim)`` recorded as torch's ``at::norm`` (``NormBackward1``)."""
    builtin_op = True

    @staticmethod
    def forward(ctx, input, p, dim, keepdim):
        norm = input.norm(p, dim, keepdim=True)
        # the output is no view (an in-place op may write it) and is what is saved, as
        # torch's node saves its result: writing it makes the backward refuse
        out = norm if keepdim else _wrap_array(_array_of(norm.squeeze(dim)))
        ctx.save_for_backward(input, out)
        ctx.p, ctx.dim, ctx.keepdim = p, dim, keepdim
        ctx.operands = input, norm        # for the jvp (saved tensors are for the backward)
        return out

    @staticmethod
    def backward(ctx, grad):
        input, norm = ctx.saved_tensors
        if _ag.is_grad_enabled():       # create_graph: the norm as a function of the input
            norm = input.norm(ctx.p, ctx.dim, keepdim=True)
        elif not ctx.keepdim:
            norm = norm.unsqueeze(ctx.dim)
        if not ctx.keepdim:
            grad = grad.unsqueeze(ctx.dim)
        return grad * _norm_gradient(input, norm, ctx.p, ctx.dim), None, None, None

    @staticmethod
    def jvp(ctx, input_t, p_t, dim_t, keepdim_t):
        input, norm = ctx.operands
        out_t = (_norm_gradient(input, norm, ctx.p, ctx.dim) * input_t).sum(
            ctx.dim, keepdim=True)
        return out_t if ctx.keepdim else out_t.squeeze(ctx.dim)


_Norm._backward_cls.__name__ = "NormBackward1"


def pairwise_distance(x1, x2, p=2.0, eps=1e-6, keepdim=False):
    """``||x1 - x2 + eps||_p`` along the last dim (the inputs broadcast); ``eps`` keeps
    the gradient finite where the vectors are equal."""
    dim = max(x1.dim(), x2.dim()) - 1
    return _Norm.apply(x1 - x2 + eps, p, dim, keepdim)


def cosine_similarity(x1, x2, dim=1, eps=1e-8):
    """``x1 . x2 / (max(||x1||, eps) max(||x2||, eps))`` along ``dim`` (the inputs
    broadcast). Each input is divided by its norm before the product, which keeps the
    result within [-1, 1]; the floor at ``eps`` is not differentiated."""
    common = _ag.promote_types(x1.dtype, x2.dtype)
    if not common.is_floating_point:        # (integers or complex numbers)
        raise RuntimeError("expected common dtype to be floating point, yet common dtype is "
                           f"{common._scalar_name}")
    x1, x2 = _broadcast_pair(x1, x2)
    x1_norm = x1.norm(2, dim, keepdim=True).clone()
    x2_norm = x2.norm(2, dim, keepdim=True).clone()
    with _ag.no_grad():
        x1_norm.clamp_(min=eps)
        x2_norm.clamp_(min=eps)
    return ((x1 / x1_norm) * (x2 / x2_norm)).sum(dim)


def normalize(input, p=2.0, dim=1, eps=1e-12, out=None):
    """``input / max(||input||_p, eps)`` along ``dim``: unit vectors, zeros staying zeros."""
    denom = input.norm(p, dim, keepdim=True).clamp_min(eps).expand_as(input)
    if out is None:
        return input / denom
    return _ag.div(input, denom, out=out)


# ------------------------------------------------------------------ pdist

def _refuse_half_on_cpu(name, input):
    """torch's CPU kernels of pdist and cdist have no float16 or bfloat16 (its CUDA ones do)."""
    if input.dtype in (_ag.float16, _ag.bfloat16) and input.device.type == "cpu":
        raise NotImplementedError(f"\"{name}\" not implemented for '{input.dtype._scalar_name}'")



def _pairs(n, device):
    """The row indices ``(i, j)`` of the pairs ``i < j`` of ``n`` rows, in row-major order."""
    rows, cols = np.triu_indices(n, 1)
    return _ag.tensor(rows, device=device), _ag.tensor(cols, device=device)


class Pdist(_ag.autograd.Function):
    """``pdist``'s op: the p-norm distances between the rows' pairs ``i < j``."""
    builtin_op = True

    @staticmethod
    def forward(ctx, input, p):
        rows, cols = _pairs(input.shape[0], input.device)
        diffs = input.index_select(0, rows) - input.index_select(0, cols)
        norm = diffs.norm(p, 1, keepdim=True)
        ctx.save_for_backward(input)
        ctx.pairs, ctx.p, ctx.diffs, ctx.norm = (rows, cols), p, diffs, norm
        return norm.squeeze(1)

    @staticmethod
    def backward(ctx, grad):
        input, = ctx.saved_tensors
        rows, cols = ctx.pairs
        diffs, norm = ctx.diffs, ctx.norm
        if _ag.is_grad_enabled():       # create_graph: as functions of the input
            diffs = input.index_select(0, rows) - input.index_select(0, cols)
            norm = diffs.norm(ctx.p, 1, keepdim=True)
        grad_diffs = grad.unsqueeze(1) * _norm_gradient(diffs, norm, ctx.p, 1)
        # each pair's gradient added to its first row and taken from its second
        return _ag.zeros_like(input).index_add(0, rows, grad_diffs).index_add(
            0, cols, -grad_diffs), None

    @staticmethod
    def jvp(ctx, input_t, p_t):
        rows, cols = ctx.pairs
        diffs_t = input_t.index_select(0, rows) - input_t.index_select(0, cols)
        return (_norm_gradient(ctx.diffs, ctx.norm, ctx.p, 1) * diffs_t).sum(1)


Pdist._backward_cls.__name__ = "PdistBackward0"


def pdist(input, p=2):
    """The p-norm distance between each pair of rows ``i < j`` of a 2-D ``input``, in
    row-major order: the upper triangle of ``cdist(input, input)``, flattened."""
    if input.dim() != 2:
        raise RuntimeError(f"pdist only supports 2D tensors, got: {input.dim()}D")
    if not input.dtype.is_floating_point:
        raise RuntimeError("pdist only supports floating-point dtypes")
    _refuse_half_on_cpu("pdist", input)
    if p < 0:
        raise RuntimeError("pdist only supports non-negative p values")
    return Pdist.apply(input, p)


# ------------------------------------------------------------------ cdist

class Cdist(_ag.autograd.Function):
    """``cdist``'s op: the p-norm distances between the rows of ``x1`` and of ``x2``."""
    builtin_op = True

    @staticmethod
    def forward(ctx, x1, x2, p):
        diffs = x1.unsqueeze(-2) - x2.unsqueeze(-3)               # (..., P, R, M)
        norm = diffs.norm(p, -1, keepdim=True)
        ctx.save_for_backward(x1, x2)
        ctx.p, ctx.diffs, ctx.norm = p, diffs, norm
        return norm.squeeze(-1)

    @staticmethod
    def backward(ctx, grad):
        x1, x2 = ctx.saved_tensors
        diffs, norm = ctx.diffs, ctx.norm
        if _ag.is_grad_enabled():       # create_graph: as functions of the inputs
            diffs = x1.unsqueeze(-2) - x2.unsqueeze(-3)
            norm = diffs.norm(ctx.p, -1, keepdim=True)
        grad_diffs = grad.unsqueeze(-1) * _norm_gradient(diffs, norm, ctx.p, -1)
        needs = ctx.needs_input_grad
        grad1 = _sum_to(grad_diffs.sum(-2), x1.shape) if needs[0] else None
        grad2 = _sum_to(-grad_diffs.sum(-3), x2.shape) if needs[1] else None
        return grad1, grad2, None

    @staticmethod
    def jvp(ctx, x1_t, x2_t, p_t):
        diffs_t = 0
        if x1_t is not None:
            diffs_t = x1_t.unsqueeze(-2)
        if x2_t is not None:
            diffs_t = diffs_t - x2_t.unsqueeze(-3)
        return (_norm_gradient(ctx.diffs, ctx.norm, ctx.p, -1) * diffs_t).sum(-1)


Cdist._backward_cls.__name__ = "CdistBackward0"


def _sum_to(grad, shape):
    """``grad`` summed over the batch dims that ``shape`` broadcast."""
    extra = grad.dim() - len(shape)
    if extra:
        grad = grad.sum(tuple(range(extra)))
    dims = tuple(i for i, n in enumerate(shape) if n == 1 and grad.shape[i] != 1)
    return grad.sum(dims, keepdim=True) if dims else grad


_COMPUTE_MODES = ("use_mm_for_euclid_dist_if_necessary", "use_mm_for_euclid_dist",
                  "donot_use_mm_for_euclid_dist")


def cdist(x1, x2, p=2.0, compute_mode="use_mm_for_euclid_dist_if_necessary"):
    """The p-norm distance between each row of ``x1`` (``(..., P, M)``) and each row of
    ``x2`` (``(..., R, M)``): ``(..., P, R)``, the batch dims broadcast. ``compute_mode``
    chooses torch's algorithm for p = 2 (a matrix product or not); here every mode takes
    the differences, torch's exact path."""
    if compute_mode not in _COMPUTE_MODES:
        raise ValueError(f"{compute_mode} is not a valid value for compute_mode")
    if x1.dim() < 2:
        raise RuntimeError(f"cdist only supports at least 2D tensors, X1 got: {x1.dim()}D")
    if x2.dim() < 2:
        raise RuntimeError(f"cdist only supports at least 2D tensors, X2 got: {x2.dim()}D")
    if x1.shape[-1] != x2.shape[-1]:
        raise RuntimeError("X1 and X2 must have the same number of columns. X1: "
                           f"{x1.shape[-1]} X2: {x2.shape[-1]}")
    if not (x1.dtype.is_floating_point and x2.dtype.is_floating_point):
        raise RuntimeError(f"cdist only supports floating-point dtypes, X1 got: "
                           f"{x1.dtype._scalar_name}")
    if p < 0:
        raise RuntimeError("cdist only supports non-negative p values")
    _refuse_half_on_cpu("cdist", x1)
    return Cdist.apply(x1, x2, p)
