// sort.cu: a stable sort of contiguous rows, values and their original positions.
//
// NOTE [Sorting by rank]
// Element j of a row goes to position rank(j) = #{k : x[k] sorts before x[j]} + #{k < j :
// x[k] ties with x[j]}: every element is one independent count over its row, so the sort is
// stable (ties keep their order), needs no synchronisation and is correct for any launch
// configuration (a grid-stride loop over every element of every row). It reads each row
// length times (quadratic work): meant for the short rows of median and sort along a dim,
// where one launch beats a sequence of merge passes. NaN sorts after every number and NaNs
// tie among themselves, as in NumPy's and PyTorch's sorts.
//
// The host moves the sorted dim last and makes the input contiguous (rows x length); the
// outputs are contiguous rows too.
#include "common.cuh"

// a sorts strictly before b (NaN last; x != x only for NaN)
template <typename A> __device__ __forceinline__ bool sorts_before(A a, A b) {
    return !(a != a) && ((b != b) || a < b);
}

template <typename T>
__global__ void sort_rows(const T* x, T* values, long long* indices, long long rows,
                          long long length) {
    AGCY_GRID_STRIDE_LOOP(e, rows * length) {
        long long row = e / length, j = e - row * length;
        const T* r = x + row * length;
        typename Acc<T>::type mine = load(r + j);
        long long rank = 0;
        for (long long k = 0; k < length; ++k) {
            typename Acc<T>::type other = load(r + k);
            if (sorts_before(other, mine) || (k < j && !sorts_before(mine, other)))
                ++rank;
        }
        values[row * length + rank] = r[j];
        indices[row * length + rank] = j;
    }
}
