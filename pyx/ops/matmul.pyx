# cython: allow_none_for_extension_args=False
"""Matrix products: matmul, mm, bmm, dot, mv, addmm, with their backward.

The products run in NumPy (BLAS). One backward serves every rank combination: 1-D operands
are lifted to matrices, the matrix formulas ``grad @ b.T`` and ``a.T @ grad`` applied, and
the extra dims dropped again.
"""
import numpy as np

from autograd_cy._C.grad_mode cimport is_grad_enabled
from autograd_cy._C.dtype cimport from_numpy_dtype
from autograd_cy._C.tensor cimport (
    Tensor, make_tensor, requires_grad, tensor_operators, TensorOperators, register_methods,
)
from autograd_cy._C.node cimport Node, unpack_saved
from autograd_cy._C.saved_tensor cimport SavedTensor
from autograd_cy._C.recording cimport record, record2
from autograd_cy._C.promotion cimport wrap
from autograd_cy._C.ops.out_arguments cimport write_out
from autograd_cy._C.ops.arithmetic import add, mul

__all__ = ["matmul", "mm", "bmm", "addmm", "dot", "mv"]
__tensor_methods__ = ("matmul", "mm", "bmm", "addmm", "dot", "mv")


cdef class MatmulBackward0(Node):
    """Backward of ``a @ b`` for every rank combination (1-D, 2-D, batched).

    Each side's gradient reads only the other operand, so an operand is saved only when the
    other one requires grad (PyTorch saves ``None`` otherwise, and an in-place change of the
    unsaved operand does not break backward)."""
    saved_names = ("self", "other")
    cdef int a_dim, b_dim

    cpdef tuple apply(self, tuple grads):
        grad = grads[0]
        cdef bint need_a = self.should_compute_output(0)
        cdef bint need_b = self.should_compute_output(1)
        if (not is_grad_enabled() and isinstance(grad, Tensor)
                and self.a_dim == 2 and self.b_dim == 2):
            # Nothing to record (no create_graph): two matrices multiply straight as arrays.
            g = (<Tensor>grad)._data
            a_grad = b_grad = None
            if need_a:
                b_array = (<SavedTensor>self.saved_tensors[1]).unpack_array(self)
                a_grad = make_tensor(np.matmul(g, b_array.T))
            if need_b:
                a_array = (<SavedTensor>self.saved_tensors[0]).unpack_array(self)
                b_grad = make_tensor(np.matmul(a_array.T, g))
            return (a_grad, b_grad)
        from autograd_cy._C.ops.shape import unsqueeze, squeeze, transpose
        a = unpack_saved(self, 0) if need_b else None
        b = unpack_saved(self, 1) if need_a else None
        a_grad = b_grad = None
        a_dim, b_dim = self.a_dim, self.b_dim
        if a_dim == 1 and b_dim == 1:
            if need_a:
                a_grad = mul(grad, b)
            if need_b:
                b_grad = mul(grad, a)
            return (a_grad, b_grad)
        # Lift 1-D operands to matrices, use the matrix formulas, drop the extra dim.
        grad_m = unsqueeze(grad, -2) if a_dim == 1 else grad
        grad_m = unsqueeze(grad_m, -1) if b_dim == 1 else grad_m
        if need_a:
            b_m = unsqueeze(b, -1) if b_dim == 1 else b
            a_grad = matmul(grad_m, transpose(b_m, -1, -2))
            if a_dim == 1:
                a_grad = squeeze(a_grad, -2)
        if need_b:
            a_m = unsqueeze(a, 0) if a_dim == 1 else a
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


cdef Tensor _record_matmul(MatmulBackward0 node, Tensor a, Tensor b, Tensor out):
    cdef bint a_grad = requires_grad(a), b_grad = requires_grad(b)
    if is_grad_enabled() and (a_grad or b_grad):
        node.a_dim = a._data.ndim
        node.b_dim = b._data.ndim
        record2(node, a, b, out, (a if b_grad else None, b if a_grad else None))
    return out


cdef void _check_matmul_dtypes(Tensor a, Tensor b, str name) except *:
    if a._data.dtype.kind == "b" and b._data.dtype.kind == "b":
        a_dim, b_dim = a._data.ndim, b._data.ndim
        kernel = ("dot" if a_dim == 1 and b_dim == 1 else "bmm" if name == "bmm"
                  else "addmv_impl_cpu" if b_dim == 1 else "addmm_impl_cpu_")
        raise NotImplementedError(f"\"{kernel}\" not implemented for 'Bool'")
    if a._data.dtype != b._data.dtype:
        raise RuntimeError(
            f"expected m1 and m2 to have the same dtype, but got: "
            f"{from_numpy_dtype(a._data.dtype).name} != {from_numpy_dtype(b._data.dtype).name}")


