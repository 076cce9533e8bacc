# Design: the device model, at the bottom of the core beside dtype: where a tensor's array
# lives. A NumPy array is on `cpu`, a DeviceArray (autograd_cy/cuda) on `cuda:N`; the CUDA
# backend fills `cuda_backend` when imported (NOTE [The CUDA backend slot]). What an op may
# ask of an array's device is the Backend below (NOTE [One backend interface]).

cimport numpy as cnp


cdef class device:
    cdef readonly str type        # "cpu" or "cuda"
    cdef readonly object index    # None or the device number


# NOTE [One backend interface]
# No op tests which device its arrays are on. What NumPy's calls cannot say for both devices
# alike (a formula fused into one pass, softmax by rows, a loss with its reduction, addmm with
# its bias, the deferred .grad additions) an op asks of the backend of its array,
# `backend_of(array)`, through the methods below. Each returns its result, or None: "this
# backend has no fused path for these operands", and the op then runs its NumPy formula,
# which serves either device (NOTE [Arrays of either device]):
#
#     result = backend_of(grad).fused("tanh_backward", grad, y)
#     if result is None:
#         result = grad * (1 - y * y)
#
# Backend itself has no fused path at all (every method None, False, or the plain loop). The
# CPU backend (pyx/ops/cpu_backend.pyx) serves what it has typed loops for: the small-array
# loops of kernels.pyx, softmax by rows, nll_loss's common case; the CUDA backend
# (autograd_cy/cuda/backend.py, a Python subclass) serves every method with one launch. A
# formula is named by its kernel template in cuda/*.cu ("tanh_backward"); the CPU compares
# the few names it serves, an interned string whose identity usually decides. backend_of is
# one pointer comparison for a NumPy array, so the CPU pays a C call per question. Both
# backends are filled in when their module is imported (NOTE [The CUDA backend slot]); until
# then an array's backend is this base, which fuses nothing.
cdef class Backend:
    cpdef object fused(self, str formula, object grad, object operand, tuple scalars=*)
    cpdef tuple fused_pair(self, str formula, object grad, object a, object b, bint need_a,
                           bint need_b)
    cpdef object unary(self, str functor, object x)
    cpdef object rows(self, str formula, tuple arrays, Py_ssize_t dim, tuple scalars=*)
    cpdef object loss(self, str name, tuple arrays, tuple options)
    cpdef bint has_gemm(self, object array) except -1
    cpdef tuple gemm(self, object a, object b, object alpha, object bias=*, object beta=*,
                     bint column_sums=*)
    cpdef bint can_add_in_place_together(self, object out, object addend) except -1
    cpdef add_in_place_together(self, list pairs)
    cpdef object current_stream(self, int index)


cdef Backend backend_of(object array)


cpdef device resolved_device(object spec)
cdef object array_to_device(object array, device target)
cpdef device device_of(object array)
cdef bint is_cuda_array(object array)
cdef object array_namespace(object array)
cdef object zeros_for_metadata(tuple metadata)
cdef object as_array(object value, object dtype=*)
cdef bint is_array(object value)
cdef object contiguous_array(object array)
cdef list element_strides(object array)
cdef bint is_dense(object array)
cdef bint has_dense_layout(cnp.ndarray array) except -1
cdef object empty_result_like(object x, object dtype=*)
cdef object laid_out_as_pointwise(object result, object a, object b)
cdef object current_stream(int index)
cdef bint streams_in_use()
cdef object backend()
cdef object strided_view(object array, tuple shape, tuple byte_strides, bint writeable=*)
cdef Py_ssize_t data_address(object array)
