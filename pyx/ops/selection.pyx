# cython: allow_none_for_extension_args=False
"""Selection ops: clamp (clip), maximum, minimum and where, with their backward.

Each output element is one of the inputs' elements (or a bound), so each backward routes
the gradient by a boolean mask: to ``self`` where it lies inside clamp's bounds, to the
larger (smaller) operand of maximum (minimum), to ``input`` or ``other`` by where's
condition. Masks are plain boolean arrays and carry no gradient, as in PyTorch.

What is subtle: maximum and minimum split the gradient half and half where the operands tie;
where ``min > max`` clamp's output is ``max`` everywhere, so a tensor ``max`` gets the whole
gradient and a tensor ``min`` none; a missing tensor bound is saved as None, so
``grad_fn._saved_min`` reads None.
"""
import numpy as np

from autograd_cy._C.dtype cimport kind_of, scalar_name
from autograd_cy._C.fp_errors cimport ignoring_fp_errors
from autograd_cy._C.grad_mode cimport is_grad_enabled, forward_level
from autograd_cy._C.forward cimport forward2
from autograd_cy._C.device cimport is_array
from autograd_cy._C.tensor cimport (
    Tensor, make_tensor, requires_grad, array_module,
)
from autograd_cy._C.node cimport Node, unpack_saved
from autograd_cy._C.ops.op_table cimport ElementwiseNode
from autograd_cy._C.saved_tensor cimport SavedTensor
from autograd_cy._C.recording cimport record, record1, record2, any_requires_grad2
from autograd_cy._C.promotion cimport (
    wrap, result_type, operand_array, result_type_of, broadcasting, expect_tensor,
    refuse_complex,
)
from autograd_cy._C.views cimport apply_inplace
from autograd_cy._C.overlap cimport elementwise_overlap_checks
from autograd_cy._C.ops.arithmetic import mul

__all__ = ["clamp", "clip", "maximum", "minimum", "where", "clamp_", "clip_"]
__tensor_methods__ = tuple(name for name in __all__ if name != "where")


cdef inline object mask(object array):
    """A boolean array as a Tensor that needs no gradient (the condition of ``where``)."""
    return make_tensor(array)


# ------------------------------------------------------------------ clamp

cdef class ClampBackward1(ElementwiseNode):
    """clamp with number bounds: the gradient passes where ``min <= self <= max``."""
    saved_names = ("self",)
    cdef readonly object saved_min       # the number bounds (None: unbounded)
    cdef readonly object saved_max

    cpdef tuple apply(self, tuple grads):
        x = (<SavedTensor>self.saved_tensors[0]).unpack_array(self)
        inside = None
        if self.saved_min is not None:
            inside = x >= self.saved_min
        if self.saved_max is not None:
            below_max = x <= self.saved_max
            inside = below_max if inside is None else inside & below_max
        return (where(mask(inside), grads[0], 0.0),)


cdef class ClampBackward0(ElementwiseNode):
    """clamp with tensor bounds; a bound gets the gradient where it is the output."""
    saved_names = ("self", "min", "max")      # a missing bound is saved as None

    cpdef tuple apply(self, tuple grads):
        grad = grads[0]
        x = saved_array(self, 0)
        low = saved_array(self, 1)
        high = saved_array(self, 2)
        self_grad = min_grad = max_grad = None
        if self.should_compute_output(0):
            if low is None:
                inside = x <= high
            elif high is None:
                inside = x >= low
            else:
                inside = (x >= low) & (x <= high)
            self_grad = where(mask(inside), grad, 0.0)
        # With min > max the output is max everywhere: min never wins, max always does.
        if low is not None and self.should_compute_output(1):
            below = x < low if high is None else (x < low) & (low < high)
            min_grad = where(mask(below), grad, 0.0)
        if high is not None and self.should_compute_output(2):
            above = x > high if low is None else (x > high) | (high < low)
            max_grad = where(mask(above), grad, 0.0)
        return (self_grad, min_grad, max_grad)


