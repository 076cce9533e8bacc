"""The host side of NOTE [Layout] (cuda/common.cuh): the strided iteration of one
elementwise launch, as the kernel receives it.

``elementwise_layout(shape, operand_strides)`` takes the iteration shape and, per operand
(output first), its strides in elements over that shape (0 along broadcast dims). It drops
dims of size 1, merges neighbouring dims that are contiguous in every operand (so a
contiguous launch becomes one dim of unit strides, and the kernel's index arithmetic is one
division), and packs the result into the ``Layout`` struct the kernels take by value.
"""
import numpy as np

MAX_DIMS = 8
MAX_OPERANDS = 4

# The C struct, field for field; align=True gives C's padding (328 bytes).
LAYOUT_DTYPE = np.dtype([("size", np.int64, (MAX_DIMS,)),
                         ("stride", np.int64, (MAX_OPERANDS, MAX_DIMS)),
                         ("ndim", np.int32)], align=True)


def coalesce(shape, operand_strides):
    """Merge dims: returns (shape, [strides per operand]) with the fewest dims that address
    the same elements in the same row-major order."""
    dims = [d for d in range(len(shape)) if shape[d] != 1]
    sizes = [shape[d] for d in dims]
    strides = [[s[d] for d in dims] for s in operand_strides]
    merged_sizes, merged = [], [[] for _ in operand_strides]
    for j, size in enumerate(sizes):
        if merged_sizes and all(merged[k][-1] == strides[k][j] * size
                                for k in range(len(operand_strides))):
            # dim j-1 steps exactly over all of dim j in every operand: one dim
            merged_sizes[-1] *= size
            for k in range(len(operand_strides)):
                merged[k][-1] = strides[k][j]
        else:
            merged_sizes.append(size)
            for k in range(len(operand_strides)):
                merged[k].append(strides[k][j])
    if not merged_sizes:
        return (1,), [[1] for _ in operand_strides]
    return tuple(merged_sizes), merged


def elementwise_layout(shape, operand_strides):
    """The ``Layout`` scalar for one launch (see the module docstring)."""
    if len(operand_strides) > MAX_OPERANDS:
        raise ValueError(f"a launch takes at most {MAX_OPERANDS} operands, "
                         f"got {len(operand_strides)}")
    sizes, strides = coalesce(tuple(shape), [tuple(s) for s in operand_strides])
    if len(sizes) > MAX_DIMS:
        raise RuntimeError(f"CUDA kernels take tensors of at most {MAX_DIMS} dims after "
                           f"merging contiguous dims; got {len(sizes)} (shape {tuple(shape)})")
    layout = np.zeros((), LAYOUT_DTYPE)
    layout["ndim"] = len(sizes)
    layout["size"][:len(sizes)] = sizes
    for k, s in enumerate(strides):
        layout["stride"][k, :len(sizes)] = s
    return layout[()]


def broadcast_strides(shape, operand_shape, operand_strides):
    """An operand's element strides over the broadcast ``shape`` (0 where it broadcasts)."""
    lead = len(shape) - len(operand_shape)
    result = [0] * lead
    for size, op_size, stride in zip(shape[lead:], operand_shape, operand_strides):
        result.append(0 if op_size == 1 and size != 1 else stride)
    return tuple(result)




# ---- reductions ------------------------------------------------------------------------
# NOTE [ReduceLayout] (cuda/reduce.cuh), field for field: (kept dims) x (reduced dims) of the
# input, strides in elements; autograd_cy/cuda/reduce.py fills it.
REDUCE_LAYOUT_DTYPE = np.dtype([("kept_size", np.int64, (MAX_DIMS,)),
                                ("kept_stride", np.int64, (MAX_DIMS,)),
                                ("reduced_size", np.int64, (MAX_DIMS,)),
                                ("reduced_stride", np.int64, (MAX_DIMS,)),
                                ("n_out", np.int64),
                                ("n_reduced", np.int64),
                                ("splits", np.int64),
                                ("chunk", np.int64),
                                ("numel", np.int64),
                                ("scalar", np.float64),
                                ("kept_ndim", np.int32),
                                ("reduced_ndim", np.int32),
                                ("from_partials", np.int32)], align=True)


