"""``torch.accelerator``: the device-agnostic face of the current accelerator.

autograd_cy's only accelerator is CUDA (real GPUs or emulated ones, see cuda/devices.py), so
each function here is the matching one of ``autograd_cy.cuda``. With no CUDA device there is
no accelerator: ``current_accelerator()`` is None, ``is_available()`` False,
``device_count()`` 0, and what needs a device raises torch's RuntimeError (as a CPU-only
build of torch does).
"""
from autograd_cy._C.device import device as _device

__all__ = ["current_accelerator", "is_available", "device_count", "current_device_index",
           "set_device_index", "device_index", "current_stream", "set_stream", "synchronize"]


def _cuda():
    from autograd_cy import cuda
    return cuda


def current_accelerator(check_available=False):
    """The accelerator's device type as a ``device`` (index None), or None when there is none.
    ``check_available`` is accepted as torch's: here an accelerator exists only when usable."""
    if _cuda().is_available():
        return _device("cuda")
    return None


def is_available():
    """Whether an accelerator device can be used."""
    return current_accelerator() is not None


def device_count():
    """How many accelerator devices there are (0 without an accelerator)."""
    return _cuda().device_count() if is_available() else 0


def _require():
    if not is_available():
        raise RuntimeError("Cannot access accelerator device when none is available.")
    return _cuda()


def _index(device, optional):
    """The device index of ``device`` (an int, ``"cuda:N"`` or a device); None is the
    current one where ``optional``."""
    cuda = _require()
    if device is None:
        if optional:
            return cuda.current_device()
        raise RuntimeError("Expected a torch.device with a specified index or an integer, "
                           "but got:None")
    if isinstance(device, int):
        return device
    device = _device(device)
    if device.type != "cuda":
        raise ValueError(f"{device.type} doesn't match the current accelerator cuda.")
    return cuda.current_device() if device.index is None else device.index


def current_device_index():
    """The index of the current accelerator device."""
    return _require().current_device()


def set_device_index(device, /):
    """Make ``device`` the current accelerator device; a negative index changes nothing."""
    index = _index(device, optional=False)
    if index >= 0:
        _cuda().set_device(index)


class device_index:
    """Within the block, ``device`` (an index; None changes nothing) is the current one."""

    def __init__(self, device, /):
        self.idx = device
        self.prev_idx = -1

    def __enter__(self):
        if self.idx is not None:
            self.prev_idx = current_device_index()
            set_device_index(self.idx)

    def __exit__(self, *exc_info):
        if self.idx is not None:
            set_device_index(self.prev_idx)


def current_stream(device=None, /):
    """The current stream of ``device`` (the current device by default)."""
    return _cuda().current_stream(_index(device, optional=True))


def set_stream(stream):
    """Make ``stream`` its device's current stream (and that device the current one)."""
    cuda = _require()
    cuda.set_device(stream._index)
    cuda.set_stream(stream)


def synchronize(device=None, /):
    """Wait for everything launched on ``device`` (the current one by default) to finish."""
    _cuda().synchronize(_index(device, optional=True))
