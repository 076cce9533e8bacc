// Probe for the emulator's self-tests: out[index[i]] += src[i] with atomics, so that many
// threads add to the same element at once.
#include "common.cuh"

template <typename T>
__global__ void scatter_add(T* out, const long long* index, const T* src, long long n) {
    AGCY_GRID_STRIDE_LOOP(i, n) atomicAdd(out + index[i], src[i]);
}
