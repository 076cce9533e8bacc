"""``autograd_cy.device``: the device objects of the core (pyx/device.pyx)."""
from autograd_cy._C.device import device, CPU  # noqa: F401

__all__ = ["device"]
