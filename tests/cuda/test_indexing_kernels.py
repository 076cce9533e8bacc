"""Row gather, scatter and scatter-add (autograd_cy/cuda/indexing.py over cuda/indexing.cu:
one index array, the along-axis kernels)
on the emulated device, against NumPy as the oracle (``a[index]``, ``a[index] = v``,
``np.add.at``): 1-D and 3-D arrays, index shapes (5,), (2, 3) and (0,), negative and
repeated indices, contended atomics (many repeats of few rows), strided arrays (transposed,
flipped, stepped) and indices, values broadcast from a number and from a row, launch caps
from one thread to several blocks, and the errors (out of range, dtypes, shapes)."""

import numpy as np
import pytest

from autograd_cy.cuda import indexing
from autograd_cy.cuda.array import from_host
from autograd_cy.cuda.manifest import STORAGE_CTYPES

FLOATS = ("float16", "float32", "float64")
ADD_DTYPES = FLOATS + ("int64",)
ARRAY_SHAPES = [(7,), (6, 3, 4)]
INDEX_SHAPES = [(5,), (2, 3), (0,)]
def host_array(shape, dtype, rng):
    if np.dtype(dtype) == np.bool_:
        return rng.random(shape) < 0.5
    if np.dtype(dtype).kind in "iu":
        return rng.integers(-50, 50, shape).astype(dtype)
    return rng.standard_normal(shape).astype(dtype)


def row_index(shape, rows, rng, unique=False):
    """Indices into ``rows`` rows, half of them counted from the end (negative)."""
    if unique:
        flat = rng.permutation(rows)[:int(np.prod(shape))]
    else:
        flat = rng.integers(0, rows, int(np.prod(shape)))
    flat = np.where(rng.random(flat.shape) < 0.5, flat - rows, flat)
    return flat.reshape(shape).astype(np.int64)


def add_at_tolerance(array, index, values):
    """A bound on the rounding error of np.add.at in array's dtype, in any order: k additions
    into one element err by at most k units of roundoff times the sum of the magnitudes."""
    dtype = array.dtype
    if dtype.kind in "iu":
        return np.zeros(array.shape)
    magnitudes = np.abs(array.astype(np.float64))
    np.add.at(magnitudes, index, np.abs(np.broadcast_to(values, index.shape + array.shape[1:])
                                        .astype(np.float64)))
    counts = np.zeros(array.shape)
    np.add.at(counts, index, 1.0)
    return (counts + 1) * np.finfo(dtype).eps * magnitudes


def assert_add_matches(result, array, index, values):
    """``result`` (the device's add_at) against np.add.at in float64 on the same inputs."""
    assert result.dtype == array.dtype
    if array.dtype.kind in "iu":                   # integers: exact, in their own dtype
        expected = array.copy()
        np.add.at(expected, index, values)
        np.testing.assert_array_equal(result, expected)
    else:
        expected = array.astype(np.float64)
        np.add.at(expected, index, np.asarray(values).astype(np.float64))
        error = np.abs(result.astype(np.float64) - expected)
        assert np.all(error <= add_at_tolerance(array, index, values)), error.max()


# -------------------------------------------------------------------- take: rows

@pytest.mark.parametrize("array_shape", ARRAY_SHAPES, ids=str)
@pytest.mark.parametrize("index_shape", INDEX_SHAPES, ids=str)
@pytest.mark.parametrize("dtype", ["float32", "int64", "float16"])
def test_take_rows_matches_numpy(capped, array_shape, index_shape, dtype):
    rng = np.random.default_rng(0)
    a = host_array(array_shape, dtype, rng)
    index = row_index(index_shape, array_shape[0], rng)
    result = indexing.take(from_host(a, capped), from_host(index, capped))
    assert result.shape == a[index].shape and result.dtype == a.dtype
    np.testing.assert_array_equal(result.get(), a[index])


@pytest.mark.parametrize("dtype", sorted(STORAGE_CTYPES))
def test_take_rows_every_dtype(device, dtype):
    rng = np.random.default_rng(1)
    a = host_array((5, 3), dtype, rng)
    index = np.array([[4, -5, 2], [2, 2, -1]])
    result = indexing.take(from_host(a, device), from_host(index, device))
    np.testing.assert_array_equal(result.get(), a[index])


