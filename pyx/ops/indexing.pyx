# cython: allow_none_for_extension_args=False
"""Indexing: ``x[index]``, ``x[index] = value`` and index_put (index_select, gather,
masked_fill and their kin are in gather_scatter.pyx).

# NOTE [How x[index] works]
As in PyTorch, an index is applied in two steps. The *basic* entries (integers,
slices, None, Ellipsis) become a chain of view ops (select, slice, unsqueeze),
so ``x[1, :2]`` shares ``x``'s memory and records SelectBackward0 then
SliceBackward0. If *advanced* entries remain (integer or bool tensors, lists,
arrays), one ``index`` op then gathers the chosen elements into new memory
(IndexBackward0); its backward scatters the gradient back with accumulation,
since an element picked twice receives both gradients (``index_put`` with
``accumulate=True``, itself a recorded op, so double backward works).

``x[index] = value`` runs the same basic step, then writes ``value`` into the
view with ``copy_``/``fill_``, or with ``index_put_`` if advanced entries
remain. Both are in-place ops (apply_inplace): the version counter is bumped,
and when the target is a view the base's history becomes CopySlices.
"""
import warnings
from collections.abc import Sequence

import numpy as np
cimport numpy as cnp
cnp.import_array()

from autograd_cy._C.grad_mode cimport is_grad_enabled, forward_level
from autograd_cy._C.forward cimport forward1, forward2
from autograd_cy._C.dtype cimport from_numpy_dtype, scalar_name, check_convertible, kind_of
from autograd_cy._C.tensor cimport (
    Tensor, make_tensor, requires_grad, array_module, tensor_operators,
    TensorOperators,
)
from autograd_cy._C.device cimport contiguous_array
from autograd_cy._C.node cimport Node
from autograd_cy._C.saved_tensor cimport SavedTensor
from autograd_cy._C.recording cimport record1, record
from autograd_cy._C.promotion cimport wrap, is_complex_array
from autograd_cy._C.views cimport apply_inplace
from autograd_cy._C.overlap cimport warn_if_expanded, check_no_overlap, has_internal_overlap
from autograd_cy._C.ops.conversion cimport copy_like
from autograd_cy._C.ops.gather_scatter cimport masked_fill_overlap_checks, tangent_or_zeros
from autograd_cy._C.ops.inplace import copy_, fill_
from autograd_cy._C.ops.shape cimport alias, select_unchecked, slice_unchecked
from autograd_cy._C.ops.shape import unsqueeze, view, expand

__all__ = ["getitem", "setitem", "index_put", "index_put_"]
__tensor_methods__ = ("index_put", "index_put_")

cdef object INT64 = np.dtype(np.int64)
cdef Py_ssize_t MAX_INDEX = (1 << 62)

_SEQUENCE_WARNING = (
    "Using a non-tuple sequence for multidimensional indexing is deprecated and will be changed "
    "in pytorch 2.9; use x[tuple(seq)] instead of x[seq]. In pytorch 2.9 this will be "
    "interpreted as tensor index, x[torch.tensor(seq)], which will result either in an error "
    "or a different result")


# ------------------------------------------------------------------ parsing an index

cdef tuple index_tuple(object index):
    """The entries of an index: ``x[a, b]`` is the tuple ``(a, b)``, ``x[a]`` is ``(a,)``.

    A list holding slices, None, Ellipsis or sequences still means a tuple in
    PyTorch 2.13 (NumPy's old rule), with a deprecation warning.
    """
    if type(index) is tuple:
        return index
    if type(index) is list and len(index) < 32:
        for item in index:
            if (item is None or item is Ellipsis or isinstance(item, slice)
                    or isinstance(item, (list, tuple, range, Tensor))):
                warnings.warn(_SEQUENCE_WARNING, UserWarning, stacklevel=3)
                return tuple(index)
    return (index,)


