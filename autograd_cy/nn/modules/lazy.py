"""Lazy modules: layers whose input size is inferred from the first input they see.

``LazyModuleMixin`` holds the parameters and buffers as ``UninitializedParameter`` /
``UninitializedBuffer`` (NOTE [Uninitialized parameters]) until the first call: a forward
pre-hook then calls ``initialize_parameters(*args)``, which materialises them at the shapes
the input implies and initialises them as the non-lazy layer does (so a seeded lazy layer
starts from the numbers of the non-lazy one), and the instance becomes ``cls_to_become``
(``LazyLinear`` a ``Linear``...). Loading a state dict into a lazy module materialises its
parameters at the checkpoint's shapes first. As in torch, ``LazyInstanceNorm*`` take the
defaults of the lazy norms (``affine=True``, ``track_running_stats=True``) and read
``num_features`` from ``input.shape[1]``.
"""
import itertools

from autograd_cy import factories, int64
from autograd_cy._C.tensor import Tensor, _make_subclass
from autograd_cy.grad_mode import no_grad
from autograd_cy.nn.modules.batchnorm import BatchNorm1d, BatchNorm2d, BatchNorm3d
from autograd_cy.nn.modules.conv import (
    Conv1d, Conv2d, Conv3d, ConvTranspose1d, ConvTranspose2d, ConvTranspose3d,
)
from autograd_cy.nn.modules.instancenorm import InstanceNorm1d, InstanceNorm2d, InstanceNorm3d
from autograd_cy.nn.modules.linear import Linear
from autograd_cy.nn.parameter import (
    UninitializedBuffer, UninitializedParameter, _MaterializedBuffer, is_lazy,
)

__all__ = ["LazyLinear", "LazyConv1d", "LazyConv2d", "LazyConv3d", "LazyConvTranspose1d",
           "LazyConvTranspose2d", "LazyConvTranspose3d", "LazyBatchNorm1d", "LazyBatchNorm2d",
           "LazyBatchNorm3d", "LazyInstanceNorm1d", "LazyInstanceNorm2d",
           "LazyInstanceNorm3d"]


class LazyModuleMixin:
    """A module whose parameters are materialised by its first forward (or by loading a
    state dict), after which it becomes ``cls_to_become``."""

    cls_to_become = None

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._load_hook = self._register_load_state_dict_pre_hook(self._lazy_load_hook)
        self._initialize_hook = self.register_forward_pre_hook(self._infer_parameters,
                                                               with_kwargs=True)

    def _save_to_state_dict(self, destination, prefix, keep_vars):
        """An uninitialised entry goes in as itself (detaching would lose what it is)."""
        for name, param in self._parameters.items():
            if param is not None:
                destination[prefix + name] = param if is_lazy(param) or keep_vars \
                    else param.detach()
        for name, buffer in self._buffers.items():
            if buffer is not None and name not in self._non_persistent_buffers_set:
                destination[prefix + name] = buffer if is_lazy(buffer) or keep_vars \
                    else buffer.detach()

    def _lazy_load_hook(self, state_dict, prefix, local_metadata, strict, missing_keys,
                        unexpected_keys, error_msgs):
        """Materialise each uninitialised entry at the shape of its initialised counterpart
        in ``state_dict``; the load then copies the values in."""
        for name, param in itertools.chain(self._parameters.items(), self._buffers.items()):
            key = prefix + name
            if key in state_dict and param is not None and is_lazy(param):
                value = state_dict[key]
                if not is_lazy(value):
                    with no_grad():
                        param.materialize(value.shape)
        self._plain_buffers()

    def initialize_parameters(self, *args, **kwargs):
        """Materialise and initialise the parameters from the first input (each lazy
        layer says how)."""
        raise NotImplementedError(f"initialize_parameters is not implemented for "
                                  f"{type(self).__name__}")

    def has_uninitialized_params(self):
        """Whether any parameter or buffer is still uninitialised."""
        return any(is_lazy(t) for t in itertools.chain(self._parameters.values(),
                                                       self._buffers.values()))

    def _plain_buffers(self):
        """Materialised buffers as plain Tensors on the same memory (NOTE [Uninitialized
        parameters])."""
        for name, buffer in self._buffers.items():
            if type(buffer) is _MaterializedBuffer:
                self._buffers[name] = _make_subclass(Tensor, buffer, buffer.requires_grad)

    def _infer_parameters(self, module, args, kwargs=None):
        """The forward pre-hook: initialise from the arguments, then drop the hooks and
        become ``cls_to_become``."""
        module.initialize_parameters(*args, **(kwargs or {}))
        if module.has_uninitialized_params():
            raise RuntimeError(f"module {self._get_name()} has not been fully initialized")
        module._plain_buffers()
        module._initialize_hook.remove()
        module._load_hook.remove()
        delattr(module, "_initialize_hook")
        delattr(module, "_load_hook")
        if module.cls_to_become is not None:
            module.__class__ = module.cls_to_become

    def _replicate_for_data_parallel(self):
        raise RuntimeError("Modules with uninitialized parameters can't be used with "
                           "`DataParallel`. Run a dummy forward pass to correctly initialize "
                           "the modules")


