# cython: allow_none_for_extension_args=False
"""Picking or writing elements by an index tensor along one dim (index_select and
index_add, gather, scatter and scatter_add, with the in-place forms index_add_, scatter_ and
scatter_add_) or by a bool mask (masked_fill).

Each pair is the other's backward: the gradient of ``index_select`` is an ``index_add``
into zeros, the gradient of ``gather`` a ``scatter_add`` into zeros (and the other way
round), so double backward works. An index picked twice adds both gradients (``np.add.at``,
never a plain assignment).

The index tensor is a saved tensor (``saved_tensors``, read back as ``_saved_index``) as in
PyTorch, version-checked and freed after backward, saved only where a needed gradient reads it
(index_add's and scatter_add's only for ``source``/``src``). So is what backward reads
otherwise (gather's input, for its shape; index_add's source; masked_fill's mask).
"""
import numpy as np

from autograd_cy._C.grad_mode cimport is_grad_enabled, forward_level
from autograd_cy._C.forward cimport forward1, forward2
from autograd_cy._C.device cimport contiguous_array
from autograd_cy._C.dtype cimport scalar_name, c10_name
from autograd_cy._C.tensor cimport (
    Tensor, make_tensor, requires_grad, array_module,
)
from autograd_cy._C.tensor cimport wrap_dim
from autograd_cy._C.node cimport Node, unpack_saved
from autograd_cy._C.recording cimport record1, record, gets_gradient
from autograd_cy._C.promotion cimport wrap
from autograd_cy._C.views cimport apply_inplace
from autograd_cy._C.overlap cimport (
    warn_if_expanded, check_no_partial_overlap, has_internal_overlap,
)
from autograd_cy._C.ops.shape cimport leading
from autograd_cy._C.ops.conjugate cimport conj_of
from autograd_cy._C.ops.selection import where
from autograd_cy._C.ops.arithmetic import mul

__all__ = ["index_select", "index_add", "gather", "scatter", "scatter_add", "masked_fill"]
__tensor_methods__ = ("index_select", "index_add", "index_add_", "gather", "scatter",
                      "scatter_", "scatter_add", "scatter_add_", "masked_fill", "masked_fill_")


# NOTE [Tangents of index ops]
# Every op here is linear in its float inputs, so its tangent is the op itself applied to
# the tangents (a missing tangent is zero): ``index_select(self_t, dim, index)``,
# ``index_add(self_t, dim, index, source_t)``, ``masked_fill(self_t, mask, value_t)``...

# NOTE [A 0-dim tensor as one element]
# PyTorch's index kernels read a 0-dim self, index or src as a vector of one element
# (ATen's ensure_nonempty_dim and ensure_nonempty_size): dim 0 and -1 name it, index 0
# picks it, and a rank check compares ``max(dim, 1)``. The output keeps the shape it has
# in PyTorch: gather's the index's, the scatters' and index_add's self's. Here the arrays
# are reshaped to one element (``one_element``, a view), the kernel runs, and the result
# is read back in its own shape.

cdef object one_element(object array):
    """``array``, or a 1-element view of it where it is 0-dim (NOTE [A 0-dim tensor as one
    element])."""
    return array if array.ndim else array.reshape(1)


cdef object tangent_or_zeros(object tangent, Tensor primal):
    """``tangent``, or zeros shaped as ``primal`` where it has none."""
    if tangent is not None:
        return tangent
    return make_tensor(array_module(primal._data).zeros_like(primal._data))


# ------------------------------------------------------------------ index_select / index_add

cdef object index_vector(Tensor index, str op):
    array = index._data
    if array.dtype != np.int64 and array.dtype != np.int32:
        if op == "index_add_":      # its own check, which names the dtype
            raise RuntimeError(f"index_add_(): Expected dtype int32/int64 for index but got: "
                               f"{scalar_name(array.dtype)}")
        raise RuntimeError(f"{op}(): Expected dtype int32 or int64 for index")
    if array.ndim > 1:
        raise IndexError(f"{op}(): Index is supposed to be a vector")
    return array.reshape(-1)


cdef class IndexSelectBackward0(Node):
    saved_names = ("index",)
    cdef readonly Py_ssize_t saved_dim
    cdef readonly tuple saved_self_sym_sizes

    complex_formulas = True     # linear: it only moves the gradient's elements
    cpdef tuple apply(self, tuple grads):
        cdef Tensor grad = grads[0]
        index = unpack_saved(self, 0)
        xp = array_module(grad._data)
        zeros = make_tensor(xp.zeros(self.saved_self_sym_sizes, dtype=grad._data.dtype))
        return (index_add(zeros, self.saved_dim, index, grad),)


