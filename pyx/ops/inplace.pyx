"""zero_, fill_ and copy_: in-place ops whose backward ignores the old value.

They run through the in-place machinery of views.pyx (``apply_inplace``), like every
in-place op.
"""
import numpy as np

from autograd_cy._C.grad_mode cimport is_grad_enabled, forward_level
from autograd_cy._C.forward cimport forward2
from autograd_cy._C.dtype cimport check_convertible
from autograd_cy._C.fp_errors cimport ignoring_fp_errors
from autograd_cy._C.half_cast cimport float16_to_float32
from autograd_cy._C.device cimport empty_result_like
from autograd_cy._C.device import MetaArray
from autograd_cy._C.tensor cimport (
    Tensor, make_tensor, requires_grad, bump_version, version_counter,
    array_module,
)
from autograd_cy._C.node cimport Node
from autograd_cy._C.recording cimport record
from autograd_cy._C.views cimport apply_inplace, check_inference_inplace
from autograd_cy._C.overlap cimport (
    no_overlap_checks, elementwise_overlap_checks, check_no_internal_overlap, same_data,
)

__all__ = ["zero_", "fill_", "copy_"]
__tensor_methods__ = ("zero_", "fill_", "copy_")


cdef inline object zeros_for_old_value(Node node, object grad):
    """The old value of an overwritten tensor gets a zero gradient (not None): the edge to
    its history stays, and what lies behind it still runs (and checks its saved tensors)."""
    if grad is None or not node.should_compute_output(0):
        return None
    array = (<Tensor>grad)._data
    return make_tensor(array_module(array).zeros_like(array))


cdef class FillBackward2(Node):
    """``x.fill_(number)``: the old x gets zeros."""

    complex_formulas = True     # linear: zeros or the gradient itself
    cpdef tuple apply(self, tuple grads):
        return (zeros_for_old_value(self, grads[0]),)


cdef class FillBackward3(Node):
    """``x.fill_(value)`` with a 0-dim tensor: the old x gets zeros, value the grad's sum."""

    complex_formulas = True     # linear: zeros or the gradient itself
    cpdef tuple apply(self, tuple grads):
        grad = grads[0]
        value_grad = None
        if self.should_compute_output(1) and grad is not None:
            value_grad = grad.sum()
        return (zeros_for_old_value(self, grad), value_grad)


cdef class ZeroBackward0(Node):
    """``x.zero_()``: the old x gets zeros."""

    complex_formulas = True     # linear: zeros or the gradient itself
    cpdef tuple apply(self, tuple grads):
        return (zeros_for_old_value(self, grads[0]),)


cdef class CopyBackwards(Node):
    """``x.copy_(src)``: the old x gets zeros; src the gradient (cast and summed to its
    shape)."""

    def name(self):
        return "torch::autograd::CopyBackwards"

    complex_formulas = True     # linear: zeros or the gradient itself
    cpdef tuple apply(self, tuple grads):
        grad = grads[0]
        return (zeros_for_old_value(self, grad),
                grad if self.should_compute_output(1) else None)


cdef object filled_tangent(self_t, value_t, self, value, Tensor result, tuple extra):
    """``fill_``'s tangent: ``value_t`` (of a 0-dim tensor ``value``) in every element, in
    ``self``'s dtype; zeros for a number."""
    zeros = make_tensor(array_module(result._data).zeros_like(result._data))
    return zeros if value_t is None else copy_(zeros, value_t)


cdef object copy_tangent(self_t, src_t, self, src, Tensor result, tuple extra):
    """``copy_``'s tangent: ``src_t`` broadcast to ``self``'s shape (in its own dtype, as
    PyTorch keeps it), or zeros."""
    zeros = make_tensor(array_module(result._data).zeros_like(result._data))
    return zeros if src_t is None else src_t + zeros.to(src_t.dtype)


cdef object scalar_as(object value, object numpy_dtype):
    """A number (checked by ``check_convertible``) as a NumPy scalar of ``numpy_dtype``, cast
    as C++ casts it: -1 is 255 in uint8, 1e308 inf in float16, quietly."""
    array = np.asarray(value)
    if array.dtype.kind == "c" and numpy_dtype.kind != "c":
        array = array.real          # checked: no imaginary part
    with ignoring_fp_errors():
        return array.astype(numpy_dtype)[()]


def _filled(Tensor source, value, Node node):
    cdef Tensor out = make_tensor(empty_result_like(source._data))
    if isinstance(value, Tensor):
        out._data[...] = (<Tensor>value)._data
    else:
        out._data[...] = scalar_as(value, out._data.dtype)
    if is_grad_enabled() and (requires_grad(source) or (
            isinstance(value, Tensor) and requires_grad(<Tensor>value))):
        record(node, (source, value) if isinstance(value, Tensor) else (source,), (out,))
    if forward_level():
        forward2(out, source, value, filled_tangent)
    return out


def zero_(Tensor self):
    """Fill with zeros, in place."""
    if type(self._data) is MetaArray:       # NOTE [Meta tensors]: nothing to write
        return self
    return apply_inplace(self, lambda x: _filled(x, 0, ZeroBackward0()), (), False,
                         None, None, no_overlap_checks)


cdef class ZeroGradientBackward(Node):
    """The node of an in-place op through which no gradient flows (``x.lt_(y)``: x's old
    value gets zeros, as PyTorch's LtBackward does), named as PyTorch names it."""
    cdef str node_name

    batches_gradients = True     # zeros like the gradient, batch dim and all
    complex_formulas = True     # zeros
    cpdef tuple apply(self, tuple grads):
        return (zeros_for_old_value(self, grads[0]),)

    def name(self):
        return self.node_name