cdef inline object saved_array(Node node, Py_ssize_t i):
    """The array of ``node``'s ``i``-th saved tensor, version-checked; None if none was saved."""
    cdef object saved = node.saved_tensors[i]
    return None if saved is None else (<SavedTensor>saved).unpack_array(node)


from autograd_cy._C.forward cimport forward1, forward_n
from autograd_cy._C.ops.arithmetic import add

# NOTE [Tangents of selections]
# Each output element is one input element (or a constant bound), so the tangent is picked
# by the same masks as the gradient: the tangent of the input the element came from, zero
# for a constant. A missing tangent is zero. maximum/minimum take the mean of both tangents
# where the operands tie, as the gradient splits half and half; where an operand is NaN
# neither wins and the tangent is ``other``'s (PyTorch's formula).

cdef object pick(object selected, object tangent, object rest):
    """``where(selected, tangent, rest)``, with a None tangent read as zero."""
    if tangent is None:
        return rest
    return where(mask(selected), tangent, 0.0 if rest is None else rest)


cdef object clamp_number_tangent(Tensor self_t, Tensor self, Tensor result, tuple extra):
    """``self_t`` where ``low <= self <= high``, else 0."""
    x = self._data
    low, high = extra
    inside = None
    if low is not None:
        inside = x >= low
    if high is not None:
        below_max = x <= high
        inside = below_max if inside is None else inside & below_max
    return where(mask(inside), self_t, 0.0)


cdef object clamp_tangent(tuple tangents, tuple inputs, Tensor result, tuple extra):
    """clamp with tensor bounds: ``self_t`` inside the bounds, a bound's tangent where
    the bound is the output (with ``min > max``, ``max`` is the output everywhere)."""
    self_t, low_t, high_t = tangents
    dtype = result._data.dtype
    x = operand_array(inputs[0], dtype)
    low = operand_array(inputs[1], dtype) if inputs[1] is not None else None
    high = operand_array(inputs[2], dtype) if inputs[2] is not None else None
    if low is None:
        inside, below, above = x <= high, None, x > high
    elif high is None:
        inside, below, above = x >= low, x < low, None
    else:
        inside = (x >= low) & (x <= high)
        below, above = (x < low) & (low < high), (x > high) | (high < low)
    tangent = pick(inside, self_t, None)
    if low_t is not None:
        tangent = pick(below, low_t, tangent)
    if high_t is not None:
        tangent = pick(above, high_t, tangent)
    if tangent is None:
        return None
    return tangent.expand(result.shape) if tuple(tangent.shape) != result._data.shape else tangent


# NOTE [Ties keep the first operand]
# Where two operands compare equal, PyTorch's maximum, minimum and clamp (and relu, a clamp at
# 0) return the first one: maximum(-0.0, 0.0) is -0.0 and clamp(-0.0, min=0) is -0.0, a sign
# that 1 / x or rsqrt then shows. NumPy's maximum and minimum pick either operand of a tie
# (the second for float32 and float64, the first for float16), so first_on_ties puts the
# first operand's zero back where both were zeros (the only ties whose values differ).

cdef object first_on_ties(object result, object first):
    """``result`` of a maximum/minimum with ``first``'s value where both operands were zeros
    (NOTE [Ties keep the first operand])."""
    if isinstance(result, np.generic):      # NumPy gives a 0-dim result as a scalar
        result = np.asarray(result)
    if type(result) is not np.ndarray or kind_of(result.dtype) != "f":
        return result       # (a CUDA array: its kernels decide ties themselves)
    with ignoring_fp_errors():
        ties = (result == 0) & (first == 0)
    if ties.any():      # in place: the result keeps the memory order NumPy gave it
        np.copyto(result, first, where=ties, casting="unsafe")
    return result


