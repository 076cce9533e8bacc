"""The loss kernels (cuda/loss.cu) on the CPU emulator, against NumPy in float64: nll_loss
forward and backward for (C), (N, C) and (N, C, d) inputs, class weights, ignored and
all-ignored targets, every reduction, float16/32/64; out-of-range targets flag the assert
word without reading out of bounds, and surface as torch's device-side assert error at the
next host read; the pointwise losses fused into their reduction and their backward."""
import numpy as np
import pytest

import autograd_cy as ag
import autograd_cy.nn.functional as F
from autograd_cy.cuda.emulator import load_kernel_file
from autograd_cy.cuda.layout import LAYOUT_DTYPE, NLL_LAYOUT_DTYPE
from autograd_cy.cuda.manifest import FLOAT_CTYPES, POINTWISE_LOSS_FUNCTORS

RTOL = {"float16": 4e-3, "bfloat16": 3.2e-2, "float32": 2e-5, "float64": 1e-12}
IGNORE = -100


@pytest.fixture(scope="module")
def module():
    return load_kernel_file("loss.cu")


def nll_layout(n, c, s, reduction, weighted):
    layout = np.zeros((), NLL_LAYOUT_DTYPE)
    layout["n"], layout["c"], layout["s"] = n, c, s
    layout["x_stride"] = (c * s, s, 1)
    layout["target_stride"] = (s, 1)
    layout["grad_stride"] = (s, 1)
    layout["weight_stride"] = 1 if weighted else 0
    layout["ignore_index"], layout["reduction"] = IGNORE, reduction
    return layout[()]


def nll_oracle(x, target, weight, reduction):
    """(loss, total weight, input gradient for an incoming gradient of ones) in float64."""
    n, c, s = x.shape
    x = x.astype(np.float64)
    w = np.ones(c) if weight is None else weight.astype(np.float64)
    counted = target != IGNORE
    classes = np.where(counted, target, 0)
    picked_w = np.where(counted, w[classes], 0.0)
    picked = np.take_along_axis(x, classes[:, None, :], 1)[:, 0, :]
    losses = -picked_w * picked
    total = picked_w.sum()
    with np.errstate(invalid="ignore", divide="ignore"):
        loss = losses if reduction == 0 else losses.sum() / (total if reduction == 1 else 1)
        scale = 1.0 / total if reduction == 1 else 1.0
        values = np.where(counted, -picked_w * scale, 0.0)
    grad = np.zeros_like(x)
    np.put_along_axis(grad, classes[:, None, :], values[:, None, :], 1)
    return loss, total, grad


def close(got, want, dtype):
    want = np.asarray(want, np.float64)
    finite = want[np.isfinite(want)]
    np.testing.assert_allclose(np.asarray(got, np.float64), want, rtol=RTOL[dtype],
                               atol=RTOL[dtype] * (1 + np.max(np.abs(finite), initial=0)))


@pytest.mark.parametrize("dtype", FLOAT_CTYPES)
@pytest.mark.parametrize("reduction", [0, 1, 2])
@pytest.mark.parametrize("shape", [(1, 7, 1), (6, 5, 1), (3, 4, 5)])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("ignored", ["some", "all"])
def test_nll_loss(module, dtype, reduction, shape, weighted, ignored):
    n, c, s = shape
    rng = np.random.default_rng(n * 10 + s)
    x = rng.standard_normal(shape).astype(dtype)
    target = rng.integers(0, c, (n, s)).astype(np.int64)
    target[0, 0] = IGNORE
    if ignored == "all":
        target[...] = IGNORE
    weight = (rng.random(c) + 0.5).astype(dtype) if weighted else None
    ctype = FLOAT_CTYPES[dtype]
    error = np.zeros(1, np.int64)
    out = np.full((n, s) if reduction == 0 else (), np.nan, dtype)
    total = np.full((), np.nan, dtype)
    layout = nll_layout(n, c, s, reduction, weighted)
    grid, block = ((2,), (32,)) if reduction == 0 else ((1,), (64,))
    module.get_function(f"nll_loss_forward<{ctype}>")(
        grid, block, (out, total, x, target, weight, error, layout))
    want, want_total, want_grad = nll_oracle(x, target, weight, reduction)
    close(out, want, dtype)
    if reduction:
        close(total, want_total, dtype)
    grad = np.full(shape, np.nan, dtype)
    g = np.ones((n, s) if reduction == 0 else (), dtype)
    module.get_function(f"nll_loss_backward<{ctype}>")(
        (2,), (32,), (grad, g, target, weight, total if reduction == 1 else None, error, layout))
    close(grad, want_grad, dtype)
    assert error[0] == 0


@pytest.mark.parametrize("bad", [-1, 5, 1 << 40])
def test_out_of_range_target_flags_the_assert_word(module, bad):
    x = np.zeros((2, 5, 1), np.float32)        # a class past 5 would read past the end
    target = np.array([[1], [bad]], np.int64)
    error = np.zeros(1, np.int64)
    out, total = np.empty((), np.float32), np.empty((), np.float32)
    module.get_function("nll_loss_forward<float>")(
        (1,), (32,), (out, total, x, target, None, error, nll_layout(2, 5, 1, 2, False)))
    assert error[0] == 1 and out == 0.0
    error[0] = 0
    grad = np.full((2, 5, 1), np.nan, np.float32)
    module.get_function("nll_loss_backward<float>")(
        (1,), (32,), (grad, np.ones((), np.float32), target, None, None, error,
                      nll_layout(2, 5, 1, 2, False)))
    assert error[0] == 1 and np.count_nonzero(grad) == 1


