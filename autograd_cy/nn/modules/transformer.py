"""The transformer of "Attention Is All You Need", as torch.nn builds it: ``Transformer``,
its stacks ``TransformerEncoder`` / ``TransformerDecoder`` and their layers
``TransformerEncoderLayer`` / ``TransformerDecoderLayer``.

Each layer is a residual self-attention block (``self_attn``, then ``dropout1``) and a
residual feedforward block (``linear1``, activation, ``dropout``, ``linear2``,
``dropout2``), each followed by a LayerNorm (post-norm, the default) or preceded by one
(``norm_first``); the decoder layer has a cross-attention block over the encoder's output
(``multihead_attn``) between them. The submodules are named and created in torch's order,
so a torch ``state_dict`` loads and, with the same seed, the parameters start equal.

Masks follow ``MultiheadAttention``: in a boolean mask True means "do not attend", a float
mask is added to the scores.

# NOTE [The encoder's padded outputs]
torch's ``TransformerEncoder`` in inference (eval mode, no gradient to record), given a
``src_key_padding_mask`` whose kept positions are a prefix of each sequence and no
``mask``, runs the sequences as a nested tensor without their padding and pads the result
with zeros: the outputs at padded positions are 0 (before the final ``norm``), where the
plain computation gives the attention's value there. There are no nested tensors here; the
same conditions zero those positions instead, so the result equals torch's. With
``mask_check=False`` the mask is not checked, and torch's nested tensor keeps as many
leading positions of each sequence as the mask keeps: so do we.
"""
import copy
import warnings

import autograd_cy as ag
from autograd_cy import factories
from autograd_cy.grad_mode import is_grad_enabled
from autograd_cy.nn import functional as F
from autograd_cy.nn import init
from autograd_cy.nn.modules.activation import GELU, ReLU
from autograd_cy.nn.modules.attention import MultiheadAttention
from autograd_cy.nn.modules.container import ModuleList
from autograd_cy.nn.modules.dropout import Dropout
from autograd_cy.nn.modules.linear import Linear
from autograd_cy.nn.modules.module import Module
from autograd_cy.nn.modules.normalization import LayerNorm
from autograd_cy.nn.multi_head_attention import _canonical_mask

__all__ = ["Transformer", "TransformerEncoder", "TransformerDecoder",
           "TransformerEncoderLayer", "TransformerDecoderLayer"]


def _generate_square_subsequent_mask(sz, device=None, dtype=None):
    """A causal mask: ``-inf`` above the diagonal (later positions), 0 elsewhere."""
    return ag.triu(factories.full((sz, sz), float("-inf"), dtype=dtype, device=device),
                   diagonal=1)


def _seq_len(src, batch_first):
    """The sequence length of ``src``: ``(S, E)``, ``(S, N, E)`` or ``(N, S, E)``."""
    if src.dim() == 2:
        return src.shape[0]
    return src.shape[1 if batch_first else 0]


def _detect_is_causal_mask(mask, is_causal=None, size=None):
    """``is_causal`` when given; for None, whether ``mask`` equals the causal mask of
    ``size`` (a hint that lets attention skip the mask)."""
    make_causal = is_causal is True
    if is_causal is None and mask is not None:
        size = size if size is not None else mask.shape[-2]
        causal = _generate_square_subsequent_mask(size, device=mask.device, dtype=mask.dtype)
        make_causal = tuple(mask.shape) == tuple(causal.shape) and bool((mask == causal).all())
    return make_causal


def _get_clones(module, n):
    """``n`` independent deep copies of ``module``: the layers of a stack start equal."""
    return ModuleList([copy.deepcopy(module) for _ in range(n)])


def _get_activation_fn(activation):
    """The function named by a legacy string activation."""
    if activation == "relu":
        return F.relu
    if activation == "gelu":
        return F.gelu
    raise RuntimeError(f"activation should be relu/gelu, not {activation}")


def _feedforward(layer, x, last_dropout):
    """``linear2(dropout(activation(linear1(x))))``, then ``last_dropout``."""
    return last_dropout(layer.linear2(layer.dropout(layer.activation(layer.linear1(x)))))


def _attention_block(attention, dropout, x, memory, mask, key_padding_mask, is_causal):
    """Attention of ``x`` over ``memory`` (itself for self-attention), then ``dropout``."""
    x = attention(x, memory, memory, attn_mask=mask, key_padding_mask=key_padding_mask,
                  need_weights=False, is_causal=is_causal)[0]
    return dropout(x)


