"""The reduction kernels (cuda/reduction.cu) and their host side (autograd_cy/cuda/reduce.py)
on the CPU emulator, against torch on the CPU: every op and float dtype, strided inputs
(transposed, flipped, broadcast), empty and odd-sized reductions, launch caps from tiny to
GPU-sized (so both the one-pass and the two-pass paths run), blocks in reverse order, ties
and NaN for the ops with an index."""
import math
import warnings

import numpy as np
import pytest
import torch

from autograd_cy.cuda import reduce as R
from autograd_cy.cuda.emulator import load_kernel_file
from autograd_cy.cuda.layout import STRUCT_DTYPES
from autograd_cy.cuda.manifest import lookup

FLOATS = ("float16", "bfloat16", "float32", "float64")
# Tolerance of a result against the float64 oracle, by result dtype: a few roundings.
RTOL = {"float16": 4e-3, "bfloat16": 3.2e-2, "float32": 2e-5, "float64": 1e-12}


class EmulatedBackend:
    """The backend interface of reduce.py over NumPy arrays and the emulated kernels; it
    checks each launch as CUDA would (a grid of at least one block, a block of a power of two
    threads within the caps) and the arguments against the manifest."""

    def __init__(self, max_block_size=32, max_grid_size=4):
        self.module = load_kernel_file("reduction.cu")
        self.max_block_size, self.max_grid_size = max_block_size, max_grid_size
        self.launches = []

    def empty(self, shape, dtype):
        return np.empty(shape, dtype)

    def launch(self, name, grid, block, args, shared_mem=0):
        lanes, rows = block
        threads = lanes * rows
        assert len(grid) == 1 and 1 <= grid[0] <= self.max_grid_size, grid
        assert 32 <= threads <= self.max_block_size and threads & (threads - 1) == 0, block
        assert lanes & (lanes - 1) == 0 and (lanes <= 32 or rows == 1), block
        for param, arg in zip(lookup(name).params, args, strict=True):
            if param.startswith("ptr:"):
                assert arg.dtype == np.dtype(param[4:]), (name, param, arg.dtype)
            else:
                assert arg.dtype == STRUCT_DTYPES[param], (name, param)
        self.launches.append((name, grid, block, bool(args[-1]["from_partials"])))
        self.module.get_function(name)(grid, block, args, shared_mem=shared_mem)


def torch_reduce(x, dims, keepdim, op, correction=None, p=None):
    """The oracle: torch's op in float64 on the values of x (dims=None: all)."""
    t = torch.from_numpy(np.array(x, dtype=np.float64))
    if dims == ():
        t, dims = t.unsqueeze(-1), (t.dim(),)  # reduce nothing: a dim of one element
    dim = tuple(range(t.dim())) if dims is None else tuple(dims)
    if op == "norm":
        return torch.linalg.vector_norm(t, 2 if p is None else p, dim, keepdim).numpy()
    if op in ("var", "std"):
        with warnings.catch_warnings():  # "degrees of freedom is <= 0": the cases we test
            warnings.simplefilter("ignore", UserWarning)
            return getattr(torch, op)(t, dim, correction=1 if correction is None else correction,
                                      keepdim=keepdim).numpy()
    if op == "prod":  # torch's prod takes one dim: reduce them one after another
        for d in sorted(dim, reverse=True):
            t = t.prod(d, keepdim=keepdim)
        return t.numpy()
    return getattr(torch, op)(t, dim, keepdim=keepdim).numpy()


def assert_close(got, want, dtype):
    got = np.asarray(got, dtype=np.float64)
    assert got.shape == want.shape
    scale = np.nanmax(np.abs(want[np.isfinite(want)]), initial=1.0)
    np.testing.assert_allclose(got, want, rtol=RTOL[dtype], atol=RTOL[dtype] * scale)


