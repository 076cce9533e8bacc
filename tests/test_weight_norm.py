"""Weight and spectral normalization against torch's: the op (``_weight_norm`` /
``norm_except_dim``, node WeightNormInterfaceBackward0), the parametrizations
(nn.utils.parametrizations.weight_norm / spectral_norm) and the older hook-based forms
(nn.utils.weight_norm / spectral_norm with weight_g, weight_v, weight_orig, weight_u):
values, gradients of the originals, state_dict keys, values and metadata, training vs
eval power iteration, SGD steps, removal, older checkpoints and errors. The power
iteration's random start is drawn from the default generator, which is torch's: both
libraries are seeded alike."""
import warnings

import numpy as np
import pytest

import autograd_cy as ag
import torch
from autograd_cy.nn.weight_normalization import _weight_norm, norm_except_dim
from oracle import assert_same, assert_same_error, check_gradcheck, check_op, same_warning


def wn_op(lib):
    return _weight_norm if lib is ag else torch._weight_norm


def ned_op(lib):
    return norm_except_dim if lib is ag else torch.norm_except_dim


def magnitude(v, dim):
    return np.asarray(torch.norm_except_dim(torch.tensor(v), 2, dim).numpy() + 0.5)


# (shape, dim): dim 0 and the last dim are torch's fused op; the others are composed
@pytest.mark.parametrize("shape,dim", [((3, 4), 0), ((2, 3, 4), 2), ((2, 3, 4), 1),
                                       ((3, 4), -1)])
def test_weight_norm_op(shape, dim):
    v = np.random.default_rng(0).standard_normal(shape)
    fused = dim in (0, len(shape) - 1)
    # torch's fused double backward is wrong (its own gradgradcheck fails): ours is
    # checked by finite differences below instead
    check_op(lambda lib, v, g: wn_op(lib)(v, g, dim), v, magnitude(v, dim), double=not fused)
    check_op(lambda lib, v: ned_op(lib)(v, 2, dim), v)
    assert_same(lambda lib: wn_op(lib)(lib.ones(shape, requires_grad=True, dtype=lib.float64),
                                       lib.tensor(magnitude(v, dim)), dim).grad_fn.name())

    def mixed(lib):         # float32 v, float64 g
        return wn_op(lib)(lib.ones(shape), lib.tensor(magnitude(v, dim)), dim)
    if fused:
        assert_same_error(mixed, RuntimeError, exact=True)
    else:
        assert_same(lambda lib: mixed(lib).dtype == lib.float64)
    if fused:
        check_gradcheck(lambda lib, v, g: _weight_norm(v, g, dim), v, magnitude(v, dim),
                        check_forward_ad=True)


def layer_of(lib, kind, seed=0):
    """A layer with the same weights in both libraries."""
    nn = lib.nn
    layer = {"linear": lambda: nn.Linear(4, 3), "wide": lambda: nn.Linear(3, 5),
             "conv": lambda: nn.Conv2d(2, 3, 2),
             "convt": lambda: nn.ConvTranspose2d(2, 3, 2)}[kind]()
    rng = np.random.default_rng(seed)
    with lib.no_grad():
        for p in layer.parameters():
            p.copy_(lib.tensor(rng.standard_normal(tuple(p.shape)).astype(np.float32)))
    return layer


def input_of(lib, kind):
    shape = {"linear": (2, 4), "wide": (2, 3), "conv": (1, 2, 3, 3), "convt": (1, 2, 3, 3)}
    n = int(np.prod(shape[kind]))
    return lib.tensor(np.linspace(-1, 1, n, dtype=np.float32).reshape(shape[kind]))


def train(lib, layer, kind, steps=3):
    """``steps`` SGD steps on the mean square output: the losses and the final state."""
    optimizer = lib.optim.SGD(layer.parameters(), lr=0.1)
    losses = []
    for _ in range(steps):
        optimizer.zero_grad()
        loss = (layer(input_of(lib, kind)) ** 2).mean()
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return losses, layer.state_dict()


@pytest.mark.parametrize("kind,dim", [("linear", 0), ("linear", 1), ("linear", None),
                                      ("conv", 0), ("conv", 2)])
def test_parametrized_weight_norm(kind, dim):
    def run(lib):
        layer = lib.nn.utils.parametrizations.weight_norm(layer_of(lib, kind), dim=dim)
        out = layer(input_of(lib, kind))
        out.sum().backward()
        chain = layer.parametrizations.weight
        grads = chain.original0.grad, chain.original1.grad
        return (type(layer).__name__, list(layer.state_dict()), out, grads,
                layer.weight.grad_fn.name(), train(lib, layer, kind))
    assert_same(run, rtol=1e-5, atol=1e-6)


