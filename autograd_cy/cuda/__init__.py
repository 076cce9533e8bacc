"""``autograd_cy.cuda``: CUDA devices, as ``torch.cuda`` names them.

Which devices exist depends on the environment variable ``AUTOGRAD_CY_CUDA``:

- unset or ``auto``: the GPUs CuPy finds (none without CuPy or a driver);
- ``emulate`` (or ``emulate:N`` for N devices): CUDA devices emulated on the CPU, with the
  same kernels run through the emulator (autograd_cy/cuda/emulator), for tests without a GPU;
- ``off``: no devices.

Each device is reached through its seam (seam.py); a CUDA tensor holds a DeviceArray
(array.py) whose NumPy-protocol methods launch the kernels of ``cuda/*.cu``.
"""
import os

import numpy as np

from autograd_cy._C import device as _core_device
from autograd_cy.cuda.array import CudaDevice, DeviceArray, empty, from_host
# The modules that register the array's operations (NOTE [The array's operations]).
from autograd_cy.cuda import dispatch as _dispatch  # noqa: F401
from autograd_cy.cuda import indexing as _indexing  # noqa: F401
from autograd_cy.cuda.backend import CudaBackend

__all__ = ["is_available", "device_count", "current_device", "set_device", "synchronize",
           "manual_seed", "manual_seed_all", "initial_seed", "get_rng_state", "set_rng_state",
           "get_rng_state_all", "set_rng_state_all", "get_device_name",
           "DeviceArray", "Stream", "Event", "StreamContext", "current_stream",
           "default_stream", "set_stream", "stream"]

_devices = None
_current = 0
_seed = 0
# The Philox stream offset of each device, in 32-bit words (NOTE [Philox4x32-10] in
# cuda/random.cu): every random launch starts where the previous one stopped.
_offsets = {}
# A device whose state was set by set_rng_state draws from that state's seed, not _seed.
_device_seeds = {}


def _mode():
    value = os.environ.get("AUTOGRAD_CY_CUDA", "auto").strip().lower()
    if value.startswith("emulate"):
        _, _, count = value.partition(":")
        return "emulate", int(count or 1)
    return value, None


def _all_devices():
    """The devices of this process, found once."""
    global _devices
    if _devices is None:
        mode, count = _mode()
        if mode == "emulate":
            from autograd_cy.cuda.seam import EmulatedSeam
            _devices = [CudaDevice(i, EmulatedSeam(i)) for i in range(count)]
        elif mode == "off":
            _devices = []
        else:
            _devices = _real_devices()
    return _devices


def _real_devices():
    try:
        import cupy
        count = cupy.cuda.runtime.getDeviceCount()
    except Exception:           # no CuPy, no driver, no GPU: no devices
        return []
    from autograd_cy.cuda.seam import CupySeam
    return [CudaDevice(i, CupySeam(i)) for i in range(count)]


def is_available():
    """Whether a CUDA device (real or emulated) can be used."""
    return bool(_all_devices())


def device_count():
    return len(_all_devices())


def current_device():
    return _current


def set_device(device):
    """Make ``device`` (an index, ``"cuda:N"`` or a device) the default for ``"cuda"``."""
    global _current
    index = _index_of(device)
    if index is not None:
        _device(index)
        _current = index


def get_device_name(device=None):
    seam = _device(_current if device is None else _index_of(device)).seam
    return type(seam).__name__.replace("Seam", "") + " CUDA device"


def synchronize(device=None):
    """Wait for every launch on ``device`` (the current one by default) to finish."""
    _device(_current if device is None else _index_of(device)).seam.synchronize()


def manual_seed(seed):
    """Seed the CUDA generator (the random ops that run on the device) and rewind every
    device's stream to its start, so the same calls draw the same numbers again."""
    global _seed
    _seed = int(seed) & 0xFFFFFFFFFFFFFFFF
    _offsets.clear()
    _device_seeds.clear()


def _philox_offset(index, words):
    """The stream offset a launch on cuda:index drawing ``words`` 32-bit words starts at;
    the device's offset moves past them (rounded up to whole Philox counters of 4 words)."""
    offset = _offsets.get(index, 0)
    _offsets[index] = offset + (words + 3) // 4 * 4
    return offset


