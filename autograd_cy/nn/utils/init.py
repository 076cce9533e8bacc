"""``nn.utils.skip_init``: a module made without spending time or random numbers on its
initial values (``torch.nn.utils.skip_init``)."""
import inspect

from autograd_cy.nn.modules.module import Module

__all__ = ["skip_init"]


def skip_init(module_cls, *args, **kwargs):
    """``module_cls(*args, **kwargs)`` whose parameters and buffers are allocated and left
    uninitialized: as torch, the module is built on the meta device (its initializers do
    nothing there, and draw no random numbers; NOTE [Meta tensors]) and then given storage
    on its device with ``to_empty``. ``module_cls`` must take ``device``."""
    if not (isinstance(module_cls, type) and issubclass(module_cls, Module)):
        raise RuntimeError(f"Expected a Module; got {module_cls}")
    if "device" not in inspect.signature(module_cls).parameters:
        raise RuntimeError("Module must support a 'device' arg to skip initialization")
    final_device = kwargs.pop("device", "cpu")
    kwargs["device"] = "meta"
    return module_cls(*args, **kwargs).to_empty(device=final_device)
