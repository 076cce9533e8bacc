# cython: allow_none_for_extension_args=False
"""The in-place forms of arithmetic.pyx's ops: add_, sub_, mul_, div_, floor_divide_, neg_
and the operators ``+=``, ``-=``, ``*=``, ``/=``, ``//=``.

Each runs its out-of-place op through the in-place machinery of views.pyx
(``apply_inplace``), which also updates the tangent in place under forward AD.
"""
import numpy as np
cimport numpy as cnp

from autograd_cy._C.grad_mode cimport needs_tensor_ops
from autograd_cy._C.tensor cimport (
    Tensor, tensor_operators, TensorOperators,
)
from autograd_cy._C.promotion cimport raise_broadcast_error, is_complex_array
from autograd_cy._C.views cimport apply_inplace
from autograd_cy._C.ops.arithmetic import add, sub, mul, div, floor_divide, neg
from autograd_cy._C.ops.arithmetic cimport is_tensor_requiring_grad

cnp.import_array()

__all__ = ["add_", "sub_", "mul_", "div_", "floor_divide_", "neg_"]
__tensor_methods__ = tuple(__all__)


cdef object scaled(object other, object alpha):
    """``alpha * other`` for the ``alpha=`` of add_/sub_ (only when nothing is recorded)."""
    if alpha == 1:
        return other
    return mul(other, alpha) if isinstance(other, Tensor) else other * alpha


cdef inline object scaled_ufunc(Tensor self, object other, object alpha, object ufunc):
    """``ufunc_for``, or None (the out-of-place op) when ``other`` is a Tensor of another
    dtype scaled by ``alpha``: torch scales it in the result's dtype, not in its own (a
    float64 ``add_`` of a bfloat16 tensor times 1e-3 keeps the product's float64 digits)."""
    if alpha != 1 and isinstance(other, Tensor) and (<Tensor>other)._data.dtype != \
            self._data.dtype:
        return None
    return ufunc_for(self, ufunc)


cdef inline object ufunc_for(Tensor self, object ufunc):
    """``ufunc`` for apply_inplace's direct path, or None for a complex ``self``: its
    out-of-place op computes as PyTorch's kernels do where NumPy's ufunc does not (complex
    add and sub multiply by alpha, complex division by zero divides each part)."""
    return None if is_complex_array(self._data) else ufunc


def add_(Tensor self, other, *, alpha=1):
    try:
        return apply_inplace(self, lambda x: add(x, other, alpha=alpha), (other,), False,
                             scaled_ufunc(self, other, alpha, np.add), scaled(other, alpha))
    except ValueError:
        raise_broadcast_error(self, other)


def sub_(Tensor self, other, *, alpha=1):
    try:
        return apply_inplace(self, lambda x: sub(x, other, alpha=alpha), (other,), False,
                             scaled_ufunc(self, other, alpha, np.subtract),
                             scaled(other, alpha))
    except ValueError:
        raise_broadcast_error(self, other)


def mul_(Tensor self, other):
    try:
        return apply_inplace(self, lambda x: mul(x, other), (other,),
                             is_tensor_requiring_grad(other), np.multiply, other)
    except ValueError:
        raise_broadcast_error(self, other)


def div_(Tensor self, other, *, rounding_mode=None):
    try:
        if rounding_mode is not None:
            return apply_inplace(self, lambda x: div(x, other, rounding_mode=rounding_mode),
                                 (other,), is_tensor_requiring_grad(other))
        return apply_inplace(self, lambda x: div(x, other), (other,),
                             is_tensor_requiring_grad(other), ufunc_for(self, np.true_divide),
                             other)
    except ValueError:
        raise_broadcast_error(self, other)


def floor_divide_(Tensor self, other):
    try:
        return apply_inplace(self, lambda x: floor_divide(x, other), (other,), False)
    except ValueError:
        raise_broadcast_error(self, other)


def neg_(Tensor self):
    return apply_inplace(self, neg, (), False)


cdef object iadd(object self, object other):
    """``self += other``: ``add_`` without its keyword arguments, and with grad mode off (an
    optimizer step) without the closure, which only a recorded op runs."""
    if not needs_tensor_ops() and not is_complex_array((<Tensor>self)._data):
        try:
            return apply_inplace(<Tensor>self, None, (other,), False, np.add, other)
        except ValueError:
            raise_broadcast_error(self, other)
    return add_(self, other)


cdef object isub(object self, object other):
    """``self -= other``, as ``iadd``."""
    if not needs_tensor_ops() and not is_complex_array((<Tensor>self)._data):
        try:
            return apply_inplace(<Tensor>self, None, (other,), False, np.subtract, other)
        except ValueError:
            raise_broadcast_error(self, other)
    return sub_(self, other)


cdef object ifloordiv(object self, object other):
    return floor_divide_(self, other)


cdef object imul(object self, object other):
    return mul_(self, other)


cdef object idiv(object self, object other):
    return div_(self, other)


cdef TensorOperators* operators = tensor_operators()
operators.ifloordiv = ifloordiv
operators.iadd = iadd
operators.isub = isub
operators.imul = imul
operators.idiv = idiv
