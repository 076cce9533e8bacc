# Design: the view primitives that indexing.pyx builds x[index] from, callable at C speed.

from autograd_cy._C.tensor cimport Tensor
from autograd_cy._C.node cimport Node
from autograd_cy._C.forward cimport UnaryTangent

cdef tuple leading(Py_ssize_t dim, object item)
cdef Tensor record_view(Node node, Tensor self, object array, UnaryTangent tangent=*)

cdef Tensor alias(Tensor self)
cdef Tensor unsafe_view(Tensor self, tuple shape)
cdef Tensor select_unchecked(Tensor self, Py_ssize_t dim, Py_ssize_t index)
cdef Tensor slice_unchecked(Tensor self, Py_ssize_t dim, Py_ssize_t start, Py_ssize_t end,
                            Py_ssize_t step)
cdef void use_reductions(object sum, object sum_to_grad) except *