def _clamp_arrays(x, low, high):
    """``min(max(x, low), high)``, NaN-propagating; a tie keeps the first operand (NOTE
    [Ties keep the first operand])."""
    if low is None:
        return first_on_ties(np.minimum(x, high), x)
    result = first_on_ties(np.maximum(x, low), x)
    if high is None:
        return result
    return first_on_ties(np.minimum(result, high), result)


cdef void refuse_complex_bounds(object dtype, object min, object max) except *:
    """A complex tensor bound of a real tensor (``dtype``, the promoted one, complex):
    torch's kernel of that dtype refuses it (maximum's for ``min`` alone, minimum's for
    ``max`` alone, clamp's for both)."""
    if dtype.kind == "c":
        kernel = ("clamp_cpu" if min is not None and max is not None
                  else "maximum_cpu" if min is not None else "minimum_cpu")
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{scalar_name(dtype)}'")


cdef object real_bound(object bound):
    """A Python complex number bound of a real tensor, as torch reads it: a number without
    an imaginary part is its real part; another one cannot become a double."""
    if isinstance(bound, complex):
        if bound.imag:
            raise RuntimeError("value cannot be converted to type double without overflow")
        return bound.real
    return bound


def clamp(Tensor self, min=None, max=None):
    """Limit ``self`` to ``[min, max]``; bounds are numbers or tensors (broadcast), or None.

    The gradient passes where ``min <= self <= max``; a tensor bound gets it where
    it is the output (where ``min > max`` the output is ``max``).

    >>> x = ag.tensor([-2.0, 0.5, 3.0], requires_grad=True)
    >>> y = ag.clamp(x, min=0.0, max=1.0)
    >>> y.sum().backward()
    >>> y, x.grad
    (tensor([0.0000, 0.5000, 1.0000], grad_fn=<ClampBackward1>), tensor([0., 1., 0.]))
    """
    cdef ClampBackward1 node1
    if min is None and max is None:      # checked before the dtype, as PyTorch
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    refuse_complex(self, NotImplementedError, "clamp is not supported for complex types")
    min_is_tensor, max_is_tensor = isinstance(min, Tensor), isinstance(max, Tensor)
    if (min_is_tensor and not max_is_tensor and max is not None) or (
            max_is_tensor and not min_is_tensor and min is not None):
        raise TypeError(
            f"clamp() received an invalid combination of arguments - got (Tensor, "
            f"{type(min).__name__}, {type(max).__name__}), but expected one of:\n"
            " * (Tensor input, Tensor min = None, Tensor max = None)\n"
            " * (Tensor input, Number min = None, Number max = None)")
    if not (min_is_tensor or max_is_tensor):
        min, max = real_bound(min), real_bound(max)
    dtype = result_type_of((self, min, max))
    if min_is_tensor or max_is_tensor:
        refuse_complex_bounds(dtype, min, max)
    x = operand_array(self, dtype)
    if not (min_is_tensor or max_is_tensor):
        # (operand_array: a bound as bfloat16 wants it, NOTE [bfloat16's kind])
        out = wrap(_clamp_arrays(x, None if min is None else operand_array(min, dtype),
                                 None if max is None else operand_array(max, dtype)))
        if is_grad_enabled() and requires_grad(self):
            node1 = ClampBackward1()
            node1.saved_min, node1.saved_max = min, max
            record1(node1, self, out, (self,))
        if forward_level():
            forward1(out, self, clamp_number_tangent, (min, max))
        return out
    low = operand_array(min, dtype) if min is not None else None
    high = operand_array(max, dtype) if max is not None else None
    out = wrap(broadcasting(_clamp_arrays, (self, min, max), (x, low, high)))
    if is_grad_enabled() and (requires_grad(self) or (min_is_tensor and requires_grad(min))
                              or (max_is_tensor and requires_grad(max))):
        record(ClampBackward0(), (self, min, max), (out,), (self, min, max))
    if forward_level():
        forward_n(out, (self, min, max), clamp_tangent)
    return out


clip = clamp


# ------------------------------------------------------------------ maximum / minimum

