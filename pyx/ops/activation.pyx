"""Activations: softmax, log_softmax, gelu, silu, softplus, leaky_relu, with their backward.

# Design
Each activation is a primitive: its forward is one typed loop (or a few NumPy
calls) over the input, not a chain of recorded ops, and its backward Node sits
right above it. As in PyTorch, most backward formulas are themselves a primitive
(``gelu_backward`` = ``grad * gelu'(x)`` in one loop) that records a
``...BackwardBackward0`` node when ``create_graph=True``. Such a backward is
linear in the gradient, so its own gradient with respect to the gradient is
the adjoint of that linear map (the same primitive for elementwise ops and
softmax, whose Jacobians are symmetric); its other formulas are written with
Tensor-level ops, so every order of derivative is available.

A few private primitives (``_sigmoid``, ``_log_sigmoid``, ``_relu``, ``_abs``)
serve those formulas and the losses in loss.pyx; they stay out of ``__all__``
because the public ``sigmoid``, ``relu``, ``abs`` belong to pointwise.pyx.
"""
import numpy as np
cimport numpy as cnp
from libc.math cimport exp, log1p, tanh, erfc, fabs

from autograd_cy._C.grad_mode cimport is_grad_enabled
from autograd_cy._C.tensor cimport Tensor, make_tensor, requires_grad
from autograd_cy._C.tensor import wrap_dim
from autograd_cy._C.node cimport (
    Node, SavedTensor, save, set_history1, set_history2, any_requires_grad2,
)
from autograd_cy._C.ops.dispatch cimport wrap
from autograd_cy._C.ops.inplace cimport apply_inplace
from autograd_cy._C.ops.arithmetic import add, sub, mul, div, neg
from autograd_cy._C.ops.pointwise import exp as texp, tanh as ttanh, where
from autograd_cy._C.ops.reduction import sum as tsum

cnp.import_array()

__all__ = ["softmax", "log_softmax"]
__tensor_methods__ = ("softmax", "log_softmax")

cdef object FLOAT32 = np.dtype(np.float32)
cdef object FLOAT64 = np.dtype(np.float64)

cdef double SQRT1_2 = 0.70710678118654752440       # 1 / sqrt(2)
cdef double INV_SQRT_2PI = 0.39894228040143267794  # 1 / sqrt(2 pi)
cdef double GELU_K = 0.79788456080286535588        # sqrt(2 / pi), the tanh approximation's
cdef double GELU_C = 0.044715


# ------------------------------------------------------------------ typed kernels

ctypedef fused real:
    float
    double

cdef enum Kernel:
    SIGMOID, LOG_SIGMOID, SILU, SOFTPLUS, GELU, GELU_TANH


cdef inline double sigmoid_scalar(double v) noexcept nogil:
    cdef double e
    if v >= 0:
        return 1.0 / (1.0 + exp(-v))
    e = exp(v)                        # no overflow for very negative v
    return e / (1.0 + e)


cdef inline double gelu_tanh_inner(double v) noexcept nogil:
    return GELU_K * (v + GELU_C * v * v * v)


cdef void forward_loop(const real* x, real* out, Py_ssize_t n, int kernel,
                       double beta, double threshold) noexcept nogil:
    """``out = f(x)`` for one of the Kernels; float inputs compute in double."""
    cdef Py_ssize_t i
    cdef double v
    if kernel == SIGMOID:
        for i in range(n):
            out[i] = <real>sigmoid_scalar(x[i])
    elif kernel == LOG_SIGMOID:
        for i in range(n):                # min(v, 0) - log(1 + e^-|v|): stable both ways
            v = x[i]
            out[i] = <real>((v if v < 0 else 0.0) - log1p(exp(-fabs(v))))
    elif kernel == SILU:
        for i in range(n):
            out[i] = <real>(x[i] * sigmoid_scalar(x[i]))
    elif kernel == SOFTPLUS:
        for i in range(n):
            v = x[i] * beta
            out[i] = x[i] if v > threshold else <real>(log1p(exp(v)) / beta)
    elif kernel == GELU:
        for i in range(n):                # x * Phi(x); erfc keeps precision for x << 0
            out[i] = <real>(x[i] * 0.5 * erfc(-x[i] * SQRT1_2))
    elif kernel == GELU_TANH:
        for i in range(n):
            v = x[i]
            out[i] = <real>(0.5 * v * (1.0 + tanh(gelu_tanh_inner(v))))


