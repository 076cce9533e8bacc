"""nn.RNN / LSTM / GRU, their cells and nn.utils.rnn against torch: parameter names, shapes,
order and seeded initialisation, state dicts, values and gradients (input, initial states,
every parameter) padded, unbatched and packed, grad_fn names, gradcheck (forward mode too)
and gradgradcheck, reprs, dropout, and torch's errors and warning."""
import warnings

import numpy as np
import pytest
import torch

import autograd_cy as ag
from oracle import assert_close, assert_same_error, node_name, randn, same_warning, to_numpy

CONFIGS = [
    ("RNN", {}),
    ("RNN", {"nonlinearity": "relu", "num_layers": 2}),
    ("RNN", {"bidirectional": True, "bias": False}),
    ("GRU", {}),
    ("GRU", {"num_layers": 2, "bidirectional": True, "batch_first": True}),
    ("LSTM", {}),
    ("LSTM", {"num_layers": 2, "batch_first": True}),
    ("LSTM", {"proj_size": 2, "bidirectional": True}),
    ("LSTM", {"proj_size": 3, "num_layers": 2, "bidirectional": True, "bias": False}),
]
IDS = [f"{mode}-{'-'.join(f'{k}={v}' for k, v in kw.items()) or 'default'}"
       for mode, kw in CONFIGS]
TOLERANCE = {np.float64: {"rtol": 1e-9, "atol": 1e-10}, np.float32: {"rtol": 1e-5, "atol": 1e-5}}
TORCH_DTYPE = {np.float64: torch.float64, np.float32: torch.float32}
AG_DTYPE = {np.float64: ag.float64, np.float32: ag.float32}


def pair(mode, kwargs, input_size=3, hidden_size=4, dtype=np.float64):
    """torch's layer and ours with torch's weights loaded (our own init is tested apart)."""
    torch.manual_seed(0)
    theirs = getattr(torch.nn, mode)(input_size, hidden_size, dtype=TORCH_DTYPE[dtype],
                                     **kwargs)
    ours = getattr(ag.nn, mode)(input_size, hidden_size, dtype=AG_DTYPE[dtype], **kwargs)
    ours.load_state_dict({k: ag.tensor(v.numpy()) for k, v in theirs.state_dict().items()})
    return ours, theirs


def states(module, batch, dtype, seed=10):
    """Random initial states for ``module`` with ``batch`` sequences (None: unbatched)."""
    directions = 2 if module.bidirectional else 1
    lead = (module.num_layers * directions,) + (() if batch is None else (batch,))
    h = randn(*lead, module.proj_size or module.hidden_size, seed=seed).astype(dtype)
    if module.mode != "LSTM":
        return [h]
    return [h, randn(*lead, module.hidden_size, seed=seed + 1).astype(dtype)]


def tensors(lib, arrays):
    return [lib.tensor(a, requires_grad=True) for a in arrays]


def hidden_arg(mode, hs):
    if not hs:
        return None
    return tuple(hs) if mode == "LSTM" else hs[0]


def flat_hidden(hidden):
    return list(hidden) if isinstance(hidden, tuple) else [hidden]


def compare_run(ours, theirs, x, hs, dtype, packed=None):
    """Run both layers on ``x`` (and the initial states ``hs``), compare outputs, then the
    gradients of a random weighting of every output w.r.t. the input, the initial states and
    every parameter."""
    results = []
    for lib, module in ((ag, ours), (torch, theirs)):
        inputs = tensors(lib, [x] + hs)
        seq = inputs[0]
        if packed is not None:
            lengths, enforce_sorted = packed
            seq = lib.nn.utils.rnn.pack_padded_sequence(
                seq, lengths, batch_first=module.batch_first, enforce_sorted=enforce_sorted)
        output, hidden = module(seq, hidden_arg(module.mode, inputs[1:]))
        if packed is not None:
            output, _ = lib.nn.utils.rnn.pad_packed_sequence(output, module.batch_first)
        outputs = [output] + flat_hidden(hidden)
        rng = np.random.default_rng(5)
        loss = sum((o * lib.tensor(rng.standard_normal(tuple(o.shape)).astype(dtype))).sum()
                   for o in outputs)
        grads = lib.autograd.grad(loss, inputs + list(module.parameters()))
        results.append((outputs, grads))
    (our_out, our_grads), (their_out, their_grads) = results
    assert_close(our_out, their_out, what="outputs", **TOLERANCE[dtype])
    assert_close(list(our_grads), list(their_grads), what="gradients", **TOLERANCE[dtype])
    return our_out, their_out


