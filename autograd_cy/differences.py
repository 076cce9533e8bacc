"""``diff``: the differences of neighbouring entries along a dim, ``n`` times over, and
``take_along_dim``: entries picked by indices along a dim (``gather`` after broadcasting),
both composed of existing ops as torch composes them (their nodes are SubBackward0 and
GatherBackward0). bool tensors differ by ``logical_xor``, as torch's.

>>> import autograd_cy as ag
>>> ag.tensor([1, 4, 9, 16]).diff()
tensor([3, 5, 7])
"""
import autograd_cy as _ag
from autograd_cy._C.tensor import _register_methods
from autograd_cy.reorder import _wrap

__all__ = ["diff", "take_along_dim"]


def diff(input, n=1, dim=-1, prepend=None, append=None):
    """``input[1:] - input[:-1]`` along ``dim``, ``n`` times, after joining ``prepend`` and
    ``append`` to its ends."""
    if input.dim() == 0:
        raise RuntimeError("diff expects input to be at least one-dimensional")
    dim = _wrap(dim, input.dim())
    if n < 0:
        raise RuntimeError(f"order must be non-negative but got {n}")
    parts = [t for t in (prepend, input, append) if t is not None]
    if len(parts) > 1:
        input = _ag.cat(parts, dim)
    before = (slice(None),) * dim
    for _ in range(n):
        size = input.shape[dim]
        if size == 0:
            break
        later, earlier = input[before + (slice(1, None),)], input[before + (slice(0, -1),)]
        input = later.logical_xor(earlier) if input.dtype == _ag.bool else later - earlier
    return input


def take_along_dim(input, indices, dim=None):
    """The entries of ``input`` at ``indices`` along ``dim`` (input and indices broadcast
    apart from ``dim``); without ``dim``, of the flattened input."""
    if indices.dtype != _ag.int64:
        raise RuntimeError(f"torch.take_along_dim(): dtype of indices should be Long but got "
                           f"{indices.dtype._scalar_name}")
    if dim is None:
        return input.reshape(-1).gather(0, indices.reshape(-1))
    dim = _wrap(dim, input.dim())
    if input.dim() != indices.dim():
        raise RuntimeError("torch.take_along_dim(): input and indices should have the same "
                           f"number of dimensions, but got {input.dim()} dimensions for input,"
                           f" and {indices.dim()} dimensions for indices")
    shape_input, shape_indices = list(input.shape), list(indices.shape)
    for k in range(input.dim()):
        if k != dim:
            a, b = shape_input[k], shape_indices[k]
            if a != b and 1 not in (a, b):
                raise RuntimeError(f"The size of tensor a ({a}) must match the size of tensor "
                                   f"b ({b}) at non-singleton dimension {k}")
            shape_input[k] = shape_indices[k] = max(a, b)
    return input.expand(*shape_input).gather(dim, indices.expand(*shape_indices))


_register_methods({"diff": diff, "take_along_dim": take_along_dim})
