# Design: the op table (NOTE [The op table] in op_table.pyx). An elementwise op of one tensor
# is declared once, as a UnaryOp entry: its array forward, its backward Node class, what the
# Node saves, its tangent formula, whether that formula batches, its CUDA functor and the
# text of its formulas for docs/derivatives.md. One generic forward runs every entry, and the
# entry makes the op's function, its in-place form and its Tensor methods. The Node bases
# below carry the defaults every elementwise backward shares, so no Node repeats them.

from autograd_cy._C.tensor cimport Tensor
from autograd_cy._C.node cimport Node
from autograd_cy._C.forward cimport UnaryTangent

# A fused loop that computes a result from one array (ArrayKernel) or from a gradient and a
# saved result (ResultKernel), or declines with None (too large, not contiguous, another
# dtype): the caller then takes the NumPy path.
ctypedef object (*ArrayKernel)(object array)
ctypedef object (*ResultKernel)(object grad, object result)

# What an entry's Node saves (PyTorch's derivatives.yaml: ``self`` or ``result``), read from
# its base class: SavesSelf, SavesResult, SavesSelfAndResult, or none of them.
cdef enum Saves:
    SAVES_NOTHING = 0
    SAVES_SELF = 1
    SAVES_RESULT = 2
    SAVES_SELF_AND_RESULT = 3


cdef class ElementwiseNode(Node):
    pass


cdef class SavesSelf(ElementwiseNode):
    pass


cdef class SavesResult(ElementwiseNode):
    cdef object fused_backward(self, object grad, ResultKernel kernel)


cdef class SavesSelfAndResult(ElementwiseNode):
    pass


cdef class InplaceWithoutDerivative(Node):
    pass


cdef class UnaryOp:
    cdef readonly str name
    cdef readonly object forward          # the array function: np.exp, np.log, ...
    cdef ArrayKernel fast_forward         # NULL, or a fused loop tried first
    cdef readonly bint floating           # integer and bool inputs compute in float32
    cdef readonly str complex_error       # PyTorch's refusal of complex inputs, or None
    cdef readonly str inplace_complex_error   # its refusal of the in-place form on them
    cdef readonly type node_type
    cdef readonly Saves saves
    cdef UnaryTangent tangent
    cdef readonly bint batched_tangent    # the tangent formula runs on a batch at once
    cdef readonly str cuda_functor        # the functor of unary<T, F> (cuda/elementwise.cu)
    cdef readonly str gradient            # the formulas, as docs/derivatives.md prints them
    cdef readonly str tangent_formula
    cdef readonly str inplace             # the in-place form's name (None: PyTorch has none)
    cdef readonly type inplace_node_type  # the in-place form's own Node, or None: node_type
    cdef readonly object function         # the op as autograd_cy exports it
    cdef readonly str module              # the family module that declared it

    cdef Tensor apply(self, Tensor self_)


cdef object unary_op(str name, object forward, type node_type, UnaryTangent tangent,
                     str gradient, str tangent_formula, str doc, str cuda_functor=*,
                     bint floating=*, bint batched_tangent=*, str complex_error=*,
                     bint has_inplace=*, str inplace_complex_error=*)
cdef void set_fast_forward(object function, ArrayKernel kernel) except *
cdef void set_inplace_node(object function, type node_type) except *
