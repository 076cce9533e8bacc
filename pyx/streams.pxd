# Design: the stream rules of a backward pass on CUDA devices (NOTE [Streams of backward]),
# used by the engine only once a CUDA output exists (device.streams_in_use).

from autograd_cy._C.node cimport Node
from autograd_cy._C.tensor cimport Tensor
from autograd_cy._C.graph_task cimport GraphTask

cdef object node_stream(Node node)
cdef object enter_stream(object stream)
cdef void exit_stream(object stream, object previous) except *
cdef void add_on_streams(list buffer, Py_ssize_t slot, Tensor grad, object producer,
                         object consumer) except *
cdef object caller_stream(GraphTask task, Tensor grad)
cdef void note_leaf_stream(GraphTask task, object stream) except *
cdef void sync_leaf_streams(GraphTask task) except *
