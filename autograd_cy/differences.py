"""``diff``: the differences of neighbouring entries along a dim, ``n`` times over,
``take_along_dim``: entries picked by indices along a dim (``gather`` after broadcasting),
both composed of existing ops as torch composes them (their nodes are SubBackward0 and
GatherBackward0), and ``gradient``: the derivative of sampled values along each dim. bool
tensors differ by ``logical_xor``, as torch's.

``gradient`` estimates the derivative by central differences inside (second-order
accurate, for uniform or uneven sample points) and one-sided differences of first or second
order (``edge_order``) at the two ends, joined by ``cat`` (node ``CatBackward0``, as
torch's); it is NumPy's ``gradient``, differentiable.

>>> import autograd_cy as ag
>>> ag.tensor([1, 4, 9, 16]).diff()
tensor([3, 5, 7])
"""
import autograd_cy as _ag
from autograd_cy._C.tensor import Tensor, _register_methods
from autograd_cy.reorder import _wrap

__all__ = ["diff", "take_along_dim", "gradient"]


def diff(input, n=1, dim=-1, prepend=None, append=None):
    """``input[1:] - input[:-1]`` along ``dim``, ``n`` times, after joining ``prepend`` and
    ``append`` to its ends."""
    if input.dim() == 0:
        raise RuntimeError("diff expects input to be at least one-dimensional")
    dim = _wrap(dim, input.dim())
    if n < 0:
        raise RuntimeError(f"order must be non-negative but got {n}")
    for other in (prepend, append):
        if other is None:
            continue
        if other.dim() != input.dim():
            raise RuntimeError("diff expects prepend or append to be the same dimension as "
                               "input")
        for k in range(input.dim()):
            if k != dim and other.shape[k] != input.shape[k]:
                raise RuntimeError(
                    "diff expects the shape of tensor to prepend or append to match that of "
                    f"input except along the differencing dimension; input.size({k}) = "
                    f"{input.shape[k]}, but got tensor.size({k}) = {other.shape[k]}")
    if n == 0:      # torch's: a copy (CopyBackwards), prepend and append left out
        return _ag.zeros_like(input).copy_(input)
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
    if input.shape[dim]:        # torch reads the indices modulo the size (-1 the last)
        indices = indices.remainder(input.shape[dim])
    return input.expand(*shape_input).gather(dim, indices.expand(*shape_indices))


def _spacings(input, spacing, dims, dim_given):
    """One spacing per dim of ``dims``: a number (uniform) or a 1-D tensor of coordinates."""
    if spacing is None:
        return [1.0] * len(dims)
    if isinstance(spacing, Tensor) and spacing.dim() == 0:
        spacing = spacing.item()
    if not isinstance(spacing, (list, tuple)):
        return [spacing] * len(dims)
    if len(spacing) != len(dims):
        if dim_given:
            raise RuntimeError(
                "torch.gradient expected spacing to be unspecified, a scalar or it's spacing "
                "and dim arguments to have the same length, but got a spacing argument of "
                f"length {len(spacing)} and a dim argument of length {len(dims)}.")
        raise RuntimeError(
            "torch.gradient expected spacing to be unspecified, a scalar, or a list of length "
            f"equal to 'self.dim() = {input.dim()}', since dim argument was not given, but got "
            f"a list of length {len(spacing)}")
    for h in spacing:
        if isinstance(h, Tensor) and h.dim() != 1:
            raise RuntimeError("torch.gradient expected each element of spacing to have one "
                               f"dimension, but got an element with {h.dim()} dimensions!")
    return list(spacing)


def _along(values, dim, ndim):
    """A 1-D tensor shaped to lie along ``dim`` of an ``ndim``-D tensor."""
    shape = [1] * ndim
    shape[dim] = values.shape[0]
    return values.reshape(shape)


def _derivative(f, dim, h, edge_order):
    """The derivative of ``f`` along ``dim`` with spacing ``h`` (a number or coordinates)."""
    n = f.shape[dim]

    def part(start, length=1):
        return f.narrow(dim, start, length)
    if not isinstance(h, Tensor):
        inside = (part(2, n - 2) - part(0, n - 2)) / (2.0 * h)
        if edge_order == 1:
            first, last = (part(1) - part(0)) / h, (part(n - 1) - part(n - 2)) / h
        else:
            first = (part(0) * -1.5 + part(1) * 2.0 - part(2) * 0.5) / h
            last = (part(n - 3) * 0.5 - part(n - 2) * 2.0 + part(n - 1) * 1.5) / h
        return _ag.cat([first, inside, last], dim)
    dx = h.diff()
    dx1, dx2 = _along(dx[:-1], dim, f.dim()), _along(dx[1:], dim, f.dim())
    inside = (part(0, n - 2) * (-dx2 / (dx1 * (dx1 + dx2)))
              + part(1, n - 2) * ((dx2 - dx1) / (dx1 * dx2))
              + part(2, n - 2) * (dx1 / (dx2 * (dx1 + dx2))))
    if edge_order == 1:
        first, last = (part(1) - part(0)) / dx[0], (part(n - 1) - part(n - 2)) / dx[-1]
    else:
        a, b = dx[0], dx[1]
        first = (part(0) * (-(2.0 * a + b) / (a * (a + b))) + part(1) * ((a + b) / (a * b))
                 + part(2) * (-a / (b * (a + b))))
        a, b = dx[-2], dx[-1]
        last = (part(n - 3) * (b / (a * (a + b))) + part(n - 2) * (-(a + b) / (a * b))
                + part(n - 1) * ((2.0 * b + a) / (b * (a + b))))
    return _ag.cat([first, inside, last], dim)


def gradient(input, *, spacing=1, dim=None, edge_order=1):
    """The derivative of ``input`` along each dim of ``dim`` (every dim when None), one
    tensor per dim: ``spacing`` is one number for all, one per dim, or one 1-D tensor of
    sample coordinates per dim."""
    if edge_order not in (1, 2):
        raise RuntimeError("torch.gradient only supports edge_order=1 and edge_order=2.")
    dim_given = dim is not None
    dims = (list(range(input.dim())) if dim is None
            else [dim] if isinstance(dim, int) else list(dim))
    dims = [_wrap(d, input.dim()) for d in dims]
    for d in dims:
        if dims.count(d) > 1:
            raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
    spacings = _spacings(input, spacing, dims, dim_given)
    for d in dims:
        if input.shape[d] < edge_order + 1:
            raise RuntimeError("torch.gradient expected each dimension size to be at least "
                               "edge_order+1")
    if not (input.is_floating_point() or input.is_complex()):
        input = input.to(_ag.get_default_dtype())
    return tuple(_derivative(input, d, h, edge_order) for d, h in zip(dims, spacings))


_register_methods({"diff": diff, "take_along_dim": take_along_dim})
