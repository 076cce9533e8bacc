"""``poisson(input)`` and ``binomial(count, prob)``: counts drawn per element, torch's
numbers after the same seed on the CPU (NOTE [Poisson and binomial draws] in
cpu_random.py).

Both record a node as torch does: ``PoissonBackward0``, whose gradient is zeros, and for
``binomial`` torch's ``NotImplemented`` node, whose backward raises.

>>> import autograd_cy as ag
>>> _ = ag.manual_seed(0)
>>> ag.poisson(ag.tensor([0.0, 4.0]))
tensor([0., 7.])
"""
import warnings

import numpy as np

from autograd_cy import cpu_random as _cpu_random
from autograd_cy import factories as _factories
from autograd_cy._C.tensor import Tensor, _array_of, _wrap_array
from autograd_cy.autograd.function import Function
from autograd_cy.grad_mode import no_grad

__all__ = ["poisson", "binomial"]


def _host_values(tensor):
    return np.asarray(_array_of(tensor.detach().cpu()))


def _on_device_of(values, like):
    result = _wrap_array(np.ascontiguousarray(values))
    return result.to(like.device) if like.is_cuda else result


class Poisson(Function):
    """``poisson``: the samples; a zero gradient for the rates (``PoissonBackward0``)."""
    builtin_op = True

    @staticmethod
    def forward(ctx, input, generator):
        values = _cpu_random.poisson(_factories._generator(generator), _host_values(input),
                                     np.dtype(_array_of(input).dtype))
        return _on_device_of(values, input)

    @staticmethod
    def backward(ctx, grad):
        with no_grad():
            return grad.new_zeros(grad.shape), None


class Binomial(Function):
    """``binomial``: torch records a node without a formula, whose backward raises."""
    builtin_op = True

    @staticmethod
    def forward(ctx, count, prob, generator):
        counts, probabilities = np.broadcast_arrays(_host_values(count), _host_values(prob))
        values = _cpu_random.binomial(_factories._generator(generator), counts,
                                      probabilities, np.dtype(_array_of(count).dtype))
        return _on_device_of(values, count)

    @staticmethod
    def backward(ctx, grad):
        raise RuntimeError("derivative for aten::binomial is not implemented")


Poisson._backward_cls.__name__ = "PoissonBackward0"
Binomial._backward_cls.__name__ = "NotImplemented"


def _check_tensor(function, name, position, value):
    if not isinstance(value, Tensor):
        raise TypeError(f"{function}(): argument '{name}' ({position}) must be Tensor, not "
                        f"{type(value).__name__}")


def poisson(input, generator=None):
    """Samples of the Poisson distribution with the rates ``input`` (non-negative), in its
    floating dtype."""
    _check_tensor("poisson", "input", "position 1", input)
    if not input.dtype.is_floating_point:
        raise NotImplementedError(f"\"poisson_cpu\" not implemented for "
                                  f"'{input.dtype._scalar_name}'")
    return Poisson.apply(input, generator)


def binomial(count, prob, generator=None):
    """Samples of the binomial distribution of ``count`` trials of success probability
    ``prob`` (broadcast together), in their dtype (float32 or float64)."""
    _check_tensor("binomial", "count", "position 1", count)
    _check_tensor("binomial", "prob", "position 2", prob)
    for name, value in (("count", count), ("prob", prob)):
        if not value.dtype.is_floating_point:
            raise ValueError(f"binomial only supports floating-point dtypes for {name}, got: "
                             f"{value.dtype._scalar_name}")
    if prob.dtype != count.dtype:
        raise RuntimeError(f"Found dtype {prob.dtype._scalar_name} but expected "
                           f"{count.dtype._scalar_name}")
    if count.dtype.itemsize < 4:
        raise NotImplementedError(f"\"binomial_cpu\" not implemented for "
                                  f"'{count.dtype._scalar_name}'")
    shape = tuple(np.broadcast_shapes(tuple(count.shape), tuple(prob.shape)))
    if shape != tuple(count.shape) and count.numel():
        warnings.warn(f"An output with one or more elements was resized since it had shape "
                      f"{list(count.shape)}, which does not match the required output shape "
                      f"{list(shape)}. This behavior is deprecated, and in a future PyTorch "
                      f"release outputs will not be resized unless they have zero elements. "
                      f"You can explicitly reuse an out tensor t by resizing it, inplace, to "
                      f"zero elements with t.resize_(0).", UserWarning, stacklevel=2)
    return Binomial.apply(count, prob, generator)