# ------------------------------------------------------------------ parameters and init

@pytest.mark.parametrize("mode,kwargs", CONFIGS, ids=IDS)
def test_parameters_and_seeded_init(mode, kwargs):
    """Same names, shapes and registration order as torch, and after the same seed the same
    numbers: every parameter uniform on +-1/sqrt(hidden_size), drawn in that order."""
    torch.manual_seed(3)
    theirs = getattr(torch.nn, mode)(3, 4, **kwargs)
    ag.manual_seed(3)
    ours = getattr(ag.nn, mode)(3, 4, device="cpu", **kwargs)
    our_params, their_params = list(ours.named_parameters()), list(theirs.named_parameters())
    assert [n for n, _ in our_params] == [n for n, _ in their_params]
    for (name, a), (_, b) in zip(our_params, their_params):
        assert tuple(a.shape) == tuple(b.shape), name
        np.testing.assert_array_equal(to_numpy(a), to_numpy(b), err_msg=name)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    assert [[tuple(w.shape) for w in ws] for ws in ours.all_weights] == [
        [tuple(w.shape) for w in ws] for ws in theirs.all_weights]


@pytest.mark.parametrize("mode", ["RNNCell", "LSTMCell", "GRUCell"])
@pytest.mark.parametrize("bias", [True, False])
def test_cell_parameters_and_seeded_init(mode, bias):
    torch.manual_seed(4)
    theirs = getattr(torch.nn, mode)(3, 5, bias=bias)
    ag.manual_seed(4)
    ours = getattr(ag.nn, mode)(3, 5, bias=bias, device="cpu")
    assert list(ours.state_dict()) == list(theirs.state_dict())
    for (name, a), (_, b) in zip(ours.named_parameters(), theirs.named_parameters()):
        np.testing.assert_array_equal(to_numpy(a), to_numpy(b), err_msg=name)
    assert (ours.bias_ih is None) == (not bias)


def test_torch_state_dict_loads_and_to_dtype():
    """A torch state dict loads (strictly); ``.to(dtype)``, ``double()`` and ``float()`` move
    every parameter, and the layer then runs in that dtype."""
    ours, theirs = pair("LSTM", {"num_layers": 2, "proj_size": 2}, dtype=np.float32)
    result = ours.load_state_dict({k: ag.tensor(v.numpy()) for k, v in
                                   theirs.state_dict().items()})
    assert list(result.missing_keys) == [] and list(result.unexpected_keys) == []
    ours.to(ag.float64)
    assert all(p.dtype == ag.float64 for p in ours.parameters())
    assert all(w.dtype == ag.float64 for w in ours._flat_weights)
    output, (h, c) = ours(ag.tensor(randn(5, 2, 3)))
    assert output.dtype == h.dtype == c.dtype == ag.float64
    ours.float()
    assert ours(ag.tensor(randn(5, 2, 3).astype(np.float32)))[0].dtype == ag.float32
    assert ours.flatten_parameters() is None


# ------------------------------------------------------------------ values and gradients

@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("with_hidden", [False, True])
@pytest.mark.parametrize("mode,kwargs", CONFIGS, ids=IDS)
def test_batched(mode, kwargs, with_hidden, dtype):
    ours, theirs = pair(mode, kwargs, dtype=dtype)
    shape = (2, 5, 3) if kwargs.get("batch_first") else (5, 2, 3)
    hs = states(ours, 2, dtype) if with_hidden else []
    our_out, their_out = compare_run(ours, theirs, randn(*shape).astype(dtype), hs, dtype)
    assert tuple(our_out[0].shape) == tuple(their_out[0].shape)


