"""``Tensor.untyped_storage()`` and ``UntypedStorage``: the bytes of memory a tensor views,
as torch names them -- what code asks to tell whether two tensors share memory
(``a.untyped_storage().data_ptr() == b.untyped_storage().data_ptr()``) or how much memory
they hold (``nbytes()``).

A storage here is a window onto the array that owns the memory (the root of the view
chain); it reads that memory, it does not own it. Building
one from a size (``UntypedStorage(n)``) allocates ``n`` bytes on the CPU.
"""
import numpy as np

from autograd_cy._C.tensor import _register_methods
from autograd_cy.autograd.function import _memory_of

__all__ = ["UntypedStorage"]


def _owner(tensor):
    """The array that owns the memory ``tensor`` views."""
    return _memory_of(tensor)


class UntypedStorage:
    """``UntypedStorage(size=0)``: ``size`` bytes of CPU memory; ``t.untyped_storage()``:
    the memory ``t`` views."""

    def __init__(self, size=0, *, device=None):
        self._root = np.zeros(int(size), dtype=np.uint8)
        self._pointer = self._root.ctypes.data
        self._device = "cpu"

    @classmethod
    def _of(cls, tensor):
        storage = cls.__new__(cls)
        storage._root = root = _owner(tensor)
        if isinstance(root, np.ndarray):            # a CPU array, or an emulated device's
            storage._pointer = root.ctypes.data
        elif hasattr(getattr(root, "data", None), "ptr"):      # a CuPy array
            storage._pointer = root.data.ptr
        else:
            storage._pointer = (tensor.data_ptr()
                                - tensor.storage_offset() * tensor.element_size())
        storage._device = tensor.device
        return storage

    def data_ptr(self):
        """The address of the first byte."""
        return self._pointer

    def nbytes(self):
        return int(self._root.nbytes)

    def size(self):
        return self.nbytes()

    def __len__(self):
        return self.nbytes()

    def element_size(self):
        return 1

    @property
    def device(self):
        from autograd_cy._C.device import device
        return device(self._device) if isinstance(self._device, str) else self._device

    @property
    def is_cuda(self):
        return self.device.type == "cuda"

    def untyped(self):
        return self

    def _bytes(self):
        root = self._root
        host = root if isinstance(root, np.ndarray) else np.asarray(root.get())
        return np.ascontiguousarray(host).reshape(-1).view(np.uint8)

    def tolist(self):
        return self._bytes().tolist()

    def __getitem__(self, index):
        return self._bytes()[index].tolist()

    def __repr__(self):
        return (" " + "\n ".join(str(value) for value in self.tolist())
                + f"\n[torch.storage.UntypedStorage(device={self.device}) of size "
                f"{self.nbytes()}]")


def untyped_storage(self):
    """The memory this tensor views, as an ``UntypedStorage``."""
    return UntypedStorage._of(self)


_register_methods({"untyped_storage": untyped_storage})
