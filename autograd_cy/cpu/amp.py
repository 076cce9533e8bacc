"""``cpu.amp``: the deprecated ``cpu.amp.autocast``."""
from autograd_cy.amp.legacy import cpu_autocast as autocast

__all__ = ["autocast"]
