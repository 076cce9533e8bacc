# Design: the ``out=`` argument of the common ops (add, mul, sum, matmul ...): the op computes
# its result as usual, with nothing recorded, and this module writes it into ``out`` as
# PyTorch does (refusing autograd, checking the cast, resizing, bumping the version).

cdef object write_out(str name, object out, tuple inputs, object compute)
