// reduce.cuh: what a kernel that reduces many values into one needs: the strided layout of
// a reduction (ReduceLayout), the warp and block combination of per-thread partial states,
// the partial-state types (Welford's, max-shifted sum of exponentials, value with index),
// and NaN-aware helpers that read the same in NVRTC and in the CPU emulator.
#pragma once
#include "common.cuh"

// NOTE [ReduceLayout]
// A reduction maps an input x to n_out outputs; output o combines the n_reduced elements
// x[kept_offset(o) + reduced_offset(r)], r = 0 .. n_reduced-1. Both offsets come from
// row-major indices over a list of (size, stride) dims, strides in elements of x (0 along a
// broadcast dim, negative for a flipped view): o over the kept dims (the output is contiguous
// over them, in their order), r over the reduced dims in their order, so r is the index
// argmax reports (the flat index when all dims are reduced). The host
// (autograd_cy/cuda/reduce.py) merges neighbouring dims that are contiguous, as
// layout.coalesce does, so a reduction over a contiguous row arrives as one reduced dim of
// stride 1.
//
// A long reduction with few outputs is cut into `splits` pieces of `chunk` elements, each
// reduced by its own block, so that the whole device works on it (NOTE [Two passes] in
// reduction.cu); `from_partials` marks the second pass, which reads those partial states
// (the same layout, over the slots of the partial buffer) instead of x. `numel` is the count
// of elements behind each output in the whole reduction (mean's and var's N), and `scalar`
// is the op's number: the p of a norm, the correction of a variance.
struct ReduceLayout {
    long long kept_size[AGCY_MAX_DIMS];
    long long kept_stride[AGCY_MAX_DIMS];
    long long reduced_size[AGCY_MAX_DIMS];
    long long reduced_stride[AGCY_MAX_DIMS];
    long long n_out;
    long long n_reduced;
    long long splits;
    long long chunk;
    long long numel;
    double scalar;
    int kept_ndim;
    int reduced_ndim;
    int from_partials;
};
// The host builds it with NumPy (REDUCE_LAYOUT_DTYPE in autograd_cy/cuda/layout.py).
static_assert(sizeof(ReduceLayout) == 320, "ReduceLayout must match REDUCE_LAYOUT_DTYPE");

// Offset of row-major index i over (size[d], stride[d]), d < ndim. What is left of i at
// the outermost dim is its index there (i is in range), so one merged dim costs no division.
__device__ __forceinline__ long long strided_offset(const long long* size, const long long* stride,
                                                    int ndim, long long i) {
    if (ndim == 0) return 0;
    long long off = 0;
    for (int d = ndim - 1; d > 0; --d) {
        off += (i % size[d]) * stride[d];
        i /= size[d];
    }
    return off + i * stride[0];
}
__device__ __forceinline__ long long kept_offset(const ReduceLayout& L, long long o) {
    return strided_offset(L.kept_size, L.kept_stride, L.kept_ndim, o);
}
__device__ __forceinline__ long long reduced_offset(const ReduceLayout& L, long long r) {
    return strided_offset(L.reduced_size, L.reduced_stride, L.reduced_ndim, r);
}

// ---- numbers ---------------------------------------------------------------------------
// is_nan as x != x: true only for NaN when fast-math is off (it is, for NVRTC and g++);
// integers are never NaN.
template <typename A> __device__ __forceinline__ bool is_nan(A x) { return x != x; }
template <typename A> struct Limits;
template <> struct Limits<float> {
    static __device__ __forceinline__ float infinity() { return __int_as_float(0x7f800000); }
    static __device__ __forceinline__ float lowest() { return -infinity(); }
    static __device__ __forceinline__ float highest() { return infinity(); }
};
template <> struct Limits<double> {
    static __device__ __forceinline__ double infinity() {
        return __longlong_as_double(0x7ff0000000000000LL);
    }
    static __device__ __forceinline__ double lowest() { return -infinity(); }
    static __device__ __forceinline__ double highest() { return infinity(); }
};
template <> struct Limits<long long> {
    static __device__ __forceinline__ long long lowest() { return -9223372036854775807LL - 1; }
    static __device__ __forceinline__ long long highest() { return 9223372036854775807LL; }
};
template <typename A> __device__ __forceinline__ bool is_inf(A x) {
    return x == Limits<A>::infinity() || x == -Limits<A>::infinity();
}

// max and min that propagate NaN (as torch's amax, amin and the inf norms do).
template <typename A> __device__ __forceinline__ A max_propagate_nan(A a, A b) {
    return (is_nan(a) || a > b) ? a : b;
}
template <typename A> __device__ __forceinline__ A min_propagate_nan(A a, A b) {
    return (is_nan(a) || a < b) ? a : b;
}