class LazyLinear(LazyModuleMixin, Linear):
    """A ``Linear`` whose ``in_features`` is ``input.shape[-1]`` of the first input."""

    cls_to_become = Linear

    def __init__(self, out_features, bias=True, device=None, dtype=None):
        super().__init__(0, 0, False)        # no bias to be replaced at once
        self.weight = UninitializedParameter(device=device, dtype=dtype)
        self.out_features = out_features
        if bias:
            self.bias = UninitializedParameter(device=device, dtype=dtype)

    def reset_parameters(self):
        if not self.has_uninitialized_params() and self.in_features != 0:
            super().reset_parameters()

    def initialize_parameters(self, input):
        if self.has_uninitialized_params():
            with no_grad():
                self.in_features = input.shape[-1]
                self.weight.materialize((self.out_features, self.in_features))
                if self.bias is not None:
                    self.bias.materialize((self.out_features,))
                self.reset_parameters()


class _LazyConvXdMixin(LazyModuleMixin):
    """A convolution whose ``in_channels`` is the first input's channel dim."""

    def reset_parameters(self):
        if not self.has_uninitialized_params() and self.in_channels != 0:
            super().reset_parameters()

    def initialize_parameters(self, input, *args, **kwargs):
        if self.has_uninitialized_params():
            self.in_channels = self._get_in_channels(input)
            if self.in_channels % self.groups != 0:
                raise ValueError("in_channels must be divisible by groups")
            if self.transposed:
                shape = (self.in_channels, self.out_channels // self.groups)
            else:
                shape = (self.out_channels, self.in_channels // self.groups)
            self.weight.materialize((*shape, *self.kernel_size))
            if self.bias is not None:
                self.bias.materialize((self.out_channels,))
            self.reset_parameters()

    def _get_in_channels(self, input):
        unbatched = self._dims + 1
        if input.dim() not in (unbatched, unbatched + 1):
            raise RuntimeError(f"Expected {unbatched}D (unbatched) or {unbatched + 1}D "
                               f"(batched) input to {type(self).__name__}, but got input of "
                               f"size: {input.shape}")
        return input.shape[1] if input.dim() == unbatched + 1 else input.shape[0]

    def _make_lazy(self, out_channels, bias, device, dtype):
        self.weight = UninitializedParameter(device=device, dtype=dtype)
        self.out_channels = out_channels
        if bias:
            self.bias = UninitializedParameter(device=device, dtype=dtype)


def _lazy_conv(base):
    """``Lazy<base>``: ``base``'s signature without ``in_channels``."""
    class LazyConv(_LazyConvXdMixin, base):
        cls_to_become = base

        def __init__(self, out_channels, kernel_size, stride=1, padding=0, dilation=1,
                     groups=1, bias=True, padding_mode="zeros", device=None, dtype=None):
            super().__init__(0, 0, kernel_size, stride, padding, dilation, groups, False,
                             padding_mode, device=device, dtype=dtype)
            self._make_lazy(out_channels, bias, device, dtype)

    LazyConv.__name__ = LazyConv.__qualname__ = "Lazy" + base.__name__
    LazyConv.__doc__ = f"A ``{base.__name__}`` whose ``in_channels`` is inferred from the " \
                       "first input."
    return LazyConv


def _lazy_conv_transpose(base):
    """``Lazy<base>``: ``base``'s signature without ``in_channels``."""
    class LazyConvTranspose(_LazyConvXdMixin, base):
        cls_to_become = base

        def __init__(self, out_channels, kernel_size, stride=1, padding=0, output_padding=0,
                     groups=1, bias=True, dilation=1, padding_mode="zeros", device=None,
                     dtype=None):
            super().__init__(0, 0, kernel_size, stride, padding, output_padding, groups,
                             False, dilation, padding_mode, device=device, dtype=dtype)
            self._make_lazy(out_channels, bias, device, dtype)

    LazyConvTranspose.__name__ = LazyConvTranspose.__qualname__ = "Lazy" + base.__name__
    LazyConvTranspose.__doc__ = f"A ``{base.__name__}`` whose ``in_channels`` is inferred " \
                                "from the first input."
    return LazyConvTranspose


LazyConv1d = _lazy_conv(Conv1d)
LazyConv2d = _lazy_conv(Conv2d)
LazyConv3d = _lazy_conv(Conv3d)
LazyConvTranspose1d = _lazy_conv_transpose(ConvTranspose1d)
LazyConvTranspose2d = _lazy_conv_transpose(ConvTranspose2d)
LazyConvTranspose3d = _lazy_conv_transpose(ConvTranspose3d)


class _LazyNormBase(LazyModuleMixin):
    """A batch or instance norm whose ``num_features`` is ``input.shape[1]`` of the first
    input."""

    def __init__(self, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True,
                 device=None, dtype=None, *, bias=True):
        super().__init__(0, eps, momentum, False, False, device=device, dtype=dtype,
                         bias=False)
        self.affine = affine
        self.track_running_stats = track_running_stats
        if affine:
            self.weight = UninitializedParameter(device=device, dtype=dtype)
            if bias:
                self.bias = UninitializedParameter(device=device, dtype=dtype)
        if track_running_stats:
            self.running_mean = UninitializedBuffer(device=device, dtype=dtype)
            self.running_var = UninitializedBuffer(device=device, dtype=dtype)
            self.num_batches_tracked = factories.tensor(0, dtype=int64, device=device)

    def reset_parameters(self):
        if not self.has_uninitialized_params() and self.num_features != 0:
            super().reset_parameters()

    def initialize_parameters(self, input):
        if self.has_uninitialized_params():
            self.num_features = input.shape[1]
            if self.affine:
                self.weight.materialize((self.num_features,))
                if self.bias is not None:
                    self.bias.materialize((self.num_features,))
            if self.track_running_stats:
                self.running_mean.materialize((self.num_features,))
                self.running_var.materialize((self.num_features,))
            self.reset_parameters()


def _lazy_norm(base):
    """``Lazy<base>``: ``base`` with ``num_features`` inferred."""
    cls = type("Lazy" + base.__name__, (_LazyNormBase, base), {
        "cls_to_become": base, "__module__": __name__,
        "__doc__": f"A ``{base.__name__}`` whose ``num_features`` is inferred from the first "
                   "input."})
    return cls


LazyBatchNorm1d = _lazy_norm(BatchNorm1d)
LazyBatchNorm2d = _lazy_norm(BatchNorm2d)
LazyBatchNorm3d = _lazy_norm(BatchNorm3d)
LazyInstanceNorm1d = _lazy_norm(InstanceNorm1d)
LazyInstanceNorm2d = _lazy_norm(InstanceNorm2d)
LazyInstanceNorm3d = _lazy_norm(InstanceNorm3d)
