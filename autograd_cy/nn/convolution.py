"""``conv1d``, ``conv2d`` and ``conv3d``: one op (``ConvolutionBackward0``, as torch names its
node) over 2 or 3 spatial dims (a 1-D convolution is a 2-D one of height 1), its forward,
backward and tangent side by side, over Tensor ops so one code serves every device.

The forward is im2col and one matrix product per group: the zero-padded input's sliding
windows (a strided view, ``windows.sliding_windows``) copied once into columns
``(N, groups, C/groups * kernel's volume, output's volume)`` (``kh * kw`` and
``out_h * out_w`` in 2-D), multiplied by the weight as ``(groups, O/groups,
C/groups * kernel's volume)``. The backward is the same product transposed:
the weight's gradient is gradient times columns, the input's is the weight times the
gradient, folded back onto the image (``windows.fold_windows``, col2im) and unpadded.
Convolution is linear in input and in weight, so its tangent is two convolutions.

For complex tensors each gradient is the adjoint of a linear map, so the formulas take the
conjugate of the other operand (NOTE [Complex gradients] in pyx/ops/conjugate.pyx): the
weight's gradient is the gradient times the conjugated columns, the input's the conjugated
weight times the gradient. ``conj()`` of a real tensor is the tensor itself.
"""
import math

from autograd_cy._C.dtype import _c10_name
from autograd_cy import factories
from autograd_cy.autograd.function import Function
from autograd_cy.grad_mode import is_grad_enabled
from autograd_cy.memory_formats import channels_last
from autograd_cy.nn.padding import pad
from autograd_cy.nn.windows import fold_windows, sliding_windows

__all__ = ["conv1d", "conv2d", "conv3d"]


# The permutations of the windows' dims, per number of spatial dims: (N, C, *out, *kernel)
# to (N, C, *kernel, *out) for the columns, and the other way for the natural layout of the
# input's gradient; with the batch innermost, (C, *kernel, *out, N) to (N, C, *out, *kernel)
# and the image (C, *size, N) to (N, C, *size).
_KERNEL_FIRST = {2: (0, 1, 4, 5, 2, 3), 3: (0, 1, 5, 6, 7, 2, 3, 4)}
_BATCH_LAST_WINDOWS = {2: (5, 0, 3, 4, 1, 2), 3: (7, 0, 4, 5, 6, 1, 2, 3)}
_BATCH_LAST_IMAGE = {2: (3, 0, 1, 2), 3: (4, 0, 1, 2, 3)}


