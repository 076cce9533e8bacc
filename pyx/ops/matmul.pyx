# cython: allow_none_for_extension_args=False
"""Matrix products: matmul, mm, bmm, dot, mv, addmm, with their backward.

The products run in NumPy (BLAS). mm, bmm, mv and dot each check their operands as
PyTorch's kernels do (the same order of checks, the same words) and record their own node;
one backward serves the four. ``matmul`` of operands with a batch dim is built from them
as PyTorch builds it (NOTE [How matmul decomposes]).
"""
import numpy as np

cimport numpy as cnp

cnp.import_array()

from autograd_cy._C.grad_mode cimport is_grad_enabled, forward_level, needs_tensor_ops
from autograd_cy._C.forward cimport (
    forward1, forward2, forward_n, linear_tangent, batch_binary, batch_nary, zero_tangent_of,
)
from autograd_cy._C.dtype cimport scalar_name, c10_name
from autograd_cy._C.tensor cimport (
    Tensor, make_tensor, requires_grad, bump_version, tensor_operators, TensorOperators,
    array_module,
)
from autograd_cy._C.batching cimport grads_batched, batched_shape
from autograd_cy._C.node cimport Node, unpack_saved
from autograd_cy._C.saved_tensor cimport SavedTensor
from autograd_cy._C.recording cimport record, record1, record2, gets_gradient
from autograd_cy._C.promotion cimport (
    wrap, is_complex_array, half_precision_array, result_type)
from autograd_cy._C.ops.conjugate cimport conj_of
from autograd_cy._C.promotion import broadcast_error
from autograd_cy._C.ops.shape cimport unsafe_view
from autograd_cy._C.ops.shape import expand, reshape, squeeze, t, transpose, unsqueeze
from autograd_cy._C.ops.out_arguments cimport write_out
from autograd_cy._C.ops.arithmetic import add, mul
from autograd_cy._C.device cimport Backend, backend_of
from autograd_cy._C.fp_errors cimport quietly2, quiet_matrix_product
from autograd_cy._C.blas cimport blas_product
from autograd_cy._C.ops.conversion import contiguous

__all__ = ["matmul", "mm", "bmm", "addmm", "dot", "vdot", "mv"]
__tensor_methods__ = ("matmul", "mm", "bmm", "addmm", "dot", "vdot", "mv")


cdef class MatmulBackward0(Node):
    """The backward shared by MmBackward0, BmmBackward0, MvBackward0 and DotBackward0 (never
    recorded itself): 1-D operands are lifted to matrices, the matrix formulas applied.

    Each side's gradient reads only the other operand, so an operand is saved only when the
    other one requires grad (PyTorch saves ``None`` otherwise, and an in-place change of the
    unsaved operand does not break backward)."""
    saved_names = ("self", "other")
    cdef int a_dim, b_dim
    # two matrices (mm) laid out column by column: their gradients are computed transposed
    # (NOTE [Gradients in their operand's layout])
    cdef bint a_column_major, b_column_major

    batches_gradients = True     # NOTE [Batched gradients]
    complex_formulas = True      # the other operand conjugated (NOTE [Complex gradients])

    cpdef tuple apply(self, tuple grads):
        grad = grads[0]
        cdef bint need_a = self.should_compute_output(0)
        cdef bint need_b = self.should_compute_output(1)
        if (not needs_tensor_ops() and isinstance(grad, Tensor)
                and self.a_dim == 2 and self.b_dim == 2):
            # Nothing to record (no create_graph): two matrices multiply straight as arrays.
            g = (<Tensor>grad)._data
            a_grad = b_grad = None
            if need_a:
                b_array = (<SavedTensor>self.saved_tensors[1]).unpack_array(self)
                if is_complex_array(b_array):
                    b_array = b_array.conj()
                a_grad = make_tensor(
                    matrix_product(b_array, g.swapaxes(-1, -2)).swapaxes(-1, -2)
                    if self.a_column_major else matrix_product(g, b_array.T))
            if need_b:
                a_array = (<SavedTensor>self.saved_tensors[0]).unpack_array(self)
                if is_complex_array(a_array):
                    a_array = a_array.conj()
                b_grad = make_tensor(
                    matrix_product(g.swapaxes(-1, -2), a_array).swapaxes(-1, -2)
                    if self.b_column_major else matrix_product(a_array.T, g))
            return (a_grad, b_grad)
        a = conj_of(unpack_saved(self, 0)) if need_b else None
        b = conj_of(unpack_saved(self, 1)) if need_a else None
        a_grad = b_grad = None
        a_dim, b_dim = self.a_dim, self.b_dim
        if a_dim == 1 and b_dim == 1:
            if grads_batched():     # a batch of scalars scales the vectors row by row
                grad = unsqueeze(grad, -1)
            if need_a:
                a_grad = mul(grad, b)
            if need_b:
                b_grad = mul(grad, a)
            return (a_grad, b_grad)
        if a_dim == 2 and b_dim == 2 and (<Tensor>grad)._data.ndim == 2:
            # create_graph (or a dual level) on two matrices: mm and t, recorded, as
            # PyTorch's (TBackward0 nodes).
            if need_a:
                a_grad = (t(mm_impl(b, t(grad))) if self.a_column_major
                          else mm_impl(<Tensor>grad, t(b)))
            if need_b:
                b_grad = (t(mm_impl(t(grad), a)) if self.b_column_major
                          else mm_impl(t(a), <Tensor>grad))
            return (a_grad, b_grad)
        # Lift 1-D operands to matrices, use the matrix formulas, drop the extra dim.
        grad_m = unsqueeze(grad, -2) if a_dim == 1 else grad
        grad_m = unsqueeze(grad_m, -1) if b_dim == 1 else grad_m
        # (a batch of gradients of mm: the same layout rule, over the batch dim)
        if need_a:
            b_m = unsqueeze(b, -1) if b_dim == 1 else b
            if self.a_column_major:
                a_grad = transpose(matmul(b_m, transpose(grad_m, -1, -2)), -1, -2)
            else:
                a_grad = matmul(grad_m, transpose(b_m, -1, -2))
            if a_dim == 1:
                a_grad = squeeze(a_grad, -2)
        if need_b:
            a_m = unsqueeze(a, 0) if a_dim == 1 else a
            if self.b_column_major:
                b_grad = transpose(matmul(transpose(grad_m, -1, -2), a_m), -1, -2)
            else:
                b_grad = matmul(transpose(a_m, -1, -2), grad_m)
            if b_dim == 1:
                b_grad = squeeze(b_grad, -1)
        return (a_grad, b_grad)


