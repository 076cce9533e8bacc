"""The activations of ``nn.functional`` beyond relu, leaky_relu, gelu, silu and softplus:
elu, selu, celu, hardtanh, relu6, hardsigmoid, hardswish, mish, logsigmoid, softsign,
softshrink, hardshrink, tanhshrink, threshold, glu, prelu, rrelu, sigmoid, tanh, softmin,
and their in-place forms. The package exports the ones torch has at its top level
(``autograd_cy.selu``, ``celu``, ``threshold``, ``hardshrink``, ``prelu``, ``rrelu`` and
the in-place forms), and Tensor gains ``hardshrink`` and ``prelu``.

Where torch records an op of its own (``EluBackward0``, ``HardtanhBackward0`` ...) the
activation here is an ``autograd.Function`` with that node's name, its value and its
derivative written with Tensor ops, so the backward is differentiable again (the nodes of
a double backward are those of the ops composing the derivative, not torch's
``*BackwardBackward0``, except where the backward is an op of its own: NOTE [The backward
of a piecewise-linear activation], NOTE [prelu's second derivative at 0]). Where torch
composes other ops (softsign, tanhshrink, softmin), so does this module, and the graph
shows the same nodes.

>>> import autograd_cy as ag
>>> import autograd_cy.nn.functional as F
>>> x = ag.tensor([-1.0, 0.5, 7.0], requires_grad=True)
>>> F.relu6(x)
tensor([0.0000, 0.5000, 6.0000], grad_fn=<HardtanhBackward0>)

# NOTE [The kinks of the piecewise activations]
At the points where a piecewise activation changes formula, torch's kernels pick one side,
and the gradients here pick the same: hardtanh (and relu6) pass the gradient only strictly
inside ``(min_val, max_val)``; hardsigmoid only strictly inside ``(-3, 3)``, with the
float32 constant ``1/6`` whatever the dtype; hardswish's slope is 0 from -3 down and 1 from
3 up; threshold, softshrink and hardshrink give 0 at their thresholds; elu, selu and celu
take the exponential side at 0 (slope ``alpha * scale * input_scale``); rrelu in eval mode
tests ``x > 0``, as leaky_relu.

# NOTE [In-place activations]
torch's in-place activations record one of two kinds of node. elu_, selu_, celu_ and
rrelu_ record a node whose derivative reads the result (and rrelu_'s noise), not the
overwritten input (so elu_ with a negative alpha cannot be differentiated). threshold_,
hardtanh_, hardsigmoid_, hardswish_ and mish_ record a node whose derivative reads the
input as it was (the node of the out-of-place op, or ThresholdBackward1 for threshold_):
here a clone of the input taken before the write is a second input of the node, so the
gradient reaches the input through the clone and stays differentiable. Each is a Function
that marks the input dirty; it bumps the input's version twice (the write, then
``mark_dirty``), where torch's kernels bump it once.
"""
import functools
import os
import warnings

import numpy as np

import autograd_cy as _ag
from autograd_cy import cpu_random as _cpu_random
from autograd_cy import factories as _factories
from autograd_cy._C.ops import activation as _activation
from autograd_cy._C.ops.arithmetic import add, sub, div, neg
from autograd_cy._C.forward import _tangent
from autograd_cy._C.tensor import _register_methods
from autograd_cy.dtypes import _refuse_complex
from autograd_cy.grad_mode import is_grad_enabled

__all__ = ["elu", "elu_", "selu", "selu_", "celu", "celu_", "hardtanh", "hardtanh_", "relu6",
           "relu_", "leaky_relu_", "hardsigmoid", "hardswish", "mish", "logsigmoid",
           "softsign", "softshrink", "hardshrink", "tanhshrink", "threshold", "threshold_",
           "glu", "prelu", "rrelu", "rrelu_", "sigmoid", "tanh", "softmin"]

# selu's constants, as torch's
SELU_ALPHA = 1.6732632423543772848170429916717
SELU_SCALE = 1.0507009873554804934193349852946


# ------------------------------------------------------------------ checks

def _require_floating(input, kernel, inplace=False):
    """torch's refusal of an integer (or bool, or complex) input by a floating-point kernel;
    an in-place form's leaf checks come first, as torch's autograd makes them before the
    kernel runs."""
    if inplace:
        _check_inplace(input)
    if not input.dtype.is_floating_point:
        raise NotImplementedError(f"\"{kernel}_{input.device.type}\" not implemented for "
                                  f"'{input.dtype._scalar_name}'")


def _check_inplace(input):
    """The leaf checks of torch's in-place ops, with their words (a Function's own check
    words them as a custom Function's)."""
    if not (is_grad_enabled() and input.requires_grad):
        return
    base = input._base
    if base is not None and base.requires_grad and base.grad_fn is None:
        raise RuntimeError("a view of a leaf Variable that requires grad is being used "
                           "in an in-place operation.")
    if input.grad_fn is None:
        raise RuntimeError("a leaf Variable that requires grad is being used in an in-place "
                           "operation.")


def _computed(tensor):
    """``tensor`` in the dtype its activation computes in: float32 for float16 and bfloat16
    (NOTE [Activations in reduced precision])."""
    return tensor.float() if tensor.dtype in (_ag.float16, _ag.bfloat16) else tensor


# NOTE [Activations in reduced precision]
# torch's kernels compute a float16 or bfloat16 activation, and its backward, in float32
# and round the result once. The Functions below do the same (``_computed``, then ``.to``
# the input's dtype): computed in the input's own dtype, each intermediate op would round,
# and elu's, mish's or glu's values would be a unit in the last place off torch's in about
# one element in ten.

