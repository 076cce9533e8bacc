"""Memory formats: the order in which a tensor's elements lie in memory.

``contiguous_format`` is row-major order; ``channels_last`` lays a 4-D (N, C, H, W) tensor
out as N, H, W, C (strides ``(H*W*C, 1, W*C, C)``), ``channels_last_3d`` a 5-D one as
N, D, H, W, C; ``preserve_format`` keeps the input's layout. The shape is unchanged:
only the strides say the format. ``clone``, ``contiguous``, ``to``, ``is_contiguous``
(layout_ops.py) and the ``*_like`` factories take ``memory_format=``. This module holds the
formats and the layout copy that all of them make.
"""
from autograd_cy._C.tensor import Tensor, _array_of, _wrap_array
from autograd_cy.grad_mode import no_grad

__all__ = ["memory_format", "contiguous_format", "preserve_format", "channels_last",
           "channels_last_3d"]


class PackageConstant:
    """A named constant of the package (a memory format, a layout): compared by identity,
    printed as torch prints its own (with the package's name, as dtypes are), pickled as
    the package's global of that name."""
    __slots__ = ("_name",)

    def __init__(self, name):
        self._name = name

    def __repr__(self):
        return f"autograd_cy.{self._name}"

    def __reduce__(self):
        return self._name          # pickled as the module's global of that name


class memory_format(PackageConstant):
    """A memory format."""
    __slots__ = ()


contiguous_format = memory_format("contiguous_format")
preserve_format = memory_format("preserve_format")
channels_last = memory_format("channels_last")
channels_last_3d = memory_format("channels_last_3d")

# each channels-last format: its rank, the permutation to its memory order, and the dims
# from the fastest-varying to the slowest (torch's contiguity check walks them so)
_RANK = {channels_last: 4, channels_last_3d: 5}
_MEMORY_ORDER = {channels_last: (0, 2, 3, 1), channels_last_3d: (0, 2, 3, 4, 1)}
_FASTEST_FIRST = {channels_last: (1, 3, 2, 0), channels_last_3d: (1, 4, 3, 2, 0)}

# the methods as the ops define them, before layout_ops.py adds memory_format to them
plain_clone = Tensor.clone
plain_contiguous = Tensor.contiguous
plain_is_contiguous = Tensor.is_contiguous
plain_to = Tensor.to


def check_rank(tensor, format):
    rank = _RANK.get(format)
    if rank is not None and tensor.dim() != rank:
        raise RuntimeError(f"required rank {rank} tensor to use {format._name} format")


def is_laid_out(tensor, format):
    """Whether ``tensor``'s strides are ``format``'s (dims of size 1 may have any stride,
    as in torch's check)."""
    if format is contiguous_format or format is preserve_format:
        return plain_is_contiguous(tensor)
    if tensor.dim() != _RANK[format]:
        return False
    expected = 1
    for dim in _FASTEST_FIRST[format]:
        size = tensor.shape[dim]
        if size != 1:
            if tensor.stride(dim) != expected:
                return False
            expected *= size
    return True


def has_strides_of(tensor, format):
    """Whether ``tensor``'s strides are exactly those ``format`` gives a new tensor of its
    shape (stricter than ``is_laid_out``, which lets dims of size 1 have any stride):
    ``to`` returns ``self`` only then, as torch's does."""
    if format is contiguous_format:
        return plain_is_contiguous(tensor)
    order = _MEMORY_ORDER[format]
    expected, stride = [0] * len(order), 1
    for dim in reversed(order):
        expected[dim] = stride
        stride *= max(tensor.shape[dim], 1)
    return tensor.stride() == tuple(expected)


def relaid(tensor, format):
    """A copy of ``tensor`` laid out in ``format``, with the strides a new tensor of that
    format has (no graph: called inside a Function or on a new tensor): the elements
    copied into a new row-major tensor of the permuted shape, permuted back. The result is
    no view (a Function's output that is one could not be written in place)."""
    if format is contiguous_format:
        order = tuple(range(tensor.dim()))
    else:
        order = _MEMORY_ORDER[format]
    inverse = tuple(sorted(range(len(order)), key=order.__getitem__))
    permuted = tensor.permute(order)
    copy = tensor.new_empty(tuple(permuted.shape))
    copy.copy_(permuted)
    return _wrap_array(_array_of(copy.permute(inverse)))


def keeps_layout(format):
    """Whether ``format`` asks for no change of layout (None, preserve_format)."""
    return format is None or format is preserve_format


def lay_out(result, memory_format):
    """A new tensor (a factory's ``result``) in ``memory_format``: the like-factories'
    and ``empty``'s argument."""
    if keeps_layout(memory_format) or is_laid_out(result, memory_format):
        return result
    check_rank(result, memory_format)
    with no_grad():
        laid_out = relaid(result, memory_format)
    return laid_out.requires_grad_() if result.requires_grad else laid_out
