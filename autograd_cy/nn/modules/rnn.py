"""The recurrent layers: ``RNN`` (tanh or relu), ``LSTM`` (with an optional projection),
``GRU``, and their single-step cells ``RNNCell``, ``LSTMCell``, ``GRUCell``.

Each step is composed from existing ops (``linear``, ``sigmoid``, ``tanh``, ``chunk``,
``stack``, ``cat``), so autograd, double backward and the CUDA backend come for free, and
the nodes are the ones torch's CPU path records for a step (``TanhBackward0`` for an RNN
cell, ``AddBackward0`` for a GRU cell's output, ``StackBackward0`` for a layer's output).
The layers take a padded batch or a ``PackedSequence`` (``nn.utils.rnn``).
"""
import math
import numbers
import warnings

from autograd_cy._C.ops.split_cat import cat, stack
from autograd_cy import factories
from autograd_cy.nn import functional as F
from autograd_cy.nn import init
from autograd_cy.nn.modules.module import Module
from autograd_cy.nn.parameter import Parameter
from autograd_cy.nn.utils.rnn import PackedSequence

__all__ = ["RNNBase", "RNN", "LSTM", "GRU", "RNNCellBase", "RNNCell", "LSTMCell", "GRUCell"]

_GATES = {"LSTM": 4, "GRU": 3, "RNN_TANH": 1, "RNN_RELU": 1}


# ------------------------------------------------------------------ one step

def _rnn_step(activation):
    def step(input_gates, state, w_hh, b_hh, w_hr=None):
        return (activation(F.linear(state[0], w_hh, b_hh) + input_gates),)
    return step


def _lstm_step(input_gates, state, w_hh, b_hh, w_hr=None):
    """One LSTM step; the gates are in torch's order: input, forget, cell, output."""
    h, c = state
    ingate, forgetgate, cellgate, outgate = (F.linear(h, w_hh, b_hh) + input_gates).chunk(4, 1)
    c = forgetgate.sigmoid() * c + ingate.sigmoid() * cellgate.tanh()
    h = outgate.sigmoid() * c.tanh()
    if w_hr is not None:
        h = F.linear(h, w_hr)
    return h, c


def _gru_step(input_gates, state, w_hh, b_hh, w_hr=None):
    """One GRU step; gates in torch's order reset, update, new.

    NOTE [The GRU's reset gate]
    The reset gate multiplies the *whole* hidden projection of the new gate, bias
    included: ``n = tanh(W_in x + b_in + r * (W_hn h + b_hn))``, not ``W_hn (r * h)``.
    So the hidden projection stays one matrix product of all three gates, and ``b_hn``
    cannot be folded into ``b_in`` (which is why there are two bias vectors).
    """
    h = state[0]
    input_reset, input_update, input_new = input_gates.chunk(3, 1)
    hidden_reset, hidden_update, hidden_new = F.linear(h, w_hh, b_hh).chunk(3, 1)
    reset = (input_reset + hidden_reset).sigmoid()
    update = (input_update + hidden_update).sigmoid()
    new = (input_new + reset * hidden_new).tanh()
    return ((h - new) * update + new,)


def _tanh(x):
    return x.tanh()


def _relu(x):
    return x.relu()


_STEPS = {"RNN_TANH": _rnn_step(_tanh), "RNN_RELU": _rnn_step(_relu), "LSTM": _lstm_step,
          "GRU": _gru_step}


# ------------------------------------------------------------------ one layer, one direction

# NOTE [Recurrence over packed rows]
# A direction of a layer first projects the input of every step at once (one linear, the
# precomputed input gates), then loops over the steps in Python, one iteration per step as
# torch's CPU path. Unpacked, every step has the whole batch: gates[t], and the outputs are
# stacked. Packed, step t has the first batch_sizes[t] sequences (sorted by decreasing
# length): its rows of the packed data follow the previous steps' rows. Going forward the
# batch shrinks: the states of the sequences that just ended are put aside, and the final
# state is the last state followed by those pieces, latest first. Going backward (the
# reverse direction starts at each sequence's own end) the batch grows: the sequences that
# start there join with their initial state.

