"""``set_float32_matmul_precision`` / ``get_float32_matmul_precision``.

torch lets float32 matmuls use TensorFloat-32 ("high") or bfloat16 passes ("medium") on
hardware that has them. NumPy's BLAS has neither, so autograd_cy's float32 matmuls are
always full float32 ("highest" numerics); the setting is recorded and read back, and it is
what ``backends.cuda.matmul.allow_tf32`` reports, as in torch.
"""
import warnings

__all__ = ["set_float32_matmul_precision", "get_float32_matmul_precision"]

_PRECISIONS = ("highest", "high", "medium")
_precision = "highest"


def set_float32_matmul_precision(precision):
    """Record "highest", "high" or "medium"; another string warns and changes nothing."""
    global _precision
    if precision not in _PRECISIONS:
        warnings.warn(f"{precision} is not one of 'highest', 'high', or 'medium'; the current"
                      f"setFloat32MatmulPrecision call has no effect.", UserWarning,
                      stacklevel=2)
        return
    _precision = precision


def get_float32_matmul_precision():
    """The precision last set ("highest" at first)."""
    return _precision
