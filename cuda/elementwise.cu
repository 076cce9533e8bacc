// elementwise.cu: one output element from the elements at the same index of the inputs.
//
// Every kernel takes NOTE [Layout]'s Layout by value (operand 0 the output, then the inputs in
// parameter order), the element count n, and the pointers; a grid-stride loop makes any launch
// configuration correct. Arithmetic runs in Acc<T> (float for __half). Each thread reads its
// inputs at an index before it writes the output there, so out may be the same memory as an
// input with the same strides (in-place ops).
//
// The op of a family is a functor type, the second template argument: unary<float, Exp>.
// The manifest (autograd_cy/cuda/manifest.py) lists which instantiations exist.
#include "common.cuh"
#include "math.cuh"

// ------------------------------------------------------------------ type traits

template <typename A, typename B> struct SameType { static const bool value = false; };
template <typename A> struct SameType<A, A> { static const bool value = true; };

template <typename T> struct IsFloating { static const bool value = false; };
template <> struct IsFloating<__half> { static const bool value = true; };
template <> struct IsFloating<__nv_bfloat16> { static const bool value = true; };
template <> struct IsFloating<float> { static const bool value = true; };
template <> struct IsFloating<double> { static const bool value = true; };

template <typename T> struct IsComplex { static const bool value = false; };
template <typename R> struct IsComplex<Complex<R>> { static const bool value = true; };

// ------------------------------------------------------------------ unary functors
// Each maps an Acc value to an Acc value. Sign and Relu follow PyTorch: sign(NaN) is 0,
// relu(NaN) is NaN.

struct Neg { template <typename A> __device__ A operator()(A x) const { return -x; } };
struct Exp { template <typename A> __device__ A operator()(A x) const { return agcy_exp(x); } };
struct Expm1 { template <typename A> __device__ A operator()(A x) const { return agcy_expm1(x); } };
struct Log { template <typename A> __device__ A operator()(A x) const { return agcy_log(x); } };
struct Log2 { template <typename A> __device__ A operator()(A x) const { return agcy_log2(x); } };
struct Log10 { template <typename A> __device__ A operator()(A x) const { return agcy_log10(x); } };
struct Exp2 { template <typename A> __device__ A operator()(A x) const { return agcy_exp2(x); } };
struct Erf { template <typename A> __device__ A operator()(A x) const { return agcy_erf(x); } };
struct Erfc { template <typename A> __device__ A operator()(A x) const { return agcy_erfc(x); } };
struct Log1p { template <typename A> __device__ A operator()(A x) const { return agcy_log1p(x); } };
struct Sqrt { template <typename A> __device__ A operator()(A x) const { return agcy_sqrt(x); } };
struct Rsqrt { template <typename A> __device__ A operator()(A x) const { return agcy_rsqrt(x); } };
struct Reciprocal { template <typename A> __device__ A operator()(A x) const { return A(1) / x; } };
struct Sin { template <typename A> __device__ A operator()(A x) const { return agcy_sin(x); } };
struct Cos { template <typename A> __device__ A operator()(A x) const { return agcy_cos(x); } };
struct Tanh { template <typename A> __device__ A operator()(A x) const { return agcy_tanh(x); } };
struct Tan { template <typename A> __device__ A operator()(A x) const { return agcy_tan(x); } };
struct Asin { template <typename A> __device__ A operator()(A x) const { return agcy_asin(x); } };
struct Acos { template <typename A> __device__ A operator()(A x) const { return agcy_acos(x); } };
struct Atan { template <typename A> __device__ A operator()(A x) const { return agcy_atan(x); } };
struct Sinh { template <typename A> __device__ A operator()(A x) const { return agcy_sinh(x); } };
struct Cosh { template <typename A> __device__ A operator()(A x) const { return agcy_cosh(x); } };
struct Asinh { template <typename A> __device__ A operator()(A x) const { return agcy_asinh(x); } };
struct Acosh { template <typename A> __device__ A operator()(A x) const { return agcy_acosh(x); } };
struct Atanh { template <typename A> __device__ A operator()(A x) const { return agcy_atanh(x); } };
struct Sigmoid {
    template <typename A> __device__ A operator()(A x) const { return A(1) / (A(1) + agcy_exp(-x)); }
};
struct Relu { template <typename A> __device__ A operator()(A x) const { return x < A(0) ? A(0) : x; } };
struct Abs { template <typename A> __device__ A operator()(A x) const { return agcy_abs(x); } };
template <typename A> __device__ __forceinline__ A agcy_sign(A x) { return A((A(0) < x) - (x < A(0))); }
struct Sign { template <typename A> __device__ A operator()(A x) const { return agcy_sign(x); } };
struct Square { template <typename A> __device__ A operator()(A x) const { return x * x; } };
struct BitNot { template <typename A> __device__ A operator()(A x) const { return ~x; } };
struct Floor { template <typename A> __device__ A operator()(A x) const { return agcy_floor(x); } };
struct Ceil { template <typename A> __device__ A operator()(A x) const { return agcy_ceil(x); } };
struct Trunc { template <typename A> __device__ A operator()(A x) const { return agcy_trunc(x); } };
// instantiated for the complex dtypes only (NumPy's conjugate of a real array is itself)
struct Conj { template <typename A> __device__ A operator()(A x) const { return agcy_conj(x); } };

