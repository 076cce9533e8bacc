"""``tril`` and ``triu``: the lower or upper triangle of the last two dims, the rest zero.
Composed of ``masked_fill`` (its gradient is the same triangle of the incoming one)."""
import numpy as np

from autograd_cy import factories
from autograd_cy._C.tensor import _register_methods

__all__ = ["tril", "triu"]


def _triangle(name, input, diagonal, keep_lower):
    if input.dim() < 2:
        raise RuntimeError(f"{name}: input tensor must have at least 2 dimensions")
    rows, cols = input.shape[-2], input.shape[-1]
    keep = np.tri(rows, cols, diagonal, dtype=bool) if keep_lower else \
        ~np.tri(rows, cols, diagonal - 1, dtype=bool)
    drop = factories.tensor(~keep, device=input.device)
    return input.masked_fill(drop, 0)


def tril(input, diagonal=0):
    """The elements on and below the ``diagonal``-th diagonal; zeros above."""
    return _triangle("tril", input, diagonal, True)


def triu(input, diagonal=0):
    """The elements on and above the ``diagonal``-th diagonal; zeros below."""
    return _triangle("triu", input, diagonal, False)


_register_methods({"tril": tril, "triu": triu})
