"""``backends.cpu``: the vector instructions torch's kernels were dispatched to; autograd_cy's
CPU loops are NumPy's and its own compiled C, dispatched by neither."""

__all__ = ["get_cpu_capability"]


def get_cpu_capability():
    """"DEFAULT": torch's answer when no vectorised kernel set is chosen."""
    return "DEFAULT"
