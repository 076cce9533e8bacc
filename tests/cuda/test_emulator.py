"""The CPU emulator checks itself: probe kernels (tests/cuda/probes/) against NumPy, the
argument guards, the hazards it must report, and the sanitizers.

Tests named ``test_planted_*`` plant a bug on purpose; ``make sanitize`` leaves them out
(``-k "not planted"``) and runs the rest with every kernel built under a sanitizer.
"""
import functools
import os
import re
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from autograd_cy.cuda.emulator import SANITIZE_ENV, CpuKernelError, CpuModule, sanitizer_env
from autograd_cy.cuda.layout import LAYOUT_DTYPE, broadcast_strides, elementwise_layout
from autograd_cy.cuda.manifest import FLOAT_CTYPES
from autograd_cy.cuda.sources import include_options

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PROBES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "probes")
FLOATS = ("float16", "float32", "float64")
# The accumulate dtype of each storage dtype (the kernels' Acc<T>).
ACC = {"float16": np.float32, "float32": np.float32, "float64": np.float64}
# Tolerance of a sum of about a thousand numbers in [0, 1) accumulated in ACC.
SUM_RTOL = {"float16": 1e-5, "float32": 1e-5, "float64": 1e-12}


def templated(name):
    return [f"{name}<{FLOAT_CTYPES[d]}>" for d in FLOATS]


# The probe files and the instantiations the tests launch (test_compile.py compiles them
# with NVRTC too: the probes are CUDA, not something only the emulator accepts).
PROBE_KERNELS = {
    "reduce.cu": templated("block_sum") + ["block_sum_dynamic<float>", "warp_allreduce<float>"],
    "broadcast.cu": templated("add_scaled"),
    "scatter.cu": templated("scatter_add") + ["arrival_order"],
    "intrinsics.cu": ["shuffle_xor", "max_min"],
    "hazards.cu": ["fill_dynamic_shared", "divergent_barrier", "exit_before_barrier",
                   "shuffle_after_exit", "read_before_write_shared"],
}


@functools.cache
def probe(file, allow_warnings=False):
    """The emulated module of ``probes/<file>``."""
    return CpuModule(path=os.path.join(PROBES, file), options=include_options(),
                     name_expressions=PROBE_KERNELS[file], allow_warnings=allow_warnings)


def kernel(file, name, dtype=None):
    return probe(file).get_function(f"{name}<{FLOAT_CTYPES[dtype]}>" if dtype else name)


def line_of(path, text):
    """The 1-based number of the line of ``path`` that contains ``text`` (exactly one)."""
    with open(path) as f:
        lines = [i + 1 for i, line in enumerate(f) if text in line]
    assert len(lines) == 1, (path, text, lines)
    return lines[0]


def lines_in_function(path, function, text):
    """The numbers of the lines of kernel ``function`` in ``path`` that contain ``text``."""
    with open(path) as f:
        lines = f.read().split("\n")
    start = next(i for i, line in enumerate(lines) if f"void {function}(" in line)
    end = next(i for i in range(start, len(lines)) if lines[i] == "}")
    return [i + 1 for i in range(start, end) if text in lines[i]]


def block_sums(dtype, x, blocks=3, threads=64):
    partial = np.zeros(blocks, ACC[dtype])
    kernel("reduce.cu", "block_sum", dtype)((blocks,), (threads,), (x, partial, np.int64(x.size)))
    return partial


# ---- probes against NumPy -----------------------------------------------------------------

@pytest.mark.parametrize("dtype", FLOATS)
def test_block_sum_matches_numpy(dtype):
    x = np.random.default_rng(0).random(1000).astype(dtype)
    partial = block_sums(dtype, x)
    # block b of 3 x 64 threads visits the elements whose index // 64 is b modulo 3
    owner = np.arange(x.size) // 64 % 3
    expected = [x[owner == b].astype(np.float64).sum() for b in range(3)]
    np.testing.assert_allclose(partial, expected, rtol=SUM_RTOL[dtype])


def test_block_sum_with_dynamic_shared_memory():
    x = np.random.default_rng(1).random(700).astype(np.float32)
    partial = np.zeros(2, np.float32)
    kernel("reduce.cu", "block_sum_dynamic<float>")((2,), (96,), (x, partial, np.int64(x.size)),
                                                      shared_mem=3 * 4)
    np.testing.assert_allclose(partial.sum(), x.astype(np.float64).sum(), rtol=1e-5)


