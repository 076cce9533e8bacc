"""gemm from the BLAS library NumPy was built with, called directly for 2-D float products.

NOTE [Calling NumPy's BLAS directly]
``ndarray.dot`` and ``np.matmul`` end in the same BLAS gemm, but on the way they parse
their arguments, choose between gemm, gemv and syrk, and (``dot``) zero-fill the output
that gemm, called with beta = 0, writes again: about 5,000 instructions and a memset per
product, as much as the arithmetic of an 8-by-32-by-32 product. NumPy's wheels ship
OpenBLAS as a library of their own (``numpy.libs/libscipy_openblas64_*.so``, 64-bit
integers, its symbols prefixed ``scipy_``). This module finds that library among the ones
already loaded (``dlopen`` with RTLD_NOLOAD loads nothing new), looks up ``sgemm`` and
``dgemm``, and calls them with the operands' own layouts: a row-major or a transposed
(column-major) matrix goes in as it is, with the matching ``trans`` flag, and the output is
a fresh C-contiguous array. Same library, same kernels, same threads as NumPy's products.
Where the library is not there (a NumPy built against another BLAS) or an operand's layout
is not one BLAS takes (negative or unaligned strides), ``blas_product`` returns None and
the caller takes NumPy's path, so nothing depends on it but speed.
"""
import glob
import os

import numpy as np
cimport numpy as cnp
from libc.stdint cimport int64_t

cnp.import_array()

cdef extern from "<dlfcn.h>" nogil:
    void* dlopen(const char* filename, int flags)
    void* dlsym(void* handle, const char* symbol)
    int RTLD_LAZY
    int RTLD_NOLOAD

ctypedef void (*sgemm_function)(int order, int trans_a, int trans_b, int64_t m, int64_t n,
                                int64_t k, float alpha, const float* a, int64_t lda,
                                const float* b, int64_t ldb, float beta, float* c,
                                int64_t ldc) noexcept nogil
ctypedef void (*dgemm_function)(int order, int trans_a, int trans_b, int64_t m, int64_t n,
                                int64_t k, double alpha, const double* a, int64_t lda,
                                const double* b, int64_t ldb, double beta, double* c,
                                int64_t ldc) noexcept nogil

# OpenBLAS's AVX-512 kernels for products that need no packing, called by name (NOTE
# [OpenBLAS's AVX-512 kernels on AMD CPUs]): column-major ``c = alpha * op(a) @ op(b)``,
# ``c`` written, never read (the "b0" variants: beta = 0).
ctypedef int (*small_sgemm_function)(int64_t m, int64_t n, int64_t k, const float* a,
                                     int64_t lda, float alpha, const float* b, int64_t ldb,
                                     float* c, int64_t ldc) noexcept nogil
ctypedef int (*small_dgemm_function)(int64_t m, int64_t n, int64_t k, const double* a,
                                     int64_t lda, double alpha, const double* b, int64_t ldb,
                                     double* c, int64_t ldc) noexcept nogil
ctypedef const char* (*name_function)() noexcept nogil
ctypedef int (*threads_function)() noexcept nogil

cdef extern from *:
    """
    /* Whether the CPU runs OpenBLAS's SkylakeX kernels (AVX-512 F, DQ, BW and VL). */
    static int cpu_runs_skylakex_kernels(void) {
    #if defined(__x86_64__) && defined(__GNUC__)
        __builtin_cpu_init();
        return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq")
            && __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl");
    #else
        return 0;
    #endif
    }
    """
    int cpu_runs_skylakex_kernels() noexcept nogil

cdef enum:
    ROW_MAJOR = 101         # CBLAS's enum values
    NO_TRANS = 111
    TRANS = 112
    # products with more multiply-adds than this let other threads run meanwhile
    RELEASE_GIL_MACS = 262144
    # a product whose b is transposed (the kernels' first operand) and whose inner dim is
    # shorter than this stays with cblas (the "tn" kernel's loop is slow on short rows)
    SMALL_KERNEL_TRANSPOSED_MIN_K = 32
    # and, where OpenBLAS runs several threads, products with more stay with cblas (whose
    # threads they are worth)
    SMALL_KERNEL_THREADED_MAX_MACS = 2097152

