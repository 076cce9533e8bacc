"""``autograd_cy.amp``: automatic mixed precision's ``autocast`` (refused when enabled:
NOTE [Autocast is refused when enabled]) and ``GradScaler``."""
from autograd_cy.amp.autocast_mode import autocast, is_autocast_available
from autograd_cy.amp.grad_scaler import GradScaler

__all__ = ["autocast", "is_autocast_available", "GradScaler"]