cdef class MmBackward0(MatmulBackward0):
    saved_names = ("self", "mat2")


cdef class BmmBackward0(MatmulBackward0):
    saved_names = ("self", "mat2")


cdef class DotBackward0(MatmulBackward0):
    saved_names = ("self", "tensor")


cdef class MvBackward0(MatmulBackward0):
    saved_names = ("self", "vec")


cdef object product_tangent(a_t, b_t, a, b, Tensor result, tuple extra):
    """``a_t @ b + a @ b_t``, for mm, bmm, mv, dot and matmul (the product is bilinear)."""
    if grads_batched():
        return batched_product_tangent(a_t, b_t, a, b, result)
    term = None if a_t is None else matmul(a_t, b)
    if b_t is None:
        return term
    other_term = matmul(a, b_t)
    return other_term if term is None else add(term, other_term)


cdef object batched_product_tangent(a_t, b_t, Tensor a, Tensor b, Tensor result):
    """``product_tangent`` on batched tangents (NOTE [Batched tangents]): 1-D operands lifted
    to matrices; a tangent given one dim per dim of the wider operand, so that matmul
    broadcasts the operands' own batch dims right-aligned, below the tangents' batch dim;
    the product reshaped to ``(B, *result.shape)``."""
    cdef Tensor a_m = unsqueeze(a, 0) if a._data.ndim == 1 else a
    cdef Tensor b_m = unsqueeze(b, -1) if b._data.ndim == 1 else b
    cdef Py_ssize_t rank = max(a_m._data.ndim, b_m._data.ndim)
    term = other_term = None
    if a_t is not None:
        term = matmul(lifted_tangent(a_t, 1 if a._data.ndim == 1 else 0, rank), b_m)
    if b_t is not None:
        other_term = matmul(a_m, lifted_tangent(b_t, -1 if b._data.ndim == 1 else 0, rank))
    total = other_term if term is None else term if other_term is None else add(term, other_term)
    return reshape(total, batched_shape(total, result._data.shape))


cdef object lifted_tangent(Tensor tangent, Py_ssize_t lift, Py_ssize_t rank):
    """A batched tangent ``(B, *shape)``: unsqueezed at ``lift`` (1: a row vector, -1: a
    column; 0: as it is), then with ones after the batch dim up to ``1 + rank`` dims."""
    if lift:
        tangent = unsqueeze(tangent, lift)
    shape = (<Tensor>tangent)._data.shape
    return reshape(tangent, shape[:1] + (1,) * (rank + 1 - len(shape)) + shape[1:])


# NOTE [Gradients in their operand's layout]
# A matrix laid out column by column (strides (1, rows): the transpose of a row-major one,
# as nn.Linear's ``weight.t()`` is) gets its gradient from mm and addmm computed transposed:
# ``(grad^T @ mat1)^T`` rather than ``mat1^T @ grad``, as PyTorch's mm_mat2_backward and
# mm_mat1_backward do. The numbers are the same dot products; the result comes out column by
# column too, so the ``t()`` that made the operand hands a row-major gradient to the weight
# (no copy to meet the gradient layout contract in accumulate_grad.pyx), and a per-example
# weight gradient under vmap comes out contiguous, as torch.func's does, from one product
# that writes it in order. The strides of the gradients are PyTorch's.
#
# vmap records a shared weight's product on the physical tensors as a bmm whose operand is
# that one column-major matrix expanded over the batch (batch stride 0), where PyTorch's
# vmap differentiates the logical mm. bmm takes the rule for such an operand too, so that
# the per-example gradients come out in torch.func's layout (contiguous: ``.view(B, -1)``
# works on them). For an ordinary bmm the rule is PyTorch's only in this one case: torch's
# bmm formula leaves the gradient of an expanded column-major operand row-major before its
# ExpandBackward0 sums it, and ours column-major.
cdef inline bint column_major(object array):
    """Whether a matrix has strides ``(1, rows)`` in elements (PyTorch's test); read from
    the array struct for a NumPy array (every recorded mm and addmm asks twice)."""
    cdef cnp.ndarray a
    cdef Py_ssize_t itemsize
    if type(array) is cnp.ndarray:
        a = <cnp.ndarray>array
        if cnp.PyArray_NDIM(a) != 2:
            return False
        itemsize = cnp.PyArray_ITEMSIZE(a)
        return (cnp.PyArray_STRIDE(a, 0) == itemsize
                and cnp.PyArray_STRIDE(a, 1) == cnp.PyArray_DIM(a, 0) * itemsize)
    if array.ndim != 2:
        return False
    itemsize = array.itemsize
    strides = array.strides
    return strides[0] == itemsize and strides[1] == array.shape[0] * itemsize