@pytest.mark.parametrize("with_hidden", [False, True])
@pytest.mark.parametrize("mode,kwargs", CONFIGS, ids=IDS)
def test_unbatched(mode, kwargs, with_hidden):
    ours, theirs = pair(mode, kwargs)
    hs = states(ours, None, np.float64) if with_hidden else []
    our_out, _ = compare_run(ours, theirs, randn(4, 3), hs, np.float64)
    assert our_out[0].dim() == 2 and all(h.dim() == 2 for h in our_out[1:])


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("with_hidden", [False, True])
@pytest.mark.parametrize("enforce_sorted", [True, False])
@pytest.mark.parametrize("mode,kwargs", CONFIGS, ids=IDS)
def test_packed(mode, kwargs, enforce_sorted, with_hidden, dtype):
    """Sequences of lengths 5, 3, 3, 1 (shuffled unless sorted is enforced): the hidden
    state of each stops at its own end, the reverse direction starts there, and h_n / the
    given h0 follow the caller's batch order."""
    ours, theirs = pair(mode, kwargs, dtype=dtype)
    lengths = [5, 3, 3, 1] if enforce_sorted else [3, 1, 5, 3]
    shape = (4, 5, 3) if kwargs.get("batch_first") else (5, 4, 3)
    hs = states(ours, 4, dtype) if with_hidden else []
    compare_run(ours, theirs, randn(*shape).astype(dtype), hs, dtype,
                packed=(lengths, enforce_sorted))


def test_packed_output_is_a_packed_sequence():
    ours, theirs = pair("GRU", {"bidirectional": True})
    x = randn(4, 3, 3)
    outs = []
    for lib, module in ((ag, ours), (torch, theirs)):
        packed = lib.nn.utils.rnn.pack_padded_sequence(lib.tensor(x), [2, 4, 1],
                                                       enforce_sorted=False)
        output, h = module(packed)
        assert isinstance(output, lib.nn.utils.rnn.PackedSequence)
        outs.append(output)
    assert_close(outs[0].data, outs[1].data)
    assert outs[0].batch_sizes.tolist() == outs[1].batch_sizes.tolist()
    assert outs[0].sorted_indices.tolist() == outs[1].sorted_indices.tolist()
    assert outs[0].unsorted_indices.tolist() == outs[1].unsorted_indices.tolist()


# Finite differences of a composite of ops each tested on the device elsewhere: on the CPU
# only (the emulated device takes six minutes for what the CPU checks in eight seconds).
@pytest.mark.cpu_only
@pytest.mark.parametrize("mode", ["RNN", "GRU", "LSTM"])
def test_gradcheck_and_gradgradcheck(mode):
    """Finite differences through the recurrence, w.r.t. the input, h0 and every parameter
    (passed in through functional_call): the gradient, the forward-mode tangent, and the
    second gradient."""
    module = getattr(ag.nn, mode)(2, 3, num_layers=2, bidirectional=True, dtype=ag.float64)
    names = [n for n, _ in module.named_parameters()]
    arrays = [randn(3, 2, 2, seed=1)] + states(module, 2, np.float64)
    arrays += [to_numpy(p) for p in module.parameters()]
    count = 2 if mode == "LSTM" else 1

    def run(x, *rest):
        hx = hidden_arg(mode, list(rest[:count]))
        output, hidden = ag.func.functional_call(module, dict(zip(names, rest[count:])),
                                                 (x, hx))
        return (output,) + tuple(flat_hidden(hidden))
    inputs = [ag.tensor(a, requires_grad=True) for a in arrays]
    assert ag.autograd.gradcheck(run, inputs, check_forward_ad=True)
    assert ag.autograd.gradgradcheck(run, inputs)


@pytest.mark.cpu_only
def test_gradcheck_packed():
    module = ag.nn.LSTM(2, 3, bidirectional=True, proj_size=2, dtype=ag.float64)
    x = ag.tensor(randn(4, 3, 2, seed=2), requires_grad=True)

    def run(x):
        packed = ag.nn.utils.rnn.pack_padded_sequence(x, [2, 4, 1], enforce_sorted=False)
        output, (h, c) = module(packed)
        return ag.nn.utils.rnn.pad_packed_sequence(output)[0], h, c
    assert ag.autograd.gradcheck(run, [x], check_forward_ad=True)
    assert ag.autograd.gradgradcheck(run, [x])


