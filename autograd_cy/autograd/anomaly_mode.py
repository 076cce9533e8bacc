"""Anomaly detection: find the forward op behind a failing backward, or a NaN gradient.

While anomaly mode is on, every recorded node keeps the Python stack of the forward
call that created it. When a node fails in backward, the engine first warns
``Error detected in <Node>. Traceback of forward call that caused the error: ...``
and, with ``check_nan``, raises as soon as a node returns a NaN gradient.
"""
import warnings

from autograd_cy._C import grad_mode as _flags

__all__ = ["detect_anomaly", "set_detect_anomaly", "is_anomaly_enabled",
           "is_anomaly_check_nan_enabled"]


def is_anomaly_enabled():
    """Is anomaly mode on in this thread?"""
    return _flags._is_anomaly_enabled()


def is_anomaly_check_nan_enabled():
    """Does anomaly mode also check every backward output for NaN?"""
    return _flags._is_anomaly_check_nan_enabled()


class detect_anomaly:
    """Context manager (and decorator) that turns anomaly mode on, with a warning.

    >>> import autograd_cy as ag
    >>> import warnings
    >>> x = ag.zeros(1, requires_grad=True)
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     with detect_anomaly():
    ...         y = (x.log() * 0).sum()
    ...         y.backward()
    Traceback (most recent call last):
    RuntimeError: Function 'LogBackward0' returned nan values in its 0th output.
    """

    def __init__(self, check_nan=True):
        self.check_nan = check_nan
        warnings.warn("Anomaly Detection has been enabled. This mode will increase the runtime "
                      "and should only be enabled for debugging.", stacklevel=2)

    def __enter__(self):
        self.previous = (is_anomaly_enabled(), is_anomaly_check_nan_enabled())
        _flags._set_anomaly_enabled(True, self.check_nan)

    def __exit__(self, *exc_info):
        _flags._set_anomaly_enabled(*self.previous)

    def __call__(self, func):
        import functools

        @functools.wraps(func)
        def decorated(*args, **kwargs):
            with self.__class__(self.check_nan):
                return func(*args, **kwargs)
        return decorated


class set_detect_anomaly:
    """Turn anomaly mode on or off, at once (no warning); as a context manager the previous
    setting comes back on exit."""

    def __init__(self, mode, check_nan=True):
        self.previous = (is_anomaly_enabled(), is_anomaly_check_nan_enabled())
        _flags._set_anomaly_enabled(mode, check_nan)

    def __enter__(self):
        pass

    def __exit__(self, *exc_info):
        _flags._set_anomaly_enabled(*self.previous)
