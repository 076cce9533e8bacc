"""Advanced indexing of CUDA arrays, as NumPy does it: ``array[key]`` (``take``),
``array[key] = values`` (``put``), ``np.add.at(array, key, values)`` (``add_at``) and
``np.nonzero`` (``nonzero``), where ``key`` mixes ints, slices, None, Ellipsis, integer
index arrays (broadcast together) and bool masks.

NOTE [An index as a view and a gather]
A key is applied in two steps. Its basic entries (ints, slices, None) make a view, metadata
only; each index array stands for one dim of that view (a bool mask for as many dims as it
has, through its nonzero coordinates). The arrays broadcast to a shape B, which takes the
place of the dims they index in the result when they (with the ints, as NumPy counts them)
sit next to each other in the key, and goes first otherwise. The kernels then walk the
result's shape R through a Layout (NOTE [Layout] in cuda/common.cuh) in which

- the view steps 0 along B and its own strides along its other dims;
- an index array steps its own (broadcast) strides along B and 0 along the other dims;
- the output (gather) or ``values`` (scatters, broadcast) step as usual,

and add ``index[b] * stride`` of the indexed dim to the view's offset. One index array is
exactly the along-axis kernels of cuda/indexing.cu (``take_along_axis``, ``put_along_axis``,
``add_along_axis``); several are first folded into one array of offsets (NOTE [Several index
arrays as one offset] in cuda/advanced_indexing.cu). No operand is copied to make it
contiguous: a transposed or flipped array is read and written in place through its strides.

Index arrays given on the host (NumPy arrays, lists) are copied to the device, as torch
copies CPU index tensors for a CUDA tensor; bounds are checked before any launch (two
reductions per index array, each read back: IndexError as NumPy raises it), and the kernels
clamp what no one checked (they never touch memory outside the array).

Repeated indices: ``add_at`` adds every duplicate, as np.add.at does (atomics: the order of
the float additions is the hardware's, so the last bits may differ between runs). ``put``
writes each element of each duplicate in a thread of its own: one of the writes wins, which
one is not defined (NumPy keeps the last in index order; torch's CUDA index_put_ leaves it
undefined too). ``values`` must not share memory with ``array`` in a scatter.
"""
import numpy as np

from autograd_cy.cuda.array import (DeviceArray, check_same_device, empty, from_host,
                                    kernel_name, mixed_devices_error, register_operations,
                                    require_kernel)
from autograd_cy.cuda.launch import elementwise_config
from autograd_cy.cuda.layout import (LAYOUT_DTYPE, MAX_DIMS, broadcast_strides,
                                     elementwise_layout)


def take(array, key):
    """``array[key]``: a view for a basic key, else a new array (the gather)."""
    view, indexed = _resolve(array, key)
    if indexed is None:
        return view
    out = empty(indexed.shape, view.dtype, view.device)
    if out.size:
        indexed.launch("take_along_axis", "take_at_offsets", view,
                       out, [out], "x[index]")
    return out


def put(array, key, values):
    """``array[key] = values``, in place: ``values`` (a DeviceArray or a number) broadcast to
    the indexing result's shape and cast to ``array``'s dtype."""
    view, indexed = _resolve(array, key)
    if indexed is None:
        view[...] = values
        return
    values = _values_operand(values, view, indexed.shape)
    indexed.launch("put_along_axis", "put_at_offsets", view, None, [values], "x[index] = v")


def add_at(array, key, values):
    """``np.add.at(array, key, values)``, in place: every element named by ``key`` gets the
    matching entry of ``values`` added, once per time it is named. float16/32/64, bfloat16
    and int64 (the dtypes with an atomicAdd)."""
    view, indexed = _resolve(array, key)
    if indexed is None:                 # no index array: no duplicates, an ordinary add
        np.add(view, values, out=view)
        return
    values = _values_operand(values, view, indexed.shape)
    indexed.launch("add_along_axis", "add_at_offsets", view, None, [values], "np.add.at")


# -------------------------------------------------------------------- nonzero

#: positions per tile of NOTE [Nonzero in three passes] (cuda/advanced_indexing.cu)
NONZERO_TILE = 1024
_SCAN_BLOCK = 256


