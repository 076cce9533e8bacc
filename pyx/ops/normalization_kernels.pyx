"""layer_norm over the rows of a matrix in one pass each (NOTE [Layer norm in rows]).

# NOTE [Layer norm in rows]
layer_norm normalizes each row of the input seen as a ``(rows, D)`` matrix. Written with
NumPy it is a pass over the array per step (the mean, the centred values, their squares,
their mean, the scaling, the weight, the bias): seven passes and seven temporaries, where
the arithmetic itself is a few operations an element. The loops here read a row, sum it and
its squared deviations in the input's dtype (in vector lanes: GCC may reassociate these
sums, which is what lets it vectorise them), and write ``xhat = (x - mean) * rstd`` and
``xhat * weight + bias`` in the same sweep; the backward reads ``g * weight`` and ``xhat``
once for the row's two means and writes ``rstd * (g w - mean(g w) - xhat * mean(g w
xhat))`` (NOTE [The normalization backward] in normalization.py). torch's kernel also sums a
float32 row in float32 lanes, in another order, so the two agree to float32's rounding,
not bit for bit. 512 rows of 16 float32, the whole call: 22 us with scalar loops in double
precision, 6 us vectorised (AVX-512); the backward 13 us and 4 us.
"""
import numpy as np
cimport numpy as cnp

cnp.import_array()

__all__ = []

# The loops in C, so that GCC builds each for AVX-512, AVX2 and any x86-64 (the loader picks
# one by the CPU, as the float32 loops of activation_kernels.pyx). A float32 row is summed in
# float32 lanes (eight or sixteen at a time: the error of a row of a few hundred is well
# below float32's rounding of the result), a float64 one in float64.
cdef extern from *:
    """
    #include <math.h>
    #if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
    #define AGCY_ROW_CLONES \
        __attribute__((target_clones("arch=x86-64-v4", "avx2", "default")))
    #else
    #define AGCY_ROW_CLONES
    #endif

    #define AGCY_LAYER_NORM(NAME, BACKWARD, T)                                           \
    AGCY_ROW_CLONES static void NAME(const T* restrict x, T* restrict xhat,              \
            T* restrict out, const T* restrict weight, const T* restrict bias,          \
            T* restrict mean_out, T* restrict rstd_out, T* restrict var_out,             \
            Py_ssize_t rows, Py_ssize_t cols, double eps) {                              \
        for (Py_ssize_t r = 0; r < rows; r++) {                                          \
            const T* row = x + r * cols;                                                 \
            T* h = xhat + r * cols;                                                      \
            T* o = out + r * cols;                                                       \
            T total = 0;                                                                 \
            for (Py_ssize_t j = 0; j < cols; j++) total += row[j];                       \
            T mean = total / (T)cols;                                                    \
            T squares = 0;                                                               \
            for (Py_ssize_t j = 0; j < cols; j++) {                                      \
                T d = row[j] - mean;                                                     \
                squares += d * d;                                                        \
            }                                                                            \
            T var = squares / (T)cols;                                                   \
            T rstd = (T)(1.0 / sqrt((double)var + eps));                                 \
            mean_out[r] = mean; var_out[r] = var; rstd_out[r] = rstd;                    \
            for (Py_ssize_t j = 0; j < cols; j++) h[j] = (row[j] - mean) * rstd;         \
            if (weight && bias)                                                          \
                for (Py_ssize_t j = 0; j < cols; j++) o[j] = h[j] * weight[j] + bias[j]; \
            else if (weight)                                                             \
                for (Py_ssize_t j = 0; j < cols; j++) o[j] = h[j] * weight[j];           \
            else if (bias)                                                               \
                for (Py_ssize_t j = 0; j < cols; j++) o[j] = h[j] + bias[j];             \
        }                                                                                \
    }                                                                                    \
    AGCY_ROW_CLONES static void BACKWARD(const T* restrict grad, const T* restrict xhat, \
            const T* restrict rstd, const T* restrict weight, T* restrict out,           \
            Py_ssize_t rows, Py_ssize_t cols) {                                          \
        for (Py_ssize_t r = 0; r < rows; r++) {                                          \
            const T* g = grad + r * cols;                                                \
            const T* h = xhat + r * cols;                                                \
            T* o = out + r * cols;                                                       \
            if (weight)                                                                  \
                for (Py_ssize_t j = 0; j < cols; j++) o[j] = g[j] * weight[j];           \
            else                                                                         \
                for (Py_ssize_t j = 0; j < cols; j++) o[j] = g[j];                       \
            T total = 0, weighted = 0;                                                   \
            for (Py_ssize_t j = 0; j < cols; j++) {                                      \
                total += o[j];                                                           \
                weighted += o[j] * h[j];                                                 \
            }                                                                            \
            T mean = total / (T)cols, weighted_mean = weighted / (T)cols;                \
            for (Py_ssize_t j = 0; j < cols; j++)                                        \
                o[j] = rstd[r] * (o[j] - mean - h[j] * weighted_mean);                   \
        }                                                                                \
    }

    #pragma GCC push_options
    #pragma GCC optimize ("associative-math", "no-signed-zeros")
    AGCY_LAYER_NORM(agcy_layer_norm_float, agcy_layer_norm_backward_float, float)
    AGCY_LAYER_NORM(agcy_layer_norm_double, agcy_layer_norm_backward_double, double)
    #pragma GCC pop_options
    """
    void agcy_layer_norm_float(const float* x, float* xhat, float* out, const float* weight,
                               const float* bias, float* mean_out, float* rstd_out,
                               float* var_out, Py_ssize_t rows, Py_ssize_t cols,
                               double eps) nogil
    void agcy_layer_norm_double(const double* x, double* xhat, double* out,
                                const double* weight, const double* bias, double* mean_out,
                                double* rstd_out, double* var_out, Py_ssize_t rows,
                                Py_ssize_t cols, double eps) nogil
    void agcy_layer_norm_backward_float(const float* grad, const float* xhat,
                                        const float* rstd, const float* weight, float* out,
                                        Py_ssize_t rows, Py_ssize_t cols) nogil
    void agcy_layer_norm_backward_double(const double* grad, const double* xhat,
                                         const double* rstd, const double* weight,
                                         double* out, Py_ssize_t rows, Py_ssize_t cols) nogil


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
        agcy_layer_norm_float(<float*>cnp.PyArray_DATA(x), <float*>cnp.PyArray_DATA(xhat),
                              <float*>cnp.PyArray_DATA(out), <float*>w, <float*>b,
                              <float*>cnp.PyArray_DATA(mean), <float*>cnp.PyArray_DATA(rstd),
                              <float*>cnp.PyArray_DATA(var), rows, cols, eps)
    else:
        agcy_layer_norm_double(<double*>cnp.PyArray_DATA(x), <double*>cnp.PyArray_DATA(xhat),
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
        agcy_layer_norm_backward_float(
            <float*>cnp.PyArray_DATA(grad), <float*>cnp.PyArray_DATA(xhat),
            <float*>cnp.PyArray_DATA(rstd), <float*>w, <float*>cnp.PyArray_DATA(out), rows,
            cols)
    else:
        agcy_layer_norm_backward_double(
            <double*>cnp.PyArray_DATA(grad), <double*>cnp.PyArray_DATA(xhat),
            <double*>cnp.PyArray_DATA(rstd), <double*>w, <double*>cnp.PyArray_DATA(out), rows,
            cols)
    return out
