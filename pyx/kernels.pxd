# Design: fused loops for small contiguous float32/float64 arrays (NOTE [Fused kernels] in
# kernels.pyx). NumPy arrays in, a NumPy array (or None: "does not apply, take the NumPy
# path") out. The *_backward_kernel functions ask the gradient's backend (NOTE [Fused
# formulas by the backend]); the CPU backend runs the *_loop functions. The engine and the
# op modules call them.

cdef enum:
    KERNEL_ADD = 0
    KERNEL_SUB = 1
    KERNEL_MUL = 2

cdef int kernel_type(object value)
cdef bint kernel_operand(object value, int typenum)
cdef object binary_kernel(int op, object x, object y)
cdef object scalar_kernel(int op, object x, double value)
cdef object leading_sum_kernel(object array, int leading, bint keepdim)
cdef bint binary_kernel_into(int op, object x, object y) except -1
cdef object tanh_backward_kernel(object grad, object result)
cdef object tanh_kernel(object x)
cdef object saturate_float_tanh(object x, object t)
cdef object relu_kernel(object x)
cdef object threshold_backward_kernel(object grad, object result)
cdef object sigmoid_backward_kernel(object grad, object result)
cdef object tanh_backward_loop(object grad, object result)
cdef object threshold_backward_loop(object grad, object result)
