"""``linalg.cross`` and ``torch.cross``: the cross product of 3-vectors along ``dim``,
broadcast. It is bilinear, so each gradient is a cross product again (torch's
``LinalgCrossBackward0``):

    g_input = cross(conj(other), g),   g_other = cross(g, conj(input))

>>> import autograd_cy as ag
>>> ag.linalg.cross(ag.tensor([1.0, 0.0, 0.0]), ag.tensor([0.0, 1.0, 0.0]))
tensor([0., 0., 1.])
"""
import numpy as np

from autograd_cy.autograd.function import Function
from autograd_cy.linalg._lapack import array_of, tensor_like

__all__ = ["cross"]


class LinalgCross(Function):
    """``cross``'s op along ``dim``."""
    builtin_op = True

    @staticmethod
    def forward(ctx, input, other, dim):
        a, b = np.broadcast_arrays(array_of(input), array_of(other))
        out = tensor_like(np.cross(a, b, axis=dim), input)
        ctx.save_for_backward(input, other)
        ctx.save_for_forward(input, other)
        ctx.dim, ctx.shapes = dim, (tuple(input.shape), tuple(other.shape))
        return out

    @staticmethod
    def backward(ctx, grad):
        input, other = ctx.saved_tensors
        g_input = g_other = None
        if ctx.needs_input_grad[0]:
            g_input = LinalgCross.apply(other.conj(), grad, ctx.dim).sum_to_size(ctx.shapes[0])
        if ctx.needs_input_grad[1]:
            g_other = LinalgCross.apply(grad, input.conj(), ctx.dim).sum_to_size(ctx.shapes[1])
        return g_input, g_other, None

    @staticmethod
    def jvp(ctx, input_t, other_t, dim_t):
        input, other = ctx.saved_tensors
        out = None
        if input_t is not None:
            out = LinalgCross.apply(input_t, other, ctx.dim)
        if other_t is not None:
            term = LinalgCross.apply(input, other_t, ctx.dim)
            out = term if out is None else out + term
        return out


LinalgCross._backward_cls.__name__ = "LinalgCrossBackward0"


def cross(input, other, *, dim=-1):
    """The cross product along ``dim`` (of size 3 in both), the other dims broadcast."""
    if input.dim() != other.dim():
        raise RuntimeError("linalg.cross: inputs must have the same number of dimensions.")
    for tensor in (input, other):
        if tensor.shape[dim] != 3:
            raise RuntimeError(f"linalg.cross: inputs dimension {dim} must have length 3. "
                               f"Got {input.shape[dim]} and {other.shape[dim]}")
    if input.dtype != other.dtype:          # torch's kernel takes one dtype, no promotion
        raise RuntimeError(f"expected scalar type {input.dtype._scalar_name} but found "
                           f"{other.dtype._scalar_name}")
    wrapped = dim % input.dim()
    return LinalgCross.apply(input, other, wrapped - input.dim())

