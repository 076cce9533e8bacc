// math.cuh: device math as overloads on float and double, so a template computing in
// Acc<T> calls one name whatever T is (half computes in float, see common.cuh). Each
// overload is the CUDA math function of that precision (expf for float, exp for double):
// NVRTC provides them as device functions, the CPU emulator as the C library's. The
// integer overloads exist where an op is defined on integers too (abs).
#pragma once

#define AGCY_MATH_1(name, f32, f64)                                                    \
    __device__ __forceinline__ float name(float x) { return f32(x); }                  \
    __device__ __forceinline__ double name(double x) { return f64(x); }
#define AGCY_MATH_2(name, f32, f64)                                                    \
    __device__ __forceinline__ float name(float x, float y) { return f32(x, y); }      \
    __device__ __forceinline__ double name(double x, double y) { return f64(x, y); }

AGCY_MATH_1(agcy_exp, expf, exp)
AGCY_MATH_1(agcy_expm1, expm1f, expm1)
AGCY_MATH_1(agcy_log, logf, log)
AGCY_MATH_1(agcy_log2, log2f, log2)
AGCY_MATH_1(agcy_log10, log10f, log10)
AGCY_MATH_1(agcy_exp2, exp2f, exp2)
AGCY_MATH_1(agcy_log1p, log1pf, log1p)
AGCY_MATH_1(agcy_sqrt, sqrtf, sqrt)
AGCY_MATH_1(agcy_rsqrt, rsqrtf, rsqrt)
AGCY_MATH_1(agcy_sin, sinf, sin)
AGCY_MATH_1(agcy_cos, cosf, cos)
AGCY_MATH_1(agcy_tan, tanf, tan)
AGCY_MATH_1(agcy_asin, asinf, asin)
AGCY_MATH_1(agcy_acos, acosf, acos)
AGCY_MATH_1(agcy_atan, atanf, atan)
AGCY_MATH_1(agcy_tanh, tanhf, tanh)
AGCY_MATH_1(agcy_sinh, sinhf, sinh)
AGCY_MATH_1(agcy_cosh, coshf, cosh)
AGCY_MATH_1(agcy_asinh, asinhf, asinh)
AGCY_MATH_1(agcy_acosh, acoshf, acosh)
AGCY_MATH_1(agcy_atanh, atanhf, atanh)
AGCY_MATH_1(agcy_erf, erff, erf)
AGCY_MATH_1(agcy_erfc, erfcf, erfc)
AGCY_MATH_1(agcy_floor, floorf, floor)
AGCY_MATH_1(agcy_ceil, ceilf, ceil)
AGCY_MATH_1(agcy_trunc, truncf, trunc)
AGCY_MATH_1(agcy_abs, fabsf, fabs)
AGCY_MATH_2(agcy_pow, powf, pow)
AGCY_MATH_2(agcy_atan2, atan2f, atan2)
AGCY_MATH_2(agcy_hypot, hypotf, hypot)
AGCY_MATH_2(agcy_fmod, fmodf, fmod)
AGCY_MATH_2(agcy_copysign, copysignf, copysign)

#undef AGCY_MATH_1
#undef AGCY_MATH_2

__device__ __forceinline__ long long agcy_abs(long long x) { return x < 0 ? -x : x; }
__device__ __forceinline__ int agcy_abs(int x) { return x < 0 ? -x : x; }

// NaN tests that also compile for the integer types (always false there), so one template
// body serves floats and integers (maximum, minimum, clamp).
template <typename A> __device__ __forceinline__ bool agcy_isnan(A) { return false; }
__device__ __forceinline__ bool agcy_isnan(float x) { return isnan(x); }
__device__ __forceinline__ bool agcy_isnan(double x) { return isnan(x); }
__device__ __forceinline__ bool agcy_isinf(float x) { return isinf(x); }
__device__ __forceinline__ bool agcy_isinf(double x) { return isinf(x); }
__device__ __forceinline__ bool agcy_isfinite(float x) { return isfinite(x); }
__device__ __forceinline__ bool agcy_isfinite(double x) { return isfinite(x); }
