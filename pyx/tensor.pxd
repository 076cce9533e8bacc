# Design: the Tensor is an array plus the autograd metadata PyTorch keeps on a
# Variable. It knows nothing of Node internals (node.pxd cimports this file, never
# the reverse): `_grad_fn` is typed `object` and only the engine and the op
# modules look inside it.

cdef class VersionCounter:
    # Bumped by every in-place op; shared by a base, its views and detach()
    # (engine_semantics 7.1). SavedTensors compare against it at unpack time.
    cdef unsigned long long version


# Why a view exists, for the view + in-place rules (engine_semantics 7.5).
cdef enum CreationMeta:
    VIEW_DEFAULT = 0
    VIEW_NO_GRAD_MODE = 1
    VIEW_MULTI_OUTPUT_NODE = 2
    VIEW_IN_CUSTOM_FUNCTION = 3
    VIEW_INFERENCE_MODE = 4


cdef class Tensor:
    cdef object _data                    # numpy.ndarray (CPU) or cupy.ndarray (GPU)
    cdef bint _requires_grad             # the leaf flag; a non-leaf requires grad via grad_fn
    cdef object _grad                    # Tensor or None
    cdef object _grad_fn                 # Node or None (None <=> leaf)
    cdef Py_ssize_t _output_nr           # which output of _grad_fn this tensor is
    cdef VersionCounter _version_counter # created lazily; shared with views
    cdef Tensor _base                    # the tensor this is a view of, or None
    cdef int _creation_meta              # CreationMeta of a view
    cdef object _view_op_name            # forward op that made the view ("Unbind"), for errors
    cdef unsigned long long _grad_fn_version  # version when a view's grad_fn was last set
    cdef dict _hooks                     # leaf tensor hooks: handle id -> fn
    cdef dict _post_accumulate_grad_hooks
    cdef object _accumulator             # weakref to this leaf's AccumulateGrad
    cdef bint _retains_grad
    cdef bint _is_inference
    cdef dict __dict__
    cdef object __weakref__


# NOTE [Operator table]: the op modules cimport tensor.pxd, so tensor.pyx cannot import
# them; instead each installs C pointers to its hot functions here at import time, and
# the Tensor operators call through them (a NULL entry falls back to the Python namespace).
ctypedef object (*binary_op)(object, object)

cdef struct FastOps:
    binary_op add
    binary_op sub
    binary_op mul
    binary_op iadd
    binary_op isub

cdef FastOps* fast_ops() noexcept


cdef Tensor make_tensor(object array)
cdef Tensor make_view(object array, Tensor source)
cdef VersionCounter version_counter(Tensor t)
cdef void bump_version(Tensor t) except *
cdef object get_grad_fn(Tensor t)
cdef object array_module(object array)


cdef inline bint requires_grad(Tensor t) noexcept:
    return t._requires_grad or t._grad_fn is not None
