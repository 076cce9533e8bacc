"""Pointwise ops: exp, log, tanh, sigmoid, relu, where ... each with its backward.

Formulas reuse the forward's result where PyTorch does (``exp``, ``tanh``,
``sigmoid`` save their output, not their input), so backward needs no recompute.
"""
import numpy as np

from autograd_cy._C.grad_mode cimport is_grad_enabled
from autograd_cy._C.tensor cimport Tensor, make_tensor, requires_grad
from autograd_cy._C.node cimport Node, SavedTensor, save, set_history1, set_history
from autograd_cy._C.ops.dispatch cimport wrap, result_type, operand_array
from autograd_cy._C.ops.arithmetic import mul, sub, div, neg

__all__ = ["exp", "log", "tanh", "where", "zeros_like_grad"]
__tensor_methods__ = ("exp", "log", "tanh")


def zeros_like_grad(Tensor grad):
    return make_tensor(np.zeros_like(grad._data))


cdef class ExpBackward0(Node):
    cdef readonly SavedTensor saved_result

    cpdef tuple apply(self, tuple grads):
        return (mul(grads[0], self.saved_result.unpack(self)),)

    cdef void release_variables(self):
        self.saved_result.release()


def exp(Tensor self):
    """``e ** self``."""
    cdef Tensor out = wrap(np.exp(_floating(self)))
    cdef ExpBackward0 node
    if is_grad_enabled() and requires_grad(self):
        node = ExpBackward0()
        set_history1(node, self, out)
        node.saved_result = save(out, True)
    return out


cdef object _floating(Tensor t):
    """Integer inputs of float-valued functions compute in float32, as in PyTorch."""
    if t._data.dtype.kind != "f":
        return t._data.astype(np.float32)
    return t._data


cdef class LogBackward0(Node):
    cdef readonly SavedTensor saved_self

    cpdef tuple apply(self, tuple grads):
        return (div(grads[0], self.saved_self.unpack(self)),)

    cdef void release_variables(self):
        self.saved_self.release()


def log(Tensor self):
    """Natural logarithm."""
    cdef LogBackward0 node
    with np.errstate(divide="ignore", invalid="ignore"):
        out = wrap(np.log(_floating(self)))
    if is_grad_enabled() and requires_grad(self):
        node = LogBackward0()
        node.saved_self = save(self, False)
        set_history1(node, self, out)
    return out


cdef class TanhBackward0(Node):
    cdef readonly SavedTensor saved_result

    cpdef tuple apply(self, tuple grads):
        result = self.saved_result.unpack(self)
        return (mul(grads[0], sub(1, mul(result, result))),)

    cdef void release_variables(self):
        self.saved_result.release()


def tanh(Tensor self):
    """Hyperbolic tangent; backward ``grad * (1 - tanh^2)`` from the saved result."""
    cdef Tensor out = wrap(np.tanh(_floating(self)))
    cdef TanhBackward0 node
    if is_grad_enabled() and requires_grad(self):
        node = TanhBackward0()
        set_history1(node, self, out)
        node.saved_result = save(out, True)
    return out


cdef class WhereBackward0(Node):
    cdef readonly SavedTensor saved_condition

    cpdef tuple apply(self, tuple grads):
        condition = self.saved_condition.unpack(self)
        grad = grads[0]
        zero = np.zeros((), dtype=(<Tensor>grad)._data.dtype)
        return (None,
                where(condition, grad, zero) if self.should_compute_output(1) else None,
                where(condition, zero, grad) if self.should_compute_output(2) else None)

    cdef void release_variables(self):
        self.saved_condition.release()


def where(Tensor condition, input, other):
    """Elements of ``input`` where ``condition`` holds, else of ``other``."""
    cdef WhereBackward0 node
    if condition._data.dtype.kind != "b":
        raise RuntimeError(f"where expected condition to be a boolean tensor, but got a tensor "
                           f"with dtype {condition.dtype}")
    if isinstance(input, np.ndarray):
        input = make_tensor(input)
    if isinstance(other, np.ndarray):
        other = make_tensor(other)
    dtype = result_type(input, other)
    out = wrap(np.where(condition._data, operand_array(input, dtype), operand_array(other, dtype)))
    if is_grad_enabled() and ((isinstance(input, Tensor) and requires_grad(input))
                              or (isinstance(other, Tensor) and requires_grad(other))):
        node = WhereBackward0()
        node.saved_condition = save(condition, False)
        set_history(node, (condition, input, other), (out,))
    return out