cdef inline bint shared_column_major(object array):
    """Whether a batch of matrices is one column-major matrix expanded (batch stride 0)."""
    if array.ndim != 3:
        return False
    cdef Py_ssize_t itemsize = array.itemsize
    strides = array.strides
    return (strides[0] == 0 and strides[1] == itemsize
            and strides[2] == array.shape[1] * itemsize)


cdef Tensor _record_matmul(MatmulBackward0 node, Tensor a, Tensor b, Tensor out):
    cdef bint a_grad = requires_grad(a), b_grad = requires_grad(b)
    if is_grad_enabled() and (a_grad or b_grad):
        node.a_dim = a._data.ndim
        node.b_dim = b._data.ndim
        if node.a_dim == 2 and node.b_dim == 2 and type(node) is MmBackward0:
            node.a_column_major = column_major(a._data)
            node.b_column_major = column_major(b._data)
        elif type(node) is BmmBackward0:
            node.a_column_major = shared_column_major(a._data)
            node.b_column_major = shared_column_major(b._data)
        record2(node, a, b, out, (a if gets_gradient(b) else None,
                                  b if gets_gradient(a) else None))
    if forward_level():
        forward2(out, a, b, product_tangent)
    return out


cdef object numpy_matmul = np.matmul     # looked up once: matrix_product is hot


def outer_products(a, b):
    """``a @ b`` for an inner dim of 1 (NOTE [Batches of outer products])."""
    return np.einsum("...i,...j->...ij", a[..., 0], b[..., 0, :])


# NOTE [Small and large matrix products]
# NumPy offers two C paths to the same BLAS gemm. ``ndarray.dot`` (PyArray_MatrixProduct)
# costs about half a microsecond to call, but zero-fills its output before gemm, called with
# beta = 0, writes every element again. ``np.matmul`` (a generalized ufunc) costs about a
# microsecond more to set up and writes the output once. While the output fits in the
# cache the memset is cheap (dot is as fast or faster up to 256 KiB of output on the
# 2-core VM); past it the output goes to memory twice, and a weight gradient of a 784-by-256
# layer (784 KiB) takes 175 us through dot against 148 us through matmul. Products with at
# least LARGE_PRODUCT_BYTES of output take np.matmul; the rest, where the call is the cost,
# take dot.
#
# NOTE [A 1-by-1 operand of dot]
# ``ndarray.dot`` treats a 1-by-1 operand as a number and scales the other operand with
# BLAS's axpy, which returns early when that number is zero: [[0]] times a column holding
# nan or inf gives zeros, where a product (PyTorch's, np.matmul's) gives nan. A backward
# hits it as soon as a zero gradient of a 1-by-1 output meets an operand holding nan
# (x @ w after a where() that took the other branch). Products with a 1-by-1 operand take
# np.matmul.
#
# NOTE [Batches of outer products]
# A product whose inner dim is 1 is an outer product. NumPy's matmul gives a batch of them
# (a per-example weight gradient under vmap: (B, 784, 1) @ (B, 1, 128)) to its own loop, not
# to BLAS, at 7.3 ms for that shape on the 2-core VM; einsum's loop for a product without a
# sum writes the same numbers (one multiplication each: no summation order to differ) in
# 1.8 ms. Batched NumPy products with an inner dim of 1 take einsum, written without the
# summed index of length 1 (``...i,...j->...ij``): with it, einsum runs a reduction that
# copies each operand's rows into a buffer first, a third slower again.
cdef enum:
    LARGE_PRODUCT_BYTES = 524288

cdef object FLOAT32 = np.dtype(np.float32)


