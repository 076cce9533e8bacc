"""The kernels of cuda/elementwise.cu on the CPU emulator, against PyTorch or NumPy computed
in float64 (then rounded to the kernel's dtype).

Every manifest entry of the file runs once on a small strided case (a transposed input, a
broadcast one); representative kernels run over the sizes, layouts (transposed, flipped,
broadcast, in place), launch configurations and block orders a GPU may give them.
"""
import numpy as np
import pytest
import torch
import torch.nn.functional as F

from autograd_cy._C.ops.op_table import unary_ops
from autograd_cy.cuda import manifest
from autograd_cy.cuda.emulator import load_kernel_file
from launching import launch_elementwise as launch, signature_code

FILE = "elementwise.cu"
FLOATS = manifest.FLOATS
CTYPE = manifest.STORAGE_CTYPES
# relative, absolute tolerance per dtype: the kernel rounds its float (or double) result,
# the oracle its float64 one, so they may differ by a unit in the last place
TOLERANCE = {"float16": (2e-3, 1e-3), "bfloat16": (1.6e-2, 1e-3), "float32": (1e-5, 1e-6),
             "float64": (1e-12, 1e-14)}
SHAPE = (5, 7)   # 35 elements: more than one 32-thread block, not a multiple of 4


@pytest.fixture(scope="module")
def module():
    return load_kernel_file(FILE)


# ------------------------------------------------------------------ helpers



def transposed(values, dtype):
    """``values`` (of SHAPE) as a transposed view: the kernel walks it with strides (1, 5)."""
    return np.ascontiguousarray(np.asarray(values).astype(dtype).T).T


def broadcast_row(values, dtype):
    """A (1, 7) row of ``values`` broadcast to SHAPE: stride 0 along dim 0."""
    return np.broadcast_to(np.asarray(values).astype(dtype)[:1], SHAPE)


def assert_matches(got, want, dtype):
    rtol, atol = TOLERANCE.get(dtype, (0, 0))
    np.testing.assert_allclose(np.asarray(got, np.float64), np.asarray(want, np.float64),
                               rtol=rtol, atol=atol, equal_nan=True)


def torch_oracle(op, dtype, *arrays, **kwargs):
    """``op`` on float64 copies of the arrays (integers: in their own dtype), rounded to
    ``dtype``."""
    compute = np.float64 if dtype in FLOATS else dtype
    tensors = [torch.from_numpy(np.array(a, compute)) for a in arrays]
    return op(*tensors, **kwargs).numpy().astype(dtype)


rng = np.random.default_rng(0)


def uniform(low, high, shape=SHAPE):
    return rng.uniform(low, high, shape)


def away_from_zero(low, high, shape=SHAPE):
    return rng.uniform(low, high, shape) * rng.choice([-1, 1], shape)


def integers(low, high, shape=SHAPE, nonzero=False):
    values = rng.integers(low, high, shape)
    if nonzero:
        values[values == 0] = 1
    return values


# ------------------------------------------------------------------ manifest and names

def test_manifest_entries_resolve_with_their_parameter_types(module):
    """Every entry builds, is found by its name expression, and its manifest parameter list
    is the C++ signature (Layout by value, exact scalar types, pointee types)."""
    entries = [k for k in manifest.KERNELS if k.file == FILE]
    assert len(entries) == len({k.name for k in entries})
    for entry in entries:
        kernel = module.get_function(entry.name)
        assert kernel.sig == [signature_code(p) for p in entry.params], entry.name


def test_tables_name_the_ufuncs_they_map():
    """The keys of the functor tables are NumPy ufunc names (where NumPy has the op)."""
    for table in (manifest.UNARY_FUNCTORS, manifest.BINARY_FUNCTORS,
                  manifest.COMPARE_FUNCTORS, manifest.LOGICAL_FUNCTORS):
        for key in table:
            ufunc = getattr(np, key, None)
            if ufunc is not None:
                assert isinstance(ufunc, np.ufunc) and ufunc.__name__ == key


# ------------------------------------------------------------------ unary

