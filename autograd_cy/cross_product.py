"""``cross``: the cross product of 3-vectors along a dim, one op with torch's node
``LinalgCrossBackward0``. The product is bilinear and antisymmetric, so ``self`` gets
``cross(other, g)`` and ``other`` gets ``cross(g, self)``, through the same op (a double
backward records again); operands broadcast, and each gradient is summed back.

>>> import autograd_cy as ag
>>> ag.cross(ag.tensor([1.0, 0.0, 0.0]), ag.tensor([0.0, 1.0, 0.0]), dim=0)
tensor([0., 0., 1.])
"""
import warnings

import autograd_cy as _ag
from autograd_cy._C.tensor import _register_methods
from autograd_cy.autograd.function import Function
from autograd_cy.reorder import _wrap

__all__ = ["cross"]


def _crossed(a, b, dim):
    """``a x b`` along ``dim`` (size 3), with Tensor ops."""
    def part(t, k):
        return t.narrow(dim, k, 1)
    return _ag.cat([part(a, 1) * part(b, 2) - part(a, 2) * part(b, 1),
                    part(a, 2) * part(b, 0) - part(a, 0) * part(b, 2),
                    part(a, 0) * part(b, 1) - part(a, 1) * part(b, 0)], dim)


def _reduced(grad, operand):
    return grad.sum_to_size(operand.shape) if grad.shape != operand.shape else grad


class Cross(Function):
    """``cross``'s op (``LinalgCrossBackward0``)."""
    builtin_op = True

    @staticmethod
    def forward(ctx, input, other, dim):
        ctx.dim = dim
        ctx.save_for_backward(input, other)
        ctx.save_for_forward(input, other)
        return _crossed(input, other, dim)

    @staticmethod
    def backward(ctx, grad):
        input, other = ctx.saved_tensors
        grads = [None, None, None]
        # complex operands: the conjugates, as every product's gradient (torch's formula)
        if ctx.needs_input_grad[0]:
            grads[0] = _reduced(Cross.apply(other.conj(), grad, ctx.dim), input)
        if ctx.needs_input_grad[1]:
            grads[1] = _reduced(Cross.apply(grad, input.conj(), ctx.dim), other)
        return tuple(grads)

    @staticmethod
    def jvp(ctx, input_t, other_t, dim_t):
        input, other = ctx.saved_tensors
        tangent = 0
        if input_t is not None:
            tangent = Cross.apply(input_t, other, ctx.dim)
        if other_t is not None:
            tangent = tangent + Cross.apply(input, other_t, ctx.dim)
        return tangent


Cross._backward_cls.__name__ = "LinalgCrossBackward0"


def cross(input, other, dim=None):
    """The cross product of ``input`` and ``other`` along ``dim`` (of size 3; without a
    dim, the first dim of size 3, with torch's deprecation warning)."""
    if input.dtype != other.dtype:
        raise RuntimeError(f"expected scalar type {input.dtype._scalar_name} but found "
                           f"{other.dtype._scalar_name}")
    rank = max(input.dim(), other.dim())
    input = input.reshape((1,) * (rank - input.dim()) + tuple(input.shape))
    other = other.reshape((1,) * (rank - other.dim()) + tuple(other.shape))
    if dim is None:
        warnings.warn("Using torch.cross without specifying the dim arg is deprecated.\n"
                      "Please either pass the dim explicitly or simply use torch.linalg.cross."
                      "\nThe default value of dim will change to agree with that of "
                      "linalg.cross in a future release.", UserWarning)
        dim = next((k for k in range(rank) if input.shape[k] == 3), -1)
    dim = _wrap(dim, rank)
    if input.shape[dim] != 3 or other.shape[dim] != 3:
        raise RuntimeError(f"linalg.cross: inputs dimension {dim} must have length 3. Got "
                           f"{input.shape[dim]} and {other.shape[dim]}")
    return Cross.apply(input, other, dim)


_register_methods({"cross": cross})
