"""AccumulateGrad: the sink of a leaf, and the rules for how ``.grad`` is laid out.

A leaf that requires grad is fed by one AccumulateGrad node, created on first use and held
weakly by the leaf (the graph holds it strongly), so the node lives exactly as long as some
graph uses the leaf. Its ``apply`` adds the incoming gradient into ``leaf.grad``:

- the first gradient becomes ``.grad`` itself when nobody else can see it (NOTE [Stealing
  the gradient]), otherwise a copy laid out like the leaf (the "gradient layout contract":
  the leaf's strides when it is dense, else row-major);
- later gradients are added in place, so ``.grad`` keeps its identity and its strides --
  unless ``create_graph``, where the sum is out of place and differentiable.
"""
cimport cython
import threading
import warnings

from cpython.ref cimport Py_REFCNT
from cpython.weakref cimport PyWeakref_NewRef
cimport numpy as cnp
cnp.import_array()
from libc.stdint cimport UINT64_MAX

from autograd_cy._C.grad_mode cimport is_grad_enabled
from autograd_cy._C.tensor cimport (
    Tensor, make_tensor, requires_grad, array_module, bump_version,
    gradient_metadata, set_grad_flush, detached,
)
from autograd_cy._C.node cimport Node
from autograd_cy._C.device cimport backend_of, element_strides, is_dense
from autograd_cy._C.graph_task cimport current_tasks
from autograd_cy._C.tracing cimport tracing_flag, trace_accumulate, trace_hook

cdef int* tracing_active = tracing_flag()     # a trace records (NOTE [Tracing the engine])


@cython.final
cdef class AccumulateGrad(Node):
    """The sink of a leaf: adds the incoming gradient into ``variable.grad``."""

    def __cinit__(self, Tensor variable=None):
        self.variable = variable
        self.sequence_nr = UINT64_MAX
        if variable is not None:
            self.input_metadata = (gradient_metadata(variable),)

    def name(self):
        return "torch::autograd::AccumulateGrad"

    cdef dict tensor_hooks(self):
        # Leaf hooks live on the tensor, so they outlive this (weakly cached) node.
        if self.variable._hooks:
            return {0: self.variable._hooks}
        return None

    cpdef tuple apply(self, tuple grads):
        cdef Tensor variable = self.variable
        cdef object grad = grads[0]
        if grad is not None and variable._requires_grad:
            if variable._grad_fn is not None:
                raise RuntimeError("leaf variable has been moved into the graph interior")
            with self.lock:
                if tracing_active[0]:       # NOTE [Tracing the engine] in tracing.pyx
                    before = variable._grad
                    accumulate_grad(variable, <Tensor>grad)
                    trace_accumulate(self, variable, before, grad)
                else:
                    accumulate_grad(variable, <Tensor>grad)
        if variable._post_accumulate_grad_hooks:
            for hook in list(variable._post_accumulate_grad_hooks.values()):
                if tracing_active[0]:
                    trace_hook("post accumulate grad", self, 0, hook)
                result = hook(variable)
                if result is variable:
                    continue        # handing the parameter back is the same as None
                if isinstance(result, Tensor):
                    raise RuntimeError("Tensor post accumulate grad hooks should return None.")
                if result is not None:
                    raise TypeError(
                        f"expected Variable, but hook returned '{type(result).__name__}'")
        return ()


# NOTE [Stealing the gradient]
# The first gradient that reaches a leaf may become its ``.grad`` without a copy -- but only
# if nobody else can see that tensor or its memory, or a later in-place accumulation into
# ``.grad`` would change what someone else holds (a tensor a hook kept, a gradient that also
# went to another input, the caller's ``grad_tensors``). PyTorch decides this with the
# tensor's use count; we do the same with Python's reference counts: while AccumulateGrad
# runs, the engine itself holds the gradient ENGINE_REFERENCES times (the InputBuffer list,
# the grads tuple, the local in ``apply``), and its array once (the tensor) plus our local.
# Any reference beyond those means it is shared: copy. The array must also own its memory
# (``base is None``: not a view of something else), have the leaf's dtype and obey the
# layout contract. A gradient that is a view (of a keepdim sum: NOTE [sum_to returns a
# view]) is taken, detached, when its base and the base's memory are held by nothing else:
# torch counts the uses of the view alone. A test in tests/test_engine.py pins this against
# torch's ``data_ptr()``: we steal exactly when torch does.
cdef Py_ssize_t ENGINE_REFERENCES = 3


