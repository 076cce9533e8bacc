"""``addmv``, ``addr``, ``baddbmm``, ``addbmm``: ``beta * input + alpha * product`` for a
matrix-vector, an outer, a batched and a batch-summed matrix product.

The values of ``addmv``, ``addr`` and ``addbmm`` are ``addmm``'s on reshaped operands (a
vector as a one-column matrix; an outer product as a product over one index; the batches
of ``addbmm`` laid side by side, so their sum is one product): its broadcasting of
``input`` and its ``beta=0`` rule (``input``'s values ignored, NaN included);
``baddbmm``'s are ``bmm`` scaled plus the scaled ``input``. Each is an op with torch's node
(``AddmvBackward0`` ...) and torch's gradient formulas, written with recorded ops; each
checks its operands first, with torch's messages.

>>> import autograd_cy as ag
>>> ag.addmv(ag.ones(2), ag.ones(2, 3), ag.ones(3), beta=2)
tensor([5., 5.])
"""
import autograd_cy as _ag
from autograd_cy._C.tensor import _array_of, _register_methods, _wrap_array
from autograd_cy.autograd.function import Function

__all__ = ["addmv", "addr", "baddbmm", "addbmm"]


def _shape(tensor):
    return "x".join(str(size) for size in tensor.shape)


def _check_integral_scalars(input, beta, alpha):
    if not (input.is_floating_point() or input.is_complex()):
        for name, value in (("beta", beta), ("alpha", alpha)):
            if isinstance(value, float):
                raise RuntimeError(f"For integral input tensors, argument {name} must not be "
                                   f"a floating point number.")



def _value(kind, input, a, b, beta, alpha):
    """The op's values: ``addmm`` on reshaped operands (``bmm`` for ``baddbmm``)."""
    if kind == "addmv":
        bias = input.expand(a.shape[0]).unsqueeze(1)
        return _ag.addmm(bias, a, b.unsqueeze(1), beta=beta, alpha=alpha).squeeze(1)
    if kind == "addr":
        # torch's addr is elementwise: its operands promote (its backward's mv then
        # refuses mixed dtypes, as here)
        dtype = _ag.promote_types(input.dtype, _ag.promote_types(a.dtype, b.dtype))
        a, b = a.to(dtype), b.to(dtype)
        bias = input.to(dtype).expand(a.shape[0], b.shape[0])
        return _ag.addmm(bias, a.unsqueeze(1), b.unsqueeze(0), beta=beta, alpha=alpha)
    if kind == "addbmm":
        batches, rows, inner = a.shape
        bias = input.expand(rows, b.shape[2])
        side_by_side = a.transpose(0, 1).reshape(rows, batches * inner)
        stacked = b.reshape(batches * inner, b.shape[2])
        return _ag.addmm(bias, side_by_side, stacked, beta=beta, alpha=alpha)
    bias = input.expand(a.shape[0], a.shape[1], b.shape[2])
    product = _scaled(_ag.bmm(a, b), alpha)
    if beta == 0:
        return product
    return product + _scaled(bias, beta)


def _product(kind, a, b):
    """The op's product, unscaled (for a tangent)."""
    if kind == "addmv":
        return _ag.mv(a, b)
    if kind == "addr":
        return _ag.outer(a, b)
    product = _ag.bmm(a, b)
    return product.sum(0) if kind == "addbmm" else product


def _scaled(tensor, factor):
    return tensor if factor == 1 else tensor * factor


def _conj(number):
    return number.conjugate() if isinstance(number, complex) else number


