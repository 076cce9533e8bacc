"""Tensor attributes read from its metadata, and the small methods torch defines from others.

The sizes (``itemsize``, ``nbytes``), where it lives (``is_cpu``, ``get_device()``, -1 on the
CPU), how it lies in its storage (``storage_offset()``, in elements from the start of the
memory its view was taken of; ``layout``, always ``strided``; ``is_sparse``, always False),
``ndimension()``; the casts ``short()``, ``char()``, ``byte()``, ``cfloat()``, ``cdouble()``
(``to(dtype)``, ``ToCopyBackward0``); ``positive()`` (``input`` itself, refused for bool),
``ravel()`` (a flat view where one exists, else a flat copy), and the conjugate transposes
``H`` (a matrix), ``mH`` / ``adjoint()`` (the last two dims): a transpose, conjugated
lazily for a complex tensor (``ConjBackward0``).

>>> import autograd_cy as ag
>>> x = ag.ones(2, 3)
>>> x.nbytes, x[1:].storage_offset(), x.layout, x.get_device()
(24, 3, autograd_cy.strided, -1)
"""
import warnings

import numpy as np

import autograd_cy as _ag
from autograd_cy._C.tensor import _array_of, _register_methods
from autograd_cy.memory_formats import PackageConstant

__all__ = ["layout", "strided", "positive", "ravel", "adjoint"]


class layout(PackageConstant):
    """A tensor layout; autograd_cy has one, ``strided`` (a dense array with strides)."""
    __slots__ = ()


strided = layout("strided")


def _pointer(array):
    raw = getattr(array, "raw", array)          # a DeviceArray: the seam's array
    if isinstance(raw, np.ndarray):
        return raw.ctypes.data
    return raw.data.ptr


def storage_offset(self):
    """Where the tensor starts in its storage, in elements: the distance from the start
    of the memory its view was taken of."""
    array = _array_of(self)
    root = getattr(array, "raw", array)
    while getattr(root, "base", None) is not None and hasattr(root.base, "dtype"):
        root = root.base
    return (_pointer(array) - _pointer(root)) // array.itemsize


def get_device(self):
    """The CUDA device's index, -1 for a tensor on the CPU."""
    return self.device.index if self.is_cuda else -1


def ndimension(self):
    """The number of dims (``dim()``)."""
    return self.dim()


def positive(input):
    """``input`` itself (unary ``+``); refused for a bool tensor."""
    if input.dtype is _ag.bool:
        raise RuntimeError("The `+` operator, on a bool tensor is not supported.")
    return input


def ravel(input):
    """The elements in one dim, in row-major order: a view of a contiguous tensor, else a
    copy."""
    return input.contiguous().view(-1)


def _conjugate_transpose(input):
    transposed = input.transpose(-2, -1)
    return transposed.conj() if input.is_complex() else transposed


def adjoint(input):
    """The conjugate transpose of each matrix: the last two dims swapped, conjugated (a
    lazy conjugate) when complex."""
    if input.dim() < 2:
        raise RuntimeError(f"tensor.adjoint() is only supported on matrices or batches of "
                           f"matrices. Got {input.dim()}-D tensor.")
    return _conjugate_transpose(input)


def _mH(self):
    if self.dim() < 2:
        raise RuntimeError(f"tensor.mH is only supported on matrices or batches of matrices. "
                           f"Got {self.dim()}-D tensor.")
    return _conjugate_transpose(self)


def _H(self):
    if self.dim() == 0:
        warnings.warn("Tensor.H is deprecated on 0-D tensors. Consider using x.conj().",
                      UserWarning, stacklevel=2)
        return self.conj()
    if self.dim() != 2:
        hint = " For batches of matrices, consider using tensor.mH" if self.dim() > 2 else ""
        raise RuntimeError(f"tensor.H is only supported on matrices (2-D tensors). Got "
                           f"{self.dim()}-D tensor.{hint}")
    return _conjugate_transpose(self)


def _cast(dtype):
    def cast(self, memory_format=None):
        if memory_format is None:
            return self.to(dtype)
        return self.to(dtype, memory_format=memory_format)
    cast.__doc__ = f"``self.to({dtype!r})``."
    return cast


def _volatile(self):
    warnings.warn("volatile was removed (Variable.volatile is always False)", UserWarning,
                  stacklevel=2)
    return False


def _set_volatile(self, value):
    warnings.warn("volatile was removed and now has no effect. Use `with torch.no_grad():` "
                  "instead.", UserWarning, stacklevel=2)


def _dir(self):
    """The attributes, as torch lists them: without the removed ``volatile``, and without
    ``__cuda_array_interface__`` unless the tensor is on a CUDA device (where it exists)."""
    keys = set(object.__dir__(self)) - {"volatile"}
    if not self.is_cuda:
        keys.discard("__cuda_array_interface__")
    return sorted(keys)


_register_methods({
    "volatile": property(_volatile, _set_volatile,
                         doc="Removed (PyTorch < 0.4): always False, with a warning."),
    "__dir__": _dir,
    "itemsize": property(lambda self: self.element_size(), doc="Bytes per element."),
    "nbytes": property(lambda self: self.numel() * self.element_size(),
                       doc="Bytes of the elements (numel times itemsize)."),
    "is_cpu": property(lambda self: not self.is_cuda, doc="Whether the tensor is on the CPU."),
    "layout": property(lambda self: strided, doc="The layout: always ``strided``."),
    "is_sparse": property(lambda self: False, doc="Always False: every tensor is dense."),
    "H": property(_H, doc="The conjugate transpose of a matrix."),
    "mH": property(_mH, doc="The conjugate transpose of each matrix (the last two dims)."),
    "get_device": get_device,
    "storage_offset": storage_offset,
    "ndimension": ndimension,
    "positive": positive,
    "ravel": ravel,
    "adjoint": adjoint,
    "short": _cast(_ag.int16),
    "char": _cast(_ag.int8),
    "byte": _cast(_ag.uint8),
    "cfloat": _cast(_ag.complex64),
    "cdouble": _cast(_ag.complex128),
})