UNARY_ORACLES = {
    "Neg": torch.neg, "Square": torch.square, "Floor": torch.floor, "Ceil": torch.ceil,
    "Trunc": torch.trunc, "Gelu": F.gelu, "GeluTanh": lambda x: F.gelu(x, approximate="tanh"),
    "Silu": F.silu, "BitNot": torch.bitwise_not,
    # an entry of the op table: torch's op of the same name
    **{op.cuda_functor: getattr(torch, op.name) for op in unary_ops() if op.cuda_functor},
}
UNARY_DOMAINS = {
    "Log": lambda: uniform(0.05, 8), "Sqrt": lambda: uniform(0, 8),
    "Rsqrt": lambda: uniform(0.05, 8), "Log1p": lambda: uniform(-0.9, 8),
    "Reciprocal": lambda: away_from_zero(0.1, 8), "Exp": lambda: uniform(-6, 6),
}


def unary_input(functor, dtype):
    if dtype not in FLOATS:
        return integers(-50, 50)
    values = UNARY_DOMAINS.get(functor, lambda: uniform(-6, 6))()
    if functor in ("Sign", "Relu", "Abs", "Floor", "Ceil", "Trunc"):
        values.flat[:4] = [0.0, -0.0, 2.0, -3.0]   # zeros and integers: the edges
    return values.astype(dtype)


# the real dtypes here; the complex instantiations in test_complex_kernels.py
UNARY_CASES = [(f, dt) for f, dts in manifest.UNARY_DTYPES.items() for dt in dts
               if dt not in manifest.COMPLEXES]


def test_unary_functors_cover_the_table():
    # Conj has complex instantiations only (test_complex_kernels.py)
    assert set(UNARY_ORACLES) | {"Conj"} == set(manifest.UNARY_FUNCTORS.values())


@pytest.mark.parametrize("functor,dtype", UNARY_CASES)
def test_unary(module, functor, dtype):
    x = transposed(unary_input(functor, dtype), dtype)
    out = np.empty(SHAPE, dtype)
    launch(module, f"unary<{CTYPE[dtype]}, {functor}>", out, (x,))
    assert_matches(out, torch_oracle(UNARY_ORACLES[functor], dtype, x), dtype)


@pytest.mark.parametrize("functor,dtype", UNARY_CASES)
def test_unary_in_place_on_a_transposed_view(module, functor, dtype):
    x = transposed(unary_input(functor, dtype), dtype)
    want = torch_oracle(UNARY_ORACLES[functor], dtype, x)
    launch(module, f"unary<{CTYPE[dtype]}, {functor}>", x, (x,))
    assert_matches(x, want, dtype)


# ------------------------------------------------------------------ binary

BINARY_ORACLES = {
    "Add": torch.add, "Sub": torch.sub, "Mul": torch.mul, "Div": torch.div, "Pow": torch.pow,
    "Atan2": torch.atan2, "Hypot": torch.hypot, "Maximum": torch.maximum, "Minimum": torch.minimum,
    "FloorDivide": torch.floor_divide, "Remainder": torch.remainder, "Fmod": torch.fmod,
    "BitAnd": torch.bitwise_and, "BitOr": torch.bitwise_or, "BitXor": torch.bitwise_xor,
}
# Quotients of quarters by these divisors are never within rounding of an integer, so the
# floor of the float32 quotient is the floor of the float64 one.
DIVISORS = [-3.75, -2, -1.5, -0.5, 0.5, 1, 1.5, 2, 3.75]


def binary_inputs(functor, dtype, shape=SHAPE):
    if dtype not in FLOATS and functor == "Pow":
        return integers(-6, 6, shape), integers(0, 9, shape)   # torch refuses x ** -n
    if dtype not in FLOATS:
        nonzero = functor in ("FloorDivide", "Remainder", "Fmod")
        return integers(-50, 50, shape), integers(-9, 9, shape, nonzero=nonzero)
    if functor == "Pow":
        return uniform(0.2, 3, shape), uniform(-2.5, 2.5, shape)
    if functor == "Div":
        return uniform(-6, 6, shape), away_from_zero(0.2, 6, shape)
    if functor in ("FloorDivide", "Remainder", "Fmod"):
        return integers(-80, 80, shape) * 0.25, rng.choice(DIVISORS, shape)
    a, b = uniform(-6, 6, shape), uniform(-6, 6, shape)
    if functor in ("Maximum", "Minimum"):
        b.flat[:5] = a.flat[:5]   # ties
    return a, b


