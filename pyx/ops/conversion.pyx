# cython: allow_none_for_extension_args=False
"""Copies and conversions: clone, contiguous, to(dtype), float()/double()/... .

A dtype conversion is differentiable between floating dtypes: its backward casts
the gradient back (ToCopyBackward0). Conversions to integer or bool dtypes leave
the result outside the graph, as in PyTorch.
"""
import numpy as np

from autograd_cy._C.grad_mode cimport is_grad_enabled
from autograd_cy._C.dtype cimport dtype as dtype_class, to_numpy_dtype
from autograd_cy._C.device cimport device as device_class
from autograd_cy._C.tensor cimport Tensor, make_tensor, requires_grad, register_methods
from autograd_cy._C.node cimport Node
from autograd_cy._C.recording cimport record1
from autograd_cy._C.promotion cimport wrap

__all__ = ["clone"]
__tensor_methods__ = ("clone", "contiguous", "to", "type_as", "float", "double", "half",
                      "int", "long", "bool", "cpu")


cdef class CloneBackward0(Node):
    """The gradient passes through unchanged; nothing is saved."""

    cpdef tuple apply(self, tuple grads):
        return (grads[0],)


def clone(Tensor self, *, memory_format=None):
    """A copy with its own memory, recorded (gradient passes through unchanged)."""
    cdef Tensor out = wrap(self._data.copy(order="K"))
    if is_grad_enabled() and requires_grad(self):
        record1(CloneBackward0(), self, out)
    return out


def contiguous(Tensor self, memory_format=None):
    """``self`` if already row-major contiguous, else a contiguous clone."""
    if self._data.flags.c_contiguous:
        return self
    cdef Tensor out = wrap(np.ascontiguousarray(self._data))
    if is_grad_enabled() and requires_grad(self):
        record1(CloneBackward0(), self, out)
    return out


cdef class ToCopyBackward0(Node):
    """The gradient cast back to the input's dtype; nothing is saved but that dtype."""
    cdef readonly object self_dtype

    cpdef tuple apply(self, tuple grads):
        return (_cast(grads[0], self.self_dtype),)


cdef Tensor _cast(Tensor self, object numpy_dtype):
    cdef ToCopyBackward0 node
    if self._data.dtype == numpy_dtype:
        return self
    cdef Tensor out = wrap(self._data.astype(numpy_dtype))
    if is_grad_enabled() and requires_grad(self) and numpy_dtype.kind == "f":
        node = ToCopyBackward0()
        node.self_dtype = self._data.dtype
        record1(node, self, out)
    return out


def to(Tensor self, *args, dtype=None, device=None, copy=False, non_blocking=False):
    """``to(dtype)``, ``to(device)``, ``to(other)``: the converted tensor (self if unchanged)."""
    for arg in args:
        if isinstance(arg, Tensor):
            dtype = (<Tensor>arg)._data.dtype
        elif isinstance(arg, (str, device_class)):
            device = arg
        else:
            dtype = arg
    if device is not None and device_class(device).type != "cpu":
        raise RuntimeError("CUDA tensors are not available yet: the GPU backend is not built")
    if dtype is None:
        return clone(self) if copy else self
    out = _cast(self, to_numpy_dtype(dtype))
    if copy and out is self:
        return clone(self)
    return out


def type_as(Tensor self, Tensor other):
    return _cast(self, other._data.dtype)


def float(Tensor self, memory_format=None):
    return _cast(self, np.dtype(np.float32))


def double(Tensor self, memory_format=None):
    return _cast(self, np.dtype(np.float64))


def half(Tensor self, memory_format=None):
    return _cast(self, np.dtype(np.float16))


def int(Tensor self, memory_format=None):
    return _cast(self, np.dtype(np.int32))


def long(Tensor self, memory_format=None):
    return _cast(self, np.dtype(np.int64))


def bool(Tensor self, memory_format=None):
    return _cast(self, np.dtype(np.bool_))


def cpu(Tensor self, memory_format=None):
    if type(self._data) is np.ndarray:
        return self
    raise RuntimeError("device transfer arrives with the CUDA backend")


register_methods({name: globals()[name] for name in __tensor_methods__})
