"""torch.signal.windows (autograd_cy/signal/windows.py) against torch's: every window's
values for both forms (sym) and several lengths (0 and 1 included) in float32 and float64,
the keyword arguments (center, tau, std, beta, a, alpha), requires_grad (the window is a
result of its linspace leaf: its node and gradient), and the errors."""
import numpy as np
import pytest

from oracle import assert_same, assert_same_error, node_name

WINDOWS = {
    "bartlett": {}, "blackman": {}, "cosine": {}, "exponential": {}, "gaussian": {},
    "general_cosine": {"a": [0.46, 0.23, 0.31]}, "general_hamming": {}, "hamming": {},
    "hann": {}, "kaiser": {}, "nuttall": {},
}


@pytest.mark.parametrize("name", WINDOWS)
@pytest.mark.parametrize("sym", [True, False])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_window_values(name, sym, dtype):
    def run(lib):
        window = getattr(lib.signal.windows, name)
        return [(str(w.dtype).split(".")[-1], w.tolist()) for w in (
            window(M, sym=sym, dtype=getattr(lib, dtype), **WINDOWS[name])
            for M in (0, 1, 2, 5, 10, 31))]
    assert_same(run, rtol=1e-6 if dtype == "float32" else 1e-12, atol=1e-7)


@pytest.mark.parametrize("call", [
    lambda lib: lib.signal.windows.exponential(7, tau=2.5),
    lambda lib: lib.signal.windows.exponential(7, center=1.5, sym=False),
    lambda lib: lib.signal.windows.gaussian(8, std=0.7),
    lambda lib: lib.signal.windows.kaiser(9, beta=3.5, sym=False),
    lambda lib: lib.signal.windows.kaiser(6, beta=0.0),
    lambda lib: lib.signal.windows.general_hamming(6, alpha=0.6),
    lambda lib: lib.signal.windows.general_cosine(6, a=(1.0,)),
    lambda lib: lib.signal.windows.hann(4),          # the default dtype
])
def test_window_arguments(call):
    assert_same(lambda lib: [str(call(lib).dtype).split(".")[-1], call(lib).tolist()],
                rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("name", WINDOWS)
def test_requires_grad_makes_the_window_a_result(name):
    def run(lib):
        window = getattr(lib.signal.windows, name)(5, requires_grad=True, dtype=lib.float64,
                                                   **WINDOWS[name])
        window.sum().backward()
        return [window.requires_grad, window.is_leaf, node_name(window.grad_fn)]
    assert_same(run)


@pytest.mark.parametrize("call", [
    lambda lib: lib.signal.windows.hann(3, dtype=lib.float16),
    lambda lib: lib.signal.windows.bartlett(3, dtype=lib.int64),
])
def test_window_dtype_errors(call):
    """(the dtype as each library spells it)"""
    assert_same_error(call, ValueError, "^(general_cosine|bartlett) expects float32 or "
                      "float64 dtypes, got: (torch|autograd_cy).(float16|int64)$")


@pytest.mark.parametrize("call", [
    lambda lib: lib.signal.windows.hann(-1),
    lambda lib: lib.signal.windows.gaussian(3, std=0),
    lambda lib: lib.signal.windows.exponential(3, tau=0),
    lambda lib: lib.signal.windows.exponential(3, center=1.0),
    lambda lib: lib.signal.windows.kaiser(3, beta=-1),
    lambda lib: lib.signal.windows.general_cosine(3, a=[]),
    lambda lib: lib.signal.windows.general_cosine(3, a=3),
    lambda lib: lib.signal.windows.cosine(-2),
])
def test_window_errors(call):
    assert_same_error(call, exact=True)


def test_windows_namespace():
    import torch

    import autograd_cy as ag
    assert set(torch.signal.windows.__all__) <= set(ag.signal.windows.__all__)
    assert np.all([callable(getattr(ag.signal.windows, n))
                   for n in torch.signal.windows.__all__])
