"""Tensor methods written in Python: the ``new_*`` factories.

Ops with a backward live in pyx/ops; these only build tensors or call those ops.
"""
from autograd_cy import factories as _factories

__all__ = ["TENSOR_METHODS"]


def new_zeros(self, *size, dtype=None, device=None, requires_grad=False):
    return _factories.zeros(*size, dtype=dtype or self.dtype, requires_grad=requires_grad)


def new_ones(self, *size, dtype=None, device=None, requires_grad=False):
    return _factories.ones(*size, dtype=dtype or self.dtype, requires_grad=requires_grad)


def new_full(self, size, fill_value, *, dtype=None, device=None, requires_grad=False):
    return _factories.full(size, fill_value, dtype=dtype or self.dtype,
                           requires_grad=requires_grad)


def new_empty(self, *size, dtype=None, device=None, requires_grad=False):
    return _factories.empty(*size, dtype=dtype or self.dtype, requires_grad=requires_grad)


def new_tensor(self, data, *, dtype=None, device=None, requires_grad=False):
    return _factories.tensor(data, dtype=dtype or self.dtype, requires_grad=requires_grad)


TENSOR_METHODS = {f.__name__: f for f in (
    new_zeros, new_ones, new_full, new_empty, new_tensor)}