def _mask(condition, like):
    """A boolean tensor as 0/1 values of ``like``'s dtype."""
    return condition.to(like.dtype)


# ------------------------------------------------------------------ the Function bases

class _Pointwise(_ag.autograd.Function):
    """An activation of one tensor with a node of its own. A subclass gives
    ``value(x, *args)`` and ``derivative(x, *args)`` (the elementwise slope), both Tensor
    ops, so the backward ``grad * derivative(x)`` records a graph under ``create_graph``
    and the tangent of forward AD is ``tangent * derivative(x)``."""
    builtin_op = True
    # the result laid out contiguous whatever the input's strides (torch's kernel writes
    # into a contiguous tensor of its own), not in the input's layout
    contiguous_result = False

    @staticmethod
    def forward(ctx, input, *args):
        ctx.args = args
        ctx.save_for_backward(input)
        ctx.save_for_forward(input)
        op = type(ctx)._forward_cls
        out = op.value(_computed(input), *args).to(input.dtype)
        return out.contiguous() if op.contiguous_result else out

    # a _PiecewiseLinearBackward subclass, for an activation whose slope is piecewise
    # constant (NOTE [The backward of a piecewise-linear activation])
    backward_op = None

    @staticmethod
    def backward(ctx, grad):
        input, = ctx.saved_tensors
        return (_scaled(type(ctx)._forward_cls, grad, input, ctx.args),) + (None,) * len(
            ctx.args)

    @staticmethod
    def jvp(ctx, input_t, *args_t):
        """Forward AD: the tangent times the slope at the input."""
        input, = ctx.saved_tensors
        slope = type(ctx)._forward_cls.derivative(_computed(input), *ctx.args)
        return (_computed(input_t) * slope).to(input_t.dtype)


class _PointwiseOfResult(_ag.autograd.Function):
    """The ``*Backward1`` in-place form of an activation (NOTE [In-place activations]): the
    input overwritten with ``value(x)``, the slope read from the result by
    ``result_derivative(result, *args)``."""
    builtin_op = True

    @staticmethod
    def forward(ctx, input, *args):
        op = type(ctx)._forward_cls
        input.copy_(op.value(_computed(input), *args))
        ctx.mark_dirty(input)
        ctx.args = args
        ctx.save_for_backward(input)
        ctx.save_for_forward(input)
        return input

    backward_op = None

    @staticmethod
    def backward(ctx, grad):
        result, = ctx.saved_tensors
        op = type(ctx)._forward_cls
        if op.backward_op is not None:
            return (op.backward_op.apply(grad, result, *ctx.args),) + (None,) * len(ctx.args)
        slope = op.result_derivative(_computed(result), *ctx.args)
        return ((_computed(grad) * slope).to(grad.dtype),) + (None,) * len(ctx.args)

    @staticmethod
    def jvp(ctx, input_t, *args_t):
        """Forward AD: the input's tangent, multiplied in place by the slope (an input
        written in place has its tangent written in place)."""
        result, = ctx.saved_tensors
        slope = type(ctx)._forward_cls.result_derivative(_computed(result), *ctx.args)
        return input_t.copy_(_computed(input_t) * slope)


class _PointwiseOfOriginal(_ag.autograd.Function):
    """The in-place form of an activation whose node reads the input as it was (NOTE
    [In-place activations]): ``original`` is a clone of ``input`` made before the write;
    the gradient goes to the clone (and through it to the input's history)."""
    builtin_op = True

    @staticmethod
    def forward(ctx, input, original, *args):
        op = type(ctx)._forward_cls
        input.copy_(op.value(_computed(original), *args))
        ctx.mark_dirty(input)
        ctx.args = args
        ctx.save_for_backward(original)
        ctx.save_for_forward(original)
        return input

    backward_op = None

    @staticmethod
    def backward(ctx, grad):
        original, = ctx.saved_tensors
        return (None, _scaled(type(ctx)._forward_cls, grad, original, ctx.args)) + (
            None,) * len(ctx.args)

    @staticmethod
    def jvp(ctx, input_t, original_t, *args_t):
        """Forward AD: the input's tangent overwritten with the clone's times the slope."""
        original, = ctx.saved_tensors
        slope = type(ctx)._forward_cls.derivative(_computed(original), *ctx.args)
        return input_t.copy_(_computed(original_t) * slope)


def _scaled(op, grad, input, args):
    """``grad * op.derivative(input, *args)``: through ``op.backward_op`` when ``op`` has
    one."""
    if op.backward_op is not None:
        return op.backward_op.apply(grad, input, *args)
    return (_computed(grad) * op.derivative(_computed(input), *args)).to(grad.dtype)


# NOTE [The backward of a piecewise-linear activation]
# hardtanh, softshrink, hardshrink, threshold and rrelu have a piecewise-constant slope, so
# ``grad * slope(x)`` written with Tensor ops would not depend on ``x`` in the graph: under
# create_graph the gradient would not require grad when only the input does. torch's
# backward is an op of its own there (HardtanhBackwardBackward0 ...) whose derivative for
# the input is zeros; _PiecewiseLinearBackward is that op: ``grad * slope(x)`` with edges
# to both, linear in ``grad`` (its own backward is itself with the same slope) and zeros
# for ``x``.