def test_parametrized_weight_norm_loads_older_names_and_removes():
    def run(lib):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", FutureWarning)
            older = lib.nn.utils.weight_norm(layer_of(lib, "linear", seed=1)).state_dict()
        layer = lib.nn.utils.parametrizations.weight_norm(layer_of(lib, "linear"))
        result = layer.load_state_dict(older)
        loaded = layer.weight
        lib.nn.utils.parametrize.remove_parametrizations(layer, "weight")
        return str(result), loaded, list(older), type(layer).__name__, layer.weight
    assert_same(run)


@pytest.mark.cpu_only      # u and v start from the generator: the CPU one is torch's
@pytest.mark.parametrize("kind", ["linear", "wide", "conv", "convt"])
def test_parametrized_spectral_norm_training_and_eval(kind):
    def run(lib):
        lib.manual_seed(0)
        layer = lib.nn.utils.parametrizations.spectral_norm(layer_of(lib, kind),
                                                            n_power_iterations=2)
        norm = layer.parametrizations.weight[0]
        start = norm._u.clone(), norm._v.clone(), norm.dim
        out = layer(input_of(lib, kind))
        out.sum().backward()
        grad = layer.parametrizations.weight.original.grad
        layer.eval()
        u = norm._u.clone()
        evaluated = layer(input_of(lib, kind)), bool((norm._u == u).all())
        layer.train()
        return (list(layer.state_dict()), start, out, grad, layer.weight.grad_fn.name(),
                evaluated, train(lib, layer, kind))
    assert_same(run, rtol=1e-5, atol=1e-6)


def test_parametrized_spectral_norm_from_torch_start():
    """On every device: our u and v set to torch's after registration, then two training
    forwards (each one more power iteration) and an eval one."""
    layers = {}
    for lib in (torch, ag):
        layers[lib] = lib.nn.utils.parametrizations.spectral_norm(layer_of(lib, "conv"))
    theirs, ours = (layers[lib].parametrizations.weight[0] for lib in (torch, ag))
    with ag.no_grad():
        ours._u.copy_(ag.tensor(theirs._u.numpy()))
        ours._v.copy_(ag.tensor(theirs._v.numpy()))

    def run(lib):
        layer = layers[lib]
        outs = [layer(input_of(lib, "conv")) for _ in range(2)]
        (outs[0] - outs[1] * 2).sum().backward()     # two forwards in one graph (a GAN's)
        layer.eval()
        outs.append(layer(input_of(lib, "conv")))
        return outs, layer.parametrizations.weight.original.grad, layer.state_dict()
    assert_same(run, rtol=1e-5, atol=1e-6)


def test_spectral_norm_of_a_vector_and_errors():
    def vector(lib):
        layer = lib.nn.Linear(3, 1)
        with lib.no_grad():
            layer.bias.copy_(lib.tensor([3.0]))
        lib.nn.utils.parametrizations.spectral_norm(layer, "bias")
        return layer.bias, list(layer.state_dict())
    assert_same(vector)
    assert_same_error(lambda lib: lib.nn.utils.parametrizations.spectral_norm(
        lib.nn.Linear(2, 2), n_power_iterations=0), ValueError, exact=True)
    assert_same_error(lambda lib: lib.nn.utils.parametrizations.spectral_norm(
        lib.nn.Linear(2, 2), dim=2), IndexError, exact=True)
    assert_same_error(lambda lib: lib.nn.utils.parametrizations.spectral_norm(
        lib.nn.ReLU()), ValueError, "has no parameter or buffer with name 'weight'")


def square(lib, n=3, batch=()):
    layer = lib.nn.Linear(n, n, bias=False)
    rng = np.random.default_rng(2)
    with lib.no_grad():
        layer.weight = lib.nn.Parameter(lib.tensor(
            rng.standard_normal(batch + (n, n)).astype(np.float64)))
    return layer


# a rectangular weight's base is completed with randn columns: the CPU generator's are
# torch's, the CUDA device's are not
RANDOM_START = pytest.mark.cpu_only


@pytest.mark.parametrize("orthogonal_map", ["matrix_exp", "cayley"])
@pytest.mark.parametrize("shape", [(3, 3), pytest.param((4, 3), marks=RANDOM_START),
                                   pytest.param((2, 5), marks=RANDOM_START)])
