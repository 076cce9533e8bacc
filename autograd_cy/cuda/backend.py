"""The CUDA backend's answers to the core's Backend (NOTE [One backend interface] in
pyx/device.pxd): each question an op asks of a DeviceArray's device is one launch of a
kernel of cuda/ (NOTE [Fused formulas on CUDA] in pyx/device.pyx).

A method answers None where one launch would not give the NumPy formula's result (operands
of another dtype or device, a shape the result cannot take); the op then runs its NumPy
formula, whose launches (and errors) are those of any NumPy call on a DeviceArray.
``autograd_cy.cuda`` adds the moves between devices and the streams, and fills the core's
slot with it (NOTE [The CUDA backend slot]).
"""
import numpy as np

from autograd_cy._C.device import Backend
from autograd_cy.cuda import foreach as _foreach
from autograd_cy.cuda import gemm as _gemm
from autograd_cy.cuda import rows as _rows
from autograd_cy.cuda.array import DeviceArray, floating


def _takes_shape_and_dtype(grad, operand):
    """Whether ``operand`` is a DeviceArray of ``grad``'s float dtype that broadcasts to its
    shape: a fused formula's result takes the gradient's shape and dtype, which is NumPy's
    only then."""
    if type(operand) is not DeviceArray or operand.dtype != grad.dtype:
        return False
    if not floating(grad.dtype):
        return False
    if operand.shape == grad.shape:
        return True
    try:
        return np.broadcast_shapes(grad.shape, operand.shape) == grad.shape
    except ValueError:
        return False


class CudaBackend(Backend):
    """One launch per question, for DeviceArrays (see the module docstring)."""

    array_type = DeviceArray

    def fused(self, formula, grad, operand, scalars=()):
        """``formula<T>`` of cuda/pointwise_backward.cu over ``grad`` and ``operand``."""
        if not _takes_shape_and_dtype(grad, operand):
            return None
        return grad.fused(formula, (operand,), scalars)

    def fused_pair(self, formula, grad, a, b, need_a, need_b):
        """Both gradients of a binary op in one launch (NOTE [Two gradients in one pass] in
        cuda/pointwise_backward.cu), operands of the gradient's dtype and device."""
        for operand in (a, b):
            if operand is not None and (type(operand) is not DeviceArray
                                        or operand.dtype != grad.dtype):
                return None
        return grad.fused_pair(formula, a, b, (need_a, need_b))

    def unary(self, functor, x):
        """``unary<T, functor>`` over ``x``."""
        return x.apply_functor(functor)

    def rows(self, formula, arrays, dim, scalars=()):
        """cuda/softmax.cu along ``dim`` (autograd_cy/cuda/rows.py)."""
        return _rows.rows(formula, arrays, dim, scalars)

    def loss(self, name, arrays, options):
        """cuda/loss.cu (autograd_cy/cuda/rows.py)."""
        return _rows.loss(name, arrays, options)

    def has_gemm(self, array):
        """gemm.cu is instantiated for the float dtypes, and multiplies matrices: a batch of
        gradients (``is_grads_batched``) takes AddmmBackward0's general formula."""
        return (type(array) is DeviceArray and array.ndim == 2
                and array.dtype in _gemm.GEMM_DTYPES)

    def gemm(self, a, b, alpha, bias=None, beta=1, column_sums=False):
        """One launch of cuda/gemm.cu with its epilogues (NOTE [GEMM epilogues]); None when
        an operand is not a DeviceArray (the NumPy calls raise torch's device error)."""
        if type(b) is not DeviceArray or (bias is not None and type(bias) is not DeviceArray):
            return None
        return _gemm.gemm(a, b, alpha, bias if beta != 0 else None, beta, column_sums)

    def can_add_in_place_together(self, out, addend):
        """NOTE [Deferred gradient accumulation]: contiguous DeviceArrays of one shape,
        dtype and device, of a dtype cuda/foreach.cu is instantiated for."""
        return (type(addend) is DeviceArray
                and _foreach.can_add_in_place_together(out, addend))

    def add_in_place_together(self, pairs):
        """One multi-tensor launch per device and dtype (NOTE [Multi-tensor launch])."""
        _foreach.add_in_place_together(pairs)
