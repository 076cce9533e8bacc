"""The ``_foreach_*`` ops: one op over every tensor of a list, as torch names them.

``_foreach_add_(params, grads, alpha=-lr)`` is an SGD update of every parameter at once.
Their meaning is the loop ``for t, o in zip(self, other): t.add_(o, alpha=alpha)``, and on
the CPU that loop is what runs: each tensor goes through the library's own op, with its
checks, version bump and (when recording) its graph. On a CUDA device the point is the
launch count: a list of N tensors would cost N launches, so when nothing needs recording
the whole list is one launch per dtype (NOTE [Foreach on CUDA]).

As in torch, the out-of-place forms are differentiable (each output records the op's
ordinary backward; torch records one ``Foreach*Backward`` node for the list) and return a
tuple; the in-place forms return ``self`` and refuse a leaf that requires grad outside
``no_grad`` as ``add_`` does.
"""
import numbers

import numpy as np

from autograd_cy._C.grad_mode import _forward_level
from autograd_cy._C.ops.inplace import _check_write, _increment_version
from autograd_cy._C.tensor import Tensor, _array_of, _wrap_array
from autograd_cy.dtypes import complex128, float64
from autograd_cy.grad_mode import is_grad_enabled

__all__ = ["_foreach_add", "_foreach_add_", "_foreach_sub", "_foreach_sub_", "_foreach_mul",
           "_foreach_mul_", "_foreach_div", "_foreach_div_", "_foreach_neg", "_foreach_neg_",
           "_foreach_sqrt", "_foreach_sqrt_", "_foreach_maximum", "_foreach_maximum_",
           "_foreach_lerp", "_foreach_lerp_", "_foreach_addcmul", "_foreach_addcmul_",
           "_foreach_addcdiv", "_foreach_addcdiv_", "_foreach_zero_", "_foreach_copy_"]


# ------------------------------------------------------------------ arguments

def _invalid_arguments(name, *args):
    got = ", ".join(type(a).__name__ for a in args)
    return TypeError(f"{name}() received an invalid combination of arguments - got ({got})")


def _tensor_list(name, value, position, *args):
    """``value`` as a list of Tensors (torch's ``Tensor[]`` argument), or torch's errors."""
    if not isinstance(value, (list, tuple)):
        raise _invalid_arguments(name, *args)
    for i, t in enumerate(value):
        if not isinstance(t, Tensor):
            raise TypeError(f"expected Tensor as element {i} in argument {position}, but got "
                            f"{type(t).__name__}")
    if not value:
        raise RuntimeError("Tensor list must have at least one tensor.")
    return list(value)


def _same_length(tensors, others):
    """torch's error for two lists of Tensors of different lengths."""
    if len(others) != len(tensors):
        raise RuntimeError(f"Tensor lists must have the same number of tensors, got "
                           f"{len(tensors)} and {len(others)}")


_NUMBER_TYPES = (int, float, complex, np.number, np.bool_)   # bool is an int


def _is_number(value):
    return isinstance(value, _NUMBER_TYPES)


def _other_operands(name, tensors, other, *args):
    """The per-tensor second operands of a binary op: a list of Tensors (``.List``), of
    numbers (``.ScalarList``), one 0-dim Tensor (``.Tensor``) or a number (``.Scalar``);
    returns (kind, operands) with one operand per tensor."""
    if isinstance(other, (list, tuple)):
        if other and not isinstance(other[0], Tensor) and all(map(_is_number, other)):
            if len(other) != len(tensors):
                raise RuntimeError("Tensor list must have same number of elements as scalar "
                                   "list.")
            return "scalars", list(other)
        others = _tensor_list(name, other, 1, *args)
        _same_length(tensors, others)
        return "tensors", others
    if isinstance(other, Tensor):
        if other.dim() != 0:
            raise RuntimeError(f"scalar tensor expected to be 0 dim but it has {other.dim()} "
                               f"dimensions and {other.numel()} elements.")
        return "tensor", [other] * len(tensors)
    if _is_number(other):
        return "scalar", [other] * len(tensors)
    raise _invalid_arguments(name, *args)


# ------------------------------------------------------------------ the CUDA fast path