class _PiecewiseLinearBackward(_ag.autograd.Function):
    """``grad * activation.derivative(input, *args)`` for a piecewise-constant slope (NOTE
    [The backward of a piecewise-linear activation])."""
    builtin_op = True
    activation = None       # the _Pointwise subclass whose slope this is

    @staticmethod
    def forward(ctx, grad, input, *args):
        ctx.args = args
        ctx.save_for_backward(input)
        ctx.save_for_forward(input)
        return _sloped(grad, type(ctx)._forward_cls.activation.derivative(input, *args))

    @staticmethod
    def backward(ctx, grad_grad):
        input, = ctx.saved_tensors
        slope = type(ctx)._forward_cls.activation.derivative(input, *ctx.args)
        return (_sloped(grad_grad, slope), _ag.zeros_like(input)) + (None,) * len(ctx.args)

    @staticmethod
    def jvp(ctx, grad_t, input_t, *args_t):
        """Forward AD: linear in ``grad``; the slope's own tangent is zero."""
        input, = ctx.saved_tensors
        return _sloped(grad_t, type(ctx)._forward_cls.activation.derivative(input, *ctx.args))


def _sloped(grad, slope):
    """``grad * slope``, but 0 where the slope is 0, NaN and infinite gradients included:
    torch's backward kernels of these activations select 0 there (``x <= min ? 0 : grad``)
    rather than multiply."""
    return _ag.where(slope == 0, 0.0, grad * slope)


class _BackwardWithoutDerivative(_PiecewiseLinearBackward):
    """A backward op whose own derivative torch does not implement (hardsigmoid's): its
    node refuses to run, with torch's message."""

    @staticmethod
    def backward(ctx, grad_grad):
        name = type(ctx)._forward_cls.activation.__name__.lower()
        raise RuntimeError(f"derivative for aten::{name}_backward is not implemented")


def _piecewise_linear_backward(node_name, activation, *in_place_forms,
                               base=_PiecewiseLinearBackward):
    """The backward op of ``activation`` (and of its in-place forms), named as torch's."""
    op = type(f"{activation.__name__}Backward", (base,),
              {"activation": activation, "__doc__": f"The backward of {activation.__name__}, "
               "an op (NOTE [The backward of a piecewise-linear activation])."})
    op._backward_cls.__name__ = node_name
    for function in (activation,) + in_place_forms:
        function.backward_op = op
    return op


def _in_place(op, input, *args):
    """``op`` (a ``_PointwiseOfResult`` or ``_PointwiseOfOriginal``) applied to ``input``
    in place, after torch's checks."""
    _check_inplace(input)
    if not is_grad_enabled() and _tangent(input) is None:
        # nothing to record: written as torch's in-place kernel writes, ``input`` returned
        # (a Function would return a detached alias of an input that requires grad)
        input.copy_(op.value(_computed(input), *args))
        return input
    if issubclass(op, _PointwiseOfOriginal):
        # the input as it was, for a derivative to come (none without grad or tangent)
        wanted = (is_grad_enabled() and input.requires_grad) or _tangent(input) is not None
        original = input.clone() if wanted else input
        return op.apply(input, original, *args)
    return op.apply(input, *args)


def _named(node_name, *functions):
    """Give each Function's node torch's name (a Function's node is otherwise called
    ``<Function>Backward``)."""
    for function in functions:
        function._backward_cls.__name__ = node_name


# ------------------------------------------------------------------ elu, selu, celu

class _EluMath:
    """``scale * x`` for ``x > 0``, else ``alpha * scale * (exp(x * input_scale) - 1)``
    (args ``alpha, scale, input_scale``): elu, selu and celu are its three settings."""

    @staticmethod
    def value(x, alpha, scale, input_scale):
        negative = _ag.expm1(x * input_scale) * (alpha * scale)
        return _ag.where(x > 0, x * scale, negative)

    @staticmethod
    def derivative(x, alpha, scale, input_scale):
        """At 0 the exponential side's value, as a constant: torch's second derivative is 0
        there."""
        coefficient = alpha * scale * input_scale
        negative = _ag.where(x < 0, _ag.exp(x * input_scale) * coefficient,
                             _ag.full_like(x, coefficient))
        # torch's kernel tests x <= 0 for the exponential side: a NaN takes the linear one
        linear = ~(x <= 0)
        return _ag.where(linear, _mask(linear, x) * scale, negative)

    @staticmethod
    def result_derivative(result, alpha, scale, input_scale):
        """From ``r = alpha * scale * (exp(x * s) - 1)``: ``s * (r + alpha * scale)``; the
        sign of ``x`` is the result's only for a non-negative alpha."""
        if alpha < 0:
            raise RuntimeError(
                "In-place elu backward calculation is triggered with a negative slope which "
                "is not supported. This is caused by calling in-place forward function with "
                "a negative slope, please call out-of-place version instead.")
        negative = _ag.where(result < 0, (result + alpha * scale) * input_scale,
                             _ag.full_like(result, alpha * scale * input_scale))
        linear = ~(result <= 0)         # a NaN result too, as torch's kernel
        return _ag.where(linear, _mask(linear, result) * scale, negative)


class Elu(_EluMath, _Pointwise):
    """elu and selu: torch's ``elu`` op."""


class EluInplace(_EluMath, _PointwiseOfResult):
    """elu_ and selu_."""


class _CeluMath(_EluMath):
    """elu with ``input_scale = 1 / alpha``. torch's derivative takes the reciprocal of
    alpha rounded to float32 (its forward does not), and so does this one."""

    @staticmethod
    def derivative(x, alpha, scale, input_scale):
        return _EluMath.derivative(x, alpha, scale, 1.0 / float(np.float32(alpha)))

    @staticmethod
    def result_derivative(result, alpha, scale, input_scale):
        return _EluMath.result_derivative(result, alpha, scale, 1.0 / float(np.float32(alpha)))


class Celu(_CeluMath, _Pointwise):
    """celu, a node of its own."""


class CeluInplace(_CeluMath, _PointwiseOfResult):
    """celu_."""


_named("EluBackward0", Elu)
_named("EluBackward1", EluInplace)
_named("CeluBackward0", Celu)
_named("CeluBackward1", CeluInplace)


