"""Arithmetic: add, sub, mul, div, neg, pow, matmul and friends, with their backward.

Each op computes its result with the array module, then, if grad mode is on
and an operand requires grad, records its backward Node, which sits right
below it. Backward formulas are written with these same ops, so under
``create_graph=True`` they record a graph of their own (double backward).
Broadcasting needs no code in the formulas: the engine sums each gradient back
to its input's shape (``sum_to``, engine_semantics 3.8).
"""
import numpy as np

from autograd_cy._C.grad_mode cimport is_grad_enabled
from autograd_cy._C.tensor cimport Tensor, make_tensor, requires_grad
from autograd_cy._C.node cimport (
    Node, SavedTensor, save, set_history1, set_history2, set_history, any_requires_grad2,
)
from autograd_cy._C.ops.dispatch cimport (
    result_type, floating_result_type, operand_array, wrap, quietly2, binary_kernel,
    scalar_kernel, ignoring_fp_errors, KERNEL_ADD, KERNEL_SUB, KERNEL_MUL,
)
from autograd_cy._C.tensor cimport fast_ops
from autograd_cy._C.ops.inplace cimport apply_inplace

__all__ = ["add", "sub", "rsub", "mul", "div", "true_divide", "rdiv", "neg", "negative",
           "pow", "rpow", "matmul", "mm", "bmm", "addmm", "dot", "mv",
           "add_", "sub_", "mul_", "div_", "pow_", "neg_"]
__tensor_methods__ = ("add", "sub", "mul", "div", "true_divide", "neg", "negative", "pow",
                      "matmul", "mm", "bmm", "addmm", "dot", "mv",
                      "add_", "sub_", "mul_", "div_", "pow_", "neg_")


cdef inline object unpack(object value, Node owner):
    """A saved operand: SavedTensor -> Tensor, a Python number as it is."""
    if isinstance(value, SavedTensor):
        return (<SavedTensor>value).unpack(owner)
    return value


cdef inline object save_operand(object value, bint needed):
    """Save an operand the backward needs. A Python number is saved as PyTorch saves it, as a
    0-dim "wrapped number" tensor: it reads back as a tensor and, like any saved tensor, is
    freed after backward, so ``(x * 2).sum()`` cannot be backpropagated twice (rule 3.13)."""
    if not needed:
        return None
    if isinstance(value, Tensor):
        return save(<Tensor>value, False)
    return save(make_tensor(np.asarray(value)), False)


cdef inline bint is_tensor_requiring_grad(object value):
    return isinstance(value, Tensor) and requires_grad(<Tensor>value)


# ------------------------------------------------------------------ add / sub

cdef class AddBackward0(Node):
    cdef readonly object saved_alpha

    cpdef tuple apply(self, tuple grads):
        grad = grads[0]
        other_grad = None
        if self.should_compute_output(1):
            other_grad = grad if self.saved_alpha == 1 else mul_impl(grad, self.saved_alpha)
        return (grad if self.should_compute_output(0) else None, other_grad)


def add(self, other, *, alpha=1):
    """``self + alpha * other``, broadcasting, with PyTorch's type promotion."""
    return add_impl(self, other, alpha)


cdef object add_impl(object self, object other, object alpha):
    cdef object array = None
    cdef bint unit = alpha == 1
    if unit and isinstance(self, Tensor):
        array = fused(KERNEL_ADD, <Tensor>self, other)
    if array is None:
        dtype = result_type(self, other)
        a = operand_array(self, dtype)
        b = operand_array(other, dtype)
        with ignoring_fp_errors():      # float32 overflow is inf, without a warning
            array = a + b if unit else a + alpha * b
    cdef Tensor out = wrap(array)
    cdef AddBackward0 node
    if any_requires_grad2(self, other):
        node = AddBackward0.__new__(AddBackward0)
        node.saved_alpha = alpha
        set_history2(node, self, other, out)
    return out


cdef object add_op(object self, object other):
    """``self + other`` for Tensor.__add__ (installed in tensor.pyx's fast table)."""
    return add_impl(self, other, ONE)


cdef object ONE = 1


cdef inline object fused(int op, Tensor self, object other):
    """The result array from a fused loop (NOTE [Fused kernels] in dispatch.pyx) when
    ``other`` is a same-shape Tensor or a Python float and the arrays are small float32 or
    float64; else None, and the caller runs NumPy."""
    if isinstance(other, Tensor):
        return binary_kernel(op, self._data, (<Tensor>other)._data)
    if type(other) is float:
        return scalar_kernel(op, self._data, <double>other)
    return None


