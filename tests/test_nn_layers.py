"""The layers of autograd_cy.nn against torch.nn, each from torch's initial weights: outputs,
gradients of inputs and parameters, state dict keys, reprs, train/eval behaviour (BatchNorm's
running statistics, Dropout), MultiheadAttention with its masks, and construction errors."""
import numpy as np
import pytest
import torch

import autograd_cy as ag
from oracle import assert_close, assert_same_error
from test_nn_module import torch_spelling

RTOL, ATOL = 1e-5, 1e-6


def copy_state(theirs, ours):
    """torch's initial weights (and buffers) into our module."""
    ours.load_state_dict({k: ag.tensor(v.detach().numpy())
                          for k, v in theirs.state_dict().items()})


def pair(build):
    """The same layer in both libraries, ours starting from torch's weights."""
    theirs = build(torch).double()
    ours = build(ag).double()
    copy_state(theirs, ours)
    return ours, theirs


def run_both(ours, theirs, *arrays, integer=False, outputs=lambda out: out, modules=None):
    """Forward and backward of both layers (or callables over ``modules``) on the same
    inputs; compare output, input and parameter gradients."""
    inputs = [ag.tensor(a, requires_grad=not integer) for a in arrays]
    tinputs = [torch.tensor(a, requires_grad=not integer) for a in arrays]
    out, tout = outputs(ours(*inputs)), outputs(theirs(*tinputs))
    assert_close(out, tout, rtol=RTOL, atol=ATOL)
    seed = np.random.default_rng(7).standard_normal(tuple(tout.shape))
    out.backward(ag.tensor(seed))
    tout.backward(torch.tensor(seed))
    if not integer:
        for a, b in zip(inputs, tinputs):
            assert_close(a.grad, b.grad, rtol=RTOL, atol=ATOL, what="input grad")
    ours, theirs = modules or (ours, theirs)
    for (name, p), tp in zip(ours.named_parameters(), theirs.parameters()):
        assert_close(p.grad, tp.grad, rtol=RTOL, atol=ATOL, what=name)
    return out, tout


def randn(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape)