class Update(Function):
    """``addmv``, ``addr``, ``baddbmm``, ``addbmm``'s op (``AddmvBackward0``,
    ``AddrBackward0``, ``BaddbmmBackward0``, ``AddbmmBackward0``): ``input`` gets ``beta *
    grad`` summed to its shape; the operands torch's product rule (the other operand's
    conjugate transpose times the gradient, scaled by ``alpha``'s conjugate); tangents
    ``beta * input_t + alpha * (product(a_t, b) + product(a, b_t))``."""
    builtin_op = True

    @staticmethod
    def forward(ctx, input, a, b, beta, alpha, kind):
        ctx.kind, ctx.beta, ctx.alpha = kind, beta, alpha
        ctx.input_shape = tuple(input.shape)
        ctx.save_for_backward(a, b)
        ctx.operands = (a, b)
        out = _value(kind, input, a, b, beta, alpha)
        if out._base is not None:       # (addmv's squeeze) no view: it may be written
            out = _wrap_array(_array_of(out))
        ctx.out_shape = tuple(out.shape)
        return out

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        kind, alpha = ctx.kind, _conj(ctx.alpha)
        grad_input = grad_a = grad_b = None
        if ctx.needs_input_grad[0]:
            grad_input = _scaled(grad, _conj(ctx.beta)).sum_to_size(ctx.input_shape)
        if kind == "addmv":
            if ctx.needs_input_grad[1]:
                grad_a = _scaled(_ag.outer(grad, b.conj()), alpha)
            if ctx.needs_input_grad[2]:
                grad_b = _scaled(a.mH.mv(grad), alpha)
        elif kind == "addr":
            if ctx.needs_input_grad[1]:
                grad_a = _scaled(grad.mv(b.conj()), alpha)
            if ctx.needs_input_grad[2]:
                grad_b = _scaled(grad.mT.mv(a.conj()), alpha)
        else:
            if kind == "addbmm":
                grad = grad.unsqueeze(0).expand(a.shape[0], *grad.shape)
            if ctx.needs_input_grad[1]:
                grad_a = _scaled(grad.bmm(b.mH), alpha)
            if ctx.needs_input_grad[2]:
                grad_b = _scaled(a.mH.bmm(grad), alpha)
        return grad_input, grad_a, grad_b, None, None, None

    @staticmethod
    def jvp(ctx, input_t, a_t, b_t, beta_t, alpha_t, kind_t):
        a, b = ctx.operands
        total = None
        if input_t is not None:
            total = _scaled(input_t, ctx.beta)
        for term in ((a_t, b), (a, b_t)):
            if term[0] is not None and term[1] is not None:
                part = _scaled(_product(ctx.kind, *term), ctx.alpha)
                total = part if total is None else total + part
        return total.expand(ctx.out_shape)



class Addmv(Update):
    """``addmv``'s op (``AddmvBackward0``)."""


class Addr(Update):
    """``addr``'s op (``AddrBackward0``)."""


class Baddbmm(Update):
    """``baddbmm``'s op (``BaddbmmBackward0``)."""


class Addbmm(Update):
    """``addbmm``'s op (``AddbmmBackward0``)."""


Addmv._backward_cls.__name__ = "AddmvBackward0"
Addr._backward_cls.__name__ = "AddrBackward0"
Baddbmm._backward_cls.__name__ = "BaddbmmBackward0"
Addbmm._backward_cls.__name__ = "AddbmmBackward0"


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
    return Addmv.apply(input, mat, vec, beta, alpha, "addmv")


def addr(input, vec1, vec2, *, beta=1, alpha=1):
    """``beta * input + alpha * outer(vec1, vec2)``."""
    for name, vec in (("vec1", vec1), ("vec2", vec2)):
        if vec.dim() != 1:
            raise RuntimeError(f"addr: Expected 1-D argument {name}, but got {vec.dim()}-D")
    _check_integral_scalars(input, beta, alpha)
    if input.dtype is _ag.bool and vec1.dtype is _ag.bool and vec2.dtype is _ag.bool:
        bias = input.expand(vec1.shape[0], vec2.shape[0])
        product = _ag.logical_and(vec1.unsqueeze(1), vec2.unsqueeze(0))
        if not alpha:
            product = _ag.zeros_like(product)
        return _ag.logical_or(_ag.logical_and(bias, bool(beta)), product)
    return Addr.apply(input, vec1, vec2, beta, alpha, "addr")


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
    return Baddbmm.apply(input, batch1, batch2, beta, alpha, "baddbmm")


def addbmm(input, batch1, batch2, *, beta=1, alpha=1):
    """``beta * input + alpha * sum(bmm(batch1, batch2), 0)``: the batches' products
    summed, as one product of the batches laid side by side."""
    _check_batches(batch1, batch2, summed=True)
    _check_integral_scalars(input, beta, alpha)
    return Addbmm.apply(input, batch1, batch2, beta, alpha, "addbmm")


_register_methods({"addmv": addmv, "addr": addr, "baddbmm": baddbmm, "addbmm": addbmm})