cdef void backward_loop(const real* g, const real* x, real* out, Py_ssize_t n, int kernel,
                        double beta, double threshold) noexcept nogil:
    """``out = g * f'(x)`` for one of the Kernels."""
    cdef Py_ssize_t i
    cdef double v, s, t, pdf
    if kernel == SILU:
        for i in range(n):
            v = x[i]
            s = sigmoid_scalar(v)
            out[i] = <real>(g[i] * s * (1.0 + v * (1.0 - s)))
    elif kernel == SOFTPLUS:
        for i in range(n):
            v = x[i] * beta
            out[i] = g[i] if v > threshold else <real>(g[i] * sigmoid_scalar(v))
    elif kernel == GELU:
        for i in range(n):                # Phi(x) + x phi(x)
            v = x[i]
            pdf = INV_SQRT_2PI * exp(-0.5 * v * v)
            out[i] = <real>(g[i] * (0.5 * erfc(-v * SQRT1_2) + v * pdf))
    elif kernel == GELU_TANH:
        for i in range(n):
            v = x[i]
            t = tanh(gelu_tanh_inner(v))
            out[i] = <real>(g[i] * (0.5 * (1.0 + t) + 0.5 * v * (1.0 - t * t) * GELU_K
                                    * (1.0 + 3.0 * GELU_C * v * v)))


cdef object work_array(object array):
    """A C-contiguous float32/float64 copy (or the array itself) for the typed loops."""
    return np.ascontiguousarray(array, dtype=FLOAT64 if array.dtype == FLOAT64 else FLOAT32)


cdef object run_forward(object array, int kernel, double beta=1.0, double threshold=0.0):
    """``f(array)`` elementwise; float16 computes in float32 and rounds back."""
    cdef object x = work_array(array)
    cdef object out = np.empty(x.shape, x.dtype)
    cdef Py_ssize_t n = x.size
    cdef void* px = cnp.PyArray_DATA(x)
    cdef void* po = cnp.PyArray_DATA(out)
    if x.dtype == FLOAT64:
        with nogil:
            forward_loop[double](<double*>px, <double*>po, n, kernel, beta, threshold)
    else:
        with nogil:
            forward_loop[float](<float*>px, <float*>po, n, kernel, beta, threshold)
    return out if out.dtype == array.dtype else out.astype(array.dtype)


cdef object run_backward(object grad_array, object array, int kernel, double beta=1.0,
                         double threshold=0.0):
    """``grad * f'(array)`` elementwise, in ``array``'s dtype."""
    cdef object x = work_array(array)
    cdef object g = np.ascontiguousarray(np.broadcast_to(grad_array, x.shape), dtype=x.dtype)
    cdef object out = np.empty(x.shape, x.dtype)
    cdef Py_ssize_t n = x.size
    cdef void* pg = cnp.PyArray_DATA(g)
    cdef void* px = cnp.PyArray_DATA(x)
    cdef void* po = cnp.PyArray_DATA(out)
    if x.dtype == FLOAT64:
        with nogil:
            backward_loop[double](<double*>pg, <double*>px, <double*>po, n, kernel, beta,
                                  threshold)
    else:
        with nogil:
            backward_loop[float](<float*>pg, <float*>px, <float*>po, n, kernel, beta,
                                 threshold)
    return out if out.dtype == array.dtype else out.astype(array.dtype)


cdef object floating_data(Tensor t, str kernel_name):
    """``t``'s array, or PyTorch's NotImplementedError for an integer or bool tensor."""
    if t._data.dtype.kind != "f":
        from autograd_cy.dtypes import from_numpy_dtype
        raise NotImplementedError(f'"{kernel_name}" not implemented for '
                                  f"'{from_numpy_dtype(t._data.dtype)._scalar_name}'")
    return t._data


# ------------------------------------------------------------------ softmax

cdef class SoftmaxBackward0(Node):
    cdef readonly SavedTensor saved_result
    cdef readonly Py_ssize_t saved_dim

    cpdef tuple apply(self, tuple grads):
        return (_softmax_backward_data(grads[0], self.saved_result.unpack(self), self.saved_dim),)

    cdef void release_variables(self):
        self.saved_result.release()


