# cython: allow_none_for_extension_args=False
"""Copies and conversions: clone, contiguous, to(dtype), float()/double()/... .

A dtype conversion is differentiable between floating dtypes: its backward casts
the gradient back (ToCopyBackward0). Conversions to integer or bool dtypes leave
the result outside the graph, as in PyTorch.
"""
import warnings

import ml_dtypes
import numpy as np
cimport numpy as cnp

from autograd_cy._C.grad_mode cimport is_grad_enabled, forward_level
from autograd_cy._C.forward cimport forward1
from autograd_cy._C.dtype cimport to_numpy_dtype, kind_of
from autograd_cy._C.fp_errors cimport ignoring_fp_errors
from autograd_cy._C.half_cast cimport float32_to_float16, float16_to_float32
from autograd_cy._C.device cimport (
    device as device_class, array_to_device, device_of, resolved_device,
)
from autograd_cy._C.device import CPU, MetaArray
from autograd_cy._C.device cimport contiguous_array, empty_result_like, has_dense_layout
from autograd_cy._C.tensor cimport Tensor, requires_grad
from autograd_cy._C.ops.op_table cimport ElementwiseNode
from autograd_cy._C.recording cimport record1
from autograd_cy._C.promotion cimport wrap, is_complex_array

__all__ = ["clone"]
__tensor_methods__ = ("clone", "contiguous", "to", "type_as", "float", "double", "half",
                      "bfloat16", "int", "long", "bool", "cpu", "cuda")

# NOTE [Memory formats reach the ops through a slot]
# The memory formats (channels_last ...) and the layout copies they ask for are Python
# objects above the core (autograd_cy/memory_formats.py, layout_ops.py). clone, contiguous
# and to hand a call that names a memory_format to the functions layout_ops.py puts in this
# dict at import ("clone", "contiguous", "to"); a call without one never reads it.
memory_format_ops = {}


cdef class CloneBackward0(ElementwiseNode):
    """The gradient passes through unchanged; nothing is saved."""

    complex_formulas = True     # the gradient as it is (NOTE [Complex gradients] in conjugate.pyx)
    cpdef tuple apply(self, tuple grads):
        return (grads[0],)


cdef object clone_tangent(Tensor self_t, Tensor self, Tensor result, tuple extra):
    """A clone of ``self_t``."""
    return clone(self_t)


cdef object copy_like(object array):
    """A copy laid out as PyTorch's clone (preserve_format): the same strides when ``array``
    is non-overlapping and dense, else as a pointwise result (``empty_result_like``)."""
    if type(array) is cnp.ndarray and not has_dense_layout(<cnp.ndarray>array):
        copied = empty_result_like(array)
        copied[...] = array
        return copied
    return array.copy(order="K")


def clone(Tensor self, *, memory_format=None):
    """A copy with its own memory, recorded (gradient passes through unchanged); laid out
    in ``memory_format`` when given (NOTE [Memory formats reach the ops through a slot])."""
    if memory_format is not None:
        return memory_format_ops["clone"](self, memory_format)
    cdef Tensor out = wrap(copy_like(self._data))
    if is_grad_enabled() and requires_grad(self):
        record1(CloneBackward0(), self, out)
    if forward_level():
        forward1(out, self, clone_tangent)
    return out


cdef object contiguous_tangent(Tensor self_t, Tensor self, Tensor result, tuple extra):
    """A contiguous copy of ``self_t`` (a new tensor even when it is contiguous already)."""
    return clone(contiguous(self_t))


def contiguous(Tensor self, memory_format=None):
    """``self`` if already row-major contiguous (or laid out in ``memory_format``), else a
    contiguous clone (NOTE [Memory formats reach the ops through a slot])."""
    if memory_format is not None:
        return memory_format_ops["contiguous"](self, memory_format)
    if self._data.flags.c_contiguous:
        return self
    cdef Tensor out = wrap(contiguous_array(self._data))
    if is_grad_enabled() and requires_grad(self):
        record1(CloneBackward0(), self, out)
    if forward_level():
        forward1(out, self, contiguous_tangent)
    return out


