# cython: allow_none_for_extension_args=False
"""Reductions: sum, mean, prod, norm, logsumexp, count_nonzero, sum_to.

A reduction's backward broadcasts the gradient back over the reduced dims
(``keepdim=False`` dims are first re-inserted as size 1), then scales it by the
local derivative. Formulas use Tensor ops, so double backward works; masks that
only select elements (the zeros of a prod) are constants without grad, as their
derivative is zero almost everywhere. The extrema (max/min, amax/amin, argmax/argmin)
are in extrema.pyx and var/std in variance.pyx; they share the helpers declared in
reduction.pxd.
"""
import numpy as np

from autograd_cy._C.grad_mode cimport is_grad_enabled, forward_level, needs_tensor_ops
from autograd_cy._C.forward cimport forward1, batch_unary
from autograd_cy._C.saved_tensor cimport save
from autograd_cy._C.dtype cimport from_numpy_dtype, to_numpy_dtype, kind_of
from autograd_cy._C.device cimport as_array, contiguous_array
from autograd_cy._C.tensor cimport array_module, Tensor, make_tensor, make_view
from autograd_cy._C.tensor cimport wrap_dim, tensor_operators
from autograd_cy._C.batching cimport grads_batched, batched_shape, batched_dims
from autograd_cy._C.node cimport Node, unpack_saved
from autograd_cy._C.recording cimport record1
cimport numpy as cnp
from autograd_cy._C.promotion cimport wrap as wrap_array, is_complex_array, half_precision_array

cnp.import_array()


cdef Tensor contiguous_result(object array):
    """A reduction's result as a Tensor: PyTorch allocates it contiguous, whatever the input's
    layout (NumPy's follows the input's, and ``.view`` would then fail)."""
    if type(array) is cnp.ndarray and not cnp.PyArray_IS_C_CONTIGUOUS(<cnp.ndarray>array):
        array = contiguous_array(array)
    return wrap_array(array)
from autograd_cy._C.fp_errors cimport ignoring_fp_errors, quiet_reduce
from autograd_cy._C.kernels cimport leading_sum_kernel
from autograd_cy._C.ops.out_arguments cimport write_out
from autograd_cy._C.ops.conjugate cimport conj_of
from autograd_cy._C.ops.arguments cimport int_list, invalid_combination, missing_argument
from autograd_cy._C.ops.arguments import NOT_GIVEN
from autograd_cy._C.ops.arithmetic import mul, div, sub
from autograd_cy._C.ops.power import pow
from autograd_cy._C.ops.shape import expand, reshape, unsqueeze
from autograd_cy._C.ops.shape cimport use_reductions
from autograd_cy._C.ops.selection import where
from autograd_cy._C.ops.pointwise import sign, exp, abs as absolute

__all__ = ["sum", "mean", "prod", "norm", "logsumexp", "count_nonzero", "sum_to"]
__tensor_methods__ = ("sum", "mean", "prod", "norm", "logsumexp", "count_nonzero",
                      "sum_to_size")

cdef double INF = float("inf")


# ------------------------------------------------------------------ shared helpers

cdef tuple normalize_dims(object dim, Py_ssize_t ndim):
    """``dim`` (None, int, or tuple/list; empty means all) as sorted non-negative dims.

    A 0-dim tensor accepts dim 0 or -1 but has no axis to reduce: the result is ().
    """
    if dim is None:
        return tuple(range(ndim))
    if not isinstance(dim, (tuple, list)):
        d = wrap_dim(dim, ndim)
        return (d,) if ndim else ()
    cdef list dims = []
    for d in dim:
        d = wrap_dim(d, ndim)
        if d in dims:
            raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
        dims.append(d)
    if not dims or not ndim:
        return tuple(range(ndim))
    dims.sort()
    return tuple(dims)


cdef tuple kept_shape(tuple shape, tuple dims):
    """``shape`` with each reduced dim as 1: the output shape of ``keepdim=True``."""
    return tuple([1 if i in dims else n for i, n in enumerate(shape)])


cdef Py_ssize_t reduced_numel(tuple shape, tuple dims):
    """How many input elements go into each output element."""
    cdef Py_ssize_t n = 1
    for d in dims:
        n *= shape[d]
    return n


cdef object floating_array(Tensor self, str op):
    """The input array of a float-only reduction, with PyTorch's error for other dtypes."""
    array = self._data
    if kind_of(array.dtype) != "f":
        raise RuntimeError(f"{op}: Expected a floating point or complex tensor as input. "
                           f"Got {from_numpy_dtype(array.dtype)._scalar_name}")
    return array


