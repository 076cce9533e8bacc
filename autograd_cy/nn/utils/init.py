"""``nn.utils.skip_init``: a module made without spending time or random numbers on its
initial values (``torch.nn.utils.skip_init``)."""
import inspect

from autograd_cy.factories import get_rng_state, set_rng_state
from autograd_cy.nn.modules.module import Module

__all__ = ["skip_init"]


def skip_init(module_cls, *args, **kwargs):
    """``module_cls(*args, **kwargs)`` whose parameters and buffers hold no particular
    values, the default generator left as it was; ``module_cls`` must take ``device``.

    torch builds the module on its ``meta`` device and allocates it uninitialized; there is
    no meta device here, so the module is built on its device and the generator's state
    restored afterwards: its values are then the initializers', which "uninitialized"
    allows, and the random numbers after it are torch's."""
    if not (isinstance(module_cls, type) and issubclass(module_cls, Module)):
        raise RuntimeError(f"Expected a Module; got {module_cls}")
    if "device" not in inspect.signature(module_cls).parameters:
        raise RuntimeError("Module must support a 'device' arg to skip initialization")
    kwargs["device"] = kwargs.pop("device", "cpu")
    state = get_rng_state()
    try:
        return module_cls(*args, **kwargs)
    finally:
        set_rng_state(state)
