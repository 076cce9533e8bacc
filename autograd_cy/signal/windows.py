"""``torch.signal.windows``: ``bartlett``, ``blackman``, ``cosine``, ``exponential``,
``gaussian``, ``general_cosine``, ``general_hamming``, ``hamming``, ``hann``, ``kaiser``,
``nuttall``, with torch's keyword-only arguments.

Each is a window of ``M`` values, symmetric by default (``sym=False``: the periodic form,
the symmetric window of ``M + 1`` values without its last). Unlike the ``*_window``
factories (signal_windows.py), they are composed of recorded ops in ``dtype`` (float32 or
float64 only), from positions made by ``linspace``: with ``requires_grad=True`` that
``linspace`` is the leaf and the window its result, as torch's (``SumBackward1`` for the
cosine sums, ``ExpBackward0`` ...). The cosine windows are ``general_cosine``'s
``sum_i (-1)^i a_i cos(2 pi i n / (M - 1))``; their errors name ``general_cosine``, as
torch's do.

>>> import autograd_cy as ag
>>> ag.signal.windows.hann(5)
tensor([0.0000, 0.5000, 1.0000, 0.5000, 0.0000])
"""
import math

import autograd_cy as _ag

__all__ = ["bartlett", "blackman", "cosine", "exponential", "gaussian", "general_cosine",
           "general_hamming", "hamming", "hann", "kaiser", "nuttall"]


def _checks(name, M, dtype, layout):
    if M < 0:
        raise ValueError(f"{name} requires non-negative window length, got M={M}")
    if layout is not _ag.strided:
        raise ValueError(f"{name} is implemented for strided tensors only, got: {layout}")
    if dtype not in (_ag.float32, _ag.float64):
        raise ValueError(f"{name} expects float32 or float64 dtypes, got: "
                         f"{dtype}")


def _positions(start, step, M, dtype, device, requires_grad):
    """``start + step * n`` for n < M, by ``linspace`` (the window's leaf)."""
    return _ag.linspace(start, start + (M - 1) * step, M, dtype=dtype, device=device,
                        requires_grad=requires_grad)


def _edge(M, dtype, device, requires_grad):
    """The window of no value or of one (``[1]``), or None."""
    if M == 0:
        return _ag.empty((0,), dtype=dtype, device=device, requires_grad=requires_grad)
    if M == 1:
        return _ag.ones((1,), dtype=dtype, device=device, requires_grad=requires_grad)
    return None


def _span(M, sym):
    """The symmetric window's last position: ``M - 1``, or ``M`` for the periodic one."""
    return M - 1 if sym else M


def exponential(M, *, center=None, tau=1.0, sym=True, dtype=None, layout=_ag.strided,
                device=None, requires_grad=False):
    """``exp(-|n - center| / tau)`` (the Poisson window)."""
    dtype = _ag.get_default_dtype() if dtype is None else dtype
    _checks("exponential", M, dtype, layout)
    if tau <= 0:
        raise ValueError(f"Tau must be positive, got: {tau} instead.")
    if sym and center is not None:
        raise ValueError("Center must be None for symmetric windows")
    if M == 0:
        return _edge(M, dtype, device, requires_grad)
    if center is None:
        center = (M if not sym and M > 1 else M - 1) / 2.0
    k = _positions(-center / tau, 1 / tau, M, dtype, device, requires_grad)
    return _ag.exp(-_ag.abs(k))


def cosine(M, *, sym=True, dtype=None, layout=_ag.strided, device=None,
           requires_grad=False):
    """``sin(pi (n + 1/2) / M)`` (the sine window)."""
    dtype = _ag.get_default_dtype() if dtype is None else dtype
    _checks("cosine", M, dtype, layout)
    if M == 0:
        return _edge(M, dtype, device, requires_grad)
    step = math.pi / (M + 1 if not sym and M > 1 else M)
    return _ag.sin(_positions(0.5 * step, step, M, dtype, device, requires_grad))


def gaussian(M, *, std=1.0, sym=True, dtype=None, layout=_ag.strided, device=None,
             requires_grad=False):
    """``exp(-(n - (M - 1) / 2)^2 / (2 std^2))``."""
    dtype = _ag.get_default_dtype() if dtype is None else dtype
    _checks("gaussian", M, dtype, layout)
    if std <= 0:
        raise ValueError(f"Standard deviation must be positive, got: {std} instead.")
    if M == 0:
        return _edge(M, dtype, device, requires_grad)
    start = -(M if not sym and M > 1 else M - 1) / 2.0
    scale = 1 / (std * math.sqrt(2))
    k = _positions(start * scale, scale, M, dtype, device, requires_grad)
    return _ag.exp(-k ** 2)