def _run_direction(step, gates, batch_sizes, state, weights, reverse):
    """The outputs (stacked, or packed rows) and the final state of one direction."""
    outputs = []
    if batch_sizes is None:
        for t in (reversed(range(gates.shape[0])) if reverse else range(gates.shape[0])):
            state = step(gates[t], state, *weights)
            outputs.append(state[0])
        return stack(outputs[::-1] if reverse else outputs), state
    offsets = [0]
    for size in batch_sizes:
        offsets.append(offsets[-1] + size)
    if not reverse:
        ended, running = [], batch_sizes[0]
        for t, size in enumerate(batch_sizes):
            if size < running:
                ended.append(tuple(s[size:running] for s in state))
                state = tuple(s[:size] for s in state)
                running = size
            state = step(gates[offsets[t]:offsets[t + 1]], state, *weights)
            outputs.append(state[0])
        if ended:
            pieces = [state] + ended[::-1]
            state = tuple(cat([piece[k] for piece in pieces]) for k in range(len(state)))
        return cat(outputs), state
    initial, running = state, batch_sizes[-1]
    state = tuple(s[:running] for s in initial)
    for t in reversed(range(len(batch_sizes))):
        size = batch_sizes[t]
        if size > running:
            state = tuple(cat([s, s0[running:size]]) for s, s0 in zip(state, initial))
            running = size
        state = step(gates[offsets[t]:offsets[t + 1]], state, *weights)
        outputs.append(state[0])
    return cat(outputs[::-1]), state


# ------------------------------------------------------------------ the layers

