"""The softmax kernels (cuda/softmax.cu) on the CPU emulator, against NumPy in float64: rows
of 1, 31, 33 and 1025 elements along the first, a middle and the last dim, float16/32/64,
under both schedules (a warp per row, a block of up to 1024 threads per row); and the
launch counts of softmax and cross_entropy on the emulated device."""
import numpy as np
import pytest

import autograd_cy as ag
import autograd_cy.nn.functional as F
from autograd_cy.cuda.emulator import load_kernel_file
from autograd_cy.cuda.layout import ROW_LAYOUT_DTYPE
from autograd_cy.cuda.manifest import FLOAT_CTYPES

RTOL = {"float16": 4e-3, "bfloat16": 3.2e-2, "float32": 2e-5, "float64": 1e-12}
# (row length, block): warps of one or several rows, a block of 2 warps per row, and the
# long-row schedule's block of 1024 threads
CASES = [(1, (32, 4)), (31, (32, 2)), (33, (32, 1)), (33, (64, 1)), (1025, (1024, 1)),
         (1025, (32, 4))]


def contiguous_layout(shape, dim, operands):
    """The RowLayout of contiguous operands of ``shape`` along ``dim``."""
    layout = np.zeros((), ROW_LAYOUT_DTYPE)
    outer, n, inner = int(np.prod(shape[:dim])), shape[dim], int(np.prod(shape[dim + 1:]))
    layout["outer"], layout["dim"], layout["inner"] = outer, n, inner
    for k in range(operands):
        layout["stride"][k] = (n * inner, inner, 1)
    return layout[()]


def oracle(x, dim, log):
    x = x.astype(np.float64)
    shifted = x - x.max(axis=dim, keepdims=True)
    total = np.exp(shifted).sum(axis=dim, keepdims=True)
    return shifted - np.log(total) if log else np.exp(shifted) / total


def oracle_backward(g, y, dim, log):
    g, y = g.astype(np.float64), y.astype(np.float64)
    if log:
        return g - np.exp(y) * g.sum(axis=dim, keepdims=True)
    return y * (g - (g * y).sum(axis=dim, keepdims=True))


@pytest.fixture(scope="module")
def module():
    return load_kernel_file("softmax.cu")


@pytest.mark.parametrize("dtype", FLOAT_CTYPES)
@pytest.mark.parametrize("where", ["first", "middle", "last"])
@pytest.mark.parametrize("length, block", CASES)
def test_softmax_forward_and_backward(module, dtype, where, length, block):
    shape = {"first": (length, 3), "middle": (2, length, 3), "last": (3, length)}[where]
    dim = {"first": 0, "middle": 1, "last": len(shape) - 1}[where]
    rng = np.random.default_rng(length)
    x = (rng.standard_normal(shape) * 3).astype(dtype)
    g = rng.standard_normal(shape).astype(dtype)
    rows = int(np.prod(shape)) // length
    grid = (max(1, min(2, rows)),)
    ctype = FLOAT_CTYPES[dtype]
    for log in (0, 1):
        y = np.full(shape, np.nan, dtype)
        module.get_function(f"softmax_forward<{ctype}>")(
            grid, block, (y, x, contiguous_layout(shape, dim, 2), np.int32(log)))
        want = oracle(x, dim, log)
        np.testing.assert_allclose(y.astype(np.float64), want, rtol=RTOL[dtype],
                                   atol=RTOL[dtype] * (1 + np.abs(want).max()))
        grad = np.full(shape, np.nan, dtype)
        module.get_function(f"softmax_backward<{ctype}>")(
            grid, block, (grad, g, y, contiguous_layout(shape, dim, 3), np.int32(log)))
        want = oracle_backward(g, y, dim, log)
        np.testing.assert_allclose(grad.astype(np.float64), want, rtol=RTOL[dtype],
                                   atol=RTOL[dtype] * (1 + np.abs(want).max()))


def test_nan_and_infinite_rows_as_the_cpu_path(module):
    x = np.array([[1.0, np.nan, 2.0], [-np.inf, -np.inf, -np.inf], [0.0, -np.inf, 1.0]],
                 np.float32)
    y = np.empty_like(x)
    module.get_function("softmax_forward<float>")(
        (1,), (32, 1), (y, x, contiguous_layout(x.shape, 1, 2), np.int32(0)))
    with np.errstate(invalid="ignore"):
        np.testing.assert_array_equal(y, oracle(x, 1, False).astype(np.float32))


def test_strided_and_broadcast_operands_on_the_device():
    rng = np.random.default_rng(1)
    x = rng.standard_normal((4, 3, 5)).astype(np.float32)
    a = ag.tensor(x, device="cuda").permute(2, 0, 1)       # rows that do not merge: copied
    np.testing.assert_allclose(ag.softmax(a, 1).cpu().numpy(),
                               oracle(x.transpose(2, 0, 1), 1, False), rtol=1e-5, atol=1e-6)
    b = ag.tensor(x, device="cuda", requires_grad=True)
    ag.log_softmax(b, 1).sum().backward()                   # g broadcast: stride 0
    y = oracle(x, 1, True)
    np.testing.assert_allclose(b.grad.cpu().numpy(),
                               oracle_backward(np.ones_like(y), y, 1, True), rtol=1e-5,
                               atol=1e-6)


def launches(fn):
    seam = ag.cuda.devices.get(0).seam
    seam.counters.reset()
    result = fn()
    return result, dict(seam.counters.by_kernel)


@pytest.mark.parametrize("op", [ag.softmax, ag.log_softmax])
def test_softmax_is_one_launch_each_way(op):
    x = ag.tensor(np.random.default_rng(2).standard_normal((4, 6)).astype(np.float32),
                  device="cuda", requires_grad=True)
    y, forward = launches(lambda: op(x, 1))
    g = ag.ones((4, 6), device="cuda")
    _, backward = launches(lambda: ag.autograd.grad(y, x, g))
    assert sum(forward.values()) == 1 and list(forward) == ["softmax_forward<float>"]
    assert sum(backward.values()) == 1 and list(backward) == ["softmax_backward<float>"]


def test_cross_entropy_is_two_launches_each_way():
    x = ag.tensor(np.random.default_rng(3).standard_normal((8, 10)).astype(np.float32),
                  device="cuda", requires_grad=True)
    target = ag.tensor([1, 2, 3, 4, 5, 6, 7, 0], device="cuda")
    F.cross_entropy(x, target)                    # the first call makes the assert word
    loss, forward = launches(lambda: F.cross_entropy(x, target))
    g = ag.ones((), device="cuda")
    _, backward = launches(lambda: ag.autograd.grad(loss, x, g))
    assert forward == {"softmax_forward<float>": 1, "nll_loss_forward<float>": 1}
    assert backward == {"nll_loss_backward<float>": 1, "softmax_backward<float>": 1}
