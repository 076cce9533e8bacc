// bitwise.cu: &, |, ^ and ~ on the integer dtypes (bools take the logical kernels of
// elementwise.cu: on bools the bitwise ops are the logical ones).
//
// Same shape as elementwise.cu's families: NOTE [Layout]'s Layout by value (operand 0 the
// output), the element count, the pointers, a grid-stride loop; the op a functor type.
#include "common.cuh"

struct BitAnd { template <typename T> __device__ T operator()(T a, T b) const { return a & b; } };
struct BitOr  { template <typename T> __device__ T operator()(T a, T b) const { return a | b; } };
struct BitXor { template <typename T> __device__ T operator()(T a, T b) const { return a ^ b; } };

template <typename T, typename F>
__global__ void bitwise(Layout L, long long n, T* out, const T* a, const T* b) {
    F f;
    AGCY_GRID_STRIDE_LOOP(i, n) {
        long long off[3];
        layout_offsets<3>(L, i, off);
        out[off[0]] = (T)f(a[off[1]], b[off[2]]);
    }
}

// F(a, s) for a number s (x & 3, 3 ^ x: the three ops commute); the Layout has out and a.
template <typename T, typename F>
__global__ void bitwise_scalar(Layout L, long long n, T* out, const T* a, T s) {
    F f;
    AGCY_GRID_STRIDE_LOOP(i, n) {
        long long off[2];
        layout_offsets<2>(L, i, off);
        out[off[0]] = (T)f(a[off[1]], s);
    }
}

template <typename T>
__global__ void bitwise_not(Layout L, long long n, T* out, const T* x) {
    AGCY_GRID_STRIDE_LOOP(i, n) {
        long long off[2];
        layout_offsets<2>(L, i, off);
        out[off[0]] = (T)~x[off[1]];
    }
}
