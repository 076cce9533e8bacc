"""The dropout layers: ``Dropout`` zeroes elements with probability ``p`` while the module
is training, ``Dropout1d/2d/3d`` whole channels, ``AlphaDropout`` and
``FeatureAlphaDropout`` keep a SELU network's mean and variance; all are the identity in
eval mode."""
from autograd_cy.nn import functional as F
from autograd_cy.nn.modules.module import Module

__all__ = ["Dropout", "Dropout1d", "Dropout2d", "Dropout3d", "AlphaDropout",
           "FeatureAlphaDropout"]


class _DropoutNd(Module):
    """The settings every dropout layer shares: the probability ``p`` and ``inplace``."""

    def __init__(self, p=0.5, inplace=False):
        super().__init__()
        if p < 0 or p > 1:
            raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
        self.p = p
        self.inplace = inplace

    def extra_repr(self):
        return f"p={self.p}, inplace={self.inplace}"


class Dropout(_DropoutNd):
    """``F.dropout(input, p, self.training, inplace)``: the identity in eval mode."""

    def forward(self, input):
        return F.dropout(input, self.p, self.training, self.inplace)


class Dropout1d(_DropoutNd):
    """``F.dropout1d``: whole channels of ``(N, C, L)`` or ``(C, L)`` inputs."""

    def forward(self, input):
        return F.dropout1d(input, self.p, self.training, self.inplace)


class Dropout2d(_DropoutNd):
    """``F.dropout2d``: whole channels of ``(N, C, H, W)`` inputs."""

    def forward(self, input):
        return F.dropout2d(input, self.p, self.training, self.inplace)


class Dropout3d(_DropoutNd):
    """``F.dropout3d``: whole channels of ``(N, C, D, H, W)`` or ``(C, D, H, W)`` inputs."""

    def forward(self, input):
        return F.dropout3d(input, self.p, self.training, self.inplace)


class AlphaDropout(_DropoutNd):
    """``F.alpha_dropout``: dropped values set to SELU's saturation, mean and variance
    kept."""

    def forward(self, input):
        return F.alpha_dropout(input, self.p, self.training)


class FeatureAlphaDropout(_DropoutNd):
    """``F.feature_alpha_dropout``: alpha dropout of whole channels."""

    def forward(self, input):
        return F.feature_alpha_dropout(input, self.p, self.training)
