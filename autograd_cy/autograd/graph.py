"""``autograd.graph``: inspect and hook the backward graph, as ``torch.autograd.graph``.

Besides PyTorch's public names this module exposes the engine queries that
PyTorch keeps in ``torch._C``: ``_will_engine_execute_node(node)`` and
``_current_graph_task_id()`` (``torch._C._will_engine_execute_node``,
``torch._C._current_graph_task_id``) and ``queue_callback(fn)``
(``Variable._execution_engine.queue_callback``).
"""
import contextlib
import threading
import weakref
from collections import defaultdict

from autograd_cy._C import saved_tensor as _saved_tensor
from autograd_cy._C.backward import GradientEdge
from autograd_cy._C.graph_task import (  # noqa: F401
    _will_engine_execute_node, _current_graph_task_id, queue_callback,
)
from autograd_cy._C.node import Node
from autograd_cy._C.recording import _gradient_edge
from autograd_cy._C.tensor import Tensor

__all__ = ["saved_tensors_hooks", "save_on_cpu", "disable_saved_tensors_hooks",
           "register_multi_grad_hook", "allow_mutation_on_saved_tensors", "Node",
           "GradientEdge", "get_gradient_edge", "increment_version",
           "region_activation_memory_budget", "set_warn_on_accumulate_grad_stream_mismatch",
           "set_override_stale_capture_stream"]


def get_gradient_edge(tensor):
    """The GradientEdge of ``tensor`` (its grad_fn, or its leaf's AccumulateGrad).

    >>> import autograd_cy as ag
    >>> x = ag.ones(2, requires_grad=True)
    >>> get_gradient_edge(x * 2).node.name(), get_gradient_edge(x).node.name()
    ('MulBackward0', 'torch::autograd::AccumulateGrad')
    """
    if not tensor.requires_grad:
        raise RuntimeError("It is not possible to get the gradient edge for a Tensor that does "
                           "not require gradients")
    edge = _gradient_edge(tensor)
    return GradientEdge(edge.function, edge.input_nr)


def increment_version(tensor):
    """Bump the version counter of ``tensor`` (a tensor, or an iterable of tensors) by hand,
    as an in-place op would: for memory changed behind autograd's back, so that a saved
    tensor's check still fails at backward. Inference tensors have no counter and are skipped.

    >>> import autograd_cy as ag
    >>> x = ag.ones(2)
    >>> increment_version([x, x]); x._version
    2
    """
    from autograd_cy._C.ops.inplace import _increment_version
    if isinstance(tensor, Tensor):
        tensor = (tensor,)
    try:
        tensors = iter(tensor)
    except TypeError:
        raise RuntimeError("increment_version expect a Iterable[Tensor] as input") from None
    for t in tensors:
        if not isinstance(t, Tensor):
            raise RuntimeError(
                "increment_version expects each element of the iterable to be a tensor")
        _increment_version(t)


# ------------------------------------------------------------------ compiler and stream knobs

def region_activation_memory_budget(budget):
    """PyTorch's activation-memory budget for a region of a ``torch.compile``d forward.
    There is no compiler here, so, as PyTorch outside a compiled region, a valid budget
    (a float in [0, 1]) raises RuntimeError."""
    name = "torch.autograd.graph.region_activation_memory_budget"
    if isinstance(budget, bool) or not isinstance(budget, (int, float)):
        raise TypeError(f"{name}: expects a float, got {type(budget).__name__}")
    if not 0.0 <= budget <= 1.0:
        raise ValueError(f"{name}: must be in [0, 1], got {budget}")
    raise RuntimeError(f"{name} can only be used inside a torch.compile region; it has no "
                       "effect in eager mode.")


# Process-wide, as PyTorch's. Recorded only: autograd_cy's engine neither warns about the
# stream of an AccumulateGrad nor captures CUDA graphs.
_stream_flags = {"warn_on_accumulate_grad_stream_mismatch": True,
                 "override_stale_capture_stream": False}


def _set_stream_flag(name, enabled):
    if not isinstance(enabled, bool):
        raise RuntimeError(f"enabled must be a bool, but got {type(enabled).__name__}")
    _stream_flags[name] = enabled


def set_warn_on_accumulate_grad_stream_mismatch(enabled):
    """Whether to warn when a gradient reaches AccumulateGrad on another stream than the
    leaf's (recorded only here)."""
    _set_stream_flag("warn_on_accumulate_grad_stream_mismatch", enabled)


def set_override_stale_capture_stream(enabled):
    """Whether a stale stream met during CUDA graph capture is replaced by the capturing
    one (recorded only: there is no graph capture here)."""
    _set_stream_flag("override_stale_capture_stream", enabled)


# ------------------------------------------------------------------ saved tensors

