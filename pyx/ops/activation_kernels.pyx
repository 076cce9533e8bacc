"""The array math behind activation.pyx: NumPy in, NumPy out, no autograd.

NumPy runs exp, tanh, log1p, maximum ... as SIMD loops, so most activations are
a few in-place NumPy passes over the array: measured 5-10x faster than a typed
scalar loop around libm (a scalar exp and a sign branch per element). Where one
pass can do what several NumPy passes do (softmax's rows, gelu, whose erf NumPy
lacks), float32 loops here compute exp and erf with arithmetic the compiler
vectorises (NOTE [A float32 exp that vectorises]). Masked selects (``np.where``
on a mixed mask) are slow as well, so blends use arithmetic where they can.
"""
import numpy as np
cimport numpy as cnp
from libc.math cimport exp, expf, log, logf, erf

from autograd_cy._C.device cimport backend_of, empty_result_like
from autograd_cy._C.dtype cimport half_precision
from autograd_cy._C.fp_errors cimport ignoring_fp_errors
from autograd_cy._C.promotion cimport widened
from autograd_cy._C.kernels cimport kernel_type, kernel_operand, saturate_float_tanh

cnp.import_array()

cdef object FLOAT32 = np.dtype(np.float32)
cdef object FLOAT64 = np.dtype(np.float64)
cdef object FLOAT16 = np.dtype(np.float16)

cdef double SQRT1_2 = 0.70710678118654752440       # 1 / sqrt(2)
cdef double INV_SQRT_2PI = 0.39894228040143267794  # 1 / sqrt(2 pi)
cdef double GELU_K = 0.79788456080286535588        # sqrt(2 / pi), the tanh approximation's
cdef double GELU_C = 0.044715

ctypedef fused real:
    float
    double


cdef inline object compute_array(object x):
    """``x`` as the kernels work on it: float16 in float32, as PyTorch's CPU kernels do,
    and 0-dim as 1-dim (NumPy turns a 0-dim result into a scalar, which has no ``out=``)."""
    if x.ndim == 0:
        x = x.reshape(1)
    return widened(x) if x.dtype.itemsize < 4 else x


cdef inline object as_result(object result, object x):
    """A kernel's result in the dtype and shape of its input ``x``."""
    if result.dtype != x.dtype:
        result = result.astype(x.dtype)
    return result.reshape(x.shape) if result.ndim != x.ndim else result


cdef inline object grad_like(object g, object work):
    """The incoming gradient in the shape and dtype of the work array."""
    if g.ndim != work.ndim:
        g = g.reshape(work.shape)
    return g if g.dtype == work.dtype else g.astype(work.dtype)


# ------------------------------------------------------------------ exp that vectorises

