"""torch.nn.grad's convolution gradients against torch's, and against the convolution's own
backward."""
import numpy as np
import pytest

from oracle import check_op, randn

CASES = [  # dims, input shape, weight shape, keywords
    (1, (2, 4, 9), (6, 2, 3), dict(stride=2, padding=1, dilation=1, groups=2)),
    (2, (1, 3, 7, 6), (4, 3, 3, 2), dict(stride=(2, 1), padding=(1, 0), dilation=(1, 2))),
    (2, (2, 2, 5, 5), (2, 1, 3, 3), dict(groups=2)),
    (3, (1, 2, 5, 4, 4), (3, 2, 2, 3, 2), dict(stride=1, padding=1, dilation=(1, 1, 2))),
]


def _output(lib, x, w, dims, kwargs):
    return getattr(lib.nn.functional, f"conv{dims}d")(x, w, **kwargs)


@pytest.mark.parametrize("dims, x_shape, w_shape, kwargs", CASES)
def test_input_gradient(dims, x_shape, w_shape, kwargs):
    out_shape = _output(__import__("torch"), __import__("torch").zeros(x_shape),
                        __import__("torch").zeros(w_shape), dims, kwargs).shape
    check_op(lambda lib, w, g: getattr(lib.nn.grad, f"conv{dims}d_input")(
        x_shape, w, g, **kwargs), randn(*w_shape, seed=1), randn(*out_shape, seed=2),
        dtype=np.float64)


@pytest.mark.parametrize("dims, x_shape, w_shape, kwargs", CASES)
def test_weight_gradient(dims, x_shape, w_shape, kwargs):
    import torch
    out_shape = _output(torch, torch.zeros(x_shape), torch.zeros(w_shape), dims, kwargs).shape
    check_op(lambda lib, x, g: getattr(lib.nn.grad, f"conv{dims}d_weight")(
        x, w_shape, g, **kwargs), randn(*x_shape, seed=3), randn(*out_shape, seed=4),
        dtype=np.float64)


def test_as_a_custom_backward():
    """A custom Function whose backward is nn.grad's gives the convolution's gradients."""
    import autograd_cy as ag

    class Conv(ag.autograd.Function):
        @staticmethod
        def forward(ctx, x, w):
            ctx.save_for_backward(x, w)
            return ag.nn.functional.conv2d(x, w, padding=1)

        @staticmethod
        def backward(ctx, g):
            x, w = ctx.saved_tensors
            return (ag.nn.grad.conv2d_input(x.shape, w, g, padding=1),
                    ag.nn.grad.conv2d_weight(x, w.shape, g, padding=1))
    x = ag.tensor(randn(1, 2, 4, 4, seed=5), requires_grad=True)
    w = ag.tensor(randn(3, 2, 3, 3, seed=6), requires_grad=True)
    assert ag.autograd.gradcheck(Conv.apply, (x, w))