# ---- rows ------------------------------------------------------------------------------
# NOTE [RowLayout] (cuda/softmax.cu): outer x dim x inner, and per operand its (outer, dim,
# inner) strides in elements; autograd_cy/cuda/rows.py fills it.
ROW_LAYOUT_DTYPE = np.dtype([("outer", np.int64), ("dim", np.int64), ("inner", np.int64),
                             ("stride", np.int64, (3, 3))], align=True)

# NOTE [NllLayout] (cuda/loss.cu): the (n, c, s) view of nll_loss's input and its target.
NLL_LAYOUT_DTYPE = np.dtype([("n", np.int64), ("c", np.int64), ("s", np.int64),
                             ("x_stride", np.int64, (3,)), ("target_stride", np.int64, (2,)),
                             ("grad_stride", np.int64, (2,)), ("weight_stride", np.int64),
                             ("ignore_index", np.int64), ("reduction", np.int32)], align=True)

# ---- multi-tensor launches ----------------------------------------------------------
# NOTE [Multi-tensor launch] (cuda/foreach.cu), field for field: device addresses of the
# written list and the two lists read, element counts, each tensor's first chunk number;
# autograd_cy/cuda/foreach.py fills it.
FOREACH_MAX_TENSORS = 64
FOREACH_LISTS = 3
FOREACH_TABLE_DTYPE = np.dtype([("address", np.uint64, (FOREACH_LISTS, FOREACH_MAX_TENSORS)),
                                ("numel", np.int64, (FOREACH_MAX_TENSORS,)),
                                ("first_chunk", np.int64, (FOREACH_MAX_TENSORS + 1,)),
                                ("chunk_size", np.int64),
                                ("count", np.int32)], align=True)

# cuda/foreach.cu's AdamTable (NOTE [Adam in one launch]): the four lists (param, grad,
# exp_avg, exp_avg_sq), element counts, first chunks, and each parameter's step size and
# bias correction; autograd_cy/cuda/foreach.py fills it.
ADAM_MAX_TENSORS = 32
ADAM_TABLE_DTYPE = np.dtype([("address", np.uint64, (4, ADAM_MAX_TENSORS)),
                             ("numel", np.int64, (ADAM_MAX_TENSORS,)),
                             ("first_chunk", np.int64, (ADAM_MAX_TENSORS + 1,)),
                             ("step_size", np.float64, (ADAM_MAX_TENSORS,)),
                             ("bias_correction2_sqrt", np.float64, (ADAM_MAX_TENSORS,)),
                             ("chunk_size", np.int64),
                             ("count", np.int32)], align=True)

# ---- matrix products -------------------------------------------------------------------
# cuda/gemm.cu's GemmLayout, field for field: the sizes, then each operand's (row, column)
# strides in elements (NOTE [GEMM epilogues]); autograd_cy/cuda/gemm.py fills it.
GEMM_LAYOUT_DTYPE = np.dtype([("m", np.int64), ("n", np.int64), ("k", np.int64),
                              ("a_stride", np.int64, (2,)), ("b_stride", np.int64, (2,)),
                              ("out_stride", np.int64, (2,)), ("bias_stride", np.int64, (2,)),
                              ("sums_stride", np.int64)], align=True)


# The structs kernels take by value, by the name the manifest's parameter lists use.
STRUCT_DTYPES = {"Layout": LAYOUT_DTYPE, "ReduceLayout": REDUCE_LAYOUT_DTYPE,
                 "RowLayout": ROW_LAYOUT_DTYPE, "NllLayout": NLL_LAYOUT_DTYPE,
                 "ForeachTable": FOREACH_TABLE_DTYPE, "AdamTable": ADAM_TABLE_DTYPE,
                 "GemmLayout": GEMM_LAYOUT_DTYPE}


def contiguous_strides(shape):
    """The element strides of a C-contiguous array of ``shape``."""
    strides, step = [], 1
    for size in reversed(shape):
        strides.append(step)
        step *= max(size, 1)
    return tuple(reversed(strides))
