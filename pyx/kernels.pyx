"""Fused loops for small float arrays: one pass in C instead of NumPy's per-call dispatch.

NOTE [Fused kernels]
On the 16-element arrays of an overhead-bound graph a NumPy call costs ~0.3 us, almost all
of it ufunc dispatch, not arithmetic. For C-contiguous float32/float64 operands of the same
shape and at most KERNEL_MAX_SIZE elements these loops produce the same bits as NumPy (each
step rounds to the dtype, as a ufunc does; there is no FMA on this build) at a fraction of
the cost. They return None for anything else, and the caller then takes the NumPy path.

One more operand shape goes through them: an *expanded scalar*, one value seen at every
position (every stride 0), which is what the gradient of ``sum`` and ``mean`` is (the
output's gradient expanded to the input's shape, as PyTorch expands it). A binary op with
such an operand is the scalar loop on the other operand; without this, every product a
``sum().backward()`` gradient meets would take NumPy's strided path.

Two broadcasts have loops of their own, because every layer makes them: a *row* operand
whose shape is the other's trailing dims (a bias added to each row of a batch) and a
*column* operand whose shape is the other's leading dims followed by ones (``x - x.max(-1,
keepdim=True)``). Both are the same elementwise loop over rows, reading the small operand
once per row or once per element. And the reverse of a row broadcast, the sum of a small
array over its leading dims (a bias's gradient summed to its shape: ``sum_to``), is a loop
adding the rows in order. NumPy's reduction over an outer axis adds the rows in that same
order, so the bits agree; over an axis of one column NumPy sums pairwise, and there the loop
declines unless the rows are fewer than NumPy's pairwise block (8).

"""
import numpy as np
cimport numpy as cnp
from libc.math cimport tanh as libm_tanh, fma, fmaf

from autograd_cy._C.device cimport backend_of

cnp.import_array()


cdef enum:
    KERNEL_MAX_SIZE = 4096


ctypedef fused real:
    float
    double


cdef bint kernel_operand(object value, int typenum):
    """Can ``value`` go through a kernel with dtype ``typenum``?"""
    return (type(value) is cnp.ndarray
            and cnp.PyArray_TYPE(<cnp.ndarray>value) == typenum
            and cnp.PyArray_ISCARRAY_RO(<cnp.ndarray>value))


cdef int kernel_type(object value):
    """The NumPy type number of a float32/float64 kernel operand, or -1."""
    cdef int typenum
    if type(value) is not cnp.ndarray:
        return -1
    typenum = cnp.PyArray_TYPE(<cnp.ndarray>value)
    if typenum != cnp.NPY_FLOAT and typenum != cnp.NPY_DOUBLE:
        return -1
    if not cnp.PyArray_ISCARRAY_RO(<cnp.ndarray>value):
        return -1
    if cnp.PyArray_SIZE(<cnp.ndarray>value) > KERNEL_MAX_SIZE:
        return -1
    return typenum


cdef inline cnp.ndarray empty_like_kernel(cnp.ndarray a, int typenum):
    return <cnp.ndarray>cnp.PyArray_EMPTY(cnp.PyArray_NDIM(a), cnp.PyArray_DIMS(a), typenum, 0)


cdef bint expanded_scalar(object value, int typenum):
    """Is ``value`` one float of dtype ``typenum`` expanded to its shape (every stride 0, at
    least one element)? NOTE [Fused kernels]."""
    cdef int axis
    if type(value) is not cnp.ndarray or cnp.PyArray_TYPE(<cnp.ndarray>value) != typenum:
        return False
    if cnp.PyArray_SIZE(<cnp.ndarray>value) == 0:
        return False
    for axis in range(cnp.PyArray_NDIM(<cnp.ndarray>value)):
        if cnp.PyArray_STRIDES(<cnp.ndarray>value)[axis] != 0:
            return False
    return True


cdef inline double scalar_value(cnp.ndarray value, int typenum):
    """The one value of an expanded scalar."""
    if typenum == cnp.NPY_FLOAT:
        return (<float*>cnp.PyArray_DATA(value))[0]
    return (<double*>cnp.PyArray_DATA(value))[0]


