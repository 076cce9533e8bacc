"""``bernoulli`` and ``bernoulli_``: 0/1 samples, 1 with a probability given as a number or
per element as a tensor, drawn as torch's CPU kernel draws them after the same seed (NOTE
[Bernoulli draws] in cpu_random.py). Dropout's masks are such draws.

A sample has no derivative worth the name: torch records ``BernoulliBackward0`` (a zero
gradient for the probabilities) for ``bernoulli(p)``, and a node whose backward raises for
``bernoulli(input, p)`` with a number ``p``. Both are here under those names.

>>> import autograd_cy as ag
>>> _ = ag.manual_seed(0)
>>> ag.empty(8).bernoulli_(0.5)
tensor([0., 0., 1., 0., 0., 0., 1., 1.])
"""
import numpy as np

from autograd_cy import cpu_random as _cpu_random
from autograd_cy import factories as _factories
from autograd_cy._C.tensor import _array_of, _register_methods, _wrap_array
from autograd_cy.autograd.function import Function
from autograd_cy.grad_mode import no_grad

__all__ = ["bernoulli"]


def _check_probability(p):
    if not 0 <= p <= 1:
        raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={p}")


def _check_probabilities(p):
    if not (p.dtype.is_floating_point or p.dtype.is_complex):
        raise NotImplementedError(f"\"bernoulli_tensor_cpu_p_\" not implemented for "
                                  f"'{p.dtype._scalar_name}'")
    values = _array_of(p.detach().cpu())
    if values.size and not ((values >= 0) & (values <= 1)).all():
        raise RuntimeError("Expected p_in >= 0 && p_in <= 1 to be true, but got false.  "
                           "(Could this error message be improved?  If so, please report an "
                           "enhancement request to PyTorch.)")
    return values


def bernoulli_(self, p=0.5, *, generator=None):
    """Fill ``self`` with 0/1 samples, 1 with probability ``p`` (a number, or a tensor
    broadcast to ``self``), in ``self``'s memory order as torch's CPU kernel writes them."""
    dtype = np.dtype(_array_of(self).dtype)
    source = _factories._generator(generator)
    if isinstance(p, np.ndarray) or hasattr(p, "dtype"):
        probabilities = _check_probabilities(p)
        values = _cpu_random.in_memory_order(
            lambda shape, q: _cpu_random.bernoulli(source, shape, dtype, q),
            tuple(self.shape), self.stride(), probabilities)
    else:
        _check_probability(p)
        values = _cpu_random.in_memory_order(
            lambda shape: _cpu_random.bernoulli(source, shape, dtype, float(p)),
            tuple(self.shape), self.stride())
    sample = _wrap_array(np.asarray(values))
    if self.is_cuda:
        sample = sample.to(self.device)
    return self.copy_(sample)


def _contiguous_like(tensor):
    """An empty row-major tensor like ``tensor``: torch samples into one whatever the
    input's layout, so the draws go in row-major order."""
    return _factories.empty(tuple(tensor.shape), dtype=tensor.dtype, device=tensor.device)


class Bernoulli(Function):
    """``bernoulli(p)``: samples with the probabilities' shape and dtype; the gradient with
    respect to the probabilities is zero, as torch's BernoulliBackward0 says."""
    builtin_op = True

    @staticmethod
    def forward(ctx, probabilities, generator):
        with no_grad():
            return _contiguous_like(probabilities).bernoulli_(probabilities,
                                                              generator=generator)

    @staticmethod
    def backward(ctx, grad):
        return grad * 0, None


class BernoulliWithProbability(Function):
    """``bernoulli(input, p)`` with a number ``p``: torch records a node without a formula,
    whose backward raises."""
    builtin_op = True

    @staticmethod
    def forward(ctx, input, p, generator):
        with no_grad():
            return _contiguous_like(input).bernoulli_(p, generator=generator)

    @staticmethod
    def backward(ctx, grad):
        raise RuntimeError("the derivative for 'bernoulli' is not implemented.")


Bernoulli._backward_cls.__name__ = "BernoulliBackward0"
BernoulliWithProbability._backward_cls.__name__ = "NotImplemented"


def bernoulli(input, p=None, *, generator=None):
    """0/1 samples shaped as ``input``: 1 with probability ``input`` element by element, or
    with probability ``p`` when it is given."""
    if p is None:
        _check_probabilities(input)
        return Bernoulli.apply(input, generator)
    _check_probability(p)
    return BernoulliWithProbability.apply(input, p, generator)


_register_methods({"bernoulli": bernoulli, "bernoulli_": bernoulli_})