# NOTE [Foreach on CUDA]
# When nothing is recorded (grad mode off, or no tensor requires grad) and every tensor is a
# contiguous CUDA tensor of one device whose result keeps its dtype, the list goes to
# foreach_apply (cuda/foreach.cu, NOTE [Multi-tensor launch]): one launch per dtype present
# (per 64 tensors). Written data is then the same as the loop's, and each written tensor's
# version is bumped as its in-place op would bump it; with nothing recorded, that is all
# apply_inplace would have done besides the write. Anything else (a CPU list, a recorded
# op, a dtype promotion, a broadcast, a non-contiguous view, a number list) takes the loop,
# whose ops give torch's errors.

def _keeps_dtype(dtype, value):
    """Whether ``tensor (dtype) op value`` (a number) keeps ``dtype``: floats take any int
    or float, integers only ints (a bool, or a float for an integer tensor, promotes)."""
    if isinstance(value, (bool, np.bool_)):
        return False
    if isinstance(value, (numbers.Integral, np.integer)):
        return True
    return dtype.is_floating_point and isinstance(value, (numbers.Real, np.floating))


def _overlaps_partly(a, b):
    """Whether two contiguous tensors share memory other than element for element (the
    loop's ops check such overlaps and refuse or handle them)."""
    start_a, start_b = a.data_ptr(), b.data_ptr()
    if start_a == start_b:
        return False
    return start_a < start_b + b.numel() * b.element_size() and \
        start_b < start_a + a.numel() * a.element_size()


def _cuda_groups(tensors, others, scalar):
    """{dtype: [indices]} when the list may take the fast path, else None."""
    if not tensors[0].is_cuda:
        return None             # a CPU list: the loop (which refuses a mix of devices)
    involved = tensors + (others or [])
    if not all(t.is_cuda for t in involved):
        return None
    if is_grad_enabled() and any(t.requires_grad for t in involved):
        return None
    if _forward_level():
        return None             # dual tensors: the per-tensor ops carry their tangents
    device = tensors[0].device
    groups = {}
    for i, t in enumerate(tensors):
        if t.device != device or not t.is_contiguous():
            return None
        if others is not None:
            o = others[i]
            if o.device != device or o.dtype != t.dtype or o.shape != t.shape \
                    or not o.is_contiguous() or _overlaps_partly(t, o):
                return None
        if scalar is not None and not _keeps_dtype(t.dtype, scalar):
            return None
        groups.setdefault(t.dtype, []).append(i)
    return groups


def _launch_groups(functor, groups, outs, firsts, seconds, scalar):
    from autograd_cy.cuda.foreach import has_kernel, launch_foreach
    if not all(has_kernel(functor, _array_of(outs[indices[0]]).dtype)
               for indices in groups.values()):
        return False
    for indices in groups.values():
        launch_foreach(functor, [_array_of(outs[i]) for i in indices],
                       None if firsts is None else [_array_of(firsts[i]) for i in indices],
                       None if seconds is None else [_array_of(seconds[i]) for i in indices],
                       scalar)
    return True


def _fast_binary(functor, tensors, kind, operands, scalar, inplace):
    """The fast path of add/sub/mul (NOTE [Foreach on CUDA]): the written tensors, or None
    when the loop must run. ``scalar`` is alpha for a list, the number for a scalar."""
    if kind == "tensors":
        groups = _cuda_groups(tensors, operands, scalar)
        seconds = operands
    elif kind == "scalar":
        groups = _cuda_groups(tensors, None, scalar)
        seconds = None
    else:
        return None
    if not groups:
        return None
    if inplace:
        for t in tensors:
            _check_write(t)
        outs = tensors
    else:
        from autograd_cy.cuda.array import empty
        outs = [_wrap_array(empty(tuple(t.shape), _array_of(t).dtype, _array_of(t).device))
                for t in tensors]
    if not _launch_groups(functor, groups, outs, tensors, seconds, scalar):
        return None
    if inplace:
        for t in tensors:
            _increment_version(t)
    return outs


# ------------------------------------------------------------------ the ops

