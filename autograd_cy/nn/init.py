"""``nn.init``: the initializers torch's layers use, in place and outside autograd.

They draw from the default generator (or ``generator=``) through ``Tensor.uniform_`` and
``normal_``, which give torch's numbers on the CPU (NOTE [torch's CPU random numbers] in
autograd_cy/cpu_random.py), and compute their bounds in Python floats as torch does, so a
layer built after ``manual_seed(s)`` starts from the same weights as torch's layer.
"""
import math
import warnings

import numpy as np

from autograd_cy._C.tensor import _array_of, _wrap_array
from autograd_cy.grad_mode import no_grad

__all__ = ["calculate_gain", "uniform_", "normal_", "trunc_normal_", "constant_", "ones_",
           "zeros_", "eye_", "dirac_", "xavier_uniform_", "xavier_normal_", "kaiming_uniform_",
           "kaiming_normal_", "orthogonal_", "sparse_",
           # the deprecated names without the underscore
           "uniform", "normal", "constant", "eye", "dirac", "xavier_uniform", "xavier_normal",
           "kaiming_uniform", "kaiming_normal", "orthogonal", "sparse"]

_LINEAR_FUNCTIONS = ("linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d",
                     "conv_transpose2d", "conv_transpose3d")


def calculate_gain(nonlinearity, param=None):
    """The factor that keeps activations' variance steady through ``nonlinearity``."""
    if nonlinearity in _LINEAR_FUNCTIONS or nonlinearity == "sigmoid":
        return 1
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        if param is None:
            slope = 0.01
        elif not isinstance(param, bool) and isinstance(param, (int, float)):
            slope = param
        else:
            raise ValueError(f"negative_slope {param} not a valid number")
        return math.sqrt(2.0 / (1 + slope ** 2))
    if nonlinearity == "selu":
        return 3.0 / 4
    raise ValueError(f"Unsupported nonlinearity {nonlinearity}")


def _calculate_fan_in_and_fan_out(tensor):
    """(fan_in, fan_out): dim 1 and dim 0 times the receptive field (the dims after 1)."""
    if tensor.dim() < 2:
        raise ValueError("Fan in and fan out can not be computed for tensor with fewer than 2 "
                         "dimensions")
    receptive_field = math.prod(tensor.shape[2:]) if tensor.dim() > 2 else 1
    return tensor.shape[1] * receptive_field, tensor.shape[0] * receptive_field


def _calculate_correct_fan(tensor, mode):
    mode = mode.lower()
    valid_modes = ["fan_in", "fan_out"]
    if mode not in valid_modes:
        raise ValueError(f"Mode {mode} not supported, please use one of {valid_modes}")
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return fan_in if mode == "fan_in" else fan_out


def _no_op_on_empty(tensor):
    if 0 in tuple(tensor.shape):
        warnings.warn("Initializing zero-element tensors is a no-op", stacklevel=3)
        return True
    return False


def uniform_(tensor, a=0.0, b=1.0, generator=None):
    """Fill with samples uniform on [a, b)."""
    if tensor.is_meta:          # NOTE [Meta tensors]: nothing to fill
        return tensor
    with no_grad():
        return tensor.uniform_(a, b, generator=generator)


def normal_(tensor, mean=0.0, std=1.0, generator=None):
    """Fill with samples of a normal distribution."""
    if tensor.is_meta:          # NOTE [Meta tensors]: nothing to fill
        return tensor
    with no_grad():
        return tensor.normal_(mean, std, generator=generator)


