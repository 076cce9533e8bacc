"""Cutting a tensor into pieces and joining pieces: split, chunk, unbind, cat, stack.

Each family is the other's backward: the gradient of ``split`` is the ``cat`` of
its pieces' gradients, the gradient of ``cat`` is the split of its gradient.

The pieces of split, chunk and unbind are views recorded by one Node with
several outputs, each marked ``VIEW_MULTI_OUTPUT_NODE``: PyTorch forbids
modifying those in place, because rebasing one output's history would have to
rewrite the shared Node. cat and stack copy.
"""
import numpy as np

from autograd_cy._C.grad_mode cimport is_grad_enabled, forward_level
from autograd_cy._C.forward cimport forward1, forward_n
from autograd_cy._C.device cimport zeros_for_metadata
from autograd_cy._C.device cimport contiguous_array
from autograd_cy._C.tensor cimport (
    Tensor, make_tensor, make_view, requires_grad, array_module, VIEW_INFERENCE_MODE,
    VIEW_MULTI_OUTPUT_NODE,
)
from autograd_cy._C.tensor cimport wrap_dim
from autograd_cy._C.node cimport Node
from autograd_cy._C.batching cimport (
    grads_batched, batched_shape, batched_dim, register_stack_rows,
)
from autograd_cy._C.recording cimport record
from autograd_cy._C.promotion cimport wrap, promote
from autograd_cy._C.ops.shape cimport leading
from autograd_cy._C.ops.shape import narrow
from autograd_cy._C.ops.gather_scatter cimport tangent_or_zeros
from autograd_cy._C.views cimport view_tangent

__all__ = ["split", "split_with_sizes", "chunk", "unbind", "cat", "concat", "concatenate",
           "stack"]
__tensor_methods__ = ("split", "split_with_sizes", "chunk", "unbind")


cdef list grads_or_zeros(Node node, tuple grads):
    """A multi-output node's incoming grads, zeros for outputs that received none (of the
    batched shape in a batched pass: NOTE [Batched gradients])."""
    cdef list result = list(grads)
    batch = next((g for g in grads if g is not None), None) if grads_batched() else None
    for i, grad in enumerate(result):
        if grad is None:
            metadata = node.input_metadata[i]
            if batch is not None:
                metadata = (batched_shape(batch, metadata[0]),) + tuple(metadata[1:])
            result[i] = make_tensor(zeros_for_metadata(metadata))
    return result


# ------------------------------------------------------------------ multi-output views

cdef void mark_multi_output(Tensor view, str op_name):
    """PyTorch's creation meta for an output of a view op with several outputs: modifying
    it in place is an error."""
    if is_grad_enabled() and view._creation_meta != VIEW_INFERENCE_MODE:
        view._creation_meta = VIEW_MULTI_OUTPUT_NODE
    view._view_op_name = op_name


cdef tuple split_views(Tensor self, Py_ssize_t dim, object sizes, Node node, str op_name):
    """Consecutive views of ``sizes`` elements along ``dim``, recorded as one ``node``."""
    cdef list outputs = []
    cdef Py_ssize_t offset = 0
    cdef Tensor out
    for n in sizes:
        out = make_view(self._data[leading(dim, slice(offset, offset + n))], self)
        mark_multi_output(out, op_name)
        outputs.append(out)
        offset += n
    if is_grad_enabled() and requires_grad(self) and not self._is_inference:
        record(node, (self,), tuple(outputs))
    if forward_level():
        for out in outputs:
            forward1(out, self, view_tangent)      # each the same view of self's tangent
    return tuple(outputs)


cdef class SplitBackward0(Node):
    cdef readonly Py_ssize_t saved_dim, saved_split_size
    cdef readonly tuple saved_self_sym_sizes

    batches_gradients = True     # NOTE [Batched gradients]
    complex_formulas = True     # linear: it only moves the gradient's elements
    cpdef tuple apply(self, tuple grads):
        return (cat(grads_or_zeros(self, grads), batched_dim(self.saved_dim)),)


cdef class SplitWithSizesBackward0(Node):
    cdef readonly Py_ssize_t saved_dim
    cdef readonly tuple saved_split_sizes
    cdef readonly tuple saved_self_sym_sizes

    batches_gradients = True     # NOTE [Batched gradients]
    complex_formulas = True     # linear: it only moves the gradient's elements
    cpdef tuple apply(self, tuple grads):
        return (cat(grads_or_zeros(self, grads), batched_dim(self.saved_dim)),)