def _binary(name, tensor_op, functor, self, other, alpha, inplace, scalar_functor,
            negate=False):
    """add/sub/mul/div over lists: ``tensor_op(t, o, **kw)`` per tensor, or the fast path
    (none for a functor of None: the CUDA kernel has no such functor)."""
    tensors = _tensor_list(name, self, 0, self, other)
    kind, operands = _other_operands(name, tensors, other, self, other)
    if alpha is not None and kind in ("scalar", "scalars"):
        raise _invalid_arguments(name, self, other)
    if kind == "scalars" and all(type(o) is type(operands[0]) and o == operands[0]
                                 for o in operands):
        kind, other = "scalar", operands[0]     # one number for all: the fast path's
    if functor is None:
        fast = None
    elif kind == "tensors":
        value = 1 if alpha is None else alpha
        fast = _fast_binary(functor, tensors, kind, operands,
                            -value if negate else value, inplace)
    elif kind == "scalar":
        fast = _fast_binary(scalar_functor, tensors, kind, operands,
                            -other if negate else other, inplace)
    else:
        fast = None
    if fast is not None:
        return self if inplace else tuple(fast)
    kwargs = {} if alpha is None else {"alpha": alpha}
    results = [tensor_op(t, o, **kwargs) for t, o in zip(tensors, operands)]
    return self if inplace else tuple(results)


def _foreach_add(self, other, *, alpha=None):
    """``self[i] + alpha * other[i]`` (or ``+ other`` for a number or a number list)."""
    return _binary("_foreach_add", Tensor.add, "AddScaled", self, other, alpha, False,
                   "AddScalar")


def _foreach_add_(self, other, *, alpha=None):
    """``self[i] += alpha * other[i]`` (or ``+= other``), in place; returns ``self``."""
    return _binary("_foreach_add_", Tensor.add_, "AddScaled", self, other, alpha, True,
                   "AddScalar")


def _foreach_sub(self, other, *, alpha=None):
    """``self[i] - alpha * other[i]`` (or ``- other``)."""
    return _binary("_foreach_sub", Tensor.sub, "AddScaled", self, other, alpha, False,
                   "AddScalar", negate=True)


def _foreach_sub_(self, other, *, alpha=None):
    """``self[i] -= alpha * other[i]`` (or ``-= other``), in place; returns ``self``."""
    return _binary("_foreach_sub_", Tensor.sub_, "AddScaled", self, other, alpha, True,
                   "AddScalar", negate=True)


def _foreach_mul(self, other):
    """``self[i] * other[i]`` (or ``* other``)."""
    return _binary("_foreach_mul", Tensor.mul, "MulList", self, other, None, False,
                   "MulScalar")


def _foreach_mul_(self, other):
    """``self[i] *= other[i]`` (or ``*= other``), in place; returns ``self``."""
    return _binary("_foreach_mul_", Tensor.mul_, "MulList", self, other, None, True,
                   "MulScalar")


def _foreach_div(self, other):
    """``self[i] / other[i]`` (or ``/ other``)."""
    return _binary("_foreach_div", Tensor.div, "DivList", self, other, None, False,
                   "DivScalar")


def _foreach_div_(self, other):
    """``self[i] /= other[i]`` (or ``/= other``), in place; returns ``self``."""
    return _binary("_foreach_div_", Tensor.div_, "DivList", self, other, None, True,
                   "DivScalar")


def _foreach_maximum(self, other):
    """``maximum(self[i], other[i])`` (a number: ``clamp(self[i], min=other)``)."""
    return _binary("_foreach_maximum", _maximum, "MaxList", self, other, None, False,
                   "MaxScalar")


def _foreach_maximum_(self, other):
    """``self[i] = maximum(self[i], other[i])`` in place; returns ``self``."""
    return _binary("_foreach_maximum_", _maximum_, "MaxList", self, other, None, True,
                   "MaxScalar")


def _maximum(t, other):
    if isinstance(other, Tensor):
        from autograd_cy import maximum
        return maximum(t, other)
    return t.clamp(min=other)


def _maximum_(t, other):
    if isinstance(other, Tensor):
        return t.copy_(_maximum(t, other))
    return t.clamp_(min=other)


# ------------------------------------------------------------------ unary ops

def _unary(name, tensor_op, self, inplace, fast=None):
    """``tensor_op(t)`` for every tensor of ``self`` (or ``fast(tensors)``, the fast path,
    when it does not return None)."""
    tensors = _tensor_list(name, self, 0, self)
    results = fast(tensors) if fast is not None else None
    if results is None:
        results = [tensor_op(t) for t in tensors]
    return self if inplace else tuple(results)


def _fast_neg(inplace):
    """Negation as a multiplication by -1 (exact), for floating and complex lists."""
    def fast(tensors):
        if not all(t.is_floating_point() or t.is_complex() for t in tensors):
            return None
        return _fast_binary("MulScalar", tensors, "scalar", None, -1, inplace)
    return fast