cdef void check_nonempty(str op, object shape, tuple dims) except *:
    """min/max-like reductions have no identity: a reduced dim of size 0 is an error."""
    for d in dims:
        if shape[d] == 0:
            raise IndexError(f"{op}(): Expected reduction dim {d} to have non-zero size.")


cdef class ReductionBackward(Node):
    """What every reduction's backward knows: the reduced dims (``saved_dim``, sorted and
    non-negative), ``saved_keepdim`` and the input shape (``saved_self_sym_sizes``)."""

    cdef object keep(self, object t):
        """``t``, shaped like the forward output, with the reduced dims back as size 1."""
        if self.saved_keepdim or not self.saved_dim:
            return t
        return reshape(t, kept_shape(self.saved_self_sym_sizes, self.saved_dim))

    cdef object keep_grad(self, object grad):
        """``keep`` for a gradient, whose batch dim (NOTE [Batched gradients]) stays."""
        if self.saved_keepdim or not self.saved_dim:
            return grad
        return reshape(grad, batched_shape(grad, kept_shape(self.saved_self_sym_sizes,
                                                            self.saved_dim)))

    cdef object expand_back(self, object grad):
        """A gradient broadcast back to the input's shape."""
        return expand(self.keep_grad(grad), batched_shape(grad, self.saved_self_sym_sizes))


cdef Tensor record_reduction(ReductionBackward node, Tensor self, Tensor out, tuple dims,
                             bint keepdim, tuple saved=()):
    """Record ``out = reduce(self)``: the reduced dims and input shape every reduction's
    backward reads, then ``record1`` with ``saved`` (most save ``(self, out)``)."""
    node.saved_dim = dims
    node.saved_keepdim = keepdim
    node.saved_self_sym_sizes = self._data.shape
    record1(node, self, out, saved)
    return out


cdef object slice_tangent(Tensor self_t, Tensor self, Tensor result, tuple extra):
    """The tangent of a reduction whose every output reads only its own slice of ``self``
    (prod, norm, logsumexp): the partials d result / d self, which the backward formula
    ``node`` (a fresh instance) gives for a gradient of ones, times ``self_t``, summed over
    the slice (``extra``: ``(node, dims, keepdim)``). For complex tensors the formula's
    partials are conjugated (NOTE [Complex gradients]): conjugated back, they are the
    holomorphic derivative the tangent multiplies (NOTE [Complex tangents])."""
    cdef ReductionBackward node = extra[0]
    dims, keepdim = extra[1], extra[2]
    node.saved_dim, node.saved_keepdim = dims, keepdim
    node.saved_self_sym_sizes = self._data.shape
    node.saved_tensors = (save(self, False, True), save(result, False, True))
    node.output_mask = (True,)
    partials = node.apply((make_tensor(array_module(result._data).ones_like(result._data)),))[0]
    if partials is None:
        return make_tensor(array_module(result._data).zeros_like(result._data))
    return sum(mul(self_t, conj_of(partials)), dims, keepdim)


# NOTE [Half-precision products and reductions]
# float16 and bfloat16 keep 11 and 8 bits of mantissa: a sum that rounds after every
# addition, as NumPy's float16 (pairwise, in float16) and ml_dtypes' bfloat16 reductions do,
# drifts far from the true sum (bfloat16's sum of 100,000 normal samples: -19.4 where it is
# -10.7). PyTorch's CPU kernels accumulate both in float32 and round once, at the end; so do
# sum and mean here (``sum_array``), and the matrix products of matmul.pyx multiply
# in float32 (BLAS's sgemm) and round once. Single-threaded, torch's result is then the
# same to the bit; with several threads torch rounds each thread's partial sum, and its
# own results vary with the thread count. (Its prod is the exception: a short row's product
# rounds after every factor, ``float16_product``; longer rows take vector lanes in an order
# of their own, which neither NumPy's float32 running product nor this follows.)

cdef object FLOAT32 = np.dtype(np.float32)


cdef object ADD_REDUCE = np.add.reduce     # looked up once: summed is on the engine's path


