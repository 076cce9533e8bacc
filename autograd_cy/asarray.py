"""``torch.asarray`` and ``torch.frombuffer``: a tensor over existing memory where it can be.

``asarray(obj, *, dtype=None, device=None, copy=None, requires_grad=None)`` reads, in
torch's order: a tensor (itself); a NumPy array (its memory; a NumPy scalar is copied); an
object with ``__dlpack__`` (its memory); an object with the buffer protocol (its bytes read
as ``dtype``, the default dtype when none: ``frombuffer``); else a scalar or a sequence (a
new tensor with ``tensor``'s dtype inference). Memory is shared unless ``copy=True``, or
(``copy=None``) a different ``dtype`` or ``device`` needs a copy (``to``, recorded as
``ToCopyBackward0``); ``copy=False`` refuses what needs one. ``requires_grad`` True or False
sets the flag of the result, as torch does: on a leaf returned as it is, that is the input
itself; a tensor with a history is detached for False.

``frombuffer(buffer, *, dtype, count=-1, offset=0, requires_grad=False)``: a 1-D tensor over
the bytes of ``buffer`` from ``offset`` (``count`` elements, or all that remain). A
read-only buffer (``bytes``) gives a read-only tensor here, where torch's can be written
(undefined behaviour there); both warn once.

>>> import autograd_cy as ag
>>> data = bytearray(b"\\x01\\x02")
>>> t = ag.frombuffer(data, dtype=ag.uint8)
>>> t[0] = 7
>>> data[0]
7
"""
import numpy as np

from autograd_cy import dtypes as _dtypes
from autograd_cy import factories as _factories
from autograd_cy._C import device as _device_module
from autograd_cy._C.tensor import Tensor
from autograd_cy.warn_always import warn_once

__all__ = ["asarray", "frombuffer"]

_NOT_WRITABLE_NUMPY = (
    "The given NumPy array is not writable, and PyTorch does not support non-writable "
    "tensors. This means writing to this tensor will result in undefined behavior. You may "
    "want to copy the array to protect its data or make it writable before converting it "
    "to a tensor. This type of warning will be suppressed for the rest of this program.")
_NOT_WRITABLE_BUFFER = (
    "The given buffer is not writable, and PyTorch does not support non-writable tensors. "
    "This means you can write to the underlying (supposedly non-writable) buffer using the "
    "tensor. You may want to copy the buffer to protect its data or make it writable before "
    "converting it to a tensor. This type of warning will be suppressed for the rest of this "
    "program.")


def _check_grad_dtype(dtype, requires_grad):
    if requires_grad and not (dtype.is_floating_point or dtype.is_complex):
        raise RuntimeError("Only Tensors of floating point and complex dtype can require "
                           "gradients")


def frombuffer(buffer, *, dtype, count=-1, offset=0, requires_grad=False):
    """A 1-D tensor of ``dtype`` sharing the bytes of ``buffer`` (an object with the buffer
    protocol) from byte ``offset``: ``count`` elements, or (negative) all that remain."""
    try:
        view = memoryview(buffer)
    except TypeError:
        raise ValueError("object does not implement Python buffer protocol.") from None
    if view.readonly:
        warn_once(_NOT_WRITABLE_BUFFER, 2)
    length = view.nbytes
    numpy_dtype = _factories._numpy_dtype(dtype)
    size = np.dtype(numpy_dtype).itemsize
    if not (length > 0 and count != 0):
        raise ValueError(f"both buffer length ({length}) and count ({count}) must not be 0")
    if not 0 <= offset < length:
        raise ValueError(f"offset ({offset} bytes) must be non-negative and no greater than "
                         f"buffer length ({length} bytes) minus 1")
    if count < 0 and (length - offset) % size:
        raise ValueError(f"buffer length ({length - offset} bytes) after offset ({offset} "
                         f"bytes) must be a multiple of element size ({size})")
    actual = (length - offset) // size if count < 0 else count
    if offset + actual * size > length:
        raise ValueError(f"requested buffer length ({actual} * {size} bytes) after offset "
                         f"({offset} bytes) must not be greater than actual buffer length "
                         f"({length} bytes)")
    _check_grad_dtype(dtype, requires_grad)
    array = np.frombuffer(view.cast("B") if view.ndim != 1 or view.format != "B" else view,
                          dtype=numpy_dtype, count=actual, offset=offset)
    tensor = _factories._make(array, False, "cpu")
    return tensor.requires_grad_() if requires_grad else tensor


def _same_device(tensor, device):
    return _device_module.resolved_device(device) == tensor.device


def _aliased(obj, dtype):
    """The tensor ``obj`` is or whose memory it exposes, or None for a sequence or scalar;
    whether it was copied already (a NumPy scalar)."""
    if isinstance(obj, Tensor):
        return obj, False
    if isinstance(obj, (np.ndarray, np.generic)):
        array = np.asarray(obj)
        _factories._check_numpy(array)
        if not array.flags.writeable and isinstance(obj, np.ndarray):
            warn_once(_NOT_WRITABLE_NUMPY, 3)
        if isinstance(obj, np.generic):
            return _factories._make(np.array(array), False, "cpu"), True
        return _factories.from_numpy(array), False
    if hasattr(obj, "__dlpack__") and hasattr(obj, "__dlpack_device__"):
        from autograd_cy.dlpack import from_dlpack
        return from_dlpack(obj), False
    try:
        memoryview(obj)
    except TypeError:
        return None, False
    default = dtype if dtype is not None else _dtypes.get_default_dtype()
    return frombuffer(obj, dtype=default), False


def asarray(obj, *, dtype=None, device=None, copy=None, requires_grad=None):
    """``obj`` as a tensor, sharing its memory where it can (see the module's doc)."""
    if isinstance(obj, np.generic) and not isinstance(obj, np.ndarray) and copy is False:
        raise RuntimeError("can't alias NumPy scalars. Either remove copy=False or transform "
                           "it in a ndarray. ")
    tensor, copied = _aliased(obj, dtype)
    if tensor is None:
        if copy is False:
            raise ValueError("can't alias arbitrary sequence into a tensor.")
        return _factories.tensor(obj, dtype=dtype, device=device,
                                 requires_grad=bool(requires_grad))
    wrong_device = device is not None and not _same_device(tensor, device)
    wrong_dtype = dtype is not None and dtype != tensor.dtype
    if (copy and not copied) or (copy is None and (wrong_device or wrong_dtype)):
        if wrong_device or wrong_dtype:
            tensor = tensor.to(device if device is not None else tensor.device,
                               dtype if dtype is not None else tensor.dtype,
                               copy=bool(copy))
        else:
            tensor = tensor.clone()
    else:
        if wrong_device:
            raise ValueError(f"can't alias tensor from device '{tensor.device}' to "
                             f"'{_device_module.resolved_device(device)}'.")
        if wrong_dtype:
            raise ValueError(f"can't alias tensor with dtype '{tensor.dtype._scalar_name}' "
                             f"into dtype '{dtype._scalar_name}'.")
    if requires_grad is None:
        return tensor
    if not tensor.is_leaf and not requires_grad:
        return tensor.detach()
    if tensor.is_leaf:
        _check_grad_dtype(tensor.dtype, requires_grad)
        tensor.requires_grad_(requires_grad)
    return tensor
