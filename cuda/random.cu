// random.cu: random numbers made on the device by a counter-based generator (Philox4x32-10),
// and dropout's forward (output and keep-mask in one pass) and backward.
#include "common.cuh"
#include "math.cuh"

// NOTE [Philox4x32-10]
// Philox is a counter-based generator: the random words at position c of the stream of key
// k are a bijection of the 128-bit counter c, keyed by k (ten rounds of two 32x32->64-bit
// multiplications, xors with the key, and a Weyl increment of the key between rounds). No
// state is carried from one number to the next, so any thread can compute any part of the
// stream directly: a launch's result does not depend on its grid, its block size or the
// order its blocks run in.
//
// The stream of seed s is the sequence of 32-bit words w[0], w[1], ...: word w[4c + j] is
// word j of Philox(counter = c, key = s). A launch reads the words from `offset` (a
// multiple of 4: whole counter values) and the host advances its device's offset by the
// words consumed (autograd_cy/cuda/random.py), as PyTorch's philox offset advances: two
// calls read different words, and manual_seed (which resets the offset) replays them.
// Thread work is one counter value, i.e. four words: four float/half elements or two
// double elements (a double takes 53 bits from two words).
struct PhiloxWords {
    unsigned int w[4];
};

#define AGCY_PHILOX_M0 0xD2511F53u
#define AGCY_PHILOX_M1 0xCD9E8D57u
#define AGCY_PHILOX_W0 0x9E3779B9u
#define AGCY_PHILOX_W1 0xBB67AE85u

__device__ __forceinline__ void multiply_high_low(unsigned int a, unsigned int b,
                                                  unsigned int& high, unsigned int& low) {
    unsigned long long product = (unsigned long long)a * b;
    high = (unsigned int)(product >> 32);
    low = (unsigned int)product;
}

// Philox4x32 with 10 rounds of counter (c0, c1, c2, c3) and key (k0, k1).
__device__ __forceinline__ PhiloxWords philox4x32_10(unsigned int c0, unsigned int c1,
                                                     unsigned int c2, unsigned int c3,
                                                     unsigned int k0, unsigned int k1) {
    for (int round = 0; round < 10; ++round) {
        if (round > 0) {            // the key's Weyl step before every round but the first
            k0 += AGCY_PHILOX_W0;
            k1 += AGCY_PHILOX_W1;
        }
        unsigned int high0, low0, high1, low1;
        multiply_high_low(AGCY_PHILOX_M0, c0, high0, low0);
        multiply_high_low(AGCY_PHILOX_M1, c2, high1, low1);
        const unsigned int n0 = high1 ^ c1 ^ k0, n2 = high0 ^ c3 ^ k1;
        c0 = n0;
        c1 = low1;
        c2 = n2;
        c3 = low0;
    }
    PhiloxWords out = {{c0, c1, c2, c3}};
    return out;
}

// The four words at counter value `position` of the stream of `seed` (upper counter words 0).
__device__ __forceinline__ PhiloxWords stream_words(unsigned long long seed,
                                                    unsigned long long position) {
    return philox4x32_10((unsigned int)position, (unsigned int)(position >> 32), 0u, 0u,
                         (unsigned int)seed, (unsigned int)(seed >> 32));
}

// Uniform numbers on [0, 1) from the words of one counter value: each a multiple of
// 2^-digits with `digits` the dtype's mantissa precision, so none rounds up to 1.
template <typename T> struct UniformDraw {                  // float: 24 bits of one word
    static constexpr int per_counter = 4;
    __device__ static float value(const PhiloxWords& r, int j) {
        return (float)(r.w[j] >> 8) * (1.0f / 16777216.0f);
    }
};
template <> struct UniformDraw<__half> {                    // half: 11 bits of one word
    static constexpr int per_counter = 4;
    __device__ static float value(const PhiloxWords& r, int j) {
        return (float)(r.w[j] >> 21) * (1.0f / 2048.0f);
    }
};
template <> struct UniformDraw<__nv_bfloat16> {             // bfloat16: 8 bits of one word
    static constexpr int per_counter = 4;
    __device__ static float value(const PhiloxWords& r, int j) {
        return (float)(r.w[j] >> 24) * (1.0f / 256.0f);
    }
};
template <> struct UniformDraw<double> {                    // double: 53 bits of two words
    static constexpr int per_counter = 2;
    __device__ static double value(const PhiloxWords& r, int j) {
        const double high = (double)(r.w[2 * j] >> 5), low = (double)(r.w[2 * j + 1] >> 6);
        return (high * 67108864.0 + low) * (1.0 / 9007199254740992.0);
    }
};

