"""bernoulli, bernoulli_ and dropout's masks: torch's numbers after the same seed (NOTE
[Bernoulli draws] in autograd_cy/cpu_random.py).

torch's portable kernel compares a uniform (float64, or float32 for tensor probabilities
of another dtype) with the probability, element by element. On Intel CPUs torch's wheels
draw a number ``p``'s samples with MKL instead; there the expected values are the portable
kernel's, computed from torch's own uniforms.
"""
import numpy as np
import pytest
import torch

import autograd_cy as ag
from oracle import assert_same_error, node_name, to_numpy

pytestmark = pytest.mark.cpu_only       # torch's CPU stream; a CUDA generator differs


def _portable_sample(shape, p, seed):
    """What torch's portable kernel draws for ``empty(shape).bernoulli_(p)``."""
    torch.manual_seed(seed)
    return (torch.rand(shape, dtype=torch.float64) < p).double().numpy()


def _torch_samples_portably():
    torch.manual_seed(3)
    sample = torch.empty(256, dtype=torch.float64).bernoulli_(0.5).numpy()
    return np.array_equal(sample, _portable_sample((256,), 0.5, 3))


PORTABLE = _torch_samples_portably()     # False on an Intel CPU (MKL's stream)


def values(tensor):
    """A tensor's values as float64 (bfloat16 included)."""
    return to_numpy(tensor.double())


def expected(fn, portable):
    """torch's own sample where it draws with the portable kernel, else ``portable()``."""
    torch.manual_seed(0)
    return values(fn(torch)) if PORTABLE else portable()


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16", "int64",
                                   "bool"])
@pytest.mark.parametrize("p", [0.0, 0.3, 0.5, 1.0])
def test_bernoulli_with_a_number_is_torchs_sample(dtype, p):
    def fn(lib):
        return lib.empty(7, 9, dtype=getattr(lib, dtype)).bernoulli_(p)
    ag.manual_seed(0)
    ours = fn(ag)
    assert str(ours.dtype).split(".")[-1] == dtype
    np.testing.assert_array_equal(values(ours),
                                  expected(fn, lambda: _portable_sample((7, 9), p, 0)))


def test_bernoulli_fills_in_memory_order_and_samples_row_major():
    # bernoulli_ writes a transposed tensor's memory in order; bernoulli() samples into a
    # new row-major tensor whatever its input's layout
    for fn in [lambda lib: lib.empty(4, 5).t().bernoulli_(0.3),
               lambda lib: lib.bernoulli(lib.full((5, 4), 0.4).t()),
               lambda lib: lib.bernoulli(lib.full((5, 4), 0.4).t(), 0.7)]:
        ag.manual_seed(0)
        torch.manual_seed(0)
        if PORTABLE:
            np.testing.assert_array_equal(to_numpy(fn(ag)), to_numpy(fn(torch)))


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16"])
def test_bernoulli_with_tensor_probabilities(dtype):
    # float64 probabilities compare with float64 uniforms, the others with float32 ones
    # (torch's portable kernel, whatever the CPU)
    probabilities = np.random.default_rng(1).random((6, 5))
    for fn in [lambda lib, q: lib.bernoulli(q),
               lambda lib, q: lib.bernoulli(q.t()),
               lambda lib, q: lib.empty(5, 6, dtype=lib.float64).t().bernoulli_(q),
               lambda lib, q: lib.zeros(3, 6, 5).bernoulli_(q)]:
        results = []
        for lib in (ag, torch):
            lib.manual_seed(0)
            results.append(to_numpy(fn(lib, lib.tensor(probabilities,
                                                        dtype=getattr(lib, dtype)))))
        np.testing.assert_array_equal(*results)


def test_bernoulli_with_a_generator():
    results = []
    for lib in (ag, torch):
        generator = lib.Generator().manual_seed(42)
        results.append([to_numpy(lib.empty(10).bernoulli_(0.5, generator=generator)),
                        to_numpy(lib.bernoulli(lib.full((10,), 0.5), generator=generator))])
    if PORTABLE:
        np.testing.assert_array_equal(results[0][0], results[1][0])
    np.testing.assert_array_equal(results[0][1], results[1][1])


