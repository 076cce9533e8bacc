"""The host side of the reduction kernels (cuda/reduction.cu): torch's reduction semantics
(result dtypes, empty-input errors, keepdim) and the launches that compute them.

Every function takes a ``backend`` and raw strided arrays. The backend gives
``empty(shape, dtype)`` (a new contiguous array), ``launch(name, grid, block, args,
shared_mem=0)`` (a manifest kernel), and the caps ``max_block_size`` and ``max_grid_size``;
an array is used only through ``shape``, ``strides`` (bytes), ``dtype``, ``itemsize``,
``size``, ``ndim`` and as a kernel argument (which points at its element 0, so any strides
work: transposed, flipped, broadcast with stride 0). Dims arrive normalised (non-negative,
no duplicates); ``dims=None`` reduces all of them, ``dims=()`` none.

The input is seen as (kept dims) x (reduced dims) through a ReduceLayout (NOTE
[ReduceLayout] in cuda/reduce.cuh); ``_plan`` picks how many lanes of a block share one
output and whether a long reduction is cut into pieces reduced in two passes (NOTE [Two
passes] in cuda/reduction.cu).
"""
import math

import numpy as np

from autograd_cy.cuda.layout import MAX_DIMS, REDUCE_LAYOUT_DTYPE, coalesce, contiguous_strides
from autograd_cy.cuda.manifest import REDUCTION_OPS, reduction_name

VALUE_OPS = ("sum", "prod", "mean", "amax", "amin", "var", "std", "norm", "logsumexp")

# A slot of the partial buffer, in doubles (REDUCE_SLOT_DOUBLES in cuda/reduction.cu).
SLOT_DOUBLES = 3
# Launch planning (see _plan): the most threads of a block; the threads that keep a device
# busy (fewer outputs than that share out lanes); the blocks worth cutting a long reduction
# into; the fewest elements per lane a piece of a cut reduction keeps.
BLOCK_THREADS = 512
BUSY_THREADS = 16384
BUSY_BLOCKS = 256
MIN_PER_LANE = 4

# torch's names of the dtypes, for its error messages.
_TORCH_DTYPE_NAMES = {"int64": "Long", "int32": "Int", "int16": "Short", "int8": "Char",
                      "uint8": "Byte", "bool": "Bool"}


# ---- the public functions ---------------------------------------------------------------

def reduce(backend, x, dims, keepdim, op, *, out_dtype=None, correction=None, p=None):
    """torch's ``op`` of x over ``dims`` (None: all): "sum", "prod", "mean", "amax",
    "amin", "var", "std" (``correction``, default 1), "norm" (``p``, default 2) or
    "logsumexp". Returns a new array of torch's result dtype, or ``out_dtype`` (sum, prod
    and mean: a wider float, accumulated in it)."""
    if op not in VALUE_OPS:
        raise ValueError(f"unknown reduction {op!r}; expected one of {VALUE_OPS}")
    all_dims = dims is None
    dims = _check_dims(x, range(x.ndim) if all_dims else dims)
    if op in ("amax", "amin"):
        _check_identity(op, x, dims, all_dims)
    scalar = 0.0
    if op in ("var", "std"):
        scalar = 1.0 if correction is None else float(correction)
    elif op == "norm":
        scalar = 2.0 if p is None else float(p)
        if scalar < 0 or scalar == math.inf:
            _check_norm_identity(scalar, x, dims, all_dims)
    result_dtype = _result_dtype(op, x.dtype.name, out_dtype)
    out = backend.empty(_out_shape(x.shape, dims, keepdim), np.dtype(result_dtype))
    _reduce_into(backend, reduction_name(op, x.dtype.name, result_dtype), x, dims, out,
                 backend.empty((0,), np.dtype(np.int64)), scalar, keep_order=False)
    return out


