"""The seam: the one narrow object through which the CUDA backend reaches a device.

Everything the backend does to a device goes through these methods: allocate, copy to and
from the host, launch a kernel of the manifest, BLAS matmul, synchronize, and streams and
events (new_stream, current_stream, default_stream, use_stream, record_event, wait_event,
stream and event queries). Two seams exist:

- ``CupySeam`` drives a real GPU through CuPy: memory from CuPy's pool, kernels from one
  ``cupy.RawModule`` per ``.cu`` file per device (loader.py), matmul through cuBLAS;
- ``EmulatedSeam`` (``AUTOGRAD_CY_CUDA=emulate``) holds NumPy buffers and runs every launch
  on the CPU through the emulator, the unchanged ``.cu`` source compiled by g++.

A raw array is the seam's strided array type (``cupy.ndarray`` or ``numpy.ndarray``); the
layers above read only its metadata (shape, strides, dtype) and hand it back to the seam.
Above the seam (DeviceArray, dispatch, launch configuration, layouts, dtypes, the engine)
the code is the same for both, so the emulated device runs the whole GPU op path in CI.

Both seams count what crosses them (``counters``: launches, bytes allocated and copied), which
the benchmarks report where no GPU can time anything.
"""
import collections
import os
import time

import numpy as np

from autograd_cy.cuda import launch as launch_rules
from autograd_cy.cuda.emulator import load_kernel_file
from autograd_cy.cuda.loader import KernelLoader
from autograd_cy.cuda.manifest import lookup


def touched_bytes(raw):
    """The bytes of device memory an array argument spans: a broadcast dimension (stride
    0) counts once, so an operand read through a broadcast is counted at its own size."""
    count = raw.itemsize
    for extent, stride in zip(raw.shape, raw.strides):
        if extent == 0:
            return 0
        if stride != 0:
            count *= extent
    return count


class SeamCounters:
    """What crossed the seam since the last ``reset``: launches by kernel, bytes copied,
    and ``kernel_bytes``, the device memory the launches' array arguments span (what a
    kernel reads and writes once, if it touches each element once)."""

    def __init__(self):
        self.reset()

    def reset(self):
        self.launches = 0
        self.by_kernel = {}
        self.host_to_device_bytes = 0
        self.device_to_host_bytes = 0
        self.allocated_bytes = 0
        self.kernel_bytes = 0

    def record_launch(self, name):
        self.launches += 1
        self.by_kernel[name] = self.by_kernel.get(name, 0) + 1


class Seam:
    """What both seams share: the launch guards and the counters."""

    #: the caps of a launch configuration (the emulated device uses small ones: its launches
    #: cost time per thread, and grid-stride loops keep any configuration right)
    max_block_size = 1024
    max_grid_size = 65535
    #: dtypes this seam's arrays cannot hold, with the reason (array.require_storage)
    unsupported_dtypes = {}

    def __init__(self, index):
        self.index = index
        self.counters = SeamCounters()

    def launch(self, name, grid, block, args, shared_mem=0):
        """Launch the manifest kernel ``name`` after checking every argument against its
        parameter list (launch.check_launch: errors name the kernel and the argument)."""
        kernel = lookup(name)
        grid, block = launch_rules.check_launch(kernel, grid, block, args, shared_mem, self)
        self.counters.record_launch(name)
        self.counters.kernel_bytes += sum(touched_bytes(a) for a in args
                                          if isinstance(a, self.raw_type))
        self._launch(kernel, grid, block, args, shared_mem)


