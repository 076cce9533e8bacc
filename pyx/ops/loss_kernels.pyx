"""nll_loss's common case in typed loops: NumPy in, NumPy out, no autograd.

The case is what ``cross_entropy(logits, labels)`` runs: an ``(N, C)`` float32/float64
input, a 1-D int64 target of class indices, no class weights, reduction 'mean' or
'sum'. loss.pyx's general path (any rank, weights, reduction 'none') takes about ten
NumPy calls, ~20 us on a batch of 64; these loops make one pass over the target. Each
function returns None when its operands do not qualify, and loss.pyx takes the general
path, which also raises the errors. loss.pyx reaches them through the CPU backend
(cpu_backend.pyx: NOTE [One backend interface] in device.pxd).
"""
import numpy as np
cimport numpy as cnp
from libc.stdint cimport int64_t

cnp.import_array()

ctypedef fused real:
    float
    double


cdef inline int input_type(object x):
    """The type number of a C-contiguous 2-D float32/float64 array, or -1."""
    if type(x) is not cnp.ndarray or cnp.PyArray_NDIM(<cnp.ndarray>x) != 2:
        return -1
    if not cnp.PyArray_ISCARRAY_RO(<cnp.ndarray>x):
        return -1
    cdef int typenum = cnp.PyArray_TYPE(<cnp.ndarray>x)
    return typenum if typenum == cnp.NPY_FLOAT or typenum == cnp.NPY_DOUBLE else -1


cdef inline bint class_indices(object target, Py_ssize_t batch):
    """Is ``target`` a C-contiguous int64 vector of ``batch`` class indices?"""
    return (type(target) is cnp.ndarray and cnp.PyArray_NDIM(<cnp.ndarray>target) == 1
            and cnp.PyArray_TYPE(<cnp.ndarray>target) == cnp.NPY_INT64
            and cnp.PyArray_ISCARRAY_RO(<cnp.ndarray>target)
            and cnp.PyArray_DIM(<cnp.ndarray>target, 0) == batch)


cdef inline bint fits_int64(object value):
    return type(value) is int and -(1 << 63) <= value < (1 << 63)


cdef object nll_loss_2d(object x, object target, object ignore_index, bint mean):
    """``(loss, total_weight)`` in ``x``'s dtype: the sum (or mean) of ``-x[n, target[n]]``
    over the targets that are not ``ignore_index`` (a 0-dim array), and their count."""
    cdef int typenum = input_type(x)
    if typenum < 0 or not fits_int64(ignore_index):
        return None
    cdef Py_ssize_t batch = cnp.PyArray_DIM(<cnp.ndarray>x, 0)
    cdef Py_ssize_t classes = cnp.PyArray_DIM(<cnp.ndarray>x, 1)
    if not class_indices(target, batch):
        return None
    cdef const int64_t* targets = <const int64_t*>cnp.PyArray_DATA(<cnp.ndarray>target)
    cdef int64_t ignore = ignore_index
    cdef double total = 0
    cdef Py_ssize_t count = 0
    if first_out_of_range(targets, batch, classes, ignore) >= 0:
        return None                 # the general path raises "Target ... is out of bounds."
    if typenum == cnp.NPY_FLOAT:
        negative_picks_sum(<const float*>cnp.PyArray_DATA(<cnp.ndarray>x), targets,
                           batch, classes, ignore, &total, &count)
    else:
        negative_picks_sum(<const double*>cnp.PyArray_DATA(<cnp.ndarray>x), targets,
                           batch, classes, ignore, &total, &count)
    dtype = x.dtype
    total_weight = dtype.type(count)    # a NumPy scalar, as the general path's w.sum()
    # 'mean' divides in the input's dtype, as PyTorch does (0 / 0 is nan: all ignored).
    loss = np.asarray(total, dtype)
    if mean:
        loss = np.asarray(rounded_divide(typenum, total, <double>count), dtype)
    return loss, total_weight


cdef inline double rounded_divide(int typenum, double numerator, double denominator):
    """``numerator / denominator`` with both operands and the quotient in the dtype."""
    if typenum == cnp.NPY_FLOAT:
        return <float>numerator / <float>denominator
    return numerator / denominator


cdef Py_ssize_t first_out_of_range(const int64_t* targets, Py_ssize_t batch,
                                   Py_ssize_t classes, int64_t ignore_index) noexcept nogil:
    """The first sample whose target is neither ``ignore_index`` nor a class, or -1."""
    cdef Py_ssize_t n
    for n in range(batch):
        if targets[n] != ignore_index and (targets[n] < 0 or targets[n] >= classes):
            return n
    return -1


cdef void negative_picks_sum(const real* x, const int64_t* targets, Py_ssize_t batch,
                             Py_ssize_t classes, int64_t ignore_index, double* total,
                             Py_ssize_t* count) noexcept nogil:
    """Accumulate ``-x[n, t]`` (in double) over the targets in range; count them."""
    cdef Py_ssize_t n
    for n in range(batch):
        if targets[n] != ignore_index:
            total[0] -= x[n * classes + targets[n]]
            count[0] += 1


cdef object nll_loss_2d_backward(object grad_output, object x, object target,
                                 object ignore_index, bint mean, object total_weight):
    """The gradient of :func:`nll_loss_2d`: ``-grad / total_weight`` (or ``-grad``) at each
    target position of an otherwise zero ``(N, C)`` array."""
    cdef int typenum = input_type(x)
    if typenum < 0 or not fits_int64(ignore_index):
        return None
    if (type(grad_output) is not cnp.ndarray or cnp.PyArray_NDIM(<cnp.ndarray>grad_output) != 0
            or cnp.PyArray_TYPE(<cnp.ndarray>grad_output) != typenum):
        return None
    cdef Py_ssize_t batch = cnp.PyArray_DIM(<cnp.ndarray>x, 0)
    cdef Py_ssize_t classes = cnp.PyArray_DIM(<cnp.ndarray>x, 1)
    if not class_indices(target, batch):
        return None
    cdef cnp.ndarray grad = <cnp.ndarray>cnp.PyArray_ZEROS(2, cnp.PyArray_DIMS(<cnp.ndarray>x),
                                                           typenum, 0)
    cdef const int64_t* targets = <const int64_t*>cnp.PyArray_DATA(<cnp.ndarray>target)
    cdef int64_t ignore = ignore_index
    if first_out_of_range(targets, batch, classes, ignore) >= 0:
        return None
    cdef double value = float(grad_output)
    if mean:
        value = rounded_divide(typenum, value, float(total_weight))
    if typenum == cnp.NPY_FLOAT:
        scatter_picks(<float*>cnp.PyArray_DATA(grad), targets, batch, classes, ignore,
                      <float>-value)
    else:
        scatter_picks(<double*>cnp.PyArray_DATA(grad), targets, batch, classes, ignore,
                      -value)
    return grad


cdef void scatter_picks(real* grad, const int64_t* targets, Py_ssize_t batch,
                        Py_ssize_t classes, int64_t ignore_index, real value) noexcept nogil:
    """Write ``value`` at ``grad[n, targets[n]]`` for the targets that are not ignored."""
    cdef Py_ssize_t n
    for n in range(batch):
        if targets[n] != ignore_index:
            grad[n * classes + targets[n]] = value
