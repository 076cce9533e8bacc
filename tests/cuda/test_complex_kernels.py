"""The complex64 and complex128 instantiations (Complex<R> of cuda/complex.cuh) on the CPU
emulator, against NumPy in complex128: the unary functions and |z|, the arithmetic (with a
number on either side), division far from 1 (NOTE [Complex division]), comparisons and
the NaN/inf tests, where, fill, casts to and from every dtype, sum/mean/prod, the tiled
gemm with complex alpha and beta, and the scatter-add of repeated indices (NOTE
[Scatter-add of complex numbers]). Which ops have complex kernels is the manifest's word
(COMPLEX_UNARY, COMPLEX_BINARY ...)."""
import numpy as np
import pytest

from autograd_cy.cuda import manifest
from autograd_cy.cuda import reduce as R
from autograd_cy.cuda.emulator import load_kernel_file
from autograd_cy.cuda.layout import elementwise_layout

from launching import launch_elementwise as launch, signature_code
from test_gemm_kernels import run_gemm
from test_reduction_kernels import EmulatedBackend

COMPLEXES = manifest.COMPLEXES
CTYPE = manifest.STORAGE_CTYPES
TOLERANCE = {"complex64": 2e-6, "complex128": 1e-13}
SHAPE = (5, 7)
rng = np.random.default_rng(0)


@pytest.fixture(scope="module")
def module():
    return load_kernel_file("elementwise.cu")


def complex_values(dtype, shape=SHAPE, scale=2.0, seed=0):
    generator = np.random.default_rng(seed)
    return ((generator.standard_normal(shape) + 1j * generator.standard_normal(shape))
            * scale).astype(dtype)


def transposed(values):
    return np.ascontiguousarray(values.T).T


def close(got, want, dtype, scale=1.0):
    rtol = TOLERANCE[dtype] * scale
    np.testing.assert_allclose(np.asarray(got, np.complex128), np.asarray(want, np.complex128),
                               rtol=rtol, atol=rtol)


UNARY_ORACLES = {"Neg": np.negative, "Square": np.square, "Reciprocal": np.reciprocal,
                 "Exp": np.exp, "Exp2": np.exp2, "Expm1": np.expm1, "Log": np.log,
                 "Log2": np.log2, "Log10": np.log10,
                 "Log1p": np.log1p, "Sqrt": np.sqrt, "Conj": np.conjugate,
                 "Sign": lambda z: np.where(z == 0, 0, z / np.abs(z)), "Sin": np.sin,
                 "Cos": np.cos, "Tanh": np.tanh, "Sigmoid": lambda z: 1 / (1 + np.exp(-z)),
                 "Tan": np.tan, "Asin": np.arcsin, "Acos": np.arccos, "Atan": np.arctan,
                 "Sinh": np.sinh, "Cosh": np.cosh, "Asinh": np.arcsinh, "Acosh": np.arccosh,
                 "Atanh": np.arctanh}


def test_every_complex_unary_functor_has_an_oracle():
    assert set(manifest.COMPLEX_UNARY) == set(UNARY_ORACLES)


@pytest.mark.parametrize("dtype", COMPLEXES)
@pytest.mark.parametrize("functor", manifest.COMPLEX_UNARY)
def test_unary(module, functor, dtype):
    x = transposed(complex_values(dtype))
    x.flat[0] = 0            # sign and sqrt at 0
    out = np.empty(SHAPE, dtype)
    launch(module, f"unary<{CTYPE[dtype]}, {functor}>", out, (x,))
    with np.errstate(all="ignore"):
        want = UNARY_ORACLES[functor](x.astype(np.complex128))
    if functor in ("Log", "Log2", "Reciprocal"):       # at 0: -inf / inf parts
        out, want = out.reshape(-1)[1:], want.reshape(-1)[1:]
    close(out, want, dtype, scale=8)


