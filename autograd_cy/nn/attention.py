"""``scaled_dot_product_attention``: ``softmax(Q K^T * scale + mask) V``, as in PyTorch.

Each query row takes a weighted average of the value rows, weighted by how well the query
matches each key. ``scale`` defaults to ``1 / sqrt(E)`` (E: the query's last dim), which
keeps the scores' spread independent of E. A boolean ``attn_mask`` keeps the pairs where
it is True; a float one is added to the scores; ``is_causal`` keeps each query's own
position and the earlier ones (a lower-triangular mask). A query row with every key
masked out attends to nothing: its output is zeros, as torch's.

# NOTE [Which attention torch runs on the CPU]
torch 2.13 chooses among several implementations per call, and the graph shows which:
with 4-D query, key and value of one head dim, the same batch size and head count (or
``enable_gqa`` with key/value heads dividing the query's), no dropout and a mask that does
not require grad, the CPU runs one fused kernel (node
``ScaledDotProductFlashAttentionForCpuBackward0``, edges to query, key and value only);
otherwise it composes matmul, softmax and dropout (the "math" path: the output's node is
then the last matmul's). Given both ``attn_mask`` and ``is_causal``, the fused kernel
applies both and the math path refuses. Both paths are here: the fused op as one
Function whose backward is the attention's gradient written out, the math path composed of
the library's ops as torch composes it.

The fused backward, with ``P`` the attention weights, ``S`` the scores and ``dO`` the
output's gradient: ``dV = P^T dO``, ``dP = dO V^T``, ``dS = P * (dP - rowsum(dP * P))``
(softmax's backward), ``dQ = dS K * scale``, ``dK = dS^T Q * scale``. torch's fused
backward has no derivative of its own (double backward raises there); this one is written
with Tensor ops and recomputes ``P`` from the inputs under ``create_graph``, so it has.

>>> import autograd_cy as ag
>>> import autograd_cy.nn.functional as F
>>> q = ag.ones(1, 1, 2, 4, requires_grad=True)
>>> F.scaled_dot_product_attention(q, q, q, is_causal=True).grad_fn.name()
'ScaledDotProductFlashAttentionForCpuBackward0'
"""
import functools
import math

import autograd_cy as _ag
from autograd_cy._C.dtype import _c10_name
from autograd_cy._C.ops.activation import _softmax_backward_data
from autograd_cy.grad_mode import is_grad_enabled
from autograd_cy.nn.functional import dropout

__all__ = ["scaled_dot_product_attention"]


def _additive_mask(query, key, attn_mask, is_causal):
    """The masks as one tensor to add to the scores, or None: a boolean ``attn_mask`` as 0
    where True and -inf where False, a float one as it is, and for ``is_causal`` -inf above
    the diagonal (torch's fused kernel applies both when given both). Adding a mask the size
    of one score matrix costs less than filling the scores where a boolean mask says."""
    mask = None
    if attn_mask is not None:
        mask = attn_mask
        if attn_mask.dtype == _ag.bool:
            mask = _ag.zeros((), dtype=query.dtype, device=query.device).masked_fill(
                attn_mask.logical_not(), -math.inf)
    if is_causal:
        causal = _causal_mask(query.shape[-2], key.shape[-2], query.dtype, query.device)
        mask = causal if mask is None else mask + causal
    return mask


@functools.lru_cache(maxsize=32)
def _causal_mask(length, source, dtype, device):
    """0 on and below the diagonal, -inf above: made once per size, dtype and device."""
    above = _ag.ones(length, source, dtype=_ag.bool, device=device).triu(1)
    return _ag.zeros(length, source, dtype=dtype, device=device).masked_fill(above, -math.inf)


def _repeat_heads(tensor, groups):
    """``tensor`` (``(..., Hk, S, E)``) with each head repeated ``groups`` times in a row,
    as ``repeat_interleave(groups, dim=-3)``: query heads ``g * groups ... `` share head g."""
    if groups == 1:
        return tensor
    shape = tuple(tensor.shape)
    wide = tensor.unsqueeze(-3).expand(shape[:-2] + (groups,) + shape[-2:])
    return wide.reshape(shape[:-3] + (shape[-3] * groups,) + shape[-2:])


