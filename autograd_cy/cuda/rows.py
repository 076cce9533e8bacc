"""The host side of the row and loss kernels (cuda/softmax.cu, cuda/loss.cu): softmax and
log_softmax along a dim, nll_loss, and the pointwise losses fused into their reduction,
forward and backward, one launch each.

The core reaches these through the CUDA backend (NOTE [One backend interface] in
pyx/device.pxd): its ``rows`` and ``loss`` call ``rows`` and ``loss`` here. Argument checks
stay in the ops (pyx/ops/loss.pyx), which run them before asking the backend, so errors
read as on the CPU.
"""
import math

import numpy as np

from autograd_cy.cuda import manifest
from autograd_cy.cuda.array import (
    empty, empty_in_order, kernel_name, launch_elementwise, register_operations,
    require_kernel, fill_array,
)
from autograd_cy.cuda.launch import elementwise_config
from autograd_cy.cuda.layout import (
    NLL_LAYOUT_DTYPE, ROW_LAYOUT_DTYPE, broadcast_strides, contiguous_strides, elementwise_layout,
)

#: rows of at most this many elements take a warp each, longer ones a block each
#: (NOTE [Softmax schedules] in cuda/softmax.cu)
WARP_ROW_LIMIT = 1024
#: threads of a block: a warp-per-row block holds BLOCK_THREADS // 32 rows
BLOCK_THREADS = 128
LONG_ROW_THREADS = 1024
#: threads of the one block that reduces a loss ('mean', 'sum')
LOSS_BLOCK_THREADS = 1024
_REDUCTIONS = {0: "none", 1: "mean", 2: "sum"}


# ---- softmax ------------------------------------------------------------------------------

def _merged_stride(sizes, strides):
    """The one stride that walks dims ``sizes`` (row-major) of an operand, or None when they
    do not merge (a permuted or sliced layout). Dims of one element do not count."""
    dims = [(n, s) for n, s in zip(sizes, strides) if n != 1]
    for (_, outer), (inner_size, inner) in zip(dims, dims[1:]):
        if outer != inner * inner_size:
            return None
    return dims[-1][1] if dims else 0


def row_layout(shape, dim, operands):
    """The RowLayout (NOTE [RowLayout]) of ``operands`` (output first; each broadcast to
    ``shape``) along ``dim``, or None when an operand's dims before or after ``dim`` do not
    merge into one stride."""
    layout = np.zeros((), ROW_LAYOUT_DTYPE)
    layout["outer"] = math.prod(shape[:dim])
    layout["dim"] = shape[dim]
    layout["inner"] = math.prod(shape[dim + 1:])
    for k, a in enumerate(operands):
        strides = broadcast_strides(shape, a.shape, a.element_strides)
        outer = _merged_stride(shape[:dim], strides[:dim])
        inner = _merged_stride(shape[dim + 1:], strides[dim + 1:])
        if outer is None or inner is None:
            return None
        layout["stride"][k] = (outer, strides[dim], inner)
    return layout[()]


