"""``searchsorted``, ``bucketize``, ``bincount``, ``histc`` and ``histogram``: where values
fall among sorted boundaries, and how many fall in each bin. None of them is differentiable
(int64 positions and counts; the float counts of histc and histogram record nothing
either, as torch's).

``histogram`` returns ``(hist, bin_edges)``: ``bins`` equal bins over ``range`` (the
data's own range when None; a range of one value widened by 0.5 each side, of no values
``[0, 1]``) or the given increasing edges. A bin holds the values from its left edge up to
its right one, the last bin its right edge too; the counts are summed ``weight``s when
given, and with ``density`` divided by the total and the bin's width.

The searches and counts run on the host (a CUDA tensor's values are copied there and the
result copied back: the output's size depends on the values, as torch's kernels
synchronize to learn it).

>>> import autograd_cy as ag
>>> ag.bucketize(ag.tensor([0.5, 3.0, 9.0]), ag.tensor([1.0, 3.0, 5.0]))
tensor([0, 1, 3])
>>> ag.bincount(ag.tensor([0, 1, 1, 3]))
tensor([1, 2, 0, 1])
"""
from collections import namedtuple
import math

import numpy as np

import autograd_cy as _ag
from autograd_cy._C.dtype import _c10_name
from autograd_cy._C.tensor import Tensor, _register_methods

__all__ = ["searchsorted", "bucketize", "bincount", "histc", "histogram", "histogramdd"]

histogram_result = namedtuple("histogram", ["hist", "bin_edges"])
histogramdd_result = namedtuple("histogramdd", ["hist", "bin_edges"])


def _host(tensor):
    return tensor.detach().cpu().numpy()


def _positions(boundaries, values, right, out_int32):
    """The insertion index of each value in the last dim of ``boundaries`` (each row of
    ``boundaries`` for the matching row of ``values`` when both have rows)."""
    side = "right" if right else "left"
    if boundaries.ndim <= 1:
        found = np.searchsorted(boundaries, values, side=side)
    else:
        rows = math.prod(boundaries.shape[:-1])     # (spelled out: there may be none)
        rows_b = boundaries.reshape(rows, boundaries.shape[-1])
        rows_v = values.reshape(rows, values.shape[-1])
        found = np.empty(rows_v.shape, dtype=np.int64)
        for k in range(rows):
            found[k] = np.searchsorted(rows_b[k], rows_v[k], side=side)
        found = found.reshape(values.shape)
    return np.asarray(found, dtype=np.int32 if out_int32 else np.int64)


def searchsorted(sorted_sequence, input, *, out_int32=False, right=False, side=None,
                 sorter=None):
    """Where each value of ``input`` would be inserted into ``sorted_sequence`` (along its
    last dim) to keep it sorted: the first such place, or the last with ``right``."""
    right = right or side == "right"
    values_dtype = input.dtype if isinstance(input, Tensor) else _ag.result_type(
        sorted_sequence, input)
    dtype = _ag.promote_types(sorted_sequence.dtype, values_dtype)
    if dtype.is_complex and (not isinstance(input, Tensor) or input.numel()):
        raise NotImplementedError(f"\"searchsorted_out_cpu\" not implemented for "
                                  f"'{dtype._scalar_name}'")
    sequence = _host(sorted_sequence)
    if sorter is not None:
        sequence = np.take_along_axis(sequence, _host(sorter), axis=-1)
    values = _host(input) if isinstance(input, Tensor) else np.asarray(input)
    found = _positions(sequence, values, right, out_int32)
    return _ag.tensor(found, device=sorted_sequence.device)


def bucketize(input, boundaries, *, out_int32=False, right=False):
    """The index of the bucket of ``boundaries`` (1-D, sorted) each value falls in."""
    if boundaries.dim() != 1:
        raise RuntimeError(f"boundaries tensor must be 1 dimension, but got dim("
                           f"{boundaries.dim()})")
    found = _positions(_host(boundaries), _host(input), right, out_int32)
    return _ag.tensor(found, device=input.device)


