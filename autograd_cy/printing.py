"""``set_printoptions``: how ``repr(tensor)`` writes numbers (precision), when it
summarises (threshold, edgeitems), where it wraps (linewidth), and whether it uses
scientific notation (sci_mode), as torch's options do.

The options are the globals of the core's printer (NOTE [Print options as module globals]
in pyx/tensor_repr.pyx): setting them here changes every later repr, and printing costs
what it did. ``get_printoptions`` and ``printoptions`` (a context manager) are torch's
``torch._tensor_str`` helpers; torch's namespace has only ``set_printoptions``.
"""
import contextlib

from autograd_cy._C import tensor_repr as _printer

__all__ = ["set_printoptions"]

_PROFILES = {
    "default": {"precision": 4, "threshold": 1000, "edgeitems": 3, "linewidth": 80},
    "short": {"precision": 2, "threshold": 1000, "edgeitems": 2, "linewidth": 80},
    "full": {"precision": 4, "threshold": float("inf"), "edgeitems": 3, "linewidth": 80},
}

_GLOBALS = {"precision": "_PRECISION", "threshold": "_THRESHOLD", "edgeitems": "_EDGE_ITEMS",
            "linewidth": "_LINE_WIDTH", "sci_mode": "_SCI_MODE"}


def set_printoptions(precision=None, threshold=None, edgeitems=None, linewidth=None,
                     profile=None, sci_mode=None):
    """Set the print options: a ``profile`` ("default", "short" or "full") first, then the
    options given. As in torch, ``sci_mode`` is always set (None: chosen from the values)."""
    options = dict(_PROFILES.get(profile, {})) if profile is not None else {}
    for name, value in (("precision", precision), ("threshold", threshold),
                        ("edgeitems", edgeitems), ("linewidth", linewidth)):
        if value is not None:
            options[name] = value
    options["sci_mode"] = sci_mode
    for name, value in options.items():
        setattr(_printer, _GLOBALS[name], value)


def get_printoptions():
    """The current options, as keyword arguments of ``set_printoptions``."""
    return {name: getattr(_printer, attribute) for name, attribute in _GLOBALS.items()}


@contextlib.contextmanager
def printoptions(**kwargs):
    """The options ``kwargs`` for the duration of a ``with`` block."""
    old = get_printoptions()
    set_printoptions(**kwargs)
    try:
        yield
    finally:
        set_printoptions(**old)