cdef object binary_kernel(int op, object x, object y):
    """``x + y``, ``x - y`` or ``x * y`` (op KERNEL_ADD/SUB/MUL) on two same-shape arrays,
    one of which may be an expanded scalar (for ``-``, only ``y``)."""
    cdef int typenum = kernel_type(x)
    cdef Py_ssize_t n
    if typenum < 0:
        typenum = kernel_type(y)
        if (typenum >= 0 and op != KERNEL_SUB and expanded_scalar(x, typenum)
                and cnp.PyArray_SAMESHAPE(<cnp.ndarray>x, <cnp.ndarray>y)):
            return scalar_kernel(op, y, scalar_value(<cnp.ndarray>x, typenum))
        return complex_binary_kernel(op, x, y)
    if not kernel_operand(y, typenum):
        if (expanded_scalar(y, typenum)
                and cnp.PyArray_SAMESHAPE(<cnp.ndarray>x, <cnp.ndarray>y)):
            return scalar_kernel(op, x, scalar_value(<cnp.ndarray>y, typenum))
        return None
    if not cnp.PyArray_SAMESHAPE(<cnp.ndarray>x, <cnp.ndarray>y):
        return broadcast_kernel(op, <cnp.ndarray>x, <cnp.ndarray>y, typenum)
    cdef cnp.ndarray out = empty_like_kernel(<cnp.ndarray>x, typenum)
    n = cnp.PyArray_SIZE(out)
    if typenum == cnp.NPY_FLOAT:
        real_binary(op, <float*>cnp.PyArray_DATA(<cnp.ndarray>x),
                    <float*>cnp.PyArray_DATA(<cnp.ndarray>y),
                    <float*>cnp.PyArray_DATA(out), n)
    else:
        real_binary(op, <double*>cnp.PyArray_DATA(<cnp.ndarray>x),
                    <double*>cnp.PyArray_DATA(<cnp.ndarray>y),
                    <double*>cnp.PyArray_DATA(out), n)
    return out


# NOTE [Complex products]
# NumPy's complex64/complex128 loops multiply (a + bi)(c + di) as (ac - bd) + (ad + bc)i with
# each part one fused multiply-add, fma(a, c, -(b d)) and fma(a, d, b c), where the CPU has
# FMA (its SIMD loops, on this VM); the plain formula rounds once more and differs in the
# last bit for a quarter of the products. The complex loops here call fma() and fmaf(), which
# libm rounds once on any CPU, so they give NumPy's bits where NumPy uses FMA.

cdef inline int complex_kernel_type(object value):
    """The NumPy type number of a complex64/complex128 kernel operand, or -1."""
    cdef int typenum
    if type(value) is not cnp.ndarray:
        return -1
    typenum = cnp.PyArray_TYPE(<cnp.ndarray>value)
    if typenum != cnp.NPY_CFLOAT and typenum != cnp.NPY_CDOUBLE:
        return -1
    if not cnp.PyArray_ISCARRAY_RO(<cnp.ndarray>value):
        return -1
    if cnp.PyArray_SIZE(<cnp.ndarray>value) > KERNEL_MAX_SIZE:
        return -1
    return typenum


cdef object complex_binary_kernel(int op, object x, object y):
    """binary_kernel for two complex arrays of one dtype and shape."""
    cdef int typenum = complex_kernel_type(x)
    if typenum < 0 or not kernel_operand(y, typenum):
        return None
    if not cnp.PyArray_SAMESHAPE(<cnp.ndarray>x, <cnp.ndarray>y):
        return None
    cdef cnp.ndarray out = empty_like_kernel(<cnp.ndarray>x, typenum)
    cdef Py_ssize_t n = cnp.PyArray_SIZE(out)
    if typenum == cnp.NPY_CFLOAT:
        complex_binary(op, <float*>cnp.PyArray_DATA(<cnp.ndarray>x),
                       <float*>cnp.PyArray_DATA(<cnp.ndarray>y),
                       <float*>cnp.PyArray_DATA(out), n)
    else:
        complex_binary(op, <double*>cnp.PyArray_DATA(<cnp.ndarray>x),
                       <double*>cnp.PyArray_DATA(<cnp.ndarray>y),
                       <double*>cnp.PyArray_DATA(out), n)
    return out


