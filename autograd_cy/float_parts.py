"""``frexp`` and ``ldexp``: a float split into mantissa and exponent, and put back;
``nextafter``: the next float after ``input`` towards ``other``.

``frexp(input)`` returns the named tuple ``(mantissa, exponent)`` with
``input = mantissa * 2 ** exponent``, ``0.5 <= |mantissa| < 1`` (zero, inf and NaN kept as
they are, exponent 0), the exponent int32; the mantissa is ``input / 2 ** exponent`` (an
exact division), so its gradient is ``grad / 2 ** exponent`` (``FrexpBackward0``).
``ldexp(input, other)`` is ``input * 2.0 ** other`` (``pow``'s and ``mul``'s promotion: an
integer input gives the default float dtype), its node ``LdexpBackward0`` (see ``Ldexp``
for torch's quirk with integer exponents). ``nextafter(input, other)`` takes two tensors
of a floating promoted dtype (torch refuses integers: ``"nextafter_cpu" not implemented for
'Long'``), NumPy's ``nextafter`` in that dtype (bfloat16's on the float32 values of its
bits); its node ``NextafterBackward0`` passes the gradient to ``input`` where it moved
(``input != other``; 0 where it is ``other`` already) and zeros to ``other``, as torch's.

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
from autograd_cy.host_values import broadcast_shape

__all__ = ["frexp", "ldexp", "nextafter"]

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


class Nextafter(Function):
    """``nextafter``'s op (``NextafterBackward0``: ``grad * (input != other)`` for
    ``input``, zeros for ``other``)."""
    builtin_op = True

    @staticmethod
    def forward(ctx, input, other):
        dtype = _ag.result_type(input, other)
        if not dtype.is_floating_point:
            raise NotImplementedError(f"\"nextafter_cpu\" not implemented for "
                                      f"'{dtype._scalar_name}'")
        broadcast_shape(input.shape, other.shape)
        a = np.asarray(_array_of(input.detach().to(dtype).cpu()))
        b = np.asarray(_array_of(other.detach().to(dtype).cpu()))
        if a.dtype.itemsize == 2 and a.dtype != np.float16:     # bfloat16
            result = _bfloat16_nextafter(a, b)
        else:
            result = np.nextafter(a, b)
        ctx.shapes = (input.shape, other.shape)
        ctx.moved = input != other
        return _wrap_array(np.array(result)).to(input.device)

    @staticmethod
    def backward(ctx, grad):
        input_shape, other_shape = ctx.shapes
        grad = grad * ctx.moved.to(grad.dtype)
        grad_input = grad.sum_to_size(input_shape) if grad.shape != input_shape else grad
        return grad_input, grad.new_zeros(other_shape)

    @staticmethod
    def jvp(ctx, input_t, other_t):
        if input_t is None:
            return _ag.zeros_like(other_t) * ctx.moved
        return input_t * ctx.moved.to(input_t.dtype)


def _bfloat16_nextafter(a, b):
    """The next bfloat16 after ``a`` towards ``b``: one step of the bits, as for any float
    (from a zero, the smallest subnormal with ``b``'s sign)."""
    a, b = np.broadcast_arrays(a, b)
    bits = a.view(np.uint16).astype(np.int32)
    wider_a, wider_b = a.astype(np.float32), b.astype(np.float32)
    away = (wider_b > wider_a) == (wider_a >= 0)
    stepped = np.where(away, bits + 1, bits - 1)
    smallest = np.where(wider_b > 0, 1, 0x8001)
    stepped = np.where(wider_a == 0, smallest, stepped).astype(np.uint16).view(a.dtype)
    result = np.where(wider_a == wider_b, b, stepped)
    return np.where(np.isnan(wider_a) | np.isnan(wider_b), wider_a + wider_b,
                    result.astype(np.float32)).astype(a.dtype)


Nextafter._backward_cls.__name__ = "NextafterBackward0"


def nextafter(input, other):
    """The next floating-point value after ``input`` towards ``other``, elementwise."""
    for position, (argument, value) in enumerate((("input", input), ("other", other)), 1):
        if not isinstance(value, Tensor):
            raise TypeError(f"nextafter(): argument '{argument}' (position {position}) must "
                            f"be Tensor, not {type(value).__name__}")
    return Nextafter.apply(input, other)


_register_methods({"frexp": frexp, "ldexp": ldexp, "nextafter": nextafter})
