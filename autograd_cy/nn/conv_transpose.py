"""``conv_transpose1d``, ``conv_transpose2d`` and ``conv_transpose3d``: the adjoint of a
convolution, one op over 2 or 3 spatial dims
named as torch names it (``ConvolutionBackward0``: torch runs both through one
``convolution`` op with a ``transposed`` flag).

A transposed convolution is what a convolution's backward does to its output's gradient,
so its forward is that backward's input half (``convolution._input_grad``: the weight
times the input's pixels, folded back onto the larger image, col2im) and its backward
is a convolution forward: the input's gradient is the convolution of the output's gradient
by the same weight, and the weight's gradient is the convolution's weight gradient with
the roles of image and gradient swapped. The weight is ``(C_in, C_out / groups, kh, kw)``,
as torch's. Its backward is made of ops (``Convolution`` and products), so it records.
For complex tensors both gradients take the conjugate of the other operand, as the
convolution's (see ``nn/convolution.py``).

With an ``output_padding`` of at least the stride (allowed where it is below the dilation),
the convolution of the output's gradient is longer than the input by
``output_padding // stride`` rows or columns, which see only the padding: the input's
gradient is its first ``H x W`` (``D x H x W``).
"""
import math

from autograd_cy.autograd.function import Function
from autograd_cy.nn.convolution import (Convolution, _columns, _expanded, _input_grad,
                                        _pad_sides, _planes)
from autograd_cy.nn.padding import pad

__all__ = ["conv_transpose1d", "conv_transpose2d", "conv_transpose3d"]


def _transposed_output_shape(size, kernel, stride, padding, output_padding, dilation):
    """Per dim ``(size - 1) * stride - 2 * padding + dilation * (kernel - 1) +
    output_padding + 1``: the size of a convolution's input that gives ``size``."""
    return tuple((size[d] - 1) * stride[d] - 2 * padding[d] + dilation[d] * (kernel[d] - 1)
                 + output_padding[d] + 1 for d in range(len(size)))