@pytest.mark.parametrize("mode,kwargs,output_node", [
    ("RNN", {}, "StackBackward0"),
    ("GRU", {}, "StackBackward0"),
    ("RNN", {"bidirectional": True}, "CatBackward0"),
    ("LSTM", {"proj_size": 2, "bidirectional": True}, "CatBackward0"),
])
def test_node_names(mode, kwargs, output_node):
    """The output stacks the steps (both directions joined by a cat) and h_n stacks the
    layers' final states, as torch's CPU path. (torch's plain LSTM runs oneDNN's fused
    layer, MkldnnRnnLayerBackward0, which a composition does not reproduce.)"""
    for lib in (ag, torch):
        module = getattr(lib.nn, mode)(3, 4, **kwargs)
        output, hidden = module(lib.randn(5, 2, 3))
        assert node_name(output.grad_fn) == output_node
        assert all(node_name(h.grad_fn) == "StackBackward0" for h in flat_hidden(hidden))


# ------------------------------------------------------------------ the cells

@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("batched", [True, False])
@pytest.mark.parametrize("with_hidden", [False, True])
@pytest.mark.parametrize("mode,kwargs,nodes", [
    ("RNNCell", {}, ["TanhBackward0"]),
    ("RNNCell", {"nonlinearity": "relu"}, ["ReluBackward0"]),
    ("RNNCell", {"bias": False}, ["TanhBackward0"]),
    ("LSTMCell", {}, ["MulBackward0", "AddBackward0"]),
    ("LSTMCell", {"bias": False}, ["MulBackward0", "AddBackward0"]),
    ("GRUCell", {}, ["AddBackward0"]),
    ("GRUCell", {"bias": False}, ["AddBackward0"]),
])
def test_cells(mode, kwargs, nodes, with_hidden, batched, dtype):
    torch.manual_seed(0)
    theirs = getattr(torch.nn, mode)(3, 4, dtype=TORCH_DTYPE[dtype], **kwargs)
    ours = getattr(ag.nn, mode)(3, 4, dtype=AG_DTYPE[dtype], **kwargs)
    ours.load_state_dict({k: ag.tensor(v.numpy()) for k, v in theirs.state_dict().items()})
    lead = (2,) if batched else ()
    arrays = [randn(*lead, 3, seed=1).astype(dtype)]
    if with_hidden:
        arrays += [randn(*lead, 4, seed=s).astype(dtype)
                   for s in ((2, 3) if mode == "LSTMCell" else (2,))]
    results = []
    for lib, module in ((ag, ours), (torch, theirs)):
        inputs = tensors(lib, arrays)
        hx = None if len(inputs) == 1 else (tuple(inputs[1:]) if mode == "LSTMCell"
                                            else inputs[1])
        outputs = flat_hidden(module(inputs[0], hx))
        if batched:     # an unbatched step ends in a squeeze
            assert [node_name(o.grad_fn) for o in outputs] == nodes
        loss = sum((o * lib.tensor(np.linspace(-1, 1, o.numel()).reshape(tuple(o.shape))
                                   .astype(dtype))).sum() for o in outputs)
        results.append((outputs, lib.autograd.grad(loss, inputs + list(module.parameters()))))
    assert_close(results[0][0], results[1][0], **TOLERANCE[dtype])
    assert_close(list(results[0][1]), list(results[1][1]), **TOLERANCE[dtype])


# ------------------------------------------------------------------ reprs, modes, dropout

@pytest.mark.parametrize("make", [
    lambda nn: nn.LSTM(10, 20, num_layers=2, batch_first=True),
    lambda nn: nn.LSTM(10, 20, proj_size=5, bidirectional=True, dropout=0.5, num_layers=3),
    lambda nn: nn.RNN(3, 4, 2, "relu", False),
    lambda nn: nn.GRU(3, 4, bias=False),
    lambda nn: nn.RNNCell(3, 4, nonlinearity="relu"),
    lambda nn: nn.RNNCell(3, 4, bias=False),
    lambda nn: nn.LSTMCell(3, 4),
    lambda nn: nn.GRUCell(3, 4, bias=False),
    lambda nn: nn.Sequential(nn.GRU(3, 4), nn.Linear(4, 2)),
])
def test_repr(make):
    assert repr(make(ag.nn)) == repr(make(torch.nn))


def test_rnn_positional_nonlinearity_and_attributes():
    for lib in (ag, torch):
        module = lib.nn.RNN(3, 4, 2, "relu")
        assert (module.nonlinearity, module.mode, module.num_layers) == ("relu", "RNN_RELU", 2)
        assert module.dropout == 0.0 and isinstance(module.dropout, float)


