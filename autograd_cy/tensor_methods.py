"""Tensor methods written in Python: the ``new_*`` factories (on ``self``'s device and
dtype unless told otherwise), the in-place random fills (``uniform_``, ``normal_``,
``random_``, ``exponential_``, ``cauchy_``, ``geometric_``, ``log_normal_``),
``multinomial``, ``new_empty_strided``, the questions ``is_signed`` and
``is_nonzero``, ``__format__`` (a 0-dim tensor formats as its number), and ``where`` read
from the tensor (``x.where(condition, y)``).

Ops with a backward live in pyx/ops; these only build tensors. Like the op modules, this
module registers its functions as Tensor methods when it is imported.
"""
import numpy as np

from autograd_cy import cpu_random as _cpu_random
from autograd_cy import factories as _factories
from autograd_cy._C.dtype import _c10_name
from autograd_cy._C.ops.inplace import apply_in_place
from autograd_cy._C.ops.selection import where as _where
from autograd_cy._C.tensor import Tensor as _Tensor, _array_of, _register_methods, _wrap_array

__all__ = []


def is_signed(self):
    """Whether the dtype holds negative numbers (every floating and complex dtype)."""
    return self.dtype.is_signed


def __format__(self, format_spec):
    """A 0-dim tensor formats as its Python number (``f"{x}"`` is ``0.5``, as torch's);
    any other tensor as ``str``."""
    if self.dim() == 0 and type(self) is _Tensor:
        return self.detach().item().__format__(format_spec)
    return object.__format__(self, format_spec)


def is_nonzero(self):
    """The truth of a one-element tensor, with torch's errors for other sizes."""
    return bool(self)


def _fill_with(self, draw_on_cpu, draw_on_device=None):
    """Write fresh random values into ``self`` (a version bump, as any in-place op): drawn by
    ``draw_on_cpu(shape, numpy_dtype)`` from torch's CPU stream in the order of ``self``'s
    memory, as torch's kernels write them, or for a CUDA tensor by ``draw_on_device()``
    when given (else drawn on the CPU and copied over)."""
    if self.is_cuda and draw_on_device is not None:
        values = draw_on_device()
    else:
        dtype = np.dtype(_array_of(self).dtype)
        values = _wrap_array(np.asarray(_cpu_random.in_memory_order(
            lambda shape: draw_on_cpu(shape, dtype), tuple(self.shape), self.stride())))
        if self.is_cuda:
            values = values.to(self.device)
    return self.copy_(values)


def _floating_only(self, kernel):
    """torch's refusal of a floating-point fill on an integer or bool tensor."""
    if not (self.dtype.is_floating_point or self.dtype.is_complex):
        raise NotImplementedError(f"\"{kernel}\" not implemented for "
                                  f"'{self.dtype._scalar_name}'")


def uniform_(self, from_=0.0, to=1.0, *, generator=None):
    """Fill with samples uniform on [from, to) (torch's numbers after the same seed on the
    CPU: NOTE [torch's CPU random numbers])."""
    _floating_only(self, "check_uniform_bounds")
    _cpu_random.check_uniform_bounds(from_, to, self.dtype)
    return _fill_with(
        self, lambda shape, dtype: _cpu_random.uniform(_factories._generator(generator), shape,
                                                       dtype, from_, to),
        lambda: _factories.rand(*self.shape, dtype=self.dtype, device=self.device)
        * (to - from_) + from_)


def normal_(self, mean=0.0, std=1.0, *, generator=None):
    """Fill with normal samples of mean ``mean`` and standard deviation ``std``."""
    _floating_only(self, "normal_kernel_cpu")
    if std < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {std}")
    contiguous = self.is_contiguous()
    return _fill_with(
        self, lambda shape, dtype: _cpu_random.normal(_factories._generator(generator), shape,
                                                      dtype, mean, std, contiguous=contiguous),
        lambda: _factories.randn(*self.shape, dtype=self.dtype, device=self.device) * std
        + mean)


