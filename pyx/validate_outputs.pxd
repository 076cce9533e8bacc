# Design: the checks of each gradient a node returns against its receiver's input metadata
# (validate_outputs.pyx), used by the engine.

from autograd_cy._C.node cimport Node

cdef tuple validate_outputs(Node node, tuple outputs)
cdef tuple root_grads_on_their_devices(tuple root_edges, tuple root_grads)
cdef tuple validate_batched_outputs(Node node, tuple outputs, Py_ssize_t batch)
