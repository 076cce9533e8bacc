"""``torch.fill``: a new tensor of ``input``'s shape, dtype and device, every element
``value`` (a number or a 0-dim tensor); ``Tensor.fill_`` is its in-place form.

Its node is torch's: ``FillBackward0`` for a number, ``FillBackward1`` for a tensor value,
which gets the sum of the gradient; ``input`` gets zeros (it only gave the shape).

>>> import autograd_cy as ag
>>> ag.fill(ag.ones(2, 2), 3.0)
tensor([[3., 3.],
        [3., 3.]])
"""
import autograd_cy as _ag
from autograd_cy._C.tensor import Tensor
from autograd_cy.autograd.function import Function

__all__ = ["fill"]


class _Fill(Function):
    builtin_op = True

    @staticmethod
    def forward(ctx, input, value):
        with _ag.no_grad():
            return input.clone().fill_(value)

    @staticmethod
    def backward(ctx, grad):
        return _ag.zeros_like(grad), None

    @staticmethod
    def jvp(ctx, input_t, value_t):
        return _ag.zeros_like(input_t)


class _FillWithTensor(_Fill):
    @staticmethod
    def backward(ctx, grad):
        return _ag.zeros_like(grad), grad.sum()

    @staticmethod
    def jvp(ctx, input_t, value_t):
        return _ag.zeros_like(input_t) + value_t


_Fill._backward_cls.__name__ = "FillBackward0"
_FillWithTensor._backward_cls.__name__ = "FillBackward1"


def fill(input, value):
    """A copy of ``input`` with every element ``value``."""
    if isinstance(value, Tensor):
        if value.dim():
            raise RuntimeError(f"fill_ only supports 0-dimension value tensor but got tensor "
                               f"with {value.dim()} dimensions.")
        return _FillWithTensor.apply(input, value)
    return _Fill.apply(input, value)
