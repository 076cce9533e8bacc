"""``backends.cudnn``: autograd_cy's CUDA backend has no cuDNN (its convolutions are its own
kernels), so ``is_available()`` is False and ``version()`` None; ``enabled``,
``benchmark``, ``deterministic`` and ``allow_tf32`` are settable flags with torch's
defaults, read by no op."""

__all__ = ["is_available", "version", "enabled", "benchmark", "benchmark_limit",
           "deterministic", "allow_tf32"]

enabled = True
benchmark = False
benchmark_limit = 10
deterministic = False
allow_tf32 = True


def is_available():
    """False: there is no cuDNN to call."""
    return False


def version():
    """None, as torch answers without cuDNN."""
    return None
