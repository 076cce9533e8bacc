"""``LayerNorm``, ``GroupNorm`` and ``RMSNorm``: normalise each example over its last dims
(or over groups of channels), then scale and shift by learned per-element parameters
(``RMSNorm`` only scales: it divides by the root mean square, without centering).
``LocalResponseNorm`` divides by the mean square of neighbouring channels, without
parameters."""
import numbers

from autograd_cy import factories
from autograd_cy.nn import functional as F
from autograd_cy.nn import init
from autograd_cy.nn.modules.module import Module
from autograd_cy.nn.parameter import Parameter

__all__ = ["LayerNorm", "GroupNorm", "RMSNorm", "LocalResponseNorm", "CrossMapLRN2d"]


def add_affine_parameters(module, shape, affine, bias, device, dtype):
    """A normalization layer's ``weight`` and ``bias`` of ``shape`` (or None where not
    ``affine`` or without ``bias``), uninitialised: ``reset_affine_parameters`` sets them."""
    def parameter():
        return Parameter(factories.empty(shape, device=device, dtype=dtype))
    module.register_parameter("weight", parameter() if affine else None)
    module.register_parameter("bias", parameter() if affine and bias else None)


def reset_affine_parameters(module):
    """Weight ones, bias zeros: a normalization layer starts as the plain normalization."""
    if module.weight is not None:
        init.ones_(module.weight)
    if module.bias is not None:
        init.zeros_(module.bias)


class LayerNorm(Module):
    """``(x - mean) / sqrt(var + eps) * weight + bias`` over the last
    ``len(normalized_shape)`` dims; weight starts at ones and bias at zeros."""

    def __init__(self, normalized_shape, eps=1e-5, elementwise_affine=True, bias=True,
                 device=None, dtype=None):
        super().__init__()
        if isinstance(normalized_shape, numbers.Integral):
            normalized_shape = (normalized_shape,)
        self.normalized_shape = tuple(normalized_shape)
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        add_affine_parameters(self, self.normalized_shape, elementwise_affine, bias, device,
                              dtype)
        self.reset_parameters()

    def reset_parameters(self):
        reset_affine_parameters(self)

    def forward(self, input):
        return F.layer_norm(input, self.normalized_shape, self.weight, self.bias, self.eps)

    def extra_repr(self):
        return (f"{self.normalized_shape}, eps={self.eps}, "
                f"elementwise_affine={self.elementwise_affine}, bias={self.bias is not None}")


class GroupNorm(Module):
    """Normalises each group of ``num_channels // num_groups`` channels of each example."""

    def __init__(self, num_groups, num_channels, eps=1e-5, affine=True, device=None,
                 dtype=None, *, bias=True):
        super().__init__()
        if num_channels % num_groups != 0:
            raise ValueError(f"num_channels ({num_channels}) must be divisible by num_groups "
                             f"({num_groups})")
        self.num_groups = num_groups
        self.num_channels = num_channels
        self.eps = eps
        self.affine = affine
        add_affine_parameters(self, (num_channels,), affine, bias, device, dtype)
        self.reset_parameters()

    def reset_parameters(self):
        reset_affine_parameters(self)

    def forward(self, input):
        return F.group_norm(input, self.num_groups, self.weight, self.bias, self.eps)

    def extra_repr(self):
        return (f"{self.num_groups}, {self.num_channels}, eps={self.eps}, "
                f"affine={self.affine}, bias={self.bias is not None}")


class RMSNorm(Module):
    """``x / sqrt(mean(x^2) + eps) * weight`` over the last ``len(normalized_shape)`` dims;
    ``eps=None`` is the dtype's machine epsilon; weight starts at ones."""

    def __init__(self, normalized_shape, eps=None, elementwise_affine=True, device=None,
                 dtype=None):
        super().__init__()
        if isinstance(normalized_shape, numbers.Integral):
            normalized_shape = (normalized_shape,)
        self.normalized_shape = tuple(normalized_shape)
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        add_affine_parameters(self, self.normalized_shape, elementwise_affine, False, device,
                              dtype)
        self.reset_parameters()

    def reset_parameters(self):
        reset_affine_parameters(self)

    def forward(self, x):
        return F.rms_norm(x, self.normalized_shape, self.weight, self.eps)

    def extra_repr(self):
        return (f"{self.normalized_shape}, eps={self.eps}, "
                f"elementwise_affine={self.elementwise_affine}")


class LocalResponseNorm(Module):
    """``F.local_response_norm`` over ``size`` neighbouring channels."""

    def __init__(self, size, alpha=1e-4, beta=0.75, k=1.0):
        super().__init__()
        self.size, self.alpha, self.beta, self.k = size, alpha, beta, k

    def forward(self, input):
        return F.local_response_norm(input, self.size, self.alpha, self.beta, self.k)

    def extra_repr(self):
        return "{size}, alpha={alpha}, beta={beta}, k={k}".format(**self.__dict__)


class CrossMapLRN2d(Module):
    """The legacy cross-channel LRN of ``(N, C, H, W)`` inputs, with torch's forward and
    backward (NOTE [CrossMapLRN2d's legacy windows])."""

    def __init__(self, size, alpha=1e-4, beta=0.75, k=1):
        super().__init__()
        self.size, self.alpha, self.beta, self.k = size, alpha, beta, k

    def forward(self, input):
        from autograd_cy.nn.cross_map_lrn import CrossMapLRN2d as cross_map_lrn2d
        return cross_map_lrn2d.apply(input, self.size, self.alpha, self.beta, self.k)

    def extra_repr(self):
        return "{size}, alpha={alpha}, beta={beta}, k={k}".format(**self.__dict__)
