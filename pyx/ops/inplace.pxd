from autograd_cy._C.tensor cimport Tensor
from autograd_cy._C.node cimport Node

cdef Tensor apply_inplace(Tensor self, object compute, tuple others, bint needs_original,
                         object ufunc=*, object operand=*, bint reads_elementwise=*)
cdef void rebase_history(Tensor self, Node node) except *