# NOTE [A float32 exp that vectorises]
# libm's expf is a function call per element that the compiler cannot vectorise, and
# NumPy's SIMD exp is a pass of its own (then a sum, a division: one pass each). The float32
# loops of softmax and gelu compute exp(y), y <= 0, in double precision from arithmetic the
# compiler turns into vector instructions: y = k ln 2 + r (k an integer, |r| <= ln2 / 2),
# exp(r) by its Taylor polynomial of degree 9 (relative error below 1e-11) and 2^k built in
# the exponent bits. Rounded to float32 that is the correctly rounded exp but for a few
# values in a million. y is clamped at -700, whose exp is 0 once rounded to float32; -inf
# gives 0 and nan stays nan.
# AGCY_VECTOR_CLONES builds each loop that uses it three times, for AVX-512 (x86-64-v4), for
# AVX2 and for any x86-64, and the loader picks one by the CPU (GCC's target_clones): 32,768
# exponentials take 57 us with SSE2's 2 doubles a vector, 31 us with AVX2's 4, 10 us with
# AVX-512's 8 on this project's VM. In double precision the vector width is what decides.
cdef extern from *:
    """
    #include <stdint.h>
    #include <string.h>
    #include <math.h>
    #if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
    #define AGCY_VECTOR_CLONES \
        __attribute__((target_clones("arch=x86-64-v4", "avx2", "default")))
    #else
    #define AGCY_VECTOR_CLONES
    #endif
    #define AGCY_INLINE static inline __attribute__((always_inline))

    AGCY_INLINE double agcy_exp_nonpositive(double y) {
        y = y < -700.0 ? -700.0 : y;            /* exp(-700) is 0 in float32 */
        const double shifter = 6755399441055744.0;    /* 1.5 2^52: rounds to an integer */
        double k = (y * 1.4426950408889634 + shifter) - shifter;
        double r = (y - k * 0.6931471803691238) - k * 1.9082149292705877e-10;
        double p = 1.0 / 362880;
        p = 1.0 / 40320 + r * p;
        p = 1.0 / 5040 + r * p;
        p = 1.0 / 720 + r * p;
        p = 1.0 / 120 + r * p;
        p = 1.0 / 24 + r * p;
        p = 1.0 / 6 + r * p;
        p = 0.5 + r * p;
        p = 1.0 + r * p;
        p = 1.0 + r * p;
        double biased = k + 4503599627371519.0;       /* 2^52 + 1023 + k */
        uint64_t bits;
        memcpy(&bits, &biased, sizeof bits);
        bits <<= 52;                                  /* (1023 + k) into the exponent */
        double scale;
        memcpy(&scale, &bits, sizeof scale);
        return p * scale;
    }

    /* The largest of n >= 1 floats, in 8 lanes the compiler vectorises; a nan is skipped
       here, and the exponentials that follow make its whole row nan. */
    AGCY_INLINE float agcy_row_max_float(const float* row, Py_ssize_t n) {
        float lane[8];
        for (int k = 0; k < 8; k++) lane[k] = row[0];
        Py_ssize_t j = 0;
        for (; j + 8 <= n; j += 8)
            for (int k = 0; k < 8; k++) lane[k] = row[j + k] > lane[k] ? row[j + k] : lane[k];
        float top = lane[0];
        for (int k = 1; k < 8; k++) top = lane[k] > top ? lane[k] : top;
        for (; j < n; j++) top = row[j] > top ? row[j] : top;
        return top;
    }

    /* The sum of n floats in double precision, in 8 lanes. */
    AGCY_INLINE double agcy_row_sum_float(const float* row, Py_ssize_t n) {
        double lane[8] = {0, 0, 0, 0, 0, 0, 0, 0};
        Py_ssize_t j = 0;
        for (; j + 8 <= n; j += 8)
            for (int k = 0; k < 8; k++) lane[k] += row[j + k];
        double total = ((lane[0] + lane[4]) + (lane[1] + lane[5]))
                       + ((lane[2] + lane[6]) + (lane[3] + lane[7]));
        for (; j < n; j++) total += row[j];
        return total;
    }

    /* Softmax (take_log: log_softmax) of each row of cols floats: shifted by the row's max,
       exponentials summed in double, then divided (or their log subtracted). safe: a row
       whose max is -inf (every element masked out) gives zeros, not 0/0. */
    AGCY_VECTOR_CLONES static void agcy_softmax_rows_float(
            const float* restrict x, float* restrict out, Py_ssize_t rows, Py_ssize_t cols,
            int take_log, int safe) {
        for (Py_ssize_t r = 0; r < rows; r++) {
            const float* row = x + r * cols;
            float* result = out + r * cols;
            float top = agcy_row_max_float(row, cols);
            if (safe && top == -INFINITY) {
                memset(result, 0, cols * sizeof(float));
                continue;
            }
            for (Py_ssize_t j = 0; j < cols; j++)
                result[j] = (float)agcy_exp_nonpositive((double)(row[j] - top));
            double total = agcy_row_sum_float(result, cols);
            if (take_log) {
                float log_total = (float)log(total);
                for (Py_ssize_t j = 0; j < cols; j++)
                    result[j] = (row[j] - top) - log_total;
            } else {
                float sum = (float)total;
                for (Py_ssize_t j = 0; j < cols; j++)
                    result[j] = result[j] / sum;
            }
        }
    }

    /* Softmax's backward from its output y: g y - y sum(g y), per row. */
    AGCY_VECTOR_CLONES static void agcy_softmax_backward_rows_float(
            const float* restrict g, const float* restrict y, float* restrict out,
            Py_ssize_t rows, Py_ssize_t cols) {
        for (Py_ssize_t r = 0; r < rows; r++) {
            Py_ssize_t start = r * cols;
            for (Py_ssize_t j = start; j < start + cols; j++)
                out[j] = g[j] * y[j];
            float total = (float)agcy_row_sum_float(out + start, cols);
            for (Py_ssize_t j = start; j < start + cols; j++)
                out[j] -= y[j] * total;
        }
    }
    """
    void agcy_softmax_rows_float(const float* x, float* out, Py_ssize_t rows,
                                 Py_ssize_t cols, int take_log, int safe) nogil
    void agcy_softmax_backward_rows_float(const float* g, const float* y, float* out,
                                          Py_ssize_t rows, Py_ssize_t cols) nogil