@pytest.mark.parametrize("dtype", COMPLEXES)
@pytest.mark.parametrize("functor", ["Asin", "Acos", "Asinh", "Acosh", "Atan", "Atanh", "Sinh",
                                     "Cosh"])
def test_functions_on_the_axes(module, functor, dtype):
    """On a cut the sign of the zero part picks the side, as NumPy's (C99's) functions pick
    it: acos(3 + 0i) is -1.76i, acos(3 - 0i) +1.76i; sinh and cosh of a real infinity have
    a zero imaginary part, not inf * 0."""
    parts = [(x, zero) for x in (3.0, -3.0, 0.5, -0.5, 1.0, -1.0) for zero in (0.0, -0.0)]
    points = [complex(x, zero) for x, zero in parts] + [complex(zero, x) for x, zero in parts]
    if functor in ("Sinh", "Cosh"):         # the real axis, infinities included
        points = [complex(x, zero) for x in (np.inf, -np.inf, 2.0, -2.0, 0.0, -0.0)
                  for zero in (0.0, -0.0)]
    x = np.array(points, dtype)
    out = np.empty(x.shape, dtype)
    launch(module, f"unary<{CTYPE[dtype]}, {functor}>", out, (x,))
    with np.errstate(divide="ignore", invalid="ignore"):     # atanh(+-1) is inf
        want = UNARY_ORACLES[functor](x.astype(np.complex128))
    close(out, want, dtype)
    np.testing.assert_array_equal(np.signbit(out.imag), np.signbit(want.imag))
    np.testing.assert_array_equal(np.signbit(out.real), np.signbit(want.real))


@pytest.mark.parametrize("dtype", COMPLEXES)
def test_functions_near_zero_and_far_out(module, dtype):
    """expm1 and log1p keep their precision near 0 (no 1 + z - 1); tanh far along the real
    axis is +-1, where cosh(2a) would overflow; sqrt on the negative reals is i sqrt|a|."""
    z = np.array([1e-9 + 2e-9j, -3e-10j, 40 + 1j, -50 - 2j, -4 + 0j, -4 - 0j], dtype)
    for functor, oracle in (("Expm1", np.expm1), ("Log1p", np.log1p), ("Tanh", np.tanh),
                            ("Sqrt", np.sqrt)):
        out = np.empty(z.shape, dtype)
        launch(module, f"unary<{CTYPE[dtype]}, {functor}>", out, (z,))
        close(out, oracle(z.astype(np.complex128)), dtype, scale=8)


@pytest.mark.parametrize("dtype", COMPLEXES)
def test_exp_of_infinities_and_nans_is_c99_s(module, dtype):
    """exp where e^a cis(b) would be 0 * inf or inf * NaN: NumPy's (C99's) values, which
    complex pow reaches through exp(y log 0)."""
    inf, nan = np.inf, np.nan
    z = np.array([complex(-inf, nan), complex(-inf, inf), complex(-inf, 1), complex(inf, nan),
                  complex(inf, 0), complex(nan, 0), complex(-inf, 0), complex(inf, 1)], dtype)
    out = np.empty(z.shape, dtype)
    launch(module, f"unary<{CTYPE[dtype]}, Exp>", out, (z,))
    with np.errstate(all="ignore"):
        want = np.exp(z)
    np.testing.assert_array_equal(out, want)


@pytest.mark.parametrize("dtype", COMPLEXES)
@pytest.mark.parametrize("functor, oracle", [
    ("Asinh", np.arcsinh), ("Asin", np.arcsin), ("Atanh", np.arctanh), ("Atan", np.arctan),
    ("Tan", np.tan), ("Sinh", np.sinh), ("Acosh", np.arccosh), ("Acos", np.arccos)])
