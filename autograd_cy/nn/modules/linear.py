"""``Linear`` (``y = x W^T + b``), ``Bilinear`` (``y = x1^T A x2 + b``), ``Identity``, and
the shape modules ``Flatten`` and ``Unflatten``."""
import math

from autograd_cy import factories
from autograd_cy.nn import functional as F
from autograd_cy.nn import init
from autograd_cy.nn.modules.module import Module
from autograd_cy.nn.parameter import Parameter

__all__ = ["Identity", "Linear", "Bilinear", "Flatten", "Unflatten"]


def reset_weight_and_bias(weight, bias):
    """torch's initialisation of Linear and Conv: the weight from kaiming_uniform_ with
    ``a = sqrt(5)`` (uniform on +-1/sqrt(fan_in)), the bias uniform on the same bound."""
    init.kaiming_uniform_(weight, a=math.sqrt(5))
    if bias is not None:
        fan_in, _ = init._calculate_fan_in_and_fan_out(weight)
        bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
        init.uniform_(bias, -bound, bound)


class Identity(Module):
    """Returns its input; takes (and ignores) any arguments, as torch's."""

    def __init__(self, *args, **kwargs):
        super().__init__()

    def forward(self, input):
        return input


class Linear(Module):
    """``y = x W^T + b`` with ``W`` of shape ``(out_features, in_features)``.

    Initialised as torch's: ``W`` from kaiming_uniform_ with ``a = sqrt(5)`` (uniform in
    ``+-1/sqrt(in_features)``), ``b`` uniform in the same bound, drawn from the default
    generator in the same order, so a seeded model starts from torch's numbers.
    """

    def __init__(self, in_features, out_features, bias=True, device=None, dtype=None):
        super().__init__()
        self.in_features = in_features
        self.out_features = out_features
        self.weight = Parameter(factories.empty((out_features, in_features), device=device,
                                                dtype=dtype))
        if bias:
            self.bias = Parameter(factories.empty(out_features, device=device, dtype=dtype))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self):
        reset_weight_and_bias(self.weight, self.bias)

    def forward(self, input):
        return F.linear(input, self.weight, self.bias)

    def extra_repr(self):
        return (f"in_features={self.in_features}, out_features={self.out_features}, "
                f"bias={self.bias is not None}")


class Bilinear(Module):
    """``y[..., o] = x1 @ W[o] @ x2 + b[o]`` (``F.bilinear``) with ``W`` of shape
    ``(out_features, in1_features, in2_features)``.

    Initialised as torch's: ``W`` then ``b`` uniform on ``+-1/sqrt(in1_features)``.
    """

    def __init__(self, in1_features, in2_features, out_features, bias=True, device=None,
                 dtype=None):
        super().__init__()
        self.in1_features = in1_features
        self.in2_features = in2_features
        self.out_features = out_features
        self.weight = Parameter(factories.empty((out_features, in1_features, in2_features),
                                                device=device, dtype=dtype))
        if bias:
            self.bias = Parameter(factories.empty(out_features, device=device, dtype=dtype))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self):
        if self.in1_features <= 0:
            raise ValueError(f"in1_features must be > 0, but got (in1_features="
                             f"{self.in1_features})")
        bound = 1 / math.sqrt(self.weight.size(1))
        init.uniform_(self.weight, -bound, bound)
        if self.bias is not None:
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input1, input2):
        return F.bilinear(input1, input2, self.weight, self.bias)

    def extra_repr(self):
        return (f"in1_features={self.in1_features}, in2_features={self.in2_features}, "
                f"out_features={self.out_features}, bias={self.bias is not None}")


class Flatten(Module):
    """Flattens dims ``start_dim`` to ``end_dim`` into one (``Tensor.flatten``)."""

    def __init__(self, start_dim=1, end_dim=-1):
        super().__init__()
        self.start_dim = start_dim
        self.end_dim = end_dim

    def forward(self, input):
        return input.flatten(self.start_dim, self.end_dim)

    def extra_repr(self):
        return f"start_dim={self.start_dim}, end_dim={self.end_dim}"


class Unflatten(Module):
    """Splits dim ``dim`` into ``unflattened_size`` (``Tensor.unflatten``)."""

    def __init__(self, dim, unflattened_size):
        super().__init__()
        self.dim = dim
        self.unflattened_size = unflattened_size

    def forward(self, input):
        return input.unflatten(self.dim, self.unflattened_size)

    def extra_repr(self):
        return f"dim={self.dim}, unflattened_size={self.unflattened_size}"