BINARY_CASES = [(f, dt) for f, dts in manifest.BINARY_DTYPES.items() for dt in dts
                if dt not in manifest.COMPLEXES]
REVERSED_CASES = [(f, dt) for f, dt in BINARY_CASES if f in manifest.REVERSED_SCALAR_FUNCTORS]


def test_binary_functors_cover_the_table():
    assert set(BINARY_ORACLES) == set(manifest.BINARY_FUNCTORS.values())


@pytest.mark.parametrize("functor,dtype", BINARY_CASES)
def test_binary(module, functor, dtype):
    a_values, b_values = binary_inputs(functor, dtype)
    a = transposed(a_values, dtype)
    b = broadcast_row(b_values, dtype)
    out = np.empty(SHAPE, dtype)
    launch(module, f"binary<{CTYPE[dtype]}, {functor}>", out, (a, b))
    assert_matches(out, torch_oracle(BINARY_ORACLES[functor], dtype, a, b), dtype)


@pytest.mark.parametrize("functor,dtype", BINARY_CASES)
def test_binary_in_place_on_both_operands(module, functor, dtype):
    """out is a (a += b), then out is b (b = a op b): each reads before it writes."""
    name = f"binary<{CTYPE[dtype]}, {functor}>"
    a_values, b_values = binary_inputs(functor, dtype)
    a, b = transposed(a_values, dtype), transposed(b_values, dtype)
    want = torch_oracle(BINARY_ORACLES[functor], dtype, a, b)
    a_copy = a.copy()
    launch(module, name, a, (a, b))
    assert_matches(a, want, dtype)
    launch(module, name, b, (a_copy, b))
    assert_matches(b, want, dtype)


def scalar_of(values, dtype):
    """A number for a scalar parameter: one of the values, as the parameter's exact type."""
    return np.dtype(manifest.scalar_param(dtype)).type(values.flat[0])


@pytest.mark.parametrize("functor,dtype", BINARY_CASES)
def test_binary_scalar(module, functor, dtype):
    a_values, b_values = binary_inputs(functor, dtype)
    a = transposed(a_values, dtype)
    s = scalar_of(b_values, dtype)
    out = np.empty(SHAPE, dtype)
    launch(module, f"binary_scalar<{CTYPE[dtype]}, {functor}>", out, (a,), (s,))
    want = torch_oracle(BINARY_ORACLES[functor], dtype, a, np.full(SHAPE, s))
    assert_matches(out, want, dtype)
    launch(module, f"binary_scalar<{CTYPE[dtype]}, {functor}>", a, (a,), (s,))   # in place
    assert_matches(a, want, dtype)


@pytest.mark.parametrize("functor,dtype", REVERSED_CASES)
def test_scalar_binary(module, functor, dtype):
    a_values, b_values = binary_inputs(functor, dtype)
    s = scalar_of(a_values, dtype)
    b = transposed(b_values, dtype)
    out = np.empty(SHAPE, dtype)
    launch(module, f"scalar_binary<{CTYPE[dtype]}, {functor}>", out, (b,), (s,))
    want = torch_oracle(BINARY_ORACLES[functor], dtype, np.full(SHAPE, s), b)
    assert_matches(out, want, dtype)
    launch(module, f"scalar_binary<{CTYPE[dtype]}, {functor}>", b, (b,), (s,))   # in place
    assert_matches(b, want, dtype)


