"""``autograd_cy.utils.hooks``: as ``torch.utils.hooks``, the hook handle every
``register_*hook`` returns, and the unserializable mark on a tensor's backward hooks."""
import warnings

from autograd_cy._C.node import RemovableHandle

__all__ = ["RemovableHandle", "unserializable_hook", "warn_if_has_hooks"]


def unserializable_hook(f):
    """Mark ``f`` as a hook that is not serialized, so that saving a tensor that has it does
    not warn; ``f`` itself is returned."""
    f.__torch_unserializable__ = True
    return f


def warn_if_has_hooks(tensor):
    """Warn for each backward hook of ``tensor`` not marked ``unserializable_hook``."""
    for hook in (tensor._backward_hooks or {}).values():
        if not hasattr(hook, "__torch_unserializable__"):
            warnings.warn(f"backward hook {hook!r} on tensor will not be serialized.  If "
                          "this is expected, you can decorate the function with "
                          "@torch.utils.hooks.unserializable_hook to suppress this warning",
                          stacklevel=2)
