"""Advanced indexing with several index arrays and bool masks, np.nonzero's three passes
(cuda/advanced_indexing.cu), and np.concatenate/stack/tile as strided copies
(autograd_cy/cuda/shape.py) on the emulated device, against NumPy (float64 where values
add up): awkward shapes (empty, 0-d, size-1 dims), non-contiguous and flipped views, index
arrays that broadcast, duplicate indices for the scatter-add (float16 too), small launch
caps, and blocks run in reverse order where the order could matter."""

import numpy as np
import pytest

import autograd_cy as ag
from autograd_cy.cuda import indexing
from autograd_cy.cuda.array import from_host
from autograd_cy.cuda.layout import elementwise_layout


@pytest.fixture(params=["forward", "reverse"])
def block_order(request, monkeypatch):
    if request.param == "reverse":
        monkeypatch.setenv("CUCPU_BLOCK_ORDER", "reverse")
    return request.param


def rand(shape, dtype="float64", seed=0):
    rng = np.random.default_rng(seed)
    if np.dtype(dtype) == np.bool_:
        return rng.random(shape) < 0.4
    if np.dtype(dtype).kind in "iu":
        return rng.integers(-9, 9, shape).astype(dtype)
    return rng.standard_normal(shape).astype(dtype)


def on_device(value, device):
    """The key's host arrays as device arrays (ints, slices, None, ... as they are)."""
    if isinstance(value, tuple):
        return tuple(on_device(v, device) for v in value)
    return from_host(value, device) if isinstance(value, np.ndarray) else value


# -------------------------------------------------------------------- keys

I2 = np.array([[0], [-1], [2]])          # (3, 1)
J3 = np.array([1, 0, -3])                # (3,)
MASK = np.array([[True, False, True, False], [False, False, False, True],
                 [True, True, False, False]])
KEYS = {
    "two_adjacent": (I2, J3),
    "broadcast_then_slice": (I2, J3, slice(None, None, -2)),
    "slice_between": (I2, slice(1, None), J3[:, None]),
    "int_and_array": (1, slice(None), J3),
    "array_int_array": (J3, 0, J3[::-1]),
    "ellipsis_then_array": (Ellipsis, np.array([4, 0, -1, 4])),
    "none_and_arrays": (None, I2, None, J3),
    "three_arrays": (I2[:, :, None], J3[:, None], np.array([0, 4])),
    "zero_d_index": (np.array(2), J3),
    "empty_index": (np.zeros((0,), np.int64), slice(None)),
    "empty_broadcast": (np.zeros((2, 0), np.int64), J3[:2, None]),
    "mask_leading": (MASK,),
    "mask_then_int": (MASK, 1),
    "slice_then_mask": (slice(None), np.arange(20).reshape(4, 5) % 3 == 1),
    "mask_1d_mid": (slice(None), np.array([True, False, True, True]), slice(None, 3)),
    "mask_and_array": (np.array([True, False, True]), slice(None), J3[:2]),
}
# views of a (5, 8, 5) base, each (3, 4, 5) after [:, :4] (what the keys index)
VIEWS = {
    "contiguous": lambda x: x[:3],
    "flipped": lambda x: x[:3][::-1, :, ::-1],
    "transposed": lambda x: x.transpose(2, 1, 0)[1:4],
    "stepped": lambda x: x[:3, ::2],
}


def base_array(dtype="float64"):
    return rand((5, 8, 5), dtype)


@pytest.mark.parametrize("key", KEYS)
@pytest.mark.parametrize("view", VIEWS)
def test_take_matches_numpy(capped, key, view):
    base = base_array()
    host = VIEWS[view](base)[:, :4]
    device_view = VIEWS[view](from_host(base, capped))[:, :4]
    expected = host[KEYS[key]]
    result = indexing.take(device_view, on_device(KEYS[key], capped))
    assert result.shape == expected.shape
    np.testing.assert_array_equal(result.get(), expected)


@pytest.mark.parametrize("key", KEYS)
def test_getitem_of_a_device_array_is_take(device, key):
    host = base_array("float16")[:3, :4]
    device_array = from_host(host, device)
    np.testing.assert_array_equal(device_array[on_device(KEYS[key], device)].get(),
                                  host[KEYS[key]])


def names_each_position_once(key):
    probe = np.arange(60).reshape(3, 4, 5)[key]
    return len(np.unique(probe)) == probe.size


