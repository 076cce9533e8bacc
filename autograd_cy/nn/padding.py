"""``F.pad``: widen (or, with negative amounts, crop) the last dims of a tensor.

``pad`` lists (left, right) amounts from the last dim backwards, as torch's. ``constant``
writes the input into a tensor filled with ``value``, one op (its gradient is the matching
slice); ``reflect`` and ``replicate`` gather the input along each padded dim with a computed
index (their gradients add back into the positions read), one op named as torch's node
(``ReflectionPad2DBackward0``); ``circular`` is slice copies into a new tensor, as torch
builds it (``CopySlices`` nodes)."""
import numpy as np

from autograd_cy import factories
from autograd_cy.attached_gradients import attach, attached_op
from autograd_cy.autograd.function import Function

__all__ = ["pad"]


def _source_index(size, left, right, mode):
    """For each output position along one dim, the input position it reads."""
    positions = np.arange(-left, size + right)
    if mode == "replicate":
        return np.clip(positions, 0, size - 1)
    period = 2 * (size - 1)                                       # reflect
    folded = np.abs(positions) % period if period else np.zeros_like(positions)
    return np.where(folded >= size, period - folded, folded)


def pad(input, pad, mode="constant", value=None):
    """``input`` padded by ``pad = (left_last, right_last, left_second_last, ...)``."""
    if len(pad) % 2:
        raise RuntimeError("Padding length must be divisible by 2")
    if len(pad) // 2 > input.dim():
        raise RuntimeError("Padding length should be less than or equal to two times the "
                           "input dimension but got padding length "
                           f"{len(pad)} and input of dimension {input.dim()}")
    pairs = [(pad[2 * i], pad[2 * i + 1]) for i in range(len(pad) // 2)]   # last dim first
    if mode == "constant":
        return ConstantPad.apply(input, pairs, value)
    if mode not in ("reflect", "replicate", "circular"):
        raise NotImplementedError(f"Unrecognised padding mode {mode}")
    _check_edge_mode(input, pad, pairs, mode, value)
    if mode == "circular":
        return _circular(input, pairs)
    indices = []
    for i, (left, right) in enumerate(pairs):
        dim = input.dim() - 1 - i
        size = input.shape[dim]
        if mode == "reflect" and (left >= size or right >= size):
            raise RuntimeError(f"Argument #4: Padding size should be less than the "
                               f"corresponding input dimension, but got: padding ({left}, "
                               f"{right}) at dimension {dim} of input {list(input.shape)}")
        indices.append((dim, factories.tensor(_source_index(size, left, right, mode),
                                              device=input.device)))
    return _EDGE_PADS[mode, len(pairs)].apply(input, indices)


def _gathered(input, indices):
    """``input`` read along each padded dim at the positions ``indices`` give."""
    for dim, index in indices:
        input = input.index_select(dim, index)
    return input


def _slice(input, dim, start, end):
    """``input`` sliced along ``dim`` as torch's ``slice`` (negative bounds count from the
    end, bounds are clamped), a view recorded as ``SliceBackward0`` even when whole."""
    size = input.shape[dim]
    start = min(max(start + size if start < 0 else start, 0), size)
    end = min(max(end + size if end < 0 else end, start), size)
    return input.narrow(dim, start, end - start)


def _circular(input, pairs):
    """Circular padding as torch builds it: the input (cropped where an amount is
    negative) copied into the middle of an empty tensor, then, last dim first, each
    positive amount's band copied from the opposite end of the output itself (corners are
    written again by later dims). Its graph is torch's: ``CopySlices`` over ``CopySlices``
    and ``SliceBackward0`` nodes."""
    shape = list(input.shape)
    for i, (left, right) in reversed(list(enumerate(pairs))):     # torch checks first dim first
        dim = input.dim() - 1 - i
        if left > shape[dim] or right > shape[dim]:
            raise RuntimeError("Padding value causes wrapping around more than once.")
        shape[dim] += left + right
        if shape[dim] < 0:
            raise RuntimeError("Negative padding value is resulting in an empty dimension")
    output = input.new_empty(tuple(shape))
    middle, source = output, input
    for i, (left, right) in enumerate(pairs):
        dim = input.dim() - 1 - i
        middle = _slice(middle, dim, max(left, 0), shape[dim] - max(right, 0))
        source = _slice(source, dim, max(-left, 0), input.shape[dim] - max(-right, 0))
    middle.copy_(source)
    for i, (left, right) in enumerate(pairs):
        dim = input.dim() - 1 - i
        size, kept = shape[dim], shape[dim] - max(right, 0)
        if left > 0:
            _slice(output, dim, 0, left).copy_(_slice(output, dim, kept - left, kept))
        if right > 0:
            start = max(left, 0)
            _slice(output, dim, size - right, size).copy_(
                _slice(output, dim, start, start + right))
    return output


class _EdgePad(Function):
    """Reflect or replicate padding as one op, named as torch's node
    (``ReflectionPad2DBackward0`` ...): a gather along each padded dim; its gradient adds
    each output position's gradient back into the input position it read (index_add_, the
    gather's adjoint), in ops that record for a double backward."""

    builtin_op = True

    @staticmethod
    def forward(ctx, input, indices):
        ctx.indices = indices
        ctx.shape = tuple(input.shape)
        ctx.input = input           # torch's backward op takes it: attach
        return _gathered(input, indices)

    @staticmethod
    def backward(ctx, grad):
        for dim, index in reversed(ctx.indices):
            shape = list(grad.shape)
            shape[dim] = ctx.shape[dim]
            grad = factories.zeros(tuple(shape), dtype=grad.dtype,
                                   device=grad.device).index_add(dim, index, grad)
        # as torch's (NOTE [Gradients attached to the inputs of torch's backward op])
        return attach(grad, type(ctx)._forward_cls.backward_op, ctx.input), None

    @staticmethod
    def jvp(ctx, input_t, indices_t):
        return _gathered(input_t, ctx.indices)


def _edge_pad_ops():
    """One op per mode and number of padded dims, for torch's node names."""
    ops = {}
    for mode, name in (("reflect", "Reflection"), ("replicate", "Replication")):
        for dims in (1, 2, 3):
            op = type(f"{name}Pad{dims}D", (_EdgePad,), {"__doc__": _EdgePad.__doc__})
            op._backward_cls.__name__ = f"{name}Pad{dims}DBackward0"
            op.backward_op = attached_op(f"{name}Pad{dims}DBackwardBackward0")
            ops[mode, dims] = op
    return ops


_EDGE_PADS = _edge_pad_ops()


def _constant(input, pairs, value):
    """The input written into a tensor filled with ``value`` (a negative amount crops)."""
    shape = list(input.shape)
    source = [slice(None)] * input.dim()
    target = [slice(None)] * input.dim()
    for i, (left, right) in enumerate(pairs):
        dim = input.dim() - 1 - i
        size = shape[dim]
        if size + min(left, 0) + min(right, 0) < 0:         # torch crops first (narrow)
            raise RuntimeError("narrow(): length must be non-negative.")
        shape[dim] = size + left + right
        source[dim] = slice(max(-left, 0), size - max(-right, 0))
        target[dim] = slice(max(left, 0), shape[dim] - max(right, 0))
    if not value:          # zeros skip full's conversion of the value
        output = factories.zeros(tuple(shape), dtype=input.dtype, device=input.device)
    else:
        output = factories.full(tuple(shape), value, dtype=input.dtype, device=input.device)
    output[tuple(target)] = input[tuple(source)]
    return output


class ConstantPad(Function):
    """Constant padding as one op (``ConstantPadNdBackward0``, torch's node). Its gradient
    is the gradient padded by the negated amounts (the input's slice; zeros where the
    input was cropped), so the backward is this op again and records for a double
    backward; the tangent is padded with zeros."""

    builtin_op = True

    @staticmethod
    def forward(ctx, input, pairs, value):
        ctx.pairs = pairs
        return _constant(input, pairs, value)

    @staticmethod
    def backward(ctx, grad):
        return ConstantPad.apply(grad, [(-left, -right) for left, right in ctx.pairs],
                                 None), None, None

    @staticmethod
    def jvp(ctx, input_t, pairs_t, value_t):
        return ConstantPad.apply(input_t, ctx.pairs, None)


ConstantPad._backward_cls.__name__ = "ConstantPadNdBackward0"


def _check_edge_mode(input, pad, pairs, mode, value):
    """torch's rules for reflect, replicate and circular: no fill value, ``k`` padded dims
    of an input with ``k + 1`` or ``k + 2`` dims (k at most 3), and non-empty padded and
    channel dims (but circular, whose own rules ``_circular`` checks)."""
    if value is not None and value != 0:
        raise RuntimeError(f"Padding mode \"{mode}\" doesn't take in value argument")
    dims = len(pairs)
    if dims > 3 or input.dim() not in (dims + 1, dims + 2):
        raise NotImplementedError(
            f"Padding size {len(pad)} is not supported for {input.dim()}D input tensor.\n"
            "Supported combinations for non-constant padding:\n"
            "  - 2D or 3D input: padding size = 2 (pads last dimension)\n"
            "  - 3D or 4D input: padding size = 4 (pads last 2 dimensions)\n"
            "  - 4D or 5D input: padding size = 6 (pads last 3 dimensions)")
    if mode != "circular" and 0 in tuple(input.shape[input.dim() - dims - 1:]):
        raise RuntimeError(f"Expected {dims + 1}D or {dims + 2}D (batch mode) tensor with "
                           "possibly 0 batch size and other non-zero dimensions for input, "
                           f"but got: {list(input.shape)}")
