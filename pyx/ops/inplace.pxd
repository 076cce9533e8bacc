from autograd_cy._C.tensor cimport Tensor

cdef Tensor apply_inplace(Tensor self, object compute, tuple others, bint needs_original)
