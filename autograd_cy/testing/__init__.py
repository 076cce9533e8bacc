"""torch.testing: ``assert_close`` (with torch's default tolerances per dtype and its
messages) and ``make_tensor``."""
from autograd_cy.testing.comparison import assert_close
from autograd_cy.testing.creation import make_tensor

__all__ = ["assert_close", "make_tensor"]
