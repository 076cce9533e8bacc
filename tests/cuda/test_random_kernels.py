"""cuda/random.cu on the CPU emulator and through the emulated device: the Philox4x32-10
stream against a NumPy implementation of the algorithm's definition (itself checked against
the published known-answer vectors), samples that do not depend on the launch
configuration or block order, their statistics, the generator's seed and offset, and
dropout (keep fraction, the formula and its gradient with the same mask, p = 0 and 1).
"""
import numpy as np
import pytest
import torch

import autograd_cy as ag
import autograd_cy.nn.functional as F
from autograd_cy.cuda.emulator import load_kernel_file
from autograd_cy.cuda.layout import elementwise_layout

FILE = "random.cu"
CTYPES = {"float16": "__half", "bfloat16": "__nv_bfloat16", "float32": "float",
          "float64": "double"}
MASK32 = 0xFFFFFFFF


# ------------------------------------------------------------------ the reference

def philox4x32_10(counter, key):
    """Philox4x32-10 of a 4-word counter and a 2-word key, from the definition: ten rounds
    of (c0, c1, c2, c3) -> (hi(M1 c2) ^ c1 ^ k0, lo(M1 c2), hi(M0 c0) ^ c3 ^ k1, lo(M0 c0)),
    the key advanced by the Weyl constants before every round but the first."""
    c0, c1, c2, c3 = counter
    k0, k1 = key
    for round_ in range(10):
        if round_:
            k0, k1 = (k0 + 0x9E3779B9) & MASK32, (k1 + 0xBB67AE85) & MASK32
        p0, p1 = 0xD2511F53 * c0, 0xCD9E8D57 * c2
        c0, c1, c2, c3 = ((p1 >> 32) ^ c1 ^ k0, p1 & MASK32, (p0 >> 32) ^ c3 ^ k1, p0 & MASK32)
    return [c0, c1, c2, c3]


