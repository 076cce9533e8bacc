"""``stft`` and ``istft``: the short-time Fourier transform of a signal (a 1-D tensor, or a
batch of them in a 2-D one) and its inverse, composed as torch composes them so that
gradients, double backward and tangents are those of the recorded ops.

``stft``: the signal padded by ``n_fft // 2`` on both sides (``center``, with ``pad_mode``),
cut into frames of ``n_fft`` samples ``hop_length`` apart (one ``as_strided`` view), each
frame multiplied by the window (``win_length`` samples, zero-padded to ``n_fft`` at its
centre), then an FFT of each frame (``_fft_r2c``, one-sided by default, or ``_fft_c2c``
for a complex signal or window), transposed to ``(batch?, frequencies, frames)``.
``normalized`` scales by ``1 / sqrt(n_fft)``; ``return_complex=False`` (deprecated)
returns ``view_as_real`` of the result.

``istft``: the inverse FFT of each frame (``_fft_c2r``, or ``_fft_c2c`` with
``return_complex``), times the window, added where each frame came from (overlap-add, the
backward of ``unfold``), divided by the overlap-added squared window, the ``center``
padding cut off, trimmed or zero-padded to ``length``. A window whose overlap-add has a
zero (NOTE [The NOLA condition]) is refused.

>>> import autograd_cy as ag
>>> x = ag.arange(8.0)
>>> s = ag.stft(x, 4, 2, window=ag.hann_window(4), return_complex=True)
>>> s.shape
autograd_cy.Size([3, 5])
>>> ag.istft(s, 4, 2, window=ag.hann_window(4))
tensor([0., 1., 2., 3., 4., 5., 6., 7.])
"""
import operator

import autograd_cy as _ag
from autograd_cy._C.ops.arguments import is_int
from autograd_cy._C.tensor import Tensor, _register_methods
from autograd_cy.fft.kernels import BY_N, BY_ROOT_N, NONE
from autograd_cy.fft.primitives import fft_c2c, fft_c2r, fft_r2c
from autograd_cy.unfold import _unfold_backward
from autograd_cy.warn_always import warn_once

__all__ = ["stft", "istft"]


_STFT_WINDOW = (
    "A window was not provided. A rectangular window will be applied,which is known to cause "
    "spectral leakage. Other windows such as torch.hann_window or torch.hamming_window are "
    "recommended to reduce spectral leakage.To suppress this warning and use a rectangular "
    "window, explicitly set `window=torch.ones(n_fft, device=<device>)`.")
_ISTFT_WINDOW = (
    "A window was not provided. A rectangular window will be applied.Please provide the same "
    "window used by stft to make the inversion lossless.To suppress this warning and use a "
    "rectangular window, explicitly set `window=torch.ones(n_fft, device=<device>)`.")
_REAL_RESULT = (
    "stft with return_complex=False is deprecated. In a future pytorch release, stft will "
    "return complex tensors for all inputs, and return_complex=False will raise an error.\n"
    "Note: you can still call torch.view_as_real on the complex output to recover the old "
    "return format.")
_PADDED = (
    "The length of signal is shorter than the length parameter. Result is being padded with "
    "zeros in the tail. Please check your center and hop_length settings.")

# the dtypes whose tensors torch names by their legacy type ("torch.FloatTensor"); the
# others by backend and scalar type ("CPUComplexFloatType")
_LEGACY = {"Float", "Double", "Half", "Byte", "Char", "Short", "Int", "Long"}


def _type_name(tensor):
    """How torch's error messages name a tensor's type (``Tensor::toString``)."""
    scalar = tensor.dtype._scalar_name
    cuda = tensor.device.type == "cuda"
    if scalar in _LEGACY:
        return f"torch.{'cuda.' if cuda else ''}{scalar}Tensor"
    return f"{'CUDA' if cuda else 'CPU'}{scalar}Type"


def _flag(value):
    """A bool of torch's messages: 0 or 1, None for an unset optional."""
    return "None" if value is None else int(value)


def _window_repr(window):
    return "None" if window is None else f"{_type_name(window)}{{{list(window.shape)}}}"


def _is_int(value):
    return is_int(value) and not isinstance(value, bool)   # a bool is not an int to torch