def test_shfl_xor_butterfly_gives_every_lane_the_warp_sum():
    x = np.random.default_rng(2).random(128).astype(np.float32)
    out = np.zeros_like(x)
    kernel("reduce.cu", "warp_allreduce<float>")((2,), (64,), (x, out))
    warp_sums = x.astype(np.float64).reshape(4, 32).sum(axis=1)
    np.testing.assert_allclose(out.reshape(4, 32), np.repeat(warp_sums[:, None], 32, axis=1),
                               rtol=1e-6)
    # every lane ends with the same bits, whatever order its butterfly added in
    assert (out.reshape(4, 32) == out.reshape(4, 32)[:, :1]).all()


@pytest.mark.parametrize("dtype", FLOATS)
def test_atomic_scatter_add_under_contention(dtype):
    # 2000 adds onto 3 elements; small integers keep every partial sum exact in any order
    # (even in half precision), so a lost update shows as a wrong value, not as rounding.
    rng = np.random.default_rng(3)
    index = rng.integers(0, 3, 2000).astype(np.int64)
    src = rng.integers(-8, 9, 2000).astype(dtype)
    out = rng.integers(-100, 100, 3).astype(dtype)
    expected = out.astype(np.float64)
    np.add.at(expected, index, src.astype(np.float64))
    kernel("scatter.cu", "scatter_add", dtype)((4,), (128,), (out, index, src, np.int64(src.size)))
    np.testing.assert_array_equal(out.astype(np.float64), expected)


def test_blocks_in_reverse_order_give_the_same_result(monkeypatch):
    x = np.random.default_rng(4).random(1500).astype(np.float32)
    forward = block_sums("float32", x, blocks=5)
    counter, order = np.zeros(1, np.uint64), np.zeros(5, np.uint64)
    kernel("scatter.cu", "arrival_order")((5,), (32,), (counter, order))
    np.testing.assert_array_equal(order, np.arange(5))

    monkeypatch.setenv("CUCPU_BLOCK_ORDER", "reverse")
    counter[:] = 0
    kernel("scatter.cu", "arrival_order")((5,), (32,), (counter, order))
    np.testing.assert_array_equal(order, np.arange(5)[::-1])  # the blocks did run backwards
    np.testing.assert_array_equal(block_sums("float32", x, blocks=5), forward)