def test_dropout_between_layers_in_training_only():
    """Dropout acts on the outputs of every layer but the last, only while training: in
    eval mode the layer is deterministic and matches torch; in training the output
    changes (the masks themselves are not torch's, as for F.dropout)."""
    ours, theirs = pair("LSTM", {"num_layers": 2, "dropout": 0.5})
    x = randn(5, 2, 3)
    ours.eval()
    theirs.eval()
    assert_close(ours(ag.tensor(x))[0], theirs(torch.tensor(x))[0])
    ours.train()
    ag.manual_seed(0)
    first = to_numpy(ours(ag.tensor(x))[0])
    ag.manual_seed(0)
    np.testing.assert_array_equal(to_numpy(ours(ag.tensor(x))[0]), first)
    assert not np.allclose(first, to_numpy(theirs.eval()(torch.tensor(x))[0]))
    # the last layer's outputs are not dropped: no exact zeros in the output
    assert np.all(first != 0)


def test_dropout_warning_with_one_layer():
    same_warning(lambda lib: lib.nn.GRU(3, 4, dropout=0.3), UserWarning,
                 r"non-zero dropout expects num_layers greater than 1, but got dropout=0.3 "
                 r"and num_layers=1")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ag.nn.GRU(3, 4, num_layers=2, dropout=0.3)


# ------------------------------------------------------------------ errors

@pytest.mark.parametrize("make", [
    lambda nn: nn.RNN(3, 4, nonlinearity="sigmoid"),
    lambda nn: nn.RNN(3, 4, proj_size=2),
    lambda nn: nn.GRU(3, 4, proj_size=2),
    lambda nn: nn.LSTM(3, 4, proj_size=4),
    lambda nn: nn.LSTM(3, 4, proj_size=-1),
    lambda nn: nn.LSTM(3, 4, dropout=1.5),
    lambda nn: nn.LSTM(3, 4, dropout=True),
    lambda nn: nn.LSTM(3, 4, bias=1),
    lambda nn: nn.LSTM(3, 4, batch_first=None),
    lambda nn: nn.LSTM(3.0, 4),
    lambda nn: nn.LSTM(0, 4),
    lambda nn: nn.LSTM(3, "4"),
    lambda nn: nn.LSTM(3, 0),
    lambda nn: nn.LSTM(3, 4, num_layers=0),
])
def test_constructor_errors(make):
    assert_same_error(lambda lib: make(lib.nn))


@pytest.mark.parametrize("mode", ["RNN", "GRU", "LSTM"])
@pytest.mark.parametrize("call", [
    lambda lib, m: m(lib.zeros(5)),
    lambda lib, m: m(lib.zeros(2, 3, 4, 5)),
    lambda lib, m: m(lib.zeros(5, 2, 4)),
    lambda lib, m: m(lib.zeros(5, 4)),
    lambda lib, m: m(lib.zeros(5, 2, 3), hidden(m, lib, (1, 3, 4))),
    lambda lib, m: m(lib.zeros(5, 2, 3), hidden(m, lib, (2, 2, 4))),
    lambda lib, m: m(lib.zeros(5, 2, 3), hidden(m, lib, (2, 4))),
    lambda lib, m: m(lib.zeros(5, 3), hidden(m, lib, (1, 1, 4))),
    lambda lib, m: m(lib.zeros(5, 3), hidden(m, lib, (1, 5))),
    lambda lib, m: m(lib.zeros(0, 2, 3)),
    lambda lib, m: m(lib.zeros(0, 3)),
])
def test_forward_errors(mode, call):
    assert_same_error(lambda lib: call(lib, getattr(lib.nn, mode)(3, 4)))


@pytest.mark.parametrize("mode", ["RNN", "GRU", "LSTM"])
def test_dtype_mismatch_error(mode):
    assert_same_error(lambda lib: getattr(lib.nn, mode)(3, 4)(lib.zeros(5, 2, 3,
                                                                        dtype=lib.float64)),
                      ValueError, r"^RNN input dtype \(\w+\.float64\) does not match weight dtype "
                      r"\(\w+\.float32\)\. Convert input: input\.to\(\w+\.float32\), or convert "
                      r"model: model\.to\(\w+\.float64\)$")