def index_select(Tensor self, dim, Tensor index):
    """The entries ``index`` (a vector) of dim ``dim``, in that order (a copy)."""
    cdef IndexSelectBackward0 node
    positions = index_vector(index, "index_select")
    cdef Py_ssize_t d = wrap_dim(dim, self._data.ndim)
    size = self._data.shape[d] if self._data.ndim else 1
    if self._data.ndim == 0 and positions.size != 1:
        raise RuntimeError(f"index_select(): Index to scalar can have only 1 value, got "
                           f"{positions.size} value(s)")
    if positions.size and (positions.min() < 0 or positions.max() >= size):
        raise IndexError("index out of range in self")
    if self._data.ndim == 0:
        out = wrap(self._data.copy())
    else:
        out = wrap(np.take(self._data, positions, axis=d))
    if is_grad_enabled() and requires_grad(self):
        node = IndexSelectBackward0()
        node.saved_dim = d
        node.saved_self_sym_sizes = self._data.shape
        record1(node, self, out, (index,))
    if forward_level():
        forward1(out, self, index_select_tangent, (d, index))
    return out


cdef object index_select_tangent(Tensor self_t, Tensor self, Tensor result, tuple extra):
    """``index_select(self_t, dim, index)``, ``extra`` ``(dim, index)``."""
    return index_select(self_t, *extra)


cdef class IndexAddBackward0(Node):
    """Saves index and source (whose shape the gradient takes) only if source needs one."""
    saved_names = ("index", "source")
    cdef readonly Py_ssize_t saved_dim
    cdef readonly object saved_alpha

    complex_formulas = True     # linear: it only moves the gradient's elements (alpha conjugated)
    cpdef tuple apply(self, tuple grads):
        grad = grads[0]
        source_grad = None
        if self.should_compute_output(1):
            source_grad = index_select(grad, self.saved_dim, unpack_saved(self, 0))
            if self.saved_alpha != 1:
                source_grad = mul(source_grad, conj_of(self.saved_alpha))
        return (grad if self.should_compute_output(0) else None, source_grad)


# NOTE [index_add of the half types]
# torch's CPU index_add takes one of two kernels. A tensor of two or more dims, added along its
# first or last dim with alpha 1 and int64 indices, from a source of its sizes but that dim,
# goes through scatter_add, which sums a float16 or bfloat16 destination in float32 and rounds
# once; anything else adds slice by slice in the type itself, rounding after each addition.
# The two differ by several units in the last place where indices repeat (index_select's
# backward: three gradients into one bfloat16 entry), so index_add takes the same branch.
cdef bint sums_in_float32(object array, object src, Py_ssize_t d, object alpha,
                          Tensor index) except -1:
    if type(array) is not np.ndarray or array.dtype.itemsize != 2 or array.ndim < 2:
        return False
    if array.dtype.kind not in "fV":       # float16, bfloat16 (NOTE [bfloat16's kind])
        return False
    if (d != 0 and d != array.ndim - 1) or alpha != 1 or index._data.dtype != np.int64:
        return False
    return all(src.shape[k] == array.shape[k] for k in range(array.ndim) if k != d)


def index_add(Tensor self, dim, Tensor index, Tensor source, *, alpha=1):
    """A copy of ``self`` with ``alpha * source`` added at entries ``index`` of dim ``dim``."""
    cdef IndexAddBackward0 node
    positions = index_vector(index, "index_add_")
    cdef Py_ssize_t d = wrap_dim(dim, self._data.ndim)
    src = one_element(source._data)
    if positions.size != (src.shape[d] if src.ndim > d else 1):
        raise RuntimeError(
            f"index_add_(): Number of indices ({positions.size}) should be equal to "
            f"source.size(dim): ({src.shape[d]}), for dim: {d}")
    if source._data.dtype != self._data.dtype:
        raise RuntimeError(f"index_add_(): self ({scalar_name(self._data.dtype)}) and source "
                           f"({scalar_name(source._data.dtype)}) must have the same scalar type")
    shape = self._data.shape
    if source._data.ndim != self._data.ndim or any(
            src.shape[k] != shape[k] for k in range(src.ndim) if k != d):
        raise RuntimeError(
            "source tensor shape must match self tensor shape, excluding the specified "
            f"dimension. Got self.shape = {list(shape)} source.shape = "
            f"{list(source._data.shape)}")
    array = self._data.copy()
    target = one_element(array)     # NOTE [A 0-dim tensor as one element]
    if positions.size and (positions.min() < 0 or positions.max() >= target.shape[d]):
        raise IndexError("index out of range in self")
    if sums_in_float32(array, src, d, alpha, index):
        total = array.astype(np.float32)
        np.add.at(total, leading(d, positions), src.astype(np.float32))
        array[...] = total          # rounded once
    else:
        np.add.at(target, leading(d, positions), src if alpha == 1 else alpha * src)
    cdef Tensor out = wrap(array)
    if is_grad_enabled() and (requires_grad(self) or requires_grad(source)):
        node = IndexAddBackward0()
        node.saved_dim = d
        node.saved_alpha = alpha
        record(node, (self, source), (out,),
               (index, source) if gets_gradient(source) else (None, None))
    if forward_level():
        forward2(out, self, source, index_add_tangent, (d, index, alpha))
    return out