class RNNBase(Module):
    """What RNN, LSTM and GRU share: the parameters of every layer and direction
    (``weight_ih_l{k}``, ``weight_hh_l{k}``, ``bias_ih_l{k}``, ``bias_hh_l{k}``,
    ``weight_hr_l{k}`` with ``proj_size``; ``_reverse`` for the backward direction),
    registered and initialised in torch's order, the argument checks, and the recurrence."""

    def __init__(self, mode, input_size, hidden_size, num_layers=1, bias=True,
                 batch_first=False, dropout=0.0, bidirectional=False, proj_size=0,
                 device=None, dtype=None):
        super().__init__()
        self.mode = mode
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.num_layers = num_layers
        self.bias = bias
        self.batch_first = batch_first
        self.dropout = float(dropout)
        self.bidirectional = bidirectional
        self.proj_size = proj_size
        if (not isinstance(dropout, numbers.Number) or not 0 <= dropout <= 1
                or isinstance(dropout, bool)):
            raise ValueError("dropout should be a number in range [0, 1] representing the "
                             "probability of an element being zeroed")
        if dropout > 0 and num_layers == 1:
            warnings.warn("dropout option adds dropout after all but last recurrent layer, so "
                          "non-zero dropout expects num_layers greater than 1, but got "
                          f"dropout={dropout} and num_layers={num_layers}", stacklevel=3)
        if not isinstance(bias, bool):
            raise TypeError(f"bias should be of type bool, got: {type(bias).__name__}")
        if not isinstance(batch_first, bool):
            raise TypeError(
                f"batch_first should be of type bool, got: {type(batch_first).__name__}")
        if not isinstance(input_size, int):
            raise TypeError(
                f"input_size should be of type int, got: {type(input_size).__name__}")
        if input_size <= 0:
            raise ValueError("input_size must be greater than zero")
        if not isinstance(hidden_size, int):
            raise TypeError(
                f"hidden_size should be of type int, got: {type(hidden_size).__name__}")
        if hidden_size <= 0:
            raise ValueError("hidden_size must be greater than zero")
        if num_layers <= 0:
            raise ValueError("num_layers must be greater than zero")
        if proj_size < 0:
            raise ValueError(
                "proj_size should be a positive integer or zero to disable projections")
        if proj_size >= hidden_size:
            raise ValueError("proj_size has to be smaller than hidden_size")
        if mode not in _GATES:
            raise ValueError("Unrecognized RNN mode: " + mode)
        gate_size = _GATES[mode] * hidden_size
        num_directions = 2 if bidirectional else 1
        real_hidden_size = proj_size if proj_size > 0 else hidden_size
        factory_kwargs = {"device": device, "dtype": dtype}

        def parameter(*shape):
            return Parameter(factories.empty(shape, **factory_kwargs))
        self._flat_weights_names = []
        self._all_weights = []
        for layer in range(num_layers):
            layer_input_size = input_size if layer == 0 else real_hidden_size * num_directions
            for direction in range(num_directions):
                suffix = f"_l{layer}" + ("_reverse" if direction == 1 else "")
                names = ["weight_ih" + suffix, "weight_hh" + suffix]
                params = [parameter(gate_size, layer_input_size),
                          parameter(gate_size, real_hidden_size)]
                if bias:
                    names += ["bias_ih" + suffix, "bias_hh" + suffix]
                    params += [parameter(gate_size), parameter(gate_size)]
                if proj_size > 0:
                    names.append("weight_hr" + suffix)
                    params.append(parameter(proj_size, hidden_size))
                for name, param in zip(names, params):
                    setattr(self, name, param)
                self._flat_weights_names.extend(names)
                self._all_weights.append(names)
        self.reset_parameters()

    @property
    def _flat_weights(self):
        """The parameters in torch's flat order, read now (so ``to()``, ``load_state_dict``
        and ``functional_call`` are always seen)."""
        return [getattr(self, name) for name in self._flat_weights_names]

    @property
    def all_weights(self):
        """The parameters of each layer and direction, as lists."""
        return [[getattr(self, name) for name in names] for names in self._all_weights]

    def flatten_parameters(self):
        """A no-op: torch packs the weights into one buffer for cuDNN only."""

    def reset_parameters(self):
        """Every parameter uniform on ``+-1/sqrt(hidden_size)``, in registration order."""
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    def check_input(self, input, batch_sizes):
        weight_dtype = self._flat_weights[0].dtype
        if input.dtype != weight_dtype:
            raise ValueError(
                f"RNN input dtype ({input.dtype}) does not match weight dtype ({weight_dtype}). "
                f"Convert input: input.to({weight_dtype}), or convert model: "
                f"model.to({input.dtype})")
        expected_input_dim = 2 if batch_sizes is not None else 3
        if input.dim() != expected_input_dim:
            raise RuntimeError(
                f"input must have {expected_input_dim} dimensions, got {input.dim()}")
        if self.input_size != input.size(-1):
            raise RuntimeError("input.size(-1) must be equal to input_size. Expected "
                               f"{self.input_size}, got {input.size(-1)}")

    def get_expected_hidden_size(self, input, batch_sizes):
        if batch_sizes is not None:
            mini_batch = int(batch_sizes[0])
        else:
            mini_batch = input.size(0) if self.batch_first else input.size(1)
        num_directions = 2 if self.bidirectional else 1
        size = self.proj_size if self.proj_size > 0 else self.hidden_size
        return (self.num_layers * num_directions, mini_batch, size)

    def check_hidden_size(self, hx, expected_hidden_size, msg="Expected hidden size {}, got {}"):
        if tuple(hx.size()) != expected_hidden_size:
            raise RuntimeError(msg.format(expected_hidden_size, list(hx.size())))

    def check_forward_args(self, input, hidden, batch_sizes):
        self.check_input(input, batch_sizes)
        self.check_hidden_size(hidden, self.get_expected_hidden_size(input, batch_sizes))

    def permute_hidden(self, hx, permutation):
        if permutation is None:
            return hx
        return hx.index_select(1, permutation)

    def extra_repr(self):
        s = "{input_size}, {hidden_size}"
        if self.proj_size != 0:
            s += ", proj_size={proj_size}"
        if self.num_layers != 1:
            s += ", num_layers={num_layers}"
        if self.bias is not True:
            s += ", bias={bias}"
        if self.batch_first is not False:
            s += ", batch_first={batch_first}"
        if self.dropout != 0:
            s += ", dropout={dropout}"
        if self.bidirectional is not False:
            s += ", bidirectional={bidirectional}"
        return s.format(**self.__dict__)

    def _zeros(self, input, batch, size):
        num_directions = 2 if self.bidirectional else 1
        return factories.zeros(self.num_layers * num_directions, batch, size,
                               dtype=input.dtype, device=input.device)

    def _recurrence(self, input, batch_sizes, hidden):
        """All layers and directions over a time-major ``(T, B, input_size)`` input (or the
        packed rows, with ``batch_sizes`` a list of ints); ``hidden`` is the tuple of
        initial states, each ``(num_layers * num_directions, B, *)``. Returns the last
        layer's outputs and the tuple of final states."""
        step = _STEPS[self.mode]
        num_directions = 2 if self.bidirectional else 1
        finals = [[] for _ in hidden]
        layer_input = input
        for layer in range(self.num_layers):
            if layer > 0 and self.dropout > 0 and self.training:
                layer_input = F.dropout(layer_input, self.dropout, True)
            outputs = []
            for direction in range(num_directions):
                index = layer * num_directions + direction
                weights = self.all_weights[index]
                w_ih, w_hh = weights[:2]
                b_ih, b_hh = weights[2:4] if self.bias else (None, None)
                w_hr = weights[-1] if self.proj_size > 0 else None
                # NOTE [Recurrence over packed rows]: every step's input projection at once
                gates = F.linear(layer_input, w_ih, b_ih)
                output, state = _run_direction(step, gates, batch_sizes,
                                               tuple(h[index] for h in hidden),
                                               (w_hh, b_hh, w_hr), reverse=direction == 1)
                outputs.append(output)
                for final, s in zip(finals, state):
                    final.append(s)
            layer_input = outputs[0] if num_directions == 1 else cat(outputs, -1)
        return layer_input, tuple(stack(final) for final in finals)

    def _forward(self, input, hx, name, instead):
        """The forward of RNN and GRU (one hidden state); LSTM has its own."""
        orig_input = input
        if isinstance(orig_input, PackedSequence):
            input, batch_sizes, sorted_indices, unsorted_indices = input
            if hx is None:
                hx = self._zeros(input, int(batch_sizes[0]), self.hidden_size)
            else:
                hx = self.permute_hidden(hx, sorted_indices)
        else:
            batch_sizes = None
            if input.dim() not in (2, 3):
                raise ValueError(f"{name}: Expected input to be 2D or 3D, got {input.dim()}D "
                                 f"{instead}")
            is_batched = input.dim() == 3
            batch_dim = 0 if self.batch_first else 1
            if not is_batched:
                input = input.unsqueeze(batch_dim)
                if hx is not None:
                    if hx.dim() != 2:
                        raise RuntimeError("For unbatched 2-D input, hx should also be 2-D but "
                                           f"got {hx.dim()}-D tensor")
                    hx = hx.unsqueeze(1)
            elif hx is not None and hx.dim() != 3:
                raise RuntimeError("For batched 3-D input, hx should also be 3-D but got "
                                   f"{hx.dim()}-D tensor")
            sorted_indices = unsorted_indices = None
            if hx is None:
                hx = self._zeros(input, input.size(0) if self.batch_first else input.size(1),
                                 self.hidden_size)
        self.check_forward_args(input, hx, batch_sizes)
        output, (hidden,) = self._run(input, batch_sizes, (hx,))
        if isinstance(orig_input, PackedSequence):
            return (PackedSequence(output, batch_sizes, sorted_indices, unsorted_indices),
                    self.permute_hidden(hidden, unsorted_indices))
        if not is_batched:
            output = output.squeeze(batch_dim)
            hidden = hidden.squeeze(1)
        return output, hidden

    def _run(self, input, batch_sizes, hidden):
        """``_recurrence`` on the padded input (time-major inside) or the packed rows."""
        if batch_sizes is not None:
            return self._recurrence(input, [int(b) for b in batch_sizes.tolist()], hidden)
        if input.size(1 if self.batch_first else 0) == 0:
            raise RuntimeError("Expected sequence length to be larger than 0 in RNN")
        if self.batch_first:
            output, hidden = self._recurrence(input.transpose(0, 1), None, hidden)
            return output.transpose(0, 1), hidden
        return self._recurrence(input, None, hidden)


