"""stft and istft against torch: values, dtypes, gradients and double backward (of the
signal and of the window) for real and complex signals, batched 2-D input, every argument
(center and pad_mode, win_length under n_fft, normalized, onesided, return_complex,
align_to_window, istft's length), the nodes torch records last, gradcheck and forward AD,
the warnings torch gives once, and torch's errors."""
import json
import subprocess
import sys
import textwrap
import warnings

import numpy as np
import pytest
import torch

import autograd_cy as ag
from autograd_cy import warn_always
from oracle import (
    assert_same_error, check_batched_grad, check_gradcheck, check_jvp, check_op, node_name,
    randn,
)


def complex_randn(*shape, seed=0):
    return randn(*shape, seed=seed) + 1j * randn(*shape, seed=seed + 1)


def window(n, seed=5):
    """A positive window (away from zero, so istft's division is tame)."""
    return 0.5 + np.abs(randn(n, seed=seed))


@pytest.fixture(autouse=True)
def quiet():
    """torch's once-per-process warnings are tested in test_warnings_once."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        yield


STFT_CASES = [
    dict(n_fft=8, return_complex=True),
    dict(n_fft=8, hop_length=3, return_complex=True, center=False),
    dict(n_fft=7, return_complex=True, pad_mode="constant"),
    dict(n_fft=8, hop_length=2, return_complex=True, pad_mode="replicate"),
    dict(n_fft=8, hop_length=2, return_complex=True, pad_mode="circular"),
    dict(n_fft=8, win_length=5, return_complex=True),
    dict(n_fft=8, normalized=True, onesided=False, return_complex=True),
    dict(n_fft=6, hop_length=4, return_complex=False),
    dict(n_fft=8, win_length=4, hop_length=3, center=False, align_to_window=True,
         return_complex=True),
    dict(n_fft=8, hop_length=3, center=False, align_to_window=False, return_complex=True),
]


@pytest.mark.parametrize("dtype", [np.float64, np.float32], ids=["64", "32"])
@pytest.mark.parametrize("kwargs", STFT_CASES, ids=lambda k: " ".join(map(str, k.values())))
@pytest.mark.parametrize("shape", [(20,), (2, 17)], ids=["1-D", "batched"])
def test_stft_values_and_gradients(shape, kwargs, dtype):
    check_op(lambda lib, x: lib.stft(x, **kwargs), randn(*shape), dtype=dtype)
    check_op(lambda lib, x: x.stft(**kwargs), complex_randn(*shape), dtype=dtype)


@pytest.mark.parametrize("kwargs", STFT_CASES, ids=lambda k: " ".join(map(str, k.values())))
def test_stft_window_gradients(kwargs):
    """The window gets a gradient too: zero-padded to n_fft when win_length is shorter."""
    n = kwargs.get("win_length", kwargs["n_fft"])
    check_op(lambda lib, x, w: lib.stft(x, window=w, **kwargs), randn(2, 19), window(n))
    check_op(lambda lib, x, w: lib.stft(x, window=w, **kwargs), randn(19),
             window(n) + 1j * randn(n, seed=7))


def test_stft_mixed_dtypes():
    """The frames times the window promote: a float32 signal with a float64 window gives
    complex128; a real signal with a complex window a two-sided complex result."""
    check_op(lambda lib, x, w: lib.stft(x, 8, window=w.double(), return_complex=True),
             randn(20), window(8), dtype=np.float32)
    check_op(lambda lib, x, w: lib.stft(x.float(), 8, window=w, center=False),
             randn(20), window(8) + 1j * randn(8))


def test_stft_strided_input():
    """The frames are an as_strided view of the input's own strides and offset; a
    conjugate or negative view is framed with its values (as_strided would read the memory
    under it unconjugated)."""
    z = complex_randn(20)
    check_op(lambda lib, x: lib.stft(x.conj(), 8, 2, center=False), z)
    check_op(lambda lib, x: lib.stft(x.conj().imag, 8, 2, center=False, return_complex=True),
             z)
    check_op(lambda lib, x: lib.stft(x[1:, ::2], 6, 2, center=False, return_complex=True),
             randn(3, 30))
    check_op(lambda lib, x: lib.stft(x.t(), 6, 2, center=False, return_complex=True),
             randn(25, 2))


ISTFT_CASES = [
    ((5, 9), dict(n_fft=8, hop_length=2)),
    ((5, 9), dict(n_fft=8, hop_length=2, length=30)),
    ((5, 9), dict(n_fft=8, hop_length=2, length=12)),
    ((8, 6), dict(n_fft=8, hop_length=3, onesided=False)),
    ((8, 6), dict(n_fft=8, hop_length=3, return_complex=True)),
    ((5, 7), dict(n_fft=8, hop_length=2, center=False, normalized=True)),
    ((5, 7), dict(n_fft=8, hop_length=2, center=False, length=22)),
    ((2, 6, 5), dict(n_fft=10, hop_length=4, win_length=6)),
]


@pytest.mark.parametrize("dtype", [np.float64, np.float32], ids=["64", "32"])
@pytest.mark.parametrize("shape, kwargs", ISTFT_CASES,
                         ids=lambda k: " ".join(map(str, k.values())) if isinstance(k, dict)
                         else str(k))
def test_istft_values_and_gradients(shape, kwargs, dtype):
    n = kwargs.get("win_length", kwargs["n_fft"])
    check_op(lambda lib, s, w: lib.istft(s, window=w, **kwargs), complex_randn(*shape),
             window(n), dtype=dtype)
    check_op(lambda lib, s: s.istft(**kwargs), complex_randn(*shape, seed=3), dtype=dtype)


def test_istft_inverts_stft():
    for lib in (ag, torch):
        x = lib.tensor(randn(2, 40))
        w = lib.hann_window(16, dtype=x.dtype)
        s = lib.stft(x, 16, 4, window=w, return_complex=True)
        np.testing.assert_allclose(lib.istft(s, 16, 4, window=w, length=40).cpu().numpy(),
                                   x.cpu().numpy(), atol=1e-12)
    check_op(lambda lib, x: lib.istft(lib.stft(x, 8, 2, return_complex=True), 8, 2),
             randn(24))


def test_istft_conjugate_view_and_complex_window():
    check_op(lambda lib, s: lib.istft(s.conj(), 8, 2), complex_randn(5, 9))
    check_op(lambda lib, s, w: lib.istft(s, 8, 2, window=w, onesided=False,
                                         return_complex=True),
             complex_randn(8, 9), window(8) + 0.1j * randn(8))


def test_nodes():
    """The node torch records last: squeeze_ and transpose_ in place (SqueezeBackward4,
    TransposeBackward1), view_as_real; istft's squeeze, division, or padding to length."""
    def names(lib):
        x = lib.tensor(randn(20), requires_grad=True)
        s = lib.tensor(complex_randn(5, 9), requires_grad=True)
        return [node_name(y.grad_fn) for y in (
            lib.stft(x, 8, return_complex=True),
            lib.stft(x.reshape(2, 10), 4, return_complex=True),
            lib.stft(x, 8, return_complex=False),
            lib.istft(s, 8, 2),
            lib.istft(s.unsqueeze(0), 8, 2),
            lib.istft(s, 8, 2, length=30))]
    ours, theirs = names(ag), names(torch)
    assert ours == theirs == ["SqueezeBackward4", "TransposeBackward1", "ViewAsRealBackward0",
                              "SqueezeBackward1", "DivBackward0", "ConstantPadNdBackward0"]


