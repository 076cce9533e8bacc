"""torch's three FFT primitives as ops with their gradients: ``_fft_c2c``
(``FftC2CBackward0``), ``_fft_r2c`` (``FftR2CBackward0``) and ``_fft_c2r``
(``FftC2RBackward0``). Every transform of ``autograd_cy.fft`` is one of them, or two with a
conjugate between, as torch composes them.

Each is linear, so its tangent is the op applied to the tangent, and its gradient is the
adjoint transform written with these same ops (a double backward records again):

- c2c: the transform of the other direction with the same normalization (the adjoint of
  the unscaled DFT is the unscaled inverse DFT);
- r2c: the gradient padded with zeros to the signal's length along the last dim (a
  one-sided result dropped the other half), its inverse c2c, real part (NOTE [The gradient
  of a one-sided transform]);
- c2r: the gradient's one-sided r2c, with the entries that stand for two of the full
  spectrum (1 .. n - n // 2 - 1 along the last dim) doubled.

# NOTE [The gradient of a one-sided transform]
rfft is not invertible by irfft on its cotangents: the one-sided r2c is the full c2c of the
real signal with half of the result dropped, so its adjoint pads the gradient back to n
entries with zeros and takes the full inverse c2c; irfft instead would mirror the
conjugates into the dropped half. Conversely c2r reads each entry k in 1 .. n - n // 2 - 1
twice (as itself and as the conjugate at n - k), so its adjoint, r2c of the gradient,
doubles those entries. This is torch's fft_r2c_backward and fft_c2r_backward
(FunctionsManual.cpp).
"""
from autograd_cy._C.tensor import _array_of, _wrap_array
from autograd_cy.autograd.function import Function
from autograd_cy.fft import kernels

import autograd_cy as _ag

__all__ = ["FftC2C", "FftR2C", "FftC2R", "fft_c2c", "fft_r2c", "fft_c2r"]


class FftC2C(Function):
    """``_fft_c2c(self, dim, normalization, forward)`` (``FftC2CBackward0``)."""
    builtin_op = True

    @staticmethod
    def forward(ctx, input, dim, normalization, forward):
        ctx.dim, ctx.normalization, ctx.forward = dim, normalization, forward
        return _wrap_array(kernels.c2c(_array_of(input), dim, normalization, forward))

    @staticmethod
    def backward(ctx, grad):
        return fft_c2c(grad, ctx.dim, ctx.normalization, not ctx.forward), None, None, None

    @staticmethod
    def jvp(ctx, input_t, *_):
        return fft_c2c(input_t, ctx.dim, ctx.normalization, ctx.forward)


class FftR2C(Function):
    """``_fft_r2c(self, dim, normalization, onesided)`` (``FftR2CBackward0``)."""
    builtin_op = True

    @staticmethod
    def forward(ctx, input, dim, normalization, onesided):
        ctx.dim, ctx.normalization, ctx.onesided = dim, normalization, onesided
        ctx.last_dim_size = input.shape[dim[-1]]
        return _wrap_array(kernels.r2c(_array_of(input), dim, normalization, onesided))

    @staticmethod
    def backward(ctx, grad):
        last = ctx.dim[-1]
        missing = ctx.last_dim_size - grad.shape[last]
        if ctx.onesided and missing > 0:      # NOTE [The gradient of a one-sided transform]
            shape = list(grad.shape)
            shape[last] = missing
            grad = _ag.cat([grad, grad.new_zeros(shape)], last)
        return (_ag.real(fft_c2c(grad, ctx.dim, ctx.normalization, False)),
                None, None, None)

    @staticmethod
    def jvp(ctx, input_t, *_):
        return fft_r2c(input_t, ctx.dim, ctx.normalization, ctx.onesided)


class FftC2R(Function):
    """``_fft_c2r(self, dim, normalization, last_dim_size)`` (``FftC2RBackward0``)."""
    builtin_op = True

    @staticmethod
    def forward(ctx, input, dim, normalization, last_dim_size):
        ctx.dim, ctx.normalization, ctx.last_dim_size = dim, normalization, last_dim_size
        return _wrap_array(kernels.c2r(_array_of(input), dim, normalization, last_dim_size))

    @staticmethod
    def backward(ctx, grad):
        last = ctx.dim[-1]
        result = fft_r2c(grad, ctx.dim, ctx.normalization, True)
        doubled = grad.shape[last] - result.shape[last]
        if doubled > 0:                       # NOTE [The gradient of a one-sided transform]
            half = result.shape[last]
            scale = _ag.ones(half, dtype=grad.dtype, device=grad.device)
            scale[1:1 + doubled] = 2
            result = result * scale.reshape((half,) + (1,) * (grad.dim() - 1 - last))
        return result, None, None, None

    @staticmethod
    def jvp(ctx, input_t, *_):
        return fft_c2r(input_t, ctx.dim, ctx.normalization, ctx.last_dim_size)


FftC2C._backward_cls.__name__ = "FftC2CBackward0"
FftR2C._backward_cls.__name__ = "FftR2CBackward0"
FftC2R._backward_cls.__name__ = "FftC2RBackward0"


def fft_c2c(input, dim, normalization, forward):
    """torch's ``_fft_c2c``: ``dim`` a tuple of non-negative dims."""
    return FftC2C.apply(input, tuple(dim), normalization, forward)


def fft_r2c(input, dim, normalization, onesided):
    """torch's ``_fft_r2c``."""
    return FftR2C.apply(input, tuple(dim), normalization, onesided)


def fft_c2r(input, dim, normalization, last_dim_size):
    """torch's ``_fft_c2r``."""
    return FftC2R.apply(input, tuple(dim), normalization, last_dim_size)
