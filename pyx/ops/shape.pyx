# cython: allow_none_for_extension_args=False
"""Shape ops and views: view, reshape, transpose, permute, squeeze, expand, narrow ...

# NOTE [Views]
A view op returns a tensor that shares memory *and* version counter with its
input (``make_view``): an in-place op on either is seen by both, and ``_base``
names the tensor that owns the memory. Its backward only rearranges the
gradient back into the input's shape, with the same ops, so it is itself
differentiable. repeat copies and is not a view. The ops that cut a tensor
into several views (split, chunk, unbind) and their inverses (cat, stack) are
in split_cat.pyx.
"""
import numpy as np
cimport numpy as cnp
cnp.import_array()

from autograd_cy._C.grad_mode cimport is_grad_enabled, forward_level
from autograd_cy._C.forward cimport forward1, linear_tangent, batch_unary, UnaryTangent
from autograd_cy._C.views cimport view_tangent
from autograd_cy._C.dtype cimport dtype, from_numpy_dtype, scalar_name
from autograd_cy._C.device cimport contiguous_array, strided_view, data_address
from autograd_cy._C.tensor cimport (
    Tensor, make_tensor, make_view, requires_grad, array_module, wrap_dim,
    VIEW_DEFAULT, tensor_operators, version_counter)
from autograd_cy._C.batching cimport grads_batched, batched_shape, batched_dim, batched_dims
from autograd_cy._C.node cimport Node
from autograd_cy._C.provenance cimport forward_op_name
from autograd_cy._C.recording cimport record1, view_records
from autograd_cy._C.promotion cimport wrap, is_complex_array
from autograd_cy._C.ops.conversion import CloneBackward0, contiguous
from autograd_cy._C.ops.conversion cimport contiguous_tangent
from autograd_cy._C.ops.arguments cimport int_list, invalid_combination
from autograd_cy._C.ops.arguments import NOT_GIVEN

__all__ = ["reshape", "view", "flatten", "unflatten", "transpose", "swapaxes", "swapdims",
           "permute", "movedim", "moveaxis", "t", "unsqueeze", "squeeze", "expand", "select",
           "narrow", "view_as_real", "view_as_complex"]
__tensor_methods__ = ("reshape", "view", "view_as", "reshape_as", "flatten", "unflatten",
                      "transpose", "swapaxes", "swapdims", "permute", "movedim", "moveaxis",
                      "t", "unsqueeze", "squeeze", "expand", "expand_as", "repeat", "select",
                      "narrow")


# ------------------------------------------------------------------ helpers