cdef class MaximumBackward0(ElementwiseNode):
    """The larger operand gets the gradient; ties split it half and half (as PyTorch)."""
    saved_names = ("self", "other")

    cpdef tuple apply(self, tuple grads):
        a = saved_array(self, 0)
        b = saved_array(self, 1)
        return split_grad(self, grads[0], a, b, a < b, a > b)


cdef class MinimumBackward0(MaximumBackward0):
    """The smaller operand gets the gradient; ties split it half and half."""

    cpdef tuple apply(self, tuple grads):
        a = saved_array(self, 0)
        b = saved_array(self, 1)
        return split_grad(self, grads[0], a, b, a > b, a < b)


cdef tuple split_grad(Node node, object grad, object a, object b, object self_loses,
                      object other_loses):
    """Gradients of an elementwise max/min: zero for the losing side, half each on ties.

    Where either operand is NaN nobody loses and both get the whole gradient (PyTorch).
    """
    ties = a == b
    shared = where(mask(ties), mul(grad, 0.5), grad) if ties.any() else grad
    return (where(mask(self_loses), 0.0, shared) if node.should_compute_output(0) else None,
            where(mask(other_loses), 0.0, shared) if node.should_compute_output(1) else None)


cdef Tensor binary_extremum(object self, object other, str name, object ufunc,
                            MaximumBackward0 node):
    cdef Tensor a = expect_tensor(self, name, "input", 1)
    cdef Tensor b = expect_tensor(other, name, "other", 2)
    refuse_complex(a, RuntimeError, f"{name} not implemented for complex tensors.")
    refuse_complex(b, RuntimeError, f"{name} not implemented for complex tensors.")
    dtype = result_type(a, b)
    first = operand_array(a, dtype)
    array = broadcasting(ufunc, (a, b), (first, operand_array(b, dtype)))
    out = wrap(first_on_ties(array, first))      # NOTE [Ties keep the first operand]
    if is_grad_enabled() and (requires_grad(a) or requires_grad(b)):
        record2(node, a, b, out, (a, b))
    if forward_level():
        forward2(out, a, b, extremum_tangent, (ufunc is np.maximum,))
    return out


cdef object extremum_tangent(a_t, b_t, a, b, Tensor result, tuple extra):
    """``b_t + w * (a_t - b_t)``, ``w`` 1 where ``a`` wins, 0.5 on ties, else 0 (a NaN
    operand wins nothing: ``b_t``, as PyTorch's formula)."""
    cdef bint largest = extra[0]
    x, y = (<Tensor>a)._data, (<Tensor>b)._data
    wins = (x > y) if largest else (x < y)
    dtype = result._data.dtype
    weight = wins.astype(dtype) + (x == y).astype(dtype) * 0.5    # wins and ties exclude
    tangent = None if a_t is None else mul(a_t, make_tensor(weight))
    if b_t is not None:
        b_part = mul(b_t, make_tensor(1 - weight))
        tangent = b_part if tangent is None else add(tangent, b_part)
    return tangent.expand(result.shape) if tuple(tangent.shape) != result._data.shape else tangent


def maximum(self, other):
    """Elementwise maximum of two tensors (NaN-propagating, broadcasting).

    Where the operands tie, each gets half of the gradient, as in PyTorch:

    >>> a = ag.tensor([1.0, 2.0], requires_grad=True)
    >>> b = ag.tensor([1.0, 0.0], requires_grad=True)
    >>> ag.maximum(a, b).sum().backward()
    >>> a.grad, b.grad
    (tensor([0.5000, 1.0000]), tensor([0.5000, 0.0000]))
    """
    return binary_extremum(self, other, "maximum", np.maximum, MaximumBackward0())


def minimum(self, other):
    """Elementwise minimum of two tensors (NaN-propagating, broadcasting)."""
    return binary_extremum(self, other, "minimum", np.minimum, MinimumBackward0())


# ------------------------------------------------------------------ where