cdef object index_add_tangent(self_t, source_t, self, source, Tensor result, tuple extra):
    """``index_add(self_t, dim, index, source_t, alpha=alpha)``."""
    dim, index, alpha = extra
    return index_add(tangent_or_zeros(self_t, self), dim, index,
                     tangent_or_zeros(source_t, source), alpha=alpha)


# ------------------------------------------------------------------ gather / scatter_add

cdef object index_grid(object index, Py_ssize_t dim):
    """The NumPy index that addresses ``t[..., index[i][j], ...]`` element by element."""
    grid = list(np.indices(index.shape, sparse=True))
    grid[dim] = index
    return tuple(grid)


# NOTE [An empty index]
# gather and scatter_add with an index of no elements read and write nothing, and PyTorch
# checks nothing of that index: not its dtype (``torch.tensor([[]])`` is float32), not its
# rank, not its sizes against self's or src's. gather returns an empty tensor of the
# index's shape, scatter_add a copy of self. What does not concern the index (dim, the
# dtypes of self and src) is still checked.

cdef void check_index_dtype(Tensor index, str op) except *:
    """The index's dtype, unless it is empty (NOTE [An empty index])."""
    dtype = index._data.dtype
    if index._data.size and dtype != np.int64 and dtype != np.int32:
        raise RuntimeError(f"{op}(): Expected dtype int32/int64 for index")


cdef void check_index_rank(Tensor self, Tensor index, str name) except *:
    # max(dim, 1): NOTE [A 0-dim tensor as one element]
    if max(index._data.ndim, 1) != max(self._data.ndim, 1):
        raise RuntimeError(f"Index tensor must have the same number of dimensions as {name} "
                           f"tensor")


cdef void check_index_bounds(Tensor self, Py_ssize_t dim, object array) except *:
    """Every index within ``self``'s size along ``dim`` (the kernel's check, the last)."""
    size = self._data.shape[dim] if self._data.ndim else 1
    low, high = int(array.min()), int(array.max())       # read back (CUDA too)
    if low < 0 or high >= size:
        raise RuntimeError(f"index {low if low < 0 else high} is out of bounds for "
                           f"dimension {dim} with size {size}")


cdef class GatherBackward0(Node):
    saved_names = ("self", "index")
    cdef readonly Py_ssize_t saved_dim
    cdef readonly bint saved_sparse_grad

    complex_formulas = True     # linear: it only moves the gradient's elements (alpha conjugated)
    cpdef tuple apply(self, tuple grads):
        cdef Tensor grad = grads[0]
        cdef Tensor input = unpack_saved(self, 0)
        xp = array_module(grad._data)
        zeros = make_tensor(xp.zeros(input._data.shape, dtype=grad._data.dtype))
        return (scatter_add(zeros, self.saved_dim, unpack_saved(self, 1), grad),)