@pytest.mark.parametrize("index_dtype", ["int32", "int16", "int8", "uint8"])
def test_take_rows_casts_other_integer_indices(device, index_dtype):
    a = np.arange(24.0).reshape(6, 4)
    index = np.array([5, 0, 3, 3], dtype=index_dtype)
    result = indexing.take(from_host(a, device), from_host(index, device))
    np.testing.assert_array_equal(result.get(), a[index])


# The views: (name, host slicing applied to the base buffer); the device applies the same.
VIEWS = {
    "transposed": lambda x: x.transpose(2, 0, 1),
    "flipped": lambda x: x[::-1],
    "stepped": lambda x: x[::2, :, ::-1],
    "inner_transposed": lambda x: x.swapaxes(1, 2),
}


@pytest.mark.parametrize("view", VIEWS)
def test_take_rows_of_strided_arrays(capped, view):
    rng = np.random.default_rng(2)
    base = host_array((6, 3, 4), "float32", rng)
    host_view = VIEWS[view](base)
    device_view = VIEWS[view](from_host(base, capped))
    assert device_view.strides == host_view.strides
    index = row_index((2, 3), host_view.shape[0], rng)
    result = indexing.take(device_view, from_host(index, capped))
    np.testing.assert_array_equal(result.get(), host_view[index])


def test_zero_dim_index_takes_one_row(device):
    a = np.arange(12.0).reshape(4, 3)
    device_a = from_host(a, device)
    result = indexing.take(device_a, from_host(np.array(-2), device))
    np.testing.assert_array_equal(result.get(), a[np.array(-2)])
    indexing.add_at(device_a, from_host(np.array(1), device), 10.0)
    np.add.at(a, np.array(1), 10.0)
    np.testing.assert_array_equal(device_a.get(), a)


def test_take_rows_with_strided_index(device):
    a = np.arange(30.0).reshape(10, 3)
    index_base = np.array([[9, 1, -2], [0, 4, 4], [-10, 7, 3]])
    index = from_host(index_base, device).T[::-1]       # transposed and flipped
    result = indexing.take(from_host(a, device), index)
    np.testing.assert_array_equal(result.get(), a[index_base.T[::-1]])


# -------------------------------------------------------------------- put: rows

def value_cases(index_shape, row_shape, dtype, rng):
    """Values of the full indexing result's shape, one row (broadcast), and a number."""
    return {"full": host_array(index_shape + row_shape, dtype, rng),
            "row": host_array(row_shape, dtype, rng),
            "number": 3}


@pytest.mark.parametrize("array_shape", ARRAY_SHAPES, ids=str)
@pytest.mark.parametrize("index_shape", INDEX_SHAPES, ids=str)
@pytest.mark.parametrize("values_kind", ["full", "row", "number"])
def test_put_rows_matches_numpy(capped, array_shape, index_shape, values_kind):
    rng = np.random.default_rng(3)
    a = host_array(array_shape, "float64", rng)
    index = row_index(index_shape, array_shape[0], rng, unique=True)
    values = value_cases(index_shape, array_shape[1:], "float64", rng)[values_kind]
    device_a = from_host(a, capped)
    device_values = from_host(values, capped) if values_kind != "number" else values
    indexing.put(device_a, from_host(index, capped), device_values)
    a[index] = values
    np.testing.assert_array_equal(device_a.get(), a)


@pytest.mark.parametrize("dtype", sorted(STORAGE_CTYPES))
def test_put_rows_every_dtype(device, dtype):
    rng = np.random.default_rng(4)
    a = host_array((5, 3), dtype, rng)
    index = np.array([[4, 0], [-3, 1]])
    values = host_array((2, 2, 3), dtype, rng)
    device_a = from_host(a, device)
    indexing.put(device_a, from_host(index, device), from_host(values, device))
    a[index] = values
    np.testing.assert_array_equal(device_a.get(), a)


def test_put_rows_casts_values_to_the_array_dtype(device):
    a = np.zeros((4, 2), np.float32)
    values = np.array([[1.5, -2.25]], np.float64)
    device_a = from_host(a, device)
    indexing.put(device_a, from_host(np.array([1, 3]), device), from_host(values, device))
    a[[1, 3]] = values
    np.testing.assert_array_equal(device_a.get(), a)


