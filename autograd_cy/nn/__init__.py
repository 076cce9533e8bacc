"""``autograd_cy.nn``: the functional layer (``nn.functional``) over the op library."""
from autograd_cy.nn import functional  # noqa: F401