# ------------------------------------------------------------------ softmax
#
# A softmax over rows of a few elements (a classifier's logits, before cross_entropy) is a
# dozen NumPy calls of ~1 us each around almost no arithmetic, and over larger rows
# (attention's scores) NumPy's passes (max, subtract, exp, sum, divide) each read the whole
# array. Along the last dim of a C-contiguous array, the loops here do it row by row (shift
# by the row max, exp, sum, log or divide): for float32 of any size, vectorised (NOTE [A
# float32 exp that vectorises]); for float64 the typed loops below, on the arrays the fused
# loops take (NOTE [Fused kernels] in kernels.pyx: small), NumPy's SIMD exp otherwise.


cdef inline real exp_of(real value) noexcept nogil:
    if real is float:
        return expf(value)
    return exp(value)


cdef inline real log_of(real value) noexcept nogil:
    if real is float:
        return logf(value)
    return log(value)


cdef void softmax_rows(const real* x, real* out, Py_ssize_t rows, Py_ssize_t cols,
                       bint take_log) noexcept nogil:
    cdef Py_ssize_t r, j
    cdef const real* row
    cdef real* result
    cdef real top, shifted, total, log_total
    for r in range(rows):
        row = x + r * cols
        result = out + r * cols
        top = row[0]
        for j in range(1, cols):
            if row[j] > top or row[j] != row[j]:     # a NaN wins, as in np.maximum
                top = row[j]
        total = 0
        for j in range(cols):
            shifted = row[j] - top
            result[j] = shifted if take_log else exp_of(shifted)
            total += exp_of(shifted) if take_log else result[j]
        if take_log:
            log_total = log_of(total)
            for j in range(cols):
                result[j] -= log_total
        else:
            for j in range(cols):
                result[j] /= total


cdef void softmax_backward_rows(const real* g, const real* y, real* out, Py_ssize_t rows,
                                Py_ssize_t cols, bint take_log) noexcept nogil:
    """``g - exp(y) sum(g)`` (log_softmax) or ``g y - y sum(g y)`` (softmax), per row."""
    cdef Py_ssize_t r, j
    cdef real total
    cdef Py_ssize_t start
    for r in range(rows):
        start = r * cols
        total = 0
        if take_log:
            for j in range(start, start + cols):
                total += g[j]
            for j in range(start, start + cols):
                out[j] = g[j] - exp_of(y[j]) * total
        else:
            for j in range(start, start + cols):
                out[j] = g[j] * y[j]
                total += out[j]
            for j in range(start, start + cols):
                out[j] -= y[j] * total


cdef inline int rows_kernel_type(object x, Py_ssize_t dim):
    """The NumPy type number of ``x`` for the row loops along ``dim``, or -1: ``dim`` must
    be the last dim of a non-empty C-contiguous array, float32 of any size or float64 the
    fused loops take (``kernel_type``)."""
    if type(x) is not cnp.ndarray or dim != cnp.PyArray_NDIM(<cnp.ndarray>x) - 1:
        return -1
    if cnp.PyArray_SIZE(<cnp.ndarray>x) == 0:
        return -1
    if (cnp.PyArray_TYPE(<cnp.ndarray>x) == cnp.NPY_FLOAT
            and cnp.PyArray_ISCARRAY_RO(<cnp.ndarray>x)):
        return cnp.NPY_FLOAT
    return kernel_type(x)