def test_orthogonal(orthogonal_map, shape):
    def run(lib):
        lib.manual_seed(0)
        layer = lib.nn.Linear(shape[1], shape[0], bias=False).double()
        with lib.no_grad():
            layer.weight.copy_(lib.tensor(np.random.default_rng(1).standard_normal(shape)))
        lib.nn.utils.parametrizations.orthogonal(layer, orthogonal_map=orthogonal_map)
        chain = layer.parametrizations.weight
        Q = layer.weight
        gram = Q.mT @ Q if shape[0] >= shape[1] else Q @ Q.mT
        out = layer(lib.ones(2, shape[1], dtype=lib.float64))
        (out ** 2).sum().backward()
        grad = chain.original.grad
        optimizer = lib.optim.SGD(layer.parameters(), lr=0.1)
        for _ in range(2):
            optimizer.zero_grad()
            (layer(lib.ones(2, shape[1], dtype=lib.float64)) ** 3).sum().backward()
            optimizer.step()
        return (list(layer.state_dict()), chain.original, chain[0].base, Q, gram, out, grad,
                layer.weight)
    assert_same(run, rtol=1e-6, atol=1e-9)


def test_orthogonal_recurrent_kernel_under_cached():
    """The tutorial's case: an RNN's recurrent kernel kept orthogonal, computed once per
    forward under cached()."""
    def run(lib):
        rnn = lib.nn.RNN(3, 3, batch_first=True)
        rng = np.random.default_rng(0)
        with lib.no_grad():
            for p in rnn.parameters():
                p.copy_(lib.tensor(rng.standard_normal(tuple(p.shape)).astype(np.float32)))
        lib.nn.utils.parametrizations.orthogonal(rnn, "weight_hh_l0")
        x = lib.tensor(rng.standard_normal((2, 4, 3)).astype(np.float32))
        with lib.nn.utils.parametrize.cached():
            out, h = rnn(x)
        out.sum().backward()
        return (out, h, rnn.parametrizations.weight_hh_l0.original.grad,
                [name for name, _ in rnn.named_parameters()])
    assert_same(run, rtol=1e-5, atol=1e-6)


@pytest.mark.filterwarnings("ignore:Complex modules")
def test_orthogonal_default_map_assignment_and_errors():
    def run(lib):
        layer = square(lib, batch=(2,))
        lib.nn.utils.parametrizations.orthogonal(layer, use_trivialization=True)
        before = layer.weight
        layer.weight = square(lib).weight.detach().expand(2, 3, 3)
        chosen = layer.parametrizations.weight[0].orthogonal_map
        return getattr(chosen, "name", chosen), before, layer.weight
    assert_same(run, rtol=1e-6, atol=1e-9)

    def assign_untrivialized(lib):
        layer = lib.nn.utils.parametrizations.orthogonal(square(lib),
                                                         use_trivialization=False)
        layer.weight = lib.eye(3, dtype=lib.float64)
    assert_same_error(assign_untrivialized, NotImplementedError,
                      "It is not possible to assign to the matrix exponential")
    assert_same_error(lambda lib: lib.nn.utils.parametrizations.orthogonal(
        lib.nn.Linear(2, 2), orthogonal_map="qr"), ValueError, exact=True)
    assert_same_error(lambda lib: lib.nn.utils.parametrizations.orthogonal(
        lib.nn.Linear(2, 2), "bias"), ValueError, exact=True)
    assert_same_error(lambda lib: lib.nn.utils.parametrizations.orthogonal(
        lib.nn.Linear(2, 2).to(lib.complex64), orthogonal_map="householder"), ValueError,
        exact=True)

    def wrong_shape(lib):
        layer = lib.nn.utils.parametrizations.orthogonal(square(lib))
        layer.weight = lib.eye(2, dtype=lib.float64)
    assert_same_error(wrong_shape, ValueError, "Expected a matrix or batch of matrices of "
                      "shape")


@pytest.mark.cpu_only      # the CPU generator (torch's) draws the layer's weights
@pytest.mark.parametrize("use_trivialization", [True, False])
def test_orthogonal_householder(use_trivialization):
    def run(lib):
        lib.manual_seed(0)
        layer = lib.nn.Linear(3, 4, bias=False).double()
        lib.nn.utils.parametrizations.orthogonal(layer, use_trivialization=use_trivialization)
        out = layer(lib.ones(2, 3, dtype=lib.float64))
        (out ** 2).sum().backward()
        layer.weight = lib.tensor(np.random.default_rng(3).standard_normal((4, 3)))
        return out, layer.parametrizations.weight.original, layer.weight
    assert_same(run, rtol=1e-6, atol=1e-9)


# ------------------------------------------------------------------ the older hook forms

