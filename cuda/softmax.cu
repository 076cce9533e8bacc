// softmax.cu: softmax and log_softmax along any dim, forward and backward, one launch each.
// The host side is autograd_cy/cuda/rows.py. The block combination is NOTE [Block
// reduction] (reduce.cuh); the rows are NOTE [RowLayout].
#include "reduce.cuh"

// NOTE [RowLayout]
// A tensor reduced along one dim is seen as outer x dim x inner: rows = outer * inner rows
// of `dim` elements each, row r = (o, i) with o = r / inner, i = r % inner. Along a row the
// elements are `stride[k][1]` apart in operand k (operand 0 is the output, then the inputs
// in the kernel's parameter order); the row's first element is at o * stride[k][0] +
// i * stride[k][2]. So a softmax over the last dim of a contiguous tensor has stride 1 along
// its rows, and over an inner dim (inner > 1) a strided row. The host merges the dims before
// and after `dim` into one each (a layout where they do not merge is copied first), and a
// broadcast operand (an expanded gradient) has stride 0 where it repeats. Passed by value.
struct RowLayout {
    long long outer;
    long long dim;
    long long inner;
    long long stride[3][3];
};
static_assert(sizeof(RowLayout) == 96, "RowLayout must match ROW_LAYOUT_DTYPE");

__device__ __forceinline__ long long row_start(const RowLayout& L, int k, long long row) {
    return (row / L.inner) * L.stride[k][0] + (row % L.inner) * L.stride[k][2];
}

template <typename A> struct RowMax {
    __device__ A identity() const { return Limits<A>::lowest(); }
    __device__ A combine(A a, A b) const { return max_propagate_nan(a, b); }
};
template <typename A> struct RowSum {
    __device__ A identity() const { return A(0); }
    __device__ A combine(A a, A b) const { return a + b; }
};

// The row's total in every lane of the row (block_reduce leaves it in lane 0 only): a
// shuffle from lane 0 of the row's segment in a warp, or one shared slot for a row that is
// the whole block. Every thread of the block calls it (barriers, shuffles).
template <typename Op, typename A>
__device__ A row_allreduce(const Op& op, A v) {
    v = block_reduce(op, v);
    if (blockDim.x <= 32) return __shfl_sync(AGCY_FULL_MASK, v, 0, (int)blockDim.x);
    __shared__ A total;
    if (threadIdx.x == 0) total = v;
    __syncthreads();
    v = total;
    __syncthreads();
    return v;
}

// NOTE [Softmax schedules]
// One kernel serves both schedules; the host picks the block shape (rows.py):
// - a warp per row (block (32, rows per block)) for rows of at most 1024 elements: each
//   lane folds every 32nd element, the warp combines with shuffles, no shared memory;
// - a block per row (block (up to 1024, 1)) for longer rows: the warps' totals meet in
//   shared memory (NOTE [Block reduction]).
// Rows are taken in a grid-stride loop, so any grid covers them. The max and the sum are two
// reductions (two passes over the row, then a third that writes), not an online max-sum:
// subtracting one max before any exp is exactly the CPU path's arithmetic (x - max, then
// exp, sum, log or divide), so NaN and infinities come out as there (a row of -inf gives
// NaN, as torch's), and the re-reads of a row hit the cache.
template <typename T>
__global__ void softmax_forward(T* y, const T* x, RowLayout L, int take_log) {
    typedef typename Acc<T>::type A;
    const long long rows = L.outer * L.inner, n = L.dim;
    const long long xs = L.stride[1][1], ys = L.stride[0][1];
    for (long long first = (long long)blockIdx.x * blockDim.y; first < rows;
         first += (long long)gridDim.x * blockDim.y) {
        const long long row = first + threadIdx.y;
        const bool active = row < rows;
        const T* xr = x + (active ? row_start(L, 1, row) : 0);
        T* yr = y + (active ? row_start(L, 0, row) : 0);
        A top = Limits<A>::lowest();
        if (active)
            for (long long j = threadIdx.x; j < n; j += blockDim.x)
                top = max_propagate_nan(top, load(xr + j * xs));
        top = row_allreduce(RowMax<A>(), top);
        A total = 0;
        if (active)
            for (long long j = threadIdx.x; j < n; j += blockDim.x)
                total += reduce_exp(load(xr + j * xs) - top);
        total = row_allreduce(RowSum<A>(), total);
        if (active) {
            const A log_total = reduce_log(total);
            for (long long j = threadIdx.x; j < n; j += blockDim.x) {
                const A shifted = load(xr + j * xs) - top;
                store(yr + j * ys, take_log ? shifted - log_total : reduce_exp(shifted) / total);
            }
        }
    }
}

// From the forward's output y and the incoming gradient g, per row:
//   softmax:      g y - y sum(g y)
//   log_softmax:  g - exp(y) sum(g)
// Operands: 0 the gradient written, 1 g, 2 y.
template <typename T>
__global__ void softmax_backward(T* grad_in, const T* g, const T* y, RowLayout L, int take_log) {
    typedef typename Acc<T>::type A;
    const long long rows = L.outer * L.inner, n = L.dim;
    const long long os = L.stride[0][1], gs = L.stride[1][1], ys = L.stride[2][1];
    for (long long first = (long long)blockIdx.x * blockDim.y; first < rows;
         first += (long long)gridDim.x * blockDim.y) {
        const long long row = first + threadIdx.y;
        const bool active = row < rows;
        T* outr = grad_in + (active ? row_start(L, 0, row) : 0);
        const T* gr = g + (active ? row_start(L, 1, row) : 0);
        const T* yr = y + (active ? row_start(L, 2, row) : 0);
        A total = 0;
        if (active)
            for (long long j = threadIdx.x; j < n; j += blockDim.x)
                total += take_log ? load(gr + j * gs) : load(gr + j * gs) * load(yr + j * ys);
        total = row_allreduce(RowSum<A>(), total);
        if (active)
            for (long long j = threadIdx.x; j < n; j += blockDim.x) {
                const A gj = load(gr + j * gs), yj = load(yr + j * ys);
                store(outr + j * os, take_log ? gj - reduce_exp(yj) * total : gj * yj - yj * total);
            }
    }
}