def sample(shape, dtype, op, seed=0):
    """Values suited to the op: near 1 for products (no underflow), signed otherwise."""
    rng = np.random.default_rng(seed)
    if op == "prod":
        return rng.uniform(0.7, 1.3, shape).astype(dtype)
    return (rng.standard_normal(shape) * 2 + 0.5).astype(dtype)


OPS = R.VALUE_OPS
DIMS_CASES = [(None, False), ((1,), False), ((1,), True), ((0, 2), False), ((2, 0), True),
              ((), False)]


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("op", OPS)
def test_every_op_dtype_and_dims_against_torch(op, dtype):
    backend = EmulatedBackend()
    x = sample((3, 37, 5), dtype, op)
    for dims, keepdim in DIMS_CASES:
        got = R.reduce(backend, x, dims, keepdim, op)
        assert got.dtype == np.dtype(dtype)
        assert_close(got, torch_reduce(x, dims, keepdim, op), dtype)


@pytest.mark.parametrize("op", OPS)
def test_strided_inputs(op):
    """Transposed, flipped, sliced and broadcast (stride 0) views, read in place."""
    backend = EmulatedBackend()
    base = sample((6, 40), "float64", op, seed=1)
    views = {
        "transposed": base.T,
        "flipped": base[::-1, ::-2],
        "sliced": base[1:5, 3:37:3],
        "broadcast": np.broadcast_to(base[2], (7, 40)),
        "broadcast inner": np.broadcast_to(base[:, :1], (6, 40)),
        "3-d mixed": np.lib.stride_tricks.as_strided(base[::-1], (3, 6, 4), (0, -320, 16)),
    }
    for name, x in views.items():
        for dims, keepdim in [(None, False), ((0,), True), ((x.ndim - 1,), False)]:
            got = R.reduce(backend, x, dims, keepdim, op)
            assert_close(got, torch_reduce(x, dims, keepdim, op), "float64")


@pytest.mark.parametrize("length", [0, 1, 31, 33])
@pytest.mark.parametrize("op", OPS)
def test_lengths_along_the_reduced_dim(op, length):
    backend = EmulatedBackend()
    x = sample((length, 3), "float32", op, seed=length)
    for dims, keepdim in [((0,), False), ((0,), True)]:
        if length == 0 and op in ("amax", "amin"):
            with pytest.raises(IndexError, match=rf"^{op}\(\): Expected reduction dim 0 to "
                                                 rf"have non-zero size\.$"):
                R.reduce(backend, x, dims, keepdim, op)
            continue
        got = R.reduce(backend, x, dims, keepdim, op)
        assert_close(got, torch_reduce(x, dims, keepdim, op), "float32")
    # the other way round: 3 elements into each of `length` outputs
    got = R.reduce(backend, x, (1,), False, op)
    assert_close(got, torch_reduce(x, (1,), False, op), "float32")


def test_empty_outputs_launch_nothing():
    backend = EmulatedBackend()
    x = np.ones((0, 4), np.float32)
    for op in OPS:
        got = R.reduce(backend, x, (1,), True, op)
        assert got.shape == (0, 1)
    values, indices = R.reduce_with_indices(backend, x, 1, False, "max")
    assert values.shape == indices.shape == (0,)
    assert R.argreduce(backend, x, 1, False, "argmin").shape == (0,)
    assert backend.launches == []