cdef object sum_array(object array, tuple dims, bint keepdim, object dtype):
    """The sum over ``dims`` into ``dtype`` (None: the array's): small float arrays over
    their leading dims in a loop of ours (NOTE [Fused kernels]), else ``np.add.reduce``,
    accumulating float16 and bfloat16 in float32 (NOTE [Half-precision products and
    reductions])."""
    cdef object total
    if dtype is None and leading_dims(dims):
        total = leading_sum_kernel(array, len(dims), keepdim)
        if total is not None:
            return total
    if dtype is None and half_precision_array(array):
        return quiet_reduce(ADD_REDUCE, array, dims, keepdim, FLOAT32).astype(array.dtype)
    return quiet_reduce(ADD_REDUCE, array, dims, keepdim, dtype)


cdef bint leading_dims(tuple dims):
    """Are ``dims`` the first ``len(dims)`` axes, in order?"""
    cdef Py_ssize_t i
    if not dims:
        return False
    for i in range(len(dims)):
        if dims[i] != i:
            return False
    return True


cdef object sum_dtype(object array, object dtype):
    """sum/prod accumulate integers and bools as int64, like PyTorch."""
    if dtype is not None:
        return to_numpy_dtype(dtype)
    if array.dtype.kind in "biu":
        return np.dtype(np.int64)
    return None


# ------------------------------------------------------------------ sum / mean

cdef class SumBackward0(ReductionBackward):
    """Backward of a full or dim-wise sum: the gradient, broadcast back."""

    batches_gradients = True     # NOTE [Batched gradients]
    complex_formulas = True     # linear: no conjugate
    cpdef tuple apply(self, tuple grads):
        return (self.expand_back(grads[0]),)


cdef class SumBackward1(SumBackward0):
    pass


cdef object reduced_tangent(object reduction, Tensor self_t, tuple extra):
    """The same reduction of ``self_t`` (``extra``: ``(dims, keepdim, dtype)``, the dims
    normalized); of each row of a batched tangent (NOTE [Batched tangents])."""
    dims, keepdim, dtype = extra
    if grads_batched():
        if not dims:        # a 0-dim primal: a row has nothing to reduce
            return reduction(unsqueeze(self_t, -1), -1, False, dtype=dtype)
        dims = batched_dims(dims)
    return reduction(self_t, dims, keepdim, dtype=dtype)


cdef object sum_tangent(Tensor self_t, Tensor self, Tensor result, tuple extra):
    """The same sum of ``self_t``."""
    return reduced_tangent(sum, self_t, extra)


cdef tuple SUM_SIGNATURES = (
    "(*, autograd_cy.dtype dtype = None)",
    "(tuple of ints dim, bool keepdim = False, *, autograd_cy.dtype dtype = None)")


cdef object keepdim_without_dim(str name, object keepdim, object dtype, tuple signatures):
    """The parser's error for ``x.sum(keepdim=True)``: keepdim belongs to the overload whose
    dim is required (NOTE [Overloads and the argument parser] in arguments.pyx)."""
    if dtype is not None:           # too many arguments for the overload without dim
        return missing_argument(name, "dim")
    return invalid_combination(name, (), {"keepdim": keepdim}, signatures)


cdef tuple sum_like_arguments(str name, object dim, object keepdim, object dtype):
    """``(dim, keepdim, dim given?)`` of sum or mean: all elements (``dim=None``) when no
    dim is given, and then no ``keepdim`` either, as PyTorch's parser refuses it."""
    if dim is NOT_GIVEN:
        if keepdim is not None:
            raise keepdim_without_dim(name, keepdim, dtype, SUM_SIGNATURES)
        return None, False, False
    return dim, keepdim is True or bool(keepdim), True


def sum(Tensor self, dim=NOT_GIVEN, keepdim=None, *, dtype=None, out=None):
    """Sum of all elements, or over ``dim`` (int or tuple); integers sum as int64."""
    dim, keepdim, by_dim = sum_like_arguments("sum", dim, keepdim, dtype)
    if out is not None:
        return write_out("sum", out, (self,), lambda: sum(self, dim, keepdim, dtype=dtype))
    dims = normalize_dims(dim, self._data.ndim)
    cdef Tensor result = contiguous_result(sum_array(self._data, dims, keepdim,
                                                     sum_dtype(self._data, dtype)))
    if records(self):
        record_reduction(SumBackward1() if by_dim else SumBackward0(), self, result, dims,
                         keepdim)
    if forward_level():
        forward1(result, self, sum_tangent, (dims, keepdim, dtype))
    return result