def matmul(Tensor self, Tensor other, *, out=None):
    """Matrix product with NumPy/PyTorch semantics for 1-D, 2-D and batched operands."""
    if out is not None:
        return write_out("matmul", out, (self, other), lambda: matmul(self, other))
    a_dim, b_dim = self._data.ndim, other._data.ndim
    if a_dim == 0 or b_dim == 0:
        raise RuntimeError(f"both arguments to matmul need to be at least 1D, but they are "
                           f"{a_dim}D and {b_dim}D")
    _check_matmul_dtypes(self, other, "matmul")
    try:
        array = np.matmul(self._data, other._data)
    except ValueError:
        raise RuntimeError(_matmul_shape_error(self, other)) from None
    if a_dim == 2 and b_dim == 2:
        node = MmBackward0()
    elif a_dim == 1 and b_dim == 1:
        node = DotBackward0()
    elif a_dim == 2 and b_dim == 1:
        node = MvBackward0()
    else:
        node = MatmulBackward0()
    return _record_matmul(node, self, other, wrap(array))


cdef str _matmul_shape_error(Tensor a, Tensor b):
    a_shape, b_shape = a._data.shape, b._data.shape
    if a._data.ndim == 1 and b._data.ndim == 1:
        return (f"inconsistent tensor size, expected tensor [{a_shape[0]}] and src "
                f"[{b_shape[0]}] to have the same number of elements, but got {a_shape[0]} "
                f"and {b_shape[0]} elements respectively")
    a_rows = a_shape[-2] if a._data.ndim > 1 else 1
    b_cols = b_shape[-1] if b._data.ndim > 1 else 1
    return (f"mat1 and mat2 shapes cannot be multiplied ({a_rows}x{a_shape[-1]} and "
            f"{b_shape[0] if b._data.ndim == 1 else b_shape[-2]}x{b_cols})")


def mm(Tensor self, Tensor mat2, *, out=None):
    """Product of two matrices (2-D only)."""
    if out is not None:
        return write_out("mm", out, (self, mat2), lambda: mm(self, mat2))
    if self._data.ndim != 2:
        raise RuntimeError("self must be a matrix")
    if mat2._data.ndim != 2:
        raise RuntimeError("mat2 must be a matrix")
    return matmul(self, mat2)


def bmm(Tensor self, Tensor mat2, *, out=None):
    """Batched product of two 3-D tensors with the same batch size."""
    if out is not None:
        return write_out("bmm", out, (self, mat2), lambda: bmm(self, mat2))
    if self._data.ndim != 3:
        raise RuntimeError(f"batch1 must be a 3D tensor")
    if mat2._data.ndim != 3:
        raise RuntimeError(f"batch2 must be a 3D tensor")
    if self._data.shape[0] != mat2._data.shape[0]:
        raise RuntimeError("batch1 and batch2 must have same number of batches, got "
                           f"{self._data.shape[0]} and {mat2._data.shape[0]}")
    _check_matmul_dtypes(self, mat2, "bmm")
    try:
        array = np.matmul(self._data, mat2._data)
    except ValueError:
        raise RuntimeError(
            f"Expected size for first two dimensions of batch2 tensor to be: "
            f"[{self._data.shape[0]}, {self._data.shape[2]}] but got: "
            f"[{mat2._data.shape[0]}, {mat2._data.shape[1]}].") from None
    return _record_matmul(BmmBackward0(), self, mat2, wrap(array))


def dot(Tensor self, Tensor other):
    """Inner product of two 1-D tensors."""
    if self._data.ndim != 1 or other._data.ndim != 1:
        raise RuntimeError(f"1D tensors expected, but got {self._data.ndim}D and "
                           f"{other._data.ndim}D tensors")
    return matmul(self, other)