cdef class ToCopyBackward0(ElementwiseNode):
    """The gradient converted back to the input's dtype and device; nothing else is saved."""
    cdef readonly object self_dtype
    cdef readonly device_class self_device

    complex_formulas = True     # the gradient as it is (NOTE [Complex gradients] in conjugate.pyx)
    cpdef tuple apply(self, tuple grads):
        grad = grads[0]
        if self.self_dtype.kind != "c" and is_complex_array((<Tensor>grad)._data):
            grad = grad.real        # a real input's gradient: dL/dx (NOTE [Complex gradients])
        return (_convert(grad, self.self_dtype, self.self_device),)


cdef Tensor _cast(Tensor self, object numpy_dtype):
    return _convert(self, numpy_dtype, None)


cdef Tensor _convert(Tensor self, object numpy_dtype, device_class target, bint copy=False):
    """``self`` in ``numpy_dtype`` on ``target`` (None: where it is), recorded between
    floating dtypes; ``self`` itself when nothing changes, unless ``copy``."""
    cdef ToCopyBackward0 node
    cdef device_class source = device_of(self._data)
    cdef bint moves = target is not None and not (target == source)
    if self._data.dtype == numpy_dtype and not moves and not copy:
        return self
    array = (array_to_device(self._data, target) if moves
             else copy_like(self._data) if copy and self._data.dtype == numpy_dtype
             else self._data)
    if array.dtype != numpy_dtype and type(array) is MetaArray:
        array = array.astype(numpy_dtype)       # NOTE [Meta tensors]: metadata only
    elif array.dtype != numpy_dtype:
        original = array
        if is_complex_array(array) and numpy_dtype.kind != "c":
            warnings.warn("Casting complex values to real discards the imaginary part",
                          UserWarning, stacklevel=2)
            array = array.real
        converted = (float32_to_float16(array) if numpy_dtype == np.float16
                     else float16_to_float32(array) if numpy_dtype == np.float32 else None)
        if converted is not None:       # NOTE [Rounding to float16]
            array = converted
        else:
            with ignoring_fp_errors():  # past the type's range: inf (or any int), quietly
                array = array.astype(numpy_dtype)
        if type(original) is cnp.ndarray and not has_dense_layout(<cnp.ndarray>original):
            # preserve_format of an expanded or overlapping input: contiguous, as torch's
            # _to_copy (its suggested memory format), never NumPy's order of the strides
            laid = np.empty(original.shape, dtype=numpy_dtype)
            laid[...] = array
            array = laid
    cdef Tensor out = wrap(array)
    if is_grad_enabled() and requires_grad(self) and kind_of(numpy_dtype) in "fc":
        node = ToCopyBackward0()
        node.self_dtype = self._data.dtype
        node.self_device = source
        record1(node, self, out)
    if forward_level():
        forward1(out, self, convert_tangent, (numpy_dtype, target))
    return out


cdef object convert_tangent(Tensor self_t, Tensor self, Tensor result, tuple extra):
    """``self_t`` converted alike (a copy: only floating results get a tangent); ``extra``:
    ``(numpy_dtype, target)``."""
    converted = _convert(self_t, extra[0], extra[1])
    return clone(converted) if converted is self_t else converted


_BOOL, _INT = type(True), type(0)      # (this module's bool and int are Tensor methods)


cdef str _argument_type(object arg):
    """How torch's argument parser names an argument's type."""
    if isinstance(arg, Tensor):
        return "Tensor"
    if isinstance(arg, device_class):
        return "autograd_cy.device"
    name = type(arg).__name__
    return "autograd_cy.dtype" if name == "dtype" else name