def test_inverse_functions_near_zero_and_far_out(module, functor, oracle, dtype):
    """Relative precision near 0 (no log(1 + tiny)), the inverse functions' branches on both
    sides of the real and imaginary axes, and far from the origin."""
    z = np.array([1e-9 + 2e-9j, -3e-10j, 2e-9 - 1e-9j, 0.5 + 0.25j, -0.5 - 0.25j, 3 - 2j,
                  -3 + 2j, 1e-3 + 1.0001j, 30 + 1j, -20 - 2j, 0.2j, 1.0 + 1e-4j], dtype)
    if functor == "Acosh":
        z = z[3:]           # acosh near 0 is i pi / 2: the points near it test nothing new
    out = np.empty(z.shape, dtype)
    launch(module, f"unary<{CTYPE[dtype]}, {functor}>", out, (z,))
    close(out, oracle(z.astype(np.complex128)), dtype, scale=8)


@pytest.mark.parametrize("dtype", COMPLEXES)
def test_abs_is_real_and_does_not_overflow(module, dtype):
    x = transposed(complex_values(dtype))
    x.flat[:2] = [3e30 + 4e30j, -1e-30j]      # |z|^2 overflows float: hypot does not
    real = manifest.REAL_OF_COMPLEX[dtype]
    out = np.empty(SHAPE, real)
    launch(module, f"complex_abs<{CTYPE[dtype]}>", out, (x,))
    np.testing.assert_allclose(out, np.abs(x.astype(np.complex128)), rtol=TOLERANCE[dtype])


BINARY_ORACLES = {"Add": np.add, "Sub": np.subtract, "Mul": np.multiply, "Div": np.divide,
                  "Pow": np.power}


@pytest.mark.parametrize("dtype", COMPLEXES)
@pytest.mark.parametrize("functor", manifest.COMPLEX_BINARY)
def test_binary_and_with_a_number(module, functor, dtype):
    a = transposed(complex_values(dtype, seed=1))
    b = np.broadcast_to(complex_values(dtype, (1, 7), seed=2), SHAPE)
    oracle = BINARY_ORACLES[functor]
    scale = 64 if functor == "Pow" else 4
    out = np.empty(SHAPE, dtype)
    launch(module, f"binary<{CTYPE[dtype]}, {functor}>", out, (a, b))
    close(out, oracle(a.astype(np.complex128), b.astype(np.complex128)), dtype, scale)
    s = np.dtype(dtype).type(0.5 - 1.5j)
    launch(module, f"binary_scalar<{CTYPE[dtype]}, {functor}>", out, (a,), (s,))
    close(out, oracle(a.astype(np.complex128), complex(s)), dtype, scale)
    if functor in manifest.REVERSED_SCALAR_FUNCTORS:
        launch(module, f"scalar_binary<{CTYPE[dtype]}, {functor}>", out, (a,), (s,))
        close(out, oracle(complex(s), a.astype(np.complex128)), dtype, scale)


@pytest.mark.parametrize("dtype", COMPLEXES)
def test_division_far_from_one(module, dtype):
    """Smith's method: quotients of numbers near the top and the bottom of the range,
    whose |b|^2 overflows or underflows, come out right; 0 ** b as NumPy."""
    big = 1e30 if dtype == "complex64" else 1e300
    a = np.array([big + big * 1j, 1 / big + 2j / big, 1 + 1j, 3 - 4j], dtype)
    b = np.array([big - big * 0.5j, 3j / big, big * 1j, 1e-3 + 2e-3j], dtype)
    out = np.empty(a.shape, dtype)
    launch(module, f"binary<{CTYPE[dtype]}, Div>", out, (a, b))
    close(out, a.astype(np.complex128) / b.astype(np.complex128), dtype, scale=4)
    zero = np.zeros(3, dtype)
    exponent = np.array([2 + 1j, 0, 0.5], dtype)
    launch(module, f"binary<{CTYPE[dtype]}, Pow>", out[:3], (zero, exponent))
    np.testing.assert_array_equal(out[:3], [0, 1, 0])