@pytest.mark.parametrize("mode", ["RNN", "GRU", "LSTM"])
def test_hidden_dtype_mismatch_error(mode):
    """An initial state of another dtype than the weights is refused (by the first matrix
    product of the step: the words are the product's, torch's LSTM names oneDNN's)."""
    def run(lib):
        h = lib.zeros(1, 2, 4, dtype=lib.float64)
        return getattr(lib.nn, mode)(3, 4)(lib.zeros(5, 2, 3), (h, h) if mode == "LSTM" else h)
    assert_same_error(run, RuntimeError, r"d(ata )?type")


def hidden(module, lib, shape):
    h = lib.zeros(*shape)
    return (h, h) if module.mode == "LSTM" else h


@pytest.mark.parametrize("mode", ["RNN", "GRU", "LSTM"])
def test_empty_batch(mode):
    ours, theirs = pair(mode, {"bidirectional": True})
    compare_run(ours, theirs, randn(3, 0, 3), [], np.float64)


def test_lstm_cell_state_size_error():
    assert_same_error(lambda lib: lib.nn.LSTM(3, 4)(lib.zeros(5, 2, 3),
                                                    (lib.zeros(1, 2, 4), lib.zeros(1, 2, 3))))
    assert_same_error(lambda lib: lib.nn.LSTM(3, 4, proj_size=2)(
        lib.zeros(5, 2, 3), (lib.zeros(1, 2, 4), lib.zeros(1, 2, 4))))


@pytest.mark.parametrize("mode", ["RNNCell", "GRUCell", "LSTMCell"])
@pytest.mark.parametrize("call", [
    lambda lib, m: m(lib.zeros(2, 5)),
    lambda lib, m: m(lib.zeros(2, 3, 1)),
    lambda lib, m: m(lib.zeros(2, 3), cell_hidden(m, lib, (3, 4))),
    lambda lib, m: m(lib.zeros(2, 3), cell_hidden(m, lib, (2, 5))),
    lambda lib, m: m(lib.zeros(2, 3), cell_hidden(m, lib, (2, 4, 1))),
    lambda lib, m: m(lib.zeros(3), cell_hidden(m, lib, (5,))),
])
def test_cell_errors(mode, call):
    assert_same_error(lambda lib: call(lib, getattr(lib.nn, mode)(3, 4)))


def cell_hidden(module, lib, shape):
    h = lib.zeros(*shape)
    return (h, h) if isinstance(module, lib.nn.LSTMCell) else h


def test_rnn_cell_unknown_nonlinearity():
    def run(lib):
        cell = lib.nn.RNNCell(3, 4)
        cell.nonlinearity = "gelu"
        return cell(lib.zeros(2, 3))
    assert_same_error(run)


# ------------------------------------------------------------------ nn.utils.rnn

def packed_pair(x, lengths, **kwargs):
    out = []
    for lib in (ag, torch):
        t = lib.tensor(x, requires_grad=True)
        out.append((t, lib.nn.utils.rnn.pack_padded_sequence(t, lengths, **kwargs)))
    return out


@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("lengths,enforce_sorted", [
    ([4, 2, 1], True), ([4, 4, 4], True), ([2, 4, 1], False), ([1, 3], False), ([3], True),
])
def test_pack_padded_sequence(lengths, enforce_sorted, batch_first):
    """The packed rows, batch sizes (a CPU int64 tensor), sorting indices and the gradient
    back to the padded batch (zero at the padding); the padded input may run longer than
    the longest sequence."""
    batch = len(lengths)
    x = randn(batch, 5, 2) if batch_first else randn(5, batch, 2)
    (ours_in, ours), (theirs_in, theirs) = packed_pair(x, lengths, batch_first=batch_first,
                                                       enforce_sorted=enforce_sorted)
    assert_close(ours.data, theirs.data)
    assert ours.batch_sizes.tolist() == theirs.batch_sizes.tolist()
    assert ours.batch_sizes.dtype == ag.int64 and ours.batch_sizes.device.type == "cpu"
    for a, b in ((ours.sorted_indices, theirs.sorted_indices),
                 (ours.unsorted_indices, theirs.unsorted_indices)):
        assert (a is None) == (b is None) and (a is None or a.tolist() == b.tolist())
    weights = randn(*theirs.data.shape, seed=9)
    (ours.data * ag.tensor(weights)).sum().backward()
    (theirs.data * torch.tensor(weights)).sum().backward()
    assert_close(ours_in.grad, theirs_in.grad)


