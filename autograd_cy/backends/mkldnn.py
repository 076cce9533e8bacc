"""``backends.mkldnn``: oneDNN, which autograd_cy does not call; ``enabled`` is a settable
flag with torch's default, read by no op."""

__all__ = ["is_available", "enabled"]

enabled = True


def is_available():
    """False: no op calls oneDNN."""
    return False