def reduce_with_indices(backend, x, dim, keepdim, op):
    """torch.max / torch.min along ``dim``: (values, int64 indices). A tie goes to the
    first index, and NaN is the extremum (the first NaN), as torch's."""
    if op not in ("max", "min"):
        raise ValueError(f"reduce_with_indices takes 'max' or 'min', not {op!r}")
    dims = _check_dims(x, () if x.ndim == 0 else (dim,))
    _check_identity(op, x, dims, False)
    shape = _out_shape(x.shape, dims, keepdim)
    values = backend.empty(shape, x.dtype)
    indices = backend.empty(shape, np.dtype(np.int64))
    _reduce_into(backend, _indexed_name(op, x), x, dims, values, indices, 0.0, keep_order=True)
    return values, indices


def argreduce(backend, x, dim, keepdim, op):
    """torch.argmax / torch.argmin: int64 indices along ``dim``, or into the flattened x
    when ``dim`` is None (keepdim then keeps every dim as 1)."""
    if op not in ("argmax", "argmin"):
        raise ValueError(f"argreduce takes 'argmax' or 'argmin', not {op!r}")
    if dim is None:
        if x.size == 0:
            raise IndexError(f"{op}(): Expected reduction dim to be specified for "
                             f"input.numel() == 0.")
        dims = tuple(range(x.ndim))
    else:
        dims = _check_dims(x, () if x.ndim == 0 else (dim,))
        _check_identity(op, x, dims, False)
    shape = _out_shape(x.shape, dims, keepdim)
    values = backend.empty(shape, x.dtype)  # the extremes: computed alongside, dropped
    indices = backend.empty(shape, np.dtype(np.int64))
    _reduce_into(backend, _indexed_name(op[3:], x), x, dims, values, indices, 0.0,
                 keep_order=True)
    return indices


def sum_to(backend, x, shape):
    """torch's sum_to_size: the sum of a broadcast x back to ``shape`` (its leading extra
    dims summed away, dims where ``shape`` has 1 summed with keepdim). Returns x itself when
    it already has that shape, as torch's sum_to does."""
    shape = tuple(shape)
    lead = x.ndim - len(shape)
    if lead < 0 or any(s != 1 and s != size for s, size in zip(shape, x.shape[lead:])):
        raise RuntimeError(f"size {{{list(shape)}}} is not expandable to size "
                           f"{{{list(x.shape)}}}.")
    if tuple(x.shape) == shape:
        return x
    dims = tuple(range(lead)) + tuple(lead + i for i, s in enumerate(shape)
                                      if s == 1 and x.shape[lead + i] != 1)
    result_dtype = _result_dtype("sum", x.dtype.name, None)
    out = backend.empty(shape, np.dtype(result_dtype))
    _reduce_into(backend, reduction_name("sum", x.dtype.name, result_dtype), x, dims, out,
                 backend.empty((0,), np.dtype(np.int64)), 0.0, keep_order=False)
    return out


# ---- torch's rules ----------------------------------------------------------------------

def _check_dims(x, dims):
    dims = tuple(int(d) for d in dims)
    if any(not 0 <= d < x.ndim for d in dims) or len(set(dims)) != len(dims):
        raise ValueError(f"reduction dims {dims} are not distinct dims of a {x.ndim}-d array "
                         f"(the caller normalises them)")
    return dims


def _check_identity(op, x, dims, all_dims):
    """amax, amin, max, min, argmax and argmin have no value for an empty reduction."""
    if all_dims and x.size == 0:
        raise RuntimeError(f"{op}(): Expected reduction dim to be specified for input.numel() "
                           f"== 0. Specify the reduction dim with the 'dim' argument.")
    for d in dims:
        if x.shape[d] == 0:
            raise IndexError(f"{op}(): Expected reduction dim {d} to have non-zero size.")


def _check_norm_identity(p, x, dims, all_dims):
    """The inf norm and the norms of negative p have no value for an empty reduction."""
    if all_dims:
        if x.size == 0:
            raise RuntimeError(f"linalg.vector_norm cannot compute the {p:g} norm on an empty "
                               f"tensor because the operation does not have an identity")
        return
    for d in dims:
        if x.shape[d] == 0:
            # torch's message, its missing space included
            raise RuntimeError(f"linalg.vector_norm cannot compute the {p:g} norm on the "
                               f"dimension {d}because this dimension is empty and the "
                               f"operation does not have an identity")


