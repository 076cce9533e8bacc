# Design: custom autograd Functions (function.pyx). A Function's ctx *is* its backward node
# (NOTE [ctx is the node]): a Python subclass of _FunctionBase made per Function class by
# autograd_cy/autograd/function.py. Above recording and views; beside the ops.

from autograd_cy._C.node cimport Node


cdef class _FunctionBase(Node):
    cdef public object to_save             # save_for_backward's arguments, until saved
    cdef public object dirty_tensors       # mark_dirty's arguments
    cdef public object non_differentiable  # mark_non_differentiable's arguments
    cdef public object saved_for_forward   # save_for_forward's arguments (forward AD)
    cdef public bint materialize_grads     # None gradients arrive as zeros (default True)
    cdef tuple static_needs_input_grad     # requires_grad of each argument at forward time
    cdef tuple tensor_index                # per argument: its next edge, or -1 (not a Tensor)
    cdef list saved_variables              # SavedTensor per save_for_backward argument
    cdef bint has_freed_buffers
    cdef list output_info                  # per output: (array module, shape, dtype) or None

    cdef tuple gradients_for_edges(self, object result)


cdef class Error(Node):
    cdef readonly str msg                  # the error raised if anything backpropagates here
