"""The tiled GEMM (cuda/gemm.cu) on the CPU emulator, against NumPy in float64: sizes off
the tile edges (m, n, k not multiples of 32 or 16, k = 0), transposed and sliced operands
(strided, no copy), a broadcast bias scaled by beta, the column-sums epilogue scaled by
beta, float16/32/64, and any launch configuration."""
import numpy as np
import pytest

from autograd_cy.cuda.emulator import load_kernel_file
from autograd_cy.cuda.layout import GEMM_LAYOUT_DTYPE
from autograd_cy.cuda.manifest import FLOAT_CTYPES, STORAGE_CTYPES, lookup

from launching import element_strides, signature_code

RTOL = {"float16": 2e-3, "bfloat16": 1.6e-2, "float32": 1e-5, "float64": 1e-12}


@pytest.fixture(scope="module")
def module():
    return load_kernel_file("gemm.cu")


def run_gemm(module, a, b, bias=None, alpha=1.0, beta=1.0, column_sums=False,
             grid=2, block=32):
    """The kernel's out and sums for NumPy operands of any strides."""
    dtype = a.dtype
    m, k = a.shape
    n = b.shape[1]
    out = np.full((m, n), np.nan, dtype)
    sums = np.full(n, np.nan, dtype) if column_sums else None
    layout = np.zeros((), GEMM_LAYOUT_DTYPE)
    layout["m"], layout["n"], layout["k"] = m, n, k
    layout["a_stride"], layout["b_stride"] = element_strides(a), element_strides(b)
    layout["out_stride"], layout["sums_stride"] = element_strides(out), 1
    if bias is not None:
        view = np.broadcast_to(bias, (m, n))
        layout["bias_stride"] = element_strides(view)
    scalar = np.float32 if dtype.itemsize == 2 else dtype.type   # the half types: float
    name = f"gemm<{STORAGE_CTYPES[dtype.name]}>"
    module.get_function(name)((grid,), (block,),
                              (out, sums, a, b, bias, layout[()], scalar(alpha), scalar(beta)))
    return out, sums


def close(got, want, dtype, k):
    tolerance = RTOL[dtype] * max(k, 1) ** 0.5
    np.testing.assert_allclose(got.astype(np.float64), want, rtol=tolerance,
                               atol=tolerance * (1 + np.abs(want).max(initial=0)))


def test_manifest_matches_the_kernel_signature(module):
    for dt, ctype in FLOAT_CTYPES.items():
        entry = lookup(f"gemm<{ctype}>")
        assert module.get_function(entry.name).sig == [signature_code(p) for p in entry.params]


@pytest.mark.parametrize("dtype", list(FLOAT_CTYPES))
@pytest.mark.parametrize("m,k,n", [(5, 7, 3), (33, 17, 34), (1, 40, 1), (4, 0, 6)])
def test_product_with_broadcast_bias(module, dtype, m, k, n):
    rng = np.random.default_rng(m * 100 + k * 10 + n)
    a = rng.standard_normal((m, k)).astype(dtype)
    b = rng.standard_normal((k, n)).astype(dtype)
    bias = rng.standard_normal(n).astype(dtype)
    out, sums = run_gemm(module, a, b, bias, alpha=0.5, beta=-2.0)
    want = 0.5 * (a.astype(np.float64) @ b.astype(np.float64)) - 2.0 * bias.astype(np.float64)
    close(out, want, dtype, k)
    assert sums is None


@pytest.mark.parametrize("dtype", list(FLOAT_CTYPES))
def test_transposed_and_sliced_operands_with_column_sums(module, dtype):
    # mat1^T @ grad as addmm's backward reads it: a transposed view and a strided slice
    rng = np.random.default_rng(1)
    mat1 = rng.standard_normal((37, 35)).astype(dtype)      # (batch, in): A = mat1.T
    grad = rng.standard_normal((37, 2 * 19)).astype(dtype)[:, ::2]
    out, sums = run_gemm(module, mat1.T, grad, alpha=3.0, beta=0.25, column_sums=True)
    grad64 = grad.astype(np.float64)
    close(out, 3.0 * (mat1.astype(np.float64).T @ grad64), dtype, 37)
    close(sums, 0.25 * grad64.sum(0), dtype, 37)


@pytest.mark.parametrize("grid,block", [(1, 1), (1, 7), (3, 32), (64, 256)])
def test_any_launch_configuration(module, grid, block):
    rng = np.random.default_rng(2)
    a = rng.standard_normal((34, 18))
    b = rng.standard_normal((18, 33))
    bias = rng.standard_normal((34, 1))                    # broadcast along the columns
    out, sums = run_gemm(module, a, b, bias, column_sums=True, grid=grid, block=block)
    close(out, a @ b + bias, "float64", 18)
    close(sums, b.sum(0), "float64", 18)


def test_beta_zero_passes_no_bias(module):
    # the host passes a null bias for beta == 0: NaN in the bias must not reach the result
    rng = np.random.default_rng(3)
    a, b = rng.standard_normal((3, 4)), rng.standard_normal((4, 5))
    out, _ = run_gemm(module, a, b, None, alpha=2.0, beta=0.0)
    close(out, 2.0 * (a @ b), "float64", 4)