def test_planted_race_put_rows_with_repeated_indices_writes_one_of_the_values(capped):
    """Each element of a row named several times ends up holding that element of one of
    the row's values (which one is not defined, and may differ from element to element:
    each element is its own thread's write); rows named once hold theirs, rows not named
    keep theirs. The threads race on purpose, so the sanitizer run leaves this test out
    (``planted``)."""
    rng = np.random.default_rng(5)
    a = host_array((5, 4), "float64", rng)
    index = np.array([1, 3, 1, -4, 0, 3, 1])      # rows 1 and 3 repeated
    values = host_array((7, 4), "float64", rng)
    device_a = from_host(a, capped)
    indexing.put(device_a, from_host(index, capped), from_host(values, capped))
    result = device_a.get()
    for row in range(5):
        writes = values[(index % 5) == row]
        if len(writes) == 0:
            np.testing.assert_array_equal(result[row], a[row])
        else:
            assert np.all(np.any(result[row] == writes, axis=0)), (row, result[row], writes)


@pytest.mark.parametrize("view", VIEWS)
def test_put_rows_into_strided_arrays(capped, view):
    """The write lands in the view's elements of the base buffer, and nowhere else."""
    rng = np.random.default_rng(6)
    base = host_array((6, 3, 4), "float32", rng)
    device_base = from_host(base, capped)
    host_view, device_view = VIEWS[view](base), VIEWS[view](device_base)
    index = row_index((2,), host_view.shape[0], rng, unique=True)
    values = host_array(host_view.shape[1:], "float32", rng)      # one row, broadcast
    indexing.put(device_view, from_host(index, capped), from_host(values, capped))
    host_view[index] = values
    np.testing.assert_array_equal(device_base.get(), base)


# -------------------------------------------------------------------- add_at: rows

@pytest.mark.parametrize("array_shape", ARRAY_SHAPES, ids=str)
@pytest.mark.parametrize("index_shape", INDEX_SHAPES, ids=str)
@pytest.mark.parametrize("dtype", ADD_DTYPES)
def test_add_rows_matches_numpy(capped, array_shape, index_shape, dtype):
    rng = np.random.default_rng(7)
    a = host_array(array_shape, dtype, rng)
    index = row_index(index_shape, array_shape[0], rng)          # repeats likely
    values = host_array(index_shape + array_shape[1:], dtype, rng)
    device_a = from_host(a, capped)
    indexing.add_at(device_a, from_host(index, capped), from_host(values, capped))
    assert_add_matches(device_a.get(), a, index, values)


@pytest.mark.parametrize("values_kind", ["row", "number"])
@pytest.mark.parametrize("dtype", ["float32", "int64"])
def test_add_rows_broadcasts_values(capped, values_kind, dtype):
    rng = np.random.default_rng(8)
    a = host_array((6, 3, 4), dtype, rng)
    index = row_index((2, 3), 6, rng)
    values = value_cases((2, 3), (3, 4), dtype, rng)[values_kind]
    device_a = from_host(a, capped)
    device_values = from_host(values, capped) if values_kind != "number" else values
    indexing.add_at(device_a, from_host(index, capped), device_values)
    assert_add_matches(device_a.get(), a, index, values)


@pytest.mark.parametrize("dtype", ADD_DTYPES)
def test_add_rows_contended_atomics_add_every_duplicate(capped, dtype):
    """Many repeats of few rows: threads of every block add into the same elements at once,
    and each addition must land (a lost one shows as a wrong sum). The emulator's threads
    seldom overlap enough to lose an update of a plain `+=`; the ThreadSanitizer run
    (tests/cuda/sanitize.py) reports such an add as a data race on this test."""
    rng = np.random.default_rng(9)
    a = host_array((3, 5), dtype, rng)
    index = row_index((150,), 3, rng)
    values = host_array((150, 5), dtype, rng)
    device_a = from_host(a, capped)
    indexing.add_at(device_a, from_host(index, capped), from_host(values, capped))
    assert_add_matches(device_a.get(), a, index, values)


def test_add_rows_of_ones_counts_the_repeats(device, monkeypatch):
    """Adding 1 per occurrence counts them exactly (integers are exact in float32): a lost
    atomic would show as a count one short. Blocks run in reverse order too."""
    monkeypatch.setenv("CUCPU_BLOCK_ORDER", "reverse")
    rng = np.random.default_rng(10)
    index = rng.integers(-4, 4, 200)
    device_a = from_host(np.zeros((4, 2), np.float32), device)
    indexing.add_at(device_a, from_host(index, device), 1.0)
    counts = np.bincount(index % 4, minlength=4).astype(np.float32)
    np.testing.assert_array_equal(device_a.get(), np.repeat(counts[:, None], 2, axis=1))


