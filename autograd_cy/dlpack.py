"""Sharing memory with other array libraries, as torch does: DLPack both ways, and CUDA's
array interface.

- ``Tensor.__dlpack__`` / ``__dlpack_device__``: torch, NumPy, CuPy and JAX read a tensor
  without a copy (``torch.from_dlpack(t)``, ``np.from_dlpack(t)``); a tensor that requires
  grad is refused, as torch refuses it (writes through the other library would escape
  autograd).
- ``from_dlpack(obj)``: a leaf sharing ``obj``'s memory, on the CPU (through NumPy) or on a
  GPU (through CuPy).
- ``Tensor.__cuda_array_interface__``: a CUDA tensor's pointer, shape and strides, for
  libraries that read that protocol (Numba, CuPy).

The emulated CUDA device keeps its arrays in host memory, so it has nothing to share with
another library's CUDA code: its tensors refuse DLPack and the array interface by name.

NumPy's DLPack knows no bfloat16 (NOTE [bfloat16 through DLPack]).
"""
import ctypes

import ml_dtypes
import numpy as np

from autograd_cy._C.tensor import _array_of, _register_methods, _wrap_array
from autograd_cy.cuda import devices
from autograd_cy.cuda.array import DeviceArray
from autograd_cy.cuda.seam import EmulatedSeam

__all__ = ["from_dlpack"]

_KDL_CPU, _KDL_CUDA = 1, 2


def _raw(tensor):
    """The array a tensor holds (a NumPy array, or a CUDA tensor's ``cupy.ndarray``), for a
    library that will share it."""
    array = _array_of(tensor)
    if not tensor.is_cuda:
        return array
    if isinstance(array.device.seam, EmulatedSeam):
        raise RuntimeError(
            f"an emulated {tensor.device} tensor lives in host memory: it cannot be shared "
            "with another library's CUDA code (AUTOGRAD_CY_CUDA=emulate)")
    return array.raw


# NOTE [bfloat16 through DLPack]
# DLPack describes an element type by a code and a width: kDLUInt (1) or kDLBfloat (4) of 16
# bits. NumPy exports and imports neither bfloat16 (an extension dtype to it) nor kDLBfloat.
# The memory needs no conversion, only the label: a bfloat16 array is exported as NumPy's
# capsule of its uint16 view with the label changed to kDLBfloat; a kDLBfloat capsule
# (torch.bfloat16) is relabelled kDLUInt, read by NumPy, and viewed as bfloat16. The capsule
# keeps its producer's deleter, so ownership is untouched.
_BFLOAT16 = np.dtype(ml_dtypes.bfloat16)
_KDL_UINT, _KDL_BFLOAT = 1, 4
# Where DLTensor.dtype sits: after data (8 bytes), device (8) and ndim (4); in a versioned
# capsule the DLTensor follows the version, manager_ctx, deleter and flags (32 bytes).
_DTYPE_OFFSET = 20
_TENSOR_OFFSET = {b"dltensor": 0, b"dltensor_versioned": 32}

_capsule_name = ctypes.pythonapi.PyCapsule_GetName
_capsule_name.restype, _capsule_name.argtypes = ctypes.c_char_p, [ctypes.py_object]
_capsule_pointer = ctypes.pythonapi.PyCapsule_GetPointer
_capsule_pointer.restype = ctypes.c_void_p
_capsule_pointer.argtypes = [ctypes.py_object, ctypes.c_char_p]


def _relabel(capsule, expected_code, new_code):
    """Change a 16-bit DLPack capsule's type code from ``expected_code`` to ``new_code`` in
    place; False if it holds another type."""
    name = _capsule_name(capsule)
    label = _capsule_pointer(capsule, name) + _TENSOR_OFFSET[name] + _DTYPE_OFFSET
    code, bits = ctypes.c_uint8.from_address(label), ctypes.c_uint8.from_address(label + 1)
    if code.value != expected_code or bits.value != 16:
        return False
    code.value = new_code
    return True


class _Relabelled:
    """A DLPack producer whose bfloat16 capsule NumPy reads as uint16."""

    def __init__(self, producer):
        self.producer = producer
        self.bfloat16 = False

    def __dlpack_device__(self):
        return self.producer.__dlpack_device__()

    def __dlpack__(self, **kwargs):
        capsule = self.producer.__dlpack__(**kwargs)
        self.bfloat16 = _relabel(capsule, _KDL_BFLOAT, _KDL_UINT)
        return capsule


