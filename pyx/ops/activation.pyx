# cython: allow_none_for_extension_args=False
"""Activations: softmax, log_softmax, gelu, silu, softplus, leaky_relu, with their backward.

# Design
Each activation is a primitive: its forward is one kernel over the array
(activation_kernels.pyx), not a chain of recorded ops, and its backward Node
sits right above it. As in PyTorch, most backward formulas are themselves a
primitive (``gelu_backward`` = ``grad * gelu'(x)`` in one kernel) that records a
``...BackwardBackward0`` node when ``create_graph=True``. Such a backward is
linear in the gradient, so its gradient with respect to the gradient is the
adjoint of that linear map: the same primitive for elementwise ops and for
softmax, whose Jacobians are symmetric. Its other formulas are written with
Tensor-level ops, so every order of derivative is available.

``_log_sigmoid`` (for binary_cross_entropy_with_logits in loss.pyx) stays out of
``__all__``: torch has no top-level logsigmoid.
"""
import numpy as np
cimport numpy as cnp

from autograd_cy._C.grad_mode cimport is_grad_enabled, forward_level, needs_tensor_ops
from autograd_cy._C.forward cimport forward1, forward2, batch_unary, complex_unary
from autograd_cy._C.dtype cimport from_numpy_dtype, kind_of, to_numpy_dtype
from autograd_cy._C.device cimport contiguous_array, empty_result_like
from autograd_cy._C.tensor cimport Tensor, make_tensor, requires_grad
from autograd_cy._C.tensor cimport wrap_dim
from autograd_cy._C.node cimport Node, unpack_saved
from autograd_cy._C.ops.op_table cimport ElementwiseNode
from autograd_cy._C.recording cimport record1, record2, any_requires_grad2
from autograd_cy._C.promotion cimport wrap, is_complex_array
from autograd_cy._C.fp_errors cimport ignoring_fp_errors
from autograd_cy._C.views cimport apply_inplace
from autograd_cy._C.ops.activation_kernels cimport (
    softmax_array, softmax_backward_array, safe_softmax_array, gelu_array, silu_array,
    softplus_array, leaky_relu_array, log_sigmoid_array,
)
from autograd_cy._C.ops.arithmetic import add, sub, mul, neg
from autograd_cy._C.ops.gather_scatter cimport tangent_or_zeros
from autograd_cy._C.ops.pointwise import exp, tanh, sigmoid
from autograd_cy._C.ops.reduction import sum as tensor_sum
from autograd_cy._C.ops.conversion import to
from autograd_cy._C.ops.conjugate cimport conj_of

cnp.import_array()

__all__ = ["softmax", "log_softmax", "_safe_softmax"]
__tensor_methods__ = ("softmax", "log_softmax")

cdef double INV_SQRT_2PI = 0.39894228040143267794  # 1 / sqrt(2 pi)
cdef double GELU_K = 0.79788456080286535588        # sqrt(2 / pi), the tanh approximation's
cdef double GELU_C = 0.044715


cdef object floating_data(Tensor t, str kernel_name):
    """``t``'s array, or PyTorch's NotImplementedError for an integer or bool tensor."""
    if kind_of(t._data.dtype) != "f":
        raise NotImplementedError(f'"{kernel_name}" not implemented for '
                                  f"'{from_numpy_dtype(t._data.dtype)._scalar_name}'")
    return t._data


cdef object sum_dim(object t, Py_ssize_t dim):
    """``t.sum(dim, keepdim=True)``; a 0-dim tensor is its own sum."""
    if (<Tensor>t)._data.ndim == 0:
        return t
    return tensor_sum(t, dim, True)


# ------------------------------------------------------------------ softmax

cdef class SoftmaxBackward0(Node):
    saved_names = ("result",)
    cdef readonly Py_ssize_t saved_dim

    cpdef tuple apply(self, tuple grads):
        return (softmax_backward(grads[0], unpack_saved(self, 0), self.saved_dim, False),)


cdef class LogSoftmaxBackward0(SoftmaxBackward0):
    cpdef tuple apply(self, tuple grads):
        return (softmax_backward(grads[0], unpack_saved(self, 0), self.saved_dim, True),)


