"""``embedding``: rows of a weight table picked by integer indices (``EmbeddingBackward0``,
as torch names its node), and ``one_hot``.

The backward adds each output row's gradient into the weight row it was read from
(``index_add``), so an index used twice gets both; the ``padding_idx`` row gets nothing, and
with ``scale_grad_by_freq`` each row's gradient is divided by how often its index occurs."""
from autograd_cy import factories
from autograd_cy.autograd.function import Function
from autograd_cy.grad_mode import no_grad

__all__ = ["embedding", "one_hot"]


class Embedding(Function):
    """``weight[indices]`` with torch's embedding backward."""

    builtin_op = True

    @staticmethod
    def forward(ctx, indices, weight, padding_idx, scale_grad_by_freq):
        flat = indices.reshape(-1)
        ctx.save_for_backward(indices)
        ctx.save_for_forward(indices)
        ctx.settings = (tuple(weight.shape), padding_idx, scale_grad_by_freq)
        return weight.index_select(0, flat).reshape(*indices.shape, weight.shape[1])

    @staticmethod
    def backward(ctx, grad):
        (indices,) = ctx.saved_tensors
        shape, padding_idx, scale_grad_by_freq = ctx.settings
        flat = indices.reshape(-1)
        rows = grad.reshape(-1, shape[1])
        if padding_idx is not None:
            rows = rows * (flat != padding_idx).unsqueeze(1).to(rows.dtype)
        if scale_grad_by_freq:
            counts = factories.zeros(shape[0], dtype=rows.dtype, device=rows.device)
            counts = counts.index_add(0, flat, factories.ones(flat.shape[0], dtype=rows.dtype,
                                                              device=rows.device))
            rows = rows / counts.index_select(0, flat).unsqueeze(1)
        table = factories.zeros(shape, dtype=grad.dtype, device=grad.device)
        return None, table.index_add(0, flat, rows), None, None

    @staticmethod
    def jvp(ctx, indices_t, weight_t, *settings):
        """Linear in the weight: the tangent's rows."""
        (indices,) = ctx.saved_tensors
        return weight_t.index_select(0, indices.reshape(-1)).reshape(*indices.shape,
                                                                     weight_t.shape[1])


Embedding._backward_cls.__name__ = "EmbeddingBackward0"


def embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0,
              scale_grad_by_freq=False, sparse=False):
    """The rows of ``weight`` at the integer ``input``, shape ``input.shape + (dim,)``;
    ``max_norm`` renormalises the rows read, in place, to at most that norm first."""
    if input.dtype.is_floating_point or input.dtype.is_complex:
        raise RuntimeError(
            "Expected tensor for argument #1 'indices' to have one of the following scalar "
            f"types: Long, Int; but got autograd_cy.{input.dtype._tensor_type} instead (while "
            "checking arguments for embedding)")
    if sparse:
        raise NotImplementedError("embedding: sparse gradients are not supported by "
                                  "autograd_cy")
    if input.numel() and (int(input.min()) < 0 or int(input.max()) >= weight.shape[0]):
        raise IndexError("index out of range in self")
    if padding_idx is not None:
        if padding_idx < 0:
            padding_idx += weight.shape[0]
        if not 0 <= padding_idx < weight.shape[0]:
            raise AssertionError("Padding_idx must be within num_embeddings")
    if max_norm is not None:
        with no_grad():
            rows = input.reshape(-1)
            norms = weight.index_select(0, rows).norm(norm_type, dim=1, keepdim=True)
            scale = (max_norm / (norms + 1e-7)).clamp(max=1.0)
            weight[rows] = weight.index_select(0, rows) * scale
    return Embedding.apply(input, weight, padding_idx, scale_grad_by_freq)


def one_hot(tensor, num_classes=-1):
    """``(..., num_classes)`` int64 with a 1 at each value of the int64 ``tensor``."""
    if str(tensor.dtype) != "autograd_cy.int64":
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    if num_classes == -1:
        num_classes = int(tensor.max()) + 1 if tensor.numel() else 0
    if tensor.numel() and int(tensor.max()) >= num_classes:
        raise RuntimeError("Class values must be smaller than num_classes.")
    if tensor.numel() and int(tensor.min()) < 0:
        raise RuntimeError("Class values must be non-negative.")
    classes = factories.arange(num_classes, device=tensor.device)
    return (tensor.unsqueeze(-1) == classes).long()
