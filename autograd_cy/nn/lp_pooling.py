"""``lp_pool1d``, ``lp_pool2d`` and ``lp_pool3d``: the p-norm of each window, ``(sum x^p)^(1/p)``. A
composite in torch, so here too (its node is the final ``pow``'s): the average pool of
``x^p`` times the window's area is the sum; ``sign * relu(abs)`` keeps a negative sum
(an odd ``p``) from reaching the root as the absolute value would. ``p = inf`` is the max
pool of ``|x|`` and ``p = -inf`` minus the max pool of ``-|x|``.
"""
from autograd_cy.nn.pooling import (avg_pool1d, avg_pool2d, avg_pool3d, max_pool1d, max_pool2d,
                                    max_pool3d)
from autograd_cy.nn.tuples import _ntuple, _pair

__all__ = ["lp_pool1d", "lp_pool2d", "lp_pool3d"]


def _root_of_sums(out, area, norm_type):
    """``(area * mean)^(1/p)`` with torch's sign handling."""
    return (out.sign() * out.abs().relu()).mul(area).pow(1.0 / norm_type)


def lp_pool2d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """The ``norm_type``-norm of each window of ``(N, C, H, W)`` (no padding)."""
    kw, kh = _pair(kernel_size)
    if norm_type == float("inf"):
        return max_pool2d(input.abs(), kernel_size, stride, 0, 1, ceil_mode)
    if norm_type == -float("inf"):
        return -max_pool2d(-input.abs(), kernel_size, stride, 0, 1, ceil_mode)
    out = avg_pool2d(input.pow(norm_type), kernel_size, stride, 0, ceil_mode)
    return _root_of_sums(out, kw * kh, norm_type)


def lp_pool3d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """The ``norm_type``-norm of each window of ``(N, C, D, H, W)`` (no padding)."""
    kd, kw, kh = _ntuple(3)(kernel_size)
    if norm_type == float("inf"):
        return max_pool3d(input.abs(), kernel_size, stride, 0, 1, ceil_mode)
    if norm_type == -float("inf"):
        return -max_pool3d(-input.abs(), kernel_size, stride, 0, 1, ceil_mode)
    out = avg_pool3d(input.pow(norm_type), kernel_size, stride, 0, ceil_mode)
    return _root_of_sums(out, kd * kw * kh, norm_type)


def lp_pool1d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """The ``norm_type``-norm of each window of ``(N, C, L)`` (no padding)."""
    if norm_type == float("inf"):
        return max_pool1d(input.abs(), kernel_size, stride, 0, 1, ceil_mode)
    if norm_type == -float("inf"):
        return -max_pool1d(-input.abs(), kernel_size, stride, 0, 1, ceil_mode)
    out = avg_pool1d(input.pow(norm_type), kernel_size, stride, 0, ceil_mode)
    return _root_of_sums(out, kernel_size, norm_type)
