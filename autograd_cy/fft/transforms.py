"""The transforms of ``autograd_cy.fft``: fft, ifft, rfft, irfft, hfft, ihfft over one dim;
their 2-dim (``fft2`` ...) and n-dim (``fftn`` ...) forms. Each is torch's composition of
the primitives (primitives.py): its arguments checked, its input promoted, trimmed or
zero-padded to the signal sizes, then one or two primitives with a conjugate between where
torch puts one, so ``grad_fn`` is torch's node (``FftR2CBackward0`` for ``fft`` of a real
input, ``ConjBackward0`` for ``ifft`` of a real input and for ``ihfft`` ...).

``norm`` is "backward" (the default: the inverse transforms scale by 1/n), "forward" (the
forward ones do) or "ortho" (both by 1/sqrt(n)).
"""
import autograd_cy as _ag
from autograd_cy.fft.arguments import (
    c2r_shape_and_dims, check_out, check_size, check_tensor, int_or_none, ints_or_none,
    normalization, promoted, resized, shape_and_dims, wrap_dim, write_out,
)
from autograd_cy.fft.primitives import fft_c2c, fft_c2r, fft_r2c

__all__ = ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft", "fft2", "ifft2", "rfft2",
           "irfft2", "hfft2", "ihfft2", "fftn", "ifftn", "rfftn", "irfftn", "hfftn",
           "ihfftn"]


def _finish(name, primitive, result, input, out, real=False):
    return result if out is None else write_out(name, primitive, out, result, input, real)


def _one_dim(name, input, n, dim, norm):
    check_tensor(name, input)
    if dim is None:
        raise TypeError(f"fft_{name}(): argument 'dim' must be int, not NoneType")
    return int_or_none(name, "n", n), int_or_none(name, "dim", dim)


def _c2c(name, input, n, dim, norm, forward, out):
    dim = wrap_dim(dim, input.dim())
    size = input.shape[dim] if n is None else n
    check_size(size)
    x = input if n is None else resized(input, (dim,), (size,))
    result = fft_c2c(x, (dim,), normalization(name, norm, forward), forward)
    return _finish(name, "_fft_c2c", result, input, out)


def _r2c(name, input, n, dim, norm, forward, onesided, out):
    if input.is_complex():
        raise RuntimeError(f"{name} expects a real input tensor, but got "
                           f"{input.dtype._scalar_name}")
    if out is not None:     # torch checks out's kind before the arguments here
        check_out(name, out, False)
    x = promoted(input, False)
    dim = wrap_dim(dim, x.dim())
    size = x.shape[dim] if n is None else n
    check_size(size)
    if n is not None:
        x = resized(x, (dim,), (size,))
    result = fft_r2c(x, (dim,), normalization(name, norm, forward), onesided)
    if not forward:         # torch's r2c has no inverse: the forward one, conjugated
        result = result.conj()
    return _finish(name, "_fft_r2c", result, input, out)


