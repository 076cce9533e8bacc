"""``F.pad``: widen (or, with negative amounts, crop) the last dims of a tensor.

``pad`` lists (left, right) amounts from the last dim backwards, as torch's. ``constant``
writes the input into a tensor filled with ``value`` (its gradient is the matching slice);
``reflect``, ``replicate`` and ``circular`` gather the input along each padded dim with a
computed index (their gradients add back into the positions read)."""
import numpy as np

from autograd_cy import factories

__all__ = ["pad"]


def _source_index(size, left, right, mode):
    """For each output position along one dim, the input position it reads."""
    positions = np.arange(-left, size + right)
    if mode == "replicate":
        return np.clip(positions, 0, size - 1)
    if mode == "circular":
        return positions % size
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
    if not any(left or right for left, right in pairs):
        return input
    if mode == "constant":
        shape = list(input.shape)
        source = [slice(None)] * input.dim()
        target = [slice(None)] * input.dim()
        for i, (left, right) in enumerate(pairs):
            dim = input.dim() - 1 - i
            size = shape[dim]
            shape[dim] = size + left + right
            if shape[dim] < 0:
                raise RuntimeError(f"The input size {size}, plus negative padding {left} and "
                                   f"{right} resulted in a negative output size, which is "
                                   "invalid. Check dimension "
                                   f"{dim} of your input.")
            source[dim] = slice(max(-left, 0), size - max(-right, 0))
            target[dim] = slice(max(left, 0), shape[dim] - max(right, 0))
        output = factories.full(tuple(shape), 0 if value is None else value,
                                dtype=input.dtype, device=input.device)
        output[tuple(target)] = input[tuple(source)]
        return output
    if mode not in ("reflect", "replicate", "circular"):
        raise NotImplementedError(f"Unrecognised padding mode {mode}")
    output = input
    for i, (left, right) in enumerate(pairs):
        dim = input.dim() - 1 - i
        size = input.shape[dim]
        if mode == "reflect" and (left >= size or right >= size):
            raise RuntimeError(f"Argument #4: Padding size should be less than the "
                               f"corresponding input dimension, but got: padding ({left}, "
                               f"{right}) at dimension {dim} of input {list(input.shape)}")
        index = factories.tensor(_source_index(size, left, right, mode), device=input.device)
        output = output.index_select(dim, index)
    return output
