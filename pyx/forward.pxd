# Design: forward-mode AD's per-op machinery (NOTE [Forward AD] in forward.pyx): how an op
# gives its output a tangent. Above tensor, node and saved_tensor; the op modules and views
# cimport it. Every entry is reached only when a dual level is active.

cimport numpy as cnp

from autograd_cy._C.tensor cimport Tensor
from autograd_cy._C.node cimport Node

# A tangent formula, one type per arity (NOTE [Forward AD]): the inputs' tangents (None for
# one without), the inputs, the op's result and the op's extra arguments (``()``: none). A
# unary formula runs only when its input has a tangent: both are tensors.
ctypedef object (*UnaryTangent)(Tensor x_t, Tensor x, Tensor result, tuple extra)
ctypedef object (*BinaryTangent)(object a_t, object b_t, object a, object b, Tensor result,
                                 tuple extra)
ctypedef object (*NaryTangent)(tuple tangents, tuple inputs, Tensor result, tuple extra)

cdef void set_tangent(Tensor out, object tangent, unsigned long long level) except *
cdef void forward1(Tensor out, object x, UnaryTangent formula, tuple extra=*) except *
cdef void forward2(Tensor out, object a, object b, BinaryTangent formula, tuple extra=*) except *
cdef void forward_n(Tensor out, tuple inputs, NaryTangent formula, tuple extra=*) except *
cdef void no_forward_formula(str op_name, tuple inputs, str reason=*) except *
cdef object linear_tangent(Tensor x_t, Tensor x, Tensor result, tuple extra)
cdef bint any_tangent(tuple inputs, unsigned long long level)
cdef object pointwise_tangent(Node node, tuple saved, tuple tangents, Tensor result)
cdef object run_formula(object formula, tuple args, unsigned long long level)
cdef object array_copy(cnp.ndarray array)

# Batched tangents (NOTE [Batched tangents] in forward.pyx): a formula registered here runs
# once on batched tangents; any other runs once per batch row.
cdef void batch_unary(UnaryTangent formula) except *
cdef void batch_binary(BinaryTangent formula, bint align) except *
cdef void batch_nary(NaryTangent formula, bint align) except *

# Formulas checked for complex tensors (NOTE [Complex tangents] in forward.pyx): any other
# raises NotImplementedError when it meets one.
cdef void complex_unary(UnaryTangent formula) except *
cdef void complex_binary(BinaryTangent formula) except *
cdef void complex_nary(NaryTangent formula) except *

cdef tuple tangent_shape(Tensor t)
cdef object zero_tangent_of(Tensor t)
cdef tuple run_formula_per_row(object formula, object ctx, list tangents,
                               unsigned long long level)
