"""``torch.vander(x, N=None, increasing=False)``: the Vandermonde matrix of a vector, its
columns the powers ``x**(N-1), ..., x, 1`` (ascending with ``increasing``).

Composed as torch composes it, so its graph is torch's: ones, ``x`` copied into columns 1
on, a ``cumprod`` along them written back (``CopySlices``), then a ``flip`` unless
increasing (``FlipBackward0``). Integer and bool vectors give int64 (``cumprod``'s
promotion); ``linalg.vander`` is the batched, increasing form.

NOTE [torch.vander's backward raises]
In torch 2.13 a backward through ``vander`` with two columns or more raises "modified by an
inplace operation": the ``cumprod`` saves the slice of the result it reads, and the
``copy_`` of its output into that slice bumps the slice's version. The same composition
here raises the same error; a differentiable Vandermonde matrix is ``linalg.vander``
(flipped for the decreasing order).

>>> import autograd_cy as ag
>>> ag.vander(ag.tensor([1, 2, 3]))
tensor([[1, 1, 1],
        [4, 2, 1],
        [9, 3, 1]])
"""
from autograd_cy import dtypes as _dtypes
from autograd_cy.factories import empty

__all__ = ["vander"]


def vander(x, N=None, increasing=False):
    """The Vandermonde matrix of the 1-D ``x`` with ``N`` columns (default ``len(x)``)."""
    if x.dim() != 1:
        raise RuntimeError("x must be a one-dimensional tensor.")
    n = x.shape[0]
    if N is not None:
        n = N
        if n < 0:
            raise RuntimeError("N must be non-negative.")
    result = empty(x.shape[0], n, dtype=_dtypes.promote_types(x.dtype, _dtypes.int64),
                   device=x.device)
    if n > 0:
        result.fill_(1)
        if n > 1:
            result[:, 1:].copy_(x.unsqueeze(1))
            result[:, 1:].copy_(result[:, 1:].cumprod(1))
    return result if increasing else result.flip(1)
