"""``autograd_cy.utils``: as ``torch.utils``; here only ``checkpoint``."""
from autograd_cy.utils import checkpoint  # noqa: F401

__all__ = ["checkpoint"]