def apply_in_place(Tensor self, object compute, tuple others=(), str zero_node=None):
    """``compute(self)``, an out-of-place op written in Python (a composite of recorded ops),
    made ``self``'s new value and history as PyTorch's in-place ops are: the leaf, view and
    overlap checks, the result cast back to ``self``'s dtype (refused where it cannot be,
    in torch's words), the version bump, CopySlices for a view, forward-AD tangents.
    ``others``: the op's other tensor arguments. The composite reads a copy of ``self``'s
    old value when it records (it may save ``self``). A result without a gradient (a
    comparison) records ``zero_node``, a ZeroGradientBackward of that name."""
    def recorded(Tensor source):
        out = compute(source)
        if (zero_node is not None and is_grad_enabled() and requires_grad(source)
                and (<Tensor>out)._grad_fn is None):
            node = ZeroGradientBackward()
            node.node_name = zero_node
            out = make_tensor((<Tensor>out)._data.astype(source._data.dtype))
            record(node, (source,), (out,))
        return out
    return apply_inplace(self, recorded, others, True)


cdef void fill_overlap_checks(Tensor self, tuple others) except *:
    """fill_ with a tensor is ``copy_`` from it (from a clone when it aliases ``self``),
    so only an ``expand`` is refused; a number is read once and refuses nothing."""
    if isinstance(others[0], Tensor):
        check_no_internal_overlap(self)


def fill_(Tensor self, value):
    """Fill with ``value`` (a number or a 0-dim tensor), in place."""
    if isinstance(value, Tensor) and (<Tensor>value)._data.ndim != 0:
        raise RuntimeError(
            "fill_ only supports 0-dimension value tensor but got tensor with "
            f"{(<Tensor>value)._data.ndim} dimensions.")
    if not isinstance(value, Tensor):
        # PyTorch's one-element fill casts a float16 without the check.
        check_convertible(value, self._data.dtype,
                          self._data.size != 1 or self._data.dtype != np.float16)
    if type(self._data) is MetaArray:
        return self
    node_type = FillBackward3 if isinstance(value, Tensor) else FillBackward2
    return apply_inplace(self, lambda x: _filled(x, value, node_type()), (value,), False,
                         None, None, fill_overlap_checks)


cdef void copy_overlap_checks(Tensor self, tuple others) except *:
    """copy_ returns at once, refusing nothing, when ``src`` is ``self``'s very data (the
    same memory, layout and dtype, an ``expand`` too); else TensorIterator's checks."""
    if not same_data(self, <Tensor>others[0]):
        elementwise_overlap_checks(self, others)


def copy_(Tensor self, Tensor src, non_blocking=False):
    """Copy ``src`` (broadcast to ``self``'s shape, cast to its dtype) into ``self``."""
    if type(src._data) is MetaArray and type(self._data) is not MetaArray:
        raise NotImplementedError("Cannot copy out of meta tensor; no data!")
    try:
        np.broadcast_shapes(src._data.shape, self._data.shape)
        if np.broadcast_shapes(src._data.shape, self._data.shape) != self._data.shape:
            raise ValueError
    except ValueError:
        raise RuntimeError(
            f"The size of tensor a ({self._data.shape[-1] if self._data.ndim else 1}) must "
            f"match the size of tensor b ({src._data.shape[-1] if src._data.ndim else 1}) at "
            "non-singleton dimension") from None
    if type(self._data) is MetaArray:
        return self
    if (type(self._data) is not type(src._data) and type(src._data) is not MetaArray
            and (type(self._data) is np.ndarray or src._data.ndim != 0)):
        # Across devices (load_state_dict of a checkpoint saved on the GPU into a model on
        # the CPU, or the other way): the values move to self's device first, the gradient
        # goes back through ``to``. A CPU scalar into a CUDA tensor needs no move.
        src = src.to(device=self.device)

    def compute(Tensor x):
        cdef Tensor out = make_tensor(np.empty_like(x._data))
        if float16_to_float32(src._data, out._data) is None:  # NOTE [Rounding to float16]
            out._data[...] = src._data
        if is_grad_enabled() and (requires_grad(x) or requires_grad(src)):
            record(CopyBackwards(), (x, src), (out,))
        if forward_level():
            forward2(out, x, src, copy_tangent)
        return out
    return apply_inplace(self, compute, (src,), False, None, None, copy_overlap_checks)


def _check_write(Tensor t):
    """What every write into ``t`` checks first (an inference tensor outside inference
    mode, allow_mutation_on_saved_tensors' clone): for writes that bypass the ops, such as
    the multi-tensor kernels of ``_foreach_*_``."""
    check_inference_inplace(t)


def _increment_version(Tensor t):
    """``autograd.graph.increment_version`` of one tensor: an inference tensor has no
    version counter to bump and is left alone, as in PyTorch."""
    if not t._is_inference:
        bump_version(t)


def _unsafe_set_version_counter(tuple tensors, tuple versions):
    """Set each tensor's version counter (shared with its views) back to a value it had:
    ``_unsafe_preserve_version_counter`` hides in-place changes from the saved-tensor checks."""
    for t, version in zip(tensors, versions):
        version_counter(<Tensor?>t).version = version


# NOTE [Complex tangents] in forward.pyx: these formulas are checked for complex tensors.
from autograd_cy._C.forward cimport complex_binary
complex_binary(filled_tangent)
complex_binary(copy_tangent)
