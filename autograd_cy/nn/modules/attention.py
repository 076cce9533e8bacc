"""``MultiheadAttention``: scaled dot-product attention over ``num_heads`` learned projections
of query, key and value, recombined by an output projection, as torch's module computes it.

Shapes follow torch: ``(L, N, E)`` sequences first, or ``(N, L, E)`` with ``batch_first``,
or unbatched ``(L, E)``. Masks follow torch's module too: in ``attn_mask`` and
``key_padding_mask`` a boolean True means "do not attend" (the opposite of
``F.scaled_dot_product_attention``'s boolean mask), a float mask is added to the scores.
"""
import math

import autograd_cy as ag
from autograd_cy import factories
from autograd_cy.nn import functional as F
from autograd_cy.nn import init
from autograd_cy.nn.modules.linear import Linear
from autograd_cy.nn.modules.module import Module
from autograd_cy.nn.parameter import Parameter

__all__ = ["MultiheadAttention"]


class NonDynamicallyQuantizableLinear(Linear):
    """The output projection's class, named as torch names it (it prints in the repr)."""


def _as_float_mask(mask, dtype, name):
    """A boolean mask (True: do not attend) as 0 / -inf scores; a float mask as it is."""
    if mask is None:
        return None
    if mask.dtype == ag.bool:
        return factories.zeros(tuple(mask.shape), dtype=dtype,
                               device=mask.device).masked_fill_(mask, float("-inf"))
    if not mask.is_floating_point():
        raise AssertionError(f"only bool and floating types of {name} are supported")
    return mask


