"""Storages: the memory a tensor views, as torch.storage has them.

A tensor here is a strided view of an array that owns its memory (a view's ``.base``
chain ends there): that owning array is the tensor's storage. ``t.untyped_storage()``
is it seen as bytes (``UntypedStorage``), ``t.storage()`` as elements of ``t``'s dtype
(``TypedStorage``, deprecated in torch, which warns once). Both share the memory:
``data_ptr()`` is where it starts, so two tensors use the same memory exactly when their
storages' ``data_ptr()`` agree; a write through a storage is seen by the tensors.

``UntypedStorage(n)`` / ``TypedStorage(n)`` and the legacy ``FloatStorage(n)`` ... make new
memory (uninitialised), or copy a sequence of numbers; ``Tensor.set_(storage, offset,
size, stride)`` makes a tensor view one. Memory shared between processes is a tensor's
(``Tensor.share_memory_``, autograd_cy/multiprocessing); a storage tells ``is_shared()``.

>>> import autograd_cy as ag
>>> x = ag.arange(4.0)
>>> x[2:].untyped_storage().data_ptr() == x.data_ptr(), x.untyped_storage().nbytes()
(True, 16)
"""
import weakref

import numpy as np

import autograd_cy as _ag
from autograd_cy._C.device import MetaArray
from autograd_cy._C.tensor import _array_of, _register_methods, _wrap_array
from autograd_cy.warn_always import warn_once

__all__ = ["UntypedStorage", "TypedStorage"]

_TYPED_STORAGE_WARNING = (
    "TypedStorage is deprecated. It will be removed in the future and UntypedStorage will "
    "be the only storage class. This should only matter to you if you are using storages "
    "directly.  To access UntypedStorage directly, use tensor.untyped_storage() instead "
    "of tensor.storage()")


def memory_root(tensor):
    """The array that owns the memory ``tensor`` views (a device array's raw one)."""
    array = _array_of(tensor)
    if type(array) is MetaArray:    # no memory: its own shape and dtype
        return array
    array = getattr(array, "raw", array)
    while True:                 # down the base chain, through an emulated device's views
        base = getattr(array, "base", None)
        if getattr(base, "raw", None) is not None:    # a device array, a seam's view
            array = base.raw
        elif base is not None and hasattr(base, "dtype"):
            array = base
        else:
            return array


def _whole_memory(tensor):
    """The memory ``tensor`` views, from its first byte to its last, as a flat uint8
    tensor (no history)."""
    if tensor.is_conj():        # the same memory, read without the lazy conjugation
        tensor = tensor.conj()
    root = memory_root(tensor)
    if tensor.is_meta:
        return _ag.empty(root.size * root.itemsize, dtype=_ag.uint8, device="meta")
    flat = root.ravel(order="K").view(np.uint8)    # an owning array is contiguous
    array = _array_of(tensor)
    if array is not getattr(array, "raw", array):  # a device array: the seam's, wrapped
        flat = type(array)(flat, array.device)
    return _wrap_array(flat)


# The storage object of each owning array while one is alive, so that asking twice gives
# the same object (as torch keeps one Python object per storage): id -> weak reference.
_LIVE = {}


def _forget(key):
    def callback(reference):
        if _LIVE.get(key) is reference:
            del _LIVE[key]
    return callback