class saved_tensors_hooks:
    """Within this context, every tensor saved for backward goes through ``pack_hook`` (once,
    at save time, under no_grad) and comes back through ``unpack_hook`` (on every access).

    Only the innermost pair applies. The hooks take over the storage, so no version
    check is made on unpack (PyTorch skips it too).

    >>> import autograd_cy as ag
    >>> x = ag.ones(2, requires_grad=True)
    >>> with saved_tensors_hooks(lambda t: t * 1, lambda t: t):
    ...     y = x * x
    >>> y.sum().backward(); x.grad
    tensor([2., 2.])
    """

    def __init__(self, pack_hook, unpack_hook):
        self.pack_hook = pack_hook
        self.unpack_hook = unpack_hook

    def __enter__(self):
        _saved_tensor._push_saved_tensors_hooks(self.pack_hook, self.unpack_hook)

    def __exit__(self, *exc_info):
        _saved_tensor._pop_saved_tensors_hooks()


class save_on_cpu(saved_tensors_hooks):
    """Keep saved tensors on the CPU and bring them back to their device on unpack.

    On the CPU this is the identity (there is nowhere else to move them).
    """

    def __init__(self, pin_memory=False, device_type="cuda"):
        def pack(tensor):
            return tensor.device, tensor.cpu()

        def unpack(packed):
            device, tensor = packed
            return tensor.to(device)
        super().__init__(pack, unpack)


@contextlib.contextmanager
def disable_saved_tensors_hooks(error_message):
    """Make entering ``saved_tensors_hooks`` raise ``RuntimeError(error_message)``."""
    previous = _saved_tensor._disable_saved_tensors_hooks(error_message)
    try:
        yield
    finally:
        _saved_tensor._disable_saved_tensors_hooks(previous)


# ------------------------------------------------------------------ multi-tensor hooks

class _MultiHandle:
    """Removes every tensor hook that one ``register_multi_grad_hook`` installed."""

    def __init__(self, handles):
        self.handles = handles

    def remove(self):
        for handle in self.handles:
            handle.remove()

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        self.remove()


def _gradient_node(tensor):
    if not tensor.requires_grad:
        raise AssertionError("Expected gradient function to be set")
    return _gradient_edge(tensor).function


def register_multi_grad_hook(tensors, fn, *, mode="all"):
    """Call ``fn`` once per backward when the gradients of ``tensors`` have been computed.

    ``mode="all"``: ``fn(grads)`` with one entry per tensor (None where the tensor's
    gradient is not computed by this backward), run from the hook of whichever
    gradient arrives last. ``mode="any"``: ``fn(grad)`` with the first gradient only.
    The state is per graph task, so the hook fires again on the next backward.

    >>> import autograd_cy as ag
    >>> a, b = ag.ones(2, requires_grad=True), ag.ones(2, requires_grad=True)
    >>> handle = register_multi_grad_hook((a, b), lambda grads: print(
    ...     [g is not None for g in grads]))
    >>> (a * 2).sum().backward()
    [True, False]
    """
    if mode not in ("all", "any"):
        raise ValueError(f"Expects mode to be one of ('all', 'any') but got {mode}")
    lock = threading.Lock()
    if mode == "any":
        fired = set()

        def first_only(grad):
            task = _current_graph_task_id()
            with lock:
                if task in fired:
                    return
                fired.add(task)
            fn(grad)
        return _MultiHandle(tuple(t.register_hook(first_only)
                                  for t in tensors if t.requires_grad))

    nodes = [_gradient_node(t) for t in tensors]
    arrived = {}        # graph task id -> number of gradients seen so far
    expected = {}       # graph task id -> number of gradients this task will compute
    grads = {}          # graph task id -> one slot per tensor

    def hook_for(index):
        def inner(grad):
            task = _current_graph_task_id()
            with lock:
                if task not in arrived:
                    arrived[task] = 0
                    grads[task] = [None] * len(nodes)
                    expected[task] = sum(map(_will_engine_execute_node, nodes))
                arrived[task] += 1
                grads[task][index] = grad
                last = arrived[task] == expected[task]
                if last:
                    collected = grads.pop(task)
                    del arrived[task], expected[task]
            if last:
                fn(collected)
        return inner
    return _MultiHandle(tuple(t.register_hook(hook_for(i)) for i, t in enumerate(tensors)
                              if t.requires_grad))


# ------------------------------------------------------------------ mutation of saved tensors

# NOTE [Allowing mutation of saved tensors]
# Inside ``allow_mutation_on_saved_tensors()`` two things cooperate:
# - a pair of saved_tensors_hooks: packing a tensor stores it (its "original") under a
#   handle, keyed by the tensor's identity (object id, memory address, version); aliases
#   are found by (memory address, version);
# - the before-write hook (NOTE [Before a tensor is written] in pyx/saved_tensor.pyx): before an
#   op writes into a tensor, every saved tensor with the same memory address and version
#   is cloned, and the clone replaces the original under its handle.
# Unpacking returns the clone when there is one, else the original: backward sees the
# values as they were when saved, and no version check fails (the hooks own the storage).
# The state lives as long as the context: a backward of a graph recorded inside must run
# inside too. As in PyTorch, only writes through the same address as the saved tensor are
# seen (a view at another offset is not), and the hook is process-wide, where PyTorch's
# dispatch mode is per thread.

