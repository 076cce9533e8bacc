"""``max_unpool1d``, ``max_unpool2d`` and ``max_unpool3d``: the partial inverse of max
pooling. Each value is written back at the index max pooling returned for it (its flat
position in its input plane or volume), every other entry of the output is zero. One op
under torch's names (``MaxUnpool2DBackward0``, ``MaxUnpool3DBackward0``); the 1-D form is
the 2-D op on a width of one, as in torch.

The output's gradient is read back at the same indices (``index_select``), an op, so the
backward records; the op is linear, so the tangent is unpooled alike.
"""
import math

from autograd_cy import factories
from autograd_cy.autograd.function import Function
from autograd_cy.nn.tuples import _ntuple, _pair, _single

__all__ = ["max_unpool1d", "max_unpool2d", "max_unpool3d"]


def _flat(indices, planes, area):
    """The per-plane indices as indices into all ``planes`` flattened planes of ``area``."""
    starts = factories.arange(0, planes * area, area, device=indices.device)
    return (indices.reshape(planes, -1) + starts.reshape(-1, 1)).reshape(-1)


def _unpooled(values, flat, shape):
    """Zeros of ``shape`` with ``values`` written at the flat indices ``flat``."""
    count = 1
    for extent in shape:
        count *= extent
    output = factories.zeros((count,), dtype=values.dtype, device=values.device)
    return output.index_put((flat,), values.reshape(-1)).reshape(shape)


class MaxUnpool2d(Function):
    """Values of ``(N, C, h, w)`` or ``(C, h, w)`` (or of 3-D volumes) written into zeros
    ``(N, C, *size)`` (or ``(C, *size)``) at ``indices``."""

    builtin_op = True

    @staticmethod
    def forward(ctx, input, indices, size):
        lead = tuple(input.shape)[:input.dim() - len(size)]           # (N, C) or (C,)
        ctx.flat = _flat(indices, math.prod(lead), math.prod(size))
        ctx.input_shape, ctx.output_shape = tuple(input.shape), (*lead, *size)
        return _unpooled(input, ctx.flat, ctx.output_shape)

    @staticmethod
    def backward(ctx, grad):
        return grad.reshape(-1).index_select(0, ctx.flat).reshape(ctx.input_shape), None, None

    @staticmethod
    def jvp(ctx, input_t, indices_t, size_t):
        return _unpooled(input_t, ctx.flat, ctx.output_shape)


MaxUnpool2d._backward_cls.__name__ = "MaxUnpool2DBackward0"


class MaxUnpool3d(MaxUnpool2d):
    """``MaxUnpool2d`` into ``(N, C, D, H, W)``, under torch's 3-D node name."""

    builtin_op = True


MaxUnpool3d._backward_cls.__name__ = "MaxUnpool3DBackward0"


def _output_size(input, kernel, stride, padding, output_size):
    """torch's output size: ``(in - 1) * stride + kernel - 2 * padding`` per dim, or the
    given ``output_size`` (its spatial dims, or all dims) if within a stride of that."""
    dims = len(kernel)
    default = [(input.shape[input.dim() - dims + d] - 1) * stride[d] + kernel[d]
               - 2 * padding[d] for d in range(dims)]
    if output_size is None:
        size = default
    else:
        if len(output_size) == dims + 2:
            output_size = output_size[2:]
        if len(output_size) != dims:
            raise ValueError(f"output_size should be a sequence containing {dims} or "
                             f"{dims + 2} elements, but it has a length of "
                             f"'{len(output_size)}'")
        for d in range(dims):
            low, high = default[d] - stride[d], default[d] + stride[d]
            if not low < output_size[d] < high:
                raise ValueError(f'invalid output_size "{output_size}" (dim {d} must be '
                                 f"between {low} and {high})")
        size = output_size
    for d in range(dims):
        if size[d] < 0:
            raise ValueError("max_unpooling: output_size must contain non-negative spatial "
                             f"dimensions, but got output_size[{d}]={size[d]}")
    return list(size)


def _unpool(input, indices, size, stride=None):
    """The 2-D (or, with a ``stride``, 3-D) op after torch's checks of ranks, dtypes,
    shapes and index range."""
    dims = len(size)
    if indices.dtype._scalar_name != "Long":
        raise RuntimeError("elements in indices should be type int64" + (
            f" but got: {indices.dtype._scalar_name}" if dims == 2 else ""))
    if input.dim() not in (dims + 1, dims + 2):
        raise RuntimeError(f"Input to max_unpooling{dims}d should be a {dims + 1}d or "
                           f"{dims + 2}d Tensor, but got a tensor with {input.dim()} "
                           "dimensions.")
    if tuple(indices.shape) != tuple(input.shape):
        raise RuntimeError(f"Expected shape of indices to be same as that of the input tensor "
                           f"({list(input.shape)}) but got indices tensor with shape: "
                           f"{list(indices.shape)}")
    if stride is not None and min(stride) <= 0:
        raise RuntimeError(f"strides should be greater than zero, but got stride: "
                           f"{list(stride)}")
    area = math.prod(size)
    if indices.numel() and (int(indices.max()) >= area or int(indices.min()) < 0):
        bad = int(indices.max()) if int(indices.max()) >= area else int(indices.min())
        raise RuntimeError(f"Found an invalid max index: {bad} (output volumes are of size "
                           f"{'x'.join(map(str, size))})")
    op = MaxUnpool3d if dims == 3 else MaxUnpool2d
    return op.apply(input, indices, tuple(size))


def max_unpool2d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """``(N, C, h, w)`` values put back at their ``max_pool2d`` indices in zeros of the
    pooled input's size."""
    kernel = _pair(kernel_size)
    stride = kernel if stride is None else _pair(stride)
    size = _output_size(input, kernel, stride, _pair(padding), output_size)
    return _unpool(input, indices, size)


def max_unpool3d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """``(N, C, d, h, w)`` values put back at their ``max_pool3d`` indices in zeros of the
    pooled input's size."""
    triple = _ntuple(3)
    kernel = triple(kernel_size)
    stride = kernel if stride is None else triple(stride)
    size = _output_size(input, kernel, stride, triple(padding), output_size)
    return _unpool(input, indices, size, stride)


def max_unpool1d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """``(N, C, l)`` values put back at their ``max_pool1d`` indices: ``max_unpool2d`` on a
    width of one."""
    kernel = _single(kernel_size)
    stride = kernel if stride is None else _single(stride)
    size = _output_size(input, kernel, stride, _single(padding), output_size)
    return _unpool(input.unsqueeze(-1), indices.unsqueeze(-1), size + [1]).squeeze(-1)