@pytest.mark.parametrize("view", VIEWS)
def test_add_rows_into_strided_arrays(capped, view):
    rng = np.random.default_rng(11)
    base = host_array((6, 3, 4), "float64", rng)
    device_base = from_host(base, capped)
    host_view, device_view = VIEWS[view](base), VIEWS[view](device_base)
    index = row_index((4,), host_view.shape[0], rng)
    values = host_array((4,) + host_view.shape[1:], "float64", rng)
    indexing.add_at(device_view, from_host(index, capped), from_host(values, capped))
    expected = base.copy()
    np.add.at(VIEWS[view](expected), index, values)
    np.testing.assert_allclose(device_base.get(), expected, rtol=1e-14, atol=1e-14)


def test_add_rows_of_negative_int64_wraps_as_twos_complement(device):
    """int64 adds through the unsigned atomicAdd: negative values and overflow behave as
    NumPy's int64 addition does (wrapping)."""
    big = np.iinfo(np.int64).max
    a = np.array([[big], [-5], [0]], np.int64)
    index = np.array([0, 1, 1, 2, 0])
    values = np.array([[1], [-7], [3], [-big], [2]], np.int64)
    device_a = from_host(a, device)
    indexing.add_at(device_a, from_host(index, device), from_host(values, device))
    with np.errstate(over="ignore"):
        np.add.at(a, index, values)
    np.testing.assert_array_equal(device_a.get(), a)


# -------------------------------------------------------------------- errors

@pytest.mark.parametrize("bad", [7, -8, 100])
@pytest.mark.parametrize("operation", ["take", "put", "add"])
def test_out_of_range_index_raises_before_any_launch(device, bad, operation):
    a = np.arange(14.0).reshape(7, 2)
    device_a = from_host(a, device)
    index = from_host(np.array([0, bad, -7, 6]), device)
    device.seam.counters.reset()
    with pytest.raises(IndexError) as error:
        if operation == "take":
            indexing.take(device_a, index)
        elif operation == "put":
            indexing.put(device_a, index, 1.0)
        else:
            indexing.add_at(device_a, index, 1.0)
    assert str(error.value) == f"index {bad} is out of bounds for dimension 0 with size 7"
    assert not any("along_axis" in name for name in device.seam.counters.by_kernel)
    np.testing.assert_array_equal(device_a.get(), a)


def test_any_index_is_out_of_range_for_an_empty_array(device):
    with pytest.raises(IndexError, match="index 0 is out of bounds for dimension 0 with size 0"):
        indexing.take(from_host(np.zeros((0, 3)), device),
                           from_host(np.array([0]), device))
    empty_result = indexing.take(from_host(np.zeros((0, 3)), device),
                                      from_host(np.zeros(0, np.int64), device))
    assert empty_result.shape == (0, 3)


def test_float_index_and_zero_dim_array_raise_index_error(device):
    with pytest.raises(IndexError, match="must be long, int"):
        indexing.take(from_host(np.arange(4.0), device),
                           from_host(np.array([1.0]), device))
    with pytest.raises(IndexError, match="0-dimensional"):
        indexing.take(from_host(np.array(3.0), device), from_host(np.array([0]), device))


def test_add_at_without_an_atomic_add_names_the_kernel(device):
    with pytest.raises(TypeError, match=r"add_along_axis<int>"):
        indexing.add_at(from_host(np.zeros(3, np.int32), device),
                          from_host(np.array([0]), device), 1)


@pytest.mark.parametrize("operation", [indexing.put, indexing.add_at])
def test_values_that_do_not_broadcast_raise(device, operation):
    a = from_host(np.zeros((4, 3)), device)
    index = from_host(np.array([0, 1]), device)
    with pytest.raises(ValueError, match=r"shape \(2, 2\) could not be broadcast"):
        operation(a, index, from_host(np.ones((2, 2)), device))


def test_host_values_are_refused_and_host_indices_go_to_the_device(device):
    """A host index array is copied to the device (torch takes CPU index tensors for a CUDA
    tensor); host values of more than one element are refused."""
    a = from_host(np.arange(12.0).reshape(4, 3), device)
    np.testing.assert_array_equal(indexing.take(a, np.array([3, 1])).get(),
                                  np.arange(12.0).reshape(4, 3)[[3, 1]])
    with pytest.raises(RuntimeError, match="same device"):
        indexing.put(a, from_host(np.array([0]), device), np.ones(3))