class ConvTranspose(Function):
    """A 2-D transposed convolution of ``(N, C_in, H, W)`` or a 3-D one of
    ``(N, C_in, D, H, W)``; a 1-D one of ``(N, C_in, L)`` runs as one of height 1 inside
    the op."""

    builtin_op = True

    @staticmethod
    def forward(ctx, input, weight, bias, stride, padding, output_padding, dilation, groups):
        ctx.save_for_backward(input, weight)
        ctx.save_for_forward(input, weight)
        one_dim = input.dim() == 3
        input, weight = _planes(input, weight)
        n, channels, *size = input.shape
        kernel = tuple(weight.shape[2:])
        out = _transposed_output_shape(size, kernel, stride, padding, output_padding, dilation)
        rows = input.reshape(n, groups, channels // groups, math.prod(size))
        full = tuple(o + 2 * p for o, p in zip(out, padding))
        image = _input_grad(rows, weight, full, stride, dilation, tuple(size))
        output = image[(slice(None), slice(None),
                        *[slice(p, p + o) for p, o in zip(padding, out)])]
        output = output.contiguous()
        if bias is not None:
            output += bias.reshape(1, -1, *[1] * len(out))
        ctx.settings = (stride, padding, output_padding, dilation, groups, bias is not None)
        return output.squeeze(2) if one_dim else output

    @staticmethod
    def backward(ctx, grad):
        one_dim = grad.dim() == 3
        input, weight, grad = _planes(*ctx.saved_tensors, grad)
        stride, padding, output_padding, dilation, groups, has_bias = ctx.settings
        n, channels, *size = input.shape
        grad_input = grad_weight = grad_bias = None
        if ctx.needs_input_grad[0]:
            grad_input = Convolution.apply(grad, weight.conj(), None, stride, padding,
                                           dilation, groups)
            if tuple(grad_input.shape[2:]) != tuple(size):
                # an output_padding of a stride or more adds rows no input entry reaches
                grad_input = grad_input[(slice(None), slice(None),
                                         *[slice(0, extent) for extent in size])]
        if ctx.needs_input_grad[1]:
            padded = pad(grad, _pad_sides(padding)) if any(padding) else grad
            columns = _columns(padded, weight, stride, dilation, groups, tuple(size))
            rows = input.reshape(n, groups, channels // groups, math.prod(size))
            grad_weight = (rows.conj() @ columns.transpose(-1, -2)).sum(0).reshape(
                weight.shape)
        if has_bias and ctx.needs_input_grad[2]:
            grad_bias = grad.sum((0, *range(2, grad.dim())))
        if one_dim:
            grad_input, grad_weight = [None if g is None else g.squeeze(2)
                                       for g in (grad_input, grad_weight)]
        return grad_input, grad_weight, grad_bias, None, None, None, None, None

    @staticmethod
    def jvp(ctx, input_t, weight_t, bias_t, *settings):
        """Bilinear: d(convT(x, w) + b) = convT(dx, w) + convT(x, dw) + db."""
        input, weight = ctx.saved_tensors
        options = ctx.settings[:5]
        tangent = None
        if input_t is not None:
            tangent = ConvTranspose.apply(input_t, weight, None, *options)
        if weight_t is not None:
            term = ConvTranspose.apply(input, weight_t, None, *options)
            tangent = term if tangent is None else tangent + term
        if bias_t is not None:
            stride, padding, output_padding, dilation, groups = options
            planes, kernels = _planes(input, weight)
            out = _transposed_output_shape(tuple(planes.shape[2:]), tuple(kernels.shape[2:]),
                                           stride, padding, output_padding, dilation)
            shape = (input.shape[0], weight.shape[1] * groups,
                     *out[len(out) + 2 - input.dim():])
            term = bias_t.reshape(1, -1, *[1] * (input.dim() - 2)).expand(shape)
            tangent = term if tangent is None else tangent + term
        return tangent


ConvTranspose._backward_cls.__name__ = "ConvolutionBackward0"


def _check_shapes(input, weight, bias, groups):
    """torch's checks of a transposed convolution's weight and bias, in its order."""
    if weight.dim() != input.dim():
        raise RuntimeError(f"Expected {weight.dim()}-dimensional input for "
                           f"{weight.dim()}-dimensional weight {list(weight.shape)}, but got "
                           f"{input.dim()}-dimensional input of size {list(input.shape)} "
                           "instead")
    if weight.shape[0] % groups:
        raise RuntimeError(f"Given groups={groups}, expected weight to be divisible by "
                           f"{groups} at dimension 0, but got weight of size "
                           f"[{list(weight.shape)}] instead")
    if input.shape[1] != weight.shape[0]:
        raise RuntimeError(f"Given transposed=1, weight of size {list(weight.shape)}, "
                           f"expected input{list(input.shape)} to have {weight.shape[0]} "
                           f"channels, but got {input.shape[1]} channels instead")
    out_channels = weight.shape[1] * groups
    if bias is not None and (bias.dim() != 1 or bias.shape[0] != out_channels):
        raise RuntimeError(f"Given transposed=1, weight of size {list(weight.shape)}, "
                           f"expected bias to be 1-dimensional with {out_channels} elements, "
                           f"but got bias of size {list(bias.shape)} instead")
    if weight.dtype != input.dtype:
        raise RuntimeError(f"expected scalar type {input.dtype._scalar_name} but found "
                           f"{weight.dtype._scalar_name}")


_DIM_NAMES = ("depth", "height", "width")


def _transpose_convolve(name, input, weight, bias, stride, padding, output_padding, groups,
                        dilation, dims):
    """The N-D transposed convolution (dims 1, 2 or 3) through the op, after torch's
    checks."""
    if input.dim() not in (dims + 1, dims + 2):
        raise RuntimeError(f"Expected {dims + 1}D (unbatched) or {dims + 2}D (batched) input "
                           f"to {name}, but got input of size: {list(input.shape)}")
    for what, value in (("stride", stride), ("padding", padding),
                        ("output_padding", output_padding), ("dilation", dilation)):
        if isinstance(value, str):          # no 'same' or 'valid' here
            raise TypeError(f"{name}(): argument '{what}' must be tuple of ints, not str")
    if groups <= 0:
        raise RuntimeError("non-positive groups is not supported")
    spatial = weight.dim() - 2
    stride = _expanded("stride", stride, spatial, dims)
    padding = _expanded("padding", padding, spatial, dims)
    output_padding = _expanded("output_padding", output_padding, spatial, dims)
    dilation = _expanded("dilation", dilation, spatial, dims)
    if any(p < 0 for p in padding):
        raise RuntimeError("negative padding is not supported")
    if any(p < 0 for p in output_padding):
        raise RuntimeError("negative output_padding is not supported")
    if any(s <= 0 for s in stride):
        raise RuntimeError("non-positive stride is not supported")
    if any(d <= 0 for d in dilation):
        raise RuntimeError("dilation should be greater than zero" + (
            "" if dims < 3 else ", but got " + ", ".join(
                f"dilation_{dim}: {d}" for dim, d in zip(_DIM_NAMES, dilation))))
    unbatched = input.dim() == dims + 1
    if unbatched:
        input = input.unsqueeze(0)
    _check_shapes(input, weight, bias, groups)
    if dims == 3 and any(op >= s and op >= d
                         for op, s, d in zip(output_padding, stride, dilation)):
        raise RuntimeError(
            "output padding must be smaller than either stride or dilation, but got " + " ".join(
                f"{what}_{dim}: {v}" for what, values in (("output_padding", output_padding),
                                                          ("stride", stride),
                                                          ("dilation", dilation))
                for dim, v in zip(_DIM_NAMES, values)))
    if any(op >= s and op >= d for op, s, d in zip(output_padding, stride, dilation)):
        # (torch words it for the 2-D op: a 1-D one's height has 0, 1 and 1)
        lead = 2 - dims
        op2, s2, d2 = ((0,) * lead + output_padding, (1,) * lead + stride,
                       (1,) * lead + dilation)
        raise RuntimeError(
            "output padding must be smaller than either stride or dilation, but got "
            f"output_padding_height: {op2[0]} output_padding_width: {op2[1]} "
            f"stride_height: {s2[0]} stride_width: {s2[1]} dilation_height: {d2[0]} "
            f"dilation_width: {d2[1]}")
    size = tuple(input.shape[2:])
    out = _transposed_output_shape(size, tuple(weight.shape[2:]), stride, padding,
                                   output_padding, dilation)
    if min(out) < 1:
        raise RuntimeError(f"Given input size per channel: ({' x '.join(map(str, size))}). "
                           f"Calculated output size per channel: "
                           f"({' x '.join(map(str, out))}). Output size is too small")
    if dims == 1:             # a 1-D transposed convolution is a 2-D one of height 1
        stride, padding, output_padding, dilation = ((1, *stride), (0, *padding),
                                                     (0, *output_padding), (1, *dilation))
    output = ConvTranspose.apply(input, weight, bias, stride, padding, output_padding,
                                 dilation, groups)
    return output.squeeze(0) if unbatched else output


def conv_transpose2d(input, weight, bias=None, stride=1, padding=0, output_padding=0,
                     groups=1, dilation=1):
    """2-D transposed convolution of ``(N, C_in, H, W)`` (or ``(C_in, H, W)``) by
    ``(C_in, C_out / groups, kh, kw)``: the gradient of ``conv2d`` with respect to its
    input, used to upsample (a "deconvolution")."""
    return _transpose_convolve("conv_transpose2d", input, weight, bias, stride, padding,
                               output_padding, groups, dilation, 2)


def conv_transpose3d(input, weight, bias=None, stride=1, padding=0, output_padding=0,
                     groups=1, dilation=1):
    """3-D transposed convolution of ``(N, C_in, D, H, W)`` (or ``(C_in, D, H, W)``) by
    ``(C_in, C_out / groups, kd, kh, kw)``: the gradient of ``conv3d`` with respect to its
    input."""
    return _transpose_convolve("conv_transpose3d", input, weight, bias, stride, padding,
                               output_padding, groups, dilation, 3)


def conv_transpose1d(input, weight, bias=None, stride=1, padding=0, output_padding=0,
                     groups=1, dilation=1):
    """1-D transposed convolution of ``(N, C_in, L)`` (or ``(C_in, L)``) by
    ``(C_in, C_out / groups, k)``."""
    return _transpose_convolve("conv_transpose1d", input, weight, bias, stride, padding,
                               output_padding, groups, dilation, 1)

