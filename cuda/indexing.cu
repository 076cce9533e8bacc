// indexing.cu: reading and writing elements at positions held in an index tensor.
// take_along_axis gathers (max/min with indices, and row gathers x[index]), put_along_axis
// scatters (their backward, and x[index] = v), add_along_axis scatters by accumulating
// (np.add.at: the backward of a gather, where repeated indices must all add).
// The host sides: autograd_cy/cuda/dispatch.py and autograd_cy/cuda/indexing.py.
#include "common.cuh"

// out[i] = x[i's position, with the coordinate along `axis` replaced by index[i]].
// Layout operands: 0 out, 1 x (its stride along `axis` set to 0 by the host), 2 index
// (broadcast over out). The host passes x's real stride along the axis and its size;
// an index outside [-size, size) is a host-checked error, a negative one counts from the end.
template <typename T>
__global__ void take_along_axis(Layout L, long long n, T* out, const T* x,
                                const long long* index, long long axis_stride,
                                long long axis_size) {
    AGCY_GRID_STRIDE_LOOP(i, n) {
        long long off[3];
        layout_offsets<3>(L, i, off);
        long long k = index[off[2]];
        if (k < 0) k += axis_size;
        out[off[0]] = x[off[1] + k * axis_stride];
    }
}

// arr[i's position, with the coordinate along `axis` replaced by index[i]] = values[i]:
// the scatter that sends max/min's gradient to the positions their indices name.
// Layout operands: 0 arr (its stride along `axis` set to 0), 1 index, 2 values (broadcast).
// Two positions of one row naming the same element race (one of the writes wins, as
// NumPy's sequential loop keeps the last); the indices of max/min name one element per row.
template <typename T>
__global__ void put_along_axis(Layout L, long long n, T* arr, const long long* index,
                               const T* values, long long axis_stride, long long axis_size) {
    AGCY_GRID_STRIDE_LOOP(i, n) {
        long long off[3];
        layout_offsets<3>(L, i, off);
        long long k = index[off[1]];
        if (k < 0) k += axis_size;
        arr[off[0] + k * axis_stride] = values[off[2]];
    }
}

// arr[i's position, with the coordinate along `axis` replaced by index[i]] += values[i]:
// put_along_axis's layout and arguments, but every write accumulates (NOTE [Scatter-add
// with atomics] in common.cuh). Layout operands: 0 arr (its stride along `axis` set to 0),
// 1 index, 2 values (broadcast).
template <typename T>
__global__ void add_along_axis(Layout L, long long n, T* arr, const long long* index,
                               const T* values, long long axis_stride, long long axis_size) {
    AGCY_GRID_STRIDE_LOOP(i, n) {
        long long off[3];
        layout_offsets<3>(L, i, off);
        long long k = index[off[1]];
        if (k < 0) k += axis_size;
        atomic_accumulate(arr + off[0] + k * axis_stride, values[off[2]]);
    }
}
