"""``trapezoid`` (and its other name ``trapz``) and ``cumulative_trapezoid``: the integral
of sampled values along a dim by the trapezoidal rule, composed of existing ops as torch
composes them: the last is a product with the spacing, a division by 2 with sample points
``x``, a ``cumsum`` for the running integral with a spacing (torch's nodes ``MulBackward1``
and ``DivBackward1``, of a tensor and a number, are ``MulBackward0`` and ``DivBackward0``
here, where one node serves both).

With a spacing ``dx`` the integral is ``dx * (sum(y) - (y_first + y_last) / 2)``; with
sample points ``x`` (1-D, one per sample, or shaped like ``y``) each interval adds
``(x_{i+1} - x_i) * (y_i + y_{i+1}) / 2``. ``cumulative_trapezoid`` keeps the running sum,
one value fewer than the samples.

>>> import autograd_cy as ag
>>> ag.trapezoid(ag.tensor([1.0, 2.0, 4.0]), ag.tensor([0.0, 1.0, 3.0]))
tensor(7.5000)
>>> ag.cumulative_trapezoid(ag.tensor([1.0, 2.0, 4.0]))
tensor([1.5000, 4.5000])
"""
import autograd_cy as _ag
from autograd_cy._C.tensor import Tensor
from autograd_cy.reorder import _wrap

__all__ = ["trapezoid", "trapz", "cumulative_trapezoid"]


def _sample_dim(y, dim):
    if y.dim() == 0:
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    return _wrap(dim, y.dim())


def _check_arguments(name, x, dx):
    if x is not None and dx is not None:
        raise TypeError(f"{name}() received an invalid combination of arguments: give the "
                        "sample points x or the spacing dx, not both")
    if x is not None and not isinstance(x, Tensor):
        raise TypeError(f"{name}(): argument 'x' (position 2) must be Tensor, not "
                        f"{type(x).__name__}")


def _intervals(name, y, x, dim):
    """The widths ``x_{i+1} - x_i``, shaped to broadcast against ``y``'s intervals."""
    if x.dim() == 1:
        if x.shape[0] != y.shape[dim]:
            raise RuntimeError(f"{name}: There must be one `x` value for each sample point")
        shape = [1] * y.dim()
        shape[dim] = x.shape[0] - 1 if x.shape[0] else 0
        return x.diff().reshape(shape)
    return x.diff(dim=dim)


def _ends(y, dim, size):
    """``y``'s samples without their last, and without their first, along ``dim``."""
    return y.narrow(dim, 0, size - 1), y.narrow(dim, 1, size - 1)


def _without_dim(y, dim):
    shape = list(y.shape)
    del shape[dim]
    return _ag.zeros(shape, dtype=y.dtype, device=y.device)


def trapezoid(y, x=None, *, dx=None, dim=-1):
    """The integral of ``y`` along ``dim`` by the trapezoidal rule, at sample points ``x``
    or a spacing ``dx`` (1 when neither is given)."""
    _check_arguments("trapezoid", x, dx)
    dim = _sample_dim(y, dim)
    size = y.shape[dim]
    if size == 0:
        return _without_dim(y, dim)
    if x is not None:
        left, right = _ends(y, dim, size)
        return (_intervals("trapezoid", y, x, dim) * (right + left)).sum(dim) / 2.0
    dx = 1 if dx is None else dx
    return (y.sum(dim) - (y.select(dim, 0) + y.select(dim, -1)) * 0.5) * dx


trapz = trapezoid


def cumulative_trapezoid(y, x=None, *, dx=None, dim=-1):
    """The running integral of ``y`` along ``dim`` by the trapezoidal rule: one value per
    interval, at sample points ``x`` or a spacing ``dx`` (1 when neither is given)."""
    _check_arguments("cumulative_trapezoid", x, dx)
    dim = _sample_dim(y, dim)
    size = y.shape[dim]
    if size == 0:
        return y.narrow(dim, 0, 0) * 1.0 if not y.is_floating_point() else y.narrow(dim, 0, 0)
    left, right = _ends(y, dim, size)
    if x is not None:
        widths = _intervals("cumulative_trapezoid", y, x, dim)
        return (widths * (left + right)).cumsum(dim) / 2.0
    dx = 1 if dx is None else dx
    return (dx / 2.0 * (left + right)).cumsum(dim)