def bincount(input, weights=None, minlength=0):
    """How often each value ``0 .. max`` occurs in a 1-D tensor of non-negative integers
    (the summed ``weights`` of its occurrences, when given)."""
    if input.is_floating_point() or input.is_complex():
        raise NotImplementedError(
            f"\"bincount_cpu\" not implemented for '{input.dtype._scalar_name}'")
    values = _host(input)
    if values.ndim != 1 or values.dtype.kind not in "iu" or (values.size and values.min() < 0):
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    if weights is None:
        counts = np.bincount(values, minlength=minlength).astype(np.int64)
        return _ag.tensor(counts, device=input.device)
    weighted = np.bincount(values, weights=_host(weights).astype(np.float64),
                           minlength=minlength)
    dtype = weights.dtype if weights.dtype in (_ag.float32, _ag.float64) else _ag.float64
    return _ag.tensor(weighted, dtype=dtype, device=input.device)


def histc(input, bins=100, min=0, max=0):
    """A histogram of ``input``: counts in ``bins`` equal bins between ``min`` and ``max``
    (the data's own range when both are 0); values outside are left out."""
    if not input.is_floating_point():
        raise NotImplementedError(
            f"\"histogram_cpu\" not implemented for '{input.dtype._scalar_name}'")
    if bins <= 0:
        raise RuntimeError(f"torch.histogram(): bins must be > 0, but got {bins} for "
                           f"dimension 0")
    values = _host(input).astype(np.float64).reshape(-1)
    low, high = float(min), float(max)
    if low == high and values.size:
        low, high = float(values.min()), float(values.max())
    if low == high:
        low, high = low - 1, high + 1
    counts, _ = np.histogram(values, bins=bins, range=(low, high))
    return _ag.tensor(counts, dtype=input.dtype, device=input.device)


def _edges(input, values, bins, range):
    """The bin edges, in float64, of ``histogram``'s ``bins`` and ``range``."""
    if isinstance(bins, Tensor):
        if bins.dim() != 1:
            raise RuntimeError(f"torch.histogramdd: bins tensor should have one dimension, "
                               f"but got {bins.dim()} dimensions in the bins tensor for "
                               f"dimension 0")
        return _host(bins).astype(np.float64)
    if bins <= 0:
        raise RuntimeError(f"torch.histogram(): bins must be > 0, but got {bins} for "
                           f"dimension 0")
    if range is not None:
        low, high = float(range[0]), float(range[1])
    elif values.size:
        low, high = float(values.min()), float(values.max())
    else:
        low, high = 0.0, 1.0
    if low > high:
        raise RuntimeError(f"torch.histogramdd: min should not exceed max, but got min {low:g} "
                           f"max {high:g} for dimension 0")
    if not (np.isfinite(low) and np.isfinite(high)):
        raise RuntimeError(f"torch.histogramdd: dimension 0's range [{low:g}, {high:g}] is "
                           f"not finite")
    if low == high:
        low, high = low - 0.5, high + 0.5
    # torch's edges: linspace in the input's dtype
    return np.linspace(low, high, bins + 1).astype(input.dtype.numpy).astype(np.float64)