cdef void accumulate_grad(Tensor variable, Tensor grad) except *:
    """Accumulate ``grad`` into ``variable.grad`` by PyTorch's gradient layout rules."""
    cdef Tensor old = variable._grad
    if old is None:
        if not is_grad_enabled() and can_steal(variable, grad):
            variable._grad = grad if grad._base is None else detached(grad)
        elif is_grad_enabled() and requires_grad(grad):
            # create_graph: a differentiable copy, laid out like the leaf (CopyBackwards).
            copy = make_tensor(xp_empty_like(variable._data, grad._data.dtype))
            variable._grad = copy.copy_(grad)
        else:
            variable._grad = make_tensor(copy_with_layout(grad._data, variable._data))
    elif not is_grad_enabled():
        # In place, as PyTorch's AccumulateGrad adds outside grad mode, so a user-assigned
        # .grad keeps its identity and strides.
        if not defer_addition(variable, old, grad):
            old._data += grad._data
        bump_version(old)
        check_layout_contract(old, variable)
    else:
        variable._grad = old + grad
        check_layout_contract(variable._grad, variable)


# NOTE [Deferred gradient accumulation]
# On a CUDA device each in-place ``.grad += g`` is a launch, one per parameter, every
# backward that accumulates (micro-batches, ``.grad`` kept instead of set to None). Those
# additions are independent, so instead of running them in AccumulateGrad they wait in
# `deferred` and run at the end of the backward as one multi-tensor launch per device and
# dtype (NOTE [Multi-tensor launch] in cuda/foreach.cu): the engine calls
# flush_deferred_accumulation when its ready queue is empty (before the final callbacks)
# and when the backward ends, by error too. The version counter is bumped at once, as the
# in-place add would.
# Nothing may see a .grad before its addition lands, so an addition is deferred only when
# - a backward is running on this thread (AccumulateGrad called by hand runs at once) and
#   its leaf has no post-accumulate-grad hook (which would read .grad right after);
# - both arrays are contiguous CUDA arrays of one shape and dtype (the kernel's table);
# - neither array is already in a deferred addition as the other role, nor the target
#   twice: one launch must not read what it writes (that flushes first);
# and every ``.grad`` read flushes first: the Tensor's ``grad`` property calls the flush
# while additions wait (``set_grad_flush`` of pyx/tensor.pyx). Flushing early is
# always correct (the additions commute), so a flush runs every waiting addition, of any
# backward of any thread; the lock orders the flushes and the additions. What it cannot see
# is a tensor taken from ``.grad`` before the backward and read inside it (by a hook):
# that reads the value before this backward's addition. Whether an addition may wait is
# the target's backend's can_add_in_place_together (NOTE [One backend interface] in
# device.pxd); the CPU's is False: NumPy's add is no launch.
cdef list deferred = []                 # (target array, addend array) pairs
cdef set deferred_targets = set()       # data addresses of the targets ...
cdef set deferred_addends = set()       # ... and of the addends, to refuse overlaps
deferred_lock = threading.RLock()


cdef bint defer_addition(Tensor variable, Tensor old, Tensor grad) except -1:
    """Queue ``old += grad`` for the end of the backward (the rules of NOTE [Deferred
    gradient accumulation]); False when it must run now."""
    target, addend = old._data, grad._data
    if (not backend_of(target).can_add_in_place_together(target, addend)
            or variable._post_accumulate_grad_hooks or not current_tasks()):
        return False
    target_address, addend_address = target.data_ptr(), addend.data_ptr()
    with deferred_lock:
        if (target_address in deferred_targets or target_address in deferred_addends
                or addend_address in deferred_targets):
            flush_deferred_accumulation()
        deferred.append((target, addend))
        deferred_targets.add(target_address)
        deferred_addends.add(addend_address)
        set_grad_flush(flush_deferred_accumulation)
    return True


cdef void flush_deferred_accumulation() except *:
    """Run every deferred ``.grad`` addition: one multi-tensor launch per device and dtype."""
    if not deferred:
        return
    with deferred_lock:
        if deferred:
            pairs = list(deferred)
            deferred.clear()
            deferred_targets.clear()
            deferred_addends.clear()
            backend_of(pairs[0][0]).add_in_place_together(pairs)
        set_grad_flush(NULL)


cdef bint _layout_warned = False


