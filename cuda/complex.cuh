// complex.cuh: the complex numbers of the kernels. Complex<float> and Complex<double> hold
// complex64 and complex128 elements as NumPy and PyTorch lay them out (the real part, then
// the imaginary part), with the arithmetic and the functions the kernels are instantiated
// for (the manifest's COMPLEX_* lists): + - * / and pow, ==, exp, expm1, log, log2, log1p,
// sqrt, the trigonometric and hyperbolic functions and their inverses, sgn, abs, conj, and
// the NaN/inf tests.
//
// NOTE [A complex type of our own]
// CUDA has cuComplex.h (float2 with functions, no operators) and libcu++'s
// cuda::std::complex; the emulator compiles kernels with g++, where neither exists as such.
// A small struct reads the same in NVRTC, nvcc and g++, and lets a kernel template written
// for float (`a + b`, `A(0)`, `A(1) / x`, `(A)n`) compile for complex unchanged. Its
// alignment is its part's, not twice that: a complex128 partial state then fits the 8-byte
// aligned slots of the two-pass reductions (NOTE [Two passes] in reduction.cu); a GPU loads it
// as two words instead of one. The emulator's launch guards know it by its two members
// `re` and `im` (ComplexLike in cuda_cpu.h), and name it "c8" or "c16" as NumPy's dtypes.
#pragma once
#include "math.cuh"

template <typename R> struct Complex {
    typedef R value_type;
    R re, im;
    Complex() = default;   // trivial: a Complex may live in __shared__ memory
    __device__ constexpr Complex(R real, R imag = R(0)) : re(real), im(imag) {}
    template <typename S>
    __device__ explicit Complex(const Complex<S>& z) : re((R)z.re), im((R)z.im) {}
};

// Arithmetic of the complex dtypes happens in their own precision (no wider accumulate type,
// as in PyTorch: complex64 sums in complex64).
template <typename R> __device__ __forceinline__ Complex<R> operator-(Complex<R> a) {
    return Complex<R>(-a.re, -a.im);
}
template <typename R> __device__ __forceinline__ Complex<R> operator+(Complex<R> a, Complex<R> b) {
    return Complex<R>(a.re + b.re, a.im + b.im);
}
template <typename R> __device__ __forceinline__ Complex<R> operator-(Complex<R> a, Complex<R> b) {
    return Complex<R>(a.re - b.re, a.im - b.im);
}
template <typename R> __device__ __forceinline__ Complex<R> operator*(Complex<R> a, Complex<R> b) {
    return Complex<R>(a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re);
}

// NOTE [Complex division]
// a / b as (a conj(b)) / |b|^2 overflows when |b|^2 does (|b| above 1e19 in float) and
// loses everything when it underflows. Smith's method divides by the larger part of b
// first: with r = d / c (|c| >= |d|), a / b = ((a.re + a.im r) + i (a.im - a.re r)) / (c + d r),
// and symmetrically for |d| > |c|; no intermediate exceeds the operands' magnitude by much.
// NumPy (the CPU's) and PyTorch use the same method, so results agree to the last bits. A
// zero divisor gives inf or NaN parts, as IEEE division of each part.
template <typename R> __device__ __forceinline__ Complex<R> operator/(Complex<R> a, Complex<R> b) {
    const R c = b.re, d = b.im;
    const R abs_c = c < R(0) ? -c : c, abs_d = d < R(0) ? -d : d;
    if (abs_c >= abs_d) {
        if (abs_c == R(0)) return Complex<R>(a.re / abs_c, a.im / abs_d);
        const R ratio = d / c, denominator = c + d * ratio;
        return Complex<R>((a.re + a.im * ratio) / denominator, (a.im - a.re * ratio) / denominator);
    }
    const R ratio = c / d, denominator = c * ratio + d;
    return Complex<R>((a.re * ratio + a.im) / denominator, (a.im * ratio - a.re) / denominator);
}
template <typename R> __device__ __forceinline__ Complex<R>& operator+=(Complex<R>& a, Complex<R> b) {
    return a = a + b;
}
template <typename R> __device__ __forceinline__ Complex<R>& operator-=(Complex<R>& a, Complex<R> b) {
    return a = a - b;
}
template <typename R> __device__ __forceinline__ Complex<R>& operator*=(Complex<R>& a, Complex<R> b) {
    return a = a * b;
}
template <typename R> __device__ __forceinline__ bool operator==(Complex<R> a, Complex<R> b) {
    return a.re == b.re && a.im == b.im;
}
template <typename R> __device__ __forceinline__ bool operator!=(Complex<R> a, Complex<R> b) {
    return !(a == b);
}