def gather(Tensor self, dim, Tensor index, *, sparse_grad=False):
    """``out[i][j] = self[index[i][j]][j]`` (for ``dim=0``): values picked along ``dim``."""
    cdef GatherBackward0 node
    cdef Py_ssize_t d = wrap_dim(dim, self._data.ndim)
    cdef Tensor out
    check_index_dtype(index, "gather")
    array = index._data
    if array.size == 0:         # NOTE [An empty index]
        out = wrap(array_module(self._data).empty(array.shape, dtype=self._data.dtype))
    else:
        check_index_rank(self, index, "input")
        shape = self._data.shape
        for k in range(array.ndim):
            if k != d and array.shape[k] > shape[k]:
                raise RuntimeError(
                    f"Size does not match at dimension {k} expected index {list(array.shape)} "
                    f"to be no larger than self {list(shape)} apart from dimension {d}")
        check_index_bounds(self, d, array)
        picked = one_element(self._data)[index_grid(one_element(array), d)]
        out = wrap(picked.reshape(array.shape) if array.ndim == 0 else picked)
    if is_grad_enabled() and requires_grad(self):
        node = GatherBackward0()
        node.saved_dim = d
        node.saved_sparse_grad = sparse_grad
        record1(node, self, out, (self, index))
    if forward_level():
        forward1(out, self, gather_tangent, (d, index))
    return out


cdef object gather_tangent(Tensor self_t, Tensor self, Tensor result, tuple extra):
    """``gather(self_t, dim, index)``, ``extra`` ``(dim, index)``."""
    return gather(self_t, *extra)


cdef class ScatterAddBackward0(Node):
    """Saves index only if src needs a gradient (only that one reads it)."""
    saved_names = ("index",)
    cdef readonly Py_ssize_t saved_dim

    complex_formulas = True     # linear: it only moves the gradient's elements (alpha conjugated)
    cpdef tuple apply(self, tuple grads):
        grad = grads[0]
        src_grad = None
        if self.should_compute_output(1):
            src_grad = gather(grad, self.saved_dim, unpack_saved(self, 0))
        return (grad if self.should_compute_output(0) else None, src_grad)


cdef object checked_scatter_index(Tensor self, Py_ssize_t d, Tensor index, object src_shape):
    """The index array of a scatter into ``self`` along ``d``, its sizes checked against
    ``self``'s and (a tensor source) ``src_shape``'s, and its bounds; None when empty."""
    array = index._data
    if not array.size:          # nothing to write (NOTE [An empty index])
        return None
    check_index_rank(self, index, "self")
    shape = one_element(self._data).shape
    array = one_element(array)
    for k in range(array.ndim):
        if ((k != d and array.shape[k] > shape[k]) or (src_shape is not None and (
                k >= len(src_shape) or array.shape[k] > src_shape[k]))):
            raise RuntimeError(
                f"Expected index {list(array.shape)} to be no larger than self "
                f"{list(shape)} apart from dimension {d} and to be no larger size than "
                f"src {list(src_shape)}")
    check_index_bounds(self, d, array)
    return array


def scatter_add(Tensor self, dim, Tensor index, Tensor src):
    """A copy of ``self`` with ``src[i][j]`` added at ``[index[i][j]][j]`` (for ``dim=0``)."""
    cdef ScatterAddBackward0 node
    cdef Py_ssize_t d = wrap_dim(dim, self._data.ndim)
    # PyTorch's scatter kernels share one check, which says "scatter" for scatter_add too.
    check_index_dtype(index, "scatter")
    if src._data.dtype != self._data.dtype:
        raise RuntimeError("scatter(): Expected self.dtype to be equal to src.dtype")
    out_array = self._data.copy()
    array = checked_scatter_index(self, d, index, one_element(src._data).shape)
    if array is not None:       # NOTE [A 0-dim tensor as one element]
        values = one_element(src._data)[tuple(slice(0, n) for n in array.shape)]
        np.add.at(one_element(out_array), index_grid(array, d), values)
    cdef Tensor out = wrap(out_array)
    if is_grad_enabled() and (requires_grad(self) or requires_grad(src)):
        node = ScatterAddBackward0()
        node.saved_dim = d
        record(node, (self, src), (out,), (index if gets_gradient(src) else None,))
    if forward_level():
        forward2(out, self, src, scatter_add_tangent, (d, index))
    return out


def scatter_add_(Tensor self, dim, Tensor index, Tensor src):
    """In-place ``scatter_add``."""
    return apply_inplace(self, lambda Tensor source: scatter_add(source, dim, index, src),
                         (src,), False)


def index_add_(Tensor self, dim, Tensor index, Tensor source, *, alpha=1):
    """In-place ``index_add``."""
    return apply_inplace(
        self, lambda Tensor current: index_add(current, dim, index, source, alpha=alpha),
        (source,), False)


cdef object scatter_add_tangent(self_t, src_t, self, src, Tensor result, tuple extra):
    """``scatter_add(self_t, dim, index, src_t)``."""
    dim, index = extra
    return scatter_add(tangent_or_zeros(self_t, self), dim, index, tangent_or_zeros(src_t, src))