class CupySeam(Seam):
    """A real GPU, through CuPy."""

    # The kernels are instantiated for __nv_bfloat16 (and run on the emulated device), but
    # a cupy.ndarray has no bfloat16 dtype to hold ml_dtypes' bfloat16 in.
    unsupported_dtypes = {"bfloat16": "CuPy's arrays have no bfloat16 dtype yet (the kernels "
                                      "are instantiated; keep bfloat16 tensors on the CPU)"}

    def __init__(self, index):
        super().__init__(index)
        import cupy     # optional (a CPU install has none): only a real GPU's seam needs it
        self._cupy = cupy
        self.raw_type = cupy.ndarray
        self._device = cupy.cuda.Device(index)
        self._loader = KernelLoader(index)
        with self._device:
            attributes = self._device.attributes
        self.max_block_size = attributes["MaxThreadsPerBlock"]
        self.max_grid_size = attributes["MaxGridDimX"]

    def empty(self, shape, dtype):
        self.counters.allocated_bytes += int(np.prod(shape)) * np.dtype(dtype).itemsize
        with self._device:
            return self._cupy.empty(shape, dtype)

    def from_host(self, array):
        self.counters.host_to_device_bytes += array.nbytes
        with self._device:
            return self._cupy.asarray(np.asarray(array, order="C"))

    def to_host(self, raw):
        self.counters.device_to_host_bytes += raw.nbytes
        with self._device:
            return self._cupy.asnumpy(raw)

    def as_strided(self, raw, shape, strides, offset_bytes=0):
        """A view of ``raw``'s memory (no copy): the metadata of a DeviceArray view."""
        return self._cupy.ndarray(shape, raw.dtype, memptr=raw.data + offset_bytes,
                                  strides=strides)

    def matmul(self, a, b, out):
        with self._device:
            self._cupy.matmul(a, b, out=out)
        self.counters.record_launch("cublas matmul")
        self.counters.kernel_bytes += touched_bytes(a) + touched_bytes(b) + touched_bytes(out)

    def _launch(self, kernel, grid, block, args, shared_mem):
        function = self._loader.function(kernel)
        with self._device:
            function(grid, block, args, shared_mem=shared_mem)

    def synchronize(self):
        self._device.synchronize()

    # streams and events: CuPy's own (a launch goes to CuPy's current stream)
    def new_stream(self, priority=0):
        with self._device:
            return self._cupy.cuda.Stream(non_blocking=True, priority=priority)

    def current_stream(self):
        with self._device:
            return self._cupy.cuda.get_current_stream()

    def default_stream(self):
        return self._cupy.cuda.Stream.null

    def use_stream(self, stream):
        with self._device:
            stream.use()

    def new_event(self, enable_timing=False, blocking=False):
        return self._cupy.cuda.Event(block=blocking, disable_timing=not enable_timing)

    def record_event(self, stream, event=None):
        with self._device:
            return stream.record(event)

    def wait_event(self, stream, event):
        stream.wait_event(event)

    def event_done(self, event):
        return event.done

    def stream_done(self, stream):
        return stream.done

    def synchronize_event(self, event):
        event.synchronize()

    def synchronize_stream(self, stream):
        stream.synchronize()

    def elapsed_ms(self, start, end):
        return self._cupy.cuda.get_elapsed_time(start, end)

    def stream_handle(self, stream):
        return stream.ptr


class EmulatedStream:
    """A stream of the emulated device: its number, launches issued, events waited on."""

    def __init__(self, number, priority=0):
        self.number = number
        self.priority = priority
        self.launches = 0
        self.waited = []

    def __repr__(self):
        return f"<emulated stream {self.number}>"


class EmulatedEvent:
    """An event: recorded on ``stream`` after its first ``launches`` launches (None until
    recorded), at ``time`` (perf_counter seconds) when it keeps timing."""

    def __init__(self, enable_timing=False):
        self.enable_timing = enable_timing
        self.stream = self.launches = self.time = None