class TransformerEncoderLayer(Module):
    """Self-attention and a feedforward network, each a residual block with a LayerNorm
    after it (or before it with ``norm_first``)."""

    def __init__(self, d_model, nhead, dim_feedforward=2048, dropout=0.1, activation=F.relu,
                 layer_norm_eps=1e-5, batch_first=False, norm_first=False, bias=True,
                 device=None, dtype=None):
        super().__init__()
        options = {"device": device, "dtype": dtype}
        self.self_attn = MultiheadAttention(d_model, nhead, dropout=dropout, bias=bias,
                                            batch_first=batch_first, **options)
        self.linear1 = Linear(d_model, dim_feedforward, bias=bias, **options)
        self.dropout = Dropout(dropout)
        self.linear2 = Linear(dim_feedforward, d_model, bias=bias, **options)
        self.norm_first = norm_first
        self.norm1 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **options)
        self.norm2 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **options)
        self.dropout1 = Dropout(dropout)
        self.dropout2 = Dropout(dropout)
        if isinstance(activation, str):
            activation = _get_activation_fn(activation)
        # 1 for relu, 2 for gelu, 0 otherwise: what torch's fused inference path reads
        if activation is F.relu or isinstance(activation, ReLU):
            self.activation_relu_or_gelu = 1
        elif activation is F.gelu or isinstance(activation, GELU):
            self.activation_relu_or_gelu = 2
        else:
            self.activation_relu_or_gelu = 0
        self.activation = activation

    def forward(self, src, src_mask=None, src_key_padding_mask=None, is_causal=False):
        src_key_padding_mask = _canonical_mask(src_key_padding_mask, "src_key_padding_mask",
                                               src_mask, "src_mask", src.dtype)
        src_mask = _canonical_mask(src_mask, "src_mask", None, "", src.dtype, False)
        x = src
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), src_mask, src_key_padding_mask, is_causal)
            x = x + _feedforward(self, self.norm2(x), self.dropout2)
        else:
            x = self.norm1(x + self._sa_block(x, src_mask, src_key_padding_mask, is_causal))
            x = self.norm2(x + _feedforward(self, x, self.dropout2))
        return x

    def _sa_block(self, x, attn_mask, key_padding_mask, is_causal=False):
        return _attention_block(self.self_attn, self.dropout1, x, x, attn_mask,
                                key_padding_mask, is_causal)


class TransformerDecoderLayer(Module):
    """Self-attention over the target, attention over the encoder's output (``memory``)
    and a feedforward network, each a residual block with a LayerNorm after it (or before
    it with ``norm_first``)."""

    def __init__(self, d_model, nhead, dim_feedforward=2048, dropout=0.1, activation=F.relu,
                 layer_norm_eps=1e-5, batch_first=False, norm_first=False, bias=True,
                 device=None, dtype=None):
        super().__init__()
        options = {"device": device, "dtype": dtype}
        self.self_attn = MultiheadAttention(d_model, nhead, dropout=dropout,
                                            batch_first=batch_first, bias=bias, **options)
        self.multihead_attn = MultiheadAttention(d_model, nhead, dropout=dropout,
                                                 batch_first=batch_first, bias=bias,
                                                 **options)
        self.linear1 = Linear(d_model, dim_feedforward, bias=bias, **options)
        self.dropout = Dropout(dropout)
        self.linear2 = Linear(dim_feedforward, d_model, bias=bias, **options)
        self.norm_first = norm_first
        self.norm1 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **options)
        self.norm2 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **options)
        self.norm3 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **options)
        self.dropout1 = Dropout(dropout)
        self.dropout2 = Dropout(dropout)
        self.dropout3 = Dropout(dropout)
        self.activation = (_get_activation_fn(activation) if isinstance(activation, str)
                           else activation)

    def forward(self, tgt, memory, tgt_mask=None, memory_mask=None, tgt_key_padding_mask=None,
                memory_key_padding_mask=None, tgt_is_causal=False, memory_is_causal=False):
        x = tgt
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), tgt_mask, tgt_key_padding_mask,
                                   tgt_is_causal)
            x = x + self._mha_block(self.norm2(x), memory, memory_mask,
                                    memory_key_padding_mask, memory_is_causal)
            x = x + _feedforward(self, self.norm3(x), self.dropout3)
        else:
            x = self.norm1(x + self._sa_block(x, tgt_mask, tgt_key_padding_mask,
                                              tgt_is_causal))
            x = self.norm2(x + self._mha_block(x, memory, memory_mask,
                                               memory_key_padding_mask, memory_is_causal))
            x = self.norm3(x + _feedforward(self, x, self.dropout3))
        return x

    def _sa_block(self, x, attn_mask, key_padding_mask, is_causal=False):
        return _attention_block(self.self_attn, self.dropout1, x, x, attn_mask,
                                key_padding_mask, is_causal)

    def _mha_block(self, x, mem, attn_mask, key_padding_mask, is_causal=False):
        return _attention_block(self.multihead_attn, self.dropout2, x, mem, attn_mask,
                                key_padding_mask, is_causal)


