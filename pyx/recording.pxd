# Design: how a forward op joins the graph. Above node, saved_tensor and accumulate_grad;
# every op module and custom Functions record through these functions only.

from autograd_cy._C.tensor cimport Tensor
from autograd_cy._C.node cimport Node, Edge


cdef Edge gradient_edge(Tensor t)
cdef tuple output_metadata(Tensor output)
cdef object gradient_function(Tensor t)
cdef void stamp(Node node)
cdef void set_next_edges(Node node, tuple inputs) except *

# The one recording path (see recording.pyx): history (sequence_nr, edges, outputs,
# input_metadata), then the saved tensors.
cdef Node record(Node node, tuple inputs, tuple outputs, tuple saved=*)
cdef Node record1(Node node, Tensor input, Tensor output, tuple saved=*)
cdef Node record2(Node node, object input0, object input1, Tensor output, tuple saved=*)
cdef tuple save_all(Node node, tuple saved)

# History alone, for nodes that save nothing or save by hand (custom Functions, views).
cdef Node set_history(Node node, tuple inputs, tuple outputs)
cdef Node set_history1(Node node, Tensor input, Tensor output)
cdef Node set_history2(Node node, object input0, object input1, Tensor output)
cdef bint any_requires_grad2(object a, object b)
cdef bint gets_gradient(object x)