class RNN(RNNBase):
    """An Elman RNN: ``h_t = tanh(x_t W_ih^T + b_ih + h_{t-1} W_hh^T + b_hh)`` per layer
    (``relu`` with ``nonlinearity="relu"``). ``RNN(input_size, hidden_size, num_layers=1,
    nonlinearity='tanh', bias=True, batch_first=False, dropout=0.0, bidirectional=False)``;
    ``forward(input, hx=None)`` returns ``(output, h_n)``."""

    def __init__(self, *args, **kwargs):
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        if len(args) > 3:
            self.nonlinearity = args[3]
            args = args[:3] + args[4:]
        else:
            self.nonlinearity = kwargs.pop("nonlinearity", "tanh")
        if self.nonlinearity == "tanh":
            mode = "RNN_TANH"
        elif self.nonlinearity == "relu":
            mode = "RNN_RELU"
        else:
            raise ValueError(f"Unknown nonlinearity '{self.nonlinearity}'. Select from 'tanh' "
                             "or 'relu'.")
        super().__init__(mode, *args, **kwargs)

    def __setattr__(self, name, value):
        # ``nonlinearity`` is set before Module.__init__ (as torch's), when there are no
        # tables yet to look names up in.
        if name == "nonlinearity" and "_parameters" not in self.__dict__:
            object.__setattr__(self, name, value)
            return
        super().__setattr__(name, value)

    def forward(self, input, hx=None):
        return self._forward(input, hx, "RNN", "tensor instead")