def elu(input, alpha=1.0, inplace=False):
    """``x`` for ``x > 0``, else ``alpha * (exp(x) - 1)``."""
    _require_floating(input, "elu", inplace)
    if inplace:
        return _in_place(EluInplace, input, alpha, 1.0, 1.0)
    return Elu.apply(input, alpha, 1.0, 1.0)


def elu_(input, alpha=1.0):
    """In-place elu (its node reads the result: EluBackward1)."""
    return elu(input, alpha, inplace=True)


def selu(input, inplace=False):
    """``scale * elu(x, alpha)`` with the self-normalizing constants."""
    _require_floating(input, "elu", inplace)
    if inplace:
        return _in_place(EluInplace, input, SELU_ALPHA, SELU_SCALE, 1.0)
    return Elu.apply(input, SELU_ALPHA, SELU_SCALE, 1.0)


def selu_(input):
    """In-place selu (EluBackward1)."""
    return selu(input, inplace=True)


def _celu_settings(alpha):
    if alpha == 0:
        raise RuntimeError("ZeroDivisionError: alpha cannot be 0 for CELU")
    return alpha, 1.0, 1.0 / alpha


def celu(input, alpha=1.0, inplace=False):
    """``max(0, x) + min(0, alpha * (exp(x / alpha) - 1))``."""
    _require_floating(input, "elu", inplace)
    settings = _celu_settings(alpha)
    if inplace:
        return _in_place(CeluInplace, input, *settings)
    return Celu.apply(input, *settings)


def celu_(input, alpha=1.0):
    """In-place celu (CeluBackward1)."""
    return celu(input, alpha, inplace=True)


# ------------------------------------------------------------------ hardtanh, relu6

class _HardtanhMath:
    """``clamp(x, min_val, max_val)``; slope 1 strictly inside the bounds (NOTE [The kinks
    of the piecewise activations])."""

    @staticmethod
    def value(x, min_val, max_val):
        """An integer input stays integer: torch casts the bounds to its dtype."""
        out = _ag.clamp(x, min_val, max_val)
        return out if out.dtype == x.dtype else out.to(x.dtype)

    @staticmethod
    def derivative(x, min_val, max_val):
        inside = (x > min_val).logical_and(x < max_val)
        nan = x.isnan()
        if bool(nan.any()):         # NOTE [NaN in hardtanh's backward]
            inside = inside.logical_or(nan.logical_and(_scalar_tail(x)))
        return _mask(inside, x)


# NOTE [NaN in hardtanh's backward]
# torch's CPU kernel has two bodies: the scalar one zeroes the gradient where
# ``x <= min_val || x >= max_val``, so a NaN input passes its gradient; the vectorized one
# keeps it where ``x > min_val & x < max_val``, so a NaN gets 0. A contiguous tensor of n
# elements runs the vectorized body over blocks of two 32-byte vectors (16 float32, 8
# float64, 32 float16 / bfloat16 elements: the AVX2 kernels torch dispatches this op to)
# and the scalar one over the last ``n % block``; a strided one runs the scalar body
# throughout. ``_scalar_tail`` marks the elements the scalar body reaches.

def _scalar_tail(x):
    """A boolean tensor: True where torch's CPU kernel reaches ``x``'s element by its
    scalar loop (NOTE [NaN in hardtanh's backward])."""
    if not x.is_contiguous():
        return _ag.ones(x.shape, dtype=_ag.bool, device=x.device)
    block = 64 // x.element_size()
    n = x.numel()
    return (_ag.arange(n, device=x.device) >= n - n % block).reshape(x.shape)


class Hardtanh(_HardtanhMath, _Pointwise):
    """hardtanh and relu6."""


class HardtanhInplace(_HardtanhMath, _PointwiseOfOriginal):
    """hardtanh_ (torch's in-place node is HardtanhBackward0 too)."""


_named("HardtanhBackward0", Hardtanh, HardtanhInplace)
_piecewise_linear_backward("HardtanhBackwardBackward0", Hardtanh, HardtanhInplace)


def hardtanh(input, min_val=-1.0, max_val=1.0, inplace=False):
    """``x`` clamped to ``[min_val, max_val]``."""
    if min_val > max_val:
        raise ValueError("min_val cannot be greater than max_val")
    if inplace:
        return _in_place(HardtanhInplace, input, min_val, max_val)
    return Hardtanh.apply(input, min_val, max_val)


def hardtanh_(input, min_val=-1.0, max_val=1.0):
    """In-place hardtanh."""
    return hardtanh(input, min_val, max_val, inplace=True)


def relu6(input, inplace=False):
    """``min(max(0, x), 6)``: hardtanh on ``[0, 6]``, with its node."""
    return hardtanh(input, 0.0, 6.0, inplace)


def relu_(input):
    """In-place relu."""
    return _ag.relu_(input)


def leaky_relu_(input, negative_slope=0.01):
    """In-place leaky_relu (its node reads the result: LeakyReluBackward1)."""
    return _activation.leaky_relu_(input, negative_slope)


# ------------------------------------------------------------------ hardsigmoid, hardswish

# torch's hardsigmoid backward multiplies by this float32 constant in every dtype
_ONE_SIXTH = float(np.float32(1.0 / 6.0))


class _HardsigmoidMath:
    """``clamp(x + 3, 0, 6) / 6``; slope ``1/6`` strictly inside ``(-3, 3)``."""

    @staticmethod
    def value(x):
        return _ag.clamp(x + 3.0, 0.0, 6.0) / 6.0

    @staticmethod
    def derivative(x):
        return _mask((x > -3.0).logical_and(x < 3.0), x) * _ONE_SIXTH


