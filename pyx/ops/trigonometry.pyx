"""The trigonometric and hyperbolic functions beyond sin, cos and tanh (pointwise.pyx): tan,
asin, acos, atan, sinh, cosh, asinh, acosh, atanh, with torch's aliases (arcsin ...) and
in-place forms.

Each op is an entry of the op table (NOTE [The op table] in op_table.pyx): its backward Node
beside its tangent formula and one ``unary_op(...)``. The formulas are PyTorch's: every
function here is holomorphic, so the complex backward is the real formula with the factor
conjugated (NOTE [Complex gradients] in conjugate.pyx) and the tangent is the real formula as
written. tan saves its result (its derivative is ``1 + tan^2``); the others save ``self``.
The inverse functions' derivatives are written with ``rsqrt`` of ``1 - x^2`` or ``x^2 +- 1``
as PyTorch writes them, so that they agree with torch where the derivative is infinite (at
+-1) or NaN (outside the domain of a real input).
"""
import numpy as np

from autograd_cy._C.tensor cimport Tensor
from autograd_cy._C.node cimport unpack_saved
from autograd_cy._C.ops.op_table cimport (
    SavesSelf, SavesResult, InplaceWithoutDerivative, unary_op, set_inplace_node)
from autograd_cy._C.ops.op_table import export_unary_ops
from autograd_cy._C.ops.conjugate cimport conj_of
from autograd_cy._C.promotion cimport is_complex_array
from autograd_cy._C.ops.arithmetic import mul, div, add, sub, neg
from autograd_cy._C.ops.power import rsqrt

__all__ = []


cdef object one_plus_square(object x):
    return add(mul(x, x), 1)


cdef object one_minus_square(object x):
    return sub(1, mul(x, x))


# ------------------------------------------------------------------ tan

cdef class TanBackward0(SavesResult):
    complex_formulas = True

    cpdef tuple apply(self, tuple grads):
        return (mul(grads[0], conj_of(one_plus_square(unpack_saved(self, 0)))),)


cdef object tan_tangent(Tensor self_t, Tensor self, Tensor result, tuple extra):
    return mul(self_t, one_plus_square(result))


tan = unary_op(
    "tan", np.tan, TanBackward0, tan_tangent, cuda_functor="Tan",
    gradient="result: g * conj(1 + r ** 2)", tangent_formula="self_t * (1 + r ** 2)",
    doc="Tangent; backward ``grad * (1 + result ** 2)``.")


# ------------------------------------------------------------------ sinh, cosh

cdef class SinhBackward0(SavesSelf):
    complex_formulas = True

    cpdef tuple apply(self, tuple grads):
        return (mul(grads[0], cosh(conj_of(unpack_saved(self, 0)))),)


cdef object sinh_tangent(Tensor self_t, Tensor self, Tensor result, tuple extra):
    return mul(self_t, cosh(self))


sinh = unary_op(
    "sinh", np.sinh, SinhBackward0, sinh_tangent, cuda_functor="Sinh",
    gradient="self: g * cosh(conj(self))", tangent_formula="self_t * cosh(self)",
    doc="Hyperbolic sine; backward ``grad * cosh(self)``.")


cdef class CoshBackward0(SavesSelf):
    complex_formulas = True

    cpdef tuple apply(self, tuple grads):
        return (mul(grads[0], sinh(conj_of(unpack_saved(self, 0)))),)


cdef object cosh_tangent(Tensor self_t, Tensor self, Tensor result, tuple extra):
    return mul(self_t, sinh(self))


cosh = unary_op(
    "cosh", np.cosh, CoshBackward0, cosh_tangent, cuda_functor="Cosh",
    gradient="self: g * sinh(conj(self))", tangent_formula="self_t * sinh(self)",
    doc="Hyperbolic cosine; backward ``grad * sinh(self)``.")


# ------------------------------------------------------------------ asin, acos, atan

cdef class AsinBackward0(SavesSelf):
    complex_formulas = True

    cpdef tuple apply(self, tuple grads):
        return (mul(grads[0], conj_of(rsqrt(one_minus_square(unpack_saved(self, 0))))),)


cdef object asin_tangent(Tensor self_t, Tensor self, Tensor result, tuple extra):
    return mul(self_t, rsqrt(one_minus_square(self)))


asin = unary_op(
    "asin", np.arcsin, AsinBackward0, asin_tangent, cuda_functor="Asin",
    gradient="self: g * conj(rsqrt(1 - self ** 2))",
    tangent_formula="self_t * rsqrt(1 - self ** 2)",
    doc="Inverse sine; backward ``grad / sqrt(1 - self ** 2)``.")


cdef class AcosBackward0(SavesSelf):
    complex_formulas = True

    cpdef tuple apply(self, tuple grads):
        return (mul(grads[0], neg(conj_of(rsqrt(one_minus_square(unpack_saved(self, 0)))))),)


cdef object acos_tangent(Tensor self_t, Tensor self, Tensor result, tuple extra):
    return mul(self_t, neg(rsqrt(one_minus_square(self))))


acos = unary_op(
    "acos", np.arccos, AcosBackward0, acos_tangent, cuda_functor="Acos",
    gradient="self: g * -conj(rsqrt(1 - self ** 2))",
    tangent_formula="self_t * -rsqrt(1 - self ** 2)",
    doc="Inverse cosine; backward ``-grad / sqrt(1 - self ** 2)``.")