cdef class SubBackward0(Node):
    cdef readonly object saved_alpha

    cpdef tuple apply(self, tuple grads):
        grad = grads[0]
        other_grad = None
        if self.should_compute_output(1):
            other_grad = neg(grad) if self.saved_alpha == 1 else mul(grad, -self.saved_alpha)
        return (grad if self.should_compute_output(0) else None, other_grad)


def sub(self, other, *, alpha=1):
    """``self - alpha * other``."""
    return sub_impl(self, other, alpha)


cdef object sub_impl(object self, object other, object alpha):
    cdef object array = None
    cdef bint unit = alpha == 1
    if unit and isinstance(self, Tensor):
        # Float operands only, so never the bool case refused below.
        array = fused(KERNEL_SUB, <Tensor>self, other)
    if array is None:
        dtype = result_type(self, other)
        if dtype.kind == "b":
            raise RuntimeError("Subtraction, the `-` operator, with two bool tensors is not "
                               "supported. Use the `^` or `logical_xor()` operator instead.")
        a = operand_array(self, dtype)
        b = operand_array(other, dtype)
        with ignoring_fp_errors():
            array = a - b if unit else a - alpha * b
    cdef Tensor out = wrap(array)
    cdef SubBackward0 node
    if any_requires_grad2(self, other):
        node = SubBackward0.__new__(SubBackward0)
        node.saved_alpha = alpha
        set_history2(node, self, other, out)
    return out


cdef object sub_op(object self, object other):
    return sub_impl(self, other, ONE)


cdef class RsubBackward0(Node):
    cpdef tuple apply(self, tuple grads):
        return (neg(grads[0]) if self.should_compute_output(0) else None,
                grads[0] if self.should_compute_output(1) else None)


def rsub(self, other):
    """``other - self`` (``2 - x``); its node is RsubBackward0, as in PyTorch."""
    dtype = result_type(self, other)
    cdef Tensor out = wrap(operand_array(other, dtype) - operand_array(self, dtype))
    if any_requires_grad2(self, other):
        set_history2(RsubBackward0(), self, other, out)
    return out


# ------------------------------------------------------------------ mul / div

cdef class MulBackward0(Node):
    cdef readonly object saved_self
    cdef readonly object saved_other

    cpdef tuple apply(self, tuple grads):
        grad = grads[0]
        self_grad = other_grad = None
        if self.should_compute_output(0):
            self_grad = mul_impl(grad, unpack(self.saved_other, self))
        if self.should_compute_output(1):
            other_grad = mul_impl(grad, unpack(self.saved_self, self))
        return (self_grad, other_grad)

    cdef void release_variables(self):
        if isinstance(self.saved_self, SavedTensor):
            (<SavedTensor>self.saved_self).release()
        if isinstance(self.saved_other, SavedTensor):
            (<SavedTensor>self.saved_other).release()


def mul(self, other):
    """Elementwise product."""
    return mul_impl(self, other)


cdef object mul_impl(object self, object other):
    cdef object array = None
    if isinstance(self, Tensor):
        array = fused(KERNEL_MUL, <Tensor>self, other)
    if array is None:
        dtype = result_type(self, other)
        with ignoring_fp_errors():
            array = operand_array(self, dtype) * operand_array(other, dtype)
    cdef Tensor out = wrap(array)
    cdef MulBackward0 node
    if any_requires_grad2(self, other):
        node = MulBackward0.__new__(MulBackward0)
        # Each side saves the operand its own gradient needs, and only if needed.
        node.saved_other = save_operand(other, is_tensor_requiring_grad(self))
        node.saved_self = save_operand(self, is_tensor_requiring_grad(other))
        set_history2(node, self, other, out)
    return out


cdef class DivBackward0(Node):
    cdef readonly object saved_self
    cdef readonly object saved_other

    cpdef tuple apply(self, tuple grads):
        grad = grads[0]
        other = unpack(self.saved_other, self)
        self_grad = other_grad = None
        if self.should_compute_output(0):
            self_grad = div(grad, other)
        if self.should_compute_output(1):
            # d(a/b)/db = -a / b^2
            other_grad = neg(div(mul(grad, unpack(self.saved_self, self)), mul(other, other)))
        return (self_grad, other_grad)

    cdef void release_variables(self):
        if isinstance(self.saved_self, SavedTensor):
            (<SavedTensor>self.saved_self).release()
        if isinstance(self.saved_other, SavedTensor):
            (<SavedTensor>self.saved_other).release()


