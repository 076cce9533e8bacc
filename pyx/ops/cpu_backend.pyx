"""The CPU backend (NOTE [One backend interface] in device.pxd): the typed loops the CPU has
for what an op asks of its device. It serves tanh's and relu's backward on small float
arrays (kernels.pyx), softmax along the last dim (activation_kernels.pyx) and nll_loss's
common case (loss_kernels.pyx), each loop answering None for operands it does not take;
everything else is None, and the op runs its NumPy formula. Importing this module puts it in
the core's CPU slot; it lives with the ops because two of its loop modules do.
"""
from autograd_cy._C.device cimport Backend
from autograd_cy._C.device import set_cpu_backend
from autograd_cy._C.kernels cimport tanh_backward_loop, threshold_backward_loop
from autograd_cy._C.ops.activation_kernels cimport (
    softmax_rows_kernel, softmax_backward_rows_kernel,
)
from autograd_cy._C.ops.loss_kernels cimport nll_loss_2d, nll_loss_2d_backward

__all__ = []

cdef enum Reduction:        # PyTorch's enum, as loss.pyx
    NONE = 0
    MEAN = 1


cdef class CpuBackend(Backend):
    """The CPU's answers: its typed loops where it has them, else None."""

    cpdef object fused(self, str formula, object grad, object operand, tuple scalars=()):
        if formula == "tanh_backward":
            return tanh_backward_loop(grad, operand)
        if formula == "threshold_backward" and scalars[0] == 0:
            return threshold_backward_loop(grad, operand)
        return None

    cpdef object rows(self, str formula, tuple arrays, Py_ssize_t dim, tuple scalars=()):
        if formula == "softmax_forward":
            return softmax_rows_kernel(arrays[0], dim, scalars[0])
        if formula == "softmax_backward":
            return softmax_backward_rows_kernel(arrays[0], arrays[1], dim, scalars[0])
        return None

    cpdef object loss(self, str name, tuple arrays, tuple options):
        """nll_loss and its backward without class weights, reduced ('mean' or 'sum')."""
        cdef int reduction = options[0]
        if reduction == NONE or not name.startswith("nll_loss"):
            return None
        if name == "nll_loss":
            x, target, weight, total_weight = arrays
            if weight is None and total_weight is None:
                return nll_loss_2d(x, target, options[1], reduction == MEAN)
        elif name == "nll_loss_backward":
            grad, x, target, weight, total_weight = arrays
            if weight is None:
                return nll_loss_2d_backward(grad, x, target, options[1], reduction == MEAN,
                                            total_weight)
        return None


set_cpu_backend(CpuBackend())
