"""``backends.mkl``: autograd_cy's BLAS is NumPy's (OpenBLAS), not Intel's MKL."""

__all__ = ["is_available"]


def is_available():
    """False: no op calls MKL."""
    return False