cdef sgemm_function sgemm = NULL
cdef dgemm_function dgemm = NULL
# [first operand transposed][second operand transposed], column-major; NULL: not in use
cdef small_sgemm_function small_sgemm[2][2]
cdef small_dgemm_function small_dgemm[2][2]
cdef threads_function blas_threads = NULL


cdef void find_gemm():
    """Point ``sgemm`` and ``dgemm`` at NumPy's OpenBLAS, if NumPy loaded one."""
    global sgemm, dgemm
    cdef void* library
    folder = os.path.join(os.path.dirname(os.path.dirname(np.__file__)), "numpy.libs")
    for path in glob.glob(os.path.join(folder, "libscipy_openblas64_*.so")):
        library = dlopen(os.fsencode(path), RTLD_LAZY | RTLD_NOLOAD)
        if library == NULL:
            continue
        sgemm = <sgemm_function>dlsym(library, b"scipy_cblas_sgemm64_")
        dgemm = <dgemm_function>dlsym(library, b"scipy_cblas_dgemm64_")
        if sgemm != NULL and dgemm != NULL:
            find_skylakex_kernels(library)
            return
    sgemm, dgemm = NULL, NULL


# NOTE [OpenBLAS's AVX-512 kernels on AMD CPUs]
# OpenBLAS picks its kernels for the CPU once, when NumPy loads it. On AMD Zen 4 and Zen 5,
# which have AVX-512, the OpenBLAS of NumPy's wheels (0.3.31 here) picks its AVX2 "Haswell"
# kernels: a 64x784 by 784x256 float32 product takes 218 us on the project's Zen 5 VM, and
# 139 us with ``OPENBLAS_CORETYPE=SkylakeX`` set before Python starts. That variable is a
# process-wide choice a library cannot make after NumPy is loaded. But the library exports
# its SkylakeX kernels by name, among them the "small matrix" kernels that multiply without
# packing (``sgemm_small_kernel_b0_nn_SKYLAKEX`` ...: column-major, ``c = alpha * a @ b``).
# Where the CPU runs AVX-512 and OpenBLAS chose Haswell (or Zen) for it, blas_product
# calls those: 145 us for that product (nn), 105-127 us with a transposed operand, still
# ahead of Haswell's packed kernels at 1024x1024x1024 on one thread (13-17 ms against 17).
# Small products gain too (8x32x32: 0.61 us to 0.38 us; cblas zero-fills the output and
# packs the operands first), except with a transposed b and a short inner dim (32x8x32:
# 0.78 us to 0.88 us), which stays with cblas, as do products above
# SMALL_KERNEL_THREADED_MAX_MACS when OpenBLAS runs several threads (these kernels run on
# one). The kernels' signature is OpenBLAS's internal one: they are
# used only after multiplying test matrices of every layout both ways at import and
# finding the same numbers (``kernels_agree``); else everything takes cblas, as before.


cdef void find_skylakex_kernels(void* library):
    """Point small_sgemm/small_dgemm at OpenBLAS's SkylakeX kernels where NOTE [OpenBLAS's
    AVX-512 kernels on AMD CPUs] says so; leave them NULL otherwise."""
    global blas_threads
    cdef name_function core_name = <name_function>dlsym(library,
                                                        b"scipy_openblas_get_corename64_")
    if core_name == NULL or not cpu_runs_skylakex_kernels():
        return
    if (<bytes>core_name()).decode() not in ("Haswell", "Zen"):
        return          # OpenBLAS already runs its AVX-512 kernels (or none fit the CPU)
    blas_threads = <threads_function>dlsym(library, b"scipy_openblas_get_num_threads64_")
    for first in range(2):
        for second in range(2):
            variant = ("nt"[first] + "nt"[second]).encode()
            small_sgemm[first][second] = <small_sgemm_function>dlsym(
                library, b"sgemm_small_kernel_b0_" + variant + b"_SKYLAKEX")
            small_dgemm[first][second] = <small_dgemm_function>dlsym(
                library, b"dgemm_small_kernel_b0_" + variant + b"_SKYLAKEX")
            if (small_sgemm[first][second] == NULL or small_dgemm[first][second] == NULL
                    or blas_threads == NULL):
                clear_small_kernels()
                return
    if not kernels_agree():
        clear_small_kernels()