def reference_words(seed, offset, n):
    """Words offset .. offset+n-1 of the stream of ``seed`` (NOTE [Philox4x32-10])."""
    words = []
    for position in range(offset // 4, (offset + n + 3) // 4):
        words += philox4x32_10([position & MASK32, position >> 32, 0, 0],
                               [seed & MASK32, seed >> 32])
    return np.array(words[:n], np.uint32)


def test_the_reference_gives_the_known_answers():
    # the known-answer vectors published with the algorithm (Random123's kat_vectors)
    assert philox4x32_10([0, 0, 0, 0], [0, 0]) == [0x6627E8D5, 0xE169C58D, 0xBC57AC4C,
                                                     0x9B00DBD8]
    assert philox4x32_10([MASK32] * 4, [MASK32] * 2) == [0x408F276D, 0x41C83B0E, 0xA20BC7C6,
                                                         0x6D5451FD]
    assert philox4x32_10([0x243F6A88, 0x85A308D3, 0x13198A2E, 0x03707344],
                         [0xA4093822, 0x299F31D0]) == [0xD16CFE09, 0x94FDCCEB, 0x5001E420,
                                                       0x24126EA1]


# ------------------------------------------------------------------ kernels on the emulator

@pytest.fixture(scope="module")
def module():
    return load_kernel_file(FILE)


def run(module, name, args, grid=2, block=32):
    module.get_function(name)((grid,), (block,), args)


@pytest.mark.parametrize("seed, offset", [(0, 0), (2024, 8), (2 ** 40 + 7, 4 * 2 ** 33)])
def test_the_stream_is_philox_of_the_position(module, seed, offset):
    n = 37
    out = np.zeros(n, np.uint32)
    run(module, "philox_bits", (out, np.int64(n), np.uint64(seed), np.uint64(offset)))
    np.testing.assert_array_equal(out, reference_words(seed, offset, n))


@pytest.mark.parametrize("dtype", list(CTYPES))
def test_uniform_samples_are_the_stream_words_scaled(module, dtype):
    n, seed, offset = 29, 5, 12
    out = np.zeros(n, dtype)
    run(module, f"philox_uniform<{CTYPES[dtype]}>",
        (out, np.int64(n), np.uint64(seed), np.uint64(offset)))
    if dtype == "float64":
        words = reference_words(seed, offset, 2 * n).astype(np.float64)
        want = ((words[0::2] // 32) * 2.0 ** 26 + words[1::2] // 64) * 2.0 ** -53
    else:
        digits = {"float16": 11, "bfloat16": 8}.get(dtype, 24)
        want = (reference_words(seed, offset, n) >> (32 - digits)) * 2.0 ** -digits
    np.testing.assert_array_equal(out.astype(np.float64), want)
    assert out.min() >= 0 and out.max() < 1


KERNEL_CALLS = {
    "uniform": lambda dt, n: (f"philox_uniform<{CTYPES[dt]}>", [np.zeros(n, dt)], []),
    "normal": lambda dt, n: (f"philox_normal<{CTYPES[dt]}>", [np.zeros(n, dt)], []),
    "dropout": lambda dt, n: (
        f"dropout_forward<{CTYPES[dt]}>",
        [np.zeros(n, dt), np.zeros(n, np.bool_), np.linspace(-1, 1, n).astype(dt)],
        [np.float32(0.7), (np.float64 if dt == "float64" else np.float32)(1 / 0.7)]),
}


def launch_sampler(module, kind, dtype, n, grid, block):
    name, arrays, scalars = KERNEL_CALLS[kind](dtype, n)
    run(module, name, (*arrays, np.int64(n), *scalars, np.uint64(11), np.uint64(20)),
        grid, block)
    return [a.copy() for a in arrays[:2 if kind == "dropout" else 1]]    # the outputs


@pytest.mark.parametrize("kind", list(KERNEL_CALLS))
@pytest.mark.parametrize("dtype", list(CTYPES))
def test_results_do_not_depend_on_the_launch(module, monkeypatch, kind, dtype):
    n = 103
    first = launch_sampler(module, kind, dtype, n, 1, 1)
    for grid, block in ((2, 32), (7, 5), (64, 3)):
        for got, want in zip(launch_sampler(module, kind, dtype, n, grid, block), first):
            np.testing.assert_array_equal(got.view(np.uint8), want.view(np.uint8))
    monkeypatch.setenv("CUCPU_BLOCK_ORDER", "reverse")
    for got, want in zip(launch_sampler(module, kind, dtype, n, 5, 4), first):
        np.testing.assert_array_equal(got.view(np.uint8), want.view(np.uint8))


def test_dropout_backward_kernel_is_the_formula_on_strided_gradients(module):
    grad = np.arange(12.0, dtype=np.float32).reshape(3, 4).T          # strided
    keep = np.random.default_rng(0).random((4, 3)) < 0.5
    out = np.full((4, 3), np.nan, np.float32)
    strides = [tuple(s // a.itemsize for s in a.strides) for a in (out, grad, keep)]
    run(module, "dropout_backward<float>",
        (elementwise_layout(out.shape, strides), np.int64(out.size), out, grad, keep,
         np.float32(2.5)))
    np.testing.assert_allclose(out, grad * keep * np.float32(2.5))


# ------------------------------------------------------------------ the generator

@pytest.fixture
def seam():
    seam = ag.cuda.devices.get(0).seam
    seam.counters.reset()
    return seam


@pytest.mark.parametrize("dtype", [ag.float16, ag.float32, ag.float64])
def test_rand_and_randn_statistics(seam, dtype):
    ag.cuda.manual_seed(17)
    n = 6000
    uniform = ag.rand(n, device="cuda", dtype=dtype)
    normal = ag.randn(2, n // 2, device="cuda", dtype=dtype)
    assert uniform.is_cuda and uniform.dtype == dtype and tuple(normal.shape) == (2, n // 2)
    assert seam.counters.host_to_device_bytes == 0          # made on the device
    u = uniform.cpu().numpy().astype(np.float64)
    z = normal.cpu().numpy().astype(np.float64).ravel()
    assert u.min() >= 0 and u.max() < 1
    assert abs(u.mean() - 0.5) < 0.02 and abs(u.var() - 1 / 12) < 0.01
    assert abs(z.mean()) < 0.06 and abs(z.var() - 1) < 0.08
    assert abs(np.mean(z ** 3)) < 0.15 and abs(np.mean(z ** 4) - 3) < 0.4   # skew, kurtosis
    assert np.isfinite(z).all()


def test_like_factories_follow_the_input(seam):
    x = ag.zeros(5, 7, device="cuda", dtype=ag.float64)
    seam.counters.reset()
    for make in (ag.rand_like, ag.randn_like):
        y = make(x)
        assert y.is_cuda and y.dtype == ag.float64 and tuple(y.shape) == (5, 7)
    assert seam.counters.host_to_device_bytes == 0


def test_manual_seed_replays_and_consecutive_calls_differ():
    ag.cuda.manual_seed(3)
    first, second = ag.rand(40, device="cuda"), ag.rand(40, device="cuda")
    ag.cuda.manual_seed(3)
    again = ag.rand(40, device="cuda")
    assert np.array_equal(first.cpu().numpy(), again.cpu().numpy())
    assert not np.array_equal(first.cpu().numpy(), second.cpu().numpy())
    ag.cuda.manual_seed(4)
    assert not np.array_equal(ag.rand(40, device="cuda").cpu().numpy(), first.cpu().numpy())


def test_the_global_manual_seed_seeds_the_devices_too():
    ag.manual_seed(21)
    assert ag.cuda.initial_seed() == torch.manual_seed(21).initial_seed() == 21
    first = ag.randn(8, device="cuda").cpu().numpy()
    ag.manual_seed(21)
    assert np.array_equal(ag.randn(8, device="cuda").cpu().numpy(), first)


def test_the_offset_advances_by_the_words_drawn():
    from autograd_cy import cuda
    from autograd_cy.cuda import random
    ag.cuda.manual_seed(9)
    ag.rand(10, device="cuda")                       # 10 words: 3 counters, 12 words
    ag.randn(3, device="cuda", dtype=ag.float64)     # 2 per counter: 2 counters, 8 words
    device = cuda.devices.get(0)
    assert device.philox_offset == 20
    words = random.bits(8, device).get()    # the stream goes on from word 20
    np.testing.assert_array_equal(words, reference_words(9, 20, 8))
    ag.cuda.manual_seed(9)
    assert device.philox_offset == 0


# ------------------------------------------------------------------ dropout

def test_dropout_is_one_launch_each_way_with_the_formula_and_its_gradient(seam):
    ag.cuda.manual_seed(1)
    p = 0.3
    values = np.random.default_rng(2).standard_normal((40, 25)).astype(np.float32)
    x = ag.tensor(values, device="cuda", requires_grad=True)
    seam.counters.reset()
    y = F.dropout(x, p)
    assert seam.counters.by_kernel == {"dropout_forward<float>": 1}
    keep = y.grad_fn.keep.get()                                  # the node's mask
    assert keep.dtype == np.bool_ and abs(keep.mean() - (1 - p)) < 0.04
    scale = np.float32(1) / np.float32(1 - p)
    np.testing.assert_allclose(y.detach().cpu().numpy(), values * keep * scale, rtol=1e-6)
    upstream = np.random.default_rng(3).standard_normal(values.shape).astype(np.float32)
    seam.counters.reset()
    y.backward(ag.tensor(upstream, device="cuda"))
    assert seam.counters.by_kernel["dropout_backward<float>"] == 1
    np.testing.assert_allclose(x.grad.cpu().numpy(), upstream * keep * scale, rtol=1e-6)


def test_dropout_masks_differ_between_calls_and_replay_after_seeding():
    x = ag.ones(64, device="cuda")
    ag.cuda.manual_seed(5)
    a, b = F.dropout(x, 0.5).cpu().numpy(), F.dropout(x, 0.5).cpu().numpy()
    ag.cuda.manual_seed(5)
    assert np.array_equal(F.dropout(x, 0.5).cpu().numpy(), a) and not np.array_equal(a, b)


def test_dropout_double_backward_uses_the_same_mask():
    x = ag.tensor(np.linspace(-1, 1, 30), device="cuda", requires_grad=True)
    y = F.dropout(x, 0.4)
    keep = y.grad_fn.keep.get()
    (g,) = ag.autograd.grad((y * y).sum(), x, create_graph=True)
    (gg,) = ag.autograd.grad(g.sum(), x)
    scale = 1 / 0.6
    np.testing.assert_allclose(gg.cpu().numpy(), 2 * keep * scale * keep * scale, rtol=1e-12)


def test_dropout_in_place_writes_the_same_values():
    values = np.linspace(-2, 2, 50).astype(np.float32)
    ag.cuda.manual_seed(8)
    expected = F.dropout(ag.tensor(values, device="cuda"), 0.25).cpu().numpy()
    ag.cuda.manual_seed(8)
    x = ag.tensor(values, device="cuda")
    assert F.dropout(x, 0.25, inplace=True) is x
    np.testing.assert_array_equal(x.cpu().numpy(), expected)


@pytest.mark.parametrize("p, training", [(0.0, True), (1.0, True), (0.5, False)])
def test_dropout_edge_cases_match_torch(p, training):
    values = np.random.default_rng(4).standard_normal(12).astype(np.float32)
    x = ag.tensor(values, device="cuda", requires_grad=True)
    t = torch.tensor(values, requires_grad=True)
    y, expected = F.dropout(x, p, training), torch.nn.functional.dropout(t, p, training)
    np.testing.assert_array_equal(y.detach().cpu().numpy(), expected.detach().numpy())
    y.sum().backward()
    expected.sum().backward()
    np.testing.assert_array_equal(x.grad.cpu().numpy(), t.grad.numpy())
    assert np.isfinite(x.grad.cpu().numpy()).all()


def test_dropout_errors_match_torch():
    x = ag.ones(3, device="cuda")
    with pytest.raises(ValueError, match="dropout probability has to be between 0 and 1"):
        F.dropout(x, 1.5)
    with pytest.raises(RuntimeError, match="result type Float can't be cast"):
        F.dropout(ag.ones(3, device="cuda", dtype=ag.int64), 0.5)