cdef inline void complex_product(real a, real b, real c, real d, real* out) noexcept nogil:
    """``out[0] + out[1] i = (a + bi)(c + di)``, as NumPy (NOTE [Complex products])."""
    if real is float:
        out[0] = fmaf(a, c, -(b * d))
        out[1] = fmaf(a, d, b * c)
    else:
        out[0] = fma(a, c, -(b * d))
        out[1] = fma(a, d, b * c)


cdef void complex_binary(int op, real* a, real* b, real* out, Py_ssize_t n) noexcept nogil:
    """real_binary for ``n`` complex numbers, each two reals (real part, imaginary part).
    ``a + b`` is ``a + b * (1 + 0i)``, as PyTorch's kernel computes ``a + alpha * b`` with
    alpha 1: the same bits for finite numbers, and an infinite part of ``b`` makes the other
    part NaN, as in PyTorch."""
    cdef Py_ssize_t i
    cdef real scaled[2]
    if op == KERNEL_MUL:
        for i in range(n):
            complex_product(a[2 * i], a[2 * i + 1], b[2 * i], b[2 * i + 1], out + 2 * i)
        return
    for i in range(n):
        complex_product(b[2 * i], b[2 * i + 1], 1, 0, scaled)
        if op == KERNEL_ADD:
            out[2 * i] = a[2 * i] + scaled[0]
            out[2 * i + 1] = a[2 * i + 1] + scaled[1]
        else:
            out[2 * i] = a[2 * i] - scaled[0]
            out[2 * i + 1] = a[2 * i + 1] - scaled[1]


cdef enum:
    NOT_BROADCAST = 0
    BROADCAST_ROWS = 1      # the small operand is one row, repeated for every row
    BROADCAST_COLUMNS = 2   # the small operand is one value per row, repeated along it


cdef int broadcast_of(cnp.ndarray big, cnp.ndarray small, Py_ssize_t* rows) noexcept:
    """How ``small`` broadcasts to ``big``'s shape (NOTE [Fused kernels]): as rows (its
    shape, leading ones aside, is ``big``'s trailing dims) or as columns (``big``'s leading
    dims, then ones); ``rows[0]`` is then the number of rows ``big`` is seen as."""
    cdef int big_ndim = cnp.PyArray_NDIM(big), small_ndim = cnp.PyArray_NDIM(small)
    cdef cnp.npy_intp* big_dims = cnp.PyArray_DIMS(big)
    cdef cnp.npy_intp* small_dims = cnp.PyArray_DIMS(small)
    cdef int axis, offset = big_ndim - small_ndim, split
    if offset < 0 or cnp.PyArray_SIZE(small) == 0:
        return NOT_BROADCAST
    # rows: small's dims, aligned to big's trailing ones, are ones up to a split and equal
    # to big's from there on
    split = 0
    while split < small_ndim and small_dims[split] == 1:
        split += 1
    for axis in range(split, small_ndim):
        if small_dims[axis] != big_dims[offset + axis]:
            break
    else:
        rows[0] = cnp.PyArray_SIZE(big) // cnp.PyArray_SIZE(small)
        return BROADCAST_ROWS
    # columns: the same rank, big's dims up to a split, ones from there on
    if offset != 0:
        return NOT_BROADCAST
    split = small_ndim
    while split > 0 and small_dims[split - 1] == 1:
        split -= 1
    for axis in range(split):
        if small_dims[axis] != big_dims[axis]:
            return NOT_BROADCAST
    rows[0] = cnp.PyArray_SIZE(small)
    return BROADCAST_COLUMNS


