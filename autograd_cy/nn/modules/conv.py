"""``Conv1d``, ``Conv2d`` and ``Conv3d``: learned filters slid over the input (``F.conv1d``/
``F.conv2d``/``F.conv3d``),
and ``ConvTranspose1d/2d/3d``, their adjoints (``F.conv_transpose1d/2d/3d``),
with torch's parameter shapes, initialisation, padding modes and repr."""
from autograd_cy import factories
from autograd_cy._C.tensor import Size
from autograd_cy.nn import functional as F
from autograd_cy.nn.modules.linear import reset_weight_and_bias
from autograd_cy.nn.modules.module import Module
from autograd_cy.nn.tuples import _ntuple, _pair, _single
from autograd_cy.nn.parameter import Parameter

__all__ = ["Conv1d", "Conv2d", "Conv3d", "ConvTranspose1d", "ConvTranspose2d",
           "ConvTranspose3d"]

_PADDING_MODES = {"zeros", "reflect", "replicate", "circular"}


class _ConvNd(Module):
    """What Conv1d and Conv2d share: the checks, the parameters, the repr."""

    _dims = 0
    _as_tuple = None
    _transposed = False          # a transposed layer's weight is (C_in, C_out / groups, *k)

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                 dilation=1, groups=1, bias=True, padding_mode="zeros", device=None,
                 dtype=None):
        super().__init__()
        as_tuple = type(self)._as_tuple
        if groups <= 0:
            raise ValueError("groups must be a positive integer")
        if in_channels % groups != 0:
            raise ValueError("in_channels must be divisible by groups")
        if out_channels % groups != 0:
            raise ValueError("out_channels must be divisible by groups")
        if isinstance(padding, str):
            if padding not in ("valid", "same"):
                raise ValueError(f"Invalid padding string {padding!r}, should be one of "
                                 "{'valid', 'same'}")
            if padding == "same" and any(s != 1 for s in as_tuple(stride)):
                raise ValueError("padding='same' is not supported for strided convolutions")
        if padding_mode not in _PADDING_MODES:
            raise ValueError(f"padding_mode must be one of {sorted(_PADDING_MODES)!r}, "
                             f"but got padding_mode='{padding_mode}'")
        self.in_channels = in_channels
        self.out_channels = out_channels
        self.kernel_size = as_tuple(kernel_size)
        self.stride = as_tuple(stride)
        self.padding = padding if isinstance(padding, str) else as_tuple(padding)
        self.dilation = as_tuple(dilation)
        self.transposed = type(self)._transposed
        self.output_padding = as_tuple(0)
        self.groups = groups
        self.padding_mode = padding_mode
        self._reversed_padding_repeated_twice = self._padding_for_pad()
        channels = (in_channels, out_channels // groups) if self.transposed else \
            (out_channels, in_channels // groups)
        self.weight = Parameter(factories.empty((*channels, *self.kernel_size), device=device,
                                                dtype=dtype))
        if bias:
            self.bias = Parameter(factories.empty(out_channels, device=device, dtype=dtype))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def _padding_for_pad(self):
        """The padding as ``F.pad`` takes it (last dim first, both sides), for the padding
        modes other than zeros; ``'same'`` splits an odd total with the extra on the right."""
        if self.padding == "valid":
            return [0, 0] * self._dims
        result = []
        for index in reversed(range(self._dims)):
            if self.padding == "same":
                total = self.dilation[index] * (self.kernel_size[index] - 1)
                result += [total // 2, total - total // 2]
            else:
                result += [self.padding[index]] * 2
        return result

    def reset_parameters(self):
        reset_weight_and_bias(self.weight, self.bias)

    def _conv_forward(self, input, weight, bias, convolve):
        if self.padding_mode != "zeros":
            padded = F.pad(input, self._reversed_padding_repeated_twice, mode=self.padding_mode)
            return convolve(padded, weight, bias, self.stride, type(self)._as_tuple(0),
                            self.dilation, self.groups)
        return convolve(input, weight, bias, self.stride, self.padding, self.dilation,
                        self.groups)

    def extra_repr(self):
        text = (f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, "
                f"stride={self.stride}")
        if self.padding != (0,) * len(self.kernel_size):
            text += f", padding={self.padding}"
        if self.dilation != (1,) * len(self.dilation):
            text += f", dilation={self.dilation}"
        if self.output_padding != (0,) * len(self.output_padding):
            text += f", output_padding={self.output_padding}"
        if self.groups != 1:
            text += f", groups={self.groups}"
        if self.bias is None:
            text += ", bias=False"
        if self.padding_mode != "zeros":
            text += f", padding_mode={self.padding_mode}"
        return text


class Conv1d(_ConvNd):
    """A 1-D convolution over ``(N, C_in, L)`` (or ``(C_in, L)``) inputs."""

    _dims = 1
    _as_tuple = staticmethod(_single)

    def forward(self, input):
        return self._conv_forward(input, self.weight, self.bias, F.conv1d)


class Conv2d(_ConvNd):
    """A 2-D convolution over ``(N, C_in, H, W)`` (or ``(C_in, H, W)``) inputs."""

    _dims = 2
    _as_tuple = staticmethod(_pair)

    def forward(self, input):
        return self._conv_forward(input, self.weight, self.bias, F.conv2d)


class Conv3d(_ConvNd):
    """A 3-D convolution over ``(N, C_in, D, H, W)`` (or ``(C_in, D, H, W)``) inputs."""

    _dims = 3
    _as_tuple = staticmethod(_ntuple(3))

    def forward(self, input):
        return self._conv_forward(input, self.weight, self.bias, F.conv3d)


class _ConvTransposeNd(_ConvNd):
    """What ConvTranspose1d and ConvTranspose2d share: torch's signature (``output_padding``
    before ``groups``, ``dilation`` after ``bias``), zero padding only, and the
    ``output_size`` argument of ``forward``."""

    _transposed = True

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                 output_padding=0, groups=1, bias=True, dilation=1, padding_mode="zeros",
                 device=None, dtype=None):
        if padding_mode != "zeros":
            raise ValueError(f'Only "zeros" padding mode is supported for '
                             f"{type(self).__name__}")
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation,
                         groups, bias, padding_mode, device, dtype)
        self.output_padding = type(self)._as_tuple(output_padding)

    def _output_padding(self, input, output_size):
        """The ``output_padding`` that makes the output ``output_size`` (its spatial dims,
        or all dims), which must lie within the ``stride`` sizes the settings allow."""
        if output_size is None:
            return self.output_padding
        dims = self._dims
        lead = 2 if input.dim() == dims + 2 else 1
        if len(output_size) == lead + dims:
            output_size = output_size[lead:]
        if len(output_size) != dims:
            raise ValueError(f"ConvTranspose{dims}D: for {input.dim()}D input, output_size "
                             f"must have {dims} or {lead + dims} elements (got "
                             f"{len(output_size)})")
        smallest = [(input.shape[lead + d] - 1) * self.stride[d] - 2 * self.padding[d]
                    + self.dilation[d] * (self.kernel_size[d] - 1) + 1 for d in range(dims)]
        largest = [small + self.stride[d] - 1 for d, small in enumerate(smallest)]
        spatial = Size(tuple(input.shape[lead:]))
        for size, small, large in zip(output_size, smallest, largest):
            if size < small or size > large:
                raise ValueError(
                    f"requested an output size of {output_size}, but valid sizes range "
                    f"from {smallest} to {largest} (for an input of {spatial})")
        return tuple(size - small for size, small in zip(output_size, smallest))

    def _transpose_forward(self, input, output_size, convolve):
        return convolve(input, self.weight, self.bias, self.stride, self.padding,
                        self._output_padding(input, output_size), self.groups, self.dilation)


class ConvTranspose1d(_ConvTransposeNd):
    """A 1-D transposed convolution over ``(N, C_in, L)`` (or ``(C_in, L)``) inputs."""

    _dims = 1
    _as_tuple = staticmethod(_single)

    def forward(self, input, output_size=None):
        return self._transpose_forward(input, output_size, F.conv_transpose1d)


class ConvTranspose2d(_ConvTransposeNd):
    """A 2-D transposed convolution over ``(N, C_in, H, W)`` (or ``(C_in, H, W)``) inputs."""

    _dims = 2
    _as_tuple = staticmethod(_pair)

    def forward(self, input, output_size=None):
        return self._transpose_forward(input, output_size, F.conv_transpose2d)


class ConvTranspose3d(_ConvTransposeNd):
    """A 3-D transposed convolution over ``(N, C_in, D, H, W)`` (or ``(C_in, D, H, W)``)
    inputs."""

    _dims = 3
    _as_tuple = staticmethod(_ntuple(3))

    def forward(self, input, output_size=None):
        return self._transpose_forward(input, output_size, F.conv_transpose3d)
