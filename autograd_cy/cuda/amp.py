"""``cuda.amp``: the deprecated ``cuda.amp.autocast`` and ``cuda.amp.GradScaler``."""
from autograd_cy.amp.legacy import cuda_GradScaler as GradScaler
from autograd_cy.amp.legacy import cuda_autocast as autocast

__all__ = ["autocast", "GradScaler"]