def _row_config(rows, length, seam):
    """(grid, block) of NOTE [Softmax schedules]: a warp per row, or a block per long row."""
    if length <= WARP_ROW_LIMIT:
        per_block = max(1, min(BLOCK_THREADS, seam.max_block_size) // 32)
        block = (32, per_block)
        blocks = -(-rows // per_block)
    else:
        block = (min(LONG_ROW_THREADS, seam.max_block_size), 1)
        blocks = rows
    return (max(1, min(blocks, seam.max_grid_size)),), block


def rows(template, arrays, dim, scalars):
    """One launch of a row kernel over ``arrays`` along ``dim``: ``softmax_forward`` (x,
    take_log) or ``softmax_backward`` (g, y, take_log). The result is a new contiguous array
    of the last array's shape and dtype; an operand whose layout does not merge is copied
    first."""
    first = arrays[-1]
    shape, dtype = tuple(first.shape), first.dtype
    out = empty(shape, dtype, first.device)
    if out.size == 0:
        return out
    if not shape:                        # 0-dim: one row of one element
        shape, dim = (1,), 0
        out, arrays = out.reshape(1), tuple(a.reshape(1) if a.ndim == 0 else a for a in arrays)
    dim = dim % len(shape)               # a negative dim would misplace every row
    arrays = tuple(a.astype(dtype, copy=False) for a in arrays)
    layout = row_layout(shape, dim, (out,) + arrays)
    if layout is None:
        arrays = tuple(a.copy() for a in arrays)
        layout = row_layout(shape, dim, (out,) + arrays)
    name = kernel_name(template, dtype)
    require_kernel(name, f"{template} of {dtype}")
    seam = out.device.seam
    grid, block = _row_config(int(layout["outer"] * layout["inner"]), shape[dim], seam)
    seam.launch(name, grid, block, (out.raw,) + tuple(a.raw for a in arrays) + (layout,)
                + tuple(np.int32(s) for s in scalars))
    return out.reshape(first.shape)


# ---- device-side asserts ------------------------------------------------------------------
# NOTE [Device-side asserts] (cuda/loss.cu): one int64 word per device that a kernel sets on a
# bad class index or probability; armed devices have it read at their next host read. The
# word and the flag are the device's own (NOTE [Device state lives on the device]).

def _assert_word(device):
    """The device's assert word (zero until a kernel flags an error), made on first use."""
    if device.assert_word is None:
        device.assert_word = empty((1,), np.dtype(np.int64), device)
        fill_array(device.assert_word, 0)
    return device.assert_word


def error_word(device):
    """The device's assert word; launching a kernel with it arms the check of the next host
    read."""
    word = _assert_word(device)
    device.assert_armed = True
    return word


def check_device_asserts(device):
    """Raise torch's device-side assert error when a kernel of ``device`` flagged one since
    the last check (the word is read only after such a launch); called by host reads."""
    if not device.assert_armed:
        return
    device.assert_armed = False
    word = device.assert_word
    if device.seam.to_host(word.raw)[0]:
        fill_array(word, 0)
        raise RuntimeError(
            "CUDA error: device-side assert triggered\nCUDA kernel errors might be "
            "asynchronously reported at some other API call, so the stacktrace below might be "
            "incorrect.\n(autograd_cy: a loss kernel found a class index out of bounds or a "
            "probability outside [0, 1]; see NOTE [Device-side asserts] in cuda/loss.cu)")


# ---- losses ---------------------------------------------------------------------------------

def _nll_layout(x_shape, x_strides, target, reduction, ignore_index, weight, grad=None):
    layout = np.zeros((), NLL_LAYOUT_DTYPE)
    if len(x_shape) == 1:
        n, c, s = 1, x_shape[0], 1
        x_stride = (0, x_strides[0], 0)
    else:
        n, c, s = x_shape[0], x_shape[1], math.prod(x_shape[2:])
        inner = _merged_stride(x_shape[2:], x_strides[2:])
        if inner is None:
            return None
        x_stride = (x_strides[0], x_strides[1], inner)
    t_shape = (n, s)
    t = target.reshape(t_shape) if target.size == n * s else target
    t_strides = broadcast_strides(t_shape, t.shape, t.element_strides)
    layout["n"], layout["c"], layout["s"] = n, c, s
    layout["x_stride"] = x_stride
    layout["target_stride"] = t_strides
    if grad is not None and reduction == 0:
        g = grad.reshape(t_shape) if grad.size == n * s else grad
        layout["grad_stride"] = broadcast_strides(t_shape, g.shape, g.element_strides)
    layout["weight_stride"] = 0 if weight is None else weight.element_strides[0]
    layout["ignore_index"] = ignore_index
    layout["reduction"] = reduction
    return layout[()], t


def _one_block(seam):
    return (1,), (min(LOSS_BLOCK_THREADS, seam.max_block_size),)


def nll_loss(x, target, weight, reduction, ignore_index):
    """nll_loss's forward in one launch: (loss, total_weight); total_weight is None for
    'none' (its backward does not read it)."""
    if ignore_index != int(ignore_index) or not -2**63 <= ignore_index < 2**63:
        return None
    found = _nll_layout(x.shape, x.element_strides, target, reduction, ignore_index, weight)
    if found is None:
        x = x.copy()
        found = _nll_layout(x.shape, x.element_strides, target, reduction, ignore_index, weight)
    layout, t = found
    device, seam = x.device, x.device.seam
    name = kernel_name("nll_loss_forward", x.dtype)
    if reduction == 0:
        out = empty(() if x.ndim == 1 else target.shape, x.dtype, device)
        total_weight = None
        count = int(layout["n"] * layout["s"])
        if count == 0:
            return out, total_weight
        grid, block = elementwise_config(count, seam)
    else:
        out = empty((), x.dtype, device)
        total_weight = empty((), x.dtype, device)
        grid, block = _one_block(seam)
    seam.launch(name, grid, block,
                (out.raw, None if total_weight is None else total_weight.raw, x.raw, t.raw,
                 None if weight is None else weight.raw, error_word(device).raw, layout))
    return out, total_weight


def nll_loss_backward(grad, input_shape, target, weight, reduction, ignore_index, total_weight):
    """nll_loss's input gradient in one launch (every element written: no zero fill)."""
    if reduction == 1 and total_weight is None:
        return None
    if ignore_index != int(ignore_index) or not -2**63 <= ignore_index < 2**63:
        return None
    out = empty(tuple(input_shape), grad.dtype, grad.device)
    if out.size == 0:
        return out
    layout, t = _nll_layout(tuple(input_shape), contiguous_strides(tuple(input_shape)),
                            target, reduction, ignore_index, weight, grad)
    seam = grad.device.seam
    if isinstance(total_weight, np.ndarray) or total_weight is None:
        total = None if total_weight is None else empty((), grad.dtype, grad.device)
        if total is not None:
            fill_array(total, float(total_weight))
        total_weight = total
    else:
        total_weight = total_weight.astype(grad.dtype, copy=False)
    grid, block = elementwise_config(out.size, seam)
    seam.launch(kernel_name("nll_loss_backward", grad.dtype), grid, block,
                (out.raw, grad.raw, t.raw, None if weight is None else weight.raw,
                 None if total_weight is None else total_weight.raw,
                 error_word(grad.device).raw, layout))
    return out


def pointwise_loss(loss, x, target, weight, reduction):
    """``loss`` (a key of manifest.POINTWISE_LOSS_FUNCTORS) of each element of x and target
    (one shape; weight broadcast to it or None): the elementwise losses for 'none', else
    their sum or mean as a 0-d array, one launch either way."""
    functor = manifest.POINTWISE_LOSS_FUNCTORS[loss]
    name = kernel_name("pointwise_loss", x.dtype, functor)
    require_kernel(name, f"{loss} of {x.dtype}")
    device, seam = x.device, x.device.seam
    shape = tuple(x.shape)
    n = math.prod(shape)
    target = target.astype(x.dtype, copy=False)
    weight = None if weight is None else weight.astype(x.dtype, copy=False)
    operands = (x, target) + (() if weight is None else (weight,))
    if reduction == 0:
        out = empty_in_order(shape, x.dtype, device, operands)     # the inputs' layout
        if n == 0:
            return out
        out_strides = out.element_strides
        grid, block = elementwise_config(n, seam)
    else:
        out = empty((), x.dtype, device)
        out_strides = (0,) * len(shape)
        grid, block = _one_block(seam)
    strides = [out_strides] + [broadcast_strides(shape, a.shape, a.element_strides)
                               for a in operands]
    if weight is None:
        strides.append((0,) * len(shape))
    word = error_word(device) if loss == "binary_cross_entropy" else _unarmed_word(device)
    seam.launch(name, grid, block,
                (elementwise_layout(shape, strides), np.int64(n), out.raw, x.raw, target.raw,
                 None if weight is None else weight.raw, word.raw, np.int32(reduction)))
    return out


def _unarmed_word(device):
    """The assert word for a kernel that never flags it (no check armed)."""
    return _assert_word(device)


def pointwise_loss_backward(loss, x, target, grad, divisor):
    """The input gradient of ``loss`` in one launch: ``grad / divisor`` (broadcast) times the
    loss's derivative in x."""
    name = kernel_name(f"{loss}_backward", x.dtype)
    require_kernel(name, f"{loss}'s backward of {x.dtype}")
    out = empty_in_order(tuple(x.shape), x.dtype, x.device, (x, target))
    return launch_elementwise(name, out, (x, target, grad.astype(x.dtype, copy=False)),
                              (manifest_scalar(divisor, x.dtype),))


def manifest_scalar(value, dtype):
    """A number as the accumulate type a ``dtype`` kernel takes (float32 for the half types)."""
    return np.dtype(manifest.scalar_param(dtype.name)).type(value)


def loss(name, arrays, options):
    """The backend's ``loss`` (Backend.loss in pyx/device.pyx names the arrays and options
    of each ``name``), by the functions above."""
    if name == "nll_loss":
        # a total weight passed in is the one this computes again (same target and weights)
        x, target, weight, _ = arrays
        return nll_loss(x, target, weight, *options)
    if name == "nll_loss_backward":
        grad, x, target, weight, total_weight = arrays
        reduction, ignore_index = options
        return nll_loss_backward(grad, x.shape, target, weight, reduction, ignore_index,
                                 total_weight)
    if name.endswith("_backward"):
        return pointwise_loss_backward(name[:-len("_backward")], *arrays, *options)
    return pointwise_loss(name, *arrays, *options)


register_operations(check_device_asserts=check_device_asserts)
