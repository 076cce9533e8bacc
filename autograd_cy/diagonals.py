"""``diag_embed``, ``diagflat`` and ``diag``: tensors whose diagonals are another tensor's
entries, and ``diag`` of a matrix, its diagonal as a new tensor; ``block_diag``, a matrix
with tensors as the blocks along its diagonal.

``diag_embed`` (and ``diagflat``, and ``diag`` of a vector) is one op with torch's node
``DiagEmbedBackward0``: zeros with the input written along a diagonal of two new dims,
whose gradient is that diagonal of the gradient (``diagonal``, a view that records, so a
double backward differentiates it). ``diag`` of a matrix copies the diagonal out
(torch's node ``DiagonalBackward0_copy``, of its op ``diagonal_copy``); its gradient is
zeros with the gradient written along that diagonal. ``block_diag`` is one op
(``BlockDiagBackward0``): each input (a 0-d one as ``1 x 1``, a 1-D one as a row) written
into zeros of the promoted dtype, its gradient the gradient's block, in the input's shape
and dtype. ``fill_diagonal_`` writes a number along the main diagonal in place (through a
strided view of it, so the graph records ``CopySlices`` as torch's does); with ``wrap`` a
tall matrix's diagonal starts again every ``width + 1`` rows.

>>> import autograd_cy as ag
>>> ag.diag(ag.tensor([1, 2]))
tensor([[1, 0],
        [0, 2]])
>>> ag.diag(ag.tensor([[1, 2], [3, 4]]), 1)
tensor([2])
"""
import functools

import autograd_cy as _ag
from autograd_cy._C.tensor import _register_methods
from autograd_cy.autograd.function import Function
from autograd_cy.dtypes import get_default_dtype, promote_types, result_type
from autograd_cy.factories import zeros
from autograd_cy.reorder import _wrap

__all__ = ["diag_embed", "diagflat", "diag", "block_diag"]


def _written_on_diagonal(values, shape, offset, dim1, dim2):
    """Zeros of ``shape`` with ``values`` along their ``(offset, dim1, dim2)`` diagonal."""
    out = zeros(shape, dtype=values.dtype, device=values.device)
    out.diagonal(offset, dim1, dim2).copy_(values)
    return out


class DiagEmbed(Function):
    """``diag_embed``'s op (``DiagEmbedBackward0``)."""
    builtin_op = True

    @staticmethod
    def forward(ctx, input, offset, dim1, dim2):
        ctx.diagonal = (offset, dim1, dim2)
        size = input.shape[-1] + abs(offset) if input.dim() else 1 + abs(offset)
        shape = list(input.shape[:-1])
        for dim in sorted((dim1, dim2)):
            shape.insert(dim, size)
        return _written_on_diagonal(input, tuple(shape), offset, dim1, dim2)

    @staticmethod
    def backward(ctx, grad):
        return grad.diagonal(*ctx.diagonal), None, None, None

    @staticmethod
    def jvp(ctx, input_t, *unused):
        return DiagEmbed.apply(input_t, *ctx.diagonal)


class DiagonalCopy(Function):
    """``diag`` of a matrix (``DiagonalBackward0_copy``): the diagonal, copied."""
    builtin_op = True

    @staticmethod
    def forward(ctx, input, offset):
        ctx.offset, ctx.shape = offset, tuple(input.shape)
        return input.diagonal(offset).clone()

    @staticmethod
    def backward(ctx, grad):
        return _written_on_diagonal(grad, ctx.shape, ctx.offset, 0, 1), None

    @staticmethod
    def jvp(ctx, input_t, offset_t):
        return DiagonalCopy.apply(input_t, ctx.offset)


def _promoted(tensors):
    """The result dtype of ``tensors`` by torch's rules: 0-dim tensors weigh less than
    dimensioned ones of the same category."""
    if not tensors:
        return get_default_dtype()
    kinds = []
    for zero_dim in (False, True):
        dtypes = [t.dtype for t in tensors if (t.dim() == 0) == zero_dim]
        if dtypes:
            kinds.append(zeros((), dtype=functools.reduce(promote_types, dtypes)) if zero_dim
                         else zeros(1, dtype=functools.reduce(promote_types, dtypes)))
    return result_type(*kinds) if len(kinds) == 2 else kinds[0].dtype


def _joined_blocks(tensors):
    """The block-diagonal matrix of ``tensors`` and where each block went: ``(top, left,
    height, width, shape, dtype)``. Each block stands between zeros in its band of rows,
    the bands stacked: out of place, so that vmap batches it (``cat`` looked up when called,
    as vmap may have swapped it)."""
    dtype = _promoted(tensors)
    blocks = [t.reshape(1, -1) if t.dim() < 2 else t for t in tensors]
    places, row, column = [], 0, 0
    for t, block in zip(tensors, blocks):
        places.append((row, column, block.shape[0], block.shape[1], tuple(t.shape), t.dtype))
        row, column = row + block.shape[0], column + block.shape[1]
    device = tensors[0].device
    bands = []
    for (_, left, height, width, _, _), block in zip(places, blocks):
        before = zeros(height, left, dtype=dtype, device=device)
        after = zeros(height, column - left - width, dtype=dtype, device=device)
        bands.append(_ag.cat([before, block.to(dtype), after], 1))
    return _ag.cat(bands, 0), places


