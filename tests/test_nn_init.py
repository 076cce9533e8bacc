"""nn.init against torch: after the same manual_seed every initializer gives torch's numbers
(the generator's own tests are in test_rng.py); the errors and warnings are torch's."""
import math

import numpy as np
import pytest
import torch

import autograd_cy as ag
from oracle import assert_same_error, same_warning

pytestmark = pytest.mark.cpu_only       # the CPU generator's numbers


def both_seeded(make, seed=0):
    """``make(lib)`` after ``lib.manual_seed(seed)``, for both libraries, as arrays."""
    results = []
    for lib in (ag, torch):
        lib.manual_seed(seed)
        results.append(np.asarray(make(lib)))
    return results


def plain(value):
    return value.detach().numpy() if hasattr(value, "detach") else value


SHAPES = {"linear": (5, 7), "conv2d": (4, 3, 3, 3), "embedding": (11, 6), "conv1d": (2, 4, 5)}
INITS = {
    "uniform_": lambda init, t: init.uniform_(t, -0.5, 2.0),
    "xavier_uniform_": lambda init, t: init.xavier_uniform_(t, gain=1.5),
    "kaiming_uniform_": lambda init, t: init.kaiming_uniform_(t, a=math.sqrt(5)),
    "kaiming_uniform_relu_fan_out": lambda init, t: init.kaiming_uniform_(
        t, mode="fan_out", nonlinearity="relu"),
    "constant_": lambda init, t: init.constant_(t, 0.25),
    "ones_": lambda init, t: init.ones_(t),
    "zeros_": lambda init, t: init.zeros_(t),
}
NORMAL_INITS = {
    "normal_": lambda init, t: init.normal_(t, 1.0, 0.5),
    "xavier_normal_": lambda init, t: init.xavier_normal_(t),
    "kaiming_normal_": lambda init, t: init.kaiming_normal_(t, nonlinearity="relu"),
    "trunc_normal_": lambda init, t: init.trunc_normal_(t, 0.1, 0.5, -0.3, 0.8),
    "trunc_normal_wide": lambda init, t: init.trunc_normal_(t, std=0.02),
}


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("name", list(INITS) + list(NORMAL_INITS))
def test_initializers_give_torchs_numbers(name, shape):
    """Bit for bit in float64 (and for the uniform ones in float32)."""
    init = INITS.get(name) or NORMAL_INITS[name]
    ours, theirs = both_seeded(lambda lib: plain(init(
        lib.nn.init, lib.empty(SHAPES[shape], dtype=lib.float64))))
    np.testing.assert_array_equal(ours, theirs)
    if name in INITS:
        ours, theirs = both_seeded(lambda lib: plain(init(lib.nn.init, lib.empty(SHAPES[shape]))))
        np.testing.assert_array_equal(ours, theirs)


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("name", NORMAL_INITS)
def test_float32_normal_initializers_within_ulps(name, shape):
    """torch's float32 normal blocks use vectorized log/sin/cos: the last bit may differ."""
    ours, theirs = both_seeded(lambda lib: plain(NORMAL_INITS[name](
        lib.nn.init, lib.empty(SHAPES[shape]))))
    np.testing.assert_array_max_ulp(ours, theirs, maxulp=4)


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_orthogonal_agrees_with_torch(dtype, shape):
    """The same normal draws; the QR decomposition is LAPACK's, not torch's."""
    ours, theirs = both_seeded(lambda lib: plain(lib.nn.init.orthogonal_(
        lib.empty(SHAPES[shape], dtype=getattr(lib, dtype)), gain=2.0)))
    np.testing.assert_allclose(ours, theirs, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("shape", [(4, 2, 3), (6, 3, 3, 5), (4, 4, 1, 3, 2)])
@pytest.mark.parametrize("groups", [1, 2])
def test_dirac(shape, groups):
    ours, theirs = both_seeded(lambda lib: plain(lib.nn.init.dirac_(lib.empty(shape),
                                                                    groups)))
    np.testing.assert_array_equal(ours, theirs)


def test_initializers_return_the_tensor_outside_autograd():
    weight = ag.nn.Parameter(ag.empty(3, 4))
    for fill in (lambda t: ag.nn.init.kaiming_uniform_(t, a=math.sqrt(5)),
                 ag.nn.init.xavier_normal_, ag.nn.init.zeros_, ag.nn.init.eye_,
                 lambda t: ag.nn.init.uniform_(t, generator=ag.Generator())):
        assert fill(weight) is weight
        assert weight.grad_fn is None and weight.requires_grad


def test_gain_fans_errors_and_warnings():
    for args in [("linear",), ("tanh",), ("relu",), ("leaky_relu",), ("leaky_relu", 0.2),
                 ("selu",), ("conv2d",), ("sigmoid",)]:
        assert ag.nn.init.calculate_gain(*args) == torch.nn.init.calculate_gain(*args)
    assert_same_error(lambda lib: lib.nn.init.calculate_gain("swish"), ValueError, exact=True)
    assert_same_error(lambda lib: lib.nn.init.calculate_gain("leaky_relu", "x"), ValueError,
                      exact=True)
    assert_same_error(lambda lib: lib.nn.init.xavier_uniform_(lib.empty(3)), ValueError,
                      exact=True)
    assert_same_error(lambda lib: lib.nn.init.kaiming_uniform_(lib.empty(3, 3), mode="x"),
                      ValueError, exact=True)
    assert_same_error(lambda lib: lib.nn.init.eye_(lib.empty(3)), ValueError, exact=True)
    assert_same_error(lambda lib: lib.nn.init.dirac_(lib.empty(3, 3)), ValueError, exact=True)
    assert_same_error(lambda lib: lib.nn.init.dirac_(lib.empty(3, 2, 3), 2), ValueError,
                      exact=True)
    assert_same_error(lambda lib: lib.nn.init.orthogonal_(lib.empty(3)), ValueError,
                      exact=True)
    same_warning(lambda lib: lib.nn.init.kaiming_uniform_(lib.empty(0, 3)), UserWarning,
                 "zero-element tensors is a no-op")
    assert (ag.nn.init.eye_(ag.empty(2, 3)).numpy() == np.eye(2, 3)).all()


@pytest.mark.parametrize("shape, sparsity, std", [((10, 4), 0.3, 0.01), ((7, 9), 0.5, 1.0),
                                                  ((3, 5), 0.0, 0.2), ((4, 3), 1.0, 0.01)])
def test_sparse_gives_torchs_numbers(shape, sparsity, std):
    """The same normal draws, then the same ``randperm`` rows zeroed in each column."""
    ours, theirs = both_seeded(lambda lib: plain(lib.nn.init.sparse_(
        lib.empty(shape, dtype=lib.float64), sparsity, std)))
    np.testing.assert_array_equal(ours, theirs)
    assert (ours == 0).sum(axis=0).tolist() == [math.ceil(sparsity * shape[0])] * shape[1]
    assert_same_error(lambda lib: lib.nn.init.sparse_(lib.empty(3), 0.1), ValueError,
                      exact=True)


DEPRECATED = {
    "uniform": lambda init, t: init.uniform(t, -1.0, 2.0),
    "normal": lambda init, t: init.normal(t, 0.5, 2.0),
    "constant": lambda init, t: init.constant(t, 3.0),
    "eye": lambda init, t: init.eye(t),
    "dirac": lambda init, t: init.dirac(t.view(5, 2, 2)),
    "xavier_uniform": lambda init, t: init.xavier_uniform(t, gain=2.0),
    "xavier_normal": lambda init, t: init.xavier_normal(t),
    "kaiming_uniform": lambda init, t: init.kaiming_uniform(t, a=1.0),
    "kaiming_normal": lambda init, t: init.kaiming_normal(t, mode="fan_out"),
    "orthogonal": lambda init, t: init.orthogonal(t),
    "sparse": lambda init, t: init.sparse(t, 0.4),
}


@pytest.mark.parametrize("name", DEPRECATED)
def test_deprecated_names_warn_and_initialize_as_the_new_ones(name):
    def fill(lib):
        with pytest.warns(FutureWarning, match=rf"`nn.init.{name}` is now deprecated in favor "
                                               rf"of `nn.init.{name}_`\."):
            return plain(DEPRECATED[name](lib.nn.init, lib.empty(5, 4, dtype=lib.float64)))

    ours, theirs = both_seeded(fill)
    np.testing.assert_allclose(ours, theirs, rtol=1e-6, atol=1e-12)
    assert getattr(ag.nn.init, name).__name__ == name
    assert name in ag.nn.init.__all__ and f"{name}_" in ag.nn.init.__all__
