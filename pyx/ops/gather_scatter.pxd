# Design: masked_fill_'s checks of the memory it writes, which index_put_ also runs when it
# runs as masked_fill_ (indexing.pyx); the broadcast of two shapes with PyTorch's error,
# which the losses share.

from autograd_cy._C.tensor cimport Tensor

cdef void masked_fill_overlap_checks(Tensor self, tuple others) except *
cdef object tangent_or_zeros(object tangent, Tensor primal)
cdef tuple broadcast_shape(tuple a, tuple b)
