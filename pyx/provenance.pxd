# Design: where in the user's code a node or an in-place write came from (NOTE [Provenance]
# in provenance.pyx), and the NaN/inf checks of anomaly mode. A leaf module beside grad_mode:
# it knows the interpreter's frames and arrays, not Tensor or Node, so that tensor.pyx (the
# version bump) and recording.pyx (node creation) can both call it.

cdef bint recording_provenance() noexcept nogil   # set_provenance(True) or anomaly mode
cdef object caller_code(int* lasti)               # innermost user frame: code, offset
cdef tuple capture_stack()                        # anomaly mode: the whole stack, compactly
cdef bint all_finite(object array) except -1      # no NaN and no inf in a float array
cdef bint has_nan(object array) except -1
cpdef str forward_op_name(object node)       # AddBackward0 -> Add, as PyTorch names ops
