"""Window functions: ``hann_window``, ``hamming_window``, ``blackman_window``,
``bartlett_window`` and ``kaiser_window``, the tapers that ``stft`` and filter design
multiply a frame by.

Each is a 1-D tensor of ``window_length`` values. A symmetric window (``periodic=False``)
rises from one end to the middle and falls back; a periodic one (the default, as torch's:
the form spectral analysis wants) is the symmetric window of ``window_length + 1`` values
without its last, so that repeated windows tile a period. A window of one value is ``[1]``,
of none empty. The values are computed in float64 and cast to ``dtype`` (the default float
dtype when None), which must be a floating dtype.

>>> import autograd_cy as ag
>>> ag.hann_window(4)
tensor([0.0000, 0.5000, 1.0000, 0.5000])
>>> ag.bartlett_window(5, periodic=False)
tensor([0.0000, 0.5000, 1.0000, 0.5000, 0.0000])
"""
import numpy as np

from autograd_cy import dtypes as _dtypes, factories as _factories

__all__ = ["hann_window", "hamming_window", "blackman_window", "bartlett_window",
           "kaiser_window"]


def _window(name, window_length, periodic, dtype, device, requires_grad, values):
    """The window ``values(n, m)`` (``n`` the positions 0 .. length-1 in float64, ``m`` the
    symmetric window's last position) as a tensor of ``dtype``."""
    if not isinstance(window_length, (int, np.integer)) or isinstance(window_length, bool):
        raise TypeError(f"{name}(): argument 'window_length' (position 1) must be int, not "
                        f"{type(window_length).__name__}")
    if window_length < 0:
        raise RuntimeError(f"{name} requires non-negative window_length, got "
                           f"window_length={window_length}")
    numpy_dtype = _factories._numpy_dtype(dtype, _factories._default_float())
    dtype = _dtypes.from_numpy_dtype(numpy_dtype)
    if dtype.is_complex:
        raise NotImplementedError(f"\"arange_cpu\" not implemented for "
                                  f"'{dtype._scalar_name}'")
    if not dtype.is_floating_point:
        raise RuntimeError(f"{name} expects floating point dtypes, got: {dtype}")
    if window_length <= 1:
        array = np.ones(window_length)
    else:
        last = window_length if periodic else window_length - 1
        array = values(np.arange(window_length, dtype=np.float64), float(last))
    return _factories._make(array.astype(numpy_dtype), requires_grad, device)


_UNSET = object()     # an argument left out: torch's overloads need those before it


def _overload(name, window_length, *arguments):
    """torch's overloads take the arguments in order, ``periodic`` first: one given while an
    earlier one is left out is a TypeError."""
    given = [a is not _UNSET for a in arguments]
    if any(later and not earlier for earlier, later in zip(given, given[1:])):
        kinds = [type(window_length).__name__] + [type(a).__name__ for a in arguments
                                                  if a is not _UNSET]
        raise TypeError(f"{name}() received an invalid combination of arguments - got "
                        f"({', '.join(kinds)}), but expected one of the overloads (int "
                        "window_length, bool periodic, ...), each argument after those "
                        "before it")
    return [None if a is _UNSET else a for a in arguments]


def _cosine_sum(n, m, *coefficients):
    """``sum_k (-1)^k a_k cos(2 pi k n / m)``: the generalized cosine window."""
    return sum((-1) ** k * a * np.cos(2 * np.pi * k * n / m) for k, a in enumerate(coefficients))


def hann_window(window_length, periodic=True, *, dtype=None, layout=None, device=None,
                requires_grad=False):
    """``0.5 - 0.5 cos(2 pi n / (N - 1))``."""
    return _window("hann_window", window_length, periodic, dtype, device, requires_grad,
                   lambda n, m: _cosine_sum(n, m, 0.5, 0.5))


def hamming_window(window_length, periodic=_UNSET, alpha=_UNSET, beta=_UNSET, *, dtype=None,
                   layout=None, device=None, requires_grad=False):
    """``alpha - beta cos(2 pi n / (N - 1))`` (``periodic`` True, ``alpha`` 0.54, ``beta``
    0.46 by default; each given only after those before it, as torch's overloads)."""
    periodic, alpha, beta = _overload("hamming_window", window_length, periodic, alpha, beta)
    periodic = True if periodic is None else periodic
    alpha = 0.54 if alpha is None else alpha
    beta = 0.46 if beta is None else beta
    return _window("hamming_window", window_length, periodic, dtype, device, requires_grad,
                   lambda n, m: _cosine_sum(n, m, alpha, beta))


def blackman_window(window_length, periodic=True, *, dtype=None, layout=None, device=None,
                    requires_grad=False):
    """``0.42 - 0.5 cos(2 pi n / (N - 1)) + 0.08 cos(4 pi n / (N - 1))``."""
    return _window("blackman_window", window_length, periodic, dtype, device, requires_grad,
                   lambda n, m: _cosine_sum(n, m, 0.42, 0.5, 0.08))


def bartlett_window(window_length, periodic=True, *, dtype=None, layout=None, device=None,
                    requires_grad=False):
    """The triangle ``1 - |2 n / (N - 1) - 1|``."""
    return _window("bartlett_window", window_length, periodic, dtype, device, requires_grad,
                   lambda n, m: 1 - np.abs(2 * n / m - 1))


def kaiser_window(window_length, periodic=_UNSET, beta=_UNSET, *, dtype=None, layout=None,
                  device=None, requires_grad=False):
    """``I0(beta sqrt(1 - (2 n / (N - 1) - 1)^2)) / I0(beta)``, ``I0`` the modified Bessel
    function of the first kind, order 0 (``periodic`` True and ``beta`` 12 by default;
    ``beta`` given only with ``periodic``, as torch's overloads)."""
    periodic, beta = _overload("kaiser_window", window_length, periodic, beta)
    periodic = True if periodic is None else periodic
    beta = 12.0 if beta is None else beta
    return _window("kaiser_window", window_length, periodic, dtype, device, requires_grad,
                   lambda n, m: np.i0(beta * np.sqrt(np.clip(1 - (2 * n / m - 1) ** 2, 0, None)))
                   / np.i0(beta))