# NOTE [block_diag under vmap]
# BlockDiag is a Function of the library's (``builtin_op``): vmap takes such a Function for
# an op and calls it on the batched tensors themselves, and as block_diag has no batching
# rule, nothing would record the batched result for autograd. Given a batched tensor,
# block_diag therefore runs as its composite, the blocks joined by ``cat`` between zeros
# (_joined_blocks, which is also BlockDiag's forward): vmap batches ``cat`` by its rule, and
# the graph records ``CatBackward0`` nodes where a plain call has one BlockDiagBackward0.
# The values and gradients are the same.


class BlockDiag(Function):
    """``block_diag``'s op (``BlockDiagBackward0``)."""
    builtin_op = True

    @staticmethod
    def forward(ctx, *tensors):
        out, ctx.places = _joined_blocks(tensors)
        ctx.device = tensors[0].device
        return out

    @staticmethod
    def backward(ctx, grad):
        return tuple(grad[top:top + height, left:left + width].reshape(shape).to(dtype)
                     if dtype.is_floating_point or dtype.is_complex else None
                     for top, left, height, width, shape, dtype in ctx.places)

    @staticmethod
    def jvp(ctx, *tangents):
        return BlockDiag.apply(*(
            zeros(shape, dtype=dtype, device=ctx.device) if t is None else t
            for t, (*_, shape, dtype) in zip(tangents, ctx.places)))


DiagEmbed._backward_cls.__name__ = "DiagEmbedBackward0"
BlockDiag._backward_cls.__name__ = "BlockDiagBackward0"
DiagonalCopy._backward_cls.__name__ = "DiagonalBackward0_copy"


def diag_embed(input, offset=0, dim1=-2, dim2=-1):
    """A tensor whose ``(offset, dim1, dim2)`` diagonals hold the last dim of ``input``
    (two new dims replace it), zeros elsewhere."""
    rank = input.dim() + 1
    first, second = _wrap(dim1, rank), _wrap(dim2, rank)
    if first == second:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    return DiagEmbed.apply(input, offset, first, second)


def diagflat(input, offset=0):
    """A matrix with the flattened ``input`` along its ``offset`` diagonal."""
    return DiagEmbed.apply(input.reshape(-1), offset, 0, 1)


def diag(input, diagonal=0):
    """A vector's matrix (the vector along the ``diagonal``-th diagonal), or a matrix's
    ``diagonal``-th diagonal as a new vector."""
    if input.dim() == 1:
        return DiagEmbed.apply(input, diagonal, 0, 1)
    if input.dim() == 2:
        return DiagonalCopy.apply(input, diagonal)
    raise RuntimeError(f"diag(): Supports 1D or 2D tensors. Got {input.dim()}D")


def block_diag(*tensors):
    """A matrix with ``tensors`` (0-d, 1-D as rows, or 2-D) as the blocks along its
    diagonal, zeros elsewhere, in their promoted dtype."""
    for index, t in enumerate(tensors):
        if t.dim() > 2:
            raise RuntimeError(f"torch.block_diag: Input tensors must have 2 or fewer "
                               f"dimensions. Input {index} has {t.dim()} dimensions")
        if t.device != tensors[0].device:
            raise RuntimeError(f"torch.block_diag: input tensors must all be on the same "
                               f"device. Input 0 is on device {tensors[0].device} and input "
                               f"{index} is on device {t.device}.")
    if not tensors:         # torch's: one row of no columns
        return zeros(1, 0)
    from autograd_cy.func.batched_tensor import is_batched
    if any(is_batched(t) for t in tensors):     # NOTE [block_diag under vmap]
        return _joined_blocks(tensors)[0]
    return BlockDiag.apply(*tensors)


def fill_diagonal_(self, fill_value, wrap=False):
    """Write ``fill_value`` along the main diagonal of ``self`` (2-D, or more dims all of
    one length) in place; with ``wrap`` a matrix taller than wide continues its diagonal
    ``width + 1`` rows further down."""
    if self.dim() < 2:
        raise RuntimeError("dimensions must larger than 1")
    height, width = self.shape[0], self.shape[1]
    if self.dim() > 2 and any(n != height for n in self.shape[1:]):
        raise RuntimeError("all dimensions of input must be of equal length")
    step, offset = sum(self.stride()), self.storage_offset()
    size = min(height, width)
    self.as_strided((size,), (step,), offset).fill_(fill_value)
    if wrap and self.dim() == 2 and height > width + 1:
        count = (self.numel() + width) // (width + 1) - size
        self.as_strided((count,), (step,), offset + self.stride(0) * (width + 1)).fill_(
            fill_value)
    return self


_register_methods({"fill_diagonal_": fill_diagonal_, "diag_embed": diag_embed,
                   "diagflat": diagflat, "diag": diag})
