"""The error function and its relatives: erf, erfc, erfinv, with their in-place forms.

Each op is an entry of the op table (NOTE [The op table] in op_table.pyx): its backward Node
beside its tangent formula and one ``unary_op(...)``. NumPy has no erf, so the forwards are
typed loops over the C library's ``erf`` and ``erfc`` on the CPU and the ``Erf``, ``Erfc``
functors on a CUDA device; erfinv is computed from erf (NOTE [erfinv by Newton's method]).
torch defines none of them on complex numbers. The formulas are PyTorch's:

- ``erf'(x) = 2 / sqrt(pi) * exp(-x^2)``, ``erfc' = -erf'``;
- ``erfinv'(y) = sqrt(pi) / 2 * exp(erfinv(y)^2)``: the node saves ``self`` and computes
  erfinv again, so a double backward differentiates it (as torch's).
"""
import numpy as np

cimport numpy as cnp
from libc.math cimport erf as c_erf, erfc as c_erfc

from autograd_cy._C.device cimport backend_of
from autograd_cy._C.tensor cimport Tensor
from autograd_cy._C.node cimport unpack_saved
from autograd_cy._C.ops.op_table cimport SavesSelf, unary_op
from autograd_cy._C.ops.op_table import export_unary_ops
from autograd_cy._C.ops.arithmetic import mul, neg
from autograd_cy._C.ops.pointwise import exp

__all__ = []

cnp.import_array()

cdef double TWO_OVER_SQRT_PI = 1.12837916709551257390      # 2 / sqrt(pi)
cdef double SQRT_PI_OVER_TWO = 0.88622692545275801365      # sqrt(pi) / 2


ctypedef double (*DoubleFunction)(double) noexcept nogil


cdef object libm_loop(object array, DoubleFunction function):
    """``function`` of each entry of a float32 or float64 host array, computed in double and
    rounded once to the array's dtype."""
    cdef cnp.ndarray[double, ndim=1] work = np.ascontiguousarray(
        array, dtype=np.float64).reshape(-1)
    cdef cnp.ndarray[double, ndim=1] out = np.empty_like(work)
    cdef double* x = <double*>work.data
    cdef double* y = <double*>out.data
    cdef Py_ssize_t i, n = work.shape[0]
    with nogil:
        for i in range(n):
            y[i] = function(x[i])
    return out.reshape(np.shape(array)).astype(array.dtype, copy=False)


cdef object by_functor_or_loop(object array, str functor, DoubleFunction function):
    """One launch of ``functor`` on a backend that has it (CUDA), else the C library's loop."""
    fused = backend_of(array).unary(functor, array)
    return libm_loop(array, function) if fused is None else fused


def _erf_array(array):
    return by_functor_or_loop(array, "Erf", c_erf)


def _erfc_array(array):
    return by_functor_or_loop(array, "Erfc", c_erfc)


cdef object erf_slope(object x):
    """``2 / sqrt(pi) * exp(-x^2)``, erf's derivative, as a Tensor formula."""
    return mul(exp(neg(mul(x, x))), TWO_OVER_SQRT_PI)


# ------------------------------------------------------------------ erf, erfc

cdef class ErfBackward0(SavesSelf):
    cpdef tuple apply(self, tuple grads):
        return (mul(grads[0], erf_slope(unpack_saved(self, 0))),)


cdef object erf_tangent(Tensor self_t, Tensor self, Tensor result, tuple extra):
    return mul(self_t, erf_slope(self))


erf = unary_op(
    "erf", _erf_array, ErfBackward0, erf_tangent, cuda_functor="Erf", floating=True,
    batched_tangent=True, complex_error="\"erf_vml_cpu\" not implemented for '{dtype}'",
    gradient="self: g * 2 / sqrt(pi) * exp(-self ** 2)",
    tangent_formula="self_t * 2 / sqrt(pi) * exp(-self ** 2)",
    doc="The error function ``2 / sqrt(pi) * integral of exp(-t^2) from 0 to self``; "
        "backward ``grad * 2 / sqrt(pi) * exp(-self ** 2)``.")


cdef class ErfcBackward0(SavesSelf):
    cpdef tuple apply(self, tuple grads):
        return (neg(mul(grads[0], erf_slope(unpack_saved(self, 0)))),)


cdef object erfc_tangent(Tensor self_t, Tensor self, Tensor result, tuple extra):
    return neg(mul(self_t, erf_slope(self)))