cdef object index_entry(object item):
    """An index entry as int, slice, None, Ellipsis, bool, or an int64/bool array."""
    if item is None or item is Ellipsis or type(item) is slice or type(item) is bool:
        return item
    if isinstance(item, int) or isinstance(item, np.integer):
        return int(item)
    if isinstance(item, Tensor):
        array = (<Tensor>item)._data
    elif isinstance(item, (list, tuple, cnp.ndarray, np.bool_, range)) or (
            isinstance(item, Sequence) and not isinstance(item, (str, bytes))):
        array = np.asarray(item)          # any sequence is a tensor index (x[range(n), y])
        if array.size == 0 and kind_of(array.dtype) == "f":
            array = array.astype(INT64)          # x[[]] selects nothing
    else:
        raise IndexError("only integers, slices (`:`), ellipsis (`...`), None and long or byte "
                         f"Variables are valid indices (got {type(item).__name__})")
    kind = array.dtype.kind
    if kind not in "biu":
        raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
    if array.dtype == np.uint8:
        warnings.warn("indexing with dtype torch.uint8 is now deprecated, please use a dtype "
                      "torch.bool instead.", UserWarning, stacklevel=3)
        array = array.astype(np.bool_)
        kind = "b"
    if array.ndim == 0:
        return bool(array) if kind == "b" else int(array)
    return array if kind == "b" else array.astype(INT64, copy=False)


cdef Py_ssize_t dims_used(object entry):
    if entry is None or entry is Ellipsis or type(entry) is bool:
        return 0
    if isinstance(entry, cnp.ndarray) and entry.dtype.kind == "b":
        return entry.ndim
    return 1


cdef Tensor select_index(Tensor self, Py_ssize_t dim, Py_ssize_t index):
    """``x[..., index]`` at ``dim``, with the error text of indexing."""
    cdef Py_ssize_t size = self._data.shape[dim]
    if index < -size or index >= size:
        raise IndexError(f"index {index} is out of bounds for dimension {dim} with size {size}")
    return select_unchecked(self, dim, index + size if index < 0 else index)


cdef Tensor slice_index(Tensor self, Py_ssize_t dim, object entry, bint skip_full):
    """``x[..., start:stop:step]`` at ``dim``; ``self`` itself when it covers the whole dim
    and ``skip_full`` (PyTorch's shortcut inside a tuple index)."""
    cdef Py_ssize_t size = self._data.shape[dim]
    cdef Py_ssize_t start, stop, step
    step = 1 if entry.step is None else entry.step
    if step == 0:
        raise ValueError("slice step cannot be zero")
    if step < 0:
        raise ValueError("step must be greater than zero")
    start = 0 if entry.start is None else entry.start
    stop = MAX_INDEX if entry.stop is None else entry.stop
    if skip_full and start == 0 and stop >= size and step == 1:
        return self
    if start < 0:
        start = max(start + size, 0)
    if stop < 0:
        stop += size
    start = min(start, size)
    stop = min(max(stop, start), size)
    return slice_unchecked(self, dim, start, stop, step)


cdef tuple apply_basic(Tensor self, tuple items, bint skip_full):
    """Apply the basic entries as views; return ``(view, advanced)`` where ``advanced``
    is None or, per dim of the view, None or the int64 array indexing that dim."""
    cdef Py_ssize_t ndim = self._data.ndim
    cdef Py_ssize_t specified = 0, dim = 0, k
    cdef Tensor result = self
    cdef list entries = [index_entry(item) for item in items]
    cdef list advanced = []                 # (dim, int64 array) pairs
    for entry in entries:
        specified += dims_used(entry)
    if specified > ndim:
        if ndim == 0 and type(entries[0]) is int:
            raise IndexError(
                "invalid index of a 0-dim tensor. Use `tensor.item()` in Python or "
                "`tensor.item<T>()` in C++ to convert a 0-dim tensor to a number")
        if ndim == 0 and type(entries[0]) is slice:
            raise IndexError("slice() cannot be applied to a 0-dim tensor.")
        raise IndexError(f"too many indices for tensor of dimension {ndim}")
    for entry in entries:
        if type(entry) is int:
            result = select_index(result, dim, entry)
        elif type(entry) is slice:
            result = slice_index(result, dim, entry, skip_full)
            dim += 1
        elif entry is None:
            result = unsqueeze(result, dim)
            dim += 1
        elif entry is Ellipsis:
            dim += ndim - specified
        elif type(entry) is bool:
            # x[True] is x[None][[0]], x[False] is x[None][[]].
            result = unsqueeze(result, dim)
            advanced.append((dim, np.zeros(1 if entry else 0, dtype=INT64)))
            dim += 1
        elif entry.dtype.kind == "b":
            check_mask_shape(entry, result, dim)
            for k, positions in enumerate(np.nonzero(entry)):
                advanced.append((dim + k, positions))
            dim += entry.ndim
        else:
            advanced.append((dim, entry))
            dim += 1
    if not advanced:
        return result, None
    cdef list per_dim = [None] * result._data.ndim
    for k, positions in advanced:
        per_dim[k] = positions
    return result, per_dim


