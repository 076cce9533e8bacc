import os
import sys

# Run against the in-place build of this checkout, whatever the current directory.
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# The CUDA backend's tests run on an emulated device unless a real one is asked for
# (`make test-gpu` sets AUTOGRAD_CY_CUDA=auto): same kernels, run on the CPU.
os.environ.setdefault("AUTOGRAD_CY_CUDA", "emulate")


import pytest  # noqa: E402


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "cpu_only: the test checks what torch does on the CPU (e.g. an error raised "
        "at once where CUDA reports it later): the device run leaves it out, the CPU run has it")


def pytest_collection_modifyitems(config, items):
    """The device run (AUTOGRAD_CY_TEST_DEVICE=cuda) deselects the cpu_only tests: on the CPU
    they would only repeat the CPU run."""
    if os.environ.get("AUTOGRAD_CY_TEST_DEVICE", "cpu") == "cpu":
        return
    kept = [item for item in items if not item.get_closest_marker("cpu_only")]
    if len(kept) != len(items):
        config.hook.pytest_deselected(items=[item for item in items
                                             if item.get_closest_marker("cpu_only")])
        items[:] = kept


@pytest.fixture(autouse=True)
def _tensors_on_the_test_device(request):
    """With AUTOGRAD_CY_TEST_DEVICE=cuda every tensor a test makes without naming a device
    goes to that device (torch's stay on the CPU: the oracle), so the engine and op suites
    run again through the CUDA backend."""
    device = os.environ.get("AUTOGRAD_CY_TEST_DEVICE", "cpu")
    if device == "cpu":
        yield
        return
    import autograd_cy as ag
    ag.set_default_device(device)
    try:
        yield
    finally:
        ag.set_default_device(None)