cdef void clear_small_kernels():
    for first in range(2):
        for second in range(2):
            small_sgemm[first][second] = NULL
            small_dgemm[first][second] = NULL


cdef bint kernels_agree():
    """Do the small kernels compute what cblas computes, for every layout and dtype, on
    shapes that take their vector loops and their tails?"""
    rng = np.random.default_rng(0)
    for dtype in (np.float32, np.float64):
        for m, k, n in ((37, 45, 19), (70, 33, 5), (3, 40, 66)):
            for a_transposed in (False, True):
                for b_transposed in (False, True):
                    a = rng.standard_normal((k, m) if a_transposed else (m, k)).astype(dtype)
                    b = rng.standard_normal((n, k) if b_transposed else (k, n)).astype(dtype)
                    a = a.T if a_transposed else a
                    b = b.T if b_transposed else b
                    ours = blas_product_with(a, b, True)
                    theirs = blas_product_with(a, b, False)
                    if ours is None or theirs is None or not np.allclose(
                            ours, theirs, rtol=1e-4 if dtype == np.float32 else 1e-10,
                            atol=1e-4 if dtype == np.float32 else 1e-10):
                        return False
    return True


find_gemm()


def found():
    """Did this module find NumPy's gemm (else every product takes NumPy's own path)?"""
    return sgemm != NULL


def uses_skylakex_kernels():
    """Do products call OpenBLAS's SkylakeX kernels by name (NOTE [OpenBLAS's AVX-512
    kernels on AMD CPUs])?"""
    return small_sgemm[0][0] != NULL


cdef bint blas_layout(cnp.ndarray matrix, int* trans, int64_t* leading) noexcept:
    """Can BLAS read ``matrix`` in place? Row-major rows (``NO_TRANS``) or row-major columns
    (``TRANS``, a transposed view), the distance between them in ``leading``."""
    cdef Py_ssize_t itemsize = cnp.PyArray_ITEMSIZE(matrix)
    cdef Py_ssize_t rows = cnp.PyArray_DIM(matrix, 0), cols = cnp.PyArray_DIM(matrix, 1)
    cdef Py_ssize_t row_stride = cnp.PyArray_STRIDE(matrix, 0)
    cdef Py_ssize_t col_stride = cnp.PyArray_STRIDE(matrix, 1)
    if not cnp.PyArray_ISALIGNED(matrix):
        return False
    if (col_stride == itemsize or cols == 1) and row_stride % itemsize == 0:
        trans[0] = NO_TRANS
        leading[0] = cols if rows == 1 else row_stride // itemsize
        return leading[0] >= cols
    if (row_stride == itemsize or rows == 1) and col_stride % itemsize == 0:
        trans[0] = TRANS
        leading[0] = rows if cols == 1 else col_stride // itemsize
        return leading[0] >= rows
    return False


cdef object blas_product(object a, object b):
    """``a @ b`` of two float32 or float64 NumPy matrices of one dtype through NumPy's gemm
    (NOTE [Calling NumPy's BLAS directly]); None where it does not apply."""
    return blas_product_with(a, b, True)


