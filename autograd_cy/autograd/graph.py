"""``autograd.graph``: inspect and hook the backward graph, as ``torch.autograd.graph``.

Besides PyTorch's public names this module exposes the engine queries that
PyTorch keeps in ``torch._C``: ``_will_engine_execute_node(node)`` and
``_current_graph_task_id()`` (``torch._C._will_engine_execute_node``,
``torch._C._current_graph_task_id``) and ``queue_callback(fn)``
(``Variable._execution_engine.queue_callback``).
"""
import contextlib
import threading

from autograd_cy._C import saved_tensor as _saved_tensor
from autograd_cy._C.backward import GradientEdge
from autograd_cy._C.graph_task import (  # noqa: F401
    _will_engine_execute_node, _current_graph_task_id, queue_callback,
)
from autograd_cy._C.node import Node
from autograd_cy._C.recording import _gradient_edge
from autograd_cy._C.tensor import Tensor

__all__ = ["saved_tensors_hooks", "save_on_cpu", "disable_saved_tensors_hooks",
           "register_multi_grad_hook", "Node", "GradientEdge", "get_gradient_edge",
           "increment_version"]


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