def test_gradcheck_and_forward_ad():
    check_gradcheck(lambda lib, x, w: lib.view_as_real(lib.stft(
        x, 6, 2, window=w, return_complex=True)), randn(2, 12), window(6),
        check_forward_ad=True)
    check_gradcheck(lambda lib, x, w: lib.istft(lib.complex(x, w), 6, 2, length=9),
                    randn(4, 4), randn(4, 4, seed=2), check_forward_ad=True)
    check_jvp(lambda lib, x, w: lib.stft(x, 6, 2, window=w, return_complex=True),
              randn(2, 12), window(6))
    check_jvp(lambda lib, x, y: lib.istft(lib.complex(x, y), 6, 2, length=9),
              randn(4, 4), randn(4, 4, seed=2))


def test_batched_gradients():
    """``is_grads_batched``: a batch of output gradients through every node of both."""
    check_batched_grad(lambda lib, x, w: lib.stft(x, 6, 2, window=w, return_complex=True),
                       randn(2, 12), window(6))
    check_batched_grad(lambda lib, x, w: lib.stft(x, 6, 2, window=w, return_complex=False),
                       randn(12), window(6))
    check_batched_grad(lambda lib, x, y: lib.istft(lib.complex(x, y), 6, 2, length=9),
                       randn(4, 4), randn(4, 4, seed=2), create_graph=True)


