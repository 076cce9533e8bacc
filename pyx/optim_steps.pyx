"""The optimizers' CPU steps fused into one C loop per parameter.

NOTE [Fused optimizer steps]
torch's single-tensor Adam is a dozen in-place ops per parameter; the NumPy path of
autograd_cy/optim runs them as a dozen ufunc passes over the parameter's arrays (NOTE
[Optimizer steps on the arrays]). Memory, not arithmetic, bounds each pass, so one loop that
reads param, grad, exp_avg and exp_avg_sq once and writes three of them once does the same
work in a third of the time (an AVX2 build of the common case halves it again). Each line
of the loops below is one of those ops, in the same order, each result rounded to the
parameter's dtype as the op's output is (C's float arithmetic in float, double in double;
no fused multiply-add is enabled, so nothing is contracted): the values are those of the
NumPy path, bit for bit. It takes float32 and
float64 parameters whose four arrays are C-contiguous and of one shape; anything else
(half dtypes, which compute in float32, complex views, amsgrad) stays on the NumPy path.
"""
cimport numpy as cnp
from libc.math cimport sqrt, sqrtf, fabs

cnp.import_array()


ctypedef fused real:
    float
    double


cdef inline bint _fused_operands(int typenum, object param, object grad, object exp_avg,
                                 object exp_avg_sq):
    """Whether the four arrays are C-contiguous, writable where written, of ``typenum``
    and of one size."""
    cdef object a
    cdef Py_ssize_t n
    for a in (param, grad, exp_avg, exp_avg_sq):
        if type(a) is not cnp.ndarray or cnp.PyArray_TYPE(<cnp.ndarray>a) != typenum \
                or not cnp.PyArray_ISCARRAY_RO(<cnp.ndarray>a):
            return False
    n = cnp.PyArray_SIZE(<cnp.ndarray>param)
    for a in (param, exp_avg, exp_avg_sq):
        if not cnp.PyArray_ISWRITEABLE(<cnp.ndarray>a):
            return False
    for a in (grad, exp_avg, exp_avg_sq):
        if cnp.PyArray_SIZE(<cnp.ndarray>a) != n:
            return False
    return True


cdef void _adam_loop(real* p, const real* g, real* m, real* v, Py_ssize_t n, real beta2,
                     real one_minus_beta1, real one_minus_beta2, real minus_step_size,
                     real bias_correction2_sqrt, real eps, real weight_decay,
                     real decay_factor, bint decoupled, bint maximize) noexcept nogil:
    """Every option: one of torch's ops a line, in their order."""
    cdef Py_ssize_t i
    cdef real grad, diff, denom
    cdef bint small_weight = fabs(one_minus_beta1) < 0.5
    cdef real one = 1
    for i in range(n):
        grad = -g[i] if maximize else g[i]
        if weight_decay != 0:
            if decoupled:
                p[i] = p[i] * decay_factor                    # param.mul_(1 - lr * wd)
            else:
                grad = grad + p[i] * weight_decay             # grad.add(param, alpha=wd)
        diff = grad - m[i]                                    # exp_avg.lerp_(grad, 1 - b1)
        if small_weight:
            m[i] = m[i] + diff * one_minus_beta1
        else:
            m[i] = grad - diff * (one - one_minus_beta1)
        v[i] = v[i] * beta2                                   # exp_avg_sq.mul_(b2)
        v[i] = v[i] + (grad * one_minus_beta2) * grad         # .addcmul_(g, g, 1 - b2)
        if real is float:                                     # exp_avg_sq.sqrt()
            denom = sqrtf(v[i])
        else:
            denom = sqrt(v[i])
        denom = denom / bias_correction2_sqrt                 # / bias_correction2_sqrt
        denom = denom + eps                                   # .add_(eps)
        p[i] = p[i] + (m[i] * minus_step_size) / denom        # addcdiv_(m, denom, -size)


