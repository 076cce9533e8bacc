"""nn.Transformer, TransformerEncoder/Decoder and their layers against torch.nn: the same
initial parameters from the same seed, torch's state dict keys, outputs and gradients of
inputs and parameters (eval mode, and training with dropout=0), every constructor option,
the masks and causal hints, the encoder's zeroed padding (NOTE [The encoder's padded
outputs]), deep-copied layers, reprs, warnings and errors."""
import copy
import warnings

import numpy as np
import pytest
import torch

import autograd_cy as ag
from oracle import (DEVICE, assert_close, assert_same_error, check_op, node_name, randn,
                    same_warning, to_numpy)

E, HEADS, FF = 4, 2, 6


def quietly(fn):
    """``fn()`` without the nested-tensor warning of an encoder that cannot use them."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        return fn()


def pair(build, dtype=np.float64):
    """``build(lib)`` in both libraries, ours loaded with torch's state dict."""
    torch.manual_seed(0)
    theirs = quietly(lambda: build(torch))
    ours = quietly(lambda: build(ag))
    theirs = theirs.to(getattr(torch, np.dtype(dtype).name))
    ours.load_state_dict({k: ag.tensor(v.detach().numpy()) for k, v in
                          theirs.state_dict().items()})
    ours = ours.to(getattr(ag, np.dtype(dtype).name))
    return ours, theirs


def check_module(build, *arrays, dtype=np.float64, train=False, call=None, rtol=None,
                 atol=None, **masks):
    """Outputs and gradients of inputs and parameters of ``build(lib)`` (torch's weights),
    called as ``call(module, *inputs, **masks)``, in eval mode unless ``train``."""
    ours, theirs = pair(build, dtype)
    ours.train(train)
    theirs.train(train)
    names = [name for name, _ in theirs.named_parameters()]
    params = [p.detach().numpy() for _, p in theirs.named_parameters()]
    call = call or (lambda module, *xs, **kw: module(*xs, **kw))

    def fn(lib, *tensors):
        module = ours if lib is ag else theirs
        inputs, weights = tensors[:len(arrays)], tensors[len(arrays):]
        kwargs = {k: (lib.tensor(v) if isinstance(v, np.ndarray) else v)
                  for k, v in masks.items()}
        return _functional(lib, module, dict(zip(names, weights)), call, inputs, kwargs)
    # torch's attention without weights takes its fused kernel, which has no double backward
    check_op(fn, *arrays, *params, dtype=dtype, double=False, rtol=rtol, atol=atol)