def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
    """A DLPack capsule of this tensor's memory (no copy unless ``copy=True``)."""
    if self.requires_grad:
        raise BufferError("Can't export tensors that require gradient, use tensor.detach()")
    kwargs = {} if max_version is None else {"max_version": max_version}
    if copy is not None:
        kwargs["copy"] = copy
    if self.is_cuda:
        return _raw(self).__dlpack__(stream=stream, **kwargs)
    array = _raw(self)
    if array.dtype == _BFLOAT16:        # NOTE [bfloat16 through DLPack]
        capsule = array.view(np.uint16).__dlpack__(**kwargs)
        _relabel(capsule, _KDL_UINT, _KDL_BFLOAT)
        return capsule
    return array.__dlpack__(**kwargs)


def __dlpack_device__(self):
    """(device type, index) as DLPack names them: (1, 0) for the CPU, (2, N) for cuda:N."""
    if self.is_cuda:
        return (_KDL_CUDA, self.device.index)
    return (_KDL_CPU, 0)


def _cuda_array_interface(self):
    if not self.is_cuda:
        raise AttributeError("Can't get __cuda_array_interface__ on non-CUDA tensor type: "
                             f"autograd_cy.{self.dtype._tensor_type} If CUDA data is required "
                             "use tensor.cuda() to copy tensor to device memory.")
    if self.requires_grad:
        raise RuntimeError("Can't get __cuda_array_interface__ on Variable that requires "
                           "grad. If gradients aren't required, use var.detach() to get "
                           "Variable that doesn't require grad.")
    return _raw(self).__cuda_array_interface__


class _Capsule:
    """A DLPack producer over a legacy capsule (``to_dlpack``'s): NumPy and CuPy read
    producers, not capsules."""

    def __init__(self, capsule):
        name = _capsule_name(capsule) if type(capsule).__name__ == "PyCapsule" else None
        if name not in _TENSOR_OFFSET:
            raise RuntimeError("from_dlpack received an invalid capsule. Note that DLTensor "
                               "capsules can be consumed only once, so you might have "
                               "already constructed a tensor from it once.")
        self.capsule = capsule
        self.tensor = _capsule_pointer(capsule, name) + _TENSOR_OFFSET[name]

    def __dlpack_device__(self):
        # DLTensor.device: two int32 (type, id) after the 8-byte data pointer
        return (ctypes.c_int32.from_address(self.tensor + 8).value,
                ctypes.c_int32.from_address(self.tensor + 12).value)

    def __dlpack__(self, **kwargs):
        return self.capsule


class _Writeable:
    """A writeable array over a read-only one's memory, keeping it (and so the capsule's
    owner) alive: NumPy reads a legacy capsule as read-only (it has no read-only flag), but
    torch writes through one."""

    def __init__(self, array):
        self.array = array
        self.__array_interface__ = dict(array.__array_interface__,
                                        data=(array.__array_interface__["data"][0], False))


def from_dlpack(ext_tensor, *, device=None, copy=None):
    """A leaf tensor sharing the memory of ``ext_tensor`` (anything with ``__dlpack__``, or
    a DLPack capsule, which is consumed): NumPy reads a CPU one, CuPy a CUDA one.
    ``copy=True`` gives a copy; ``device`` moves it there (a copy when it is elsewhere)."""
    if not hasattr(ext_tensor, "__dlpack_device__"):
        ext_tensor = _Capsule(ext_tensor)
    tensor = _shared(ext_tensor)
    moved = tensor if device is None else tensor.to(device)    # itself on its own device
    return moved.clone() if copy and moved is tensor else moved


def _shared(ext_tensor):
    device_type, index = ext_tensor.__dlpack_device__()
    if int(device_type) == _KDL_CPU:
        producer = _Relabelled(ext_tensor)
        array = np.from_dlpack(producer)
        if isinstance(ext_tensor, _Capsule):
            array = np.asarray(_Writeable(array))
        return _wrap_array(array.view(_BFLOAT16) if producer.bfloat16 else array)
    if int(device_type) == _KDL_CUDA:
        import cupy     # optional (a CPU install has none): only a CUDA capsule needs it
        device = devices.get(int(index))
        with cupy.cuda.Device(int(index)):
            return _wrap_array(DeviceArray(cupy.from_dlpack(ext_tensor), device))
    raise RuntimeError(f"from_dlpack: unsupported DLPack device type {device_type}")


_register_methods({"__dlpack__": __dlpack__, "__dlpack_device__": __dlpack_device__,
                   "__cuda_array_interface__": property(_cuda_array_interface)})
