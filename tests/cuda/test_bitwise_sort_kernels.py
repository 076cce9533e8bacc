"""The bitwise kernels of cuda/elementwise.cu (binary<T, BitAnd> ..., unary<T, BitNot>) and
cuda/sort.cu on the CPU emulator, against NumPy (and torch on the CPU for the median).

The bitwise ops: every functor and dtype on a transposed and a broadcast operand, in place, with
a scalar (the dtype's extremes among them), ~; the layouts and sizes a view has (empty, 0-d,
one element, flipped, broadcast), launch configurations from one 32-thread block to grids of
1024-thread blocks, blocks in reverse order. sort.cu: every dtype over row lengths around
a warp and a block, ties (the indices are NumPy's ``kind="stable"`` argsort), NaN, the
infinities and signed zeros in NumPy's order (NaN last), the launch configurations; then
its host side (autograd_cy/cuda/sorting.py: np.sort, np.argsort, np.partition of
DeviceArrays along any axis) and the lower median built on it, against ``torch.median``.
"""
import types

import numpy as np
import pytest
import torch

import autograd_cy as ag
from autograd_cy.cuda import launch as launch_config
from autograd_cy.cuda import manifest, sorting
from autograd_cy.cuda.array import from_host
from autograd_cy.cuda.emulator import load_kernel_file
from launching import launch_elementwise, signature_code

CTYPE = manifest.STORAGE_CTYPES
BITWISE_DTYPES = manifest.BITWISE_DTYPES
FUNCTORS = {name: functor for name, functor in manifest.BINARY_FUNCTORS.items()
            if functor in manifest.BITWISE}          # ufunc name -> functor
SORT_DTYPES = manifest.SORT_DTYPES
SHAPE = (5, 7)   # 35 elements: more than one 32-thread block
# (grid, block): fewer threads than elements, more, and the largest block
LAUNCHES = [(1, 32), (3, 64), (2, 128), (4, 256), (1, 1024), (5, 1024)]

rng = np.random.default_rng(0)


@pytest.fixture(scope="module")
def bitwise_module():
    return load_kernel_file("elementwise.cu")


@pytest.fixture(scope="module")
def sort_module():
    return load_kernel_file("sort.cu")


# ------------------------------------------------------------------ manifest

def _is_bitwise(kernel):
    return any(f", {functor}>" in kernel.name for functor in manifest.BITWISE)


@pytest.mark.parametrize("file", ["elementwise.cu", "sort.cu"])
def test_manifest_entries_resolve_with_their_parameter_types(file):
    """Every entry builds, is found by its name expression, and its manifest parameter list
    is the C++ signature; the tables cover every dtype and functor."""
    module = load_kernel_file(file)
    entries = [k for k in manifest.KERNELS if k.file == file
               and (file == "sort.cu" or _is_bitwise(k))]
    assert len(entries) == len({k.name for k in entries})
    expected = (len(BITWISE_DTYPES) * (2 * len(FUNCTORS) + 1) if file == "elementwise.cu"
                else len(SORT_DTYPES))
    assert len(entries) == expected
    for entry in entries:
        assert module.get_function(entry.name).sig == [signature_code(p) for p in entry.params]


def test_bitwise_table_names_numpy_ufuncs():
    for key in FUNCTORS:
        assert isinstance(getattr(np, key), np.ufunc) and getattr(np, key).__name__ == key


# ------------------------------------------------------------------ bitwise



def bit_patterns(dtype, shape=SHAPE):
    """Random values over the dtype's whole range, its extremes, 0 and all-ones first."""
    info = np.iinfo(dtype)
    values = rng.integers(info.min, info.max, shape, dtype=dtype, endpoint=True)
    edges = np.array([info.min, info.max, 0, -1 if info.min else info.max, 1]).astype(dtype)
    values.flat[:len(edges)] = edges
    return values


def transposed(values):
    """``values`` seen through a transposed view: the kernel walks it with swapped strides."""
    return np.ascontiguousarray(values.T).T


def broadcast_row(values):
    return np.broadcast_to(values[:1], values.shape)


BITWISE_CASES = [(u, dt) for u in FUNCTORS for dt in BITWISE_DTYPES]