// gelu(x) = x Phi(x), Phi the standard normal CDF = (1 + erf(x / sqrt 2)) / 2.
struct Gelu {
    template <typename A> __device__ A operator()(A x) const {
        return x * A(0.5) * (A(1) + agcy_erf(x * A(0.70710678118654752440)));
    }
};
// gelu's tanh approximation: x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3))) / 2.
struct GeluTanh {
    template <typename A> __device__ A operator()(A x) const {
        A inner = A(0.79788456080286535588) * (x + A(0.044715) * x * x * x);
        return A(0.5) * x * (A(1) + agcy_tanh(inner));
    }
};
// silu(x) = x sigmoid(x); exp(-x) overflows to inf for x << 0, giving the limit -0.
struct Silu {
    template <typename A> __device__ A operator()(A x) const { return x / (A(1) + agcy_exp(-x)); }
};

// ------------------------------------------------------------------ binary functors

// NOTE [Helpers in namespace agcy]
// Helpers whose names the C and C++ math libraries also use (remainder) live in namespace
// agcy: nvcc compiles a .cu file with the host's <cmath> in view, where a global
// remainder(float, float) conflicts with std::remainder; NVRTC sees fewer headers.
// The functors name them agcy::remainder; the kernels and functors stay global, as the
// manifest's name expressions spell them.
namespace agcy {

// NOTE [Integer division]
// floor_divide and remainder on integers round the quotient toward -inf (Python's and
// PyTorch's semantics): C's / truncates, so a quotient with a nonzero remainder and operands
// of opposite signs is one less, and such a remainder moves by the divisor. Two cases would
// be undefined behaviour in C and trap on the CPU (x86's idiv raises SIGFPE): a zero divisor,
// which PyTorch's CPU kernels refuse (ZeroDivisionError) and whose value on a GPU is
// unspecified (all ones on NVIDIA hardware), and MIN / -1, whose quotient overflows. Both are
// guarded: a zero divisor gives 0 for both the quotient and the remainder (what PyTorch's
// CUDA kernels now return), and a divisor of -1 gives the two's-complement negation (it wraps
// for MIN, as the GPU's arithmetic does) and remainder 0.
template <typename I> __device__ __forceinline__ I floor_divide_integer(I a, I b) {
    if (b == 0) return 0;
    if (b == -1) return (I)(0ull - (unsigned long long)a);
    I quotient = a / b;
    I rest = a % b;
    return (rest != 0 && ((rest < 0) != (b < 0))) ? quotient - 1 : quotient;
}
template <typename I> __device__ __forceinline__ I remainder_integer(I a, I b) {
    if (b == 0 || b == -1) return 0;
    I rest = a % b;
    return (rest != 0 && ((rest < 0) != (b < 0))) ? rest + b : rest;
}

// NOTE [Floating floor division]
// floor(a / b) of the rounded quotient can be off by one when a / b rounds up to an integer.
// PyTorch (following Python) derives the quotient from the exact remainder fmod(a, b):
// (a - fmod(a, b)) / b is an integer up to rounding; it is one less when the remainder's sign
// differs from the divisor's; it is rounded to the nearest integer, and a zero quotient takes
// the sign of a / b. A zero divisor gives a / b (inf or NaN), as IEEE division.
template <typename A> __device__ __forceinline__ A floor_divide_floating(A a, A b) {
    if (b == A(0)) return a / b;
    A rest = agcy_fmod(a, b);
    A quotient = (a - rest) / b;
    if (rest != A(0) && ((b < A(0)) != (rest < A(0)))) quotient -= A(1);
    if (quotient == A(0)) return agcy_copysign(A(0), a / b);
    A floored = agcy_floor(quotient);
    return quotient - floored > A(0.5) ? floored + A(1) : floored;
}
// The remainder with the divisor's sign: fmod's (the dividend's sign) moved by b.
template <typename A> __device__ __forceinline__ A remainder_floating(A a, A b) {
    A rest = agcy_fmod(a, b);
    return (rest != A(0) && ((b < A(0)) != (rest < A(0)))) ? rest + b : rest;
}

__device__ __forceinline__ float floor_divide(float a, float b) { return floor_divide_floating(a, b); }
__device__ __forceinline__ double floor_divide(double a, double b) { return floor_divide_floating(a, b); }
__device__ __forceinline__ long long floor_divide(long long a, long long b) { return floor_divide_integer(a, b); }
__device__ __forceinline__ int floor_divide(int a, int b) { return floor_divide_integer(a, b); }
__device__ __forceinline__ float remainder(float a, float b) { return remainder_floating(a, b); }
__device__ __forceinline__ double remainder(double a, double b) { return remainder_floating(a, b); }
__device__ __forceinline__ long long remainder(long long a, long long b) { return remainder_integer(a, b); }
__device__ __forceinline__ int remainder(int a, int b) { return remainder_integer(a, b); }

// fmod: the remainder with the dividend's sign (C's %), the same zero-divisor guard.
template <typename I> __device__ __forceinline__ I fmod_integer(I a, I b) {
    return (b == 0 || b == -1) ? 0 : a % b;
}
__device__ __forceinline__ float truncated_remainder(float a, float b) { return agcy_fmod(a, b); }
__device__ __forceinline__ double truncated_remainder(double a, double b) { return agcy_fmod(a, b); }
__device__ __forceinline__ long long truncated_remainder(long long a, long long b) { return fmod_integer(a, b); }
__device__ __forceinline__ int truncated_remainder(int a, int b) { return fmod_integer(a, b); }

}  // namespace agcy

