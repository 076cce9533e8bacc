# cython: allow_none_for_extension_args=False
"""Variance and standard deviation: var, std, var_mean, std_mean.

``var = sum((x - mean)^2) / (n - correction)``; its gradient is ``2 (x - mean) / (n -
correction)`` times the incoming one, and std's first divides that by ``2 std``. var_mean and
std_mean are one node with two outputs, as PyTorch records them. The shared reduction
helpers are declared in reduction.pxd.
"""
import warnings

import numpy as np
cimport numpy as cnp

from autograd_cy._C.dtype cimport half_precision, kind_of
from autograd_cy._C.device cimport as_array
from autograd_cy._C.tensor cimport Tensor
from autograd_cy._C.grad_mode cimport forward_level
from autograd_cy._C.forward cimport forward1, complex_unary
from autograd_cy._C.promotion cimport is_complex_array
from autograd_cy._C.ops.conjugate cimport conj_of
from autograd_cy._C.ops.conjugate import real
from autograd_cy._C.node cimport unpack_saved
from autograd_cy._C.recording cimport record
from autograd_cy._C.fp_errors cimport ignoring_fp_errors
from autograd_cy._C.ops.reduction cimport (
    ReductionBackward, contiguous_result, normalize_dims, reduced_numel, record_reduction,
    constant, records,
)
from autograd_cy._C.ops.reduction import mean, sum
from autograd_cy._C.ops.arguments cimport invalid_combination
from autograd_cy._C.ops.arguments import NOT_GIVEN
from autograd_cy._C.ops.arithmetic import add, mul, div, sub
from autograd_cy._C.ops.selection import where

cnp.import_array()

__all__ = ["var", "std", "var_mean", "std_mean"]
__tensor_methods__ = ("var", "std")

cdef double INF = float("inf")
cdef object FLOAT32 = np.dtype(np.float32)


cdef class VarBackward0(ReductionBackward):
    """``grad * 2 (x - mean) / (n - correction)``; StdBackward0 first divides by 2 std
    (only std saves its result). For complex ``x`` the var is the mean of ``|x - mean|^2``,
    real, and the same formula is its dL/dx + i dL/dy (NOTE [Complex gradients])."""
    saved_names = ("self", "result")
    cdef readonly object saved_correction
    cdef Py_ssize_t count
    cdef bint without_dim               # no ``dim`` given, or a 0-d input
    complex_formulas = True

    batches_gradients = True     # NOTE [Batched gradients]
    cpdef tuple apply(self, tuple grads):
        x = unpack_saved(self, 0)
        grad = self.keep_grad(grads[0])
        if self.saved_tensors[1] is not None:
            # d std = d var / (2 std); PyTorch defines it as 0 where std is 0.
            result = self.keep(unpack_saved(self, 1))
            zero = constant((<Tensor>result)._data == 0)
            grad = where(zero, 0.0, div(grad, mul(where(zero, 1.0, result), 2)))
        dof = self.count - self.saved_correction
        if dof <= 0 and self.without_dim:
            # PyTorch's special case: 2 / dof is infinite, so NaN where x equals its mean
            # (inf * 0), inf elsewhere, as a constant: the gradient does not depend on x.
            array = (<Tensor>x)._data
            with ignoring_fp_errors():
                at_mean = array == np.mean(array)
            return (mul(grad, constant(np.where(at_mean, np.nan, np.inf).astype(array.dtype))),)
        scale = 2.0 / dof if dof != 0 else INF
        centered = sub(x, mean(x, self.saved_dim, True))
        return (mul(mul(grad, scale), centered),)


cdef class StdBackward0(VarBackward0):
    pass


cdef class VarMeanBackward0(VarBackward0):
    """``var_mean``'s one node with two outputs: the var and mean gradients add up."""

    cpdef tuple apply(self, tuple grads):
        total = VarBackward0.apply(self, grads[:1])[0] if grads[0] is not None else None
        if grads[1] is not None:
            of_mean = div(self.expand_back(grads[1]), self.count)
            total = of_mean if total is None else add(total, of_mean)
        return (total,)