@pytest.mark.parametrize("ufunc,dtype", BITWISE_CASES)
def test_bitwise(bitwise_module, ufunc, dtype):
    a, b = transposed(bit_patterns(dtype)), broadcast_row(bit_patterns(dtype))
    out = np.empty(SHAPE, dtype)
    launch_elementwise(bitwise_module, f"binary<{CTYPE[dtype]}, {FUNCTORS[ufunc]}>", out, (a, b))
    np.testing.assert_array_equal(out, getattr(np, ufunc)(a, b))


@pytest.mark.parametrize("ufunc,dtype", BITWISE_CASES)
def test_bitwise_in_place_on_either_operand(bitwise_module, ufunc, dtype):
    """out is a, then out is b: each element reads before it writes."""
    name = f"binary<{CTYPE[dtype]}, {FUNCTORS[ufunc]}>"
    a, b = transposed(bit_patterns(dtype)), transposed(bit_patterns(dtype))
    want = getattr(np, ufunc)(a, b)
    a_copy = a.copy()
    launch_elementwise(bitwise_module, name, a, (a, b))
    np.testing.assert_array_equal(a, want)
    launch_elementwise(bitwise_module, name, b, (a_copy, b))
    np.testing.assert_array_equal(b, want)


@pytest.mark.parametrize("ufunc,dtype", BITWISE_CASES)
def test_bitwise_scalar(bitwise_module, ufunc, dtype):
    """The scalar is the parameter's exact type (manifest): the extremes, 0, all ones."""
    name = f"binary_scalar<{CTYPE[dtype]}, {FUNCTORS[ufunc]}>"
    info = np.iinfo(dtype)
    for s in np.array([info.min, info.max, 0, -1 if info.min else info.max, 0x5A]).astype(dtype):
        a = transposed(bit_patterns(dtype))
        want = getattr(np, ufunc)(a, s)
        out = np.empty(SHAPE, dtype)
        launch_elementwise(bitwise_module, name, out, (a,), (s,))
        np.testing.assert_array_equal(out, want)
        launch_elementwise(bitwise_module, name, a, (a,), (s,))   # in place
        np.testing.assert_array_equal(a, want)


@pytest.mark.parametrize("dtype", BITWISE_DTYPES)
def test_bitwise_not(bitwise_module, dtype):
    x = transposed(bit_patterns(dtype))
    out = np.empty(SHAPE, dtype)
    launch_elementwise(bitwise_module, f"unary<{CTYPE[dtype]}, BitNot>", out, (x,))
    np.testing.assert_array_equal(out, np.invert(x))
    want = np.invert(x)
    launch_elementwise(bitwise_module, f"unary<{CTYPE[dtype]}, BitNot>", x, (x,))   # in place
    np.testing.assert_array_equal(x, want)


def layout_view(kind, values):
    """``values`` presented in one of the layouts a view has (of any number of dims)."""
    if kind == "contiguous":
        return values
    if kind == "transposed":
        return transposed(values)
    if kind == "flipped":
        flip = (slice(None, None, -1),) * values.ndim + (Ellipsis,)
        return np.ascontiguousarray(values[flip])[flip]
    if kind == "stepped":   # every other element of a wider array along the last dim
        if not values.ndim:
            return values
        wide = np.zeros(values.shape[:-1] + (2 * values.shape[-1],), values.dtype)
        wide[..., ::2] = values
        return wide[..., ::2]
    if kind == "broadcast":
        return np.broadcast_to(values[:1], values.shape) if values.ndim else values
    raise ValueError(kind)


SIZES = [(), (0,), (0, 3), (1,), (1, 1), (1, 31), (3, 11), (33, 1), (2, 3, 5)]
KINDS = ["contiguous", "transposed", "flipped", "stepped", "broadcast"]


@pytest.mark.parametrize("shape", SIZES, ids=str)
@pytest.mark.parametrize("kind", KINDS)
def test_bitwise_over_layouts_and_sizes(bitwise_module, shape, kind):
    """Each kernel over views of every kind, written into a flipped output."""
    dtype = "int16"
    a = layout_view(kind, bit_patterns(dtype, shape) if shape else np.array(-7, dtype))
    b = layout_view("flipped", bit_patterns(dtype, shape) if shape else np.array(12, dtype))
    flip = (slice(None, None, -1),) * len(shape) + (Ellipsis,)   # 0-d: the array itself
    out = np.full(shape, 99, dtype)[flip]
    launch_elementwise(bitwise_module, "binary<short, BitXor>", out, (a, b))
    np.testing.assert_array_equal(out, a ^ b)
    out = np.full(shape, 99, dtype)[flip]
    launch_elementwise(bitwise_module, "binary_scalar<short, BitOr>", out, (a,),
                       (np.int16(0x0F0F),))
    np.testing.assert_array_equal(out, a | np.int16(0x0F0F))
    out = np.full(shape, 99, dtype)[flip]
    launch_elementwise(bitwise_module, "unary<short, BitNot>", out, (a,))
    np.testing.assert_array_equal(out, ~a)