cdef inline object matrix_product(object a, object b):
    """``np.matmul(a, b)``, without NumPy's warnings (an overflow is inf, quietly, as in
    PyTorch). Two float32 or float64 NumPy matrices with a small product multiply through the
    C function behind the array's ``dot`` method (NOTE [Small and large matrix products]),
    unless one is 1-by-1 (NOTE [A 1-by-1 operand of dot]). (A batch, such as a batched
    gradient, takes np.matmul: ``dot`` does not broadcast.) float16 and bfloat16 multiply in
    float32 and round once. First of all, two float matrices that BLAS can read as they are
    go straight to NumPy's gemm (NOTE [Calling NumPy's BLAS directly] in blas.pyx)."""
    product = blas_product(a, b)
    if product is not None:
        return product
    if (type(a) is cnp.ndarray and type(b) is cnp.ndarray
            and cnp.PyArray_NDIM(<cnp.ndarray>a) == 2 and cnp.PyArray_NDIM(<cnp.ndarray>b) == 2
            and cnp.PyArray_TYPE(<cnp.ndarray>a) == cnp.PyArray_TYPE(<cnp.ndarray>b)
            and (cnp.PyArray_TYPE(<cnp.ndarray>a) == cnp.NPY_FLOAT
                 or cnp.PyArray_TYPE(<cnp.ndarray>a) == cnp.NPY_DOUBLE)
            and cnp.PyArray_SIZE(<cnp.ndarray>a) != 1 and cnp.PyArray_SIZE(<cnp.ndarray>b) != 1
            and (cnp.PyArray_DIM(<cnp.ndarray>a, 0) * cnp.PyArray_DIM(<cnp.ndarray>b, 1)
                 * cnp.PyArray_ITEMSIZE(<cnp.ndarray>a) < LARGE_PRODUCT_BYTES)):
        return quiet_matrix_product(a, b)
    if (type(a) is cnp.ndarray and type(b) is cnp.ndarray
            and cnp.PyArray_NDIM(<cnp.ndarray>a) > 2 and cnp.PyArray_NDIM(<cnp.ndarray>b) >= 2
            and a.shape[-1] == 1 and b.shape[-2] == 1 and a.dtype == b.dtype
            and a.dtype.char in "fdFD"):
        # an outer product per batch row: NOTE [Batches of outer products] above
        return quietly2(outer_products, a, b)
    if half_precision_array(a) and a.dtype == b.dtype:
        # float32 products, rounded once (NOTE [Half-precision products and reductions] in
        # reduction.pyx), two matrices through gemm as any float32 pair
        # (C order: np.matmul lays out a product of the float32 copies of expanded operands
        # as their strides go, where the product of the operands themselves is contiguous)
        wide_a, wide_b = a.astype(FLOAT32), b.astype(FLOAT32)
        product = blas_product(wide_a, wide_b)
        if product is None:
            product = quietly2(numpy_matmul, wide_a, wide_b)
        return product.astype(a.dtype, order="C")
    return quietly2(numpy_matmul, a, b)


cdef inline bint plain_dtypes(object a, object b):
    """Both arrays of one dtype, not bool: the products' common case, checked cheaply (NumPy's
    dtypes of the builtin types are singletons); anything else takes the checks' slow path."""
    return a.dtype is b.dtype and a.dtype.kind != "b"


cdef str not_implemented_for_bool(str kernel):
    return f"\"{kernel}\" not implemented for 'Bool'"


# ------------------------------------------------------------------ mm, bmm, mv, dot

def mm(Tensor self, Tensor mat2, *, out=None):
    """Product of two matrices (2-D only)."""
    if out is not None:
        return write_out("mm", out, (self, mat2), lambda: mm_impl(self, mat2))
    return mm_impl(self, mat2)


cdef Tensor mm_impl(Tensor self, Tensor mat2):
    a, b = self._data, mat2._data
    if a.ndim != 2:
        raise RuntimeError("self must be a matrix")
    if b.ndim != 2:
        raise RuntimeError("mat2 must be a matrix")
    if not plain_dtypes(a, b):
        check_mm_operands(a, b)
    try:
        array = matrix_product(a, b)
    except ValueError:
        check_mm_operands(a, b)
        raise
    return _record_matmul(MmBackward0.__new__(MmBackward0), self, mat2, wrap(array))


cdef void check_mm_operands(object a, object b) except *:
    """mm's checks of two matrices, in PyTorch's order: sizes, dtypes, then the kernel
    refuses bool."""
    if a.shape[1] != b.shape[0]:
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({a.shape[0]}x"
                           f"{a.shape[1]} and {b.shape[0]}x{b.shape[1]})")
    if a.dtype != b.dtype:
        raise RuntimeError(f"expected m1 and m2 to have the same dtype, but got: "
                           f"{c10_name(a.dtype)} != {c10_name(b.dtype)}")
    if a.dtype.kind == "b":
        raise NotImplementedError(not_implemented_for_bool("addmm_impl_cpu_"))


def bmm(Tensor self, Tensor mat2, *, out=None):
    """Batched product of two 3-D tensors with the same batch size."""
    if out is not None:
        return write_out("bmm", out, (self, mat2), lambda: bmm(self, mat2))
    a, b = self._data, mat2._data
    if a.ndim != 3:
        raise RuntimeError("batch1 must be a 3D tensor")
    if b.ndim != 3:
        raise RuntimeError("batch2 must be a 3D tensor")
    if a.shape[0] != b.shape[0] or a.shape[2] != b.shape[1]:
        raise RuntimeError(
            f"Expected size for first two dimensions of batch2 tensor to be: "
            f"[{a.shape[0]}, {a.shape[2]}] but got: [{b.shape[0]}, {b.shape[1]}].")
    if not plain_dtypes(a, b):
        # The kernel is picked by self's dtype (refusing bool), then checks the other's.
        if a.dtype.kind == "b":
            raise NotImplementedError(not_implemented_for_bool("bmm"))
        if a.dtype != b.dtype:
            if a.size == 0 or b.size == 0:
                # torch returns an empty product (zeros when the inner dim is 0) before it
                # compares the dtypes, in the promoted one
                return _record_matmul(
                    BmmBackward0.__new__(BmmBackward0), self, mat2,
                    wrap(array_module(a).zeros((a.shape[0], a.shape[1], b.shape[2]),
                                               result_type(self, mat2))))
            raise RuntimeError(f"expected scalar type {scalar_name(a.dtype)} but found "
                               f"{scalar_name(b.dtype)}")
    return _record_matmul(BmmBackward0.__new__(BmmBackward0), self, mat2,
                          wrap(matrix_product(a, b)))


