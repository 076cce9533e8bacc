"""Saved tensors: what a Node keeps for its backward formula (PyTorch's SavedVariable).

# NOTE [Saved tensors]
An op's backward often reads its inputs or its result (``MulBackward0`` reads both factors,
``TanhBackward0`` its result). Recording saves them in the Node's ``saved_tensors``, one
SavedTensor each, which remembers the tensor's version at saving time: if an in-place op
changes the tensor before backward reads it, ``unpack`` raises PyTorch's "modified by an
inplace operation" error instead of returning a wrong gradient. A finished backward
releases them (``Node.release_variables``) unless ``retain_graph``; reading one after that
raises the "backward through the graph a second time" error.

As PyTorch's generated ``apply`` unpacks every value its node saved before computing any
gradient, the engine checks them all (``check_saved``) before it runs a built-in node, even
one whose formula reads a value only for a gradient that this backward does not need, or
one that receives no gradient at all. A formula reads only what its needed gradients use;
recording saves only what the gradients of the inputs that get a gradient edge use (``x * y``
with only ``x`` requiring grad saves ``y`` alone), so the check sees exactly what PyTorch
saved.

A saved *input* is kept as the tensor object itself. A node's own *output* is kept only as
its array and version counter, and re-wrapped with ``grad_fn = node`` on each unpack: the
node owns its saved values, so owning its own output would be a reference cycle
(node -> output -> node) that only the garbage collector could free.

``saved_tensors_hooks`` (pack/unpack pairs on a per-thread stack) take over the storage:
``pack_hook`` runs once at saving time, ``unpack_hook`` at each access.

# NOTE [Native saved-tensor hooks]
Non-reentrant checkpointing (autograd_cy/utils/checkpoint.py) packs and unpacks every tensor
its region saves. Its hooks are NativeHook objects (pyx/checkpoint_hooks.pyx): saving and
unpacking call their C method ``call`` instead of making a Python call, and saving skips
the grad-mode switch and the "pack hook modified its input" check, which only guard hooks
that may run ops: a NativeHook runs none and writes nothing. They stay callable, so that
``_current_saved_tensors_hooks()`` and any caller see ordinary hooks.
"""
cimport cython
from cpython.ref cimport PyObject
import threading
import weakref

from autograd_cy._C.grad_mode cimport (
    set_grad_enabled, is_inference_mode_enabled, is_anomaly_enabled,
)
from autograd_cy._C.grad_mode import _is_grad_enabled
from autograd_cy._C.tensor cimport (
    Tensor, make_tensor, version_counter, requires_grad, VersionCounter,
)
from autograd_cy._C.dtype cimport tensor_type_name
from autograd_cy._C.provenance import created_sentence, bumped_sentence
from autograd_cy._C.provenance cimport forward_op_name


_FREED_MESSAGE = (
    "Trying to backward through the graph a second time (or directly access saved tensors "
    "after they have already been freed). Saved intermediate values of the graph are freed "
    "when you call .backward() or autograd.grad(). Specify retain_graph=True if you need to "
    "backward through the graph a second time or if you need to access saved tensors after "
    "calling backward.")


cdef str freed_message(object owner):
    """PyTorch's "second time" error, then where ``owner``'s forward op ran (NOTE
    [Provenance])."""
    return _FREED_MESSAGE if owner is None else _FREED_MESSAGE + created_sentence(owner)


_INFERENCE_SAVE_MESSAGE = (
    "Inference tensors cannot be saved for backward. Please do not use Tensors created in "
    "inference mode in computation tracked by autograd. To work around this, you can make a "
    "clone to get a normal tensor and use it in autograd, or use `torch.no_grad()` instead "
    "of `torch.inference_mode()`.")

# ---- saved_tensors_hooks: a per-thread stack of (pack, unpack) pairs; the innermost applies.
# `save` runs on every recorded op, so "are hooks active?" is one C thread-local load;
# the Python stack itself lives in a threading.local and is read only when it is set.
cdef extern from *:
    """
    static __thread int autograd_cy_saved_hooks_depth = 0;
    static __thread PyObject *autograd_cy_saved_hooks_top = NULL;  /* borrowed from the stack */
    """
    int autograd_cy_saved_hooks_depth
    PyObject *autograd_cy_saved_hooks_top

_hooks_local = threading.local()


cdef list _hooks_stack():
    stack = getattr(_hooks_local, "stack", None)
    if stack is None:
        stack = _hooks_local.stack = []
    return stack


def _push_saved_tensors_hooks(pack, unpack):
    """Make ``(pack, unpack)`` the innermost pair (only that one applies)."""
    message = getattr(_hooks_local, "disabled_message", None)
    if message is not None:
        raise RuntimeError(message)
    stack = _hooks_stack()
    stack.append((pack, unpack))
    _set_top(stack)


