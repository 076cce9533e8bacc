"""``nn.utils.rnn``: sequences of different lengths for the recurrent layers.

A batch of sequences is either *padded* (one ``(T, B, *)`` tensor, the short sequences filled
up to the longest) or *packed* (a ``PackedSequence``: the steps of every sequence still
running, step after step, with no padding at all). The recurrent layers take a
``PackedSequence`` and run each step on only the sequences that have not ended, so padding
never reaches their hidden state.
"""
from collections import namedtuple

import numpy as np

import autograd_cy as _ag
from autograd_cy._C.tensor import Tensor
from autograd_cy.factories import as_tensor, tensor

__all__ = ["PackedSequence", "invert_permutation", "pack_padded_sequence",
           "pad_packed_sequence", "pad_sequence", "unpad_sequence", "pack_sequence",
           "unpack_sequence"]


def _lengths_array(lengths):
    """``lengths`` (a tensor or a sequence of ints) as a NumPy int64 array."""
    if isinstance(lengths, Tensor):
        return lengths.detach().cpu().numpy().astype(np.int64).reshape(-1)
    return np.asarray(lengths, dtype=np.int64).reshape(-1)


def _cpu_int64(values):
    return tensor(np.asarray(values, dtype=np.int64), device="cpu")


def invert_permutation(permutation):
    """The inverse of ``permutation`` (``None`` stays ``None``): turns a PackedSequence's
    ``sorted_indices`` into its ``unsorted_indices``."""
    if permutation is None:
        return None
    order = permutation.detach().cpu().numpy()
    inverse = np.empty_like(order)
    inverse[order] = np.arange(order.size)
    return tensor(inverse, device=permutation.device)


class PackedSequence(namedtuple("PackedSequence_",
                                ["data", "batch_sizes", "sorted_indices", "unsorted_indices"])):
    """A batch of sequences packed step by step: ``data`` holds the first step of every
    sequence, then the second step of those at least two long, and so on;
    ``batch_sizes[t]`` is how many sequences are still running at step ``t`` (a CPU int64
    tensor). The sequences are in decreasing order of length; ``sorted_indices`` is that
    order of the original batch (``None`` when it was sorted already) and
    ``unsorted_indices`` its inverse. Made by ``pack_padded_sequence`` or ``pack_sequence``,
    not by hand."""

    def __new__(cls, data, batch_sizes=None, sorted_indices=None, unsorted_indices=None):
        if unsorted_indices is None:
            unsorted_indices = invert_permutation(sorted_indices)
        if batch_sizes is None:     # the form PackedSequence((data, batch_sizes), ...)
            if not (isinstance(data, (list, tuple)) and len(data) == 2):
                raise AssertionError("Expected data to be a list or tuple of length 2")
            data, batch_sizes = data
        elif batch_sizes.device.type != "cpu":
            raise ValueError(
                "batch_sizes should always be on CPU. Instances of PackedSequence should never "
                "be created manually. They should be instantiated by functions like "
                "pack_sequence and pack_padded_sequences in nn.utils.rnn. "
                "https://pytorch.org/docs/stable/nn.html#torch.nn.utils.rnn.pack_sequence")
        return super().__new__(cls, data, batch_sizes, sorted_indices, unsorted_indices)

    def to(self, *args, **kwargs):
        """``data.to(...)``; the indices follow ``data`` to its device, ``batch_sizes``
        stays on the CPU. ``self`` when nothing changes, as ``Tensor.to``."""
        data = self.data.to(*args, **kwargs)
        if data is self.data:
            return self

        def moved(indices):
            return None if indices is None else indices.to(data.device)
        return type(self)(data, self.batch_sizes, moved(self.sorted_indices),
                          moved(self.unsorted_indices))

    def cuda(self, *args, **kwargs):
        return self.to(self.data.cuda(*args, **kwargs).device)

    def cpu(self, *args, **kwargs):
        return self.to("cpu")

    def double(self):
        return self.to(dtype=_dtype("float64"))

    def float(self):
        return self.to(dtype=_dtype("float32"))

    def half(self):
        return self.to(dtype=_dtype("float16"))

    def long(self):
        return self.to(dtype=_dtype("int64"))

    def int(self):
        return self.to(dtype=_dtype("int32"))

    def short(self):
        return self.to(dtype=_dtype("int16"))

    def char(self):
        return self.to(dtype=_dtype("int8"))

    def byte(self):
        return self.to(dtype=_dtype("uint8"))

    @property
    def is_cuda(self):
        return self.data.is_cuda