def mv(Tensor self, Tensor vec):
    """Matrix-vector product."""
    a, v = self._data, vec._data
    if a.ndim != 2 or v.ndim != 1:
        # PyTorch's mv is addmv into a 1-D result: its message lists the three ranks.
        raise RuntimeError(f"vector + matrix @ vector expected, got 1, {a.ndim}, {v.ndim}")
    if a.shape[1] != v.shape[0]:
        raise RuntimeError(f"size mismatch, got input ({a.shape[0]}), mat "
                           f"({a.shape[0]}x{a.shape[1]}), vec ({v.shape[0]})")
    if not plain_dtypes(a, v):
        if a.dtype != v.dtype:      # the result (vec's dtype), the matrix, the vector
            raise RuntimeError(f"addmv input tensors must have the same dtype, but got "
                               f"{scalar_name(v.dtype)}, {scalar_name(a.dtype)}, and "
                               f"{scalar_name(v.dtype)}")
        if a.dtype.kind == "b":
            raise NotImplementedError(not_implemented_for_bool("addmv_impl_cpu"))
    return _record_matmul(MvBackward0.__new__(MvBackward0), self, vec, wrap(matrix_product(a, v)))


cdef void check_vectors(object a, object b) except *:
    """PyTorch's errors of dot and vdot: two 1-D tensors of one dtype and length."""
    if a.ndim != 1 or b.ndim != 1:
        raise RuntimeError(f"1D tensors expected, but got {a.ndim}D and {b.ndim}D tensors")
    if a.dtype != b.dtype:
        raise RuntimeError(f"dot : expected both vectors to have same dtype, but found "
                           f"{scalar_name(a.dtype)} and {scalar_name(b.dtype)}")
    if a.shape[0] != b.shape[0]:
        raise RuntimeError(f"inconsistent tensor size, expected tensor [{a.shape[0]}] and src "
                           f"[{b.shape[0]}] to have the same number of elements, but got "
                           f"{a.shape[0]} and {b.shape[0]} elements respectively")
    if a.dtype.kind == "b":
        raise NotImplementedError(not_implemented_for_bool("dot"))


def dot(Tensor self, Tensor other):
    """Inner product of two 1-D tensors."""
    a, b = self._data, other._data
    check_vectors(a, b)
    return _record_matmul(DotBackward0.__new__(DotBackward0), self, other,
                          wrap(matrix_product(a, b)))


cdef class VdotBackward0(Node):
    """``vdot(self, other) = sum(conj(self) * other)``: ``self`` enters conjugated, so it
    gets ``conj(grad) * other``, and ``other`` gets ``grad * self`` (NOTE [Complex
    gradients])."""
    saved_names = ("self", "other")
    complex_formulas = True

    cpdef tuple apply(self, tuple grads):
        grad = grads[0]
        return (mul(conj_of(grad), unpack_saved(self, 1)) if self.should_compute_output(0)
                else None,
                mul(grad, unpack_saved(self, 0)) if self.should_compute_output(1) else None)


cdef object vdot_tangent(a_t, b_t, a, b, Tensor result, tuple extra):
    """``vdot(a_t, b) + vdot(a, b_t)``."""
    term = None if a_t is None else vdot(a_t, b)
    if b_t is None:
        return term
    other_term = vdot(a, b_t)
    return other_term if term is None else add(term, other_term)


def vdot(Tensor self, Tensor other):
    """Inner product of two 1-D tensors, ``self`` conjugated first: ``sum(conj(self) *
    other)``, dot for real tensors."""
    a, b = self._data, other._data
    check_vectors(a, b)
    cdef Tensor out = wrap(matrix_product(a.conj() if is_complex_array(a) else a, b))
    if is_grad_enabled() and (requires_grad(self) or requires_grad(other)):
        record2(VdotBackward0.__new__(VdotBackward0), self, other, out,
                (self if gets_gradient(other) else None, other if gets_gradient(self) else None))
    if forward_level():
        forward2(out, self, other, vdot_tangent)
    return out


# ------------------------------------------------------------------ matmul

def matmul(Tensor self, Tensor other, *, out=None):
    """Matrix product with PyTorch's semantics for 1-D, 2-D and batched operands."""
    if out is not None:
        return write_out("matmul", out, (self, other), lambda: matmul(self, other))
    a, b = self._data, other._data
    a_dim, b_dim = a.ndim, b.ndim
    if a_dim == 2 and b_dim == 2:
        return mm_impl(self, other)
    if a_dim == 0 or b_dim == 0:
        raise RuntimeError(f"both arguments to matmul need to be at least 1D, but they are "
                           f"{a_dim}D and {b_dim}D")
    if a_dim == 1 and b_dim == 1:
        return dot(self, other)
    if a_dim == 2 and b_dim == 1:
        return mv(self, other)
    cdef Tensor result
    if (not (is_grad_enabled() and (requires_grad(self) or requires_grad(other)))
            and plain_dtypes(a, b)):
        # Nothing recorded: one NumPy call gives the values of PyTorch's decomposition. On a
        # size error the decomposition runs, to fail in the words of the kernel it reaches.
        try:
            result = wrap(matrix_product(a, b))
        except ValueError:
            return decomposed_matmul(self, other)
        if a_dim == 1 and b_dim == 2:
            bump_version(result)        # PyTorch's result was squeezed in place
        if forward_level():
            forward2(result, self, other, product_tangent)
        return result
    return decomposed_matmul(self, other)


