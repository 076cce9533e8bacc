"""``BatchNorm1d``, ``BatchNorm2d`` and ``BatchNorm3d``: normalise each channel over the batch
(and the spatial dims) while training, and keep running estimates of its mean and variance
for eval.

As torch's, the running statistics are buffers (``running_mean``, ``running_var`` and the
``num_batches_tracked`` counter, in the state dict); ``momentum=None`` makes them a
cumulative average over the batches seen; ``track_running_stats=False`` always normalises
with the batch's own statistics."""
from autograd_cy import factories, int64
from autograd_cy.nn import functional as F
from autograd_cy.nn.modules.module import Module
from autograd_cy.nn.modules.normalization import add_affine_parameters, reset_affine_parameters

__all__ = ["BatchNorm1d", "BatchNorm2d", "BatchNorm3d"]


class _BatchNorm(Module):
    _version = 2          # torch's: the state dict has num_batches_tracked

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=True,
                 track_running_stats=True, device=None, dtype=None, *, bias=True):
        super().__init__()
        self.num_features = num_features
        self.eps = eps
        self.momentum = momentum
        self.affine = affine
        self.track_running_stats = track_running_stats
        add_affine_parameters(self, (num_features,), affine, bias, device, dtype)
        if track_running_stats:
            self.register_buffer("running_mean", factories.zeros(num_features, device=device,
                                                                 dtype=dtype))
            self.register_buffer("running_var", factories.ones(num_features, device=device,
                                                               dtype=dtype))
            self.register_buffer("num_batches_tracked",
                                 factories.tensor(0, dtype=int64, device=device))
        else:
            self.register_buffer("running_mean", None)
            self.register_buffer("running_var", None)
            self.register_buffer("num_batches_tracked", None)
        self.reset_parameters()

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict,
                              missing_keys, unexpected_keys, error_msgs):
        # a state dict from before version 2 has no num_batches_tracked: it counts from 0
        version = local_metadata.get("version", None)
        key = prefix + "num_batches_tracked"
        if (version is None or version < 2) and self.track_running_stats \
                and key not in state_dict:
            tracked = self.num_batches_tracked
            state_dict[key] = tracked if tracked is not None and tracked.device.type != "meta" \
                else factories.tensor(0, dtype=int64)
        super()._load_from_state_dict(state_dict, prefix, local_metadata, strict,
                                      missing_keys, unexpected_keys, error_msgs)

    def reset_running_stats(self):
        if self.track_running_stats:
            self.running_mean.zero_()
            self.running_var.fill_(1)
            self.num_batches_tracked.zero_()

    def reset_parameters(self):
        self.reset_running_stats()
        reset_affine_parameters(self)

    def forward(self, input):
        self._check_input_dim(input)
        factor = 0.0 if self.momentum is None else self.momentum
        if self.training and self.track_running_stats and self.num_batches_tracked is not None:
            self.num_batches_tracked.add_(1)
            if self.momentum is None:               # a cumulative moving average
                factor = 1.0 / float(self.num_batches_tracked)
        # batch statistics while training, or in eval mode without running estimates
        use_batch_stats = self.training or (self.running_mean is None
                                            and self.running_var is None)
        keep_stats = not self.training or self.track_running_stats
        return F.batch_norm(input, self.running_mean if keep_stats else None,
                            self.running_var if keep_stats else None, self.weight, self.bias,
                            use_batch_stats, factor, self.eps)

    def extra_repr(self):
        return (f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, "
                f"affine={self.affine}, bias={self.bias is not None}, "
                f"track_running_stats={self.track_running_stats}")


class BatchNorm1d(_BatchNorm):
    """Batch normalisation of ``(N, C)`` or ``(N, C, L)`` inputs."""

    def _check_input_dim(self, input):
        if input.dim() not in (2, 3):
            raise ValueError(f"expected 2D or 3D input (got {input.dim()}D input)")


class BatchNorm2d(_BatchNorm):
    """Batch normalisation of ``(N, C, H, W)`` inputs."""

    def _check_input_dim(self, input):
        if input.dim() != 4:
            raise ValueError(f"expected 4D input (got {input.dim()}D input)")


class BatchNorm3d(_BatchNorm):
    """Batch normalisation of ``(N, C, D, H, W)`` inputs."""

    def _check_input_dim(self, input):
        if input.dim() != 5:
            raise ValueError(f"expected 5D input (got {input.dim()}D input)")