class Hardsigmoid(_HardsigmoidMath, _Pointwise):
    """hardsigmoid."""


class HardsigmoidInplace(_HardsigmoidMath, _PointwiseOfOriginal):
    """hardsigmoid(inplace=True)."""


class _HardswishMath:
    """``x * clamp(x + 3, 0, 6) / 6``; slope 0 up to -3, ``x / 3 + 1/2`` between, 1 from
    3 on."""

    @staticmethod
    def value(x):
        return x * _ag.clamp(x + 3.0, 0.0, 6.0) / 6.0

    @staticmethod
    def derivative(x):
        middle = x / 3.0 + 0.5
        return _ag.where(x <= -3.0, 0.0, _ag.where(x < 3.0, middle, 1.0)).to(x.dtype)


class Hardswish(_HardswishMath, _Pointwise):
    """hardswish."""


class HardswishInplace(_HardswishMath, _PointwiseOfOriginal):
    """hardswish(inplace=True)."""


_named("HardsigmoidBackward0", Hardsigmoid, HardsigmoidInplace)
# torch's gradient of hardsigmoid has a node that refuses double backward
_piecewise_linear_backward("NotImplemented", Hardsigmoid, HardsigmoidInplace,
                           base=_BackwardWithoutDerivative)
_named("HardswishBackward0", Hardswish, HardswishInplace)


def hardsigmoid(input, inplace=False):
    """``relu6(x + 3) / 6``: a piecewise-linear sigmoid."""
    _require_floating(input, "hardsigmoid", inplace)
    if inplace:
        return _in_place(HardsigmoidInplace, input)
    return Hardsigmoid.apply(input)


def hardswish(input, inplace=False):
    """``x * relu6(x + 3) / 6``: a piecewise swish."""
    _require_floating(input, "hardswish", inplace)
    if inplace:
        return _in_place(HardswishInplace, input)
    return Hardswish.apply(input)


# ------------------------------------------------------------------ mish, logsigmoid

class _MishMath:
    """``x * tanh(softplus(x))``; slope ``t + x * sigmoid(x) * (1 - t^2)``, ``t`` that
    tanh."""

    @staticmethod
    def value(x):
        return x * _ag.tanh(_activation.softplus(x, 1.0, 20.0))

    @staticmethod
    def derivative(x):
        t = _ag.tanh(_activation.softplus(x, 1.0, 20.0))
        return t + x * _ag.sigmoid(x) * (1.0 - t * t)


class Mish(_MishMath, _Pointwise):
    """mish."""


class MishInplace(_MishMath, _PointwiseOfOriginal):
    """mish(inplace=True)."""


class LogSigmoid(_Pointwise):
    """``log(sigmoid(x)) = min(x, 0) - log1p(exp(-|x|))``, which neither overflows nor
    loses the small values; slope ``sigmoid(-x)``, as torch computes it from the buffer
    ``z = exp(-|x|)`` it keeps in the input's dtype (``dtype``): ``1 - z / (1 + z)`` below
    0, ``z / (1 + z)`` elsewhere."""

    @staticmethod
    def value(x, dtype):
        # contiguous whatever the input's strides, as torch's kernel writes its result
        return (_ag.clamp(x, max=0.0) - _ag.log1p(_ag.exp(-_ag.abs(x)))).contiguous()

    @staticmethod
    def derivative(x, dtype):
        # -|x| as a where, whose derivative at 0 is the right side's (-1), not abs's 0
        buffer = _ag.exp(_ag.where(x < 0, x, -x)).to(dtype).to(x.dtype)
        fraction = buffer / (buffer + 1.0)
        return _ag.where(x < 0, 1.0 - fraction, fraction)


_named("MishBackward0", Mish, MishInplace)
_named("LogSigmoidBackward0", LogSigmoid)


def mish(input, inplace=False):
    """``x * tanh(softplus(x))``."""
    _require_floating(input, "mish", inplace)
    if inplace:
        return _in_place(MishInplace, input)
    return Mish.apply(input)


def logsigmoid(input):
    """``log(1 / (1 + exp(-x)))``, computed stably."""
    _require_floating(input, "log_sigmoid")
    return LogSigmoid.apply(input, input.dtype)


# ------------------------------------------------------------------ shrinks, threshold

# NOTE [softshrink's zero]
# torch's CPU softshrink gives 0 in the middle two ways: its vectorized body +0.0 (x - x,
# NaN staying NaN), its scalar tail x * 0, -0.0 for a negative x. Which elements the body
# takes depends on the machine: for a contiguous input, the first n - n % w of n, with w
# the elements of one vector register of torch's CPU capability (64 bytes with AVX-512, 32
# with AVX2; float16 and bfloat16 run on their own 2-byte vectors). Softshrink follows that
# for a contiguous input (the sign of zero reaches 1 / x and rsqrt: fuzz seeds 985001475,
# 986001267, 990001432) and takes the tail's rule for any other.

@functools.lru_cache(maxsize=1)
def _vector_bytes():
    """The byte width of torch's CPU vector loops: its ``ATEN_CPU_CAPABILITY`` override,
    else AVX-512 where the CPU has the four extensions torch requires, else AVX2."""
    chosen = os.environ.get("ATEN_CPU_CAPABILITY", "").lower()
    if chosen in ("avx512", "avx2", "default"):
        return {"avx512": 64, "avx2": 32, "default": 0}[chosen]
    try:
        with open("/proc/cpuinfo") as info:
            flags = next((line.split() for line in info if line.startswith("flags")), [])
    except OSError:
        flags = []
    wanted = ("avx512f", "avx512bw", "avx512vl", "avx512dq")
    return 64 if all(flag in flags for flag in wanted) else 32 if "avx2" in flags else 0


