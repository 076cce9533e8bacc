"""The host side of NOTE [Multi-tensor launch] (cuda/foreach.cu): a whole list of tensors
updated by one launch of ``foreach_apply<T, Op>`` per 64 tensors.

``launch_foreach(functor, outs, firsts, seconds, scalar)`` writes ``outs[t] =
Op(firsts[t], seconds[t], scalar)`` for every t; ``launch_adam`` runs Adam's whole step
(NOTE [Adam in one launch]). The arrays are contiguous DeviceArrays of
one dtype on one device, ``outs[t]`` of the shape of the others' t-th (the caller,
autograd_cy/foreach.py, checks and groups; an in-place op passes the same list as ``outs``
and ``firsts``).
"""
import numpy as np

from autograd_cy.cuda.array import kernel_name, require_kernel, scalar_operand
from autograd_cy.cuda.layout import (
    ADAM_MAX_TENSORS, ADAM_TABLE_DTYPE, FOREACH_MAX_TENSORS, FOREACH_TABLE_DTYPE)

#: elements per chunk (one block's share of a tensor at a time): PyTorch's size on a GPU
CHUNK_SIZE = 65536
#: threads per block
BLOCK_SIZE = 512


def has_kernel(functor, dtype):
    """Whether ``foreach_apply`` is instantiated for ``functor`` and ``dtype``."""
    try:
        require_kernel(kernel_name("foreach_apply", np.dtype(dtype), functor), "")
    except (TypeError, KeyError):
        return False
    return True


def _tables(table_dtype, max_tensors, lists, chunk_size):
    """The tables of a multi-tensor launch, ``max_tensors`` tensors each: for every slice
    of the lists, (its first index, the table with the lists' addresses, element counts,
    first chunks, chunk size and count filled, its number of chunks)."""
    first = lists[0]
    for start in range(0, len(first), max_tensors):
        stop = min(start + max_tensors, len(first))
        table = np.zeros((), table_dtype)
        for k, arrays in enumerate(lists):
            if arrays is not None:
                table["address"][k, :stop - start] = [a.data_ptr() for a in arrays[start:stop]]
        numel = np.array([a.size for a in first[start:stop]], np.int64)
        chunks = (numel + chunk_size - 1) // chunk_size
        table["numel"][:stop - start] = numel
        table["first_chunk"][1:stop - start + 1] = np.cumsum(chunks)
        table["chunk_size"] = chunk_size
        table["count"] = stop - start
        yield start, table, int(chunks.sum())


def _launch_tables(seam, name, tables, scalars):
    """One launch of ``name`` per table with chunks; returns the number of launches."""
    launches = 0
    for table, total in tables:
        if total == 0:
            continue
        grid = min(total, seam.max_grid_size)
        block = min(BLOCK_SIZE, seam.max_block_size)
        seam.launch(name, (grid,), (block,), (table[()],) + scalars)
        launches += 1
    return launches


def launch_foreach(functor, outs, firsts=None, seconds=None, scalar=0, chunk_size=CHUNK_SIZE):
    """One launch per FOREACH_MAX_TENSORS tensors (see the module docstring); returns the
    number of launches."""
    dtype = outs[0].dtype
    name = kernel_name("foreach_apply", dtype, functor)
    require_kernel(name, f"_foreach ops on {dtype} ({functor})")
    tables = ((table, total) for _, table, total in _tables(
        FOREACH_TABLE_DTYPE, FOREACH_MAX_TENSORS, [outs, firsts, seconds], chunk_size))
    return _launch_tables(outs[0].device.seam, name, tables,
                          (scalar_operand(scalar, dtype),))


def launch_adam(params, grads, exp_avgs, exp_avg_sqs, step_sizes, bias_corrections2_sqrt,
                *, beta2, one_minus_beta1, one_minus_beta2, eps, weight_decay, decay_factor,
                maximize, coupled_decay, decoupled_decay, chunk_size=CHUNK_SIZE):
    """Adam's whole step for every parameter (contiguous float32 or float64 DeviceArrays of
    one dtype on one device, with their moments): one launch of ``adam_apply`` per 32
    parameters (NOTE [Adam in one launch]); returns the number of launches."""
    dtype = params[0].dtype
    name = kernel_name("adam_apply", dtype)
    require_kernel(name, f"Adam's step on {dtype}")
    options = np.int32(int(maximize) | 2 * int(coupled_decay) | 4 * int(decoupled_decay))
    scalars = tuple(np.float64(x) for x in (beta2, one_minus_beta1, one_minus_beta2, eps,
                                            weight_decay, decay_factor))

    def with_steps():
        for start, table, total in _tables(ADAM_TABLE_DTYPE, ADAM_MAX_TENSORS,
                                           [params, grads, exp_avgs, exp_avg_sqs],
                                           chunk_size):
            count = int(table["count"])
            table["step_size"][:count] = step_sizes[start:start + count]
            table["bias_correction2_sqrt"][:count] = \
                bias_corrections2_sqrt[start:start + count]
            yield table, total
    return _launch_tables(params[0].device.seam, name, with_steps(), scalars + (options,))


def can_add_in_place_together(out, addend):
    """Whether ``out += addend`` may join a multi-tensor launch of add_in_place_together:
    two contiguous DeviceArrays of one shape, dtype and device, of a dtype with a kernel."""
    return (out.shape == addend.shape and out.dtype == addend.dtype
            and out.device is addend.device and out.flags.c_contiguous
            and addend.flags.c_contiguous and has_kernel("AddScaled", out.dtype))


def add_in_place_together(pairs):
    """``out += addend`` for every (out, addend) of ``pairs`` (each passed
    can_add_in_place_together, no ``out`` twice): one launch per device and dtype (per 64
    tensors)."""
    groups = {}
    for out, addend in pairs:
        groups.setdefault((out.device.id, out.dtype), []).append((out, addend))
    for group in groups.values():
        outs = [out for out, _ in group]
        launch_foreach("AddScaled", outs, outs, [addend for _, addend in group], 1)
