# Design: custom autograd Functions (function.pyx). A Function's ctx *is* its backward node
# (NOTE [ctx is the node]): a Python subclass of _FunctionBase made per Function class by
# autograd_cy/autograd/function.py. Above recording and views; beside the ops.

from autograd_cy._C.node cimport Node


cdef class FunctionMethods:
    # What apply and backward need from a Function class, looked up once per class
    # (NOTE [A Function class's methods, looked up once]).
    cdef readonly object forward_cls
    cdef readonly object backward_cls      # <Class>Backward, the class of its ctx
    cdef object backward                   # backward or vjp; None when both are overridden
    cdef bint separate_setup               # forward without ctx, plus setup_context
    cdef bint clear_saved_on_access        # clear_saved_tensors_on_access


cdef class _FunctionBase(Node):
    cdef FunctionMethods methods           # its Function class's, set by function_apply
    cdef public object to_save             # save_for_backward's arguments, until saved
    cdef public object dirty_tensors       # mark_dirty's arguments
    cdef public object non_differentiable  # mark_non_differentiable's arguments
    cdef public object saved_for_forward   # save_for_forward's arguments (forward AD)
    cdef public bint materialize_grads     # None gradients arrive as zeros (default True)
    cdef tuple static_needs_input_grad     # requires_grad of each argument at forward time
    cdef tuple tensor_index                # per argument: its next edge, or -1 (not a Tensor)
    cdef list saved_variables              # SavedTensor per save_for_backward argument
    cdef bint has_freed_buffers
    cdef bint cleared_on_access            # freed by clear_saved_tensors_on_access
    cdef tuple output_info                 # per output: its metadata (gradient_metadata)

    cdef FunctionMethods function_methods(self)
    cdef tuple gradients_for_edges(self, object result)


cdef class Error(Node):
    cdef readonly str msg                  # the error raised if anything backpropagates here