def test_bernoulli_autograd_nodes():
    for lib in (ag, torch):
        p = lib.tensor([0.5, 0.2, 0.9], requires_grad=True)
        sample = lib.bernoulli(p)
        assert node_name(sample.grad_fn) == "BernoulliBackward0"
        (grad,) = lib.autograd.grad(sample.sum(), p)
        np.testing.assert_array_equal(to_numpy(grad), np.zeros(3))
        with_number = lib.bernoulli(p, 0.3)
        assert node_name(with_number.grad_fn) == "NotImplemented"
    assert_same_error(lambda lib: lib.bernoulli(lib.tensor([0.5], requires_grad=True), 0.3)
                      .sum().backward(), RuntimeError, "derivative for", "bernoulli",
                      "not implemented")


def test_bernoulli_errors():
    assert_same_error(lambda lib: lib.empty(3).bernoulli_(1.5), RuntimeError,
                      "bernoulli_ expects p to be in", "but got p=1.5")
    assert_same_error(lambda lib: lib.empty(3).bernoulli_(-0.1), RuntimeError,
                      "bernoulli_ expects p to be in", "but got p=-0.1")
    assert_same_error(lambda lib: lib.bernoulli(lib.tensor([0.5, 1.5])), RuntimeError,
                      "Expected p_in >= 0 && p_in <= 1 to be true")
    assert_same_error(lambda lib: lib.bernoulli(lib.tensor([1, 0])), NotImplementedError,
                      "\"bernoulli_tensor_cpu_p_\" not implemented for 'Long'")


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16"])
@pytest.mark.parametrize("p", [0.1, 0.5, 0.75])
def test_dropout_masks_are_torchs(dtype, p):
    """A seeded training step with dropout gives torch's numbers: the mask is bernoulli_(1 -
    p) into a tensor laid out as the input, scaled by 1 / (1 - p) in the dtype's opmath."""
    def fn(lib, transposed=False):
        x = lib.arange(1, 61, dtype=getattr(lib, dtype)).reshape(6, 10)
        x = x.t() if transposed else x
        return lib.nn.functional.dropout(x, p)

    for transposed in (False, True):
        ag.manual_seed(0)
        ours = values(fn(ag, transposed))
        torch.manual_seed(0)
        theirs = values(fn(torch, transposed))
        if PORTABLE:
            np.testing.assert_array_equal(ours, theirs)
        else:   # MKL's mask differs; the kept values' scale does not
            assert set(np.unique(ours)) <= set(np.unique(theirs)) | {0.0}


def test_dropout_module_in_a_seeded_training_step():
    """Module, mask and gradient over a few steps, both libraries from the same seed."""
    results = []
    for lib in (ag, torch):
        lib.manual_seed(0)
        model = lib.nn.Sequential(lib.nn.Linear(8, 16), lib.nn.ReLU(), lib.nn.Dropout(0.3),
                                  lib.nn.Linear(16, 1))
        opt = lib.optim.SGD(model.parameters(), lr=0.1)
        x = lib.randn(32, 8)
        losses = []
        for _ in range(5):
            opt.zero_grad()
            loss = model(x).pow(2).mean()
            loss.backward()
            opt.step()
            losses.append(loss.item())
        results.append(losses)
    if PORTABLE:
        np.testing.assert_allclose(results[0], results[1], rtol=1e-5)


@pytest.mark.parametrize("name, kwargs, shape, transpose", [
    ("dropout1d", {"p": 0.5}, (2, 3, 4), False),
    ("dropout2d", {"p": 0.4}, (2, 3, 4, 5), False),
    ("dropout3d", {"p": 0.3}, (2, 3, 2, 2, 2), False),
    ("alpha_dropout", {"p": 0.3, "training": True}, (2, 3, 4, 5), False),
    ("alpha_dropout", {"p": 0.3, "training": True}, (2, 3, 4, 5), True),
    ("feature_alpha_dropout", {"p": 0.5, "training": True}, (2, 3, 4, 5), False)])
def test_dropout_variants_masks_are_torchs(name, kwargs, shape, transpose):
    """Channel masks of shape (N, C, 1, ...) and alpha dropout's mask laid out as its
    input, each bernoulli_(1 - p) as torch draws it."""
    def fn(lib):
        x = lib.arange(1.0, 1.0 + np.prod(shape), dtype=lib.float64).reshape(shape)
        return getattr(lib.nn.functional, name)(x.transpose(1, -1) if transpose else x,
                                                 **kwargs)
    ag.manual_seed(0)
    ours = values(fn(ag))
    torch.manual_seed(0)
    theirs = values(fn(torch))
    if PORTABLE:
        np.testing.assert_allclose(ours, theirs, rtol=1e-15, atol=1e-12)