def test_empty_reductions_give_torch_identities_and_errors():
    backend = EmulatedBackend()
    x = np.ones((0, 3), np.float32)
    for op, want in [("sum", 0.0), ("prod", 1.0), ("mean", math.nan), ("var", math.nan),
                     ("std", math.nan), ("norm", 0.0), ("logsumexp", -math.inf)]:
        np.testing.assert_array_equal(R.reduce(backend, x, None, False, op), want)
        np.testing.assert_array_equal(R.reduce(backend, x, (0,), False, op), [want] * 3)
    np.testing.assert_array_equal(R.reduce(backend, x, None, False, "norm", p=0.5), 0.0)
    with pytest.raises(RuntimeError, match=r"^amax\(\): Expected reduction dim to be specified "
                                           r"for input\.numel\(\) == 0\. Specify the reduction "
                                           r"dim with the 'dim' argument\.$"):
        R.reduce(backend, x, None, False, "amax")
    with pytest.raises(IndexError, match=r"^amin\(\): Expected reduction dim 0 to have "):
        R.reduce(backend, x, (1, 0), False, "amin")
    with pytest.raises(IndexError, match=r"^max\(\): Expected reduction dim 0 to have "):
        R.reduce_with_indices(backend, x, 0, False, "max")
    with pytest.raises(IndexError, match=r"^argmax\(\): Expected reduction dim 0 to have "):
        R.argreduce(backend, x, 0, False, "argmax")
    with pytest.raises(IndexError, match=r"^argmin\(\): Expected reduction dim to be specified "
                                         r"for input\.numel\(\) == 0\.$"):
        R.argreduce(backend, x, None, False, "argmin")
    for p in (math.inf, -math.inf, -1.0):
        with pytest.raises(RuntimeError, match=rf"^linalg\.vector_norm cannot compute the "
                                               rf"{p:g} norm on an empty tensor because"):
            R.reduce(backend, x, None, False, "norm", p=p)
        with pytest.raises(RuntimeError, match=rf"the {p:g} norm on the dimension 0because "
                                               rf"this dimension is empty"):
            R.reduce(backend, x, (0,), False, "norm", p=p)
        np.testing.assert_array_equal(R.reduce(backend, x, (1,), False, "norm", p=p),
                                      np.zeros(0))
    # torch raises the same for each case above
    for call in (lambda t: torch.amax(t), lambda t: torch.amin(t, (1, 0)),
                 lambda t: torch.max(t, 0), lambda t: torch.argmin(t),
                 lambda t: torch.linalg.vector_norm(t, -1.0, 0)):
        with pytest.raises((RuntimeError, IndexError)):
            call(torch.ones(0, 3))


def test_reduce_nothing_and_zero_dim_inputs():
    backend = EmulatedBackend()
    x = sample((4, 5), "float32", "sum")
    for op in OPS:
        assert_close(R.reduce(backend, x, (), False, op), torch_reduce(x, (), False, op),
                     "float32")
    scalar = np.array(2.5, np.float64)
    for op in OPS:
        got = R.reduce(backend, scalar, None, False, op)
        assert got.shape == ()
        assert_close(got, torch_reduce(scalar, None, False, op), "float64")
    values, indices = R.reduce_with_indices(backend, scalar, 0, True, "min")
    assert (values, indices, indices.shape) == (2.5, 0, ())
    assert R.argreduce(backend, scalar, None, False, "argmax") == 0


def test_full_sum_of_a_million_elements():
    """One output from 1000003 elements: partials from every block, then the final pass."""
    backend = EmulatedBackend(max_block_size=256, max_grid_size=8)
    x = sample((1000003,), "float32", "sum", seed=3)
    got = R.reduce(backend, x, None, False, "sum")
    assert [(launch[1], launch[3]) for launch in backend.launches] == [((8,), False),
                                                                        ((1,), True)]
    want = x.astype(np.float64).sum()
    assert abs(float(got) - want) <= 1e-6 * np.abs(x).astype(np.float64).sum()


CAPS = [(32, 1), (32, 3), (64, 2), (128, 8), (256, 5), (1024, 8)]


