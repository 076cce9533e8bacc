"""``cuda.amp``: the deprecated ``cuda.amp.autocast``, ``custom_fwd``/``custom_bwd`` and
``GradScaler``."""
from autograd_cy.amp.legacy import cuda_GradScaler as GradScaler
from autograd_cy.amp.legacy import cuda_autocast as autocast
from autograd_cy.amp.legacy import cuda_custom_bwd as custom_bwd
from autograd_cy.amp.legacy import cuda_custom_fwd as custom_fwd

__all__ = ["autocast", "GradScaler", "custom_fwd", "custom_bwd"]
