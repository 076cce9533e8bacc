# Design: the checks of each gradient a node returns against its receiver's input metadata
# (validate_outputs.pyx), used by the engine.

cimport numpy as cnp

from autograd_cy._C.node cimport Node

cdef tuple validate_outputs(Node node, tuple outputs)
cdef tuple root_grads_on_their_devices(tuple root_edges, tuple root_grads)
cdef tuple validate_batched_outputs(Node node, tuple outputs, Py_ssize_t batch)


cdef inline bint conforms(object array, tuple shape, object dtype):
    """``array.shape == shape and array.dtype == dtype``, read from the C struct for NumPy."""
    cdef cnp.npy_intp* dims
    cdef Py_ssize_t i, ndim
    if type(array) is not cnp.ndarray:
        return array.shape == shape and array.dtype == dtype
    ndim = cnp.PyArray_NDIM(<cnp.ndarray>array)
    if ndim != len(shape):
        return False
    dims = cnp.PyArray_DIMS(<cnp.ndarray>array)
    for i in range(ndim):
        if dims[i] != <Py_ssize_t>shape[i]:
            return False
    descr = <object>cnp.PyArray_DESCR(<cnp.ndarray>array)
    return descr is dtype or descr == dtype