def trunc_normal_(tensor, mean=0.0, std=1.0, a=-2.0, b=2.0, generator=None):
    """Fill with a normal distribution truncated to [a, b], by rejection as torch draws it:
    when [a, b] holds more than 30% of the mass, normal samples redrawn where outside;
    otherwise uniform samples on [a, b], each kept with probability density / peak."""
    if tensor.is_meta:          # NOTE [Meta tensors]: nothing to fill
        return tensor
    def cdf(x):
        return (1.0 + math.erf(x / math.sqrt(2.0))) / 2.0
    if mean < a - 2 * std or mean > b + 2 * std:
        warnings.warn("mean is more than 2 std from [a, b] in nn.init.trunc_normal_. The "
                      "distribution of values may be incorrect.", stacklevel=2)
    from autograd_cy import empty_like, where
    with no_grad():
        if cdf((b - mean) / std) - cdf((a - mean) / std) > 0.3:
            low, high = tensor.new_tensor(a).item(), tensor.new_tensor(b).item()
            result = tensor.normal_(mean, std, generator=generator)
            while True:
                outside = (result < low) | (result > high)
                if not outside.any():
                    break
                result = where(outside, empty_like(result).normal_(mean, std,
                                                                   generator=generator), result)
            return tensor.copy_(result) if result is not tensor else tensor
        mode = max(a, min(mean, b))
        log_peak = -0.5 * ((mode - mean) / std) ** 2

        def log_density_over_peak(values):
            return values.sub(mean).div_(std).pow_(2).mul_(-0.5).sub_(log_peak)
        accept = empty_like(tensor)
        tensor.uniform_(a, b, generator=generator)
        pending = accept.uniform_(generator=generator).log_().gt(log_density_over_peak(tensor))
        result = tensor
        while pending.any():
            candidates = empty_like(tensor).uniform_(a, b, generator=generator)
            result = where(pending, candidates, result)
            pending = where(pending, accept.uniform_(generator=generator).log_().gt(
                log_density_over_peak(candidates)), pending)
        return tensor.copy_(result) if result is not tensor else tensor


def constant_(tensor, val):
    """Fill with ``val``."""
    if tensor.is_meta:          # NOTE [Meta tensors]: nothing to fill
        return tensor
    with no_grad():
        return tensor.fill_(val)


def ones_(tensor):
    return constant_(tensor, 1.0)


def zeros_(tensor):
    if tensor.is_meta:          # NOTE [Meta tensors]: nothing to fill
        return tensor
    with no_grad():
        return tensor.zero_()


def eye_(tensor):
    """The identity matrix (ones on the diagonal) in a 2-D tensor."""
    if tensor.is_meta:          # NOTE [Meta tensors]: nothing to fill
        return tensor
    if tensor.dim() != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    with no_grad():
        tensor.copy_(_wrap_array(np.eye(*tensor.shape, dtype=_array_of(tensor).dtype)))
    return tensor


