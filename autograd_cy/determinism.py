"""``use_deterministic_algorithms`` and the questions that read it back.

autograd_cy's CPU ops give the same bits on every run, so the flag asks nothing of them;
it is recorded so that scripts that set it (for reproducibility) and libraries that read
it (``are_deterministic_algorithms_enabled()``) behave as under torch.
"""
import builtins

__all__ = ["use_deterministic_algorithms", "are_deterministic_algorithms_enabled",
           "is_deterministic_algorithms_warn_only_enabled"]

_enabled = False
_warn_only = False


def use_deterministic_algorithms(mode, *, warn_only=False):
    """Set the deterministic-algorithms flag (a bool, as torch insists) and its warn-only
    variant."""
    global _enabled, _warn_only
    if not isinstance(mode, builtins.bool):
        raise TypeError(f"_set_deterministic_algorithms(): argument 'mode' (position 1) must "
                        f"be bool, not {type(mode).__name__}")
    if not isinstance(warn_only, builtins.bool):
        raise TypeError(f"_set_deterministic_algorithms(): argument 'warn_only' must be bool, "
                        f"not {type(warn_only).__name__}")
    _enabled, _warn_only = mode, warn_only


def are_deterministic_algorithms_enabled():
    """Whether ``use_deterministic_algorithms(True)`` is in force."""
    return _enabled


def is_deterministic_algorithms_warn_only_enabled():
    """Whether it was set with ``warn_only=True``."""
    return _warn_only
