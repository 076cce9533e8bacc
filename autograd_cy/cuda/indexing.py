"""Row gather, scatter and scatter-add of CUDA arrays: ``array[index]``,
``array[index] = values`` and ``np.add.at(array, index, values)`` for an integer ``index``
tensor that picks rows (entries along dim 0).

These are the kernels of cuda/indexing.cu seen from dim 0. Each takes one launch, strided:
no operand is copied to make it contiguous (a transposed or flipped ``array`` is read and
written in place through its strides), only an index of another integer dtype is cast to
int64 and a number ``values`` becomes a 0-d device array.

NOTE [Rows as an axis of the along-axis kernels]
The kernels of take_along_axis/put_along_axis already do the work of a row gather. They walk
an iteration shape through a Layout (NOTE [Layout] in cuda/common.cuh) in which ``array``'s
stride along one axis is 0, and add ``index[i] * axis_stride`` to the offset of position i.
For rows, the iteration shape is ``index.shape + array.shape[1:]`` (the result's shape):

- ``array`` steps 0 along the index's dims and its own strides along the row dims (its row
  0 is the base, the kernel adds ``index[i] * array.strides[0]``);
- ``index`` steps its own strides along its dims and 0 along the row dims (every element of
  a row reads the same index);
- the output (gather) or ``values`` (scatters, broadcast) step as usual.

So ``take_rows`` launches take_along_axis, ``put_rows`` put_along_axis, and ``add_rows``
add_along_axis, their accumulating twin (NOTE [Scatter-add with atomics] in the .cu file).

Repeated indices: ``add_rows`` adds every duplicate, as np.add.at does (the order of the
float additions is the hardware's, so the last bits may differ between runs). ``put_rows``
writes each element of each duplicate in a thread of its own: in each element one of the
writes wins, which one is not defined, and a row named twice may end up mixing the two
values element by element (NumPy keeps the last in index order; torch's CUDA index_put_
leaves it undefined too).
``values`` must not share memory with ``array`` in a scatter (NumPy copies such values
first; here threads would read rows others are writing).
"""
import numpy as np

from autograd_cy.cuda.array import (DeviceArray, _check_same_device, empty, kernel_name,
                                    mixed_devices_error, require_kernel)
from autograd_cy.cuda.launch import elementwise_config
from autograd_cy.cuda.layout import broadcast_strides, elementwise_layout


def take_rows(array, index):
    """``array[index]`` for an integer DeviceArray ``index`` (any shape) picking rows of
    ``array``: a new array of shape ``index.shape + array.shape[1:]``."""
    name = _kernel("take_along_axis", array, "take_rows (array[index])")
    index = _row_index(array, index)
    rows = array.shape[1:]
    shape = index.shape + rows
    out = empty(shape, array.dtype, array.device)
    _launch(name, array, shape, (out.raw, array.raw, index.raw),
            [out.element_strides, _pinned_strides(array, index), _index_strides(index, rows)])
    return out


def put_rows(array, index, values):
    """``array[index] = values``, in place: ``values`` (a DeviceArray or a number) broadcast
    to ``index.shape + array.shape[1:]`` and cast to ``array``'s dtype. In rows named more
    than once, each element gets one of the writes (which one is not defined, see the
    module docstring)."""
    _scatter("put_along_axis", array, index, values, "put_rows (array[index] = values)")


def add_rows(array, index, values):
    """``np.add.at(array, index, values)``, in place: every row named by ``index`` gets the
    matching entry of ``values`` (broadcast, cast to ``array``'s dtype) added, once per
    time it is named. float16/32/64 and int64 (the dtypes with an atomicAdd)."""
    _scatter("add_along_axis", array, index, values, "add_rows (np.add.at)")


# -------------------------------------------------------------------- shared steps

def _scatter(template, array, index, values, what):
    name = _kernel(template, array, what)
    index = _row_index(array, index)
    rows = array.shape[1:]
    shape = index.shape + rows
    values = _values_operand(values, array, shape)
    _launch(name, array, shape, (array.raw, index.raw, values.raw),
            [_pinned_strides(array, index), _index_strides(index, rows),
             broadcast_strides(shape, values.shape, values.element_strides)])


def _row_index(array, index):
    """The index as an int64 DeviceArray, checked: integer dtype, same device, every entry
    in [-len(array), len(array)). The bounds are checked on the device (two reductions, one
    number each back to the host), before any kernel could write out of bounds."""
    if not isinstance(index, DeviceArray):
        if isinstance(index, np.ndarray):
            raise mixed_devices_error(f"cuda:{array.device.id}", "cpu")
        raise TypeError(f"take_rows/put_rows/add_rows take a DeviceArray index, "
                        f"got {type(index).__name__}")
    _check_same_device(array, index)
    if index.dtype == np.bool_:
        raise NotImplementedError(
            "indexing a CUDA array with a bool mask (its True positions) is not implemented; "
            "integer index arrays are")
    if index.dtype.kind not in "iu":
        raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
    if array.ndim == 0:
        raise IndexError("too many indices for array: array is 0-dimensional, "
                         "but 1 were indexed")
    if index.dtype != np.int64:
        index = index.astype(np.int64)
    if index.size:
        size = array.shape[0]
        largest, smallest = np.amax(index).item(), np.amin(index).item()
        for value in (largest, smallest):
            if not -size <= value < size:
                raise IndexError(f"index {value} is out of bounds for dimension 0 "
                                 f"with size {size}")
    return index


def _values_operand(values, array, shape):
    """``values`` as a DeviceArray of ``array``'s dtype that broadcasts to ``shape``."""
    if isinstance(values, DeviceArray):
        _check_same_device(array, values)
        if values.dtype != array.dtype:
            values = values.astype(array.dtype)
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


def _pinned_strides(array, index):
    """``array``'s element strides over the iteration shape: 0 along the index's dims (the
    kernel adds index * stride of dim 0), its own along the row dims."""
    return (0,) * index.ndim + array.element_strides[1:]


def _index_strides(index, rows):
    """The index's element strides over the iteration shape: 0 along the row dims."""
    return index.element_strides + (0,) * len(rows)


def _kernel(template, array, what):
    """The kernel's name for ``array``'s dtype; a TypeError first when it has none."""
    if not isinstance(array, DeviceArray):
        raise TypeError(f"{what} takes a DeviceArray, got {type(array).__name__}")
    name = kernel_name(template, array.dtype)
    require_kernel(name, f"{what} of {array.dtype}")
    return name


def _launch(name, array, shape, operands, strides):
    """One launch over the iteration shape (NOTE [Rows as an axis of the along-axis
    kernels]); the kernel's last two arguments are the step and count of array's rows."""
    n = int(np.prod(shape, dtype=np.int64))
    if n == 0:
        return
    seam = array.device.seam
    grid, block = elementwise_config(n, seam)
    seam.launch(name, grid, block, (elementwise_layout(shape, strides), np.int64(n))
                + tuple(operands) + (np.int64(array.element_strides[0]),
                                     np.int64(array.shape[0])))
