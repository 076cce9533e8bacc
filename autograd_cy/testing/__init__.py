"""torch.testing: ``assert_close`` (with torch's default tolerances per dtype and its
messages), the deprecated ``assert_allclose``, and ``make_tensor``."""
from autograd_cy.testing.comparison import assert_allclose, assert_close
from autograd_cy.testing.creation import make_tensor

__all__ = ["assert_allclose", "assert_close", "make_tensor"]
