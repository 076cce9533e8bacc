"""``autograd.backward`` and ``autograd.grad``: argument checks, then one engine call.

Both live in the core (pyx/backward.pyx), so that ``Tensor.backward`` and ``grad`` reach the
engine without passing through Python; this module gives them their public path.
"""
from autograd_cy._C.backward import backward, grad

__all__ = ["backward", "grad"]