cdef class MeanBackward0(ReductionBackward):
    """Each input element gets ``grad / n``, n the number of elements averaged."""
    cdef readonly Py_ssize_t saved_self_sym_numel
    cdef Py_ssize_t count

    batches_gradients = True     # NOTE [Batched gradients]
    complex_formulas = True     # linear: no conjugate
    cpdef tuple apply(self, tuple grads):
        return (div(self.expand_back(grads[0]), self.count),)


cdef class MeanBackward1(MeanBackward0):
    pass


cdef object mean_tangent(Tensor self_t, Tensor self, Tensor result, tuple extra):
    """The same mean of ``self_t``."""
    return reduced_tangent(mean, self_t, extra)


cdef object mean_array(object array, tuple dims, bint keepdim, object dtype):
    """``np.mean``; on the CPU its sum and division without np.mean's Python wrapper (which
    costs more than the op). float16 and bfloat16 accumulate in float32 (NOTE
    [Half-precision products and reductions])."""
    if dtype is None and half_precision_array(array):
        return mean_array(array, dims, keepdim, FLOAT32).astype(array.dtype)
    if type(array) is not cnp.ndarray:
        return np.mean(array, axis=dims, keepdims=keepdim, dtype=dtype)
    total = sum_array(array, dims, keepdim, dtype)
    count = reduced_numel(array.shape, dims)
    if count == 0:
        with ignoring_fp_errors():      # the mean of nothing is NaN, quietly, as in PyTorch
            return np.true_divide(total, count, dtype=total.dtype)
    return np.true_divide(total, count, dtype=total.dtype)


def mean(Tensor self, dim=NOT_GIVEN, keepdim=None, *, dtype=None, out=None):
    """Arithmetic mean over all elements or ``dim``; floating dtypes (or ``dtype=``) only."""
    cdef MeanBackward0 node
    dim, keepdim, by_dim = sum_like_arguments("mean", dim, keepdim, dtype)
    if out is not None:
        return write_out("mean", out, (self,), lambda: mean(self, dim, keepdim, dtype=dtype))
    array = self._data
    if dtype is not None:
        dtype = to_numpy_dtype(dtype)
        if kind_of(dtype) not in "fc":
            raise RuntimeError(
                "mean(): could not infer output dtype. Optional dtype must be either a "
                "floating point or complex dtype. Got: "
                f"{from_numpy_dtype(dtype)._scalar_name}")
    elif kind_of(array.dtype) not in "fc":
        raise RuntimeError(
            "mean(): could not infer output dtype. Input dtype must be either a floating point "
            f"or complex dtype. Got: {from_numpy_dtype(array.dtype)._scalar_name}")
    dims = normalize_dims(dim, array.ndim)
    cdef Tensor result = contiguous_result(mean_array(array, dims, keepdim, dtype))
    if records(self):
        node = MeanBackward1() if by_dim else MeanBackward0()
        node.saved_self_sym_numel = array.size
        node.count = reduced_numel(array.shape, dims)
        record_reduction(node, self, result, dims, keepdim)
    if forward_level():
        forward1(result, self, mean_tangent, (dims, keepdim, dtype))
    return result


# NOTE [sum_to returns a view]
# A gradient summed down to an input's shape (the engine does it to every broadcast
# gradient) is, as in PyTorch, the sum over the broadcast dims with keepdim and, when
# leading dims were summed away, a view of that sum in the input's shape. The view is
# visible: one that autograd.grad returns was made in no_grad mode (the backward ran
# without create_graph), so an in-place op on it with grad mode on is refused. Under
# create_graph it is a recorded view (ViewBackward0 over SumBackward1). Without leading
# dims the keepdim sum is the result itself. Either way the sum owns its memory, so
# AccumulateGrad may take it as .grad without a copy (NOTE [Stealing the gradient]).

cpdef Tensor sum_to(Tensor grad, tuple shape):
    """Sum ``grad`` down to ``shape`` (the inverse of broadcasting ``shape`` up to it), a
    view of the sum when leading dims went (NOTE [sum_to returns a view])."""
    array = grad._data
    cdef Py_ssize_t i, leading = array.ndim - len(shape)
    cdef Tensor summed
    array_shape = array.shape
    dims = list(range(leading))
    for i in range(len(shape)):
        if shape[i] == 1 and array_shape[leading + i] != 1:
            dims.append(leading + i)
    if not dims:
        return grad
    if needs_tensor_ops():
        summed = sum(grad, tuple(dims), True)
        return reshape(summed, shape) if leading else summed
    # Nothing to record (the engine between nodes, no create_graph): the ufunc's own
    # reduce, without np.sum's Python-level wrapper.
    summed = make_tensor(sum_array(array, tuple(dims), True, sum_dtype(array, None)))
    return make_view(summed._data.reshape(shape), summed) if leading else summed


