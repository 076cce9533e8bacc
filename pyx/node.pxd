# Design: the backward graph. A Node is one backward function; its edges point
# at the Nodes that receive the gradients it produces (one edge per forward
# input). Tensors hold their grad_fn strongly; a Node holds its children
# strongly and its own outputs never (SavedTensor re-wraps them).

from autograd_cy._C.tensor cimport Tensor


# An edge as a value, for the API (get_gradient_edge, backward's roots and inputs=).
# Nodes do not store Edge objects: see Node.next_nodes.
cdef class Edge:
    cdef readonly Node function       # None marks an invalid edge (no gradient flows)
    cdef readonly Py_ssize_t input_nr # which input slot of `function` receives the gradient


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
    # Two parallel tuples, not one Edge object per edge: backward walks node -> tuple ->
    # child instead of node -> tuple -> Edge -> child, and the input numbers, nearly
    # always zeros, share one tuple (NOTE [Edges as two tuples] in node.pyx).
    cdef tuple next_nodes
    cdef tuple next_input_nrs
    cdef readonly unsigned long long sequence_nr  # creation order; newest runs first
    cdef tuple input_metadata         # per forward output: (shape, numpy dtype) or None
    cdef NodeExtras extras            # hooks, metadata, anomaly trace; None until first used
    cdef tuple output_mask            # set by the engine around apply(): needed edges
    # Engine scratch space, owned by one running GraphTask at a time (NOTE [Dependencies
    # on the node] in engine.pyx): its id, the edges still to deliver a gradient, the
    # InputBuffer. Kept here rather than in a dict so a deep graph costs no hash lookups.
    cdef long long engine_task
    cdef Py_ssize_t engine_dependencies
    cdef list engine_buffer
    cdef object __weakref__

    cpdef tuple apply(self, tuple grads)
    cdef void release_variables(self)
    cdef NodeExtras get_extras(self)
    cdef dict tensor_hooks(self)
    cdef bint should_compute_output(self, Py_ssize_t i)


cdef class AccumulateGrad(Node):
    cdef readonly Tensor variable


cdef class GraphRoot(Node):
    cdef tuple outputs


cdef class SavedTensor:
    # One per saved value of every node, so it is kept small: flags are bytes, not ints.
    cdef object data                  # the Tensor itself, or for a node's own output its array
    cdef unsigned char is_output      # re-wrap with grad_fn = the owning node on unpack
    cdef unsigned char is_leaf_or_input_kept
    cdef unsigned char was_none
    cdef unsigned char freed
    cdef unsigned char saved_requires_grad
    cdef Py_ssize_t output_nr
    cdef unsigned long long saved_version
    cdef object version_counter       # VersionCounter shared with the original tensor
    cdef object input_grad_fn         # grad_fn of a saved input (restored after hooks)
    cdef object unpack_hook, packed   # saved_tensors_hooks: what pack_hook returned

    cpdef object unpack(self, Node owner=*)
    cdef object unpack_array(self, Node owner)
    cdef _apply_hooks(self, pack_hook, unpack_hook, Tensor value)
    cdef void _restore_metadata(self, Tensor result, Node owner)
    cdef void release(self)


cdef Edge gradient_edge(Tensor t)
cdef object gradient_function(Tensor t)
cdef void set_edges(Node node, edges) except *
cdef Node set_history(Node node, tuple inputs, tuple outputs)
cdef Node set_history1(Node node, Tensor input, Tensor output)
cdef Node set_history2(Node node, object input0, object input1, Tensor output)
cdef SavedTensor save(Tensor t, bint is_output)
cdef bint any_requires_grad2(object a, object b)
