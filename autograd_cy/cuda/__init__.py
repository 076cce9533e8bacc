"""``autograd_cy.cuda``: CUDA devices, as ``torch.cuda`` names them.

This module re-exports torch.cuda's API and fills the core's CUDA backend slot
(``_CoreBridge``); the state lives below it. Which devices exist (``AUTOGRAD_CY_CUDA``: the
GPUs CuPy finds, ``emulate[:N]`` devices emulated on the CPU, or ``off``), which one is
current, and each device's own state (generator, streams through its seam, device-side
assert word) are devices.py's (NOTE [Device state lives on the device]).

Each device is reached through its seam (seam.py); a CUDA tensor holds a DeviceArray
(array.py) whose NumPy-protocol methods launch the kernels of ``cuda/*.cu``. The modules of
the package import each other at module level and in no circle (tests/test_layers.py); the
order is in docs/architecture.md ("The CUDA backend").
"""
import numpy as np

from autograd_cy._C import device as _core_device
from autograd_cy.rng_state import state_bytes, state_tensor
from autograd_cy.cuda import devices
from autograd_cy.cuda.array import DeviceArray, empty, from_host
# The modules that register the array's operations (NOTE [The array's operations]).
from autograd_cy.cuda import dispatch as _dispatch  # noqa: F401
from autograd_cy.cuda import indexing as _indexing  # noqa: F401
from autograd_cy.cuda.backend import CudaBackend
from autograd_cy.cuda.streams import (
    Event, Stream, StreamContext, current_stream, default_stream, set_stream, stream)

__all__ = ["is_available", "device_count", "current_device", "set_device", "synchronize",
           "manual_seed", "manual_seed_all", "initial_seed", "get_rng_state", "set_rng_state",
           "get_rng_state_all", "set_rng_state_all", "get_device_name",
           "DeviceArray", "Stream", "Event", "StreamContext", "current_stream",
           "default_stream", "set_stream", "stream"]


def is_available():
    """Whether a CUDA device (real or emulated) can be used."""
    return bool(devices.all_devices())


def device_count():
    return len(devices.all_devices())


def current_device():
    return devices.current_index()


def set_device(device):
    """Make ``device`` (an index, ``"cuda:N"`` or a device) the default for ``"cuda"``; None
    or a negative index changes nothing, as torch's."""
    if device is not None:
        index = devices.index_of(device)
        if index >= 0:
            devices.set_current(index)


def get_device_name(device=None):
    seam = devices.get(devices.index_of(device)).seam
    return type(seam).__name__.replace("Seam", "") + " CUDA device"


def synchronize(device=None):
    """Wait for every launch on ``device`` (the current one by default) to finish."""
    devices.get(devices.index_of(device)).seam.synchronize()


def manual_seed(seed):
    """Seed the CUDA generator (the random ops that run on the device) and rewind every
    device's stream to its start, so the same calls draw the same numbers again."""
    devices.manual_seed(seed)


def manual_seed_all(seed):
    manual_seed(seed)


def initial_seed():
    return devices.initial_seed()


_STATE_SIZE = 16


def get_rng_state(device="cuda"):
    """The generator state of ``device`` (``torch.cuda.get_rng_state``): a uint8 tensor (on
    the CPU) of its Philox seed and stream offset; ``set_rng_state`` replays from there."""
    seed, offset = devices.get(devices.index_of(device)).rng_state
    packed = seed.to_bytes(8, "little") + offset.to_bytes(8, "little")
    return state_tensor(packed)


def set_rng_state(new_state, device="cuda"):
    """Restore ``device``'s generator to a state taken by ``get_rng_state``."""
    target = devices.get(devices.index_of(device))
    packed = state_bytes(new_state, _STATE_SIZE, "PhiloxCudaState")
    target.rng_state = (int.from_bytes(packed[:8], "little"),
                        int.from_bytes(packed[8:], "little"))


def get_rng_state_all():
    """``get_rng_state`` of every device, in index order."""
    return [get_rng_state(index) for index in range(device_count())]


def set_rng_state_all(new_states):
    """``set_rng_state`` of every device from the list ``get_rng_state_all`` returned."""
    for index, state in enumerate(new_states):
        set_rng_state(state, index)


class DeviceNamespace:
    """``np.zeros``-like factories that make DeviceArrays on one device."""

    def __init__(self, device):
        self.device = device

    def empty(self, shape, dtype=np.float64):
        return empty(shape if isinstance(shape, tuple) else (shape,), dtype, self.device)

    def full(self, shape, fill_value, dtype=None):
        result = self.empty(shape, np.result_type(fill_value) if dtype is None else dtype)
        result.fill(fill_value)
        return result

    def zeros(self, shape, dtype=np.float64):
        return self.full(shape, 0, dtype)

    def ones(self, shape, dtype=np.float64):
        return self.full(shape, 1, dtype)

    def array(self, source, dtype=None, order="K", copy=True):
        """``np.array`` on this device. A DeviceArray is copied on the device (row-major;
        not at all with ``copy=False`` when nothing changes); host data is sent over (an
        explicit upload, never a download)."""
        if isinstance(source, DeviceArray):
            if source.device is not self.device:
                source = _CoreBridge.to_cuda(source, self.device.id)
            return source.astype(source.dtype if dtype is None else dtype, copy=copy)
        return from_host(np.array(source, dtype=dtype, order=order), self.device)

    # the *_like functions take a DeviceArray: NumPy's dispatch reaches the device (and keeps
    # the prototype's layout: NOTE [Layout of empty_like] in array.py)
    empty_like = staticmethod(np.empty_like)
    zeros_like = staticmethod(np.zeros_like)
    ones_like = staticmethod(np.ones_like)
    full_like = staticmethod(np.full_like)
    broadcast_to = staticmethod(np.broadcast_to)


class _CoreBridge(CudaBackend):
    """The CUDA backend the core asks (NOTE [The CUDA backend slot] in pyx/device.pyx): the
    fused launches of CudaBackend, and what it asks when an array changes device or a
    backward runs on streams."""

    @staticmethod
    def to_cuda(array, index):
        """A copy of ``array`` (NumPy or a DeviceArray of another device) on cuda:index."""
        device = devices.get(index)
        if isinstance(array, DeviceArray):
            if array.device is device:
                return array
            array = array.get()
        return from_host(array, device)

    @staticmethod
    def to_host(array):
        return array.get()

    @staticmethod
    def namespace(index):
        """The NumPy-like factories of cuda:index (what ``array_module`` gives the core)."""
        return DeviceNamespace(devices.get(index))

    @staticmethod
    def device_index(index):
        """The index a tensor made for ``cuda`` / ``cuda:N`` gets (checked)."""
        return devices.get(index).id

    # the engine's stream rules (the core's NOTE [Streams of backward]), in seam streams
    @staticmethod
    def current_stream(index):
        return devices.get(index).seam.current_stream()

    @staticmethod
    def current_streams():
        """The current stream of every device: what backward's caller left current."""
        return {i: d.seam.current_stream() for i, d in enumerate(devices.all_devices())}

    @staticmethod
    def default_stream(index):
        return devices.get(index).seam.default_stream()

    @staticmethod
    def use_stream(index, stream):
        devices.get(index).seam.use_stream(stream)

    @staticmethod
    def wait_stream(index, waiter, producer):
        """``waiter`` waits for what ``producer`` has queued so far: an event between them."""
        seam = devices.get(index).seam
        seam.wait_event(waiter, seam.record_event(producer))



_core_device.set_cuda_backend(_CoreBridge())