cdef class SafeSoftmaxBackward0(SoftmaxBackward0):
    """``_safe_softmax``'s backward: softmax's formula, which gives the zero rows of the
    output a zero gradient."""


cdef Tensor softmax_forward(Tensor input, object dim, object dtype, bint log,
                            bint safe=False):
    """softmax, log_softmax, or with ``safe`` PyTorch's ``_safe_softmax`` (the math
    attention's: rows of -inf give zeros; ``dtype=`` converts inside the kernel, so no
    ToCopyBackward0 in the graph)."""
    cdef SoftmaxBackward0 node
    if dtype is not None and not safe:   # the input is converted first (ToCopyBackward0)
        input = to(input, dtype)
    cdef Py_ssize_t d = wrap_dim(dim, input._data.ndim)
    name = "log_softmax" if log else "softmax"
    last = "lastdim_" if d == input._data.ndim - 1 or input._data.ndim == 0 else ""
    if input._data.size == 0 and kind_of(input._data.dtype) != "f":
        # PyTorch returns an empty input before its kernel checks the dtype (an empty
        # complex tensor that requires grad: its autograd's refusal of complex outputs)
        if is_complex_array(input._data) and is_grad_enabled() and requires_grad(input):
            raise RuntimeError(f"_{name} does not support automatic differentiation for "
                               "outputs with complex dtype.")
        return wrap(input._data.copy())
    x = floating_data(input, f"{name}_{last}kernel_impl")
    if safe:
        if dtype is not None and x.dtype != to_numpy_dtype(dtype):
            x = x.astype(to_numpy_dtype(dtype))
        array = safe_softmax_array(x, d)
    else:
        array = softmax_array(x, d, log)
    # PyTorch's softmax output is contiguous whatever the input's layout.
    cdef Tensor out = wrap(contiguous_array(array))
    if is_grad_enabled() and requires_grad(input):
        node = (SafeSoftmaxBackward0() if safe else LogSoftmaxBackward0() if log
                else SoftmaxBackward0())
        node.saved_dim = d
        record1(node, input, out, (out,))
    if forward_level():
        forward1(out, input, log_softmax_tangent if log else softmax_tangent, (d,))
    return out


cdef object softmax_tangent(Tensor self_t, Tensor self, Tensor result, tuple extra):
    """``result * (self_t - sum(self_t * result, dim))``: softmax's Jacobian is symmetric,
    so this is its backward formula applied to the tangent (``extra``: ``(dim,)``)."""
    return softmax_backward(self_t, result, extra[0], False)


cdef object log_softmax_tangent(Tensor self_t, Tensor self, Tensor result, tuple extra):
    """``self_t - sum(self_t * exp(result), dim)`` (``extra``: ``(dim,)``)."""
    return sub(self_t, sum_dim(mul(self_t, exp(result)), extra[0]))


def softmax(Tensor input, dim, dtype=None):
    """``exp(x) / sum(exp(x))`` along ``dim``; ``dtype=`` casts the input first."""
    return softmax_forward(input, dim, dtype, False)


def log_softmax(Tensor input, dim, dtype=None):
    """``x - log(sum(exp(x)))`` along ``dim``, computed without overflow."""
    return softmax_forward(input, dim, dtype, True)


def _safe_softmax(Tensor input, dim, dtype=None):
    """``softmax`` along ``dim``, except that a row whose every element is -inf gives zeros
    instead of nan: PyTorch's op for attention weights, where a query may have every key
    masked out."""
    return softmax_forward(input, dim, dtype, False, True)


