"""``normal``: samples of normal distributions whose means and standard deviations are
tensors or numbers, torch's numbers after the same seed (NOTE [torch's CPU random numbers]).

NOTE [How normal draws]
torch draws every overload through ``normal_`` on the result, then shifts and scales it:
with a tensor mean and a number std, ``normal_(0, std)`` then ``+ mean``; with a tensor
std, ``normal_(0, 1)`` then ``* std + mean``. Doing the same arithmetic in the same order
gives the same bits. The result takes the mean tensor's dtype (the std tensor's when the
mean is a number). The sample does not depend on the parameters differentiably in torch's
formulas: the gradients to mean and std are zeros, from nodes named NormalBackward1
(tensor mean), NormalBackward2 (tensor std) and NormalBackward3 (both).
"""
import numbers

import numpy as np

from autograd_cy import factories as _factories
from autograd_cy._C.tensor import Tensor
from autograd_cy.autograd.function import Function
from autograd_cy.factories import empty, zeros
from autograd_cy.grad_mode import no_grad

__all__ = ["normal"]


def _broadcast_shape(a, b):
    """torch's broadcast of two shapes, with its error."""
    try:
        return tuple(np.broadcast_shapes(tuple(a), tuple(b)))
    except ValueError:
        for offset in range(1, min(len(a), len(b)) + 1):
            if a[-offset] != b[-offset] and 1 not in (a[-offset], b[-offset]):
                raise RuntimeError(
                    f"The size of tensor a ({a[-offset]}) must match the size of tensor b "
                    f"({b[-offset]}) at non-singleton dimension "
                    f"{max(len(a), len(b)) - offset}") from None
        raise


def _check_tensor_std(std):
    if std.is_complex():
        raise RuntimeError("normal expects standard deviation to be non-complex")
    if std.numel() and not bool((std >= 0).all()):
        raise RuntimeError("normal expects all elements of std >= 0.0")


def _check_std(std):
    if not std >= 0.0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {std:g}")   # C++'s printing


def _draw(output, mean, std, generator):
    """``output`` filled as torch fills it (NOTE [How normal draws])."""
    if isinstance(std, Tensor):
        output.normal_(0.0, 1.0, generator=generator)
        output.mul_(std)
        return output.add_(mean)
    output.normal_(0.0, std, generator=generator)
    return output.add_(mean)


def _metadata(value):
    """(shape, dtype, device) of a tensor argument; None for a number."""
    if isinstance(value, Tensor):
        return tuple(value.shape), value.dtype, value.device
    return None


def _zeros(metadata):
    """The zero gradient of an argument with ``metadata`` (None for a number)."""
    if metadata is None:
        return None
    shape, dtype, device = metadata
    return zeros(shape, dtype=dtype, device=device)


class _Normal(Function):
    """A draw with ``mean`` and ``std`` (either may be a number); zero gradients to the
    tensors among them."""
    builtin_op = True

    @staticmethod
    def forward(ctx, mean, std, shape, dtype, device, generator):
        # what the zero gradients must look like (the tensors themselves are not kept)
        ctx.mean_like = _metadata(mean)
        ctx.std_like = _metadata(std)
        return _draw(empty(shape, dtype=dtype, device=device), mean, std, generator)

    @staticmethod
    def backward(ctx, grad):
        return _zeros(ctx.mean_like), _zeros(ctx.std_like), None, None, None, None


class NormalTensorFloat(_Normal):
    """``normal(Tensor mean, float std)``."""


class NormalFloatTensor(_Normal):
    """``normal(float mean, Tensor std)``."""


class NormalTensorTensor(_Normal):
    """``normal(Tensor mean, Tensor std)``."""


NormalTensorFloat._backward_cls.__name__ = "NormalBackward1"
NormalFloatTensor._backward_cls.__name__ = "NormalBackward2"
NormalTensorTensor._backward_cls.__name__ = "NormalBackward3"


def _check_out(out, *inputs):
    if out is not None and any(isinstance(t, Tensor) and t.requires_grad for t in inputs):
        raise RuntimeError("normal(): functions with out=... arguments don't support automatic "
                           "differentiation, but one of the arguments requires grad.")


def _invalid_arguments(mean, std):
    return TypeError(
        f"normal() received an invalid combination of arguments - got "
        f"({type(mean).__name__}, {type(std).__name__}), but expected one of:\n"
        " * (Tensor mean, Tensor std, *, Generator generator = None, Tensor out = None)\n"
        " * (Tensor mean, float std = 1, *, Generator generator = None, Tensor out = None)\n"
        " * (float mean, Tensor std, *, Generator generator = None, Tensor out = None)\n"
        " * (float mean, float std, tuple of ints size, *, Generator generator = None, "
        "Tensor out = None, dtype dtype = None, layout layout = None, device device = None, "
        "bool pin_memory = False, bool requires_grad = False)\n")


def normal(mean, std=1.0, size=None, *, generator=None, out=None, dtype=None, layout=None,
           device=None, pin_memory=False, requires_grad=False):
    """Normal samples: ``normal(mean_tensor, std_tensor)`` (broadcast together),
    ``normal(mean_tensor, std=1.0)``, ``normal(mean, std_tensor)``, or
    ``normal(mean, std, size)`` with numbers (as ``empty(size).normal_(mean, std)``)."""
    generator = _factories._generator(generator)
    mean_is_tensor, std_is_tensor = isinstance(mean, Tensor), isinstance(std, Tensor)
    if mean_is_tensor or std_is_tensor:
        if size is not None:
            raise _invalid_arguments(mean, std)
        _check_out(out, mean, std)
        if std_is_tensor:
            _check_tensor_std(std)
        else:
            _check_std(std)
        if out is not None:        # nothing requires grad (_check_out): no node
            # torch broadcasts a tensor mean and a number std with out's own shape
            shape = _broadcast_shape(mean.shape if mean_is_tensor else (),
                                     std.shape if std_is_tensor else out.shape)
            if tuple(out.shape) != shape:
                out.resize_(*shape)
            with no_grad():
                return _draw(out, mean, std, generator)
        if mean_is_tensor and std_is_tensor:
            shape = _broadcast_shape(mean.shape, std.shape)
            return NormalTensorTensor.apply(mean, std, shape, mean.dtype, mean.device,
                                            generator)
        if mean_is_tensor:
            return NormalTensorFloat.apply(mean, std, tuple(mean.shape), mean.dtype,
                                           mean.device, generator)
        return NormalFloatTensor.apply(mean, std, tuple(std.shape), std.dtype, std.device,
                                       generator)
    if size is None or not isinstance(mean, numbers.Real) or not isinstance(std, numbers.Real):
        raise _invalid_arguments(mean, std)
    _check_std(std)
    if out is None:
        out = empty(*_factories._size((size,)), dtype=dtype, device=device)
    elif tuple(out.shape) != tuple(_factories._size((size,))):
        out.resize_(*_factories._size((size,)))
    with no_grad():
        out.normal_(mean, std, generator=generator)
    return out.requires_grad_() if requires_grad else out
