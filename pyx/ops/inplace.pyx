"""In-place ops and the history rewriting they need (engine_semantics 7.1-7.4).

An in-place op ``x.mul_(y)`` is computed as its out-of-place twin, written back
into ``x``'s memory, and then *rebases* ``x``'s history: ``x.grad_fn`` becomes the
new node, whose edge points at the old one. When ``x`` is a view of a tensor
that is part of a graph, the base is rebased instead, through a CopySlices node
that routes the slice of the base's gradient through the op's node; the view's
own grad_fn is rebuilt lazily (AsStridedBackward0) the next time it is read.
"""
import numpy as np
from numpy.lib.stride_tricks import as_strided
cimport numpy as cnp

from autograd_cy._C.grad_mode cimport is_grad_enabled, next_sequence_nr
from autograd_cy._C.tensor cimport (
    Tensor, make_tensor, requires_grad, bump_version, version_counter, get_grad_fn,
    VIEW_DEFAULT,
)
from autograd_cy._C.node cimport Node, Edge, gradient_edge, set_edges, set_history
from autograd_cy._C.node import move_retains_grad_hook
from autograd_cy._C.ops.dispatch cimport (
    check_inplace, check_no_partial_overlap, check_no_internal_overlap, result_type,
    ignoring_fp_errors, binary_kernel_into, KERNEL_ADD, KERNEL_SUB, KERNEL_MUL,
)
from autograd_cy._C.ops.dispatch import view_error_message

cnp.import_array()

__all__ = ["zero_", "fill_", "copy_"]
__tensor_methods__ = ("zero_", "fill_", "copy_")


# ------------------------------------------------------------------ geometry

cdef Py_ssize_t data_address(object array):
    if type(array) is np.ndarray:
        return <Py_ssize_t>cnp.PyArray_DATA(array)
    return array.data.ptr