class MultiheadAttention(Module):
    """``out_proj(concat(head_1, ..., head_h))`` with ``head_i = attention(q W_q^i, k W_k^i,
    v W_v^i)``; returns ``(output, weights)``, the weights averaged over heads unless
    ``average_attn_weights=False``, or None with ``need_weights=False``."""

    def __init__(self, embed_dim, num_heads, dropout=0.0, bias=True, add_bias_kv=False,
                 add_zero_attn=False, kdim=None, vdim=None, batch_first=False, device=None,
                 dtype=None):
        super().__init__()
        if embed_dim <= 0 or num_heads <= 0:
            raise ValueError(f"embed_dim and num_heads must be greater than 0, got "
                             f"embed_dim={embed_dim} and num_heads={num_heads} instead")
        if add_bias_kv or add_zero_attn:
            raise NotImplementedError("MultiheadAttention: add_bias_kv and add_zero_attn are "
                                      "not supported by autograd_cy")
        self.embed_dim = embed_dim
        self.kdim = kdim if kdim is not None else embed_dim
        self.vdim = vdim if vdim is not None else embed_dim
        self._qkv_same_embed_dim = self.kdim == embed_dim and self.vdim == embed_dim
        self.num_heads = num_heads
        self.dropout = dropout
        self.batch_first = batch_first
        self.head_dim = embed_dim // num_heads
        assert self.head_dim * num_heads == embed_dim, \
            "embed_dim must be divisible by num_heads"
        options = {"device": device, "dtype": dtype}
        if self._qkv_same_embed_dim:
            self.in_proj_weight = Parameter(factories.empty((3 * embed_dim, embed_dim),
                                                            **options))
            self.register_parameter("q_proj_weight", None)
            self.register_parameter("k_proj_weight", None)
            self.register_parameter("v_proj_weight", None)
        else:
            self.q_proj_weight = Parameter(factories.empty((embed_dim, embed_dim), **options))
            self.k_proj_weight = Parameter(factories.empty((embed_dim, self.kdim), **options))
            self.v_proj_weight = Parameter(factories.empty((embed_dim, self.vdim), **options))
            self.register_parameter("in_proj_weight", None)
        if bias:
            self.in_proj_bias = Parameter(factories.empty(3 * embed_dim, **options))
        else:
            self.register_parameter("in_proj_bias", None)
        self.out_proj = NonDynamicallyQuantizableLinear(embed_dim, embed_dim, bias=bias,
                                                        **options)
        self.bias_k = self.bias_v = None
        self.add_zero_attn = False
        self._reset_parameters()

    def _reset_parameters(self):
        if self._qkv_same_embed_dim:
            init.xavier_uniform_(self.in_proj_weight)
        else:
            init.xavier_uniform_(self.q_proj_weight)
            init.xavier_uniform_(self.k_proj_weight)
            init.xavier_uniform_(self.v_proj_weight)
        if self.in_proj_bias is not None:
            init.constant_(self.in_proj_bias, 0.0)
            init.constant_(self.out_proj.bias, 0.0)

    def _projections(self, query, key, value):
        """``q, k, v``: the inputs through their slices of the input projection."""
        E = self.embed_dim
        b = self.in_proj_bias
        biases = (None, None, None) if b is None else (b[:E], b[E:2 * E], b[2 * E:])
        if self._qkv_same_embed_dim:
            weights = (self.in_proj_weight[:E], self.in_proj_weight[E:2 * E],
                       self.in_proj_weight[2 * E:])
        else:
            weights = (self.q_proj_weight, self.k_proj_weight, self.v_proj_weight)
        return tuple(F.linear(x, w, bias) for x, w, bias in zip((query, key, value), weights,
                                                                 biases))

    def forward(self, query, key, value, key_padding_mask=None, need_weights=True,
                attn_mask=None, average_attn_weights=True, is_causal=False):
        if is_causal and attn_mask is None:
            raise RuntimeError("Need attn_mask if specifying the is_causal hint. You may use "
                               "the Transformer module method `generate_square_subsequent_mask`"
                               " to create this mask.")
        batched = query.dim() == 3
        if not batched:                          # (L, E): a batch of one
            query, key, value = (x.unsqueeze(1) for x in (query, key, value))
            if key_padding_mask is not None:
                key_padding_mask = key_padding_mask.unsqueeze(0)
        elif self.batch_first:                   # (N, L, E) -> (L, N, E)
            query, key, value = (x.transpose(0, 1) for x in (query, key, value))
        length, batch, _ = query.shape
        source = key.shape[0]
        heads, head_dim = self.num_heads, self.head_dim
        q, k, v = self._projections(query, key, value)
        # (L, N, E) -> (N * H, L, head_dim): one attention per example and head
        q, k, v = (x.reshape(x.shape[0], batch * heads, head_dim).transpose(0, 1)
                   for x in (q, k, v))
        mask = _as_float_mask(attn_mask, q.dtype, "attn_mask")
        if mask is not None and mask.dim() == 2:
            mask = mask.unsqueeze(0)
        padding = _as_float_mask(key_padding_mask, q.dtype, "key_padding_mask")
        if padding is not None:
            padding = padding.view(batch, 1, 1, source).expand(batch, heads, 1, source)
            padding = padding.reshape(batch * heads, 1, source)
            mask = padding if mask is None else mask + padding
        dropout_p = self.dropout if self.training else 0.0
        if need_weights:
            scores = ag.bmm(q * math.sqrt(1.0 / head_dim), k.transpose(-2, -1))
            if mask is not None:
                scores = scores + mask
            weights = F.softmax(scores, dim=-1)
            if dropout_p > 0.0:
                weights = F.dropout(weights, p=dropout_p)
            output = ag.bmm(weights, v)
        else:
            if mask is not None:     # as (N, H, L, S), or (1, 1, L, S) broadcast
                mask = (mask.unsqueeze(0) if mask.shape[0] == 1
                        else mask.view(batch, heads, mask.shape[-2], source))
            output = F.scaled_dot_product_attention(
                q.view(batch, heads, length, head_dim), k.view(batch, heads, source, head_dim),
                v.view(batch, heads, source, head_dim), attn_mask=mask, dropout_p=dropout_p)
            output = output.reshape(batch * heads, length, head_dim)
            weights = None
        output = output.transpose(0, 1).reshape(length * batch, self.embed_dim)
        output = self.out_proj(output).view(length, batch, self.embed_dim)
        if weights is not None:
            weights = weights.view(batch, heads, length, source)
            if average_attn_weights:
                weights = weights.mean(dim=1)
        if not batched:
            output = output.squeeze(1)
            if weights is not None:
                weights = weights.squeeze(0)
        elif self.batch_first:
            output = output.transpose(0, 1)
        return output, weights