cdef cnp.ndarray rows_output(cnp.ndarray array, int typenum, Py_ssize_t* rows,
                             Py_ssize_t* cols):
    """An empty result like ``array``, viewed as ``rows`` rows of ``cols`` (its last dim)."""
    cols[0] = cnp.PyArray_DIMS(array)[cnp.PyArray_NDIM(array) - 1]
    rows[0] = cnp.PyArray_SIZE(array) // cols[0]
    return <cnp.ndarray>cnp.PyArray_EMPTY(cnp.PyArray_NDIM(array), cnp.PyArray_DIMS(array),
                                          typenum, 0)


cdef object softmax_rows_kernel(object x, Py_ssize_t dim, bint take_log, bint safe=False):
    """softmax_array through the row loops, or None when they do not apply. ``safe``:
    rows of -inf give zeros (``safe_softmax_array``)."""
    cdef int typenum = rows_kernel_type(x, dim)
    cdef Py_ssize_t rows, cols
    if typenum < 0:
        return None
    cdef cnp.ndarray array = <cnp.ndarray>x
    cdef cnp.ndarray out = rows_output(array, typenum, &rows, &cols)
    if typenum == cnp.NPY_FLOAT:
        with nogil:
            agcy_softmax_rows_float(<float*>cnp.PyArray_DATA(array),
                                    <float*>cnp.PyArray_DATA(out), rows, cols, take_log, safe)
        return out
    softmax_rows(<double*>cnp.PyArray_DATA(array), <double*>cnp.PyArray_DATA(out),
                 rows, cols, take_log)
    return zero_masked_rows(x, out, dim) if safe else out


cdef object softmax_backward_rows_kernel(object g, object y, Py_ssize_t dim, bint take_log):
    """softmax_backward_array through the row loops, or None when they do not apply."""
    cdef int typenum = rows_kernel_type(y, dim) if not take_log else (
        kernel_type(y) if rows_kernel_type(y, dim) >= 0 else -1)
    cdef Py_ssize_t rows, cols
    if typenum < 0 or not kernel_operand(g, typenum):
        return None
    if not cnp.PyArray_SAMESHAPE(<cnp.ndarray>g, <cnp.ndarray>y):
        return None
    cdef cnp.ndarray array = <cnp.ndarray>y
    cdef cnp.ndarray out = rows_output(array, typenum, &rows, &cols)
    if typenum == cnp.NPY_FLOAT and not take_log:
        with nogil:
            agcy_softmax_backward_rows_float(<float*>cnp.PyArray_DATA(<cnp.ndarray>g),
                                             <float*>cnp.PyArray_DATA(array),
                                             <float*>cnp.PyArray_DATA(out), rows, cols)
    elif typenum == cnp.NPY_FLOAT:
        softmax_backward_rows(<float*>cnp.PyArray_DATA(<cnp.ndarray>g),
                              <float*>cnp.PyArray_DATA(array),
                              <float*>cnp.PyArray_DATA(out), rows, cols, take_log)
    else:
        softmax_backward_rows(<double*>cnp.PyArray_DATA(<cnp.ndarray>g),
                              <double*>cnp.PyArray_DATA(array),
                              <double*>cnp.PyArray_DATA(out), rows, cols, take_log)
    return out


cdef tuple TAKE_LOG = (True,), NO_LOG = (False,)     # the rows' scalars


cdef object softmax_array(object x, Py_ssize_t dim, bint take_log):
    """Softmax (or log_softmax) along ``dim``, shifted by the max so exp cannot overflow;
    by the backend's rows where it has them (the row loops above on the CPU, one launch of
    cuda/softmax.cu on a CUDA device)."""
    result = backend_of(x).rows("softmax_forward", (x,), dim, TAKE_LOG if take_log else NO_LOG)
    if result is not None:
        return result
    if x.size == 0:
        return x.copy()
    work = compute_array(x)
    if half_precision(x.dtype):
        return half_softmax_array(x, work, dim, take_log)
    # The ufuncs' own reduce: ndarray.max and .sum go through a Python-level wrapper.
    with ignoring_fp_errors():
        shifted = work - np.maximum.reduce(work, axis=dim, keepdims=True)
        if take_log:
            shifted -= np.log(np.add.reduce(np.exp(shifted), axis=dim, keepdims=True))
        else:
            np.exp(shifted, out=shifted)
            shifted /= np.add.reduce(shifted, axis=dim, keepdims=True)
    return as_result(shifted, x)


