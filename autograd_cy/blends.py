"""``lerp``, ``addcmul`` and ``addcdiv``: pointwise ops that blend three tensors, the update
steps of optimizers (an exponential moving average is ``avg.lerp(x, 1 - beta)``, Adam's
step an ``addcdiv``).

Each is one op with torch's node (``LerpBackward0`` with a number weight, ``LerpBackward1``
with a tensor weight, ``AddcmulBackward0``, ``AddcdivBackward0``), not the products and
sums it could be written as. Operands broadcast; each gradient is summed back to its
operand's shape. Formulas (``g`` the output's gradient; ``conj`` the conjugate that complex
operands take, NOTE [Complex gradients] in pyx/ops/conjugate.pyx, a no-op for real ones):

- ``lerp(x, end, w) = x + w * (end - x)``: x gets ``g * conj(1 - w)``, end ``g * conj(w)``,
  a tensor w ``g * conj(end - x)``;
- ``addcmul(x, t1, t2, value=v) = x + v * t1 * t2``: x gets ``g``, t1 ``g * conj(v * t2)``,
  t2 ``g * conj(v * t1)``;
- ``addcdiv(x, t1, t2, value=v) = x + v * t1 / t2``: x gets ``g``, t1 ``g * conj(v / t2)``,
  t2 ``-g * conj(v * t1 / t2**2)``.

Tangents are the holomorphic derivatives, without conjugates.

# NOTE [lerp from the nearer end]
``x + w * (end - x)`` at ``w = 1`` is ``end`` only up to rounding. torch's kernel computes
from the nearer end: ``x + w * (end - x)`` where ``|w| < 0.5``, else
``end - (end - x) * (1 - w)``, so ``w = 1`` gives ``end`` exactly; so does this one.

>>> import autograd_cy as ag
>>> ag.tensor([0.0, 10.0]).lerp(ag.tensor([1.0, 20.0]), 0.25)
tensor([ 0.2500, 12.5000])
"""
import autograd_cy as _ag
from autograd_cy._C.dtype import _c10_name
from autograd_cy._C.tensor import Tensor, _register_methods
from autograd_cy.autograd.function import Function

__all__ = ["lerp", "addcmul", "addcdiv"]


def _lerped(input, end, weight):
    """NOTE [lerp from the nearer end]; float16 and bfloat16 computed in float32 and
    rounded once, as torch's kernel computes them."""
    reduced = input.dtype if input.dtype in (_ag.float16, _ag.bfloat16) else None
    if isinstance(weight, Tensor) and weight.dtype != input.dtype:
        reduced = None      # a 0-d weight of another dtype takes part in the promotion
    if reduced is not None:
        input, end = input.float(), end.float()
        weight = weight.float() if isinstance(weight, Tensor) else weight
    difference = end - input
    near_start = input + weight * difference
    near_end = end - difference * (1 - weight)
    if isinstance(weight, Tensor):
        out = _ag.where(weight.abs() < 0.5, near_start, near_end)
    else:
        out = near_start if abs(weight) < 0.5 else near_end
    return out if reduced is None else out.to(reduced)


def _reduced_result(input, tensor1, tensor2):
    """float16 or bfloat16 where that is the dtype of ``addcmul``/``addcdiv``'s result (torch's
    kernel computes those in float32 and rounds once), else None."""
    dtype = _ag.promote_types(_ag.result_type(input, tensor1), _ag.result_type(input, tensor2))
    return dtype if dtype in (_ag.float16, _ag.bfloat16) else None


def _reduced(grad, operand):
    """``grad`` summed back to ``operand``'s shape (broadcast dims summed away)."""
    return _reduced_to(grad, operand.shape)


def _reduced_to(grad, shape):
    return grad.sum_to_size(shape) if grad.shape != shape else grad


class Lerp(Function):
    """``lerp``'s op with a number weight (``LerpBackward0``)."""
    builtin_op = True

    @staticmethod
    def forward(ctx, input, end, weight):
        ctx.weight, ctx.shapes = weight, (input.shape, end.shape)
        return _lerped(input, end, weight)

    @staticmethod
    def backward(ctx, grad):
        input_shape, end_shape = ctx.shapes
        grad_input = grad_end = None
        if ctx.needs_input_grad[0]:
            grad_input = (grad * (1 - ctx.weight).conjugate()).sum_to_size(input_shape)
        if ctx.needs_input_grad[1]:
            grad_end = (grad * ctx.weight.conjugate()).sum_to_size(end_shape)
        return grad_input, grad_end, None

    @staticmethod
    def jvp(ctx, input_t, end_t, weight_t):
        tangent = 0
        if input_t is not None:
            tangent = input_t * (1 - ctx.weight)
        if end_t is not None:
            tangent = tangent + end_t * ctx.weight
        return tangent


