// Probe for the emulator's self-tests: CUDA intrinsics whose corner cases the emulator
// must reproduce.

// out[t] = __shfl_xor_sync of x[t] with lane_mask over groups of `width` lanes.
__global__ void shuffle_xor(const float* x, float* out, int lane_mask, int width) {
    out[threadIdx.x] = __shfl_xor_sync(0xffffffffu, x[threadIdx.x], lane_mask, width);
}

// out = max(a, b), then min(a, b): floating-point max/min, as CUDA defines them.
__global__ void max_min(const float* a, const float* b, float* out, int n) {
    for (int i = threadIdx.x; i < n; i += blockDim.x) {
        out[i] = max(a[i], b[i]);
        out[n + i] = min(a[i], b[i]);
    }
}