def nonzero(array):
    """``np.nonzero(array)``: per dim, the int64 coordinates of the nonzero elements in
    row-major order (columns of one (count, ndim) array). Three launches and one number
    read back: the count, which sizes the result."""
    if array.ndim == 0:
        raise ValueError("Calling nonzero on 0d arrays is not allowed. Use "
                         "np.atleast_1d(scalar).nonzero() instead. If the context of this "
                         "error is of the form `arr[nonzero(cond)]`, just use `arr[cond]`.")
    if array.ndim > MAX_DIMS:
        raise RuntimeError(f"nonzero on CUDA takes at most {MAX_DIMS} dims, got {array.ndim}")
    n = array.size
    device, seam = array.device, array.device.seam
    if n == 0:
        coordinates = empty((0, array.ndim), np.int64, device)
    else:
        tiles = (n + NONZERO_TILE - 1) // NONZERO_TILE
        starts = empty((tiles + 1,), np.int64, device)
        block = (min(_SCAN_BLOCK, seam.max_block_size),)
        grid = (max(1, min(tiles, seam.max_grid_size)),)
        count_kernel = kernel_name("nonzero_count", array.dtype)
        require_kernel(count_kernel, f"np.nonzero of {array.dtype}")
        tile = np.int64(NONZERO_TILE)
        seam.launch(count_kernel, grid, block,
                    (elementwise_layout(array.shape, [array.element_strides]), np.int64(n),
                     array.raw, starts.raw, tile))
        seam.launch("exclusive_scan", (1,), block, (np.int64(tiles), starts.raw))
        total = int(starts[tiles].item())
        coordinates = empty((total, array.ndim), np.int64, device)
        if total:
            seam.launch(kernel_name("nonzero_scatter", array.dtype), grid, block,
                        (_unmerged_layout(array), np.int64(n), array.raw, starts.raw,
                         coordinates.raw, tile))
    return tuple(coordinates[:, d] for d in range(array.ndim))


def _unmerged_layout(array):
    """The Layout of ``array`` alone with its dims as they are (not merged): the nonzero
    scatter unravels positions into coordinates over ``Layout.size``."""
    layout = np.zeros((), LAYOUT_DTYPE)
    layout["ndim"] = array.ndim
    layout["size"][:array.ndim] = array.shape
    layout["stride"][0, :array.ndim] = array.element_strides
    return layout[()]


# -------------------------------------------------------------------- parsing a key

class _Column:
    """One index array standing for one dim of the view: int64 on the device; ``mask_size``
    is the size the dim must have when the column came from a bool mask."""
    __slots__ = ("index", "mask_size", "dim")

    def __init__(self, index, mask_size=None):
        self.index, self.mask_size, self.dim = index, mask_size, None


def _resolve(array, key):
    """(view, None) for a basic key; (view, _Indexed) when index arrays remain (NOTE [An
    index as a view and a gather])."""
    if not isinstance(array, DeviceArray):
        raise TypeError(f"advanced indexing takes a DeviceArray, got {type(array).__name__}")
    entries = []
    for entry in (key if isinstance(key, tuple) else (key,)):
        entries.extend(_entry(array, entry))
    has_columns = any(isinstance(e, _Column) for e in entries)
    used = sum(1 for e in entries if e is not None and e is not Ellipsis)
    if used > array.ndim:
        raise IndexError(f"too many indices for array: array is {array.ndim}-dimensional, "
                         f"but {used} were indexed")
    if sum(1 for e in entries if e is Ellipsis) > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    if Ellipsis in entries:
        at = entries.index(Ellipsis)
        entries[at:at + 1] = [slice(None)] * (array.ndim - used)
    basic, columns, advanced_positions, view_dim = [], [], [], 0
    for position, entry in enumerate(entries):
        if isinstance(entry, _Column):
            entry.dim = view_dim
            columns.append(entry)
            basic.append(slice(None))
        else:
            basic.append(entry)
        if isinstance(entry, (_Column, int)):
            advanced_positions.append(position)
        if not isinstance(entry, int):
            view_dim += 1
    view = DeviceArray(array.raw[tuple(basic)], array.device)
    if not has_columns:
        return view, None
    adjacent = advanced_positions == list(range(advanced_positions[0],
                                                advanced_positions[-1] + 1))
    return view, _Indexed(view, columns, adjacent)


def _entry(array, entry):
    """An entry of a key as a list of entries: ints, slices, None, Ellipsis and _Columns."""
    if entry is None or entry is Ellipsis or isinstance(entry, slice):
        return [entry]
    if isinstance(entry, (bool, np.bool_)):
        raise NotImplementedError("a bool scalar as an index of a CUDA array")
    if isinstance(entry, (int, np.integer)):
        return [int(entry)]
    if isinstance(entry, (np.ndarray, list)):
        host = np.asarray(entry)
        if host.size == 0 and host.dtype.kind == "f":
            host = host.astype(np.int64)             # x[[]] picks nothing
        if host.ndim == 0 and host.dtype.kind in "iu":
            return [int(host)]
        entry = from_host(host, array.device)        # torch copies CPU index tensors too
    if not isinstance(entry, DeviceArray):
        raise IndexError("only integers, slices (`:`), ellipsis (`...`), numpy.newaxis "
                         "(`None`) and integer or boolean arrays are valid indices")
    check_same_device(array, entry)
    if entry.dtype == np.bool_:
        if entry.ndim == 0:
            raise NotImplementedError("a 0-d bool array as an index of a CUDA array")
        return [_Column(c, n) for c, n in zip(nonzero(entry), entry.shape)]
    if entry.dtype.kind not in "iu":
        raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
    return [_Column(entry.astype(np.int64, copy=False))]