// Math of the accumulate type (float or double) by overload.
__device__ __forceinline__ float reduce_abs(float x) { return fabsf(x); }
__device__ __forceinline__ double reduce_abs(double x) { return fabs(x); }
__device__ __forceinline__ float reduce_sqrt(float x) { return sqrtf(x); }
__device__ __forceinline__ double reduce_sqrt(double x) { return sqrt(x); }
__device__ __forceinline__ float reduce_exp(float x) { return expf(x); }
__device__ __forceinline__ double reduce_exp(double x) { return exp(x); }
__device__ __forceinline__ float reduce_log(float x) { return logf(x); }
__device__ __forceinline__ double reduce_log(double x) { return log(x); }
__device__ __forceinline__ float reduce_pow(float x, float y) { return powf(x, y); }
__device__ __forceinline__ double reduce_pow(double x, double y) { return pow(x, y); }

// ---- partial states --------------------------------------------------------------------
// Each reduction op combines per-thread partial states; a plain number (sum, product,
// extremum) is its own state, these are the composite ones. They are aggregates (no
// constructors) so that they can live in __shared__ memory.

// Welford's running moments of n values: their mean and the sum of squared deviations m2.
template <typename A> struct WelfordState {
    A mean;
    A m2;
    long long n;
};
// The sum of exp(x - shift) over the values, shift = max when finite, else 0
// (NOTE [logsumexp] in reduction.cu).
template <typename A> struct ExpSumState {
    A max;
    A sum;
};
// An extremum and the reduction index where it was found.
template <typename A> struct IndexedState {
    A value;
    long long index;
};

#define AGCY_FULL_MASK 0xffffffffu
template <typename A>
__device__ __forceinline__ A shfl_down_state(A v, int offset, int width) {
    return __shfl_down_sync(AGCY_FULL_MASK, v, offset, width);
}
// a complex number as its two parts (CUDA's shuffles move 4- and 8-byte words, not structs)
template <typename R>
__device__ __forceinline__ Complex<R> shfl_down_state(Complex<R> z, int offset, int width) {
    return Complex<R>(__shfl_down_sync(AGCY_FULL_MASK, z.re, offset, width),
                      __shfl_down_sync(AGCY_FULL_MASK, z.im, offset, width));
}
template <typename A>
__device__ __forceinline__ WelfordState<A> shfl_down_state(WelfordState<A> s, int offset, int width) {
    WelfordState<A> r;
    r.mean = __shfl_down_sync(AGCY_FULL_MASK, s.mean, offset, width);
    r.m2 = __shfl_down_sync(AGCY_FULL_MASK, s.m2, offset, width);
    r.n = __shfl_down_sync(AGCY_FULL_MASK, s.n, offset, width);
    return r;
}
template <typename A>
__device__ __forceinline__ ExpSumState<A> shfl_down_state(ExpSumState<A> s, int offset, int width) {
    ExpSumState<A> r;
    r.max = __shfl_down_sync(AGCY_FULL_MASK, s.max, offset, width);
    r.sum = __shfl_down_sync(AGCY_FULL_MASK, s.sum, offset, width);
    return r;
}
template <typename A>
__device__ __forceinline__ IndexedState<A> shfl_down_state(IndexedState<A> s, int offset, int width) {
    IndexedState<A> r;
    r.value = __shfl_down_sync(AGCY_FULL_MASK, s.value, offset, width);
    r.index = __shfl_down_sync(AGCY_FULL_MASK, s.index, offset, width);
    return r;
}

// NOTE [Block reduction]
// A block is blockDim.y rows of blockDim.x lanes; each row reduces one output (or one piece
// of it), every lane folding its share of the elements into a private state first. The host
// makes blockDim.x a power of two that is either at most 32 (then a warp holds 32/blockDim.x
// whole rows) or the whole block (blockDim.y == 1), and the block a multiple of 32 threads,
// so every warp is full and the shuffles name all 32 lanes.
// 1. Within a warp: log2(width) rounds of __shfl_down_sync, width = min(blockDim.x, 32): in
//    each round lane i combines lane i+offset's state into its own, offset = width/2 .. 1;
//    the width argument keeps the rounds inside each row's segment of lanes, so lane 0 of
//    each row ends with the row's total. No shared memory, no barrier.
// 2. A row longer than a warp (blockDim.x > 32): lane 0 of each warp writes its total to
//    shared memory, a barrier, then warp 0 combines those (at most 32) totals with one more
//    round of shuffles; a second barrier keeps the next call from overwriting the totals
//    while warp 0 still reads them. Every thread of the block calls this function (the
//    caller's loop has the same trip count in the whole block), as the barriers require.
// The order of combination is fixed by the launch configuration, so a result is the same
// from run to run (no atomics); ops whose combine is not associative in floating point
// (sums) may differ in the last bits between configurations.
template <typename Op, typename State>
__device__ State block_reduce(const Op& op, State s) {
    const int width = blockDim.x < 32 ? (int)blockDim.x : 32;
    for (int offset = width / 2; offset > 0; offset /= 2)
        s = op.combine(s, shfl_down_state(s, offset, width));
    if (blockDim.x <= 32) return s;
    __shared__ State warp_totals[32];
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32, warps = blockDim.x / 32;
    if (lane == 0) warp_totals[warp] = s;
    __syncthreads();
    if (warp == 0) {
        s = lane < warps ? warp_totals[lane] : op.identity();
        for (int offset = 16; offset > 0; offset /= 2)
            s = op.combine(s, shfl_down_state(s, offset, 32));
    }
    __syncthreads();
    return s;
}