struct Add { template <typename A> __device__ A operator()(A a, A b) const { return a + b; } };
struct Sub { template <typename A> __device__ A operator()(A a, A b) const { return a - b; } };
struct Mul { template <typename A> __device__ A operator()(A a, A b) const { return a * b; } };
struct Div { template <typename A> __device__ A operator()(A a, A b) const { return a / b; } };
// Integer powers by squaring (wrapping as the GPU's integer arithmetic does); a negative
// exponent gives 0 except for bases 1 and -1 (the host refuses it first, as torch does).
template <typename I> __device__ __forceinline__ I integer_pow(I base, I exponent) {
    if (exponent < 0) return base == 1 ? 1 : (base == -1 ? ((exponent & 1) ? -1 : 1) : 0);
    unsigned long long result = 1, b = (unsigned long long)base;
    while (exponent) {
        if (exponent & 1) result *= b;
        b *= b;
        exponent >>= 1;
    }
    return (I)result;
}
__device__ __forceinline__ long long agcy_pow(long long a, long long b) { return integer_pow(a, b); }
__device__ __forceinline__ int agcy_pow(int a, int b) { return integer_pow(a, b); }
struct Pow { template <typename A> __device__ A operator()(A a, A b) const { return agcy_pow(a, b); } };
struct Atan2 { template <typename A> __device__ A operator()(A a, A b) const { return agcy_atan2(a, b); } };
struct Hypot { template <typename A> __device__ A operator()(A a, A b) const { return agcy_hypot(a, b); } };
// the bitwise ops, instantiated for the integer dtypes only
struct BitAnd { template <typename A> __device__ A operator()(A a, A b) const { return a & b; } };
struct BitOr { template <typename A> __device__ A operator()(A a, A b) const { return a | b; } };
struct BitXor { template <typename A> __device__ A operator()(A a, A b) const { return a ^ b; } };
// NaN-propagating, as torch.maximum / torch.minimum; on a tie the first operand.
struct Maximum {
    template <typename A> __device__ A operator()(A a, A b) const {
        if (agcy_isnan(a)) return a;
        if (agcy_isnan(b)) return b;
        return a < b ? b : a;
    }
};
struct Minimum {
    template <typename A> __device__ A operator()(A a, A b) const {
        if (agcy_isnan(a)) return a;
        if (agcy_isnan(b)) return b;
        return b < a ? b : a;
    }
};
struct FloorDivide { template <typename A> __device__ A operator()(A a, A b) const { return agcy::floor_divide(a, b); } };
struct Remainder { template <typename A> __device__ A operator()(A a, A b) const { return agcy::remainder(a, b); } };
struct Fmod { template <typename A> __device__ A operator()(A a, A b) const { return agcy::truncated_remainder(a, b); } };

