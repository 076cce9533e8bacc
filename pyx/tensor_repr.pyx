"""``repr(tensor)`` in PyTorch's format: ``tensor([ 0.1875, -1.0409,  3.9634])``.

The rules (PyTorch's default print options: precision 4, threshold 1000 elements,
3 edge items, 80 columns; ``autograd_cy.set_printoptions`` sets the module's
options below, NOTE [Print options as module globals]):

* One format for the whole tensor, chosen from its finite non-zero values:
  all integral -> ``1.`` (or scientific when max/min > 1000 or max > 1e8);
  otherwise ``0.1875``, or scientific (``1.0000e-05``) when max/min > 1000,
  max > 1e8 or min < 1e-4. Every element is right-aligned to the widest one.
* Rows are wrapped to 80 columns; a tensor of more than 1000 elements shows
  its first and last 3 items per dim around ``...``.
* Suffixes: ``dtype=`` unless float32/int64/bool, ``size=`` for empty
  non-1-D tensors, then ``grad_fn=<Name>`` or ``requires_grad=True``.
"""
import math

import numpy as np

from autograd_cy._C.dtype cimport kind_of
from autograd_cy._C.dtype import get_default_dtype
from autograd_cy._C.tensor cimport tensor_operators, tangent_of
from autograd_cy._C.grad_mode cimport forward_level

__all__ = ["tensor_repr"]

# NOTE [Print options as module globals]
# The options are plain module globals, read when a tensor is printed: set_printoptions
# (autograd_cy/printing.py, above the core) writes them here, and printing pays one global
# lookup per read, as it did when they were constants. _SCI_MODE is None (choose from the
# values), True (always scientific) or False (never).
_PRECISION = 4
_THRESHOLD = 1000
_EDGE_ITEMS = 3
_LINE_WIDTH = 80
_SCI_MODE = None
_DEFAULT_DTYPES = ("float32", "int64", "bool", "complex64")


class _Format:
    """How every element of one tensor is written, and the common width."""

    def __init__(self, array):
        self.floating = kind_of(array.dtype) == "f"
        self.integral = True
        self.scientific = False
        self.width = 1
        values = array.reshape(-1)
        if not self.floating:
            if values.size:
                self.width = max(len(str(v)) for v in values.tolist())
            return
        values = values.astype(np.float64)
        values = values[np.isfinite(values) & (values != 0)]
        if values.size == 0:
            return
        magnitudes = np.abs(values)
        smallest, largest = magnitudes.min(), magnitudes.max()
        self.integral = bool(np.all(values == np.ceil(values)))
        wide_range = largest / smallest > 1000.0 or largest > 1.0e8
        if _SCI_MODE is not None:
            self.scientific = _SCI_MODE
        elif self.integral:
            self.scientific = wide_range
        else:
            self.scientific = wide_range or smallest < 1.0e-4
        if self.scientific:
            texts = (f"{v:.{_PRECISION}e}" for v in values.tolist())
        elif self.integral:
            texts = (f"{v:.0f}." for v in values.tolist())
        else:
            texts = (f"{v:.{_PRECISION}f}" for v in values.tolist())
        self.width = max(len(text) for text in texts)

    def __call__(self, value):
        if not self.floating:
            text = str(value)
        elif self.scientific:
            text = f"{value:{self.width}.{_PRECISION}e}"
        elif self.integral:
            text = f"{value:.0f}" + ("" if math.isinf(value) or math.isnan(value) else ".")
        else:
            text = f"{value:.{_PRECISION}f}"
        return text.rjust(self.width)


class _ComplexFormat:
    """A complex element as PyTorch writes it: the real part in the format of all real
    parts, then the imaginary part in the format of all imaginary parts, unpadded, with its
    sign (``1.5000+2.j``, ``-0.0000-1.j``)."""

    def __init__(self, array):
        self.real = _Format(array.real)
        self.imag = _Format(array.imag)
        self.width = self.real.width + self.imag.width + 1     # the ``j``

    def __call__(self, value):
        imag = (self.imag(value.imag) + "j").lstrip()
        return self.real(value.real) + (imag if imag[0] in "+-" else "+" + imag)


def _edges(array):
    """The first and last edge items along every dim (what a summary shows)."""
    for axis in range(array.ndim):
        if array.shape[axis] > 2 * _EDGE_ITEMS:
            head = np.take(array, range(_EDGE_ITEMS), axis=axis)
            tail = np.take(array, range(array.shape[axis] - _EDGE_ITEMS, array.shape[axis]),
                           axis=axis)
            array = np.concatenate([head, tail], axis=axis)
    return array