@pytest.mark.parametrize("key", [k for k in KEYS if names_each_position_once(KEYS[k])])
@pytest.mark.parametrize("view", ["contiguous", "flipped"])
def test_put_matches_numpy(capped, key, view):
    """Values of the full result shape and a broadcast row; keys that name each position
    once (which of repeated writes wins is not defined: test_indexing_kernels.py)."""
    base = base_array()
    unique_key = KEYS[key]
    host = VIEWS[view](base)[:, :4]
    device_base = from_host(base, capped)
    device_view = VIEWS[view](device_base)[:, :4]
    shape = host[unique_key].shape
    for values in (rand(shape, seed=1), rand(shape[-1:], seed=2)):
        indexing.put(device_view, on_device(unique_key, capped), from_host(values, capped))
        host[unique_key] = values
        np.testing.assert_array_equal(device_base.get(), base)


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64", "int64"])
def test_add_at_with_several_arrays_adds_every_duplicate(capped, block_order, dtype):
    """Index arrays that broadcast and repeat positions: each addition lands (float16
    through its atomicAdd too); float results against NumPy in float64 within the rounding
    of the additions in any order."""
    rng = np.random.default_rng(3)
    a = rand((4, 3, 5), dtype, seed=4)
    i = rng.integers(-4, 4, (30, 1))
    j = rng.integers(-5, 5, (1, 6))
    values = rand((30, 6, 3), dtype, seed=5)     # arrays apart: their shape first
    key = (i, slice(None), j)
    device_a = from_host(a, capped)
    indexing.add_at(device_a, on_device(key, capped), from_host(values, capped))
    expected = a.astype(np.float64)
    np.add.at(expected, key, values.astype(np.float64))
    if dtype == "int64":
        np.testing.assert_array_equal(device_a.get(), expected.astype(np.int64))
    else:
        magnitude = np.abs(a.astype(np.float64))
        np.add.at(magnitude, key, np.abs(values.astype(np.float64)))
        counts = np.zeros(a.shape)
        np.add.at(counts, key, 1.0)
        bound = (counts + 1) * np.finfo(dtype).eps * magnitude
        assert np.all(np.abs(device_a.get().astype(np.float64) - expected) <= bound)


def test_add_at_of_ones_counts_repeats_exactly_in_float16(device, block_order):
    """Counts up to 2048 are exact in float16: one lost atomic shows."""
    rng = np.random.default_rng(6)
    rows, cols = rng.integers(0, 3, 300), rng.integers(-2, 2, 300)
    device_a = from_host(np.zeros((3, 2), np.float16), device)
    indexing.add_at(device_a, (from_host(rows, device), from_host(cols, device)), 1.0)
    expected = np.zeros((3, 2))
    np.add.at(expected, (rows, cols), 1.0)
    np.testing.assert_array_equal(device_a.get(), expected.astype(np.float16))


def test_np_add_at_and_np_take_dispatch_to_the_kernels(device):
    a = rand((5, 6))
    index = np.array([[4, 0], [0, -1]])
    device_a = from_host(a, device)
    np.testing.assert_array_equal(np.take(device_a, from_host(index, device), axis=1).get(),
                                  np.take(a, index, axis=1))
    np.testing.assert_array_equal(np.take(device_a, from_host(index, device)).get(),
                                  np.take(a, index))
    values = rand((5, 2, 2), seed=1)
    np.add.at(device_a, (slice(None), from_host(index, device)), from_host(values, device))
    np.add.at(a, (slice(None), index), values)
    np.testing.assert_allclose(device_a.get(), a, rtol=1e-15)


# -------------------------------------------------------------------- errors

def test_index_errors_are_numpys(device):
    a = from_host(base_array()[:3, :4], device)
    with pytest.raises(IndexError, match=r"index 4 is out of bounds for dimension 1 with size 4"):
        a[:, from_host(np.array([0, 4]), device)]
    with pytest.raises(IndexError, match=r"could not be broadcast together with shapes "
                                         r"\(2,\) \(3,\)"):
        a[from_host(np.array([0, 1]), device), from_host(np.array([0, 1, 2]), device)]
    with pytest.raises(IndexError, match="boolean index did not match indexed array along "
                                         "axis 0; size of axis is 3 but size of corresponding "
                                         "boolean axis is 2"):
        a[from_host(np.array([True, False]), device)]
    with pytest.raises(IndexError, match="too many indices for array: array is 3-dimensional, "
                                         "but 4 were indexed"):
        a[0, 0, 0, from_host(np.array([0]), device)]


def test_index_offsets_clamps_what_the_host_did_not_check(device):
    """A launch of index_offsets with indices outside [-size, size) (which the host refuses
    before any launch) clamps them into the dim: offsets stay inside the array."""
    index = from_host(np.array([-100, -4, -1, 0, 3, 4, 100]), device)
    offsets = from_host(np.zeros(7, np.int64), device)
    device.seam.launch("index_offsets", (1,), (4,),
                       (elementwise_layout((7,), [(1,), (1,)]), np.int64(7), offsets.raw,
                        index.raw, np.int64(10), np.int64(4), np.int32(1)))
    np.testing.assert_array_equal(offsets.get(), [0, 0, 30, 0, 30, 30, 30])


# -------------------------------------------------------------------- nonzero

NONZERO_CASES = {
    "1d": (lambda: rand((37,), "bool")),
    "3d": (lambda: rand((3, 4, 5), "bool", seed=1)),
    "size_one_dims": (lambda: rand((1, 6, 1), "bool", seed=2)),
    "empty": (lambda: np.zeros((3, 0, 2), bool)),
    "all_false": (lambda: np.zeros((4, 5), bool)),
    "all_true": (lambda: np.ones((2, 7), bool)),
    "several_tiles": (lambda: rand((2500,), "bool", seed=3)),
}


