// loss.cu: the losses, forward and backward, one launch each: nll_loss (class indices,
// ignore_index, class weights, every reduction) and the pointwise losses mse, l1, binary
// cross entropy (of probabilities and of logits) fused into their reduction. The host side
// is autograd_cy/cuda/rows.py; the block combination NOTE [Block reduction] (reduce.cuh).
#include "reduce.cuh"
#include "math.cuh"

// torch's Reduction enum
#define AGCY_REDUCTION_NONE 0
#define AGCY_REDUCTION_MEAN 1

template <typename A> struct LossSum {
    __device__ A identity() const { return A(0); }
    __device__ A combine(A a, A b) const { return a + b; }
};

// NOTE [Device-side asserts]
// torch's CUDA kernels check a class index (nll_loss) or a probability (binary_cross_entropy)
// with a device-side assert: the kernel stops, and the error surfaces at the next
// synchronizing host call. These kernels never read out of bounds either: a bad target is
// skipped and `error` (one int64 word per device, rows.py) is set to 1; the host reads that
// word at the next host read of an array of the device and raises there
// (rows.check_device_asserts), so the hot path copies nothing to the host. Many threads may
// flag at once: the store is atomic (a plain one is a data race, however benign).
__device__ __forceinline__ void flag_device_assert(long long* error) {
    atomicExch(reinterpret_cast<unsigned long long*>(error), 1ull);
}

// ---- nll_loss ------------------------------------------------------------------------------
// NOTE [NllLayout]
// The input is seen as (n, c, s): a (C) input is (1, C, 1), (N, C) is (N, C, 1) and
// (N, C, d1, ...) is (N, C, d1 * ...); the target as (n, s), the gradient of a 'none'
// reduction as (n, s). Strides in elements; the weight is a (C) vector or a null pointer.
struct NllLayout {
    long long n, c, s;
    long long x_stride[3];
    long long target_stride[2];
    long long grad_stride[2];
    long long weight_stride;
    long long ignore_index;
    int reduction;
};
static_assert(sizeof(NllLayout) == 104, "NllLayout must match NLL_LAYOUT_DTYPE");

// The class picked at (i, k) and its weight; weight 0 for an ignored or a bad target (which
// also raises the flag and never reads past the class dim).
template <typename A, typename T>
__device__ __forceinline__ long long nll_pick(const NllLayout& L, const long long* target,
                                              const T* weight, long long* error, long long i,
                                              long long k, A* w) {
    const long long t = target[i * L.target_stride[0] + k * L.target_stride[1]];
    *w = A(0);
    if (t == L.ignore_index) return -1;
    if (t < 0 || t >= L.c) {
        flag_device_assert(error);
        return -1;
    }
    *w = weight ? load(weight + t * L.weight_stride) : A(1);
    return t;
}

// 'none': out[i, k] = -w[t] x[i, t, k] (0 where ignored), a grid-stride loop, total_weight
// unused. 'mean' and 'sum': one block sums the losses and the weights (launch one block; any
// others return), out = sum, or sum / total weight for 'mean' (0 / 0 = NaN when every target
// is ignored, as torch's), and total_weight is written for the backward.
template <typename T>
__global__ void nll_loss_forward(T* out, T* total_weight, const T* x, const long long* target,
                                 const T* weight, long long* error, NllLayout L) {
    typedef typename Acc<T>::type A;
    const long long count = L.n * L.s;
    if (L.reduction == AGCY_REDUCTION_NONE) {
        AGCY_GRID_STRIDE_LOOP(e, count) {
            const long long i = e / L.s, k = e % L.s;
            A w;
            const long long t = nll_pick(L, target, weight, error, i, k, &w);
            const A picked = t < 0 ? A(0)
                : load(x + i * L.x_stride[0] + t * L.x_stride[1] + k * L.x_stride[2]);
            store(out + e, t < 0 ? A(0) : -w * picked);
        }
        return;
    }
    if (blockIdx.x != 0) return;
    const int threads = blockDim.x * blockDim.y;
    A loss = 0, weights = 0;
    for (long long e = threadIdx.y * blockDim.x + threadIdx.x; e < count; e += threads) {
        const long long i = e / L.s, k = e % L.s;
        A w;
        const long long t = nll_pick(L, target, weight, error, i, k, &w);
        if (t < 0) continue;
        loss -= w * load(x + i * L.x_stride[0] + t * L.x_stride[1] + k * L.x_stride[2]);
        weights += w;
    }
    loss = block_reduce(LossSum<A>(), loss);
    weights = block_reduce(LossSum<A>(), weights);
    if (threadIdx.x == 0 && threadIdx.y == 0) {
        store(out, L.reduction == AGCY_REDUCTION_MEAN ? loss / weights : loss);
        store(total_weight, weights);
    }
}

// The input's gradient, (n, c, s) contiguous: -w[t] times the incoming gradient (divided by
// the total weight for 'mean') at each target position, 0 elsewhere. One grid-stride pass
// writes every element, so no zero fill is launched first.
template <typename T>
__global__ void nll_loss_backward(T* grad_in, const T* grad_out, const long long* target,
                                  const T* weight, const T* total_weight, long long* error,
                                  NllLayout L) {
    typedef typename Acc<T>::type A;
    const long long total = L.n * L.c * L.s;
    AGCY_GRID_STRIDE_LOOP(e, total) {
        const long long k = e % L.s, c = (e / L.s) % L.c, i = e / (L.s * L.c);
        A w;
        const long long t = nll_pick(L, target, weight, error, i, k, &w);
        A value = 0;
        if (t == c) {
            A g;
            if (L.reduction == AGCY_REDUCTION_NONE)
                g = load(grad_out + i * L.grad_stride[0] + k * L.grad_stride[1]);
            else if (L.reduction == AGCY_REDUCTION_MEAN)
                g = load(grad_out) / load(total_weight);
            else
                g = load(grad_out);
            value = -w * g;
        }
        store(grad_in + e, value);
    }
}