cdef Py_ssize_t softmax_dim(Tensor input, object dim) except -1:
    return wrap_dim(dim, input._data.ndim)


cdef Tensor cast_for_softmax(Tensor input, object dtype):
    """``dtype=``: the input is converted first (a recorded ToCopyBackward0)."""
    if dtype is None:
        return input
    from autograd_cy._C.ops.conversion import to
    return to(input, dtype)


cdef object softmax_array(object array, Py_ssize_t dim, bint log):
    """Softmax (or log_softmax) of ``array`` along ``dim``, shifted by the max for stability."""
    if array.size == 0:
        return array.copy()
    work = array.reshape(1) if array.ndim == 0 else array
    with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
        shifted = work - work.max(axis=dim, keepdims=True)
        if log:
            shifted -= np.log(np.exp(shifted).sum(axis=dim, keepdims=True))
        else:
            np.exp(shifted, out=shifted)
            shifted /= shifted.sum(axis=dim, keepdims=True)
    return shifted.reshape(array.shape)


def softmax(Tensor input, dim, dtype=None):
    """``exp(x) / sum(exp(x))`` along ``dim``; ``dtype=`` casts the input first."""
    cdef SoftmaxBackward0 node
    input = cast_for_softmax(input, dtype)
    cdef Py_ssize_t d = softmax_dim(input, dim)
    last = d == input._data.ndim - 1 or input._data.ndim == 0
    array = floating_data(input, "softmax_lastdim_kernel_impl" if last
                          else "softmax_kernel_impl")
    cdef Tensor out = wrap(softmax_array(array, d, False))
    if is_grad_enabled() and requires_grad(input):
        node = SoftmaxBackward0()
        node.saved_dim = d
        set_history1(node, input, out)
        node.saved_result = save(out, True)
    return out


cdef object sum_dim(object t, Py_ssize_t dim):
    """``t.sum(dim, keepdim=True)``; a 0-dim tensor is its own sum."""
    if (<Tensor>t)._data.ndim == 0:
        return t
    return tsum(t, dim, True)


cdef class SoftmaxBackwardDataBackward0(Node):
    """Double backward of softmax: inputs (grad_output, output)."""
    cdef readonly SavedTensor saved_grad_output
    cdef readonly SavedTensor saved_output
    cdef readonly Py_ssize_t saved_dim

    cpdef tuple apply(self, tuple grads):
        gg = grads[0]
        y = self.saved_output.unpack(self)
        grad_grad = grad_y = None
        if self.should_compute_output(0):
            # Linear in g with the symmetric Jacobian diag(y) - y y^T: its own adjoint.
            grad_grad = _softmax_backward_data(gg, y, self.saved_dim)
        if self.should_compute_output(1):
            # d/dy of y * (g - sum(g y)):  gg * (g - sum(g y)) - g * sum(gg y)
            g = self.saved_grad_output.unpack(self)
            d = self.saved_dim
            grad_y = sub(mul(gg, sub(g, sum_dim(mul(g, y), d))),
                         mul(g, sum_dim(mul(gg, y), d)))
        return (grad_grad, grad_y)

    cdef void release_variables(self):
        self.saved_grad_output.release()
        self.saved_output.release()


def _softmax_backward_data(Tensor grad_output, Tensor output, Py_ssize_t dim):
    """Softmax's input gradient ``y * (g - sum(g * y, dim))`` from its output ``y``."""
    cdef SoftmaxBackwardDataBackward0 node
    g, y = grad_output._data, output._data
    if y.ndim == 0:
        array = np.zeros_like(y)
    else:
        array = g * y
        array -= y * array.sum(axis=dim, keepdims=True)
    cdef Tensor out = wrap(array.astype(y.dtype, copy=False))
    if any_requires_grad2(grad_output, output):
        node = SoftmaxBackwardDataBackward0()
        node.saved_dim = dim
        node.saved_grad_output = save(grad_output, False)
        node.saved_output = save(output, False)
        set_history2(node, grad_output, output, out)
    return out


# ------------------------------------------------------------------ log_softmax