// n raw words of the stream from `offset`: the generator itself, for the tests.
__global__ void philox_bits(unsigned int* out, long long n, unsigned long long seed,
                            unsigned long long offset) {
    const long long counters = (n + 3) / 4;
    AGCY_GRID_STRIDE_LOOP(c, counters) {
        const PhiloxWords r = stream_words(seed, offset / 4 + (unsigned long long)c);
        for (int j = 0; j < 4; ++j)
            if (4 * c + j < n) out[4 * c + j] = r.w[j];
    }
}

// Uniform samples on [0, 1) (torch.rand).
template <typename T>
__global__ void philox_uniform(T* out, long long n, unsigned long long seed,
                               unsigned long long offset) {
    constexpr int per = UniformDraw<T>::per_counter;
    const long long counters = (n + per - 1) / per;
    AGCY_GRID_STRIDE_LOOP(c, counters) {
        const PhiloxWords r = stream_words(seed, offset / 4 + (unsigned long long)c);
        for (int j = 0; j < per; ++j)
            if (per * c + j < n) store(out + per * c + j, UniformDraw<T>::value(r, j));
    }
}

// Standard normal samples by Box-Muller: each pair of uniforms (u1, u2) gives
// sqrt(-2 log(1 - u1)) * (cos, sin)(2 pi u2); 1 - u1 is in (0, 1], so the log is finite.
template <typename T>
__global__ void philox_normal(T* out, long long n, unsigned long long seed,
                              unsigned long long offset) {
    typedef typename Acc<T>::type A;
    constexpr int per = UniformDraw<T>::per_counter;
    const long long counters = (n + per - 1) / per;
    AGCY_GRID_STRIDE_LOOP(c, counters) {
        const PhiloxWords r = stream_words(seed, offset / 4 + (unsigned long long)c);
        for (int j = 0; j < per; j += 2) {
            const A u1 = UniformDraw<T>::value(r, j), u2 = UniformDraw<T>::value(r, j + 1);
            const A radius = agcy_sqrt(A(-2) * agcy_log(A(1) - u1));
            const A angle = A(6.283185307179586) * u2;
            if (per * c + j < n) store(out + per * c + j, radius * agcy_cos(angle));
            if (per * c + j + 1 < n) store(out + per * c + j + 1, radius * agcy_sin(angle));
        }
    }
}

// Dropout: keep[i] = (u_i < keep_prob) with u_i the i-th float uniform of the stream from
// `offset`, out[i] = x[i] * keep[i] * scale (scale = 1 / keep_prob, 0 when keep_prob is 0,
// as PyTorch's, so p = 1 gives zeros and not 0 * inf). x, out and keep are contiguous.
template <typename T>
__global__ void dropout_forward(T* out, bool* keep, const T* x, long long n, float keep_prob,
                                typename Acc<T>::type scale, unsigned long long seed,
                                unsigned long long offset) {
    typedef typename Acc<T>::type A;
    const long long counters = (n + 3) / 4;
    AGCY_GRID_STRIDE_LOOP(c, counters) {
        const PhiloxWords r = stream_words(seed, offset / 4 + (unsigned long long)c);
        for (int j = 0; j < 4; ++j) {
            const long long i = 4 * c + j;
            if (i < n) {
                const bool kept = UniformDraw<float>::value(r, j) < keep_prob;
                keep[i] = kept;
                store(out + i, load(x + i) * (A)kept * scale);
            }
        }
    }
}

// Dropout's backward: grad_input = grad * keep * scale, with the forward's mask. Strided
// (NOTE [Layout]; operands grad_input, grad, keep): the gradient of a sum arrives expanded,
// and a contiguous copy first would be a second launch.
template <typename T>
__global__ void dropout_backward(Layout L, long long n, T* grad_input, const T* grad,
                                 const bool* keep, typename Acc<T>::type scale) {
    typedef typename Acc<T>::type A;
    AGCY_GRID_STRIDE_LOOP(i, n) {
        long long off[3];
        layout_offsets<3>(L, i, off);
        store(grad_input + off[0], load(grad + off[1]) * (A)keep[off[2]] * scale);
    }
}