cdef object broadcast_kernel(int op, cnp.ndarray x, cnp.ndarray y, int typenum):
    """``x op y`` where one operand is a row or column broadcast of the other (NOTE [Fused
    kernels]); None for any other pair of shapes."""
    cdef Py_ssize_t rows
    cdef bint small_first = cnp.PyArray_SIZE(x) < cnp.PyArray_SIZE(y)
    cdef cnp.ndarray big = y if small_first else x
    cdef cnp.ndarray small = x if small_first else y
    if cnp.PyArray_SIZE(big) > KERNEL_MAX_SIZE:
        return None
    cdef int kind = broadcast_of(big, small, &rows)
    if kind == NOT_BROADCAST:
        return None
    cdef cnp.ndarray out = empty_like_kernel(big, typenum)
    cdef Py_ssize_t n = cnp.PyArray_SIZE(out)
    if typenum == cnp.NPY_FLOAT:
        broadcast_loop(op, <float*>cnp.PyArray_DATA(big), <float*>cnp.PyArray_DATA(small),
                       <float*>cnp.PyArray_DATA(out), rows, n // rows,
                       kind == BROADCAST_ROWS, small_first)
    else:
        broadcast_loop(op, <double*>cnp.PyArray_DATA(big), <double*>cnp.PyArray_DATA(small),
                       <double*>cnp.PyArray_DATA(out), rows, n // rows,
                       kind == BROADCAST_ROWS, small_first)
    return out


cdef void broadcast_loop(int op, real* big, real* small, real* out, Py_ssize_t rows,
                         Py_ssize_t width, bint by_rows, bint small_first) noexcept nogil:
    """Row after row: ``out[r] = big[r] op small`` (``small op big[r]`` when
    ``small_first``), ``small`` being the repeated row, or row r's one value."""
    cdef Py_ssize_t r
    cdef real* row
    for r in range(rows):
        row = small if by_rows else small + r
        if small_first:
            broadcast_row(op, row, big + r * width, out + r * width, width, not by_rows,
                          False)
        else:
            broadcast_row(op, big + r * width, row, out + r * width, width, False,
                          not by_rows)


cdef inline void broadcast_row(int op, real* a, real* b, real* out, Py_ssize_t n,
                               bint a_one, bint b_one) noexcept nogil:
    """One row of ``a op b``; an operand marked ``_one`` is a single value for the row."""
    cdef Py_ssize_t i
    if a_one and op == KERNEL_SUB:
        for i in range(n):
            out[i] = a[0] - b[i]
    elif a_one:
        real_scalar(op, b, a[0], out, n)
    elif b_one:
        real_scalar(op, a, b[0], out, n)
    else:
        real_binary(op, a, b, out, n)


cdef object leading_sum_kernel(object array, int leading, bint keepdim):
    """The sum of a small contiguous float32/float64 array over its first ``leading`` axes
    (kept as ones with ``keepdim``), as ``np.add.reduce(array, axis=range(leading),
    keepdims=keepdim)`` computes it (NOTE [Fused kernels]); None where the loop does not
    apply."""
    cdef int typenum = kernel_type(array)
    cdef int axis
    cdef Py_ssize_t rows = 1, width, n
    if typenum < 0 or leading <= 0:
        return None
    n = cnp.PyArray_SIZE(<cnp.ndarray>array)
    if n == 0:
        return None
    for axis in range(leading):
        rows *= cnp.PyArray_DIMS(<cnp.ndarray>array)[axis]
    width = n // rows
    if width == 1 and rows >= 8:        # one column: NumPy sums it pairwise
        return None
    cdef int ndim = cnp.PyArray_NDIM(<cnp.ndarray>array)
    cdef cnp.npy_intp* dims = cnp.PyArray_DIMS(<cnp.ndarray>array)
    cdef cnp.npy_intp kept[cnp.NPY_MAXDIMS]
    for axis in range(ndim):
        kept[axis] = 1 if axis < leading else dims[axis]
    cdef cnp.ndarray out
    if keepdim:
        out = <cnp.ndarray>cnp.PyArray_EMPTY(ndim, kept, typenum, 0)
    else:
        out = <cnp.ndarray>cnp.PyArray_EMPTY(ndim - leading, kept + leading, typenum, 0)
    if typenum == cnp.NPY_FLOAT:
        sum_rows(<float*>cnp.PyArray_DATA(<cnp.ndarray>array), <float*>cnp.PyArray_DATA(out),
                 rows, width)
    else:
        sum_rows(<double*>cnp.PyArray_DATA(<cnp.ndarray>array),
                 <double*>cnp.PyArray_DATA(out), rows, width)
    return out