def kaiser(M, *, beta=12.0, sym=True, dtype=None, layout=_ag.strided, device=None,
           requires_grad=False):
    """``i0(beta sqrt(1 - (2 n / (M - 1) - 1)^2)) / i0(beta)``."""
    dtype = _ag.get_default_dtype() if dtype is None else dtype
    _checks("kaiser", M, dtype, layout)
    if beta < 0:
        raise ValueError(f"beta must be non-negative, got: {beta} instead.")
    edge = _edge(M, dtype, device, requires_grad)
    if edge is not None:
        return edge
    step = 2.0 * beta / _span(M, sym)
    k = _positions(-beta, step, M, dtype, device, requires_grad)
    k = _ag.minimum(k, _ag.tensor(beta, dtype=dtype, device=device))
    return _ag.i0(_ag.sqrt(beta * beta - k ** 2)) / _ag.i0(
        _ag.tensor(beta, dtype=dtype, device=device))


def general_cosine(M, *, a, sym=True, dtype=None, layout=_ag.strided, device=None,
                   requires_grad=False):
    """``sum_i (-1)^i a_i cos(2 pi i n / (M - 1))``."""
    dtype = _ag.get_default_dtype() if dtype is None else dtype
    _checks("general_cosine", M, dtype, layout)
    if not isinstance(a, (list, tuple)):
        raise TypeError("Coefficients must be a list/tuple")
    if not a:
        raise ValueError("Coefficients cannot be empty")
    edge = _edge(M, dtype, device, requires_grad)
    if edge is not None:
        return edge
    k = _positions(0.0, 2 * math.pi / _span(M, sym), M, dtype, device, requires_grad)
    signed = _ag.tensor([(-1) ** i * w for i, w in enumerate(a)], dtype=dtype, device=device)
    orders = _ag.arange(len(a), dtype=dtype, device=device).unsqueeze(-1)
    return (signed.unsqueeze(-1) * _ag.cos(orders * k)).sum(0)


def general_hamming(M, *, alpha=0.54, sym=True, dtype=None, layout=_ag.strided, device=None,
                    requires_grad=False):
    """``alpha - (1 - alpha) cos(2 pi n / (M - 1))``."""
    return general_cosine(M, a=[alpha, 1.0 - alpha], sym=sym, dtype=dtype, layout=layout,
                          device=device, requires_grad=requires_grad)


def hamming(M, *, sym=True, dtype=None, layout=_ag.strided, device=None,
            requires_grad=False):
    """``general_hamming`` with ``alpha = 0.54``."""
    return general_hamming(M, sym=sym, dtype=dtype, layout=layout, device=device,
                           requires_grad=requires_grad)


def hann(M, *, sym=True, dtype=None, layout=_ag.strided, device=None, requires_grad=False):
    """``general_hamming`` with ``alpha = 0.5``: ``sin^2(pi n / (M - 1))``."""
    return general_hamming(M, alpha=0.5, sym=sym, dtype=dtype, layout=layout, device=device,
                           requires_grad=requires_grad)


def blackman(M, *, sym=True, dtype=None, layout=_ag.strided, device=None,
             requires_grad=False):
    """``general_cosine`` with ``a = [0.42, 0.5, 0.08]``."""
    return general_cosine(M, a=[0.42, 0.5, 0.08], sym=sym, dtype=dtype, layout=layout,
                          device=device, requires_grad=requires_grad)


def nuttall(M, *, sym=True, dtype=None, layout=_ag.strided, device=None,
            requires_grad=False):
    """``general_cosine`` with Nuttall's four coefficients (minimum 4-term
    Blackman-Harris)."""
    return general_cosine(M, a=[0.3635819, 0.4891775, 0.1365995, 0.0106411], sym=sym,
                          dtype=dtype, layout=layout, device=device,
                          requires_grad=requires_grad)


def bartlett(M, *, sym=True, dtype=None, layout=_ag.strided, device=None,
             requires_grad=False):
    """The triangle ``1 - |2 n / (M - 1) - 1|``."""
    dtype = _ag.get_default_dtype() if dtype is None else dtype
    _checks("bartlett", M, dtype, layout)
    edge = _edge(M, dtype, device, requires_grad)
    if edge is not None:
        return edge
    k = _positions(-1.0, 2 / _span(M, sym), M, dtype, device, requires_grad)
    return 1 - _ag.abs(k)
