// Probe for the emulator's self-tests: a block reduction (grid-stride accumulation, warp
// shuffles, one shared slot per warp) and a warp all-reduce by xor butterfly. The
// sanitizer tests copy this file and plant bugs at the lines marked "planted:".
#include "common.cuh"

// The sum over a warp's lanes, arriving at lane 0.
template <typename A>
__device__ A warp_sum_down(A v) {
    for (int offset = warpSize / 2; offset > 0; offset /= 2)
        v += __shfl_down_sync(0xffffffffu, v, offset);
    return v;
}

// partial[b] = the sum of the elements block b visits (blockDim.x a multiple of 32).
template <typename T>
__global__ void block_sum(const T* x, typename Acc<T>::type* partial, long long n) {
    typedef typename Acc<T>::type A;
    __shared__ A warp_sums[32];
    A acc = 0;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n;  // planted: bound
         i += (long long)blockDim.x * gridDim.x)
        acc += load(x + i);  // planted: load
    acc = warp_sum_down(acc);
    int lane = threadIdx.x % warpSize, warp = threadIdx.x / warpSize;
    if (lane == 0) warp_sums[warp] = acc;  // planted: write
    __syncthreads();  // planted: barrier
    if (warp == 0) {
        int nwarps = blockDim.x / warpSize;
        A v = lane < nwarps ? warp_sums[lane] : A(0);  // planted: read
        v = warp_sum_down(v);
        if (lane == 0) partial[blockIdx.x] = v;
    }
}

// The same with the warp slots in dynamic shared memory (shared_mem = nwarps * sizeof(A)).
template <typename T>
__global__ void block_sum_dynamic(const T* x, typename Acc<T>::type* partial, long long n) {
    typedef typename Acc<T>::type A;
    extern __shared__ unsigned char smem[];
    A* warp_sums = reinterpret_cast<A*>(smem);
    A acc = 0;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (long long)blockDim.x * gridDim.x)
        acc += load(x + i);
    acc = warp_sum_down(acc);
    int lane = threadIdx.x % warpSize, warp = threadIdx.x / warpSize;
    if (lane == 0) warp_sums[warp] = acc;
    __syncthreads();
    if (warp == 0) {
        int nwarps = blockDim.x / warpSize;
        A v = lane < nwarps ? warp_sums[lane] : A(0);
        v = warp_sum_down(v);
        if (lane == 0) partial[blockIdx.x] = v;
    }
}

// out[t] = the sum of x over thread t's warp, in every lane: xor butterfly, no shared memory.
template <typename T>
__global__ void warp_allreduce(const T* x, T* out) {
    typedef typename Acc<T>::type A;
    long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    A v = load(x + t);
    for (int mask = warpSize / 2; mask > 0; mask /= 2)
        v += __shfl_xor_sync(0xffffffffu, v, mask);
    store(out + t, v);
}
