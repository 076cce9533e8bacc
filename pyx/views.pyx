"""Views and versions: what in-place ops do to the graph.

A view (``x[1:]``, ``x.t()``) shares its base's memory and version counter. An in-place op
``x.mul_(y)`` is computed as its out-of-place twin, written back into ``x``'s memory (the
version counter goes up, so saved copies of the old value refuse to unpack), and then
*rebases* ``x``'s history: ``x.grad_fn`` becomes the new node, whose edge points at the old
one. When ``x`` is a view of a tensor that is part of a graph, the base is rebased instead,
through a CopySlices node that routes the view's slice of the base's gradient through the
op's node; the view's own grad_fn is rebuilt lazily (AsStridedBackward0) the next time it is
read (``get_grad_fn`` in tensor.pyx asks ``regenerate_view_grad_fn`` here).

The checks that refuse what PyTorch refuses live here too: in-place on a leaf that requires
grad, on views made in no_grad or inference mode or by multi-output ops, and writes whose
elements overlap the operands they read.
"""

import numpy as np
from numpy.lib.stride_tricks import as_strided
cimport numpy as cnp

from autograd_cy._C.grad_mode cimport (
    is_grad_enabled, is_inference_mode_enabled, next_sequence_nr, forward_level,
    suspend_forward_level, resume_forward_level,
)
from autograd_cy._C.dtype cimport scalar_name, kind_of, default_float
from autograd_cy._C.tensor cimport (
    Tensor, make_tensor, requires_grad, bump_version, version_counter, get_grad_fn,
    tensor_operators, VIEW_DEFAULT, VIEW_NO_GRAD_MODE, VIEW_MULTI_OUTPUT_NODE,
    VIEW_INFERENCE_MODE,
    gradient_metadata, array_module, make_view, tangent_of, conj_counterpart, flat_storage,
)
from autograd_cy._C.device cimport strided_view, array_to_device, device_of, data_address
from autograd_cy._C.forward cimport (
    set_tangent, any_tangent, batch_unary, zero_tangent_of, tangent_shape,
)
from autograd_cy._C.batching cimport tangent_batch
from autograd_cy._C.node cimport Node, NodeExtras, Edge, set_edges, make_edge, check_saved
from autograd_cy._C.saved_tensor cimport SavedTensor, before_write, freed_message
from autograd_cy._C.recording cimport gradient_edge, stamp
from autograd_cy._C.overlap cimport elementwise_overlap_checks
from autograd_cy._C.overlap import _INTERNAL_OVERLAP_ERROR
from autograd_cy._C.promotion cimport result_type, is_complex_array, half_precision_array
from autograd_cy._C.fp_errors cimport ignoring_fp_errors
from autograd_cy._C.kernels cimport binary_kernel_into, KERNEL_ADD, KERNEL_SUB, KERNEL_MUL

cnp.import_array()


# ------------------------------------------------------------------ geometry

