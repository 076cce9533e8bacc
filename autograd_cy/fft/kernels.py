"""The transforms on arrays, without autograd: torch's three primitives ``_fft_c2c``,
``_fft_r2c`` and ``_fft_c2r`` over NumPy's pocketfft (NumPy 2 keeps float32 and complex64
in single precision, as torch's CPU build does).

A normalization is torch's mode, an int: ``NONE`` (no scaling), ``BY_ROOT_N`` (1/sqrt(n))
or ``BY_N`` (1/n), n the product of the transformed sizes of the signal; the same mode
scales a forward and an inverse transform alike (``numpy_norm`` says it in NumPy's words).

# NOTE [FFTs on a device]
A CUDA tensor holds a DeviceArray. On a real GPU its raw array is a ``cupy.ndarray`` and
the transform is ``cupy.fft`` (cuFFT) on it, in the device's memory; the result is wrapped
back as a DeviceArray of the same device. The emulated device has no cuFFT: its buffers
are host memory, so the transform runs there through NumPy and is copied back to the
device through the seam (``get`` and ``from_host``, counted as any host transfer), like
the factorizations of linalg (NOTE [Linear algebra on the CPU's LAPACK]).
"""
import numpy as np

from autograd_cy.cuda.array import DeviceArray, from_host

__all__ = ["NONE", "BY_ROOT_N", "BY_N", "numpy_norm", "c2c", "r2c", "c2r"]

NONE, BY_ROOT_N, BY_N = 0, 1, 2


def numpy_norm(mode, forward):
    """NumPy's ``norm=`` word for torch's mode ``mode`` on a forward or inverse transform."""
    if mode == BY_ROOT_N:
        return "ortho"
    scaled = mode == BY_N
    return ("forward" if scaled else "backward") if forward else (
        "backward" if scaled else "forward")


def _run(array, transform):
    """``transform(fft_module, raw)`` on ``array``'s device (NOTE [FFTs on a device])."""
    if isinstance(array, np.ndarray):
        return transform(np.fft, array)
    device = array.device
    if isinstance(array.raw, np.ndarray):       # the emulated device: host buffers
        return from_host(np.ascontiguousarray(transform(np.fft, array.get())), device)
    import cupy     # optional (a CPU install has none): only a real GPU gets here
    with cupy.cuda.Device(device.id):
        return DeviceArray(transform(cupy.fft, array.raw), device)


def c2c(array, dims, mode, forward):
    """The complex-to-complex transform of ``array`` over ``dims`` (forward or inverse)."""
    if not dims:        # no dim to transform: the values, copied (torch's _fft_c2c)
        return array.copy()
    norm = numpy_norm(mode, forward)
    return _run(array, lambda fft, raw: (fft.fftn if forward else fft.ifftn)(
        raw, axes=dims, norm=norm))


def r2c(array, dims, mode, onesided):
    """The forward transform of a real ``array`` over ``dims``; ``onesided`` keeps the
    first ``n // 2 + 1`` entries of the last of ``dims`` (the rest are their conjugates)."""
    norm = numpy_norm(mode, True)
    if onesided:
        return _run(array, lambda fft, raw: fft.rfftn(raw, axes=dims, norm=norm))
    return _run(array, lambda fft, raw: fft.fftn(raw, axes=dims, norm=norm))


def c2r(array, dims, mode, last_dim_size):
    """The inverse transform of a one-sided Hermitian ``array`` over ``dims``, a real
    result of ``last_dim_size`` entries along the last of them."""
    norm = numpy_norm(mode, False)

    def transform(fft, raw):
        sizes = [raw.shape[d] for d in dims[:-1]] + [last_dim_size]
        return fft.irfftn(raw, s=sizes, axes=dims, norm=norm)
    return _run(array, transform)