cdef void check_layout_contract(Tensor grad, Tensor param) except *:
    """Warn once per process when ``.grad`` is not laid out like its leaf:
    the same strides when the leaf is dense, else row-major contiguous."""
    global _layout_warned
    if _layout_warned or grad._data.strides == param._data.strides:
        return
    if obeys_layout_contract(grad._data, param._data):
        return
    _layout_warned = True
    warnings.warn(
        "grad and param do not obey the gradient layout contract. This is not an error, but "
        "may impair performance.\n"
        f"grad.sizes() = {list(grad._data.shape)}, strides() = {element_strides(grad._data)}\n"
        f"param.sizes() = {list(param._data.shape)}, strides() = "
        f"{element_strides(param._data)}", UserWarning, stacklevel=2)


cdef bint obeys_layout_contract(object grad, object param):
    cdef list grad_strides = element_strides(grad)
    cdef list param_strides = element_strides(param)
    cdef Py_ssize_t i
    if not is_dense(param):
        return bool(grad.flags.c_contiguous)
    for i in range(len(param_strides)):
        if param.shape[i] != 1 and grad_strides[i] != param_strides[i]:
            return False
    return True


cdef bint can_steal(Tensor variable, Tensor grad):
    """May ``grad`` itself become ``.grad``? (NOTE [Stealing the gradient])"""
    cdef object array = grad._data          # this local is the array's second reference
    if not (Py_REFCNT(grad) <= ENGINE_REFERENCES
            and Py_REFCNT(array) == 2
            and grad._grad_fn is None
            and not grad._requires_grad):
        return False
    if grad._base is not None:
        return sole_view(grad) and layout_fits(array, variable._data)
    if type(array) is cnp.ndarray and type(variable._data) is cnp.ndarray:
        # The same tests on NumPy arrays, through the C API (every training step asks)
        return (cnp.PyArray_BASE(<cnp.ndarray>array) is NULL
                and cnp.PyArray_DESCR(<cnp.ndarray>array)
                is cnp.PyArray_DESCR(<cnp.ndarray>variable._data)
                and (same_strides(<cnp.ndarray>array, <cnp.ndarray>variable._data)
                     or obeys_layout_contract(array, variable._data)))
    return array.base is None and layout_fits(array, variable._data)


cdef bint sole_view(Tensor grad):
    """Is ``grad``, a view, the only way to its base and to the base's memory, and all of
    that memory, writeable? (An expanded gradient, a sum's backward, is a read-only view of
    fewer elements: the next backward's accumulation into it would fail.)"""
    cdef object base = grad._base
    cdef object owner = (<Tensor>base)._data
    if Py_REFCNT(base) != 2:            # held by the view and this local only
        return False
    if grad._data.size != owner.size:
        return False
    if type(owner) is cnp.ndarray and type(grad._data) is cnp.ndarray:
        # The base's array owns the memory and is held by the base, by the view's array
        # (NumPy's views hold the array that owns their memory) and this local.
        return (cnp.PyArray_BASE(<cnp.ndarray>owner) is NULL
                and cnp.PyArray_BASE(<cnp.ndarray>grad._data) is <cnp.PyObject*>owner
                and Py_REFCNT(owner) == 3
                and cnp.PyArray_ISWRITEABLE(<cnp.ndarray>grad._data))
    # A CUDA array's views hold its memory, not the array: held by the base and this local.
    return owner.base is None and Py_REFCNT(owner) == 2


cdef bint layout_fits(object array, object param):
    """The dtype and strides a stolen gradient must have (NOTE [Stealing the gradient])."""
    return (array.dtype == param.dtype
            and (array.strides == param.strides or obeys_layout_contract(array, param)))


cdef bint same_strides(cnp.ndarray a, cnp.ndarray b) noexcept:
    cdef int axis
    if cnp.PyArray_NDIM(a) != cnp.PyArray_NDIM(b):
        return False
    for axis in range(cnp.PyArray_NDIM(a)):
        if cnp.PyArray_STRIDES(a)[axis] != cnp.PyArray_STRIDES(b)[axis]:
            return False
    return True


cdef object xp_empty_like(object param_array, object dtype):
    return array_module(param_array).empty_like(param_array, dtype=dtype)


cdef object copy_with_layout(object grad_array, object param_array):
    """A copy of the gradient laid out like the parameter when it is dense."""
    result = xp_empty_like(param_array, grad_array.dtype)
    result[...] = grad_array
    return result


cdef AccumulateGrad get_accumulator(Tensor leaf):
    """The leaf's AccumulateGrad, created on first use and held weakly by the leaf, so
    there is at most one per leaf and it lives as long as some graph uses it."""
    cdef AccumulateGrad acc = None
    if leaf._accumulator is not None:
        acc = leaf._accumulator()
    if acc is None:
        acc = AccumulateGrad(leaf)
        leaf._accumulator = PyWeakref_NewRef(acc, None)
    return acc
