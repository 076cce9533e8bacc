"""NaN origins (NOTE [NaN origins] in pyx/provenance.pyx): under
``detect_anomaly(check_nan=True)`` the NaN error keeps PyTorch's words, then names the failing
node's forward line and the first forward op upstream of it whose output had a NaN or inf
(or says that the NaN was made in backward). Expected lines come from the test's source."""
import warnings

import numpy as np
import pytest

import autograd_cy as ag
from autograd_cy._C.provenance import _all_finite, _has_nan
from oracle import assert_same, assert_same_error
from test_provenance import at


@pytest.fixture(autouse=True)
def _quiet_anomaly_mode():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")      # "Anomaly Detection has been enabled", "Error ..."
        yield


def nan_error_tail(run, node, output):
    """Both libraries raise PyTorch's NaN error for ``node``'s ``output``; ours starts with
    torch's whole message. Returns what we say after it."""
    torchs = f"Function '{node}' returned nan values in its {output}th output."
    ours, theirs = assert_same_error(run, RuntimeError, "returned nan values")
    assert theirs == torchs, theirs
    assert ours.startswith(torchs), ours
    return ours[len(torchs):]


def test_a_nan_made_in_forward_is_named_with_its_line():
    def run(lib):
        x = lib.tensor([-1.0, 2.0], requires_grad=True)
        w = lib.ones(2, requires_grad=True)
        with lib.autograd.detect_anomaly(check_nan=True):
            y = x.log()              # log of a negative
            z = (y * w).sum()        # the product
            z.backward()
    tail = nan_error_tail(run, "MulBackward0", 1)
    assert tail == (f" The node MulBackward0 was created by the forward op at "
                    f"{at(run, '# the product')}. The first forward op before it whose output "
                    f"had a NaN or inf is Log (LogBackward0), at {at(run, '# log of a negative')}.")


def test_the_first_of_several_bad_forward_ops_is_named():
    def run(lib):
        x = lib.tensor([-1.0, 2.0], requires_grad=True)
        w = lib.ones(2, requires_grad=True)
        with lib.autograd.detect_anomaly(check_nan=True):
            y = x.log()              # the first NaN
            y = y.sqrt()             # NaN again
            (y * w).sum().backward()
    tail = nan_error_tail(run, "MulBackward0", 1)
    assert tail.endswith(f" is Log (LogBackward0), at {at(run, '# the first NaN')}.")


def test_an_inf_made_in_forward_counts():
    def run(lib):
        x = lib.tensor([1000.0], requires_grad=True)
        w = lib.zeros(1, requires_grad=True)
        with lib.autograd.detect_anomaly(check_nan=True):
            y = x.exp()              # overflows to inf
            (y * w).sum().backward()     # ExpBackward0: 0 * inf
    tail = nan_error_tail(run, "ExpBackward0", 0)
    assert tail == (f" The node ExpBackward0 was created by the forward op at "
                    f"{at(run, '# overflows to inf')}. The first forward op before it whose "
                    f"output had a NaN or inf is Exp (ExpBackward0), at "
                    f"{at(run, '# overflows to inf')}.")


def test_a_nan_made_only_in_backward_is_said_so():
    def run(lib):
        x = lib.zeros(2, requires_grad=True)
        with lib.autograd.detect_anomaly(check_nan=True):
            y = x.sqrt()             # sqrt at 0: finite, its derivative is not
            (y * 0).sum().backward()
    tail = nan_error_tail(run, "SqrtBackward0", 0)
    assert tail == (f" The node SqrtBackward0 was created by the forward op at "
                    f"{at(run, '# sqrt at 0: finite, its derivative is not')}. No forward op "
                    "before it had a NaN or inf output: the first NaN was made in backward, by "
                    "SqrtBackward0.")


def test_a_forward_outside_anomaly_mode_is_not_checked():
    def run(lib):
        x = lib.tensor([-1.0], requires_grad=True)
        w = lib.ones(1, requires_grad=True)
        y = x.log() * w
        with lib.autograd.detect_anomaly(check_nan=True):
            y.sum().backward()
    tail = nan_error_tail(run, "MulBackward0", 1)
    assert tail.endswith(" Its forward ran outside detect_anomaly(check_nan=True): run the "
                         "forward in it too to find the first forward op with a NaN or inf.")


def test_forward_does_not_raise_and_values_stay_torchs():
    """Like PyTorch, anomaly mode checks forward outputs without raising; without
    check_nan nothing is checked and backward returns the NaN gradient."""
    def run(lib):
        x = lib.tensor([-1.0, 0.0, 4.0], requires_grad=True)
        with lib.autograd.detect_anomaly(check_nan=False):
            y = x.log()
            (y * 2).sum().backward()
        with lib.autograd.detect_anomaly(check_nan=True):
            z = x.log()
        return y, z, x.grad
    assert_same(run)
    x = ag.tensor([-1.0], requires_grad=True)
    with ag.autograd.detect_anomaly(check_nan=False):
        assert x.log().grad_fn._forward_nonfinite is None
    with ag.autograd.detect_anomaly(check_nan=True):
        assert x.log().grad_fn._forward_nonfinite is True
        assert x.exp().grad_fn._forward_nonfinite is False


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16])
def test_the_checks_agree_with_numpy(dtype):
    """The C loops behind the checks (and their NumPy fallback) against NumPy itself."""
    values = np.array([0.0, -1.5, np.nan, np.inf, -np.inf, 3.0], dtype=dtype)
    for picks in ([0, 1, 5], [0, 2], [3], [1, 4], [2, 3], []):
        for array in (values[picks], values[picks][::-1], np.tile(values[picks], (2, 1)).T):
            assert _all_finite(array) == bool(np.isfinite(array).all())
            assert _has_nan(array) == bool(np.isnan(array).any())