def _in_vector_body(x, itemsize):
    """Where torch's vectorized loop computes ``x`` (NOTE [softshrink's zero]), or None
    for nowhere; ``itemsize``: the bytes of an element of the input's dtype (``x`` may be a
    float32 copy of a half-precision input)."""
    width = _vector_bytes() // itemsize
    n = x.numel()
    if not width or n < width or not x.is_contiguous() or x.device.type != "cpu":
        return None
    return (_ag.arange(n, device=x.device) < n - n % width).reshape(x.shape)


class Softshrink(_Pointwise):
    """``x - lambd`` above ``lambd``, ``x + lambd`` below ``-lambd``, else 0 (NOTE
    [softshrink's zero])."""

    @staticmethod
    def value(x, lambd, itemsize=4):
        middle = x * 0
        body = _in_vector_body(x, itemsize)
        if body is not None:
            middle = _ag.where(body, x - x, middle)
        return _ag.where(x > lambd, x - lambd, _ag.where(x < -lambd, x + lambd, middle)).to(
            x.dtype)

    @staticmethod
    def derivative(x, lambd, itemsize=4):
        # 0 at NaN, as the vectorized body of torch's backward kernel (its scalar tail
        # passes the gradient: torch's own answer depends on the position)
        return _mask(_ag.abs(x) > lambd, x)


class Hardshrink(_Pointwise):
    """``x`` where ``|x| > lambd``, else 0."""

    @staticmethod
    def value(x, lambd):
        return _ag.where((x >= -lambd) & (x <= lambd), 0.0, x)

    @staticmethod
    def derivative(x, lambd):
        return _mask(_ag.abs(x) > lambd, x)


class _ThresholdMath:
    """``value`` where ``x <= threshold``, else ``x`` (NaN stays NaN, as torch's kernel
    tests ``x <= threshold``); slope 1 where not ``x <= threshold``."""

    @staticmethod
    def value(x, threshold, value):
        return _ag.where(x <= threshold, _ag.full_like(x, value), x)

    @staticmethod
    def derivative(x, threshold, value):
        return _mask(~(x <= threshold), x)


class Threshold(_ThresholdMath, _Pointwise):
    """threshold."""


class ThresholdInplace(_ThresholdMath, _PointwiseOfOriginal):
    """threshold_: its node (ThresholdBackward1) tests the input as it was."""


_named("SoftshrinkBackward0", Softshrink)
_named("HardshrinkBackward0", Hardshrink)
_named("ThresholdBackward0", Threshold)
_named("ThresholdBackward1", ThresholdInplace)
_piecewise_linear_backward("SoftshrinkBackwardBackward0", Softshrink)
_piecewise_linear_backward("HardshrinkBackwardBackward0", Hardshrink)
_piecewise_linear_backward("ThresholdBackwardBackward0", Threshold, ThresholdInplace)


def softshrink(input, lambd=0.5):
    """Shrink ``x`` towards 0 by ``lambd``, to 0 within ``[-lambd, lambd]``."""
    _require_floating(input, "softshrink")
    largest = _ag.finfo(input.dtype).max
    if not 0 <= lambd <= largest:
        raise RuntimeError(f"lambda must be in range [0, {largest:g}] for input dtype "
                           f"{input.dtype._scalar_name}, but found {lambd:g}")
    return Softshrink.apply(input, lambd, input.element_size())


def hardshrink(input, lambd=0.5):
    """``x`` where ``|x| > lambd``, else 0."""
    _require_floating(input, "hardshrink")
    return Hardshrink.apply(input, lambd)


def threshold(input, threshold, value, inplace=False):
    """``x`` where ``x > threshold``, else ``value``."""
    if inplace:
        _check_inplace(input)
    _refuse_complex(input.dtype, "threshold_cpu")
    if inplace:
        return _in_place(ThresholdInplace, input, threshold, value)
    return Threshold.apply(input, threshold, value)


def threshold_(input, threshold, value):
    """In-place threshold (ThresholdBackward1)."""
    _check_inplace(input)
    _refuse_complex(input.dtype, "threshold_cpu")
    return _in_place(ThresholdInplace, input, threshold, value)


def softsign(input):
    """``x / (1 + |x|)``, composed as torch composes it."""
    return div(input, add(_ag.abs(input), 1))


def tanhshrink(input):
    """``x - tanh(x)``, composed as torch composes it."""
    return sub(input, _ag.tanh(input))


def sigmoid(input):
    """``1 / (1 + exp(-x))``."""
    return _ag.sigmoid(input)


def tanh(input):
    """``tanh(x)``."""
    return _ag.tanh(input)


def softmin(input, dim=None, _stacklevel=3, dtype=None):
    """``softmax(-x)`` along ``dim``."""
    if dim is None:
        warnings.warn("Implicit dimension choice for softmin has been deprecated. Change the "
                      "call to include dim=X as an argument.", stacklevel=_stacklevel)
        dim = 0 if input.dim() in (0, 1, 3) else 1
    return _activation.softmax(neg(input), dim, dtype)


# ------------------------------------------------------------------ glu

