"""``torch.signal``: its ``windows`` namespace (signal/windows.py)."""
from autograd_cy.signal import windows  # noqa: F401

__all__ = ["windows"]
