"""Random numbers made on a CUDA device: the host side of cuda/random.cu.

Every launch reads the Philox stream of its device's seed (``autograd_cy.cuda.manual_seed``'s)
from the device's offset and moves the offset past the words it reads (NOTE [Philox4x32-10]):
consecutive calls draw different numbers, re-seeding replays them, and nothing random is
made on the host and copied.
"""
import numpy as np

from autograd_cy.cuda import manifest
from autograd_cy.cuda.array import empty, kernel_name, launch_elementwise
from autograd_cy.cuda.launch import elementwise_config


def _counters(n, dtype):
    """Philox counters (4 words each) for n samples: 4 float or half samples, 2 double."""
    per_counter = 2 if np.dtype(dtype) == np.float64 else 4
    return (n + per_counter - 1) // per_counter


def _stream(device, counters):
    """(seed, offset) for a launch on ``device`` reading ``counters`` Philox counters: the
    device's generator moves past them (NOTE [Device state lives on the device])."""
    return np.uint64(device.seed), np.uint64(device.take_philox_offset(4 * counters))


def _launch(kernel, out, counters, leading, trailing=()):
    """Launch a stream kernel over ``counters`` counters: arguments ``leading``, then
    ``trailing``, then the seed and offset."""
    device = out.device
    seed, offset = _stream(device, counters)
    grid, block = elementwise_config(max(counters, 1), device.seam)
    device.seam.launch(kernel, grid, block, tuple(leading) + tuple(trailing) + (seed, offset))


def bits(n, device):
    """n raw 32-bit words of the stream (uint32): the generator itself."""
    out = empty((n,), np.uint32, device)
    if n:
        _launch("philox_bits", out, (n + 3) // 4, (out.raw, np.int64(n)))
    return out


def _samples(template, shape, dtype, device):
    dtype = np.dtype(dtype)
    if dtype.kind == "c":
        # real samples with a zero imaginary part, as the CPU's factories draw them (the
        # stream kernels are instantiated for the real dtypes)
        real = np.dtype(manifest.REAL_OF_COMPLEX[dtype.name])
        return _samples(template, shape, real, device).astype(dtype)
    out = empty(tuple(shape), dtype, device)
    if out.size:
        _launch(kernel_name(template, out.dtype), out, _counters(out.size, out.dtype),
                (out.raw, np.int64(out.size)))
    return out


def uniform(shape, dtype, device):
    """Samples uniform on [0, 1) (``torch.rand``) of a float dtype."""
    return _samples("philox_uniform", shape, dtype, device)


def normal(shape, dtype, device):
    """Standard normal samples (``torch.randn``): Box-Muller on pairs of uniforms."""
    return _samples("philox_normal", shape, dtype, device)


def dropout_scale(p, dtype):
    """1 / (1 - p) as the kernel's accumulate type; 0 for p = 1 (all dropped: zeros, not
    0 * inf)."""
    scalar = np.float64 if np.dtype(dtype) == np.float64 else np.float32
    return scalar(0.0 if p == 1 else 1.0 / (1.0 - p))


def dropout(x, p):
    """(output, keep-mask) of dropout on the contiguous DeviceArray ``x``: one launch."""
    out = empty(x.shape, x.dtype, x.device)
    keep = empty(x.shape, np.bool_, x.device)
    if x.size:
        _launch(kernel_name("dropout_forward", x.dtype), x, (x.size + 3) // 4,
                (out.raw, keep.raw, x.raw, np.int64(x.size), np.float32(1.0 - p),
                 dropout_scale(p, x.dtype)))
    return out, keep


def dropout_backward(grad, keep, scale):
    """grad * keep * scale, ``grad`` of the mask's shape and any strides: one launch."""
    out = empty(grad.shape, grad.dtype, grad.device)
    return launch_elementwise(kernel_name("dropout_backward", grad.dtype), out, (grad, keep),
                              (scale,))
