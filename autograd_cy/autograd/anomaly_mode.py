"""Anomaly detection: find the forward op behind a failing backward, or a NaN gradient.

While anomaly mode is on, every recorded node keeps the Python stack of the forward
call that created it. When a node fails in backward, the engine first warns
``Error detected in <Node>. Traceback of forward call that caused the error: ...``
and, with ``check_nan``, raises as soon as a node returns a NaN gradient. That error then
also names the node's forward line and the first forward op before it whose output had a
NaN or inf, which recording looks for in anomaly mode (NOTE [NaN origins] in
pyx/provenance.pyx); the stacks are kept as code objects and offsets, so that anomaly mode
costs about 1.3-1.4x a plain forward and backward of small ops (``chain_anomaly`` in the
benchmarks), where formatting a traceback per op, as PyTorch does, costs 10-20x.
"""
import warnings

from autograd_cy._C import grad_mode as _flags
from autograd_cy.grad_mode import _check_bool

__all__ = ["detect_anomaly", "set_detect_anomaly", "is_anomaly_enabled",
           "is_anomaly_check_nan_enabled"]


def is_anomaly_enabled():
    """Is anomaly mode on in this thread?"""
    return _flags._is_anomaly_enabled()


def is_anomaly_check_nan_enabled():
    """Does anomaly mode also check every backward output for NaN?"""
    return _flags._is_anomaly_check_nan_enabled()


class detect_anomaly:
    """Context manager that turns anomaly mode on, with a warning. The previous setting,
    read when the object is made, comes back on exit.

    >>> import autograd_cy as ag
    >>> import warnings
    >>> x = ag.zeros(1, requires_grad=True)
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     with detect_anomaly():
    ...         y = (x.log() * 0).sum()
    ...         y.backward()  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    RuntimeError: Function 'LogBackward0' returned nan values in its 0th output. The node ...
    """

    def __init__(self, check_nan=True):
        self.prev = is_anomaly_enabled()
        self.check_nan = check_nan
        self.prev_check_nan = is_anomaly_check_nan_enabled()
        warnings.warn("Anomaly Detection has been enabled. This mode will increase the runtime "
                      "and should only be enabled for debugging.", stacklevel=2)

    def __enter__(self):
        _set_anomaly_enabled(True, self.check_nan)

    def __exit__(self, *exc_info):
        _set_anomaly_enabled(self.prev, self.prev_check_nan)


class set_detect_anomaly:
    """Turn anomaly mode on or off (``mode``), with or without the NaN check
    (``check_nan``), at once and without a warning. Usable as a function call or as a
    context manager, which restores the previous setting on exit.

    >>> import autograd_cy as ag
    >>> with set_detect_anomaly(True, check_nan=False):
    ...     ag.is_anomaly_enabled(), ag.is_anomaly_check_nan_enabled()
    (True, False)
    >>> ag.is_anomaly_enabled()
    False
    """

    def __init__(self, mode, check_nan=True):
        self.prev = is_anomaly_enabled()
        self.prev_check_nan = is_anomaly_check_nan_enabled()
        _set_anomaly_enabled(mode, check_nan)

    def __enter__(self):
        pass

    def __exit__(self, *exc_info):
        _set_anomaly_enabled(self.prev, self.prev_check_nan)


def _set_anomaly_enabled(enabled, check_nan=True):
    """Set the thread's anomaly flags; both must be bools, as PyTorch's parser requires."""
    _check_bool("set_anomaly_enabled", "enabled", enabled)
    _check_bool("set_anomaly_enabled", "check_nan", check_nan, position=2)
    _flags._set_anomaly_enabled(enabled, check_nan)
