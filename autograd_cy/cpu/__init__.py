"""``autograd_cy.cpu``: the CPU's corner of torch's namespace; ``cpu.amp.autocast``."""
from autograd_cy.cpu import amp  # noqa: F401

__all__ = ["amp", "is_available", "device_count"]


def is_available():
    """True: the CPU is always there."""
    return True


def device_count():
    """1: all CPUs are one device."""
    return 1