cdef object sum_to_op(object grad, object shape):
    return sum_to(<Tensor>grad, <tuple>shape)


tensor_operators().sum_to = sum_to_op


def sum_to_grad(Tensor grad, tuple shape):
    """``sum_to`` for a gradient: in a batched pass (NOTE [Batched gradients]) the batch dim
    stays and the dims between it and ``shape`` are summed away."""
    if not grads_batched():
        return sum_to(grad, shape)
    cdef Py_ssize_t extra = grad._data.ndim - 1 - len(shape)
    if extra > 0:
        grad = sum(grad, tuple(range(1, extra + 1)))
    return sum_to(grad, batched_shape(grad, shape))


def sum_to_size(Tensor self, *sizes, size=None):
    """``self`` summed down to ``size``, which must broadcast to ``self``'s shape."""
    return sum_to(self, int_list("sum_to_size", "size", sizes, size))


# ------------------------------------------------------------------ prod

cdef class ProdBackward0(ReductionBackward):
    """``grad * prod(others)``: ``result / x`` without zeros, else built zero-safe; the
    product of a 0-d tensor is the tensor itself, so its gradient is ``grad`` as is."""
    saved_names = ("self", "result")

    batches_gradients = True     # NOTE [Batched gradients]
    complex_formulas = True      # the product of the others, conjugated
    cpdef tuple apply(self, tuple grads):
        x = unpack_saved(self, 0)           # both checked, as PyTorch unpacks every saved
        result = unpack_saved(self, 1)      # value before its formula runs
        if not self.saved_self_sym_sizes:
            return (grads[0],)
        grad = self.keep_grad(grads[0])
        zeros = (<Tensor>x)._data == 0
        if not zeros.any():
            return (mul(grad, conj_of(div(self.keep(result), x))),)
        if type(self) is ProdBackward1 and over_one_element(self):
            # with zeros about, PyTorch hands the gradient of a product over one element
            # on as it is, without the input (under create_graph it requires grad only if
            # the gradient does)
            return (grad,)
        if (type(self) is ProdBackward0 and not is_grad_enabled()
                and np.count_nonzero(zeros) > 1):
            # The full product with two zeros or more: every product of the others holds a
            # zero. PyTorch returns zeros here at once (a nan or inf elsewhere included).
            return (make_tensor(array_module((<Tensor>x)._data).zeros(
                batched_shape(<Tensor>grad, (<Tensor>x)._data.shape), (<Tensor>x)._data.dtype)),)
        return (mul(grad, conj_of(product_of_others(x, zeros, self.saved_dim))),)


cdef class ProdBackward1(ProdBackward0):
    pass


cdef bint over_one_element(ReductionBackward node):
    """Were the reduced dims all of size 1?"""
    for dim in node.saved_dim:
        if node.saved_self_sym_sizes[dim] != 1:
            return False
    return True


cdef object product_of_others(Tensor x, object zeros, tuple dims):
    """For each element, the product of the other elements of its slice, as a Tensor
    expression that stays differentiable (for double backward) when x holds zeros.

    With y = x where zeros are replaced by 1, ``prod(y) / y`` is the product of the
    other non-zero elements. Multiply by what the zeros contribute: with one zero
    x_k in a slice, x_k for every other element and 1 for x_k itself; with two, the
    other zero (s - x_i, s the sum of the zeros) for each zero and 0 elsewhere; with
    more, 0. Each factor equals the true product around x to first order, so first
    and second derivatives match PyTorch's.
    """
    dtype = x._data.dtype
    is_zero = constant(zeros)
    count = np.sum(zeros, axis=dims, keepdims=True)
    nonzero = where(is_zero, 1.0, x)
    others = div(prod_over(nonzero, dims, True, ProdBackward1()), nonzero)
    zeros_sum = sum(where(is_zero, x, 0.0), dims, True)
    at_zero = where(constant(count == 2), sub(zeros_sum, x), (count == 1).astype(dtype))
    elsewhere = where(constant(count == 1), zeros_sum, (count == 0).astype(dtype))
    return mul(others, where(is_zero, at_zero, elsewhere))


