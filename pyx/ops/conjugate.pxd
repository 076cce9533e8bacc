# Design: the conjugate every backward formula takes of what it multiplies the gradient by
# (NOTE [Complex gradients] in conjugate.pyx), callable at C speed from the op modules.

from autograd_cy._C.tensor cimport Tensor
from autograd_cy._C.promotion cimport is_complex_array


cdef object conjugate(object x)
cdef void check_parts(object a, object b) except *


cdef inline object conj_of(object x):
    """The conjugate a backward formula takes (NOTE [Complex gradients]): ``x`` itself for a
    real tensor or number, decided here, inlined in the formula; the conjugate otherwise."""
    if isinstance(x, Tensor):
        if not is_complex_array((<Tensor>x)._data):
            return x
    elif isinstance(x, (int, float)):
        return x
    return conjugate(x)
