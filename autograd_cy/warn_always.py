"""``set_warn_always``: whether warnings that torch gives once per process (its
``TORCH_WARN_ONCE``) are given every time, and ``warn_once``, the way such a warning is
given here."""
import builtins
import warnings

from autograd_cy._C import backward as _backward

__all__ = ["set_warn_always", "is_warn_always_enabled"]

_warn_always = False
_warned = set()


def set_warn_always(b):
    """When ``b`` is True, warnings that are otherwise given once per process are given
    every time they occur."""
    global _warn_always
    if not isinstance(b, builtins.bool):
        raise RuntimeError(f"setWarnOnlyOnce expects a bool, but got {type(b).__name__}")
    _warn_always = b


def is_warn_always_enabled():
    """Whether ``set_warn_always(True)`` is in force."""
    return _warn_always


def warn_once(message, stacklevel=1, category=UserWarning):
    """Warn ``message`` the first time in this process only, or every time under
    ``set_warn_always(True)``; ``stacklevel`` counts from the caller of this."""
    if _warn_always or message not in _warned:
        _warned.add(message)
        warnings.warn(message, category, stacklevel=stacklevel + 1)


_backward._set_warn_once(warn_once)     # backward(create_graph=True)'s warning gives it