def _why_not_nested(layer):
    """Why torch would not run a stack of ``layer`` on nested tensors ("" when it would)."""
    name = "encoder_layer"
    if not isinstance(layer, TransformerEncoderLayer):
        return f"{name} was not TransformerEncoderLayer"
    if layer.norm_first:
        return f"{name}.norm_first was True"
    if not layer.self_attn.batch_first:
        return (f"{name}.self_attn.batch_first was not True"
                "(use batch_first for better inference performance)")
    if not layer.self_attn._qkv_same_embed_dim:
        return f"{name}.self_attn._qkv_same_embed_dim was not True"
    if layer.self_attn.in_proj_bias is None:
        return f"{name}.self_attn was passed bias=False"
    if not layer.activation_relu_or_gelu:
        return f"{name}.activation_relu_or_gelu was not True"
    if layer.norm1.eps != layer.norm2.eps:
        return f"{name}.norm1.eps was not equal to {name}.norm2.eps"
    if layer.self_attn.num_heads % 2 == 1:
        return f"{name}.self_attn.num_heads is odd"
    return ""


def _leading_positions(kept):
    """As many leading positions of each row as ``kept`` has True: the sequences torch's
    nested tensor takes (it reads only their lengths)."""
    lengths = kept.sum(1, keepdim=True)
    return factories.arange(kept.shape[1], device=kept.device) < lengths


def _left_aligned(kept):
    """Whether each row's kept positions come before all of its padded ones."""
    return not bool((kept[:, 1:] & ~kept[:, :-1]).any())


class TransformerEncoder(Module):
    """``num_layers`` deep copies of ``encoder_layer`` applied in turn, then ``norm``.

    ``enable_nested_tensor`` is accepted and kept, as torch's flag; the results are those
    of torch's nested path (NOTE [The encoder's padded outputs]).
    """

    def __init__(self, encoder_layer, num_layers, norm=None, enable_nested_tensor=True,
                 mask_check=True):
        super().__init__()
        self.layers = _get_clones(encoder_layer, num_layers)
        self.num_layers = num_layers
        self.norm = norm
        self.enable_nested_tensor = enable_nested_tensor
        self.use_nested_tensor = enable_nested_tensor
        self.mask_check = mask_check
        why_not = _why_not_nested(encoder_layer)
        if enable_nested_tensor and why_not:
            warnings.warn(f"enable_nested_tensor is True, but self.use_nested_tensor is False "
                          f"because {why_not}", stacklevel=2)
            self.use_nested_tensor = False

    def forward(self, src, mask=None, src_key_padding_mask=None, is_causal=None):
        src_key_padding_mask = _canonical_mask(src_key_padding_mask, "src_key_padding_mask",
                                               mask, "mask", src.dtype)
        mask = _canonical_mask(mask, "mask", None, "", src.dtype, False)
        first = self.layers[0]
        batch_first = first.self_attn.batch_first
        kept = None
        if self._pads_with_zeros(src, mask, src_key_padding_mask):
            # (N, S), True where the (float, canonical) padding mask is 0
            kept = _leading_positions(src_key_padding_mask.logical_not())
            src_key_padding_mask = kept.logical_not()
        is_causal = _detect_is_causal_mask(mask, is_causal, _seq_len(src, batch_first))
        output = src
        for layer in self.layers:
            output = layer(output, src_mask=mask, is_causal=is_causal,
                           src_key_padding_mask=src_key_padding_mask)
        if kept is not None:            # batch first: torch's nested path requires it
            output = ag.where(kept.unsqueeze(-1), output, ag.zeros((), dtype=output.dtype,
                                                                   device=output.device))
        if self.norm is not None:
            output = self.norm(output)
        return output

    def _pads_with_zeros(self, src, mask, src_key_padding_mask):
        """Whether torch would take its nested-tensor path (NOTE [The encoder's padded
        outputs])."""
        first = self.layers[0]
        if (not self.use_nested_tensor or first.training or src.dim() != 3
                or src_key_padding_mask is None or mask is not None):
            return False
        if self.mask_check and not _left_aligned(src_key_padding_mask.logical_not()):
            return False
        attention = first.self_attn
        tensors = (src, attention.in_proj_weight, attention.in_proj_bias,
                   attention.out_proj.weight, attention.out_proj.bias, first.norm1.weight,
                   first.norm1.bias, first.norm2.weight, first.norm2.bias,
                   first.linear1.weight, first.linear1.bias, first.linear2.weight,
                   first.linear2.bias)
        return not (is_grad_enabled() and any(t.requires_grad for t in tensors))