def div(self, other, *, rounding_mode=None):
    """True division (integers give float32); ``rounding_mode`` 'trunc' or 'floor'."""
    cdef DivBackward0 node
    if rounding_mode is not None:
        return _rounded_div(self, other, rounding_mode)
    dtype = floating_result_type(self, other)
    cdef Tensor out = wrap(quietly2(np.true_divide, operand_array(self, dtype),
                                     operand_array(other, dtype)))
    if any_requires_grad2(self, other):
        node = DivBackward0()
        node.saved_other = save_operand(other, True)
        node.saved_self = save_operand(self, is_tensor_requiring_grad(other))
        set_history2(node, self, other, out)
    return out


true_divide = div


cdef class DivBackward1(Node):
    """Rounded division: the gradient is zero almost everywhere."""

    cpdef tuple apply(self, tuple grads):
        from autograd_cy._C.ops.pointwise import zeros_like_grad
        cdef list result = []
        for i in range(len(self.next_nodes)):
            result.append(zeros_like_grad(grads[0]) if self.should_compute_output(i) else None)
        return tuple(result)


def _rounded_div(self, other, rounding_mode):
    if rounding_mode not in ("trunc", "floor"):
        raise RuntimeError("div expected rounding_mode to be one of None, 'trunc', or 'floor' "
                           f"but found '{rounding_mode}'")
    dtype = result_type(self, other)
    a, b = operand_array(self, dtype), operand_array(other, dtype)
    if dtype.kind == "f":
        quotient = quietly2(np.true_divide, a, b)
        array = np.trunc(quotient) if rounding_mode == "trunc" else np.floor(quotient)
    elif rounding_mode == "floor":
        array = np.floor_divide(a, b)
    else:
        array = np.trunc(np.true_divide(a, b)).astype(dtype)
    cdef Tensor out = wrap(np.asarray(array, dtype=dtype))
    if dtype.kind == "f" and any_requires_grad2(self, other):
        set_history2(DivBackward1(), self, other, out)
    return out


def rdiv(self, other):
    """``other / self`` for a Python number ``other``."""
    return div(_as_scalar_tensor(other, self), self)


cdef Tensor _as_scalar_tensor(object value, Tensor like):
    """A Python number as a 0-dim tensor that promotes like the number would."""
    dtype = result_type(like, value)
    return make_tensor(np.asarray(value, dtype=dtype))


cdef class NegBackward0(Node):
    cpdef tuple apply(self, tuple grads):
        return (neg(grads[0]),)


def neg(Tensor self):
    """``-self``."""
    if self._data.dtype.kind == "b":
        raise RuntimeError("Negation, the `-` operator, on a bool tensor is not supported. If "
                           "you are trying to invert a mask, use the `~` or `logical_not()` "
                           "operator instead.")
    cdef Tensor out = wrap(-self._data)
    if is_grad_enabled() and requires_grad(self):
        set_history1(NegBackward0(), self, out)
    return out


negative = neg


# ------------------------------------------------------------------ pow

cdef class PowBackward0(Node):
    """``self ** exponent`` with a number exponent."""
    cdef readonly SavedTensor saved_self
    cdef readonly object saved_exponent

    cpdef tuple apply(self, tuple grads):
        exponent = self.saved_exponent
        base = self.saved_self.unpack(self)
        if exponent == 0:
            return (mul(grads[0], 0),)
        return (mul(grads[0], mul(pow(base, exponent - 1), exponent)),)

    cdef void release_variables(self):
        self.saved_self.release()


cdef class PowBackward1(Node):
    """``self ** exponent`` with a tensor exponent."""
    cdef readonly SavedTensor saved_self
    cdef readonly SavedTensor saved_exponent
    cdef readonly SavedTensor saved_result

    cpdef tuple apply(self, tuple grads):
        from autograd_cy._C.ops.pointwise import log, where
        cdef Tensor base = self.saved_self.unpack(self)
        cdef Tensor exponent = self.saved_exponent.unpack(self)
        grad = grads[0]
        self_grad = exponent_grad = None
        if self.should_compute_output(0):
            self_grad = mul(grad, mul(exponent, pow(base, sub(exponent, 1))))
        if self.should_compute_output(1):
            result = self.saved_result.unpack(self)
            # 0 ** e has no log; PyTorch defines that gradient as 0 where e >= 0.
            safe = (base._data != 0) | (exponent._data < 0)
            exponent_grad = where(make_tensor(safe), mul(grad, mul(result, log(base))), 0.0)
        return (self_grad, exponent_grad)

    cdef void release_variables(self):
        self.saved_self.release()
        self.saved_exponent.release()
        self.saved_result.release()


