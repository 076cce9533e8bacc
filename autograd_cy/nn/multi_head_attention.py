"""``multi_head_attention_forward``: nn.MultiheadAttention's computation, with torch's
signature, so that the module can call it as torch's does.

Sequence-first inputs ``(L, N, E)`` (or unbatched ``(L, E)``) are projected to queries,
keys and values (one packed ``in_proj_weight`` of shape ``(3E, E)``, or three separate
weights), split into ``num_heads`` heads of ``E / num_heads`` dims, attended head by head,
and the heads' outputs concatenated and projected by ``out_proj``. ``key_padding_mask``
(``(N, S)``, True or -inf where a key is padding) is merged into ``attn_mask``. With
``bias_k``/``bias_v`` (``add_bias_kv``) a learned key and value are appended to every
sequence, and with ``add_zero_attn`` a key and value of zeros after them.

Two ways, as torch's: with ``need_weights`` the attention weights are computed explicitly
(``bmm``, softmax, ``bmm``) and returned, averaged over the heads unless
``average_attn_weights=False``; without, the heads go through
``scaled_dot_product_attention`` and the weights are None.

It is a composite of nn.functional's ops, looked up when called (``_F.linear``), so that
under vmap, which swaps those ops for batching ones, it batches as they do; it is therefore
not in nn.functional's ``__all__``, the list of ops vmap swaps.
"""
import math
import warnings

import autograd_cy as _ag
from autograd_cy.nn import functional as _F

__all__ = ["multi_head_attention_forward"]


def _mha_shape_check(query, key, value, key_padding_mask, attn_mask, num_heads):
    """torch's checks of the ranks of ``multi_head_attention_forward``'s arguments
    (AssertionErrors); whether ``query`` is batched (3-D) rather than unbatched (2-D)."""
    if query.dim() not in (2, 3):
        raise AssertionError("query should be unbatched 2D or batched 3D tensor but received "
                             f"{query.dim()}-D query tensor")
    batched = query.dim() == 3
    kind, rank = ("batched (3-D)", 3) if batched else ("unbatched (2-D)", 2)
    if key.dim() != rank or value.dim() != rank:
        raise AssertionError(f"For {kind} `query`, expected `key` and `value` to be {rank}-D "
                             f"but found {key.dim()}-D and {value.dim()}-D tensors respectively")
    if key_padding_mask is not None and key_padding_mask.dim() != rank - 1:
        raise AssertionError(f"For {kind} `query`, expected `key_padding_mask` to be `None` or "
                             f"{rank - 1}-D but found {key_padding_mask.dim()}-D tensor instead")
    if attn_mask is not None:
        if attn_mask.dim() not in (2, 3):
            raise AssertionError(f"For {kind} `query`, expected `attn_mask` to be `None`, 2-D "
                                 f"or 3-D but found {attn_mask.dim()}-D tensor instead")
        if not batched and attn_mask.dim() == 3:
            expected = (num_heads, query.shape[0], key.shape[0])
            if tuple(attn_mask.shape) != expected:
                raise AssertionError(f"Expected `attn_mask` shape to be {expected} but got "
                                     f"{attn_mask.shape}")
    return batched


def _static(tensor, name, rows, head_dim):
    """``static_k`` or ``static_v`` after torch's checks of its size."""
    if tensor.size(0) != rows:
        raise AssertionError(f"expecting {name}.size(0) of {rows}, but got {tensor.size(0)}")
    if tensor.size(2) != head_dim:
        raise AssertionError(f"expecting {name}.size(2) of {head_dim}, but got "
                             f"{tensor.size(2)}")
    return tensor