def _device_seed(index):
    """The Philox seed random launches on cuda:index use."""
    return _device_seeds.get(index, _seed)


_STATE_SIZE = 16


def get_rng_state(device="cuda"):
    """The generator state of ``device`` (``torch.cuda.get_rng_state``): a uint8 tensor (on
    the CPU) of its Philox seed and stream offset; ``set_rng_state`` replays from there."""
    from autograd_cy._C.tensor import _wrap_array
    index = _index_of(device)
    _device(index)
    seed, offset = _raw_rng_state(index)
    packed = seed.to_bytes(8, "little") + offset.to_bytes(8, "little")
    return _wrap_array(np.frombuffer(packed, np.uint8).copy())


def set_rng_state(new_state, device="cuda"):
    """Restore ``device``'s generator to a state taken by ``get_rng_state``."""
    from autograd_cy.factories import _rng_state_bytes
    index = _index_of(device)
    _device(index)
    packed = _rng_state_bytes(new_state, _STATE_SIZE, "PhiloxCudaState")
    _set_raw_rng_state(index, (int.from_bytes(packed[:8], "little"),
                               int.from_bytes(packed[8:], "little")))


def _raw_rng_state(index):
    """(seed, offset) of cuda:index: what ``get_rng_state`` packs."""
    return _device_seed(index), _offsets.get(index, 0)


def _set_raw_rng_state(index, raw):
    _device_seeds[index], _offsets[index] = raw


def get_rng_state_all():
    """``get_rng_state`` of every device, in index order."""
    return [get_rng_state(index) for index in range(device_count())]


def set_rng_state_all(new_states):
    """``set_rng_state`` of every device from the list ``get_rng_state_all`` returned."""
    for index, state in enumerate(new_states):
        set_rng_state(state, index)


def manual_seed_all(seed):
    manual_seed(seed)


def initial_seed():
    return _seed


def _index_of(device):
    if device is None:
        return None
    if isinstance(device, int):
        return device
    device = _core_device.device(device)
    if device.type != "cuda":
        raise ValueError(f"Expected a cuda device, but got: {device}")
    return _current if device.index is None else device.index


def _device(index):
    devices = _all_devices()
    if not devices:
        raise RuntimeError(
            "Found no NVIDIA driver on your system. Please check that you have an NVIDIA GPU "
            "and installed a driver (or set AUTOGRAD_CY_CUDA=emulate to run the CUDA backend "
            "on an emulated device)")
    if not 0 <= index < len(devices):
        raise RuntimeError("CUDA error: invalid device ordinal")
    return devices[index]


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


class _CoreBridge(CudaBackend):
    """The CUDA backend the core asks (NOTE [The CUDA backend slot] in pyx/device.pyx): the
    fused launches of CudaBackend, and what it asks when an array changes device or a
    backward runs on streams."""

    @staticmethod
    def to_cuda(array, index):
        """A copy of ``array`` (NumPy or a DeviceArray of another device) on cuda:index."""
        device = _device(_current if index is None else index)
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
        return DeviceNamespace(_device(index))

    @staticmethod
    def device_index(index):
        """The index a tensor made for ``cuda`` / ``cuda:N`` gets (checked)."""
        index = _current if index is None else index
        _device(index)
        return index

    # the engine's stream rules (the core's NOTE [Streams of backward]), in seam streams
    @staticmethod
    def current_stream(index):
        return _device(index).seam.current_stream()

    @staticmethod
    def current_streams():
        """The current stream of every device: what backward's caller left current."""
        return {i: d.seam.current_stream() for i, d in enumerate(_all_devices())}

    @staticmethod
    def default_stream(index):
        return _device(index).seam.default_stream()

    @staticmethod
    def use_stream(index, stream):
        _device(index).seam.use_stream(stream)

    @staticmethod
    def wait_stream(index, waiter, producer):
        """``waiter`` waits for what ``producer`` has queued so far: an event between them."""
        seam = _device(index).seam
        seam.wait_event(waiter, seam.record_event(producer))


_core_device.set_cuda_backend(_CoreBridge())

from autograd_cy.cuda.streams import (  # noqa: E402  (streams use _device above)
    Event, Stream, StreamContext, current_stream, default_stream, set_stream, stream)