cdef object safe_softmax_array(object x, Py_ssize_t dim):
    """PyTorch's ``_safe_softmax``: softmax along ``dim``, except that a row whose every
    element is -inf (attention's scores, every key masked out) gives zeros, not 0/0."""
    result = softmax_rows_kernel(x, dim, False, True)
    if result is not None:
        return result
    return zero_masked_rows(x, softmax_array(x, dim, False), dim)


cdef object zero_masked_rows(object x, object out, Py_ssize_t dim):
    """``out`` with zeros along ``dim`` where the row of ``x`` is all -inf (its max is)."""
    if x.size == 0:
        return out
    top = x if x.ndim == 0 else np.maximum.reduce(x, axis=dim, keepdims=True)
    return np.where(top == -np.inf, np.zeros((), out.dtype), out)

# NOTE [Half-precision softmax]
# PyTorch's CPU softmax kernels for float16 and bfloat16 compute in float32 but keep some
# intermediates in the tensor's own type, and which ones depends on the kernel: along the
# last dim (torch's "lastdim" kernels, chosen by the dim alone), log_softmax rounds the sum
# of exponentials and its log to the type before subtracting that from ``x - max`` (its result
# can be a few units in the last place from the exact one, and then a log or reciprocal of it
# is far from it); softmax there works in float32 throughout. Along another dim (even one
# with only sizes 1 after it), softmax rounds each exponential before dividing by their
# float32 sum, and log_softmax works in float32 throughout. half_softmax_array repeats those
# roundings, so the result is torch's to the bit.

cdef inline object rounded(object array, object dtype):
    """``array`` rounded to ``dtype`` (float16 or bfloat16) and back to float32."""
    return array.astype(dtype).astype(FLOAT32)


cdef object half_softmax_array(object x, object work, Py_ssize_t dim, bint take_log):
    """Softmax (log_softmax) of a float16 or bfloat16 ``x`` (``work``: its float32 values)
    with PyTorch's roundings (NOTE [Half-precision softmax])."""
    cdef bint last = dim == x.ndim - 1 or x.ndim == 0
    with ignoring_fp_errors():
        shifted = work - np.maximum.reduce(work, axis=dim, keepdims=True)
        exps = np.exp(shifted)
        total = np.add.reduce(exps, axis=dim, keepdims=True)
        if take_log and last:
            result = shifted - rounded(np.log(rounded(total, x.dtype)), x.dtype)
        elif take_log:
            result = shifted - np.log(total)
        elif last:
            result = exps / total
        else:
            result = rounded(exps, x.dtype) / total
    return as_result(result, x)


cdef object softmax_backward_array(object g, object y, Py_ssize_t dim, bint take_log):
    """From the output ``y``: ``y (g - sum(g y))`` for softmax, ``g - exp(y) sum(g)`` for
    log_softmax. A 0-dim tensor is one row of one element: the gradient is 0, but NaN for
    an infinite or NaN ``g``, as PyTorch's. By the backend's rows where it has them, as
    softmax_array."""
    result = backend_of(y).rows("softmax_backward", (g, y), dim,
                                TAKE_LOG if take_log else NO_LOG)
    if result is not None:
        return result
    if y.ndim == 0:
        return softmax_backward_array(np.reshape(g, (1,)), np.reshape(y, (1,)), 0,
                                      take_log).reshape(())
    work = compute_array(y)
    g = grad_like(g, work)
    if take_log:
        out = np.exp(work)
        out *= np.add.reduce(g, axis=dim, keepdims=True)
        return as_result(np.subtract(g, out, out=out), y)
    out = g * work
    out -= work * np.add.reduce(out, axis=dim, keepdims=True)
    return as_result(out, y)


# ------------------------------------------------------------------ gelu

