# Design: what other op modules share of conversion.pyx: contiguous's tangent formula, which
# reshape's copy reuses (its result is a contiguous copy too), and clone's layout, which the
# ops that return an edited copy of their input (index_put) keep as PyTorch's do.

from autograd_cy._C.tensor cimport Tensor

cdef object contiguous_tangent(Tensor self_t, Tensor self, Tensor result, tuple extra)
cdef object copy_like(object array)