def split(Tensor self, split_size_or_sections, dim=0):
    """Views of ``split_size`` elements along ``dim`` (the last may be smaller), or of
    the given list of sizes."""
    cdef SplitBackward0 node
    if not isinstance(split_size_or_sections, int):
        return split_with_sizes(self, split_size_or_sections, dim)
    cdef Py_ssize_t split_size = split_size_or_sections
    if self._data.ndim == 0:
        raise RuntimeError("split expects at least a 1-dimensional tensor")
    cdef Py_ssize_t d = wrap_dim(dim, self._data.ndim)
    cdef Py_ssize_t size = self._data.shape[d]
    if split_size < 0:
        raise RuntimeError(
            f"split expects split_size be non-negative, but got split_size={split_size}")
    if split_size == 0 and size != 0:
        raise RuntimeError("split_size can only be 0 if dimension size is 0, but got dimension "
                           f"size of {size}")
    count = max((size + split_size - 1) // split_size, 1) if split_size else 1
    sizes = [split_size] * (count - 1) + [size - split_size * (count - 1)]
    node = SplitBackward0()
    node.saved_dim = d
    node.saved_split_size = split_size
    node.saved_self_sym_sizes = self._data.shape
    return split_views(self, d, sizes, node, "Split")


def split_with_sizes(Tensor self, split_sizes, dim=0):
    """Views of the given sizes along ``dim``; they must add up to the dim's size."""
    cdef SplitWithSizesBackward0 node
    if self._data.ndim == 0:
        raise RuntimeError("split expects at least a 1-dimensional tensor")
    cdef Py_ssize_t d = wrap_dim(dim, self._data.ndim)
    sizes = tuple(split_sizes)
    size = self._data.shape[d]
    if any(n < 0 for n in sizes):
        raise RuntimeError("split_with_sizes expects split_sizes have only non-negative "
                           f"entries, but got split_sizes={list(sizes)}")
    total = 0
    for n in sizes:
        total += n
    if total != size:
        raise RuntimeError(
            f"split_with_sizes expects split_sizes to sum exactly to {size} (input tensor's "
            f"size at dimension {d}), but got split_sizes={list(sizes)}")
    node = SplitWithSizesBackward0()
    node.saved_dim = d
    node.saved_split_sizes = sizes
    node.saved_self_sym_sizes = self._data.shape
    return split_views(self, d, sizes, node, "SplitWithSizes")


def chunk(Tensor self, Py_ssize_t chunks, dim=0):
    """At most ``chunks`` views of equal size along ``dim`` (the last may be smaller)."""
    if self._data.ndim == 0:
        raise RuntimeError("chunk expects at least a 1-dimensional tensor")
    if chunks <= 0:
        raise RuntimeError(f"chunk expects `chunks` to be greater than 0, got: {chunks}")
    cdef Py_ssize_t d = wrap_dim(dim, self._data.ndim)
    cdef Py_ssize_t size = self._data.shape[d]
    cdef Py_ssize_t split_size = (size + chunks - 1) // chunks
    if split_size == 0 and size == 0:
        return split_with_sizes(self, [0] * chunks, d)
    return split(self, split_size, d)


cdef class UnbindBackward0(Node):
    cdef readonly Py_ssize_t saved_dim

    batches_gradients = True     # NOTE [Batched gradients]
    complex_formulas = True     # linear: it only moves the gradient's elements
    cpdef tuple apply(self, tuple grads):
        return (stack(grads_or_zeros(self, grads), batched_dim(self.saved_dim)),)


def unbind(Tensor self, dim=0):
    """All slices along ``dim``, that dim removed: a tuple of views."""
    cdef UnbindBackward0 node
    cdef list outputs = []
    cdef Tensor out
    if self._data.ndim == 0:
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    cdef Py_ssize_t d = wrap_dim(dim, self._data.ndim)
    for i in range(self._data.shape[d]):
        out = make_view(self._data[leading(d, i)], self)
        mark_multi_output(out, "Unbind")
        outputs.append(out)
    if is_grad_enabled() and requires_grad(self) and not self._is_inference:
        node = UnbindBackward0()
        node.saved_dim = d
        record(node, (self,), tuple(outputs))
    if forward_level():
        for out in outputs:
            forward1(out, self, view_tangent)
    return tuple(outputs)


# ------------------------------------------------------------------ cat / stack

cdef object promote_all(list arrays):
    """The dtype PyTorch gives a list of same-priority tensors (cat, stack)."""
    dtype = arrays[0].dtype
    for array in arrays[1:]:
        dtype = promote(dtype, array.dtype)
    return dtype


cdef list tensor_list(object tensors, str op):
    """``tensors`` as a list, each item checked; a Tensor is refused, not iterated."""
    if isinstance(tensors, Tensor):
        raise TypeError(f"{op}(): argument 'tensors' (position 1) must be tuple of Tensors, "
                        "not Tensor")
    cdef list result = list(tensors)
    for i, item in enumerate(result):
        if not isinstance(item, Tensor):
            raise TypeError(f"expected Tensor as element {i} in argument 0, but got "
                            f"{type(item).__name__}")
    return result


cdef class CatBackward0(Node):
    cdef readonly Py_ssize_t saved_dim
    cdef readonly tuple sizes             # each input's size along dim; None: skipped

    batches_gradients = True     # NOTE [Batched gradients]
    complex_formulas = True     # linear: it only moves the gradient's elements
    cpdef tuple apply(self, tuple grads):
        cdef list result = []
        cdef Py_ssize_t offset = 0
        cdef Py_ssize_t dim = batched_dim(self.saved_dim)
        grad = grads[0]
        for i, n in enumerate(self.sizes):
            if n is None:
                # a skipped 1-d empty input gets an empty gradient, as PyTorch's
                result.append(make_tensor(array_module((<Tensor>grad)._data).zeros(
                    batched_shape(grad, (0,)), dtype=(<Tensor>grad)._data.dtype))
                    if self.should_compute_output(i) else None)
                continue
            if self.should_compute_output(i):
                result.append(narrow(grad, dim, offset, n))
            else:
                result.append(None)
            offset += n
        return tuple(result)


cdef inline bint legacy_empty(Tensor t):
    # PyTorch still lets a 1-d empty tensor join a cat of any shape, and skips it.
    return t._data.ndim == 1 and t._data.shape[0] == 0


cdef object torch_layout(object result, list inputs):
    """``result`` (NumPy's, which follows its inputs' memory order) in PyTorch's layout:
    contiguous, unless every input is channels-last (4-D or 5-D, channels innermost)."""
    if result.flags.c_contiguous:
        return result
    for array in inputs:
        if not channels_last(array):
            return contiguous_array(result)
    return result


cdef bint channels_last(object array):
    """Whether PyTorch suggests the channels-last memory format for ``array``."""
    ndim = array.ndim
    if (ndim != 4 and ndim != 5) or array.flags.c_contiguous:
        return False
    order = (0,) + tuple(range(2, ndim)) + (1,)      # N, spatial dims..., C
    return np.transpose(array, order).flags.c_contiguous


def cat(tensors, dim=0):
    """Join tensors along an existing dim; all other sizes must match (a copy)."""
    return joined(tensors, dim, "cat")


def concat(tensors, dim=0):
    """Alias of ``cat``."""
    return joined(tensors, dim, "concat")


def concatenate(tensors, axis=0):
    """Alias of ``cat`` with NumPy's argument name."""
    return joined(tensors, axis, "concatenate")


cdef object joined(object tensors, object dim, str op):
    """cat under the name it was called by (for the errors)."""
    cdef list items = tensor_list(tensors, op)
    cdef Tensor first = None
    cdef Tensor item
    cdef CatBackward0 node
    if not items:
        raise ValueError("torch.cat(): expected a non-empty list of Tensors")
    for i, item in enumerate(items):
        if item._data.ndim == 0:
            raise RuntimeError(f"zero-dimensional tensor (at position {i}) cannot be "
                               "concatenated")
        if first is None and not legacy_empty(item):
            first = item
    dtype = promote_all([(<Tensor>x)._data for x in items])
    d = 0
    if first is None:
        out = wrap(np.zeros((0,), dtype=dtype))
        sizes = (None,) * len(items)
    else:
        d = wrap_dim(dim, first._data.ndim)
        arrays = []
        sizes = []
        for i, item in enumerate(items):
            if legacy_empty(item) and item._data.ndim != first._data.ndim:
                sizes.append(None)
                continue
            check_cat_shape(first, item, d, i)
            arrays.append(item._data)
            sizes.append(item._data.shape[d])
        out = wrap(torch_layout(np.concatenate(arrays, axis=d, dtype=dtype), arrays))
        sizes = tuple(sizes)
    if is_grad_enabled() and any(requires_grad(<Tensor>x) for x in items):
        node = CatBackward0()
        node.saved_dim = d
        node.sizes = sizes
        record(node, tuple(items), (out,))
    if forward_level():
        forward_n(out, tuple(items), cat_tangent, (d, sizes))
    return out


cdef object cat_tangent(tuple tangents, tuple inputs, Tensor result, tuple extra):
    """The inputs' tangents joined the same way (zeros for an input without one; the
    legacy empty inputs cat skipped are skipped again)."""
    dim, sizes = extra
    parts = [tangent_or_zeros(t, <Tensor>x)
             for t, x, n in zip(tangents, inputs, sizes) if n is not None]
    if not parts:
        return make_tensor(array_module(result._data).zeros_like(result._data))
    return cat(parts, dim)


cdef void check_cat_shape(Tensor first, Tensor item, Py_ssize_t dim, Py_ssize_t i) except *:
    if item._data.ndim != first._data.ndim:
        raise RuntimeError(f"Tensors must have same number of dimensions: got "
                           f"{first._data.ndim} and {item._data.ndim}")
    for k in range(first._data.ndim):
        if k != dim and item._data.shape[k] != first._data.shape[k]:
            raise RuntimeError(
                f"Sizes of tensors must match except in dimension {dim}. Expected size "
                f"{first._data.shape[k]} but got size {item._data.shape[k]} for tensor number "
                f"{i} in the list.")


cdef class StackBackward0(Node):
    cdef readonly Py_ssize_t saved_dim

    batches_gradients = True     # NOTE [Batched gradients]
    complex_formulas = True     # linear: it only moves the gradient's elements
    cpdef tuple apply(self, tuple grads):
        cdef tuple parts = unbind(grads[0], batched_dim(self.saved_dim))
        return tuple([parts[i] if self.should_compute_output(i) else None
                      for i in range(len(parts))])


def stack(tensors, dim=0):
    """Join equally shaped tensors along a new dim ``dim`` (a copy)."""
    cdef list items = tensor_list(tensors, "stack")
    cdef StackBackward0 node
    if not items:
        raise RuntimeError("stack expects a non-empty TensorList")
    shape = (<Tensor>items[0])._data.shape
    for i, item in enumerate(items):
        if (<Tensor>item)._data.shape != shape:
            raise RuntimeError(
                f"stack expects each tensor to be equal size, but got {list(shape)} at entry 0 "
                f"and {list((<Tensor>item)._data.shape)} at entry {i}")
    d = wrap_dim(dim, len(shape) + 1)
    arrays = [(<Tensor>x)._data for x in items]
    cdef Tensor out = wrap(torch_layout(np.stack(arrays, axis=d, dtype=promote_all(arrays)),
                                        [np.expand_dims(a, d) for a in arrays]))
    if is_grad_enabled() and any(requires_grad(<Tensor>x) for x in items):
        node = StackBackward0()
        node.saved_dim = d
        record(node, tuple(items), (out,))
    if forward_level():
        forward_n(out, tuple(items), stack_tangent, (d,))
    return out


cdef object stack_tangent(tuple tangents, tuple inputs, Tensor result, tuple extra):
    """The inputs' tangents stacked the same way (zeros for an input without one)."""
    return stack([tangent_or_zeros(t, <Tensor>x) for t, x in zip(tangents, inputs)], extra[0])


register_stack_rows(stack)     # the batched engine's per-row fallback joins rows with it


# NOTE [Complex tangents] in forward.pyx: these formulas are checked for complex tensors.
from autograd_cy._C.forward cimport complex_nary
complex_nary(cat_tangent)
complex_nary(stack_tangent)
