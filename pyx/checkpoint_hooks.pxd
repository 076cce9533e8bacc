# Design: the saved_tensors_hooks of non-reentrant checkpointing (autograd_cy/utils/
# checkpoint.py), NativeHooks that saving and unpacking call in C. Above saved_tensor and
# graph_task (it reads the running task's id); nothing cimports it: the checkpoint module
# uses it from Python.

from autograd_cy._C.saved_tensor cimport NativeHook


cdef class Holder:
    cdef object gid, tensor           # a backward's id and its recomputed tensor (None: given out)
    cdef dict others                  # other backwards' (NOTE [Holder slots]), or None
    cdef tuple metadata               # the saved tensor's, when determinism_check="default"
    cdef object __weakref__

    cdef int put(self, object gid, object tensor) except -1
    cdef object take(self, object gid)


cdef class ForwardPack(NativeHook):
    cdef list holders                 # the frame's weak_holders
    cdef bint check                   # determinism_check="default"
    cdef object log                   # debug=True: the frame's forward log


cdef class RecomputePack(NativeHook):
    cdef readonly Py_ssize_t count    # tensors saved so far by this recomputation
    cdef readonly list mismatches     # (position, saved metadata, recomputed metadata)
    cdef object frame, gid, log
    cdef list holders
    cdef bint check, early_stop


cdef class Unpack(NativeHook):
    cdef object frame
    cdef set recomputed_for           # the frame's: graph task ids that have recomputed


cpdef tuple metadata(object tensor)