cdef class LogSoftmaxBackward0(Node):
    cdef readonly SavedTensor saved_result
    cdef readonly Py_ssize_t saved_dim

    cpdef tuple apply(self, tuple grads):
        return (_log_softmax_backward_data(grads[0], self.saved_result.unpack(self),
                                           self.saved_dim),)

    cdef void release_variables(self):
        self.saved_result.release()


def log_softmax(Tensor input, dim, dtype=None):
    """``x - log(sum(exp(x)))`` along ``dim``, computed without overflow."""
    cdef LogSoftmaxBackward0 node
    input = cast_for_softmax(input, dtype)
    cdef Py_ssize_t d = softmax_dim(input, dim)
    last = d == input._data.ndim - 1 or input._data.ndim == 0
    array = floating_data(input, "log_softmax_lastdim_kernel_impl" if last
                          else "log_softmax_kernel_impl")
    cdef Tensor out = wrap(softmax_array(array, d, True))
    if is_grad_enabled() and requires_grad(input):
        node = LogSoftmaxBackward0()
        node.saved_dim = d
        set_history1(node, input, out)
        node.saved_result = save(out, True)
    return out


cdef class LogSoftmaxBackwardDataBackward0(Node):
    """Double backward of log_softmax: inputs (grad_output, output)."""
    cdef readonly SavedTensor saved_grad_output
    cdef readonly SavedTensor saved_output
    cdef readonly Py_ssize_t saved_dim

    cpdef tuple apply(self, tuple grads):
        gg = grads[0]
        y = self.saved_output.unpack(self)
        grad_grad = grad_y = None
        if self.should_compute_output(0):
            # The map g -> g - exp(y) sum(g) is not symmetric: its adjoint is
            # v -> v - sum(v exp(y)).
            grad_grad = sub(gg, sum_dim(mul(gg, texp(y)), self.saved_dim))
        if self.should_compute_output(1):
            # d/dy of g - exp(y) * sum(g):  -gg * exp(y) * sum(g)
            g = self.saved_grad_output.unpack(self)
            grad_y = neg(mul(mul(gg, texp(y)), sum_dim(g, self.saved_dim)))
        return (grad_grad, grad_y)

    cdef void release_variables(self):
        self.saved_grad_output.release()
        self.saved_output.release()


def _log_softmax_backward_data(Tensor grad_output, Tensor output, Py_ssize_t dim):
    """log_softmax's input gradient ``g - exp(y) * sum(g, dim)`` from its output ``y``."""
    cdef LogSoftmaxBackwardDataBackward0 node
    g, y = grad_output._data, output._data
    if y.ndim == 0:
        array = np.zeros_like(y)
    else:
        array = g - np.exp(y) * g.sum(axis=dim, keepdims=True)
    cdef Tensor out = wrap(array.astype(y.dtype, copy=False))
    if any_requires_grad2(grad_output, output):
        node = LogSoftmaxBackwardDataBackward0()
        node.saved_dim = dim
        node.saved_grad_output = save(grad_output, False)
        node.saved_output = save(output, False)
        set_history2(node, grad_output, output, out)
    return out


# ------------------------------------------------------------------ gelu

cdef class GeluBackward0(Node):
    cdef readonly SavedTensor saved_self
    cdef readonly str saved_approximate

    cpdef tuple apply(self, tuple grads):
        return (gelu_backward(grads[0], self.saved_self.unpack(self), self.saved_approximate),)

    cdef void release_variables(self):
        self.saved_self.release()


cdef int gelu_kernel(str approximate) except -1:
    if approximate == "none":
        return GELU
    if approximate == "tanh":
        return GELU_TANH
    raise RuntimeError("approximate argument must be either none or tanh.")


def gelu(Tensor input, *, approximate="none"):
    """``x * Phi(x)`` (Phi: the standard normal CDF), or its tanh approximation."""
    cdef GeluBackward0 node
    cdef int kernel = gelu_kernel(approximate)
    cdef Tensor out = wrap(run_forward(floating_data(input, "GeluKernelImpl"), kernel))
    if is_grad_enabled() and requires_grad(input):
        node = GeluBackward0()
        node.saved_self = save(input, False)
        node.saved_approximate = approximate
        set_history1(node, input, out)
    return out