class UntypedStorage:
    """Memory as bytes (``torch.UntypedStorage``): ``UntypedStorage(n)`` makes ``n``
    uninitialised bytes, ``UntypedStorage(sequence)`` copies byte values."""

    __slots__ = ("_bytes", "__weakref__")

    def __init__(self, *args, device=None):
        if len(args) > 1 or args and not isinstance(args[0], (int, list, tuple)):
            raise TypeError(f"UntypedStorage(): invalid arguments "
                            f"{tuple(type(a).__name__ for a in args)}")
        if not args or isinstance(args[0], int):
            size = args[0] if args else 0
            self._bytes = _ag.empty(size, dtype=_ag.uint8, device=device)
        else:
            self._bytes = _ag.tensor(list(args[0]), dtype=_ag.uint8, device=device)

    @classmethod
    def _of(cls, tensor):
        """The storage ``tensor`` views: the same object while it is alive."""
        root = memory_root(tensor)
        found = _LIVE.get(id(root))
        storage = found() if found is not None else None
        if storage is None:
            storage = cls.__new__(cls)
            storage._bytes = _whole_memory(tensor)
            _LIVE[id(root)] = weakref.ref(storage, _forget(id(root)))
        return storage

    @classmethod
    def _over(cls, byte_tensor):
        storage = cls.__new__(cls)
        storage._bytes = byte_tensor
        return storage

    # ------------------------------------------------------------ what it is
    def nbytes(self):
        return self._bytes.numel()

    def size(self):
        return self.nbytes()

    def __len__(self):
        return self.nbytes()

    def element_size(self):
        return 1

    def data_ptr(self):
        return self._bytes.data_ptr()

    @property
    def device(self):
        return self._bytes.device

    @property
    def is_cuda(self):
        return self._bytes.is_cuda

    @property
    def is_meta(self):
        return self._bytes.is_meta

    def is_shared(self):
        """Whether the memory is shared with other processes (``Tensor.share_memory_``)."""
        return self._bytes.is_shared()

    def is_pinned(self, device="cuda"):
        return False

    def type(self):
        return f"{type(self).__module__}.{type(self).__name__}"

    # ------------------------------------------------------------ its bytes
    def __getitem__(self, index):
        if isinstance(index, slice):
            if index.step not in (None, 1):
                raise RuntimeError(f"Trying to slice with a step of {index.step}, but only a "
                                   f"step of 1 is supported")
            return UntypedStorage._over(self._bytes[index])
        position = self._position(index)
        return int(self._bytes[position].item())

    def __setitem__(self, index, value):
        if isinstance(index, slice):
            self._bytes[index] = value
            return
        self._bytes[self._position(index)] = value

    def _position(self, index):
        if not isinstance(index, int):
            raise TypeError(f"can't index a {self.type()} with {type(index).__name__}")
        size = self.nbytes()
        if not -size <= index < size:
            raise IndexError(f"index {index} out of range for storage of size {size}")
        return index % size

    def __iter__(self):
        return iter(self.tolist())

    def tolist(self):
        return self._bytes.tolist()

    def fill_(self, value):
        self._bytes.fill_(value)
        return self

    def copy_(self, source, non_blocking=None):
        if source.nbytes() != self.nbytes():
            raise RuntimeError(f"size does not match, view was {source.nbytes()} bytes "
                               f"and other was {self.nbytes()}")
        self._bytes.copy_(source._bytes)
        return self

    def clone(self):
        return UntypedStorage._over(self._bytes.clone())

    def cpu(self):
        return self if self.device.type == "cpu" else UntypedStorage._over(self._bytes.cpu())

    def __copy__(self):
        return self.clone()

    def __deepcopy__(self, memo):
        return memo.setdefault(id(self), self.clone())

    def __str__(self):
        info = f"[{self.type()}(device={self.device}) of size {len(self)}]"
        if self.device.type == "meta":
            return "...\n" + info
        return " " + "\n ".join(str(value) for value in self.tolist()) + "\n" + info

    __repr__ = __str__