class TransformerDecoder(Module):
    """``num_layers`` deep copies of ``decoder_layer`` applied in turn over the same
    ``memory``, then ``norm``."""

    def __init__(self, decoder_layer, num_layers, norm=None):
        super().__init__()
        self.layers = _get_clones(decoder_layer, num_layers)
        self.num_layers = num_layers
        self.norm = norm

    def forward(self, tgt, memory, tgt_mask=None, memory_mask=None, tgt_key_padding_mask=None,
                memory_key_padding_mask=None, tgt_is_causal=None, memory_is_causal=False):
        output = tgt
        length = _seq_len(tgt, self.layers[0].self_attn.batch_first)
        tgt_is_causal = _detect_is_causal_mask(tgt_mask, tgt_is_causal, length)
        for layer in self.layers:
            output = layer(output, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                           tgt_key_padding_mask=tgt_key_padding_mask,
                           memory_key_padding_mask=memory_key_padding_mask,
                           tgt_is_causal=tgt_is_causal, memory_is_causal=memory_is_causal)
        if self.norm is not None:
            output = self.norm(output)
        return output


class Transformer(Module):
    """An encoder (``num_encoder_layers`` layers and a final LayerNorm) over ``src`` and a
    decoder (likewise) over ``tgt`` attending to the encoder's output; every parameter of
    more than one dim is re-initialised by ``xavier_uniform_``, as torch's."""

    def __init__(self, d_model=512, nhead=8, num_encoder_layers=6, num_decoder_layers=6,
                 dim_feedforward=2048, dropout=0.1, activation=F.relu, custom_encoder=None,
                 custom_decoder=None, layer_norm_eps=1e-5, batch_first=False,
                 norm_first=False, bias=True, device=None, dtype=None):
        super().__init__()
        options = {"device": device, "dtype": dtype}
        layer_args = (d_model, nhead, dim_feedforward, dropout, activation, layer_norm_eps,
                      batch_first, norm_first, bias)
        if custom_encoder is not None:
            self.encoder = custom_encoder
        else:
            self.encoder = TransformerEncoder(
                TransformerEncoderLayer(*layer_args, **options), num_encoder_layers,
                LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **options))
        if custom_decoder is not None:
            self.decoder = custom_decoder
        else:
            self.decoder = TransformerDecoder(
                TransformerDecoderLayer(*layer_args, **options), num_decoder_layers,
                LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **options))
        self._reset_parameters()
        self.d_model = d_model
        self.nhead = nhead
        self.batch_first = batch_first

    def forward(self, src, tgt, src_mask=None, tgt_mask=None, memory_mask=None,
                src_key_padding_mask=None, tgt_key_padding_mask=None,
                memory_key_padding_mask=None, src_is_causal=None, tgt_is_causal=None,
                memory_is_causal=False):
        batch_dim = 0 if self.batch_first else 1
        if src.dim() == 3 and src.shape[batch_dim] != tgt.shape[batch_dim]:
            raise RuntimeError("the batch number of src and tgt must be equal")
        if src.shape[-1] != self.d_model or tgt.shape[-1] != self.d_model:
            raise RuntimeError("the feature number of src and tgt must be equal to d_model")
        memory = self.encoder(src, mask=src_mask, src_key_padding_mask=src_key_padding_mask,
                              is_causal=src_is_causal)
        return self.decoder(tgt, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                            tgt_key_padding_mask=tgt_key_padding_mask,
                            memory_key_padding_mask=memory_key_padding_mask,
                            tgt_is_causal=tgt_is_causal, memory_is_causal=memory_is_causal)

    @staticmethod
    def generate_square_subsequent_mask(sz, device=None, dtype=None):
        """A causal mask of ``sz`` positions: ``-inf`` above the diagonal, 0 elsewhere."""
        return _generate_square_subsequent_mask(sz, device=device, dtype=dtype)

    def _reset_parameters(self):
        for p in self.parameters():
            if p.dim() > 1:
                init.xavier_uniform_(p)
