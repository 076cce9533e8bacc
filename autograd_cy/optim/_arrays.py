"""What an optimizer's CPU step needs to update parameters in their NumPy arrays
(NOTE [Optimizer steps on the arrays]).
"""
import math

import ml_dtypes
import numpy as np

from autograd_cy._C.ops.inplace import _check_write, _increment_version
from autograd_cy._C.tensor import _array_of

# NOTE [Optimizer steps on the arrays]
# torch's single-tensor step (``foreach=False``, its path on the CPU) is a dozen in-place
# tensor ops per parameter: ``exp_avg.lerp_(grad, 1 - beta1)``, ``exp_avg_sq.mul_(beta2)``,
# ``param.addcdiv_(exp_avg, denom, value=-step_size)`` ... Here, on the CPU, the same ops
# in the same order run as NumPy ufuncs with ``out=`` on the tensors' own arrays: no Tensor
# is made, nothing is recorded (torch steps under no_grad too), and each written tensor's
# version is bumped once afterwards, as an in-place op bumps it, so that a graph which
# saved a parameter refuses to backward through the stale value.
#
# Rounding follows torch's CPU kernels. A Python number operand is rounded to the tensor's
# dtype (float32 for a float32 parameter: NumPy does the same with a weak Python scalar).
# A float16 or bfloat16 parameter is computed in float32 ("opmath"): each torch op reads
# its half operands as float32, keeps its scalar in float32, and rounds its result once to
# the half dtype. So each op here runs its loop in float32 (``dtype=float32``) and writes
# the half array (``casting="unsafe"``); an op of several steps (addcmul, addcdiv, lerp)
# keeps its intermediates in float32 scratch, and a tensor torch materialises between ops
# (``grad.add(param, alpha=weight_decay)``, the ``denom``) is rounded to the half dtype.
# Two of torch's ops round their number to the half dtype first, though: ``add``'s alpha
# and a number added (``denom.add_(eps)``); the others (mul, div, lerp's weight, addcmul's
# and addcdiv's value) keep it in float32.
# A complex parameter is updated through its real view, as torch's Adam views it.
#
# Values agree with torch's to an ulp or so, not bit for bit: torch's vectorised kernels
# use fused multiply-adds (``add`` with alpha, ``lerp``), which NumPy has no ufunc for, and
# with AVX-512 a float32 sqrt that is not always correctly rounded.

__all__ = ["on_numpy", "real_array", "compute_type", "Scratch", "checked_writes",
           "bump_versions", "add_scaled_", "added", "add_number_", "lerp_", "addcmul_",
           "addcdiv_"]

#: the casting of every ufunc call that writes a half array from its float32 loop
UNSAFE = "unsafe"

_HALF_DTYPES = frozenset({np.dtype(np.float16), np.dtype(ml_dtypes.bfloat16)})


def on_numpy(tensors):
    """Whether every tensor's array is a plain NumPy array that holds its values (a CPU
    tensor, not a lazily conjugated or negated view)."""
    for t in tensors:
        if t.is_cuda or t.is_conj() or t.is_neg() or not isinstance(_array_of(t), np.ndarray):
            return False
    return True


def real_array(t):
    """``t``'s array, a complex one viewed as real (each value as two floats); None when
    NumPy cannot view it so (its last dimension not contiguous)."""
    array = _array_of(t)
    if array.dtype.kind != "c":
        return array
    if array.ndim == 0:
        array = array[None]
    try:
        return array.view(array.real.dtype)
    except ValueError:
        return None


def compute_type(array):
    """The NumPy scalar type the ops on ``array`` compute in: float32 for a half dtype
    (float16, bfloat16), the array's own otherwise."""
    if array.dtype in _HALF_DTYPES:
        return np.float32
    return array.dtype.type


class Scratch:
    """Reusable scratch arrays: ``take(shape, dtype, k)`` is the k-th buffer as an array of
    ``shape``, without allocating once the largest shape has been seen (a fresh large
    array would page-fault on every step)."""

    def __init__(self):
        self._buffers = {}

    def take(self, shape, dtype, k):
        size = math.prod(shape)
        key = (np.dtype(dtype), k)
        buffer = self._buffers.get(key)
        if buffer is None or buffer.size < size:
            buffer = self._buffers[key] = np.empty(size, dtype)
        return buffer[:size].reshape(shape)


def checked_writes(tensors):
    """What every in-place op checks before it writes (an inference tensor outside
    inference mode is refused)."""
    for t in tensors:
        _check_write(t)


def bump_versions(tensors):
    """Bump each written tensor's version once, as its in-place op would."""
    for t in tensors:
        _increment_version(t)


# ------------------------------------------------------------------ torch's in-place ops

def add_scaled_(out, a, b, alpha, ct, tmp):
    """``out = a + alpha * b`` (torch's ``add`` with ``alpha``), through ``tmp``. torch
    rounds ``alpha`` to the tensor's dtype, a half one included."""
    np.multiply(b, ct(out.dtype.type(alpha)), out=tmp, dtype=ct)
    np.add(a, tmp, out=out, dtype=ct, casting=UNSAFE)


def added(a, b, alpha, ct, tmp):
    """``a + alpha * b`` as a new array of ``a``'s dtype (torch's ``a.add(b, alpha=...)``)."""
    out = np.empty_like(a)
    add_scaled_(out, a, b, alpha, ct, tmp)
    return out


def add_number_(out, value, ct):
    """``out.add_(value)``: torch rounds the number to the tensor's dtype, a half one
    included, before adding in ``ct``."""
    np.add(out, ct(out.dtype.type(value)), out=out, dtype=ct, casting=UNSAFE)


def lerp_(start, end, weight, ct, tmp):
    """``start.lerp_(end, weight)`` for a number weight, with torch's two formulas (the
    one that stays exact at its end: ``start`` for a small weight, ``end`` for a large)."""
    w = ct(weight)
    np.subtract(end, start, out=tmp, dtype=ct)
    if abs(w) < 0.5:
        np.multiply(tmp, w, out=tmp)
        np.add(start, tmp, out=start, dtype=ct, casting=UNSAFE)
    else:
        np.multiply(tmp, ct(1) - w, out=tmp)
        np.subtract(end, tmp, out=start, dtype=ct, casting=UNSAFE)


def addcmul_(out, t1, t2, value, ct, tmp):
    """``out.addcmul_(t1, t2, value=value)``: ``out + value * t1 * t2``."""
    np.multiply(t1, ct(value), out=tmp, dtype=ct)
    np.multiply(tmp, t2, out=tmp, dtype=ct)
    np.add(out, tmp, out=out, dtype=ct, casting=UNSAFE)


def addcdiv_(out, t1, t2, value, ct, tmp):
    """``out.addcdiv_(t1, t2, value=value)``: ``out + value * t1 / t2``."""
    np.multiply(t1, ct(value), out=tmp, dtype=ct)
    np.divide(tmp, t2, out=tmp, dtype=ct)
    np.add(out, tmp, out=out, dtype=ct, casting=UNSAFE)