cdef class SoftmaxBackwardDataBackward0(Node):
    """Double backward of softmax: inputs (grad_output, output)."""
    saved_names = ("grad_output", "output")
    cdef readonly Py_ssize_t saved_dim

    cpdef tuple apply(self, tuple grads):
        gg = grads[0]
        y = unpack_saved(self, 1)
        d = self.saved_dim
        grad_grad = grad_y = None
        if self.should_compute_output(0):
            # Linear in g with the symmetric Jacobian diag(y) - y y^T: its own adjoint.
            grad_grad = _softmax_backward_data(gg, y, d)
        if self.should_compute_output(1):
            # d/dy of y (g - sum(g y)):  gg (g - sum(g y)) - g sum(gg y)
            g = unpack_saved(self, 0)
            grad_y = sub(mul(gg, sub(g, sum_dim(mul(g, y), d))),
                         mul(g, sum_dim(mul(gg, y), d)))
        return (grad_grad, grad_y)


cdef class LogSoftmaxBackwardDataBackward0(SoftmaxBackwardDataBackward0):
    """Double backward of log_softmax: inputs (grad_output, output)."""

    cpdef tuple apply(self, tuple grads):
        gg = grads[0]
        y = unpack_saved(self, 1)
        d = self.saved_dim
        grad_grad = grad_y = None
        if self.should_compute_output(0):
            # g -> g - exp(y) sum(g) is not symmetric: its adjoint is v -> v - sum(v exp(y)).
            grad_grad = sub(gg, sum_dim(mul(gg, exp(y)), d))
        if self.should_compute_output(1):
            # d/dy of g - exp(y) sum(g):  -gg exp(y) sum(g)
            g = unpack_saved(self, 0)
            grad_y = neg(mul(mul(gg, exp(y)), sum_dim(g, d)))
        return (grad_grad, grad_y)


cdef Tensor softmax_backward(Tensor grad_output, Tensor output, Py_ssize_t dim, bint log):
    cdef SoftmaxBackwardDataBackward0 node
    cdef Tensor out = wrap(softmax_backward_array(grad_output._data, output._data, dim, log))
    if any_requires_grad2(grad_output, output):
        node = LogSoftmaxBackwardDataBackward0() if log else SoftmaxBackwardDataBackward0()
        node.saved_dim = dim
        record2(node, grad_output, output, out, (grad_output, output))
    if forward_level():
        forward2(out, grad_output, output, softmax_backward_tangent, (dim, log))
    return out


cdef object softmax_backward_tangent(g_t, y_t, g, y, Tensor result, tuple extra):
    """The tangent of softmax's (log_softmax's) backward in both its arguments: linear in
    ``g``; in ``y`` the derivative of ``y (g - sum(g y))`` (of ``g - exp(y) sum(g)``)."""
    cdef Py_ssize_t dim = extra[0]
    cdef bint log = extra[1]
    tangent = None if g_t is None else softmax_backward(g_t, y, dim, log)
    if y_t is not None:
        if log:
            y_part = neg(mul(mul(y_t, exp(y)), sum_dim(g, dim)))
        else:
            y_part = sub(mul(y_t, sub(g, sum_dim(mul(g, y), dim))),
                         mul(y, sum_dim(mul(g, y_t), dim)))
        tangent = y_part if tangent is None else add(tangent, y_part)
    return tangent


def _softmax_backward_data(Tensor grad_output, Tensor output, dim):
    """Softmax's input gradient ``y (g - sum(g y, dim))``, from its output ``y``."""
    return softmax_backward(grad_output, output, wrap_dim(dim, output._data.ndim), False)


def _log_softmax_backward_data(Tensor grad_output, Tensor output, dim):
    """log_softmax's input gradient ``g - exp(y) sum(g, dim)``, from its output ``y``."""
    return softmax_backward(grad_output, output, wrap_dim(dim, output._data.ndim), True)


# ------------------------------------------------------------------ gelu

cdef class GeluBackward0(Node):
    saved_names = ("self",)
    cdef readonly str saved_approximate

    cpdef tuple apply(self, tuple grads):
        return (gelu_backward(grads[0], unpack_saved(self, 0), self.saved_approximate),)


cdef void check_approximate(str approximate) except *:
    if approximate != "none" and approximate != "tanh":
        raise RuntimeError("approximate argument must be either none or tanh.")


cdef object like_input(object result, object x):
    """A pointwise result in the input's layout (PyTorch's TensorIterator keeps a transposed
    or permuted input's strides; the fused loops write C order)."""
    if x.flags.c_contiguous:
        return result
    out = empty_result_like(x, result.dtype)        # x's dense layout, else row-major
    if out.flags.c_contiguous:
        return result
    out[...] = result
    return out