cdef void sum_rows(real* a, real* out, Py_ssize_t rows, Py_ssize_t width) noexcept nogil:
    """``out = a[0] + a[1] + ...``, row by row in order, as NumPy adds them."""
    cdef Py_ssize_t r, i
    for i in range(width):
        out[i] = a[i]
    for r in range(1, rows):
        for i in range(width):
            out[i] = out[i] + a[r * width + i]

cdef object scalar_kernel(int op, object x, double value):
    """``x + value``, ``x - value`` or ``x * value`` for a Python float ``value``. As in
    NumPy 2 and PyTorch, the number takes the array's dtype first (float32: rounded, or
    inf beyond its range), then one rounding per element."""
    cdef int typenum = kernel_type(x)
    if typenum < 0:
        return None
    cdef cnp.ndarray out = empty_like_kernel(<cnp.ndarray>x, typenum)
    cdef Py_ssize_t n = cnp.PyArray_SIZE(out)
    if typenum == cnp.NPY_FLOAT:
        real_scalar(op, <float*>cnp.PyArray_DATA(<cnp.ndarray>x), <float>value,
                    <float*>cnp.PyArray_DATA(out), n)
    else:
        real_scalar(op, <double*>cnp.PyArray_DATA(<cnp.ndarray>x), value,
                    <double*>cnp.PyArray_DATA(out), n)
    return out


cdef bint binary_kernel_into(int op, object x, object y) except -1:
    """``x += y``, ``x -= y`` or ``x *= y`` in place on two same-shape arrays; False (and
    nothing written) when the kernel does not apply. Partly overlapping operands are left
    to NumPy, which buffers them; the same memory on both sides is fine elementwise."""
    cdef int typenum = kernel_type(x)
    cdef Py_ssize_t n
    cdef char* x_start
    cdef char* y_start
    if typenum < 0 or not kernel_operand(y, typenum):
        return False
    if not cnp.PyArray_ISWRITEABLE(<cnp.ndarray>x):
        return False
    if not cnp.PyArray_SAMESHAPE(<cnp.ndarray>x, <cnp.ndarray>y):
        return False
    n = cnp.PyArray_SIZE(<cnp.ndarray>x)
    x_start = <char*>cnp.PyArray_DATA(<cnp.ndarray>x)
    y_start = <char*>cnp.PyArray_DATA(<cnp.ndarray>y)
    if (x_start != y_start and x_start < y_start + cnp.PyArray_NBYTES(<cnp.ndarray>y)
            and y_start < x_start + cnp.PyArray_NBYTES(<cnp.ndarray>x)):
        return False
    if typenum == cnp.NPY_FLOAT:
        real_binary(op, <float*>x_start, <float*>y_start, <float*>x_start, n)
    else:
        real_binary(op, <double*>x_start, <double*>y_start, <double*>x_start, n)
    return True


cdef void real_binary(int op, real* a, real* b, real* out, Py_ssize_t n) noexcept nogil:
    """One loop body for float32 and float64 (a Cython fused type)."""
    cdef Py_ssize_t i
    if op == KERNEL_ADD:
        for i in range(n):
            out[i] = a[i] + b[i]
    elif op == KERNEL_SUB:
        for i in range(n):
            out[i] = a[i] - b[i]
    else:
        for i in range(n):
            out[i] = a[i] * b[i]


cdef void real_scalar(int op, real* a, real value, real* out, Py_ssize_t n) noexcept nogil:
    cdef Py_ssize_t i
    if op == KERNEL_ADD:
        for i in range(n):
            out[i] = a[i] + value
    elif op == KERNEL_SUB:
        for i in range(n):
            out[i] = a[i] - value
    else:
        for i in range(n):
            out[i] = a[i] * value


