# Design: what every reduction shares (reduction.pyx: sum, mean, var, prod, norm, ...;
# extrema.pyx: max/min, amax/amin, argmax/argmin): dim normalisation, the backward base
# class that broadcasts a gradient back over the reduced dims, and how a reduction records.

from autograd_cy._C.grad_mode cimport is_grad_enabled
from autograd_cy._C.tensor cimport Tensor, make_tensor, requires_grad
from autograd_cy._C.node cimport Node


cdef class ReductionBackward(Node):
    cdef readonly tuple saved_dim             # reduced dims, sorted and non-negative
    cdef readonly bint saved_keepdim
    cdef readonly tuple saved_self_sym_sizes

    cdef object keep(self, object t)
    cdef object keep_grad(self, object grad)
    cdef object expand_back(self, object t)


cdef Tensor contiguous_result(object array)      # a reduction's result, contiguous as in PyTorch
cdef tuple normalize_dims(object dim, Py_ssize_t ndim)
cdef tuple kept_shape(tuple shape, tuple dims)
cdef Py_ssize_t reduced_numel(tuple shape, tuple dims)
cdef object floating_array(Tensor self, str op)
cdef void check_nonempty(str op, object shape, tuple dims) except *
cdef Tensor record_reduction(ReductionBackward node, Tensor self, Tensor out, tuple dims,
                             bint keepdim, tuple saved=*)


cdef inline Tensor constant(object array):
    """A tensor that never requires grad (a mask or a count used inside a formula)."""
    return make_tensor(array)


cdef inline bint records(Tensor self):
    """Should a reduction of ``self`` record a node? (grad mode on, ``self`` requires grad)."""
    return is_grad_enabled() and requires_grad(self)