@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("total_length,padding_value", [(None, 0.0), (6, -1.5)])
def test_pad_packed_sequence(batch_first, total_length, padding_value):
    x = randn(4, 3, 2)
    results = []
    for (t, packed), lib in zip(packed_pair(x, [2, 4, 1], enforce_sorted=False), (ag, torch)):
        padded, lengths = lib.nn.utils.rnn.pad_packed_sequence(
            packed, batch_first=batch_first, padding_value=padding_value,
            total_length=total_length)
        weights = lib.tensor(randn(*tuple(padded.shape), seed=3))
        results.append((padded, lengths, lib.autograd.grad((padded * weights).sum(), t)[0],
                        node_name(padded.grad_fn)))
    assert_close(results[0][0], results[1][0])
    assert results[0][1].tolist() == results[1][1].tolist()
    assert results[0][1].dtype == ag.int64 and results[0][1].device.type == "cpu"
    assert_close(results[0][2], results[1][2])
    assert results[0][3] == results[1][3]


@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("padding_side", ["right", "left"])
def test_pad_sequence_and_unpad(batch_first, padding_side):
    arrays = [randn(2, 3, seed=1), randn(4, 3, seed=2), randn(1, 3, seed=3)]
    results = []
    for lib in (ag, torch):
        seqs = tensors(lib, arrays)
        padded = lib.nn.utils.rnn.pad_sequence(seqs, batch_first=batch_first,
                                               padding_value=7.0, padding_side=padding_side)
        grads = lib.autograd.grad((padded * lib.tensor(randn(*tuple(padded.shape)))).sum(),
                                  seqs)
        assert node_name(padded.grad_fn) == "CopySlices"
        snapshot = padded.detach().clone()
        unpadded = (lib.nn.utils.rnn.unpad_sequence(padded, lib.tensor([2, 4, 1]),
                                                    batch_first=batch_first)
                    if padding_side == "right" else [])
        # (torch's unpad_sequence transposes a time-major batch in place; ours leaves it)
        results.append([snapshot, list(grads), unpadded])
    assert_close(results[0], results[1])


def test_pad_sequence_of_mixed_sequences():
    """The batch takes the first sequence's dtype (the others are copied in, cast), and
    the trailing dims must agree."""
    for lib in (ag, torch):
        padded = lib.nn.utils.rnn.pad_sequence([lib.tensor([1, 2]), lib.tensor([0.5, 1.5, 2.5])])
        assert padded.tolist() == [[1, 0], [2, 1], [0, 2]] and padded.dtype == lib.int64
    assert_same_error(lambda lib: lib.nn.utils.rnn.pad_sequence([lib.zeros(2, 3),
                                                                 lib.zeros(3, 4)]),
                      RuntimeError, r"The size of tensor a \(3\) must match the size of tensor b "
                      r"\(4\) at non-singleton dimension")


def test_pack_sequence_and_unpack_sequence():
    arrays = [randn(2, 3, seed=1), randn(4, 3, seed=2), randn(1, 3, seed=3)]
    results = []
    for lib in (ag, torch):
        seqs = tensors(lib, arrays)
        packed = lib.nn.utils.rnn.pack_sequence(seqs, enforce_sorted=False)
        results.append([packed.data, lib.nn.utils.rnn.unpack_sequence(packed)])
    assert_close(results[0], results[1])
    assert_same_error(lambda lib: lib.nn.utils.rnn.pack_sequence(
        [lib.zeros(2), lib.zeros(3)]), "must be sorted in decreasing order")


def test_packed_sequence_to_and_fields():
    packed = ag.nn.utils.rnn.pack_sequence([ag.ones(3, 2), ag.ones(2, 2)])
    assert packed._fields == torch.nn.utils.rnn.PackedSequence._fields
    assert packed.to(ag.float32) is packed
    doubled = packed.double()
    assert doubled.data.dtype == ag.float64 and doubled.batch_sizes is packed.batch_sizes
    data, batch_sizes, sorted_indices, unsorted_indices = doubled
    assert sorted_indices is None and unsorted_indices is None
    assert ag.nn.utils.rnn.invert_permutation(ag.tensor([2, 0, 1])).tolist() == [1, 2, 0]
    reprs = [repr(lib.nn.utils.rnn.pack_sequence(
        [lib.tensor([1.0, 2.0], device="cpu"), lib.tensor([3.0], device="cpu")],
        enforce_sorted=False)) for lib in (ag, torch)]
    assert reprs[0] == reprs[1]


