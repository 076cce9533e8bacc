# Design: the device model, at the bottom of the core beside dtype: where a tensor's array
# lives. A NumPy array is on `cpu`, a DeviceArray (autograd_cy/cuda) on `cuda:N`; the CUDA
# backend fills `cuda_backend` when imported (NOTE [The CUDA backend slot]).

cimport numpy as cnp


cdef class device:
    cdef readonly str type        # "cpu" or "cuda"
    cdef readonly object index    # None or the device number


cpdef device resolved_device(object spec)
cdef object array_to_device(object array, device target)
cpdef device device_of(object array)
cdef bint is_cuda_array(object array)
cdef object array_namespace(object array)
cdef object zeros_for_metadata(tuple metadata)
cdef object fused_on_device(str template, tuple arrays, tuple scalars=*)
cdef object rows_on_device(str template, tuple arrays, Py_ssize_t dim, tuple scalars=*)
cdef object loss_on_device(str name, tuple arrays, tuple options)
cdef object as_array(object value, object dtype=*)
cdef bint is_array(object value)
cdef object contiguous_array(object array)
cdef list element_strides(object array)
cdef bint is_dense(object array)
cdef bint has_dense_layout(cnp.ndarray array) except -1
cdef object empty_result_like(object x, object dtype=*)
cdef object current_stream(int index)
cdef bint streams_in_use()
cdef object backend()
cdef object strided_view(object array, tuple shape, tuple byte_strides, bint writeable=*)
cdef Py_ssize_t data_address(object array)