@pytest.mark.parametrize("max_block, max_grid", CAPS)
def test_launch_caps_do_not_change_results(max_block, max_grid):
    """Every op over a long dim (and a short one, and all, under the small caps) with caps
    from one 32-thread block to a GPU's 1024 threads: one pass or two, rows of a few lanes
    or one block per output, a row within a warp or across warps (shared memory)."""
    backend = EmulatedBackend(max_block, max_grid)
    x = sample((2, 700), "float32", "sum", seed=max_block + max_grid)
    for op in OPS:
        y = sample((2, 700), "float32", op, seed=max_block) if op == "prod" else x
        for dims in [(1,), (0,), None] if max_block <= 64 else [(1,)]:
            got = R.reduce(backend, y, dims, False, op)
            assert_close(got, torch_reduce(y, dims, False, op), "float32")
    xt = torch.from_numpy(x)
    for op in ("max", "min"):
        values, indices = R.reduce_with_indices(backend, x, 1, True, op)
        want = getattr(torch, op)(xt, 1, keepdim=True)
        np.testing.assert_array_equal(values, want.values.numpy())
        np.testing.assert_array_equal(indices, want.indices.numpy())
        got = R.argreduce(backend, x, None, False, "arg" + op)
        assert got == getattr(torch, "arg" + op)(xt)
    second_passes = [launch for launch in backend.launches if launch[3]]
    if max_grid == 1:
        assert not second_passes  # a grid of one block never splits
    elif max_block <= 64:
        assert second_passes  # 700 elements are worth splitting among 64 lanes or fewer


def test_thread_per_output_and_rows_of_lanes(monkeypatch):
    """Many outputs of a strided reduction: one lane per output (BUSY_THREADS lowered so a
    small test reaches it), and short contiguous rows: several rows per warp."""
    monkeypatch.setattr(R, "BUSY_THREADS", 64)
    backend = EmulatedBackend(64, 3)
    x = sample((9, 300), "float64", "sum", seed=5)
    short_rows = sample((40, 9), "float64", "sum", seed=6)
    for op in OPS:
        y = sample(x.shape, "float64", op, seed=5) if op == "prod" else x
        for dims in [(0,), (1,)]:
            got = R.reduce(backend, y.T, dims, True, op)
            assert_close(got, torch_reduce(y.T, dims, True, op), "float64")
        got = R.reduce(backend, short_rows, (1,), False, op)
        assert_close(got, torch_reduce(short_rows, (1,), False, op), "float64")
    blocks = {launch[2] for launch in backend.launches}
    assert (1, 64) in blocks and (16, 4) in blocks and (64, 1) in blocks


def test_block_order_does_not_matter(monkeypatch):
    """Blocks run in reverse (the emulator reads CUCPU_BLOCK_ORDER per launch): every result
    is bit for bit the one of the forward order (no atomics, partials by slot)."""
    x = sample((3, 1000), "float32", "sum", seed=7)
    x[1, 100] = x[1, 900] = x[1].max() + 1  # a tie across blocks
    calls = [lambda b, op=op: R.reduce(b, x, (1,), False, op) for op in OPS]
    calls += [lambda b: R.reduce_with_indices(b, x, 1, False, "max"),
              lambda b: R.argreduce(b, x, None, False, "argmin")]
    forward = [call(EmulatedBackend(64, 8)) for call in calls]
    monkeypatch.setenv("CUCPU_BLOCK_ORDER", "reverse")
    backend = EmulatedBackend(64, 8)
    for call, want in zip(calls, forward):
        np.testing.assert_array_equal(call(backend), want)
    assert any(launch[3] for launch in backend.launches)


def assert_same(got, want):
    """Equal values, NaN where NaN, compared as float64 (NumPy's testing sees no NaN in a
    bfloat16 array)."""
    np.testing.assert_array_equal(np.asarray(got).astype(np.float64),
                                  np.asarray(want).astype(np.float64))


