"""Tensor attributes read from its metadata, and the small methods torch defines from others.

The sizes (``itemsize``, ``nbytes``), where it lives (``is_cpu``, ``get_device()``, -1 on
the CPU), how it lies in its storage (``storage_offset()``, in elements from the start of
the memory its view was taken of; ``layout``, always ``strided``; ``is_sparse``, always
False), ``ndimension()``, ``dim_order()`` (the dims from outermost to innermost in
memory), ``const_data_ptr()`` (``data_ptr()``), the backend questions ``is_mkldnn``,
``is_quantized``, ``is_nested``, ``is_sparse_csr``, ``is_xpu`` ... (always False here),
``to_dense()`` (``self``: every tensor is strided; with another ``dtype``, ``to(dtype)``),
``record_stream(stream)`` (a CUDA tensor's memory noted as in use on ``stream``; torch's
error on the CPU), ``is_pinned()`` (False) and ``pin_memory()`` (refused without an
accelerator, as torch's on a machine without one, else a copy); the casts ``short()``,
``char()``, ``byte()``, ``cfloat()``, ``cdouble()`` (``to(dtype)``, ``ToCopyBackward0``);
``positive()`` (``input`` itself, refused for bool), ``ravel()`` (a flat view where one
exists, else a flat copy), and the conjugate transposes ``H`` (a matrix), ``mH`` /
``adjoint()`` (the last two dims): a transpose, conjugated lazily for a complex tensor
(``ConjBackward0``).

>>> import autograd_cy as ag
>>> x = ag.ones(2, 3)
>>> x.nbytes, x[1:].storage_offset(), x.layout, x.get_device()
(24, 3, autograd_cy.strided, -1)
"""
import warnings

import numpy as np

import autograd_cy as _ag
from autograd_cy._C.tensor import _array_of, _register_methods
from autograd_cy.composed_ops import ComposedOp
from autograd_cy.memory_formats import PackageConstant
from autograd_cy.storage import memory_root

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
    return (_pointer(array) - _pointer(memory_root(self))) // array.itemsize


def get_device(self):
    """The CUDA device's index, -1 for a tensor on the CPU."""
    return self.device.index if self.is_cuda else -1


def const_data_ptr(self):
    """The address of the first element (``data_ptr()``: no tensor here is read-only)."""
    return self.data_ptr()


def is_pinned(self, device=None):
    """Whether the tensor lives in page-locked host memory: never here."""
    return False


class PinMemory(ComposedOp):
    """``pin_memory``'s op (torch's ``PinMemoryBackward0``): a copy."""


PinMemory._backward_cls.__name__ = "PinMemoryBackward0"


def pin_memory(self, device=None):
    """A copy for fast transfers to an accelerator: refused without one (as torch's on a
    machine without one); with one, a plain copy in the same layout (host memory is not
    page-locked here, so ``is_pinned()`` stays False), recorded as torch's
    ``PinMemoryBackward0``."""
    if not _ag.cuda.is_available():
        raise RuntimeError("Cannot access accelerator device when none is available.")
    if self.is_cuda:
        raise RuntimeError(f"cannot pin '{self.type()}' only dense CPU tensors can be pinned")
    return PinMemory.apply(lambda x: x.clone(), self)


def _dims_by_stride(self, dim_a, dim_b):
    """torch's comparison of two dims for ``dim_order``: 1 puts ``dim_a`` inside, -1
    outside, 0 undecided (a zero stride, or equal strides and sizes)."""
    def at_least(a, b):
        return b == 0 or (a != 0 and (a >= b or a % b == 0))
    stride_a, stride_b = self.stride(dim_a), self.stride(dim_b)
    if stride_a == 0 or stride_b == 0:
        return 0
    if stride_a == stride_b:
        return 0 if at_least(self.shape[dim_b], self.shape[dim_a]) else 1
    if at_least(stride_b, stride_a):
        return -1
    return 1 if at_least(stride_a, stride_b) else 0


def _memory_order(self):
    """The dims from outermost to innermost: an insertion sort of the dims by stride, from
    the last dim to the first, in which an undecided comparison keeps the order."""
    ndim = self.dim()
    if ndim < 2:
        return list(range(ndim))
    is_contiguous = self.is_contiguous()
    is_channels_last = ndim == 4 and self.is_contiguous(memory_format=_ag.channels_last)
    if is_contiguous and not is_channels_last:
        return list(range(ndim))
    if is_channels_last and not is_contiguous:
        return [0, 2, 3, 1]
    perm = list(reversed(range(ndim)))
    for i in range(1, ndim):
        inner = i
        for outer in reversed(range(i)):
            decision = _dims_by_stride(self, perm[outer], perm[inner])
            if decision > 0:
                perm[outer], perm[inner] = perm[inner], perm[outer]
                inner = outer
            elif decision < 0:
                break
    return perm[::-1]