def to(Tensor self, *args, dtype=None, device=None, copy=False, non_blocking=False,
       memory_format=None):
    """``to(dtype)``, ``to(device)``, ``to(device, dtype)``, ``to(other)``: the converted
    tensor (self if unchanged); a move between devices copies and is recorded. With a
    ``memory_format``: NOTE [Memory formats reach the ops through a slot]."""
    if memory_format is not None:
        return memory_format_ops["to"](self, args, {"dtype": dtype, "device": device,
                                                    "copy": copy,
                                                    "non_blocking": non_blocking},
                                       memory_format)
    cdef list rest = list(args)
    if len(rest) > 4:
        raise TypeError(f"to() takes from 0 to 4 positional arguments but {len(rest)} were "
                        f"given")
    if rest and isinstance(rest[0], Tensor):                    # to(other, ...)
        first = rest.pop(0)
        dtype = (<Tensor>first)._data.dtype
        device = device_of((<Tensor>first)._data)
    elif rest and (rest[0] is None or isinstance(rest[0], (str, device_class))
                   or type(rest[0]) is _INT):                   # to(device, dtype, ...)
        device = rest.pop(0)
        if rest and type(rest[0]) is not _BOOL:
            dtype = rest.pop(0)
    elif rest and type(rest[0]) is not _BOOL:                   # to(dtype, ...)
        dtype = rest.pop(0)
    if rest and type(rest[0]) is _BOOL:
        non_blocking = rest.pop(0)
    if rest and type(rest[0]) is _BOOL:
        copy = rest.pop(0)
    if rest:
        raise TypeError(
            f"to() received an invalid combination of arguments - got "
            f"({', '.join(_argument_type(arg) for arg in args)}), but expected one of:\n"
            " * (autograd_cy.device device = None, autograd_cy.dtype dtype = None, "
            "bool non_blocking = False, bool copy = False, *, "
            "autograd_cy.memory_format memory_format = None)\n"
            " * (autograd_cy.dtype dtype, bool non_blocking = False, bool copy = False, *, "
            "autograd_cy.memory_format memory_format = None)\n"
            " * (Tensor tensor, bool non_blocking = False, bool copy = False, *, "
            "autograd_cy.memory_format memory_format = None)\n")
    target = None if device is None else resolved_device(device)
    numpy_dtype = self._data.dtype if dtype is None else to_numpy_dtype(dtype)
    return _convert(self, numpy_dtype, target, copy)


def cuda(Tensor self, device=None, non_blocking=False, memory_format=None):
    """A copy on a CUDA device (the current one by default); self if already there."""
    if device is None:
        device = "cuda"
    elif not isinstance(device, (str, device_class)):
        device = f"cuda:{device}"
    return _convert(self, self._data.dtype, resolved_device(device))


def cpu(Tensor self, memory_format=None):
    """A copy in host memory; self if already there."""
    return _convert(self, self._data.dtype, CPU)


def type_as(Tensor self, Tensor other):
    return _cast(self, other._data.dtype)


def float(Tensor self, memory_format=None):
    return _cast(self, np.dtype(np.float32))


def double(Tensor self, memory_format=None):
    return _cast(self, np.dtype(np.float64))


def half(Tensor self, memory_format=None):
    return _cast(self, np.dtype(np.float16))


def bfloat16(Tensor self, memory_format=None):
    return _cast(self, np.dtype(ml_dtypes.bfloat16))


def int(Tensor self, memory_format=None):
    return _cast(self, np.dtype(np.int32))


def long(Tensor self, memory_format=None):
    return _cast(self, np.dtype(np.int64))


def bool(Tensor self, memory_format=None):
    return _cast(self, np.dtype(np.bool_))


# NOTE [Complex tangents] in forward.pyx: these formulas are checked for complex tensors.
from autograd_cy._C.forward cimport complex_unary
complex_unary(clone_tangent)
complex_unary(contiguous_tangent)
complex_unary(convert_tangent)
