"""layer_norm over the rows of a matrix in one pass each (NOTE [Layer norm in rows]).

# NOTE [Layer norm in rows]
layer_norm normalizes each row of the input seen as a ``(rows, D)`` matrix. Written with
NumPy it is a pass over the array per step (the mean, the centred values, their squares,
their mean, the scaling, the weight, the bias): seven passes and seven temporaries, where
the arithmetic itself is a few operations an element. The loops here read a row, sum it and
its squared deviations in double precision (in eight lanes the compiler vectorises), and
write ``xhat = (x - mean) * rstd`` and ``xhat * weight + bias`` in the same sweep; the
backward reads ``g * weight`` and ``xhat`` once for the row's two means and writes
``rstd * (g w - mean(g w) - xhat * mean(g w xhat))`` (NOTE [The normalization backward] in
normalization.py). The statistics are accumulated in double where torch's kernel keeps
float32 for a float32 input, so the two agree to float32's rounding, not bit for bit.
"""
import numpy as np
cimport numpy as cnp
from libc.math cimport sqrt

cnp.import_array()

__all__ = []

ctypedef fused real:
    float
    double


cdef inline double row_sum(const real* row, Py_ssize_t n, double shift) noexcept nogil:
    """``sum(row - shift)`` in double precision, in eight lanes."""
    cdef double lane[8]
    cdef Py_ssize_t j = 0
    cdef int k
    for k in range(8):
        lane[k] = 0
    while j + 8 <= n:
        for k in range(8):
            lane[k] += row[j + k] - shift
        j += 8
    cdef double total = ((lane[0] + lane[4]) + (lane[1] + lane[5])) + (
        (lane[2] + lane[6]) + (lane[3] + lane[7]))
    while j < n:
        total += row[j] - shift
        j += 1
    return total


cdef inline double row_square_sum(const real* row, Py_ssize_t n, double mean) noexcept nogil:
    """``sum((row - mean) ** 2)`` in double precision, in eight lanes."""
    cdef double lane[8]
    cdef double d
    cdef Py_ssize_t j = 0
    cdef int k
    for k in range(8):
        lane[k] = 0
    while j + 8 <= n:
        for k in range(8):
            d = row[j + k] - mean
            lane[k] += d * d
        j += 8
    cdef double total = ((lane[0] + lane[4]) + (lane[1] + lane[5])) + (
        (lane[2] + lane[6]) + (lane[3] + lane[7]))
    while j < n:
        d = row[j] - mean
        total += d * d
        j += 1
    return total


cdef void normalize_rows(const real* x, real* xhat, real* out, const real* weight,
                         const real* bias, real* mean_out, real* rstd_out, real* var_out,
                         Py_ssize_t rows, Py_ssize_t cols, double eps) noexcept nogil:
    cdef Py_ssize_t r, j
    cdef const real* row
    cdef double mean, var, rstd
    cdef real value
    for r in range(rows):
        row = x + r * cols
        mean = row_sum(row, cols, 0.0) / cols
        var = row_square_sum(row, cols, mean) / cols
        rstd = 1.0 / sqrt(var + eps)
        mean_out[r], var_out[r], rstd_out[r] = <real>mean, <real>var, <real>rstd
        for j in range(cols):
            value = <real>((row[j] - mean) * rstd)
            xhat[r * cols + j] = value
            if weight != NULL:
                value = value * weight[j]
            if bias != NULL:
                value = value + bias[j]
            out[r * cols + j] = value


cdef void input_gradient_rows(const real* grad, const real* xhat, const real* rstd,
                              const real* weight, real* out, Py_ssize_t rows,
                              Py_ssize_t cols) noexcept nogil:
    cdef Py_ssize_t r, j, start
    cdef double total, weighted_total, g
    for r in range(rows):
        start = r * cols
        total = 0
        weighted_total = 0
        for j in range(cols):
            g = grad[start + j] * (weight[j] if weight != NULL else 1.0)
            total += g
            weighted_total += g * xhat[start + j]
        total /= cols
        weighted_total /= cols
        for j in range(cols):
            g = grad[start + j] * (weight[j] if weight != NULL else 1.0)
            out[start + j] = <real>(rstd[r] * (g - total - xhat[start + j] * weighted_total))