class Glu(_ag.autograd.Function):
    """``a * sigmoid(b)`` with ``a, b`` the two halves of ``input`` along ``dim``."""
    builtin_op = True

    @staticmethod
    def forward(ctx, input, dim):
        ctx.dim = dim
        ctx.save_for_backward(input)
        ctx.save_for_forward(input)
        first, second = _computed(input).chunk(2, dim)
        return (first * _ag.sigmoid(second)).to(input.dtype)

    @staticmethod
    def backward(ctx, grad):
        input, = ctx.saved_tensors
        first, second = _computed(input).chunk(2, ctx.dim)
        # torch keeps the gate in the input's dtype (NOTE [Activations in reduced precision])
        gate = _computed(_ag.sigmoid(second).to(input.dtype))
        grad = _computed(grad)
        return _ag.cat([grad * gate, grad * first * gate * (1.0 - gate)], ctx.dim).to(
            input.dtype), None

    @staticmethod
    def jvp(ctx, input_t, dim_t):
        """Forward AD: ``a' * s + a * s * (1 - s) * b'``, ``s = sigmoid(b)``."""
        input, = ctx.saved_tensors
        first, second = input.chunk(2, ctx.dim)
        first_t, second_t = input_t.chunk(2, ctx.dim)
        gate = _ag.sigmoid(second)
        return first_t * gate + first * gate * (1.0 - gate) * second_t


_named("GluBackward0", Glu)


def glu(input, dim=-1):
    """The gated linear unit: the first half of ``input`` along ``dim`` times the sigmoid
    of the second."""
    if input.dim() == 0:
        raise RuntimeError("glu does not support scalars because halving size must be even")
    wrapped = dim + input.dim() if dim < 0 else dim
    size = input.shape[dim]
    if size % 2:
        raise RuntimeError(f"Halving dimension must be even, but dimension {wrapped} is size "
                           f"{size}")
    _require_floating(input, "glu")
    return Glu.apply(input, wrapped)


# ------------------------------------------------------------------ prelu

class PreluKernel(_ag.autograd.Function):
    """``x`` where positive, else ``weight * x``; ``weight`` is already shaped to broadcast
    along the channel dim (torch's ``_prelu_kernel``)."""
    builtin_op = True

    @staticmethod
    def forward(ctx, input, weight):
        ctx.save_for_backward(input, weight)
        ctx.save_for_forward(input, weight)
        return _ag.where(input > 0, input, weight * input)

    @staticmethod
    def backward(ctx, grad):
        input, weight = ctx.saved_tensors
        return PreluKernelBackward.apply(grad, input, weight)

    @staticmethod
    def jvp(ctx, input_t, weight_t):
        """Forward AD: the backward's two terms, each with its tangent."""
        input, weight = ctx.saved_tensors
        non_negative = input >= 0       # NOTE [prelu's second derivative at 0]
        tangent = _ag.where(non_negative, input_t, weight * input_t)
        if weight_t is not None:
            tangent = tangent + _ag.where(non_negative, 0.0, input * weight_t).to(
                tangent.dtype)
        return tangent


class PreluKernelBackward(_ag.autograd.Function):
    """prelu's backward as an op of its own, as torch's ``_prelu_kernel_backward``: its
    derivative tests ``x >= 0`` where the backward tests ``x > 0`` (NOTE [prelu's second
    derivative at 0])."""
    builtin_op = True

    @staticmethod
    def forward(ctx, grad, input, weight):
        ctx.save_for_backward(grad, input, weight)
        ctx.save_for_forward(grad, input, weight)
        positive = input > 0
        grad_input = _ag.where(positive, grad, weight * grad)
        grad_weight = _ag.where(positive, 0.0, input * grad).to(grad.dtype)
        return grad_input, grad_weight.sum_to_size(tuple(weight.shape))

    @staticmethod
    def backward(ctx, grad_grad_input, grad_grad_weight):
        grad, input, weight = ctx.saved_tensors
        if grad_grad_input is None:
            grad_grad_input = _ag.zeros_like(grad)
        if grad_grad_weight is None:
            grad_grad_weight = _ag.zeros_like(weight)
        non_negative = input >= 0
        zero = _ag.zeros((), dtype=grad.dtype, device=grad.device)
        grad_of_grad = _ag.where(non_negative, grad_grad_input,
                                 grad_grad_input * weight + grad_grad_weight * input)
        grad_of_input = _ag.where(non_negative, zero, grad * grad_grad_weight)
        grad_of_weight = _ag.where(non_negative, zero, grad * grad_grad_input)
        return grad_of_grad, grad_of_input, grad_of_weight.sum_to_size(tuple(weight.shape))

    @staticmethod
    def jvp(ctx, grad_t, input_t, weight_t):
        """Forward AD (forward over reverse): each output's derivative along the three
        tangents, the slope's own derivative being zero."""
        grad, input, weight = ctx.saved_tensors
        grad_t = _ag.zeros_like(grad) if grad_t is None else grad_t
        input_t = _ag.zeros_like(input) if input_t is None else input_t
        weight_t = _ag.zeros_like(weight) if weight_t is None else weight_t
        non_negative = input >= 0       # NOTE [prelu's second derivative at 0]
        zero = _ag.zeros((), dtype=grad.dtype, device=grad.device)
        grad_input_t = _ag.where(non_negative, grad_t, weight * grad_t + weight_t * grad)
        grad_weight_t = _ag.where(non_negative, zero, input * grad_t + input_t * grad)
        return grad_input_t, grad_weight_t.sum_to_size(tuple(weight.shape))


# NOTE [prelu's second derivative at 0]
# torch's prelu backward gives ``weight * g`` at x = 0 (the test is ``x > 0``), but the
# derivative of that backward tests ``x >= 0``: at 0 the gradient's own derivative with
# respect to ``g`` is 1, and the terms of the second derivative in ``x`` and ``weight``
# vanish. Forward AD, of prelu and of its backward, tests ``x >= 0`` too (the tangent at 0
# is the input's). PreluKernel and PreluKernelBackward follow both, so derivatives through
# a zero input are torch's.

_named("PreluKernelBackward0", PreluKernel)
_named("PreluKernelBackwardBackward0", PreluKernelBackward)


