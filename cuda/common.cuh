// common.cuh: what every kernel file shares: the accumulate type, the strided layout of an
// elementwise launch, and float/double/half math overloads that read the same in NVRTC and
// in the CPU emulator (g++ with autograd_cy/cuda/emulator/cuda_cpu.h).
#pragma once
#include <cuda_fp16.h>
#include <cuda_bf16.h>

#define AGCY_MAX_DIMS 8
#define AGCY_MAX_OPERANDS 4

// Arithmetic of the two half types happens in float, as in PyTorch (opmath_type): __half
// (float16) and __nv_bfloat16 (bfloat16) are storage formats; a kernel loads them into float,
// computes and accumulates there, and rounds once when it stores (NOTE [Half-precision
// products and reductions] in pyx/ops/reduction.pyx says why a sum must not round per term).
template <typename T> struct Acc { typedef T type; };
template <> struct Acc<__half> { typedef float type; };
template <> struct Acc<__nv_bfloat16> { typedef float type; };
// (Complex<R>, complex.cuh, is its own accumulate type: complex64 sums in complex64, as torch.)

// NOTE [Layout]
// An elementwise launch covers n = size[0] * ... * size[ndim-1] elements, numbered row-major.
// stride[k][d] is operand k's step along dim d in elements (operand 0 is the output, then
// the inputs in the kernel's parameter order); 0 along a broadcast dim, negative for a
// flipped view. The host (autograd_cy/cuda/layout.py) merges dims that are contiguous in
// every operand, so a contiguous launch arrives with ndim == 1 and unit strides. Passed by
// value: it lives in the kernel's parameter space, no copy to the device per launch.
struct Layout {
    long long size[AGCY_MAX_DIMS];
    long long stride[AGCY_MAX_OPERANDS][AGCY_MAX_DIMS];
    int ndim;
};

// The element offsets of linear index i in the first NOPS operands.
template <int NOPS>
__device__ __forceinline__ void layout_offsets(const Layout& L, long long i, long long* off) {
    for (int k = 0; k < NOPS; ++k) off[k] = 0;
    for (int d = L.ndim - 1; d >= 0; --d) {
        long long size = L.size[d];
        long long idx = i % size;
        i /= size;
        for (int k = 0; k < NOPS; ++k) off[k] += idx * L.stride[k][d];
    }
}

// Grid-stride loop over [0, n): every launch configuration gives the same result.
#define AGCY_GRID_STRIDE_LOOP(i, n)                                                   \
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < (n);      \
         i += (long long)blockDim.x * gridDim.x)

// Loads and stores through the accumulate type.
template <typename T> __device__ __forceinline__ typename Acc<T>::type load(const T* p) {
    return (typename Acc<T>::type)(*p);
}
template <> __device__ __forceinline__ float load<__half>(const __half* p) { return __half2float(*p); }
template <typename T, typename A> __device__ __forceinline__ void store(T* p, A v) { *p = (T)v; }
template <> __device__ __forceinline__ void store<__half, float>(__half* p, float v) { *p = __float2half(v); }
template <> __device__ __forceinline__ void store<__half, double>(__half* p, double v) { *p = __float2half((float)v); }

// NOTE [Rounding to bfloat16]
// bfloat16 is float32's upper half: the same 8 exponent bits, 7 of its 23 mantissa bits. A
// store rounds the float to nearest, ties to even (__float2bfloat16), as torch's BFloat16 and
// ml_dtypes' bfloat16 (the CPU's) do, never truncating the low half away; a double goes
// through float first, as torch's BFloat16(float) takes it.
template <> __device__ __forceinline__ float load<__nv_bfloat16>(const __nv_bfloat16* p) { return __bfloat162float(*p); }
template <> __device__ __forceinline__ void store<__nv_bfloat16, float>(__nv_bfloat16* p, float v) { *p = __float2bfloat16(v); }
template <> __device__ __forceinline__ void store<__nv_bfloat16, double>(__nv_bfloat16* p, double v) { *p = __float2bfloat16((float)v); }

// NOTE [Scatter-add with atomics]
// Positions of the iteration may name the same element (a repeated index), and the threads
// that hold them run at the same time: a plain `arr[k] += v` would lose all but one of the
// additions. atomicAdd makes each read-add-write indivisible, so every addition lands, in an
// order no one chooses: float sums may differ in their last bits from run to run (NumPy's
// np.add.at adds in index order). CUDA has atomicAdd for float, double, __half (sm_70 and
// up) and unsigned long long but not for signed long long; two's complement addition is the
// same bit operation for both, so int64 adds through the unsigned overload.
template <typename T>
__device__ __forceinline__ void atomic_accumulate(T* address, T value) {
    atomicAdd(address, value);
}
template <>
__device__ __forceinline__ void atomic_accumulate<long long>(long long* address, long long value) {
    atomicAdd(reinterpret_cast<unsigned long long*>(address), (unsigned long long)value);
}

// complex64 and complex128 elements (NOTE [A complex type of our own])
#include "complex.cuh"