def dirac_(tensor, groups=1):
    """The Dirac delta in a 3-, 4- or 5-D convolution weight: a 1 at the centre of each
    kernel whose output and input channels match (within each of ``groups``), so the
    convolution passes its input channels through unchanged."""
    if tensor.is_meta:          # NOTE [Meta tensors]: nothing to fill
        return tensor
    if tensor.dim() not in (3, 4, 5):
        raise ValueError("Only tensors with 3, 4, or 5 dimensions are supported")
    sizes = tuple(tensor.shape)
    if sizes[0] % groups != 0:
        raise ValueError("dim 0 must be divisible by groups")
    per_group = sizes[0] // groups
    channels = np.arange(min(per_group, sizes[1]))
    weight = np.zeros(sizes, _array_of(tensor).dtype)
    centre = tuple(size // 2 for size in sizes[2:])
    for group in range(groups):
        weight[(group * per_group + channels, channels) + centre] = 1
    with no_grad():
        tensor.copy_(_wrap_array(weight))
    return tensor


def xavier_uniform_(tensor, gain=1.0, generator=None):
    """Uniform on +-``gain * sqrt(6 / (fan_in + fan_out))`` (Glorot and Bengio)."""
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    bound = math.sqrt(3.0) * std            # torch's order of products: the same bound
    return uniform_(tensor, -bound, bound, generator)


def xavier_normal_(tensor, gain=1.0, generator=None):
    """Normal with std ``gain * sqrt(2 / (fan_in + fan_out))``."""
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return normal_(tensor, 0.0, gain * math.sqrt(2.0 / float(fan_in + fan_out)), generator)


def kaiming_uniform_(tensor, a=0, mode="fan_in", nonlinearity="leaky_relu", generator=None):
    """Uniform on +-``gain * sqrt(3 / fan)`` (He et al.); ``Linear`` and ``Conv`` use
    ``a = sqrt(5)``, which is uniform on +-``1 / sqrt(fan_in)``."""
    if _no_op_on_empty(tensor):
        return tensor
    fan = _calculate_correct_fan(tensor, mode)
    std = calculate_gain(nonlinearity, a) / math.sqrt(fan)
    bound = math.sqrt(3.0) * std
    return uniform_(tensor, -bound, bound, generator)


def kaiming_normal_(tensor, a=0, mode="fan_in", nonlinearity="leaky_relu", generator=None):
    """Normal with std ``gain / sqrt(fan)`` (He et al.)."""
    if _no_op_on_empty(tensor):
        return tensor
    fan = _calculate_correct_fan(tensor, mode)
    return normal_(tensor, 0.0, calculate_gain(nonlinearity, a) / math.sqrt(fan), generator)


def orthogonal_(tensor, gain=1, generator=None):
    """A (semi-)orthogonal matrix, from the QR decomposition of a normal one with the signs
    of R's diagonal taken into Q (as torch); dims after the first are flattened."""
    if tensor.is_meta:          # NOTE [Meta tensors]: nothing to fill
        return tensor
    if tensor.dim() < 2:
        raise ValueError("Only tensors with 2 or more dimensions are supported")
    if tensor.numel() == 0:
        return tensor
    rows = tensor.shape[0]
    cols = tensor.numel() // rows
    with no_grad():
        flat = tensor.new_empty((rows, cols)).normal_(0, 1, generator=generator)
        matrix = _array_of(flat.cpu()).astype(np.float64)
        if rows < cols:
            matrix = matrix.T
        q, r = np.linalg.qr(matrix)
        q = q * np.sign(np.diag(r))
        if rows < cols:
            q = q.T
        tensor.copy_(_wrap_array((q * gain).reshape(tuple(tensor.shape)).astype(
            _array_of(flat).dtype)))
    return tensor


def sparse_(tensor, sparsity, std=0.01, generator=None):
    """A sparse 2-D matrix (Martens, 2010): normal values of std ``std``, with
    ``ceil(sparsity * rows)`` of each column's rows zeroed. Like torch's, the values come
    from ``generator`` but the rows to zero from a ``randperm`` of the default one."""
    if tensor.is_meta:          # NOTE [Meta tensors]: nothing to fill
        return tensor
    if tensor.dim() != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    from autograd_cy import randperm
    rows, cols = tensor.shape
    num_zeros = math.ceil(sparsity * rows)
    with no_grad():
        tensor.normal_(0, std, generator=generator)
        for col in range(cols):
            tensor[randperm(rows)[:num_zeros], col] = 0
    return tensor


def _deprecated(initializer):
    """``initializer`` under its old name (without the trailing underscore), warning as
    torch does at each call."""
    new_name = initializer.__name__
    old_name = new_name[:-1]

    def deprecated_init(*args, **kwargs):
        warnings.warn(f"`nn.init.{old_name}` is now deprecated in favor of "
                      f"`nn.init.{new_name}`.", FutureWarning, stacklevel=2)
        return initializer(*args, **kwargs)

    deprecated_init.__name__ = old_name
    deprecated_init.__doc__ = f"Deprecated: use ``{new_name}``."
    return deprecated_init


uniform = _deprecated(uniform_)
normal = _deprecated(normal_)
constant = _deprecated(constant_)
eye = _deprecated(eye_)
dirac = _deprecated(dirac_)
xavier_uniform = _deprecated(xavier_uniform_)
xavier_normal = _deprecated(xavier_normal_)
kaiming_uniform = _deprecated(kaiming_uniform_)
kaiming_normal = _deprecated(kaiming_normal_)
orthogonal = _deprecated(orthogonal_)
sparse = _deprecated(sparse_)