cdef class GeluBackwardBackward0(Node):
    """Double backward of gelu: inputs (grad_output, self)."""
    cdef readonly SavedTensor saved_grad_output
    cdef readonly SavedTensor saved_self
    cdef readonly str saved_approximate

    cpdef tuple apply(self, tuple grads):
        gg = grads[0]
        x = self.saved_self.unpack(self)
        grad_grad = grad_x = None
        if self.should_compute_output(0):
            grad_grad = gelu_backward(gg, x, self.saved_approximate)
        if self.should_compute_output(1):
            grad_x = mul(mul(gg, self.saved_grad_output.unpack(self)),
                         gelu_second_derivative(x, self.saved_approximate))
        return (grad_grad, grad_x)

    cdef void release_variables(self):
        self.saved_grad_output.release()
        self.saved_self.release()


cdef object gelu_second_derivative(object x, str approximate):
    """gelu''(x), from recorded ops so that higher orders differentiate it."""
    x2 = mul(x, x)
    if approximate == "none":
        # phi(x) * (2 - x^2), phi the standard normal density
        pdf = mul(texp(mul(x2, -0.5)), INV_SQRT_2PI)
        return mul(pdf, sub(2.0, x2))
    # f = x (1 + tanh u) / 2, u = k (x + c x^3):  f'' = (1 - t^2) (u' - x t u'^2 + x u'' / 2)
    t = ttanh(mul(add(x, mul(mul(x2, x), GELU_C)), GELU_K))
    du = mul(add(mul(x2, 3.0 * GELU_C), 1.0), GELU_K)
    d2u = mul(x, 6.0 * GELU_C * GELU_K)
    inner = add(sub(du, mul(mul(x, t), mul(du, du))), mul(mul(x, d2u), 0.5))
    return mul(sub(1.0, mul(t, t)), inner)


def gelu_backward(Tensor grad_output, Tensor self, approximate="none"):
    """``grad_output * gelu'(self)`` in one pass."""
    cdef GeluBackwardBackward0 node
    cdef int kernel = gelu_kernel(approximate)
    cdef Tensor out = wrap(run_backward(grad_output._data, self._data, kernel))
    if any_requires_grad2(grad_output, self):
        node = GeluBackwardBackward0()
        node.saved_grad_output = save(grad_output, False)
        node.saved_self = save(self, False)
        node.saved_approximate = approximate
        set_history2(node, grad_output, self, out)
    return out


# ------------------------------------------------------------------ silu

cdef class SiluBackward0(Node):
    """``grad * s (1 + x (1 - s))``, s = sigmoid(x): one fused loop, or recorded ops when
    ``create_graph=True`` (grad mode on), as PyTorch does."""
    cdef readonly SavedTensor saved_self

    cpdef tuple apply(self, tuple grads):
        x = self.saved_self.unpack(self)
        if is_grad_enabled():
            s = _sigmoid(x)
            return (mul(grads[0], mul(s, add(mul(x, sub(1.0, s)), 1.0))),)
        return (wrap(run_backward((<Tensor>grads[0])._data, (<Tensor>x)._data, SILU)),)

    cdef void release_variables(self):
        self.saved_self.release()


def silu(Tensor input):
    """``x * sigmoid(x)`` (also called swish)."""
    cdef SiluBackward0 node
    cdef Tensor out = wrap(run_forward(floating_data(input, "silu_cpu"), SILU))
    if is_grad_enabled() and requires_grad(input):
        node = SiluBackward0()
        node.saved_self = save(input, False)
        set_history1(node, input, out)
    return out


def silu_(Tensor input):
    """In-place silu (its node keeps a copy of the original values)."""
    return apply_inplace(input, silu, (), True)


# ------------------------------------------------------------------ softplus

cdef class SoftplusBackward0(Node):
    cdef readonly SavedTensor saved_self
    cdef readonly object saved_beta
    cdef readonly object saved_threshold

    cpdef tuple apply(self, tuple grads):
        return (softplus_backward(grads[0], self.saved_self.unpack(self), self.saved_beta,
                                  self.saved_threshold),)

    cdef void release_variables(self):
        self.saved_self.release()


