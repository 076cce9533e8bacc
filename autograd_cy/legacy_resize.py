"""The deprecated out-of-place ``Tensor.resize(*sizes)`` and ``resize_as(tensor)``: a
reshape that keeps the number of elements, through torch's own autograd Function
``Resize`` (its node ``ResizeBackward``: the gradient viewed back to the input's shape),
with torch's deprecation warning at every call. A contiguous input shares its memory with
the result (torch's ``tensor.new(tensor)``); another is copied.
"""
import functools
import operator
import warnings

from autograd_cy._C.tensor import _register_methods
from autograd_cy.autograd.function import Function


class Resize(Function):
    """torch.autograd._functions.Resize: a view to ``sizes`` of the same element count."""

    @staticmethod
    def forward(ctx, tensor, sizes):
        ctx.numel = functools.reduce(operator.mul, sizes, 1)
        if tensor.numel() != ctx.numel:
            raise RuntimeError(
                f"requested resize to {'x'.join(map(str, sizes))} ({ctx.numel} elements in "
                f"total), but the given tensor has a size of "
                f"{'x'.join(map(str, tensor.size()))} ({tensor.numel()} elements). "
                f"autograd's resize can only change the shape of a given tensor, while "
                f"preserving the number of elements. ")
        ctx.input_sizes = tensor.size()
        return tensor.contiguous().view(*sizes)

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output.contiguous().view(ctx.input_sizes), None


def resize(self, *sizes):
    """Deprecated: ``self`` reshaped to ``sizes`` (the same number of elements)."""
    warnings.warn("non-inplace resize is deprecated", UserWarning, stacklevel=2)
    return Resize.apply(self, sizes)


def resize_as(self, tensor):
    """Deprecated: ``self`` reshaped to ``tensor``'s size (the same number of elements)."""
    warnings.warn("non-inplace resize_as is deprecated", UserWarning, stacklevel=2)
    return Resize.apply(self, tensor.size())


_register_methods({"resize": resize, "resize_as": resize_as})
