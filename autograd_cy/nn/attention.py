"""``scaled_dot_product_attention``: ``softmax(Q K^T * scale + mask) V``, composed of the
library's ops as torch's CPU math path is (its gradient is theirs), with torch's masks: a
boolean ``attn_mask`` keeps the positions that are True, a float one is added to the scores,
``is_causal`` keeps each query's own and earlier keys."""
import math

import autograd_cy as ag
from autograd_cy import factories

__all__ = ["scaled_dot_product_attention"]


def scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0,
                                 is_causal=False, scale=None, enable_gqa=False):
    """Attention of ``(..., L, E)`` queries over ``(..., S, E)`` keys and ``(..., S, Ev)``
    values; returns ``(..., L, Ev)``."""
    if is_causal and attn_mask is not None:
        raise RuntimeError("_scaled_dot_product_attention: Explicit attn_mask should not be "
                           "set when is_causal=True")
    length, source = query.shape[-2], key.shape[-2]
    if enable_gqa and query.dim() >= 3 and query.shape[-3] != key.shape[-3]:
        repeats = query.shape[-3] // key.shape[-3]
        key = key.repeat_interleave(repeats, -3) if hasattr(key, "repeat_interleave") else \
            key.unsqueeze(-3).expand(*key.shape[:-2], repeats, *key.shape[-2:]).reshape(
                *query.shape[:-2], source, key.shape[-1])
        value = value.unsqueeze(-3).expand(*value.shape[:-2], repeats,
                                           *value.shape[-2:]).reshape(
            *query.shape[:-2], source, value.shape[-1])
    factor = 1 / math.sqrt(query.shape[-1]) if scale is None else scale
    scores = ag.matmul(query, key.transpose(-2, -1)) * factor
    if is_causal:
        attn_mask = factories.ones((length, source), dtype=ag.bool,
                                   device=query.device).tril()
    if attn_mask is not None:
        if attn_mask.dtype == ag.bool:
            scores = scores.masked_fill(attn_mask.logical_not(), float("-inf"))
        else:
            scores = scores + attn_mask
    weights = ag.softmax(scores, -1)
    if dropout_p > 0.0:
        weights = ag.nn.functional.dropout(weights, dropout_p)
    return ag.matmul(weights, value)