def gelu(Tensor input, *, approximate="none"):
    """``x Phi(x)`` (Phi: the standard normal CDF), or its tanh approximation."""
    cdef GeluBackward0 node
    check_approximate(approximate)
    x = floating_data(input, "GeluKernelImpl")
    cdef Tensor out = wrap(like_input(gelu_array(x, None, approximate), x))
    if is_grad_enabled() and requires_grad(input):
        node = GeluBackward0()
        node.saved_approximate = approximate
        record1(node, input, out, (input,))
    if forward_level():
        forward1(out, input, gelu_tangent, (approximate,))
    return out


cdef object gelu_tangent(Tensor self_t, Tensor self, Tensor result, tuple extra):
    """``gelu_backward(self_t, self)``: ``self_t * gelu'(self)`` (``extra``: ``(approximate,)``)."""
    return gelu_backward(self_t, self, extra[0])


cdef class GeluBackwardBackward0(Node):
    """Double backward of gelu: inputs (grad_output, self)."""
    saved_names = ("grad_output", "self")
    cdef readonly str saved_approximate

    cpdef tuple apply(self, tuple grads):
        gg = grads[0]
        x = unpack_saved(self, 1)
        grad_grad = grad_x = None
        if self.should_compute_output(0):
            grad_grad = gelu_backward(gg, x, self.saved_approximate)
        if self.should_compute_output(1):
            grad_x = mul(mul(gg, unpack_saved(self, 0)),
                         gelu_second_derivative(x, self.saved_approximate))
        return (grad_grad, grad_x)


cdef object gelu_second_derivative(object x, str approximate):
    """gelu''(x), from recorded ops so that higher orders differentiate it."""
    x2 = mul(x, x)
    if approximate == "none":
        # phi(x) (2 - x^2), phi the standard normal density
        pdf = mul(exp(mul(x2, -0.5)), INV_SQRT_2PI)
        return mul(pdf, sub(2.0, x2))
    # f = x (1 + tanh u) / 2, u = k (x + c x^3):  f'' = (1 - t^2) (u' - x t u'^2 + x u'' / 2)
    t = tanh(mul(add(x, mul(mul(x2, x), GELU_C)), GELU_K))
    du = mul(add(mul(x2, 3.0 * GELU_C), 1.0), GELU_K)
    d2u = mul(x, 6.0 * GELU_C * GELU_K)
    inner = add(sub(du, mul(mul(x, t), mul(du, du))), mul(mul(x, d2u), 0.5))
    return mul(sub(1.0, mul(t, t)), inner)


def gelu_backward(Tensor grad_output, Tensor self, approximate="none"):
    """``grad_output * gelu'(self)`` in one kernel."""
    cdef GeluBackwardBackward0 node
    check_approximate(approximate)
    cdef Tensor out = wrap(gelu_array(self._data, grad_output._data, approximate))
    if any_requires_grad2(grad_output, self):
        node = GeluBackwardBackward0()
        node.saved_approximate = approximate
        record2(node, grad_output, self, out, (grad_output, self))
    if forward_level():
        forward2(out, grad_output, self, gelu_backward_tangent, (approximate,))
    return out


cdef object gelu_backward_tangent(g_t, x_t, g, x, Tensor result, tuple extra):
    """``gelu_backward(g_t, x) + g * gelu''(x) * x_t``."""
    cdef str approximate = extra[0]
    tangent = None if g_t is None else gelu_backward(g_t, x, approximate)
    if x_t is not None:
        x_part = mul(mul(x_t, g), gelu_second_derivative(x, approximate))
        tangent = x_part if tangent is None else add(tangent, x_part)
    return tangent


# ------------------------------------------------------------------ silu