def _foreach_neg(self):
    """``-self[i]`` for every i."""
    return _unary("_foreach_neg", Tensor.neg, self, False, _fast_neg(False))


def _foreach_neg_(self):
    """Negate every tensor of ``self`` in place; returns ``self``."""
    return _unary("_foreach_neg_", Tensor.neg_, self, True, _fast_neg(True))


def _fast_sqrt(inplace):
    """Square roots of a floating list in one launch per dtype (SqrtList)."""
    def fast(tensors):
        if not all(t.is_floating_point() for t in tensors):
            return None
        return _fast_binary("SqrtList", tensors, "scalar", None, 0, inplace)
    return fast


def _foreach_sqrt(self):
    """``sqrt(self[i])`` for every i."""
    return _unary("_foreach_sqrt", Tensor.sqrt, self, False, _fast_sqrt(False))


def _foreach_sqrt_(self):
    """``self[i].sqrt_()`` for every i; returns ``self``."""
    return _unary("_foreach_sqrt_", Tensor.sqrt_, self, True, _fast_sqrt(True))


# ------------------------------------------------------------------ ternary ops

# NOTE [Ternary foreach ops as compositions]
# lerp, addcmul and addcdiv read two lists besides the one they write: the multi-tensor
# kernel's functors read at most two inputs (cuda/foreach.cu), and the library has no
# per-tensor lerp/addcmul/addcdiv op. So each is composed of the binary list ops, in the
# order torch's kernel computes: ``self + (value * t1) * t2``, ``self + (value * t1) / t2``,
# and lerp's two formulas (``self + w * (end - self)`` for a weight under 0.5 in
# magnitude, else ``end - (end - self) * (1 - w)``, exact at the end it is near). On CUDA
# each binary op is then one launch for the list where the kernel has its functor (add,
# sub, mul; division is one launch per tensor). The number operands are rounded to the
# tensors' dtype first, as torch's kernel rounds them (float32 for float16/bfloat16, whose
# intermediate results here are rounded to the half dtype where torch's kernel keeps them
# in float32).

def _scalar_of(t, value):
    """``value`` rounded as torch's kernels round a number operand of ``t``: to float32
    unless ``t`` is double precision (a half dtype computes in float32)."""
    if not (t.is_floating_point() or t.is_complex()):
        return value
    if t.dtype in (float64, complex128):
        return float(value)
    return float(np.float32(value))


def _scalar_list(name, tensors, value, *args):
    """The per-tensor numbers of ``value``: a number, a list of numbers, or a 1-D Tensor of
    them (torch's ``Scalar``, ``ScalarList`` and ``Tensor`` overloads)."""
    if isinstance(value, Tensor):
        if value.dim() != 1 or value.numel() != len(tensors):
            raise RuntimeError(f"Expected length of scalars to match input of length "
                               f"{len(tensors)} but got {value.numel()} instead.")
        return value.tolist()
    if isinstance(value, (list, tuple)):
        if not all(map(_is_number, value)):
            raise _invalid_arguments(name, *args)
        if len(value) != len(tensors):
            raise RuntimeError("Tensor list must have same number of elements as scalar "
                               "list.")
        return list(value)
    if _is_number(value):
        return [value] * len(tensors)
    raise _invalid_arguments(name, *args)


def _tensor_lists(name, lists, *args):
    """The Tensor-list arguments ``lists`` checked as torch checks them: each a list of
    Tensors (argument i), all of one length."""
    tensors = [_tensor_list(name, value, i, *args) for i, value in enumerate(lists)]
    for others in tensors[1:]:
        _same_length(tensors[0], others)
    return tensors


def _rounded(tensors, values):
    return [_scalar_of(t, v) for t, v in zip(tensors, values)]


def _addc(name, divide, self, tensor1, tensor2, value, inplace):
    """addcmul/addcdiv over lists: ``self + (value * tensor1) * tensor2`` (or ``/``)."""
    args = (self, tensor1, tensor2, value)
    tensors, firsts, seconds = _tensor_lists(name, (self, tensor1, tensor2), *args)
    values = _rounded(tensors, _scalar_list(name, tensors, value, *args))
    scaled = _foreach_mul(firsts, values)
    if divide:
        scaled = _foreach_div_(list(scaled), seconds)
    else:
        scaled = _foreach_mul_(list(scaled), seconds)
    return _foreach_add_(self, scaled) if inplace else _foreach_add(tensors, scaled)