class TypedStorage:
    """Memory as elements of one dtype (``torch.TypedStorage``, deprecated in torch):
    ``TypedStorage(n, dtype=...)``, ``TypedStorage(sequence)``, or
    ``TypedStorage(wrap_storage=untyped, dtype=...)``."""

    __slots__ = ("_untyped_storage", "dtype")
    _fixed_dtype = None             # the legacy FloatStorage ... have theirs

    def __init__(self, *args, dtype=None, device=None, wrap_storage=None, _internal=False):
        if not _internal:
            warn_once(_TYPED_STORAGE_WARNING, stacklevel=2)
        dtype = self._fixed_dtype or dtype or _ag.get_default_dtype()
        self.dtype = dtype
        if wrap_storage is not None:
            if args:
                raise RuntimeError("No positional arguments should be given when using "
                                   "`wrap_storage`")
            self._untyped_storage = wrap_storage
            return
        if len(args) > 1:
            raise TypeError(f"{type(self).__name__}(): too many arguments")
        if not args or isinstance(args[0], int):
            values = _ag.empty(args[0] if args else 0, dtype=dtype, device=device)
        else:
            values = _ag.tensor(list(args[0]), dtype=dtype, device=device)
        self._untyped_storage = UntypedStorage._of(values)

    def _elements(self):
        return self._untyped_storage._bytes.view(self.dtype)

    # ------------------------------------------------------------ what it is
    def untyped(self):
        return self._untyped_storage

    def size(self):
        return self._untyped_storage.nbytes() // self.dtype.itemsize

    def __len__(self):
        return self.size()

    def element_size(self):
        return self.dtype.itemsize

    def nbytes(self):
        return self._untyped_storage.nbytes()

    def data_ptr(self):
        return self._untyped_storage.data_ptr()

    @property
    def device(self):
        return self._untyped_storage.device

    @property
    def is_cuda(self):
        return self._untyped_storage.is_cuda

    def is_shared(self):
        return self._untyped_storage.is_shared()

    def is_pinned(self, device="cuda"):
        return False

    # ------------------------------------------------------------ its elements
    def __getitem__(self, index):
        if isinstance(index, slice):
            raise RuntimeError("slices are only supported in UntypedStorage.__getitem__")
        if not isinstance(index, int):
            raise RuntimeError(f"can't index a {type(self)} with {type(index)}")
        if self.device.type == "meta":
            raise NotImplementedError("Not available for 'meta' device type")
        return self._elements()[index].item()

    def __setitem__(self, index, value):
        if not isinstance(index, (int, slice)):
            raise RuntimeError(f"can't index a {type(self)} with {type(index)}")
        self._elements()[index] = value

    def __iter__(self):
        return iter(self.tolist())

    def tolist(self):
        return self._elements().tolist()

    def fill_(self, value):
        self._elements().fill_(value)
        return self

    def copy_(self, source, non_blocking=None):
        self._untyped_storage.copy_(source.untyped() if isinstance(source, TypedStorage)
                                    else source)
        return self

    def clone(self):
        return TypedStorage(wrap_storage=self._untyped_storage.clone(), dtype=self.dtype,
                            _internal=True)

    def cpu(self):
        return TypedStorage(wrap_storage=self._untyped_storage.cpu(), dtype=self.dtype,
                            _internal=True)

    def __copy__(self):
        return self.clone()

    def __deepcopy__(self, memo):
        return memo.setdefault(id(self), self.clone())

    def __str__(self):
        info = (f"[{type(self).__module__}.{type(self).__name__}(dtype={self.dtype}, "
                f"device={self.device}) of size {len(self)}]")
        if self.device.type == "meta":
            return "...\n" + info
        return " " + "\n ".join(str(value) for value in self.tolist()) + "\n" + info

    __repr__ = __str__


def _legacy_class(name, dtype):
    """``FloatStorage`` ...: a TypedStorage of one dtype, as torch's legacy classes."""
    return type(name, (TypedStorage,), {"__slots__": (), "_fixed_dtype": dtype,
                                        "__module__": "autograd_cy",
                                        "__doc__": f"A TypedStorage of {dtype}."})


LEGACY_STORAGES = {
    name: _legacy_class(name, getattr(_ag, dtype_name)) for name, dtype_name in (
        ("ByteStorage", "uint8"), ("CharStorage", "int8"), ("ShortStorage", "int16"),
        ("IntStorage", "int32"), ("LongStorage", "int64"), ("HalfStorage", "float16"),
        ("FloatStorage", "float32"), ("DoubleStorage", "float64"), ("BoolStorage", "bool"),
        ("BFloat16Storage", "bfloat16"), ("ComplexFloatStorage", "complex64"),
        ("ComplexDoubleStorage", "complex128"))}


def untyped_storage(self):
    """The memory this tensor views, as bytes."""
    return UntypedStorage._of(self)


def storage(self):
    """The memory this tensor views, as elements of its dtype (deprecated in torch)."""
    warn_once(_TYPED_STORAGE_WARNING, stacklevel=2)
    return TypedStorage(wrap_storage=UntypedStorage._of(self), dtype=self.dtype,
                        _internal=True)


_register_methods({"untyped_storage": untyped_storage, "storage": storage})