cdef class SiluBackward0(ElementwiseNode):
    """``grad s (1 + x (1 - s))``, s = sigmoid(x): one kernel, or recorded ops under
    ``create_graph=True`` (grad mode on), as PyTorch does. Only silu_ records it on complex
    tensors, where torch's kernel, as this formula, does not conjugate the derivative."""
    saved_names = ("self",)
    complex_formulas = True

    cpdef tuple apply(self, tuple grads):
        x = unpack_saved(self, 0)
        if needs_tensor_ops():
            s = sigmoid(x)
            return (mul(grads[0], mul(s, add(mul(x, sub(1.0, s)), 1.0))),)
        return (wrap(silu_array((<Tensor>x)._data, (<Tensor>grads[0])._data)),)


def silu(Tensor input):
    """``x sigmoid(x)`` (also called swish); on complex tensors ``x / (1 + exp(-x))``, as
    PyTorch computes it, whose autograd refuses a complex silu but forward mode does not."""
    return silu_of(input, False)


cdef Tensor silu_of(Tensor input, bint in_place):
    """silu; ``in_place``: silu_'s, whose complex result torch's autograd records (with
    SiluBackward0's formula, which does not conjugate) where silu's refuses it."""
    cdef Tensor out
    if is_complex_array(input._data):
        if is_grad_enabled() and requires_grad(input) and not in_place:
            raise RuntimeError("silu does not support automatic differentiation for outputs "
                               "with complex dtype.")
        x = input._data
        with ignoring_fp_errors():
            out = wrap(x / (1 + np.exp(-x)))
        if is_grad_enabled() and requires_grad(input):
            record1(SiluBackward0(), input, out, (input,))
        if forward_level():
            forward1(out, input, silu_tangent)
        return out
    out = wrap(silu_array(floating_data(input, "silu_cpu"), None))
    if is_grad_enabled() and requires_grad(input):
        record1(SiluBackward0(), input, out, (input,))
    if forward_level():
        forward1(out, input, silu_tangent)
    return out


cdef object silu_tangent(Tensor self_t, Tensor self, Tensor result, tuple extra):
    """``self_t * s (1 + self (1 - s))``, s = sigmoid(self); for complex tensors the
    derivative conjugated, as PyTorch's (its tangent is its backward kernel's formula,
    which does not conjugate, applied to ``conj(self_t)`` and conjugated back)."""
    s = sigmoid(self)
    return mul(self_t, conj_of(mul(s, add(mul(self, sub(1.0, s)), 1.0))))


def silu_(Tensor input):
    """In-place silu (its node keeps a copy of the original values)."""
    return apply_inplace(input, lambda x: silu_of(x, True), (), True)


# ------------------------------------------------------------------ softplus

cdef class SoftplusBackward0(Node):
    saved_names = ("self",)
    cdef readonly object saved_beta
    cdef readonly object saved_threshold

    cpdef tuple apply(self, tuple grads):
        return (softplus_backward(grads[0], unpack_saved(self, 0), self.saved_beta,
                                  self.saved_threshold),)


def softplus(Tensor input, beta=1.0, threshold=20.0):
    """``log(1 + exp(beta x)) / beta``, and ``x`` itself where ``beta x > threshold``."""
    cdef SoftplusBackward0 node
    x = floating_data(input, "softplus_cpu")
    cdef Tensor out = wrap(softplus_array(x, None, beta, threshold))
    if is_grad_enabled() and requires_grad(input):
        node = SoftplusBackward0()
        node.saved_beta = beta
        node.saved_threshold = threshold
        record1(node, input, out, (input,))
    if forward_level():
        forward1(out, input, softplus_tangent, (beta, threshold))
    return out


cdef object softplus_tangent(Tensor self_t, Tensor self, Tensor result, tuple extra):
    """``softplus_backward(self_t, self, beta, threshold)``, ``extra`` ``(beta, threshold)``."""
    return softplus_backward(self_t, self, *extra)