cdef class AtanBackward0(SavesSelf):
    complex_formulas = True

    cpdef tuple apply(self, tuple grads):
        return (div(grads[0], conj_of(one_plus_square(unpack_saved(self, 0)))),)


cdef object atan_tangent(Tensor self_t, Tensor self, Tensor result, tuple extra):
    return div(self_t, one_plus_square(self))


atan = unary_op(
    "atan", np.arctan, AtanBackward0, atan_tangent, cuda_functor="Atan",
    gradient="self: g / conj(1 + self ** 2)", tangent_formula="self_t / (1 + self ** 2)",
    doc="Inverse tangent; backward ``grad / (1 + self ** 2)``.")


# ------------------------------------------------------------------ asinh, acosh, atanh

cdef class AsinhBackward0(SavesSelf):
    complex_formulas = True

    cpdef tuple apply(self, tuple grads):
        return (mul(grads[0], conj_of(rsqrt(one_plus_square(unpack_saved(self, 0))))),)


cdef object asinh_tangent(Tensor self_t, Tensor self, Tensor result, tuple extra):
    return mul(self_t, rsqrt(one_plus_square(self)))


cdef class AsinhBackward1(InplaceWithoutDerivative):
    """asinh_'s Node: torch has no formula for the in-place form."""
    op_name = "asinh"


asinh = unary_op(
    "asinh", np.arcsinh, AsinhBackward0, asinh_tangent, cuda_functor="Asinh",
    gradient="self: g * conj(rsqrt(self ** 2 + 1))",
    tangent_formula="self_t * rsqrt(self ** 2 + 1)",
    doc="Inverse hyperbolic sine; backward ``grad / sqrt(self ** 2 + 1)``.")
set_inplace_node(asinh, AsinhBackward1)


cdef object acosh_derivative(Tensor x):
    """``rsqrt(x ** 2 - 1)``; for a complex ``x`` ``rsqrt(x + 1) * rsqrt(x - 1)``, as torch
    writes it: the two differ in sign across acosh's branch cut (re < 1 on the real axis's
    left), and only the product follows the principal branch."""
    if is_complex_array(x._data):
        return mul(rsqrt(add(x, 1)), rsqrt(sub(x, 1)))
    return rsqrt(sub(mul(x, x), 1))


cdef class AcoshBackward0(SavesSelf):
    complex_formulas = True

    cpdef tuple apply(self, tuple grads):
        return (mul(grads[0], conj_of(acosh_derivative(unpack_saved(self, 0)))),)


cdef object acosh_tangent(Tensor self_t, Tensor self, Tensor result, tuple extra):
    return mul(self_t, acosh_derivative(self))


cdef class AcoshBackward1(InplaceWithoutDerivative):
    """acosh_'s Node: torch has no formula for the in-place form."""
    op_name = "acosh"


acosh = unary_op(
    "acosh", np.arccosh, AcoshBackward0, acosh_tangent, cuda_functor="Acosh",
    gradient="self: g * conj(rsqrt(self ** 2 - 1)) (complex: rsqrt(self + 1) rsqrt(self - 1))",
    tangent_formula="self_t * rsqrt(self ** 2 - 1) (complex: as backward's)",
    doc="Inverse hyperbolic cosine; backward ``grad / sqrt(self ** 2 - 1)``.")
set_inplace_node(acosh, AcoshBackward1)


cdef class AtanhBackward0(SavesSelf):
    complex_formulas = True

    cpdef tuple apply(self, tuple grads):
        return (div(grads[0], conj_of(one_minus_square(unpack_saved(self, 0)))),)


cdef object atanh_tangent(Tensor self_t, Tensor self, Tensor result, tuple extra):
    return div(self_t, one_minus_square(self))


cdef class AtanhBackward1(InplaceWithoutDerivative):
    """atanh_'s Node: torch has no formula for the in-place form."""
    op_name = "atanh"


atanh = unary_op(
    "atanh", np.arctanh, AtanhBackward0, atanh_tangent, cuda_functor="Atanh",
    gradient="self: g / conj(1 - self ** 2)", tangent_formula="self_t / (1 - self ** 2)",
    doc="Inverse hyperbolic tangent; backward ``grad / (1 - self ** 2)``.")
set_inplace_node(atanh, AtanhBackward1)


export_unary_ops(globals())

# torch's other spellings, NumPy's: the same ops (AsinBackward0 ...), in place too
for _name in ("asin", "acos", "atan", "asinh", "acosh", "atanh"):
    _alias = "arc" + _name[1:]
    globals()[_alias] = globals()[_name]
    globals()[_alias + "_"] = globals()[_name + "_"]
    __all__ += [_alias, _alias + "_"]
    __tensor_methods__ += (_alias, _alias + "_")


# NOTE [Complex tangents] in forward.pyx: these formulas are checked for complex tensors.
from autograd_cy._C.forward cimport complex_unary
complex_unary(tan_tangent)
complex_unary(sinh_tangent)
complex_unary(cosh_tangent)
complex_unary(asin_tangent)
complex_unary(acos_tangent)
complex_unary(atan_tangent)
complex_unary(asinh_tangent)
complex_unary(acosh_tangent)
complex_unary(atanh_tangent)
