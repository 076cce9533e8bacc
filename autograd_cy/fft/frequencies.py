"""``fftfreq`` and ``rfftfreq``, the sample frequencies of a transform's entries, and
``fftshift`` / ``ifftshift``, which move the zero frequency to the centre and back.

The frequencies are torch's: the integers ``0, 1, ..., -(n // 2), ..., -1`` (``rfftfreq``:
``0 .. n // 2``) in the dtype, times ``1 / (n * d)`` rounded to the dtype, the product
taken in the dtype's arithmetic type (float32 for float16, bfloat16 and float32) and
rounded once. A shift is a ``roll`` of
``size // 2`` (``ifftshift``: ``(size + 1) // 2``) along each dim, so its node is
``RollBackward0``.
"""
import numpy as np

import autograd_cy as _ag
from autograd_cy import factories as _factories
from autograd_cy.fft.arguments import ints_or_none, wrap_dim, write_out

__all__ = ["fftfreq", "rfftfreq", "fftshift", "ifftshift"]


def _frequencies(name, integers, n, d, out, dtype, device, requires_grad):
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)):
        raise TypeError(f"fft_{name}(): argument 'n' (position 1) must be int, not "
                        f"{type(n).__name__}")
    if isinstance(d, str) or not isinstance(d, (int, float, np.number, _ag.Tensor)):
        raise TypeError(f"fft_{name}(): argument 'd' must be float, not {type(d).__name__}")
    if n < 0:
        raise RuntimeError(f"Trying to create tensor with negative dimension {n}: [{n}]")
    if out is not None and not isinstance(out, _ag.Tensor):
        raise TypeError(f"fft_{name}(): argument 'out' must be Tensor, not "
                        f"{type(out).__name__}")
    if dtype is None:
        dtype = out.dtype if out is not None else _ag.get_default_dtype()
    if not (dtype.is_floating_point or dtype.is_complex):
        raise RuntimeError(f"{name} requires a floating point or complex dtype")
    if dtype.is_complex:
        raise NotImplementedError(f"\"arange_cpu\" not implemented for '{dtype._scalar_name}'")
    arithmetic = np.float64 if dtype == _ag.float64 else np.float32
    with np.errstate(divide="ignore", invalid="ignore"):
        scale = np.float64(1.0) / np.float64(n * float(d))
        scale = np.asarray(scale).astype(dtype.numpy).astype(arithmetic)
        values = (integers(n).astype(dtype.numpy).astype(arithmetic) * scale).astype(
            dtype.numpy)
    if out is not None:
        result = _factories._make(values, False, out.device)
        return write_out(name, name, out, result, result, True)
    return _factories._make(values, requires_grad, device)


def fftfreq(n, d=1.0, *, out=None, dtype=None, layout=None, device=None, requires_grad=False):
    """The frequencies of the entries of a transform of ``n`` samples spaced ``d`` apart:
    ``[0, 1, ..., (n - 1) // 2, -(n // 2), ..., -1] / (n * d)``."""
    return _frequencies("fftfreq", lambda n: np.concatenate(
        [np.arange((n + 1) // 2), np.arange(-(n // 2), 0)]), n, d, out, dtype, device,
        requires_grad)


def rfftfreq(n, d=1.0, *, out=None, dtype=None, layout=None, device=None,
             requires_grad=False):
    """The frequencies of the entries of ``rfft`` of ``n`` samples spaced ``d`` apart:
    ``[0, 1, ..., n // 2] / (n * d)``."""
    return _frequencies("rfftfreq", lambda n: np.arange(n // 2 + 1), n, d, out, dtype,
                        device, requires_grad)


def _shifted(name, input, dim, inverse):
    dims = ints_or_none(name, "dim", dim)
    dims = tuple(range(input.dim())) if dims is None else tuple(
        wrap_dim(d, input.dim()) for d in dims)
    shifts = tuple((input.shape[d] + inverse) // 2 for d in dims)
    return _ag.roll(input, shifts, dims)


def fftshift(input, dim=None):
    """``input`` with the zero frequency moved to the centre of each of ``dim`` (default:
    every dim): a roll of ``size // 2``."""
    return _shifted("fftshift", input, dim, False)


def ifftshift(input, dim=None):
    """The inverse of ``fftshift``: a roll of ``(size + 1) // 2``."""
    return _shifted("ifftshift", input, dim, True)