def _result_dtype(op, in_dtype, out_dtype):
    """torch's result dtype of ``op``, checked against the kernels there are."""
    pairs = REDUCTION_OPS[op][2]
    if op == "mean" and in_dtype in _TORCH_DTYPE_NAMES:
        raise RuntimeError(f"mean(): could not infer output dtype. Input dtype must be either "
                           f"a floating point or complex dtype. Got: "
                           f"{_TORCH_DTYPE_NAMES[in_dtype]}")
    if out_dtype is None:
        # REDUCTION_OPS lists an input's default output first (its own dtype, or int64)
        defaults = [o for i, o in pairs if i == in_dtype]
        if not defaults:
            raise TypeError(f"the {op} kernels take {sorted({i for i, _ in pairs})} inputs, "
                            f"not {in_dtype}: cast first")
        return defaults[0]
    out_dtype = np.dtype(out_dtype).name
    if (in_dtype, out_dtype) not in pairs:
        raise TypeError(f"the {op} kernels do not go from {in_dtype} to {out_dtype}; "
                        f"they take {pairs}")
    return out_dtype


def _indexed_name(op, x):
    """The kernel of max/min with index for x's dtype (its values keep that dtype)."""
    dtype = x.dtype.name
    if (dtype, dtype) not in REDUCTION_OPS[op][2]:
        raise TypeError(f"the {op} kernels take float16/32/64, bfloat16 and int64 inputs, "
                        f"not {dtype}")
    return reduction_name(op, dtype, dtype)


def _out_shape(shape, dims, keepdim):
    if keepdim:
        return tuple(1 if d in dims else s for d, s in enumerate(shape))
    return tuple(s for d, s in enumerate(shape) if d not in dims)


# ---- the launches -----------------------------------------------------------------------