class _Indexed:
    """The geometry of one advanced index over its view: the result shape, and each
    operand's strides over it (NOTE [An index as a view and a gather])."""

    def __init__(self, view, columns, adjacent):
        self.columns = columns
        for column in columns:
            size = view.shape[column.dim]
            if column.mask_size is not None:
                if column.mask_size != size:
                    raise IndexError(
                        f"boolean index did not match indexed array along axis "
                        f"{column.dim}; size of axis is {size} but size of corresponding "
                        f"boolean axis is {column.mask_size}")
            elif column.index.size:
                for value in (np.amax(column.index).item(), np.amin(column.index).item()):
                    if not -size <= value < size:
                        raise IndexError(f"index {value} is out of bounds for dimension "
                                         f"{column.dim} with size {size}")
        shapes = [c.index.shape for c in columns]
        try:
            self.broadcast = np.broadcast_shapes(*shapes)
        except ValueError:
            raise IndexError("shape mismatch: indexing arrays could not be broadcast together "
                             "with shapes " + " ".join(str(s) for s in shapes)) from None
        indexed = {c.dim for c in columns}
        rest = [d for d in range(view.ndim) if d not in indexed]
        self.at = sum(1 for d in rest if d < columns[0].dim) if adjacent else 0
        self.after = len(rest) - self.at
        self.shape = (tuple(view.shape[d] for d in rest[:self.at]) + self.broadcast
                      + tuple(view.shape[d] for d in rest[self.at:]))
        strides = view.element_strides
        self.view_strides = (tuple(strides[d] for d in rest[:self.at])
                             + (0,) * len(self.broadcast)
                             + tuple(strides[d] for d in rest[self.at:]))

    def over_result(self, index):
        """An array of the broadcast shape's strides over the result shape."""
        return ((0,) * self.at + broadcast_strides(self.broadcast, index.shape,
                                                   index.element_strides) + (0,) * self.after)

    def launch(self, along_axis, at_offsets, view, out, values, what):
        """One gather or scatter launch over the result shape; with several columns, first
        fold them into offsets (one index_offsets launch each). ``out``: the gather's
        output (None for a scatter, whose target is ``view``); ``values``: the scatter's."""
        n = int(np.prod(self.shape, dtype=np.int64))
        if n == 0:
            return
        seam = view.device.seam
        if len(self.columns) == 1:
            column = self.columns[0]
            index = column.index
            name = kernel_name(along_axis, view.dtype)
            tail = (np.int64(view.element_strides[column.dim]),
                    np.int64(view.shape[column.dim]))
        else:
            index = self._offsets(view)
            name = kernel_name(at_offsets, view.dtype)
            tail = ()
        require_kernel(name, f"{what} of {view.dtype}")
        if out is not None:                 # gather: out, view, index
            operands = (out.raw, view.raw, index.raw)
            strides = [out.element_strides, self.view_strides, self.over_result(index)]
        else:                               # scatter: view, index, values
            v = values[0]
            operands = (view.raw, index.raw, v.raw)
            strides = [self.view_strides, self.over_result(index),
                       broadcast_strides(self.shape, v.shape, v.element_strides)]
        grid, block = elementwise_config(n, seam)
        seam.launch(name, grid, block,
                    (elementwise_layout(self.shape, strides), np.int64(n)) + operands + tail)

    def _offsets(self, view):
        """The columns folded into one int64 array of the broadcast shape: the element offset
        each position of it adds to the view's (NOTE [Several index arrays as one offset])."""
        offsets = empty(self.broadcast, np.int64, view.device)
        n = offsets.size
        if n == 0:
            return offsets
        seam = view.device.seam
        grid, block = elementwise_config(n, seam)
        for k, column in enumerate(self.columns):
            index = column.index
            layout = elementwise_layout(self.broadcast, [
                offsets.element_strides,
                broadcast_strides(self.broadcast, index.shape, index.element_strides)])
            seam.launch("index_offsets", grid, block,
                        (layout, np.int64(n), offsets.raw, index.raw,
                         np.int64(view.element_strides[column.dim]),
                         np.int64(view.shape[column.dim]), np.int32(k == 0)))
        return offsets


def _values_operand(values, array, shape):
    """``values`` as a DeviceArray of ``array``'s dtype that broadcasts to ``shape`` (leading
    size-1 dims beyond ``shape``'s are dropped, as NumPy's assignment does)."""
    if isinstance(values, DeviceArray):
        check_same_device(array, values)
        values = values.astype(array.dtype, copy=False)
        extra = values.ndim - len(shape)
        if extra > 0 and all(n == 1 for n in values.shape[:extra]):
            values = values.reshape(values.shape[extra:])
    elif np.ndim(values) == 0:
        number = values.item() if isinstance(values, (np.ndarray, np.generic)) else values
        values = empty((), array.dtype, array.device)
        values.fill(number)
    else:
        raise mixed_devices_error(f"cuda:{array.device.id}", "cpu")
    try:
        fits = np.broadcast_shapes(values.shape, shape) == shape
    except ValueError:
        fits = False
    if not fits:
        raise ValueError(f"shape mismatch: value array of shape {values.shape} could not be "
                         f"broadcast to indexing result of shape {shape}")
    return values


register_operations(take=take, put=put, nonzero=nonzero)