# NOTE [Fused formulas by the backend]
# tanh's, sigmoid's and relu's backward formulas go to the backend of the gradient (NOTE [One
# backend interface] in device.pxd): the CPU backend runs the loops below (it has none for
# sigmoid's: the NumPy formula is as fast), a CUDA backend one launch; None means neither
# applies and the caller runs its NumPy formula.

cdef object tanh_backward_kernel(object grad, object result):
    """``grad * (1 - result * result)`` by the backend of ``grad``, or None."""
    return backend_of(grad).fused("tanh_backward", grad, result)


cdef object sigmoid_backward_kernel(object grad, object result):
    """``grad * result * (1 - result)`` by the backend of ``grad``, or None."""
    return backend_of(grad).fused("sigmoid_backward", grad, result)


cdef tuple ZERO = (0,)


cdef object threshold_backward_kernel(object grad, object result):
    """``0 where result <= 0, else grad`` (relu's backward) by the backend of ``grad``, or
    None."""
    return backend_of(grad).fused("threshold_backward", grad, result, ZERO)


cdef object tanh_backward_loop(object grad, object result):
    """``grad * (1 - result * result)`` in one pass, rounding after each step as NumPy
    would; None unless both are kernel operands (NOTE [Fused kernels]) of one shape."""
    cdef int typenum = kernel_type(grad)
    cdef Py_ssize_t i, n
    cdef float* gf
    cdef float* rf
    cdef float* of
    cdef double* gd
    cdef double* rd
    cdef double* od
    cdef float square_f
    cdef double square_d
    if typenum < 0:
        return complex_tanh_backward_loop(grad, result)
    if not kernel_operand(result, typenum):
        return None
    if not cnp.PyArray_SAMESHAPE(<cnp.ndarray>grad, <cnp.ndarray>result):
        return None
    cdef cnp.ndarray out = empty_like_kernel(<cnp.ndarray>grad, typenum)
    n = cnp.PyArray_SIZE(out)
    if typenum == cnp.NPY_FLOAT:
        gf = <float*>cnp.PyArray_DATA(<cnp.ndarray>grad)
        rf = <float*>cnp.PyArray_DATA(<cnp.ndarray>result)
        of = <float*>cnp.PyArray_DATA(out)
        for i in range(n):
            square_f = rf[i] * rf[i]
            square_f = <float>1 - square_f
            of[i] = gf[i] * square_f
    else:
        gd = <double*>cnp.PyArray_DATA(<cnp.ndarray>grad)
        rd = <double*>cnp.PyArray_DATA(<cnp.ndarray>result)
        od = <double*>cnp.PyArray_DATA(out)
        for i in range(n):
            square_d = rd[i] * rd[i]
            square_d = 1 - square_d
            od[i] = gd[i] * square_d
    return out


cdef object complex_tanh_backward_loop(object grad, object result):
    """tanh's backward for complex tensors, ``grad * conj(1 - result * result)`` (NOTE
    [Complex gradients] in ops/conjugate.pyx) in one pass, each step as NumPy rounds it;
    None unless both are complex kernel operands of one dtype and shape."""
    cdef int typenum = complex_kernel_type(grad)
    if typenum < 0 or not kernel_operand(result, typenum):
        return None
    if not cnp.PyArray_SAMESHAPE(<cnp.ndarray>grad, <cnp.ndarray>result):
        return None
    cdef cnp.ndarray out = empty_like_kernel(<cnp.ndarray>grad, typenum)
    cdef Py_ssize_t n = cnp.PyArray_SIZE(out)
    if typenum == cnp.NPY_CFLOAT:
        complex_tanh_backward(<float*>cnp.PyArray_DATA(<cnp.ndarray>grad),
                              <float*>cnp.PyArray_DATA(<cnp.ndarray>result),
                              <float*>cnp.PyArray_DATA(out), n)
    else:
        complex_tanh_backward(<double*>cnp.PyArray_DATA(<cnp.ndarray>grad),
                              <double*>cnp.PyArray_DATA(<cnp.ndarray>result),
                              <double*>cnp.PyArray_DATA(out), n)
    return out