def _dtype(name):
    import autograd_cy
    return getattr(autograd_cy, name)


def _steps_mask(lengths, steps):
    """``mask[t, b]``: sequence ``b`` (of ``lengths``, sorted decreasing) runs at step ``t``."""
    return lengths[None, :] > np.arange(steps)[:, None]


# NOTE [Packing as one gather]
# A padded batch in time-major order, flattened to (T * B, *), holds the packed rows at
# the positions where the step mask is true, read row by row: step 0 of every sequence,
# then step 1 of those still running, ... since the sequences are sorted by decreasing
# length, each mask row is a prefix of the batch. So packing is one gather of those rows
# from the flat batch, and unpacking one write of the packed rows into those positions of
# a batch full of padding: no Python loop over steps or sequences.

def pack_padded_sequence(input, lengths, batch_first=False, enforce_sorted=True):
    """Pack a padded batch ``(T, B, *)`` (``(B, T, *)`` with ``batch_first``) whose
    sequence ``b`` is ``lengths[b]`` long. With ``enforce_sorted`` the lengths must be in
    decreasing order; otherwise the batch is sorted here and the order kept in
    ``sorted_indices``, so unpacking gives the sequences back in the original order."""
    if input.numel() == 0:
        raise RuntimeError("Cannot pack empty tensors.")
    lengths = _lengths_array(lengths)
    batch_dim = 0 if batch_first else 1
    if lengths.size != input.shape[batch_dim]:
        raise RuntimeError(f"Expected `len(lengths)` to be equal to batch_size, but got "
                           f"{lengths.size} (batch_size={input.shape[batch_dim]})")
    sorted_indices = None
    if not enforce_sorted:
        # NOTE: a stable sort; torch's descending sort may order ties among equal lengths
        # differently (its packed data then lists those sequences in another order).
        order = np.argsort(-lengths, kind="stable")
        lengths = lengths[order]
        sorted_indices = tensor(order, device=input.device)
        input = input.index_select(batch_dim, sorted_indices)
    if lengths.size and lengths[-1] <= 0:
        raise RuntimeError("Length of all samples has to be greater than 0, but found an "
                           "element in 'lengths' that is <= 0")
    if np.any(lengths[1:] > lengths[:-1]):
        raise RuntimeError(
            "`lengths` array must be sorted in decreasing order when `enforce_sorted` is "
            "True. You can pass `enforce_sorted=False` to pack_padded_sequence and/or "
            "pack_sequence to sidestep this requirement if you do not need ONNX "
            "exportability.")
    time_dim = 1 if batch_first else 0
    mask = _steps_mask(lengths, input.shape[time_dim])
    rows = tensor(np.flatnonzero(mask), device=input.device)
    data = PackPaddedSequence.apply(input, rows, batch_first)
    return PackedSequence(data, _cpu_int64(mask.sum(axis=1)[:int(lengths[0])]),
                          sorted_indices, None)


def _gather_rows(padded, rows, batch_first):
    """The packed rows of a padded batch (NOTE [Packing as one gather])."""
    if batch_first:
        padded = padded.transpose(0, 1)
    return padded.reshape(padded.shape[0] * padded.shape[1], *padded.shape[2:])[rows]


class PackPaddedSequence(_ag.autograd.Function):
    """Packing, as torch's op ``_pack_padded_sequence`` with its own node
    (``PackPaddedSequenceBackward0``): the backward puts each packed row's gradient back at
    its step and sequence, zeros at the padding; the forward and its tangent are one
    gather."""
    builtin_op = True

    @staticmethod
    def forward(ctx, input, rows, batch_first):
        ctx.shape, ctx.rows, ctx.batch_first = tuple(input.shape), rows, batch_first
        return _gather_rows(input, rows, batch_first)

    @staticmethod
    def backward(ctx, grad):
        shape = ctx.shape
        if ctx.batch_first:
            shape = (shape[1], shape[0], *shape[2:])
        flat = grad.new_zeros((shape[0] * shape[1], *shape[2:])).index_add(0, ctx.rows, grad)
        padded = flat.reshape(shape)
        return (padded.transpose(0, 1) if ctx.batch_first else padded), None, None

    @staticmethod
    def jvp(ctx, input_t, rows_t, batch_first_t):
        """Forward AD: packing is linear, the tangent is packed alike."""
        return _gather_rows(input_t, ctx.rows, ctx.batch_first)