def _check_stft_arguments(arguments):
    """torch's parser on ``_VF.stft``'s arguments: with two overloads, a wrong type is an
    "invalid combination"."""
    n_fft, hop_length, win_length, window = arguments[1:5]
    if (_is_int(n_fft) and all(v is None or _is_int(v) for v in (hop_length, win_length))
            and (window is None or isinstance(window, Tensor))):
        return operator.index(n_fft), *(None if v is None else operator.index(v)
                                         for v in (hop_length, win_length))
    got = ", ".join("Tensor" if isinstance(v, Tensor) else type(v).__name__
                    for v in arguments)
    raise TypeError(f"stft() received an invalid combination of arguments - got ({got}), "
                    "but expected one of: (Tensor input, int n_fft, int hop_length = None, "
                    "int win_length = None, Tensor window = None, ...)")


def _check_istft_arguments(n_fft, arguments):
    """torch's parser on istft's int arguments."""
    if not _is_int(n_fft):
        raise TypeError(f"istft(): argument 'n_fft' (position 2) must be int, not "
                        f"{type(n_fft).__name__}")
    for argument, value in arguments:
        if value is not None and not _is_int(value):
            raise TypeError(f"istft(): argument '{argument}' must be int, not "
                            f"{type(value).__name__}")
    return operator.index(n_fft), *(None if v is None else operator.index(v)
                                    for _, v in arguments)


def _check_window_device(name, input, window):
    if window is not None and window.device != input.device:
        raise RuntimeError(f"{name} input and window must be on the same device but got "
                           f"self on {input.device} and window on {window.device}")


def _check_fft_dtype(tensor):
    """torch's CPU FFTs take float32, float64 and their complex dtypes only."""
    if tensor.dtype not in (_ag.float32, _ag.float64, _ag.complex64, _ag.complex128):
        raise RuntimeError(f"MKL FFT doesn't support tensors of type: "
                           f"{tensor.dtype._scalar_name}")


def stft(input, n_fft, hop_length=None, win_length=None, window=None, center=True,
         pad_mode="reflect", normalized=False, onesided=None, return_complex=None,
         align_to_window=None):
    """The short-time Fourier transform of ``input`` (``(L,)`` or ``(B, L)``): shape
    ``(B?, N, T)`` with ``N = n_fft // 2 + 1`` (onesided) or ``n_fft`` frequencies and
    ``T`` frames; ``return_complex`` must be given for a real input and window."""
    if not isinstance(input, Tensor):
        raise TypeError(f"stft(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")
    n_fft, hop_length, win_length = _check_stft_arguments(
        (input, n_fft, hop_length, win_length, window, normalized, onesided, return_complex,
         align_to_window))
    if center and align_to_window is not None:
        raise RuntimeError("stft align_to_window should only be set when center = false")
    if center:      # torch.stft pads in Python, before the checks (which see the padded size)
        signal_dim = input.dim()
        extended = [1] * (3 - signal_dim) + list(input.shape)
        pad = n_fft // 2
        input = _ag.nn.functional.pad(input.view(extended), [pad, pad], pad_mode)
        input = input.view(tuple(input.shape)[-signal_dim:])
    return _framed_transform(input, n_fft, hop_length, win_length, window, normalized,
                             onesided, return_complex, align_to_window)


