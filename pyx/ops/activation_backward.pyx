# cython: allow_none_for_extension_args=False
"""Backward formulas that are ops themselves, differentiable again, as PyTorch records them:
``threshold_backward`` (relu's), ``tanh_backward`` and ``sigmoid_backward``.

NOTE [Activation backwards are ops]
An activation that saves its result (relu, tanh, sigmoid) computes its gradient from the
incoming gradient and that result. Under ``create_graph=True`` (or inside a forward-AD dual
level) PyTorch records that formula as ONE op of two tensors, with its own node
(ThresholdBackwardBackward0, TanhBackwardBackward0, SigmoidBackwardBackward0) and its own
forward-mode formula, not as the three or four multiplications it is made of. So does this
module: the double-backward graph has torch's nodes and saved tensors, and a Hessian
through an activation runs one node per activation instead of three or four. The value
comes from the same fused kernels as the activation's plain backward (kernels.pyx; one
launch on a CUDA device), or NumPy where they do not apply (a batched gradient of one more
dim than the result, NOTE [Batched gradients]; other dtypes).

These ops are ``torch.ops.aten.*_backward`` in PyTorch, not ``torch.*``: here they are
reachable as ``autograd_cy._C.ops.activation_backward.*`` and stay out of the package's
namespace (no ``__all__``).
"""
import numpy as np
cimport numpy as cnp

from autograd_cy._C.grad_mode cimport forward_level, needs_tensor_ops
from autograd_cy._C.forward cimport forward2
from autograd_cy._C.tensor cimport Tensor, make_tensor
from autograd_cy._C.node cimport unpack_saved
from autograd_cy._C.ops.op_table cimport ElementwiseNode
from autograd_cy._C.recording cimport record2, any_requires_grad2
from autograd_cy._C.promotion cimport (
    wrap, is_complex_array, half_precision_array, widened)
from autograd_cy._C.ops.conjugate cimport conj_of
from autograd_cy._C.fp_errors cimport quietly2, ignoring_fp_errors
from autograd_cy._C.kernels cimport (
    sigmoid_backward_kernel, tanh_backward_kernel, threshold_backward_kernel,
)
from autograd_cy._C.ops.arithmetic import mul, add, zeros_like_grad
from autograd_cy._C.ops.arithmetic cimport add_terms

cnp.import_array()

cdef object FLOAT32 = np.dtype(np.float32)


ctypedef object (*PairKernel)(object grad, object result)


cdef object kernel_or_numpy(PairKernel kernel, object numpy_formula, Tensor grad_output,
                            Tensor output):
    """``kernel(grad_output, output)`` where its backend has the formula for these arrays
    (its result takes the gradient's shape and dtype), else ``numpy_formula`` on the arrays,
    which broadcasts and promotes. float16 and bfloat16 compute in float32 and round once, as
    PyTorch's kernels do (NOTE [Half-precision products and reductions])."""
    grad_array = grad_output._data
    output_array = output._data
    if half_precision_array(grad_array) and grad_array.dtype == output_array.dtype:
        return kernel_or_numpy(kernel, numpy_formula, make_tensor(widened(grad_array)),
                               make_tensor(widened(output_array))).astype(grad_array.dtype)
    array = kernel(grad_array, output_array)
    if array is None:
        array = quietly2(numpy_formula, grad_array, output_array)
    return array


cdef Tensor tanh_output_term(Tensor grad, Tensor output, Tensor grad_output):
    """``grad * (-2 * output * grad_output)`` on the arrays, quietly: TanhBackwardBackward0's
    ``output`` formula when nothing records it and no tangent flows (``needs_tensor_ops()``
    false), with array operands only (a scalar operand costs NumPy more than a product)."""
    with ignoring_fp_errors():
        term = output._data * grad_output._data
        return make_tensor(grad._data * np.negative(term + term))


# ------------------------------------------------------------------ threshold_backward

cdef class ThresholdBackwardBackward0(ElementwiseNode):
    """threshold_backward differentiated again: the same mask for ``grad_output``; the
    mask itself has a zero derivative, so ``self`` gets zeros."""
    saved_names = ("self",)
    cdef readonly object saved_threshold

    cpdef tuple apply(self, tuple grads):
        grad = grads[0]
        return (threshold_backward(grad, unpack_saved(self, 0), self.saved_threshold)
                if self.should_compute_output(0) else None,
                zeros_like_grad(grad) if self.should_compute_output(1) else None)


def threshold_backward(Tensor grad_output, Tensor self, threshold):
    """``grad_output`` where ``self > threshold``, else 0 (a NaN ``self`` passes it).

    NOTE [relu's gradient depends on its result]
    Like PyTorch's, relu's backward is an op of two tensors, the gradient and the saved
    result, and records a node for both: under ``create_graph=True`` the gradient it returns
    requires grad even when the incoming one does not, since the result does.
    """
    array = None
    if threshold == 0:
        array = threshold_backward_kernel(grad_output._data, self._data)
    if array is None:
        array = np.where(self._data <= threshold, np.zeros((), grad_output._data.dtype),
                         grad_output._data)
    out = wrap(array)
    if any_requires_grad2(grad_output, self):
        node = ThresholdBackwardBackward0()
        node.saved_threshold = threshold
        record2(node, grad_output, self, out, (self,))
    if forward_level():
        forward2(out, grad_output, self, threshold_backward_tangent, (threshold,))
    return out


