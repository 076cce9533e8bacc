"""Padding layers, each ``F.pad`` in one mode over the last one, two or three dims:
``ConstantPad1d/2d/3d`` (and ``ZeroPad1d/2d/3d``, a constant 0.0), ``ReflectionPad1d/2d/3d``,
``ReplicationPad1d/2d/3d`` and ``CircularPad1d/2d/3d``.

``padding`` is an int (the same amount at every boundary) or a tuple ``(left, right, top,
bottom, front, back)`` cut to the dims padded; it is stored as a tuple and not checked, so a
wrong length or an input of the wrong rank meets ``F.pad``'s errors in ``forward``. Only
the circular modules check the input's rank themselves (a ``ValueError``), as torch's do.
Each layer has its own ``__init__``, as in torch, so that an argument missing or too many is
reported under the layer's name (``ConstantPad1d.__init__() missing 1 required positional
argument: 'value'``).
"""
from autograd_cy.nn import functional as F
from autograd_cy.nn.modules.module import Module
from autograd_cy.nn.tuples import _ntuple

__all__ = ["CircularPad1d", "CircularPad2d", "CircularPad3d", "ConstantPad1d", "ConstantPad2d",
           "ConstantPad3d", "ReflectionPad1d", "ReflectionPad2d", "ReflectionPad3d",
           "ReplicationPad1d", "ReplicationPad2d", "ReplicationPad3d", "ZeroPad1d", "ZeroPad2d",
           "ZeroPad3d"]


class _PadNd(Module):
    """``F.pad(input, self.padding, mode)`` over the last ``_dims`` dims of the input."""

    __constants__ = ["padding"]
    _mode = None
    _dims = None

    def __init__(self, padding):
        super().__init__()
        self.padding = _ntuple(2 * self._dims)(padding)

    def forward(self, input):
        return F.pad(input, self.padding, self._mode)

    def extra_repr(self):
        return f"{self.padding}"


# ------------------------------------------------------------------ constant

class _ConstantPadNd(_PadNd):
    """Pads the input tensor boundaries with the constant ``value``."""

    __constants__ = ["padding", "value"]
    _mode = "constant"

    def __init__(self, padding, value):
        super().__init__(padding)
        self.value = value

    def forward(self, input):
        return F.pad(input, self.padding, "constant", self.value)

    def extra_repr(self):
        return f"padding={self.padding}, value={self.value}"


class ConstantPad1d(_ConstantPadNd):
    """Pads the last dim with ``value``: ``padding`` an int or ``(left, right)``."""

    _dims = 1

    def __init__(self, padding, value):
        super().__init__(padding, value)


class ConstantPad2d(_ConstantPadNd):
    """Pads the last 2 dims with ``value``: ``padding`` an int or ``(left, right, top,
    bottom)``."""

    _dims = 2

    def __init__(self, padding, value):
        super().__init__(padding, value)


class ConstantPad3d(_ConstantPadNd):
    """Pads the last 3 dims with ``value``: ``padding`` an int or ``(left, right, top, bottom,
    front, back)``."""

    _dims = 3

    def __init__(self, padding, value):
        super().__init__(padding, value)


class ZeroPad1d(ConstantPad1d):
    """Pads the last dim with zero: ``padding`` an int or ``(left, right)``."""

    def __init__(self, padding):
        super().__init__(padding, 0.0)

    def extra_repr(self):
        return f"{self.padding}"


class ZeroPad2d(ConstantPad2d):
    """Pads the last 2 dims with zero: ``padding`` an int or ``(left, right, top, bottom)``."""

    def __init__(self, padding):
        super().__init__(padding, 0.0)

    def extra_repr(self):
        return f"{self.padding}"


class ZeroPad3d(ConstantPad3d):
    """Pads the last 3 dims with zero: ``padding`` an int or ``(left, right, top, bottom,
    front, back)``."""

    def __init__(self, padding):
        super().__init__(padding, 0.0)

    def extra_repr(self):
        return f"{self.padding}"


# ------------------------------------------------------------------ reflection

class _ReflectionPadNd(_PadNd):
    """Pads the input tensor using the reflection of the input boundary (each amount less
    than the dim's size)."""

    _mode = "reflect"


class ReflectionPad1d(_ReflectionPadNd):
    """Reflects the last dim of a ``(C, W)`` or ``(N, C, W)`` input."""

    _dims = 1

    def __init__(self, padding):
        super().__init__(padding)


class ReflectionPad2d(_ReflectionPadNd):
    """Reflects the last 2 dims of a ``(C, H, W)`` or ``(N, C, H, W)`` input."""

    _dims = 2

    def __init__(self, padding):
        super().__init__(padding)


class ReflectionPad3d(_ReflectionPadNd):
    """Reflects the last 3 dims of a ``(C, D, H, W)`` or ``(N, C, D, H, W)`` input."""

    _dims = 3

    def __init__(self, padding):
        super().__init__(padding)


# ------------------------------------------------------------------ replication

class _ReplicationPadNd(_PadNd):
    """Pads the input tensor using replication of the input boundary."""

    _mode = "replicate"


class ReplicationPad1d(_ReplicationPadNd):
    """Replicates the edges of the last dim of a ``(C, W)`` or ``(N, C, W)`` input."""

    _dims = 1

    def __init__(self, padding):
        super().__init__(padding)


class ReplicationPad2d(_ReplicationPadNd):
    """Replicates the edges of the last 2 dims of a ``(C, H, W)`` or ``(N, C, H, W)`` input."""

    _dims = 2

    def __init__(self, padding):
        super().__init__(padding)


class ReplicationPad3d(_ReplicationPadNd):
    """Replicates the edges of the last 3 dims of a ``(C, D, H, W)`` or ``(N, C, D, H, W)``
    input."""

    _dims = 3

    def __init__(self, padding):
        super().__init__(padding)


# ------------------------------------------------------------------ circular

class _CircularPadNd(_PadNd):
    """Pads the input tensor using circular padding of the input boundary: the values at
    the beginning of a dim pad its end and those at the end its beginning."""

    _mode = "circular"

    def _check_input_dim(self, input):
        batched, unbatched = self._dims + 2, self._dims + 1
        if input.dim() not in (unbatched, batched):
            raise ValueError(f"expected {unbatched}D or {batched}D input "
                             f"(got {input.dim()}D input)")

    def forward(self, input):
        self._check_input_dim(input)
        return super().forward(input)


class CircularPad1d(_CircularPadNd):
    """Wraps the last dim of a ``(C, W)`` or ``(N, C, W)`` input around."""

    _dims = 1

    def __init__(self, padding):
        super().__init__(padding)


class CircularPad2d(_CircularPadNd):
    """Wraps the last 2 dims of a ``(C, H, W)`` or ``(N, C, H, W)`` input around."""

    _dims = 2

    def __init__(self, padding):
        super().__init__(padding)


class CircularPad3d(_CircularPadNd):
    """Wraps the last 3 dims of a ``(C, D, H, W)`` or ``(N, C, D, H, W)`` input around."""

    _dims = 3

    def __init__(self, padding):
        super().__init__(padding)