cdef tuple geometry(object array, object base_array):
    """``(shape, strides, offset)`` of ``array`` in elements of ``base_array``'s storage."""
    itemsize = array.itemsize
    offset = (data_address(array) - data_address(base_array)) // itemsize
    return (array.shape, tuple(s // itemsize for s in array.strides), offset)


cdef object view_positions(tuple base_geometry, tuple view_geometry):
    """For each element of the view, its index in the base's flattened (row-major) order.

    The geometry lives in storage coordinates; numbering the base's elements in a
    scratch storage and reading them back through the view's geometry translates it
    into plain indices, so backward can use ordinary (differentiable) indexing ops.
    """
    shape, strides, _ = base_geometry
    size = 1
    for n, s in zip(shape, strides):
        if n == 0:
            size = 0
            break
        size += (n - 1) * s
    numel = 1
    for n in shape:
        numel *= n
    storage = np.zeros(max(size, 1), dtype=np.int64)
    strided(storage, base_geometry)[...] = np.arange(numel, dtype=np.int64).reshape(shape)
    return np.ascontiguousarray(strided(storage, view_geometry))


cdef object strided(object storage, tuple geometry):
    shape, strides, offset = geometry
    itemsize = storage.itemsize
    return as_strided(storage[offset:], shape=shape,
                      strides=tuple(s * itemsize for s in strides))


# ------------------------------------------------------------------ nodes
#
# Both nodes express "the view's part of the base" as a gather/scatter with
# view_positions(), through the recorded ops flat[positions] and index_put, so
# they differentiate again under create_graph=True like every other formula.

cdef class CopySlices(Node):
    """The base's grad_fn after an in-place op on one of its views.

    Backward: the base's gradient passes through unchanged except on the view's
    slice, which is replaced by what the in-place op's node makes of it.
    """
    cdef readonly tuple base_geometry
    cdef readonly tuple view_geometry
    cdef readonly Node fn
    cdef object positions

    cpdef tuple apply(self, tuple grads):
        from autograd_cy._C.ops.indexing import getitem, index_put
        from autograd_cy._C.ops.shape import reshape
        cdef tuple result
        grad = grads[0]
        if grad is None:
            return (None,) * len(self.next_nodes)
        if self.positions is None:
            self.positions = make_tensor(view_positions(self.base_geometry, self.view_geometry))
        flat = reshape(grad, (-1,))
        if self.output_mask is not None:
            self.fn.output_mask = (True,) + self.output_mask[1:]
        try:
            result = self.fn.apply((getitem(flat, self.positions),))
        finally:
            self.fn.output_mask = None
        zeros = make_tensor(np.zeros((<Tensor>self.positions)._data.shape,
                                     (<Tensor>grad)._data.dtype))
        flat = index_put(flat, (self.positions,), zeros)
        if result[0] is not None:
            flat = index_put(flat, (self.positions,), result[0], accumulate=True)
        return (reshape(flat, self.base_geometry[0]),) + tuple(result[1:])

    cdef void release_variables(self):
        self.fn.release_variables()


cdef class AsStridedBackward0(Node):
    """A view's grad_fn rebuilt after its base changed in place: scatter into the base."""
    cdef readonly tuple base_geometry
    cdef readonly tuple view_geometry
    cdef object positions

    cpdef tuple apply(self, tuple grads):
        from autograd_cy._C.ops.indexing import index_put
        from autograd_cy._C.ops.shape import reshape
        grad = grads[0]
        if grad is None or not self.should_compute_output(0):
            return (None,)
        if self.positions is None:
            self.positions = make_tensor(view_positions(self.base_geometry, self.view_geometry))
        shape = self.base_geometry[0]
        numel = 1
        for n in shape:
            numel *= n
        zeros = make_tensor(np.zeros(numel, (<Tensor>grad)._data.dtype))
        flat = index_put(zeros, (self.positions,), grad, accumulate=True)
        return (reshape(flat, shape),)


cdef tuple base_geometry_of(Tensor base):
    return geometry(base._data, base._data)


def regenerate_view_grad_fn(Tensor view):
    """Rebuild a view's grad_fn after its base or a sibling changed in place (7.4, 7.5)."""
    cdef Tensor base = view._base
    cdef AsStridedBackward0 node
    view._grad_fn_version = version_counter(view).version
    if not requires_grad(base):
        return
    if view._creation_meta != VIEW_DEFAULT:
        raise RuntimeError(view_error_message(view, True))
    node = AsStridedBackward0()
    node.sequence_nr = next_sequence_nr()
    node.base_geometry = base_geometry_of(base)
    node.view_geometry = geometry(view._data, base._data)
    set_edges(node, (gradient_edge(base),))
    node.input_metadata = ((view._data.shape, view._data.dtype),)
    view._grad_fn = node
    view._output_nr = 0


cdef void rebase_history(Tensor self, Node node) except *:
    """Make ``node`` (the in-place op's backward) the new history of ``self``."""
    cdef Tensor base = self._base
    cdef CopySlices copy_slices
    old_fn, old_nr = self._grad_fn, self._output_nr
    if base is None:
        self._grad_fn = node
        self._output_nr = 0
        if old_fn is not None:
            move_retains_grad_hook(self, old_fn, old_nr)
        return
    copy_slices = CopySlices()
    copy_slices.sequence_nr = next_sequence_nr()
    copy_slices.base_geometry = base_geometry_of(base)
    copy_slices.view_geometry = geometry(self._data, base._data)
    copy_slices.fn = node
    # The base takes the place of the view's first input; the op's other inputs stay.
    cdef Edge base_edge = gradient_edge(base)
    copy_slices.next_nodes = (base_edge.function,) + node.next_nodes[1:]
    copy_slices.next_input_nrs = (base_edge.input_nr,) + node.next_input_nrs[1:]
    copy_slices.input_metadata = ((base._data.shape, base._data.dtype),)
    old_fn, old_nr = base._grad_fn, base._output_nr
    base._grad_fn = copy_slices
    base._output_nr = 0
    if old_fn is not None:
        move_retains_grad_hook(base, old_fn, old_nr)
    # The view's grad_fn goes stale: the version moved, so get_grad_fn rebuilds it.


cdef void write_back(Tensor self, Tensor out) except *:
    if out._data.shape != self._data.shape:
        raise RuntimeError(
            f"output with shape {list(self._data.shape)} doesn't match the broadcast shape "
            f"{list(out._data.shape)}")
    if out._data.dtype != self._data.dtype and not np.can_cast(
            out._data.dtype, self._data.dtype, "same_kind"):
        from autograd_cy.dtypes import from_numpy_dtype
        raise RuntimeError(
            f"result type {from_numpy_dtype(out._data.dtype)._scalar_name} can't be cast to "
            f"the desired output type {from_numpy_dtype(self._data.dtype)._scalar_name}")
    self._data[...] = out._data


cdef Tensor apply_inplace(Tensor self, object compute, tuple others, bint needs_original,
                         object ufunc=None, object operand=None, bint reads_elementwise=True):
    """Run ``compute(self)`` (the out-of-place op) and make it ``self``'s new value and history.

    ``needs_original``: the op's backward reads ``self``'s old value, so the node
    must save a copy of it rather than the tensor that is about to change.
    ``ufunc``, ``operand``: the op as ``ufunc(self, operand)``; when nothing is recorded
    (an optimizer step under no_grad) it then runs straight into ``self``'s memory,
    without the out-of-place temporary and the copy back.
    ``reads_elementwise``: the op reads ``others`` element by element as it writes (PyTorch's
    TensorIterator ops), so an operand that partly overlaps ``self`` is an error, and so is
    a ``self`` whose elements share memory; fill_, zero_ and masked_fill_ read their value
    once, up front, and pass False.
    """
    cdef bint records = is_grad_enabled() and (
        requires_grad(self) or any_tensor_requires_grad(others))
    cdef Tensor source = self
    cdef Tensor out
    check_inplace(self, records)
    if reads_elementwise:
        check_no_internal_overlap(self)
        for other in others:
            check_no_partial_overlap(self, other)
    if not records and ufunc is not None:
        ufunc_into(self, ufunc, operand)
        bump_version(self)
        return self
    if records and needs_original:
        source = make_tensor(self._data.copy())
        source._grad_fn = get_grad_fn(self)
        source._output_nr = self._output_nr
        source._requires_grad = self._requires_grad
    out = compute(source)
    write_back(self, out)
    bump_version(self)
    if records:
        rebase_history(self, <Node>out._grad_fn)
    return self


cdef inline bint any_tensor_requires_grad(tuple values):
    for value in values:
        if isinstance(value, Tensor) and requires_grad(<Tensor>value):
            return True
    return False


cdef object ADD = np.add, SUBTRACT = np.subtract, MULTIPLY = np.multiply


cdef void ufunc_into(Tensor self, object ufunc, object operand) except *:
    """``self = ufunc(self, operand)`` in place, with the checks and errors of write_back."""
    if isinstance(operand, Tensor) and kernel_into(self, ufunc, <Tensor>operand):
        return
    dtype = result_type(self, operand)
    if dtype.kind == "b" and ufunc is SUBTRACT:
        raise RuntimeError("Subtraction, the `-` operator, with two bool tensors is not "
                           "supported. Use the `^` or `logical_xor()` operator instead.")
    if ufunc is np.true_divide and dtype.kind != "f":
        dtype = np.dtype(np.float32)
    if isinstance(operand, Tensor):
        shape = (<Tensor>operand)._data.shape
        if shape != self._data.shape:
            shape = np.broadcast_shapes(self._data.shape, shape)
        if shape != self._data.shape:
            raise RuntimeError(
                f"output with shape {list(self._data.shape)} doesn't match the broadcast shape "
                f"{list(shape)}")
        operand = (<Tensor>operand)._data
    if dtype != self._data.dtype and not np.can_cast(dtype, self._data.dtype, "same_kind"):
        from autograd_cy.dtypes import from_numpy_dtype
        raise RuntimeError(
            f"result type {from_numpy_dtype(dtype)._scalar_name} can't be cast to the desired "
            f"output type {from_numpy_dtype(self._data.dtype)._scalar_name}")
    quietly_into(ufunc, self._data, operand)


cdef inline bint kernel_into(Tensor self, object ufunc, Tensor operand) except -1:
    """The fused loop for ``p -= lr * p.grad`` and friends on small float arrays of one
    shape and dtype (NOTE [Fused kernels]); False when it does not apply."""
    if ufunc is ADD:
        return binary_kernel_into(KERNEL_ADD, self._data, operand._data)
    if ufunc is SUBTRACT:
        return binary_kernel_into(KERNEL_SUB, self._data, operand._data)
    if ufunc is MULTIPLY:
        return binary_kernel_into(KERNEL_MUL, self._data, operand._data)
    return False


cdef void quietly_into(object ufunc, object array, object operand) except *:
    with ignoring_fp_errors():
        if isinstance(operand, np.ndarray) and operand.dtype is array.dtype:
            ufunc(array, operand, array)      # no cast: skip parsing keyword arguments
        else:
            ufunc(array, operand, out=array, casting="unsafe")


# ------------------------------------------------------------ zero_, fill_, copy_

cdef class FillBackward0(Node):
    """``x.fill_(value)``: nothing flows to the old x; a tensor value gets the grad's sum."""

    cpdef tuple apply(self, tuple grads):
        cdef Tensor grad = grads[0]
        value_grad = None
        if len(self.next_nodes) > 1 and self.should_compute_output(1) and grad is not None:
            value_grad = grad.sum()
        return (None, value_grad)[:len(self.next_nodes)]


cdef class ZeroBackward0(Node):
    cpdef tuple apply(self, tuple grads):
        return (None,)


cdef class CopyBackwards(Node):
    """``x.copy_(src)``: src receives the gradient (cast and summed to its shape)."""

    cpdef tuple apply(self, tuple grads):
        cdef Tensor grad = grads[0]
        return (None, grad if self.should_compute_output(1) else None)


def _filled(Tensor source, value, Node node):
    cdef Tensor out = make_tensor(np.empty_like(source._data))
    if isinstance(value, Tensor):
        out._data[...] = (<Tensor>value)._data
    else:
        out._data[...] = value
    if is_grad_enabled() and (requires_grad(source) or (
            isinstance(value, Tensor) and requires_grad(<Tensor>value))):
        set_history(node, (source, value) if isinstance(value, Tensor) else (source,), (out,))
    return out


def zero_(Tensor self):
    """Fill with zeros, in place."""
    return apply_inplace(self, lambda x: _filled(x, 0, ZeroBackward0()), (), False,
                         None, None, False)


def fill_(Tensor self, value):
    """Fill with ``value`` (a number or a 0-dim tensor), in place."""
    if isinstance(value, Tensor) and (<Tensor>value)._data.ndim != 0:
        raise RuntimeError(
            "fill_ only supports 0-dimension value tensor but got tensor with "
            f"{(<Tensor>value)._data.ndim} dimensions.")
    # The 0-dim value is read once, before anything is written: no overlap check.
    return apply_inplace(self, lambda x: _filled(x, value, FillBackward0()), (value,), False,
                         None, None, False)


def copy_(Tensor self, Tensor src, non_blocking=False):
    """Copy ``src`` (broadcast to ``self``'s shape, cast to its dtype) into ``self``."""
    try:
        np.broadcast_shapes(src._data.shape, self._data.shape)
        if np.broadcast_shapes(src._data.shape, self._data.shape) != self._data.shape:
            raise ValueError
    except ValueError:
        raise RuntimeError(
            f"The size of tensor a ({self._data.shape[-1] if self._data.ndim else 1}) must "
            f"match the size of tensor b ({src._data.shape[-1] if src._data.ndim else 1}) at "
            "non-singleton dimension") from None

    def compute(Tensor x):
        cdef Tensor out = make_tensor(np.empty_like(x._data))
        out._data[...] = src._data
        if is_grad_enabled() and (requires_grad(x) or requires_grad(src)):
            set_history(CopyBackwards(), (x, src), (out,))
        return out
    return apply_inplace(self, compute, (src,), False)


def _increment_version(Tensor t):
    bump_version(t)