@pytest.mark.parametrize("kind,dim", [("linear", 0), ("conv", 1), ("linear", None)])
def test_hook_weight_norm(kind, dim):
    def run(lib):
        layer = lib.nn.utils.weight_norm(layer_of(lib, kind), dim=dim)
        out = layer(input_of(lib, kind))
        out.sum().backward()
        state = list(layer.state_dict()), layer.weight_g.grad, layer.weight_v.grad
        losses = train(lib, layer, kind)
        lib.nn.utils.remove_weight_norm(layer)
        return (state, out, losses, list(layer.state_dict()), type(layer.weight).__name__,
                layer.weight)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        assert_same(run, rtol=1e-5, atol=1e-6)
    same_warning(lambda lib: lib.nn.utils.weight_norm(lib.nn.Linear(2, 2)), FutureWarning,
                 r"^`torch.nn.utils.weight_norm` is deprecated in favor of "
                 r"`torch.nn.utils.parametrizations.weight_norm`.$")


@pytest.mark.cpu_only      # u and v start from the generator: the CPU one is torch's
@pytest.mark.parametrize("kind", ["linear", "convt"])
def test_hook_spectral_norm(kind):
    def run(lib):
        lib.manual_seed(0)
        layer = lib.nn.utils.spectral_norm(layer_of(lib, kind))
        state = layer.state_dict()
        start = list(state), state._metadata[""], layer.weight_u.clone(), layer.weight_v
        out = layer(input_of(lib, kind))
        out.sum().backward()
        grad = layer.weight_orig.grad
        layer.eval()
        evaluated = layer(input_of(lib, kind))
        layer.train()
        losses = train(lib, layer, kind)
        lib.nn.utils.remove_spectral_norm(layer)
        return (start, out, grad, evaluated, losses, list(layer.state_dict()), layer.weight,
                len(layer._forward_pre_hooks), len(layer._state_dict_hooks))
    assert_same(run, rtol=1e-5, atol=1e-6)


@pytest.mark.cpu_only      # u and v start from the generator: the CPU one is torch's
def test_hook_spectral_norm_loads_the_version_before():
    """A checkpoint without weight_v (the format before version 1): v is solved for."""
    def run(lib):
        lib.manual_seed(0)
        layer = lib.nn.utils.spectral_norm(layer_of(lib, "wide"))
        layer(input_of(lib, "wide"))
        state = layer.state_dict()
        older = type(state)((k, v) for k, v in state.items() if k != "weight_v")
        older["weight"] = layer.weight.detach()
        older._metadata = {"": {"version": 1}}
        fresh = lib.nn.utils.spectral_norm(layer_of(lib, "wide", seed=4))
        return str(fresh.load_state_dict(older)), fresh.weight_v
    assert_same(run, rtol=1e-4, atol=1e-5)


def test_hook_errors():
    def twice(lib, fn):
        layer = fn(lib)(lib.nn.Linear(2, 2))
        fn(lib)(layer)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        assert_same_error(lambda lib: twice(lib, lambda lib: lib.nn.utils.weight_norm),
                          RuntimeError, exact=True)
        assert_same_error(lambda lib: twice(lib, lambda lib: lib.nn.utils.spectral_norm),
                          RuntimeError, exact=True)
    assert_same_error(lambda lib: lib.nn.utils.remove_weight_norm(lib.nn.ReLU()), ValueError,
                      exact=True)
    assert_same_error(lambda lib: lib.nn.utils.remove_spectral_norm(lib.nn.ReLU()),
                      ValueError, exact=True)
    assert_same_error(lambda lib: lib.nn.utils.spectral_norm(lib.nn.Linear(2, 2, bias=False),
                                                             "bias"), ValueError, exact=True)
    assert_same_error(lambda lib: lib.nn.utils.spectral_norm(lib.nn.Linear(2, 2),
                                                             n_power_iterations=0),
                      ValueError, exact=True)


def test_remove_spectral_norm_removes_its_load_hook():
    """A difference: torch 2.13's remove_spectral_norm looks for its load_state_dict
    pre-hook among wrapped hooks and leaves it, so the layer then refuses its own state
    dict (missing weight_orig, weight_u); ours removes it and loads."""
    layers = [lib.nn.utils.spectral_norm(lib.nn.Linear(3, 4)) for lib in (ag, torch)]
    for lib, layer in zip((ag, torch), layers):
        lib.nn.utils.remove_spectral_norm(layer)
    assert str(layers[0].load_state_dict(layers[0].state_dict())) == (
        "<All keys matched successfully>")
    with pytest.raises(RuntimeError, match='Missing key.*"weight_orig", "weight_u"'):
        layers[1].load_state_dict(layers[1].state_dict())