cdef class WhereBackward0(ElementwiseNode):
    """``input`` gets the gradient where the condition holds, ``other`` elsewhere."""
    saved_names = ("condition",)

    complex_formulas = True     # linear: it only picks the gradient's elements
    # PyTorch's formula does not take the real part for a real operand of a complex where,
    # so its engine refuses that gradient (validate_outputs.pyx raises its error)
    complex_gradient_for_real_inputs = True

    cpdef tuple apply(self, tuple grads):
        condition = unpack_saved(self, 0)
        grad = grads[0]
        return (where(condition, grad, 0.0) if self.should_compute_output(0) else None,
                where(condition, 0.0, grad) if self.should_compute_output(1) else None)


cdef object _MISSING = object()


cdef object where_tangent(input_t, other_t, input, other, Tensor result, tuple extra):
    """``where(condition, input_t, other_t)``, a missing tangent read as zeros."""
    condition = extra[0]
    zero = 0.0
    return where(condition, zero if input_t is None else input_t,
                 zero if other_t is None else other_t) + make_tensor(
                     array_module(result._data).zeros_like(result._data))


def where(Tensor condition, input=_MISSING, other=_MISSING):
    """Elements of ``input`` where ``condition`` holds, else of ``other`` (broadcasting).

    ``input`` and ``other`` may be tensors or numbers; they are promoted to a common
    dtype. ``where(condition)`` alone is ``nonzero(condition, as_tuple=True)``.

    >>> x = ag.tensor([-1.0, 2.0])
    >>> ag.where(x > 0, x, 0.0)
    tensor([0., 2.])
    """
    if input is _MISSING and other is _MISSING:
        return tuple([make_tensor(index.astype(np.int64, copy=False))
                      for index in np.nonzero(condition._data)])
    if input is _MISSING or other is _MISSING:
        raise TypeError("where() missing required argument 'input' or 'other'")
    if condition._data.dtype.kind != "b":
        raise RuntimeError(f"where expected condition to be a boolean tensor, but got a tensor "
                           f"with dtype {condition.dtype._scalar_name}")
    if is_array(input):
        input = make_tensor(input)
    if is_array(other):
        other = make_tensor(other)
    dtype = result_type_of((input, other))
    array = broadcasting(np.where, (condition, input, other),
                         (condition._data, operand_array(input, dtype),
                          operand_array(other, dtype)))
    if array.dtype != dtype:  # two Python numbers: NumPy's float64, PyTorch's float32
        array = array.astype(dtype)
    out = wrap(array)
    if any_requires_grad2(input, other):
        record2(WhereBackward0(), input, other, out, (condition,))
    if forward_level():
        forward2(out, input, other, where_tangent, (condition,))
    return out


# ------------------------------------------------------------------ in-place

cdef void clamp_checks(Tensor self, tuple others) except *:
    """clamp_'s refusal of a complex ``self`` comes after the leaf checks and before the
    overlap checks, as torch's (its kernel's meta function checks the dtype first)."""
    if others[0] is not None or others[1] is not None:
        refuse_complex(self, NotImplementedError, "clamp is not supported for complex types",
                       False)
    elementwise_overlap_checks(self, others)
    if not (isinstance(others[0], Tensor) or isinstance(others[1], Tensor)):
        return
    dtype = result_type_of((self,) + others)
    if dtype.kind == "c":       # (a real self: the cast is refused before the bound's kernel)
        raise RuntimeError(f"result type {scalar_name(dtype)} can't be cast to the desired "
                           f"output type {self.dtype._scalar_name}")


def clamp_(Tensor self, min=None, max=None):
    """In-place :func:`clamp`."""
    return apply_inplace(self, lambda x: clamp(x, min, max), (min, max), True, None, None,
                         clamp_checks)


clip_ = clamp_


# NOTE [Complex tangents] in forward.pyx: these formulas are checked for complex tensors.
from autograd_cy._C.forward cimport complex_binary
complex_binary(where_tangent)