def multi_head_attention_forward(query, key, value, embed_dim_to_check, num_heads,
                                 in_proj_weight, in_proj_bias, bias_k, bias_v, add_zero_attn,
                                 dropout_p, out_proj_weight, out_proj_bias, training=True,
                                 key_padding_mask=None, need_weights=True, attn_mask=None,
                                 use_separate_proj_weight=False, q_proj_weight=None,
                                 k_proj_weight=None, v_proj_weight=None, static_k=None,
                                 static_v=None, average_attn_weights=True, is_causal=False):
    """Multi-head attention of ``query`` over ``key``/``value``; returns ``(output,
    weights)``, ``weights`` None unless ``need_weights``."""
    batched = _mha_shape_check(query, key, value, key_padding_mask, attn_mask, num_heads)
    if (bias_k is None) != (bias_v is None):
        raise AssertionError("bias_k and bias_v are given together or not at all")
    if not batched:
        query, key, value = query.unsqueeze(1), key.unsqueeze(1), value.unsqueeze(1)
        if key_padding_mask is not None:
            key_padding_mask = key_padding_mask.unsqueeze(0)
    length, batch, embed_dim = query.shape
    source = key.shape[0]
    if embed_dim != embed_dim_to_check:
        raise AssertionError(f"was expecting embedding dimension of {embed_dim_to_check}, "
                             f"but got {embed_dim}")
    head_dim = embed_dim // num_heads
    if head_dim * num_heads != embed_dim:
        raise AssertionError(f"embed_dim {embed_dim} not divisible by num_heads {num_heads}")
    if is_causal and attn_mask is None:
        raise RuntimeError("Need attn_mask if specifying the is_causal hint. You may use the "
                           "Transformer module method `generate_square_subsequent_mask` to "
                           "create this mask.")

    key_padding_mask = _canonical_mask(key_padding_mask, "key_padding_mask", attn_mask,
                                       "attn_mask", query.dtype)
    if is_causal and key_padding_mask is None and not need_weights:
        attn_mask = None                # sdpa's is_causal says it
    else:
        attn_mask = _canonical_mask(attn_mask, "attn_mask", None, "", query.dtype, False)
        is_causal = False if key_padding_mask is not None else is_causal
    attn_mask = _attention_mask_3d(attn_mask, length, source, batch * num_heads)

    q, k, v = _in_projection(query, key, value, in_proj_weight, in_proj_bias,
                             use_separate_proj_weight, q_proj_weight, k_proj_weight,
                             v_proj_weight)
    if bias_k is not None:      # one more key and value, learned, at the end of the sequence
        if static_k is not None:
            raise AssertionError("bias cannot be added to static key.")
        if static_v is not None:
            raise AssertionError("bias cannot be added to static value.")
        k = _ag.cat([k, bias_k.repeat(1, batch, 1)])
        v = _ag.cat([v, bias_v.repeat(1, batch, 1)])
        attn_mask, key_padding_mask = _one_more_key(attn_mask, key_padding_mask)
        source += 1
    # (L, N, E) -> (N * heads, L, head_dim): each head of each sample a batch entry
    q = q.reshape(length, batch * num_heads, head_dim).transpose(0, 1)
    # static_k/static_v: given keys and values, already (N * heads, S, head_dim)
    k = _static(static_k, "static_k", batch * num_heads, head_dim) if static_k is not None \
        else k.reshape(source, batch * num_heads, head_dim).transpose(0, 1)
    v = _static(static_v, "static_v", batch * num_heads, head_dim) if static_v is not None \
        else v.reshape(source, batch * num_heads, head_dim).transpose(0, 1)
    source = k.shape[1]
    if add_zero_attn:           # and one of zeros, after them
        zeros = _ag.zeros((batch * num_heads, 1, head_dim), dtype=k.dtype, device=k.device)
        k = _ag.cat([k, zeros], dim=1)
        v = _ag.cat([v, zeros], dim=1)
        attn_mask, key_padding_mask = _one_more_key(attn_mask, key_padding_mask)
        source += 1
    if key_padding_mask is not None:
        padding = key_padding_mask.reshape(batch, 1, 1, source).expand(
            batch, num_heads, 1, source).reshape(batch * num_heads, 1, source)
        attn_mask = padding if attn_mask is None else attn_mask + padding
    if not training:
        dropout_p = 0.0

    if need_weights:
        scores = _ag.bmm(q * math.sqrt(1.0 / head_dim), k.transpose(-2, -1))
        if attn_mask is not None:
            scores = scores + attn_mask
        weights = _F.softmax(scores, dim=-1)
        if dropout_p > 0.0:
            weights = _F.dropout(weights, p=dropout_p)
        heads = _ag.bmm(weights, v)
        output = _out_projection(heads.transpose(0, 1), length, batch, embed_dim,
                                 out_proj_weight, out_proj_bias)
        weights = weights.reshape(batch, num_heads, length, source)
        if average_attn_weights:
            weights = weights.mean(dim=1)
        if not batched:
            output, weights = output.squeeze(1), weights.squeeze(0)
        return output, weights

    if attn_mask is not None:
        # (1 or N * heads, L or 1, S) -> broadcastable to (N, heads, L, S)
        attn_mask = (attn_mask.unsqueeze(0) if attn_mask.shape[0] == 1
                     else attn_mask.reshape(batch, num_heads, attn_mask.shape[-2], source))
    q = q.reshape(batch, num_heads, length, head_dim)
    k = k.reshape(batch, num_heads, source, head_dim)
    v = v.reshape(batch, num_heads, source, head_dim)
    heads = _F.scaled_dot_product_attention(q, k, v, attn_mask, dropout_p, is_causal)
    # (N, heads, L, head_dim) -> (L, N, heads, head_dim)
    output = _out_projection(heads.permute(2, 0, 1, 3), length, batch, embed_dim,
                             out_proj_weight, out_proj_bias)
    return (output if batched else output.squeeze(1)), None