SPECIAL = [-np.inf, -7.5, -2.0, -1.0, -0.0, 0.0, 0.75, 1.0, 3.0, np.inf, np.nan]


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("functor", ["Maximum", "Minimum", "FloorDivide", "Remainder", "Fmod"])
def test_binary_special_values_as_torch(module, functor, dtype):
    """Every pair of infinities, signed zeros, NaN and ordinary values: NaN propagation of
    maximum/minimum, the IEEE results of a zero divisor, the signed zeros of floor division
    and remainder."""
    a, b = (g.astype(dtype) for g in np.meshgrid(SPECIAL, SPECIAL, indexing="ij"))
    out = np.empty(a.shape, dtype)
    launch(module, f"binary<{CTYPE[dtype]}, {functor}>", out, (a, b), grid=4, block=32)
    want = torch_oracle(BINARY_ORACLES[functor], dtype, a, b)
    assert_matches(out, want, dtype)
    if functor in ("FloorDivide", "Remainder", "Fmod"):
        # (maximum/minimum of +0 and -0: PyTorch's own loops differ on which zero, so
        # only the floor division's signed zeros are compared)
        numbers = ~np.isnan(want)
        np.testing.assert_array_equal(np.signbit(out[numbers]), np.signbit(want[numbers]))


@pytest.mark.parametrize("dtype", manifest.SIGNED_INTEGERS)
@pytest.mark.parametrize("functor", ["FloorDivide", "Remainder", "Fmod"])
def test_integer_floor_semantics_as_torch(module, functor, dtype):
    """Every sign combination, exact and inexact quotients, and MIN // -1 (which wraps)."""
    info = np.iinfo(dtype)
    values = [info.min, info.min + 1, -7, -6, -1, 0, 1, 5, 6, 7, info.max]
    divisors = [info.min, -7, -3, -2, -1, 1, 2, 3, 7, info.max]
    a, b = (g.astype(dtype) for g in np.meshgrid(values, divisors, indexing="ij"))
    out = np.empty(a.shape, dtype)
    launch(module, f"binary<{CTYPE[dtype]}, {functor}>", out, (a, b), grid=4, block=32)
    np.testing.assert_array_equal(out, torch_oracle(BINARY_ORACLES[functor], dtype, a, b))


@pytest.mark.parametrize("dtype", manifest.SIGNED_INTEGERS)
@pytest.mark.parametrize("functor", ["FloorDivide", "Remainder", "Fmod"])
def test_integer_zero_divisor_gives_zero(module, functor, dtype):
    """NOTE [Integer division]: PyTorch's CPU raises, a GPU's value is unspecified; the
    kernels guard and give 0 (as PyTorch's CUDA kernels now do) instead of trapping."""
    a = np.array([-5, 0, 7], dtype)
    b = np.zeros(3, dtype)
    out = np.full(3, 99, dtype)
    launch(module, f"binary<{CTYPE[dtype]}, {functor}>", out, (a, b))
    np.testing.assert_array_equal(out, np.zeros(3, dtype))
    out[:] = 99
    launch(module, f"binary_scalar<{CTYPE[dtype]}, {functor}>", out, (a,),
           (np.dtype(dtype).type(0),))
    np.testing.assert_array_equal(out, np.zeros(3, dtype))


# ------------------------------------------------------------- comparisons, logical, classification

COMPARE_ORACLES = {"Eq": np.equal, "Ne": np.not_equal, "Lt": np.less, "Le": np.less_equal,
                   "Gt": np.greater, "Ge": np.greater_equal}
COMPARE_CASES = [(f, dt) for f, dts in manifest.COMPARE_DTYPES.items() for dt in dts]


def compare_inputs(dtype):
    """Small integers (so that ties occur), a NaN among the floats."""
    if dtype == "bool":
        return rng.integers(0, 2, SHAPE).astype(bool), rng.integers(0, 2, SHAPE).astype(bool)
    a, b = integers(-3, 3).astype(dtype), integers(-3, 3).astype(dtype)
    if dtype in FLOATS:
        a.flat[0] = b.flat[1] = a.flat[2] = b.flat[2] = np.nan
    return a, b


