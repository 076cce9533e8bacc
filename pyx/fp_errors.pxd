# Design: NumPy's floating-point warnings switched off around a kernel call, at a tenth of
# np.errstate's cost. A leaf module: it knows NumPy only.

cdef class FloatingPointErrorsIgnored:
    cdef object token

cdef FloatingPointErrorsIgnored ignoring_fp_errors()
cdef object quietly(object function, object array)
cdef object quietly2(object function, object a, object b)
cdef object quiet_reduce(object function, object array, object axis, bint keepdims,
                         object dtype)
cdef object quiet_matrix_product(object a, object b)
cdef object enter_quiet_region()
cdef void exit_quiet_region(object token) except *
