"""``backends.mps``: Apple's Metal backend, which autograd_cy does not have."""

__all__ = ["is_available", "is_built"]


def is_available():
    """False: there is no MPS device."""
    return False


def is_built():
    """False: the package has no MPS backend."""
    return False