def _sum_heads(tensor, groups):
    """The gradient of ``_repeat_heads``: each group of ``groups`` heads summed."""
    if groups == 1:
        return tensor
    shape = tuple(tensor.shape)
    split = tensor.reshape(shape[:-3] + (shape[-3] // groups, groups) + shape[-2:])
    return split.sum(-3)


def _attention_weights(query, key, mask, scale):
    """``P = safe_softmax(Q K^T * scale + mask)``; ``mask`` is ``(additive mask or None,)``.
    The query is scaled rather than the scores: one multiplication per query element
    instead of one per score."""
    additive, = mask
    scores = _ag.matmul(query * scale, key.transpose(-2, -1))
    if additive is not None:
        scores = scores + additive
    return _ag._safe_softmax(scores, -1)


class ScaledDotProductFlashAttentionForCpu(_ag.autograd.Function):
    """The fused attention op (NOTE [Which attention torch runs on the CPU]). ``mask`` is
    the one-tuple of ``_attention_weights``, not an input of the graph (torch's node has edges to
    query, key and value only). ``groups`` is the number of query heads per key/value
    head."""
    builtin_op = True

    @staticmethod
    def forward(ctx, query, key, value, mask, scale, groups):
        key_wide, value_wide = _repeat_heads(key, groups), _repeat_heads(value, groups)
        weights = _attention_weights(query, key_wide, mask, scale)
        ctx.save_for_backward(query, key, value)
        ctx.save_for_forward(query, key_wide, value_wide)
        ctx.weights, ctx.mask, ctx.scale, ctx.groups = weights, mask, scale, groups
        return _ag.matmul(weights, value_wide)

    @staticmethod
    def backward(ctx, grad):
        query, key, value = ctx.saved_tensors
        groups, scale = ctx.groups, ctx.scale
        key, value = _repeat_heads(key, groups), _repeat_heads(value, groups)
        weights = ctx.weights
        if is_grad_enabled():          # create_graph: the weights as a function of Q, K
            weights = _attention_weights(query, key, ctx.mask, scale)
        grad_weights = _ag.matmul(grad, value.transpose(-2, -1))
        grad_scores = _softmax_backward_data(grad_weights, weights, -1)
        needs = ctx.needs_input_grad
        grad_query = _ag.matmul(grad_scores, key) * scale if needs[0] else None
        grad_key = grad_value = None
        if needs[1]:
            grad_key = _ag.matmul(grad_scores.transpose(-2, -1), query) * scale
            grad_key = _sum_heads(grad_key, groups)
        if needs[2]:
            grad_value = _sum_heads(_ag.matmul(weights.transpose(-2, -1), grad), groups)
        return grad_query, grad_key, grad_value, None, None, None

    @staticmethod
    def jvp(ctx, query_t, key_t, value_t, mask_t, scale_t, groups_t):
        """Forward AD: the scores' tangent through softmax's Jacobian, then both factors of
        ``P V``."""
        query, key, value = ctx.saved_tensors        # key and value with repeated heads
        weights, groups = ctx.weights, ctx.groups
        key_t, value_t = _repeat_heads(key_t, groups), _repeat_heads(value_t, groups)
        scores_t = (_ag.matmul(query_t, key.transpose(-2, -1))
                    + _ag.matmul(query, key_t.transpose(-2, -1))) * ctx.scale
        weights_t = weights * (scores_t - (scores_t * weights).sum(-1, keepdim=True))
        return _ag.matmul(weights_t, value) + _ag.matmul(weights, value_t)


# The node named as torch's (a Function's node is otherwise <Function>Backward).
ScaledDotProductFlashAttentionForCpu._backward_cls.__name__ = (
    "ScaledDotProductFlashAttentionForCpuBackward0")


def scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0,
                                 is_causal=False, scale=None, enable_gqa=False):
    """``softmax(query @ key^T * scale + mask) @ value`` over the last two dims, with
    dropout on the weights when ``dropout_p > 0``.

    ``query`` is ``(..., L, E)``, ``key`` ``(..., S, E)``, ``value`` ``(..., S, Ev)``; the
    result is ``(..., L, Ev)``. ``enable_gqa`` lets key and value have fewer heads (dim -3)
    than the query, each shared by a group of query heads.
    """
    _check_dtypes(query, key, value)
    scale = 1.0 / math.sqrt(query.shape[-1]) if scale is None else scale
    groups = _head_groups(query, key, value, enable_gqa)
    mask = _additive_mask(query, key, attn_mask, is_causal)
    if _takes_fused_path(query, key, value, attn_mask, dropout_p, groups):
        return ScaledDotProductFlashAttentionForCpu.apply(
            query, key, value, (mask,), scale, groups)
    if is_causal and attn_mask is not None:
        raise RuntimeError("_scaled_dot_product_attention: Explicit attn_mask should not be "
                           "set when is_causal=True")
    return _math_attention(query, key, value, mask, dropout_p, scale, groups)


def _check_dtypes(query, key, value):
    if not query.dtype == key.dtype == value.dtype:
        raise RuntimeError(
            "Expected query, key, and value to have the same dtype, but got query.dtype: "
            f"{_c10_name(query.dtype)} key.dtype: {_c10_name(key.dtype)} and value.dtype: "
            f"{_c10_name(value.dtype)} instead.")


def _head_groups(query, key, value, enable_gqa):
    """How many query heads share one key/value head: 1 unless ``enable_gqa``."""
    if not enable_gqa or query.dim() < 3:
        return 1
    heads, key_heads = query.shape[-3], key.shape[-3]
    if key_heads == 0 or heads % key_heads or heads % value.shape[-3]:
        raise RuntimeError("Number of heads in key and value must divide the number of "
                           "heads in query")
    return heads // key_heads


def _takes_fused_path(query, key, value, attn_mask, dropout_p, groups):
    """torch's choice of its fused CPU kernel (NOTE [Which attention torch runs on the
    CPU])."""
    if query.dim() != 4 or key.dim() != 4 or value.dim() != 4:
        return False
    if not query.shape[-1] == key.shape[-1] == value.shape[-1]:
        return False
    if not query.shape[0] == key.shape[0] == value.shape[0]:
        return False
    if query.shape[1] != key.shape[1] * groups or key.shape[1] != value.shape[1]:
        return False
    if query.shape[-2] == 0 or key.shape[-2] == 0:
        return False
    grad = query.requires_grad or key.requires_grad or value.requires_grad
    if dropout_p > 0.0 and grad:
        return False
    return attn_mask is None or not attn_mask.requires_grad


def _math_attention(query, key, value, mask, dropout_p, scale, groups):
    """torch's composite: query and key each scaled by ``sqrt(scale)``, matmul, the mask,
    safe softmax, dropout, matmul."""
    root = math.sqrt(abs(scale))
    key = _repeat_heads(key, groups)
    value = _repeat_heads(value, groups)
    scores = _ag.matmul(query * (root if scale >= 0 else -root),
                        key.transpose(-2, -1) * root)
    if mask is not None:
        scores = scores + mask
    weights = _ag._safe_softmax(scores, -1)
    if dropout_p > 0.0:
        weights = dropout(weights, dropout_p)
    return _ag.matmul(weights, value)