cdef bint takes(object array, object dtype):
    return (type(array) is cnp.ndarray and array.dtype == dtype
            and (<cnp.ndarray>array).flags.c_contiguous)


cdef object row_dtype(object x, object weight, object bias):
    """The dtype the loops run in for these operands, or None where they do not apply: a
    C-contiguous float32/float64 matrix on the CPU, vector parameters of its dtype."""
    if type(x) is not cnp.ndarray or x.ndim != 2 or x.dtype.kind != "f" or x.itemsize < 4:
        return None
    if not takes(x, x.dtype):
        return None
    for param in (weight, bias):
        if param is not None and not (takes(param, x.dtype) and param.shape == (x.shape[1],)):
            return None
    return x.dtype


def normalize(x, weight, bias, double eps):
    """``(out, xhat, mean, rstd, var)`` of layer_norm over the rows of the matrix ``x``
    (``weight``/``bias``: arrays of its row length, or None), or None where the loops do
    not apply (``row_dtype``). The statistics are ``(rows, 1)``."""
    dtype = row_dtype(x, weight, bias)
    if dtype is None:
        return None
    cdef Py_ssize_t rows = x.shape[0], cols = x.shape[1]
    xhat = np.empty_like(x)
    out = np.empty_like(x) if (weight is not None or bias is not None) else xhat
    mean = np.empty((rows, 1), dtype)
    rstd = np.empty((rows, 1), dtype)
    var = np.empty((rows, 1), dtype)
    if cols == 0:
        mean.fill(np.nan)
        var.fill(np.nan)
        rstd.fill(np.nan)
        return out, xhat, mean, rstd, var
    cdef void* w = NULL if weight is None else cnp.PyArray_DATA(weight)
    cdef void* b = NULL if bias is None else cnp.PyArray_DATA(bias)
    if dtype == np.float32:
        normalize_rows(<float*>cnp.PyArray_DATA(x), <float*>cnp.PyArray_DATA(xhat),
                       <float*>cnp.PyArray_DATA(out), <float*>w, <float*>b,
                       <float*>cnp.PyArray_DATA(mean), <float*>cnp.PyArray_DATA(rstd),
                       <float*>cnp.PyArray_DATA(var), rows, cols, eps)
    else:
        normalize_rows(<double*>cnp.PyArray_DATA(x), <double*>cnp.PyArray_DATA(xhat),
                       <double*>cnp.PyArray_DATA(out), <double*>w, <double*>b,
                       <double*>cnp.PyArray_DATA(mean), <double*>cnp.PyArray_DATA(rstd),
                       <double*>cnp.PyArray_DATA(var), rows, cols, eps)
    return out, xhat, mean, rstd, var


def input_gradient(grad, xhat, rstd, weight):
    """layer_norm's input gradient over the rows (NOTE [The normalization backward]), or
    None where the loops do not apply."""
    dtype = row_dtype(xhat, weight, None)
    if dtype is None or not takes(grad, dtype) or grad.shape != xhat.shape:
        return None
    if not takes(rstd, dtype) or rstd.size != xhat.shape[0]:
        return None
    out = np.empty_like(xhat)
    cdef Py_ssize_t rows = xhat.shape[0], cols = xhat.shape[1]
    cdef void* w = NULL if weight is None else cnp.PyArray_DATA(weight)
    if dtype == np.float32:
        input_gradient_rows(<float*>cnp.PyArray_DATA(grad), <float*>cnp.PyArray_DATA(xhat),
                            <float*>cnp.PyArray_DATA(rstd), <float*>w,
                            <float*>cnp.PyArray_DATA(out), rows, cols)
    else:
        input_gradient_rows(<double*>cnp.PyArray_DATA(grad), <double*>cnp.PyArray_DATA(xhat),
                            <double*>cnp.PyArray_DATA(rstd), <double*>w,
                            <double*>cnp.PyArray_DATA(out), rows, cols)
    return out