cdef class SoftplusBackwardBackward0(Node):
    """Double backward of softplus: inputs (grad_output, self)."""
    saved_names = ("grad_output", "self")
    cdef readonly object saved_beta
    cdef readonly object saved_threshold

    cpdef tuple apply(self, tuple grads):
        gg = grads[0]
        x = unpack_saved(self, 1)
        beta, threshold = self.saved_beta, self.saved_threshold
        grad_grad = grad_x = None
        if self.should_compute_output(0):
            grad_grad = softplus_backward(gg, x, beta, threshold)
        if self.should_compute_output(1):
            grad_x = softplus_double_backward(mul(gg, unpack_saved(self, 0)), x, beta,
                                              threshold)
        return (grad_grad, grad_x)


cdef object softplus_double_backward(object grad, Tensor x, object beta, object threshold):
    """d/dx of ``grad_output sigmoid(beta x)`` times ``grad``: ``grad (1 - s) s`` (s =
    sigmoid(beta x)) times the mask ``beta x < threshold``, times ``beta``, in PyTorch's order.
    The mask is a factor, so a negative product outside it is -0.0, as in PyTorch; and it
    is strict, so at ``beta x == threshold``, where the forward is not yet linear, the second
    derivative is already 0, as PyTorch's is."""
    s = sigmoid(mul(x, beta))
    inside = make_tensor(((<Tensor>x)._data * beta < threshold).astype(x._data.dtype))
    return mul(mul(mul(mul(grad, sub(1.0, s)), s), inside), beta)


def softplus_backward(Tensor grad_output, Tensor self, beta, threshold):
    """``grad_output sigmoid(beta x)``, or ``grad_output`` where ``beta x > threshold``."""
    cdef SoftplusBackwardBackward0 node
    cdef Tensor out = wrap(softplus_array(self._data, grad_output._data, beta, threshold))
    if any_requires_grad2(grad_output, self):
        node = SoftplusBackwardBackward0()
        node.saved_beta = beta
        node.saved_threshold = threshold
        record2(node, grad_output, self, out, (grad_output, self))
    if forward_level():
        forward2(out, grad_output, self, softplus_backward_tangent, (beta, threshold))
    return out


cdef object softplus_backward_tangent(g_t, x_t, g, x, Tensor result, tuple extra):
    """``softplus_backward(g_t, x) + g * beta s (1 - s) * x_t`` (s = sigmoid(beta x)),
    the second term zero on the linear part."""
    beta, threshold = extra
    tangent = None if g_t is None else softplus_backward(g_t, x, beta, threshold)
    if x_t is not None:
        x_part = softplus_double_backward(mul(x_t, g), x, beta, threshold)
        tangent = x_part if tangent is None else add(tangent, x_part)
    return tangent


# ------------------------------------------------------------------ leaky_relu

cdef class LeakyReluBackward0(Node):
    saved_names = ("self",)
    cdef readonly object saved_negative_slope

    cpdef tuple apply(self, tuple grads):
        return (leaky_relu_backward(grads[0], unpack_saved(self, 0),
                                    self.saved_negative_slope, False),)


cdef class LeakyReluBackward1(Node):
    """After ``leaky_relu_``: the sign test reads the result, valid for a positive slope."""
    saved_names = ("result",)
    cdef readonly object saved_negative_slope

    cpdef tuple apply(self, tuple grads):
        return (leaky_relu_backward(grads[0], unpack_saved(self, 0),
                                    self.saved_negative_slope, True),)


cdef Tensor leaky_relu_forward(Tensor input, object negative_slope, bint save_result):
    cdef LeakyReluBackward0 node0
    cdef LeakyReluBackward1 node1
    x = floating_data(input, "leaky_relu_cpu")
    cdef Tensor out = wrap(leaky_relu_array(x, None, negative_slope))
    if forward_level():
        forward1(out, input, leaky_relu_tangent, (negative_slope, save_result))
    if not (is_grad_enabled() and requires_grad(input)):
        return out
    if save_result:
        node1 = LeakyReluBackward1()
        node1.saved_negative_slope = negative_slope
        record1(node1, input, out, (out,))
    else:
        node0 = LeakyReluBackward0()
        node0.saved_negative_slope = negative_slope
        record1(node0, input, out, (input,))
    return out