cdef object threshold_backward_tangent(grad_t, self_t, grad_output, self, Tensor result,
                                       tuple extra):
    """Linear in ``grad_output`` through the same mask (``self``'s tangent moves no mask:
    its term is zero). Forward AD through relu's backward needs it (forward-over-reverse)."""
    if grad_t is None:
        return zeros_like_grad(result)
    return threshold_backward(grad_t, self, extra[0])


# ------------------------------------------------------------------ tanh_backward

cdef class TanhBackwardBackward0(ElementwiseNode):
    """tanh_backward differentiated again: ``grad_output`` gets ``tanh_backward(grad,
    output)`` (the op is linear in it); ``output`` gets ``grad * (-2 * output *
    grad_output)``, the derivative of ``1 - output ** 2``."""
    saved_names = ("grad_output", "output")
    # For complex tensors tanh_backward is ``grad_output * conj(1 - output ** 2)``: linear in
    # grad_output (its adjoint multiplies by ``1 - output ** 2``: tanh_backward of the
    # conjugate output) and a function of conj(output) (its gradient ``conj(grad) * -2 *
    # conj(output) * grad_output``); for real tensors the conjugates are no-ops.
    complex_formulas = True

    cpdef tuple apply(self, tuple grads):
        grad = grads[0]
        output = unpack_saved(self, 1)
        output_grad = None
        if (self.should_compute_output(1) and not needs_tensor_ops()
                and not is_complex_array((<Tensor>output)._data)):
            output_grad = tanh_output_term(grad, output, unpack_saved(self, 0))
        elif self.should_compute_output(1):
            output_grad = mul(conj_of(grad),
                              mul(mul(conj_of(output), -2), unpack_saved(self, 0)))
        return (tanh_backward(grad, conj_of(output)) if self.should_compute_output(0) else None,
                output_grad)


def _tanh_backward_numpy(grad_output, output):
    """``grad_output * (1 - output ** 2)``; its conjugate for complex tensors (NOTE [Complex
    gradients] in conjugate.pyx)."""
    if output.dtype.kind == "c":
        return grad_output * np.conjugate(1 - output * output)
    return grad_output * (1 - output * output)


def tanh_backward(Tensor grad_output, Tensor output):
    """``grad_output * (1 - output ** 2)``: tanh's gradient from its result, as one op
    (NOTE [Activation backwards are ops])."""
    cdef Tensor out = wrap(kernel_or_numpy(tanh_backward_kernel, _tanh_backward_numpy,
                                           grad_output, output))
    if any_requires_grad2(grad_output, output):
        record2(TanhBackwardBackward0(), grad_output, output, out, (grad_output, output))
    if forward_level():
        forward2(out, grad_output, output, tanh_backward_tangent)
    return out


cdef object tanh_backward_tangent(grad_output_t, output_t, grad_output, output,
                                  Tensor result, tuple extra):
    """``tanh_backward(grad_output_t, output) + output_t * (-2 * output * grad_output)``."""
    term = None if grad_output_t is None else tanh_backward(grad_output_t, output)
    if output_t is not None:
        output_term = mul(output_t, mul(mul(output, -2), grad_output))
        term = add_terms(term, output_term)
    return term


# ------------------------------------------------------------------ sigmoid_backward

cdef class SigmoidBackwardBackward0(ElementwiseNode):
    """sigmoid_backward differentiated again: ``grad_output`` gets ``sigmoid_backward(grad,
    output)``; ``output`` gets ``grad * grad_output * (1 - 2 * output)``, the derivative
    of ``output * (1 - output)``."""
    saved_names = ("grad_output", "output")
    complex_formulas = True     # as TanhBackwardBackward0's

    cpdef tuple apply(self, tuple grads):
        grad = grads[0]
        output = conj_of(unpack_saved(self, 1))
        return (sigmoid_backward(grad, output) if self.should_compute_output(0) else None,
                mul(mul(conj_of(grad), unpack_saved(self, 0)), add(mul(output, -2), 1))
                if self.should_compute_output(1) else None)


def _sigmoid_backward_numpy(grad_output, output):
    """``grad_output * (1 - output) * output``; its conjugate for complex tensors."""
    if output.dtype.kind == "c":
        return grad_output * np.conjugate((1 - output) * output)
    return grad_output * (1 - output) * output


def sigmoid_backward(Tensor grad_output, Tensor output):
    """``grad_output * (1 - output) * output``: sigmoid's gradient from its result, as one
    op (NOTE [Activation backwards are ops])."""
    cdef Tensor out
    if grad_output._data.dtype == np.float16 and output._data.dtype == np.float16:
        # PyTorch's float16 kernel rounds each product, (grad * (1 - y)) * y, where its
        # bfloat16 one (and tanh_backward's of both) rounds once: NumPy's float16 ops do so
        out = wrap(quietly2(_sigmoid_backward_numpy, grad_output._data, output._data))
    else:
        out = wrap(kernel_or_numpy(sigmoid_backward_kernel, _sigmoid_backward_numpy,
                                   grad_output, output))
    if any_requires_grad2(grad_output, output):
        record2(SigmoidBackwardBackward0(), grad_output, output, out, (grad_output, output))
    if forward_level():
        forward2(out, grad_output, output, sigmoid_backward_tangent)
    return out


cdef object sigmoid_backward_tangent(grad_output_t, output_t, grad_output, output,
                                     Tensor result, tuple extra):
    """``sigmoid_backward(grad_output_t, output) + output_t * grad_output * (1 - 2 *
    output)``."""
    term = None if grad_output_t is None else sigmoid_backward(grad_output_t, output)
    if output_t is not None:
        output_term = mul(mul(output_t, grad_output), add(mul(output, -2), 1))
        term = add_terms(term, output_term)
    return term
