"""The names torch keeps only to raise: ``torch.solve``, ``torch.eig``, ``torch.symeig``,
``torch.lstsq``, ``torch.matrix_rank`` and the methods ``A.solve``, ``A.eig``,
``A.symeig``, ``A.lstsq``. Removed in torch 1.9, each raises a ``RuntimeError`` that names
the ``linalg`` function replacing it, with any arguments.
"""
from autograd_cy._C.tensor import _register_methods

__all__ = ["solve", "eig", "symeig", "lstsq", "matrix_rank"]

_REMOVED = "This function was deprecated since version 1.9 and is now removed."


def solve(*args, **kwargs):
    """Removed: ``linalg.solve(A, B)`` replaces ``torch.solve(B, A)``."""
    raise RuntimeError(
        f"{_REMOVED} `torch.solve` is deprecated in favor of `torch.linalg.solve`. "
        "`torch.linalg.solve` has its arguments reversed and does not return the LU "
        "factorization.\n\nTo get the LU factorization see `torch.lu`, which can be used with "
        "`torch.lu_solve` or `torch.lu_unpack`.\nX = torch.solve(B, A).solution should be "
        "replaced with:\nX = torch.linalg.solve(A, B)")


def eig(*args, **kwargs):
    """Removed: ``linalg.eig`` / ``linalg.eigvals`` replace it."""
    raise RuntimeError(
        f"{_REMOVED} `torch.linalg.eig` returns complex tensors of dtype `cfloat` or `cdouble` "
        "rather than real tensors mimicking complex tensors.\n\nL, _ = torch.eig(A) should be "
        "replaced with:\nL_complex = torch.linalg.eigvals(A)\n\nand\n\nL, V = torch.eig(A, "
        "eigenvectors=True) should be replaced with:\nL_complex, V_complex = "
        "torch.linalg.eig(A)")


def symeig(*args, **kwargs):
    """Removed: ``linalg.eigh`` / ``linalg.eigvalsh`` replace it."""
    raise RuntimeError(
        f"{_REMOVED} The default behavior has changed from using the upper triangular portion "
        "of the matrix by default to using the lower triangular portion.\n\nL, _ = "
        "torch.symeig(A, upper=upper) should be replaced with:\nL = torch.linalg.eigvalsh(A, "
        "UPLO='U' if upper else 'L')\n\nand\n\nL, V = torch.symeig(A, eigenvectors=True) should "
        "be replaced with:\nL, V = torch.linalg.eigh(A, UPLO='U' if upper else 'L')")


def lstsq(*args, **kwargs):
    """Removed: ``linalg.lstsq(A, B)`` replaces ``torch.lstsq(B, A)``."""
    raise RuntimeError(
        f"{_REMOVED} `torch.lstsq` is deprecated in favor of `torch.linalg.lstsq`.\n"
        "`torch.linalg.lstsq` has reversed arguments and does not return the QR decomposition "
        "in the returned tuple (although it returns other information about the problem).\n\n"
        "To get the QR decomposition consider using `torch.linalg.qr`.\n\nThe returned "
        "solution in `torch.lstsq` stored the residuals of the solution in the last m - n "
        "columns of the returned value whenever m > n. In torch.linalg.lstsq, the residuals "
        "are in the field 'residuals' of the returned named tuple.\n\nThe unpacking of the "
        "solution, as in\nX, _ = torch.lstsq(B, A).solution[:A.size(1)]\nshould be replaced "
        "with:\nX = torch.linalg.lstsq(A, B).solution")


def matrix_rank(*args, **kwargs):
    """Removed: ``linalg.matrix_rank`` replaces it (``symmetric`` is now ``hermitian``)."""
    raise RuntimeError(
        f"{_REMOVED}\nPlease use the `torch.linalg.matrix_rank` function instead. The "
        "parameter 'symmetric' was renamed in `torch.linalg.matrix_rank()` to 'hermitian'.")


_register_methods({"solve": solve, "eig": eig, "symeig": symeig, "lstsq": lstsq})