class EmulatedSeam(Seam):
    """A CUDA device emulated on the CPU: NumPy buffers, launches through the emulator."""

    def __init__(self, index):
        super().__init__(index)
        self._streams = [EmulatedStream(0)]      # stream 0: the default stream
        self._current = self._streams[0]
        self.launch_log = collections.deque(maxlen=4096)   # the latest launches

    max_block_size = int(os.environ.get("AUTOGRAD_CY_EMULATE_BLOCK", "32"))
    max_grid_size = int(os.environ.get("AUTOGRAD_CY_EMULATE_GRID", "2"))
    raw_type = np.ndarray

    def empty(self, shape, dtype):
        self.counters.allocated_bytes += int(np.prod(shape)) * np.dtype(dtype).itemsize
        # a fresh buffer filled with a signalling pattern: a kernel that forgets to write
        # an element leaves NaN (floats) or -1 (ints) there, as uninitialised GPU memory may
        array = np.empty(shape, dtype)
        array.reshape(-1).view(np.uint8)[...] = 0xFF
        return array

    def from_host(self, array):
        self.counters.host_to_device_bytes += array.nbytes
        return np.array(array, copy=True, order="C")

    def to_host(self, raw):
        self.counters.device_to_host_bytes += raw.nbytes
        return np.array(raw, copy=True)

    def as_strided(self, raw, shape, strides, offset_bytes=0):
        view = np.asarray(_StridedView(raw, shape, strides, offset_bytes))
        # the interface's typestr names bfloat16 (an ml_dtypes dtype) as 2 raw bytes, "V2":
        # the view takes the dtype back
        return view if view.dtype == raw.dtype else view.view(raw.dtype)

    def matmul(self, a, b, out):
        np.matmul(a, b, out=out)
        self.counters.record_launch("cublas matmul")
        self.counters.kernel_bytes += touched_bytes(a) + touched_bytes(b) + touched_bytes(out)

    def _launch(self, kernel, grid, block, args, shared_mem):
        self._current.launches += 1
        self.launch_log.append((kernel.name, self._current.number))
        function = load_kernel_file(kernel.file).get_function(kernel.name)
        function(grid, block, args, shared_mem=shared_mem)

    def synchronize(self):
        pass

    # NOTE [Streams on the emulated device]
    # Every emulated launch runs to completion before the call returns, so no ordering
    # between streams can go wrong here; what the emulated device can show is which stream
    # each launch was issued to and which events were recorded and waited on. Streams are
    # plain objects with a number; an event remembers its stream and how many launches that
    # stream had seen; `launch_log` keeps (kernel name, stream number) of the latest launches.
    def new_stream(self, priority=0):
        self._streams.append(EmulatedStream(len(self._streams), priority))
        return self._streams[-1]

    def current_stream(self):
        return self._current

    def default_stream(self):
        return self._streams[0]

    def use_stream(self, stream):
        """Make ``stream`` the one launches go to (what ``with stream:`` does on a GPU)."""
        self._current = stream

    def new_event(self, enable_timing=False, blocking=False):
        return EmulatedEvent(enable_timing)

    def record_event(self, stream, event=None):
        event = EmulatedEvent() if event is None else event
        event.stream, event.launches = stream, stream.launches
        if event.enable_timing:
            event.time = time.perf_counter()
        return event

    def wait_event(self, stream, event):
        stream.waited.append(event)

    # every launch has finished when it returns
    def event_done(self, event):
        return True

    def stream_done(self, stream):
        return True

    def synchronize_event(self, event):
        pass

    def synchronize_stream(self, stream):
        pass

    def elapsed_ms(self, start, end):
        return (end.time - start.time) * 1000.0

    def stream_handle(self, stream):
        return stream.number


class _StridedView:
    """A view of a NumPy buffer described by ``__array_interface__``: NumPy builds the array
    without bounds checks (the layers above computed the strides) and keeps ``raw`` alive."""

    def __init__(self, raw, shape, strides, offset_bytes):
        self.raw = raw
        self.__array_interface__ = {
            "shape": tuple(shape), "strides": tuple(strides), "typestr": raw.dtype.str,
            "data": (raw.__array_interface__["data"][0] + offset_bytes, False), "version": 3}
