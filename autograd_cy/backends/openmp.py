"""``backends.openmp``: autograd_cy computes on the calling thread, without OpenMP."""

__all__ = ["is_available"]


def is_available():
    """False: no op runs an OpenMP loop."""
    return False
