"""``Dropout``: zeroes elements with probability ``p`` while the module is training."""
from autograd_cy.nn import functional as F
from autograd_cy.nn.modules.module import Module

__all__ = ["Dropout"]


class Dropout(Module):
    """``F.dropout(input, p, self.training, inplace)``: the identity in eval mode."""

    def __init__(self, p=0.5, inplace=False):
        super().__init__()
        if p < 0 or p > 1:
            raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
        self.p = p
        self.inplace = inplace

    def forward(self, input):
        return F.dropout(input, self.p, self.training, self.inplace)

    def extra_repr(self):
        return f"p={self.p}, inplace={self.inplace}"
