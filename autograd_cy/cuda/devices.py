"""The CUDA devices of this process: which exist, which one is current, and each one's state.

Which devices exist depends on the environment variable ``AUTOGRAD_CY_CUDA`` (read once, at
the first question about devices):

- unset or ``auto``: the GPUs CuPy finds (none without CuPy or a driver);
- ``emulate`` (or ``emulate:N`` for N devices): CUDA devices emulated on the CPU, with the
  same kernels run through the emulator (autograd_cy/cuda/emulator), for tests without a GPU;
- ``off``: no devices.

NOTE [Device state lives on the device]
Everything that belongs to one device is an attribute of its ``CudaDevice``: the seam (and
through it the device's streams), its Philox generator (``seed`` and ``philox_offset``),
and its device-side assert word (NOTE [Device-side asserts] in cuda/loss.cu). What is left
here belongs to the process: the list of devices, the current index, and the seed the last
``manual_seed`` set (``initial_seed``), which a device made later starts from. The modules
above reach a device through ``get`` and then only talk to it, so random.py and rows.py
import nothing of this module, and none of them keeps a table keyed by device index.
"""
import os

from autograd_cy._C import device as _core_device
from autograd_cy.cuda.seam import CupySeam, EmulatedSeam

_devices = None         # the CudaDevices, found at the first question (all_devices)
_current = 0            # the index "cuda" means (set_device)
_seed = 0               # what manual_seed set last: every device's seed until set_rng_state


class CudaDevice:
    """One device: its index (``.id``, as CuPy names it), its seam, its Philox generator
    (``seed``, ``philox_offset``) and its device-side assert word (NOTE [Device state lives
    on the device])."""

    __slots__ = ("id", "seam", "seed", "philox_offset", "assert_word", "assert_armed")

    def __init__(self, index, seam, seed=0):
        self.id = index
        self.seam = seam
        self.seed = seed
        self.philox_offset = 0
        self.assert_word = None     # a DeviceArray of one int64, made by rows.py on first use
        self.assert_armed = False   # whether the next host read must check the word

    def reseed(self, seed):
        """Start the generator over from ``seed`` (``manual_seed``)."""
        self.seed, self.philox_offset = seed, 0

    def take_philox_offset(self, words):
        """The stream offset (in 32-bit words) a launch drawing ``words`` words starts at; the
        device's offset moves past them, rounded up to whole Philox counters of 4 words
        (NOTE [Philox4x32-10] in cuda/random.cu)."""
        offset = self.philox_offset
        self.philox_offset = offset + (words + 3) // 4 * 4
        return offset

    @property
    def rng_state(self):
        """(seed, offset): what ``get_rng_state`` packs, cheap to take and compare."""
        return self.seed, self.philox_offset

    @rng_state.setter
    def rng_state(self, state):
        self.seed, self.philox_offset = state

    def __repr__(self):
        return f"<CUDA Device {self.id}>"


def _mode():
    value = os.environ.get("AUTOGRAD_CY_CUDA", "auto").strip().lower()
    if value.startswith("emulate"):
        _, _, count = value.partition(":")
        return "emulate", int(count or 1)
    return value, None


def all_devices():
    """The devices of this process, found once."""
    global _devices
    if _devices is None:
        mode, count = _mode()
        if mode == "emulate":
            _devices = [CudaDevice(i, EmulatedSeam(i), _seed) for i in range(count)]
        elif mode == "off":
            _devices = []
        else:
            _devices = _real_devices()
    return _devices


def _real_devices():
    try:
        # CuPy is optional (a CPU install has none), so it is imported only here, when asked
        import cupy
        count = cupy.cuda.runtime.getDeviceCount()
    except Exception:           # no CuPy, no driver, no GPU: no devices
        return []
    return [CudaDevice(i, CupySeam(i), _seed) for i in range(count)]


def get(index=None):
    """The device cuda:index (the current device for None), with torch's errors."""
    devices = all_devices()
    if not devices:
        raise RuntimeError(
            "Found no NVIDIA driver on your system. Please check that you have an NVIDIA GPU "
            "and installed a driver (or set AUTOGRAD_CY_CUDA=emulate to run the CUDA backend "
            "on an emulated device)")
    index = _current if index is None else index
    if not 0 <= index < len(devices):
        raise RuntimeError("CUDA error: invalid device ordinal")
    return devices[index]


def index_of(device):
    """The index ``device`` names: an int, ``"cuda"``/``"cuda:N"`` or a device; None and
    ``"cuda"`` name the current device. Not checked against the devices (``get`` does)."""
    if device is None:
        return _current
    if isinstance(device, int):
        return device
    device = _core_device.device(device)
    if device.type != "cuda":
        raise ValueError(f"Expected a cuda device, but got: {device}")
    return _current if device.index is None else device.index


def current_index():
    """The index of the current device (``torch.cuda.current_device``)."""
    return _current


def set_current(index):
    """Make cuda:index (checked) the device ``"cuda"`` means."""
    global _current
    get(index)
    _current = index


def manual_seed(seed):
    """Seed every device's generator (those found later too) and rewind its stream."""
    global _seed
    _seed = int(seed) & 0xFFFFFFFFFFFFFFFF
    for device in _devices or ():
        device.reseed(_seed)


def initial_seed():
    """The seed the last ``manual_seed`` set (0 before any)."""
    return _seed