def _pop_saved_tensors_hooks():
    stack = _hooks_stack()
    stack.pop()
    _set_top(stack)


cdef void _set_top(list stack):
    """Mirror this thread's stack in the two C thread-locals that ``save`` reads: its depth
    and (borrowed: the stack holds it until it is popped) its innermost pair."""
    global autograd_cy_saved_hooks_depth, autograd_cy_saved_hooks_top
    autograd_cy_saved_hooks_depth = len(stack)
    autograd_cy_saved_hooks_top = NULL
    if stack:
        autograd_cy_saved_hooks_top = <PyObject*>stack[-1]


def _disable_saved_tensors_hooks(message):
    """Forbid saved_tensors_hooks with ``message``; returns the previous setting."""
    previous = getattr(_hooks_local, "disabled_message", None)
    if message is not None and autograd_cy_saved_hooks_depth:
        raise RuntimeError(message)
    _hooks_local.disabled_message = message
    return previous


cdef tuple hooks_state():
    """This thread's saved_tensors_hooks setting, to carry to a thread that works for it."""
    return (list(_hooks_stack()), getattr(_hooks_local, "disabled_message", None))


cdef void set_hooks_state(tuple state) except *:
    """Adopt a setting taken by ``hooks_state`` on another thread (this one starts empty)."""
    stack, message = state
    _hooks_local.stack = list(stack)
    _hooks_local.disabled_message = message
    _set_top(_hooks_local.stack)


def _current_saved_tensors_hooks():
    stack = _hooks_stack()
    return stack[-1] if stack else None


# NOTE [Before a tensor is written]
# Every op that writes into an existing tensor (in-place ops, ``out=``, the in-place view
# ops) first calls check_inference_inplace (views.pyx), which calls before_write. Right
# there, before the write, ``autograd.graph.allow_mutation_on_saved_tensors`` must clone
# the tensor's value when it is saved for backward (PyTorch intercepts the mutating op the
# same way). The hook is None outside that context: one comparison per in-place op.
cdef object before_write_hook = None


def _set_before_write_hook(hook):
    """Install ``hook(tensor)``, called before any op writes into ``tensor`` (None: no
    hook); returns the previous one."""
    global before_write_hook
    previous = before_write_hook
    before_write_hook = hook
    return previous


cdef void before_write(Tensor t) except *:
    if before_write_hook is not None:
        before_write_hook(t)


cdef class NativeHook:
    """A saved_tensors_hooks hook with a C entry point (NOTE [Native saved-tensor hooks]);
    subclasses define ``call``."""

    cdef object call(self, object value):
        raise NotImplementedError

    def __call__(self, value):
        return self.call(value)