// ------------------------------------------------------------------ predicates

struct Eq { template <typename A> __device__ bool operator()(A a, A b) const { return a == b; } };
struct Ne { template <typename A> __device__ bool operator()(A a, A b) const { return a != b; } };
struct Lt { template <typename A> __device__ bool operator()(A a, A b) const { return a < b; } };
struct Le { template <typename A> __device__ bool operator()(A a, A b) const { return a <= b; } };
struct Gt { template <typename A> __device__ bool operator()(A a, A b) const { return a > b; } };
struct Ge { template <typename A> __device__ bool operator()(A a, A b) const { return a >= b; } };

struct LogicalAnd { __device__ bool operator()(bool a, bool b) const { return a && b; } };
struct LogicalOr { __device__ bool operator()(bool a, bool b) const { return a || b; } };
struct LogicalXor { __device__ bool operator()(bool a, bool b) const { return a != b; } };

// ------------------------------------------------------------------ strided kernels

template <typename T, typename F>
__global__ void unary(Layout L, long long n, T* out, const T* x) {
    F f;
    AGCY_GRID_STRIDE_LOOP(i, n) {
        long long off[2];
        layout_offsets<2>(L, i, off);
        store(out + off[0], f(load(x + off[1])));
    }
}

template <typename T, typename F>
__global__ void binary(Layout L, long long n, T* out, const T* a, const T* b) {
    F f;
    AGCY_GRID_STRIDE_LOOP(i, n) {
        long long off[3];
        layout_offsets<3>(L, i, off);
        store(out + off[0], f(load(a + off[1]), load(b + off[2])));
    }
}

// F(a, s) for a number s (x + 2, x ** 2); the Layout has two operands, out and a.
template <typename T, typename F>
__global__ void binary_scalar(Layout L, long long n, T* out, const T* a, typename Acc<T>::type s) {
    F f;
    AGCY_GRID_STRIDE_LOOP(i, n) {
        long long off[2];
        layout_offsets<2>(L, i, off);
        store(out + off[0], f(load(a + off[1]), s));
    }
}

// F(s, b) for a number s (2 - x, 2 / x, 2 ** x); the Layout has two operands, out and b.
template <typename T, typename F>
__global__ void scalar_binary(Layout L, long long n, T* out, const T* b, typename Acc<T>::type s) {
    F f;
    AGCY_GRID_STRIDE_LOOP(i, n) {
        long long off[2];
        layout_offsets<2>(L, i, off);
        store(out + off[0], f(s, load(b + off[1])));
    }
}

template <typename T, typename F>
__global__ void compare(Layout L, long long n, bool* out, const T* a, const T* b) {
    F f;
    AGCY_GRID_STRIDE_LOOP(i, n) {
        long long off[3];
        layout_offsets<3>(L, i, off);
        out[off[0]] = f(load(a + off[1]), load(b + off[2]));
    }
}

template <typename T, typename F>
__global__ void compare_scalar(Layout L, long long n, bool* out, const T* a, typename Acc<T>::type s) {
    F f;
    AGCY_GRID_STRIDE_LOOP(i, n) {
        long long off[2];
        layout_offsets<2>(L, i, off);
        out[off[0]] = f(load(a + off[1]), s);
    }
}

template <typename F>
__global__ void logical(Layout L, long long n, bool* out, const bool* a, const bool* b) {
    F f;
    AGCY_GRID_STRIDE_LOOP(i, n) {
        long long off[3];
        layout_offsets<3>(L, i, off);
        out[off[0]] = f(a[off[1]], b[off[2]]);
    }
}

