# Design: the sink of a leaf. One AccumulateGrad per leaf that requires grad, held weakly by
# the leaf; its apply() writes ``.grad`` by the gradient layout rules (accumulate_grad.pyx).

cimport cython

from autograd_cy._C.tensor cimport Tensor
from autograd_cy._C.node cimport Node


cdef class AccumulateGrad(Node):
    cdef readonly Tensor variable
    # Serialises accumulation into .grad: backward passes on several threads may feed one
    # leaf, and NumPy releases the GIL inside large in-place adds (PyTorch: a mutex per
    # AccumulateGrad).
    cdef cython.pymutex lock


cdef AccumulateGrad get_accumulator(Tensor leaf)
cdef void flush_deferred_accumulation() except *