def _columns(padded, weight, stride, dilation, groups, out):
    """``(N, groups, C/groups * kh * kw, L)``: the windows of ``padded``, one column each
    (``kd * kh * kw`` rows per channel in 3-D)."""
    n, channels = padded.shape[0], padded.shape[1]
    kernel = tuple(weight.shape[2:])
    windows = sliding_windows(padded, kernel, stride, dilation, out)   # N C oh ow kh kw
    windows = windows.permute(_KERNEL_FIRST[len(kernel)])              # N C kh kw oh ow
    return windows.reshape(n, groups, channels // groups * math.prod(kernel), math.prod(out))


def _input_grad(grad_rows, weight, size, stride, dilation, out):
    """The padded input's gradient: the weight times the output's gradient, folded back
    onto the image (col2im). See NOTE [Folding with the batch innermost]."""
    n, groups, per_group, length = grad_rows.shape
    kernel = tuple(weight.shape[2:])
    dims = len(kernel)
    channels = weight.shape[1] * groups
    kernels = weight.reshape(groups, per_group, -1).transpose(-1, -2)   # G Cg*kh*kw Og
    if is_grad_enabled():           # double backward: every step records
        grad_windows = (kernels @ grad_rows).reshape(n, channels, *kernel, *out).permute(
            _KERNEL_FIRST[dims])    # the same swap of the two halves: N C oh ow kh kw
        return fold_windows(grad_windows, size, stride, dilation)
    batch_last = grad_rows.permute(1, 2, 3, 0).reshape(groups, per_group, length * n)
    grad_windows = (kernels @ batch_last).reshape(channels, *kernel, *out, n).permute(
        _BATCH_LAST_WINDOWS[dims])
    image = factories.zeros((channels, *size, n), dtype=grad_rows.dtype,
                            device=grad_rows.device).permute(_BATCH_LAST_IMAGE[dims])
    return fold_windows(grad_windows, size, stride, dilation, image)


# NOTE [Folding with the batch innermost]
# col2im adds kh * kw strided slices of the columns into the image. In the natural layout
# (N, C, kh, kw, oh, ow) each slice's innermost run is one output row (ow elements, 4 in a
# small CNN), and NumPy pays its per-run overhead N * C * oh times per slice: most of the
# backward. With the batch innermost, (C, kh, kw, oh, ow, N) for the columns and
# (C, H, W, N) for the image, the runs are N long. One product of the weight with the
# output's gradient, transposed to (G, O/G, oh * ow * N), makes the columns in that layout;
# both are then handed to fold_windows as (N, ...) views, whose additions NumPy iterates in
# memory order. The gradient comes back as a (N, C, H, W) view of the (C, H, W, N) image.
# A backward that records keeps the natural layout (its additions are ops on tensors).
# A 3-D convolution is the same with kd and od (D) ahead of kh and oh (H) throughout.


def _output_shape(input, weight, stride, padding, dilation):
    size, kernel = input.shape, weight.shape
    return tuple([(size[2 + d] + 2 * padding[d] - dilation[d] * (kernel[2 + d] - 1) - 1)
                  // stride[d] + 1 for d in range(len(size) - 2)])


_ALL = slice(None)


def _pad_sides(padding):
    """Zero padding of every spatial dim on both sides, as ``pad`` takes it."""
    return [amount for p in reversed(padding) for amount in (p, p)]


def _planes(*tensors):
    """3-D (1-D convolution) tensors as 4-D ones of height 1; others as they are."""
    return [t.unsqueeze(2) if t is not None and t.dim() == 3 else t for t in tensors]


def _channels_last(t):
    """Whether ``t`` is laid out channels-last and not also row-major (torch's
    suggest_memory_format): a 2-D convolution's output follows its input or weight."""
    return t.dim() == 4 and not t.is_contiguous() and t.is_contiguous(
        memory_format=channels_last)


class Convolution(Function):
    """A 2-D convolution of ``(N, C, H, W)`` inputs or a 3-D one of ``(N, C, D, H, W)``
    inputs; a 1-D one of ``(N, C, L)`` inputs runs as one of height 1 inside the op (one
    node, as torch's)."""

    builtin_op = True

    @staticmethod
    def forward(ctx, input, weight, bias, stride, padding, dilation, groups):
        ctx.save_for_backward(input, weight)
        ctx.save_for_forward(input, weight)
        one_dim = input.dim() == 3
        input, weight = _planes(input, weight)
        out = _output_shape(input, weight, stride, padding, dilation)
        padded = pad(input, _pad_sides(padding)) if any(padding) else input
        columns = _columns(padded, weight, stride, dilation, groups, out)
        kernels = weight.reshape(groups, weight.shape[0] // groups, -1)
        output = (kernels @ columns).reshape(input.shape[0], weight.shape[0], *out)
        if bias is not None:
            output += bias.reshape((1, -1) + (1,) * len(out))
        ctx.columns = columns                # reused by a backward that records nothing
        ctx.settings = (stride, padding, dilation, groups, out, bias is not None)
        if one_dim:
            return output.squeeze(2)
        if output.dim() == 4 and (_channels_last(ctx.saved_for_forward[0])
                                  or _channels_last(ctx.saved_for_forward[1])):
            return output.contiguous(memory_format=channels_last)    # as torch's CPU conv
        return output

    @staticmethod
    def backward(ctx, grad):
        one_dim = grad.dim() == 3
        input, weight, grad = _planes(*ctx.saved_tensors, grad)
        stride, padding, dilation, groups, out, has_bias = ctx.settings
        n = input.shape[0]
        grad_rows = grad.reshape(n, groups, weight.shape[0] // groups, math.prod(out))
        grad_input = grad_weight = grad_bias = None
        if ctx.needs_input_grad[1]:
            columns = ctx.columns
            if is_grad_enabled():            # double backward: columns that record
                padded = pad(input, _pad_sides(padding))
                columns = _columns(padded, weight, stride, dilation, groups, out)
            grad_weight = (grad_rows @ columns.conj().transpose(-1, -2)).sum(0).reshape(
                weight.shape)
        if ctx.needs_input_grad[0]:
            spatial = input.shape[2:]
            size = tuple([extent + 2 * p for extent, p in zip(spatial, padding)])
            grad_padded = _input_grad(grad_rows, weight.conj(), size, stride, dilation, out)
            grad_input = grad_padded[(_ALL, _ALL, *[
                slice(p, p + extent) for p, extent in zip(padding, spatial)])] \
                if any(padding) else grad_padded
        if has_bias and ctx.needs_input_grad[2]:
            grad_bias = grad.sum((0, *range(2, grad.dim())))
        if one_dim:
            grad_input, grad_weight = [None if g is None else g.squeeze(2)
                                       for g in (grad_input, grad_weight)]
        return grad_input, grad_weight, grad_bias, None, None, None, None

    @staticmethod
    def jvp(ctx, input_t, weight_t, bias_t, *settings):
        """Bilinear: d(conv(x, w) + b) = conv(dx, w) + conv(x, dw) + db."""
        input, weight = ctx.saved_tensors
        stride, padding, dilation, groups, out, has_bias = ctx.settings
        tangent = None
        if input_t is not None:
            tangent = Convolution.apply(input_t, weight, None, stride, padding, dilation,
                                        groups)
        if weight_t is not None:
            term = Convolution.apply(input, weight_t, None, stride, padding, dilation, groups)
            tangent = term if tangent is None else tangent + term
        if bias_t is not None:
            term = bias_t.reshape(1, -1, *[1] * (input.dim() - 2)).expand(
                input.shape[0], -1, *out[len(out) + 2 - input.dim():])
            tangent = term if tangent is None else tangent + term
        return tangent


Convolution._backward_cls.__name__ = "ConvolutionBackward0"


def _same_padding(weight, dilation, dims):
    """``padding='same'``: per dim the total ``dilation * (kernel - 1)``, as (left, right)."""
    totals = [dilation[d] * (weight.shape[2 + d] - 1) for d in range(dims)]
    return [(total // 2, total - total // 2) for total in totals]


def _expanded(name, value, dims, given_dims):
    """``stride``/``padding``/``dilation`` as ``dims`` ints (the weight's spatial dims): an
    int is first one per dim of the op (``given_dims``, as conv2d's signature reads it), a
    list of one repeats, and any other length must be ``dims`` (torch's check)."""
    values = list(value) if isinstance(value, (tuple, list)) else [value] * given_dims
    if len(values) == 1:
        return tuple(values * dims)
    if len(values) != dims:
        raise RuntimeError(f"expected {name} to be a single integer value or a list of "
                           f"{dims} values to match the convolution dimensions, but got "
                           f"{name}={values}")
    return tuple(values)


def _check_settings(stride, padding, dilation):
    """torch's checks of the settings, in its order."""
    if any(p < 0 for p in padding):
        raise RuntimeError("negative padding is not supported")
    if any(s <= 0 for s in stride):
        raise RuntimeError("non-positive stride is not supported")
    if any(d <= 0 for d in dilation):
        # (torch shows the values, those of the 2-D op, only when one is zero)
        shown = "" if any(d < 0 for d in dilation) else \
            f", but got {[1] * (2 - len(dilation)) + list(dilation)}"
        raise RuntimeError(f"dilation should be greater than zero{shown}")


def _check_shapes(input, weight, bias, groups):
    """torch's checks of the weight and bias against the (batched) input."""
    if bias is not None and bias.dtype != input.dtype:
        raise RuntimeError(f"Input type ({_c10_name(input.dtype)}) and bias type "
                           f"({_c10_name(bias.dtype)}) should be the same")
    if weight.dim() != input.dim():
        raise RuntimeError(f"Expected {weight.dim()}-dimensional input for "
                           f"{weight.dim()}-dimensional weight {list(weight.shape)}, but got "
                           f"{input.dim()}-dimensional input of size {list(input.shape)} "
                           "instead")
    if weight.shape[0] == 0:
        raise RuntimeError(f"Given groups={groups}, expected weight to be at least 1 at "
                           f"dimension 0, but got weight of size {list(weight.shape)} instead")
    if weight.shape[0] % groups:
        # (torch's message shows the size in double brackets)
        raise RuntimeError(f"Given groups={groups}, expected weight to be divisible by "
                           f"{groups} at dimension 0, but got weight of size "
                           f"[{list(weight.shape)}] instead")
    channels = input.shape[1]
    if channels != weight.shape[1] * groups:
        raise RuntimeError(
            f"Given groups={groups}, weight of size {list(weight.shape)}, expected "
            f"input{list(input.shape)} to have {weight.shape[1] * groups} channels, but "
            f"got {channels} channels instead")
    if bias is not None and (bias.dim() != 1 or bias.shape[0] != weight.shape[0]):
        raise RuntimeError(f"Given weight of size {list(weight.shape)}, expected bias to be "
                           f"1-dimensional with {weight.shape[0]} elements, but got bias of "
                           f"size {list(bias.shape)} instead")
    if weight.dtype != input.dtype:
        raise RuntimeError(f"expected scalar type {input.dtype._scalar_name} but found "
                           f"{weight.dtype._scalar_name}")


def _check_kernel_fits(input, weight, padding, dilation, dims):
    """The dilated kernel must fit in the padded input, per spatial dim."""
    size = [input.shape[-dims + d] + 2 * padding[d] for d in range(dims)]
    kernel = [dilation[d] * (weight.shape[-dims + d] - 1) + 1 for d in range(dims)]
    if any(k > s for k, s in zip(kernel, size)):
        raise RuntimeError(
            f"Calculated padded input size per channel: ({' x '.join(map(str, size))}). "
            f"Kernel size: ({' x '.join(map(str, kernel))}). Kernel size can't be "
            "greater than actual input size")


def _convolve(name, input, weight, bias, stride, padding, dilation, groups, dims):
    """The N-D convolution (dims 1, 2 or 3) through the op, after torch's checks in
    torch's order (input rank, settings, weight and bias, kernel size)."""
    if input.dim() not in (dims + 1, dims + 2):
        raise RuntimeError(f"Expected {dims + 1}D (unbatched) or {dims + 2}D (batched) input "
                           f"to {name}, but got input of size: {list(input.shape)}")
    if groups <= 0:
        raise RuntimeError("non-positive groups is not supported")
    spatial = weight.dim() - 2
    stride = _expanded("stride", stride, spatial, dims)
    dilation = _expanded("dilation", dilation, spatial, dims)
    same = None
    if isinstance(padding, str):
        if padding not in ("valid", "same"):
            raise RuntimeError(f"Invalid padding string: '{padding}'")
        if padding == "same" and any(s != 1 for s in stride):
            raise RuntimeError("padding='same' is not supported for strided convolutions")
        same, padding = padding, (0,) * spatial
    padding = _expanded("padding", padding, spatial, dims)
    _check_settings(stride, padding, dilation)
    unbatched = input.dim() == dims + 1
    if unbatched:
        input = input.unsqueeze(0)
    _check_shapes(input, weight, bias, groups)
    if same == "same":
        sides = _same_padding(weight, dilation, dims)
        if any(left != right for left, right in sides):      # odd total: pad the right
            flat = [amount for left, right in reversed(sides) for amount in (0, right - left)]
            input = pad(input, flat)
        padding = tuple(left for left, _ in sides)
    _check_kernel_fits(input, weight, padding, dilation, dims)
    if dims == 1:             # a 1-D convolution is a 2-D one of height 1
        stride, padding, dilation = (1, *stride), (0, *padding), (1, *dilation)
    output = Convolution.apply(input, weight, bias, stride, padding, dilation, groups)
    return output.squeeze(0) if unbatched else output


def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """2-D convolution of ``(N, C, H, W)`` (or ``(C, H, W)``) by ``(O, C/groups, kh, kw)``."""
    return _convolve("conv2d", input, weight, bias, stride, padding, dilation, groups, 2)


def conv3d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """3-D convolution of ``(N, C, D, H, W)`` (or ``(C, D, H, W)``) by
    ``(O, C/groups, kd, kh, kw)``."""
    return _convolve("conv3d", input, weight, bias, stride, padding, dilation, groups, 3)


def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """1-D convolution of ``(N, C, L)`` (or ``(C, L)``) by ``(O, C/groups, k)``."""
    return _convolve("conv1d", input, weight, bias, stride, padding, dilation, groups, 1)