cdef class StdMeanBackward0(VarMeanBackward0):
    pass


cdef tuple VAR_SIGNATURES = (
    "(tuple of ints dim, bool unbiased = True, bool keepdim = False)",
    "(tuple of ints dim = None, *, Number correction = None, bool keepdim = False)",
    "(bool unbiased = True)")


cdef tuple var_arguments(str name, object dim, object unbiased, object keepdim,
                         object correction):
    """``(dim, keepdim, correction)`` of a var/std call, refused as PyTorch's parser does when
    it fits none of the overloads ``var(dim, unbiased, keepdim)``, ``var(dim=None, *,
    correction, keepdim)`` and ``var(unbiased)``."""
    if isinstance(dim, bool):                           # var(unbiased): alone
        if unbiased is None and keepdim is None and correction is None:
            return None, False, 0 if dim is False else 1
    elif unbiased is None or (correction is None and (
            dim is not NOT_GIVEN or keepdim is None)):
        if dim is NOT_GIVEN:
            dim = None
        if correction is None:
            correction = 0 if unbiased is False else 1
        return dim, keepdim is True or bool(keepdim), correction
    given = {key: value for key, value in (("keepdim", keepdim), ("unbiased", unbiased),
                                           ("correction", correction)) if value is not None}
    raise invalid_combination(name, () if dim is NOT_GIVEN else (dim,), given, VAR_SIGNATURES)


cdef object var_tangent(Tensor self_t, Tensor self, Tensor result, tuple extra):
    """The sum over ``dims`` of var's backward formula applied to ``self_t``: ``self_t * (2 /
    (n - correction)) * (self - mean)``, so that ``n - correction <= 0`` gives PyTorch's
    infinities and NaNs (VarBackward0's special case without a dim included). ``extra``:
    ``(dims, keepdim, dof, without_dim)``."""
    dims, keepdim = extra[0], extra[1]
    cdef double dof = extra[2]
    cdef bint complex_input = is_complex_array(self._data)
    if dof <= 0 and extra[3]:
        array = self._data
        with ignoring_fp_errors():
            at_mean = array == np.mean(array)
        scale = constant(np.where(at_mean, np.nan, np.inf).astype(array.dtype))
        tangent = sum(mul(self_t, scale), dims, keepdim)
        return real(tangent) if complex_input else tangent
    centered = sub(self, mean(self, dims, True))
    if complex_input:
        # |c|^2 moves by 2 Re(conj(c) dc), and the mean's share of dc sums to 0 against
        # conj(c): the tangent is real, 2 / dof * Re(sum(conj(c) self_t))
        return real(sum(mul(mul(self_t, 2.0 / dof if dof != 0 else INF), conj_of(centered)),
                        dims, keepdim))
    return sum(mul(mul(self_t, 2.0 / dof if dof != 0 else INF), centered), dims, keepdim)


cdef object std_tangent(Tensor self_t, Tensor self, Tensor result, tuple extra):
    """``var``'s tangent divided by ``2 * result``, then 0 where ``result`` is 0 (PyTorch's
    order: differentiated again, that 0 has a NaN derivative, as in PyTorch)."""
    zero = constant(result._data == 0)
    var_t = var_tangent(self_t, self, result, extra)
    with ignoring_fp_errors():
        return where(zero, 0.0, div(var_t, mul(result, 2)))


cdef object mean_tangent(Tensor self_t, Tensor self, Tensor result, tuple extra):
    """The mean output of var_mean/std_mean: the mean of ``self_t`` (``extra``: ``(dims,
    keepdim)``)."""
    return mean(self_t, *extra)


