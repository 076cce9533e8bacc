"""``diag_embed``, ``diagflat`` and ``diag``: tensors whose diagonals are another tensor's
entries, and ``diag`` of a matrix, its diagonal as a new tensor.

``diag_embed`` (and ``diagflat``, and ``diag`` of a vector) is one op with torch's node
``DiagEmbedBackward0``: zeros with the input written along a diagonal of two new dims,
whose gradient is that diagonal of the gradient (``diagonal``, a view that records, so a
double backward differentiates it). ``diag`` of a matrix copies the diagonal out
(torch's node ``DiagonalBackward0_copy``, of its op ``diagonal_copy``); its gradient is
zeros with the gradient written along that diagonal.

>>> import autograd_cy as ag
>>> ag.diag(ag.tensor([1, 2]))
tensor([[1, 0],
        [0, 2]])
>>> ag.diag(ag.tensor([[1, 2], [3, 4]]), 1)
tensor([2])
"""
from autograd_cy._C.tensor import _register_methods
from autograd_cy.autograd.function import Function
from autograd_cy.factories import zeros
from autograd_cy.reorder import _wrap

__all__ = ["diag_embed", "diagflat", "diag"]


def _written_on_diagonal(values, shape, offset, dim1, dim2):
    """Zeros of ``shape`` with ``values`` along their ``(offset, dim1, dim2)`` diagonal."""
    out = zeros(shape, dtype=values.dtype, device=values.device)
    out.diagonal(offset, dim1, dim2).copy_(values)
    return out


class DiagEmbed(Function):
    """``diag_embed``'s op (``DiagEmbedBackward0``)."""
    builtin_op = True

    @staticmethod
    def forward(ctx, input, offset, dim1, dim2):
        ctx.diagonal = (offset, dim1, dim2)
        size = input.shape[-1] + abs(offset) if input.dim() else 1 + abs(offset)
        shape = list(input.shape[:-1])
        for dim in sorted((dim1, dim2)):
            shape.insert(dim, size)
        return _written_on_diagonal(input, tuple(shape), offset, dim1, dim2)

    @staticmethod
    def backward(ctx, grad):
        return grad.diagonal(*ctx.diagonal), None, None, None

    @staticmethod
    def jvp(ctx, input_t, *unused):
        return DiagEmbed.apply(input_t, *ctx.diagonal)


class DiagonalCopy(Function):
    """``diag`` of a matrix (``DiagonalBackward0_copy``): the diagonal, copied."""
    builtin_op = True

    @staticmethod
    def forward(ctx, input, offset):
        ctx.offset, ctx.shape = offset, tuple(input.shape)
        return input.diagonal(offset).clone()

    @staticmethod
    def backward(ctx, grad):
        return _written_on_diagonal(grad, ctx.shape, ctx.offset, 0, 1), None

    @staticmethod
    def jvp(ctx, input_t, offset_t):
        return DiagonalCopy.apply(input_t, ctx.offset)


DiagEmbed._backward_cls.__name__ = "DiagEmbedBackward0"
DiagonalCopy._backward_cls.__name__ = "DiagonalBackward0_copy"


def diag_embed(input, offset=0, dim1=-2, dim2=-1):
    """A tensor whose ``(offset, dim1, dim2)`` diagonals hold the last dim of ``input``
    (two new dims replace it), zeros elsewhere."""
    rank = input.dim() + 1
    first, second = _wrap(dim1, rank), _wrap(dim2, rank)
    if first == second:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    return DiagEmbed.apply(input, offset, first, second)


def diagflat(input, offset=0):
    """A matrix with the flattened ``input`` along its ``offset`` diagonal."""
    return DiagEmbed.apply(input.reshape(-1), offset, 0, 1)


def diag(input, diagonal=0):
    """A vector's matrix (the vector along the ``diagonal``-th diagonal), or a matrix's
    ``diagonal``-th diagonal as a new vector."""
    if input.dim() == 1:
        return DiagEmbed.apply(input, diagonal, 0, 1)
    if input.dim() == 2:
        return DiagonalCopy.apply(input, diagonal)
    raise RuntimeError(f"diag(): Supports 1D or 2D tensors. Got {input.dim()}D")


_register_methods({"diag_embed": diag_embed, "diagflat": diagflat, "diag": diag})