__global__ void logical_not(Layout L, long long n, bool* out, const bool* x) {
    AGCY_GRID_STRIDE_LOOP(i, n) {
        long long off[2];
        layout_offsets<2>(L, i, off);
        out[off[0]] = !x[off[1]];
    }
}

// Classification of floats (NaN, +-inf), whose names in PyTorch and NumPy the kernels keep.
template <typename T>
__global__ void isnan(Layout L, long long n, bool* out, const T* x) {
    AGCY_GRID_STRIDE_LOOP(i, n) {
        long long off[2];
        layout_offsets<2>(L, i, off);
        out[off[0]] = agcy_isnan(load(x + off[1]));
    }
}

template <typename T>
__global__ void isinf(Layout L, long long n, bool* out, const T* x) {
    AGCY_GRID_STRIDE_LOOP(i, n) {
        long long off[2];
        layout_offsets<2>(L, i, off);
        out[off[0]] = agcy_isinf(load(x + off[1]));
    }
}

template <typename T>
__global__ void isfinite(Layout L, long long n, bool* out, const T* x) {
    AGCY_GRID_STRIDE_LOOP(i, n) {
        long long off[2];
        layout_offsets<2>(L, i, off);
        out[off[0]] = agcy_isfinite(load(x + off[1]));
    }
}

// |z| of a complex tensor: a real result (float32 for complex64), as torch.abs and np.abs.
template <typename T>
__global__ void complex_abs(Layout L, long long n, typename T::value_type* out, const T* x) {
    AGCY_GRID_STRIDE_LOOP(i, n) {
        long long off[2];
        layout_offsets<2>(L, i, off);
        out[off[0]] = agcy_abs(x[off[1]]);
    }
}

// torch.clamp with number bounds (has_lo / has_hi say which are given): NaN in x or in a
// bound gives NaN, and lo > hi gives hi (the upper bound applies last), as PyTorch.
template <typename T>
__global__ void clamp_scalar(Layout L, long long n, T* out, const T* x, typename Acc<T>::type lo,
                             typename Acc<T>::type hi, int has_lo, int has_hi) {
    AGCY_GRID_STRIDE_LOOP(i, n) {
        long long off[2];
        layout_offsets<2>(L, i, off);
        typename Acc<T>::type v = load(x + off[1]);
        if (has_lo && (v < lo || agcy_isnan(lo))) v = lo;
        if (has_hi && (v > hi || agcy_isnan(hi))) v = hi;
        store(out + off[0], v);
    }
}

// torch.where(cond, a, b): a copy of the chosen element, no arithmetic.
template <typename T>
__global__ void where(Layout L, long long n, T* out, const bool* cond, const T* a, const T* b) {
    AGCY_GRID_STRIDE_LOOP(i, n) {
        long long off[4];
        layout_offsets<4>(L, i, off);
        out[off[0]] = cond[off[1]] ? a[off[2]] : b[off[3]];
    }
}

// The value parameter of fill<T>: T itself, except float for the half types (a host passes
// a float32 scalar; NumPy's float16 scalar would do too, but one rule for all launches is
// simpler: half-precision scalars always travel as float).
template <typename T> struct FillValue { typedef T type; };
template <> struct FillValue<__half> { typedef float type; };
template <> struct FillValue<__nv_bfloat16> { typedef float type; };

template <typename T>
__global__ void fill(Layout L, long long n, T* out, typename FillValue<T>::type value) {
    AGCY_GRID_STRIDE_LOOP(i, n) {
        long long off[1];
        layout_offsets<1>(L, i, off);
        store(out + off[0], value);
    }
}

// ------------------------------------------------------------------ conversions

