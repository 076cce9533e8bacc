"""``xlogy``, ``logit`` and torch.special's ``xlog1py``, ``entr``: logarithms with the edge
cases statistics needs.

``xlogy(x, y) = x * log(y)``, but 0 where ``x`` is 0 (even for ``y = 0``), NaN where ``y``
is NaN: the term of an entropy or a KL divergence. Its nodes are torch's: XlogyBackward0
(two tensors), XlogyBackward1 (a number ``x``), XlogyBackward2 (a number ``y``); ``x`` gets
``g * xlogy(x != 0, y)`` (``log y`` where x is nonzero), ``y`` gets ``g * x / y``.
``xlog1py(x, y) = x * log1p(y)`` alike (SpecialXlog1PyBackward0/1/2; ``y`` gets
``g * x / (y + 1)``). ``entr(x) = -x log(x)``, 0 at 0, ``-inf`` below
(SpecialEntrBackward0: ``g * -(1 + log x)``).

``logit(p, eps) = log(p / (1 - p))``, ``p`` first clamped to ``[eps, 1 - eps]`` when
``eps`` is given (``LogitBackward0``): the gradient ``g / (p (1 - p))``, 0 where the clamp
held ``p``, as torch's.

>>> import autograd_cy as ag
>>> ag.xlogy(ag.tensor([0.0, 2.0]), ag.tensor([0.0, 1.0]))
tensor([0., 0.])
"""
import math

import autograd_cy as _ag
from autograd_cy._C.tensor import Tensor, _register_methods
from autograd_cy.autograd.function import Function
from autograd_cy.dtypes import _refuse_complex
from autograd_cy.host_values import require_one_tensor, require_tensor

__all__ = ["xlogy", "logit"]     # xlog1py, entr: torch.special's (special/__init__.py)


def _xlogy(x, y, log=_ag.log):
    """``x * log(y)``, 0 where ``x`` is 0, NaN where ``y`` is NaN (Tensor ops)."""
    product = x * log(y)
    return _ag.where((x == 0) & ~y.isnan(), product.new_zeros(()), product)


def _xlog1py(x, y):
    """``x * log1p(y)``, 0 where ``x`` is 0, NaN where ``y`` is NaN."""
    return _xlogy(x, y, _ag.log1p)


def _reduced(grad, operand):
    if not isinstance(operand, Tensor):
        return None
    return grad.sum_to_size(operand.shape) if grad.shape != operand.shape else grad


def _as_tensor(value, like):
    return value if isinstance(value, Tensor) else _ag.tensor(value, dtype=like.dtype,
                                                              device=like.device)


class _Xlogy(Function):
    builtin_op = True
    value = staticmethod(_xlogy)
    shift = 0       # other's derivative: x / (y + shift)

    @classmethod
    def forward(cls, ctx, x, y):
        tensor = x if isinstance(x, Tensor) else y
        dtype = _ag.result_type(x, y)
        if not dtype.is_floating_point:
            dtype = _ag.get_default_dtype()
        xt = _as_tensor(x, tensor).to(dtype)
        yt = _as_tensor(y, tensor).to(dtype)
        ctx.inputs = (x, y)
        ctx.save_for_backward(xt, yt)
        ctx.save_for_forward(xt, yt)
        return cls.value(xt, yt)

    @classmethod
    def backward(cls, ctx, grad):
        x, y = ctx.saved_tensors
        if _ag.is_grad_enabled():   # create_graph: the operands as functions of the inputs
            x, y = (_as_tensor(v, x).to(x.dtype) for v in ctx.inputs)
        grads = [None, None]
        if ctx.needs_input_grad[0]:
            # torch's xlogy(grad, y): 0 where the gradient is 0 (a NaN log(y) too), and
            # log(y) where x is 0, but 0 there where y is out of log's domain
            at_pole = (x == 0) & (y <= -cls.shift)
            grads[0] = _reduced(cls.value(grad, y).masked_fill(at_pole, 0.0), ctx.inputs[0])
        if ctx.needs_input_grad[1]:
            grads[1] = _reduced(grad * x / (y + cls.shift if cls.shift else y), ctx.inputs[1])
        return tuple(grads)

    @classmethod
    def jvp(cls, ctx, x_t, y_t):
        x, y = ctx.saved_tensors
        tangent = 0
        if x_t is not None:
            tangent = x_t * cls.value((x != 0).to(x_t.dtype), y)
        if y_t is not None:
            tangent = tangent + y_t * x / (y + cls.shift if cls.shift else y)
        return tangent


class Xlogy(_Xlogy):
    """``xlogy(tensor, tensor)`` (``XlogyBackward0``)."""


class XlogyNumberSelf(_Xlogy):
    """``xlogy(number, tensor)`` (``XlogyBackward1``)."""