cdef object leaky_relu_tangent(Tensor self_t, Tensor self, Tensor result, tuple extra):
    """``leaky_relu_backward(self_t, self)``: ``self_t``, times the slope where
    ``self <= 0``; in place the sign test reads the result (``self`` is overwritten)."""
    negative_slope, in_place = extra
    if in_place:
        return leaky_relu_backward(self_t, result, negative_slope, True)
    return leaky_relu_backward(self_t, self, negative_slope, False)


def leaky_relu(Tensor input, negative_slope=0.01):
    """``x`` where ``x > 0``, else ``negative_slope * x``."""
    return leaky_relu_forward(input, negative_slope, False)


def leaky_relu_(Tensor input, negative_slope=0.01):
    """In-place leaky_relu; its backward reads the result (LeakyReluBackward1)."""
    return apply_inplace(input, lambda x: leaky_relu_forward(x, negative_slope, True), (),
                         False)


cdef class LeakyReluBackwardBackward0(Node):
    """Double backward: linear in the gradient, zero with respect to ``self``."""
    saved_names = ("self",)
    cdef readonly object saved_negative_slope

    cpdef tuple apply(self, tuple grads):
        x = unpack_saved(self, 0)
        grad_grad = grad_x = None
        if self.should_compute_output(0):
            grad_grad = leaky_relu_backward(grads[0], x, self.saved_negative_slope, False)
        if self.should_compute_output(1):
            grad_x = make_tensor(np.zeros_like((<Tensor>x)._data))
        return (grad_grad, grad_x)


def leaky_relu_backward(Tensor grad_output, Tensor self, negative_slope, bint self_is_result):
    """``grad_output`` where ``self > 0``, else ``negative_slope * grad_output``."""
    cdef LeakyReluBackwardBackward0 node
    if self_is_result and negative_slope < 0:
        raise RuntimeError(
            "In-place leakyReLu backward calculation is triggered with a negative slope which "
            "is not supported. This is caused by calling in-place forward function with a "
            "negative slope, please call out-of-place version instead. File an issue at "
            "https://github.com/pytorch/pytorch if you do require supporting in-place leakRelu "
            "backward calculation with negative slope")
    cdef Tensor out = wrap(leaky_relu_array(self._data, grad_output._data, negative_slope))
    if any_requires_grad2(grad_output, self):
        node = LeakyReluBackwardBackward0()
        node.saved_negative_slope = negative_slope
        record2(node, grad_output, self, out, (self,))
    if forward_level():
        forward2(out, grad_output, self, leaky_relu_backward_tangent,
                 (negative_slope, self_is_result))
    return out


cdef object leaky_relu_backward_tangent(g_t, x_t, g, x, Tensor result, tuple extra):
    """Linear in ``g``, constant in ``x``: ``leaky_relu_backward(g_t, x)`` (``extra``:
    ``(negative_slope, self_is_result)``)."""
    return leaky_relu_backward(tangent_or_zeros(g_t, g), x, *extra)


# ------------------------------------------------ private helpers for formulas

cdef class LogSigmoidBackward0(ElementwiseNode):
    saved_names = ("self",)

    cpdef tuple apply(self, tuple grads):
        return (mul(grads[0], sigmoid(neg(unpack_saved(self, 0)))),)


def _log_sigmoid(Tensor input):
    """``log(sigmoid(x))`` without overflow or log(0)."""
    cdef Tensor out = wrap(log_sigmoid_array(floating_data(input, "log_sigmoid_forward")))
    if is_grad_enabled() and requires_grad(input):
        record1(LogSigmoidBackward0(), input, out, (input,))
    if forward_level():
        forward1(out, input, log_sigmoid_tangent)
    return out


cdef object log_sigmoid_tangent(Tensor self_t, Tensor self, Tensor result, tuple extra):
    """``self_t * sigmoid(-self)``."""
    return mul(self_t, sigmoid(neg(self)))


batch_unary(silu_tangent)           # NOTE [Batched tangents]: elementwise
batch_unary(log_sigmoid_tangent)
# torch's forward mode computes complex silu's tangent (silu_tangent's conjugated
# derivative); its reverse mode refuses complex silu (NOTE [Complex tangents])
complex_unary(silu_tangent)
