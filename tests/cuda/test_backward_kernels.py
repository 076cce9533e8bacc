"""The fused backward formulas of cuda/pointwise_backward.cu on the CPU emulator, against
PyTorch in float64: its backward kernels (torch.ops.aten.tanh_backward, gelu_backward ...)
for the one-gradient formulas, autograd itself for mul, div and pow."""
import numpy as np
import pytest
import torch

from autograd_cy.cuda import manifest
from autograd_cy.cuda.emulator import load_kernel_file
from autograd_cy.cuda.layout import elementwise_layout
from launching import signature_code

FILE = "pointwise_backward.cu"
FLOATS = manifest.FLOATS
CTYPE = manifest.FLOAT_CTYPES
TOLERANCE = {"float16": (3e-3, 2e-3), "bfloat16": (2.4e-2, 1.6e-2), "float32": (1e-5, 1e-6),
             "float64": (1e-12, 1e-14)}
SHAPE = (5, 7)
aten = torch.ops.aten
rng = np.random.default_rng(1)


@pytest.fixture(scope="module")
def module():
    return load_kernel_file(FILE)


def element_strides(array):
    return tuple(s // array.itemsize for s in array.strides)


def launch(module, name, outputs, inputs, scalars=(), grid=2, block=32):
    """Run ``name``: the Layout's operand 0 is the first output that is not None (two
    outputs share it, NOTE [Two gradients in one pass]), then the inputs (an input passed
    as None, not read, keeps its slot with strides 0)."""
    first = next(a for a in outputs if a is not None)
    strides = [element_strides(first)] + [element_strides(a) if a is not None
                                          else (0,) * first.ndim for a in inputs]
    layout = elementwise_layout(first.shape, strides)
    module.get_function(name)((grid,), (block,), (layout, np.int64(first.size),
                                                  *outputs, *inputs, *scalars))


def transposed(values, dtype):
    return np.ascontiguousarray(np.asarray(values).astype(dtype).T).T


def as_tensor(array):
    return torch.from_numpy(np.array(array, np.float64))


def assert_matches(got, want, dtype):
    rtol, atol = TOLERANCE[dtype]
    np.testing.assert_allclose(np.asarray(got, np.float64),
                               np.asarray(want, np.float64).astype(dtype).astype(np.float64),
                               rtol=rtol, atol=atol, equal_nan=True)


def test_manifest_entries_resolve_with_their_parameter_types(module):
    entries = [k for k in manifest.KERNELS if k.file == FILE]
    assert len(entries) == (len(manifest.POINTWISE_BACKWARD_SIGNATURES) * len(FLOATS)
                            + len(manifest.COMPLEX_POINTWISE_BACKWARD) * len(manifest.COMPLEXES))
    for entry in entries:
        expected = [signature_code(p) for p in entry.params]
        assert module.get_function(entry.name).sig == expected, entry.name


# ------------------------------------------------------------------ one gradient

def uniform(low, high, shape=SHAPE):
    return rng.uniform(low, high, shape)


def threshold_input():
    x = uniform(-3, 3)
    x.flat[:3] = [0.0, 0.5, -0.0]   # exactly at the threshold 0.5, and at relu's 0
    return x


def softplus_input():
    x = uniform(-4, 12)
    x.flat[:2] = [1.5, 2.0]   # beta x == threshold (derivative sigmoid), and past it
    return x


# kernel: (the saved tensor's values, the numbers, the oracle of (g, saved, *numbers))
ONE_GRADIENT = {
    "tanh_backward": (lambda: uniform(-0.99, 0.99), (), aten.tanh_backward),
    "sigmoid_backward": (lambda: uniform(0.01, 0.99), (), aten.sigmoid_backward),
    "threshold_backward": (threshold_input, (0.5,), aten.threshold_backward),
    "gelu_backward": (lambda: uniform(-6, 6), (), aten.gelu_backward),
    "gelu_tanh_backward": (lambda: uniform(-6, 6), (),
                           lambda g, x: aten.gelu_backward(g, x, approximate="tanh")),
    "silu_backward": (lambda: uniform(-8, 8), (), aten.silu_backward),
    "softplus_backward": (softplus_input, (2.0, 3.0), aten.softplus_backward),
    "pow_scalar_backward": (lambda: uniform(-3, 3), (2.0,),
                            lambda g, x, e: torch.autograd.grad(
                                torch.pow(x.requires_grad_(), e), x, g)[0]),
}
ONE_GRADIENT_CASES = [(name, dt) for name in ONE_GRADIENT for dt in FLOATS]


def test_every_one_gradient_kernel_has_a_case():
    assert set(ONE_GRADIENT) == {name for name, (pointers, _) in
                                 manifest.POINTWISE_BACKWARD_SIGNATURES.items() if pointers == 3}


def run_one_gradient(module, name, dtype, saved, g, numbers, out, **launch_options):
    scalar = np.dtype(manifest.scalar_param(dtype)).type
    launch(module, f"{name}<{CTYPE[dtype]}>", (out,), (g, saved),
           tuple(scalar(v) for v in numbers), **launch_options)


def one_gradient_oracle(name, g, saved, numbers):
    return ONE_GRADIENT[name][2](as_tensor(g), as_tensor(saved), *numbers).numpy()


@pytest.mark.parametrize("name,dtype", ONE_GRADIENT_CASES)
def test_one_gradient(module, name, dtype):
    values, numbers, _ = ONE_GRADIENT[name]
    saved = transposed(values(), dtype)
    g = np.broadcast_to(uniform(-2, 2, (1, 7)).astype(dtype), SHAPE)
    out = np.empty(SHAPE, dtype)
    run_one_gradient(module, name, dtype, saved, g, numbers, out)
    assert_matches(out, one_gradient_oracle(name, g, saved, numbers), dtype)


@pytest.mark.parametrize("name,dtype", ONE_GRADIENT_CASES)
def test_one_gradient_in_place_into_grad_out(module, name, dtype):
    values, numbers, _ = ONE_GRADIENT[name]
    saved = values().astype(dtype)[::-1]
    g = transposed(uniform(-2, 2), dtype)
    want = one_gradient_oracle(name, g, saved, numbers)
    run_one_gradient(module, name, dtype, saved, g, numbers, g)
    assert_matches(g, want, dtype)


@pytest.mark.parametrize("dtype", FLOATS)
def test_softplus_backward_with_a_large_threshold(module, dtype):
    """beta x up to 90 below the threshold 100: exp(beta x) overflows float32 (and half's
    float), which z / (z + 1) would turn into NaN; the kernel's sigmoid gives 1."""
    x = np.linspace(-40, 45, 35).reshape(SHAPE).astype(dtype)
    g = uniform(-2, 2).astype(dtype)
    out = np.empty(SHAPE, dtype)
    run_one_gradient(module, "softplus_backward", dtype, x, g, (2.0, 100.0), out)
    assert_matches(out, one_gradient_oracle("softplus_backward", g, x, (2.0, 100.0)), dtype)


@pytest.mark.parametrize("dtype", FLOATS)
def test_pow_scalar_backward_with_exponent_zero_is_zero(module, dtype):
    x = np.array([0.0, -1.0, 2.0, np.inf], dtype)
    g = np.array([1.0, np.nan, 3.0, 1.0], dtype)
    out = np.full(4, 7, dtype)
    run_one_gradient(module, "pow_scalar_backward", dtype, x, g, (0.0,), out)
    want = one_gradient_oracle("pow_scalar_backward", g, x, (0.0,))
    np.testing.assert_array_equal(out, want.astype(dtype))


# ------------------------------------------------------------------ two gradients

def autograd_oracle(op, g, a, b, needs=(True, True)):
    """The gradients of op(a, b) (broadcast views of one shape) for g, in float64."""
    ta, tb = as_tensor(a).requires_grad_(needs[0]), as_tensor(b).requires_grad_(needs[1])
    wanted = [t for t in (ta, tb) if t.requires_grad]
    grads = iter(torch.autograd.grad(op(ta, tb), wanted, as_tensor(g)))
    return [next(grads).numpy() if need else None for need in needs]


def pow_inputs(shape):
    """Zeros and negative bases with integer exponents, zero and negative exponents: the
    cases PyTorch masks to 0 (docs/derivatives.md)."""
    base = rng.choice([0.0, 0.5, 1.0, 1.5, 2.5, -1.0, -2.0], shape)
    exponent = rng.choice([0.0, 1.0, 2.0, -1.0, 0.5, -2.0, 3.0], shape)
    return base, exponent


TWO_GRADIENTS = {
    "mul_backward": (torch.mul, lambda shape: (uniform(-3, 3, shape), uniform(-3, 3, shape))),
    "div_backward": (torch.div, lambda shape: (
        uniform(-3, 3, shape), uniform(0.3, 3, shape) * rng.choice([-1, 1], shape))),
    "pow_backward": (torch.pow, pow_inputs),
}
TWO_GRADIENT_CASES = [(name, dt) for name in TWO_GRADIENTS for dt in FLOATS]


def test_every_two_gradient_kernel_has_a_case():
    assert set(TWO_GRADIENTS) == {name for name, (pointers, _) in
                                  manifest.POINTWISE_BACKWARD_SIGNATURES.items() if pointers == 5}


@pytest.mark.parametrize("name,dtype", TWO_GRADIENT_CASES)
def test_two_gradients_of_broadcast_operands(module, name, dtype):
    """a of shape (5, 1) and b of shape (1, 7) broadcast to the gradient's (5, 7); the host
    reduces the two full-shape gradients afterwards."""
    op, inputs = TWO_GRADIENTS[name]
    a_values, b_values = inputs(SHAPE)
    a = np.broadcast_to(a_values[:, :1].astype(dtype), SHAPE)
    b = np.broadcast_to(b_values[:1, ::-1].astype(dtype), SHAPE)
    g = transposed(uniform(-2, 2), dtype)
    grad_a, grad_b = np.empty(SHAPE, dtype), np.empty(SHAPE, dtype)
    launch(module, f"{name}<{CTYPE[dtype]}>", (grad_a, grad_b), (g, a, b))
    want_a, want_b = autograd_oracle(op, g, a, b)
    assert_matches(grad_a, want_a, dtype)
    assert_matches(grad_b, want_b, dtype)


@pytest.mark.parametrize("name,dtype", TWO_GRADIENT_CASES)
def test_one_of_two_gradients(module, name, dtype):
    """A null output is not written, and an input only it reads may be null: mul's grad_a
    reads b only, its grad_b a only; div's grad_a reads b only."""
    op, inputs = TWO_GRADIENTS[name]
    a_values, b_values = inputs(SHAPE)
    a, b = a_values.astype(dtype), b_values.astype(dtype)
    g = uniform(-2, 2).astype(dtype)
    want_a, want_b = autograd_oracle(op, g, a, b)
    unread_by_a = {"mul_backward": "a", "div_backward": "a"}.get(name)
    unread_by_b = {"mul_backward": "b"}.get(name)

    grad_a = np.empty(SHAPE, dtype)
    launch(module, f"{name}<{CTYPE[dtype]}>", (grad_a, None),
           (g, None if unread_by_a == "a" else a, b))
    assert_matches(grad_a, want_a, dtype)

    grad_b = np.empty(SHAPE, dtype)
    launch(module, f"{name}<{CTYPE[dtype]}>", (None, grad_b),
           (g, a, None if unread_by_b == "b" else b))
    assert_matches(grad_b, want_b, dtype)


@pytest.mark.parametrize("name", TWO_GRADIENTS)
def test_two_gradients_one_written_into_grad(module, name):
    """grad_a is grad's memory (same strides, as NOTE [Two gradients in one pass] asks of
    both outputs): every input is read before an output is written."""
    op, inputs = TWO_GRADIENTS[name]
    a_values, b_values = inputs(SHAPE)
    a, b = transposed(a_values, "float64"), b_values[::-1]
    g = uniform(-2, 2)
    want_a, want_b = autograd_oracle(op, g, a, b)
    grad_b = np.empty(SHAPE)
    launch(module, f"{name}<double>", (g, grad_b), (g, a, b))
    assert_matches(g, want_a, "float64")
    assert_matches(grad_b, want_b, "float64")


# ------------------------------------------------------------------ sizes, launches, order

@pytest.mark.parametrize("n", [0, 1, 31, 33])
@pytest.mark.parametrize("grid,block", [(1, 32), (3, 64)])
def test_sizes_and_launch_configurations(module, n, grid, block):
    x = uniform(-3, 3, (n,)).astype(np.float32)[::-1]
    g = uniform(-2, 2, (n,)).astype(np.float32)
    out = np.empty(n, np.float32)
    run_one_gradient(module, "gelu_backward", "float32", x, g, (), out, grid=grid, block=block)
    assert_matches(out, one_gradient_oracle("gelu_backward", g, x, ()), "float32")


def test_blocks_in_reverse_order_and_a_large_block(module, monkeypatch):
    monkeypatch.setenv("CUCPU_BLOCK_ORDER", "reverse")
    a, b = uniform(-3, 3, (40, 30)).T, uniform(0.5, 3, (30, 40))
    g = uniform(-2, 2, (30, 40))
    for grid, block in [(4, 32), (1, 1024)]:
        grad_a, grad_b = np.empty((30, 40)), np.empty((30, 40))
        launch(module, "div_backward<double>", (grad_a, grad_b), (g, a, b), grid=grid, block=block)
        want_a, want_b = autograd_oracle(torch.div, g, a, b)
        assert_matches(grad_a, want_a, "float64")
        assert_matches(grad_b, want_b, "float64")


def test_a_large_launch(module):
    n = 1000003
    x = rng.uniform(-6, 6, n).astype(np.float32)
    g = rng.uniform(-2, 2, n).astype(np.float32)
    out = np.empty(n, np.float32)
    run_one_gradient(module, "silu_backward", "float32", x, g, (), out, grid=8, block=128)
    assert_matches(out, one_gradient_oracle("silu_backward", g, x, ()), "float32")