class GRU(RNNBase):
    """A gated recurrent unit per layer: reset, update and new gates (NOTE [The GRU's reset
    gate]), ``h_t = (1 - z) * n + z * h_{t-1}``. Arguments as ``RNN`` without
    ``nonlinearity``; ``forward(input, hx=None)`` returns ``(output, h_n)``."""

    def __init__(self, *args, **kwargs):
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        super().__init__("GRU", *args, **kwargs)

    def forward(self, input, hx=None):
        return self._forward(input, hx, "GRU", "instead")


class LSTM(RNNBase):
    """A long short-term memory per layer: input, forget, cell and output gates, a cell
    state ``c`` beside the hidden state ``h``; with ``proj_size > 0`` ``h`` is projected to
    ``proj_size`` by ``weight_hr``. ``forward(input, hx=None)`` with ``hx = (h_0, c_0)``
    returns ``(output, (h_n, c_n))``."""

    def __init__(self, *args, **kwargs):
        super().__init__("LSTM", *args, **kwargs)

    def get_expected_cell_size(self, input, batch_sizes):
        if batch_sizes is not None:
            mini_batch = int(batch_sizes[0])
        else:
            mini_batch = input.size(0) if self.batch_first else input.size(1)
        num_directions = 2 if self.bidirectional else 1
        return (self.num_layers * num_directions, mini_batch, self.hidden_size)

    def check_forward_args(self, input, hidden, batch_sizes):
        self.check_input(input, batch_sizes)
        self.check_hidden_size(hidden[0], self.get_expected_hidden_size(input, batch_sizes),
                               "Expected hidden[0] size {}, got {}")
        self.check_hidden_size(hidden[1], self.get_expected_cell_size(input, batch_sizes),
                               "Expected hidden[1] size {}, got {}")

    def permute_hidden(self, hx, permutation):
        if permutation is None:
            return hx
        return hx[0].index_select(1, permutation), hx[1].index_select(1, permutation)

    def _zero_state(self, input, batch):
        real_hidden_size = self.proj_size if self.proj_size > 0 else self.hidden_size
        return (self._zeros(input, batch, real_hidden_size),
                self._zeros(input, batch, self.hidden_size))

    def forward(self, input, hx=None):
        orig_input = input
        batch_sizes = None
        if isinstance(orig_input, PackedSequence):
            input, batch_sizes, sorted_indices, unsorted_indices = input
            if hx is None:
                hx = self._zero_state(input, int(batch_sizes[0]))
            else:
                hx = self.permute_hidden(hx, sorted_indices)
        else:
            if input.dim() not in (2, 3):
                raise ValueError(
                    f"LSTM: Expected input to be 2D or 3D, got {input.dim()}D instead")
            is_batched = input.dim() == 3
            batch_dim = 0 if self.batch_first else 1
            if not is_batched:
                input = input.unsqueeze(batch_dim)
            sorted_indices = unsorted_indices = None
            if hx is None:
                hx = self._zero_state(input, input.size(0) if self.batch_first
                                      else input.size(1))
            elif is_batched:
                if hx[0].dim() != 3 or hx[1].dim() != 3:
                    raise RuntimeError("For batched 3-D input, hx and cx should also be 3-D but "
                                       f"got ({hx[0].dim()}-D, {hx[1].dim()}-D) tensors")
            else:
                if hx[0].dim() != 2 or hx[1].dim() != 2:
                    raise RuntimeError("For unbatched 2-D input, hx and cx should also be 2-D "
                                       f"but got ({hx[0].dim()}-D, {hx[1].dim()}-D) tensors")
                hx = (hx[0].unsqueeze(1), hx[1].unsqueeze(1))
        self.check_forward_args(input, hx, batch_sizes)
        output, hidden = self._run(input, batch_sizes, tuple(hx))
        if isinstance(orig_input, PackedSequence):
            return (PackedSequence(output, batch_sizes, sorted_indices, unsorted_indices),
                    self.permute_hidden(hidden, unsorted_indices))
        if not is_batched:
            output = output.squeeze(batch_dim)
            hidden = (hidden[0].squeeze(1), hidden[1].squeeze(1))
        return output, hidden