def test_bitwise_broadcast_both_ways_over_three_dims(bitwise_module):
    """a broadcast along dim 1, b along dims 0 and 2 and flipped: dims that cannot merge."""
    a = np.broadcast_to(bit_patterns("int64", (4, 1, 6)), (4, 5, 6))
    b = np.broadcast_to(bit_patterns("int64", (1, 5, 1))[:, ::-1], (4, 5, 6))
    out = np.empty((4, 5, 6), np.int64)
    launch_elementwise(bitwise_module, "binary<long long, BitAnd>", out, (a, b), grid=3,
                       block=64)
    np.testing.assert_array_equal(out, a & b)


@pytest.mark.parametrize("grid,block", LAUNCHES)
def test_bitwise_launch_configurations(bitwise_module, grid, block):
    """The grid-stride loop covers every element once, whatever the configuration."""
    a = transposed(bit_patterns("uint8", (40, 50)))
    b = layout_view("flipped", bit_patterns("uint8", (40, 50)))
    out = np.zeros((40, 50), np.uint8)
    launch_elementwise(bitwise_module, "binary<unsigned char, BitOr>", out, (a, b), grid=grid,
                       block=block)
    np.testing.assert_array_equal(out, a | b)
    launch_elementwise(bitwise_module, "unary<unsigned char, BitNot>", out, (a,), grid=grid,
                       block=block)
    np.testing.assert_array_equal(out, ~a)


def test_bitwise_blocks_in_reverse_order(bitwise_module, monkeypatch):
    monkeypatch.setenv("CUCPU_BLOCK_ORDER", "reverse")
    a = layout_view("flipped", bit_patterns("int32", (9, 13)))
    b = broadcast_row(bit_patterns("int32", (9, 13)))
    out = np.empty((9, 13), np.int32)
    launch_elementwise(bitwise_module, "binary<int, BitXor>", out, (a, b), grid=4, block=32)
    np.testing.assert_array_equal(out, a ^ b)
    launch_elementwise(bitwise_module, "binary_scalar<int, BitAnd>", out, (a,),
                       (np.int32(-256),), grid=4, block=32)
    np.testing.assert_array_equal(out, a & np.int32(-256))


# ------------------------------------------------------------------ sort_rows

def launch_sort(module, x, grid=2, block=32):
    """sort_rows over the rows of the 2-D array ``x`` (made contiguous, as the host does):
    (values, indices), filled first with garbage so an element never written shows."""
    x = np.ascontiguousarray(x)
    rows, length = x.shape
    values = np.full(x.shape, 7, x.dtype)
    indices = np.full(x.shape, -1, np.int64)
    module.get_function(f"sort_rows<{CTYPE[x.dtype.name]}>")(
        (grid,), (block,), (x, values, indices, np.int64(rows), np.int64(length)))
    return values, indices


def assert_sorted_as_numpy(x, values, indices):
    """The indices are NumPy's stable argsort and the values the elements they name, bit
    for bit (-0.0 stays -0.0, a NaN keeps its payload)."""
    # ml_dtypes' own sort of bfloat16 misplaces NaNs: its exact float32 copy sorts instead
    key = x.astype(np.float32) if x.dtype.name == "bfloat16" else x
    order = np.argsort(key, axis=-1, kind="stable")
    np.testing.assert_array_equal(indices, order)
    want = np.take_along_axis(x, order, -1)
    np.testing.assert_array_equal(values.view(f"u{x.itemsize}"), want.view(f"u{x.itemsize}"))
    np.testing.assert_array_equal(values.astype(np.float64),   # bfloat16's NaNs, seen as NaN
                                  np.sort(key, axis=-1, kind="stable").astype(np.float64))