@pytest.mark.parametrize("functor,dtype", COMPARE_CASES)
def test_compare(module, functor, dtype):
    a_values, b_values = compare_inputs(dtype)
    a, b = transposed(a_values, dtype), broadcast_row(b_values, dtype)
    out = np.empty(SHAPE, bool)
    launch(module, f"compare<{CTYPE[dtype]}, {functor}>", out, (a, b))
    np.testing.assert_array_equal(out, COMPARE_ORACLES[functor](a, b))


@pytest.mark.parametrize("functor,dtype", COMPARE_CASES)
def test_compare_scalar(module, functor, dtype):
    a_values, b_values = compare_inputs(dtype)
    a = transposed(a_values, dtype)
    for s in (b_values.flat[0], b_values.flat[1]):   # an ordinary value, and NaN for floats
        s = np.dtype(manifest.scalar_param(dtype)).type(s)
        out = np.empty(SHAPE, bool)
        launch(module, f"compare_scalar<{CTYPE[dtype]}, {functor}>", out, (a,), (s,))
        np.testing.assert_array_equal(out, COMPARE_ORACLES[functor](a, s))


@pytest.mark.parametrize("ufunc,functor", manifest.LOGICAL_FUNCTORS.items())
def test_logical(module, ufunc, functor):
    a_values, b_values = compare_inputs("bool")
    a, b = transposed(a_values, bool), broadcast_row(b_values, bool)
    out = np.empty(SHAPE, bool)
    launch(module, f"logical<{functor}>", out, (a, b))
    np.testing.assert_array_equal(out, getattr(np, ufunc)(a, b))


def test_logical_not_in_place(module):
    x = transposed(compare_inputs("bool")[0], bool)
    want = np.logical_not(x)
    launch(module, "logical_not", x, (x,))
    np.testing.assert_array_equal(x, want)


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("name", manifest.CLASSIFY_KERNELS)
def test_classification(module, name, dtype):
    x = np.array(SPECIAL + [65504.0, -1e-3], dtype)[::-1]
    out = np.empty(x.shape, bool)
    launch(module, f"{name}<{CTYPE[dtype]}>", out, (x,))
    np.testing.assert_array_equal(out, getattr(np, name)(x))


# ------------------------------------------------------------------ clamp, where, fill

CLAMP_BOUNDS = [(-1.5, 2.0, 1, 1), (-1.5, 0.0, 1, 0), (0.0, 2.0, 0, 1), (2.0, -1.5, 1, 1),
                (np.nan, 2.0, 1, 1), (-1.5, np.nan, 1, 1)]
CLAMP_CASES = [(dt,) + bounds for dt in manifest.CLAMP_DTYPES for bounds in CLAMP_BOUNDS
               if dt in FLOATS or not np.isnan(bounds[:2]).any()]   # integers have no NaN


@pytest.mark.parametrize("dtype,lo,hi,has_lo,has_hi", CLAMP_CASES)
def test_clamp_scalar_as_torch(module, dtype, lo, hi, has_lo, has_hi):
    """NaN in x or in a bound gives NaN; lo > hi gives hi."""
    floating = dtype in FLOATS
    values = uniform(-4, 4) if floating else integers(-4, 4)
    if floating:
        values.flat[:3] = [np.nan, np.inf, -np.inf]
    x = transposed(values, dtype)
    scalar = np.dtype(manifest.scalar_param(dtype)).type
    out = np.empty(SHAPE, dtype)
    launch(module, f"clamp_scalar<{CTYPE[dtype]}>", out, (x,),
           (scalar(lo), scalar(hi), np.int32(has_lo), np.int32(has_hi)))
    want = torch_oracle(lambda t: torch.clamp(t, min=lo if has_lo else None,
                                              max=hi if has_hi else None), dtype, x)
    assert_matches(out, want, dtype)


@pytest.mark.parametrize("dtype", manifest.WHERE_DTYPES)
def test_where(module, dtype):
    cond = transposed(rng.integers(0, 2, SHAPE).astype(bool), bool)
    a = (transposed(uniform(-5, 5), dtype) if dtype != "bool"
         else transposed(rng.integers(0, 2, SHAPE), bool))
    b = broadcast_row(integers(0, 2) * 3, dtype)
    out = np.empty(SHAPE, dtype)
    launch(module, f"where<{CTYPE[dtype]}>", out, (cond, a, b))
    np.testing.assert_array_equal(out, np.where(cond, a, b))


