# Design: what other op modules share of conversion.pyx: contiguous's tangent formula, which
# reshape's copy reuses (its result is a contiguous copy too).

from autograd_cy._C.tensor cimport Tensor

cdef object contiguous_tangent(Tensor self_t, Tensor self, Tensor result, tuple extra)
