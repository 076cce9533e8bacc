// pointwise_backward.cu: backward formulas of pointwise ops, each one launch instead of the
// chain of elementwise kernels its formula would otherwise take (and no temporaries).
//
// Every kernel takes NOTE [Layout]'s Layout by value and loops grid-stride over n elements,
// computing in Acc<T> (float for __half). With one gradient the Layout's operands are the
// output then the inputs in parameter order: 0 grad_in, 1 grad_out, 2 the saved tensor.
// The formulas are PyTorch's (docs/derivatives.md lists them).
#include "common.cuh"
#include "math.cuh"

// NOTE [Two gradients in one pass]
// mul_backward, div_backward and pow_backward write the gradients of both operands, which
// read the same elements of grad and of the two inputs: one pass reads them once. Their
// parameters are two outputs and three inputs, one more than a Layout's AGCY_MAX_OPERANDS
// (4), so the two outputs share operand 0's strides: the host allocates both alike (fresh,
// in the launch's shape), and the Layout's operands are 0 both gradients, 1 grad, 2 the
// first input, 3 the second. A null output pointer means that gradient is not needed: it
// is not written, and an input only it reads is not read (and may be null: PyTorch's
// MulBackward0 saves `other` only for self's gradient). Every input is read before either
// output is written, so an output may be the same memory as an input (same strides).

template <typename T>
__global__ void tanh_backward(Layout L, long long n, T* grad_in, const T* grad_out, const T* result) {
    AGCY_GRID_STRIDE_LOOP(i, n) {
        long long off[3];
        layout_offsets<3>(L, i, off);
        typedef typename Acc<T>::type A;
        A g = load(grad_out + off[1]), y = load(result + off[2]);
        store(grad_in + off[0], g * (A(1) - y * y));
    }
}

template <typename T>
__global__ void sigmoid_backward(Layout L, long long n, T* grad_in, const T* grad_out, const T* result) {
    AGCY_GRID_STRIDE_LOOP(i, n) {
        long long off[3];
        layout_offsets<3>(L, i, off);
        typedef typename Acc<T>::type A;
        A g = load(grad_out + off[1]), y = load(result + off[2]);
        store(grad_in + off[0], g * (A(1) - y) * y);
    }
}

// relu's backward: 0 where self <= threshold (relu's threshold is 0, so relu'(0) = 0), else
// grad. A NaN self passes the gradient, as in PyTorch.
template <typename T>
__global__ void threshold_backward(Layout L, long long n, T* grad_in, const T* grad_out, const T* self,
                                   typename Acc<T>::type threshold) {
    typedef typename Acc<T>::type A;
    AGCY_GRID_STRIDE_LOOP(i, n) {
        long long off[3];
        layout_offsets<3>(L, i, off);
        A g = load(grad_out + off[1]), x = load(self + off[2]);
        store(grad_in + off[0], x <= threshold ? A(0) : g);
    }
}

// gelu'(x) = Phi(x) + x phi(x): the standard normal CDF (1 + erf(x / sqrt 2)) / 2 and
// density exp(-x^2 / 2) / sqrt(2 pi).
template <typename T>
__global__ void gelu_backward(Layout L, long long n, T* grad_in, const T* grad_out, const T* self) {
    typedef typename Acc<T>::type A;
    const A sqrt1_2 = A(0.70710678118654752440), inv_sqrt_2pi = A(0.39894228040143267794);
    AGCY_GRID_STRIDE_LOOP(i, n) {
        long long off[3];
        layout_offsets<3>(L, i, off);
        A g = load(grad_out + off[1]), x = load(self + off[2]);
        A cdf = A(0.5) * (A(1) + agcy_erf(x * sqrt1_2));
        A pdf = inv_sqrt_2pi * agcy_exp(A(-0.5) * x * x);
        store(grad_in + off[0], g * (cdf + x * pdf));
    }
}

// The tanh approximation's derivative: with k = sqrt(2 / pi), c = 0.044715 and
// t = tanh(k (x + c x^3)), gelu'(x) = (1 + t) / 2 + x (1 - t^2) k (1 + 3 c x^2) / 2.
template <typename T>
__global__ void gelu_tanh_backward(Layout L, long long n, T* grad_in, const T* grad_out, const T* self) {
    typedef typename Acc<T>::type A;
    const A k = A(0.79788456080286535588), c = A(0.044715);
    AGCY_GRID_STRIDE_LOOP(i, n) {
        long long off[3];
        layout_offsets<3>(L, i, off);
        A g = load(grad_out + off[1]), x = load(self + off[2]);
        A t = agcy_tanh(k * (x + c * x * x * x));
        A slope = x * (A(1) - t * t) * k * (A(1) + A(3) * c * x * x);
        store(grad_in + off[0], g * A(0.5) * (A(1) + t + slope));
    }
}

