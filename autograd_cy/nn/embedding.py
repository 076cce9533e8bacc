"""``embedding`` (a lookup of rows of a weight matrix) and ``one_hot``, as in PyTorch.

``embedding(input, weight)`` is ``weight[input]``: each index picks a row. Its gradient
goes the other way: the output's gradient rows are added into a zero matrix of the
weight's shape at the rows the indices name (``index_add``), so a row picked twice gets
both contributions and a row never picked gets zero. ``padding_idx``'s row gets no
gradient at all (it is the "no token" row, kept as it was initialized), and
``scale_grad_by_freq`` divides each contribution by how often its index occurs in the
batch.

>>> import autograd_cy as ag
>>> import autograd_cy.nn.functional as F
>>> weight = ag.tensor([[0.0, 0.0], [1.0, 2.0], [3.0, 4.0]], requires_grad=True)
>>> F.embedding(ag.tensor([1, 2, 1]), weight).sum().backward()
>>> weight.grad
tensor([[0., 0.],
        [2., 2.],
        [1., 1.]])
"""
import autograd_cy as _ag

__all__ = ["embedding", "one_hot"]


class Embedding(_ag.autograd.Function):
    """``weight[indices]``, with the backward ``index_add`` of the gradient's rows (the
    rows of ``padding_idx`` dropped, each row divided by its index's count when
    ``scale_grad_by_freq``). The backward is written with Tensor ops, linear in the
    gradient, so it records for double backward."""
    builtin_op = True

    @staticmethod
    def forward(ctx, indices, weight, padding_idx, scale_grad_by_freq):
        flat = indices.reshape(-1)
        ctx.flat, ctx.shape = flat, tuple(indices.shape) + (weight.shape[1],)
        ctx.num_weights, ctx.padding_idx = weight.shape[0], padding_idx
        ctx.scale_grad_by_freq = scale_grad_by_freq
        return weight.index_select(0, flat).reshape(ctx.shape)

    @staticmethod
    def backward(ctx, grad):
        rows = grad.reshape(-1, grad.shape[-1])
        if ctx.num_weights <= _SELECTION_ROWS and (
                ctx.num_weights * rows.shape[0] <= _SELECTION_SIZE):
            return None, _ag.matmul(_selection(ctx, rows.dtype), rows), None, None
        flat = ctx.flat
        if ctx.padding_idx >= 0:
            rows = rows * flat.ne(ctx.padding_idx).unsqueeze(1).to(rows.dtype)
        if ctx.scale_grad_by_freq:
            ones = _ag.ones(flat.shape[0], dtype=rows.dtype, device=rows.device)
            counts = _ag.zeros(ctx.num_weights, dtype=rows.dtype, device=rows.device)
            rows = rows / counts.index_add(0, flat, ones).index_select(0, flat).unsqueeze(1)
        total = _ag.zeros(ctx.num_weights, rows.shape[1], dtype=rows.dtype, device=rows.device)
        return None, total.index_add(0, flat, rows), None, None

    @staticmethod
    def jvp(ctx, indices_t, weight_t, padding_idx_t, scale_t):
        """Forward AD: the lookup is linear in the weight; the tangent's rows are picked."""
        return weight_t.index_select(0, ctx.flat).reshape(ctx.shape)


# NOTE [Embedding's gradient as a matrix product]
# The gradient of the weight is ``S @ rows``, with ``S`` the (num_embeddings, tokens)
# selection matrix: ``S[v, n] = 1`` where token n is index v (0 in padding_idx's row, each
# row divided by its count for scale_grad_by_freq). The product costs num_embeddings
# multiply-adds per gradient element where ``index_add`` (NumPy's ``add.at`` on the CPU)
# costs one slow scattered add: measured, the product is about 4x faster for 65 rows and
# 1024 tokens (a character-level model) and breaks even near 250 rows. Beyond that, or when
# ``S`` would be large, the rows are added with ``index_add``. Both are Tensor ops, linear
# in the gradient, so either path records for double backward.
_SELECTION_ROWS = 256
_SELECTION_SIZE = 1 << 22