# NOTE [gelu's negative tail]
# PyTorch computes Phi(x) as 0.5 (1 + erf(x / sqrt 2)) in the input's dtype. Far into the
# negative tail (x < -5.5 in float32, x < -8.3 in float64) erf rounds to -1 and gelu is
# exactly 0: -0.0 in float64; in float32 +0.0, whose loop adds 0.5x erf to 0.5x as the
# AVX2 code of oneDNN (which runs torch's float32 gelu on the CPU) does, though its AVX-512
# code gives -0.0. erfc would be more accurate there, but a tiny negative value instead of 0
# changes what follows (0 ** 0 is 1; a tiny base to a tiny power is nan). So the loops run
# PyTorch's formulas, in float for float32.

cdef void gelu_double(const double* x, double* out, Py_ssize_t n) noexcept nogil:
    """``x Phi(x)`` in float64 (NOTE [gelu's negative tail]); float32 runs agcy_gelu_float
    (NOTE [A float32 erf that vectorises])."""
    cdef Py_ssize_t i
    for i in range(n):
        out[i] = x[i] * 0.5 * (1 + erf(x[i] * SQRT1_2))


cdef void gelu_backward_double(const double* g, const double* x, double* out,
                               Py_ssize_t n) noexcept nogil:
    """``g (Phi(x) + x phi(x))`` in float64."""
    cdef Py_ssize_t i
    cdef double v, cdf, pdf
    for i in range(n):
        v = x[i]
        cdf = 0.5 * (1 + erf(v * SQRT1_2))
        pdf = INV_SQRT_2PI * exp(v * v * -0.5)
        out[i] = g[i] * (cdf + v * pdf)


# NOTE [gelu of +inf]
# torch's float32 gelu (oneDNN's, which bfloat16 shares through float32) gives NaN at +inf,
# where its float64 and float16 kernels give inf (x Phi(x) at the limit), and so does a
# tensor of one element in any dtype (it takes another path); -inf is NaN in every dtype
# (-inf * 0). The float32 loop returns NaN there; float16 and a single element, computed in
# the same loop, take their inf back.

# NOTE [A float32 erf that vectorises]
# libm's erff is a branchy function the compiler cannot vectorise: float32 gelu over 32,768
# elements took 270 us here against torch's 20 us, and a transformer's feed-forward layer
# calls it (and its backward) every step. The loops below compute erf in double precision
# from two polynomials and one exponential, all of them arithmetic the compiler turns into
# vector instructions (built for AVX-512, AVX2 and any x86-64 by AGCY_VECTOR_CLONES):
# - |x| < 0.921875: erf(x) = x P(x^2), P of degree 6;
# - above: erf(|x|) = 1 - exp(-x^2) R(u), u = 1 / (1 + |x| / 2), R of degree 8 fitted to
#   erfc(x) exp(x^2) on [0.921875, 4]; past 4, erf rounds to 1 in float32 and x is clamped;
# - exp(-x^2) by agcy_exp_nonpositive (NOTE [A float32 exp that vectorises]).
# Both branches are computed and one selected (no branch in the loop; -fno-trapping-math in
# setup.py lets the compiler evaluate both). Rounded to float32, the result is within one
# unit in the last place of the correctly rounded erf (3,001,001 values checked, 0.07% one
# unit away); the gelu formulas around it are PyTorch's (NOTE [gelu's negative tail]).
# nan stays nan through the formulas around erf. float64 keeps libm's erf.
cdef extern from *:
    """
    AGCY_INLINE double agcy_erf(double x) {
        double ax = x < 0 ? -x : x;
        ax = ax < 4.0 ? ax : 4.0;
        double t = ax * ax;
        double small = 8.438724980023471e-05;
        small = -0.0008160774173056611 + t * small;
        small = 0.00520283490391175 + t * small;
        small = -0.026860240887938956 + t * small;
        small = 0.11283713841715429 + t * small;
        small = -0.3761263529960181 + t * small;
        small = 1.1283791669248824 + t * small;
        small = x * small;
        double u = 1.0 / (1.0 + 0.5 * ax);
        double big = 0.0077453221258515;
        big = 0.08886365136003671 + u * big;
        big = -0.419231348115379 + u * big;
        big = 0.513155317264956 + u * big;
        big = -0.07371249733375504 + u * big;
        big = 0.3364990573837971 + u * big;
        big = 0.2623328480956894 + u * big;
        big = 0.2845621015558977 + u * big;
        big = -0.00013405388489508402 + u * big;
        big = 1.0 - agcy_exp_nonpositive(-t) * big;
        big = x < 0 ? -big : big;
        return ax < 0.921875 ? small : big;
    }

    /* PyTorch's float32 formulas: 0.5x + 0.5x erf (+0.0 in the tail), and its derivative */
    AGCY_VECTOR_CLONES static void agcy_gelu_float(const float* restrict x, float* restrict out,
                                                Py_ssize_t n) {
        for (Py_ssize_t i = 0; i < n; i++) {
            float h = x[i] * 0.5f;
            float e = (float)agcy_erf((double)(x[i] * 0.70710678118654752440f));
            out[i] = x[i] == INFINITY ? NAN : h + h * e;     /* NOTE [gelu of +inf] */
        }
    }

    AGCY_VECTOR_CLONES static void agcy_gelu_backward_float(const float* restrict g,
                                                         const float* restrict x,
                                                         float* restrict out, Py_ssize_t n) {
        for (Py_ssize_t i = 0; i < n; i++) {
            float v = x[i];
            float cdf = 0.5f * (1.0f + (float)agcy_erf((double)(v * 0.70710678118654752440f)));
            float pdf = 0.39894228040143267794f
                        * (float)agcy_exp_nonpositive((double)(v * v * -0.5f));
            out[i] = g[i] * (cdf + v * pdf);
        }
    }
    """
    void agcy_gelu_float(const float* x, float* out, Py_ssize_t n) nogil
    void agcy_gelu_backward_float(const float* g, const float* x, float* out,
                                  Py_ssize_t n) nogil