cdef Tensor prod_over(Tensor self, tuple dims, bint keepdim, ProdBackward0 node, dtype=None):
    cdef Tensor out
    if (dtype is None and type(self._data) is cnp.ndarray
            and cnp.PyArray_TYPE(<cnp.ndarray>self._data) == cnp.NPY_FLOAT16):
        out = contiguous_result(float16_product(self._data, dims, keepdim))
    else:
        out = contiguous_result(quiet_reduce(np.prod, self._data, dims, keepdim,
                                             sum_dtype(self._data, dtype)))
    if records(self):
        record_reduction(node, self, out, dims, keepdim, (self, out))
    if forward_level():
        forward1(out, self, slice_tangent, (type(node)(), dims, keepdim))
    return out


cdef object float16_product(object array, tuple dims, bint keepdim):
    """A float16 product rounded to float16 after every factor, the factors in memory order,
    as PyTorch's CPU kernel multiplies a short row (NOTE [Half-precision products and
    reductions]). NumPy's float16 prod keeps a float32 running product along a row;
    ``multiply.accumulate`` stores, and so rounds, every step: the last step is the
    product."""
    cdef Py_ssize_t n = 1
    kept = [d for d in range(array.ndim) if d not in dims]
    for d in dims:
        n *= array.shape[d]
    kept_shape = tuple(array.shape[d] for d in kept)
    rows = np.transpose(array, kept + list(dims)).reshape(kept_shape + (n,))
    if n == 0:
        product = np.ones(kept_shape, array.dtype)
    else:
        with ignoring_fp_errors():      # past float16's range is inf, quietly
            product = np.multiply.accumulate(rows, axis=-1)[..., -1]
    if keepdim:
        product = product.reshape(tuple(1 if d in dims else array.shape[d]
                                        for d in range(array.ndim)))
    return np.asarray(product)


cdef tuple PROD_SIGNATURES = (
    "(*, autograd_cy.dtype dtype = None)",
    "(int dim, bool keepdim = False, *, autograd_cy.dtype dtype = None)")


def prod(Tensor self, dim=NOT_GIVEN, keepdim=None, *, dtype=None):
    """Product of all elements or along one ``dim``; integers multiply as int64."""
    if dim is NOT_GIVEN:
        if keepdim is not None:
            raise keepdim_without_dim("prod", keepdim, dtype, PROD_SIGNATURES)
        return prod_over(self, normalize_dims(None, self._data.ndim), False, ProdBackward0(),
                         dtype)
    if dim is None or isinstance(dim, (tuple, list)):
        if keepdim is None and dtype is None:      # fits neither overload
            raise invalid_combination("prod", (dim,), {}, PROD_SIGNATURES)
        raise TypeError(f"prod(): argument 'dim' must be int, not {type(dim).__name__}")
    return prod_over(self, normalize_dims(dim, self._data.ndim),
                     keepdim is True or bool(keepdim), ProdBackward1(), dtype)


def count_nonzero(Tensor self, dim=None):
    """Number of non-zero elements, over all dims or ``dim`` (int or tuple); int64."""
    dims = normalize_dims(dim, self._data.ndim)
    return contiguous_result(as_array(np.count_nonzero(self._data, axis=dims), np.dtype(np.int64)))


# ------------------------------------------------------------------ norm

cdef class LinalgVectorNormBackward0(ReductionBackward):
    """Gradient of the p-norm; 0 wherever the norm is 0 (PyTorch's convention)."""
    saved_names = ("self", "result")
    cdef readonly object saved_ord

    batches_gradients = True     # NOTE [Batched gradients]
    cpdef tuple apply(self, tuple grads):
        p = self.saved_ord
        if p == 0:
            return (None,)          # counts non-zeros: no gradient at all, as in PyTorch
        x = unpack_saved(self, 0)
        array = (<Tensor>x)._data
        grad = self.keep_grad(grads[0])
        if p == 1:
            # sign(x) as an op of x, as PyTorch's sgn: under create_graph the gradient
            # then requires grad (its derivative is zero).
            return (mul(grad, sign(x)),)
        signs = constant(np.sign(array))
        norm = self.keep(unpack_saved(self, 1))
        if p == INF or p == -INF:
            # The gradient of amax/amin of |x|: shared by the ties (and NaNs).
            magnitude = np.abs(array)
            hit = (magnitude == (<Tensor>norm)._data) | np.isnan(magnitude)
            share = hit.astype(array.dtype)
            share /= np.sum(share, axis=self.saved_dim, keepdims=True)
            return (mul(sign(x), mul(grad, constant(share))),)
        magnitude = mul(x, signs)                      # |x|, differentiable
        if p < 1:
            # sgn(x) |x|^(p-1) norm^(1-p), defined as 0 at x = 0
            at_zero = constant(array == 0)
            scaled = where(at_zero, 0.0, mul(signs, pow(where(at_zero, 1.0, magnitude), p - 1)))
            return (mul(mul(scaled, grad), pow(norm, 1 - p)),)
        norm_zero = constant((<Tensor>norm)._data == 0)
        safe_norm = where(norm_zero, 1.0, norm)
        if p == 2:
            # grad * (x / norm), the ratio (not the gradient) zeroed where the norm is 0:
            # a NaN or inf gradient stays NaN there, as in PyTorch.
            return (mul(grad, where(norm_zero, 0.0, div(x, safe_norm))),)
        scale = div(grad, pow(safe_norm, p - 1))
        scaled = (mul(signs, pow(magnitude, p - 1)) if p < 2
                  else mul(x, pow(magnitude, p - 2)))
        return (mul(scaled, where(norm_zero, 0.0, scale)),)