def test_out_of_range_target_raises_at_the_next_host_read():
    seam = ag.cuda.devices.get(0).seam
    x = ag.tensor(np.zeros((2, 3), np.float32), device="cuda")
    F.cross_entropy(x, ag.tensor([0, 1], device="cuda")).item()    # the word exists
    seam.counters.reset()
    loss = F.cross_entropy(x, ag.tensor([0, 3], device="cuda"))
    assert seam.counters.device_to_host_bytes == 0                  # no read in the op
    with pytest.raises(RuntimeError, match="device-side assert triggered"):
        loss.item()
    # reported once: the device works again afterwards
    assert F.cross_entropy(x, ag.tensor([0, 2], device="cuda")).item() == pytest.approx(
        np.log(3), rel=1e-6)


def elementwise_layout_of(shape, operands):
    layout = np.zeros((), LAYOUT_DTYPE)
    layout["ndim"] = 1
    layout["size"][0] = int(np.prod(shape))
    for k, stride in enumerate(operands):
        layout["stride"][k][0] = stride
    return layout[()]


def pointwise_oracle(loss, x, t, w):
    x, t, w = (a.astype(np.float64) for a in (x, t, w))
    if loss == "mse_loss":
        return (x - t) ** 2, 2 * (x - t)
    if loss == "l1_loss":
        return np.abs(x - t), np.sign(x - t)
    if loss == "binary_cross_entropy":
        value = -w * (t * np.maximum(np.log(x), -100) + (1 - t) * np.maximum(np.log1p(-x), -100))
        return value, (x - t) / np.maximum(x * (1 - x), 1e-12)
    log_sigmoid = np.minimum(x, 0) - np.log1p(np.exp(-np.abs(x)))
    return w * ((1 - t) * x - log_sigmoid), 1 / (1 + np.exp(-x)) - t


@pytest.mark.parametrize("dtype", FLOAT_CTYPES)
@pytest.mark.parametrize("loss", sorted(POINTWISE_LOSS_FUNCTORS))
@pytest.mark.parametrize("n", [1, 33, 1025])
def test_pointwise_losses(module, dtype, loss, n):
    rng = np.random.default_rng(n)
    x = rng.random(n).astype(dtype) if "binary" in loss else rng.standard_normal(n).astype(dtype)
    t = rng.random(n).astype(dtype)
    w = (rng.random(n) + 0.5).astype(dtype)
    weighted = "binary" in loss
    ctype, functor = FLOAT_CTYPES[dtype], POINTWISE_LOSS_FUNCTORS[loss]
    want, derivative = pointwise_oracle(loss, x, t, w if weighted else np.ones_like(w))
    error = np.zeros(1, np.int64)
    kernel = module.get_function(f"pointwise_loss<{ctype}, {functor}>")
    for reduction in (0, 1, 2):
        out = np.full(n if reduction == 0 else (), np.nan, dtype)
        layout = elementwise_layout_of((n,), (1 if reduction == 0 else 0, 1, 1, 1))
        grid, block = ((2,), (32,)) if reduction == 0 else ((1,), (256,))
        kernel(grid, block, (layout, np.int64(n), out, x, t, w if weighted else None, error,
                             np.int32(reduction)))
        expected = want if reduction == 0 else want.sum() / (n if reduction == 1 else 1)
        close(out, expected, dtype)
    assert error[0] == 0
    grad = np.full(n, np.nan, dtype)
    g = np.full((), 3.0, dtype)
    divisor = np.dtype("float64" if dtype == "float64" else "float32").type(n)
    module.get_function(f"{loss}_backward<{ctype}>")(
        (2,), (32,), (elementwise_layout_of((n,), (1, 1, 1, 0)), np.int64(n), grad, x, t, g,
                      divisor))
    close(grad, 3.0 * derivative / n, dtype)


def test_bce_input_outside_zero_one_flags_the_assert_word(module):
    x = np.array([0.5, 1.5], np.float32)
    t = np.array([1.0, 0.0], np.float32)
    error = np.zeros(1, np.int64)
    out = np.empty((), np.float32)
    module.get_function("pointwise_loss<float, BceLoss>")(
        (1,), (32,), (elementwise_layout_of((2,), (0, 1, 1, 0)), np.int64(2), out, x, t, None,
                      error, np.int32(1)))
    assert error[0] == 1


def test_mse_and_bce_launches_on_the_device():
    seam = ag.cuda.devices.get(0).seam
    rng = np.random.default_rng(4)
    x = ag.tensor(rng.random((4, 3)).astype(np.float32), device="cuda", requires_grad=True)
    t = ag.tensor(rng.random((4, 3)).astype(np.float32), device="cuda")
    for fn, name in [(F.mse_loss, "mse_loss"), (F.binary_cross_entropy, "binary_cross_entropy")]:
        fn(x, t)
        seam.counters.reset()
        loss = fn(x, t)
        forward = dict(seam.counters.by_kernel)
        seam.counters.reset()
        ag.autograd.grad(loss, x, ag.ones((), device="cuda"))
        assert forward == {f"pointwise_loss<float, {POINTWISE_LOSS_FUNCTORS[name]}>": 1}
        assert dict(seam.counters.by_kernel) == {f"{name}_backward<float>": 1}