cdef void check_mask_shape(object mask, Tensor target, Py_ssize_t dim) except *:
    shape = target._data.shape
    for k in range(mask.ndim):
        if dim + k >= len(shape) or mask.shape[k] != shape[dim + k]:
            raise IndexError(
                f"The shape of the mask {list(mask.shape)} at index {k} does not match the "
                f"shape of the indexed tensor {list(shape)} at index {dim + k}")


cdef tuple resolve_indices(Tensor self, object indices):
    """``index_put``'s tuple of index tensors (None, integer or bool) as per-dim arrays."""
    cdef list per_dim = []
    for item in indices:
        if item is None:
            per_dim.append(None)
            continue
        entry = index_entry(item)
        if type(entry) is int:
            entry = np.asarray(entry, dtype=INT64)
        elif type(entry) is bool:
            raise IndexError("index_put does not take a 0-dim bool index")
        if entry.dtype.kind == "b":
            check_mask_shape(entry, self, len(per_dim))
            per_dim.extend(np.nonzero(entry))
        else:
            per_dim.append(entry)
    if len(per_dim) > self._data.ndim:
        raise IndexError(f"too many indices for tensor of dimension {self._data.ndim}")
    return tuple(per_dim)


cdef tuple numpy_index(tuple indices):
    return tuple([slice(None) if a is None else a for a in indices])


cdef tuple check_indices(Tensor self, tuple indices):
    """Broadcasting, then bounds, of per-dim index arrays (PyTorch's order); the shape
    of ``self[indices]``."""
    target = indexed_shape(self, indices)
    check_bounds(self, indices)
    return target


cdef tuple indexed_shape(Tensor self, tuple indices):
    """The shape of ``self[indices]``, with PyTorch's error when the index arrays do not
    broadcast; bounds are not checked."""
    cdef list shapes = []
    cdef list dims = []
    shape = self._data.shape
    for d, positions in enumerate(indices):
        if positions is not None:
            shapes.append(positions.shape)
            dims.append(d)
    try:
        broadcast = np.broadcast_shapes(*shapes)
    except ValueError:
        raise IndexError("shape mismatch: indexing tensors could not be broadcast together with "
                         "shapes " + ", ".join(str(list(s)) for s in shapes)) from None
    rest = [n for d, n in enumerate(shape) if d not in dims]
    if dims[-1] - dims[0] + 1 == len(dims):
        # Adjacent indexed dims: the result's indexed dims stay where they were.
        return tuple(rest[:dims[0]]) + broadcast + tuple(rest[dims[0]:])
    return broadcast + tuple(rest)


cdef void check_bounds(Tensor self, tuple indices) except *:
    cdef Py_ssize_t position = 0
    shape = self._data.shape
    for d, positions in enumerate(indices):
        if positions is None:
            continue
        size = shape[d]
        if positions.size:
            low, high = int(positions.min()), int(positions.max())   # read back (CUDA too)
            if high >= size or low < -size:
                bad = high if high >= size else low
                # PyTorch counts the indexed dims only, in order.
                raise IndexError(f"index {bad} is out of bounds for dimension {position} with "
                                 f"size {size}")
        position += 1


cdef tuple index_tensors(tuple indices):
    """The per-dim index arrays as tensors, to save (PyTorch saves ``indices``: a second
    backward through index or index_put then finds them freed)."""
    return tuple([None if a is None else make_tensor(a) for a in indices])


cdef tuple unpack_indices(Node node):
    """The per-dim index arrays ``node`` saved as its ``saved_tensors``."""
    return tuple([None if saved is None else (<SavedTensor>saved).unpack_array(node)
                  for saved in node.saved_tensors])


