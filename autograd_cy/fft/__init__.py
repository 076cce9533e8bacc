"""``autograd_cy.fft``: torch.fft's discrete Fourier transforms, differentiable.

- kernels: the three primitives on arrays, NumPy's pocketfft (cuFFT through CuPy on a GPU:
  NOTE [FFTs on a device]);
- primitives: those primitives as ops, ``FftC2CBackward0``, ``FftR2CBackward0`` and
  ``FftC2RBackward0``, with torch's gradients (NOTE [The gradient of a one-sided transform]);
- arguments: the argument checks, promotion, signal sizes and dims, ``out=``;
- transforms: fft, ifft, rfft, irfft, hfft, ihfft and their 2-dim and n-dim forms;
- frequencies: fftfreq, rfftfreq, fftshift, ifftshift.

A float32 input gives complex64 results, float64 complex128; integers and bools compute in
the default dtype; float16 and bfloat16 are refused, as torch's CPU build refuses them.

>>> import autograd_cy as ag
>>> ag.fft.fft(ag.tensor([1.0, 0.0, 0.0, 0.0]))
tensor([1.+0.j, 1.+0.j, 1.+0.j, 1.+0.j])
>>> ag.fft.rfft(ag.tensor([1.0, 2.0, 3.0], requires_grad=True)).grad_fn.name()
'FftR2CBackward0'
"""
from autograd_cy.fft.frequencies import fftfreq, rfftfreq, fftshift, ifftshift
from autograd_cy.fft.transforms import (
    fft, ifft, rfft, irfft, hfft, ihfft, fft2, ifft2, rfft2, irfft2, hfft2, ihfft2, fftn,
    ifftn, rfftn, irfftn, hfftn, ihfftn,
)

__all__ = ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft", "fft2", "ifft2", "rfft2",
           "irfft2", "hfft2", "ihfft2", "fftn", "ifftn", "rfftn", "irfftn", "hfftn", "ihfftn",
           "fftfreq", "rfftfreq", "fftshift", "ifftshift"]