erfc = unary_op(
    "erfc", _erfc_array, ErfcBackward0, erfc_tangent, cuda_functor="Erfc", floating=True,
    batched_tangent=True, complex_error="\"erfc_vml_cpu\" not implemented for '{dtype}'",
    gradient="self: -g * 2 / sqrt(pi) * exp(-self ** 2)",
    tangent_formula="-self_t * 2 / sqrt(pi) * exp(-self ** 2)",
    doc="The complementary error function ``1 - erf(self)``, accurate where erf is near 1; "
        "backward ``-grad * 2 / sqrt(pi) * exp(-self ** 2)``.")


# ------------------------------------------------------------------ erfinv

# NOTE [erfinv by Newton's method]
# Neither the C library nor NumPy has erfinv. It is the root x of erf(x) = y, found by
# Newton's method from a first guess: x -= (erf(x) - y) / erf'(x), erf' = 2 / sqrt(pi) *
# exp(-x^2). The guess is Giles's single-precision approximation (a polynomial in
# w = -log(1 - y^2), one for the centre, w < 5, one in sqrt(w) for the tails), already good
# to about 1e-7; each Newton step then doubles the correct digits, so three steps in float64
# leave the rounding error of the residual. Near y = +-1 erf's rounding (1e-16 absolute)
# divided by its tiny slope would cost digits, so there the residual is computed from erfc:
# (1 - y) - erfc(x), 1 - y exact. Every step is NumPy's calls on the array, so a
# CUDA array runs them as kernels (erf the Erf functor). y = +-1 gives +-inf and |y| > 1
# NaN, as torch's, set after the steps (where Newton's 0 / 0 would give NaN).
cdef tuple CENTRE = (2.81022636e-08, 3.43273939e-07, -3.5233877e-06, -4.39150654e-06,
                     0.00021858087, -0.00125372503, -0.00417768164, 0.246640727, 1.50140941)
cdef tuple TAILS = (-0.000200214257, 0.000100950558, 0.00134934322, -0.00367342844,
                    0.00573950773, -0.0076224613, 0.00943887047, 1.00167406, 2.83297682)


cdef object polynomial(tuple coefficients, object w):
    """Horner's rule, the highest coefficient first."""
    p = np.full_like(w, coefficients[0])
    for c in coefficients[1:]:
        p = p * w + c
    return p


def _erfinv_array(array):
    y = array.astype(np.float64)
    w = -np.log((1.0 - y) * (1.0 + y))
    centre = polynomial(CENTRE, w - 2.5)
    tails = polynomial(TAILS, np.sqrt(np.where(w < 5.0, 5.0, w)) - 3.0)
    x = np.where(w < 5.0, centre, tails) * y
    # the residual erf(x) - y, from erfc away from the centre: 1 - |y| is exact there, and
    # erfc keeps the digits that erf, near +-1, rounds away
    centre_band = np.abs(y) < 0.5
    for _ in range(3):
        tail_residual = np.where(x > 0, (1.0 - y) - _erfc_array(x), _erfc_array(-x) - (1.0 + y))
        residual = np.where(centre_band, _erf_array(x) - y, tail_residual)
        x = x - residual / (np.exp(-x * x) * TWO_OVER_SQRT_PI)
    x = np.where(y == 1.0, np.inf, np.where(y == -1.0, -np.inf, x))
    return x.astype(array.dtype, copy=False)


cdef class ErfinvBackward0(SavesSelf):
    cpdef tuple apply(self, tuple grads):
        root = erfinv(unpack_saved(self, 0))
        return (mul(grads[0], mul(exp(mul(root, root)), SQRT_PI_OVER_TWO)),)


cdef object erfinv_tangent(Tensor self_t, Tensor self, Tensor result, tuple extra):
    root = erfinv(self)
    return mul(self_t, mul(exp(mul(root, root)), SQRT_PI_OVER_TWO))


erfinv = unary_op(
    "erfinv", _erfinv_array, ErfinvBackward0, erfinv_tangent, cuda_functor=None,
    floating=True, batched_tangent=True,
    complex_error="\"erfinv_vml_cpu\" not implemented for '{dtype}'",
    gradient="self: g * sqrt(pi) / 2 * exp(erfinv(self) ** 2)",
    tangent_formula="self_t * sqrt(pi) / 2 * exp(erfinv(self) ** 2)",
    doc="The inverse of erf on (-1, 1), ``+-inf`` at ``+-1``, NaN outside (found by Newton's "
        "method); backward ``grad * sqrt(pi) / 2 * exp(erfinv(self) ** 2)``.")


export_unary_ops(globals())