class XlogyNumberOther(_Xlogy):
    """``xlogy(tensor, number)`` (``XlogyBackward2``)."""


class _Xlog1py(_Xlogy):
    value = staticmethod(_xlog1py)
    shift = 1


class Xlog1py(_Xlog1py):
    """``special.xlog1py(tensor, tensor)`` (``SpecialXlog1PyBackward0``)."""


class Xlog1pyNumberSelf(_Xlog1py):
    """``special.xlog1py(number, tensor)`` (``SpecialXlog1PyBackward1``)."""


class Xlog1pyNumberOther(_Xlog1py):
    """``special.xlog1py(tensor, number)`` (``SpecialXlog1PyBackward2``)."""


class Entr(Function):
    """``special.entr``'s op (``SpecialEntrBackward0``: ``grad * -(1 + log(x))``)."""
    builtin_op = True

    @staticmethod
    def forward(ctx, input):
        if input.is_complex():
            raise NotImplementedError(f"\"entr_cpu\" not implemented for "
                                      f"'{input.dtype._scalar_name}'")
        if not input.is_floating_point():
            input = input.to(_ag.get_default_dtype())
        ctx.save_for_backward(input)
        ctx.save_for_forward(input)
        value = _ag.where(input > 0, -input * _ag.log(input),
                          _ag.where(input == 0, input.new_zeros(()), -math.inf))
        return _ag.where(input.isnan(), input, value)

    @staticmethod
    def backward(ctx, grad):
        (input,) = ctx.saved_tensors
        return grad * -(1 + _ag.log(input))

    @staticmethod
    def jvp(ctx, input_t):
        (input,) = ctx.saved_tensors
        return input_t * -(1 + _ag.log(input))


class Logit(Function):
    """``logit``'s op (``LogitBackward0``)."""
    builtin_op = True

    @staticmethod
    def forward(ctx, input, eps):
        if not input.is_floating_point():
            input = input.to(_ag.get_default_dtype())
        ctx.eps = eps
        ctx.save_for_backward(input)
        ctx.save_for_forward(input)
        p = input if eps is None else input.clamp(eps, 1 - eps)
        return _ag.log(p / (1 - p))

    @staticmethod
    def backward(ctx, grad):
        (input,) = ctx.saved_tensors
        return _logit_slope(grad, input, ctx.eps), None

    @staticmethod
    def jvp(ctx, input_t, eps_t):
        (input,) = ctx.saved_tensors
        return _logit_slope(input_t, input, ctx.eps)


def _logit_slope(grad, p, eps):
    slope = grad / (p * (1 - p))
    if eps is None:
        return slope
    held = (p < eps) | (p > 1 - eps)
    return _ag.where(held, slope.new_zeros(()), slope)


Xlogy._backward_cls.__name__ = "XlogyBackward0"
XlogyNumberSelf._backward_cls.__name__ = "XlogyBackward1"
XlogyNumberOther._backward_cls.__name__ = "XlogyBackward2"
Logit._backward_cls.__name__ = "LogitBackward0"
Xlog1py._backward_cls.__name__ = "SpecialXlog1PyBackward0"
Xlog1pyNumberSelf._backward_cls.__name__ = "SpecialXlog1PyBackward1"
Xlog1pyNumberOther._backward_cls.__name__ = "SpecialXlog1PyBackward2"
Entr._backward_cls.__name__ = "SpecialEntrBackward0"


def xlogy(input, other):
    """``input * log(other)``, 0 where ``input`` is 0 (NaN where ``other`` is NaN)."""
    _refuse_complex(_ag.result_type(input, other), "xlogy_cpu")
    if not isinstance(input, Tensor):
        return XlogyNumberSelf.apply(input, other)
    if not isinstance(other, Tensor):
        return XlogyNumberOther.apply(input, other)
    return Xlogy.apply(input, other)


def xlog1py(input, other):
    """``input * log1p(other)``, 0 where ``input`` is 0 (NaN where ``other`` is NaN)."""
    require_one_tensor("special_xlog1py", input, other)
    _refuse_complex(_ag.result_type(input, other), "xlog1py_cpu")
    if not isinstance(input, Tensor):
        return Xlog1pyNumberSelf.apply(input, other)
    if not isinstance(other, Tensor):
        return Xlog1pyNumberOther.apply(input, other)
    return Xlog1py.apply(input, other)


def entr(input):
    """The elementwise entropy ``-x log(x)``: 0 at 0, ``-inf`` for negative ``x``."""
    require_tensor("special_entr", input)
    return Entr.apply(input)


def logit(input, eps=None):
    """``log(input / (1 - input))``, ``input`` clamped to ``[eps, 1 - eps]`` first when
    ``eps`` is given."""
    _refuse_complex(input.dtype, "logit_cpu")
    return Logit.apply(input, eps)


_register_methods({"xlogy": xlogy, "logit": logit})
