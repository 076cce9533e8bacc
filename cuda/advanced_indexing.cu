// advanced_indexing.cu: x[i0, i1, ...] with several index arrays broadcast together, and the
// bool-mask compaction behind np.nonzero (x[mask] is x[mask.nonzero()]).
// The host side: autograd_cy/cuda/indexing.py (NOTE [Several index arrays as one offset]).
#include "common.cuh"

// NOTE [Several index arrays as one offset]
// x[i0, i1] reads x at i0[b] * stride0 + i1[b] * stride1 (plus the offset of the dims that
// no array indexes), for every position b of the broadcast index shape B. The host first
// folds the arrays into one int64 array `offsets` of shape B, one index_offsets launch per
// array (the first writes, the others add), then a single gather (take_at_offsets), scatter
// (put_at_offsets) or scatter-add (add_at_offsets) walks the result's shape reading
// offsets[b] where an along-axis kernel would read index[b] * stride. An offset may be
// negative (a flipped view steps backwards from its element 0), so these kernels add it as
// it is. One array needs no fold: the along-axis kernels of indexing.cu take it directly.
//
// Bounds: the host checks every index against its dim (IndexError) before any launch; an
// index the host did not check is clamped to [0, size) here, so a kernel never reads or
// writes outside the array (a wrong element, never a wild address).
__device__ __forceinline__ long long wrap_and_clamp(long long k, long long size) {
    if (k < 0) k += size;
    if (k < 0) k = 0;
    if (k >= size) k = size - 1;
    return k;
}

// offsets[b] (= or +=) wrap(index[b]) * stride. Layout operands: 0 offsets (contiguous over
// B), 1 index (broadcast over B). `first` != 0: write instead of add.
__global__ void index_offsets(Layout L, long long n, long long* offsets, const long long* index,
                              long long stride, long long size, int first) {
    AGCY_GRID_STRIDE_LOOP(i, n) {
        long long off[2];
        layout_offsets<2>(L, i, off);
        long long step = wrap_and_clamp(index[off[1]], size) * stride;
        offsets[off[0]] = first ? step : offsets[off[0]] + step;
    }
}

// out[i] = x[i's offset + offsets[i's broadcast position]]. Layout operands: 0 out, 1 x (its
// strides 0 along the broadcast dims), 2 offsets (0 along the other dims).
template <typename T>
__global__ void take_at_offsets(Layout L, long long n, T* out, const T* x,
                                const long long* offsets) {
    AGCY_GRID_STRIDE_LOOP(i, n) {
        long long off[3];
        layout_offsets<3>(L, i, off);
        out[off[0]] = x[off[1] + offsets[off[2]]];
    }
}

// x[i's offset + offsets[...]] = values[i]. Layout operands: 0 x, 1 offsets, 2 values
// (broadcast). Positions naming one element twice race: one write wins, as in
// put_along_axis (indexing.cu).
template <typename T>
__global__ void put_at_offsets(Layout L, long long n, T* x, const long long* offsets,
                               const T* values) {
    AGCY_GRID_STRIDE_LOOP(i, n) {
        long long off[3];
        layout_offsets<3>(L, i, off);
        x[off[0] + offsets[off[1]]] = values[off[2]];
    }
}

// x[i's offset + offsets[...]] += values[i], every duplicate adding (NOTE [Scatter-add
// with atomics] in common.cuh).
template <typename T>
__global__ void add_at_offsets(Layout L, long long n, T* x, const long long* offsets,
                               const T* values) {
    AGCY_GRID_STRIDE_LOOP(i, n) {
        long long off[3];
        layout_offsets<3>(L, i, off);
        atomic_accumulate(x + off[0] + offsets[off[1]], values[off[2]]);
    }
}

// NOTE [Nonzero in three passes]
// np.nonzero(x) lists the coordinates of x's nonzero elements in row-major order; how many
// there are is known only once they are counted. The elements are cut into tiles of `tile`
// consecutive positions (the host's choice, the same in every pass, independent of the
// launch configuration):
// 1. nonzero_count: each block takes tiles (grid-stride) and writes each tile's count;
// 2. exclusive_scan: one block turns the counts into each tile's first output row, and
//    writes the total after them (the host reads that one number back to size the output:
//    the host sync torch's nonzero makes too);
// 3. nonzero_scatter: each block takes tiles again and writes the coordinates of a tile's
//    nonzeros from its first row on, keeping their order with a block-wide prefix sum of
//    the "is nonzero" flags, blockDim.x positions at a time.
// No tile depends on another's pass running first, so blocks may run in any order.
#define AGCY_SCAN_MAX_THREADS 1024

