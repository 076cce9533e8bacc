"""bfloat16 on the CPU emulator: the rounding of every conversion to it, bit for bit against
ml_dtypes (the CPU's bfloat16) and torch, and the float accumulation of its sums and
matrix products (one rounding at the end, NOTE [Rounding to bfloat16] in cuda/common.cuh).
The other bfloat16 kernels run in each family's own tests (their dtypes come from the
manifest)."""
import ml_dtypes
import numpy as np
import pytest
import torch

from autograd_cy.cuda import reduce as R
from autograd_cy.cuda.emulator import load_kernel_file

from launching import launch_elementwise as launch
from test_gemm_kernels import run_gemm
from test_reduction_kernels import EmulatedBackend

BF16 = np.dtype(ml_dtypes.bfloat16)


@pytest.fixture(scope="module")
def module():
    return load_kernel_file("elementwise.cu")


def float_bits(words):
    return np.asarray(words, np.uint32).view(np.float32)


def edge_floats():
    """Float32 values at every rounding edge of bfloat16: halfway between two neighbours
    with an even and an odd low bit (ties go to the even one), one bit either side of a
    tie, the largest finite floats (rounding up to inf), subnormals, zeros, infinities."""
    words = []
    for high in (0x3F80, 0x3F81, 0xBF80, 0xBF81, 0x0000, 0x0001, 0x7F7F, 0xFF7F, 0x0080):
        for low in (0x0000, 0x7FFF, 0x8000, 0x8001, 0xFFFF):
            words.append((high << 16) | low)
    words += [0x7F800000, 0xFF800000, 0x80000000, 0x00000001, 0x807FFFFF]
    return float_bits(words)


def test_float_to_bfloat16_rounds_to_nearest_even_as_ml_dtypes(module):
    """Every edge case and 20,000 random bit patterns (NaNs among them): the same 16 bits as
    ml_dtypes, NaN for NaN."""
    words = np.random.default_rng(0).integers(0, 2 ** 32, 20000, dtype=np.uint64)
    x = np.concatenate([edge_floats(), float_bits(words.astype(np.uint32))])
    out = np.empty(x.shape, BF16)
    launch(module, "cast<float, __nv_bfloat16>", out, (x,))
    with np.errstate(invalid="ignore"):     # NumPy warns of the NaNs it converts
        want = x.astype(BF16)
    nan = np.isnan(x)
    np.testing.assert_array_equal(np.isnan(out.astype(np.float32)), nan)
    np.testing.assert_array_equal(out.view(np.uint16)[~nan], want.view(np.uint16)[~nan])


def test_ties_go_to_even(module):
    # 1 + 2^-8 lies halfway between 1 and 1 + 2^-7: down to 1 (even); 1 + 3 * 2^-8 lies
    # halfway between 1 + 2^-7 and 1 + 2^-6: up to 1 + 2^-6 (even)
    largest = np.finfo(np.float32).max     # past bfloat16's largest and its halfway point: inf
    x = np.array([1 + 2 ** -8, 1 + 3 * 2 ** -8, -(1 + 2 ** -8), largest], np.float32)
    out = np.empty(x.shape, BF16)
    launch(module, "cast<float, __nv_bfloat16>", out, (x,))
    np.testing.assert_array_equal(out.astype(np.float64), [1.0, 1 + 2 ** -6, -1.0, np.inf])


def test_double_and_integers_to_bfloat16_as_torch(module):
    """A double rounds through float (torch's BFloat16(float)); integers convert exactly
    when they fit 8 bits of mantissa, else round to nearest even."""
    rng = np.random.default_rng(1)
    doubles = rng.standard_normal(500) * 10.0 ** rng.integers(-30, 30, 500)
    integers = np.concatenate([np.arange(-300, 300), rng.integers(-2 ** 40, 2 ** 40, 200)])
    for x, name in ((doubles, "double"), (integers.astype(np.int64), "long long")):
        out = np.empty(x.shape, BF16)
        launch(module, f"cast<{name}, __nv_bfloat16>", out, (x,))
        want = torch.from_numpy(x).to(torch.bfloat16).float().numpy()
        np.testing.assert_array_equal(out.astype(np.float32), want)


def test_bfloat16_to_float_is_exact(module):
    with np.errstate(invalid="ignore"):
        x = float_bits(np.arange(0, 2 ** 16, 7, dtype=np.uint32) << 16).astype(BF16)
    out = np.empty(x.shape, np.float32)
    launch(module, "cast<__nv_bfloat16, float>", out, (x,))
    finite = np.isfinite(out)
    np.testing.assert_array_equal(out[finite], x.astype(np.float32)[finite])
    np.testing.assert_array_equal(np.isnan(out), np.isnan(x.astype(np.float32)))


def ulps_apart(got, want):
    """|got - want| in units of bfloat16's last place at want."""
    want = np.asarray(want, np.float64)
    spacing = 2.0 ** (np.floor(np.log2(np.abs(want))) - 7)
    return np.abs(np.asarray(got, np.float64) - want) / spacing


@pytest.mark.parametrize("dims", [(1,), (0,), None])
def test_sums_accumulate_in_float_and_round_once(dims):
    """A sum of 20,000 bfloat16 values: within one unit in the last place of the exact
    sum, where adding in bfloat16 (rounding after every term) drifts by many."""
    x = np.random.default_rng(2).standard_normal((40, 500)).astype(BF16)
    got = R.reduce(EmulatedBackend(32, 4), x, dims, False, "sum")
    assert got.dtype == BF16
    exact = x.astype(np.float64).sum(axis=None if dims is None else dims)
    assert ulps_apart(got, exact).max() <= 1
    if dims is None:
        drifting = np.zeros((), BF16)
        for value in x.reshape(-1)[:5000]:
            drifting = (drifting + value).astype(BF16)
        exact = x.reshape(-1)[:5000].astype(np.float64).sum()
        assert ulps_apart(drifting, exact) > 4     # what float accumulation avoids


def test_matrix_product_accumulates_in_float():
    """gemm<__nv_bfloat16> over k = 300: float products and sums, one rounding; equal to
    float32's product rounded to bfloat16 up to one unit in the last place."""
    rng = np.random.default_rng(3)
    a = rng.standard_normal((9, 300)).astype(BF16)
    b = rng.standard_normal((300, 7)).astype(BF16)
    out, _ = run_gemm(load_kernel_file("gemm.cu"), a, b)
    exact = a.astype(np.float64) @ b.astype(np.float64)
    assert ulps_apart(out, exact).max() <= 1
