# Design: the sink of a leaf. One AccumulateGrad per leaf that requires grad, held weakly by
# the leaf; its apply() writes ``.grad`` by the gradient layout rules (accumulate_grad.pyx).

from autograd_cy._C.tensor cimport Tensor
from autograd_cy._C.node cimport Node


cdef class AccumulateGrad(Node):
    cdef readonly Tensor variable


cdef AccumulateGrad get_accumulator(Tensor leaf)