# NOTE [The mean of var_mean with infinities]
# torch's var_mean and std_mean take the mean from the same pass as the variance: Welford's
# running mean in float64, ``m += (x - m) / k`` in the order of the reduced elements (of
# the real and imaginary parts apart). An infinity followed by anything gives ``inf - inf``:
# the mean of a group is NaN unless its only infinity is its last element (then that
# infinity), where the mean of a sum is inf. For CPU inputs of one pass (torch combines the
# running means of parallel chunks above 32768 elements, which this does not follow).
cdef object running_mean_infinities(object array, tuple dims, object kept_mean):
    """``kept_mean`` (keepdims over ``dims``) with the groups that hold an infinity set to
    the running mean's answer (NOTE [The mean of var_mean with infinities])."""
    if not isinstance(array, np.ndarray) or array.size == 0 or np.isfinite(kept_mean).all():
        return kept_mean
    if array.ndim == 0:         # the one value (a complex inf / 1 is NaN in both parts)
        return array.copy()
    if array.dtype.kind == "c":
        out = np.empty_like(kept_mean)      # each part's own mean (a complex division
        for part in ("real", "imag"):        # by the count spreads an inf to both)
            values = getattr(array, part)
            setattr(out, part, running_mean_infinities(
                values, dims, np.mean(values, axis=dims, keepdims=True)))
        return out
    infinities = np.isinf(array).sum(axis=dims, keepdims=True)
    last = array[tuple(slice(-1, None) if axis in dims else slice(None)
                       for axis in range(array.ndim))]
    nans = np.isnan(array).any(axis=dims, keepdims=True)
    only_last = (infinities == 1) & np.isinf(last) & ~nans
    return np.where(infinities > 0, np.where(only_last, last, np.nan), kept_mean)


cdef object var_std(Tensor self, object dim, bint keepdim, object correction, bint take_sqrt,
                    bint with_mean=False):
    """var or std; with ``with_mean``, the pair ``(var or std, mean)`` recorded as one node."""
    cdef VarBackward0 node
    name = "std" if take_sqrt else "var"
    array = self._data
    if kind_of(array.dtype) not in "fc":
        raise RuntimeError("std and var only support floating point and complex dtypes")
    dims = normalize_dims(dim, array.ndim)
    count = reduced_numel(array.shape, dims)
    dof = count - correction
    if dof <= 0:
        warnings.warn(f"{name}(): degrees of freedom is <= 0. Correction should be strictly "
                      "less than the reduction factor (input numel divided by output numel).",
                      UserWarning, stacklevel=3)
    # a complex input's var is real, the mean of |x - mean|^2
    real_dtype = np.finfo(array.dtype).dtype if array.dtype.kind == "c" else array.dtype
    # NOTE [var and std of a whole float32 tensor]
    # Where the result has one element (every element reduced), PyTorch's CPU var and std of
    # a float32 tensor take two passes instead: the float32 mean, then the squares of the
    # differences from it summed in double. Equal values whose float32 mean rounds away from
    # them have a tiny variance, not 0 (fuzz seed 985004040: std ** -1.75 was inf). The sum
    # is taken in memory order, one element after another, as torch's for a short tensor.
    float32_mean = None
    if (array.dtype == FLOAT32 and not with_mean and count == array.size and count > 0
            and type(array) is np.ndarray):     # (torch's CPU kernel; a device's as before)
        with ignoring_fp_errors():
            total = np.add.accumulate(array.ravel(order="K"), dtype=np.float32)[-1]
            float32_mean = np.full((1,) * array.ndim, total / np.float32(count), np.float64)
    if half_precision(array.dtype) or array.dtype == FLOAT32:
        # float32, float16 and bfloat16 accumulate in float64 and round once, as PyTorch's
        # CPU var and std (Welford's algorithm in double): the mean of equal values is then
        # exactly that value, and their variance exactly 0
        array = array.astype(np.float64)
    with ignoring_fp_errors():
        kept_mean = np.mean(array, axis=dims, keepdims=True) if float32_mean is None else \
            float32_mean
        divisor = dof if dof > 0 else 0
        if array.dtype.kind == "c":
            # PyTorch adds the variances of the real and imaginary parts: with dof <= 0 a
            # constant part's 0 / 0 makes the sum NaN, not inf
            centered = array - kept_mean
            result = (np.sum(centered.real * centered.real, axis=dims, keepdims=keepdim)
                      / divisor +
                      np.sum(centered.imag * centered.imag, axis=dims, keepdims=keepdim)
                      / divisor)
        else:
            squares = np.empty_like(array)        # (x - mean)^2, computed in one buffer
            np.subtract(array, kept_mean, out=squares)
            np.multiply(squares, squares, out=squares)
            result = np.sum(squares, axis=dims, keepdims=keepdim) / divisor
        if take_sqrt:
            result = np.sqrt(result)
        result = as_array(result, real_dtype)       # may overflow to inf, quietly
    cdef Tensor out = contiguous_result(result)
    cdef Tensor mean_out = None
    if with_mean:
        with ignoring_fp_errors():
            kept_mean = running_mean_infinities(array, dims, kept_mean)
            kept_mean = as_array(kept_mean, self._data.dtype)
        mean_out = contiguous_result(kept_mean if keepdim else kept_mean.reshape(out._data.shape))
    if records(self):
        if with_mean:
            node = StdMeanBackward0() if take_sqrt else VarMeanBackward0()
        else:
            node = StdBackward0() if take_sqrt else VarBackward0()
        node.saved_correction = correction
        node.count = count
        node.without_dim = dim is None or array.ndim == 0
        if with_mean:
            node.saved_dim, node.saved_keepdim = dims, keepdim
            node.saved_self_sym_sizes = array.shape
            record(node, (self,), (out, mean_out), (self, out if take_sqrt else None))
        else:
            record_reduction(node, self, out, dims, keepdim, (self, out if take_sqrt else None))
    if forward_level():
        forward1(out, self, std_tangent if take_sqrt else var_tangent,
                 (dims, keepdim, dof, dim is None or array.ndim == 0))
        if with_mean:
            forward1(mean_out, self, mean_tangent, (dims, keepdim))
    return (out, mean_out) if with_mean else out


