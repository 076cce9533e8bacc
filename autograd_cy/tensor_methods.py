"""Tensor methods written in Python: the ``new_*`` factories (on ``self``'s device and
dtype unless told otherwise), and the questions ``is_signed`` and ``is_nonzero``.

Ops with a backward live in pyx/ops; these only build tensors. Like the op modules, this
module registers its functions as Tensor methods when it is imported.
"""
from autograd_cy import factories as _factories
from autograd_cy._C.tensor import _register_methods

__all__ = []


def is_signed(self):
    """Whether the dtype holds negative numbers (every floating and complex dtype)."""
    return self.dtype.is_signed


def is_nonzero(self):
    """The truth of a one-element tensor, with torch's errors for other sizes."""
    return bool(self)


def _device(self, device):
    return self.device if device is None else device


def new_zeros(self, *size, dtype=None, device=None, requires_grad=False):
    return _factories.zeros(*size, dtype=dtype or self.dtype, requires_grad=requires_grad,
                            device=_device(self, device))


def new_ones(self, *size, dtype=None, device=None, requires_grad=False):
    return _factories.ones(*size, dtype=dtype or self.dtype, requires_grad=requires_grad,
                           device=_device(self, device))


def new_full(self, size, fill_value, *, dtype=None, device=None, requires_grad=False):
    return _factories.full(size, fill_value, dtype=dtype or self.dtype,
                           requires_grad=requires_grad, device=_device(self, device))


def new_empty(self, *size, dtype=None, device=None, requires_grad=False):
    return _factories.empty(*size, dtype=dtype or self.dtype, requires_grad=requires_grad,
                            device=_device(self, device))


def new_tensor(self, data, *, dtype=None, device=None, requires_grad=False):
    return _factories.tensor(data, dtype=dtype or self.dtype, requires_grad=requires_grad,
                             device=_device(self, device))


def new(self, *args):
    """The legacy constructor: ``x.new(2, 3)`` (uninitialised), ``x.new([1, 2])`` (data) or
    ``x.new()`` (empty), all with ``x``'s dtype."""
    return _factories._legacy_new(self.dtype, args)


_register_methods({f.__name__: f for f in (
    new_zeros, new_ones, new_full, new_empty, new_tensor, new, is_signed, is_nonzero)})