class LerpTensor(Function):
    """``lerp``'s op with a tensor weight (``LerpBackward1``)."""
    builtin_op = True

    @staticmethod
    def forward(ctx, input, end, weight):
        # what a wanted gradient reads, as torch's node saves it: input and end only for
        # the weight's gradient
        needs = ctx.needs_input_grad
        ctx.shapes = (input.shape, end.shape, weight.shape)
        ctx.save_for_backward(input if needs[2] else None, end if needs[2] else None,
                              weight if needs[0] or needs[1] else None)
        ctx.save_for_forward(input, end, weight)
        return _lerped(input, end, weight)

    @staticmethod
    def backward(ctx, grad):
        input, end, weight = ctx.saved_tensors
        grads = [None, None, None]
        if ctx.needs_input_grad[0]:
            grads[0] = _reduced_to(grad * (1 - weight).conj(), ctx.shapes[0])
        if ctx.needs_input_grad[1]:
            grads[1] = _reduced_to(grad * weight.conj(), ctx.shapes[1])
        if ctx.needs_input_grad[2]:
            grads[2] = _reduced_to(grad * (end - input).conj(), ctx.shapes[2])
        return tuple(grads)

    @staticmethod
    def jvp(ctx, input_t, end_t, weight_t):
        input, end, weight = ctx.saved_tensors
        tangent = 0
        if input_t is not None:
            tangent = input_t * (1 - weight)
        if end_t is not None:
            tangent = tangent + end_t * weight
        if weight_t is not None:
            tangent = tangent + weight_t * (end - input)
        return tangent


class Addcmul(Function):
    """``addcmul``'s op (``AddcmulBackward0``); a real operand of a complex result gets the
    real part of its gradient, as torch's (``complex_formulas``)."""
    builtin_op = True
    complex_formulas = True

    @staticmethod
    def forward(ctx, input, tensor1, tensor2, value):
        ctx.value, ctx.shapes = value, (input.shape, tensor1.shape, tensor2.shape)
        # what a wanted gradient reads, as torch's node saves it (``input`` never)
        needs = ctx.needs_input_grad
        ctx.save_for_backward(tensor1 if needs[2] else None, tensor2 if needs[1] else None)
        ctx.save_for_forward(tensor1, tensor2)
        reduced = _reduced_result(input, tensor1, tensor2)
        if reduced:
            return (input.float() + tensor1.float() * value * tensor2.float()).to(reduced)
        return input + tensor1 * value * tensor2

    @staticmethod
    def backward(ctx, grad):
        tensor1, tensor2 = ctx.saved_tensors
        grads = [None, None, None, None]
        if ctx.needs_input_grad[0]:
            grads[0] = _reduced_to(grad, ctx.shapes[0])
        if ctx.needs_input_grad[1]:
            grads[1] = _reduced_to(grad * (tensor2 * ctx.value).conj(), ctx.shapes[1])
        if ctx.needs_input_grad[2]:
            grads[2] = _reduced_to(grad * (tensor1 * ctx.value).conj(), ctx.shapes[2])
        return tuple(grads)

    @staticmethod
    def jvp(ctx, input_t, tensor1_t, tensor2_t, value_t):
        tensor1, tensor2 = ctx.saved_tensors
        tangent = 0 if input_t is None else input_t
        if tensor1_t is not None:
            tangent = tangent + tensor1_t * tensor2 * ctx.value
        if tensor2_t is not None:
            tangent = tangent + tensor2_t * tensor1 * ctx.value
        return tangent