# ------------------------------------------------------------------ scatter

cdef class ScatterBackward0(Node):
    """``scatter`` of a tensor ``src``: self's gradient is the gradient with zeros where
    src was written, src's the gradient gathered from there."""
    saved_names = ("index",)
    cdef readonly Py_ssize_t saved_dim

    complex_formulas = True     # linear: it only moves the gradient's elements
    cpdef tuple apply(self, tuple grads):
        grad = grads[0]
        index = unpack_saved(self, 0)
        self_grad = src_grad = None
        if self.should_compute_output(0):
            self_grad = scatter(grad, self.saved_dim, index, 0)
        if self.should_compute_output(1):
            src_grad = gather(grad, self.saved_dim, index)
        return (self_grad, src_grad)


cdef class ScatterBackward1(Node):
    """``scatter`` of a number: self's gradient with zeros where the number was written."""
    saved_names = ("index",)
    cdef readonly Py_ssize_t saved_dim

    complex_formulas = True
    cpdef tuple apply(self, tuple grads):
        return (scatter(grads[0], self.saved_dim, unpack_saved(self, 0), 0),)


def scatter(Tensor self, dim, Tensor index, src=None, *, value=None, reduce=None):
    """A copy of ``self`` with ``src[i][j]`` (or the number ``value``) written at
    ``[index[i][j]][j]`` (for ``dim=0``); an index written twice keeps one of the values,
    which one unspecified (as torch's)."""
    cdef Node node
    if reduce is not None:
        raise NotImplementedError("scatter(): reduce= is not supported; use scatter_add or "
                                  "scatter_reduce")
    if src is None:
        src = value
    cdef Py_ssize_t d = wrap_dim(dim, self._data.ndim)
    check_index_dtype(index, "scatter")
    cdef bint from_tensor = isinstance(src, Tensor)
    if from_tensor and (<Tensor>src)._data.dtype != self._data.dtype:
        raise RuntimeError("scatter(): Expected self.dtype to be equal to src.dtype")
    out_array = self._data.copy()
    array = checked_scatter_index(self, d, index,
                                  one_element((<Tensor>src)._data).shape if from_tensor
                                  else None)
    if array is not None:       # NOTE [A 0-dim tensor as one element]
        if from_tensor:
            values = one_element((<Tensor>src)._data)[tuple(slice(0, n) for n in array.shape)]
        else:
            values = array_module(out_array).full(array.shape, src, dtype=out_array.dtype)
        # the block the index covers (put_along_axis would broadcast it over the rest)
        block = one_element(out_array)[tuple(slice(None) if k == d else slice(0, n)
                                             for k, n in enumerate(array.shape))]
        np.put_along_axis(block, array, values, axis=d)
    cdef Tensor out = wrap(out_array)
    if from_tensor and is_grad_enabled() and (requires_grad(self) or requires_grad(src)):
        node = ScatterBackward0()
        (<ScatterBackward0>node).saved_dim = d
        record(node, (self, src), (out,), (index,))
    elif not from_tensor and is_grad_enabled() and requires_grad(self):
        node = ScatterBackward1()
        (<ScatterBackward1>node).saved_dim = d
        record1(node, self, out, (index,))
    if forward_level():
        if from_tensor:
            forward2(out, self, src, scatter_tangent, (d, index))
        else:
            forward1(out, self, scatter_value_tangent, (d, index))
    return out


cdef object scatter_tangent(self_t, src_t, self, src, Tensor result, tuple extra):
    """``scatter(self_t, dim, index, src_t)``."""
    dim, index = extra
    return scatter(tangent_or_zeros(self_t, self), dim, index, tangent_or_zeros(src_t, src))


cdef object scatter_value_tangent(Tensor self_t, Tensor self, Tensor result, tuple extra):
    """``scatter(self_t, dim, index, 0)``: the written entries no longer depend on self."""
    dim, index = extra
    return scatter(self_t, dim, index, 0)


def scatter_(Tensor self, dim, Tensor index, src=None, *, value=None, reduce=None):
    """In-place ``scatter``."""
    others = (src,) if isinstance(src, Tensor) else ()
    return apply_inplace(
        self, lambda Tensor current: scatter(current, dim, index, src, value=value,
                                             reduce=reduce), others, False)


# ------------------------------------------------------------------ masked_fill