# ------------------------------------------------------------------ x[index]

cdef class IndexBackward0(Node):
    """Saves its indices, one SavedTensor (or None) per dim, as ``saved_tensors``."""
    cdef readonly tuple saved_self_sym_sizes

    @property
    def saved_indices(self):
        return self.saved_tensors

    complex_formulas = True     # linear: it only moves the gradient's elements
    cpdef tuple apply(self, tuple grads):
        cdef Tensor grad = grads[0]
        indices = unpack_indices(self)
        xp = array_module(grad._data)
        zeros = make_tensor(xp.zeros(self.saved_self_sym_sizes, dtype=grad._data.dtype))
        return (index_put_unchecked(zeros, indices, grad, True),)


cdef Tensor index_unchecked(Tensor self, tuple indices):
    """``self[indices]`` for per-dim index arrays already checked (a copy, contiguous as
    torch allocates it: NumPy lays out an ``[..., i, j]`` result in its own order, and a
    ``view`` or a later ``contiguous()`` alias of it would differ)."""
    cdef IndexBackward0 node
    cdef Tensor out = wrap(contiguous_array(self._data[numpy_index(indices)]))
    if is_grad_enabled() and requires_grad(self):
        node = IndexBackward0()
        node.saved_self_sym_sizes = self._data.shape
        record1(node, self, out, index_tensors(indices))
    if forward_level():
        forward1(out, self, index_tangent, (indices,))
    return out


cdef object index_tangent(Tensor self_t, Tensor self, Tensor result, tuple extra):
    """``self_t[indices]``: indexing is linear (NOTE [Tangents of index ops])."""
    return index_unchecked(self_t, extra[0])


def getitem(Tensor self, index):
    """``self[index]``: basic indexing returns a view, advanced indexing a copy."""
    cdef type kind = type(index)
    if kind is int:
        if self._data.ndim == 0:
            apply_basic(self, (index,), False)      # raises PyTorch's 0-dim error
        return select_index(self, 0, index)
    if kind is slice:
        if self._data.ndim == 0:
            apply_basic(self, (index,), False)
        return slice_index(self, 0, index, False)
    if index is None:
        return unsqueeze(self, 0)
    if index is Ellipsis:
        return alias(self)
    result, advanced = apply_basic(self, index_tuple(index), True)
    if advanced is None:
        return alias(self) if result is self else result
    check_indices(result, tuple(advanced))
    return index_unchecked(result, tuple(advanced))


# ------------------------------------------------------------------ index_put

cdef class IndexPutBackward0(Node):
    """Saves its indices as IndexBackward0 does."""
    cdef readonly bint saved_accumulate

    @property
    def saved_indices(self):
        return self.saved_tensors

    complex_formulas = True     # linear: it only moves the gradient's elements
    cpdef tuple apply(self, tuple grads):
        cdef Tensor grad = grads[0]
        indices = unpack_indices(self)
        self_grad = values_grad = None
        if self.should_compute_output(0):
            if self.saved_accumulate:
                self_grad = grad
            else:
                # Overwritten elements did not reach the output.
                zero = make_tensor(array_module(grad._data).zeros((), dtype=grad._data.dtype))
                self_grad = index_put_unchecked(grad, indices, zero, False)
        if self.should_compute_output(1):
            values_grad = index_unchecked(grad, indices)
        return (self_grad, values_grad)


cdef Tensor index_put_unchecked(Tensor self, tuple indices, Tensor values, bint accumulate,
                                bint into_self=False):
    """A copy of ``self`` with ``values`` written (or added) at ``indices``.
    ``into_self``: write into ``self``'s own memory first, and copy that (NOTE [Writing
    into an expand] in views.pyx)."""
    cdef IndexPutBackward0 node
    np_index = numpy_index(indices)
    # a copy laid out as clone's (PyTorch's index_put is clone then index_put_)
    array = self._data if into_self else copy_like(self._data)
    if accumulate:
        np.add.at(array, np_index, values._data)
    else:
        array[np_index] = values._data
    if into_self:
        array = array.copy()
    cdef Tensor out = wrap(array)
    if is_grad_enabled() and (requires_grad(self) or requires_grad(values)):
        node = IndexPutBackward0()
        node.saved_accumulate = accumulate
        record(node, (self, values), (out,), index_tensors(indices))
    if forward_level():
        forward2(out, self, values, index_put_tangent, (indices, accumulate))
    return out