def exponential_(self, lambd=1.0, *, generator=None):
    """Fill with samples of the exponential distribution of rate ``lambd``."""
    if not self.dtype.is_floating_point:
        raise RuntimeError(f"Exponential distribution is a continuous probability "
                           f"distribution. dtype must be a floating point but you specified "
                           f"{self.dtype._scalar_name}")
    if not lambd > 0:
        raise RuntimeError(f"exponential_ expects lambda > 0.0, but found lambda={lambd}")
    return _fill_with(self, lambda shape, dtype: _cpu_random.exponential(
        _factories._generator(generator), shape, dtype, lambd))


def _fill_recorded(self, draw_on_cpu, node):
    """Write fresh random values into ``self`` as ``_fill_with`` does, recorded as torch
    records its random fills: a node of torch's name (``CauchyBackward0`` ...) whose
    gradient is zeros, through ``apply_in_place`` (its leaf, view and version rules)."""
    dtype = np.dtype(_array_of(self).dtype)
    shape, strides = tuple(self.shape), self.stride()

    def compute(source):
        values = _wrap_array(np.asarray(_cpu_random.in_memory_order(
            lambda shape: draw_on_cpu(shape, dtype), shape, strides)))
        return values.to(self.device) if self.is_cuda else values
    return apply_in_place(self, compute, (), node)


def _not_implemented_for(self, kernel, kinds):
    """torch's NotImplementedError for a dtype its kernel is not compiled for."""
    if not any(getattr(self.dtype, kind) for kind in kinds):
        raise NotImplementedError(f"\"{kernel}\" not implemented for "
                                  f"'{self.dtype._scalar_name}'")


def cauchy_(self, median=0.0, sigma=1.0, *, generator=None):
    """Fill with samples of the Cauchy distribution of ``median`` and scale ``sigma``
    (torch's numbers after the same seed on the CPU)."""
    if not sigma > 0:
        raise RuntimeError(f"cauchy_ expects sigma > 0.0, but found sigma={sigma}")
    if not self.dtype.is_floating_point:
        raise RuntimeError(f"Cauchy distribution is a continuous probability distribution. "
                           f"dtype must be a floating point but you specified "
                           f"{_c10_name(self.dtype)}")
    return _fill_recorded(self, lambda shape, dtype: _cpu_random.cauchy(
        _factories._generator(generator), shape, dtype, median, sigma), "CauchyBackward0")


def log_normal_(self, mean=1.0, std=2.0, *, generator=None):
    """Fill with ``exp`` of normal samples of mean ``mean`` and standard deviation ``std``
    (torch's numbers after the same seed on the CPU)."""
    if not std > 0:
        raise RuntimeError(f"log_normal_ expects std > 0.0, but found std={std}")
    _not_implemented_for(self, "log_normal_cpu", ("is_floating_point",))
    return _fill_recorded(self, lambda shape, dtype: _cpu_random.log_normal(
        _factories._generator(generator), shape, dtype, mean, std), "LogNormalBackward0")


def geometric_(self, p, *, generator=None):
    """Fill with the number of Bernoulli(``p``) trials up to the first success (1, 2, ...),
    in any real dtype (torch's numbers after the same seed on the CPU)."""
    if not 0 < p < 1:
        raise RuntimeError(f"geometric_ expects p to be in (0, 1), but got p={p}")
    if self.dtype.is_complex or self.dtype.numpy == np.bool_:
        raise NotImplementedError(f"\"geometric_cpu\" not implemented for "
                                  f"'{self.dtype._scalar_name}'")
    return _fill_recorded(self, lambda shape, dtype: _cpu_random.geometric(
        _factories._generator(generator), shape, dtype, p), "GeometricBackward0")


