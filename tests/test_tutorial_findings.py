"""Differences from torch that PyTorch's tutorials found, each reduced to its smallest case."""
import re

import autograd_cy as ag
from tests.oracle import both


def _without_address(text):
    return re.sub(r"0x[0-9a-f]+", "0x?", text).replace("autograd_cy.", "torch.")


class _Cube:
    """A user's autograd.Function, made for each library."""

    @staticmethod
    def make(lib):
        class Cube(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x)
                return x ** 3

            @staticmethod
            def backward(ctx, grad):
                x, = ctx.saved_tensors
                return 3 * grad * x ** 2
        return Cube


def test_node_reprs():
    """The neural-networks tutorial prints next_functions: AccumulateGrad prints its class
    name, a user's Function's node prints as a Python class, the library's as torch's."""
    def run(lib):
        x = lib.ones(2, requires_grad=True)
        y = _Cube.make(lib).apply(x * 2).cumsum(0) + x
        nodes = [y.grad_fn, y.grad_fn.next_functions[0][0], y.grad_fn.next_functions[1][0],
                 y.grad_fn.next_functions[0][0].next_functions[0][0]]
        return [_without_address(repr(node)) for node in nodes]
    ours, theirs = both(run)
    assert ours == theirs
    assert ours[2] == "<AccumulateGrad object at 0x?>"
    assert ours[3] == "<torch.autograd.function.CubeBackward object at 0x?>"
    assert ag.ones(1, requires_grad=True).cumsum(0).grad_fn.name() == "CumsumBackward0"