class Addcdiv(Function):
    """``addcdiv``'s op (``AddcdivBackward0``); a real operand of a complex result gets the
    real part of its gradient, as torch's (``complex_formulas``)."""
    builtin_op = True
    complex_formulas = True

    @staticmethod
    def forward(ctx, input, tensor1, tensor2, value):
        ctx.value, ctx.shapes = value, (input.shape, tensor1.shape, tensor2.shape)
        # as Addcmul's, but torch's node saves tensor2 whatever is wanted (its version is
        # checked even when only ``input`` needs a gradient)
        ctx.save_for_backward(tensor1 if ctx.needs_input_grad[2] else None, tensor2)
        ctx.save_for_forward(tensor1, tensor2)
        reduced = _reduced_result(input, tensor1, tensor2)
        if reduced:
            return (input.float() + tensor1.float() * value / tensor2.float()).to(reduced)
        return input + tensor1 * value / tensor2

    @staticmethod
    def backward(ctx, grad):
        tensor1, tensor2 = ctx.saved_tensors
        grads = [None, None, None, None]
        if ctx.needs_input_grad[0]:
            grads[0] = _reduced_to(grad, ctx.shapes[0])
        if ctx.needs_input_grad[1]:
            grads[1] = _reduced_to(grad * (ctx.value / tensor2).conj(), ctx.shapes[1])
        if ctx.needs_input_grad[2]:
            grads[2] = _reduced_to(
                -grad * (ctx.value * tensor1 / (tensor2 * tensor2)).conj(), ctx.shapes[2])
        return tuple(grads)

    @staticmethod
    def jvp(ctx, input_t, tensor1_t, tensor2_t, value_t):
        tensor1, tensor2 = ctx.saved_tensors
        tangent = 0 if input_t is None else input_t
        if tensor1_t is not None:
            tangent = tangent + tensor1_t * (ctx.value / tensor2)
        if tensor2_t is not None:
            tangent = tangent - tensor2_t * (ctx.value * tensor1 / (tensor2 * tensor2))
        return tangent


Lerp._backward_cls.__name__ = "LerpBackward0"
LerpTensor._backward_cls.__name__ = "LerpBackward1"
Addcmul._backward_cls.__name__ = "AddcmulBackward0"
Addcdiv._backward_cls.__name__ = "AddcdivBackward0"


def lerp(input, end, weight):
    """``input + weight * (end - input)``: from ``input`` (weight 0) to ``end`` (weight 1);
    ``end`` of ``input``'s dtype (NOTE [lerp from the nearer end])."""
    if end.dtype != input.dtype:
        raise RuntimeError(f"expected dtype {_c10_name(input.dtype)} for `end` but got dtype "
                           f"{_c10_name(end.dtype)}")
    if isinstance(weight, Tensor) and weight.dim() and weight.dtype != input.dtype:
        # (a 0-d weight is read as a number, any dtype)
        raise RuntimeError(f"expected dtype {_c10_name(input.dtype)} for `weight` but got dtype "
                           f"{_c10_name(weight.dtype)}")
    if not input.is_floating_point() and not input.is_complex():
        raise NotImplementedError(
            f"\"lerp_kernel_{'tensor' if isinstance(weight, Tensor) else 'scalar'}\" not "
            f"implemented for '{input.dtype._scalar_name}'")
    if isinstance(weight, Tensor):
        return LerpTensor.apply(input, end, weight)
    return Lerp.apply(input, end, weight)


def addcmul(input, tensor1, tensor2, *, value=1):
    """``input + value * tensor1 * tensor2``."""
    return Addcmul.apply(input, tensor1, tensor2, value)


def addcdiv(input, tensor1, tensor2, *, value=1):
    """``input + value * tensor1 / tensor2``; integer ``tensor1`` and ``tensor2`` are
    refused, as torch's (it no longer divides them as integers)."""
    if not (tensor1.is_floating_point() or tensor1.is_complex()) and not (
            tensor2.is_floating_point() or tensor2.is_complex()):
        raise RuntimeError(
            "Integer division with addcdiv is no longer supported, and in a future  release "
            "addcdiv will perform a true division of tensor1 and tensor2. The historic "
            "addcdiv behavior can be implemented as (input + value * torch.trunc(tensor1 / "
            "tensor2)).to(input.dtype) for integer inputs and as (input + value * tensor1 / "
            "tensor2) for float inputs. The future addcdiv behavior is just the latter "
            "implementation: (input + value * tensor1 / tensor2), for all dtypes.")
    return Addcdiv.apply(input, tensor1, tensor2, value)


_register_methods({"lerp": lerp, "addcmul": addcmul, "addcdiv": addcdiv})
