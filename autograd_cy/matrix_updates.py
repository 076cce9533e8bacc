"""``addmv``, ``addr``, ``baddbmm``, ``addbmm``: ``beta * input + alpha * product`` for a
matrix-vector, an outer, a batched and a batch-summed matrix product.

``addmv``, ``addr`` and ``addbmm`` are ``addmm`` on reshaped operands (a vector as a
one-column matrix; an outer product as a product over one index; the batches of
``addbmm`` laid side by side, so their sum is one product), so they share its values,
broadcasting of ``input``, ``beta=0`` rule (``input``'s values ignored, NaN included),
gradients and tangents; ``baddbmm`` is ``bmm`` scaled plus the scaled ``input``. Each
checks its operands first, with torch's messages.

>>> import autograd_cy as ag
>>> ag.addmv(ag.ones(2), ag.ones(2, 3), ag.ones(3), beta=2)
tensor([5., 5.])
"""
import autograd_cy as _ag
from autograd_cy._C.tensor import _register_methods

__all__ = ["addmv", "addr", "baddbmm", "addbmm"]


def _shape(tensor):
    return "x".join(str(size) for size in tensor.shape)


def _check_integral_scalars(input, beta, alpha):
    if not (input.is_floating_point() or input.is_complex()):
        for name, value in (("beta", beta), ("alpha", alpha)):
            if isinstance(value, float):
                raise RuntimeError(f"For integral input tensors, argument {name} must not be "
                                   f"a floating point number.")



def addmv(input, mat, vec, *, beta=1, alpha=1):
    """``beta * input + alpha * (mat @ vec)``; ``input`` broadcasts to the product's size."""
    if mat.dim() != 2 or vec.dim() != 1 or input.dim() > 1:
        raise RuntimeError(f"vector + matrix @ vector expected, got {input.dim()}, "
                           f"{mat.dim()}, {vec.dim()}")
    if mat.shape[1] != vec.shape[0] or not (input.numel() == 1 or
                                             tuple(input.shape) == (mat.shape[0],)):
        raise RuntimeError(f"size mismatch, got input ({_shape(input)}), mat ({_shape(mat)}), "
                           f"vec ({_shape(vec)})")
    if not (input.dtype is mat.dtype is vec.dtype):
        raise RuntimeError(f"addmv input tensors must have the same dtype, but got "
                           f"{input.dtype._scalar_name}, {mat.dtype._scalar_name}, and "
                           f"{vec.dtype._scalar_name}")
    bias = input.expand(mat.shape[0]).unsqueeze(1)
    return _ag.addmm(bias, mat, vec.unsqueeze(1), beta=beta, alpha=alpha).squeeze(1)


def addr(input, vec1, vec2, *, beta=1, alpha=1):
    """``beta * input + alpha * outer(vec1, vec2)``."""
    for name, vec in (("vec1", vec1), ("vec2", vec2)):
        if vec.dim() != 1:
            raise RuntimeError(f"addr: Expected 1-D argument {name}, but got {vec.dim()}-D")
    _check_integral_scalars(input, beta, alpha)
    bias = input.expand(vec1.shape[0], vec2.shape[0])
    if input.dtype is _ag.bool and vec1.dtype is _ag.bool and vec2.dtype is _ag.bool:
        product = _ag.logical_and(vec1.unsqueeze(1), vec2.unsqueeze(0))
        if not alpha:
            product = _ag.zeros_like(product)
        return _ag.logical_or(_ag.logical_and(bias, bool(beta)), product)
    return _ag.addmm(bias, vec1.unsqueeze(1), vec2.unsqueeze(0), beta=beta, alpha=alpha)


def _check_batches(batch1, batch2, summed):
    for name, batch in (("batch1", batch1), ("batch2", batch2)):
        if batch.dim() != 3:
            raise RuntimeError(f"{name} must be a 3D tensor")
    if summed:
        if batch1.shape[0] != batch2.shape[0]:
            raise RuntimeError(f"batch1 and batch2 must have same number of batches, got "
                               f"{batch1.shape[0]} and {batch2.shape[0]}")
        if batch1.shape[2] != batch2.shape[1]:
            raise RuntimeError(f"Incompatible matrix sizes for bmm ({batch1.shape[1]}x"
                               f"{batch1.shape[2]} and {batch2.shape[1]}x{batch2.shape[2]})")
    elif tuple(batch2.shape[:2]) != (batch1.shape[0], batch1.shape[2]):
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: "
                           f"[{batch1.shape[0]}, {batch1.shape[2]}] but got: "
                           f"[{batch2.shape[0]}, {batch2.shape[1]}].")


def baddbmm(input, batch1, batch2, *, beta=1, alpha=1):
    """``beta * input + alpha * bmm(batch1, batch2)``; ``input`` broadcasts to the
    product's shape (with ``beta=0`` its values are ignored)."""
    _check_batches(batch1, batch2, summed=False)
    _check_integral_scalars(input, beta, alpha)
    shape = (batch1.shape[0], batch1.shape[1], batch2.shape[2])
    bias = input.expand(shape)
    product = _ag.bmm(batch1, batch2)
    if alpha != 1:
        product = product * alpha
    if beta == 0:
        return product
    return product + (bias if beta == 1 else bias * beta)


def addbmm(input, batch1, batch2, *, beta=1, alpha=1):
    """``beta * input + alpha * sum(bmm(batch1, batch2), 0)``: the batches' products
    summed, as one product of the batches laid side by side."""
    _check_batches(batch1, batch2, summed=True)
    _check_integral_scalars(input, beta, alpha)
    batches, rows, inner = batch1.shape
    bias = input.expand(rows, batch2.shape[2])
    side_by_side = batch1.transpose(0, 1).reshape(rows, batches * inner)
    stacked = batch2.reshape(batches * inner, batch2.shape[2])
    return _ag.addmm(bias, side_by_side, stacked, beta=beta, alpha=alpha)


_register_methods({"addmv": addmv, "addr": addr, "baddbmm": baddbmm, "addbmm": addbmm})
