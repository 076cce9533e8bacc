"""``torch.nuclear_norm`` and ``torch.frobenius_norm``: torch's deprecated matrix norms,
kept for old scripts, each warning once (TORCH_WARN_ONCE) that its ``linalg`` form
replaces it.

- ``nuclear_norm(input, keepdim=False)`` over the last two dims, or ``nuclear_norm(input,
  dim, keepdim=False)``: ``linalg.matrix_norm(input, 'nuc', dim, keepdim)`` itself (its
  node ``SumBackward1``, the sum of the singular values).
- ``frobenius_norm(input, dim, keepdim=False)`` (at most two dims; none: all of them): the
  2-norm of the elements over ``dim``, under torch's node ``NormBackward1`` (it is
  ``torch.norm(input, 2, dim, keepdim)``).

A single int ``dim`` is read as torch's argument parser reads it: ``[d, d]`` for the
nuclear norm (refused as two equal dims), ``[d]`` for the Frobenius norm.
"""
from autograd_cy.composed_ops import ComposedOp
from autograd_cy.linalg.norms import matrix_norm, vector_norm
from autograd_cy.warn_always import warn_once

__all__ = ["nuclear_norm", "frobenius_norm"]

_NUCLEAR = ("at::nuclear_norm is deprecated and it is just left for JIT compatibility. It "
            "will be removed in a future PyTorch release. Please use `linalg.matrix_norm(A, "
            "'nuc', dim, keepdim)` instead")
_FROBENIUS = ("at::frobenius_norm is deprecated and it is just left for JIT compatibility. "
              "It will be removed in a future PyTorch release. Please use "
              "`linalg.vector_norm(A, 2., dim, keepdim)` instead")


class FrobeniusNorm(ComposedOp):
    """``frobenius_norm``'s op (torch's ``NormBackward1``)."""


FrobeniusNorm._backward_cls.__name__ = "NormBackward1"


def nuclear_norm(input, dim=None, keepdim=False):
    """The sum of the singular values of each matrix of ``input`` (the last two dims, or the
    two ``dim`` names)."""
    if isinstance(dim, bool):               # nuclear_norm(input, keepdim)
        dim, keepdim = None, dim
    warn_once(_NUCLEAR, 2)
    if dim is None:
        dim = (-2, -1)
    dim = (dim, dim) if isinstance(dim, int) else tuple(dim)
    return matrix_norm(input, "nuc", dim, keepdim)


def frobenius_norm(input, dim, keepdim=False):
    """The square root of the sum of the squared magnitudes of ``input``'s elements over
    ``dim`` (at most two dims; empty: all)."""
    warn_once(_FROBENIUS, 2)
    dim = (dim,) if isinstance(dim, int) else tuple(dim)
    if len(dim) > 2:
        raise RuntimeError(f"Expected at most 2 dimensions, but got {len(dim)} dimensions "
                           f"instead.")
    if not (input.dtype.is_floating_point or input.dtype.is_complex):
        raise RuntimeError(f"norm(): input dtype should be either floating point or complex. "
                           f"Got {input.dtype._scalar_name} instead.")
    return FrobeniusNorm.apply(lambda x: vector_norm(x, 2, dim or None, keepdim), input)
