// foreach.cu: multi-tensor kernels, one launch for a whole list of tensors (the
// `_foreach_*` ops: an optimizer's update of every parameter at once).
#include "common.cuh"
#include "math.cuh"

// NOTE [Multi-tensor launch]
// A list of N tensors updated one op at a time costs N launches; an optimizer step over
// every parameter of a model would be dominated by them. Here one launch covers up to
// AGCY_FOREACH_MAX_TENSORS contiguous tensors of one dtype. The host cuts every tensor into
// chunks of `chunk_size` elements and numbers the chunks of all tensors one after another:
// tensor t owns chunks first_chunk[t] .. first_chunk[t+1]-1. A block takes a chunk (a
// grid-stride loop over chunk numbers, so any grid is right), finds its tensor in the
// table, and its threads stride over the chunk's elements. The table travels by value in
// the kernel's parameter space, which CUDA limits to 4 KB: 64 tensors of three lists take
// 2,600 bytes; a longer list is several launches (autograd_cy/cuda/foreach.py).
//
// address[0] is the list written, address[1] and address[2] the lists read (the same
// pointer as address[0] for an in-place op; unused ones are 0 and never read: each functor
// says how many inputs it reads).
#define AGCY_FOREACH_MAX_TENSORS 64
#define AGCY_FOREACH_LISTS 3

struct ForeachTable {
    unsigned long long address[AGCY_FOREACH_LISTS][AGCY_FOREACH_MAX_TENSORS];
    long long numel[AGCY_FOREACH_MAX_TENSORS];
    long long first_chunk[AGCY_FOREACH_MAX_TENSORS + 1];
    long long chunk_size;
    int count;
};

// The functors: out = apply(a, b, s) in the accumulate type, reading `inputs` of a and b.
struct AddScaled {      // a + s * b: add with alpha (sub passes -alpha)
    static constexpr int inputs = 2;
    template <typename A> __device__ static A apply(A a, A b, A s) { return a + s * b; }
};
struct MulList {        // a * b
    static constexpr int inputs = 2;
    template <typename A> __device__ static A apply(A a, A b, A) { return a * b; }
};
struct AddScalar {      // a + s
    static constexpr int inputs = 1;
    template <typename A> __device__ static A apply(A a, A, A s) { return a + s; }
};
struct MulScalar {      // a * s
    static constexpr int inputs = 1;
    template <typename A> __device__ static A apply(A a, A, A s) { return a * s; }
};
struct CopyList {       // a (copy_ from a list of the same dtype)
    static constexpr int inputs = 1;
    template <typename A> __device__ static A apply(A a, A, A) { return a; }
};
struct Fill {           // s (zero_ passes 0: a multiply by 0 would keep NaN and inf)
    static constexpr int inputs = 0;
    template <typename A> __device__ static A apply(A, A, A s) { return s; }
};

// The optimizers' ops on real floating dtypes only (autograd_cy/cuda/manifest.py).
struct DivList {        // a / b
    static constexpr int inputs = 2;
    template <typename A> __device__ static A apply(A a, A b, A) { return a / b; }
};
struct DivScalar {      // a / s
    static constexpr int inputs = 1;
    template <typename A> __device__ static A apply(A a, A, A s) { return a / s; }
};
struct SqrtList {       // sqrt(a)
    static constexpr int inputs = 1;
    template <typename A> __device__ static A apply(A a, A, A) { return agcy_sqrt(a); }
};
struct MaxList {        // maximum(a, b): a NaN on either side wins, as torch.maximum
    static constexpr int inputs = 2;
    template <typename A> __device__ static A apply(A a, A b, A) {
        return (agcy_isnan(a) || a > b) ? a : b;
    }
};
struct MaxScalar {      // clamp(a, min=s): a NaN stays NaN
    static constexpr int inputs = 1;
    template <typename A> __device__ static A apply(A a, A, A s) {
        return (agcy_isnan(a) || a > s) ? a : s;
    }
};