cdef object vector_norm(object array, object p, tuple dims, bint keepdim):
    """``sum(|x|^p)^(1/p)`` over ``dims``, with p = 0, 1, 2 and ±inf done directly (an
    overflow is inf and 0 ** negative p inf, quietly, as in PyTorch). float16 and bfloat16
    compute in float32 and round once (NOTE [Half-precision products and reductions]), on
    a device too: its kernels accumulate half types in float, and a half type's power by a
    Python number is float32 in NumPy's promotion."""
    with ignoring_fp_errors():
        if array.dtype.itemsize == 2:        # float16 or bfloat16 (ints became floats)
            return as_array(vector_norm_loud(array.astype(FLOAT32), p, dims, keepdim),
                            array.dtype)
        return vector_norm_loud(array, p, dims, keepdim)


cdef object vector_norm_loud(object array, object p, tuple dims, bint keepdim):
    if p == 2:
        return np.sqrt(np.sum(np.square(array), axis=dims, keepdims=keepdim))
    if p == 0:
        return np.sum(array != 0, axis=dims, keepdims=keepdim, dtype=array.dtype)
    magnitude = np.abs(array)
    if p == 1:
        return np.sum(magnitude, axis=dims, keepdims=keepdim)
    if p == INF or p == -INF:
        reduce = np.amax if p > 0 else np.amin
        return reduce(magnitude, axis=dims, keepdims=keepdim)
    powered = np.sum(magnitude ** p, axis=dims, keepdims=keepdim)
    return powered ** (1.0 / p)


cdef void check_norm_identity(object p, object dim, tuple shape) except *:
    """The inf norm (a max) and negative p (whose zero is inf) have no identity: PyTorch
    refuses them over an empty reduced dim, naming the dim as it was given."""
    if dim is None or (isinstance(dim, (tuple, list)) and not dim):
        raise RuntimeError(f"linalg.vector_norm cannot compute the {p:g} norm on an empty "
                           "tensor because the operation does not have an identity")
    for d in (dim if isinstance(dim, (tuple, list)) else (dim,)):
        if shape[wrap_dim(d, len(shape))] == 0:
            raise RuntimeError(f"linalg.vector_norm cannot compute the {p:g} norm on the "
                               f"dimension {d}because this dimension is empty and the "
                               "operation does not have an identity")


# torch.norm's nuclear norm is linalg.matrix_norm(input, "nuc", dim), which lives in the
# Python package above this layer (autograd_cy/linalg/norms.py): it fills this slot when
# imported.
cdef object matrix_norm_slot = None


def _set_matrix_norm(matrix_norm):
    global matrix_norm_slot
    matrix_norm_slot = matrix_norm


