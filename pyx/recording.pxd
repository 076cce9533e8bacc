# Design: how a forward op joins the graph. Above node, saved_tensor and accumulate_grad;
# every op module and custom Functions record through these functions only.

from autograd_cy._C.tensor cimport Tensor, requires_grad
from autograd_cy._C.node cimport Node, Edge
from autograd_cy._C.grad_mode cimport is_grad_enabled


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


cdef inline bint view_records(Tensor self):
    """Does a view of ``self`` record its Node? Grad mode on, ``self`` requires grad and is
    not an inference tensor. Where not, a view op makes no Node (record_view takes None)."""
    return is_grad_enabled() and requires_grad(self) and not self._is_inference
cdef bint gets_gradient(object x)