# The common case, without a branch, in C so that GCC can build it twice (target_clones):
# for AVX2, whose 8-wide divisions and square roots double the SSE loop's speed, and for
# any x86-64; the loader picks one for the CPU it runs on. FMA is not enabled in either, so
# each product and sum is rounded on its own, as in the NumPy path.
cdef extern from *:
    """
    #if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
    #define AGCY_CLONES __attribute__((target_clones("avx2", "default")))
    #else
    #define AGCY_CLONES
    #endif
    #define AGCY_ADAM_PLAIN(NAME, T, SQRT)                                              \
    AGCY_CLONES static void NAME(T* p, const T* g, T* m, T* v, Py_ssize_t n, T beta2,    \
                                 T one_minus_beta1, T one_minus_beta2,                   \
                                 T minus_step_size, T bias_correction2_sqrt, T eps,      \
                                 T decay_factor) {                                       \
        for (Py_ssize_t i = 0; i < n; i++) {                                            \
            T grad = g[i];                                                               \
            T param = p[i] * decay_factor;                                               \
            T average = m[i] + (grad - m[i]) * one_minus_beta1;                          \
            T average_sq = v[i] * beta2;                                                 \
            average_sq = average_sq + (grad * one_minus_beta2) * grad;                   \
            T denom = SQRT(average_sq) / bias_correction2_sqrt + eps;                   \
            p[i] = param + (average * minus_step_size) / denom;                          \
            m[i] = average;                                                              \
            v[i] = average_sq;                                                           \
        }                                                                                \
    }
    AGCY_ADAM_PLAIN(agcy_adam_plain_float, float, sqrtf)
    AGCY_ADAM_PLAIN(agcy_adam_plain_double, double, sqrt)
    """
    void agcy_adam_plain_float(float* p, const float* g, float* m, float* v, Py_ssize_t n,
                               float beta2, float one_minus_beta1, float one_minus_beta2,
                               float minus_step_size, float bias_correction2_sqrt, float eps,
                               float decay_factor) nogil
    void agcy_adam_plain_double(double* p, const double* g, double* m, double* v,
                                Py_ssize_t n, double beta2, double one_minus_beta1,
                                double one_minus_beta2, double minus_step_size,
                                double bias_correction2_sqrt, double eps,
                                double decay_factor) nogil


cpdef bint adam_step(object param, object grad, object exp_avg, object exp_avg_sq,
                     double beta1, double beta2, double step_size,
                     double bias_correction2_sqrt, double eps, double weight_decay,
                     double lr, bint decoupled, bint maximize) except -1:
    """One Adam (or AdamW, ``decoupled``) update of a parameter's arrays in place, after
    the step count and bias corrections were computed; False, touching nothing, when the
    arrays are not ones this loop takes."""
    cdef Py_ssize_t n
    cdef int typenum
    cdef bint plain
    if type(param) is not cnp.ndarray:
        return False
    typenum = cnp.PyArray_TYPE(<cnp.ndarray>param)
    if typenum != cnp.NPY_FLOAT and typenum != cnp.NPY_DOUBLE:
        return False
    if not _fused_operands(typenum, param, grad, exp_avg, exp_avg_sq):
        return False
    n = cnp.PyArray_SIZE(<cnp.ndarray>param)
    plain = not maximize and (weight_decay == 0 or decoupled) and abs(1 - beta1) < 0.5
    if plain and typenum == cnp.NPY_FLOAT:
        with nogil:
            agcy_adam_plain_float(
                <float*>cnp.PyArray_DATA(<cnp.ndarray>param),
                <const float*>cnp.PyArray_DATA(<cnp.ndarray>grad),
                <float*>cnp.PyArray_DATA(<cnp.ndarray>exp_avg),
                <float*>cnp.PyArray_DATA(<cnp.ndarray>exp_avg_sq), n, <float>beta2,
                <float>(1 - beta1), <float>(1 - beta2), <float>(-step_size),
                <float>bias_correction2_sqrt, <float>eps, <float>(1 - lr * weight_decay))
    elif plain:
        with nogil:
            agcy_adam_plain_double(
                <double*>cnp.PyArray_DATA(<cnp.ndarray>param),
                <const double*>cnp.PyArray_DATA(<cnp.ndarray>grad),
                <double*>cnp.PyArray_DATA(<cnp.ndarray>exp_avg),
                <double*>cnp.PyArray_DATA(<cnp.ndarray>exp_avg_sq), n, beta2, 1 - beta1,
                1 - beta2, -step_size, bias_correction2_sqrt, eps, 1 - lr * weight_decay)
    elif typenum == cnp.NPY_FLOAT:
        with nogil:
            _adam_loop[float](
                <float*>cnp.PyArray_DATA(<cnp.ndarray>param),
                <const float*>cnp.PyArray_DATA(<cnp.ndarray>grad),
                <float*>cnp.PyArray_DATA(<cnp.ndarray>exp_avg),
                <float*>cnp.PyArray_DATA(<cnp.ndarray>exp_avg_sq), n, <float>beta2,
                <float>(1 - beta1), <float>(1 - beta2), <float>(-step_size),
                <float>bias_correction2_sqrt, <float>eps, <float>weight_decay,
                <float>(1 - lr * weight_decay), decoupled, maximize)
    else:
        with nogil:
            _adam_loop[double](
                <double*>cnp.PyArray_DATA(<cnp.ndarray>param),
                <const double*>cnp.PyArray_DATA(<cnp.ndarray>grad),
                <double*>cnp.PyArray_DATA(<cnp.ndarray>exp_avg),
                <double*>cnp.PyArray_DATA(<cnp.ndarray>exp_avg_sq), n, beta2, 1 - beta1,
                1 - beta2, -step_size, bias_correction2_sqrt, eps, weight_decay,
                1 - lr * weight_decay, decoupled, maximize)
    return True