cdef void complex_tanh_backward(real* g, real* y, real* out, Py_ssize_t n) noexcept nogil:
    cdef Py_ssize_t i
    cdef real square[2]
    for i in range(n):
        complex_product(y[2 * i], y[2 * i + 1], y[2 * i], y[2 * i + 1], square)
        # 1 - y^2, conjugated: NumPy's 1 - z is (1 - re) + (0 - im) i, then the sign flips
        complex_product(g[2 * i], g[2 * i + 1], 1 - square[0], -(0 - square[1]), out + 2 * i)


cdef object threshold_backward_loop(object grad, object result):
    """PyTorch's threshold_backward for relu: ``0 where result <= 0, else grad`` (a NaN
    result passes the gradient, an infinite gradient stays infinite). ``np.where`` branches
    per element and mispredicts on the random sign pattern of an activation (~4x slower than
    this select, which the compiler makes branch-free); the loop is memory-bound, so unlike
    the other kernels it takes arrays of any size."""
    if type(grad) is not cnp.ndarray or not cnp.PyArray_ISCARRAY_RO(<cnp.ndarray>grad):
        return None
    cdef int typenum = cnp.PyArray_TYPE(<cnp.ndarray>grad)
    if typenum != cnp.NPY_FLOAT and typenum != cnp.NPY_DOUBLE:
        return None
    if not kernel_operand(result, typenum):
        return None
    if not cnp.PyArray_SAMESHAPE(<cnp.ndarray>grad, <cnp.ndarray>result):
        return None
    cdef cnp.ndarray out = empty_like_kernel(<cnp.ndarray>grad, typenum)
    cdef Py_ssize_t n = cnp.PyArray_SIZE(out)
    if typenum == cnp.NPY_FLOAT:
        real_threshold_backward(<float*>cnp.PyArray_DATA(<cnp.ndarray>grad),
                                <float*>cnp.PyArray_DATA(<cnp.ndarray>result),
                                <float*>cnp.PyArray_DATA(out), n)
    else:
        real_threshold_backward(<double*>cnp.PyArray_DATA(<cnp.ndarray>grad),
                                <double*>cnp.PyArray_DATA(<cnp.ndarray>result),
                                <double*>cnp.PyArray_DATA(out), n)
    return out


cdef void real_threshold_backward(real* grad, real* result, real* out,
                                  Py_ssize_t n) noexcept nogil:
    cdef Py_ssize_t i
    cdef real value, threshold_input
    for i in range(n):
        # Both loads before the select, so the compiler may make it a mask (no branch).
        value = grad[i]
        threshold_input = result[i]
        out[i] = 0 if threshold_input <= 0 else value


# NOTE [float32 tanh near saturation]
# The correctly rounded float32 tanh is +-1 from |x| ~ 9.0109 (1 - tanh(x) below half an
# ulp of 1); torch's vectorized tanh returns +-1 from 9.01084. NumPy's SIMD float32 loop
# returns 1 - 2^-24 up to |x| = 10, so a formula that adds 1 to it (gelu's tanh
# approximation: 0.5 x (1 + t)) got a tiny number where torch's gives exactly 0, and
# anything raised to that power NaN instead of 1. Arrays computed by NumPy's loop are set
# to +-1 there.
cdef float TANH_SATURATES_FLOAT = 9.01084