def _element_strides(x):
    if any(s % x.itemsize for s in x.strides):
        raise ValueError(f"strides {x.strides} are not whole elements of {x.itemsize} bytes")
    return [s // x.itemsize for s in x.strides]


def _reduce_into(backend, name, x, dims, out, index, scalar, keep_order):
    """Launch ``name`` to reduce x over ``dims`` into ``out`` (contiguous, n_out elements in
    the order of the kept dims). ``keep_order``: the reduction index r must be the row-major
    index over ``dims`` (ops that report an index); otherwise the reduced dims are put in
    decreasing stride order first, so that r walks memory as contiguously as it can."""
    strides = _element_strides(x)
    kept = [d for d in range(x.ndim) if d not in dims]
    reduced = sorted(dims) if keep_order else sorted(
        dims, key=lambda d: (-abs(strides[d]), d))
    kept_shape = [x.shape[d] for d in kept]
    reduced_shape = [x.shape[d] for d in reduced]
    n_out, n_reduced = math.prod(kept_shape), math.prod(reduced_shape)
    if out.size != n_out:
        raise ValueError(f"output of {out.size} elements for {n_out} kept elements")
    if n_out == 0:
        return  # nothing to compute, and a grid of 0 blocks is a launch error
    kept_sizes, (kept_strides, _) = coalesce(
        kept_shape, [[strides[d] for d in kept], list(contiguous_strides(kept_shape))])
    reduced_sizes, (reduced_strides,) = coalesce(reduced_shape, [[strides[d] for d in reduced]])
    if max(len(kept_sizes), len(reduced_sizes)) > MAX_DIMS:
        raise RuntimeError(f"CUDA reductions take at most {MAX_DIMS} kept and {MAX_DIMS} "
                           f"reduced dims after merging contiguous dims (shape {x.shape}, "
                           f"dims {dims})")
    contiguous = n_reduced > 1 and abs(reduced_strides[-1]) == 1
    lanes, rows, grid, splits, chunk = _plan(n_out, n_reduced, contiguous, backend, True)
    layout = _layout(kept_sizes, kept_strides, reduced_sizes, reduced_strides, n_out,
                     n_reduced, splits, chunk, n_reduced, scalar, from_partials=False)
    if splits == 1:
        partials = backend.empty((0,), np.dtype(np.float64))
        backend.launch(name, (grid,), (lanes, rows), (x, out, index, partials, layout))
        return
    # NOTE [Two passes] (cuda/reduction.cu): partial states, then one output from each
    # output's `splits` consecutive slots.
    partials = backend.empty((n_out * splits * SLOT_DOUBLES,), np.dtype(np.float64))
    backend.launch(name, (grid,), (lanes, rows), (x, out, index, partials, layout))
    lanes, rows, grid, _, _ = _plan(n_out, splits, True, backend, False)
    layout = _layout((n_out,), (splits,), (splits,), (1,), n_out, splits, 1, splits,
                     n_reduced, scalar, from_partials=True)
    backend.launch(name, (grid,), (lanes, rows), (x, out, index, partials, layout))


def _layout(kept_sizes, kept_strides, reduced_sizes, reduced_strides, n_out, n_reduced,
            splits, chunk, numel, scalar, from_partials):
    layout = np.zeros((), REDUCE_LAYOUT_DTYPE)
    layout["kept_ndim"] = len(kept_sizes)
    layout["kept_size"][:len(kept_sizes)] = kept_sizes
    layout["kept_stride"][:len(kept_sizes)] = kept_strides
    layout["reduced_ndim"] = len(reduced_sizes)
    layout["reduced_size"][:len(reduced_sizes)] = reduced_sizes
    layout["reduced_stride"][:len(reduced_sizes)] = reduced_strides
    layout["n_out"], layout["n_reduced"] = n_out, n_reduced
    layout["splits"], layout["chunk"], layout["numel"] = splits, chunk, numel
    layout["scalar"], layout["from_partials"] = scalar, int(from_partials)
    return layout[()]


def _pow2_at_least(n):
    return 1 << max(0, (n - 1).bit_length())


def _pow2_at_most(n):
    return 1 << (n.bit_length() - 1)


def _plan(n_out, n_reduced, contiguous, backend, may_split):
    """(lanes, rows, grid, splits, chunk) of a launch: a block is ``rows`` rows of ``lanes``
    threads, a row reducing one piece of one output (NOTE [Block reduction]).

    Lanes: a power of two up to the reduction's length, all of the block's threads for a
    long one. When the reduced elements are not contiguous but the outputs are (a sum over
    dim 0), neighbouring threads should take neighbouring outputs: with enough outputs to
    busy the device, one lane per output. Splits: when the outputs fill fewer than
    BUSY_BLOCKS blocks (and the device's grid), each output's reduction is cut into pieces of
    at least MIN_PER_LANE elements per lane, one block row each, reduced in two passes.
    Every choice is within the backend's caps, and results do not depend on them (the
    kernel's loops are grid- and block-stride)."""
    max_block, max_grid = int(backend.max_block_size), int(backend.max_grid_size)
    if max_block < 32 or max_block & (max_block - 1) or max_grid < 1:
        raise ValueError(f"block cap {max_block} must be a power of two >= 32, "
                         f"grid cap {max_grid} at least 1")
    threads = min(max_block, BLOCK_THREADS)
    lanes = 1
    if n_reduced > 1:
        lanes = min(_pow2_at_least(n_reduced), threads)
        if not contiguous:
            lanes = min(lanes, _pow2_at_most(max(1, BUSY_THREADS // n_out)))
    if lanes > 32:
        rows = 1  # a row longer than a warp is the whole block
    else:
        rows = max(32 // lanes, min(threads // lanes, _pow2_at_least(n_out)))
    blocks = -(-n_out // rows)
    splits = 1
    if may_split:
        want = min(max_grid, BUSY_BLOCKS)
        most = n_reduced // (lanes * MIN_PER_LANE)
        if blocks < want and most > 1:
            splits = min(-(-want // blocks), most)
    chunk = -(-n_reduced // splits)
    if chunk:
        splits = -(-n_reduced // chunk)  # no empty pieces
    grid = min(-(-(n_out * splits) // rows), max_grid)
    return lanes, rows, grid, splits, chunk