def _foreach_addcmul(self, tensor1, tensor2, value=1):
    """``self[i] + value * tensor1[i] * tensor2[i]`` (``value`` a number, a list of
    numbers or a 1-D Tensor of them) (NOTE [Ternary foreach ops as compositions])."""
    return _addc("_foreach_addcmul", False, self, tensor1, tensor2, value, False)


def _foreach_addcmul_(self, tensor1, tensor2, value=1):
    """``self[i] += value * tensor1[i] * tensor2[i]``, in place; returns ``self``."""
    return _addc("_foreach_addcmul_", False, self, tensor1, tensor2, value, True)


def _foreach_addcdiv(self, tensor1, tensor2, value=1):
    """``self[i] + value * tensor1[i] / tensor2[i]``."""
    return _addc("_foreach_addcdiv", True, self, tensor1, tensor2, value, False)


def _foreach_addcdiv_(self, tensor1, tensor2, value=1):
    """``self[i] += value * tensor1[i] / tensor2[i]``, in place; returns ``self``."""
    return _addc("_foreach_addcdiv_", True, self, tensor1, tensor2, value, True)


def _lerp_with_tensor(t, end, weight):
    """torch's lerp with a Tensor weight: its formula chosen per element."""
    from autograd_cy import where
    diff = end - t
    return where(weight.abs() < 0.5, t + weight * diff, end - diff * (1 - weight))


def _lerp(name, self, tensors1, weight, inplace):
    """lerp over lists (NOTE [Ternary foreach ops as compositions]): with number weights
    all on one side of 0.5, each step one list op; else tensor by tensor."""
    args = (self, tensors1, weight)
    tensors, ends = _tensor_lists(name, (self, tensors1), *args)
    if isinstance(weight, (list, tuple)) and weight and isinstance(weight[0], Tensor):
        weights = _tensor_list(name, weight, 2, *args)
        _same_length(tensors, weights)
        results = [_lerp_with_tensor(t, e, w) for t, e, w in zip(tensors, ends, weights)]
        return _foreach_copy_(self, results) if inplace else tuple(results)
    weights = _rounded(tensors, _scalar_list(name, tensors, weight, *args))
    small = [abs(w) < 0.5 for w in weights]
    if not (all(small) or not any(small)):     # weights on both sides of 0.5
        results = [_lerp(name, [t], [e], [w], inplace)[0]
                   for t, e, w in zip(tensors, ends, weights)]
        return self if inplace else tuple(results)
    diffs = list(_foreach_sub(ends, tensors))
    if small[0]:
        _foreach_mul_(diffs, weights)
        return _foreach_add_(self, diffs) if inplace else _foreach_add(tensors, diffs)
    _foreach_mul_(diffs, _rounded(tensors, [1 - w for w in weights]))
    results = _foreach_sub(ends, diffs)
    return _foreach_copy_(self, list(results)) if inplace else results


def _foreach_lerp(self, tensors1, weight):
    """``self[i] + weight * (tensors1[i] - self[i])`` (``weight`` a number, a list of
    numbers or a list of Tensors) (NOTE [Ternary foreach ops as compositions])."""
    return _lerp("_foreach_lerp", self, tensors1, weight, False)


def _foreach_lerp_(self, tensors1, weight):
    """``self[i].lerp_(tensors1[i], weight)`` in place; returns ``self``."""
    return _lerp("_foreach_lerp_", self, tensors1, weight, True)


def _foreach_zero_(self):
    """Zero every tensor of ``self`` in place; returns ``self``."""
    tensors = _tensor_list("_foreach_zero_", self, 0, self)
    groups = _cuda_groups(tensors, None, 0)
    if groups and _launch_groups("Fill", groups, tensors, None, None, 0):
        for t in tensors:
            _increment_version(t)
        return self
    for t in tensors:
        t.zero_()
    return self


def _foreach_copy_(self, src, non_blocking=False):
    """``self[i].copy_(src[i])`` for every i; returns ``self``."""
    tensors = _tensor_list("_foreach_copy_", self, 0, self, src)
    sources = _tensor_list("_foreach_copy_", src, 1, self, src)
    _same_length(tensors, sources)
    groups = _cuda_groups(tensors, sources, None)
    if groups and _launch_groups("CopyList", groups, tensors, sources, None, 0):
        for t in tensors:
            _increment_version(t)
        return self
    for t, s in zip(tensors, sources):
        t.copy_(s, non_blocking)
    return self
