# Design: the backward engine (engine.pyx, read top to bottom). Above node, accumulate_grad
# and the kernels; below the Python-facing backward()/grad() (backward.pyx).

from autograd_cy._C.node cimport Node


cdef class ReadyQueue:
    cdef list nodes           # a binary max-heap on sequence_nr; slots from `size` on are spare
    cdef list buffers         # the InputBuffer of each node in `nodes`, at the same index
    cdef Py_ssize_t size      # entries in use

    cdef void push(self, Node node, list buffer) except *
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


cpdef list run_backward(tuple root_edges, tuple root_grads, bint keep_graph,
                        bint create_graph, list input_edges, bint accumulate_grad)