@cython.freelist(262144)
cdef class SavedTensor:
    """A tensor kept for backward (PyTorch's SavedVariable), version-checked on unpack.

    An input of the node is kept as the tensor object itself; the node's own output
    only as its array (plus version counter), re-wrapped with ``grad_fn = node`` on
    each unpack, so that node -> output -> node is never a reference cycle.
    """

    def __init__(self, *args, **kwargs):
        # save() makes them with __new__, which skips this
        raise RuntimeError("Trying to create a SavedTensor object from Python is forbidden.")

    def register_hooks(self, pack_hook, unpack_hook):
        """Replace how this value is stored: ``pack_hook`` now, ``unpack_hook`` on access."""
        if self.was_none:
            raise RuntimeError("Calling register_hooks on a saved tensor with value None is "
                               "forbidden")
        if self.freed:
            raise RuntimeError(
                "Calling register_hooks on a saved tensor after it has been freed. Saved "
                "intermediate values of the graph are freed when you call .backward() or "
                "autograd.grad(). Specify retain_graph=True if you need to backward through "
                "the graph a second time or if you need to access saved variables after "
                "calling backward.")
        if self.unpack_hook is not None:
            raise RuntimeError("Calling register_hooks on a saved tensor whose hooks have "
                               "already been set. Hint: only one pair of hooks is allowed at a "
                               "time.")
        value = self.data
        if self.is_output:
            value = make_tensor(self.data)
            self._restore_metadata(value, None)
        self._apply_hooks(pack_hook, unpack_hook, value)

    cdef _apply_hooks(self, pack_hook, unpack_hook, Tensor value):
        """Hand storage to a pack hook (run under no_grad, exactly once)."""
        cdef bint previous
        cdef unsigned long long version
        if value._grad_fn is None and value._requires_grad:
            # A leaf: keep (weakly) its AccumulateGrad, so gradients of the unpacked tensor
            # still reach this leaf's .grad. Recording saves after it made the node's edges,
            # so the leaf's accumulator exists by now.
            self.is_leaf_or_input_kept = True
            self.input_grad_fn = value._accumulator
        if isinstance(pack_hook, NativeHook):     # NOTE [Native saved-tensor hooks]
            self.packed = (<NativeHook>pack_hook).call(value)
            self.unpack_hook = unpack_hook
            self.data = None
            return
        previous = _is_grad_enabled()
        version = version_counter(value).version
        set_grad_enabled(False)
        try:
            self.packed = pack_hook(value)
        finally:
            set_grad_enabled(previous)
        if version_counter(value).version != version:
            raise RuntimeError(
                "A saved tensor pack hook is modifying its input in place. Tensors provided as "
                "input to pack hook cannot be modified by in-place operations as this can lead "
                "to unexpected side-effects. Please open an issue if you need to perform "
                "in-place operations on the input to a pack hook.")
        self.unpack_hook = unpack_hook
        self.data = None

    cpdef object unpack(self, object owner=None):
        """The saved tensor; raises if it was freed or modified in place since saving."""
        cdef Tensor result
        if self.was_none:
            return None
        if self.freed:
            raise RuntimeError(freed_message(owner))
        if self.unpack_hook is not None:
            # Hooks take over storage; PyTorch skips the version check here.
            if isinstance(self.unpack_hook, NativeHook):
                value = (<NativeHook>self.unpack_hook).call(self.packed)
            else:
                value = self.unpack_hook(self.packed)
            if not isinstance(value, Tensor):
                raise TypeError("Output of saved tensor unpack_hook expected to be a Tensor but "
                                f"got result of type {type(value).__name__}")
            if (not self.saved_requires_grad and not requires_grad(<Tensor>value)
                    and self.fw_grad is None):
                # Nothing to attach: what the hook gave, itself (PyTorch avoids the detach;
                # a non-reentrant checkpoint gives back the very input tensor it saved).
                return value
            result = make_tensor((<Tensor>value)._data)
            self._restore_metadata(result, owner)
            # What the hook returned owns the memory now: share its version counter, not
            # that of the tensor that was packed.
            result._version_counter = version_counter(<Tensor>value)
            return result
        if (<VersionCounter>self.version_counter).version != self.saved_version:
            raise RuntimeError(self._version_message(owner))
        if not self.is_output:
            if self.input_grad_fn is not None and (<Tensor>self.data)._grad_fn is None:
                raise RuntimeError(_DETACHED_MESSAGE)
            return self.data
        result = make_tensor(self.data)
        self._restore_metadata(result, owner)
        if self.fw_grad is not None:
            # The output's tangent goes with it (forward AD through a backward formula).
            result._fw_grad, result._fw_level = self.fw_grad
        return result

    cdef int check(self, object owner) except -1:
        """``unpack``'s checks, without unpacking: what PyTorch's generated ``apply`` does to
        every value its node saved before it computes any gradient (NOTE [Saved tensors])."""
        if self.was_none:
            return 0
        if self.freed:
            raise RuntimeError(freed_message(owner))
        if self.unpack_hook is not None:
            return 0
        if (<VersionCounter>self.version_counter).version != self.saved_version:
            raise RuntimeError(self._version_message(owner))
        if (not self.is_output and self.input_grad_fn is not None
                and (<Tensor>self.data)._grad_fn is None):
            raise RuntimeError(_DETACHED_MESSAGE)
        return 0

    cdef void rebind_output(self, Tensor t):
        """This saved output was written into ``t`` (an in-place op): keep ``t``'s memory and
        version from now on, as PyTorch saves ``self`` as the result of an in-place op, so that
        changing ``t`` (or its base) in place again is caught at backward."""
        self.data = t._data
        self.version_counter = version_counter(t)
        self.saved_version = (<VersionCounter>self.version_counter).version

    cdef void set_output_grad_fn(self, object grad_fn):
        """A saved output whose tensor's grad_fn is not the node that saved it (the result of
        an in-place op on a view: the view's grad_fn leads to CopySlices). Held weakly, as
        PyTorch does: that grad_fn holds the node, which holds this."""
        self.input_grad_fn = weakref.ref(grad_fn)

    cdef object unpack_array(self, object owner):
        """``unpack(owner)._data`` with the same checks, without wrapping an output first."""
        if (self.unpack_hook is not None and isinstance(self.unpack_hook, NativeHook)
                and not self.freed):
            # A NativeHook gives a Tensor back: only its array is wanted, no wrapper.
            return (<Tensor?>(<NativeHook>self.unpack_hook).call(self.packed))._data
        if self.was_none or self.freed or self.unpack_hook is not None or not self.is_output:
            value = self.unpack(owner)
            return None if value is None else (<Tensor>value)._data
        if (<VersionCounter>self.version_counter).version != self.saved_version:
            raise RuntimeError(self._version_message(owner))
        return self.data

    cdef void _restore_metadata(self, Tensor result, object owner):
        result._version_counter = self.version_counter
        if not self.saved_requires_grad:
            return
        if self.is_output:
            grad_fn = self.input_grad_fn() if self.input_grad_fn is not None else None
            if grad_fn is not None:
                result._grad_fn, result._output_nr = grad_fn, 0
            else:
                result._grad_fn = owner
                result._output_nr = self.output_nr
        elif self.is_leaf_or_input_kept:
            result._requires_grad = True
            result._accumulator = self.input_grad_fn
        elif self.input_grad_fn is not None:
            result._grad_fn = self.input_grad_fn
            result._output_nr = self.output_nr
        else:
            result._requires_grad = True

    def _version_message(self, owner=None):
        if self.is_output:
            array, grad_fn, output_nr = self.data, owner, self.output_nr
        else:
            # The tensor's *current* history names the op that modified it.
            array = (<Tensor>self.data)._data
            grad_fn = (<Tensor>self.data)._grad_fn
            output_nr = (<Tensor>self.data)._output_nr
        type_name = tensor_type_name(array.dtype)
        where = ""
        if grad_fn is not None:
            where = f", which is output {output_nr} of {forward_op_name(grad_fn)},"
        if is_anomaly_enabled():
            hint = ("Hint: the backtrace further above shows the operation that failed to "
                    "compute its gradient. The variable in question was changed in there or "
                    "anywhere later. Good luck!")
        else:
            hint = ("Hint: enable anomaly detection to find the operation that failed to "
                    "compute its gradient, with "
                    "torch.autograd.set_detect_anomaly(True, check_nan=False).")
        return (
            "one of the variables needed for gradient computation has been modified by an "
            f"inplace operation: [{type_name} {list(array.shape)}]{where} is at version "
            f"{(<VersionCounter>self.version_counter).version}; expected version "
            f"{self.saved_version} instead. {hint}"
            + ("" if owner is None else created_sentence(owner))
            + bumped_sentence((<VersionCounter>self.version_counter).bumped_code,
                              (<VersionCounter>self.version_counter).bumped_lasti))

    cdef void release(self):
        self.freed = True
        self.data = None
        self.fw_grad = None
        self.packed = None

    def _inspect(self):
        """What this SavedTensor holds, read-only, for the debugging tools (draw_graph,
        why_alive): the value (a Tensor, a node's own output as its array, or None once freed
        or packed by hooks), the version it was saved at and the tensor's version now."""
        return {
            "value": self.data, "is_output": bool(self.is_output), "was_none": bool(self.was_none),
            "freed": bool(self.freed), "packed": self.unpack_hook is not None,
            "saved_version": self.saved_version,
            "version": None if self.version_counter is None
            else (<VersionCounter>self.version_counter).version,
        }

    def __repr__(self):
        return f"<autograd_cy._C._autograd.SavedTensor object at {id(self):#x}>"


