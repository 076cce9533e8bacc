"""``cartesian_prod`` and ``combinations``: the tuples of elements of 1-D tensors, one per
row, composed of existing ops (``meshgrid`` and ``stack`` as torch composes
``cartesian_prod``; ``combinations`` picks its columns by ``index_select`` where torch's
``masked_select`` a grid, the same rows, batched by vmap's rule): the output's node is
``StackBackward0``, and the gradient of an element adds up over the rows it appears in.

``cartesian_prod(a, b, ...)`` has a row for every choice of one element from each tensor,
the last tensor varying fastest (the 'ij' grid, flattened). ``combinations(t, r)`` has a
row for every ``r`` elements of ``t`` taken in order at increasing positions (at
non-decreasing positions ``with_replacement``), in lexicographic order of the positions.

>>> import autograd_cy as ag
>>> ag.combinations(ag.tensor([1, 2, 3]))
tensor([[1, 2],
        [1, 3],
        [2, 3]])
"""
import itertools

import numpy as np

import autograd_cy as _ag

__all__ = ["cartesian_prod", "combinations"]


def _check_vector(t):
    if t.dim() != 1:
        raise RuntimeError(f"Expect a 1D vector, but got shape {list(t.shape)}")


def cartesian_prod(*tensors):
    """The rows of the cartesian product of 1-D tensors (one tensor is returned as it
    is)."""
    for t in tensors:
        _check_vector(t)
    if len(tensors) == 1:
        return tensors[0]
    grids = _ag.meshgrid(*tensors, indexing="ij")
    return _ag.stack([g.flatten() for g in grids], 1)


def combinations(input, r=2, with_replacement=False):
    """The ``r``-element combinations of a 1-D tensor's elements, one per row."""
    _check_vector(input)
    if r < 0:
        raise RuntimeError(f"Expect a non-negative number, but got {r}")
    if r == 0:
        return _ag.empty(0, dtype=input.dtype, device=input.device)
    choose = (itertools.combinations_with_replacement if with_replacement
              else itertools.combinations)
    rows = np.array(list(choose(range(input.shape[0]), r)), dtype=np.int64).reshape(-1, r)
    positions = _ag.tensor(rows, device=input.device)
    return _ag.stack([input.index_select(0, positions[:, k]) for k in range(r)], 1)
