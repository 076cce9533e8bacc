# Design: the Tensor is an array plus the autograd metadata PyTorch keeps on a Variable. It is
# the lowest layer that knows of autograd: it cimports only grad_mode, provenance, dtype and
# device, and knows nothing of Node internals (`_grad_fn` is typed `object`). The modules above
# give it its operators and methods (NOTE [How Tensor gets its methods] in tensor.pyx).

from autograd_cy._C.provenance cimport recording_provenance, caller_code

cdef class VersionCounter:
    # Bumped by every in-place op; shared by a base, its views and detach(). A SavedTensor
    # remembers the version it saw and compares on unpack.
    cdef unsigned long long version
    cdef object bumped_code           # where the last in-place write ran (NOTE [Provenance])
    cdef int bumped_lasti
    # NOTE [Conjugate views] (tensor.pyx): the base's array and the storage that holds its
    # conjugate (weakly: it lives as long as a conjugate view), or None for both.
    cdef object conj_root
    cdef object conj_storage


# Why a view exists, for the rules on in-place ops through views.
cdef enum CreationMeta:
    VIEW_DEFAULT = 0
    VIEW_NO_GRAD_MODE = 1
    VIEW_MULTI_OUTPUT_NODE = 2
    VIEW_IN_CUSTOM_FUNCTION = 3
    VIEW_INFERENCE_MODE = 4


cdef class Tensor:
    cdef object _data                    # numpy.ndarray (CPU) or DeviceArray (CUDA)
    cdef bint _requires_grad             # the leaf flag; a non-leaf requires grad via grad_fn
    cdef object _grad                    # Tensor or None
    cdef object _grad_fn                 # Node or None (None <=> leaf)
    cdef Py_ssize_t _output_nr           # which output of _grad_fn this tensor is
    cdef VersionCounter _version_counter  # created lazily; shared with views
    cdef Tensor _base                    # the tensor this is a view of, or None
    cdef int _creation_meta              # CreationMeta of a view
    cdef object _view_op_name            # forward op that made the view ("Unbind"), for errors
    cdef unsigned long long _grad_fn_version  # version when a view's grad_fn was last set
    cdef dict _hooks                     # leaf tensor hooks: handle id -> fn
    cdef dict _post_accumulate_grad_hooks
    cdef object _accumulator             # weakref to this leaf's AccumulateGrad
    cdef bint _retains_grad
    cdef bint _is_inference
    cdef bint _is_conj                   # memory in the conjugate mirror (NOTE [Conjugate views])
    cdef object _fw_grad                 # forward AD tangent (a Tensor) or None
    cdef unsigned long long _fw_level    # the dual level of _fw_grad (NOTE [Forward AD levels])
    cdef dict __dict__
    cdef object __weakref__


# NOTE [How Tensor gets its methods] (tensor.pyx): the table of what Tensor's own class
# body calls in the layers above it; each entry is filled by the module that implements it.
ctypedef object (*unary_fn)(object)
ctypedef object (*binary_fn)(object, object)
ctypedef object (*ternary_fn)(object, object, object)

cdef struct TensorOperators:
    binary_fn add, sub, rsub, mul, div, rdiv, floordiv, rfloordiv, pow, rpow, matmul, rmatmul
    binary_fn iadd, isub, imul, idiv, ifloordiv, ipow
    binary_fn eq, ne, lt, le, gt, ge
    binary_fn bitwise_and, bitwise_or, bitwise_xor
    unary_fn neg, abs, bitwise_not
    binary_fn getitem
    ternary_fn setitem
    unary_fn repr                   # PyTorch's print format (tensor_repr.pyx)
    unary_fn regenerate_view_grad_fn  # a view's grad_fn after an in-place op (views.pyx)
    binary_fn sum_to                # a gradient summed to a shape (reduction.pyx, below ops)
    unary_fn view_as_real, view_as_complex  # a view of another dtype's gradient (views.pyx)
    unary_fn conj_node              # a new ConjBackward0, for a rebuilt conjugate view's grad_fn

cdef TensorOperators* tensor_operators() noexcept
cdef void register_methods(dict methods) except *

# NOTE [Deferred gradient accumulation] (accumulate_grad.pyx): while additions into a .grad
# wait for the end of a backward, accumulate_grad sets the flush every .grad read runs first
# (and NULL once nothing waits).
ctypedef void (*grad_flush_fn)() except *
cdef void set_grad_flush(grad_flush_fn flush) noexcept


cdef Tensor make_tensor(object array)
cdef Tensor make_view(object array, Tensor source)
cdef VersionCounter version_counter(Tensor t)
cdef Tensor detached(Tensor t)
cdef object get_grad_fn(Tensor t)
cdef object array_module(object array)
cdef tuple gradient_metadata(Tensor t)
cdef Py_ssize_t wrap_dim(Py_ssize_t dim, Py_ssize_t ndim) except -1
cdef object flat_storage(object array)
cdef object conj_counterpart(Tensor t)
cdef void sync_conj_mirror(Tensor t, VersionCounter counter) except *


cdef inline bint requires_grad(Tensor t) noexcept:
    # A view also requires grad when its base does (a view of a leaf that later called
    # requires_grad_(), a view whose base joined the graph through an in-place op); its
    # base is never itself a view.
    return (t._requires_grad or t._grad_fn is not None
            or (t._base is not None
                and (t._base._requires_grad or t._base._grad_fn is not None)))


cdef inline object tangent_of(object x, unsigned long long level):
    """The tangent of ``x`` at the active dual ``level`` (``forward_level()``), or None: for a
    non-Tensor, a tensor without one, or one whose tangent belongs to an exited level."""
    if not isinstance(x, Tensor) or (<Tensor>x)._fw_grad is None or (<Tensor>x)._fw_level != level:
        return None
    return (<Tensor>x)._fw_grad


cdef inline void bump_version(Tensor t) except *:
    """Count an in-place write into ``t``'s memory and, with provenance on, where it ran."""
    cdef VersionCounter counter = version_counter(t)
    counter.version += 1
    if counter.conj_storage is not None:
        sync_conj_mirror(t, counter)
    if recording_provenance():
        counter.bumped_code = caller_code(&counter.bumped_lasti)
