"""``torch.random``: the default CPU generator's seed and state, and ``fork_rng``.

``fork_rng`` saves the CPU generator's state and each listed CUDA device's, runs the block,
and restores them, so random draws inside do not change what the program draws after it.

>>> import autograd_cy
>>> autograd_cy.manual_seed(0) and None
>>> with autograd_cy.random.fork_rng():
...     inside = autograd_cy.rand(1)
>>> bool(autograd_cy.rand(1) == inside)
True
"""
import contextlib
import warnings

import autograd_cy as _ag
from autograd_cy.factories import default_generator, get_rng_state, initial_seed, manual_seed  # noqa: F401
from autograd_cy.factories import set_rng_state  # noqa: F401

__all__ = ["fork_rng", "get_rng_state", "initial_seed", "manual_seed", "set_rng_state"]

_fork_rng_warned_already = False


@contextlib.contextmanager
def fork_rng(devices=None, enabled=True, _caller="fork_rng", _devices_kw="devices",
             device_type="cuda"):
    """Save the random states (the CPU's and those of ``devices``, every device of
    ``device_type`` by default) and restore them when the block ends."""
    global _fork_rng_warned_already
    if device_type == "meta":
        yield
        return
    device_type = _ag.device(device_type).type
    device_module = getattr(_ag, device_type, None)
    if device_module is None:
        raise RuntimeError(f"torch has no module of `{device_type}`, you should register a "
                           "module by `torch._register_device_module`.")
    if not enabled:
        yield
        return
    if devices is None:
        count = device_module.device_count()
        if count > 1 and not _fork_rng_warned_already:
            warnings.warn(
                f"{device_type.upper()} reports that you have {count} available devices, and "
                f"you have used {_caller} without explicitly specifying which devices are "
                f"being used. For safety, we initialize *every* {device_type.upper()} "
                f"device by default, which can be quite slow if you have a lot of "
                f"{device_type.upper()}s. If you know that you are only making use of a few "
                f"{device_type.upper()} devices, set the environment variable "
                f"{device_type.upper()}_VISIBLE_DEVICES or the '{_devices_kw}' keyword "
                f"argument of {_caller} with the set of devices you are actually using.",
                stacklevel=3)
            _fork_rng_warned_already = True
        devices = list(range(count))
    else:
        devices = list(devices)
    cpu_state = get_rng_state()
    device_states = [device_module.get_rng_state(index) for index in devices]
    try:
        yield
    finally:
        set_rng_state(cpu_state)
        for index, state in zip(devices, device_states):
            device_module.set_rng_state(state, index)
