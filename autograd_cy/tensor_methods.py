"""Tensor methods written in Python: the ``new_*`` factories (on ``self``'s device and
dtype unless told otherwise), the in-place random fills (``uniform_``, ``normal_``,
``random_``), and the questions ``is_signed`` and ``is_nonzero``.

Ops with a backward live in pyx/ops; these only build tensors. Like the op modules, this
module registers its functions as Tensor methods when it is imported.
"""
import numpy as np

from autograd_cy import cpu_random as _cpu_random
from autograd_cy import factories as _factories
from autograd_cy._C.tensor import _array_of, _register_methods, _wrap_array

__all__ = []


def is_signed(self):
    """Whether the dtype holds negative numbers (every floating and complex dtype)."""
    return self.dtype.is_signed


def is_nonzero(self):
    """The truth of a one-element tensor, with torch's errors for other sizes."""
    return bool(self)


def _fill_with(self, draw_on_cpu, draw_on_device=None):
    """Write fresh random values into ``self`` (a version bump, as any in-place op): drawn by
    ``draw_on_cpu(generator, shape, numpy_dtype)`` from torch's CPU stream, or for a CUDA
    tensor by ``draw_on_device()`` when given."""
    if self.is_cuda and draw_on_device is not None:
        values = draw_on_device()
    else:
        values = _wrap_array(np.asarray(draw_on_cpu(tuple(self.shape),
                                                    _array_of(self).dtype)))
    return self.copy_(values)


def uniform_(self, from_=0.0, to=1.0, *, generator=None):
    """Fill with samples uniform on [from, to) (torch's numbers after the same seed on the
    CPU: NOTE [torch's CPU random numbers])."""
    if from_ > to:
        raise RuntimeError(f"uniform_ expects to return a [from, to) range, but found "
                           f"from={from_} > to={to}")
    return _fill_with(
        self, lambda shape, dtype: _cpu_random.uniform(_factories._generator(generator), shape,
                                                       dtype, from_, to),
        lambda: _factories.rand(*self.shape, dtype=self.dtype, device=self.device)
        * (to - from_) + from_)


def normal_(self, mean=0.0, std=1.0, *, generator=None):
    """Fill with normal samples of mean ``mean`` and standard deviation ``std``."""
    if std < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {std}")
    return _fill_with(
        self, lambda shape, dtype: _cpu_random.normal(_factories._generator(generator), shape,
                                                      dtype, mean, std),
        lambda: _factories.randn(*self.shape, dtype=self.dtype, device=self.device) * std
        + mean)


def random_(self, from_=None, to=None, *, generator=None):
    """Fill with integers: on [from, to), on [0, from) given one bound, or over the dtype's
    range (its largest exact integer for floating dtypes) given none."""
    if from_ is not None and to is None:
        from_, to = 0, from_
    if from_ is not None and from_ >= to:
        raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got "
                           f"from={from_} >= to={to}")

    def draw(shape, dtype):
        source = _factories._generator(generator)
        if from_ is None:
            return _cpu_random.full_range(source, shape, dtype)
        return _cpu_random.integers(source, shape, dtype, from_, to)
    return _fill_with(self, draw)


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
    new_zeros, new_ones, new_full, new_empty, new_tensor, new, is_signed, is_nonzero, uniform_,
    normal_, random_)})