def _framed_transform(self, n_fft, hop_length, win_length, window, normalized, onesided,
                      return_complex, align_to_window):
    """torch's ``stft`` without ``center``: the checks, the frames, the window, the FFT."""
    if window is None:
        warn_once(_STFT_WINDOW, 3)      # the caller of stft
    _check_window_device("stft", self, window)
    hop_length = n_fft >> 2 if hop_length is None else hop_length
    win_length = n_fft if win_length is None else win_length

    def fail(problem):
        raise RuntimeError(
            f"stft({_type_name(self)}{list(self.shape)}, n_fft={n_fft}, "
            f"hop_length={hop_length}, win_length={win_length}, window={_window_repr(window)}"
            f", normalized={int(normalized)}, onesided={_flag(onesided)}, return_complex="
            f"{_flag(return_complex)}, align_to_window={_flag(align_to_window)}) : {problem}")

    complex_result = self.is_complex() or (window is not None and window.is_complex())
    if return_complex is None and not complex_result:
        raise RuntimeError(
            "stft requires the return_complex parameter be given for real inputs, and will "
            "further require that return_complex=True in a future PyTorch release.")
    if return_complex is not None and not return_complex:
        warn_once(_REAL_RESULT, 3)
    if not (self.is_floating_point() or self.is_complex()):
        fail("expected a tensor of floating point or complex values")
    if self.dim() not in (1, 2):
        fail("expected a 1D or 2D tensor")
    input = self.unsqueeze(0) if self.dim() == 1 else self
    batch, length = input.shape
    if n_fft <= 0 or n_fft > length:
        fail(f"expected 0 < n_fft < {length}, but got n_fft={win_length}")
    if hop_length <= 0:
        fail(f"expected hop_length > 0, but got hop_length={hop_length}")
    if win_length <= 0 or win_length > n_fft:
        fail(f"expected 0 < win_length <= n_fft, but got win_length={win_length}")
    if window is not None and (window.dim() != 1 or window.shape[0] != win_length):
        fail(f"expected a 1D window tensor of size equal to win_length={win_length}, but got "
             f"window with size {list(window.shape)}")

    left = (n_fft - win_length) // 2
    if win_length < n_fft:      # the window at the centre of n_fft samples, zeros around it
        if window is None:
            window = _ag.ones(win_length, dtype=self.dtype, device=self.device)
        window = _ag.nn.functional.pad(window, [left, n_fft - win_length - left])
    if align_to_window:         # the first window starts at the first sample
        frames = 1 + (length - win_length) // hop_length
        input = _ag.nn.functional.pad(input, [left, left])
    else:
        frames = 1 + (length - n_fft) // hop_length
    # as_strided reads the memory under a conjugate (or negative) view as it is, without
    # the view's conjugation: such an input is resolved first (the same values torch frames)
    input = input.resolve_conj().resolve_neg()
    stride_batch, stride = input.stride()
    input = input.as_strided((batch, frames, n_fft),
                             (stride_batch, hop_length * stride, stride))
    if window is not None:
        input = input * window

    mode = BY_ROOT_N if normalized else NONE
    _check_fft_dtype(input)
    if input.is_complex():
        if onesided:
            raise RuntimeError("Cannot have onesided output if window or input is complex")
        out = fft_c2c(input, (2,), mode, True)
    else:
        out = fft_r2c(input, (2,), mode, True if onesided is None else onesided)
    out.transpose_(1, 2)
    if self.dim() == 1:
        out.squeeze_(0)
    if return_complex is None or return_complex:
        return out
    return _ag.view_as_real(out)


# NOTE [The NOLA condition]
# istft divides the overlap-added frames by the overlap-add of the squared window (the
# "window envelope"): where the frames overlap, each sample was weighted by the window
# once in stft and once here. That division needs the envelope nonzero over the samples
# kept (Nonzero OverLap-Add); torch refuses a window whose envelope has an entry below
# 1e-11 in absolute value there, after cutting the centre padding, rather than divide by
# it. A Hann window with hop_length = n_fft, for one, is zero at every frame's edge.