cdef tuple geometry(object array, object base_array):
    """``(shape, strides, offset)`` of ``array`` in elements of ``base_array``'s storage."""
    itemsize = array.itemsize
    offset = (data_address(array) - data_address(base_array)) // itemsize
    return (array.shape, tuple(s // itemsize for s in array.strides), offset)


# NOTE [Views of another dtype]
# ``z.real``, ``z.imag`` and ``view_as_real(z)`` are real views of a complex base;
# ``view_as_complex(x)`` is a complex view of a real one. Their elements do not have the
# base's size, so the nodes below count both in real numbers: a complex array is seen as
# its view_as_real (one more dim, of size 2, stride 1), and the gradients of the complex
# side are viewed that way going in and back as complex numbers coming out. Every step is
# a recorded op, so create_graph differentiates through it as through the rest.

cdef tuple real_geometry(object array, object base_array):
    """geometry() in real numbers (NOTE [Views of another dtype]): a complex array as its
    real view, with a last dim of 2."""
    cdef bint is_complex = is_complex_array(array)
    unit = array.itemsize // 2 if is_complex else array.itemsize
    offset = (data_address(array) - data_address(base_array)) // unit
    strides = tuple(s // unit for s in array.strides)
    if is_complex:
        return (array.shape + (2,), strides + (1,), offset)
    return (array.shape, strides, offset)


cdef bint changes_dtype(Tensor view, Tensor base):
    """Is ``view`` real and its base complex, or the other way round?"""
    return is_complex_array(view._data) != is_complex_array(base._data)


cdef object as_real(object grad, bint is_complex):
    """A complex gradient seen as reals (NOTE [Views of another dtype])."""
    return tensor_operators().view_as_real(grad) if is_complex else grad


cdef object as_complex(object grad, bint is_complex):
    """The inverse of as_real: a real gradient with a last dim of 2 as complex numbers."""
    return tensor_operators().view_as_complex(grad) if is_complex else grad


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


cdef bint shares_memory(tuple geometry):
    """Do elements of this geometry share memory (a zero stride on a dim longer than 1)? A
    geometry without elements shares nothing, as torch's overlap check says of it."""
    shape, strides, _ = geometry
    if 0 in shape:
        return False
    for n, s in zip(shape, strides):
        if s == 0 and n > 1:
            return True
    return False


cdef object strided(object storage, tuple geometry):
    shape, strides, offset = geometry
    itemsize = storage.itemsize
    return as_strided(storage[offset:], shape=shape,
                      strides=tuple(s * itemsize for s in strides))


cdef object mirror_gradient(object grad):
    """A gradient across a conjugate view (NOTE [Conjugate views]): conj is its own adjoint,
    and the imaginary part of a conjugate view holds the negated imaginary part."""
    return grad.conj_physical() if is_complex_array((<Tensor>grad)._data) else -grad


cdef tuple view_geometries(Tensor view, Tensor base, bint changes):
    """The base's and the view's geometry, in real numbers where ``changes`` (a view of
    another dtype); a view in the other memory than its base is measured at its counterpart
    (NOTE [Conjugate views])."""
    array = conj_counterpart(view) if view._is_conj != base._is_conj else view._data
    if changes:
        return real_geometry(base._data, base._data), real_geometry(array, base._data)
    return base_geometry_of(base), geometry(array, base._data)


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

    def name(self):
        return "torch::autograd::CopySlices"      # a node of torch's C++, as AccumulateGrad
    cdef readonly tuple view_geometry
    cdef readonly Node fn
    cdef object positions
    cdef bint released        # PyTorch drops fn after backward: a second one is refused
    # The view's dtype is not the base's: geometries in real numbers, which side is complex
    # (NOTE [Views of another dtype])
    cdef bint base_complex, view_complex
    # The view is in the conjugate mirror and the base is not, or the other way round: the
    # gradient crosses it conjugated (negated for a real part, NOTE [Conjugate views])
    cdef bint mirrored

    # It moves gradients, and the in-place op's node it runs passed the complex formulas gate
    # when it was recorded: a real operand of that op gets the real part of its gradient.
    complex_formulas = True

    cpdef tuple apply(self, tuple grads):
        # Written with Tensor methods (the ops register them), so that under create_graph
        # the gather and scatter are recorded and differentiate again.
        cdef tuple result
        grad = grads[0]
        if grad is None:
            return (None,) * len(self.next_nodes)
        if self.released:
            raise RuntimeError(freed_message(self))
        if self.positions is None:
            self.positions = make_tensor(view_positions(self.base_geometry, self.view_geometry))
        flat = as_real(grad, self.base_complex).reshape(-1)
        if self.output_mask is not None:
            # fn's first input is the view: its gradient is needed exactly when the base's
            # is (a base outside the graph needs none, and fn may not have saved for it).
            self.fn.output_mask = (self.should_compute_output(0),) + self.output_mask[1:]
        try:
            check_saved(self.fn)
            view_grad = as_complex(flat[self.positions], self.view_complex)
            result = self.fn.apply((mirror_gradient(view_grad) if self.mirrored else view_grad,))
        finally:
            self.fn.output_mask = None
        if result[0] is not None and shares_memory(self.view_geometry):
            # PyTorch copies the view's gradient into the view's layout of the base's
            # gradient, and copy_ refuses to write into an expand.
            raise RuntimeError(_INTERNAL_OVERLAP_ERROR)
        if result[0] is None:
            view_grad = make_tensor(array_module((<Tensor>grad)._data).zeros(
                (<Tensor>self.positions)._data.shape, (<Tensor>flat)._data.dtype))
        else:
            view_grad = mirror_gradient(result[0]) if self.mirrored else result[0]
            view_grad = as_real(view_grad, self.view_complex)
            if (<Tensor>view_grad)._data.dtype != (<Tensor>flat)._data.dtype:
                # PyTorch copy_s the view's gradient into the base's: a cast, as an in-place
                # op with an operand of another dtype (x_view.div_(float64)) makes one
                view_grad = view_grad.to((<Tensor>flat).dtype)
        # A copy into the view's places (no overlap: refused above), not a sum into zeros:
        # a -0.0 of the view's gradient stays -0.0, as PyTorch's copy_ keeps it.
        flat = flat.index_put((self.positions,), view_grad)
        return ((as_complex(flat.reshape(self.base_geometry[0]), self.base_complex),)
                + tuple(result[1:]))

    cdef void release_variables(self):
        self.fn.release_variables()
        self.released = True


cdef class AsStridedBackward0(Node):
    """A view's grad_fn rebuilt after its base changed in place: scatter into the base."""
    cdef readonly tuple base_geometry
    cdef readonly tuple view_geometry
    cdef object positions
    cdef bint base_complex, view_complex, mirrored      # as CopySlices'

    cpdef tuple apply(self, tuple grads):
        grad = grads[0]
        if grad is None or not self.should_compute_output(0):
            return (None,)
        if self.mirrored:
            grad = mirror_gradient(grad)
        if self.positions is None:
            self.positions = make_tensor(view_positions(self.base_geometry, self.view_geometry))
        grad = as_real(grad, self.view_complex)
        shape = self.base_geometry[0]
        numel = 1
        for n in shape:
            numel *= n
        zeros = make_tensor(array_module((<Tensor>grad)._data).zeros(
            numel, (<Tensor>grad)._data.dtype))
        if (<Tensor>grad)._data.size == 0:
            # An empty view: zeros that do not depend on the gradient, as PyTorch's
            # as_strided_backward returns (no graph under create_graph).
            return (as_complex(zeros.reshape(shape), self.base_complex),)
        # PyTorch's as_strided_backward sums into zeros only where the view overlaps itself
        # (an expand); otherwise it copies, and a -0.0 of the gradient stays -0.0.
        flat = zeros.index_put((self.positions,), grad,
                               accumulate=shares_memory(self.view_geometry))
        return (as_complex(flat.reshape(shape), self.base_complex),)


cdef tuple base_geometry_of(Tensor base):
    return geometry(base._data, base._data)


cdef void regenerate_view_grad_fn(Tensor view) except *:
    """Rebuild a view's grad_fn after its base or a sibling changed in place (refused for
    views made in no_grad or inference mode, by multi-output ops or custom Functions)."""
    cdef Tensor base = view._base
    cdef AsStridedBackward0 node
    if view._grad_fn is None and not requires_grad(base):
        # Nothing to rebuild, and nothing remembered: should the base come to require grad,
        # the version moved since the view was made still makes the next read rebuild.
        return
    if view._creation_meta != VIEW_DEFAULT:
        # Refused on every read, as PyTorch does: the stale grad_fn is never trusted again.
        raise RuntimeError(view_error_message(view, True))
    view._grad_fn_version = version_counter(view).version
    node = AsStridedBackward0()
    node.sequence_nr = next_sequence_nr()
    cdef bint changes = changes_dtype(view, base)
    cdef bint crosses = view._is_conj != base._is_conj     # NOTE [Conjugate views]
    # a complex view across is a conjugate view (ConjBackward0 below); a real one, a negated
    # imaginary part (the node negates its gradient)
    cdef bint conjugates = crosses and is_complex_array(view._data)
    cdef Node conj_node
    if changes:
        node.base_complex = is_complex_array(base._data)
        node.view_complex = not node.base_complex
    node.mirrored = crosses and not conjugates
    node.base_geometry, node.view_geometry = view_geometries(view, base, changes)
    set_edges(node, (gradient_edge(base),))
    node.input_metadata = (gradient_metadata(view),)
    if not conjugates:
        take_history(view, node)
        return
    # A conjugate view is rebuilt as torch replays it: ConjBackward0 of the plain view (of
    # the base itself when the view covers all of it).
    conj_node = <Node>tensor_operators().conj_node(None)
    conj_node.sequence_nr = next_sequence_nr()
    if not changes and node.view_geometry == node.base_geometry:
        set_edges(conj_node, (gradient_edge(base),))
    else:
        set_edges(conj_node, (make_edge(node, 0),))
    conj_node.input_metadata = (gradient_metadata(view),)
    take_history(view, conj_node)


cdef void take_history(Tensor t, Node node) except *:
    """Make ``node`` the grad_fn of ``t`` (as its output 0); a retains-grad hook follows."""
    old_fn, old_nr = t._grad_fn, t._output_nr
    t._grad_fn = node
    t._output_nr = 0
    if old_fn is not None:
        move_retains_grad_hook(t, old_fn, old_nr)


cdef void rebase_history(Tensor self, Node node) except *:
    """Make ``node`` (the in-place op's backward) the new history of ``self``."""
    cdef Tensor base = self._base
    cdef CopySlices copy_slices
    if base is None:
        metadata = node.input_metadata[0]
        if metadata is not None and (<tuple>metadata)[1] != self._data.dtype:
            # The out-of-place result was promoted (float32 /= float64), but the output
            # is ``self``, of its own dtype: the node receives gradients of that dtype.
            node.input_metadata = (gradient_metadata(self),)
        take_history(self, node)
        return
    copy_slices = CopySlices()
    stamp(copy_slices)          # its sequence_nr, and where the in-place op ran
    cdef bint changes = changes_dtype(self, base)
    if changes:
        copy_slices.base_complex = is_complex_array(base._data)
        copy_slices.view_complex = not copy_slices.base_complex
    copy_slices.mirrored = self._is_conj != base._is_conj
    copy_slices.base_geometry, copy_slices.view_geometry = view_geometries(self, base, changes)
    copy_slices.fn = node
    # The base takes the place of the view's first input; the op's other inputs stay.
    cdef Edge base_edge = gradient_edge(base)
    copy_slices.next_nodes = (base_edge.function,) + node.next_nodes[1:]
    copy_slices.next_input_nrs = (base_edge.input_nr,) + node.next_input_nrs[1:]
    copy_slices.input_metadata = (gradient_metadata(base),)
    take_history(base, copy_slices)
    # The view's grad_fn goes stale: the version moved, so get_grad_fn rebuilds it.


cdef void write_back(Tensor self, Tensor out) except *:
    if out._data.shape != self._data.shape:
        raise RuntimeError(
            f"output with shape {list(self._data.shape)} doesn't match the broadcast shape "
            f"{list(out._data.shape)}")
    if out._data.dtype != self._data.dtype and not np.can_cast(
            out._data.dtype, self._data.dtype, "same_kind"):
        raise RuntimeError(
            f"result type {scalar_name(out._data.dtype)} can't be cast to "
            f"the desired output type {scalar_name(self._data.dtype)}")
    self._data[...] = out._data


cdef Tensor apply_inplace(Tensor self, object compute, tuple others, bint needs_original,
                          object ufunc=None, object operand=None,
                          OverlapChecks overlap_checks=NULL):
    """Run ``compute(self)`` (the out-of-place op) and make it ``self``'s new value and history.

    ``needs_original``: the op's backward reads ``self``'s old value, so the node
    must save a copy of it rather than the tensor that is about to change.
    ``ufunc``, ``operand``: the op as ``ufunc(self, operand)``; when nothing is recorded
    (an optimizer step under no_grad) it then runs straight into ``self``'s memory,
    without the out-of-place temporary and the copy back.
    ``overlap_checks``: what the op refuses of ``self``'s memory and ``others``' (NOTE
    [Memory overlap]); NULL for TensorIterator's checks, those of element-by-element ops.
    """
    cdef bint records = is_grad_enabled() and (
        requires_grad(self) or any_tensor_requires_grad(others))
    cdef Tensor source = self
    cdef Tensor out
    cdef unsigned long long level = forward_level()
    cdef bint tangents = level != 0 and (
        tangent_of(self, level) is not None or any_tangent(others, level))
    check_inplace(self, records)
    if overlap_checks is NULL:
        elementwise_overlap_checks(self, others)
    else:
        overlap_checks(self, others)
    make_writeable(self._data)
    if not records and ufunc is not None and not tangents:
        ufunc_into(self, ufunc, operand)
        bump_version(self)
        return self
    if records and needs_original:
        source = make_tensor(self._data.copy())
        source._grad_fn = get_grad_fn(self)
        source._output_nr = self._output_nr
        source._requires_grad = self._requires_grad
        source._fw_grad, source._fw_level = self._fw_grad, self._fw_level
        if self._fw_grad is not None:
            # a copy of the old tangent too: inplace_tangent writes the new one into self's
            # in place, and the saved old value keeps the old one (a Hessian through
            # x.clone().mul_(x) read the new tangent for the old value)
            source._fw_grad = self._fw_grad.clone()
    out = compute(source)
    write_back(self, out)
    bump_version(self)
    if records:
        node = <Node>out._grad_fn
        keep_self_as_result(node, out, self)
        rebase_history(self, node)
        if self._base is not None:
            # In place on a view, the node sits inside CopySlices: the saved result, once
            # unpacked, has the view's new grad_fn (which leads to CopySlices), as in PyTorch.
            view_history_for_saved_result(node, self)
    if tangents:
        inplace_tangent(self, out, level)
    return self


cdef void view_history_for_saved_result(Node node, Tensor view) except *:
    cdef SavedTensor saved
    if node.saved_tensors is None:
        return
    for entry in node.saved_tensors:
        if entry is not None and (<SavedTensor>entry).is_output:
            saved = <SavedTensor>entry
            if saved.data is view._data:
                saved.set_output_grad_fn(get_grad_fn(view))


cdef void keep_self_as_result(Node node, Tensor out, Tensor self):
    """The node saved the out-of-place result ``out`` (exp_, tanh_, pow_, leaky_relu_ ...),
    whose values are now ``self``'s: save ``self`` instead, as PyTorch does, so that a later
    in-place change of ``self`` or of its base is caught at backward. Not under a pack hook,
    which already holds what it packed."""
    cdef SavedTensor saved
    if node.saved_tensors is None:
        return
    for entry in node.saved_tensors:
        if entry is None:
            continue
        saved = <SavedTensor>entry
        if saved.is_output and saved.data is out._data and saved.unpack_hook is None:
            saved.rebind_output(self)


cdef inline void make_writeable(object array) except *:
    """NumPy marks broadcast views (``expand``) read-only; PyTorch writes through them.
    The flag is lifted when the memory's owner is writeable."""
    if type(array) is not cnp.ndarray or cnp.PyArray_ISWRITEABLE(<cnp.ndarray>array):
        return
    try:
        array.flags.writeable = True
    except ValueError:
        raise RuntimeError("cannot write into a tensor whose memory is read-only (for example "
                           "one made from a read-only buffer); clone() it first") from None


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
    if ufunc is np.true_divide and kind_of(dtype) not in "fc":   # integers divide to float
        dtype = default_float()
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
        raise RuntimeError(
            f"result type {scalar_name(dtype)} can't be cast to the desired "
            f"output type {scalar_name(self._data.dtype)}")
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
        if half_precision_array(array):
            # in float32, rounded once into ``array`` (NOTE [Half-precision products and
            # reductions]); a number is rounded to the dtype first for add and subtract
            if not isinstance(operand, cnp.ndarray):
                operand = np.float32(np.asarray(operand, array.dtype) if ufunc is ADD
                                     or ufunc is SUBTRACT else operand)
            np.copyto(array, ufunc(array.astype(np.float32), operand), casting="unsafe")
        elif isinstance(operand, cnp.ndarray) and operand.dtype is array.dtype:
            ufunc(array, operand, array)      # no cast: skip parsing keyword arguments
        else:
            ufunc(array, operand, out=array, casting="unsafe")


cpdef void move_retains_grad_hook(Tensor t, Node old_grad_fn, Py_ssize_t old_output_nr) except *:
    """After an in-place op rebased ``t``, its retains-grad hook follows it (tensor hooks
    stay on the old grad_fn)."""
    cdef NodeExtras old = old_grad_fn.extras
    if old is None or not old.retains_grad_hooks:
        return
    hook = old.retains_grad_hooks.pop(old_output_nr, None)
    if hook is None:
        return
    cdef NodeExtras new = (<Node>t._grad_fn).get_extras()
    if new.retains_grad_hooks is None:
        new.retains_grad_hooks = {}
    new.retains_grad_hooks[t._output_nr] = hook


# --------------------------------------------------------------- in-place checks

_NO_GRAD_VIEW = (
    "{prefix} no_grad mode and {what} modified inplace with grad mode enabled. Given that "
    "this use case is ambiguous and error-prone, it is forbidden. You can clarify your code "
    "by moving both the view and the inplace either both inside the no_grad block (if you "
    "don't want the inplace to be tracked) or both outside (if you want the inplace to be "
    "tracked).")
_INFERENCE_VIEW = (
    "{prefix} inference mode and {what} modified inplace in normal mode. Given that this use "
    "case is ambiguous and error-prone, it is forbidden. You can clarify your code by moving "
    "both the view and the inplace either both inside the inference_mode block (if you don't "
    "want the inplace to be tracked) or both outside (if you want the inplace to be tracked).")
_MULTI_OUTPUT_VIEW = (
    "Output {nr} of {op} is a view and {what} modified inplace. This view is the output of a "
    "function that returns multiple views. Such functions do not allow the output views to "
    "be modified inplace. You should replace the inplace operation by an out-of-place one.")
_CUSTOM_FUNCTION_VIEW = (
    "Output {nr} of {op} is a view and {what} modified inplace. This view was created inside "
    "a custom Function (or because an input was returned as-is) and the autograd logic to "
    "handle view+inplace would override the custom backward associated with the custom "
    "Function, leading to incorrect gradients. This behavior is forbidden. You can fix this "
    "by cloning the output of the custom Function.")


cpdef str view_error_message(Tensor view, bint indirect):
    """PyTorch's message for a forbidden in-place on a view (``indirect``: on its base or
    another view of it). A view without a grad_fn can only have been made in no_grad mode;
    a view with one, of a view made in no_grad or inference mode, inherited that mode."""
    meta = view._creation_meta
    what = "its base or another view of its base has been" if indirect else "is being"
    has_grad_fn = view._grad_fn is not None
    if meta == VIEW_INFERENCE_MODE or meta == VIEW_NO_GRAD_MODE or not has_grad_fn:
        prefix = (f"Output {view._output_nr} of {view._view_op_name} is a view of a view "
                  "which was created in" if has_grad_fn else "A view was created in")
        message = (_INFERENCE_VIEW if meta == VIEW_INFERENCE_MODE else _NO_GRAD_VIEW).format(
            prefix=prefix, what=what)
        if meta == VIEW_INFERENCE_MODE or meta == VIEW_NO_GRAD_MODE:
            return message
        # A multi-output or custom-Function view made in no_grad mode: both explanations.
        template = _MULTI_OUTPUT_VIEW if meta == VIEW_MULTI_OUTPUT_NODE else _CUSTOM_FUNCTION_VIEW
        tail = template[template.index("modified inplace.") + len("modified inplace."):]
        return message[:message.index(".") + 1] + tail
    template = _MULTI_OUTPUT_VIEW if meta == VIEW_MULTI_OUTPUT_NODE else _CUSTOM_FUNCTION_VIEW
    return template.format(nr=view._output_nr, op=view._view_op_name, what=what)


cdef void check_inference_inplace(Tensor self) except *:
    """Before any write (in-place op, ``out=``, in-place view op): inference rule, before_write."""
    if self._is_inference and not is_inference_mode_enabled():
        raise RuntimeError(
            "Inplace update to inference tensor outside InferenceMode is not allowed.You can "
            "make a clone to get a normal tensor before doing inplace update.See "
            "https://github.com/pytorch/rfcs/pull/17 for more details.")
    before_write(self)


cdef void check_inplace(Tensor self, bint records) except *:
    """Refuse the in-place ops PyTorch refuses: on a leaf that requires grad (or a view of
    one), on inference tensors outside inference mode, on views whose creation forbids it.
    ``records``: grad mode is on."""
    check_inference_inplace(self)
    if not is_grad_enabled():
        return
    if self._grad_fn is None and self._requires_grad:
        if self._base is not None:
            raise RuntimeError("a view of a leaf Variable that requires grad is being used in "
                               "an in-place operation.")
        raise RuntimeError("a leaf Variable that requires grad is being used in an in-place "
                           "operation.")
    if self._base is not None:
        base = self._base
        # The view's own creation rules come first, as in PyTorch's check_inplace.
        meta = self._creation_meta
        if meta != VIEW_DEFAULT and (requires_grad(<Tensor>base) or records):
            if meta == VIEW_INFERENCE_MODE and is_inference_mode_enabled():
                return
            raise RuntimeError(view_error_message(self, False))
        if (<Tensor>base)._grad_fn is None and requires_grad(self):
            # A view that requires grad, of a leaf: normally a leaf that requires grad, but
            # also one detach_()ed after the view was made (the view keeps its grad_fn).
            raise RuntimeError("a view of a leaf Variable that requires grad is being used in "
                               "an in-place operation.")


# NOTE [Writing into an expand]
# index_put_ and masked_fill_ write into a tensor whose elements share memory. Writing
# their out-of-place result back element by element would let the last alias in memory
# order win, where PyTorch's kernel lets the last *write* win (``e[[2, 0]] = v`` leaves
# v[1] in every row of an expanded ``e``; with accumulate, every value is added). So
# these ops write into ``self``'s memory themselves, as the kernel does, and their result
# is a copy of that memory, which write_back then leaves as it is. (fill_ and zero_ write
# one value everywhere; every other op refuses such a tensor.)


cdef object regenerate_grad_fn(object view):
    regenerate_view_grad_fn(<Tensor>view)
    return None


tensor_operators().regenerate_view_grad_fn = regenerate_grad_fn


# ------------------------------------------------------------------ forward AD
#
# NOTE [Tangents of views and in-place ops]
# As in PyTorch, a view's tangent is the same view of its base's tangent (shared memory): an
# in-place op writes its tangent into ``self``'s in place (``copy_``), so a view's shows in
# its base's (made zero first if it had none). ``view_tangent`` applies the view's geometry
# relative to ``self`` to ``self``'s tangent, which has ``self``'s layout (a tangent of
# another layout is gathered element by element: a copy, no longer sharing memory).

cdef object element_positions(object array, object origin):
    """The memory offset (in elements, from ``origin``'s first) of each element, C order."""
    shape, strides, offset = geometry(array, origin)
    index = np.full(shape, offset, dtype=np.int64)
    for d in range(len(shape)):
        index = index + np.arange(shape[d], dtype=np.int64).reshape(
            (-1,) + (1,) * (len(shape) - d - 1)) * strides[d]
    return index.reshape(-1)


cdef object view_tangent(Tensor self_t, Tensor self, Tensor result, tuple extra):
    """The tangent of ``result``, a view of ``self``: the same view of ``self``'s tangent
    ``self_t`` (NOTE [Tangents of views and in-place ops]); of a batched tangent's every row."""
    tangent = self_t._data
    cdef Py_ssize_t batch = tangent_batch()
    tangent_strides = geometry(tangent, tangent)[1]
    if tangent_strides[1 if batch else 0:] == geometry(self._data, self._data)[1]:
        shape, strides, offset = geometry(result._data, self._data)
        if batch:
            shape, strides = (batch,) + shape, tangent_strides[:1] + strides
        if is_grad_enabled() and requires_grad(self_t):
            # Recorded, so the tangent's graph stays differentiable (reverse-over-forward);
            # a method call, as the ops that implement it sit above this module.
            owner = self_t._base if self_t._base is not None else self_t
            own_offset = (data_address(tangent) - data_address(owner._data)) // tangent.itemsize
            return self_t.as_strided(shape, strides, own_offset + offset)
        itemsize = tangent.itemsize
        array = strided_view(flat_storage(tangent)[offset:], shape,
                             tuple([s * itemsize for s in strides]), True)
        return make_view(array, self_t)
    # Another layout: gather the tangent's elements at the positions the view reads.
    self_positions = element_positions(self._data, self._data)
    order = np.argsort(self_positions, kind="stable")
    wanted = element_positions(result._data, self._data)
    index = make_tensor(array_to_device(order[np.searchsorted(self_positions[order], wanted)],
                                        device_of(tangent)))
    if batch:
        return self_t.reshape((batch, -1))[:, index].reshape((batch,) + result._data.shape)
    return self_t.reshape((-1,))[index].reshape(result._data.shape)


batch_unary(view_tangent)


cdef object fresh_tangent(Tensor self, unsigned long long level):
    """A zero tangent for ``self``; a view's is the view of its base's (zero if none). A base's
    has the base's layout, so that its views' tangents are views of it (a base laid out as a
    transpose, ``x.t().clone()``, got a C-order tangent: a view's was a copy, and an in-place
    op on the view did not reach the base's tangent)."""
    cdef Tensor base = self._base
    if base is None:
        if tangent_shape(self) == self._data.shape:
            set_tangent(self, make_tensor(array_module(self._data).zeros_like(self._data)),
                        level)
        else:
            set_tangent(self, zero_tangent_of(self), level)
        return self._fw_grad
    base_t = tangent_of(base, level)
    if base_t is None:
        base_t = fresh_tangent(base, level)
    if self._is_conj != base._is_conj:
        # a conjugate view's tangent: the conjugate view of its counterpart's (NOTE
        # [Conjugate views]); an imaginary part's, negated, is a copy
        plain_t = view_tangent(base_t, base, make_tensor(conj_counterpart(self)), ())
        return plain_t.conj() if is_complex_array(self._data) else -plain_t
    return view_tangent(base_t, base, self, ())


cdef void inplace_tangent(Tensor self, Tensor out, unsigned long long level) except *:
    """After an in-place op computed as ``out``: ``out``'s tangent, into ``self``'s in place."""
    out_t = tangent_of(out, level)
    if out_t is None:
        return
    self_t = tangent_of(self, level)
    if self_t is None and self._base is None:       # out's tangent is new: self takes it
        set_tangent(self, out_t, level)
        return
    suspend_forward_level()
    try:
        if self_t is None:
            self_t = fresh_tangent(self, level)
        self_t.copy_(out_t)
    finally:
        resume_forward_level(level)
    set_tangent(self, self_t, level)


# NOTE [Complex tangents] in forward.pyx: these formulas are checked for complex tensors.
from autograd_cy._C.forward cimport complex_unary
complex_unary(view_tangent)