@pytest.mark.parametrize("dtype", manifest.STORAGE_CTYPES)
def test_fill_a_strided_view(module, dtype):
    value = {"bool": np.bool_(True), "float16": np.float32(-2.5), "bfloat16": np.float32(-2.5),
             "uint8": np.uint8(200)}.get(dtype) or np.dtype(dtype).type(-3)
    base = np.zeros((6, 8), dtype)
    view = base[::2, ::-3]   # every other row, every third column backwards
    launch(module, f"fill<{CTYPE[dtype]}>", view, (), (value,))
    want = np.zeros((6, 8), dtype)
    want[::2, ::-3] = value
    np.testing.assert_array_equal(base, want)


# ------------------------------------------------------------------ cast and copy

TORCH_DTYPES = {"float16": torch.float16, "bfloat16": torch.bfloat16, "float32": torch.float32,
                "float64": torch.float64, "int64": torch.int64, "int32": torch.int32,
                "int16": torch.int16, "int8": torch.int8, "uint8": torch.uint8,
                "bool": torch.bool}


def torch_cast(x, dst):
    """``x`` converted by torch's ``.to``, back in NumPy. torch.from_numpy takes no
    bfloat16 (an ml_dtypes dtype): it crosses as float32, exactly both ways."""
    x = np.ascontiguousarray(x)
    tensor = (torch.from_numpy(x.astype(np.float32)).to(torch.bfloat16)
              if x.dtype.name == "bfloat16" else torch.from_numpy(x))
    result = tensor.to(TORCH_DTYPES[dst])
    if dst == "bfloat16":
        return result.float().numpy().astype(dst)
    return result.numpy()


def cast_source(dtype):
    """Values of ``dtype`` whose conversion PyTorch defines for every destination: floats
    within int8's range (negative ones wrap to uint8 through int64, NOTE [Conversions]),
    integers that wrap when narrowed, zeros for bool, a NaN where the destination is float
    or bool."""
    if dtype == "bool":
        return rng.integers(0, 2, SHAPE).astype(bool)
    if dtype in FLOATS:
        values = np.round(uniform(-120, 120) * 4) / 4
        values.flat[:3] = [0.0, -0.0, 0.75]
        return values.astype(dtype)
    info = np.iinfo(dtype)
    values = integers(max(info.min, -300), min(info.max, 300))
    values.flat[:3] = [0, info.min, info.max]
    return values.astype(dtype)


# (the casts to and from the complex dtypes: test_complex_kernels.py)
REAL_STORAGE = [dt for dt in manifest.STORAGE_CTYPES if dt not in manifest.COMPLEXES]


@pytest.mark.parametrize("src", REAL_STORAGE)
@pytest.mark.parametrize("dst", REAL_STORAGE)
def test_cast_as_torch(module, src, dst):
    x = transposed(cast_source(src), src)
    out = np.empty(SHAPE, dst)
    launch(module, f"cast<{CTYPE[src]}, {CTYPE[dst]}>", out, (x,))
    np.testing.assert_array_equal(out, torch_cast(x, dst))


@pytest.mark.parametrize("dtype", FLOATS)
def test_cast_of_nan_and_inf_between_floats_and_to_bool(module, dtype):
    x = np.array(SPECIAL, dtype)
    for dst in FLOATS + ("bool",):
        out = np.empty(x.shape, dst)
        launch(module, f"cast<{CTYPE[dtype]}, {CTYPE[dst]}>", out, (x,))
        want = torch_cast(x, dst)
        if dst == "bool":
            np.testing.assert_array_equal(out, want)
        else:   # as float64: NumPy's testing sees no NaN in a bfloat16 array
            out, want = out.astype(np.float64), want.astype(np.float64)
            np.testing.assert_array_equal(out, want)
            # a NaN's sign is no one's promise (torch's float32 to bfloat16 sets it, ml_dtypes'
            # clears it): the signs of the numbers
            numbers = ~np.isnan(want)
            np.testing.assert_array_equal(np.signbit(out[numbers]), np.signbit(want[numbers]))