@pytest.mark.parametrize("lane_mask, width", [(1, 32), (8, 8), (3, 4), (16, 32)])
def test_shfl_xor_reads_earlier_groups_never_later_ones(lane_mask, width):
    x = np.arange(32, dtype=np.float32) + 100
    out = np.zeros_like(x)
    kernel("intrinsics.cu", "shuffle_xor")((1,), (32,), (x, out, np.int32(lane_mask),
                                                         np.int32(width)))
    lanes = np.arange(32)
    source = lanes ^ lane_mask
    # CUDA: a source lane in a later group of `width` lanes gives the caller's own value
    source = np.where(source // width > lanes // width, lanes, source)
    np.testing.assert_array_equal(out, x[source])


def test_max_min_of_floats_are_fmax_fmin():
    a = np.array([1.0, np.nan, 2.0, np.nan, -0.5, 3.0], np.float32)
    b = np.array([np.nan, 1.0, -1.0, np.nan, -0.25, 3.0], np.float32)
    out = np.zeros(12, np.float32)
    kernel("intrinsics.cu", "max_min")((1,), (32,), (a, b, out, np.int32(a.size)))
    np.testing.assert_array_equal(out[:6], np.fmax(a, b))  # a NaN operand loses
    np.testing.assert_array_equal(out[6:], np.fmin(a, b))


# ---- the Layout struct, by value ------------------------------------------------------------

def element_strides(a):
    return tuple(s // a.itemsize for s in a.strides)


def launch_add_scaled(out, a, b, alpha):
    """out = a + alpha * b through the Layout of the three operands (a, b broadcast)."""
    shape = out.shape
    layout = elementwise_layout(shape, [element_strides(out),
                                        broadcast_strides(shape, a.shape, element_strides(a)),
                                        broadcast_strides(shape, b.shape, element_strides(b))])
    dtype = out.dtype.name
    kernel("broadcast.cu", "add_scaled", dtype)(
        (2,), (64,), (out, a, b, layout, np.int64(out.size), ACC[dtype](alpha)))
    return layout


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("case", ["contiguous", "transposed", "flipped", "broadcast"])
def test_layout_operands(dtype, case):
    rng = np.random.default_rng(5)
    base_a = rng.standard_normal((6, 5, 4)).astype(dtype)
    base_b = rng.standard_normal((6, 5, 4)).astype(dtype)
    a, b = {"contiguous": (base_a, base_b),
            "transposed": (base_a.transpose(2, 0, 1), base_b.transpose(2, 0, 1)),
            "flipped": (base_a[::-1, :, ::-2], base_b[:, ::-1, 1::2]),
            "broadcast": (base_a[:, :1, :], base_b[0, 0, :])}[case]
    shape = np.broadcast_shapes(a.shape, b.shape)
    # the output is a strided view too: every other element of a buffer of NaNs
    buffer = np.full((2 * int(np.prod(shape)),), np.nan, dtype)
    out = buffer[::2].reshape(shape) if case != "flipped" else buffer[-2::-2].reshape(shape)
    layout = launch_add_scaled(out, a, b, 0.5)
    expected = a.astype(np.float64) + 0.5 * b.astype(np.float64)
    np.testing.assert_allclose(out, expected, rtol={"float16": 2e-3}.get(dtype, 1e-6), atol=1e-3)
    assert np.isnan(buffer[1::2]).all()  # nothing written between the view's elements
    if case == "contiguous":
        assert layout["ndim"] == 1  # merged into one dim


def test_layout_by_value_reaches_the_kernel_field_for_field():
    # Sizes that do not merge, strides of all signs: an element lands where NumPy puts it
    # only if the struct arrives with the same layout and padding as LAYOUT_DTYPE.
    rng = np.random.default_rng(6)
    a = rng.standard_normal((3, 4, 5))[::-1, :, ::2]  # negative, then non-unit strides
    b = rng.standard_normal((4, 1))
    out = np.zeros((3, 4, 3)).transpose(1, 0, 2).copy().transpose(1, 0, 2)
    layout = launch_add_scaled(out, a, b, -2.0)
    assert layout["ndim"] == 3 and layout.dtype == LAYOUT_DTYPE
    np.testing.assert_allclose(out, a - 2.0 * b, rtol=1e-12)


# ---- argument guards ------------------------------------------------------------------------

@pytest.fixture
def add_scaled_args():
    x = np.ones((4, 3), np.float32)
    layout = elementwise_layout(x.shape, [element_strides(x)] * 3)
    return [x, x.copy(), x.copy(), layout, np.int64(x.size), np.float32(1.0)]


@pytest.mark.parametrize("position, bad, message", [
    (4, 12, "pass a NumPy scalar"),                          # Python int for long long
    (5, 1.0, "pass a NumPy scalar"),                         # Python float for float
    (1, np.ones((4, 3)), "array of float64 for a pointer to f4"),
    (4, np.int32(12), "int32 scalar (i4) for a parameter of type i8"),
    (5, np.float64(1.0), "float64 scalar (f8) for a parameter of type f4"),
    (3, np.zeros((), [("size", np.int64, (40,))])[()], "for a parameter of type V328"),
    (2, [1.0] * 12, "expected an array for a pointer"),
])
def test_argument_of_the_wrong_type_is_refused(add_scaled_args, position, bad, message):
    add_scaled_args[position] = bad
    with pytest.raises(TypeError, match=re.escape(message)):
        kernel("broadcast.cu", "add_scaled<float>")((1,), (32,), tuple(add_scaled_args))


def test_wrong_argument_count_and_unknown_kernel_are_refused(add_scaled_args):
    with pytest.raises(TypeError, match="takes 6 arguments"):
        kernel("broadcast.cu", "add_scaled<float>")((1,), (32,), tuple(add_scaled_args[:5]))
    with pytest.raises(CpuKernelError, match="not among the name expressions"):
        probe("broadcast.cu").get_function("add_scaled<int>")


# ---- hazards the emulator reports -----------------------------------------------------------

HAZARDS = os.path.join(PROBES, "hazards.cu")


def test_planted_write_past_dynamic_shared_memory():
    out = np.zeros(32, np.float32)
    fill = kernel("hazards.cu", "fill_dynamic_shared")
    fill((1,), (32,), (out, np.int32(2)), shared_mem=32 * 2 * 4)  # enough: runs clean
    np.testing.assert_array_equal(out, 0.0)
    with pytest.raises(CpuKernelError, match="write past the 128 bytes of dynamic shared memory"):
        fill((1,), (32,), (out, np.int32(2)), shared_mem=32 * 4)
    with pytest.raises(CpuKernelError, match="a launch gets at most 49152"):
        fill((1,), (32,), (out, np.int32(2)), shared_mem=48 * 1024 + 1)  # as a GPU refuses


def test_planted_divergent_barrier():
    with pytest.raises(CpuKernelError, match="divergent __syncthreads") as error:
        kernel("hazards.cu", "divergent_barrier")((1,), (64,), (np.zeros(64, np.float32),))
    for line in lines_in_function(HAZARDS, "divergent_barrier", "__syncthreads()"):
        assert f"hazards.cu:{line}:" in str(error.value)


def test_planted_exit_before_barrier():
    args = ((1,), (64,), (np.zeros(64, np.float32), np.int32(40)))
    with pytest.raises(CpuKernelError, match="exited before the rest of their block") as error:
        kernel("hazards.cu", "exit_before_barrier")(*args)
    barrier = lines_in_function(HAZARDS, "exit_before_barrier", "__syncthreads()")[0]
    assert f"hazards.cu:{barrier}:" in str(error.value)
    with pytest.warns(RuntimeWarning, match="exited before"):
        probe("hazards.cu", allow_warnings=True).get_function("exit_before_barrier")(*args)


def test_planted_shuffle_with_an_exited_lane():
    with pytest.raises(CpuKernelError, match="exited") as error:
        kernel("hazards.cu", "shuffle_after_exit")((1,), (32,), (np.zeros(32, np.float32),
                                                                  np.int32(20)))
    assert f"hazards.cu:{line_of(HAZARDS, '__shfl_down_sync')}:" in str(error.value)


def test_static_shared_memory_starts_undefined_in_every_block():
    out = np.zeros(3 * 64, np.float32)
    kernel("hazards.cu", "read_before_write_shared")((3,), (64,), (out,))
    assert np.isnan(out).all()  # not the previous block's values: every block reads NaN


# ---- sanitizers -----------------------------------------------------------------------------

REDUCE = os.path.join(PROBES, "reduce.cu")


def planted_source(marker, edit):
    """reduce.cu with ``edit`` applied to the line marked ``planted: <marker>``; the lines
    keep their numbers, so a report names the line of reduce.cu where the bug is."""
    lines = open(REDUCE).read().split("\n")
    number = line_of(REDUCE, f"planted: {marker}")
    lines[number - 1] = edit(lines[number - 1])
    return "\n".join(lines)


# The child builds the planted source under the name of reduce.cu: reports name that file,
# and the sanitized library is cached across runs like any other.
CHILD = textwrap.dedent("""
    import sys
    import numpy as np
    from autograd_cy.cuda.emulator import CpuModule
    from autograd_cy.cuda.sources import include_options

    def block_sum(code, n):
        module = CpuModule(code=code, name=REDUCE, options=include_options(),
                           name_expressions=["block_sum<float>"])
        x = np.arange(n, dtype=np.float32)
        partial = np.zeros(2, np.float32)
        module.get_function("block_sum<float>")((2,), (64,), (x, partial, np.int64(n)))
        return partial.sum(), x.astype(np.float64).sum()
""")


def run_sanitized(kind, script):
    script = f"REDUCE = {REDUCE!r}\n" + CHILD + textwrap.dedent(script)
    return subprocess.run([sys.executable, "-c", script], cwd=ROOT, env=sanitizer_env(kind),
                          capture_output=True, text=True, timeout=300)


def test_planted_race_reported_by_tsan_and_correct_kernel_clean():
    racy = planted_source("barrier", lambda line: "")  # the barrier removed
    result = run_sanitized("thread", f"""
        got, want = block_sum(open(REDUCE).read(), 300)
        assert got == want, (got, want)
        print("correct kernel done", file=sys.stderr, flush=True)
        block_sum({racy!r}, 300)
    """)
    clean, _, planted = result.stderr.partition("correct kernel done")
    assert _ and "ThreadSanitizer" not in clean, result.stderr
    assert result.returncode == 66, result.stderr  # TSan's exit status: it reported
    assert "WARNING: ThreadSanitizer: data race" in planted, result.stderr
    # both sides of the race, by the .cu line: a warp's slot written, warp 0 reading it
    assert f"{REDUCE}:{line_of(REDUCE, 'planted: read')}" in planted, planted
    assert f"{REDUCE}:{line_of(REDUCE, 'planted: write')}" in planted, planted


def test_sanitized_build_needs_the_runtime_preloaded():
    # the sanitizer whose runtime this process lacks (under make sanitize it has one)
    kind = "address" if os.environ.get(SANITIZE_ENV) == "thread" else "thread"
    with pytest.raises(CpuKernelError, match=re.escape(f"env=sanitizer_env({kind!r})")):
        CpuModule(code="", sanitize=kind)


def test_planted_overflow_reported_by_asan():
    overflow = planted_source("bound", lambda line: line.replace("i < n", "i <= n"))
    result = run_sanitized("address", f"block_sum({overflow!r}, 300)")
    assert result.returncode == 67, result.stderr  # ASan's exit status: it reported
    assert "ERROR: AddressSanitizer: heap-buffer-overflow" in result.stderr, result.stderr
    assert f"{REDUCE}:{line_of(REDUCE, 'planted: load')}" in result.stderr, result.stderr
