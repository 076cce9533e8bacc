# Design: the state of one backward pass (graph_task.pyx): what the engine works on.

from autograd_cy._C.node cimport Node
from autograd_cy._C.tensor cimport Tensor


cdef class ReadyQueue:
    cdef list nodes           # a binary max-heap on sequence_nr; slots from `size` on are spare
    cdef list buffers         # the InputBuffer of each node in `nodes`, at the same index
    cdef Py_ssize_t size      # entries in use

    cdef void push(self, Node node, list buffer) except *
    cdef void sift_up(self, Py_ssize_t hole, Node node, list buffer) except *
    cdef tuple pop(self)
    cdef bint empty(self)


cdef class ExecInfo:
    cdef bint needed          # runs: a path leads from it to an input of `inputs=`
    cdef list captures        # grad() reads its input: (input_nr, position in the result)


cdef class Pending:
    cdef Py_ssize_t dependencies  # edges that still have to deliver a gradient
    cdef list buffer              # its InputBuffer (one slot per node input), made on demand


cdef class GraphTask:
    cdef readonly long long id
    cdef bint keep_graph          # retain_graph: do not free saved tensors
    cdef Node root
    cdef dict exec_info           # Node -> ExecInfo; empty: every reachable node runs
    cdef list captured            # grad()'s results
    cdef ReadyQueue queue
    cdef list final_callbacks
    cdef bint shared              # counts live in `pending`, not on the nodes
    cdef dict pending             # shared mode: Node -> Pending, for every node below the root
    cdef dict caller_streams      # CUDA: device index -> the caller's current stream; else None
    cdef list leaf_streams        # CUDA: (index, stream) of the nodes that wrote results
    cdef bint batched             # is_grads_batched: gradients carry a leading batch dim
    cdef Py_ssize_t batch_size    # ... of that many rows


cdef list current_tasks()
cdef void task_started(GraphTask task) except *
cdef void task_ended(GraphTask task) except *
cdef bint owned_by_other(long long owner) except -1
cdef void release_nodes(GraphTask task) except *
cdef bint will_run(GraphTask task, object node)
cdef void accumulate(list buffer, Py_ssize_t slot, Tensor grad) except *


# ------------------------------------------------- InputBuffers (NOTE [Dependencies on the node])

cdef inline list new_input_buffer(Node node):
    return [None] * len(node.input_metadata)


cdef inline list input_buffer(GraphTask task, Node node):
    """``node``'s InputBuffer in this task, made on first use."""
    cdef Pending state
    cdef list buffer
    if task.shared:
        state = <Pending>task.pending[node]
        if state.buffer is None:
            state.buffer = new_input_buffer(node)
        return state.buffer
    buffer = node.engine_buffer
    if buffer is None:
        buffer = node.engine_buffer = new_input_buffer(node)
    return buffer


cdef inline Py_ssize_t deliver(GraphTask task, Node node) except -1:
    """One edge into ``node`` has delivered its gradient: how many are still to come? On
    the last one the task lets go of the InputBuffer (the ready queue takes it over)."""
    cdef Pending state
    cdef Py_ssize_t remaining
    if task.shared:
        state = <Pending>task.pending[node]
        state.dependencies -= 1
        remaining = state.dependencies
        if remaining == 0:
            state.buffer = None
        return remaining
    node.engine_dependencies -= 1
    remaining = node.engine_dependencies
    if remaining == 0:
        node.engine_buffer = None
    return remaining