cdef class MaskedFillBackward0(Node):
    saved_names = ("mask",)

    complex_formulas = True     # linear: it only moves the gradient's elements
    cpdef tuple apply(self, tuple grads):
        cdef Tensor grad = grads[0]
        mask = unpack_saved(self, 0)
        zero = np.zeros((), dtype=grad._data.dtype)
        self_grad = value_grad = None
        if self.should_compute_output(0):
            self_grad = where(mask, zero, grad)
        if len(self.next_nodes) > 1 and self.should_compute_output(1):
            value_grad = where(mask, grad, zero).sum()
        return (self_grad, value_grad)[:len(self.next_nodes)]


cdef class MaskedFillBackward1(MaskedFillBackward0):
    pass


cdef tuple broadcast_shape(tuple a, tuple b):
    """The broadcast of two shapes, with PyTorch's error."""
    cdef Py_ssize_t n = max(len(a), len(b))
    result = []
    for i in range(n):
        x = a[len(a) - n + i] if len(a) - n + i >= 0 else 1
        y = b[len(b) - n + i] if len(b) - n + i >= 0 else 1
        if x != y and x != 1 and y != 1:
            raise RuntimeError(f"The size of tensor a ({x}) must match the size of tensor b "
                               f"({y}) at non-singleton dimension {i}")
        result.append(y if x == 1 else x)
    return tuple(result)


cdef void check_bool_mask(Tensor mask) except *:
    if mask._data.dtype.kind != "b":
        raise RuntimeError("masked_fill_ only supports boolean masks, but got mask with dtype "
                           + c10_name(mask._data.dtype))


def masked_fill(Tensor self, Tensor mask, value):
    """``self`` with ``value`` (a number or 0-d tensor) where ``mask`` is True (a copy)."""
    cdef MaskedFillBackward0 node
    check_bool_mask(mask)
    is_tensor = isinstance(value, Tensor)
    if is_tensor and (<Tensor>value)._data.ndim != 0:
        raise RuntimeError(
            "masked_fill_ only supports a 0-dimensional value tensor, but got tensor with "
            f"{(<Tensor>value)._data.ndim} dimension(s).")
    broadcast_shape(mask._data.shape, self._data.shape)
    # a 0-d array of self's dtype on the value's device (a CUDA value stays there)
    fill = ((<Tensor>value)._data if is_tensor else np.asarray(value)).astype(self._data.dtype)
    array = np.where(mask._data, fill, self._data)      # C order, as PyTorch's result
    cdef Tensor out = wrap(contiguous_array(array))
    if is_grad_enabled() and (requires_grad(self) or (is_tensor and requires_grad(value))):
        node = MaskedFillBackward1() if is_tensor else MaskedFillBackward0()
        record(node, (self, value) if is_tensor else (self,), (out,), (mask,))
    if forward_level():
        forward2(out, self, value, masked_fill_tangent, (mask,))
    return out


cdef object masked_fill_tangent(self_t, value_t, self, value, Tensor result, tuple extra):
    """``masked_fill(self_t, mask, value_t)`` (``value_t`` 0 for a number value)."""
    return masked_fill(tangent_or_zeros(self_t, self), extra[0],
                       0.0 if value_t is None else value_t)


cdef void masked_fill_overlap_checks(Tensor self, tuple others) except *:
    """masked_fill_ reads its value once, up front, and only warns about an ``expand``
    (deprecated); the mask, ``others[1]``, may not overlap ``self`` partially.
    index_put_ runs these too when it runs as masked_fill_."""
    check_bool_mask(<Tensor>others[1])
    warn_if_expanded(self, "masked_fill_", "tensor[mask] = scalar")
    check_no_partial_overlap(self, others[1])


def masked_fill_(Tensor self, Tensor mask, value):
    """In-place ``masked_fill``; ``mask`` must broadcast to ``self``'s shape."""
    def compute(Tensor source):
        cdef Tensor out = masked_fill(source, mask, value)
        if has_internal_overlap(source):
            # NOTE [Writing into an expand] in views.pyx
            np.copyto(source._data, out._data, where=mask._data)
            out._data[...] = source._data
        return out
    return apply_inplace(self, compute, (value, mask), False, None, None,
                         masked_fill_overlap_checks)


# NOTE [Complex tangents] in forward.pyx: these formulas are checked for complex tensors.
from autograd_cy._C.forward cimport complex_unary, complex_binary
complex_unary(index_select_tangent)
complex_unary(gather_tangent)
complex_binary(index_add_tangent)
complex_binary(scatter_add_tangent)
complex_binary(scatter_tangent)
complex_unary(scatter_value_tangent)
complex_binary(masked_fill_tangent)
