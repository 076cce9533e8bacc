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
    ours, theirs = ag.nn.Linear(3, 2, device="cpu"), torch.nn.Linear(3, 2)
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


def test_inplace_on_outputs_of_the_library_functions():
    """A conv or pool followed by an in-place activation (``nn.ReLU(inplace=True)``, as the
    custom conv-bn tutorial's ``F.relu_``): the outputs are tensors of their own, and what
    backward reads is not changed by the in-place op (batch_norm without weight)."""
    def run(lib):
        F = lib.nn.functional
        x = lib.tensor(np.sin(np.arange(64.0)).reshape(2, 2, 4, 4), requires_grad=True)
        w = lib.tensor(np.linspace(-1, 1, 18).reshape(1, 2, 3, 3), requires_grad=True)
        outs = [F.relu_(F.conv2d(x, w)), F.relu_(F.max_pool2d(x * 1, 2)),
                F.relu_(F.layer_norm(x * 1, (4,))), F.relu_(F.embedding(lib.tensor([1]), w[0, 0])),
                F.batch_norm(x * 1, None, None, training=True).mul_(3),
                F.instance_norm(x * 1).mul_(3)]
        total = sum((out * out * (1 + out.abs())).sum() for out in outs)
        total.backward()
        return [out._is_view() for out in outs], total.item(), x.grad.abs().sum().item()
    ours, theirs = both(run)
    assert ours[0] == [False] * 5 + [True]
    assert ours[0] == theirs[0]
    assert_close(np.array(ours[1:]), np.array(theirs[1:]))


def test_vmap_of_linear_rounds_as_linear():
    """The jacobians tutorial compares a vmapped jacrev with a jacrev of the summed batch by
    allclose in float32: torch's vmapped linear is one addmm over the batch, bit for bit the
    unbatched linear."""
    def run(lib):
        F = lib.nn.functional
        rng = np.random.default_rng(0)
        w, b, x = (lib.tensor(rng.standard_normal(shape), dtype=lib.float32)
                   for shape in ((33, 31), (33,), (64, 31)))
        batched = lib.func.vmap(lambda row: F.linear(row, w, b))(x)
        return (batched - F.linear(x, w, b)).abs().max().item()
    assert both(run) == (0.0, 0.0)


def test_a_range_indexes_as_a_tensor():
    """What is torch.nn really: ``-input[range(n), target].mean()``."""
    def run(lib):
        x = lib.tensor(np.arange(12.0).reshape(3, 4), requires_grad=True)
        picked = x[range(3), lib.tensor([0, 3, 1])]
        picked.sum().backward()
        return (picked.tolist(), x[range(1, 3)].tolist(), x[:, range(2)].tolist(),
                x.grad.tolist())
    ours, theirs = both(run)
    assert ours == theirs


def test_empty_legacy_constructor():
    """``torch.Tensor()`` (the char-RNN tutorial's ``torch.Tensor([0])`` and friends) is an
    empty vector."""
    def run(lib):
        return [tuple(t.shape) for t in (lib.Tensor(), lib.Tensor([0]), lib.Tensor(2, 3))]
    ours, theirs = both(run)
    assert ours == theirs == [(0,), (1,), (2, 3)]


def test_saved_tensor_repr():
    """The saved-tensors-hooks tutorial prints ``grad_fn._raw_saved_self``."""
    def run(lib):
        x = lib.ones(2, requires_grad=True)
        return _without_address(repr(x.pow(2).grad_fn._raw_saved_self))
    ours, theirs = both(run)
    assert ours == theirs


def test_pack_hooks_see_the_factors_in_torchs_order():
    """The saved-tensors-hooks tutorial prints "Packing" for ``a * b``: torch packs ``b``
    first (mul and div save ``other`` before ``self``); ``_saved_self`` is still ``a``."""
    def run(lib):
        a = lib.tensor([1.0, 1.5], requires_grad=True)
        b = lib.tensor([2.0, 3.0], requires_grad=True)
        packed = []

        def pack(t):
            packed.append(t.tolist())
            return t
        with lib.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
            y = a * b
            z = a / b
            w = a.detach() * b
        saved = y.grad_fn._saved_self.tolist(), z.grad_fn._saved_other.tolist()
        (y + z + w).sum().backward()
        return packed, saved, a.grad.tolist(), b.grad.tolist()
    ours, theirs = both(run)
    assert ours == theirs
    assert ours[0][:2] == [[2.0, 3.0], [1.0, 1.5]]