def _body(array, indent, summarize, fmt):
    """The nested ``[...]`` text; ``indent`` is the column the opening bracket sits at."""
    if array.ndim == 0:
        return fmt(array.item())
    size = array.shape[0]
    shortened = summarize and size > 2 * _EDGE_ITEMS
    if array.ndim == 1:
        if shortened:
            items = ([fmt(v) for v in array[:_EDGE_ITEMS].tolist()] + [" ..."]
                     + [fmt(v) for v in array[-_EDGE_ITEMS:].tolist()])
        else:
            items = [fmt(v) for v in array.tolist()]
        per_line = max(1, (_LINE_WIDTH - indent) // (fmt.width + 2))
        lines = [", ".join(items[i:i + per_line]) for i in range(0, len(items), per_line)]
        return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"
    if shortened:
        rows = ([_body(array[i], indent + 1, summarize, fmt) for i in range(_EDGE_ITEMS)]
                + ["..."]
                + [_body(array[i], indent + 1, summarize, fmt)
                   for i in range(size - _EDGE_ITEMS, size)])
    else:
        rows = [_body(array[i], indent + 1, summarize, fmt) for i in range(size)]
    return "[" + ("," + "\n" * (array.ndim - 1) + " " * (indent + 1)).join(rows) + "]"


def _with_suffixes(text, suffixes, indent):
    """Append ``, suffix`` items, starting a new line where one would pass 80 columns."""
    parts = [text]
    line_length = len(text) - text.rfind("\n") + 1
    for suffix in suffixes:
        if line_length + len(suffix) + 2 > _LINE_WIDTH:
            parts.append(",\n" + " " * indent + suffix)
            line_length = indent + len(suffix)
        else:
            parts.append(", " + suffix)
            line_length += len(suffix) + 2
    parts.append(")")
    return "".join(parts)


def tensor_repr(t):
    """``repr`` of a Tensor, character for character as PyTorch prints it."""
    prefix = "tensor("
    indent = len(prefix)
    if t.is_meta:           # no values to print (NOTE [Meta tensors])
        suffixes = ["device='meta'", f"size={tuple(t.shape)}"]
        if t.dtype != get_default_dtype():  # int64 and bool too, unlike a tensor with values
            suffixes.append(f"dtype={t.dtype!r}")
        return _with_suffixes(prefix + "...", suffixes + _grad_suffixes(t), indent)
    cuda = t.is_cuda
    array = t.detach().cpu().numpy() if cuda else t.numpy(force=True)
    suffixes = [f"device='{t.device}'"] if cuda else []
    if array.size == 0:
        body = "[]"
        if array.ndim != 1:
            suffixes.append(f"size={tuple(array.shape)}")
    else:
        if array.dtype == np.float16:
            array = array.astype(np.float32)
        summarize = array.size > _THRESHOLD
        shown = _edges(array) if summarize else array
        fmt = _ComplexFormat(shown) if array.dtype.kind == "c" else _Format(shown)
        body = _body(array, indent, summarize, fmt)
    if t.dtype.name not in _DEFAULT_DTYPES:
        suffixes.append(f"dtype={t.dtype!r}")
    return _with_suffixes(prefix + body, suffixes + _grad_suffixes(t), indent)


def _grad_suffixes(t):
    """The ``grad_fn=<...>`` or ``requires_grad=True`` part of a repr, and ``tangent=...``."""
    suffixes = []
    try:
        grad_fn = t.grad_fn
        name = grad_fn.name().rsplit('::', 1)[-1] if grad_fn is not None else None
    except RuntimeError:
        # A view made in no_grad mode and since modified in place refuses to rebuild its
        # grad_fn; its repr still prints.
        grad_fn, name = True, "Invalid"
    if grad_fn is not None:
        suffixes.append(f"grad_fn=<{name}>")
    elif t.requires_grad:
        suffixes.append("requires_grad=True")
    tangent = tangent_of(t, forward_level()) if forward_level() != 0 else None
    if tangent is not None:     # a dual tensor at the current level prints its tangent too
        suffixes.append(f"tangent={tangent}")
    return suffixes


cdef object repr_op(object t):
    return tensor_repr(t)


tensor_operators().repr = repr_op