cdef class SqueezeBackward4(Node):
    """``squeeze_(dim)``, in place: matmul's 1-D @ 2-D drops mm's row dim this way."""
    cdef readonly Py_ssize_t saved_dim
    cdef readonly tuple saved_self_sym_sizes

    batches_gradients = True     # NOTE [Batched gradients]
    complex_formulas = True     # it only moves the gradient's elements
    cpdef tuple apply(self, tuple grads):
        return (reshape(grads[0], batched_shape(grads[0], self.saved_self_sym_sizes)),)


# NOTE [How matmul decomposes]
# PyTorch's matmul is no kernel of its own but a composition of ops, so the graph it records
# (and the error it raises) depends on the operands' ranks, and for batched operands on which
# of them requires grad:
# - 1-D @ 2-D: ``a.unsqueeze(0).mm(b).squeeze_(0)``: SqueezeBackward4 over MmBackward0.
# - 3-D @ 3-D where one operand has a batch of one and requires grad: that batch dim is
#   squeezed first (SqueezeBackward1), so the product below is folded.
# - A batched operand and a 1-D or 2-D one ("fold"): the batched one (transposed if it is
#   on the right) is reshaped to a matrix and multiplied with mm or mv, then
#   ``_unsafe_view``-ed back (UnsafeViewBackward0). PyTorch folds when the small operand
#   requires grad (its gradient is then one mm, not a sum over an expanded batch), else only
#   when the fold needs no copy, and never a 2-D @ batched product it would have to
#   transpose back with a copy.
# - Otherwise: both are expanded to the broadcast batch, reshaped to 3-D, multiplied with
#   bmm and ``_unsafe_view``-ed to the result's shape.
# Errors follow: ``(4, 2, 3) @ (4, 5)`` reports mm's folded ``8x3 and 4x5``.

cdef Tensor decomposed_matmul(Tensor tensor1, Tensor tensor2):
    """matmul of a 1-D @ 2-D pair or of operands with a batch dim, built from mm, mv and bmm
    as PyTorch builds it (NOTE [How matmul decomposes])."""
    shape1, shape2 = tensor1._data.shape, tensor2._data.shape
    cdef Py_ssize_t dim1 = len(shape1), dim2 = len(shape2)
    cdef Tensor out
    cdef SqueezeBackward4 node
    if dim1 == 1 and dim2 == 2:
        out = mm_impl(unsqueeze(tensor1, 0), tensor2)
        node = SqueezeBackward4.__new__(SqueezeBackward4)
        node.saved_dim, node.saved_self_sym_sizes = 0, out._data.shape
        out._data = out._data.reshape(out._data.shape[1:])
        if is_grad_enabled() and requires_grad(out):
            record1(node, out, out)
        bump_version(out)
        if forward_level():     # mm's tangent is squeezed alike
            forward1(out, out, linear_tangent, (reshape, out._data.shape))
        return out
    if dim1 == 3 and dim2 == 3 and shape1[0] != shape2[0]:
        if shape2[0] == 1 and requires_grad(tensor2):
            return matmul(tensor1, squeeze(tensor2, 0))
        if shape1[0] == 1 and requires_grad(tensor1):
            return matmul(squeeze(tensor1, 0), tensor2)
    if should_fold(tensor1, tensor2):
        transposed = dim2 > dim1
        t1 = transpose(tensor2, -1, -2) if transposed else tensor1
        t2 = (t(tensor1) if dim1 == 2 else tensor1) if transposed else tensor2
        sizes1 = t1.shape
        output_shape = tuple(sizes1[:-1])
        t1_folded = reshape(t1, (int(np.prod(output_shape)), sizes1[-1]))
        if t2.ndim == 2:
            output = unsafe_view(mm_impl(t1_folded, t2), output_shape + (t2.shape[1],))
            return contiguous(transpose(output, -1, -2)) if transposed else output
        return unsafe_view(mv(t1_folded, t2), output_shape)
    n = shape1[-2] if dim1 > 1 else 1
    m1 = shape1[-1]
    m2 = shape2[-2] if dim2 > 1 else shape2[0]
    p = shape2[-1] if dim2 > 1 else 1
    batch1, batch2 = shape1[:max(dim1 - 2, 0)], shape2[:max(dim2 - 2, 0)]
    try:
        batch = np.broadcast_shapes(batch1, batch2)
    except ValueError:
        raise broadcast_error(batch1, batch2) from None
    cdef Py_ssize_t count = int(np.prod(batch))
    expanded1 = reshape(expand(tensor1, batch + (n, m1)), (count, n, m1))
    if dim2 == 1:
        expanded2 = unsqueeze(reshape(expand(tensor2, batch + (m2,)), (count, m2)), 2)
    else:
        expanded2 = reshape(expand(tensor2, batch + (m2, p)), (count, m2, p))
    output_shape = batch + ((n,) if dim1 > 1 else ()) + ((p,) if dim2 > 1 else ())
    product = bmm(expanded1, expanded2)
    return unsafe_view(squeeze(product, -1) if dim2 == 1 else product, output_shape)