cdef object gelu_exact(object x, object g):
    """The typed loops over a contiguous float32/float64 ``x`` (and ``g``)."""
    x = np.ascontiguousarray(x)
    out = np.empty(x.shape, x.dtype)
    cdef Py_ssize_t n = x.size
    cdef void* px = cnp.PyArray_DATA(x)
    cdef void* po = cnp.PyArray_DATA(out)
    cdef void* pg
    if g is None:
        if x.dtype == FLOAT64:
            with nogil:
                gelu_double(<double*>px, <double*>po, n)
        else:
            with nogil:
                agcy_gelu_float(<float*>px, <float*>po, n)
        return out
    g = np.ascontiguousarray(np.broadcast_to(g, x.shape))
    pg = cnp.PyArray_DATA(g)
    if x.dtype == FLOAT64:
        with nogil:
            gelu_backward_double(<double*>pg, <double*>px, <double*>po, n)
    else:
        with nogil:
            agcy_gelu_backward_float(<float*>pg, <float*>px, <float*>po, n)
    return out


cdef object gelu_tanh(object x, object g):
    """``0.5 x (1 + t)``, t = tanh(k x (1 + c x^2)); or ``g`` times its derivative
    ``0.5 (1 + t) + 0.5 x (1 - t^2) k (1 + 3 c x^2)``."""
    x2 = x * x
    t = x2 * GELU_C
    t += 1
    t *= x
    t *= GELU_K
    if t.dtype == np.float32:       # NOTE [float32 tanh near saturation] in kernels.pyx
        t = saturate_float_tanh(t, np.tanh(t))
    else:
        np.tanh(t, out=t)
    if g is None:
        t += 1
        t *= x
        t *= 0.5
        return t
    # torch's order: 0.5 x (1 - t^2) first, so that where t is 1 the huge x and x^2
    # meet a zero and not each other (x (1 + 3 c x^2) overflows float32 from x ~ 1e13:
    # inf * 0 would be NaN where torch's gradient is finite)
    slope = x * 0.5
    slope *= 1 - t * t
    inner = x2 * (3 * GELU_C)
    inner += 1
    inner *= GELU_K
    slope *= inner
    t += 1
    t *= 0.5
    t += slope
    t *= g
    return t


cdef object fused_activation(str functor, str backward, object x, object g):
    """An activation by its backend (NOTE [One backend interface] in device.pxd): the
    forward functor (``Gelu``: ``unary<T, Gelu>`` on a CUDA device) or, with a gradient
    ``g``, the fused backward formula; None where the backend has neither (the CPU's
    loops below)."""
    if g is None:
        return backend_of(x).unary(functor, x)
    return backend_of(g).fused(backward, g, x)


