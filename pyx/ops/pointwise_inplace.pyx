"""The in-place forms of pointwise.pyx's ops (``exp_``, ``tanh_`` ...).

Each runs its out-of-place op through ``apply_inplace`` (views.pyx), which saves ``self``
in place of the out-of-place result and, under forward AD, updates the tangent in place.
"""
from autograd_cy._C.tensor cimport Tensor, register_methods
from autograd_cy._C.views cimport apply_inplace
from autograd_cy._C.ops.pointwise import (
    exp, expm1, sqrt, rsqrt, reciprocal, tanh, sigmoid, relu, sign, log, log1p, sin, cos, abs,
    square,
)

__all__ = ["exp_", "log_", "log1p_", "expm1_", "sqrt_", "rsqrt_", "sin_", "cos_", "tanh_",
           "sigmoid_", "relu_", "abs_", "sign_", "reciprocal_", "square_"]
__tensor_methods__ = tuple(__all__)


def exp_(Tensor self):
    """In-place :func:`exp`."""
    return apply_inplace(self, exp, (), False)


def expm1_(Tensor self):
    """In-place :func:`expm1`."""
    return apply_inplace(self, expm1, (), False)


def sqrt_(Tensor self):
    """In-place :func:`sqrt`."""
    return apply_inplace(self, sqrt, (), False)


def rsqrt_(Tensor self):
    """In-place :func:`rsqrt`."""
    return apply_inplace(self, rsqrt, (), False)


def reciprocal_(Tensor self):
    """In-place :func:`reciprocal`."""
    return apply_inplace(self, reciprocal, (), False)


def tanh_(Tensor self):
    """In-place :func:`tanh`."""
    return apply_inplace(self, tanh, (), False)


def sigmoid_(Tensor self):
    """In-place :func:`sigmoid`."""
    return apply_inplace(self, sigmoid, (), False)


def relu_(Tensor self):
    """In-place :func:`relu`."""
    return apply_inplace(self, relu, (), False)


def sign_(Tensor self):
    """In-place :func:`sign`."""
    return apply_inplace(self, sign, (), False)


# These nodes read the input: apply_inplace hands them a copy of the old value.

def log_(Tensor self):
    """In-place :func:`log`."""
    return apply_inplace(self, log, (), True)


def log1p_(Tensor self):
    """In-place :func:`log1p`."""
    return apply_inplace(self, log1p, (), True)


def sin_(Tensor self):
    """In-place :func:`sin`."""
    return apply_inplace(self, sin, (), True)


def cos_(Tensor self):
    """In-place :func:`cos`."""
    return apply_inplace(self, cos, (), True)


def abs_(Tensor self):
    """In-place :func:`abs`."""
    return apply_inplace(self, abs, (), True)


def square_(Tensor self):
    """In-place :func:`square`."""
    return apply_inplace(self, square, (), True)


register_methods({name: globals()[name] for name in __tensor_methods__})