cdef object blas_product_with(object a, object b, bint small_kernels):
    """blas_product, the SkylakeX kernels allowed or not (NOTE [OpenBLAS's AVX-512 kernels
    on AMD CPUs])."""
    cdef int typenum, trans_a, trans_b
    cdef int64_t m, k, n, lda, ldb
    cdef cnp.npy_intp dims[2]
    if sgemm == NULL or type(a) is not cnp.ndarray or type(b) is not cnp.ndarray:
        return None
    if cnp.PyArray_NDIM(<cnp.ndarray>a) != 2 or cnp.PyArray_NDIM(<cnp.ndarray>b) != 2:
        return None
    typenum = cnp.PyArray_TYPE(<cnp.ndarray>a)
    if ((typenum != cnp.NPY_FLOAT and typenum != cnp.NPY_DOUBLE)
            or cnp.PyArray_TYPE(<cnp.ndarray>b) != typenum):
        return None
    m = cnp.PyArray_DIM(<cnp.ndarray>a, 0)
    k = cnp.PyArray_DIM(<cnp.ndarray>a, 1)
    n = cnp.PyArray_DIM(<cnp.ndarray>b, 1)
    if k != cnp.PyArray_DIM(<cnp.ndarray>b, 0) or m == 0 or k == 0 or n == 0:
        return None
    if not (blas_layout(<cnp.ndarray>a, &trans_a, &lda)
            and blas_layout(<cnp.ndarray>b, &trans_b, &ldb)):
        return None
    dims[0], dims[1] = m, n
    cdef cnp.ndarray out = <cnp.ndarray>cnp.PyArray_EMPTY(2, dims, typenum, 0)
    cdef void* a_data = cnp.PyArray_DATA(<cnp.ndarray>a)
    cdef void* b_data = cnp.PyArray_DATA(<cnp.ndarray>b)
    cdef void* out_data = cnp.PyArray_DATA(out)
    cdef int64_t macs = m * k * n
    cdef bint small = (small_kernels and small_sgemm[0][0] != NULL
                       and (trans_b == NO_TRANS or k >= SMALL_KERNEL_TRANSPOSED_MIN_K)
                       and (macs <= SMALL_KERNEL_THREADED_MAX_MACS or blas_threads() == 1))
    if macs > RELEASE_GIL_MACS:
        with nogil:
            if small:
                small_gemm(typenum, trans_a, trans_b, m, n, k, a_data, lda, b_data, ldb,
                           out_data)
            else:
                gemm(typenum, trans_a, trans_b, m, n, k, a_data, lda, b_data, ldb, out_data)
    elif small:
        small_gemm(typenum, trans_a, trans_b, m, n, k, a_data, lda, b_data, ldb, out_data)
    else:
        gemm(typenum, trans_a, trans_b, m, n, k, a_data, lda, b_data, ldb, out_data)
    return out


cdef inline void small_gemm(int typenum, int trans_a, int trans_b, int64_t m, int64_t n,
                            int64_t k, void* a, int64_t lda, void* b, int64_t ldb,
                            void* out) noexcept nogil:
    """``out = a @ b`` (row-major, m by n) through a SkylakeX kernel: as column-major
    arrays the product is ``out^T = b^T @ a^T``, so b goes first; a row-major operand is its
    own transpose, column-major, and needs no transposing flag."""
    cdef int first = trans_b == TRANS, second = trans_a == TRANS
    if typenum == cnp.NPY_FLOAT:
        small_sgemm[first][second](n, m, k, <float*>b, ldb, 1.0, <float*>a, lda,
                                   <float*>out, n)
    else:
        small_dgemm[first][second](n, m, k, <double*>b, ldb, 1.0, <double*>a, lda,
                                   <double*>out, n)


cdef inline void gemm(int typenum, int trans_a, int trans_b, int64_t m, int64_t n, int64_t k,
                      void* a, int64_t lda, void* b, int64_t ldb, void* out) noexcept nogil:
    """``out = a @ b``, out row-major and m by n."""
    if typenum == cnp.NPY_FLOAT:
        sgemm(ROW_MAJOR, trans_a, trans_b, m, n, k, 1.0, <float*>a, lda, <float*>b, ldb, 0.0,
              <float*>out, n)
    else:
        dgemm(ROW_MAJOR, trans_a, trans_b, m, n, k, 1.0, <double*>a, lda, <double*>b, ldb,
              0.0, <double*>out, n)