cdef object gelu_array(object x, object g, str approximate):
    result = fused_activation("Gelu" if approximate != "tanh" else "GeluTanh",
                              "gelu_backward" if approximate != "tanh" else
                              "gelu_tanh_backward", x, g)
    if result is not None:
        return result
    work = compute_array(x)
    if g is not None:
        g = grad_like(g, work)
    if approximate == "tanh":
        with ignoring_fp_errors():  # x = +-inf: inf * 0
            return as_result(gelu_tanh(work, g), x)
    result = as_result(gelu_exact(work, g), x)
    if g is None and (x.dtype == FLOAT16 or x.size == 1):     # NOTE [gelu of +inf]
        np.copyto(result, x, where=np.isposinf(x))
    return result


# ------------------------------------------------------------------ sigmoid family

cdef object sigmoid_of(object x):
    """``1 / (1 + exp(-x))`` in one buffer laid out as torch lays out a pointwise result; exp
    overflows to inf for x << 0, giving the limit 0. The sigmoid op's forward, and a part of
    silu and softplus."""
    out = np.negative(x, out=empty_result_like(x))
    with ignoring_fp_errors():
        np.exp(out, out=out)
    out += 1
    return np.reciprocal(out, out=out)


cdef object log_sigmoid_array(object x):
    """``min(x, 0) - log1p(exp(-|x|))``: no overflow and no log(0) either way."""
    work = compute_array(x)
    t = np.abs(work)
    np.negative(t, out=t)
    np.exp(t, out=t)
    np.log1p(t, out=t)
    return as_result(np.subtract(np.minimum(work, 0), t, out=t), x)


cdef object silu_array(object x, object g):
    """``x s`` or ``g s (1 + x (1 - s))``, s = sigmoid(x)."""
    result = fused_activation("Silu", "silu_backward", x, g)
    if result is not None:
        return result
    work = compute_array(x)
    s = sigmoid_of(work)
    with ignoring_fp_errors():  # x = -inf: 0 * inf is nan, as in PyTorch
        if g is None:
            return as_result(np.multiply(s, work, out=s), x)
        out = 1 - s
        out *= work
        out += 1
        out *= s
        out *= grad_like(g, work)
    return as_result(out, x)


cdef object softplus_array(object x, object g, double beta, double threshold):
    """``log1p(exp(beta x)) / beta`` or ``g sigmoid(beta x)``; where ``beta x > threshold``
    the function is ``x`` and its derivative 1."""
    if g is not None:
        result = backend_of(g).fused("softplus_backward", g, x, (beta, threshold))
        if result is not None:
            return result
    work = compute_array(x)
    z = work * beta
    above = z > threshold
    if g is None:
        with ignoring_fp_errors():
            np.exp(z, out=z)
        np.log1p(z, out=z)
        z /= beta
        out = np.where(above, work, z) if above.any() else z
    else:
        g = grad_like(g, work)
        s = sigmoid_of(z)
        s *= g
        out = np.where(above, g, s) if above.any() else s
    return as_result(out, x)


# ------------------------------------------------------------------ leaky_relu

cdef object leaky_relu_array(object x, object g, double negative_slope):
    """``x`` where positive, else ``slope x``: ``max(x, slope x)`` for a slope up to 1,
    ``min`` above it. The gradient ``g (slope + (1 - slope) [x > 0])``."""
    work = compute_array(x)
    if g is not None:
        g = grad_like(g, work)
        factor = (work > 0).astype(g.dtype)
        factor *= 1 - negative_slope
        factor += negative_slope
        factor *= g
        return as_result(factor, x)
    if negative_slope == 0:                 # max(inf, 0 * inf) would be nan
        with ignoring_fp_errors():
            return as_result(np.where(work > 0, work, work * 0.0), x)
    scaled = work * negative_slope
    if negative_slope <= 1:
        return as_result(np.maximum(work, scaled, out=scaled), x)
    return as_result(np.minimum(work, scaled, out=scaled), x)
