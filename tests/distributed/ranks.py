"""What the scripts of tests/distributed share: start the process group (on the test device
when the suite runs on CUDA) and check values against NumPy."""
import datetime
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
os.environ.setdefault("AUTOGRAD_CY_CUDA", "emulate")

import autograd_cy as ag  # noqa: E402
import autograd_cy.distributed as dist  # noqa: E402


def start(timeout_s=60):
    """Initialize the default group (on AUTOGRAD_CY_TEST_BACKEND's backend, MPI by
    default), put new tensors on the test device, and return (rank, world size)."""
    backend = os.environ.get("AUTOGRAD_CY_TEST_BACKEND", "mpi")
    dist.init_process_group(backend, timeout=datetime.timedelta(seconds=timeout_s))
    device = os.environ.get("AUTOGRAD_CY_TEST_DEVICE", "cpu")
    if device != "cpu":
        ag.set_default_device(device)
    return dist.get_rank(), dist.get_world_size()


def values(t):
    """A tensor's values as a NumPy array, wherever it lives."""
    return t.detach().resolve_conj().resolve_neg().cpu().numpy()


def assert_close(actual, expected, what, atol=0.0, rtol=0.0):
    actual = values(actual) if isinstance(actual, ag.Tensor) else np.asarray(actual)
    expected = np.asarray(expected)
    assert actual.shape == expected.shape, f"{what}: shape {actual.shape} != {expected.shape}"
    assert actual.dtype == expected.dtype, f"{what}: dtype {actual.dtype} != {expected.dtype}"
    if rtol == 0 and atol == 0:
        same = np.array_equal(actual.astype(np.float64) if actual.dtype.kind == "V" else actual,
                              expected.astype(np.float64) if expected.dtype.kind == "V"
                              else expected)
        assert same, f"{what}: {actual} != {expected}"
    else:
        np.testing.assert_allclose(actual.astype(np.complex128), expected.astype(np.complex128),
                                   atol=atol, rtol=rtol, err_msg=what)


def raises(error_type, words, function, *args, **kwargs):
    """``function(*args, **kwargs)`` raises ``error_type`` with ``words`` in its message."""
    try:
        function(*args, **kwargs)
    except error_type as error:
        assert words in str(error), f"{words!r} not in {str(error)!r}"
        return error
    raise AssertionError(f"{function.__name__} did not raise {error_type.__name__}")


def finish():
    dist.destroy_process_group()
    print(f"rank {dist_rank} passed", flush=True)


dist_rank = int(os.environ.get("PMI_RANK", os.environ.get("OMPI_COMM_WORLD_RANK", 0)))
