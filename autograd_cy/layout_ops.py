"""The ``memory_format=`` argument of ``clone``, ``contiguous``, ``to`` and
``is_contiguous`` (the formats and the layout copy: memory_formats.py).

NOTE [A layout copy is one node]
torch records ``x.clone(memory_format=channels_last)`` and
``x.contiguous(memory_format=channels_last)`` as one CloneBackward0, and
``x.to(memory_format=...)`` as one ToCopyBackward0. Ours builds the copy from a permute,
a contiguous copy and the inverse permute, run inside one ``autograd.Function`` whose node
takes torch's name, so the graph is torch's: the gradient passes through unchanged (it
is converted back to the input's dtype and device after ``to``).
"""
from autograd_cy import memory_formats as _memory_format
from autograd_cy._C import tensor as _tensor
from autograd_cy._C.ops import conversion as _conversion
from autograd_cy.autograd.function import Function

__all__ = []


class _LayoutClone(Function):
    """A copy in another layout: NOTE [A layout copy is one node]."""
    builtin_op = True

    @staticmethod
    def forward(ctx, input, format):
        ctx.format = format
        return _memory_format.relaid(input, format)

    @staticmethod
    def backward(ctx, grad):
        return grad, None

    @staticmethod
    def jvp(ctx, input_t, format_t):
        return _memory_format.relaid(input_t, ctx.format)


class _LayoutToCopy(Function):
    """``to`` with a memory format: converted, then laid out (NOTE [A layout copy is one
    node])."""
    builtin_op = True

    @staticmethod
    def forward(ctx, input, args, kwargs, format):
        ctx.dtype, ctx.device, ctx.format = input.dtype, input.device, format
        return _memory_format.relaid(_memory_format.plain_to(input, *args, **kwargs), format)

    @staticmethod
    def backward(ctx, grad):
        return _memory_format.plain_to(grad, ctx.device, ctx.dtype), None, None, None


_LayoutClone._backward_cls.__name__ = "CloneBackward0"
_LayoutToCopy._backward_cls.__name__ = "ToCopyBackward0"


def clone(self, memory_format):
    """``clone(memory_format=...)``: laid out as ``self`` (preserve_format) or in
    ``memory_format``."""
    if _memory_format.keeps_layout(memory_format):
        return _memory_format.plain_clone(self)
    _memory_format.check_rank(self, memory_format)
    return _LayoutClone.apply(self, memory_format)


def contiguous(self, memory_format):
    """``contiguous(memory_format=...)``: ``self`` when already laid out so, else a copy
    that is."""
    if (memory_format is _memory_format.contiguous_format
            or _memory_format.keeps_layout(memory_format)):
        return _memory_format.plain_contiguous(self)
    _memory_format.check_rank(self, memory_format)
    if _memory_format.is_laid_out(self, memory_format):
        return self
    return _LayoutClone.apply(self, memory_format)


def is_contiguous(self, memory_format):
    """``is_contiguous(memory_format=...)``."""
    return _memory_format.is_laid_out(self, memory_format)


def to(self, args, kwargs, memory_format):
    """``to(..., memory_format=...)``: converted, then laid out in ``memory_format``."""
    converted = _memory_format.plain_to(self, *args, **kwargs)
    if _memory_format.keeps_layout(memory_format):
        return converted
    _memory_format.check_rank(self, memory_format)
    if converted is self and _memory_format.has_strides_of(self, memory_format):
        return self
    return _LayoutToCopy.apply(self, args, kwargs, memory_format)


# NOTE [Memory formats reach the ops through a slot] (ops/conversion.pyx)
_conversion.memory_format_ops.update(clone=clone, contiguous=contiguous, to=to)
_tensor.memory_format_check = is_contiguous
