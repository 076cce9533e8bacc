# Design: forward-mode AD's per-op machinery (NOTE [Forward AD] in forward.pyx): how an op
# gives its output a tangent. Above tensor, node and saved_tensor; the op modules and views
# cimport it. Every entry is reached only when a dual level is active.

from autograd_cy._C.tensor cimport Tensor
from autograd_cy._C.node cimport Node

cdef void set_tangent(Tensor out, object tangent, unsigned long long level) except *
cdef void forward1(Tensor out, object x, object formula, tuple extra=*) except *
cdef void forward2(Tensor out, object a, object b, object formula, tuple extra=*) except *
cdef void forward_n(Tensor out, tuple inputs, object formula, tuple extra=*) except *
cdef void no_forward_formula(str op_name, tuple inputs, str reason=*) except *
cdef bint any_tangent(tuple inputs, unsigned long long level)
cdef object pointwise_tangent(Node node, tuple saved, tuple tangents, Tensor result)
cdef object run_formula(object formula, tuple args, unsigned long long level)