def histogram(input, bins, *, range=None, weight=None, density=False):
    """``(hist, bin_edges)``: how many of ``input``'s values (how much of their
    ``weight``) fall in each bin; ``bins`` is a count of equal bins or the edges."""
    if not input.is_floating_point():
        raise NotImplementedError(
            f"\"histogramdd\" not implemented for '{input.dtype._scalar_name}'")
    if isinstance(bins, Tensor) and range is not None:
        raise TypeError("histogram() received an invalid combination of arguments: a range "
                        "goes with a number of bins, not with a tensor of bin edges")
    if isinstance(bins, Tensor) and bins.dtype != input.dtype:
        raise RuntimeError(
            "torch.histogramdd: input tensor and bins tensors should have the same dtype, but "
            f"got input with dtype {_c10_name(input.dtype)} and bins for dimension 0 with "
            f"dtype {_c10_name(bins.dtype)}")
    if weight is not None and weight.dtype != input.dtype:
        raise RuntimeError(
            "torch.histogramdd: if weight tensor is provided, input tensor and weight tensor "
            f"should have the same dtype, but got input({_c10_name(input.dtype)}), and "
            f"weight({_c10_name(weight.dtype)})")
    if weight is not None and tuple(weight.shape) != tuple(input.shape):
        raise RuntimeError(
            "torch.histogramdd: if weight tensor is provided it should have the same shape as "
            "the input tensor excluding its innermost dimension, but got input with shape "
            f"[{input.numel()}, 1] and weight with shape {list(weight.shape)}")
    from autograd_cy.func.fallback import fallback, has_batched
    if has_batched((input, bins), {"weight": weight}):     # once per example, as torch's
        return fallback("histogram", histogram, (input, bins),
                        {"range": range, "weight": weight, "density": density})
    values = _host(input).astype(np.float64).reshape(-1)
    edges = _edges(input, values, bins, range)
    count = max(len(edges) - 1, 0)
    position = np.searchsorted(edges, values, side="right") - 1
    position[values == edges[-1]] = count - 1       # the last bin holds its right edge
    inside = (position >= 0) & (position < count) & (values >= edges[0]) & (
        values <= edges[-1])
    weights = None if weight is None else _host(weight).astype(np.float64).reshape(-1)[inside]
    hist = np.bincount(position[inside], weights=weights, minlength=count)[:count]
    if density:
        total = hist.sum()
        hist = hist / (total * np.diff(edges))
    kind = input.dtype
    return histogram_result(_ag.tensor(hist, dtype=kind, device=input.device),
                            _ag.tensor(edges, dtype=kind, device=input.device))




def _dd_edges(input, columns, bins, range):
    """Per dim of a ``histogramdd``, its edges as float64 arrays, from counts of equal bins
    over ``range`` (or the dim's min and max) in the input's dtype, or from given tensors."""
    dims = columns.shape[1]
    if isinstance(bins, int):
        bins = [bins] * dims
    if len(bins) != dims:
        if bins and isinstance(bins[0], Tensor):
            raise RuntimeError(f"torch.histogramdd: expected {dims} sequences of bin edges "
                               f"for a {dims}-dimensional histogram but got {len(bins)}")
        raise RuntimeError("histogramdd: The size of bins must be equal to the innermost "
                           "dimension of the input.")
    if all(isinstance(b, Tensor) for b in bins):
        edges = []
        for dim, b in enumerate(bins):
            if b.dim() != 1:
                raise RuntimeError(f"torch.histogramdd: bins tensor should have one dimension, "
                                   f"but got {b.dim()} dimensions in the bins tensor for "
                                   f"dimension {dim}")
            if b.dtype != input.dtype:
                raise RuntimeError(
                    f"torch.histogramdd: input tensor and bins tensors should have the same "
                    f"dtype, but got input with dtype {_c10_name(input.dtype)} and bins for "
                    f"dimension {dim} with dtype {_c10_name(b.dtype)}")
            if b.numel() < 2:
                raise RuntimeError(f"torch.histogram(): bins must be > 0, but got "
                                   f"{b.numel() - 1} for dimension {dim}")
            edges.append(_host(b).astype(np.float64))
        return edges, tuple(bins)
    if range is not None and len(range) != 2 * dims:
        raise RuntimeError(f"torch.histogramdd: for a {dims}-dimensional histogram range should "
                           f"have {2 * dims} elements, but got {len(range)}")
    edges = []
    for dim, count in enumerate(bins):
        if count <= 0:
            raise RuntimeError(f"torch.histogram(): bins must be > 0, but got {count} for "
                               f"dimension {dim}")
        if range is not None:
            low, high = float(range[2 * dim]), float(range[2 * dim + 1])
        elif columns.shape[0]:
            low, high = float(columns[:, dim].min()), float(columns[:, dim].max())
        else:
            low, high = 0.0, 1.0
        if low > high:
            raise RuntimeError(f"torch.histogramdd: min should not exceed max, but got min "
                               f"{low:g} max {high:g} for dimension {dim}")
        if not (np.isfinite(low) and np.isfinite(high)):
            raise RuntimeError(f"torch.histogramdd: dimension {dim}'s range [{low:g}, "
                               f"{high:g}] is not finite")
        if low == high:
            low, high = low - 0.5, high + 0.5
        edges.append(np.linspace(low, high, count + 1).astype(input.dtype.numpy).astype(
            np.float64))
    kind = input.dtype
    return edges, tuple(_ag.tensor(e, dtype=kind, device=input.device) for e in edges)