def test_same_type_cast_copies_bits(module):
    """The strided copy keeps every bit (NaN payloads, -0.0) and writes into a view."""
    bits = np.array([0x7E01, 0xFE00, 0x8000, 0x3C00, 0x7C00, 0x0001], np.uint16)
    x = bits.view(np.float16)[::-1]
    base = np.zeros(12, np.float16)
    out = base[::2]
    launch(module, "cast<__half, __half>", out, (x,))
    np.testing.assert_array_equal(out.view(np.uint16), x.view(np.uint16))
    np.testing.assert_array_equal(base[1::2].view(np.uint16), np.zeros(6, np.uint16))


# ------------------------------------------------------------------ layouts, sizes, launches

def layout_views(kind, values, dtype):
    """``values`` (a 2-D array) presented to the kernel in one of the layouts a view has."""
    values = np.asarray(values).astype(dtype)
    if kind == "contiguous":
        return values
    if kind == "transposed":
        return np.ascontiguousarray(values.T).T
    if kind == "flipped":
        return np.ascontiguousarray(values[::-1, ::-1])[::-1, ::-1]
    if kind == "broadcast":
        return np.broadcast_to(values[:1], values.shape)
    raise ValueError(kind)


SIZES = [(0, 3), (1, 1), (1, 31), (3, 11), (33, 1)]   # 0, 1, 31, 33 elements and more
KINDS = ["contiguous", "transposed", "flipped", "broadcast"]


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shape", SIZES)
@pytest.mark.parametrize("kind", KINDS)
def test_unary_and_binary_over_layouts_and_sizes(module, dtype, shape, kind):
    x = layout_views(kind, uniform(-3, 3, shape), dtype)
    y = layout_views("flipped", uniform(-3, 3, shape), dtype)
    out = np.empty(shape, dtype)
    launch(module, f"unary<{CTYPE[dtype]}, Exp>", out, (x,))
    assert_matches(out, torch_oracle(torch.exp, dtype, x), dtype)
    flipped_out = np.empty(shape, dtype)[::-1]
    launch(module, f"binary<{CTYPE[dtype]}, Mul>", flipped_out, (x, y))
    assert_matches(flipped_out, torch_oracle(torch.mul, dtype, x, y), dtype)


def test_a_three_dim_launch_with_every_kind_of_stride(module):
    """Broadcast along the middle dim, flipped along the last, permuted dims: the Layout
    keeps three dims that cannot merge."""
    a = np.ascontiguousarray(uniform(-2, 2, (4, 5, 6)).transpose(2, 0, 1)).transpose(1, 2, 0)
    b = np.broadcast_to(uniform(-2, 2, (4, 1, 6))[:, :, ::-1], (4, 5, 6))
    out = np.empty((4, 5, 6))
    launch(module, "binary<double, Sub>", out, (a, b), grid=3, block=64)
    np.testing.assert_array_equal(out, a - b)


@pytest.mark.parametrize("grid,block", [(1, 32), (3, 64), (2, 128), (1, 1024)])
def test_launch_configurations(module, grid, block):
    """Fewer threads than elements, more, and the largest block: the grid-stride loop."""
    x = layout_views("transposed", uniform(-3, 3, (40, 50)), "float32")
    out = np.empty((40, 50), np.float32)
    launch(module, "unary<float, Tanh>", out, (x,), grid=grid, block=block)
    assert_matches(out, torch_oracle(torch.tanh, "float32", x), "float32")