cdef tuple infer_size(tuple shape, Py_ssize_t numel):
    """Resolve one -1 in ``shape``; PyTorch's error when the sizes do not fit."""
    cdef Py_ssize_t known = 1
    infer_at = -1
    for i, n in enumerate(shape):
        if n == -1:
            if infer_at >= 0:
                raise RuntimeError("only one dimension can be inferred")
            infer_at = i
        elif n < 0:
            raise RuntimeError(f"invalid shape dimension {n} at index {i} of shape {list(shape)}")
        else:
            known *= n
    if infer_at >= 0:
        if known == 0 or numel % known:
            raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {numel}")
        shape = shape[:infer_at] + (numel // known,) + shape[infer_at + 1:]
    elif known != numel:
        raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {numel}")
    return shape


cdef tuple leading(Py_ssize_t dim, object item):
    """The NumPy index that applies ``item`` to dim ``dim`` (``a[:, :, item]``).

    A trailing Ellipsis keeps an all-integer index returning a 0-d view, not a scalar copy.
    """
    return (slice(None),) * dim + (item, Ellipsis)


cdef Tensor record_view(Node node, Tensor self, object array,
                        UnaryTangent tangent=view_tangent):
    """Wrap ``array`` (a view of ``self``'s memory) as a view and record ``node``, which is
    None where ``view_records(self)`` is false: an op need not make a Node nothing records.
    ``tangent``: the same view of ``self``'s tangent, unless the view changes the dtype."""
    cdef Tensor out = make_view(array, self)
    if node is not None and view_records(self):
        record1(node, self, out)
        if out._creation_meta != VIEW_DEFAULT:
            # A view of a forbidden view is named after its own op ("Output 0 of Select").
            out._view_op_name = forward_op_name(node)
    if forward_level():
        # The same view of self's tangent (NOTE [Tangents of views and in-place ops]).
        forward1(out, self, tangent)
    return out


# ------------------------------------------------------------------ view / reshape

cdef class ViewBackward0(Node):
    cdef readonly tuple saved_self_sym_sizes

    batches_gradients = True     # NOTE [Batched gradients]
    complex_formulas = True     # it only moves the gradient's elements
    cpdef tuple apply(self, tuple grads):
        return (reshape(grads[0], batched_shape(grads[0], self.saved_self_sym_sizes)),)


cdef class UnsafeViewBackward0(ViewBackward0):
    pass


cdef Tensor unsafe_view(Tensor self, tuple shape):
    """PyTorch's ``_unsafe_view``: ``self`` (a fresh contiguous result, nobody else's memory)
    seen with ``shape``, as a new tensor that is not a view (no ``_base``), so an in-place op
    on it needs no CopySlices. reshape's copy and matmul's batched results end with it."""
    cdef UnsafeViewBackward0 node
    cdef Tensor out = wrap(self._data.reshape(shape))
    if is_grad_enabled() and requires_grad(self):
        node = UnsafeViewBackward0()
        node.saved_self_sym_sizes = self._data.shape
        record1(node, self, out)
    if forward_level():
        forward1(out, self, linear_tangent, (reshape, shape))
    return out


cdef object viewed(object array, tuple shape):
    """``array`` with ``shape`` without copying (or None when the strides forbid it)."""
    try:
        return (array.reshape(shape, copy=False) if type(array) is cnp.ndarray
                else np.reshape(array, shape, copy=False))
    except ValueError:
        return None


cdef tuple VIEW_SIGNATURES = ("(autograd_cy.dtype dtype)", "(tuple of ints size)")


cdef ViewBackward0 view_node(Tensor self):
    """The Node of a view or reshape of ``self``, or None when nothing records."""
    cdef ViewBackward0 node = None
    if view_records(self):
        node = ViewBackward0()
        node.saved_self_sym_sizes = self._data.shape
    return node


cdef Tensor view_as_dtype(Tensor self, dtype target):
    """``self.view(dtype)``: the same bytes read as ``target``. With another element size
    the last dim (which must be contiguous) shrinks or grows by the ratio of the sizes, the
    other strides scale with it. Not differentiable (torch's view.dtype has no derivative):
    the result shares the memory and version counter, without a history."""
    cdef object array = self._data
    cdef Tensor out
    if self._is_conj:
        raise RuntimeError("torch.Tensor.view is not supported for conjugate view tensors "
                           "when converting to a different dtype.")
    old, new = array.dtype.itemsize, target.itemsize
    if old != new:
        what = (f"to view {scalar_name(array.dtype)} as {target._scalar_name} (different "
                f"element sizes)")
        if array.ndim == 0:
            raise RuntimeError(f"self.dim() cannot be 0 {what}")
        strides = [step // old for step in array.strides]
        if strides[-1] != 1:
            raise RuntimeError(f"self.stride(-1) must be 1 {what}, but got {strides[-1]}")
        if new > old:
            ratio = new // old
            if array.shape[-1] % ratio:
                raise RuntimeError(f"self.size(-1) must be divisible by {ratio} {what}, but "
                                   f"got {array.shape[-1]}")
            offset = self.storage_offset()
            if offset % ratio:
                raise RuntimeError(f"self.storage_offset() must be divisible by {ratio} "
                                   f"{what}, but got {offset}")
            for i, step in enumerate(strides[:-1]):
                if step % ratio:
                    raise RuntimeError(f"self.stride({i}) must be divisible by {ratio} "
                                       f"{what}, but got {step}")
    out = make_tensor(array.view(target.numpy))
    out._version_counter = version_counter(self)
    out._is_inference = self._is_inference
    return out


cdef object DTYPE = dtype      # the dtype class, under a name view's ``dtype=`` leaves free


def view(Tensor self, *shape, size=None, dtype=None):  # no-cython-lint (torch's name)
    """The same memory seen with another shape (fails where a copy would be needed), or,
    given a dtype, the same bytes read as that dtype."""
    if dtype is not None:
        if shape or size is not None:
            raise TypeError("view() received an invalid combination of arguments: a dtype "
                            "or a size, not both")
        return view_as_dtype(self, dtype)
    if len(shape) == 1 and isinstance(shape[0], DTYPE):
        return view_as_dtype(self, shape[0])
    shape = infer_size(int_list("view", "size", shape, size, VIEW_SIGNATURES), self._data.size)
    array = viewed(self._data, shape)
    if array is None:
        raise RuntimeError(
            "view size is not compatible with input tensor's size and stride (at least one "
            "dimension spans across two contiguous subspaces). Use .reshape(...) instead.")
    return record_view(view_node(self), self, array)


def reshape(Tensor self, *shape_args, shape=None):
    """``view`` when the memory allows it, else a reshaped copy."""
    shape = infer_size(int_list("reshape", "shape", shape_args, shape), self._data.size)
    array = viewed(self._data, shape)
    if array is not None:
        return record_view(view_node(self), self, array)
    # As PyTorch: a contiguous clone, then an "unsafe" view of it that is not a view.
    cdef Tensor copied = wrap(contiguous_array(self._data))
    if is_grad_enabled() and requires_grad(self):
        record1(CloneBackward0(), self, copied)
    if forward_level():
        forward1(copied, self, contiguous_tangent)
    return unsafe_view(copied, shape)


def view_as(Tensor self, Tensor other):
    """``self.view(other.shape)``."""
    return view(self, other._data.shape)


def reshape_as(Tensor self, Tensor other):
    """``self.reshape(other.shape)``."""
    return reshape(self, other._data.shape)


def flatten(Tensor self, start_dim=0, end_dim=-1):
    """Merge dims ``start_dim..end_dim`` into one (a view when the memory allows)."""
    cdef Py_ssize_t ndim = self._data.ndim
    if ndim == 0:
        return reshape(self, (1,))
    start = wrap_dim(start_dim, ndim)
    end = wrap_dim(end_dim, ndim)
    if start > end:
        raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
    if start == end:
        return self
    shape = self._data.shape
    merged = 1
    for n in shape[start:end + 1]:
        merged *= n
    return reshape(self, shape[:start] + (merged,) + shape[end + 1:])


def unflatten(Tensor self, dim, sizes):
    """Split dim ``dim`` into ``sizes`` (one of which may be -1); a view."""
    cdef Py_ssize_t d = wrap_dim(dim, self._data.ndim)
    sizes = tuple(sizes)
    if not sizes:
        raise RuntimeError("unflatten: sizes must be non-empty")
    size = self._data.shape[d]
    if -1 in sizes:
        sizes = infer_size(sizes, size)
    else:
        product = 1
        for n in sizes:
            product *= n
        if product != size:
            raise RuntimeError(
                f"unflatten: Provided sizes {list(sizes)} don't multiply up to the size of dim "
                f"{d} ({size}) in the input tensor")
    shape = self._data.shape
    return view(self, shape[:d] + sizes + shape[d + 1:])


# ------------------------------------------------------------------ dims

cdef class TransposeBackward0(Node):
    cdef readonly Py_ssize_t saved_dim0, saved_dim1

    batches_gradients = True     # NOTE [Batched gradients]
    complex_formulas = True     # it only moves the gradient's elements
    cpdef tuple apply(self, tuple grads):
        if self.saved_dim0 == self.saved_dim1:
            return (transpose(grads[0], -1, -1) if grads_batched() else
                    transpose(grads[0], self.saved_dim0, self.saved_dim1),)
        return (transpose(grads[0], batched_dim(self.saved_dim0),
                          batched_dim(self.saved_dim1)),)


def transpose(Tensor self, dim0, dim1):
    """Swap two dims (a view)."""
    cdef TransposeBackward0 node = TransposeBackward0()
    ndim = self._data.ndim
    node.saved_dim0 = wrap_dim(dim0, ndim)
    node.saved_dim1 = wrap_dim(dim1, ndim)
    if ndim == 0:
        return record_view(node, self, self._data.view())
    return record_view(node, self, self._data.swapaxes(node.saved_dim0, node.saved_dim1))


swapaxes = transpose
swapdims = transpose


cdef class TBackward0(Node):
    batches_gradients = True     # NOTE [Batched gradients]
    complex_formulas = True     # it only moves the gradient's elements
    cpdef tuple apply(self, tuple grads):
        grad = grads[0]
        if grads_batched():         # the gradient of a matrix is a batch of matrices
            return (transpose(grad, -1, -2) if grad.dim() == 3 else grad,)
        return (t(grad),)


def t(Tensor self):
    """Transpose a matrix; 0-d and 1-d tensors come back as they are (a view)."""
    if self._data.ndim > 2:
        raise RuntimeError(
            f"t() expects a tensor with <= 2 dimensions, but self is {self._data.ndim}D")
    return record_view(TBackward0() if view_records(self) else None, self, self._data.T)


cdef class PermuteBackward0(Node):
    cdef readonly tuple saved_dims

    batches_gradients = True     # NOTE [Batched gradients]
    complex_formulas = True     # it only moves the gradient's elements
    cpdef tuple apply(self, tuple grads):
        inverse = [0] * len(self.saved_dims)
        for i, d in enumerate(self.saved_dims):
            inverse[d] = i
        if grads_batched():
            return (permute(grads[0], (0,) + batched_dims(inverse)),)
        return (permute(grads[0], tuple(inverse)),)


def permute(Tensor self, *dims_args, dims=None):
    """Reorder the dims (a view)."""
    cdef PermuteBackward0 node = PermuteBackward0()
    dims = int_list("permute", "dims", dims_args, dims)
    if len(dims) != self._data.ndim:
        raise RuntimeError(
            "permute(sparse_coo): number of dimensions in the tensor input does not match the "
            f"length of the desired ordering of dimensions i.e. input.dim() = {self._data.ndim} "
            f"is not equal to len(dims) = {len(dims)}")
    dims = tuple(wrap_dim(d, self._data.ndim) for d in dims)
    if len(set(dims)) != len(dims):
        raise RuntimeError("permute(): duplicate dims are not allowed.")
    node.saved_dims = dims
    return record_view(node, self, np.transpose(self._data, dims))


cdef class AliasBackward0(Node):
    batches_gradients = True     # NOTE [Batched gradients]
    complex_formulas = True     # it only moves the gradient's elements
    cpdef tuple apply(self, tuple grads):
        return (grads[0],)


cdef Tensor alias(Tensor self):
    """A new view of all of ``self`` (``x[...]``, movedim of a 0-d tensor)."""
    return record_view(AliasBackward0() if view_records(self) else None, self,
                       self._data.view())


def movedim(Tensor self, source, destination):
    """Move dims ``source`` to positions ``destination``, the others keeping their order."""
    cdef Py_ssize_t ndim = self._data.ndim
    source = (source,) if isinstance(source, int) else tuple(source)
    destination = (destination,) if isinstance(destination, int) else tuple(destination)
    if len(source) != len(destination):
        raise RuntimeError(
            f"movedim: Invalid source or destination dims: source ({list(source)} dims) should "
            f"contain the same number of dims as destination ({list(destination)} dims)")
    src = [wrap_dim(d, ndim) for d in source]
    dst = [wrap_dim(d, ndim) for d in destination]
    if len(set(src)) != len(src):
        raise RuntimeError(f"movedim: repeated dim in `source` ({list(source)})")
    if len(set(dst)) != len(dst):
        raise RuntimeError(f"movedim: repeated dim in `destination` ({list(destination)})")
    if ndim == 0:
        return alias(self)
    order = [d for d in range(ndim) if d not in src]
    for to, frm in sorted(zip(dst, src)):
        order.insert(to, frm)
    return permute(self, tuple(order))


moveaxis = movedim


cdef class UnsqueezeBackward0(Node):
    cdef readonly Py_ssize_t saved_dim

    batches_gradients = True     # NOTE [Batched gradients]
    complex_formulas = True     # it only moves the gradient's elements
    cpdef tuple apply(self, tuple grads):
        return (squeeze(grads[0], batched_dim(self.saved_dim)),)


def unsqueeze(Tensor self, dim):
    """Insert a dim of size 1 at ``dim`` (a view)."""
    cdef UnsqueezeBackward0 node = UnsqueezeBackward0()
    node.saved_dim = wrap_dim(dim, self._data.ndim + 1)
    return record_view(node, self, np.expand_dims(self._data, node.saved_dim))


cdef class SqueezeBackward0(Node):
    cdef readonly tuple saved_self_sym_sizes

    batches_gradients = True     # NOTE [Batched gradients]
    complex_formulas = True     # it only moves the gradient's elements
    cpdef tuple apply(self, tuple grads):
        # torch's unsqueeze_to: one unsqueeze per squeezed dim (UnsqueezeBackward0 nodes
        # under create_graph), and the gradient itself when nothing was squeezed (so
        # autograd.grad may hand back the very tensor given as grad_outputs)
        grad = grads[0]
        sizes = self.saved_self_sym_sizes
        shape = batched_shape(grad, sizes)
        if (<Tensor>grad)._data.shape == shape:
            return (grad,)
        if len(shape) != len(sizes):        # a batch of gradients: its dims come first
            return (reshape(grad, shape),)
        dims = self.squeezed_dims()
        for d in range(len(sizes)):
            if sizes[d] == 1 and (dims is None or d in dims):
                grad = unsqueeze(grad, d)
        return (grad,)

    cdef tuple squeezed_dims(self):
        """The dims the forward was asked to squeeze; None: all of size 1."""
        return None


cdef class SqueezeBackward1(SqueezeBackward0):
    cdef readonly object saved_dim

    cdef tuple squeezed_dims(self):
        return self.saved_dim if isinstance(self.saved_dim, tuple) else (self.saved_dim,)


cdef class SqueezeBackward2(SqueezeBackward1):
    pass


cdef tuple SQUEEZE_SIGNATURES = ("()", "(int dim)", "(tuple of ints dim)")


def squeeze(Tensor self, dim=NOT_GIVEN):
    """Drop dims of size 1: all of them, or those of ``dim`` (int or tuple); a view."""
    cdef SqueezeBackward0 node
    shape = self._data.shape
    if dim is None:
        raise invalid_combination("squeeze", (None,), {}, SQUEEZE_SIGNATURES)
    if dim is NOT_GIVEN:
        node = SqueezeBackward0()
        axes = tuple(i for i, n in enumerate(shape) if n == 1)
    else:
        node = SqueezeBackward1() if isinstance(dim, int) else SqueezeBackward2()
        dims = (dim,) if isinstance(dim, int) else tuple(dim)
        wrapped = tuple(wrap_dim(d, self._data.ndim) for d in dims)
        (<SqueezeBackward1>node).saved_dim = wrapped[0] if isinstance(dim, int) else wrapped
        axes = tuple(d for d in wrapped if self._data.ndim and shape[d] == 1)
    node.saved_self_sym_sizes = shape
    return record_view(node, self, np.squeeze(self._data, axis=axes) if axes
                       else self._data.view())


# ------------------------------------------------------------------ expand / repeat

# NOTE [expand and sum differentiate into each other]
# expand's backward is a sum (sum_to: the broadcast dims summed away) and sum's backward is an
# expand, so reduction.pyx (sum) imports this module (expand) and this module cannot import
# reduction. reduction hands its two functions to the slots below as it is imported; the
# package imports every op module before any op runs, so a backward never finds them empty.

cdef object reduction_sum = None
cdef object reduction_sum_to_grad = None


cdef void use_reductions(object sum, object sum_to_grad) except *:
    """reduction.pyx's ``sum`` and ``sum_to_grad``, for expand's and repeat's backwards."""
    global reduction_sum, reduction_sum_to_grad
    reduction_sum, reduction_sum_to_grad = sum, sum_to_grad


cdef class ExpandBackward0(Node):
    cdef readonly tuple saved_self_sym_sizes

    batches_gradients = True     # NOTE [Batched gradients]
    complex_formulas = True     # it only moves the gradient's elements
    cpdef tuple apply(self, tuple grads):
        return (reduction_sum_to_grad(grads[0], self.saved_self_sym_sizes),)


def expand(Tensor self, *sizes, size=None, implicit=False):
    """Broadcast to ``sizes`` without copying (-1 keeps a dim); a view. ``implicit`` is
    accepted and ignored, as in PyTorch."""
    cdef ExpandBackward0 node = None
    sizes = int_list("expand", "size", sizes, size)
    shape = self._data.shape
    if len(sizes) < len(shape):
        type_name = from_numpy_dtype(self._data.dtype)._tensor_type
        raise RuntimeError(
            f"expand(autograd_cy.{type_name}{{{list(shape)}}}, size={list(sizes)}): the "
            f"number of sizes provided ({len(sizes)}) must be greater or equal to the number of "
            f"dimensions in the tensor ({len(shape)})")
    offset = len(sizes) - len(shape)
    strides = self._data.strides
    # An expanded dim reads one element again (stride 0); read-only, as np.broadcast_to's.
    target, target_strides = [], []
    for i, n in enumerate(sizes):
        if i < offset and n < 0:
            raise RuntimeError(f"The expanded size of the tensor ({n}) isn't allowed in a "
                               f"leading, non-existing dimension {i}")
        if i >= offset and n == -1:
            n = shape[i - offset]
        elif i >= offset and shape[i - offset] != n and shape[i - offset] != 1:
            raise RuntimeError(
                f"The expanded size of the tensor ({n}) must match the existing size "
                f"({shape[i - offset]}) at non-singleton dimension {i}.  Target sizes: "
                f"{list(sizes)}.  Tensor sizes: {list(shape)}")
        target.append(n)
        target_strides.append(0 if i < offset or shape[i - offset] != n else strides[i - offset])
    if view_records(self):
        node = ExpandBackward0()
        node.saved_self_sym_sizes = shape
    return record_view(node, self, strided_view(self._data, tuple(target),
                                                tuple(target_strides), False))


def expand_as(Tensor self, Tensor other):
    """``self.expand(other.shape)``."""
    return expand(self, other._data.shape)


cdef class RepeatBackward0(Node):
    cdef readonly tuple saved_repeats
    cdef readonly tuple saved_self_sym_sizes

    batches_gradients = True     # NOTE [Batched gradients]
    complex_formulas = True     # it only moves the gradient's elements
    cpdef tuple apply(self, tuple grads):
        # Output dim i is repeats[i] copies of the (1-padded) input dim: view it as
        # (repeats[i], size[i]) pairs and sum the copies away.
        repeats = self.saved_repeats
        if len(repeats) == len(self.saved_self_sym_sizes) and repeats.count(1) == len(repeats):
            # Nothing was repeated: PyTorch hands the gradient on as is (the same tensor).
            return (grads[0],)
        sizes = (1,) * (len(repeats) - len(self.saved_self_sym_sizes)) + self.saved_self_sym_sizes
        split = []
        for r, n in zip(repeats, sizes):
            split += [r, n]
        grad = reshape(grads[0], batched_shape(grads[0], tuple(split)))
        grad = reduction_sum(grad, batched_dims(range(0, 2 * len(repeats), 2)))
        return (reshape(grad, batched_shape(grad, self.saved_self_sym_sizes)),)


def repeat(Tensor self, *repeats_args, repeats=None):
    """Tile the tensor ``repeats[i]`` times along dim i (a copy)."""
    cdef RepeatBackward0 node
    repeats = int_list("repeat", "repeats", repeats_args, repeats)
    if len(repeats) < self._data.ndim:
        raise RuntimeError("Number of dimensions of repeat dims can not be smaller than number "
                           "of dimensions of tensor")
    padded = (1,) * (len(repeats) - self._data.ndim) + self._data.shape
    target = [r * n for r, n in zip(repeats, padded)]
    for n in target:
        if n < 0:
            raise RuntimeError(
                f"Trying to create tensor with negative dimension {n}: {target}")
    # contiguous, as PyTorch's (np.tile copies a transposed input in its memory order when
    # every repeat is 1)
    cdef Tensor out = wrap(contiguous_array(np.tile(self._data.reshape(padded), repeats)))
    if is_grad_enabled() and requires_grad(self):
        node = RepeatBackward0()
        node.saved_repeats = tuple(repeats)
        node.saved_self_sym_sizes = self._data.shape
        record1(node, self, out)
    if forward_level():
        forward1(out, self, linear_tangent, (repeat, repeats))
    return out


# ------------------------------------------------------------------ select / slice

cdef class SelectBackward0(Node):
    cdef readonly Py_ssize_t saved_dim, saved_index
    cdef readonly tuple saved_self_sym_sizes

    batches_gradients = True     # NOTE [Batched gradients]
    complex_formulas = True     # it only moves the gradient's elements
    cpdef tuple apply(self, tuple grads):
        grad = grads[0]
        return (select_backward(grad, batched_shape(grad, self.saved_self_sym_sizes),
                                batched_dim(self.saved_dim), self.saved_index),)


cdef Tensor select_unchecked(Tensor self, Py_ssize_t dim, Py_ssize_t index):
    """``self`` at position ``index`` (in range, non-negative) of dim ``dim``; a view."""
    cdef SelectBackward0 node = SelectBackward0()
    node.saved_dim = dim
    node.saved_index = index
    node.saved_self_sym_sizes = self._data.shape
    return record_view(node, self, self._data[leading(dim, index)])


def select(Tensor self, dim, index):
    """The slice at position ``index`` of dim ``dim``, that dim removed (a view)."""
    if self._data.ndim == 0:
        raise IndexError("select() cannot be applied to a 0-dim tensor.")
    cdef Py_ssize_t d = wrap_dim(dim, self._data.ndim)
    cdef Py_ssize_t i = index
    cdef Py_ssize_t size = self._data.shape[d]
    if i < -size or i >= size:
        raise IndexError(f"select(): index {i} out of range for tensor of size "
                         f"{list(self._data.shape)} at dimension {d}")
    return select_unchecked(self, d, i + size if i < 0 else i)


cdef class SelectBackwardBackward0(Node):
    cdef readonly Py_ssize_t saved_dim, saved_index

    batches_gradients = True     # NOTE [Batched gradients]
    complex_formulas = True     # it only moves the gradient's elements
    cpdef tuple apply(self, tuple grads):
        return (select_unchecked(grads[0], batched_dim(self.saved_dim), self.saved_index),)


def select_backward(Tensor grad, tuple sizes, Py_ssize_t dim, Py_ssize_t index):
    """Zeros of ``sizes`` holding ``grad`` at ``index`` of dim ``dim`` (differentiable)."""
    cdef SelectBackwardBackward0 node
    xp = array_module(grad._data)
    cdef Tensor out = make_tensor(xp.zeros(sizes, dtype=grad._data.dtype))
    out._data[leading(dim, index)] = grad._data
    if is_grad_enabled() and requires_grad(grad):
        node = SelectBackwardBackward0()
        node.saved_dim = dim
        node.saved_index = index
        record1(node, grad, out)
    if forward_level():
        forward1(out, grad, linear_tangent, (select_backward, sizes, dim, index))
    return out


cdef class SliceBackward0(Node):
    cdef readonly Py_ssize_t saved_dim, saved_start, saved_end, saved_step
    cdef readonly tuple saved_self_sym_sizes

    batches_gradients = True     # NOTE [Batched gradients]
    complex_formulas = True     # it only moves the gradient's elements
    cpdef tuple apply(self, tuple grads):
        grad = grads[0]
        return (slice_backward(grad, batched_shape(grad, self.saved_self_sym_sizes),
                               batched_dim(self.saved_dim), self.saved_start, self.saved_end,
                               self.saved_step),)


cdef Tensor slice_unchecked(Tensor self, Py_ssize_t dim, Py_ssize_t start, Py_ssize_t end,
                            Py_ssize_t step):
    """Elements ``start:end:step`` (clamped, step > 0) of dim ``dim``; a view."""
    cdef SliceBackward0 node = SliceBackward0()
    node.saved_dim = dim
    node.saved_start, node.saved_end, node.saved_step = start, end, step
    node.saved_self_sym_sizes = self._data.shape
    return record_view(node, self, self._data[leading(dim, slice(start, end, step))])


cdef class SliceBackwardBackward0(Node):
    cdef readonly Py_ssize_t saved_dim, saved_start, saved_end, saved_step

    batches_gradients = True     # NOTE [Batched gradients]
    complex_formulas = True     # it only moves the gradient's elements
    cpdef tuple apply(self, tuple grads):
        return (slice_unchecked(grads[0], batched_dim(self.saved_dim), self.saved_start,
                                self.saved_end, self.saved_step),)


def slice_backward(Tensor grad, tuple sizes, Py_ssize_t dim, Py_ssize_t start, Py_ssize_t end,
                   Py_ssize_t step):
    """Zeros of ``sizes`` holding ``grad`` at ``start:end:step`` of dim ``dim``."""
    cdef SliceBackwardBackward0 node
    xp = array_module(grad._data)
    cdef Tensor out = make_tensor(xp.zeros(sizes, dtype=grad._data.dtype))
    out._data[leading(dim, slice(start, end, step))] = grad._data
    if is_grad_enabled() and requires_grad(grad):
        node = SliceBackwardBackward0()
        node.saved_dim = dim
        node.saved_start, node.saved_end, node.saved_step = start, end, step
        record1(node, grad, out)
    if forward_level():
        forward1(out, grad, linear_tangent, (slice_backward, sizes, dim, start, end, step))
    return out


def narrow(Tensor self, dim, start, Py_ssize_t length):
    """Elements ``start:start + length`` of dim ``dim`` (a view)."""
    if self._data.ndim == 0:
        raise RuntimeError("narrow() cannot be applied to a 0-dim tensor.")
    if length < 0:
        raise RuntimeError("narrow(): length must be non-negative.")
    cdef Py_ssize_t d = wrap_dim(dim, self._data.ndim)
    cdef Py_ssize_t size = self._data.shape[d]
    cdef Py_ssize_t begin = start
    if begin < -size or begin > size:
        raise IndexError(f"start out of range (expected to be in range of [{-size}, {size}], "
                         f"but got {begin})")
    if begin < 0:
        begin += size
    if begin + length > size:
        raise RuntimeError(
            f"start ({begin}) + length ({length}) exceeds dimension size ({size}).")
    return slice_unchecked(self, d, begin, begin + length, 1)


# ------------------------------------------------------------------ view_as_real / view_as_complex
# NOTE [Complex views]
# A complex tensor's memory holds each element as two reals, real part first. view_as_real
# sees that memory as reals with a last dim of 2; view_as_complex reads pairs of reals as
# complex numbers. Both are views: writes through either reach the other, and they share
# the version counter. Their dtype is not their base's, so an in-place op on one, or on its
# base, is routed through the views machinery in real numbers (NOTE [Views of another
# dtype] in views.pyx). The gradient is the same numbers seen the other way back.

cdef class ViewAsRealBackward0(Node):
    """The real gradient's last dim of 2 read back as complex numbers."""
    batches_gradients = True     # NOTE [Batched gradients]
    complex_formulas = True

    cpdef tuple apply(self, tuple grads):
        return (view_as_complex(contiguous(grads[0])),)


cdef class ViewAsComplexBackward0(Node):
    """The complex gradient seen as reals, with a last dim of 2."""
    batches_gradients = True
    complex_formulas = True

    cpdef tuple apply(self, tuple grads):
        return (view_as_real(grads[0]),)


cdef object view_as_real_tangent(Tensor self_t, Tensor self, Tensor result, tuple extra):
    return view_as_real(self_t)


cdef object view_as_complex_tangent(Tensor self_t, Tensor self, Tensor result, tuple extra):
    return view_as_complex(contiguous(self_t))


def view_as_real(Tensor self):
    """A complex tensor's memory seen as reals: a view with one more dim, of size 2, holding
    each element's real and imaginary parts (float32 for complex64)."""
    array = self._data
    if not is_complex_array(array):
        raise RuntimeError("view_as_real is only supported for complex tensors")
    if self._is_conj:       # its memory is the mirror (NOTE [Conjugate views] in tensor.pyx)
        raise RuntimeError(
            "view_as_real doesn't work on unresolved conjugated tensors.  To resolve the "
            "conjugate tensor so you can view it as real, use self.resolve_conj(); however, "
            "be warned that the resulting tensor will NOT alias the original.")
    real_dtype = array.real.dtype
    return record_view(ViewAsRealBackward0.__new__(ViewAsRealBackward0), self,
                       array[..., None].view(real_dtype), view_as_real_tangent)


def view_as_complex(Tensor self):
    """Pairs of reals seen as complex numbers: a view of a float or double tensor whose last
    dim has size 2 and stride 1 (the real part, then the imaginary part), without it."""
    array = self._data
    if array.dtype != np.float32 and array.dtype != np.float64:
        if array.dtype == np.float16:
            raise NotImplementedError("view_as_complex of a Half tensor would be ComplexHalf, "
                                      "a dtype autograd_cy does not have")
        raise RuntimeError("view_as_complex is only supported for half, float and double "
                           f"tensors, but got a tensor of scalar type: {scalar_name(array.dtype)}")
    if array.ndim == 0:
        raise RuntimeError("Input tensor must have one or more dimensions")
    if array.shape[-1] != 2:
        raise RuntimeError("Tensor must have a last dimension of size 2")
    itemsize = array.itemsize
    strides = array.strides
    if array.size == 0 and not any(strides):
        # NumPy makes an empty array with zero strides, PyTorch with row-major ones
        strides = tuple([itemsize * int(np.prod(array.shape[d + 1:]))
                         for d in range(array.ndim)])
    if strides[-1] != itemsize:
        raise RuntimeError("Tensor must have a last dimension with stride 1")
    for n, s in zip(array.shape[:-1], strides[:-1]):
        if n != 1 and (s // itemsize) % 2:
            raise RuntimeError("Tensor must have a stride divisible by 2 for all but last "
                               "dimension")
    owner = self._base._data if self._base is not None else array
    if (data_address(array) - data_address(owner)) // itemsize % 2:
        raise RuntimeError("Tensor must have a storage_offset divisible by 2")
    complex_dtype = np.complex64 if array.dtype == np.float32 else np.complex128
    return record_view(ViewAsComplexBackward0.__new__(ViewAsComplexBackward0), self,
                       array.view(complex_dtype)[..., 0], view_as_complex_tangent)


cdef object view_as_real_op(object self):
    if (<Tensor>self)._is_conj:             # a gradient a hook returned as conj()
        self = self.resolve_conj()
    return view_as_real(self)


cdef object view_as_complex_op(object self):
    return view_as_complex(self)


# views.pyx routes a view of another dtype through these (NOTE [Views of another dtype])
tensor_operators().view_as_real = view_as_real_op
tensor_operators().view_as_complex = view_as_complex_op
batch_unary(view_as_real_tangent)
batch_unary(view_as_complex_tangent)

# NOTE [Complex tangents] in forward.pyx: these formulas are checked for complex tensors.
from autograd_cy._C.forward cimport complex_unary
complex_unary(view_as_real_tangent)
complex_unary(view_as_complex_tangent)
