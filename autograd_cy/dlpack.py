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
"""
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


def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
    """A DLPack capsule of this tensor's memory (no copy unless ``copy=True``)."""
    if self.requires_grad:
        raise BufferError("Can't export tensors that require gradient, use tensor.detach()")
    kwargs = {} if max_version is None else {"max_version": max_version}
    if copy is not None:
        kwargs["copy"] = copy
    if self.is_cuda:
        return _raw(self).__dlpack__(stream=stream, **kwargs)
    return _raw(self).__dlpack__(**kwargs)


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


def from_dlpack(ext_tensor):
    """A leaf tensor sharing the memory of ``ext_tensor`` (anything with ``__dlpack__``):
    NumPy reads a CPU one, CuPy a CUDA one."""
    if not hasattr(ext_tensor, "__dlpack_device__"):
        raise TypeError(f"from_dlpack: {type(ext_tensor).__name__} has no __dlpack__")
    device_type, index = ext_tensor.__dlpack_device__()
    if int(device_type) == _KDL_CPU:
        return _wrap_array(np.from_dlpack(ext_tensor))
    if int(device_type) == _KDL_CUDA:
        import cupy     # optional (a CPU install has none): only a CUDA capsule needs it
        device = devices.get(int(index))
        with cupy.cuda.Device(int(index)):
            return _wrap_array(DeviceArray(cupy.from_dlpack(ext_tensor), device))
    raise RuntimeError(f"from_dlpack: unsupported DLPack device type {device_type}")


_register_methods({"__dlpack__": __dlpack__, "__dlpack_device__": __dlpack_device__,
                   "__cuda_array_interface__": property(_cuda_array_interface)})