# ------------------------------------------------------------------ the cells

def _check_cell(input, hiddens, input_size, hidden_size):
    """torch's checks of a cell's (batched) input and hidden states."""
    if input.size(1) != input_size:
        raise RuntimeError(f"input has inconsistent input_size: got {input.size(1)} expected "
                           f"{input_size}")
    for index, hidden in enumerate(hiddens):
        if input.size(0) != hidden.size(0):
            raise RuntimeError(f"Input batch size {input.size(0)} doesn't match hidden{index} "
                               f"batch size {hidden.size(0)}")
        if hidden.size(1) != hidden_size:
            raise RuntimeError(f"hidden{index} has inconsistent hidden_size: got "
                               f"{hidden.size(1)}, expected {hidden_size}")


class RNNCellBase(Module):
    """What the cells share: ``weight_ih`` ``(chunks * hidden_size, input_size)``,
    ``weight_hh`` ``(chunks * hidden_size, hidden_size)`` and the two biases, uniform on
    ``+-1/sqrt(hidden_size)`` in that order."""

    def __init__(self, input_size, hidden_size, bias, num_chunks, device=None, dtype=None):
        super().__init__()
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.bias = bias
        factory_kwargs = {"device": device, "dtype": dtype}
        self.weight_ih = Parameter(factories.empty((num_chunks * hidden_size, input_size),
                                                   **factory_kwargs))
        self.weight_hh = Parameter(factories.empty((num_chunks * hidden_size, hidden_size),
                                                   **factory_kwargs))
        if bias:
            self.bias_ih = Parameter(factories.empty(num_chunks * hidden_size, **factory_kwargs))
            self.bias_hh = Parameter(factories.empty(num_chunks * hidden_size, **factory_kwargs))
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        self.reset_parameters()

    def extra_repr(self):
        s = "{input_size}, {hidden_size}"
        if "bias" in self.__dict__ and self.bias is not True:
            s += ", bias={bias}"
        if "nonlinearity" in self.__dict__ and self.nonlinearity != "tanh":
            s += ", nonlinearity={nonlinearity}"
        return s.format(**self.__dict__)

    def reset_parameters(self):
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    def _batched(self, name, input, hx, count):
        """``input`` and the ``count`` hidden states as batches (a missing ``hx`` is zeros),
        and whether the input was one already."""
        if input.dim() not in (1, 2):
            raise ValueError(f"{name}: Expected input to be 1D or 2D, got {input.dim()}D instead")
        states = None if hx is None else ((hx,) if count == 1 else tuple(hx))
        for index, value in enumerate(states or ()):
            if value.dim() not in (1, 2):
                what = "hidden" if count == 1 else f"hx[{index}]"
                raise ValueError(
                    f"{name}: Expected {what} to be 1D or 2D, got {value.dim()}D instead")
        is_batched = input.dim() == 2
        if not is_batched:
            input = input.unsqueeze(0)
        if states is None:
            zeros = factories.zeros(input.size(0), self.hidden_size, dtype=input.dtype,
                                    device=input.device)
            states = (zeros,) * count
        elif not is_batched:
            states = tuple(s.unsqueeze(0) for s in states)
        _check_cell(input, states, self.input_size, self.hidden_size)
        return input, states, is_batched

    def _step(self, step, input, states):
        gates = F.linear(input, self.weight_ih, self.bias_ih)
        return step(gates, states, self.weight_hh, self.bias_hh)


