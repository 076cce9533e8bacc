# Design: the saved_tensors_hooks of non-reentrant checkpointing (autograd_cy/utils/
# checkpoint.py), one C call per saved tensor. Below graph_task (it reads the running task's
# id); nothing cimports it: the checkpoint module uses it from Python.

cdef class Holder:
    cdef readonly dict recomputed     # graph task id -> recomputed tensor (None: given out)
    cdef object __weakref__


cdef class ForwardPack:
    cdef list holders, metadatas      # the frame's weak_holders and x_metadatas
    cdef bint check                   # determinism_check="default"
    cdef object log                   # debug=True: the frame's forward log


cdef class RecomputePack:
    cdef readonly Py_ssize_t count    # tensors saved so far by this recomputation
    cdef readonly list mismatches     # (position, saved metadata, recomputed metadata)
    cdef object frame, gid, log
    cdef list holders, metadatas
    cdef bint check


cdef class Unpack:
    cdef object frame


cpdef tuple metadata(object tensor)