cdef object index_put_tangent(self_t, values_t, self, values, Tensor result, tuple extra):
    """``index_put(self_t, indices, values_t, accumulate)``, a missing tangent zero."""
    indices, accumulate = extra
    return index_put_unchecked(tangent_or_zeros(self_t, self), indices,
                               tangent_or_zeros(values_t, values), accumulate)


cdef void check_index_put(Tensor self, tuple indices, Tensor values) except *:
    """index_put's checks, in PyTorch's order: the index arrays broadcast, the value fits
    the indexed shape, the dtypes match; the bounds last (its kernel checks them)."""
    target = indexed_shape(self, indices)
    try:
        fits = np.broadcast_shapes(values._data.shape, target) == target
    except ValueError:
        fits = False
    if not fits:
        raise RuntimeError(
            f"shape mismatch: value tensor of shape {list(values._data.shape)} cannot be "
            f"broadcast to indexing result of shape {list(target)}")
    if values._data.dtype != self._data.dtype:
        raise RuntimeError(
            f"Index put requires the source and destination dtypes match, got "
            f"{scalar_name(self._data.dtype)} for the destination and "
            f"{scalar_name(values._data.dtype)} for the source.")
    check_bounds(self, indices)


# NOTE [index_put_ as masked_fill_]
# PyTorch's index_put_ (without accumulate) runs as ``masked_fill_(mask, values.item())``
# when ``values`` has one element and the only index tensor is one bool (or uint8) mask.
# That path reads the value once, as a number, so it converts the value to ``self``'s
# dtype (x[mask] = torch.tensor(1.0, dtype=torch.float64) writes into a float32 x) and
# ignores its shape, where every other index_put_ refuses a value of another dtype or
# shape. The graph is the same either way: IndexPutBackward0, whose gradient for the
# value the engine sums and casts back to the value's shape and dtype.

cdef object mask_of(tuple items, Tensor values, bint accumulate):
    """The mask, as a tensor, when index_put_ runs as masked_fill_ (NOTE [index_put_ as
    masked_fill_]); else None. Ints, slices, None and ``...`` do not count as index tensors."""
    cdef Tensor mask = None
    if accumulate or values._data.size != 1:
        return None
    for item in items:
        if (item is None or item is Ellipsis or type(item) is slice or type(item) is bool
                or isinstance(item, (int, np.integer))):
            continue
        if mask is not None:
            return None
        mask = item if isinstance(item, Tensor) else make_tensor(np.asarray(item))
        if mask._data.dtype.kind != "b" and mask._data.dtype != np.uint8:
            return None
    return mask


def index_put(Tensor self, indices, Tensor values, accumulate=False):
    """A copy of ``self`` with ``values`` put at ``self[indices]`` (added if ``accumulate``)."""
    cdef tuple per_dim = resolve_indices(self, indices)
    if mask_of(tuple(indices), values, accumulate) is None:
        check_index_put(self, per_dim, values)
    return index_put_unchecked(self, per_dim, values, accumulate)


cdef void index_put_overlap_checks(Tensor self, tuple others) except *:
    """index_put_ only warns about an ``expand`` (deprecated), but its values and index
    tensors (``others``) may share no memory with ``self`` at all."""
    warn_if_expanded(self, "index_put_", "tensor[indices] = tensor")
    for other in others:
        check_no_overlap(self, other)


cdef void index_put_as_masked_fill_checks(Tensor self, tuple others) except *:
    """index_put_'s warning, then masked_fill_'s checks; ``others``: (values, mask)."""
    warn_if_expanded(self, "index_put_", "tensor[indices] = tensor")
    masked_fill_overlap_checks(self, others)