cdef object saturate_float_tanh(object x, object t):
    """``t = tanh(x)`` (float32, from NumPy's loop) with +-1 where torch's is (NOTE
    [float32 tanh near saturation]); ``t`` modified in place. One C pass over contiguous
    arrays (the common case: a tanh layer's output), NumPy's otherwise."""
    cdef Py_ssize_t i, n
    cdef float* xf
    cdef float* tf
    if (type(x) is cnp.ndarray and type(t) is cnp.ndarray
            and cnp.PyArray_ISCARRAY_RO(<cnp.ndarray>x) and cnp.PyArray_ISCARRAY(<cnp.ndarray>t)
            and cnp.PyArray_TYPE(<cnp.ndarray>t) == cnp.NPY_FLOAT):
        n = cnp.PyArray_SIZE(<cnp.ndarray>x)
        xf = <float*>cnp.PyArray_DATA(<cnp.ndarray>x)
        tf = <float*>cnp.PyArray_DATA(<cnp.ndarray>t)
        with nogil:
            for i in range(n):
                if xf[i] >= TANH_SATURATES_FLOAT:
                    tf[i] = 1
                elif xf[i] <= -TANH_SATURATES_FLOAT:
                    tf[i] = -1
        return t
    saturated = np.abs(x) >= TANH_SATURATES_FLOAT
    if saturated.any():
        np.copysign(np.float32(1), x, out=t, where=saturated)
    return t


cdef object tanh_kernel(object x):
    """``tanh(x)``: float32 arrays of more than 32 elements with NumPy's SIMD loop (faster
    than this one, which calls libm once per element) and torch's saturation (NOTE
    [float32 tanh near saturation]). float32 goes through the double-precision tanh and
    rounds once, which is at least as accurate as NumPy's float32 loop (it may differ
    from it in the last bit). Like ``quietly(np.tanh, x)`` it raises no floating-point
    warnings. None for arrays this kernel does not take."""
    cdef Py_ssize_t i, n
    cdef float* xf
    cdef float* of
    cdef double* xd
    cdef double* od
    if (type(x) is cnp.ndarray and cnp.PyArray_TYPE(<cnp.ndarray>x) == cnp.NPY_FLOAT
            and cnp.PyArray_SIZE(<cnp.ndarray>x) > 32):
        # (no errstate: NumPy's tanh sets no floating-point flag, for inf and NaN neither)
        return saturate_float_tanh(x, np.tanh(x))
    cdef int typenum = kernel_type(x)
    if typenum < 0:
        return None
    cdef cnp.ndarray out = empty_like_kernel(<cnp.ndarray>x, typenum)
    n = cnp.PyArray_SIZE(out)
    if typenum == cnp.NPY_FLOAT:
        xf = <float*>cnp.PyArray_DATA(<cnp.ndarray>x)
        of = <float*>cnp.PyArray_DATA(out)
        for i in range(n):
            of[i] = <float>libm_tanh(xf[i])
    else:
        xd = <double*>cnp.PyArray_DATA(<cnp.ndarray>x)
        od = <double*>cnp.PyArray_DATA(out)
        for i in range(n):
            od[i] = libm_tanh(xd[i])
    return out


cdef object relu_kernel(object x):
    """``relu(x)`` of a contiguous float32/float64 array of any size, in one pass: 0 where
    x < 0, else x itself, so -0.0 and nan pass through as in PyTorch. (NumPy has no such
    ufunc: ``np.maximum(x, 0)`` turns -0.0 into 0.0 at random (NOTE [Ties keep the first
    operand] in selection.pyx), and mending it costs a comparison and a masked copy.)
    None for any other array."""
    cdef int typenum
    if type(x) is not cnp.ndarray or not cnp.PyArray_ISCARRAY_RO(<cnp.ndarray>x):
        return None
    typenum = cnp.PyArray_TYPE(<cnp.ndarray>x)
    if typenum != cnp.NPY_FLOAT and typenum != cnp.NPY_DOUBLE:
        return None
    cdef cnp.ndarray out = empty_like_kernel(<cnp.ndarray>x, typenum)
    cdef Py_ssize_t n = cnp.PyArray_SIZE(out)
    if typenum == cnp.NPY_FLOAT:
        relu_loop(<float*>cnp.PyArray_DATA(<cnp.ndarray>x), <float*>cnp.PyArray_DATA(out), n)
    else:
        relu_loop(<double*>cnp.PyArray_DATA(<cnp.ndarray>x), <double*>cnp.PyArray_DATA(out),
                  n)
    return out


cdef void relu_loop(real* x, real* out, Py_ssize_t n) noexcept nogil:
    cdef Py_ssize_t i
    for i in range(n):
        out[i] = 0 if x[i] < 0 else x[i]
