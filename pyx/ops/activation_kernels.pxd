# Design: the array math of the activations, NumPy arrays in and out, no autograd.
# activation.pyx wraps each kernel in an op with a backward Node. Each asks the backend of
# its array first (NOTE [One backend interface] in device.pxd): a CUDA tensor's array (a
# DeviceArray) takes them to one launch of a kernel of cuda/, and the CPU backend runs the
# softmax row loops, which are declared here for it.
#
# Every kernel returns a new array in the dtype of ``x`` (float16 computes in
# float32). ``g``: None for the function itself, else the incoming gradient, and
# the kernel returns ``g * f'(x)``.

cdef object softmax_array(object x, Py_ssize_t dim, bint take_log)
cdef object softmax_backward_array(object g, object y, Py_ssize_t dim, bint take_log)
cdef object safe_softmax_array(object x, Py_ssize_t dim)
cdef object gelu_array(object x, object g, str approximate)
cdef object silu_array(object x, object g)
cdef object softplus_array(object x, object g, double beta, double threshold)
cdef object leaky_relu_array(object x, object g, double negative_slope)
cdef object sigmoid_of(object x)
cdef object log_sigmoid_array(object x)
cdef object softmax_rows_kernel(object x, Py_ssize_t dim, bint take_log, bint safe=*)
cdef object softmax_backward_rows_kernel(object g, object y, Py_ssize_t dim, bint take_log)