# The node named as torch's (a Function's node is otherwise <Function>Backward).
PackPaddedSequence._backward_cls.__name__ = "PackPaddedSequenceBackward0"


def pad_packed_sequence(sequence, batch_first=False, padding_value=0.0, total_length=None):
    """Unpack a PackedSequence: ``(padded, lengths)``, the batch ``(T, B, *)`` (``(B, T, *)``
    with ``batch_first``) filled with ``padding_value`` past each sequence's end, in the
    order the batch had before packing, and the lengths as a CPU int64 tensor.
    ``total_length`` pads to that many steps (at least the longest sequence)."""
    batch_sizes = _lengths_array(sequence.batch_sizes)
    max_seq_length = batch_sizes.size
    if total_length is not None:
        if total_length < max_seq_length:
            raise ValueError(
                "Expected total_length to be at least the length of the longest sequence in "
                f"input, but got total_length={total_length} and max sequence length being "
                f"{max_seq_length}")
        max_seq_length = total_length
    batch = int(batch_sizes[0])
    lengths = (batch_sizes[None, :] > np.arange(batch)[:, None]).sum(axis=1)
    data = sequence.data
    # NOTE [Packing as one gather]: the packed rows written at once into the padding (a
    # write through a view, so the node is CopySlices as torch's)
    padded = data.new_full((max_seq_length, batch, *data.shape[1:]), padding_value)
    rows = np.flatnonzero(_steps_mask(lengths, max_seq_length))
    padded.view(max_seq_length * batch, *data.shape[1:])[tensor(rows, device=data.device)] = data
    if batch_first:
        padded = padded.transpose(0, 1)
    lengths = _cpu_int64(lengths)
    if sequence.unsorted_indices is not None:
        padded = padded.index_select(0 if batch_first else 1, sequence.unsorted_indices)
        lengths = lengths[sequence.unsorted_indices.cpu()]
    return padded, lengths


def pad_sequence(sequences, batch_first=False, padding_value=0.0, padding_side="right"):
    """Stack sequences of shapes ``(L_i, *)`` into one ``(T, B, *)`` batch (``(B, T, *)``
    with ``batch_first``), each filled up to the longest with ``padding_value`` on its
    ``padding_side`` ("right", after the sequence, or "left")."""
    if isinstance(sequences, Tensor):
        sequences = sequences.unbind(0)
    try:
        sequences = tuple(sequences)
    except TypeError:
        raise RuntimeError("pad_sequence: Expected iterable for input sequences, but got arg "
                           f"of type: {type(sequences)}") from None
    if padding_side not in ("left", "right"):
        raise RuntimeError(
            f"Expected padding_side to be one of left or right, but got {padding_side}.")
    if not sequences:
        raise RuntimeError("received an empty list of sequences")
    longest = max(s.shape[0] for s in sequences)
    first = sequences[0]
    shape = ((len(sequences), longest) if batch_first else (longest, len(sequences)))
    out = first.new_full((*shape, *first.shape[1:]), padding_value)
    for index, s in enumerate(sequences):
        start = 0 if padding_side == "right" else longest - s.shape[0]
        steps = slice(start, start + s.shape[0])
        out[(index, steps) if batch_first else (steps, index)].copy_(s)
    return out


def unpad_sequence(padded_sequences, lengths, batch_first=False):
    """The inverse of ``pad_sequence``: the list of sequences ``padded[:lengths[b], b]``.
    (torch transposes a time-major ``padded_sequences`` in place; this leaves it alone.)"""
    if not batch_first:
        padded_sequences = padded_sequences.transpose(0, 1)
    return [seq[:int(length)] for seq, length in zip(padded_sequences, _lengths_array(lengths),
                                                       strict=True)]


def pack_sequence(sequences, enforce_sorted=True):
    """Pack a list of sequences ``(L_i, *)``: ``pack_padded_sequence`` of their
    ``pad_sequence``."""
    lengths = as_tensor([v.size(0) for v in sequences], device="cpu")
    return pack_padded_sequence(pad_sequence(sequences), lengths,
                                enforce_sorted=enforce_sorted)


def unpack_sequence(packed_sequences):
    """The inverse of ``pack_sequence``: the list of the sequences, in the original order."""
    padded, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return unpad_sequence(padded, lengths, batch_first=True)
