"""``autograd_cy.amp``: automatic mixed precision's ``autocast`` (NOTE [How autocast reaches
the ops]), ``custom_fwd``/``custom_bwd`` and ``GradScaler``."""
from autograd_cy.amp.autocast_mode import autocast, custom_bwd, custom_fwd, is_autocast_available
from autograd_cy.amp.grad_scaler import GradScaler

__all__ = ["autocast", "is_autocast_available", "custom_fwd", "custom_bwd", "GradScaler"]