def softplus(Tensor input, beta=1.0, threshold=20.0):
    """``log(1 + exp(beta x)) / beta``, and ``x`` itself where ``beta x > threshold``."""
    cdef SoftplusBackward0 node
    cdef Tensor out = wrap(run_forward(floating_data(input, "softplus_cpu"), SOFTPLUS,
                                       beta, threshold))
    if is_grad_enabled() and requires_grad(input):
        node = SoftplusBackward0()
        node.saved_self = save(input, False)
        node.saved_beta = beta
        node.saved_threshold = threshold
        set_history1(node, input, out)
    return out


cdef class SoftplusBackwardBackward0(Node):
    """Double backward of softplus: inputs (grad_output, self)."""
    cdef readonly SavedTensor saved_grad_output
    cdef readonly SavedTensor saved_self
    cdef readonly object saved_beta
    cdef readonly object saved_threshold

    cpdef tuple apply(self, tuple grads):
        gg = grads[0]
        x = self.saved_self.unpack(self)
        beta, threshold = self.saved_beta, self.saved_threshold
        grad_grad = grad_x = None
        if self.should_compute_output(0):
            grad_grad = softplus_backward(gg, x, beta, threshold)
        if self.should_compute_output(1):
            # d/dx sigmoid(beta x) = beta s (1 - s), zero on the linear part
            s = _sigmoid(mul(x, beta))
            curvature = mul(mul(s, sub(1.0, s)), beta)
            inside = make_tensor((<Tensor>x)._data * beta <= threshold)
            grad_x = where(inside, mul(mul(gg, self.saved_grad_output.unpack(self)), curvature),
                           0.0)
        return (grad_grad, grad_x)

    cdef void release_variables(self):
        self.saved_grad_output.release()
        self.saved_self.release()


def softplus_backward(Tensor grad_output, Tensor self, beta, threshold):
    """``grad_output * sigmoid(beta x)``, or ``grad_output`` where ``beta x > threshold``."""
    cdef SoftplusBackwardBackward0 node
    cdef Tensor out = wrap(run_backward(grad_output._data, self._data, SOFTPLUS, beta,
                                        threshold))
    if any_requires_grad2(grad_output, self):
        node = SoftplusBackwardBackward0()
        node.saved_grad_output = save(grad_output, False)
        node.saved_self = save(self, False)
        node.saved_beta = beta
        node.saved_threshold = threshold
        set_history2(node, grad_output, self, out)
    return out


# ------------------------------------------------------------------ leaky_relu

cdef class LeakyReluBackward0(Node):
    cdef readonly SavedTensor saved_self
    cdef readonly object saved_negative_slope

    cpdef tuple apply(self, tuple grads):
        return (leaky_relu_backward(grads[0], self.saved_self.unpack(self),
                                    self.saved_negative_slope, False),)

    cdef void release_variables(self):
        self.saved_self.release()


cdef class LeakyReluBackward1(Node):
    """After ``leaky_relu_``: the sign test reads the result, valid for a positive slope."""
    cdef readonly SavedTensor saved_result
    cdef readonly object saved_negative_slope

    cpdef tuple apply(self, tuple grads):
        return (leaky_relu_backward(grads[0], self.saved_result.unpack(self),
                                    self.saved_negative_slope, True),)

    cdef void release_variables(self):
        self.saved_result.release()


cdef Tensor leaky_relu_forward(Tensor input, object negative_slope, bint save_result):
    cdef LeakyReluBackward0 node0
    cdef LeakyReluBackward1 node1
    x = floating_data(input, "leaky_relu_cpu")
    cdef Tensor out = wrap(np.where(x > 0, x, x * x.dtype.type(negative_slope)))
    if not (is_grad_enabled() and requires_grad(input)):
        return out
    if save_result:
        node1 = LeakyReluBackward1()
        node1.saved_negative_slope = negative_slope
        set_history1(node1, input, out)
        node1.saved_result = save(out, True)
    else:
        node0 = LeakyReluBackward0()
        node0.saved_self = save(input, False)
        node0.saved_negative_slope = negative_slope
        set_history1(node0, input, out)
    return out


def leaky_relu(Tensor input, negative_slope=0.01):
    """``x`` where ``x > 0``, else ``negative_slope * x``."""
    return leaky_relu_forward(input, negative_slope, False)


def leaky_relu_(Tensor input, negative_slope=0.01):
    """In-place leaky_relu; its backward reads the result (LeakyReluBackward1)."""
    return apply_inplace(input, lambda x: leaky_relu_forward(x, negative_slope, True), (),
                         False)


