// Probe for the emulator's self-tests: out[index[i]] += src[i] with atomics, so that many
// threads add to the same element at once.
#include "common.cuh"

template <typename T>
__global__ void scatter_add(T* out, const long long* index, const T* src, long long n) {
    AGCY_GRID_STRIDE_LOOP(i, n) atomicAdd(out + index[i], src[i]);
}

// order[b] = how many blocks started before block b: the order the blocks ran in.
__global__ void arrival_order(unsigned long long* counter, unsigned long long* order) {
    if (threadIdx.x == 0) order[blockIdx.x] = atomicAdd(counter, 1ull);
}