def test_under_vmap():
    """vmap of one signal's stft and istft is the batched call (pad's rule folds the batch
    into its N)."""
    x = randn(3, 20)
    for lib in (ag, torch):
        w = lib.hann_window(8, dtype=lib.float64)
        s = lib.vmap(lambda t: lib.stft(t, 8, 2, window=w, return_complex=True))(
            lib.tensor(x))
        np.testing.assert_allclose(s.cpu().numpy(), torch.stft(
            torch.tensor(x), 8, 2, window=torch.hann_window(8, dtype=torch.float64),
            return_complex=True).numpy(), atol=1e-12)
        y = lib.vmap(lambda t: lib.istft(t, 8, 2, window=w))(s)
        np.testing.assert_allclose(y.cpu().numpy(), x, atol=1e-12)


def _fresh_torch_warnings():
    """The messages torch warns once per process, each triggered once in a new one."""
    script = textwrap.dedent("""
        import json, warnings, torch
        x = torch.ones(20, dtype=torch.float64)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            s = torch.stft(x, 8, return_complex=True)
            torch.stft(x, 8, return_complex=False)
            torch.istft(s, 8, length=30)
            torch.stft(x, 8, return_complex=False)
            torch.istft(s, 8, length=30)
        print(json.dumps([str(w.message) for w in caught]))
        """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    return [m.split(" (Triggered internally")[0]
            for m in json.loads(done.stdout.splitlines()[-1])]


@pytest.mark.cpu_only
def test_warnings_once():
    """torch's TORCH_WARN_ONCE: the missing windows, return_complex=False, and istft's
    zero-padding to length, each warned the first time only."""
    theirs = _fresh_torch_warnings()
    saved = set(warn_always._warned)
    warn_always._warned.clear()
    try:
        x = ag.ones(20, dtype=ag.float64)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            s = ag.stft(x, 8, return_complex=True)
            ag.stft(x, 8, return_complex=False)
            ag.istft(s, 8, length=30)
            ag.stft(x, 8, return_complex=False)
            ag.istft(s, 8, length=30)
        ours = [str(w.message) for w in caught]
        assert all(w.filename == __file__ for w in caught)   # the caller's line
    finally:
        warn_always._warned.update(saved)
    assert len(theirs) == 4
    assert ours == theirs


ERRORS = [
    (lambda lib: lib.stft(lib.ones(20), 8), "return_complex parameter be given"),
    (lambda lib: lib.stft(lib.ones(20), 8, return_complex=True, align_to_window=True),
     "align_to_window should only be set when center = false"),
    (lambda lib: lib.stft(lib.ones(20), 30, return_complex=True, center=False),
     r"expected 0 < n_fft < 20, but got n_fft=30"),
    (lambda lib: lib.stft(lib.ones(20), 30, win_length=5, return_complex=True,
                          center=False), r"expected 0 < n_fft < 20, but got n_fft=5"),
    (lambda lib: lib.stft(lib.ones(20), 8, 0, return_complex=True),
     "expected hop_length > 0, but got hop_length=0"),
    (lambda lib: lib.stft(lib.ones(20), 8, win_length=9, return_complex=True),
     "expected 0 < win_length <= n_fft, but got win_length=9"),
    (lambda lib: lib.stft(lib.ones(20), 8, window=lib.ones(7), return_complex=True),
     r"expected a 1D window tensor of size equal to win_length=8, but got window with "
     r"size \[7\]"),
    (lambda lib: lib.stft(lib.ones(1, 2, 20), 8, return_complex=True),
     "expected a 1D or 2D tensor"),
    (lambda lib: lib.stft(lib.ones(20, dtype=lib.long), 4, return_complex=True),
     "expected a tensor of floating point or complex values"),
    (lambda lib: lib.stft(lib.ones(20, dtype=lib.cdouble), 8, onesided=True),
     "Cannot have onesided output if window or input is complex"),
    (lambda lib: lib.stft(lib.ones(5), 12, return_complex=True),
     "Padding size should be less than the corresponding input dimension"),
    (lambda lib: lib.stft(lib.ones(20), 8, pad_mode="foo", return_complex=True),
     "Unrecognised padding mode foo"),
    (lambda lib: lib.stft(lib.ones(20), 8, 3, 5, center=False, align_to_window=True,
                          return_complex=True), "out of bounds for storage"),
    (lambda lib: lib.stft(lib.ones(20), 8.0, return_complex=True),
     r"^stft\(\) received an invalid combination of arguments - got \(Tensor, float, "
     r"NoneType, NoneType, NoneType, bool, NoneType, bool, NoneType\)"),
    (lambda lib: lib.stft(lib.ones(20), 8, hop_length=True, return_complex=True),
     r"invalid combination of arguments - got \(Tensor, int, bool,"),
    (lambda lib: lib.istft(lib.ones(5, 9, dtype=lib.cdouble), 8.0),
     r"^istft\(\): argument 'n_fft' \(position 2\) must be int, not float$"),
    (lambda lib: lib.istft(lib.ones(5, 9, dtype=lib.cdouble), 8, length=True),
     r"^istft\(\): argument 'length' must be int, not bool$"),
    (lambda lib: lib.stft(lib.ones(20, dtype=lib.half), 8, return_complex=True),
     "MKL FFT doesn't support tensors of type: Half"),
    (lambda lib: lib.istft(lib.ones(5, 9), 8), "istft requires a complex-valued input"),
    (lambda lib: lib.istft(lib.ones(5, 0, dtype=lib.cdouble), 8),
     "input tensor cannot be empty"),
    (lambda lib: lib.istft(lib.ones(5, dtype=lib.cdouble), 8),
     r"Dimension out of range \(expected to be in range of \[-2, 1\], but got -3\)"),
    (lambda lib: lib.istft(lib.ones((), dtype=lib.cdouble), 8),
     r"Dimension out of range \(expected to be in range of \[-1, 0\], but got -2\)"),
    (lambda lib: lib.istft(lib.ones(1, 1, 5, 9, dtype=lib.cdouble), 8),
     "expected a tensor with 3 or 4 dimensions, but got 5"),
    (lambda lib: lib.istft(lib.ones(5, 9, dtype=lib.cdouble), 10),
     r"match n_fft / 2 \+ 1 when onesided=True, but got 5"),
    (lambda lib: lib.istft(lib.ones(5, 9, dtype=lib.cdouble), 8, onesided=False),
     "match n_fft when onesided=False, but got 5"),
    (lambda lib: lib.istft(lib.ones(5, 9, dtype=lib.cdouble), 8, 9),
     "expected 0 < hop_length <= win_length"),
    (lambda lib: lib.istft(lib.ones(5, 9, dtype=lib.cdouble), 8, 2, 9),
     "expected 0 < win_length <= n_fft"),
    (lambda lib: lib.istft(lib.ones(5, 9, dtype=lib.cdouble), 8, window=lib.ones(7)),
     "Invalid window shape. window has to be 1D and length of `win_length`"),
    (lambda lib: lib.istft(lib.ones(5, 9, dtype=lib.cdouble), 8, window=lib.zeros(8)),
     "window overlap add min: 1"),
    (lambda lib: lib.istft(lib.ones(5, 9, dtype=lib.cdouble), 8, 8, window=lib.hann_window(8),
                           center=False), "window overlap add min"),
    (lambda lib: lib.istft(lib.ones(5, 9, dtype=lib.cdouble), 8, return_complex=True),
     "Cannot have onesided output if window or input is complex"),
    (lambda lib: lib.istft(lib.ones(5, 9, dtype=lib.cdouble), 8,
                           window=lib.ones(8, dtype=lib.cdouble)),
     "Complex windows are incompatible with return_complex=False"),
]


@pytest.mark.parametrize("case, pattern", ERRORS)
def test_errors(case, pattern):
    assert_same_error(case, pattern)


@pytest.mark.cpu_only
def test_error_messages_whole():
    """torch's description of the call, its types spelt as Tensor::toString spells them."""
    assert_same_error(lambda lib: lib.stft(lib.ones(20, dtype=lib.cfloat), 8, 0,
                                           window=lib.ones(8, dtype=lib.cfloat)), exact=True)
    assert_same_error(lambda lib: lib.stft(lib.ones(2, 20, dtype=lib.double), 8, 2,
                                           window=lib.ones(7), normalized=True,
                                           return_complex=False), exact=True)
    assert_same_error(lambda lib: lib.istft(lib.ones(5, 9, dtype=lib.cdouble), 8,
                                            window=lib.zeros(8), length=4), exact=True)
    assert_same_error(lambda lib: lib.istft(lib.ones(5, 9, dtype=lib.cfloat), 8, 9,
                                            onesided=True, normalized=True), exact=True)


def test_on_the_cuda_device():
    """On a CUDA tensor (the emulated device without a GPU) the frames, window and FFTs stay
    on the device: values and gradients as torch's on the CPU; a window on another device
    is refused as torch refuses it."""
    x, w = randn(2, 30), window(8)
    values, grads = [], []
    for lib, device in ((ag, "cuda"), (torch, "cpu")):
        xt = lib.tensor(x, device=device, requires_grad=True)
        wt = lib.tensor(w, device=device, requires_grad=True)
        s = lib.stft(xt, 8, 2, window=wt, return_complex=True)
        y = lib.istft(s * s.abs(), 8, 2, window=wt)
        assert str(s.device) == str(y.device) == ("cuda:0" if lib is ag else "cpu")
        y.sum().backward()
        values.append([s.detach().cpu().numpy(), y.detach().cpu().numpy()])
        grads.append([xt.grad.cpu().numpy(), wt.grad.cpu().numpy()])
    for ours, theirs in (values, grads):
        for a, b in zip(ours, theirs):
            np.testing.assert_allclose(a, b, rtol=1e-7, atol=1e-9)
    with pytest.raises(RuntimeError, match="^stft input and window must be on the same "
                       "device but got self on cpu and window on cuda:0$"):
        ag.stft(ag.ones(20, device="cpu"), 8, window=ag.ones(8, device="cuda"),
                return_complex=True)
    with pytest.raises(RuntimeError, match="^istft input and window must be on the same "
                       "device but got self on cuda:0 and window on cpu$"):
        ag.istft(ag.ones(5, 9, dtype=ag.cdouble, device="cuda"), 8,
                 window=ag.ones(8, device="cpu"))