def dim_order(self, *, ambiguity_check=False):
    """The dims from the outermost to the innermost in memory. ``ambiguity_check=True``
    refuses a tensor whose order is not unique (a size-1 dim, two equal strides); a list
    of memory formats accepts such a tensor when exactly one of them describes it."""
    if not isinstance(ambiguity_check, bool) and not (
            isinstance(ambiguity_check, list) and all(
                isinstance(f, _ag.memory_format) for f in ambiguity_check)):
        raise TypeError("The ambiguity_check argument must be a bool or a list of memory "
                        "formats.")
    formats = ambiguity_check if isinstance(ambiguity_check, list) else []
    check = ambiguity_check if isinstance(ambiguity_check, bool) else True
    strides = self.stride()
    several = any(a == b for a, b in zip(strides, strides[1:])) or 1 in self.shape
    if check and several and sum(self.is_contiguous(memory_format=f) for f in formats) != 1:
        raise RuntimeError("The tensor does not have unique dim order, or cannot map to "
                           "exact one of the given memory formats.")
    order = _memory_order(self)
    if ambiguity_check and self.dim() > 1 and not all(
            _dims_by_stride(self, inner, outer) == -1
            for outer, inner in zip(order, order[1:])):
        raise RuntimeError("The tensor does not have unique dim order.")
    return tuple(order)


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


def to_dense(self, dtype=None, *, masked_grad=None):
    """``self`` (a strided tensor already), or ``self.to(dtype)`` for another dtype."""
    if dtype is not None and not isinstance(dtype, _ag.dtype):
        raise TypeError(f"to_dense(): argument 'dtype' (position 1) must be torch.dtype, "
                        f"not {type(dtype).__name__}")
    if masked_grad is not None and not isinstance(masked_grad, bool):
        raise TypeError(f"to_dense(): argument 'masked_grad' must be bool, not "
                        f"{type(masked_grad).__name__}")
    return self if dtype is None or dtype is self.dtype else self.to(dtype)


def record_stream(self, stream):
    """Note that ``stream`` (a ``cuda.Stream``) uses this CUDA tensor's memory, so that the
    allocator would not reuse it before the stream's work is done (kept in
    ``_recorded_streams``; the emulated device finishes every launch at once)."""
    from autograd_cy.cuda.streams import Stream     # the CUDA package sits above
    if not isinstance(stream, Stream) or not self.is_cuda:
        raise RuntimeError("unknown parameter type")
    self.__dict__.setdefault("_recorded_streams", []).append(stream)


def _cast(dtype):
    def cast(self, memory_format=None):
        if memory_format is None:
            return self.to(dtype)
        return self.to(dtype, memory_format=memory_format)
    cast.__doc__ = f"``self.to({dtype!r})``."
    return cast


def _always_false(self):
    return False


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


def _set_grad_fn(self, value):
    """torch's private ``_grad_fn``: only None may be assigned, which detaches in place."""
    if value is not None:
        raise RuntimeError("_grad_fn can be only set to None")
    self.detach_()


def _refuse_grad_fn_deletion(self):
    raise RuntimeError("Deletion of _grad_fn not allowed. Detach tensor instead!")


_register_methods({
    "_grad_fn": property(lambda self: self.grad_fn, _set_grad_fn, _refuse_grad_fn_deletion,
                         doc="``grad_fn`` (torch's private alias; None detaches)."),
    "volatile": property(_volatile, _set_volatile,
                         doc="Removed (PyTorch < 0.4): always False, with a warning."),
    "__dir__": _dir,
    "itemsize": property(lambda self: self.element_size(), doc="Bytes per element."),
    "nbytes": property(lambda self: self.numel() * self.element_size(),
                       doc="Bytes of the elements (numel times itemsize)."),
    "is_cpu": property(lambda self: self.device.type == "cpu",
                       doc="Whether the tensor is on the CPU."),
    "layout": property(lambda self: strided, doc="The layout: always ``strided``."),
    "is_sparse": property(lambda self: False, doc="Always False: every tensor is dense."),
    "is_mkldnn": property(_always_false, doc="Always False here."),
    "is_quantized": property(_always_false, doc="Always False here."),
    "is_nested": property(_always_false, doc="Always False here."),
    "is_sparse_csr": property(_always_false, doc="Always False here."),
    "is_xpu": property(_always_false, doc="Always False here."),
    "is_mps": property(_always_false, doc="Always False here."),
    "is_vulkan": property(_always_false, doc="Always False here."),
    "is_ipu": property(_always_false, doc="Always False here."),
    "is_xla": property(_always_false, doc="Always False here."),
    "is_mtia": property(_always_false, doc="Always False here."),
    "is_maia": property(_always_false, doc="Always False here."),
    "H": property(_H, doc="The conjugate transpose of a matrix."),
    "mH": property(_mH, doc="The conjugate transpose of each matrix (the last two dims)."),
    "get_device": get_device,
    "storage_offset": storage_offset,
    "ndimension": ndimension,
    "const_data_ptr": const_data_ptr,
    "is_pinned": is_pinned,
    "pin_memory": pin_memory,
    "to_dense": to_dense,
    "record_stream": record_stream,
    "dim_order": dim_order,
    "positive": positive,
    "ravel": ravel,
    "adjoint": adjoint,
    "short": _cast(_ag.int16),
    "char": _cast(_ag.int8),
    "byte": _cast(_ag.uint8),
    "cfloat": _cast(_ag.complex64),
    "cdouble": _cast(_ag.complex128),
})