def _selection(ctx, dtype):
    """The selection matrix ``S`` of NOTE [Embedding's gradient as a matrix product]."""
    classes = _ag.arange(ctx.num_weights, device=ctx.flat.device)
    if ctx.padding_idx >= 0:
        classes = classes.masked_fill(classes.eq(ctx.padding_idx), -1)    # matches no index
    selection = ctx.flat.unsqueeze(0).eq(classes.unsqueeze(1)).to(dtype)
    if ctx.scale_grad_by_freq:
        selection = selection / selection.sum(1, keepdim=True).clamp(min=1)
    return selection


# The node named as torch's (a Function's node is otherwise <Function>Backward).
Embedding._backward_cls.__name__ = "EmbeddingBackward0"


def embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0,
              scale_grad_by_freq=False, sparse=False):
    """The rows of ``weight`` (``(num_embeddings, embedding_dim)``) named by the integer
    tensor ``input``: an output of shape ``input.shape + (embedding_dim,)``.

    ``padding_idx``'s row gets no gradient; ``max_norm`` first rescales in place (outside
    autograd, as torch does) each picked row whose ``norm_type``-norm exceeds it.
    """
    num_weights = weight.shape[0] if weight.dim() else 0
    if padding_idx is not None:
        if padding_idx >= 0:
            assert padding_idx < num_weights, "Padding_idx must be within num_embeddings"
        else:
            assert padding_idx >= -num_weights, "Padding_idx must be within num_embeddings"
            padding_idx += num_weights
    else:
        padding_idx = -1
    if sparse:
        raise NotImplementedError("embedding: sparse=True (a sparse gradient) is not "
                                  "supported; autograd_cy has no sparse tensors")
    _check_embedding(input, weight)
    if max_norm is not None:
        _renorm_rows(weight, input.reshape(-1), max_norm, norm_type)
    return Embedding.apply(input, weight, padding_idx, scale_grad_by_freq)


def _check_embedding(input, weight):
    if input.dtype not in (_ag.int64, _ag.int32):
        raise RuntimeError(
            "Expected tensor for argument #1 'indices' to have one of the following scalar "
            f"types: Long, Int; but got {_tensor_type(input)} instead (while checking "
            "arguments for embedding)")
    if weight.dim() != 2:
        raise RuntimeError("'weight' must be 2-D")
    if input.numel() and (int(input.min()) < 0 or int(input.max()) >= weight.shape[0]):
        raise IndexError("index out of range in self")


def _tensor_type(tensor):
    """torch's legacy type name of a tensor (``torch.FloatTensor``, ``torch.cuda.LongTensor``)."""
    device = "cuda." if tensor.is_cuda else ""
    return f"torch.{device}{tensor.dtype._scalar_name}Tensor"


def _renorm_rows(weight, indices, max_norm, norm_type):
    """``embedding_renorm_``: the picked rows whose norm exceeds ``max_norm`` scaled in place
    to norm ``max_norm`` (1e-7 added to the norm, as torch does), without autograd."""
    with _ag.no_grad():
        # through a detached alias: the same memory and version counter, but no tangent
        # (a dual weight's tangent is left as it is, as torch's embedding_renorm_ leaves it)
        weight = weight.detach()
        rows = weight.index_select(0, indices)
        norms = rows.norm(p=norm_type, dim=1)
        scale = _ag.where(norms > max_norm, max_norm / (norms + 1e-7), 1.0)
        weight[indices] = rows * scale.unsqueeze(1).to(rows.dtype)


def one_hot(tensor, num_classes=-1):
    """An int64 tensor of shape ``tensor.shape + (num_classes,)``: 1 at each value of the
    int64 ``tensor``, 0 elsewhere; ``num_classes=-1`` takes ``tensor.max() + 1``."""
    if tensor.dtype != _ag.int64:
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    if num_classes == -1:
        if tensor.numel() == 0:
            raise RuntimeError("Can not infer total number of classes from empty tensor.")
        num_classes = int(tensor.max()) + 1
    if tensor.numel():
        if int(tensor.min()) < 0:
            raise RuntimeError("Class values must be non-negative.")
        if int(tensor.max()) >= num_classes:
            raise RuntimeError("Class values must be smaller than num_classes.")
    classes = _ag.arange(num_classes, device=tensor.device)
    return tensor.unsqueeze(-1).eq(classes).to(_ag.int64)
