// Probe for the emulator's self-tests: kernels with one bug each, which the emulator must
// report (a real GPU would give wrong results or hang, silently).

// Every thread writes count floats of dynamic shared memory: past the end unless the
// launch asks for blockDim.x * count * 4 bytes.
__global__ void fill_dynamic_shared(float* out, int count) {
    extern __shared__ float buffer[];
    for (int k = 0; k < count; ++k) buffer[threadIdx.x * count + k] = (float)k;
    __syncthreads();
    out[threadIdx.x] = buffer[threadIdx.x * count];
}

// Odd and even threads wait at two different barriers.
__global__ void divergent_barrier(float* out) {
    if (threadIdx.x % 2) {
        out[threadIdx.x] = 1.0f;
        __syncthreads();
    } else {
        out[threadIdx.x] = 2.0f;
        __syncthreads();
    }
}

// Threads past n leave before the others reach the barrier.
__global__ void exit_before_barrier(float* out, int n) {
    if ((int)threadIdx.x >= n) return;
    out[threadIdx.x] = 1.0f;
    __syncthreads();
    out[threadIdx.x] += 1.0f;
}

// Lanes past n leave, the others shuffle with the full mask.
__global__ void shuffle_after_exit(float* out, int n) {
    if ((int)threadIdx.x >= n) return;
    float v = __shfl_down_sync(0xffffffffu, (float)threadIdx.x, 1);
    out[threadIdx.x] = v;
}

// Each block reads its static shared memory before writing it: what a block finds there
// is undefined, never the previous block's values.
__global__ void read_before_write_shared(float* out) {
    __shared__ float slots[64];
    out[blockIdx.x * blockDim.x + threadIdx.x] = slots[threadIdx.x];
    slots[threadIdx.x] = (float)blockIdx.x;
}
