# Design: the backward engine (engine.pyx, read top to bottom). Above node, accumulate_grad,
# graph_task and the kernels; below the Python-facing backward()/grad() (backward.pyx).

cpdef list run_backward(tuple root_edges, tuple root_grads, bint keep_graph,
                        bint create_graph, list input_edges, bint accumulate_grad,
                        bint batched=*)
