# Design: the engine's recorder for the learners' tools (tracing.pyx): trace_backward and
# trace_hooks. Off, it costs the engine one load and branch per node (NOTE [Tracing the
# engine]); on, the engine calls these functions at its event sites.

from autograd_cy._C.tensor cimport Tensor
from autograd_cy._C.node cimport Node
from autograd_cy._C.graph_task cimport GraphTask

cdef int* tracing_flag() noexcept nogil     # its address: the engine reads it without a call

cdef void trace_plan(GraphTask task, Node root) except *
cdef void trace_pop(GraphTask task, Node node, list inputs) except *
cdef void trace_edge(GraphTask task, Node node, Py_ssize_t output, object grad) except *
cdef void trace_hook(str kind, Node node, Py_ssize_t slot, object hook) except *
cdef void trace_accumulate(Node node, Tensor variable, object grad_before, object grad) except *