def multinomial(input, num_samples, replacement=False, *, generator=None):
    """``num_samples`` category indices from each row of ``input`` (1-D, or 2-D: one
    distribution a row; weights, not necessarily normalised), as torch's CPU kernel draws
    them: without replacement (or for one sample) the largest ``input / q`` with q
    exponential, with replacement by binary search in the cumulative distribution."""
    if not (input.dtype.is_floating_point):
        raise RuntimeError(f"multinomial only supports floating-point dtypes for input, got: "
                           f"{input.dtype._scalar_name}")
    if input.dim() not in (1, 2):
        raise RuntimeError("prob_dist must be 1 or 2 dim")
    if num_samples <= 0:
        raise RuntimeError("cannot sample n_sample <= 0 samples")
    categories = input.shape[-1]
    if not replacement and num_samples > categories:
        raise RuntimeError("cannot sample n_sample > prob_dist.size(-1) samples without "
                           "replacement")
    if categories > 2 ** 24:
        raise RuntimeError("number of categories cannot exceed 2^24")
    weights = np.asarray(input.detach().cpu().numpy(), dtype=np.float64)
    rows = weights.reshape(-1, categories)
    generator = _factories._generator(generator)
    if not replacement or num_samples == 1:
        if not np.isfinite(rows).all() or (rows < 0).any():
            raise RuntimeError("probability tensor contains either `inf`, `nan` or element "
                               "< 0")
        if not (rows.sum(axis=1) > 0).all():
            raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
        values = input.detach().cpu()
        q = _wrap_array(_cpu_random.exponential(generator, tuple(values.shape),
                                                np.dtype(_array_of(values).dtype), 1.0))
        scores = (values / q).numpy().astype(np.float64).reshape(-1, categories)
        # the largest scores first (topk's order), the lower index first among equal ones
        chosen = np.argsort(-scores, axis=1, kind="stable")[:, :num_samples]
    else:
        for row in rows:
            if (row < 0).any():
                raise RuntimeError("invalid multinomial distribution (encountering "
                                   "probability entry < 0)")
            if not np.isfinite(row).all():
                raise RuntimeError("invalid multinomial distribution (encountering "
                                   "probability entry = infinity or NaN)")
            if not np.cumsum(row)[-1] > 0:
                raise RuntimeError("invalid multinomial distribution (sum of probabilities "
                                   "<= 0)")
        chosen = _cpu_random.categorical(generator, _array_of(input.detach().cpu()).reshape(
            -1, categories), num_samples)
    result = _wrap_array(np.ascontiguousarray(
        chosen.reshape(tuple(input.shape[:-1]) + (num_samples,)), dtype=np.int64))
    return result.to(input.device) if input.is_cuda else result


_ONE_BOUND = object()        # random_(to): only the upper bound given


def random_(self, from_=None, to=_ONE_BOUND, *, generator=None):
    """Fill with integers: on [from, to), on [0, from) given one bound, on [from, the
    dtype's max] given ``to=None``, or over the dtype's range given none (for floating
    dtypes, up to the largest integer they hold exactly)."""
    if from_ is None:
        return _fill_with(self, lambda shape, dtype: _cpu_random.full_range(
            _factories._generator(generator), shape, dtype))
    if to is _ONE_BOUND:
        from_, to = 0, from_
    low, high = _cpu_random.random_bounds(from_, to, self.dtype)
    return _fill_with(self, lambda shape, dtype: _cpu_random.integers(
        _factories._generator(generator), shape, dtype, low, high))


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


def new_empty_strided(self, size, stride, *, dtype=None, device=None, requires_grad=False):
    """An uninitialised tensor of ``size`` laid out with ``stride`` (``empty_strided``),
    with ``self``'s dtype and device unless told otherwise."""
    return _factories.empty_strided(size, stride, dtype=dtype or self.dtype,
                                    device=_device(self, device), requires_grad=requires_grad)


def new(self, *args):
    """The legacy constructor: ``x.new(2, 3)`` (uninitialised), ``x.new([1, 2])`` (data) or
    ``x.new()`` (empty), all with ``x``'s dtype."""
    return _factories._legacy_new(self.dtype, args)


def where(self, condition, y):
    """``x.where(condition, y)``: ``where(condition, x, y)``, ``x`` where ``condition``
    holds, else ``y`` (the op's argument order read from ``self``)."""
    return _where(condition, self, y)


_register_methods({f.__name__: f for f in (
    where, new_zeros, new_ones, new_full, new_empty, new_tensor, new, is_signed, is_nonzero,
    uniform_, normal_, random_, exponential_, multinomial, cauchy_, log_normal_, geometric_,
    new_empty_strided, __format__)})
