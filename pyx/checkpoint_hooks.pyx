"""The per-tensor half of non-reentrant checkpointing: its saved_tensors_hooks, in C.

autograd_cy/utils/checkpoint.py keeps the logic (NOTE [Two ways to checkpoint] there); these
three hooks run once for every tensor a checkpointed region saves, in its forward, in its
recomputation and in its backward. They are NativeHooks, so saving and unpacking call them in
C, with no Python call at all (NOTE [Native saved-tensor hooks] in pyx/saved_tensor.pyx).
``frame`` is that module's _CheckpointFrame: they read its lists and call back into it for
everything that happens once per region (recomputing, raising errors).
"""
from cpython.weakref cimport PyWeakref_NewRef, PyWeakref_GetObject
from cpython.ref cimport PyObject, Py_INCREF
from cpython.tuple cimport PyTuple_New, PyTuple_SET_ITEM
cimport cython
cimport numpy as cnp

from autograd_cy._C.saved_tensor cimport NativeHook
from autograd_cy._C.tensor cimport Tensor, requires_grad, detached
from autograd_cy._C.graph_task cimport GraphTask, current_tasks
from autograd_cy._C.validate_outputs cimport conforms


@cython.freelist(4096)                    # one per tensor a region saves
cdef class Holder:
    """What the forward's pack hook keeps instead of a saved tensor: per backward (graph task
    id), the tensor recomputed for it, None once given out; and the saved tensor's metadata.
    Only the SavedTensor holds it (the frame refers to it weakly), so a recomputed tensor dies
    with the graph that would have used it, or when it is given out, whichever comes first.

    # NOTE [Holder slots]
    One backward at a time nearly always: its id and tensor sit in two slots (no dict per
    saved tensor). A backward that recomputes while another still holds an unused tensor here
    (a backward run from inside a backward) keeps its own in ``others``.
    """

    cdef int put(self, object gid, object tensor) except -1:
        if self.tensor is None or self.gid == gid:
            self.gid, self.tensor = gid, tensor
        else:
            if self.others is None:
                self.others = {}
            self.others[gid] = tensor
        return 0

    cdef object take(self, object gid):
        """The tensor recomputed for ``gid``, once; None if given out already."""
        cdef object tensor = None
        if self.gid == gid:
            tensor, self.tensor = self.tensor, None
        elif self.others is not None:
            tensor = self.others.get(gid)
            if tensor is not None:
                self.others[gid] = None
        return tensor


cnp.import_array()


cpdef tuple metadata(object tensor):
    """What ``determinism_check="default"`` compares: the array's shape, dtype and device
    (read from the C struct for NumPy: this runs for every tensor a region saves)."""
    cdef cnp.npy_intp* dims
    cdef Py_ssize_t i, ndim
    cdef object extent
    array = (<Tensor?>tensor)._data
    if type(array) is not cnp.ndarray:
        return (array.shape, array.dtype, array.device)
    ndim = cnp.PyArray_NDIM(<cnp.ndarray>array)
    dims = cnp.PyArray_DIMS(<cnp.ndarray>array)
    shape = PyTuple_New(ndim)
    for i in range(ndim):
        extent = dims[i]
        Py_INCREF(extent)                  # PyTuple_SET_ITEM steals a reference
        PyTuple_SET_ITEM(shape, i, extent)
    return (shape, <object>cnp.PyArray_DESCR(<cnp.ndarray>array), "cpu")


cdef inline bint same_metadata(object tensor, tuple saved):
    """``metadata(tensor) == saved``, without building the tuple for NumPy arrays."""
    array = (<Tensor>tensor)._data
    if type(array) is not cnp.ndarray:
        return metadata(tensor) == saved
    return saved[2] == "cpu" and conforms(array, <tuple>saved[0], saved[1])


class StopRecomputation(Exception):
    """Raised by the recomputation's pack hook once every needed tensor is back."""


cdef class ForwardPack(NativeHook):
    """The forward's pack hook: a Holder for each saved tensor, with its metadata."""
    def __init__(self, frame):
        self.holders = frame.weak_holders
        self.check = frame.metadata_fn is not None
        self.log = frame.forward_log

    cdef object call(self, object x):
        cdef Holder holder = Holder.__new__(Holder)
        self.holders.append(PyWeakref_NewRef(holder, None))
        if self.check:
            holder.metadata = metadata(x)
        if self.log is not None:
            self.log.add(x)
        return holder


cdef class RecomputePack(NativeHook):
    """The recomputation's pack hook: give each saved tensor (detached) to the holder of the
    same position, noting where its metadata differs; stop once the last one is filled."""
    def __init__(self, frame, gid):
        self.frame, self.gid, self.log = frame, gid, frame.recompute_log
        self.holders = frame.weak_holders
        self.check = frame.metadata_fn is not None
        self.early_stop = frame.early_stop
        self.count = 0
        self.mismatches = []

    cdef object call(self, object x):
        cdef Py_ssize_t index = self.count
        cdef PyObject* alive
        cdef Holder holder
        self.count += 1
        if requires_grad(<Tensor?>x):
            x = detached(<Tensor>x)
        if self.log is not None:
            self.log.add(x)
        if index >= len(self.holders):
            return self.frame.saved_more(x)
        alive = PyWeakref_GetObject(self.holders[index])
        if <object>alive is not None:      # else: freed by an earlier backward; not needed
            holder = <Holder>alive
            holder.put(self.gid, x)
            if self.check and not same_metadata(x, holder.metadata):
                self.mismatches.append((index, holder.metadata, metadata(x)))
        if self.count == len(self.holders) and self.early_stop:
            raise StopRecomputation
        return x


cdef class Unpack(NativeHook):
    """The unpack hook: on the first unpack of a backward, recompute; then give the holder's
    tensor out, once."""
    def __init__(self, frame):
        self.frame = frame
        self.recomputed_for = frame.recomputed_for

    cdef object call(self, object packed):
        cdef Holder holder = <Holder?>packed
        tasks = current_tasks()
        if tasks:
            gid = (<GraphTask>tasks[-1]).id
        else:                              # unpacked outside any backward
            gid = self.frame.new_gid()
        if gid not in self.recomputed_for:
            self.frame.recompute(gid)
        tensor = holder.take(gid)
        if tensor is None:
            self.frame.unpacked_twice()
        return tensor
