"""``bilinear``: ``y[..., o] = x1[..., :] @ weight[o] @ x2[..., :] + bias[o]``, the op of
``nn.Bilinear``, as ``torch.bilinear`` and ``F.bilinear``.

Composed of existing ops: the inputs' batch dims flattened, one ``einsum`` over the two
feature dims, the result viewed back to the batch shape (node ``ViewBackward0``, as torch's)
and the bias added (``AddBackward0``).

>>> import autograd_cy as ag
>>> ag.bilinear(ag.tensor([[1.0, 2.0]]), ag.tensor([[3.0]]), ag.ones(1, 2, 1))
tensor([[9.]])
"""
import autograd_cy as _ag
from autograd_cy._C.dtype import _c10_name

__all__ = ["bilinear"]


def bilinear(input1, input2, weight, bias=None):
    """``input1 @ weight[o] @ input2`` for each output feature ``o``, plus ``bias``."""
    named = [("input1", input1), ("input2", input2), ("weight", weight)] + (
        [("bias", bias)] if bias is not None else [])
    if any(t.dtype != input1.dtype for _, t in named):
        raise RuntimeError("All tensors must have the same dtype, got " + ", ".join(
            f"{name}: {_c10_name(t.dtype)}" for name, t in named))
    if input1.dim() != input2.dim():
        raise RuntimeError(f"bilinear(): input dimensions do not match: got {input1.dim()} "
                           f"and {input2.dim()}")
    for i in range(input1.dim() - 1):
        if input1.shape[i] != input2.shape[i]:
            raise RuntimeError(f"bilinear(): input batch dimensions do not match at dim {i}: "
                               f"got {input1.shape[i]} and {input2.shape[i]}")
    if input1.shape[-1] != weight.shape[1]:
        raise RuntimeError(f"bilinear(): input1 size does not match weight size: got "
                           f"{input1.shape[-1]} but expected {weight.shape[1]}")
    if input2.shape[-1] != weight.shape[2]:
        raise RuntimeError(f"bilinear(): input2 size does not match weight size: got "
                           f"{input2.shape[-1]} but expected {weight.shape[2]}")
    if bias is not None and bias.shape[0] != weight.shape[0]:
        raise RuntimeError(f"bilinear(): bias size does not match weight size: got "
                           f"{bias.shape[0]} but expected {weight.shape[0]}")
    batch = tuple(input1.shape[:-1])
    rows1 = input1.reshape(-1, input1.shape[-1])
    rows2 = input2.reshape(-1, input2.shape[-1])
    out = _ag.einsum("bi,oij,bj->bo", rows1, weight, rows2).view(batch + (weight.shape[0],))
    return out if bias is None else out + bias