def _c2r(name, input, n, dim, norm, forward, out):
    if out is not None:
        check_out(name, out, True)
    x = promoted(input, True)
    dim = wrap_dim(dim, x.dim())
    size = 2 * (x.shape[dim] - 1) if n is None else n
    check_size(size)
    if n is not None:
        x = resized(x, (dim,), (size // 2 + 1,))
    mode = normalization(name, norm, forward)
    if forward:             # hfft: the inverse c2r of the conjugate
        x = x.conj()
    return _finish(name, "_fft_c2r", fft_c2r(x, (dim,), mode, size), input, out, real=True)


def fft(input, n=None, dim=-1, norm=None, *, out=None):
    """The one-dimensional discrete Fourier transform of ``input`` along ``dim``; ``n``
    trims or zero-pads the signal first."""
    n, dim = _one_dim("fft", input, n, dim, norm)
    if input.is_complex():
        return _c2c("fft", input, n, dim, norm, True, out)
    return _r2c("fft", input, n, dim, norm, True, False, out)


def ifft(input, n=None, dim=-1, norm=None, *, out=None):
    """The one-dimensional inverse discrete Fourier transform of ``input``."""
    n, dim = _one_dim("ifft", input, n, dim, norm)
    if input.is_complex():
        return _c2c("ifft", input, n, dim, norm, False, out)
    return _r2c("ifft", input, n, dim, norm, False, False, out)


def rfft(input, n=None, dim=-1, norm=None, *, out=None):
    """The one-dimensional Fourier transform of a real ``input``: the ``n // 2 + 1``
    non-negative frequencies (the others are their conjugates)."""
    n, dim = _one_dim("rfft", input, n, dim, norm)
    return _r2c("rfft", input, n, dim, norm, True, True, out)


def irfft(input, n=None, dim=-1, norm=None, *, out=None):
    """The inverse of ``rfft``: a real signal of ``n`` entries (default
    ``2 * (input.size(dim) - 1)``) from its non-negative frequencies."""
    n, dim = _one_dim("irfft", input, n, dim, norm)
    return _c2r("irfft", input, n, dim, norm, False, out)


def hfft(input, n=None, dim=-1, norm=None, *, out=None):
    """The Fourier transform of a Hermitian-symmetric signal given by its first half: a
    real result of ``n`` entries (default ``2 * (input.size(dim) - 1)``)."""
    n, dim = _one_dim("hfft", input, n, dim, norm)
    return _c2r("hfft", input, n, dim, norm, True, out)


def ihfft(input, n=None, dim=-1, norm=None, *, out=None):
    """The inverse of ``hfft``: the first half of the Hermitian inverse transform of a
    real ``input``."""
    n, dim = _one_dim("ihfft", input, n, dim, norm)
    return _r2c("ihfft", input, n, dim, norm, False, True, out)


def _n_dim_arguments(name, input, s, dim, norm):
    check_tensor(name, input)
    return ints_or_none(name, "s", s), ints_or_none(name, "dim", dim)


def _fftn(name, input, s, dim, norm, forward, out):
    s, dim = _n_dim_arguments(name, input, s, dim, norm)
    shape, dims = shape_and_dims(input, s, dim)
    x = resized(promoted(input, True), dims, shape)
    result = fft_c2c(x, dims, normalization(name, norm, forward), forward)
    return _finish("fftn", "_fft_c2c", result, input, out)


def _rfftn(name, input, s, dim, norm, out):
    s, dim = _n_dim_arguments(name, input, s, dim, norm)
    if input.is_complex():
        raise RuntimeError(f"rfftn expects a real-valued input tensor, but got "
                           f"{input.dtype._scalar_name}")
    shape, dims = shape_and_dims(input, s, dim)
    if not shape:
        raise RuntimeError("rfftn must transform at least one axis")
    x = resized(promoted(input, False), dims, shape)
    result = fft_r2c(x, dims, normalization(name, norm, True), True)
    return _finish("rfftn", "_fft_r2c", result, input, out)


def _irfftn(name, input, s, dim, norm, out):
    s, dim = _n_dim_arguments(name, input, s, dim, norm)
    shape, dims, last_dim_size = c2r_shape_and_dims("irfftn", input, s, dim)
    x = resized(promoted(input, True), dims, shape)
    result = fft_c2r(x, dims, normalization(name, norm, False), last_dim_size)
    return _finish("irfftn", "_fft_c2r", result, input, out, real=True)


def _hfftn(name, input, s, dim, norm, out):
    s, dim = _n_dim_arguments(name, input, s, dim, norm)
    shape, dims, last_dim_size = c2r_shape_and_dims("hfftn", input, s, dim)
    x = resized(promoted(input, True), dims, shape)
    mode = normalization(name, norm, True)
    if len(dims) > 1:
        x = fft_c2c(x, dims[:-1], mode, True)
    result = fft_c2r(x.conj(), dims[-1:], mode, last_dim_size)
    return _finish("hfftn", "_fft_c2r", result, input, out, real=True)


def _ihfftn(name, input, s, dim, norm, out):
    s, dim = _n_dim_arguments(name, input, s, dim, norm)
    shape, dims = shape_and_dims(input, s, dim)
    if not shape:
        raise RuntimeError("ihfftn must transform at least one axis")
    if input.is_complex():
        raise RuntimeError(f"Only supports floating-point dtypes, but found: "
                           f"{input.dtype._scalar_name}")
    x = resized(promoted(input, False), dims, shape)
    mode = normalization(name, norm, False)
    half = fft_r2c(x, dims[-1:], mode, True)
    if len(dims) == 1:
        return _finish("ihfftn", "_fft_r2c", half.conj(), input, out)
    result = fft_c2c(_ag.conj_physical(half), dims[:-1], mode, False)
    return _finish("ihfftn", "_fft_c2c", result, input, out)


def fft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):
    """The two-dimensional discrete Fourier transform (``fftn`` over ``dim``)."""
    return _fftn("fft2", input, s, dim, norm, True, out)


def ifft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):
    """The two-dimensional inverse discrete Fourier transform."""
    return _fftn("ifft2", input, s, dim, norm, False, out)


def rfft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):
    """The two-dimensional Fourier transform of a real ``input``, one-sided in the last
    dim."""
    return _rfftn("rfft2", input, s, dim, norm, out)


def irfft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):
    """The inverse of ``rfft2``."""
    return _irfftn("irfft2", input, s, dim, norm, out)


def hfft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):
    """The two-dimensional Fourier transform of a Hermitian-symmetric signal given by its
    one-sided half: a real result."""
    return _hfftn("hfft2", input, s, dim, norm, out)


def ihfft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):
    """The inverse of ``hfft2``."""
    return _ihfftn("ihfft2", input, s, dim, norm, out)


def fftn(input, s=None, dim=None, norm=None, *, out=None):
    """The n-dimensional discrete Fourier transform over ``dim`` (default: the last
    ``len(s)`` dims, or all), each trimmed or zero-padded to ``s``."""
    return _fftn("fftn", input, s, dim, norm, True, out)


def ifftn(input, s=None, dim=None, norm=None, *, out=None):
    """The n-dimensional inverse discrete Fourier transform."""
    return _fftn("ifftn", input, s, dim, norm, False, out)


def rfftn(input, s=None, dim=None, norm=None, *, out=None):
    """The n-dimensional Fourier transform of a real ``input``, one-sided in the last of
    ``dim``."""
    return _rfftn("rfftn", input, s, dim, norm, out)


def irfftn(input, s=None, dim=None, norm=None, *, out=None):
    """The inverse of ``rfftn``: a real result, ``2 * (m - 1)`` entries along the last dim
    (m the input's) unless ``s`` says."""
    return _irfftn("irfftn", input, s, dim, norm, out)


def hfftn(input, s=None, dim=None, norm=None, *, out=None):
    """The n-dimensional Fourier transform of a Hermitian-symmetric signal given by its
    one-sided half: a real result."""
    return _hfftn("hfftn", input, s, dim, norm, out)


def ihfftn(input, s=None, dim=None, norm=None, *, out=None):
    """The inverse of ``hfftn``: the one-sided half of the inverse transform of a real
    ``input``."""
    return _ihfftn("ihfftn", input, s, dim, norm, out)