_DETACHED_MESSAGE = (
    "Trying to use a saved tensor that has been detached in-place, i.e. with .detach_().This "
    "is not supported, please use out-of-place `.detach()` instead")


cdef SavedTensor save(Tensor t, bint is_output, bint wrapped_number=False):
    """Save ``t`` for backward: an input as the object itself, an output as its array.
    ``wrapped_number``: ``t`` wraps a Python scalar operand, which PyTorch keeps as a Scalar,
    so the saved-tensor hooks do not see it."""
    cdef SavedTensor saved = SavedTensor.__new__(SavedTensor)
    if t is None:
        saved.was_none = True
        return saved
    if t._is_inference and not is_inference_mode_enabled():
        raise RuntimeError(_INFERENCE_SAVE_MESSAGE)
    counter = version_counter(t)
    saved.version_counter = counter
    saved.saved_version = (<VersionCounter>counter).version
    saved.is_output = is_output
    saved.saved_requires_grad = requires_grad(t)
    saved.output_nr = t._output_nr
    if is_output:
        saved.data = t._data
        if t._fw_grad is not None:
            saved.fw_grad = (t._fw_grad, t._fw_level)
    else:
        saved.data = t
        saved.input_grad_fn = t._grad_fn
    if autograd_cy_saved_hooks_depth and not wrapped_number:
        pack_hook, unpack_hook = <tuple>autograd_cy_saved_hooks_top
        saved._apply_hooks(pack_hook, unpack_hook, t)
    return saved


def _make_saved_tensor(Tensor tensor, bint is_output=False):
    """A SavedTensor of ``tensor`` outside any node, as recording makes one: the innermost
    saved_tensors_hooks pack it, or it is version-checked on ``unpack()``. Non-reentrant
    checkpointing keeps its inputs this way (autograd_cy/utils/checkpoint.py)."""
    return save(tensor, is_output)