@pytest.mark.parametrize("call", [
    lambda R, lib: R.pack_padded_sequence(lib.zeros(4, 3, 2), [1, 2, 4]),
    lambda R, lib: R.pack_padded_sequence(lib.zeros(4, 3, 2), [4, 2, 0]),
    lambda R, lib: R.pack_padded_sequence(lib.zeros(4, 3, 2), [4, 2]),
    lambda R, lib: R.pad_packed_sequence(R.pack_sequence([lib.zeros(3), lib.zeros(1)]),
                                         total_length=2),
    lambda R, lib: R.pad_sequence([]),
    lambda R, lib: R.pad_sequence([lib.zeros(2)], padding_side="middle"),
])
def test_utils_errors(call):
    assert_same_error(lambda lib: call(lib.nn.utils.rnn, lib))


@pytest.mark.parametrize("batch_first", [False, True])
def test_pack_padded_sequence_node_and_derivatives(batch_first):
    """Packing is its own op in torch (PackPaddedSequenceBackward0, after the
    IndexSelectBackward0 of the sorting); its gradient, second gradient and forward-mode
    tangent check by finite differences."""
    for lib in (ag, torch):
        x = lib.zeros(3, 4, 2, requires_grad=True)
        data = lib.nn.utils.rnn.pack_padded_sequence(x, [4, 2, 1] if batch_first else [3, 2, 2, 1],
                                                     batch_first=batch_first).data
        assert node_name(data.grad_fn) == "PackPaddedSequenceBackward0"
        data = lib.nn.utils.rnn.pack_padded_sequence(x, [1, 4, 2] if batch_first else [1, 2, 3, 2],
                                                     batch_first=batch_first,
                                                     enforce_sorted=False).data
        assert node_name(data.grad_fn) == "PackPaddedSequenceBackward0"
        assert node_name(data.grad_fn.next_functions[0][0]) == "IndexSelectBackward0"
    x = ag.tensor(randn(3, 4, 2), requires_grad=True)

    def pack(x):
        return ag.nn.utils.rnn.pack_padded_sequence(
            x, [1, 4, 2] if batch_first else [1, 2, 3, 2], batch_first=batch_first,
            enforce_sorted=False).data
    assert ag.autograd.gradcheck(pack, [x], check_forward_ad=True)
    assert ag.autograd.gradgradcheck(pack, [x])


def test_training_steps_match_torch():
    """A few optimizer steps of an embedding, a packed bidirectional LSTM and a linear head
    from the same weights give torch's losses and parameters."""
    tokens = np.random.default_rng(0).integers(0, 7, size=(4, 5))
    lengths = [5, 2, 4, 3]
    targets = np.array([0, 2, 1, 2])
    losses, finals = [], []
    for lib in (ag, torch):
        torch.manual_seed(0)
        model = torch.nn.ModuleDict({
            "embedding": torch.nn.Embedding(7, 3), "lstm": torch.nn.LSTM(3, 4, bidirectional=True,
                                                                         batch_first=True),
            "head": torch.nn.Linear(8, 3)}).double()
        if lib is ag:
            state = {k: ag.tensor(v.numpy()) for k, v in model.state_dict().items()}
            model = ag.nn.ModuleDict({
                "embedding": ag.nn.Embedding(7, 3), "lstm": ag.nn.LSTM(3, 4, bidirectional=True,
                                                                       batch_first=True),
                "head": ag.nn.Linear(8, 3)}).double()
            model.load_state_dict(state)
        optimizer = lib.optim.Adam(model.parameters(), lr=0.05)
        history = []
        for _ in range(3):
            packed = lib.nn.utils.rnn.pack_padded_sequence(
                model["embedding"](lib.tensor(tokens)), lengths, batch_first=True,
                enforce_sorted=False)
            _, (h, _) = model["lstm"](packed)
            logits = model["head"](lib.cat([h[0], h[1]], 1))
            loss = lib.nn.functional.cross_entropy(logits, lib.tensor(targets))
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            history.append(loss.item())
        losses.append(history)
        finals.append([to_numpy(p) for p in model.parameters()])
    np.testing.assert_allclose(losses[0], losses[1], rtol=1e-9)
    for a, b in zip(*finals):
        np.testing.assert_allclose(a, b, rtol=1e-8, atol=1e-10)