// silu'(x) = s (1 + x (1 - s)), s = sigmoid(x).
template <typename T>
__global__ void silu_backward(Layout L, long long n, T* grad_in, const T* grad_out, const T* self) {
    typedef typename Acc<T>::type A;
    AGCY_GRID_STRIDE_LOOP(i, n) {
        long long off[3];
        layout_offsets<3>(L, i, off);
        A g = load(grad_out + off[1]), x = load(self + off[2]);
        A s = A(1) / (A(1) + agcy_exp(-x));
        store(grad_in + off[0], g * s * (A(1) + x * (A(1) - s)));
    }
}

// softplus(x) = log(1 + exp(beta x)) / beta, and x itself where beta x > threshold (the
// linear region, derivative 1); elsewhere the derivative is sigmoid(beta x). PyTorch writes
// it z / (z + 1) with z = exp(beta x); 1 / (1 + exp(-beta x)) is the same number without
// inf / inf when a large threshold lets z overflow.
template <typename T>
__global__ void softplus_backward(Layout L, long long n, T* grad_in, const T* grad_out, const T* self,
                                  typename Acc<T>::type beta, typename Acc<T>::type threshold) {
    typedef typename Acc<T>::type A;
    AGCY_GRID_STRIDE_LOOP(i, n) {
        long long off[3];
        layout_offsets<3>(L, i, off);
        A g = load(grad_out + off[1]), scaled = load(self + off[2]) * beta;
        store(grad_in + off[0], scaled > threshold ? g : g / (A(1) + agcy_exp(-scaled)));
    }
}

// a * b: grad_a = g b, grad_b = g a (NOTE [Two gradients in one pass]).
template <typename T>
__global__ void mul_backward(Layout L, long long n, T* grad_a, T* grad_b, const T* grad, const T* a,
                             const T* b) {
    typedef typename Acc<T>::type A;
    AGCY_GRID_STRIDE_LOOP(i, n) {
        long long off[4];
        layout_offsets<4>(L, i, off);
        A g = load(grad + off[1]);
        A x = grad_b ? load(a + off[2]) : A(0), y = grad_a ? load(b + off[3]) : A(0);
        if (grad_a) store(grad_a + off[0], g * y);
        if (grad_b) store(grad_b + off[0], g * x);
    }
}

// a / b: grad_a = g / b, grad_b = -((g a) / (b b)) (NOTE [Two gradients in one pass]).
template <typename T>
__global__ void div_backward(Layout L, long long n, T* grad_a, T* grad_b, const T* grad, const T* a,
                             const T* b) {
    typedef typename Acc<T>::type A;
    AGCY_GRID_STRIDE_LOOP(i, n) {
        long long off[4];
        layout_offsets<4>(L, i, off);
        A g = load(grad + off[1]), y = load(b + off[3]);
        A x = grad_b ? load(a + off[2]) : A(0);
        if (grad_a) store(grad_a + off[0], g / y);
        if (grad_b) store(grad_b + off[0], -((g * x) / (y * y)));
    }
}

// base ** exponent, both tensors (NOTE [Two gradients in one pass]):
// grad_base = g (e b^(e-1)), 0 where e == 0 (so 0 ** 0's gradient is 0, not 0 * inf);
// grad_exp = g (b^e log b), 0 where b == 0 and e >= 0 (the limit; log 0 = -inf would
// give NaN or -inf).
template <typename T>
__global__ void pow_backward(Layout L, long long n, T* grad_base, T* grad_exp, const T* grad,
                             const T* base, const T* exponent) {
    typedef typename Acc<T>::type A;
    AGCY_GRID_STRIDE_LOOP(i, n) {
        long long off[4];
        layout_offsets<4>(L, i, off);
        A g = load(grad + off[1]), b = load(base + off[2]), e = load(exponent + off[3]);
        if (grad_base)
            store(grad_base + off[0], e == A(0) ? A(0) : g * (e * agcy_pow(b, e - A(1))));
        if (grad_exp)
            store(grad_exp + off[0],
                  b == A(0) && e >= A(0) ? A(0) : g * (agcy_pow(b, e) * agcy_log(b)));
    }
}

// base ** exponent for a number exponent: g (b^(e-1) e), and 0 everywhere for e == 0.
// One gradient: the Layout's operands are 0 grad_base, 1 grad, 2 base.
template <typename T>
__global__ void pow_scalar_backward(Layout L, long long n, T* grad_base, const T* grad, const T* base,
                                    typename Acc<T>::type exponent) {
    typedef typename Acc<T>::type A;
    AGCY_GRID_STRIDE_LOOP(i, n) {
        long long off[3];
        layout_offsets<3>(L, i, off);
        A g = load(grad + off[1]), b = load(base + off[2]);
        store(grad_base + off[0],
              exponent == A(0) ? A(0) : g * (agcy_pow(b, exponent - A(1)) * exponent));
    }
}
