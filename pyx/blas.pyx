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

cdef enum:
    ROW_MAJOR = 101         # CBLAS's enum values
    NO_TRANS = 111
    TRANS = 112
    # products with more multiply-adds than this let other threads run meanwhile
    RELEASE_GIL_MACS = 262144

cdef sgemm_function sgemm = NULL
cdef dgemm_function dgemm = NULL


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
            return
    sgemm, dgemm = NULL, NULL


find_gemm()


def found():
    """Did this module find NumPy's gemm (else every product takes NumPy's own path)?"""
    return sgemm != NULL


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
    if m * k * n > RELEASE_GIL_MACS:
        with nogil:
            gemm(typenum, trans_a, trans_b, m, n, k, a_data, lda, b_data, ldb, out_data)
    else:
        gemm(typenum, trans_a, trans_b, m, n, k, a_data, lda, b_data, ldb, out_data)
    return out


cdef inline void gemm(int typenum, int trans_a, int trans_b, int64_t m, int64_t n, int64_t k,
                      void* a, int64_t lda, void* b, int64_t ldb, void* out) noexcept nogil:
    """``out = a @ b``, out row-major and m by n."""
    if typenum == cnp.NPY_FLOAT:
        sgemm(ROW_MAJOR, trans_a, trans_b, m, n, k, 1.0, <float*>a, lda, <float*>b, ldb, 0.0,
              <float*>out, n)
    else:
        dgemm(ROW_MAJOR, trans_a, trans_b, m, n, k, 1.0, <double*>a, lda, <double*>b, ldb,
              0.0, <double*>out, n)
