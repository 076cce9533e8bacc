# Design: what the autograd profiler records, at the C level. While a profile is active,
# Tensor's operators and op methods are swapped for recording wrappers (NOTE [Profiling ops]
# in profiling.pyx) and the engine, seeing the profiler flag of grad_mode, brackets each node
# it runs with `enter_node` / `exit_node`. When no profile is active nothing here runs.

from autograd_cy._C.node cimport Node

cdef tuple enter_node(Node node)
cdef void exit_node(Node node, list inputs, tuple started) except *