def istft(input, n_fft, hop_length=None, win_length=None, window=None, center=True,
          normalized=False, onesided=None, length=None, return_complex=False):
    """The inverse of ``stft``: a signal from the complex ``(B?, N, T)`` frames of an
    ``stft``, with the window that made them; ``length`` trims or zero-pads the result."""
    if not isinstance(input, Tensor):
        raise TypeError(f"istft(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")
    n_fft, hop_length, win_length, length = _check_istft_arguments(
        n_fft, [("hop_length", hop_length), ("win_length", win_length), ("length", length)])
    self = input
    if window is None:
        warn_once(_ISTFT_WINDOW, 2)
    _check_window_device("istft", self, window)
    hop_length = n_fft >> 2 if hop_length is None else hop_length
    win_length = n_fft if win_length is None else win_length

    def fail(problem):
        raise RuntimeError(
            f"istft({_type_name(self)}{list(self.shape)}, n_fft={n_fft}, "
            f"hop_length={hop_length}, win_length={win_length}, window={_window_repr(window)}"
            f", center={int(center)}, normalized={int(normalized)}, onesided="
            f"{_flag(onesided)}, length={length}, return_complex={int(return_complex)}) "
            f"{problem}")

    if not self.is_complex():
        raise RuntimeError("istft requires a complex-valued input tensor matching the output "
                           "from stft with return_complex=True.")
    spectrum = self.resolve_conj()
    dims = self.dim() + 1           # torch counts the dims of view_as_real(input)
    if dims < 3:                    # torch reads the sizes at -2 and -3 of those dims
        raise IndexError(f"Dimension out of range (expected to be in range of [{-dims}, "
                         f"{dims - 1}], but got {-2 if dims < 2 else -3})")
    frames, fft_size = spectrum.shape[-1], spectrum.shape[-2]
    expected_length = n_fft + hop_length * (frames - 1)
    if spectrum.numel() == 0:
        fail(": input tensor cannot be empty.")
    if dims not in (3, 4):
        fail(f": expected a tensor with 3 or 4 dimensions, but got {dims}")
    one_sided = fft_size != n_fft if onesided is None else onesided
    if one_sided and n_fft // 2 + 1 != fft_size:
        fail(": expected the frequency dimension (3rd to the last) of the input tensor to "
             f"match n_fft / 2 + 1 when onesided=True, but got {fft_size}")
    if not one_sided and n_fft != fft_size:
        fail(": expected the frequency dimension (3rd to the last) of the input tensor to "
             f"match n_fft when onesided=False, but got {fft_size}")
    if not 0 < hop_length <= win_length:
        fail(": expected 0 < hop_length <= win_length")
    if not 0 < win_length <= n_fft:
        fail(": expected 0 < win_length <= n_fft")
    if window is not None and (window.dim() != 1 or window.shape[0] != win_length):
        fail(": Invalid window shape. window has to be 1D and length of `win_length`")

    real_dtype = _ag.float32 if self.dtype == _ag.complex64 else _ag.float64
    if window is None:
        window = _ag.ones(win_length, dtype=real_dtype, device=self.device)
    if win_length != n_fft:     # the window at the centre of n_fft samples
        left = (n_fft - win_length) // 2
        window = _ag.nn.functional.pad(window, [left, n_fft - win_length - left])

    if dims == 3:
        spectrum = spectrum.unsqueeze(0)
    spectrum = spectrum.transpose(1, 2)         # (batch, frames, fft_size)
    mode = BY_ROOT_N if normalized else BY_N    # an inverse transform: 1/n by default
    if return_complex:
        if one_sided:
            raise RuntimeError("Cannot have onesided output if window or input is complex")
        frames_out = fft_c2c(spectrum, (2,), mode, False)
    else:
        if window.is_complex():
            raise RuntimeError("Complex windows are incompatible with return_complex=False")
        if not one_sided:
            spectrum = spectrum.narrow(-1, 0, n_fft // 2 + 1)
        frames_out = fft_c2r(spectrum, (2,), mode, n_fft)

    batch = frames_out.shape[0]
    weighted = frames_out * window.view(1, 1, n_fft)
    signal = _unfold_backward(weighted, (batch, expected_length), 1, n_fft, hop_length)
    squares = window.pow(2).expand(1, frames, n_fft)
    envelope = _unfold_backward(squares, (1, expected_length), 1, n_fft, hop_length)

    start = n_fft // 2 if center else 0
    if length is not None:
        end = start + length
    else:
        end = -(n_fft // 2) if center else expected_length
    signal = signal[:, start:end]
    envelope = envelope[:, start:end]
    with _ag.no_grad():                         # NOTE [The NOLA condition]
        below = bool(envelope.abs().min() < 1e-11)
    if below:
        backend = "CUDA" if self.device.type == "cuda" else "CPU"
        fail(f"window overlap add min: 1\n[ {backend}BoolType{{}} ]")
    signal = signal / envelope
    if dims == 3:
        signal = signal.squeeze(0)
    if end > expected_length:
        warn_once(_PADDED, 2)
        signal = _ag.nn.functional.pad(signal, [0, end - expected_length])
    return signal


_register_methods({"stft": stft, "istft": istft})
