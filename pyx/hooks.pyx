"""Hooks on tensors: ``register_hook``, ``retain_grad``, ``register_post_accumulate_grad_hook``.

A leaf's hooks live on the tensor (they outlive its weakly held AccumulateGrad); a non-leaf's
bind to its current ``grad_fn``'s input slot, as *tensor pre-hooks* of that node, so an in-place
op that rebases the tensor later does not move them. ``retain_grad`` is a hook of its own kind
that runs after every tensor pre-hook of the slot. Node hooks (``grad_fn.register_hook``,
``register_prehook``) are methods of Node. This module gives Tensor these methods.
"""
import weakref

from autograd_cy._C.grad_mode cimport is_grad_enabled
from autograd_cy._C.dtype cimport tensor_type_name
from autograd_cy._C.tensor cimport (
    Tensor, make_tensor, requires_grad, get_grad_fn, array_module, register_methods,
)
from autograd_cy._C.node cimport Node, add_hook


class RetainGradHook:
    """Keeps a non-leaf's gradient in its ``.grad``; runs after every tensor hook."""

    def __init__(self, Tensor tensor):
        self.tensor_ref = weakref.ref(tensor)

    def __call__(self, grad):
        cdef Tensor tensor = self.tensor_ref()
        if tensor is None or grad is None:
            return
        if tensor._grad is None:
            # A fresh contiguous copy: the retained grad never aliases the engine's buffer.
            if is_grad_enabled() and requires_grad(<Tensor>grad):
                contiguous = (<Tensor>grad)._data.flags.c_contiguous
                tensor._grad = grad.clone() if contiguous else grad.contiguous()
            else:
                tensor._grad = make_tensor(array_module((<Tensor>grad)._data).array(
                    (<Tensor>grad)._data, order="C"))
        else:
            tensor._grad = tensor._grad + grad


def retain_grad(Tensor t):
    """Keep the gradient of this non-leaf in ``.grad`` during backward."""
    if not requires_grad(t):
        raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
    # PyTorch tests the grad_fn as stored here (a stale view of a plain base is a leaf).
    if t._grad_fn is None or t._retains_grad:
        return
    extras = (<Node>get_grad_fn(t)).get_extras()
    if extras.retains_grad_hooks is None:
        extras.retains_grad_hooks = {}
    extras.retains_grad_hooks[t._output_nr] = RetainGradHook(t)
    t._retains_grad = True


def register_hook(Tensor t, hook):
    """Call ``hook(grad)`` when this tensor's gradient is computed; it may return a
    replacement. Returns a handle whose ``remove()`` unregisters the hook."""
    if not requires_grad(t):
        raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
    if get_grad_fn(t) is None:
        if t._hooks is None:
            t._hooks = {}
        return add_hook(t._hooks, hook)
    # A non-leaf's hook binds to its current grad_fn's input slot: an in-place op that
    # rebases the tensor later leaves it on the old grad_fn.
    extras = (<Node>get_grad_fn(t)).get_extras()
    if extras.tensor_pre_hooks is None:
        extras.tensor_pre_hooks = {}
    slot_hooks = extras.tensor_pre_hooks.get(t._output_nr)
    if slot_hooks is None:
        slot_hooks = extras.tensor_pre_hooks[t._output_nr] = {}
    return add_hook(slot_hooks, hook)


def register_post_accumulate_grad_hook(Tensor t, hook):
    """Call ``hook(tensor)`` after a leaf's ``.grad`` has been accumulated."""
    if t._grad_fn is not None:
        raise RuntimeError("post accumulate grad hooks cannot be registered on non-leaf tensors")
    if not t._requires_grad:
        raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
    if t._post_accumulate_grad_hooks is None:
        t._post_accumulate_grad_hooks = {}
    return add_hook(t._post_accumulate_grad_hooks, hook)


def _backward_hooks(Tensor t):
    """PyTorch's ``tensor._backward_hooks``: this tensor's hooks (handle id -> hook), or None:
    a leaf's own table, a non-leaf's slot on its grad_fn. Read by draw_graph."""
    if t._grad_fn is None:
        return t._hooks
    tables = (<Node>t._grad_fn).tensor_hooks()
    return None if tables is None else tables.get(t._output_nr)


def _refuse_hooks_deletion(Tensor t):
    raise RuntimeError("Deletion of _backwards_hooks not allowed!")


def _post_accumulate_grad_hooks(Tensor t):
    """PyTorch's ``tensor._post_accumulate_grad_hooks`` (handle id -> hook), or None."""
    return t._post_accumulate_grad_hooks


register_methods({
    "retain_grad": retain_grad,
    "register_hook": register_hook,
    "register_post_accumulate_grad_hook": register_post_accumulate_grad_hook,
    "_backward_hooks": property(_backward_hooks, None, _refuse_hooks_deletion),
    "_post_accumulate_grad_hooks": property(_post_accumulate_grad_hooks),
})


# ------------------------------------------------------------------ what hooks return

cdef object check_hook_result(object hook, object result, object grad):
    """A tensor hook's replacement must be a Tensor of the same size and dtype."""
    if not isinstance(result, Tensor):
        raise TypeError(f"expected Variable, but hook returned '{type(result).__name__}'")
    if grad is not None:
        if (<Tensor>result)._data.shape != (<Tensor>grad)._data.shape:
            raise RuntimeError(f"hook '{hook_name(hook)}' has changed the size of value")
        if (<Tensor>result)._data.dtype != (<Tensor>grad)._data.dtype:
            raise RuntimeError(
                f"hook '{hook_name(hook)}' has changed the type of value (was "
                f"{tensor_type_name((<Tensor>grad)._data.dtype)} got "
                f"{tensor_type_name((<Tensor>result)._data.dtype)})")
    return result


cdef str hook_name(object hook):
    return getattr(hook, "__name__", "<unknown>")


cdef tuple check_node_hook_result(object hook, object result, tuple values):
    """A node hook returns a tuple as long as ``values``; each entry None or a valid
    replacement of the value in its slot."""
    cdef Py_ssize_t i
    if not isinstance(result, tuple):
        raise TypeError(f"expected tuple, but hook returned '{type(result).__name__}'")
    if len(result) != len(values):
        raise RuntimeError(
            f"hook '{hook_name(hook)}' has returned an incorrect number of values (got "
            f"{len(result)}, but expected {len(values)})")
    for i in range(len(result)):
        if result[i] is not None:
            check_hook_result(hook, result[i], values[i])
    return result
