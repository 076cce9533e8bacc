"""``frexp`` and ``ldexp``: a float split into mantissa and exponent, and put back.

``frexp(input)`` returns the named tuple ``(mantissa, exponent)`` with
``input = mantissa * 2 ** exponent``, ``0.5 <= |mantissa| < 1`` (zero, inf and NaN kept as
they are, exponent 0), the exponent int32; the mantissa is ``input / 2 ** exponent`` (an
exact division), so its gradient is ``grad / 2 ** exponent`` (``FrexpBackward0``).
``ldexp(input, other)`` is ``input * 2.0 ** other`` (``pow``'s and ``mul``'s promotion: an
integer input gives the default float dtype), its node ``LdexpBackward0`` (see ``Ldexp``
for torch's quirk with integer exponents).

>>> import autograd_cy as ag
>>> ag.frexp(ag.tensor([8.0]))
frexp(mantissa=tensor([0.5000]), exponent=tensor([4], dtype=autograd_cy.int32))
"""
import math
from collections import namedtuple

import numpy as np

import autograd_cy as _ag
from autograd_cy._C.tensor import Tensor, _array_of, _register_methods, _wrap_array
from autograd_cy.autograd.function import Function

__all__ = ["frexp", "ldexp"]

frexp_result = namedtuple("frexp", ["mantissa", "exponent"])


class Frexp(Function):
    """``frexp``'s op (``FrexpBackward0``: the mantissa's gradient ``grad / 2 ** exponent``;
    the exponent has none)."""
    builtin_op = True

    @staticmethod
    def forward(ctx, input):
        values = input.detach().cpu()
        exponent = np.frexp(np.asarray(_array_of(values), dtype=np.float64))[1]
        exponent = _wrap_array(exponent.astype(np.int32)).to(input.device)
        ctx.scale = _ag.pow(2.0, exponent.to(input.dtype))
        ctx.mark_non_differentiable(exponent)
        return input / ctx.scale, exponent

    @staticmethod
    def backward(ctx, grad_mantissa, grad_exponent):
        return grad_mantissa / ctx.scale

    @staticmethod
    def jvp(ctx, input_t):
        return input_t / ctx.scale, None


Frexp._backward_cls.__name__ = "FrexpBackward0"


def frexp(input):
    """The mantissa (in [0.5, 1) in magnitude) and the int32 exponent of each entry."""
    if not input.is_floating_point():
        raise RuntimeError("torch.frexp() only supports floating-point dtypes")
    return frexp_result(*Frexp.apply(input))


def _powers_of_two(other):
    """``2 ** other`` as torch's ``pow(2, other)`` computes it: in integers for an integer
    ``other`` (a negative power is 0), else in ``other``'s dtype."""
    if other.is_floating_point() or other.is_complex():
        return _ag.pow(2, other)
    positive = _ag.pow(2, other.clamp_min(0))
    return _ag.where(other < 0, _ag.zeros((), dtype=positive.dtype, device=other.device),
                     positive)


class Ldexp(Function):
    """``ldexp``'s op (``LdexpBackward0``): the value ``input * 2.0 ** other``; the gradient
    and tangent of ``input`` scaled by ``pow(2, other)`` as torch's formula computes it (in
    integers for an integer ``other``, so 0 for a negative power), ``other``'s by
    ``result * log(2)``; gradients take the conjugates of those factors
    (NOTE [Complex gradients] in pyx/ops/conjugate.pyx), tangents do not."""
    builtin_op = True

    @staticmethod
    def forward(ctx, input, other):
        result = input * _ag.pow(2.0, other)
        ctx.save_for_backward(input, other, result)
        ctx.save_for_forward(input, other)
        return result

    @staticmethod
    def backward(ctx, grad):
        input, other, result = ctx.saved_tensors
        grad_input = grad_other = None
        if ctx.needs_input_grad[0]:
            grad_input = (grad * _powers_of_two(other).conj()).sum_to_size(input.shape)
        if ctx.needs_input_grad[1]:
            # grad * conj(result) * log(2), in torch's order (float16's rounding)
            grad_other = (grad * result.conj() * math.log(2)).sum_to_size(other.shape)
        return grad_input, grad_other

    @staticmethod
    def jvp(ctx, input_t, other_t):
        input, other = ctx.saved_tensors
        result = 0
        if input_t is not None:
            result = input_t * _powers_of_two(other)
        if other_t is not None:
            result = result + other_t * input * _ag.pow(2, other) * math.log(2)
        return result


Ldexp._backward_cls.__name__ = "LdexpBackward0"


def ldexp(input, other):
    """``input * 2 ** other``."""
    if not isinstance(other, Tensor):
        raise TypeError(f"ldexp(): argument 'other' (position 2) must be Tensor, not "
                        f"{type(other).__name__}")
    return Ldexp.apply(input, other)


_register_methods({"frexp": frexp, "ldexp": ldexp})