@pytest.mark.parametrize("case", NONZERO_CASES)
def test_nonzero_matches_numpy(device, block_order, case):
    mask = NONZERO_CASES[case]()
    result = np.nonzero(from_host(mask, device))
    expected = np.nonzero(mask)
    assert len(result) == len(expected)
    for got, want in zip(result, expected):
        assert got.dtype == np.int64
        np.testing.assert_array_equal(got.get(), want)


@pytest.mark.parametrize("dtype", ["float16", "float32", "int64", "int32", "uint8"])
def test_nonzero_of_every_dtype_and_strided_views(device, dtype, monkeypatch):
    """Values, not just bools; a transposed and a flipped view read through their strides;
    a tile smaller than the array so that several tiles and a partial one take part."""
    monkeypatch.setattr(indexing, "NONZERO_TILE", 7)
    host = rand((6, 9), dtype, seed=4)
    host[np.abs(host.astype(np.float64)) < 0.7] = 0
    device_array = from_host(host, device)
    for view in (lambda x: x, lambda x: x.T, lambda x: x[::-1, ::-2]):
        for got, want in zip(np.nonzero(view(device_array)), np.nonzero(view(host))):
            np.testing.assert_array_equal(got.get(), want)


def test_nonzero_of_a_zero_d_array_raises_as_numpy(device):
    with pytest.raises(ValueError, match="Calling nonzero on 0d arrays is not allowed"):
        np.nonzero(from_host(np.array(True), device))


# -------------------------------------------------------------------- shape ops

def test_concatenate_matches_numpy(device):
    a = rand((2, 3, 4))
    b = rand((2, 1, 4), seed=1)
    c = rand((4, 0, 2), seed=2).transpose(2, 1, 0)      # empty, non-contiguous
    d = rand((4, 5, 2), "float32", seed=3)[::-1, ::-1].transpose(2, 1, 0)   # flipped
    arrays = [a, b, c, d]
    result = np.concatenate([from_host(x, device) for x in arrays], axis=1)
    expected = np.concatenate(arrays, axis=1)
    assert result.dtype == expected.dtype and result.flags.c_contiguous
    np.testing.assert_array_equal(result.get(), expected)
    result = np.concatenate([from_host(x, device) for x in (a, b)], axis=None)
    np.testing.assert_array_equal(result.get(), np.concatenate((a, b), axis=None))
    result = np.concatenate([from_host(a, device)], axis=-1, dtype=np.float16)
    np.testing.assert_array_equal(result.get(), np.concatenate([a], -1, dtype=np.float16))


def test_concatenate_errors_are_numpys(device):
    a, b = from_host(rand((2, 3)), device), from_host(rand((2, 2)), device)
    for args in (([a, b],), ([a, from_host(rand(3), device)],),
                 ([from_host(np.array(1.0), device)],)):
        with pytest.raises(ValueError) as got:
            np.concatenate(*args)
        with pytest.raises(ValueError) as want:
            np.concatenate(*[[x.get() for x in args[0]]])
        assert str(got.value) == str(want.value)


@pytest.mark.parametrize("axis", [0, 1, -1])
def test_stack_matches_numpy(device, axis):
    arrays = [rand((3, 2), seed=s) for s in range(3)]
    arrays[1] = arrays[1][::-1]
    result = np.stack([from_host(x, device) for x in arrays], axis=axis)
    np.testing.assert_array_equal(result.get(), np.stack(arrays, axis=axis))


@pytest.mark.parametrize("shape, reps", [((4, 3), (2, 3)), ((4, 3), (2, 1, 2)),
                                         ((2, 3, 4), (3,)), ((), (2, 2)), ((3,), 0),
                                         ((0, 2), (2, 2)), ((2, 1), (1, 1))])
def test_tile_matches_numpy(device, shape, reps):
    host = rand(shape, "float32")
    result = np.tile(from_host(host, device), reps)
    expected = np.tile(host, reps)
    assert result.shape == expected.shape
    np.testing.assert_array_equal(result.get(), expected)


def test_tile_of_a_flipped_view(device):
    host = rand((3, 4), "int64")
    device_view = from_host(host, device)[::-1, ::2]
    np.testing.assert_array_equal(np.tile(device_view, (2, 2)).get(),
                                  np.tile(host[::-1, ::2], (2, 2)))


def test_tensor_index_errors_on_cuda_read_as_torchs_on_the_cpu():
    """The core checks bounds on the host for CUDA tensors too; its messages carry the
    offending index as a number, as torch's do."""
    import torch
    a = np.arange(12.0).reshape(3, 4)
    cases = [lambda lib, t, i: t[:, i], lambda lib, t, i: t.gather(1, i[None].expand(3, 1))]
    for case in cases:
        with pytest.raises((IndexError, RuntimeError)) as ours:
            case(ag, ag.tensor(a, device="cuda"), ag.tensor([4], device="cuda"))
        with pytest.raises((IndexError, RuntimeError)) as theirs:
            case(torch, torch.tensor(a), torch.tensor([4]))
        assert type(ours.value) is type(theirs.value)
        assert str(ours.value) == str(theirs.value)