def mv(Tensor self, Tensor vec):
    """Matrix-vector product."""
    if self._data.ndim != 2 or vec._data.ndim != 1:
        raise RuntimeError("vector + matrix @ vector expected, got "
                           f"{self._data.ndim}, {vec._data.ndim}")
    if self._data.shape[1] != vec._data.shape[0]:
        raise RuntimeError(f"size mismatch, got input ({self._data.shape[0]}), mat "
                           f"({self._data.shape[0]}x{self._data.shape[1]}), vec "
                           f"({vec._data.shape[0]})")
    return matmul(self, vec)


cdef class AddmmBackward0(Node):
    """``beta * self + alpha * (mat1 @ mat2)``: mat1 is saved only if mat2 requires grad and
    mat2 only if mat1 does (each is read by the other's gradient only)."""
    saved_names = ("mat1", "mat2")
    cdef readonly object saved_alpha, saved_beta

    cpdef tuple apply(self, tuple grads):
        from autograd_cy._C.ops.shape import t
        grad = grads[0]
        self_grad = mat1_grad = mat2_grad = None
        alpha, beta = self.saved_alpha, self.saved_beta
        if self.should_compute_output(0):
            self_grad = grad if beta == 1 else mul(grad, beta)
        if self.should_compute_output(1):
            mat1_grad = mm(grad, t(unpack_saved(self, 1)))
            mat1_grad = mat1_grad if alpha == 1 else mul(mat1_grad, alpha)
        if self.should_compute_output(2):
            mat2_grad = mm(t(unpack_saved(self, 0)), grad)
            mat2_grad = mat2_grad if alpha == 1 else mul(mat2_grad, alpha)
        return (self_grad, mat1_grad, mat2_grad)


def addmm(Tensor self, Tensor mat1, Tensor mat2, *, beta=1, alpha=1):
    """``beta * self + alpha * (mat1 @ mat2)``; ``self`` broadcasts to the product's shape
    (with ``beta=0`` its values are ignored, NaN included)."""
    cdef AddmmBackward0 node
    if mat1._data.ndim != 2:
        raise RuntimeError("mat1 must be a matrix, got " f"{mat1._data.ndim}-D tensor")
    if mat2._data.ndim != 2:
        raise RuntimeError("mat2 must be a matrix, got " f"{mat2._data.ndim}-D tensor")
    _check_matmul_dtypes(mat1, mat2, "addmm")
    if self._data.dtype != mat1._data.dtype:
        raise RuntimeError(f"self and mat2 must have the same dtype, but got "
                           f"{from_numpy_dtype(self._data.dtype)._scalar_name} and "
                           f"{from_numpy_dtype(mat2._data.dtype)._scalar_name}")
    try:
        product = np.matmul(mat1._data, mat2._data)
    except ValueError:
        raise RuntimeError(_matmul_shape_error(mat1, mat2)) from None
    a, b = alpha, beta
    if product.dtype.kind in "biu":     # integer products scale by integers, as PyTorch
        a, b = int(alpha), int(beta)
    if a != 1:
        np.multiply(product, a, out=product)
    try:
        if b != 0:          # in place: the product is a fresh array of the result's shape
            np.add(product, self._data if b == 1 else self._data * b, out=product)
        elif np.broadcast_shapes(self._data.shape, product.shape) != product.shape:
            raise ValueError
        array = product
    except ValueError:
        array = None
    if array is None:
        raise RuntimeError(f"The expanded size of the tensor ({product.shape[-1]}) must match "
                           f"the existing size ({self._data.shape[-1]}) at non-singleton "
                           f"dimension {self._data.ndim - 1}.  Target sizes: "
                           f"{list(product.shape)}.  Tensor sizes: {list(self._data.shape)}")
    cdef Tensor out = wrap(array)
    cdef bint mat1_grad = requires_grad(mat1), mat2_grad = requires_grad(mat2)
    if is_grad_enabled() and (requires_grad(self) or mat1_grad or mat2_grad):
        node = AddmmBackward0()
        node.saved_alpha, node.saved_beta = alpha, beta
        record(node, (self, mat1, mat2), (out,),
               (mat1 if mat2_grad else None, mat2 if mat1_grad else None))
    return out


cdef object matmul_op(object self, object other):
    return matmul(self, other)


cdef object rmatmul_op(object self, object other):
    """``other @ self`` for a non-Tensor ``other`` (an array or nested lists)."""
    return matmul(make_tensor(np.asarray(other)), self)


cdef TensorOperators* operators = tensor_operators()
operators.matmul = matmul_op
operators.rmatmul = rmatmul_op
register_methods({name: globals()[name] for name in __tensor_methods__})
