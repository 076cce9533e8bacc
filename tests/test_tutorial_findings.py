"""Differences from torch that PyTorch's tutorials found, each reduced to its smallest case."""
import os
import re
import subprocess
import sys
import textwrap

import numpy as np
import pytest
import torch

import autograd_cy as ag
from tests.oracle import assert_close, both


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


NO_CUDA_DATA_PARALLEL = textwrap.dedent("""
    def run(lib):
        lib.manual_seed(0)
        net = lib.nn.DataParallel(lib.nn.Linear(3, 2))
        x = lib.randn(4, 3)
        out = net(x)
        out.sum().backward()
        return repr([net.device_ids, repr(net), sorted(net.state_dict()),
                     round(out.sum().item(), 4), round(net.module.weight.grad.sum().item(), 4)])
    """)


def test_data_parallel_without_cuda_is_its_module():
    """The saved-tensors-hooks tutorial wraps a module in nn.DataParallel: on a machine
    without CUDA it only forwards (AUTOGRAD_CY_CUDA=off, in a fresh interpreter)."""
    script = NO_CUDA_DATA_PARALLEL + "import autograd_cy\nprint(run(autograd_cy))\n"
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          env={**os.environ, "AUTOGRAD_CY_CUDA": "off"}, timeout=300,
                          cwd=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    assert done.returncode == 0, done.stderr
    scope = {}
    exec(NO_CUDA_DATA_PARALLEL, scope)
    assert done.stdout.strip() == scope["run"](torch)


@pytest.mark.skipif(not ag.cuda.is_available(), reason="needs a (real or emulated) CUDA device")
def test_data_parallel_on_cuda_gives_the_module_values():
    ag.manual_seed(0)
    torch.manual_seed(0)
    ours, theirs = ag.nn.Linear(3, 2), torch.nn.Linear(3, 2)
    net = ag.nn.DataParallel(ours)
    assert net.device_ids == list(range(ag.cuda.device_count()))
    assert ours.weight.device == ag.device("cuda", 0)
    x = np.random.default_rng(0).standard_normal((5, 3)).astype(np.float32)
    out = net(ag.from_numpy(x))
    expected = theirs(torch.from_numpy(x))
    assert out.device == ag.device("cuda", 0)
    assert_close(out.cpu(), expected, rtol=1e-5, atol=1e-6)
    out.sum().backward()
    expected.sum().backward()
    assert_close(ours.weight.grad.cpu(), theirs.weight.grad, rtol=1e-5, atol=1e-6)
    ours.cpu()
    with pytest.raises(RuntimeError, match=r"module must have its parameters and buffers on "
                       r"device cuda:0 \(device_ids\[0\]\) but found one of them on device: cpu"):
        net(ag.from_numpy(x))