def histogramdd(input, bins, *, range=None, weight=None, density=False):
    """``(hist, bin_edges)``: the D-dimensional histogram of the points in the rows of
    ``input`` (its last dim is D): how many (how much ``weight``) fall in each cell. ``bins``
    is a count of equal bins for every dim, a count per dim, or a 1-D tensor of edges per
    dim; ``range`` (min, max of each dim, flat) goes with counts. A point outside the edges,
    or NaN, is left out; the last bin of a dim holds its right edge."""
    if not input.is_floating_point():
        raise NotImplementedError(
            f"\"histogramdd\" not implemented for '{input.dtype._scalar_name}'")
    if input.dim() < 2:
        raise RuntimeError("torch.histogramdd: input tensor should have at least 2 dimensions")
    if weight is not None and weight.dtype != input.dtype:
        raise RuntimeError(
            "torch.histogramdd: if weight tensor is provided, input tensor and weight tensor "
            f"should have the same dtype, but got input({_c10_name(input.dtype)}), and "
            f"weight({_c10_name(weight.dtype)})")
    if weight is not None and tuple(weight.shape) != tuple(input.shape[:-1]):
        raise RuntimeError(
            "torch.histogramdd: if weight tensor is provided it should have the same shape as "
            "the input tensor excluding its innermost dimension, but got input with shape "
            f"{list(input.shape)} and weight with shape {list(weight.shape)}")
    dims = input.shape[-1]
    columns = _host(input).astype(np.float64).reshape(-1, dims)
    edges, bin_edges = _dd_edges(input, columns, bins, range)
    counts = [len(e) - 1 for e in edges]
    inside = np.ones(columns.shape[0], dtype=bool)
    cells = np.zeros(columns.shape[0], dtype=np.int64)
    for dim, e in enumerate(edges):
        values = columns[:, dim]
        inside &= (values >= e[0]) & (values <= e[-1])
        position = np.searchsorted(e, values, side="right") - 1
        position[position == counts[dim]] -= 1      # the last bin holds its right edge
        cells = cells * counts[dim] + np.clip(position, 0, max(counts[dim] - 1, 0))
    weights = None if weight is None else _host(weight).astype(np.float64).reshape(-1)[inside]
    total = int(np.prod(counts))
    hist = np.bincount(cells[inside], weights=weights, minlength=total)[:total]
    hist = hist.astype(input.dtype.numpy).reshape(counts)
    if density:
        with np.errstate(divide="ignore", invalid="ignore"):
            hist = hist / hist.sum(dtype=hist.dtype)
            for dim, e in enumerate(edges):
                shape = [1] * dims
                shape[dim] = counts[dim]
                hist = hist / np.diff(e.astype(hist.dtype)).reshape(shape)
    return histogramdd_result(_ag.tensor(hist, dtype=input.dtype, device=input.device),
                              bin_edges)


_register_methods({"bincount": bincount, "histc": histc, "histogram": histogram})