class RNNCell(RNNCellBase):
    """One step of an Elman RNN: ``h' = tanh(x W_ih^T + b_ih + h W_hh^T + b_hh)`` (``relu``
    with ``nonlinearity="relu"``)."""

    def __init__(self, input_size, hidden_size, bias=True, nonlinearity="tanh", device=None,
                 dtype=None):
        super().__init__(input_size, hidden_size, bias, num_chunks=1, device=device,
                         dtype=dtype)
        self.nonlinearity = nonlinearity

    def forward(self, input, hx=None):
        input, states, is_batched = self._batched("RNNCell", input, hx, 1)
        if self.nonlinearity == "tanh":
            step = _STEPS["RNN_TANH"]
        elif self.nonlinearity == "relu":
            step = _STEPS["RNN_RELU"]
        else:
            raise RuntimeError(f"Unknown nonlinearity: {self.nonlinearity}")
        (h,) = self._step(step, input, states)
        return h if is_batched else h.squeeze(0)


class LSTMCell(RNNCellBase):
    """One LSTM step: ``(h', c')`` from ``input`` and ``hx = (h, c)``."""

    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, num_chunks=4, device=device,
                         dtype=dtype)

    def forward(self, input, hx=None):
        input, states, is_batched = self._batched("LSTMCell", input, hx, 2)
        h, c = self._step(_lstm_step, input, states)
        return (h, c) if is_batched else (h.squeeze(0), c.squeeze(0))


class GRUCell(RNNCellBase):
    """One GRU step (NOTE [The GRU's reset gate])."""

    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, num_chunks=3, device=device,
                         dtype=dtype)

    def forward(self, input, hx=None):
        input, states, is_batched = self._batched("GRUCell", input, hx, 1)
        (h,) = self._step(_gru_step, input, states)
        return h if is_batched else h.squeeze(0)