// NOTE [Scatter-add of complex numbers]
// CUDA has no atomicAdd for a pair of numbers, but a complex sum is two independent real
// sums: each part is added atomically on its own (NOTE [Scatter-add with atomics] in
// common.cuh). A reader in the middle may see one part added and not the other; no kernel
// reads the target before the launch ends.
template <typename R>
__device__ __forceinline__ void atomic_accumulate(Complex<R>* address, Complex<R> value) {
    atomicAdd(&address->re, value.re);
    atomicAdd(&address->im, value.im);
}

// ---- functions (the agcy_ names of math.cuh, overloaded) ---------------------------------
// |z| through hypot: no overflow of re^2 + im^2 for large parts.
template <typename R> __device__ __forceinline__ R agcy_abs(Complex<R> z) { return agcy_hypot(z.re, z.im); }
template <typename R> __device__ __forceinline__ R agcy_angle(Complex<R> z) { return agcy_atan2(z.im, z.re); }
template <typename R> __device__ __forceinline__ Complex<R> agcy_conj(Complex<R> z) {
    return Complex<R>(z.re, -z.im);
}
// exp(a + ib) = e^a (cos b + i sin b), with C99's values (NumPy's and PyTorch's) where that
// product is 0 * inf or inf * NaN: a real argument stays real (inf + 0i, NaN + 0i), e^-inf
// times an infinite or NaN angle is 0, e^inf times one is inf + NaN i. Complex pow reaches
// these through exp(y log 0), log 0 being -inf.
template <typename R> __device__ __forceinline__ Complex<R> agcy_exp(Complex<R> z) {
    if (z.im == R(0)) return Complex<R>(agcy_exp(z.re), z.im);
    if (agcy_isinf(z.re) && !agcy_isfinite(z.im)) {
        if (z.re < R(0)) return Complex<R>(R(0), R(0));
        return Complex<R>(z.re, z.im - z.im);       // inf + NaN i
    }
    const R scale = agcy_exp(z.re);
    return Complex<R>(scale * agcy_cos(z.im), scale * agcy_sin(z.im));
}
// the principal logarithm: log|z| + i arg z, arg in (-pi, pi]
template <typename R> __device__ __forceinline__ Complex<R> agcy_log(Complex<R> z) {
    return Complex<R>(agcy_log(agcy_abs(z)), agcy_angle(z));
}
// exp(z) - 1 without cancellation near 0: the real part is expm1(a) cos b - 2 sin^2(b/2)
// (cos b - 1 written without a subtraction), the imaginary part e^a sin b.
template <typename R> __device__ __forceinline__ Complex<R> agcy_expm1(Complex<R> z) {
    const R half_sin = agcy_sin(z.im / R(2));
    return Complex<R>(agcy_expm1(z.re) * agcy_cos(z.im) - R(2) * half_sin * half_sin,
                      agcy_exp(z.re) * agcy_sin(z.im));
}
// log(1 + z) without cancellation near 0: |1 + z|^2 = 1 + (2a + a^2 + b^2), so the real part
// is log1p(2a + a^2 + b^2) / 2, the imaginary part atan2(b, 1 + a). Away from 0 that sum
// cancels instead (to -1 near z = -1), and 1 + z, exact there, goes to log.
template <typename R> __device__ __forceinline__ Complex<R> agcy_log1p(Complex<R> z) {
    if (agcy_abs(z.re) + agcy_abs(z.im) > R(0.5)) return agcy_log(Complex<R>(R(1) + z.re, z.im));
    return Complex<R>(agcy_log1p(R(2) * z.re + z.re * z.re + z.im * z.im) / R(2),
                      agcy_atan2(z.im, R(1) + z.re));
}
// log2 z = log z / log 2
template <typename R> __device__ __forceinline__ Complex<R> agcy_log2(Complex<R> z) {
    const Complex<R> l = agcy_log(z);
    const R inverse_ln2 = R(1.44269504088896340736);
    return Complex<R>(l.re * inverse_ln2, l.im * inverse_ln2);
}
// log10 z = log z * log10(e), as NumPy's complex log10
template <typename R> __device__ __forceinline__ Complex<R> agcy_log10(Complex<R> z) {
    const Complex<R> l = agcy_log(z);
    const R log10_e = R(0.434294481903251827651);
    return Complex<R>(l.re * log10_e, l.im * log10_e);
}
// 2^z = exp(z ln 2), as NumPy's complex exp2
template <typename R> __device__ __forceinline__ Complex<R> agcy_exp2(Complex<R> z) {
    const R ln2 = R(0.693147180559945309417);
    return agcy_exp(Complex<R>(z.re * ln2, z.im * ln2));
}
// sin(a + ib) = sin a cosh b + i cos a sinh b;  cos(a + ib) = cos a cosh b - i sin a sinh b
template <typename R> __device__ __forceinline__ Complex<R> agcy_sin(Complex<R> z) {
    return Complex<R>(agcy_sin(z.re) * agcy_cosh(z.im), agcy_cos(z.re) * agcy_sinh(z.im));
}
template <typename R> __device__ __forceinline__ Complex<R> agcy_cos(Complex<R> z) {
    return Complex<R>(agcy_cos(z.re) * agcy_cosh(z.im), -(agcy_sin(z.re) * agcy_sinh(z.im)));
}
// tanh(a + ib) = (sinh 2a + i sin 2b) / (cosh 2a + cos 2b). Past |a| = 20, tanh a is 1 to
// float64's precision and cosh 2a would overflow float: the limit, +-1 with a zero
// imaginary part of sin 2b's sign.
template <typename R> __device__ __forceinline__ Complex<R> agcy_tanh(Complex<R> z) {
    if (agcy_abs(z.re) > R(20))
        return Complex<R>(agcy_copysign(R(1), z.re), agcy_copysign(R(0), agcy_sin(R(2) * z.im)));
    const R denominator = agcy_cosh(R(2) * z.re) + agcy_cos(R(2) * z.im);
    return Complex<R>(agcy_sinh(R(2) * z.re) / denominator, agcy_sin(R(2) * z.im) / denominator);
}
// sinh(a + ib) = sinh a cos b + i cosh a sin b;  cosh(a + ib) = cosh a cos b + i sinh a sin b
// On the real axis the imaginary part is an exact signed zero (C99's csinh and ccosh): the
// products would make inf * 0 = NaN of it at a = +-inf.
template <typename R> __device__ __forceinline__ Complex<R> agcy_sinh(Complex<R> z) {
    if (z.im == R(0)) return Complex<R>(agcy_sinh(z.re), z.im);
    return Complex<R>(agcy_sinh(z.re) * agcy_cos(z.im), agcy_cosh(z.re) * agcy_sin(z.im));
}
template <typename R> __device__ __forceinline__ Complex<R> agcy_cosh(Complex<R> z) {
    if (z.im == R(0)) return Complex<R>(agcy_cosh(z.re), agcy_copysign(R(0), z.re) * z.im);
    return Complex<R>(agcy_cosh(z.re) * agcy_cos(z.im), agcy_sinh(z.re) * agcy_sin(z.im));
}
// The circular functions from the hyperbolic ones: with iz = -b + ia, tan z = -i tanh(iz),
// asin z = -i asinh(iz) and atan z = -i atanh(iz); -i (p + iq) is q - ip.
template <typename R> __device__ __forceinline__ Complex<R> times_i(Complex<R> z) {
    return Complex<R>(-z.im, z.re);
}
template <typename R> __device__ __forceinline__ Complex<R> times_minus_i(Complex<R> z) {
    return Complex<R>(z.im, -z.re);
}
template <typename R> __device__ __forceinline__ Complex<R> agcy_tan(Complex<R> z) {
    return times_minus_i(agcy_tanh(times_i(z)));
}
// The inverse functions on their principal branches, as NumPy and PyTorch cut them, each
// through log1p so that it keeps its precision where the log's argument is near 1:
// asinh z = log(z + sqrt(z^2 + 1)) = log1p(z + z^2 / (1 + sqrt(z^2 + 1))), taken for re >= 0
// (asinh is odd: -asinh(-z) for re < 0, where z and the root would cancel);
// acosh z = log(z + sqrt(z + 1) sqrt(z - 1)) = log1p((z - 1) + sqrt(z + 1) sqrt(z - 1));
// atanh z = (log(1 + z) - log(1 - z)) / 2; acos z = pi / 2 - asin z.
//
// On a branch cut the sign of the zero part picks the side, as C99's casinh and cacosh (NumPy
// and PyTorch) pick it: the general formulas square that zero or add 1 to it and lose its
// sign, so the points on the axes are taken directly: asinh(+-0 + iy) is +-0 + i asin y for
// |y| <= 1 and +-acosh|y| + i copysign(pi / 2, y) beyond; acosh(x +- 0i) is acosh x +- 0i for
// x >= 1, acosh|x| +- i pi below -1 and 0 +- i acos x between; atanh(+-0 + iy) is
// +-0 + i atan y. asin, acos and atan, written through asinh and atanh, inherit them.
template <typename R> __device__ __forceinline__ Complex<R> agcy_asinh(Complex<R> z) {
    if (z.re == R(0) && !agcy_isnan(z.im)) {
        const R magnitude = agcy_abs(z.im);
        if (magnitude <= R(1)) return Complex<R>(z.re, agcy_asin(z.im));
        return Complex<R>(agcy_copysign(agcy_acosh(magnitude), z.re),
                          agcy_copysign(R(1.57079632679489661923), z.im));
    }
    const bool negative = z.re < R(0);
    const Complex<R> w = negative ? -z : z, one = Complex<R>(R(1));
    const Complex<R> square = w * w;
    const Complex<R> result = agcy_log1p(w + square / (one + agcy_sqrt(square + one)));
    return negative ? -result : result;
}
template <typename R> __device__ __forceinline__ Complex<R> agcy_acosh(Complex<R> z) {
    if (z.im == R(0) && !agcy_isnan(z.re)) {
        if (z.re >= R(1)) return Complex<R>(agcy_acosh(z.re), z.im);
        if (z.re <= R(-1))
            return Complex<R>(agcy_acosh(-z.re), agcy_copysign(R(3.14159265358979323846), z.im));
        return Complex<R>(R(0), agcy_copysign(agcy_acos(z.re), z.im));
    }
    const Complex<R> one = Complex<R>(R(1));
    return agcy_log1p((z - one) + agcy_sqrt(z + one) * agcy_sqrt(z - one));
}
template <typename R> __device__ __forceinline__ Complex<R> agcy_atanh(Complex<R> z) {
    // atanh(+-0 + iy) is +-0 + i atan y: the difference below would make the zero +0
    if (z.re == R(0) && !agcy_isnan(z.im)) return Complex<R>(z.re, agcy_atan(z.im));
    const Complex<R> difference = agcy_log1p(z) - agcy_log1p(-z);
    return Complex<R>(difference.re / R(2), difference.im / R(2));
}
template <typename R> __device__ __forceinline__ Complex<R> agcy_asin(Complex<R> z) {
    return times_minus_i(agcy_asinh(times_i(z)));
}
template <typename R> __device__ __forceinline__ Complex<R> agcy_acos(Complex<R> z) {
    const Complex<R> arcsine = agcy_asin(z);
    return Complex<R>(R(1.57079632679489661923) - arcsine.re, -arcsine.im);
}
template <typename R> __device__ __forceinline__ Complex<R> agcy_atan(Complex<R> z) {
    return times_minus_i(agcy_atanh(times_i(z)));
}
// a ** b = exp(b log a), the principal branch; 0 ** b is 0 for b.re > 0 and 1 for b = 0
// (NaN otherwise, as log 0 = -inf makes it).
template <typename R> __device__ __forceinline__ Complex<R> agcy_pow(Complex<R> a, Complex<R> b) {
    if (a.re == R(0) && a.im == R(0)) {
        if (b.re == R(0) && b.im == R(0)) return Complex<R>(R(1));
        if (b.re > R(0)) return Complex<R>(R(0));
    }
    return agcy_exp(b * agcy_log(a));
}
// The principal square root (real part >= 0, the cut along the negative reals): with
// t = sqrt((|re| + |z|) / 2), sqrt(z) is t + i im / (2t) for re >= 0, and
// |im| / (2t) + i copysign(t, im) otherwise; no cancellation in either branch.
template <typename R> __device__ __forceinline__ Complex<R> agcy_sqrt(Complex<R> z) {
    if (z.re == R(0) && z.im == R(0)) return Complex<R>(R(0), z.im);
    const R t = agcy_sqrt((agcy_abs(z.re) + agcy_abs(z)) / R(2));
    if (z.re >= R(0)) return Complex<R>(t, z.im / (R(2) * t));
    return Complex<R>(agcy_abs(z.im) / (R(2) * t), agcy_copysign(t, z.im));
}
// sgn(z) = z / |z|, 0 at 0: torch.sgn, and NumPy 2's sign of a complex number.
template <typename R> __device__ __forceinline__ Complex<R> agcy_sign(Complex<R> z) {
    const R magnitude = agcy_abs(z);
    return magnitude == R(0) ? Complex<R>(R(0)) : Complex<R>(z.re / magnitude, z.im / magnitude);
}
// As NumPy: NaN if either part is; inf if either part is; finite if both are.
template <typename R> __device__ __forceinline__ bool agcy_isnan(Complex<R> z) {
    return agcy_isnan(z.re) || agcy_isnan(z.im);
}
template <typename R> __device__ __forceinline__ bool agcy_isinf(Complex<R> z) {
    return agcy_isinf(z.re) || agcy_isinf(z.im);
}
template <typename R> __device__ __forceinline__ bool agcy_isfinite(Complex<R> z) {
    return agcy_isfinite(z.re) && agcy_isfinite(z.im);
}