@pytest.mark.parametrize("dtype", FLOATS + ("int64",))
def test_ties_and_nan_for_ops_with_an_index(dtype):
    """torch's CPU rule: the first of equal extremes, and NaN as the extremum, first NaN."""
    backend = EmulatedBackend(32, 4)
    rng = np.random.default_rng(11)
    x = rng.integers(-3, 4, (4, 300)).astype(dtype)  # many ties
    if dtype != "int64":
        x[1, [250, 40, 180]] = np.nan
        x[2, 299] = np.nan
        x[3, :] = -np.inf
    # torch.from_numpy takes no bfloat16 (ml_dtypes'): it crosses as float32, exactly
    t = torch.from_numpy(x.astype(np.float32) if dtype == "bfloat16" else x)
    for dim in (0, 1):
        for op in ("max", "min"):
            values, indices = R.reduce_with_indices(backend, x, dim, False, op)
            want = getattr(torch, op)(t, dim)
            assert_same(values, want.values.numpy())
            assert_same(indices, want.indices.numpy())
            got = R.argreduce(backend, x, dim, True, "arg" + op)
            assert_same(got, getattr(torch, "arg" + op)(t, dim, True).numpy())
    for op in ("argmax", "argmin"):
        for y in (x, x[:, ::-1], x.T):
            got = R.argreduce(backend, y, None, False, op)
            host = np.ascontiguousarray(y).astype(t.numpy().dtype)
            assert got == getattr(torch, op)(torch.from_numpy(host))
        assert R.argreduce(backend, x, None, True, op).shape == (1, 1)
    if dtype != "int64":
        for op in ("amax", "amin"):  # NaN propagates through the plain extremes too
            got = R.reduce(backend, x, (1,), False, op)
            assert_same(got, getattr(torch, op)(t, 1).numpy())


@pytest.mark.parametrize("dtype", FLOATS)
def test_var_corrections(dtype):
    backend = EmulatedBackend(32, 4)
    x = sample((3, 400), dtype, "var", seed=13) + np.array(1000, dtype)  # a large mean
    for correction in (0, 1, 2, 0.5):
        for op in ("var", "std"):
            for dims in [(1,), None]:
                got = R.reduce(backend, x, dims, False, op, correction=correction)
                assert got.dtype == np.dtype(dtype)
                assert_close(got, torch_reduce(x, dims, False, op, correction=correction),
                             dtype)
    # no degrees of freedom left: m2 / 0 is inf, or NaN where m2 is 0
    for n, correction in [(1, 1), (2, 2), (2, 3), (3, 5)]:
        y = np.arange(n, dtype=dtype) if n > 1 else np.ones(1, dtype)
        got = R.reduce(backend, y, None, False, "var", correction=correction)
        want = torch_reduce(y, None, False, "var", correction=correction)
        assert_same(got, want)


@pytest.mark.parametrize("dtype", FLOATS)
def test_norms(dtype):
    backend = EmulatedBackend(64, 4)
    x = sample((3, 90), dtype, "norm", seed=17)
    x[1, ::3] = 0
    x[2, 5] = np.nan
    for p in (0, 1, 2, math.inf, -math.inf, 0.5, 3, -1.5):
        for dims in [(1,), (0,), None]:
            got = R.reduce(backend, x, dims, True, "norm", p=p)
            assert_close(got, torch_reduce(x, dims, True, "norm", p=p), dtype)


@pytest.mark.parametrize("dtype", FLOATS)
def test_logsumexp_infinities_and_large_values(dtype):
    backend = EmulatedBackend(32, 4)
    inf, nan = math.inf, math.nan
    big = 60000.0 if dtype == "float16" else 1e30
    rows = [[-inf] * 6, [1, inf, 2, -inf, 0, 3], [big, big, big - 1, -inf, 0, 1],
            [inf, nan, 1, 2, 3, 4], [-inf, -inf, 5, -inf, -inf, -inf], [-big] * 6]
    x = np.array(rows, dtype)
    want = torch.logsumexp(torch.from_numpy(x.astype(np.float64)), 1).numpy()
    got = R.reduce(backend, x, (1,), False, "logsumexp")
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    assert_close(got, want, dtype)
    long = sample((2, 500), dtype, "logsumexp", seed=19)
    long[0, 250:] = -inf  # infinities in some pieces of a split row
    long[1, 400] = inf
    assert_close(R.reduce(backend, long, (1,), False, "logsumexp"),
                 torch_reduce(long, (1,), False, "logsumexp"), dtype)