cdef bint should_fold(Tensor tensor1, Tensor tensor2):
    """Does PyTorch multiply a batched operand and a 1-D or 2-D one by folding the batch into
    mm's rows (NOTE [How matmul decomposes])?"""
    a, b = tensor1._data, tensor2._data
    cdef bint larger1 = a.ndim >= b.ndim
    big = a if larger1 else np.swapaxes(b, -1, -2)
    if not (big.ndim >= 3 and (b.ndim if larger1 else a.ndim) <= 2):
        return False
    if requires_grad(tensor2 if larger1 else tensor1):
        return True
    if a.ndim == 2:
        return False
    if big.size == 0:
        return True
    shape, strides = big.shape, big.strides
    for i in range(big.ndim - 2):       # the batch dims and rows must merge without a copy
        if strides[i] != strides[i + 1] * shape[i + 1]:
            return False
    return True


cdef class AddmmBackward0(Node):
    """``beta * self + alpha * (mat1 @ mat2)``: mat1 is saved only if mat2 gets a gradient and
    mat2 only if mat1 does (each is read by the other's gradient only)."""
    saved_names = ("mat1", "mat2")
    cdef readonly object saved_alpha, saved_beta
    cdef tuple self_sizes       # the bias's shape: whether gemm.cu can sum its gradient
    # (NOTE [Gradients in their operand's layout] above)
    cdef bint mat1_column_major, mat2_column_major

    batches_gradients = True     # NOTE [Batched gradients]
    complex_formulas = True      # the other matrix and the scalars conjugated
    cpdef tuple apply(self, tuple grads):
        grad = grads[0]
        if (not needs_tensor_ops() and isinstance(grad, Tensor)
                and backend_of((<Tensor>grad)._data).has_gemm((<Tensor>grad)._data)
                and not is_complex_array((<Tensor>grad)._data)):
            return self.gemm_gradients(grad)
        self_grad = mat1_grad = mat2_grad = None
        alpha, beta = conj_of(self.saved_alpha), conj_of(self.saved_beta)
        product = matmul if grads_batched() else mm     # matmul: over the batch dim too
        if self.should_compute_output(0):
            self_grad = grad if beta == 1 else mul(grad, beta)
        if self.should_compute_output(1):
            mat2 = conj_of(unpack_saved(self, 1))
            mat1_grad = (matrix_transpose(product(mat2, matrix_transpose(grad)))
                         if self.mat1_column_major else product(grad, t(mat2)))
            mat1_grad = mat1_grad if alpha == 1 else mul(mat1_grad, alpha)
        if self.should_compute_output(2):
            mat1 = conj_of(unpack_saved(self, 0))
            mat2_grad = (matrix_transpose(product(matrix_transpose(grad), mat1))
                         if self.mat2_column_major else product(t(mat1), grad))
            mat2_grad = mat2_grad if alpha == 1 else mul(mat2_grad, alpha)
        return (self_grad, mat1_grad, mat2_grad)

    cdef tuple gemm_gradients(self, Tensor grad):
        """The formula above with nothing recorded, each product one gemm of the gradient's
        backend with alpha folded in (one launch of cuda/gemm.cu on a CUDA device: NOTE
        [Fused formulas on CUDA] in pyx/device.pyx, NOTE [GEMM epilogues]); the bias's
        gradient, the column sums of grad that validate_outputs' sum_to would take, comes
        out of mat2's product."""
        g = grad._data
        cdef Backend backend = backend_of(g)
        alpha, beta = self.saved_alpha, self.saved_beta
        self_grad = mat1_grad = mat2_grad = None
        cdef bint need_self = self.should_compute_output(0)
        cdef bint need_mat2 = self.should_compute_output(2)
        # (the column sums come from the product's second operand: g in mat1^T @ g only)
        cdef bint sum_bias = (need_self and need_mat2 and not self.mat2_column_major
                              and self.self_sizes in ((g.shape[1],), (1, g.shape[1])))
        if need_mat2:
            mat1 = (<SavedTensor>self.saved_tensors[0]).unpack_array(self)
            if self.mat2_column_major:
                product = backend.gemm(g.T, mat1, alpha)[0].T
            else:
                product, sums = backend.gemm(mat1.T, g, alpha, None, beta, sum_bias)
            mat2_grad = make_tensor(product)
            if sum_bias:
                self_grad = make_tensor(sums if len(self.self_sizes) == 1
                                        else sums.reshape(self.self_sizes))
        if need_self and not sum_bias:
            self_grad = grad if beta == 1 else mul(grad, beta)
        if self.should_compute_output(1):
            mat2 = (<SavedTensor>self.saved_tensors[1]).unpack_array(self)
            mat1_grad = make_tensor(backend.gemm(mat2, g.T, alpha)[0].T if self.mat1_column_major
                                    else backend.gemm(g, mat2.T, alpha)[0])
        return (self_grad, mat1_grad, mat2_grad)


cdef object matrix_transpose(object matrix):
    """``t(matrix)``, or the last two dims swapped in a batch of gradients."""
    return transpose(matrix, -1, -2) if grads_batched() else t(matrix)