def sort_input(dtype, shape):
    """Few distinct values (so rows have ties); floats get a NaN, infinities, signed zeros."""
    if dtype in manifest.FLOATS:
        values = rng.integers(-4, 4, shape).astype(dtype) * np.array(0.5, dtype)
        specials = np.array([np.nan, -np.inf, np.inf, -0.0, 0.0, np.nan], dtype)
        picks = rng.random(shape) < 0.3
        values[picks] = rng.choice(specials, picks.sum())
        return values
    info = np.iinfo(dtype)
    values = rng.integers(-4, 4, shape)
    values = np.where(values == -4, info.min, np.where(values == 3, info.max, values))
    return values.astype(dtype)


@pytest.mark.parametrize("length", [1, 2, 31, 33, 257])
@pytest.mark.parametrize("dtype", SORT_DTYPES)
def test_sort_rows(sort_module, dtype, length):
    x = sort_input(dtype, (3, length))
    assert_sorted_as_numpy(x, *launch_sort(sort_module, x, grid=2, block=64))


@pytest.mark.parametrize("dtype", manifest.FLOATS)
def test_sort_special_values_in_numpy_order(sort_module, dtype):
    """-inf < numbers < inf < NaN; -0.0 ties with 0.0 (stable: first stays first); NaNs of
    either sign and any payload tie among themselves, last."""
    specials = [np.nan, 1.5, -0.0, np.inf, 0.0, -np.inf, -np.nan, -0.0, np.nan, -2.0, 0.0]
    x = np.array([specials, specials[::-1]], dtype)
    if dtype == "float16":   # a NaN with another payload
        x.view(np.uint16)[0, 8] = 0x7E01
    if dtype == "bfloat16":
        x.view(np.uint16)[0, 8] = 0x7FC1
    assert_sorted_as_numpy(x, *launch_sort(sort_module, x))


@pytest.mark.parametrize("dtype", ["float32", "int8", "uint8"])
def test_sort_all_ties_keeps_the_order(sort_module, dtype):
    x = np.zeros((2, 40), dtype)
    values, indices = launch_sort(sort_module, x)
    np.testing.assert_array_equal(values, x)
    np.testing.assert_array_equal(indices, np.broadcast_to(np.arange(40), (2, 40)))


@pytest.mark.parametrize("dtype", ["float64", "int64"])
def test_sort_rows_already_sorted_and_reversed(sort_module, dtype):
    ramp = np.arange(100).astype(dtype)
    x = np.stack([ramp, ramp[::-1], np.repeat(ramp[:50], 2)[::-1]])
    assert_sorted_as_numpy(x, *launch_sort(sort_module, x))


@pytest.mark.parametrize("rows,length", [(0, 5), (4, 0), (0, 0)])
def test_sort_of_nothing_writes_nothing(sort_module, rows, length):
    """No element, no work (and no division by a zero length)."""
    x = np.ones((rows, length), np.float32)
    values, indices = launch_sort(sort_module, x)
    assert values.shape == indices.shape == (rows, length)


@pytest.mark.parametrize("grid,block", LAUNCHES)
def test_sort_launch_configurations(sort_module, grid, block):
    """A thread per element or several elements per thread, rows that straddle blocks."""
    x = sort_input("float32", (7, 45))
    assert_sorted_as_numpy(x, *launch_sort(sort_module, x, grid, block))


def test_sort_blocks_in_reverse_order(sort_module, monkeypatch):
    monkeypatch.setenv("CUCPU_BLOCK_ORDER", "reverse")
    x = sort_input("int32", (6, 33))
    assert_sorted_as_numpy(x, *launch_sort(sort_module, x, grid=5, block=32))
    x = sort_input("float16", (3, 70))
    assert_sorted_as_numpy(x, *launch_sort(sort_module, x, grid=3, block=64))


# ------------------------------------------------------------------ the host side: sorting.py

@pytest.fixture(params=[(1, 1), (32, 2), (64, 3)], ids=lambda c: f"block{c[0]}-grid{c[1]}")
def device(request, monkeypatch):
    """The emulated device, its sort launches under the given caps."""
    caps = types.SimpleNamespace(max_block_size=request.param[0],
                                 max_grid_size=request.param[1])
    monkeypatch.setattr(sorting, "elementwise_config",
                        lambda n, seam: launch_config.elementwise_config(n, caps))
    return ag.cuda.devices.get(0)