// ---- pointwise losses ------------------------------------------------------------------------
// A functor maps (x, target, weight) in the accumulate type to the element's loss; `weight`
// is 1 when the loss has none. Bce flags an input outside [0, 1] (NOTE [Device-side asserts]).
struct MseLoss {
    template <typename A> __device__ A operator()(A x, A t, A, long long*) const {
        return (x - t) * (x - t);
    }
};
struct L1Loss {
    template <typename A> __device__ A operator()(A x, A t, A, long long*) const {
        return reduce_abs(x - t);
    }
};
// -w (t log x + (1 - t) log(1 - x)), each log floored at -100 as torch's.
struct BceLoss {
    template <typename A> __device__ A operator()(A x, A t, A w, long long* error) const {
        if (!(x >= A(0) && x <= A(1))) flag_device_assert(error);
        const A floor = A(-100);
        const A log_x = max_propagate_nan(reduce_log(x), floor);
        const A log_1mx = max_propagate_nan(agcy_log1p(-x), floor);
        return w * ((t - A(1)) * log_1mx - t * log_x);
    }
};
// w ((1 - t) x - log sigmoid(x)), log sigmoid(x) = min(x, 0) - log1p(exp(-|x|)).
struct BceWithLogitsLoss {
    template <typename A> __device__ A operator()(A x, A t, A w, long long*) const {
        const A log_sigmoid = (x < A(0) ? x : A(0)) - agcy_log1p(reduce_exp(-reduce_abs(x)));
        return w * ((A(1) - t) * x - log_sigmoid);
    }
};

// The loss of every element of the Layout (operands: out, x, target, weight; weight may be
// null). 'none' writes each element's loss (a grid-stride loop); 'mean' and 'sum' fold the
// elementwise function into one block's reduction (launch one block; any others return) and
// write the 0-d out: the sum, or the sum / n (NaN for n == 0, as torch's mean of nothing).
template <typename T, typename F>
__global__ void pointwise_loss(Layout L, long long n, T* out, const T* x, const T* target,
                               const T* weight, long long* error, int reduction) {
    typedef typename Acc<T>::type A;
    const F loss;
    if (reduction == AGCY_REDUCTION_NONE) {
        AGCY_GRID_STRIDE_LOOP(e, n) {
            long long off[4];
            layout_offsets<4>(L, e, off);
            const A w = weight ? load(weight + off[3]) : A(1);
            store(out + off[0], loss(load(x + off[1]), load(target + off[2]), w, error));
        }
        return;
    }
    if (blockIdx.x != 0) return;
    const int threads = blockDim.x * blockDim.y;
    A total = 0;
    for (long long e = threadIdx.y * blockDim.x + threadIdx.x; e < n; e += threads) {
        long long off[4];
        layout_offsets<4>(L, e, off);
        const A w = weight ? load(weight + off[3]) : A(1);
        total += loss(load(x + off[1]), load(target + off[2]), w, error);
    }
    total = block_reduce(LossSum<A>(), total);
    if (threadIdx.x == 0 && threadIdx.y == 0)
        store(out, reduction == AGCY_REDUCTION_MEAN ? total / (A)n : total);
}

// Backward formulas, one elementwise launch each, in the style of pointwise_backward.cu:
// (Layout, n, grad_input, x, target, grad_output, divisor), the incoming gradient broadcast
// (stride 0 for a reduced loss) and divided by `divisor` (n for 'mean', else 1).
#define AGCY_LOSS_BACKWARD(name, formula)                                                       \
    template <typename T>                                                                        \
    __global__ void name(Layout L, long long n, T* grad_in, const T* x_, const T* t_,          \
                         const T* g_, typename Acc<T>::type divisor) {                          \
        typedef typename Acc<T>::type A;                                                         \
        AGCY_GRID_STRIDE_LOOP(e, n) {                                                           \
            long long off[4];                                                                    \
            layout_offsets<4>(L, e, off);                                                       \
            const A x = load(x_ + off[1]), t = load(t_ + off[2]), g = load(g_ + off[3]) / divisor; \
            store(grad_in + off[0], (formula));                                                 \
        }                                                                                        \
    }

// d/dx (x - t)^2 = 2 (x - t)
AGCY_LOSS_BACKWARD(mse_loss_backward, A(2) * (x - t) * g)
// d/dx |x - t| = sign(x - t) (0 at 0, NaN for NaN)
AGCY_LOSS_BACKWARD(l1_loss_backward, (x - t > A(0) ? A(1) : x - t < A(0) ? A(-1) : x - t) * g)
// (x - t) / max(x (1 - x), 1e-12)
AGCY_LOSS_BACKWARD(binary_cross_entropy_backward,
                   g * (x - t) / max_propagate_nan(x * (A(1) - x), A(1e-12)))
// sigmoid(x) - t
AGCY_LOSS_BACKWARD(binary_cross_entropy_with_logits_backward,
                   g * (A(1) / (A(1) + reduce_exp(-x)) - t))