// read through the accumulate type: the half types compare as floats
template <typename T> __device__ __forceinline__ bool is_nonzero(const T& v) {
    return load(&v) != typename Acc<T>::type(0);
}

// Inclusive prefix sum over the block of one value per thread (Hillis-Steele, double
// buffered in shared memory); every thread gets its own inclusive sum and the block total.
// Every thread of the block must call it (it has barriers).
__device__ long long block_inclusive_scan(long long value, long long* total) {
    __shared__ long long buffer[2][AGCY_SCAN_MAX_THREADS];
    const int t = threadIdx.x;
    int in = 0;
    buffer[0][t] = value;
    __syncthreads();
    for (int step = 1; step < (int)blockDim.x; step *= 2) {
        long long sum = buffer[in][t] + (t >= step ? buffer[in][t - step] : 0);
        buffer[1 - in][t] = sum;
        in = 1 - in;
        __syncthreads();
    }
    long long inclusive = buffer[in][t];
    *total = buffer[in][blockDim.x - 1];
    __syncthreads();                // the next call may overwrite the buffer
    return inclusive;
}

// Pass 1: counts[t] = the nonzeros among positions [t * tile, (t + 1) * tile) of x.
// Layout operand 0: x.
template <typename T>
__global__ void nonzero_count(Layout L, long long n, const T* x, long long* counts,
                              long long tile) {
    const long long tiles = (n + tile - 1) / tile;
    for (long long t = blockIdx.x; t < tiles; t += gridDim.x) {
        long long end = (t + 1) * tile < n ? (t + 1) * tile : n;
        long long mine = 0;
        for (long long i = t * tile + threadIdx.x; i < end; i += blockDim.x) {
            long long off[1];
            layout_offsets<1>(L, i, off);
            mine += is_nonzero(x[off[0]]) ? 1 : 0;
        }
        long long total;
        block_inclusive_scan(mine, &total);
        if (threadIdx.x == 0) counts[t] = total;
    }
}

// Pass 2, one block (any others return): counts[0..m) becomes its exclusive prefix sum and
// counts[m] the total.
__global__ void exclusive_scan(long long m, long long* counts) {
    if (blockIdx.x != 0) return;
    long long carry = 0;
    for (long long base = 0; base < m; base += blockDim.x) {
        long long i = base + threadIdx.x;
        long long value = i < m ? counts[i] : 0;
        long long total;
        long long inclusive = block_inclusive_scan(value, &total);
        if (i < m) counts[i] = carry + inclusive - value;
        carry += total;
    }
    if (threadIdx.x == 0) counts[m] = carry;
}

// Pass 3: the coordinates of tile t's nonzeros, as rows of out (count x L.ndim, row-major),
// from row starts[t] on. L is x's own shape, dims not merged (the coordinates unravel the
// position over L.size); operand 0: x.
template <typename T>
__global__ void nonzero_scatter(Layout L, long long n, const T* x, const long long* starts,
                                long long* out, long long tile) {
    const long long tiles = (n + tile - 1) / tile;
    for (long long t = blockIdx.x; t < tiles; t += gridDim.x) {
        long long end = (t + 1) * tile < n ? (t + 1) * tile : n;
        long long row = starts[t];
        for (long long base = t * tile; base < end; base += blockDim.x) {
            long long i = base + threadIdx.x;
            long long off[1];
            bool flag = false;
            if (i < end) {
                layout_offsets<1>(L, i, off);
                flag = is_nonzero(x[off[0]]);
            }
            long long total;
            long long inclusive = block_inclusive_scan(flag ? 1 : 0, &total);
            if (flag) {
                long long* coords = out + (row + inclusive - 1) * L.ndim;
                long long rest = i;
                for (int d = L.ndim - 1; d >= 0; --d) {
                    coords[d] = rest % L.size[d];
                    rest /= L.size[d];
                }
            }
            row += total;
        }
    }
}
