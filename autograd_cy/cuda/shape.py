"""np.concatenate, np.stack and np.tile on CUDA arrays: strided copies into a new array,
each one launch of the ``cast`` kernel of cuda/elementwise.cu (the copy that also converts
dtype), which reads any strides and writes any strides.

NOTE [A cat is one copy per input]
``np.concatenate`` writes each input into its slice of the output with one strided copy,
rather than one launch for all inputs. Each input then brings its own strides and dtype in
a Layout of its own (a cat of a transposed float16 array and a contiguous float32 one into
float32 is two ordinary cast launches), the kernel needs no array of pointers, and nothing
limits the number of inputs. The price is a launch per input: small for the few inputs a cat
has in autograd (cat, split's and stack's backward); torch batches many small contiguous
inputs into one launch, which a kernel of its own could do here too.

NOTE [Tile as one broadcast copy]
``np.tile(a, reps)`` is a copy of a broadcast view: dim i of the result, of size
``reps[i] * n[i]``, splits into the pair ``(reps[i], n[i])`` (a reshape of the new,
contiguous result, so a view), and ``a`` seen with a stride 0 along each ``reps[i]`` and its
own strides along each ``n[i]`` fills it in one cast launch.
"""
import numpy as np

from autograd_cy.cuda.array import (
    DeviceArray, check_same_device, copy_into, empty, empty_in_order,
)


def concatenate(arrays, axis=0, out=None, dtype=None, casting="same_kind"):
    """np.concatenate: one strided copy per input (NOTE [A cat is one copy per input])."""
    arrays = list(arrays)
    if not arrays:
        raise ValueError("need at least one array to concatenate")
    check_same_device(*arrays)
    if not all(isinstance(a, DeviceArray) for a in arrays):
        raise TypeError("np.concatenate on CUDA arrays takes CUDA arrays only")
    if axis is None:
        arrays, axis = [a.reshape(-1) for a in arrays], 0
    first = arrays[0]
    if first.ndim == 0:
        raise ValueError("zero-dimensional arrays cannot be concatenated")
    if not -first.ndim <= axis < first.ndim:
        raise np.exceptions.AxisError(axis, first.ndim)
    axis %= first.ndim
    for i, a in enumerate(arrays[1:], 1):
        if a.ndim != first.ndim:
            raise ValueError(
                f"all the input arrays must have same number of dimensions, but the array at "
                f"index 0 has {first.ndim} dimension(s) and the array at index {i} has "
                f"{a.ndim} dimension(s)")
        for d in range(first.ndim):
            if d != axis and a.shape[d] != first.shape[d]:
                raise ValueError(
                    f"all the input array dimensions except for the concatenation axis must "
                    f"match exactly, but along dimension {d}, the array at index 0 has size "
                    f"{first.shape[d]} and the array at index {i} has size {a.shape[d]}")
    dtype = np.result_type(*[a.dtype for a in arrays]) if dtype is None else np.dtype(dtype)
    shape = list(first.shape)
    shape[axis] = sum(a.shape[axis] for a in arrays)
    result = empty_in_order(shape, dtype, first.device, arrays) if out is None else out
    start = 0
    for a in arrays:
        stop = start + a.shape[axis]
        if a.size:
            copy_into(result[(slice(None),) * axis + (slice(start, stop),)], a)
        start = stop
    return result


def stack(arrays, axis=0, out=None, *, dtype=None, casting="same_kind"):
    """np.stack: a concatenate of the inputs, each with a new dim of size 1 at ``axis``."""
    arrays = list(arrays)
    if not arrays:
        raise ValueError("need at least one array to stack")
    shape = arrays[0].shape
    if any(a.shape != shape for a in arrays):
        raise ValueError("all input arrays must have the same shape")
    ndim = len(shape) + 1
    if not -ndim <= axis < ndim:
        raise np.exceptions.AxisError(axis, ndim)
    axis %= ndim
    expanded = [a.reshape(shape[:axis] + (1,) + shape[axis:]) for a in arrays]
    return concatenate(expanded, axis, out, dtype, casting)


def tile(a, reps):
    """np.tile: one broadcast copy (NOTE [Tile as one broadcast copy])."""
    reps = (int(reps),) if np.ndim(reps) == 0 else tuple(int(r) for r in reps)
    ndim = max(len(reps), a.ndim)
    reps = (1,) * (ndim - len(reps)) + reps
    sizes = (1,) * (ndim - a.ndim) + a.shape
    result = empty(tuple(r * n for r, n in zip(reps, sizes)), a.dtype, a.device)
    if result.size:
        pairs = tuple(x for r, n in zip(reps, sizes) for x in (r, n))
        source = a.reshape(tuple(x for n in sizes for x in (1, n))).broadcast_to(pairs)
        copy_into(result.reshape(pairs), source)
    return result