cdef class LeakyReluBackwardBackward0(Node):
    """Double backward: linear in the gradient, zero with respect to ``self``."""
    cdef readonly SavedTensor saved_self
    cdef readonly object saved_negative_slope

    cpdef tuple apply(self, tuple grads):
        x = self.saved_self.unpack(self)
        grad_grad = grad_x = None
        if self.should_compute_output(0):
            grad_grad = leaky_relu_backward(grads[0], x, self.saved_negative_slope, False)
        if self.should_compute_output(1):
            grad_x = make_tensor(np.zeros_like((<Tensor>x)._data))
        return (grad_grad, grad_x)

    cdef void release_variables(self):
        self.saved_self.release()


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
    g = grad_output._data
    cdef Tensor out = wrap(np.where(self._data > 0, g, g * g.dtype.type(negative_slope)))
    if any_requires_grad2(grad_output, self):
        node = LeakyReluBackwardBackward0()
        node.saved_self = save(self, False)
        node.saved_negative_slope = negative_slope
        set_history2(node, grad_output, self, out)
    return out


# ------------------------------------------------ private helpers for formulas

cdef class SigmoidBackward0(Node):
    cdef readonly SavedTensor saved_result

    cpdef tuple apply(self, tuple grads):
        s = self.saved_result.unpack(self)
        return (mul(grads[0], mul(s, sub(1.0, s))),)

    cdef void release_variables(self):
        self.saved_result.release()


def _sigmoid(Tensor input):
    """``1 / (1 + exp(-x))`` without overflow; the formulas' differentiable sigmoid."""
    cdef SigmoidBackward0 node
    cdef Tensor out = wrap(run_forward(floating_data(input, "sigmoid_cpu"), SIGMOID))
    if is_grad_enabled() and requires_grad(input):
        node = SigmoidBackward0()
        set_history1(node, input, out)
        node.saved_result = save(out, True)
    return out


cdef class LogSigmoidBackward0(Node):
    cdef readonly SavedTensor saved_self

    cpdef tuple apply(self, tuple grads):
        return (mul(grads[0], _sigmoid(neg(self.saved_self.unpack(self)))),)

    cdef void release_variables(self):
        self.saved_self.release()


def _log_sigmoid(Tensor input):
    """``log(sigmoid(x))`` without overflow or log(0)."""
    cdef LogSigmoidBackward0 node
    cdef Tensor out = wrap(run_forward(floating_data(input, "log_sigmoid_forward"),
                                       LOG_SIGMOID))
    if is_grad_enabled() and requires_grad(input):
        node = LogSigmoidBackward0()
        node.saved_self = save(input, False)
        set_history1(node, input, out)
    return out


cdef class ReluBackward0(Node):
    cdef readonly SavedTensor saved_result

    cpdef tuple apply(self, tuple grads):
        result = self.saved_result.unpack(self)
        return (where(make_tensor((<Tensor>result)._data > 0), grads[0], 0.0),)

    cdef void release_variables(self):
        self.saved_result.release()


def _relu(Tensor input):
    """``max(x, 0)``: nn.functional's fallback until pointwise.pyx provides ``relu``."""
    cdef ReluBackward0 node
    x = input._data
    cdef Tensor out = wrap(np.where(x > 0, x, x.dtype.type(0)))
    if is_grad_enabled() and requires_grad(input):
        node = ReluBackward0()
        set_history1(node, input, out)
        node.saved_result = save(out, True)
    return out


def _relu_(Tensor input):
    return apply_inplace(input, _relu, (), False)


cdef class AbsBackward0(Node):
    cdef readonly SavedTensor saved_self

    cpdef tuple apply(self, tuple grads):
        x = self.saved_self.unpack(self)
        return (mul(grads[0], make_tensor(np.sign((<Tensor>x)._data))),)

    cdef void release_variables(self):
        self.saved_self.release()


def _abs(Tensor input):
    """``|x|``: nn.functional's fallback until pointwise.pyx provides ``abs``."""
    cdef AbsBackward0 node
    cdef Tensor out = wrap(np.abs(input._data))
    if is_grad_enabled() and requires_grad(input):
        node = AbsBackward0()
        node.saved_self = save(input, False)
        set_history1(node, input, out)
    return out
