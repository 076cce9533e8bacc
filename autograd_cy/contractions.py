"""``tensordot``, ``inner`` and ``kron``: products of tensors over chosen dims, composed of
``permute``, ``reshape`` and ``matmul`` as torch composes them (a tensordot is one matrix
product of the two operands flattened around the summed dims; its node is the final
view's, ViewBackward0, as torch's).

``inner(a, b)`` sums over the last dim of both; ``kron(a, b)`` is the Kronecker product,
each entry of ``a`` times the whole of ``b`` (torch's node there is UnsafeViewBackward0;
this one's is the reshape's).

>>> import autograd_cy as ag
>>> ag.tensordot(ag.tensor([[1.0, 2.0], [3.0, 4.0]]), ag.tensor([1.0, 1.0]), dims=1)
tensor([3., 7.])
"""
import math

from autograd_cy._C.ops.arguments import is_int
from autograd_cy._C.tensor import Tensor, _register_methods
from autograd_cy.reorder import _wrap

__all__ = ["tensordot", "inner", "kron"]


def tensordot(a, b, dims=2):
    """The sum over ``a``'s and ``b``'s paired dims of their product: ``dims`` an int (the
    last ``dims`` of ``a`` with the first of ``b``) or two lists of dims."""
    if not isinstance(dims, (tuple, list, Tensor)) and not is_int(dims):
        raise RuntimeError(f"tensordot expects dims to be int or tuple[list[int], list[int]] "
                           f"or list[list[int]] containing two lists, but got dims={dims}")
    if isinstance(dims, Tensor):
        if dims.numel() > 1:
            dims = dims.tolist()
        else:
            dims = int(dims.item())
            if dims < 0:
                raise RuntimeError(f"tensordot expects dims >= 0, but got dims={dims}")
            dims = (list(range(-dims, 0)), list(range(dims)))
    if is_int(dims):
        if dims < 0:
            raise RuntimeError(f"tensordot expects dims >= 0, but got dims={dims}")
        if dims > min(a.dim(), b.dim()):
            raise RuntimeError(f"tensordot expects dims < ndim_a or ndim_b, but got "
                               f"dims={dims}")
        dims_a = list(range(-dims, 0))
        dims_b = list(range(dims))
    else:
        dims_a, dims_b = ([d] if is_int(d) else list(d) for d in dims)
        if len(dims_a) != len(dims_b):
            raise RuntimeError("both dimension lists should have same length")
    for da, db in zip(dims_a, dims_b):      # (torch's message names the dims as given)
        if b.shape[db] == 1:                # a dim of one broadcasts: the other is summed
            a = a.sum(da, keepdim=True)
        elif a.shape[da] == 1:
            b = b.sum(db, keepdim=True)
        elif a.shape[da] != b.shape[db]:
            raise RuntimeError(f"contracted dimensions need to match, but first has size "
                               f"{a.shape[da]} in dim {da} and second has size "
                               f"{b.shape[db]} in dim {db}")
    dims_a = [_wrap(d, a.dim()) for d in dims_a]
    dims_b = [_wrap(d, b.dim()) for d in dims_b]
    free_a = [d for d in range(a.dim()) if d not in dims_a]
    free_b = [d for d in range(b.dim()) if d not in dims_b]
    summed = math.prod(a.shape[d] for d in dims_a)
    left = a.permute(tuple(free_a + dims_a)).reshape(     # a tuple: () for a 0-d tensor
        math.prod(a.shape[d] for d in free_a), summed)
    right = b.permute(tuple(dims_b + free_b)).reshape(
        summed, math.prod(b.shape[d] for d in free_b))
    shape = [a.shape[d] for d in free_a] + [b.shape[d] for d in free_b]
    return left.matmul(right).reshape(shape)


def inner(input, other):
    """The sum over the last dims of ``input`` and ``other`` of their product (a product
    of numbers when either is 0-d)."""
    if input.dim() == 0 or other.dim() == 0:
        return input * other
    if input.shape[-1] != other.shape[-1]:
        raise RuntimeError(f"inner() the last dimension must match on both input tensors but "
                           f"got shapes {list(input.shape)} and {list(other.shape)}")
    return tensordot(input, other, ([-1], [-1]))


def kron(input, other):
    """The Kronecker product: blocks of ``other`` scaled by each entry of ``input``."""
    from autograd_cy.view_copies import _copying

    def unsafe_view(tensor, size):
        # torch's _unsafe_view: the tensor's memory as a tensor that is no view (a version
        # counter of its own: the product's node reads an operand written in place after
        # kron without refusing, as torch's does)
        return _copying("UnsafeViewBackward0", lambda t, shape: t.view(shape), tensor,
                        tuple(size), untracked=True)

    rank = max(input.dim(), other.dim())
    shape_a = (1,) * (rank - input.dim()) + tuple(input.shape)
    shape_b = (1,) * (rank - other.dim()) + tuple(other.shape)
    interleaved_a, interleaved_b, shape = [], [], []
    for m, n in zip(shape_a, shape_b):
        interleaved_a += [m, 1]
        interleaved_b += [1, n]
        shape.append(m * n)
    product = unsafe_view(input, interleaved_a) * unsafe_view(other, interleaved_b)
    # a product that keeps a column-major input's layout (linalg.qr's R) cannot be viewed
    # so, and raises view's error, as torch's
    return unsafe_view(product, shape)


_register_methods({"inner": inner, "kron": kron})
