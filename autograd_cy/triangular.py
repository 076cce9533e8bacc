"""``tril`` and ``triu``: the lower or upper triangle of the last two dims, the rest zeroed.

``diagonal`` shifts the boundary: 0 is the main diagonal, positive values move it up (to
the right), negative ones down. Both are linear masks, so each one's gradient is the same
mask applied to the gradient (``TrilBackward0`` / ``TriuBackward0``, as torch names them).

>>> import autograd_cy as ag
>>> ag.ones(3, 3).tril()
tensor([[1., 0., 0.],
        [1., 1., 0.],
        [1., 1., 1.]])
>>> ag.ones(2, 3).triu(1)
tensor([[0., 1., 1.],
        [0., 0., 1.]])
"""
from autograd_cy._C.tensor import _register_methods
from autograd_cy.autograd.function import Function
from autograd_cy.factories import arange

__all__ = ["tril", "triu"]


def _keep_mask(input, diagonal, lower):
    """True where ``tril`` (``lower``) or ``triu`` keeps an entry of the last two dims."""
    if input.dim() < 2:
        name = "tril" if lower else "triu"
        raise RuntimeError(f"{name}: input tensor must have at least 2 dimensions")
    rows = arange(input.shape[-2], device=input.device).unsqueeze(1)
    cols = arange(input.shape[-1], device=input.device)
    offset = cols - rows            # column minus row: 0 on the main diagonal
    return offset.le(diagonal) if lower else offset.ge(diagonal)


class _Triangle(Function):
    """Keep a triangle (``lower``: tril, else triu); the backward and jvp keep the same
    triangle of the gradient or tangent, through the same op."""
    builtin_op = True

    @staticmethod
    def forward(ctx, input, diagonal, lower):
        ctx.diagonal, ctx.lower = diagonal, lower
        return input.masked_fill(_keep_mask(input, diagonal, lower).logical_not(), 0)

    @staticmethod
    def backward(ctx, grad):
        return _same_triangle(ctx, grad), None, None

    @staticmethod
    def jvp(ctx, input_t, diagonal_t, lower_t):
        return _same_triangle(ctx, input_t)


class Tril(_Triangle):
    """``tril``'s op."""


class Triu(_Triangle):
    """``triu``'s op."""


def _same_triangle(ctx, tensor):
    return (Tril if ctx.lower else Triu).apply(tensor, ctx.diagonal, ctx.lower)


# The nodes named as torch's (a Function's node is otherwise <Function>Backward).
Tril._backward_cls.__name__ = "TrilBackward0"
Triu._backward_cls.__name__ = "TriuBackward0"


def tril(input, diagonal=0):
    """The entries on and below the ``diagonal``-th diagonal of the last two dims."""
    return Tril.apply(input, diagonal, True)


def triu(input, diagonal=0):
    """The entries on and above the ``diagonal``-th diagonal of the last two dims."""
    return Triu.apply(input, diagonal, False)


_register_methods({"tril": tril, "triu": triu})
