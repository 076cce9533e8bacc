"""``LayerNorm`` and ``GroupNorm``: normalise each example over its last dims (or over groups
of channels), then scale and shift by learned per-element parameters."""
import numbers

from autograd_cy import factories
from autograd_cy.nn import functional as F
from autograd_cy.nn import init
from autograd_cy.nn.modules.module import Module
from autograd_cy.nn.parameter import Parameter

__all__ = ["LayerNorm", "GroupNorm"]


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
        if elementwise_affine:
            self.weight = Parameter(factories.empty(self.normalized_shape, device=device,
                                                    dtype=dtype))
            if bias:
                self.bias = Parameter(factories.empty(self.normalized_shape, device=device,
                                                      dtype=dtype))
            else:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self):
        if self.elementwise_affine:
            init.ones_(self.weight)
            if self.bias is not None:
                init.zeros_(self.bias)

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
        if affine:
            self.weight = Parameter(factories.empty(num_channels, device=device, dtype=dtype))
            if bias:
                self.bias = Parameter(factories.empty(num_channels, device=device,
                                                      dtype=dtype))
            else:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self):
        if self.affine:
            init.ones_(self.weight)
            if self.bias is not None:
                init.zeros_(self.bias)

    def forward(self, input):
        return F.group_norm(input, self.num_groups, self.weight, self.bias, self.eps)

    def extra_repr(self):
        return (f"{self.num_groups}, {self.num_channels}, eps={self.eps}, "
                f"affine={self.affine}, bias={self.bias is not None}")