// NOTE [Conversions]
// cast<Tin, Tout> converts as PyTorch's .to(dtype): to bool is != 0 (NaN is true); a float
// to an integer truncates toward zero through int64, then wraps to the narrower type (so a
// negative float to uint8 is defined and wraps, as PyTorch makes it on every device; a value
// outside int64's range is undefined in C++ and in PyTorch); integers wrap to narrower ones;
// to __half and __nv_bfloat16 goes through float (also from double, as PyTorch's Half(float)
// and BFloat16(float) do), rounding to nearest even (NOTE [Rounding to bfloat16]); a real
// number to a complex type is the real part, a complex number to a real type keeps its real
// part (NumPy warns, torch too), to bool it is true unless both parts are 0. With
// Tin == Tout the element is copied bit for bit: the strided copy (contiguous(), copy_ into
// a view, an in-place result written back into a non-contiguous view).
template <typename To, typename From>
__device__ __forceinline__ To convert(From v) {
    if constexpr (SameType<To, bool>::value) {
        return v != From(0);
    } else if constexpr (IsComplex<To>::value) {
        if constexpr (IsComplex<From>::value) return To(v);
        else return To((typename To::value_type)v);
    } else if constexpr (IsComplex<From>::value) {
        return convert<To>(v.re);
    } else if constexpr (SameType<To, __half>::value) {
        return __float2half((float)v);
    } else if constexpr (SameType<To, __nv_bfloat16>::value) {
        return __float2bfloat16((float)v);
    } else if constexpr (IsFloating<From>::value && !IsFloating<To>::value) {
        return (To)(long long)v;
    } else {
        return (To)v;
    }
}

template <typename Tin, typename Tout>
__global__ void cast(Layout L, long long n, Tout* out, const Tin* x) {
    AGCY_GRID_STRIDE_LOOP(i, n) {
        long long off[2];
        layout_offsets<2>(L, i, off);
        if constexpr (SameType<Tin, Tout>::value) {
            out[off[0]] = x[off[1]];
        } else {
            out[off[0]] = convert<Tout>(load(x + off[1]));
        }
    }
}

// ------------------------------------------------------------------ contiguous float32 fast path

// NOTE [Vectorized contiguous path]
// A contiguous float32 launch (the Layout merged to one dim of unit strides) whose pointers
// are 16-byte aligned reads and writes four elements per instruction (float4): a quarter of
// the memory transactions, and no index arithmetic. The host picks these kernels (their
// names end in _vec4) when every operand is contiguous and aligned; they take no Layout.
// Thread t handles the four elements 4t..4t+3 in the grid-stride loop; the n % 4 elements
// past the last whole float4 are a scalar tail. In-place is safe as in the strided kernels:
// each float4 is read before the same float4 is written.
template <typename T, typename F>
__global__ void unary_vec4(long long n, T* out, const T* x) {
    static_assert(SameType<T, float>::value, "the vectorized path is float32's");
    F f;
    long long quads = n / 4;
    const float4* x4 = reinterpret_cast<const float4*>(x);
    float4* out4 = reinterpret_cast<float4*>(out);
    AGCY_GRID_STRIDE_LOOP(i, quads) {
        float4 v = x4[i];
        out4[i] = make_float4(f(v.x), f(v.y), f(v.z), f(v.w));
    }
    AGCY_GRID_STRIDE_LOOP(i, n - 4 * quads) {
        long long k = 4 * quads + i;
        out[k] = f(x[k]);
    }
}

template <typename T, typename F>
__global__ void binary_vec4(long long n, T* out, const T* a, const T* b) {
    static_assert(SameType<T, float>::value, "the vectorized path is float32's");
    F f;
    long long quads = n / 4;
    const float4* a4 = reinterpret_cast<const float4*>(a);
    const float4* b4 = reinterpret_cast<const float4*>(b);
    float4* out4 = reinterpret_cast<float4*>(out);
    AGCY_GRID_STRIDE_LOOP(i, quads) {
        float4 u = a4[i], v = b4[i];
        out4[i] = make_float4(f(u.x, v.x), f(u.y, v.y), f(u.z, v.z), f(u.w, v.w));
    }
    AGCY_GRID_STRIDE_LOOP(i, n - 4 * quads) {
        long long k = 4 * quads + i;
        out[k] = f(a[k], b[k]);
    }
}

template <typename T, typename F>
__global__ void binary_scalar_vec4(long long n, T* out, const T* a, T s) {
    static_assert(SameType<T, float>::value, "the vectorized path is float32's");
    F f;
    long long quads = n / 4;
    const float4* a4 = reinterpret_cast<const float4*>(a);
    float4* out4 = reinterpret_cast<float4*>(out);
    AGCY_GRID_STRIDE_LOOP(i, quads) {
        float4 u = a4[i];
        out4[i] = make_float4(f(u.x, s), f(u.y, s), f(u.z, s), f(u.w, s));
    }
    AGCY_GRID_STRIDE_LOOP(i, n - 4 * quads) {
        long long k = 4 * quads + i;
        out[k] = f(a[k], s);
    }
}