def _functional(lib, module, weights, call, inputs, kwargs):
    """``call(module, *inputs, **kwargs)`` with ``weights`` for the module's parameters."""
    class Called(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.module = module

        def forward(self, *xs):
            return call(self.module, *xs, **kwargs)
    wrapper = Called()
    return lib.func.functional_call(wrapper, {f"module.{k}": v for k, v in weights.items()},
                                    tuple(inputs))


def encoder_layer(**options):
    options.setdefault("dropout", 0.0)
    return lambda lib: lib.nn.TransformerEncoderLayer(E, HEADS, FF, **options)


def decoder_layer(**options):
    options.setdefault("dropout", 0.0)
    return lambda lib: lib.nn.TransformerDecoderLayer(E, HEADS, FF, **options)


PADDING = np.array([[False, False, True, True, True], [False] * 5])
CAUSAL = np.triu(np.ones((5, 5), bool), 1)


# ------------------------------------------------------------------ initial parameters

@pytest.mark.cpu_only         # torch's CPU generator gives both modules their weights
@pytest.mark.parametrize("build", [
    lambda lib: lib.nn.Transformer(E, HEADS, 2, 2, FF),
    lambda lib: lib.nn.TransformerEncoderLayer(E, HEADS, FF, bias=False, norm_first=True),
    lambda lib: lib.nn.TransformerDecoderLayer(E, HEADS, batch_first=True),
    lambda lib: lib.nn.TransformerEncoder(lib.nn.TransformerEncoderLayer(E, HEADS, FF), 3,
                                          lib.nn.LayerNorm(E)),
])
def test_same_seed_same_parameters_and_state_dict_keys(build):
    states = []
    for lib in (ag, torch):
        lib.manual_seed(3)
        states.append(quietly(lambda: build(lib)).state_dict())
    assert list(states[0]) == list(states[1])
    for key in states[1]:
        np.testing.assert_array_equal(to_numpy(states[0][key]), to_numpy(states[1][key]),
                                      err_msg=key)


def test_stacked_layers_are_deep_copies():
    layer = ag.nn.TransformerEncoderLayer(E, HEADS, FF, batch_first=True)
    encoder = ag.nn.TransformerEncoder(layer, 2)
    first, second = encoder.layers
    assert first is not layer and second is not first
    assert first.linear1.weight is not second.linear1.weight
    assert_close(first.linear1.weight, layer.linear1.weight, 0, 0)
    with ag.no_grad():
        first.linear1.weight.add_(1)
    assert not ag.equal(first.linear1.weight, second.linear1.weight)
    assert isinstance(copy.deepcopy(encoder), ag.nn.TransformerEncoder)


# ------------------------------------------------------------------ the layers

@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("options", [
    {}, {"norm_first": True}, {"activation": "gelu"}, {"bias": False},
    {"batch_first": True}, {"layer_norm_eps": 1e-3},
])
@pytest.mark.parametrize("train", [False, True])
def test_encoder_layer(dtype, options, train):
    x = randn(5, 2, E) if not options.get("batch_first") else randn(2, 5, E)
    check_module(encoder_layer(**options), x, dtype=dtype, train=train)


@pytest.mark.parametrize("masks", [
    {"src_mask": CAUSAL}, {"src_key_padding_mask": PADDING},
    {"src_mask": CAUSAL, "is_causal": True},
    {"src_mask": np.where(CAUSAL, -np.inf, 0.0)},
    {"src_mask": randn(5, 5, seed=9), "src_key_padding_mask": np.where(PADDING, -np.inf, 0.0)},
])
def test_encoder_layer_masks(masks):
    check_module(encoder_layer(), randn(5, 2, E), **masks)


def test_encoder_layer_callable_activation_and_unbatched_input():
    check_module(encoder_layer(activation=lambda x: x.tanh()), randn(5, E))
    check_module(lambda lib: lib.nn.TransformerEncoderLayer(E, HEADS, FF, dropout=0.0,
                                                            activation=lib.nn.GELU()),
                 randn(5, 2, E))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("options", [{}, {"norm_first": True, "activation": "gelu"},
                                     {"bias": False, "batch_first": True}])
@pytest.mark.parametrize("train", [False, True])
def test_decoder_layer(dtype, options, train):
    tgt, memory = randn(3, 2, E, seed=1), randn(5, 2, E, seed=2)
    if options.get("batch_first"):
        tgt, memory = tgt.transpose(1, 0, 2), memory.transpose(1, 0, 2)
    check_module(decoder_layer(**options), tgt, memory, dtype=dtype, train=train)


def test_decoder_layer_masks():
    check_module(decoder_layer(), randn(3, 2, E, seed=1), randn(5, 2, E, seed=2),
                 tgt_mask=CAUSAL[:3, :3], tgt_is_causal=True, memory_mask=randn(3, 5),
                 tgt_key_padding_mask=PADDING[:, :3],
                 memory_key_padding_mask=np.where(PADDING, -np.inf, 0.0))


def test_activation_strings_and_their_error():
    for lib in (ag, torch):
        layer = lib.nn.TransformerEncoderLayer(E, HEADS, activation="gelu")
        assert layer.activation is lib.nn.functional.gelu
        assert layer.activation_relu_or_gelu == 2
        assert lib.nn.TransformerDecoderLayer(E, HEADS).activation is lib.nn.functional.relu
    assert_same_error(lambda lib: lib.nn.TransformerEncoderLayer(E, HEADS, activation="tanh"),
                      RuntimeError, "^activation should be relu/gelu, not tanh$")


# ------------------------------------------------------------------ the stacks

@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("train", [False, True])
def test_encoder(batch_first, train):
    def build(lib):
        layer = lib.nn.TransformerEncoderLayer(E, HEADS, FF, 0.0, batch_first=batch_first)
        return lib.nn.TransformerEncoder(layer, 2, lib.nn.LayerNorm(E))
    x = randn(2, 5, E) if batch_first else randn(5, 2, E)
    padding = PADDING if batch_first else PADDING
    check_module(build, x, train=train, src_key_padding_mask=padding)
    check_module(build, x, train=train, mask=np.where(CAUSAL, -np.inf, 0.0))


@pytest.mark.parametrize("padding, left_aligned", [
    (PADDING, True), (np.array([[False, True, False, True, True], [False] * 5]), False)])
@pytest.mark.parametrize("mask_check", [True, False])
def test_encoder_inference_pads_with_zeros(padding, left_aligned, mask_check):
    """In eval mode without gradients, torch's batch-first encoder of an even number of
    heads runs nested tensors given a left-aligned padding mask: zeros where it pads."""
    def run(lib, module):
        with lib.no_grad():
            return module(lib.tensor(randn(2, 5, E)), src_key_padding_mask=lib.tensor(padding))
    ours, theirs = pair(lambda lib: lib.nn.TransformerEncoder(
        lib.nn.TransformerEncoderLayer(E, HEADS, FF, batch_first=True), 2,
        enable_nested_tensor=True, mask_check=mask_check))
    ours.eval()
    theirs.eval()
    expected = run(torch, theirs)
    assert_close(run(ag, ours), expected, 1e-7, 1e-9)
    assert (not expected[0, 4].any()) == (left_aligned or not mask_check)


def test_encoder_nested_tensor_flags_and_warning():
    def build(lib):
        return lib.nn.TransformerEncoder(lib.nn.TransformerEncoderLayer(E, HEADS), 1)
    ours, theirs = same_warning(build, UserWarning,
                                r"^enable_nested_tensor is True, but self.use_nested_tensor "
                                r"is False because encoder_layer.self_attn.batch_first was "
                                r"not True")
    assert (ours.enable_nested_tensor, ours.use_nested_tensor) == (True, False)
    assert (theirs.enable_nested_tensor, theirs.use_nested_tensor) == (True, False)
    for lib in (ag, torch):
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            layer = lib.nn.TransformerEncoderLayer(E, HEADS, batch_first=True)
            assert lib.nn.TransformerEncoder(layer, 1).use_nested_tensor
            assert not lib.nn.TransformerEncoder(layer, 1, enable_nested_tensor=False) \
                .use_nested_tensor


@pytest.mark.parametrize("train", [False, True])
def test_decoder(train):
    def build(lib):
        return lib.nn.TransformerDecoder(
            lib.nn.TransformerDecoderLayer(E, HEADS, FF, 0.0, norm_first=True), 2,
            lib.nn.LayerNorm(E))
    check_module(build, randn(3, 2, E, seed=1), randn(5, 2, E, seed=2), train=train,
                 tgt_mask=np.where(CAUSAL[:3, :3], -np.inf, 0.0),
                 memory_key_padding_mask=PADDING)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("batch_first", [False, True])
def test_transformer(dtype, batch_first):
    def build(lib):
        return lib.nn.Transformer(E, HEADS, 2, 1, FF, dropout=0.0, batch_first=batch_first)
    src, tgt = randn(5, 2, E, seed=1), randn(3, 2, E, seed=2)
    if batch_first:
        src, tgt = src.transpose(1, 0, 2), tgt.transpose(1, 0, 2)
    check_module(build, src, tgt, dtype=dtype, train=True,
                 tgt_mask=np.where(CAUSAL[:3, :3], -np.inf, 0.0), src_key_padding_mask=PADDING)
    check_module(build, src, tgt, dtype=dtype, tgt_is_causal=True,
                 tgt_mask=np.where(CAUSAL[:3, :3], -np.inf, 0.0))


def test_transformer_custom_encoder_and_decoder():
    for lib in (ag, torch):
        encoder = quietly(lambda: lib.nn.TransformerEncoder(
            lib.nn.TransformerEncoderLayer(E, HEADS), 1))
        decoder = lib.nn.TransformerDecoder(lib.nn.TransformerDecoderLayer(E, HEADS), 1)
        model = lib.nn.Transformer(E, HEADS, custom_encoder=encoder, custom_decoder=decoder)
        assert model.encoder is encoder and model.decoder is decoder
        assert (model.d_model, model.nhead, model.batch_first) == (E, HEADS, False)


def test_gradcheck_and_gradgradcheck_of_an_encoder_layer():
    """Ours in float64 by finite differences, the second order included (torch's fused
    attention has none to compare with)."""
    layer = ag.nn.TransformerEncoderLayer(E, HEADS, FF, 0.0, norm_first=True).double()
    layer.eval()
    x = ag.tensor(randn(3, 2, E), requires_grad=True)
    assert ag.autograd.gradcheck(layer, (x,), check_forward_ad=True)
    assert ag.autograd.gradgradcheck(layer, (x,))


def test_forward_ad_of_a_decoder_layer_by_finite_differences():
    """torch's fused CPU attention has no forward AD to compare with; ours has."""
    layer = ag.nn.TransformerDecoderLayer(E, HEADS, FF, 0.0, activation="gelu").double()
    inputs = (ag.tensor(randn(3, 2, E), requires_grad=True),
              ag.tensor(randn(4, 2, E, seed=1), requires_grad=True))
    assert ag.autograd.gradcheck(layer, inputs, check_forward_ad=True, check_backward_ad=False)


def test_grad_fn_of_the_output():
    ours, theirs = pair(encoder_layer())
    for lib, module in ((ag, ours), (torch, theirs)):
        out = module(lib.tensor(randn(5, 2, E), requires_grad=True))
        assert node_name(out.grad_fn) == "NativeLayerNormBackward0"


# ------------------------------------------------------------------ masks, reprs, errors

@pytest.mark.parametrize("size", [1, 4])
def test_generate_square_subsequent_mask(size):
    ours = ag.nn.Transformer.generate_square_subsequent_mask(size)
    theirs = torch.nn.Transformer.generate_square_subsequent_mask(size)
    assert_close(ours, theirs, 0, 0)
    assert str(ours.device) == ("cpu" if DEVICE == "cpu" else "cuda:0")
    double = ag.nn.Transformer.generate_square_subsequent_mask(size, dtype=ag.float64)
    assert double.dtype == ag.float64


def test_causal_mask_is_detected():
    """An encoder given torch's causal mask and no hint treats it as causal; with
    ``is_causal=False`` it does not (the same values either way)."""
    check_module(lambda lib: lib.nn.TransformerEncoder(
        lib.nn.TransformerEncoderLayer(E, HEADS, FF, 0.0), 1), randn(5, 2, E),
        mask=np.where(CAUSAL, -np.inf, 0.0).astype(np.float64), is_causal=None)
    from autograd_cy.nn.modules.transformer import _detect_is_causal_mask
    causal = ag.nn.Transformer.generate_square_subsequent_mask(3)
    assert _detect_is_causal_mask(causal) and not _detect_is_causal_mask(causal, False)
    assert not _detect_is_causal_mask(ag.zeros(3, 3))
    assert not _detect_is_causal_mask(causal, None, 4)


def test_reprs():
    for build in (lambda lib: lib.nn.Transformer(E, HEADS, 2, 1, FF),
                  lambda lib: lib.nn.TransformerEncoderLayer(E, HEADS, activation=lib.nn.GELU()),
                  lambda lib: lib.nn.TransformerDecoder(
                      lib.nn.TransformerDecoderLayer(E, HEADS, bias=False), 3)):
        assert repr(quietly(lambda: build(ag))) == repr(quietly(lambda: build(torch)))


@pytest.mark.parametrize("call, expected", [
    (lambda lib, m: m(lib.zeros(5, 2, E), lib.zeros(3, 3, E)),
     (RuntimeError, "^the batch number of src and tgt must be equal$")),
    (lambda lib, m: m(lib.zeros(5, 2, E), lib.zeros(3, 2, E + 1)),
     (RuntimeError, "^the feature number of src and tgt must be equal to d_model$")),
    (lambda lib, m: m.encoder(lib.zeros(5, 2, E), mask=lib.zeros(4, 4)),
     (RuntimeError, "^The shape of the 2D attn_mask is")),
])
def test_errors(call, expected):
    def run(lib):
        lib.manual_seed(0)
        return call(lib, quietly(lambda: lib.nn.Transformer(E, HEADS, 1, 1, FF)))
    assert_same_error(run, *expected)


def test_mask_types():
    """The layers pass masks on as float masks: an integer mask is refused, a boolean
    padding mask with a float attention mask draws torch's deprecation warning."""
    def layer(lib):
        lib.manual_seed(0)
        return lib.nn.TransformerEncoderLayer(E, HEADS, FF, 0.0)
    assert_same_error(lambda lib: layer(lib)(lib.zeros(5, 2, E),
                                             src_key_padding_mask=lib.zeros(2, 5).long()),
                      AssertionError, "^only bool and floating types of src_key_padding_mask "
                                      "are supported$")
    assert_same_error(lambda lib: quietly(lambda: lib.nn.TransformerEncoder(layer(lib), 1))(
        lib.zeros(5, 2, E), mask=lib.zeros(5, 5).int()),
        AssertionError, "^only bool and floating types of mask are supported$")
    same_warning(lambda lib: layer(lib)(lib.zeros(5, 2, E), src_mask=lib.zeros(5, 5),
                                        src_key_padding_mask=lib.tensor(PADDING)),
                 UserWarning, "^Support for mismatched src_key_padding_mask and src_mask is "
                              "deprecated")


@pytest.mark.parametrize("mask, expected", [
    (CAUSAL, True), (np.where(CAUSAL, -np.inf, 0.0), True), (CAUSAL.T, False), (None, False)])
def test_the_encoder_detects_a_causal_mask(mask, expected):
    """The hint each layer's attention receives, the mask boolean or float, as torch's."""
    for lib in (ag, torch):
        lib.manual_seed(0)
        encoder = quietly(lambda: lib.nn.TransformerEncoder(
            lib.nn.TransformerEncoderLayer(E, HEADS, FF, 0.0), 2))
        hints = []
        for layer in encoder.layers:
            layer.self_attn.register_forward_pre_hook(
                lambda module, args, kwargs: hints.append(kwargs["is_causal"]),
                with_kwargs=True)
        encoder(lib.zeros(5, 2, E), mask=None if mask is None else lib.tensor(mask))
        assert hints == [expected, expected], lib.__name__


def test_dropout_acts_in_training_only():
    layer = ag.nn.TransformerEncoderLayer(E, HEADS, FF, dropout=0.5)
    x = ag.tensor(randn(5, 2, E)).float()
    ag.manual_seed(1)
    first, second = layer(x), layer(x)
    assert not ag.allclose(first, second)
    layer.eval()
    assert ag.equal(layer(x), layer(x))
    assert all(not m.training for m in layer.modules())


def test_factory_arguments_reach_every_parameter():
    for lib in (ag, torch):
        model = quietly(lambda: lib.nn.Transformer(E, HEADS, 1, 1, FF, dtype=lib.float64,
                                                   device="cpu"))
        assert {p.dtype for p in model.parameters()} == {lib.float64}
        assert {str(p.device) for p in model.parameters()} == {"cpu"}
