"""The launch guards: a bad launch raises before it reaches the device, naming the kernel
and the argument (on a GPU these would be silent misreads or bare CUDA error codes)."""
import numpy as np
import pytest

import autograd_cy as ag
from autograd_cy.cuda import launch
from autograd_cy.cuda.layout import elementwise_layout
from autograd_cy.cuda.seam import EmulatedSeam

KERNEL = "cast<float, float>"


@pytest.fixture
def seam():
    return ag.cuda.devices.get(0).seam


def arrays(seam, n=4, dtype=np.float32):
    return seam.empty((n,), dtype), seam.from_host(np.arange(n, dtype=dtype))


def layout(n=4):
    return elementwise_layout((n,), [(1,), (1,)])


def test_a_correct_launch_runs(seam):
    out, x = arrays(seam)
    seam.launch(KERNEL, (1,), (32,), (layout(), np.int64(4), out, x))
    assert seam.to_host(out).tolist() == [0.0, 1.0, 2.0, 3.0]


def test_a_python_number_for_a_sized_parameter_is_refused(seam):
    out, x = arrays(seam)
    with pytest.raises(launch.KernelLaunchError,
                       match=r"cast<float, float>: argument 1 \(int64\) is a Python int; pass "
                             r"numpy.int64: CuPy passes a Python number as 8 bytes"):
        seam.launch(KERNEL, (1,), (32,), (layout(), 4, out, x))


def test_a_scalar_of_the_wrong_width_is_refused(seam):
    out, x = arrays(seam)
    with pytest.raises(launch.KernelLaunchError, match=r"argument 1 \(int64\) must be a "
                                                       r"numpy.int64 scalar, got int32"):
        seam.launch(KERNEL, (1,), (32,), (layout(), np.int32(4), out, x))


def test_an_array_of_the_wrong_dtype_is_refused(seam):
    out, _ = arrays(seam)
    x64 = seam.from_host(np.arange(4, dtype=np.float64))
    with pytest.raises(launch.KernelLaunchError, match=r"cast<float, float>: argument 3 "
                                                       r"\(ptr:float32\) must be an array of "
                                                       r"float32, got float64"):
        seam.launch(KERNEL, (1,), (32,), (layout(), np.int64(4), out, x64))


def test_the_layout_struct_is_checked(seam):
    out, x = arrays(seam)
    with pytest.raises(launch.KernelLaunchError, match=r"argument 0 \(Layout\) must be the "
                                                       r"Layout struct"):
        seam.launch(KERNEL, (1,), (32,), (np.int64(0), np.int64(4), out, x))


def test_argument_count(seam):
    out, x = arrays(seam)
    with pytest.raises(launch.KernelLaunchError, match=r"cast<float, float> takes 4 arguments"):
        seam.launch(KERNEL, (1,), (32,), (layout(), np.int64(4), out))


@pytest.mark.parametrize("grid, block, words", [
    ((1,), (2048,), "2048 threads; CUDA allows 1 to 1024"),
    ((1,), (0,), "0 threads"),
    ((0,), (32,), "outside CUDA's limits"),
    ((1, 70000), (32,), "outside CUDA's limits"),
    ((2 ** 31,), (32,), "outside CUDA's limits"),
])
def test_grid_and_block_limits(seam, grid, block, words):
    out, x = arrays(seam)
    with pytest.raises(launch.KernelLaunchError, match=words):
        seam.launch(KERNEL, grid, block, (layout(), np.int64(4), out, x))


def test_a_kernel_missing_from_the_manifest(seam):
    with pytest.raises(KeyError, match="is not in the manifest"):
        seam.launch("no_such<float>", (1,), (32,), ())


def test_index_type_limits():
    assert launch.index_fits(2 ** 31 - 1, "int32") and not launch.index_fits(2 ** 31, "int32")
    assert launch.index_fits(2 ** 40, "int64")


def test_the_launch_configuration_respects_the_seam(seam):
    grid, block = launch.elementwise_config(10 ** 6, seam)
    assert block[0] <= seam.max_block_size and grid[0] <= seam.max_grid_size
    assert launch.elementwise_config(1, seam)[0] == (1,)


def test_the_emulated_seam_records_streams_and_events():
    """What the emulated device can show of streams (NOTE [Streams on the emulated device]):
    the stream each launch went to, and the events recorded and waited on. An emulated seam
    of its own, so that the test means the same under make test-gpu (whose cuda:0 is real)."""
    seam = EmulatedSeam(0)
    default = seam.current_stream()
    side = seam.new_stream()
    out, x = arrays(seam)
    try:
        seam.use_stream(side)
        seam.launch(KERNEL, (1,), (32,), (layout(), np.int64(4), out, x))
        event = seam.record_event(side)
    finally:
        seam.use_stream(default)
    seam.wait_event(default, event)
    seam.launch(KERNEL, (1,), (32,), (layout(), np.int64(4), out, x))
    assert list(seam.launch_log)[-2:] == [(KERNEL, side.number), (KERNEL, default.number)]
    assert event.stream is side and event.launches == side.launches == 1
    assert default.waited[-1] is event