def prelu(input, weight):
    """leaky_relu with a learned slope: one for all channels, or one per channel (dim 1)."""
    count = weight.numel()
    if count != 1:
        if input.dim() == 0:
            raise RuntimeError("Not allow zero-dim input tensor.")
        channels = input.shape[1] if input.dim() > 1 else 1
        if channels != count:
            raise RuntimeError(f"Mismatch of parameter numbers and input channel size. Found "
                               f"parameter numbers = {count} and channel size = {channels}.")
    if weight.dim() > 1:
        raise RuntimeError("prelu: Expected `weight` to be a scalar or 1D tensor, but got: "
                           f"ndim = {weight.dim()}")
    if input.dtype != weight.dtype:
        raise RuntimeError(f"prelu: Type promoting not supported. Got "
                           f"{input.dtype._scalar_name} and {weight.dtype._scalar_name}")
    _require_floating(input, "prelu")       # the kernel's dispatch, after the checks
    if input.dim() != weight.dim():
        shape = [1] * input.dim()
        if input.dim() > 1:
            shape[1] = count
        weight = weight.reshape(tuple(shape))
    return PreluKernel.apply(input, weight)


# ------------------------------------------------------------------ rrelu

class _RreluMath:
    """``x * noise``: ``noise`` is 1 where ``x > 0`` and a slope elsewhere (random in
    training, ``(lower + upper) / 2`` in eval); the slope is the noise itself. A float16 or
    bfloat16 input is multiplied in float32 by the slopes before their rounding
    (``exact``), then rounded once, as torch's kernels compute it; its noise, and so its
    gradient, is in its own dtype as torch's."""

    @staticmethod
    def value(x, noise, exact):
        if exact is None:
            return x * noise
        return (x.float() * exact).to(x.dtype)

    @staticmethod
    def derivative(x, noise, exact):
        return noise

    result_derivative = derivative


class RreluWithNoise(_RreluMath, _Pointwise):
    """rrelu."""
    contiguous_result = True       # torch's rrelu_with_noise allocates its output


class RreluWithNoiseInplace(_RreluMath, _PointwiseOfResult):
    """rrelu_."""


_named("RreluWithNoiseBackward0", RreluWithNoise)
_named("RreluWithNoiseBackward1", RreluWithNoiseInplace)
_piecewise_linear_backward("RreluWithNoiseBackwardBackward0", RreluWithNoise,
                           RreluWithNoiseInplace)


# NOTE [rrelu's random slopes]
# In training torch's CPU kernel draws one slope per element that is not positive, in the
# order of the input's elements (row-major), each a float64 uniform on [lower, upper) from
# the generator: 53 bits of a 64-bit draw times 2**-53, then ``u * (upper - lower) +
# lower`` in float64, rounded twice (no fused multiply-add, unlike ``uniform_``), with the
# bounds first rounded to the input's compute type (float32 unless the input is float64),
# then the slope rounded to that compute type (the product's) and to the input's dtype (the
# noise the backward reads). Drawn the same way here, the slopes are torch's after the same
# ``manual_seed``; positive elements draw nothing. A CUDA tensor draws its slopes with
# ``uniform_`` from its device's generator.

def _rrelu_noise(input, lower, upper, training):
    """``(noise, exact)``: the slope of each element (NOTE [rrelu's random slopes]) in
    ``input``'s dtype, and for a float16 or bfloat16 input the same slopes in float32
    (None otherwise)."""
    with _ag.no_grad():
        x = input.detach()
        reduced = x.dtype in (_ag.float16, _ag.bfloat16)
        positive = x > 0
        if not training or upper - lower <= 1e-6:
            slope = (lower + upper) / 2
            like = x.float() if reduced else x
            exact = _ag.where(positive, _ag.ones_like(like), _ag.full_like(like, slope))
            return (exact.to(x.dtype), exact) if reduced else (exact, None)
        if x.dtype == _ag.float16 and not x.is_cuda:
            raise NotImplementedError("\"rrelu_with_noise_out_cpu\" not implemented for "
                                      "'Half'")
        count = int((~positive).sum())
        if x.is_cuda:
            slopes = _ag.empty(count, dtype=_ag.float64, device=x.device).uniform_(lower,
                                                                                  upper)
        else:
            compute = np.float64 if x.dtype == _ag.float64 else np.float32
            low, high = float(compute(lower)), float(compute(upper))
            u = _cpu_random._unit_uniform(_factories._generator(None), count, True)
            slopes = _ag.tensor(u * (high - low) + low)
        exact = _ag.ones_like(x, dtype=_ag.float32 if reduced else x.dtype)
        exact[~positive] = slopes.to(exact.dtype)
        return (exact.to(x.dtype), exact) if reduced else (exact, None)


def rrelu(input, lower=1.0 / 8, upper=1.0 / 3, training=False, inplace=False):
    """leaky_relu with a random slope in ``[lower, upper]`` per element in training, and
    the mean slope ``(lower + upper) / 2`` in eval."""
    _require_floating(input, "leaky_relu", inplace)
    if lower > upper:
        raise RuntimeError("Lower bound should be less than or equal to the upper bound")
    noise, exact = _rrelu_noise(input, lower, upper, training)
    if inplace:
        return _in_place(RreluWithNoiseInplace, input, noise, exact)
    return RreluWithNoise.apply(input, noise, exact)


def rrelu_(input, lower=1.0 / 8, upper=1.0 / 3, training=False):
    """In-place rrelu (RreluWithNoiseBackward1)."""
    return rrelu(input, lower, upper, training, inplace=True)


# The ones torch's Tensor has as methods (the package exports the torch-level names).
_register_methods({"hardshrink": hardshrink, "prelu": prelu})