cdef object addmm_tangent(tuple tangents, tuple inputs, Tensor result, tuple extra):
    """``beta * self_t + alpha * (mat1_t @ mat2 + mat1 @ mat2_t)``."""
    self_t, mat1_t, mat2_t = tangents
    _, mat1, mat2 = inputs
    beta, alpha = extra
    total = None
    if mat1_t is not None or mat2_t is not None:
        total = product_tangent(mat1_t, mat2_t, mat1, mat2, result, ())
        total = total if alpha == 1 else mul(total, alpha)
    zeros = zero_tangent_of(result)
    if self_t is not None and beta != 0:
        term = self_t if beta == 1 else mul(self_t, beta)
        total = add(term, zeros) if total is None else add(total, term)
    return zeros if total is None else total


def addmm(Tensor self, Tensor mat1, Tensor mat2, *, beta=1, alpha=1):
    """``beta * self + alpha * (mat1 @ mat2)``; ``self`` broadcasts to the product's shape
    (with ``beta=0`` its values are ignored, NaN included)."""
    cdef AddmmBackward0 node
    if mat1._data.ndim != 2:
        raise RuntimeError("mat1 must be a matrix, got " f"{mat1._data.ndim}-D tensor")
    if mat2._data.ndim != 2:
        raise RuntimeError("mat2 must be a matrix, got " f"{mat2._data.ndim}-D tensor")
    if self._data.dtype != mat2._data.dtype:
        raise RuntimeError(f"self and mat2 must have the same dtype, but got "
                           f"{scalar_name(self._data.dtype)} and {scalar_name(mat2._data.dtype)}")
    check_mm_operands(mat1._data, mat2._data)
    array = fused_addmm(self, mat1, mat2, alpha, beta)
    if array is None:
        array = addmm_array(self, mat1, mat2, alpha, beta)
    cdef Tensor out = wrap(array)
    if is_grad_enabled() and (requires_grad(self) or requires_grad(mat1) or requires_grad(mat2)):
        node = AddmmBackward0()
        node.saved_alpha, node.saved_beta = alpha, beta
        node.self_sizes = self._data.shape
        node.mat1_column_major = column_major(mat1._data)
        node.mat2_column_major = column_major(mat2._data)
        record(node, (self, mat1, mat2), (out,),
               (mat1 if gets_gradient(mat2) else None, mat2 if gets_gradient(mat1) else None))
    if forward_level():
        forward_n(out, (self, mat1, mat2), addmm_tangent, (beta, alpha))
    return out


cdef object addmm_array(Tensor self, Tensor mat1, Tensor mat2, alpha, beta):
    """addmm's values with NumPy's calls (either device): the product, scaled, plus the
    scaled ``self``; PyTorch's error when ``self`` does not broadcast. float16 and bfloat16
    compute all of it in float32 and round once (NOTE [Half-precision products and
    reductions] in reduction.pyx)."""
    bias = self._data
    if half_precision_array(mat1._data) and mat1._data.dtype == bias.dtype:
        product = matrix_product(mat1._data.astype(FLOAT32), mat2._data.astype(FLOAT32))
        bias = bias.astype(FLOAT32)
    else:
        product = matrix_product(mat1._data, mat2._data)
    a, b = alpha, beta
    if product.dtype.kind in "biu":     # integer products scale by integers, as PyTorch
        a, b = int(alpha), int(beta)
    if a != 1:
        np.multiply(product, a, out=product)
    try:
        if b != 0:          # in place: the product is a fresh array of the result's shape
            np.add(product, bias if b == 1 else bias * b, out=product)
        elif np.broadcast_shapes(bias.shape, product.shape) != product.shape:
            raise ValueError
        array = product
    except ValueError:
        array = None
    if array is None:
        expand(self, product.shape)     # self does not broadcast: raises PyTorch's message
    return array if array.dtype == self._data.dtype else array.astype(self._data.dtype)


cdef object fused_addmm(Tensor self, Tensor mat1, Tensor mat2, alpha, beta):
    """addmm in one gemm of mat1's backend, the bias added by its epilogue (one launch of
    cuda/gemm.cu on a CUDA device: NOTE [GEMM epilogues]); None where the backend has no
    gemm for these operands (the NumPy calls)."""
    bias, a, b = self._data, mat1._data, mat2._data
    cdef Backend backend = backend_of(a)
    if not backend.has_gemm(a):
        return None
    shape = (a.shape[0], b.shape[1])
    try:
        broadcasts = np.broadcast_shapes(bias.shape, shape) == shape
    except ValueError:
        broadcasts = False
    if not broadcasts:
        return None         # the NumPy calls raise PyTorch's message
    result = backend.gemm(a, b, alpha, bias, beta)
    return None if result is None else result[0]


cdef object matmul_op(object self, object other):
    return matmul(self, other)


cdef object rmatmul_op(object self, object other):
    """``other @ self`` for a non-Tensor ``other`` (an array or nested lists)."""
    return matmul(make_tensor(np.asarray(other)), self)


cdef TensorOperators* operators = tensor_operators()
operators.matmul = matmul_op
operators.rmatmul = rmatmul_op
batch_binary(product_tangent, False)     # NOTE [Batched tangents]
batch_nary(addmm_tangent, True)


# NOTE [Complex tangents] in forward.pyx: these formulas are checked for complex tensors.
from autograd_cy._C.forward cimport complex_binary, complex_nary
complex_binary(product_tangent)
complex_nary(addmm_tangent)
complex_binary(vdot_tangent)
