"""``unique``: a tensor's distinct entries (or distinct slices along a dim), sorted, with
where each entry went (``return_inverse``) and how often each occurs (``return_counts``);
``unique_consecutive``: each run of equal consecutive entries (or slices) kept once, in
order.

torch records ``Unique2Backward0`` (``UniqueDimBackward0`` with a dim,
``UniqueConsecutiveBackward0`` for the runs) whose backward
raises, as its op has no derivative; so does this one. The distinct values are found on
the host (a CUDA tensor's are copied there and the results copied back, as torch's kernel
synchronizes to learn the output's size). NaNs are distinct from each other, as torch's.

>>> import autograd_cy as ag
>>> ag.tensor([3, 1, 3, 2]).unique(return_counts=True)
(tensor([1, 2, 3]), tensor([1, 1, 2]))
"""
import numpy as np

from autograd_cy._C.tensor import _register_methods
from autograd_cy.autograd.function import Function
from autograd_cy.dtypes import _refuse_complex
from autograd_cy.factories import tensor as _tensor
from autograd_cy.reorder import _wrap

__all__ = ["unique", "unique_consecutive"]


class _Unique(Function):
    builtin_op = True

    @staticmethod
    def forward(ctx, input, dim):
        host = input.detach().cpu().numpy()
        if dim is None:
            values, inverse, counts = np.unique(host.reshape(-1), return_inverse=True,
                                                return_counts=True, equal_nan=False)
            inverse = inverse.reshape(host.shape)
        else:
            values, inverse, counts = np.unique(host, return_inverse=True, return_counts=True,
                                                axis=dim, equal_nan=False)
            inverse = inverse.reshape(-1)
        inverse, counts = (_tensor(a.astype(np.int64), device=input.device)
                           for a in (inverse, counts))
        ctx.mark_non_differentiable(inverse, counts)
        return _tensor(values, dtype=input.dtype, device=input.device), inverse, counts



def _no_derivative(op_name):
    def backward(ctx, grad, grad_inverse, grad_counts):
        raise NotImplementedError(f"the derivative for '{op_name}' is not implemented.")
    return staticmethod(backward)


class Unique(_Unique):
    """``unique``'s op (``Unique2Backward0``)."""
    backward = _no_derivative("_unique2")


class UniqueDim(_Unique):
    """``unique(dim=...)``'s op (``UniqueDimBackward0``)."""
    backward = _no_derivative("unique_dim")


Unique._backward_cls.__name__ = "Unique2Backward0"
UniqueDim._backward_cls.__name__ = "UniqueDimBackward0"


def unique(input, sorted=True, return_inverse=False, return_counts=False, dim=None):
    """The distinct entries of ``input`` in ascending order (``dim``: its distinct slices
    along ``dim``), with the int64 index of each entry's value (``return_inverse``) and the
    count of each value (``return_counts``)."""
    _refuse_complex(input.dtype, "unique" if dim is None else "unique_dim")
    if dim is None:
        values, inverse, counts = Unique.apply(input, None)
    else:
        values, inverse, counts = UniqueDim.apply(input, _wrap(dim, input.dim()))
    if not return_inverse and not return_counts:
        return values
    return (values,) + ((inverse,) if return_inverse else ()) + (
        (counts,) if return_counts else ())


def _runs(host, dim):
    """The first entry of each run of equal consecutive entries (slices along ``dim``) of a
    NumPy array: the values, each entry's run (the inverse) and each run's length. NaN
    differs from NaN, so each NaN is a run of its own."""
    if dim is None:
        rows, dim_size = host.reshape(-1, 1), host.size
    else:
        dim_size = host.shape[dim]
        moved = np.moveaxis(host, dim, 0)
        rows = moved.reshape(dim_size, int(np.prod(moved.shape[1:])))
    starts = np.ones(dim_size, dtype=bool)
    if dim_size > 1:
        starts[1:] = (rows[1:] != rows[:-1]).any(axis=1) if rows.shape[1] else False
    first = np.flatnonzero(starts)
    inverse = np.cumsum(starts) - 1
    counts = np.diff(np.append(first, dim_size))
    if dim is None:
        return host.reshape(-1)[first], inverse.reshape(host.shape), counts
    return np.take(host, first, axis=dim), inverse, counts


class UniqueConsecutive(Function):
    """``unique_consecutive``'s op (``UniqueConsecutiveBackward0``, whose backward raises
    as torch's)."""
    builtin_op = True
    backward = _no_derivative("unique_consecutive")

    @staticmethod
    def forward(ctx, input, dim):
        values, inverse, counts = _runs(input.detach().cpu().numpy(), dim)
        inverse, counts = (_tensor(a.astype(np.int64), device=input.device)
                           for a in (inverse, counts))
        ctx.mark_non_differentiable(inverse, counts)
        return _tensor(values, dtype=input.dtype, device=input.device), inverse, counts


UniqueConsecutive._backward_cls.__name__ = "UniqueConsecutiveBackward0"


def unique_consecutive(input, return_inverse=False, return_counts=False, dim=None):
    """Each run of equal consecutive entries of ``input`` (``dim``: of its slices along
    ``dim``) once, in order, with the int64 run of each entry (``return_inverse``) and the
    length of each run (``return_counts``)."""
    # (torch leaves dim 0 of a 1-D tensor, as given, to its kernel of runs of entries)
    _refuse_complex(input.dtype, "unique" if dim is None or dim == 0 and input.dim() == 1
                    else "unique_dim")
    values, inverse, counts = UniqueConsecutive.apply(
        input, None if dim is None else _wrap(dim, input.dim()))
    if not return_inverse and not return_counts:
        return values
    return (values,) + ((inverse,) if return_inverse else ()) + (
        (counts,) if return_counts else ())


_register_methods({"unique": unique, "unique_consecutive": unique_consecutive})