cdef Tensor index_put_inplace(Tensor self, tuple indices, Tensor values, bint accumulate,
                              tuple items):
    """``self[items] = values`` where ``indices`` are ``items`` resolved per dim."""
    mask = mask_of(items, values, accumulate)
    if mask is not None:
        if is_complex_array(values._data) and not is_complex_array(self._data):
            # masked_fill_ reads the value as a number: one with an imaginary part does not
            # convert to a real dtype, one without converts quietly
            check_convertible(values.item(), self._data.dtype, True)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", np.exceptions.ComplexWarning)
                return apply_inplace(
                    self, lambda source: index_put_unchecked(source, indices, values, False,
                                                             has_internal_overlap(source)),
                    (values, mask), False, None, None, index_put_as_masked_fill_checks)
        return apply_inplace(
            self, lambda source: index_put_unchecked(source, indices, values, False,
                                                     has_internal_overlap(source)),
            (values, mask), False, None, None, index_put_as_masked_fill_checks)

    def compute(Tensor source):
        check_index_put(source, indices, values)
        return index_put_unchecked(source, indices, values, accumulate,
                                   has_internal_overlap(source))
    others = (values,) + tuple([item for item in items if isinstance(item, Tensor)])
    return apply_inplace(self, compute, others, False, None, None, index_put_overlap_checks)


def index_put_(Tensor self, indices, Tensor values, accumulate=False):
    """In-place ``index_put``."""
    return index_put_inplace(self, resolve_indices(self, indices), values, accumulate,
                             tuple(indices))


# ------------------------------------------------------------------ x[index] = value

cdef void copy_to(Tensor target, Tensor value) except *:
    """Write ``value`` into ``target``, broadcasting, as PyTorch's setitem does."""
    shape = target._data.shape
    if value._data.shape == shape:
        copy_(target, value)
    elif value._data.ndim == 0:
        fill_(target, value)
    else:
        copy_(target, expand(strip_leading_ones(value), shape))


cdef Tensor strip_leading_ones(Tensor value):
    """``value`` without its leading size-1 dims (a (1, 3) value fits a (3,) slot)."""
    shape = value._data.shape
    cdef Py_ssize_t k = 0
    while k < len(shape) and shape[k] == 1:
        k += 1
    return view(value, shape[k:]) if k else value


def setitem(Tensor self, index, value):
    """``self[index] = value``: an in-place write that autograd records."""
    cdef Tensor source
    cdef type kind = type(index)
    if isinstance(value, Tensor):
        source = value
    elif isinstance(value, (int, float, np.number, np.bool_)):
        source = make_tensor(np.asarray(value, dtype=self._data.dtype))
    elif isinstance(value, complex):
        # a real tensor takes a complex number whose imaginary part is 0, as fill_ does
        check_convertible(value, self._data.dtype, True)
        source = make_tensor(np.asarray(value if self._data.dtype.kind == "c" else value.real,
                                        dtype=self._data.dtype))
    else:
        kind = type(value)
        name = kind.__name__ if kind.__module__ == "builtins" else (
            f"{kind.__module__}.{kind.__name__}")
        raise TypeError(f"can't assign a {name} to a autograd_cy."
                        f"{from_numpy_dtype(self._data.dtype)._tensor_type}")
    if kind is int and self._data.ndim:
        copy_to(select_index(self, 0, index), source)
        return
    if kind is slice and self._data.ndim:
        copy_to(slice_index(self, 0, index, True), source)
        return
    if index is None:
        copy_to(unsqueeze(self, 0), source)
        return
    if index is Ellipsis:
        copy_to(self, source)
        return
    cdef tuple items = index_tuple(index)
    target, advanced = apply_basic(self, items, True)
    if advanced is None:
        copy_to(target, source)
        return
    if source._data.ndim:
        source = strip_leading_ones(source)
    index_put_inplace(target, tuple(advanced), source, False, items)


# The Tensor operators (NOTE [How Tensor gets its methods] in tensor.pyx).

cdef object getitem_op(object self, object index):
    return getitem(self, index)


cdef object setitem_op(object self, object index, object value):
    setitem(self, index, value)
    return None


cdef TensorOperators* operators = tensor_operators()
operators.getitem = getitem_op
operators.setitem = setitem_op


# NOTE [Complex tangents] in forward.pyx: these formulas are checked for complex tensors.
from autograd_cy._C.forward cimport complex_unary, complex_binary
complex_unary(index_tangent)
complex_binary(index_put_tangent)