cdef class PowBackward2(Node):
    """``number ** exponent`` (``2 ** x``)."""
    cdef readonly object saved_self
    cdef readonly SavedTensor saved_result

    cpdef tuple apply(self, tuple grads):
        result = self.saved_result.unpack(self)
        return (mul(grads[0], mul(result, float(np.log(self.saved_self)))),)

    cdef void release_variables(self):
        self.saved_result.release()


def pow(self, exponent):
    """``self ** exponent`` (tensor or number either side)."""
    cdef Tensor out
    cdef PowBackward0 node0
    cdef PowBackward1 node1
    if not isinstance(self, Tensor):
        return rpow(exponent, self)
    dtype = result_type(self, exponent)
    base_array = operand_array(self, dtype)
    exponent_array = operand_array(exponent, dtype)
    if dtype.kind in "iu" and isinstance(exponent, int) and exponent < 0:
        raise RuntimeError("Integers to negative integer powers are not allowed.")
    out = wrap(quietly2(np.power, base_array, exponent_array))
    if not any_requires_grad2(self, exponent):
        return out
    if isinstance(exponent, Tensor):
        node1 = PowBackward1()
        node1.saved_self = save(<Tensor>self, False)
        node1.saved_exponent = save(<Tensor>exponent, False)
        set_history2(node1, self, exponent, out)
        node1.saved_result = save(out, True)
    else:
        node0 = PowBackward0()
        node0.saved_self = save(<Tensor>self, False)
        node0.saved_exponent = exponent
        set_history1(node0, self, out)
    return out


def rpow(Tensor self, other):
    """``other ** self`` for a Python number ``other``."""
    cdef PowBackward2 node
    dtype = result_type(self, other)
    cdef Tensor out = wrap(np.power(operand_array(other, dtype), operand_array(self, dtype)))
    if is_grad_enabled() and requires_grad(self):
        node = PowBackward2()
        node.saved_self = other
        set_history1(node, self, out)
        node.saved_result = save(out, True)
    return out


# ------------------------------------------------------------------ matmul family

cdef class MatmulBackward0(Node):
    """Backward of ``a @ b`` for every rank combination (1-D, 2-D, batched)."""
    cdef readonly SavedTensor saved_self
    cdef readonly SavedTensor saved_other

    cpdef tuple apply(self, tuple grads):
        grad = grads[0]
        if not is_grad_enabled() and isinstance(grad, Tensor):
            # Nothing to record (no create_graph): two matrices multiply straight as arrays.
            a_array = self.saved_self.unpack_array(self)
            b_array = self.saved_other.unpack_array(self)
            if (a_array is not None and b_array is not None
                    and a_array.ndim == 2 and b_array.ndim == 2):
                g = (<Tensor>grad)._data
                return (make_tensor(np.matmul(g, b_array.T))
                        if self.should_compute_output(0) else None,
                        make_tensor(np.matmul(a_array.T, g))
                        if self.should_compute_output(1) else None)
        from autograd_cy._C.ops.shape import unsqueeze, squeeze, transpose
        a = self.saved_self.unpack(self)
        b = self.saved_other.unpack(self)
        a_grad = b_grad = None
        a_dim, b_dim = (<Tensor>a)._data.ndim, (<Tensor>b)._data.ndim
        if a_dim == 1 and b_dim == 1:
            if self.should_compute_output(0):
                a_grad = mul(grad, b)
            if self.should_compute_output(1):
                b_grad = mul(grad, a)
            return (a_grad, b_grad)
        # Lift 1-D operands to matrices, use the matrix formulas, drop the extra dim.
        grad_m = unsqueeze(grad, -2) if a_dim == 1 else grad
        grad_m = unsqueeze(grad_m, -1) if b_dim == 1 else grad_m
        a_m = unsqueeze(a, 0) if a_dim == 1 else a
        b_m = unsqueeze(b, -1) if b_dim == 1 else b
        if self.should_compute_output(0):
            a_grad = matmul(grad_m, transpose(b_m, -1, -2))
            if a_dim == 1:
                a_grad = squeeze(a_grad, -2)
        if self.should_compute_output(1):
            b_grad = matmul(transpose(a_m, -1, -2), grad_m)
            if b_dim == 1:
                b_grad = squeeze(b_grad, -1)
        return (a_grad, b_grad)

    cdef void release_variables(self):
        self.saved_self.release()
        self.saved_other.release()


