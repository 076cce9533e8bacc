# Design: the backward graph's vertex. A Node is one backward function; its edges point at the
# Nodes that receive the gradients it produces (one edge per forward input). Tensors hold their
# grad_fn strongly; a Node holds its children and its saved tensors strongly, and its own
# outputs never (a saved output is re-wrapped on unpack: saved_tensor.pxd).
# Above this file: accumulate_grad (the leaves' sink), saved_tensor, recording (how an op
# makes a Node), views, hooks, the engine.

from autograd_cy._C.tensor cimport Tensor
from autograd_cy._C.saved_tensor cimport SavedTensor


# An edge as a value, for the API (get_gradient_edge, backward's roots and inputs=).
# Nodes do not store Edge objects: see Node.next_nodes.
cdef class Edge:
    cdef readonly Node function       # None marks an invalid edge (no gradient flows)
    cdef readonly Py_ssize_t input_nr  # which input slot of `function` receives the gradient


cdef class NodeExtras:
    cdef dict tensor_pre_hooks        # output_nr -> {handle id: hook(grad)}
    cdef dict retains_grad_hooks      # output_nr -> RetainGradHook
    cdef dict pre_hooks               # handle id -> hook(grad_outputs)
    cdef dict post_hooks              # handle id -> hook(grad_inputs, grad_outputs)
    cdef dict metadata                # Node.metadata, the user's dict
    cdef object anomaly_trace         # forward stack when created in anomaly mode


cdef class Node:
    # Edge i, for forward input i, is (next_nodes[i], next_input_nrs[i]): the Node that
    # receives that gradient (None: no gradient flows) and which of its input slots.
    # Two parallel tuples, not one Edge object per edge (NOTE [Edges as two tuples]).
    cdef tuple next_nodes
    cdef tuple next_input_nrs
    cdef readonly unsigned long long sequence_nr  # creation order; newest runs first
    cdef tuple input_metadata         # per forward output: (shape, numpy dtype) or None
    cdef tuple saved_tensors          # the SavedTensors backward reads (NOTE [Saved tensors])
    cdef NodeExtras extras            # hooks, metadata, anomaly trace; None until first used
    cdef tuple output_mask            # set by the engine around apply(): needed edges
    # Engine scratch space, owned by one running GraphTask at a time (NOTE [Dependencies
    # on the node] in graph_task.pyx): its id, the edges still to deliver a gradient, the
    # InputBuffer. Kept here rather than in a dict so a deep graph costs no hash lookups.
    cdef long long engine_task
    cdef Py_ssize_t engine_dependencies
    cdef list engine_buffer
    # Where the forward op was called (NOTE [Provenance] in provenance.pyx): a code object
    # and an instruction offset, None / -1 when recorded with provenance off.
    cdef object origin_code
    cdef int origin_lasti
    # Anomaly mode (NOTE [NaN origins]): 0 unchecked, 1 its outputs were finite, 2 one had a
    # NaN or inf.
    cdef unsigned char forward_check
    cdef object __weakref__

    cpdef tuple apply(self, tuple grads)
    cdef void release_variables(self)
    cdef NodeExtras get_extras(self)
    cdef dict tensor_hooks(self)
    cdef bint should_compute_output(self, Py_ssize_t i)


cdef class GraphRoot(Node):
    cdef tuple outputs


cdef Edge make_edge(Node function, Py_ssize_t input_nr)
cdef Edge invalid_edge()
cdef void set_edges(Node node, edges) except *
cdef tuple zero_input_nrs(Py_ssize_t length)
cdef tuple input_nrs_tuple(list input_nrs)
cdef object add_hook(dict hooks, object fn)


cdef inline object unpack_saved(Node node, Py_ssize_t i):
    """The ``i``-th saved tensor of ``node``, version-checked (NOTE [Saved tensors])."""
    cdef object saved = node.saved_tensors[i]
    if saved is None:
        raise RuntimeError(f"{type(node).__name__} reads a saved value it did not save, for "
                           "a gradient it was recorded not to need")
    return (<SavedTensor>saved).unpack(node)


cdef inline int check_saved(Node node) except -1:
    """Check every value ``node`` saved (freed? modified in place?), as PyTorch's generated
    ``apply`` unpacks them all first (NOTE [Saved tensors])."""
    cdef tuple saved_tensors = node.saved_tensors
    if saved_tensors is not None:
        for saved in saved_tensors:
            if saved is not None:
                (<SavedTensor>saved).check(node)
    return 0