def var(Tensor self, dim=NOT_GIVEN, unbiased=None, keepdim=None, *, correction=None):
    """Variance over all elements or ``dim``, divided by ``n - correction`` (default 1).

    ``unbiased=False`` is the legacy spelling of ``correction=0``.
    """
    dim, keepdim, correction = var_arguments("var", dim, unbiased, keepdim, correction)
    return var_std(self, dim, keepdim, correction, False)


def std(Tensor self, dim=NOT_GIVEN, unbiased=None, keepdim=None, *, correction=None):
    """Standard deviation: the square root of ``var`` with the same arguments."""
    dim, keepdim, correction = var_arguments("std", dim, unbiased, keepdim, correction)
    return var_std(self, dim, keepdim, correction, True)


def var_mean(Tensor self, dim=NOT_GIVEN, unbiased=None, keepdim=None, *, correction=None):
    """``(var, mean)`` over the same dims, with ``var``'s arguments: one VarMeanBackward0."""
    dim, keepdim, correction = var_arguments("var_mean", dim, unbiased, keepdim, correction)
    return var_std(self, dim, keepdim, correction, False, True)


def std_mean(Tensor self, dim=NOT_GIVEN, unbiased=None, keepdim=None, *, correction=None):
    """``(std, mean)`` over the same dims, as ``var_mean``."""
    dim, keepdim, correction = var_arguments("std_mean", dim, unbiased, keepdim, correction)
    return var_std(self, dim, keepdim, correction, True, True)


# NOTE [Complex tangents] in forward.pyx: these formulas are checked for complex tensors.
complex_unary(var_tangent)
complex_unary(std_tangent)
complex_unary(mean_tangent)
