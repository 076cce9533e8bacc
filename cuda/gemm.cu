// gemm.cu: a tiled matrix product over strided operands, with the epilogues of addmm's
// forward (the bias added) and backward (the bias's gradient, the column sums of the
// incoming gradient, written by the same launch).
#include "common.cuh"

// NOTE [GEMM epilogues]
// A small training step is bound by kernel launches, not by arithmetic: the MLP step of
// the benchmarks (784-256-256-10, batch 64) is a few dozen launches of microseconds each.
// cuBLAS through CuPy computes alpha * A @ B (+ beta * C for a C of the result's full
// shape) and nothing else; the cuBLASLt epilogues that add a broadcast bias or sum the
// bias's gradient have no binding there. So addmm on CUDA comes here, one launch where
// cuBLAS would take two or three:
// - forward: out = alpha * (A @ B) + beta * bias, the bias broadcast through its strides
//   (0 along a broadcast dim); bias null when beta == 0 (its values are ignored, NaN too);
// - backward of addmm: grad_mat2 = alpha * (mat1^T @ grad), and in the same launch the
//   bias's gradient beta * (column sums of grad). The sums are one more row of the same
//   product: 1^T @ grad, an implicit row of ones appended to A (row m of A when
//   `column_sums` is not null), so they cost no separate reduction and no extra pass.
// Operands are strided (element strides of rows and columns), so mat1^T is the transposed
// view itself: no copy.
//
// Tiling: a block computes AGCY_GEMM_TILE x AGCY_GEMM_TILE outputs, walking k in steps of
// AGCY_GEMM_TILE_K: the threads load an A tile and a B tile into shared memory (in the
// accumulate type, zeros past the edges, so m, n and k need not be multiples of a tile),
// wait, and each adds the tiles' product into the outputs it owns. Output e of a tile
// belongs to thread e % blockDim.x, so any block size works (a block of 32 threads owns 32
// outputs each); the running sums live in shared memory because how many a thread owns is
// known only at launch. Blocks take tiles in a grid-stride loop: any grid works. Sums of
// k run in k order, one rounding per product; they differ from cuBLAS's in the last bits.
#define AGCY_GEMM_TILE 32
#define AGCY_GEMM_TILE_K 16

// Element strides of each operand, (row, column); autograd_cy/cuda/gemm.py fills it.
struct GemmLayout {
    long long m, n, k;               // out is m x n, A is m x k, B is k x n
    long long a_stride[2];
    long long b_stride[2];
    long long out_stride[2];
    long long bias_stride[2];        // the bias over (m, n): 0 along broadcast dims
    long long sums_stride;           // column_sums[j] at j * sums_stride
};

// out = alpha * (a @ b) + beta * bias (bias may be null); column_sums (may be null) =
// beta * (the column sums of b).
template <typename T>
__global__ void gemm(T* out, T* column_sums, const T* a, const T* b, const T* bias,
                     GemmLayout L, typename Acc<T>::type alpha, typename Acc<T>::type beta) {
    typedef typename Acc<T>::type A;
    __shared__ A a_tile[AGCY_GEMM_TILE_K][AGCY_GEMM_TILE];  // a_tile[p][i] = A[row0 + i, k0 + p]
    __shared__ A b_tile[AGCY_GEMM_TILE_K][AGCY_GEMM_TILE];  // b_tile[p][j] = B[k0 + p, col0 + j]
    __shared__ A sums[AGCY_GEMM_TILE * AGCY_GEMM_TILE];     // the tile's running sums
    const int tile_elements = AGCY_GEMM_TILE * AGCY_GEMM_TILE;
    const int slab_elements = AGCY_GEMM_TILE_K * AGCY_GEMM_TILE;
    const long long rows = L.m + (column_sums != nullptr ? 1 : 0);   // + the row of ones
    const long long tiles_n = (L.n + AGCY_GEMM_TILE - 1) / AGCY_GEMM_TILE;
    const long long tiles = (rows + AGCY_GEMM_TILE - 1) / AGCY_GEMM_TILE * tiles_n;
    // Load along the operand's shorter stride, so neighbouring threads read neighbouring
    // addresses whether it is row-major or a transposed view.
    const bool a_along_k = L.a_stride[1] <= L.a_stride[0];
    const bool b_along_n = L.b_stride[1] <= L.b_stride[0];
    for (long long tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
        const long long row0 = tile / tiles_n * AGCY_GEMM_TILE;
        const long long col0 = tile % tiles_n * AGCY_GEMM_TILE;
        for (int e = threadIdx.x; e < tile_elements; e += blockDim.x) sums[e] = A(0);
        for (long long k0 = 0; k0 < L.k; k0 += AGCY_GEMM_TILE_K) {
            __syncthreads();            // every thread is done reading the previous tiles
            for (int e = threadIdx.x; e < slab_elements; e += blockDim.x) {
                const int p = a_along_k ? e % AGCY_GEMM_TILE_K : e / AGCY_GEMM_TILE;
                const int i = a_along_k ? e / AGCY_GEMM_TILE_K : e % AGCY_GEMM_TILE;
                const long long r = row0 + i, kk = k0 + p;
                A value = A(0);
                if (kk < L.k && r < L.m) value = load(a + r * L.a_stride[0] + kk * L.a_stride[1]);
                else if (kk < L.k && r == L.m && column_sums != nullptr) value = A(1);
                a_tile[p][i] = value;
            }
            for (int e = threadIdx.x; e < slab_elements; e += blockDim.x) {
                const int p = b_along_n ? e / AGCY_GEMM_TILE : e % AGCY_GEMM_TILE_K;
                const int j = b_along_n ? e % AGCY_GEMM_TILE : e / AGCY_GEMM_TILE_K;
                const long long kk = k0 + p, c = col0 + j;
                b_tile[p][j] = kk < L.k && c < L.n
                                   ? load(b + kk * L.b_stride[0] + c * L.b_stride[1]) : A(0);
            }
            __syncthreads();
            for (int e = threadIdx.x; e < tile_elements; e += blockDim.x) {
                const int i = e / AGCY_GEMM_TILE, j = e % AGCY_GEMM_TILE;
                A partial = A(0);
                for (int p = 0; p < AGCY_GEMM_TILE_K; ++p) partial += a_tile[p][i] * b_tile[p][j];
                sums[e] += partial;     // this thread's own output: no race
            }
        }
        // the epilogue: every thread writes the outputs it owns
        for (int e = threadIdx.x; e < tile_elements; e += blockDim.x) {
            const long long r = row0 + e / AGCY_GEMM_TILE, c = col0 + e % AGCY_GEMM_TILE;
            if (c >= L.n) continue;
            if (r < L.m) {
                A value = alpha * sums[e];
                if (bias != nullptr)
                    value += beta * load(bias + r * L.bias_stride[0] + c * L.bias_stride[1]);
                store(out + r * L.out_stride[0] + c * L.out_stride[1], value);
            } else if (r == L.m && column_sums != nullptr) {
                store(column_sums + c * L.sums_stride, beta * sums[e]);
            }
        }
    }
}
