"""``autograd_cy.accelerator``: torch.accelerator's device-agnostic API, over CUDA, the one
accelerator autograd_cy has (real or emulated, ``autograd_cy.cuda``).

Training scripts pick their device with it (``torch.accelerator.current_accelerator() if
torch.accelerator.is_available() else "cpu"``). Without a device, the calls that need one
raise torch's RuntimeError; ``device_count()`` is 0 and ``current_accelerator()`` None.
"""
from autograd_cy import cuda as _cuda
from autograd_cy.device import device as _device

__all__ = ["current_accelerator", "current_device_idx", "current_device_index",
           "current_stream", "device_count", "device_index", "is_available", "set_device_idx",
           "set_device_index", "set_stream", "synchronize"]


def _require():
    if not _cuda.is_available():
        raise RuntimeError("Cannot access accelerator device when none is available.")


def _index(device):
    """The accelerator's index of ``device`` (an int, ``"cuda:N"``, a device; None: the
    current one)."""
    if device is None:
        return _cuda.current_device()
    if isinstance(device, int):
        return device
    device = _device(device)
    if device.type != "cuda":
        raise ValueError(f"{device.type} doesn't match the current accelerator cuda.")
    return _cuda.current_device() if device.index is None else device.index


def is_available():
    """Whether an accelerator (CUDA) device can be used."""
    return _cuda.is_available()


def device_count():
    """The number of accelerator devices; 0 without one."""
    return _cuda.device_count()


def current_accelerator(check_available=False):
    """``device(type='cuda')`` when CUDA is built in and, with ``check_available``, has a
    device; None otherwise (a CPU-only build has no accelerator)."""
    if not _cuda.is_available():
        return None
    return _device("cuda")


def current_device_index():
    """The index of the current accelerator device."""
    _require()
    return _cuda.current_device()


current_device_idx = current_device_index


def set_device_index(device, /):
    """Make ``device`` (an index, a device or its name) the current accelerator device."""
    _require()
    _cuda.set_device(_index(device))


set_device_idx = set_device_index


def current_stream(device=None, /):
    """The current stream of ``device`` (the current device by default)."""
    _require()
    return _cuda.current_stream(_index(device))


def set_stream(stream):
    """Make ``stream`` the current stream of its device."""
    _require()
    _cuda.set_stream(stream)


def synchronize(device=None, /):
    """Wait for all the work queued on ``device`` (the current device by default)."""
    _require()
    _cuda.synchronize(_index(device))


class device_index:
    """Context manager: ``device`` (an index; None does nothing) is the current accelerator
    device inside, the previous one again after."""

    def __init__(self, device, /):
        self.idx = device
        self.prev_idx = -1

    def __enter__(self):
        if self.idx is not None:
            self.prev_idx = current_device_index()
            set_device_index(self.idx)

    def __exit__(self, *exc):
        if self.idx is not None:
            set_device_index(self.prev_idx)
        return False
