"""``nn.utils.stateless.functional_call``: the deprecated name of ``func.functional_call``
(``torch.nn.utils.stateless``), which it calls after torch's FutureWarning."""
import warnings

from autograd_cy.func.functional_call import functional_call as _functional_call

__all__ = ["functional_call"]


def functional_call(module, parameters_and_buffers, args=None, kwargs=None, *,
                    tie_weights=True, strict=False):
    """``module(*args, **kwargs)`` with ``parameters_and_buffers`` (by dotted name) in place
    of its own; deprecated, as in torch, for ``func.functional_call``."""
    warnings.warn("`torch.nn.utils.stateless.functional_call` is deprecated as of PyTorch 2.0 "
                  "and will be removed in a future version of PyTorch. Please use "
                  "`torch.func.functional_call` instead which is a drop-in replacement.",
                  FutureWarning, stacklevel=2)
    return _functional_call(module, parameters_and_buffers, args, kwargs,
                            tie_weights=tie_weights, strict=strict)