def _one_more_key(attn_mask, key_padding_mask):
    """The masks of a key appended to the sequence (``add_bias_kv``, ``add_zero_attn``):
    one more column of 0, which masks nothing."""
    return tuple(None if mask is None else _F.pad(mask, (0, 1))
                 for mask in (attn_mask, key_padding_mask))


def _canonical_mask(mask, mask_name, other, other_name, target_type, check_other=True):
    """``mask`` as an additive float mask of ``target_type`` (``_as_additive``), as torch
    passes masks on: only boolean and float masks are accepted, and a mask whose dtype
    differs from ``other``'s draws torch's deprecation warning."""
    if mask is None:
        return None
    if mask.dtype != _ag.bool and not mask.dtype.is_floating_point:
        raise AssertionError(f"only bool and floating types of {mask_name} are supported")
    if check_other and other is not None and mask.dtype != other.dtype:
        warnings.warn(f"Support for mismatched {mask_name} and {other_name} is deprecated. "
                      "Use same type for both instead.", stacklevel=3)
    return _as_additive(mask, target_type)


def _as_additive(mask, dtype):
    """A boolean mask as 0 where False and -inf where True (True masks out, here); a float
    mask as it is."""
    if mask is None or mask.dtype != _ag.bool:
        return mask
    return _ag.zeros(mask.shape, dtype=dtype, device=mask.device).masked_fill(mask, -math.inf)


def _attention_mask_3d(mask, length, source, batch_heads):
    """``attn_mask`` as ``(1 or N * heads, L, S)``, with torch's errors for other shapes."""
    if mask is None:
        return None
    if mask.dim() == 2:
        if tuple(mask.shape) != (length, source):
            raise RuntimeError(f"The shape of the 2D attn_mask is {mask.shape}, but should be "
                               f"{(length, source)}.")
        return mask.unsqueeze(0)
    if mask.dim() == 3:
        if tuple(mask.shape) != (batch_heads, length, source):
            raise RuntimeError(f"The shape of the 3D attn_mask is {mask.shape}, but should be "
                               f"{(batch_heads, length, source)}.")
        return mask
    raise RuntimeError(f"attn_mask's dimension {mask.dim()} is not supported")


def _in_projection(query, key, value, in_proj_weight, in_proj_bias, separate, q_weight,
                   k_weight, v_weight):
    """The queries, keys and values: one product for self-attention with the packed weight,
    else one per distinct input."""
    if separate:
        biases = (None,) * 3 if in_proj_bias is None else in_proj_bias.chunk(3)
        return tuple(_F.linear(x, w, b) for x, w, b in
                     zip((query, key, value), (q_weight, k_weight, v_weight), biases))
    embed_dim = query.shape[-1]
    if query is key and key is value:
        packed = _F.linear(query, in_proj_weight, in_proj_bias)
        return tuple(packed.unflatten(-1, (3, embed_dim)).unbind(-2))
    weights = in_proj_weight.split(embed_dim)
    biases = (None,) * 3 if in_proj_bias is None else in_proj_bias.split(embed_dim)
    if key is value:
        kv_weight = in_proj_weight[embed_dim:]
        kv_bias = None if in_proj_bias is None else in_proj_bias[embed_dim:]
        k, v = _F.linear(key, kv_weight, kv_bias).unflatten(-1, (2, embed_dim)).unbind(-2)
        return _F.linear(query, weights[0], biases[0]), k, v
    return tuple(_F.linear(x, w, b) for x, w, b in zip((query, key, value), weights, biases))


def _out_projection(heads, length, batch, embed_dim, weight, bias):
    """``heads`` laid out ``(L, N, heads, head_dim)`` (any strides), concatenated per
    position and projected: ``(L, N, E)``."""
    flat = heads.reshape(length * batch, embed_dim)
    return _F.linear(flat, weight, bias).reshape(length, batch, embed_dim)