def test_result_dtypes():
    backend = EmulatedBackend()
    h = sample((5, 33), "float16", "sum")
    for op in ("sum", "mean", "prod"):
        for out_dtype in ("float32", "float64"):
            got = R.reduce(backend, h, (1,), False, op, out_dtype=out_dtype)
            assert got.dtype == np.dtype(out_dtype)
            assert_close(got, torch_reduce(h, (1,), False, op), out_dtype)
    f = sample((5, 33), "float32", "sum")
    got = R.reduce(backend, f, None, False, "sum", out_dtype=np.float64)
    assert got.dtype == np.float64 and abs(got - f.astype(np.float64).sum()) < 1e-12
    i = np.arange(-20, 46, dtype=np.int64).reshape(6, 11)
    ti = torch.from_numpy(i)
    for op, want in [("sum", ti.sum(1)), ("prod", ti.prod(1)), ("amax", ti.amax(1)),
                     ("amin", ti.amin(1))]:
        got = R.reduce(backend, i, (1,), False, op)
        assert got.dtype == np.int64
        np.testing.assert_array_equal(got, want.numpy())
    b = np.arange(40).reshape(5, 8) % 3 == 0
    for op in ("sum", "prod"):
        got = R.reduce(backend, b, (0,), False, op)
        want = getattr(torch, op)(torch.from_numpy(b), 0)
        assert got.dtype == np.int64 and want.dtype == torch.int64
        np.testing.assert_array_equal(got, want.numpy())
    with pytest.raises(RuntimeError, match=r"^mean\(\): could not infer output dtype\. Input "
                                           r"dtype must be either a floating point or complex "
                                           r"dtype\. Got: Long$"):
        R.reduce(backend, i, None, False, "mean")
    with pytest.raises(TypeError, match="float64 to float32"):
        R.reduce(backend, f.astype(np.float64), None, False, "sum", out_dtype=np.float32)
    with pytest.raises(TypeError, match="not int64"):
        R.reduce(backend, i, None, False, "var")
    with pytest.raises(TypeError, match="not bool"):
        R.argreduce(backend, b, None, False, "argmax")


def test_sum_to():
    backend = EmulatedBackend()
    rng = np.random.default_rng(23)
    grad = rng.standard_normal((4, 2, 3))
    t = torch.from_numpy(grad)
    for shape in [(2, 3), (3,), (1, 3), (2, 1), (1, 1), (), (4, 1, 3), (1, 2, 1), (1, 1, 1, 1)[1:]]:
        got = R.sum_to(backend, grad, shape)
        want = t.sum_to_size(shape) if shape else t.sum()
        assert got.shape == tuple(want.shape)
        assert_close(got, want.numpy(), "float64")
    # the gradient of a broadcast: stride-0 dims of a grad view sum back too
    view = np.broadcast_to(grad[:, :1, :], (4, 5, 3))
    assert_close(R.sum_to(backend, view, (5, 1)),
                 torch.from_numpy(np.array(view)).sum_to_size(5, 1).numpy(), "float64")
    assert R.sum_to(backend, grad, (4, 2, 3)) is grad
    half = grad.astype(np.float16)
    assert R.sum_to(backend, half, (3,)).dtype == np.float16
    with pytest.raises(RuntimeError, match=r"^size \{\[4, 3\]\} is not expandable to size "
                                           r"\{\[4, 2, 3\]\}\.$"):
        R.sum_to(backend, grad, (4, 3))
    with pytest.raises(RuntimeError):
        t.sum_to_size(4, 3)


def test_too_many_dims_after_merging():
    backend = EmulatedBackend()
    strides = [8 * 3 ** k for k in range(10)]  # no two dims merge
    x = np.lib.stride_tricks.as_strided(np.zeros(1 << 15), (2,) * 10, strides)
    with pytest.raises(RuntimeError, match="at most 8 kept"):
        R.reduce(backend, x, (0,), False, "sum")
    assert backend.launches == []