template <typename T, typename Op>
__global__ void foreach_apply(ForeachTable table, typename Acc<T>::type scalar) {
    typedef typename Acc<T>::type A;
    const long long chunks = table.first_chunk[table.count];
    for (long long chunk = blockIdx.x; chunk < chunks; chunk += gridDim.x) {
        int t = 0;          // the tensor of this chunk (empty tensors own no chunk)
        while (table.first_chunk[t + 1] <= chunk) ++t;
        const long long begin = (chunk - table.first_chunk[t]) * table.chunk_size;
        const long long end = begin + table.chunk_size < table.numel[t]
                                  ? begin + table.chunk_size : table.numel[t];
        T* out = reinterpret_cast<T*>(table.address[0][t]);
        const T* a = reinterpret_cast<const T*>(table.address[1][t]);
        const T* b = reinterpret_cast<const T*>(table.address[2][t]);
        for (long long i = begin + threadIdx.x; i < end; i += blockDim.x) {
            A x = Op::inputs >= 1 ? load(a + i) : A(0);
            A y = Op::inputs >= 2 ? load(b + i) : A(0);
            store(out + i, Op::template apply<A>(x, y, scalar));
        }
    }
}

// NOTE [Adam in one launch]
// Adam's multi-tensor step is a dozen _foreach ops, a launch each. adam_apply does the
// whole update of up to AGCY_ADAM_MAX_TENSORS parameters in one launch: each thread reads
// param, grad, exp_avg and exp_avg_sq once, runs torch's ops in their order (each rounded
// to T's accumulate type, as each _foreach op rounds its result), and writes three of them.
// Float32 and float64 only: a half dtype rounds every intermediate to itself between the
// _foreach ops, which this kernel would not. The step size and bias correction of each
// parameter (its own step count) travel in the table, the rest as scalars.
#define AGCY_ADAM_MAX_TENSORS 32

struct AdamTable {
    unsigned long long address[4][AGCY_ADAM_MAX_TENSORS];   // param, grad, exp_avg, exp_avg_sq
    long long numel[AGCY_ADAM_MAX_TENSORS];
    long long first_chunk[AGCY_ADAM_MAX_TENSORS + 1];
    double step_size[AGCY_ADAM_MAX_TENSORS];
    double bias_correction2_sqrt[AGCY_ADAM_MAX_TENSORS];
    long long chunk_size;
    int count;
};

// options: bit 0 maximize, bit 1 L2 weight decay (added to the gradient), bit 2 decoupled
// weight decay (AdamW: the parameter scaled by decay_factor first)
template <typename T>
__global__ void adam_apply(AdamTable table, double beta2, double one_minus_beta1,
                           double one_minus_beta2, double eps, double weight_decay,
                           double decay_factor, int options) {
    typedef typename Acc<T>::type A;
    const long long chunks = table.first_chunk[table.count];
    const A b2 = (A)beta2, w = (A)one_minus_beta1, omb2 = (A)one_minus_beta2;
    const A epsilon = (A)eps, decay = (A)weight_decay, factor = (A)decay_factor;
    const bool small_weight = w < A(0.5) && w > A(-0.5);
    for (long long chunk = blockIdx.x; chunk < chunks; chunk += gridDim.x) {
        int t = 0;
        while (table.first_chunk[t + 1] <= chunk) ++t;
        const long long begin = (chunk - table.first_chunk[t]) * table.chunk_size;
        const long long end = begin + table.chunk_size < table.numel[t]
                                  ? begin + table.chunk_size : table.numel[t];
        T* p = reinterpret_cast<T*>(table.address[0][t]);
        const T* g = reinterpret_cast<const T*>(table.address[1][t]);
        T* m = reinterpret_cast<T*>(table.address[2][t]);
        T* v = reinterpret_cast<T*>(table.address[3][t]);
        const A minus_step_size = (A)(-table.step_size[t]);
        const A correction = (A)table.bias_correction2_sqrt[t];
        for (long long i = begin + threadIdx.x; i < end; i += blockDim.x) {
            A grad = load(g + i);
            A param = load(p + i);
            if (options & 1) grad = -grad;                              // maximize
            if (options & 4) param = param * factor;                    // param.mul_(1 - lr*wd)
            else if (options & 2) grad = grad + param * decay;          // grad + wd * param
            A average = load(m + i);
            const A diff = grad - average;                              // lerp_(grad, 1 - b1)
            average = small_weight ? average + diff * w : grad - diff * (A(1) - w);
            A average_sq = load(v + i) * b2;                            // mul_(b2)
            average_sq = average_sq + (grad * omb2) * grad;             // addcmul_(g, g, 1-b2)
            A denom = agcy_sqrt(average_sq) / correction + epsilon;     // sqrt / bc2 + eps
            store(p + i, param + (average * minus_step_size) / denom);  // addcdiv_
            store(m + i, average);
            store(v + i, average_sq);
        }
    }
}
