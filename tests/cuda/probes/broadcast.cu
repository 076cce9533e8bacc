// Probe for the emulator's self-tests: out = a + alpha * b over any strided layout
// (NOTE [Layout] in common.cuh), the Layout struct passed by value.
#include "common.cuh"

template <typename T>
__global__ void add_scaled(T* out, const T* a, const T* b, Layout layout, long long n,
                           typename Acc<T>::type alpha) {
    AGCY_GRID_STRIDE_LOOP(i, n) {
        long long off[3];
        layout_offsets<3>(layout, i, off);
        store(out + off[0], load(a + off[1]) + alpha * load(b + off[2]));
    }
}