@pytest.mark.parametrize("dtype", COMPLEXES)
def test_comparisons_and_classification(module, dtype):
    nan, inf = np.nan, np.inf
    a = np.array([1 + 2j, 1 + 2j, complex(nan, 0), complex(0, inf), 3, complex(1, nan)], dtype)
    b = np.array([1 + 2j, 1 - 2j, complex(nan, 0), complex(0, inf), 3, 1], dtype)
    out = np.empty(a.shape, bool)
    for functor, oracle in (("Eq", np.equal), ("Ne", np.not_equal)):
        launch(module, f"compare<{CTYPE[dtype]}, {functor}>", out, (a, b))
        np.testing.assert_array_equal(out, oracle(a, b))
        launch(module, f"compare_scalar<{CTYPE[dtype]}, {functor}>", out, (a,),
               (np.dtype(dtype).type(3),))
        np.testing.assert_array_equal(out, oracle(a, 3))
    for name, oracle in (("isnan", np.isnan), ("isinf", np.isinf), ("isfinite", np.isfinite)):
        launch(module, f"{name}<{CTYPE[dtype]}>", out, (a,))
        np.testing.assert_array_equal(out, oracle(a))


@pytest.mark.parametrize("dtype", COMPLEXES)
def test_where_and_fill(module, dtype):
    cond = transposed(rng.integers(0, 2, SHAPE).astype(bool))
    a, b = transposed(complex_values(dtype, seed=3)), complex_values(dtype, seed=4)
    out = np.empty(SHAPE, dtype)
    launch(module, f"where<{CTYPE[dtype]}>", out, (cond, a, b))
    np.testing.assert_array_equal(out, np.where(cond, a, b))
    base = np.zeros((6, 8), dtype)
    value = np.dtype(dtype).type(-2.5 + 0.25j)
    launch(module, f"fill<{CTYPE[dtype]}>", base[::2, ::-3], (), (value,))
    want = np.zeros((6, 8), dtype)
    want[::2, ::-3] = value
    np.testing.assert_array_equal(base, want)


@pytest.mark.parametrize("dtype", COMPLEXES)
@pytest.mark.parametrize("other", list(manifest.STORAGE_CTYPES))
def test_casts_to_and_from_every_dtype(module, dtype, other):
    """From a real dtype: the real part. To a real dtype: the real part converted as a
    number of the complex's precision (NumPy warns of the lost imaginary part; torch too).
    To bool: true unless both parts are 0."""
    z = transposed(complex_values(dtype, seed=5) * 10)
    z.flat[:3] = [0, 1j, 0.5 + 0j]
    out = np.empty(SHAPE, other)
    launch(module, f"cast<{CTYPE[dtype]}, {CTYPE[other]}>", out, (z,))
    if other == "bool":
        want = z != 0
    else:
        real = z.real if np.dtype(other).kind in "fc" or other == "bfloat16" else z.real.astype(
            np.int64)
        want = real.astype(other) if np.dtype(other).kind != "c" else z.astype(other)
    np.testing.assert_array_equal(out.astype(np.complex128), want.astype(np.complex128))
    if other == "bool":
        source = transposed(rng.integers(0, 2, SHAPE).astype(bool))
    elif other in manifest.FLOATS or other in COMPLEXES:
        source = transposed(complex_values(other, seed=6)
                            if other in COMPLEXES else rng.standard_normal(SHAPE).astype(other))
    else:
        source = transposed(rng.integers(-100, 100, SHAPE).astype(other))
    out = np.empty(SHAPE, dtype)
    launch(module, f"cast<{CTYPE[other]}, {CTYPE[dtype]}>", out, (source,))
    np.testing.assert_array_equal(out, source.astype(np.complex128).astype(dtype))