# Views the host must move and copy before it sorts, taken alike of the NumPy array and of
# its device copy: C order, transposed, flipped and stepped, broadcast, 0-d, empty along an
# axis, one element.
VIEWS = {
    "contiguous": lambda a: a,
    "transposed": lambda a: a.transpose(2, 0, 1),
    "flipped-stepped": lambda a: a[::-1, :, ::-2],
    "broadcast": lambda a: np.broadcast_to(a[:, 1:2], (4, 3, 5)),
    "0-d": lambda a: a[1, 2, 3],
    "empty": lambda a: a[:, :0],
    "one element": lambda a: a[:1, :1, :1],
}


@pytest.mark.parametrize("dtype", ["float32", "int64", "uint8", "bool"])
def test_np_sort_and_argsort_of_device_arrays_along_every_axis(device, dtype):
    base = sort_input("uint8" if dtype == "bool" else dtype, (4, 3, 5)).astype(dtype)
    base_on_device = from_host(base, device)
    for view in VIEWS.values():
        x, on_device = np.asarray(view(base)), view(base_on_device)
        assert on_device.shape == x.shape and on_device.strides == x.strides
        for axis in list(range(-x.ndim, x.ndim)) + [None]:
            got = np.sort(on_device, axis=axis)
            assert got.dtype == x.dtype
            np.testing.assert_array_equal(got.get(), np.sort(x, axis=axis, kind="stable"))
            order = np.argsort(on_device, axis=axis)
            np.testing.assert_array_equal(order.get(), np.argsort(x, axis=axis, kind="stable"))


def test_np_partition_of_a_device_array(device):
    """The kth element is NumPy's, none before it larger, none after smaller."""
    x = sort_input("float64", (6, 9)).T
    got = np.partition(from_host(x, device), 4, axis=0).get()
    want = np.partition(x, 4, axis=0)
    np.testing.assert_array_equal(got[4], want[4])
    assert np.all((got[:4] <= got[4]) | np.isnan(got[4])) and np.all(
        (got[5:] >= got[4]) | np.isnan(got[5:]))


# ------------------------------------------------------------------ the median, against torch

MEDIAN_DTYPES = ["float16", "float32", "float64", "int64", "int32", "int16", "int8", "uint8"]


def median_input(dtype, shape, nan_rows=True):
    """Ties from a few values; floats get -0.0 and infinities, and NaN in some rows."""
    if np.dtype(dtype).kind != "f":
        return rng.integers(0, 5, shape).astype(dtype)
    values = rng.integers(-3, 3, shape).astype(dtype)
    values[rng.random(shape) < 0.15] = -0.0
    values[rng.random(shape) < 0.1] = np.inf
    values[rng.random(shape) < 0.1] = -np.inf
    if nan_rows and values.ndim and values.size:
        values[0, 0] = values[-1, -1] = np.nan
    return values


@pytest.mark.parametrize("dtype", MEDIAN_DTYPES)
@pytest.mark.parametrize("length", [1, 2, 5, 8, 33])
def test_median_along_a_dim_is_torchs_lower_median(device, dtype, length):
    """Values and indices along either dim, both parities (even: the lower middle value and
    its index, which is the stable sort's), ties, NaN rows (NaN and the first NaN)."""
    x = median_input(dtype, (4, length))
    for dim in (1, 0, -1):
        got = ag.tensor(x, device="cuda").median(dim)
        want = torch.from_numpy(x).median(dim)
        np.testing.assert_array_equal(got.values.cpu().numpy(), want.values.numpy())
        np.testing.assert_array_equal(got.indices.cpu().numpy(), want.indices.numpy())


@pytest.mark.parametrize("dtype", ["float32", "int16"])
def test_median_of_everything_and_of_a_transposed_tensor(device, dtype):
    for x in (median_input(dtype, (6, 4), nan_rows=False), median_input(dtype, (3, 5)).T,
              np.asarray(median_input(dtype, ()))):
        got = ag.tensor(x, device="cuda").median()
        np.testing.assert_array_equal(got.cpu().numpy(), torch.from_numpy(x).median().numpy())
        if x.ndim:
            got = ag.tensor(x, device="cuda").median(0, keepdim=True)
            want = torch.from_numpy(np.ascontiguousarray(x)).median(0, keepdim=True)
            np.testing.assert_array_equal(got.values.cpu().numpy(), want.values.numpy())
            np.testing.assert_array_equal(got.indices.cpu().numpy(), want.indices.numpy())
