"""Ops defined by a vector p-norm: ``dist`` (the p-norm of a difference) and ``renorm``
(sub-tensors scaled down to a largest p-norm).

``dist(input, other, p=2)`` is ``vector_norm(input - other, p)`` over all elements, the
operands broadcast. ``renorm(input, p, dim, maxnorm)`` scales each slice ``input.select(dim,
i)`` whose p-norm exceeds ``maxnorm`` by ``maxnorm / (norm + 1e-7)`` (torch's factor); the
others are kept. Each records torch's node (``DistBackward0``, ``RenormBackward0``) whose
gradients, double backward and tangents are those of its composition (NOTE [An op that
differentiates its composition]); renorm's gradient is torch's formula, through the norm
too, where a slice is scaled, and the gradient itself elsewhere.

>>> import autograd_cy as ag
>>> ag.dist(ag.tensor([0.0, 0.0]), ag.tensor([3.0, 4.0]))
tensor(5.)
"""
import autograd_cy as _ag
from autograd_cy._C.tensor import _register_methods
from autograd_cy.composed_ops import ComposedOp
from autograd_cy.grad_mode import enable_grad
from autograd_cy.reorder import _wrap

__all__ = ["dist", "renorm"]


def _check_floating(dtype, op):
    if not (dtype.is_floating_point or dtype.is_complex):
        raise RuntimeError(f"{op}: input dtype should be either floating point or complex. "
                           f"Got {dtype._scalar_name} instead.")


class _DifferenceNorm:
    """``dist``'s composition: the p-norm of ``a - b``."""

    def __init__(self, p):
        self.p = p

    def __call__(self, a, b):
        return _ag.linalg.vector_norm(a - b, self.p)


class Dist(ComposedOp):
    """``dist``'s op (``DistBackward0``, which saves its result)."""
    saves_result = True

    @staticmethod
    def backward(ctx, grad):
        # p = 0 counts non-zeros: no gradient, as torch's norm_backward (an undefined
        # tensor), whose formula for ``other`` then negates that undefined tensor
        if ctx.composition.p == 0 and ctx.needs_input_grad[2] and grad is not None:
            raise RuntimeError("Expected a proper Tensor but got None (or an undefined "
                               "Tensor in C++) for argument #0 'self'")
        inputs = ctx.saved_tensors[:2]
        if any(x.is_complex() for x in inputs) and any(
                ctx.needs_input_grad[i + 1] and not x.is_complex() for i, x in enumerate(inputs)):
            # torch's formula does not take the real part for a real operand of a complex
            # dist: its engine refuses the complex gradient (validate_outputs.pyx's words)
            raise RuntimeError("Expected isFloatingType(grad.scalar_type()) || "
                               "(input_is_complex == grad_is_complex) to be true, but got "
                               "false.")
        return ComposedOp.backward(ctx, grad)


class _Renormed:
    """``renorm``'s composition: ``x`` scaled where a slice's p-norm exceeds ``maxnorm``."""

    def __init__(self, p, dim, maxnorm, others):
        self.p, self.dim, self.maxnorm, self.others = p, dim, maxnorm, others

    def __call__(self, x):
        norm = _ag.linalg.vector_norm(x, self.p, self.others, keepdim=True)
        factor = _ag.where(norm > self.maxnorm, self.maxnorm / (norm + 1e-7),
                           _ag.ones((), dtype=norm.dtype, device=norm.device))
        return x * factor


# The dtype torch's renorm_backward computes the norms in (its accumulate type on the CPU).
_ACCUMULATE = {"float32": "float64", "float16": "float32", "bfloat16": "float32"}


class Renorm(ComposedOp):
    """``renorm``'s op (``RenormBackward0``), a real input's gradient torch's formula: a
    where at the end passes the gradient through unchanged wherever a slice is not scaled
    (its norm at most ``maxnorm``, or NaN), whatever the norm's own gradient is there. A
    complex input's is its composition's."""

    @staticmethod
    def backward(ctx, grad):
        if not ctx.needs_input_grad[1]:
            return None, None
        x = ctx.saved_tensors[0]
        if x.is_complex():      # (the norm's double backward is real only: the composition's)
            return ComposedOp.backward(ctx, grad)
        r = ctx.composition
        create = _ag.is_grad_enabled()
        accumulate = getattr(_ag, _ACCUMULATE.get(str(x.dtype).split(".")[-1], ""), x.dtype)
        with enable_grad():
            leaf = x.view_as(x) if create else x.detach().requires_grad_(True)
            norm = _ag.linalg.vector_norm(leaf, r.p, r.others, keepdim=True, dtype=accumulate)
        summed = (x * grad).sum(r.others, keepdim=True, dtype=norm.dtype)
        (through_norm,) = _ag.autograd.grad(norm, leaf, summed, create_graph=create)
        if not create:
            norm = norm.detach()
        inverse = (norm + 1e-7).reciprocal()
        factor = inverse * r.maxnorm
        scaled = factor * grad - (factor * inverse) * through_norm
        return None, _ag.where(norm > r.maxnorm, scaled, grad).to(x.dtype)


Dist._backward_cls.__name__ = "DistBackward0"
Renorm._backward_cls.__name__ = "RenormBackward0"


def dist(input, other, p=2):
    """The p-norm of ``input - other``."""
    _check_floating(_ag.promote_types(input.dtype, other.dtype), "norm()")
    return Dist.apply(_DifferenceNorm(p), input, other)


def renorm(input, p, dim, maxnorm):
    """``input`` with each slice along ``dim`` whose p-norm exceeds ``maxnorm`` scaled to
    have that norm."""
    if not p > 0:
        raise RuntimeError("renorm: non-positive-norm not supported")
    if not maxnorm >= 0:
        raise RuntimeError(f"renorm: expected maxnorm to be >= 0 but got {maxnorm:g}")
    if input.dim() <= 1:
        raise RuntimeError(f"renorm: input needs at least 2 dimensions, got {input.dim()} "
                           f"dimensions")
    dim = _wrap(dim, input.dim())
    if not (input.is_floating_point() or input.is_complex()):
        raise RuntimeError(f"linalg.vector_norm: Expected a floating point or complex tensor "
                           f"as input. Got {input.dtype._scalar_name}")
    others = tuple(d for d in range(input.dim()) if d != dim)
    return Renorm.apply(_Renormed(p, dim, maxnorm, others), input)


_register_methods({"dist": dist, "renorm": renorm})