def norm(Tensor self, p="fro", dim=None, keepdim=False, dtype=None):
    """The vector p-norm over all elements or ``dim`` (int or tuple).

    ``p``: 'fro' or 2 (default), 1, inf, -inf, 0 (the count of non-zeros) or any number.
    """
    cdef LinalgVectorNormBackward0 node
    if isinstance(p, str):
        dim_count = 1 if dim is None or isinstance(dim, int) else len(dim)
        if p != "fro" or dim_count > 2:
            if p == "fro":
                raise RuntimeError("linalg.matrix_norm: dim must be a 2-tuple. Got "
                                   + " ".join(str(d) for d in dim))
            if p == "nuc":      # over every dim when none is given, as torch.norm
                dims = list(range(self._data.ndim)) if dim is None else dim
                return matrix_norm_slot(self, p, dims, keepdim, dtype=dtype)
            raise RuntimeError(f"linalg.matrix_norm: Order {p} not supported.")
        p = 2
    elif p is None:
        p = 2
    if is_complex_array(self._data):
        # The norm of the moduli: abs records AbsBackward0 below the norm's node (PyTorch
        # makes one node), and its gradient, sgn(x), is the complex part of the formula.
        return norm(absolute(self), p, dim, keepdim, dtype)
    array = floating_array(self, "linalg.vector_norm")
    if dtype is not None:
        array = array.astype(to_numpy_dtype(dtype), copy=False)
    if array.size == 0 and (p < 0 or p == INF):
        check_norm_identity(p, dim, array.shape)
    dims = normalize_dims(dim, array.ndim)
    cdef Tensor out = contiguous_result(vector_norm(array, p, dims, keepdim))
    if records(self):
        node = LinalgVectorNormBackward0()
        node.saved_ord = p
        record_reduction(node, self, out, dims, keepdim, (self, out))
    if forward_level():
        node = LinalgVectorNormBackward0()
        node.saved_ord = p
        forward1(out, self, slice_tangent, (node, dims, keepdim))
    return out


# ------------------------------------------------------------------ logsumexp

cdef class LogsumexpBackward0(ReductionBackward):
    """``grad * exp(x - result)``: the softmax of x along the reduced dims (its conjugate
    for complex x, NOTE [Complex gradients])."""
    saved_names = ("self", "result")

    batches_gradients = True     # NOTE [Batched gradients]
    complex_formulas = True
    cpdef tuple apply(self, tuple grads):
        x = unpack_saved(self, 0)
        result = self.keep(unpack_saved(self, 1))
        return (mul(self.keep_grad(grads[0]), conj_of(exp(sub(x, result)))),)


def logsumexp(Tensor self, dim=NOT_GIVEN, keepdim=False):
    """``log(sum(exp(x)))`` over ``dim``, computed stably by shifting by the maximum."""
    if dim is NOT_GIVEN:
        raise missing_argument("logsumexp", "dim")
    if dim is None:
        raise TypeError("logsumexp(): argument 'dim' must be tuple of ints, not NoneType")
    array = self._data
    if not keepdim and array.ndim and isinstance(dim, (tuple, list)) and not dim:
        # PyTorch 2.13 reduces every dim for dim=(), but then writes its kept-dims result
        # into the output allocated without them.
        raise RuntimeError(f"output with shape [] doesn't match the broadcast shape "
                           f"{[1] * array.ndim}")
    if kind_of(array.dtype) not in "fc":
        array = array.astype(np.float32)
    dims = normalize_dims(dim, array.ndim)
    if array.size:
        # by the largest real part for complex x: |exp(x)| is exp of the real part
        shift = np.amax(array.real if array.dtype.kind == "c" else array, axis=dims,
                        keepdims=True)
        shift = np.where(np.isfinite(shift), shift, 0)  # all -inf (or an inf) in a slice
    else:
        shift = array_module(array).zeros(kept_shape(array.shape, dims), dtype=array.dtype)
    with ignoring_fp_errors():  # log(0) = -inf for empty slices
        # float16 and bfloat16: each step rounded to the type, as PyTorch's composite
        # (x - max, exp, log, + max), and the sum accumulated in float32 (NOTE
        # [Half-precision products and reductions])
        total = sum_array(np.exp(array - shift), dims, True, None)
        total = np.log(total)
    total += shift
    cdef Tensor out = contiguous_result(total if keepdim else np.squeeze(total, axis=dims))
    if records(self):
        record_reduction(LogsumexpBackward0(), self, out, dims, keepdim, (self, out))
    if forward_level():
        forward1(out, self, slice_tangent, (LogsumexpBackward0(), dims, keepdim))
    return out


batch_unary(sum_tangent)           # NOTE [Batched tangents]
batch_unary(mean_tangent)

# NOTE [expand and sum differentiate into each other] in shape.pyx
use_reductions(sum, sum_to_grad)


# NOTE [Complex tangents] in forward.pyx: these formulas are checked for complex tensors.
from autograd_cy._C.forward cimport complex_unary
complex_unary(sum_tangent)
complex_unary(mean_tangent)
complex_unary(slice_tangent)       # prod and logsumexp (norm takes the moduli first)