@pytest.mark.parametrize("dtype", COMPLEXES)
@pytest.mark.parametrize("op", ["sum", "mean", "prod"])
@pytest.mark.parametrize("dims", [(1,), (0,), None])
def test_reductions(dtype, op, dims):
    x = complex_values(dtype, (6, 130), scale=1.0 if op != "prod" else 0.2, seed=7)
    if op == "prod":
        x = (1 + x).astype(dtype)       # factors near 1: a product of 130 stays finite
    got = R.reduce(EmulatedBackend(32, 4), x, dims, False, op)
    want = getattr(np, op)(x.astype(np.complex128), axis=None if dims is None else dims)
    assert got.dtype == np.dtype(dtype)
    close(got, want, dtype, scale=64)
    if op != "prod" and dtype == "complex64":      # widening: complex64 summed in complex128
        got = R.reduce(EmulatedBackend(32, 4), x, dims, False, op, out_dtype="complex128")
        assert got.dtype == np.complex128
        close(got, want, "complex128", scale=1e6)


@pytest.mark.parametrize("dtype", COMPLEXES)
def test_gemm_with_complex_scalars(dtype):
    a = complex_values(dtype, (9, 37), seed=8)
    b = np.ascontiguousarray(complex_values(dtype, (5, 37), seed=9).T.conj())
    bias = complex_values(dtype, (5,), seed=10)
    alpha, beta = 0.5 - 2j, 1 + 1j
    module = load_kernel_file("gemm.cu")
    out, sums = run_gemm(module, a, b, bias, alpha, beta, column_sums=True)
    wide = [v.astype(np.complex128) for v in (a, b, bias)]
    close(out, alpha * (wide[0] @ wide[1]) + beta * wide[2], dtype, scale=64)
    close(sums, beta * wide[1].sum(axis=0), dtype, scale=64)


@pytest.mark.parametrize("dtype", COMPLEXES)
def test_scatter_add_of_repeated_indices(dtype):
    """np.add.at with offsets naming some elements many times: every addition lands, each
    part through its own atomicAdd."""
    module = load_kernel_file("advanced_indexing.cu")
    target = np.zeros(4, dtype)
    offsets = np.array([0, 3, 3, 1, 3, 0, 2, 3] * 5, np.int64)
    values = complex_values(dtype, (offsets.size,), seed=11)
    n = offsets.size     # the iteration: target at its base (stride 0), offsets, values
    layout = elementwise_layout((n,), [(0,), (1,), (1,)])
    module.get_function(f"add_at_offsets<{CTYPE[dtype]}>")(
        (2,), (32,), (layout, np.int64(n), target, offsets, values))
    want = np.zeros(4, np.complex128)
    np.add.at(want, offsets, values.astype(np.complex128))
    close(target, want, dtype, scale=16)


def test_manifest_parameters_match_the_emulated_kernels(module):
    """The manifest's words for every complex instantiation are the parameter types the
    emulator reads off the compiled kernel ("c8", "Pc16" ...)."""
    names = [k for k in manifest.KERNELS if "Complex<" in k.name]
    assert names
    modules = {}
    for kernel in names:
        if kernel.file not in modules:
            modules[kernel.file] = load_kernel_file(kernel.file)
        function = modules[kernel.file].get_function(kernel.name)
        assert function.sig == [signature_code(p) for p in kernel.params], kernel.name


@pytest.mark.parametrize("dtype", COMPLEXES)
def test_foreach_on_complex_tensors(dtype):
    """The _foreach ops (one launch over a list: NOTE [Multi-tensor launch]) on complex
    tensors, with a complex alpha, as on the CPU."""
    import autograd_cy as ag
    parts = [complex_values(dtype, (n,), seed=n) for n in (3, 70)]
    others = [complex_values(dtype, (n,), seed=n + 1) for n in (3, 70)]
    for device in ("cpu", "cuda"):
        xs = [ag.tensor(p, device=device) for p in parts]
        ys = [ag.tensor(p, device=device) for p in others]
        results = ag._foreach_add(xs, ys, alpha=0.5 - 1j)
        for got, a, b in zip(results, parts, others):
            close(got.cpu().numpy(), a.astype(np.complex128) + (0.5 - 1j) * b, dtype, scale=4)