LAYERS = [
    ("linear", lambda nn: nn.Linear(5, 3), (4, 5)),
    ("linear_3d_nobias", lambda nn: nn.Linear(5, 3, bias=False), (2, 4, 5)),
    ("conv2d", lambda nn: nn.Conv2d(2, 4, 3, padding=1), (2, 2, 6, 6)),
    ("conv2d_strided_groups", lambda nn: nn.Conv2d(4, 6, (3, 2), stride=2, groups=2,
                                                   dilation=(1, 2)), (1, 4, 7, 8)),
    ("conv2d_same", lambda nn: nn.Conv2d(1, 2, 4, padding="same", bias=False), (2, 1, 5, 5)),
    ("conv1d", lambda nn: nn.Conv1d(3, 2, 3, stride=2, padding=1), (2, 3, 9)),
    ("maxpool2d", lambda nn: nn.MaxPool2d(2), (2, 3, 6, 6)),
    ("maxpool2d_padded", lambda nn: nn.MaxPool2d(3, 2, padding=1, ceil_mode=True),
     (1, 2, 7, 7)),
    ("avgpool2d", lambda nn: nn.AvgPool2d(3, 2, padding=1, count_include_pad=False),
     (1, 2, 7, 7)),
    ("layernorm", lambda nn: nn.LayerNorm(6), (3, 4, 6)),
    ("layernorm_2d_shape", lambda nn: nn.LayerNorm((3, 4), bias=False), (2, 3, 4)),
    ("flatten", lambda nn: nn.Flatten(), (2, 3, 4)),
    ("sequential_cnn", lambda nn: nn.Sequential(
        nn.Conv2d(1, 3, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(),
        nn.Linear(12, 5), nn.LogSoftmax(dim=1)), (2, 1, 4, 4)),
]


@pytest.mark.parametrize("name, build, shape", LAYERS, ids=[case[0] for case in LAYERS])
def test_layer_matches_torch(name, build, shape):
    ours, theirs = pair(lambda lib: build(lib.nn))
    run_both(ours, theirs, randn(*shape))
    assert list(ours.state_dict()) == list(theirs.state_dict())
    assert repr(ours) == torch_spelling(repr(theirs))


@pytest.mark.parametrize("momentum, affine, track", [(0.1, True, True), (None, True, True),
                                                      (0.3, False, True), (0.1, True, False)])
@pytest.mark.parametrize("dims", [2, 3, 4])
def test_batchnorm_training_eval_and_running_stats(dims, momentum, affine, track):
    def build(lib):
        cls = lib.nn.BatchNorm2d if dims == 4 else lib.nn.BatchNorm1d
        return cls(3, momentum=momentum, affine=affine, track_running_stats=track)
    ours, theirs = pair(build)
    shape = {2: (5, 3), 3: (4, 3, 5), 4: (2, 3, 4, 3)}[dims]
    for step in range(3):
        run_both(ours, theirs, randn(*shape, seed=step) * 2 + 1)
    for (name, buffer), tbuffer in zip(ours.named_buffers(), theirs.buffers()):
        assert_close(buffer, tbuffer, rtol=RTOL, atol=ATOL, what=name)
    ours.eval()
    theirs.eval()
    run_both(ours, theirs, randn(*shape, seed=9))
    assert repr(ours) == repr(theirs)
    assert dict(ours.state_dict()._metadata) == dict(theirs.state_dict()._metadata)


def test_batchnorm_errors():
    assert_same_error(lambda lib: lib.nn.BatchNorm2d(3)(lib.ones(2, 3)), ValueError,
                      exact=True)
    assert_same_error(lambda lib: lib.nn.BatchNorm1d(3)(lib.ones(1, 3)), ValueError,
                      "Expected more than 1 value per channel when training")


def test_embedding_padding_and_repr():
    def build(lib):
        return lib.nn.Embedding(10, 4, padding_idx=2)
    ours, theirs = pair(build)
    index = np.array([[1, 2, 3], [2, 9, 1]])
    out = ours(ag.tensor(index))
    tout = theirs(torch.tensor(index))
    assert_close(out, tout)
    seed = randn(2, 3, 4)
    out.backward(ag.tensor(seed))
    tout.backward(torch.tensor(seed))
    assert_close(ours.weight.grad, theirs.weight.grad)
    assert repr(ours) == repr(theirs)
    assert not ag.nn.Embedding(5, 2, padding_idx=-1).weight[4].any().item()
    assert_same_error(lambda lib: lib.nn.Embedding(3, 2, padding_idx=3), AssertionError,
                      "Padding_idx must be within num_embeddings")
    frozen = ag.nn.Embedding.from_pretrained(ag.ones(3, 2))
    assert not frozen.weight.requires_grad


def test_dropout_module_train_and_eval():
    layer = ag.nn.Dropout(0.5)
    x = ag.ones(1000)
    assert 300 < int((layer(x) == 0).sum().item()) < 700
    layer.eval()
    assert layer(x) is x


MHA_CASES = {
    "plain": dict(),
    "batch_first": dict(batch_first=True),
    "bool_causal_mask": dict(mask="causal"),
    "float_mask_no_weights": dict(mask="float", need_weights=False),
    "key_padding": dict(padding=True, average=False),
    "key_padding_no_weights": dict(padding=True, need_weights=False, batch_first=True),
    "kdim_vdim": dict(kdim=3, vdim=5),
    "unbatched": dict(unbatched=True),
}


@pytest.mark.parametrize("case", MHA_CASES)
def test_multihead_attention(case):
    options = MHA_CASES[case]
    E, heads, L, S, N = 8, 2, 4, 5, 3
    batch_first = options.get("batch_first", False)

    def build(lib):
        return lib.nn.MultiheadAttention(E, heads, batch_first=batch_first,
                                         kdim=options.get("kdim"), vdim=options.get("vdim"))
    ours, theirs = pair(build)

    def shape(length, dim):
        if options.get("unbatched"):
            return (length, dim)
        return (N, length, dim) if batch_first else (length, N, dim)
    arrays = [randn(*shape(L, E), seed=1), randn(*shape(S, options.get("kdim") or E), seed=2),
              randn(*shape(S, options.get("vdim") or E), seed=3)]

    def kwargs(lib):
        result = {"need_weights": options.get("need_weights", True),
                  "average_attn_weights": options.get("average", True)}
        if options.get("mask") == "causal":
            result["attn_mask"] = lib.tensor(np.triu(np.ones((L, S), bool), 1))
        elif options.get("mask") == "float":
            result["attn_mask"] = lib.tensor(randn(L, S, seed=4))
        if options.get("padding"):
            result["key_padding_mask"] = lib.tensor(np.array(
                [[False] * S, [False] * (S - 2) + [True] * 2, [True] + [False] * (S - 1)]))
        return result

    weights = {}

    def forward(lib, module):
        def call(q, k, v):
            out, w = module(q, k, v, **kwargs(lib))
            weights[lib.__name__] = w
            return out
        return call
    run_both(forward(ag, ours), forward(torch, theirs), *arrays, modules=(ours, theirs))
    if kwargs(torch)["need_weights"]:
        assert_close(weights["autograd_cy"], weights["torch"], rtol=RTOL, atol=ATOL)
    else:
        assert weights["autograd_cy"] is None and weights["torch"] is None
    assert repr(ours) == repr(theirs)


def test_construction_errors():
    assert_same_error(lambda lib: lib.nn.Conv2d(3, 4, 3, groups=2), ValueError, exact=True)
    assert_same_error(lambda lib: lib.nn.Conv2d(4, 3, 3, groups=2), ValueError, exact=True)
    assert_same_error(lambda lib: lib.nn.Conv2d(4, 4, 3, padding="full"), ValueError,
                      "Invalid padding string")
    assert_same_error(lambda lib: lib.nn.Conv2d(4, 4, 3, stride=2, padding="same"),
                      ValueError, exact=True)
    assert_same_error(lambda lib: lib.nn.MultiheadAttention(8, 3), AssertionError,
                      "embed_dim must be divisible by num_heads")
    assert_same_error(lambda lib: lib.nn.GroupNorm(3, 4), ValueError, exact=True)


@pytest.mark.cpu_only          # the CPU generator's numbers
def test_seeded_layers_start_from_torchs_numbers():
    """nn.init draws from the default generator as torch's does: the same seed gives the same
    initial weights for the layers whose initialisers are uniform."""
    def build(lib):
        lib.manual_seed(0)
        nn = lib.nn
        return nn.Sequential(nn.Linear(5, 4), nn.Conv2d(2, 3, 3), nn.Conv1d(2, 2, 2),
                             nn.MultiheadAttention(4, 2), nn.LayerNorm(3))
    ours, theirs = build(ag), build(torch)
    for (name, p), tp in zip(ours.named_parameters(), theirs.parameters()):
        assert_close(p, tp, rtol=0, atol=0, what=name)
