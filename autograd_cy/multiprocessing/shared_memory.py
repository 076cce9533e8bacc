"""Tensors in memory shared between processes: ``Tensor.share_memory_``, ``is_shared``, and
the reducers that send a tensor to another process as a handle to its memory
(NOTE [Tensors shared between processes])."""
import mmap
import os
import weakref
from multiprocessing import reduction

import numpy as np

from autograd_cy._C.tensor import Tensor, _array_of, _hold_array, _register_methods, _wrap_array

__all__ = ["get_sharing_strategy", "set_sharing_strategy", "get_all_sharing_strategies"]

# NOTE [Tensors shared between processes]
# A shared tensor's array is a NumPy view of a ``_SharedMap``: an mmap (MAP_SHARED) of an
# anonymous memfd, whose descriptor the map keeps open until it is collected. Pickling for
# another process (multiprocessing's ForkingPickler: Process arguments under spawn, Queue
# items) sends ``reduction.DupFd(fd)`` (multiprocessing duplicates the descriptor into the
# child) with the dtype, shape and strides; the child maps the same memory, so an in-place
# update in one process (an optimizer step) is seen by all. A tensor that is not shared yet
# is moved to shared memory before it is sent, as torch's reduce_tensor does. A fork child
# inherits the mapping itself. Only CPU (NumPy) arrays are shared; a CUDA tensor's
# share_memory_ does nothing, as torch's, and it is pickled by value.

_STRATEGY = "file_descriptor"


def get_sharing_strategy():
    """How CPU tensors are shared: ``"file_descriptor"``, the only strategy here."""
    return _STRATEGY


def get_all_sharing_strategies():
    return {"file_descriptor"}


def set_sharing_strategy(new_strategy):
    """Accepts ``"file_descriptor"`` (the one strategy); torch's ``"file_system"`` also
    shares, here through the same descriptors."""
    global _STRATEGY
    if new_strategy not in ("file_descriptor", "file_system"):
        raise AssertionError(new_strategy)
    _STRATEGY = new_strategy


class _SharedMap(mmap.mmap):
    """A MAP_SHARED map of a memfd; keeps the descriptor (to send it on) while it lives."""

    @classmethod
    def of_descriptor(cls, fd, nbytes):
        shared = cls(fd, max(nbytes, 1))
        shared.fd = fd
        weakref.finalize(shared, os.close, fd)
        return shared

    @classmethod
    def new(cls, nbytes):
        fd = os.memfd_create("autograd_cy", os.MFD_CLOEXEC)
        os.ftruncate(fd, max(nbytes, 1))
        return cls.of_descriptor(fd, nbytes)


def _shared_map(array):
    """The ``_SharedMap`` ``array`` views, or None."""
    while True:                     # ndarray views, as_strided's holder, frombuffer's view
        if isinstance(array, memoryview):
            array = array.obj
        elif getattr(array, "base", None) is not None:
            array = array.base
        else:
            break
    return array if isinstance(array, _SharedMap) else None


def _shared_array(shared, dtype, shape, strides, offset):
    flat = np.frombuffer(shared, dtype=np.uint8)
    return np.lib.stride_tricks.as_strided(flat[offset:].view(dtype), shape, strides)


def share_memory_(self):
    """Move the tensor's values to shared memory (nothing if they are there, or for a
    tensor not on the CPU); returns ``self``."""
    array = _array_of(self)
    if type(array) is not np.ndarray or _shared_map(array) is not None:
        return self
    shared = _SharedMap.new(array.nbytes)
    moved = np.frombuffer(shared, dtype=array.dtype, count=array.size).reshape(array.shape)
    moved[...] = array
    _hold_array(self, moved)
    return self


def is_shared(self):
    """Whether the tensor's memory is shared with other processes (``share_memory_``)."""
    return _shared_map(_array_of(self)) is not None


def _rebuild_shared(cls, dup_fd, nbytes, dtype, shape, strides, offset, requires_grad):
    shared = _SharedMap.of_descriptor(dup_fd.detach(), nbytes)
    tensor = _wrap_array(_shared_array(shared, np.dtype(dtype), shape, strides, offset))
    if cls is not Tensor:
        from autograd_cy.nn.parameter import Parameter
        if issubclass(cls, Parameter):
            return cls(tensor, requires_grad)
    return tensor.requires_grad_(requires_grad)


def _reduce_tensor(tensor):
    if tensor.requires_grad and not tensor.is_leaf:
        raise RuntimeError(
            "Cowardly refusing to serialize non-leaf tensor which requires_grad, since "
            "autograd does not support crossing process boundaries.  If you just want to "
            "transfer the data, call detach() on the tensor before serializing (e.g., "
            "putting it on the queue).")
    array = _array_of(tensor)
    if type(array) is not np.ndarray:
        return tensor.__reduce_ex__(2)
    share_memory_(tensor)
    array = _array_of(tensor)
    shared = _shared_map(array)
    offset = (array.__array_interface__["data"][0]
              - np.frombuffer(shared, dtype=np.uint8).__array_interface__["data"][0])
    return (_rebuild_shared, (type(tensor), reduction.DupFd(shared.fd), len(shared),
                              array.dtype.str, array.shape, array.strides, offset,
                              tensor.requires_grad))


def register_reducers():
    """Send Tensor and Parameter to other processes as handles to shared memory."""
    from autograd_cy.nn.parameter import Parameter
    for cls in (Tensor, Parameter):
        reduction.ForkingPickler.register(cls, _reduce_tensor)


_register_methods({"share_memory_": share_memory_, "is_shared": is_shared})
register_reducers()