def test_blocks_in_reverse_order(module, monkeypatch):
    monkeypatch.setenv("CUCPU_BLOCK_ORDER", "reverse")
    a = layout_views("flipped", uniform(-3, 3, (9, 13)), "float64")
    b = layout_views("broadcast", uniform(-3, 3, (9, 13)), "float64")
    out = np.empty((9, 13))
    launch(module, "binary<double, Atan2>", out, (a, b), grid=4, block=32)
    assert_matches(out, np.arctan2(a, b), "float64")
    cast_out = np.empty((9, 13), np.float16)
    launch(module, "cast<double, __half>", cast_out, (a,), grid=4, block=32)
    np.testing.assert_array_equal(cast_out, a.astype(np.float16))


@pytest.mark.parametrize("name,oracle", [("unary<float, Exp>", np.exp),
                                         ("cast<float, double>", lambda x: x.astype(np.float64))])
def test_a_large_launch(module, name, oracle):
    n = 1000003
    x = rng.uniform(-3, 3, n).astype(np.float32)[::-1]
    want = oracle(x)
    out = np.empty(n, want.dtype)
    launch(module, name, out, (x,), grid=8, block=128)
    assert_matches(out, want, "float32")


# ------------------------------------------------------------------ the vectorized float32 path

def aligned(values):
    """A float32 copy of ``values`` whose data starts on a 16-byte boundary."""
    values = np.asarray(values, np.float32)
    buffer = np.empty(values.size + 4, np.float32)
    start = (-buffer.ctypes.data % 16) // 4
    result = buffer[start:start + values.size]
    result[...] = values
    assert result.ctypes.data % 16 == 0
    return result


def launch_vec4(module, name, out, arrays=(), scalars=(), grid=2, block=32):
    module.get_function(name)((grid,), (block,), (np.int64(out.size), out, *arrays, *scalars))


VEC4_UNARY = [f for f in manifest.UNARY_FUNCTORS.values() if "float32" in manifest.UNARY_DTYPES[f]]
VEC4_BINARY = [f for f in manifest.BINARY_FUNCTORS.values()
               if "float32" in manifest.BINARY_DTYPES[f]]


@pytest.mark.parametrize("functor", VEC4_UNARY)
def test_unary_vec4(module, functor):
    x = aligned(unary_input(functor, "float32").ravel())
    out = aligned(np.zeros(x.size))
    launch_vec4(module, f"unary_vec4<float, {functor}>", out, (x,))
    want = torch_oracle(UNARY_ORACLES[functor], "float32", x)
    assert_matches(out, want, "float32")
    launch_vec4(module, f"unary_vec4<float, {functor}>", x, (x,))   # in place
    assert_matches(x, want, "float32")


@pytest.mark.parametrize("functor", VEC4_BINARY)
def test_binary_vec4_and_binary_scalar_vec4(module, functor):
    a_values, b_values = binary_inputs(functor, "float32")
    a, b = aligned(a_values.ravel()), aligned(b_values.ravel())
    out = aligned(np.zeros(a.size))
    launch_vec4(module, f"binary_vec4<float, {functor}>", out, (a, b))
    assert_matches(out, torch_oracle(BINARY_ORACLES[functor], "float32", a, b), "float32")
    s = np.float32(b_values.flat[0])
    want = torch_oracle(BINARY_ORACLES[functor], "float32", a, np.full(a.size, s))
    launch_vec4(module, f"binary_scalar_vec4<float, {functor}>", a, (a,), (s,))   # in place
    assert_matches(a, want, "float32")


@pytest.mark.parametrize("n", [0, 1, 3, 4, 33])
def test_vec4_sizes_and_tail(module, n):
    x = aligned(uniform(-3, 3, n))
    out = aligned(np.zeros(n))
    launch_vec4(module, "unary_vec4<float, Sigmoid>", out, (x,), grid=1, block=32)
    assert_matches(out, torch_oracle(torch.sigmoid, "float32", x), "float32")


def test_vec4_large(module):
    n = 1000003
    a, b = aligned(rng.uniform(-3, 3, n)), aligned(rng.uniform(-3, 3, n))
    out = aligned(np.zeros(n))
    launch_vec4(module, "binary_vec4<float, Add>", out, (a, b), grid=8, block=128)
    np.testing.assert_array_equal(out, a + b)