_allow_mutation_on_saved_tensors_enabled = False


def _get_tid(tensor):
    """A saved tensor's identity: the object, its memory and its version."""
    return (id(tensor), tensor.data_ptr(), tensor._version)


def _get_sid(tensor):
    """What aliases of a saved tensor share: memory address and version."""
    return (tensor.data_ptr(), tensor._version)


class _Handle:
    """What the pack hook returns: the key under which the saved value is found."""


class _AllowMutationOnSavedContext:
    """The state of one ``allow_mutation_on_saved_tensors`` context (returned by it, for
    debugging): ``original`` and ``cloned`` map handles to the saved value (before / after
    a mutation cloned it), ``tid_to_weakhandle`` and ``sid_to_tid`` find the handles of a
    tensor about to be written. Cleared on exit."""

    def __init__(self):
        self.cloned = weakref.WeakKeyDictionary()
        self.original = weakref.WeakKeyDictionary()
        self.tid_to_weakhandle = weakref.WeakValueDictionary()
        self.sid_to_tid = defaultdict(set)

    def clear(self):
        self.cloned.clear()
        self.original.clear()
        self.tid_to_weakhandle.clear()
        self.sid_to_tid.clear()


_OUTSIDE_CONTEXT_ERROR = ("Trying to backward outside of the 'allow_mutation_on_saved_tensors' "
                          "contextin which the graph was originally recorded.")


class _swap_with_cloned(saved_tensors_hooks):
    """The saved_tensors_hooks of NOTE [Allowing mutation of saved tensors]."""

    def __init__(self, ctx):
        def pack_hook(tensor):
            tid = _get_tid(tensor)
            ctx.sid_to_tid[_get_sid(tensor)].add(tid)
            # The same tensor (same version) saved twice shares one handle.
            handle = ctx.tid_to_weakhandle.get(tid)
            if handle is None:
                handle = _Handle()
                ctx.tid_to_weakhandle[tid] = handle
                ctx.original[handle] = tensor
            return handle

        def unpack_hook(handle):
            if not _allow_mutation_on_saved_tensors_enabled:
                raise AssertionError(_OUTSIDE_CONTEXT_ERROR)
            if handle in ctx.cloned:
                return ctx.cloned[handle]
            if handle not in ctx.original:
                raise AssertionError(_OUTSIDE_CONTEXT_ERROR)
            return ctx.original[handle]

        super().__init__(pack_hook, unpack_hook)


def _clone_saved_before_write(ctx):
    """The before-write hook: clone every saved tensor that ``tensor`` aliases."""
    def before_write(tensor):
        for tid in ctx.sid_to_tid.get(_get_sid(tensor), ()):
            handle = ctx.tid_to_weakhandle.get(tid)
            # None: saved once, but already freed by a backward that did not retain it.
            if handle is None or handle in ctx.cloned:
                continue
            from autograd_cy.grad_mode import no_grad
            with no_grad():
                ctx.cloned[handle] = ctx.original.pop(handle).detach().clone()
    return before_write


@contextlib.contextmanager
def _writes_watched_by(hook):
    from autograd_cy._C.saved_tensor import _set_before_write_hook
    previous = _set_before_write_hook(hook)
    try:
        yield
    finally:
        _set_before_write_hook(previous)


@contextlib.contextmanager
def allow_mutation_on_saved_tensors():
    """Context manager under which tensors saved for backward may be modified in place:
    a saved tensor is cloned just before its first modification, and backward uses the
    clone (NOTE [Allowing mutation of saved tensors]). Run forward and backward inside
    the same context; contexts do not nest. Yields the context's state object.

    >>> import autograd_cy as ag
    >>> with allow_mutation_on_saved_tensors():
    ...     a = ag.ones(2, requires_grad=True)
    ...     b = a.clone()
    ...     out = (b ** 2).sum()
    ...     _ = b.sin_()
    ...     out.backward()
    >>> a.grad
    tensor([2., 2.])
    """
    global _allow_mutation_on_saved_tensors_enabled
    ctx = _AllowMutationOnSavedContext()
    with _swap_with_cloned(ctx), _writes_watched_by(_clone_saved_before_write(ctx)):
        try:
            if _allow_mutation_on_saved_tensors_enabled:
                raise RuntimeError("allow_mutation_on_saved_tensors contexts cannot be nested")
            _allow_mutation_on_saved_tensors_enabled = True
            yield ctx
        finally:
            ctx.clear()
            _allow_mutation_on_saved_tensors_enabled = False