cdef class MmBackward0(MatmulBackward0):
    pass


cdef class BmmBackward0(MatmulBackward0):
    pass


cdef class DotBackward0(MatmulBackward0):
    pass


cdef class MvBackward0(MatmulBackward0):
    pass


cdef Tensor _record_matmul(MatmulBackward0 node, Tensor a, Tensor b, Tensor out):
    if is_grad_enabled() and (requires_grad(a) or requires_grad(b)):
        node.saved_self = save(a, False)
        node.saved_other = save(b, False)
        set_history2(node, a, b, out)
    return out


cdef void _check_matmul_dtypes(Tensor a, Tensor b, str name) except *:
    if a._data.dtype != b._data.dtype:
        from autograd_cy.dtypes import from_numpy_dtype
        raise RuntimeError(
            f"expected m1 and m2 to have the same dtype, but got: "
            f"{from_numpy_dtype(a._data.dtype).name} != {from_numpy_dtype(b._data.dtype).name}")


def matmul(Tensor self, Tensor other):
    """Matrix product with NumPy/PyTorch semantics for 1-D, 2-D and batched operands."""
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


def mm(Tensor self, Tensor mat2):
    """Product of two matrices (2-D only)."""
    if self._data.ndim != 2:
        raise RuntimeError("self must be a matrix")
    if mat2._data.ndim != 2:
        raise RuntimeError("mat2 must be a matrix")
    return matmul(self, mat2)


def bmm(Tensor self, Tensor mat2):
    """Batched product of two 3-D tensors with the same batch size."""
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
    return matmul(self, vec)


def addmm(Tensor self, Tensor mat1, Tensor mat2, *, beta=1, alpha=1):
    """``beta * self + alpha * (mat1 @ mat2)``, composed from recorded ops."""
    product = mm(mat1, mat2)
    if alpha != 1:
        product = mul(product, alpha)
    return add(mul(self, beta) if beta != 1 else self, product)


# ------------------------------------------------------------------ in-place

cdef object scaled(object other, object alpha):
    """``alpha * other`` for the ``alpha=`` of add_/sub_ (only when nothing is recorded)."""
    if alpha == 1:
        return other
    return mul(other, alpha) if isinstance(other, Tensor) else other * alpha


def add_(Tensor self, other, *, alpha=1):
    return apply_inplace(self, lambda x: add(x, other, alpha=alpha), (other,), False,
                         np.add, scaled(other, alpha))


def sub_(Tensor self, other, *, alpha=1):
    return apply_inplace(self, lambda x: sub(x, other, alpha=alpha), (other,), False,
                         np.subtract, scaled(other, alpha))


def mul_(Tensor self, other):
    return apply_inplace(self, lambda x: mul(x, other), (other,),
                         is_tensor_requiring_grad(other), np.multiply, other)


def div_(Tensor self, other, *, rounding_mode=None):
    if rounding_mode is not None:
        return apply_inplace(self, lambda x: div(x, other, rounding_mode=rounding_mode),
                             (other,), is_tensor_requiring_grad(other))
    return apply_inplace(self, lambda x: div(x, other), (other,),
                         is_tensor_requiring_grad(other), np.true_divide, other)


def pow_(Tensor self, exponent):
    return apply_inplace(self, lambda x: pow(x, exponent), (exponent,), True)


def neg_(Tensor self):
    return apply_inplace(self, neg, (), False)


cdef object iadd(object self, object other):
    """``self += other``: ``add_`` without its keyword arguments, and with grad mode off (an
    optimizer step) without the closure, which only a recorded op runs."""
    if not is_grad_enabled():
        return apply_inplace(<Tensor>self, None, (other,), False, np.add, other)
    return add_(self, other)


cdef object isub(object self, object other):
    """``self -= other``, as ``iadd``."""
    if not is_grad_enabled():
        return apply_inplace(<Tensor>self, None, (other,), False, np.subtract, other)
    return sub_(self, other)


# The Tensor operators call these C functions directly (tensor.pyx, NOTE [Operator table]).
fast_ops().add = add_op
fast_ops().sub = sub_op
fast_ops().mul = mul_impl
fast_ops().iadd = iadd
fast_ops().isub = isub
