"""nn.utils.parametrize against torch's: the Parametrized<Name> class, the
ParametrizationList and its originals, state_dict keys and values, forward values and the
gradients that reach the originals, assignment through right_inverse, chaining, cached(),
removal, transfer, SGD steps on a parametrized model, and torch's errors."""
import copy
import pickle

import numpy as np
import pytest

from oracle import assert_same, assert_same_error, both, plain


def P(lib):
    return lib.nn.utils.parametrize


def parametrizations(lib):
    """Symmetric (a right_inverse), Scale (none), Halves (right_inverse to two tensors),
    Flat (changes the shape) and ToDouble (changes the dtype), as nn.Modules of ``lib``."""
    nn = lib.nn

    class Symmetric(nn.Module):
        def forward(self, X):
            return X.triu() + X.triu(1).mT

        def right_inverse(self, A):
            return A.triu()

    class Scale(nn.Module):
        calls = 0

        def forward(self, X):
            Scale.calls += 1
            return X * 2

    class Halves(nn.Module):
        def forward(self, A, B):
            return A + B

        def right_inverse(self, X):
            return X / 4, X * 3 / 4

    class Flat(nn.Module):
        def forward(self, X):
            return X.flatten()

    class ToDouble(nn.Module):
        def forward(self, X):
            return X.double()

    return Symmetric, Scale, Halves, Flat, ToDouble


def linear(lib, n=3, seed=0):
    """A Linear(n, n) with the same weights in both libraries."""
    layer = lib.nn.Linear(n, n)
    rng = np.random.default_rng(seed)
    with lib.no_grad():
        layer.weight.copy_(lib.tensor(rng.standard_normal((n, n)).astype(np.float32)))
        layer.bias.copy_(lib.tensor(rng.standard_normal(n).astype(np.float32)))
    return layer


def x_of(lib):
    return lib.tensor(np.linspace(-1, 1, 6, dtype=np.float32).reshape(2, 3))


def test_structure_state_dict_and_repr():
    def run(lib):
        Symmetric = parametrizations(lib)[0]
        layer = linear(lib)
        P(lib).register_parametrization(layer, "weight", Symmetric())
        cls = type(layer)
        chain = layer.parametrizations.weight
        return (cls.__name__, cls.__bases__[0].__name__, type(chain).__name__,
                type(layer.parametrizations).__name__,
                P(lib).type_before_parametrizations(layer).__name__,
                P(lib).is_parametrized(layer), P(lib).is_parametrized(layer, "weight"),
                P(lib).is_parametrized(layer, "bias"),
                [name for name, _ in layer.named_parameters()], list(layer.state_dict()),
                layer.state_dict(),
                repr(layer), chain.original.requires_grad,
                type(chain.original).__name__, "weight" in layer._parameters)
    assert_same(run)


def test_forward_gradients_and_assignment():
    def run(lib):
        Symmetric = parametrizations(lib)[0]
        layer = linear(lib)
        original = layer.weight
        P(lib).register_parametrization(layer, "weight", Symmetric())
        same_object = layer.parametrizations.weight.original is original
        out = layer(x_of(lib))
        (out * out).sum().backward()
        grad = layer.parametrizations.weight.original.grad
        layer.weight = lib.arange(9.0).reshape(3, 3)         # stored via right_inverse
        return (same_object, out, out.grad_fn.name(), layer.weight.grad_fn.name(), grad,
                layer.parametrizations.weight.original, layer.weight)
    assert_same(run)


def test_right_inverse_to_a_sequence_of_tensors():
    def run(lib):
        Halves = parametrizations(lib)[2]
        layer = linear(lib)
        P(lib).register_parametrization(layer, "weight", Halves())
        out = layer(x_of(lib)).sum()
        out.backward()
        chain = layer.parametrizations.weight
        names = [name for name, _ in layer.named_parameters()]
        layer.weight = lib.ones(3, 3)
        return (names, chain.is_tensor, chain.ntensors, out, chain.original0.grad,
                chain.original1, hasattr(chain, "original"))
    assert_same(run)


def test_chained_parametrizations_and_unsafe():
    def run(lib):
        Symmetric, Scale, _, Flat, ToDouble = parametrizations(lib)
        layer = linear(lib)
        P(lib).register_parametrization(layer, "weight", Symmetric())
        P(lib).register_parametrization(layer, "weight", Scale())
        chained = [type(m).__name__ for m in layer.parametrizations.weight]
        value = layer.weight
        P(lib).register_parametrization(layer, "bias", Flat(), unsafe=True)
        P(lib).register_parametrization(layer, "bias", ToDouble(), unsafe=True)
        return (chained, value, layer.bias.dtype == lib.float64,
                layer.parametrizations.bias.unsafe, layer.parametrizations.weight.unsafe)
    assert_same(run)


def test_cached_computes_once():
    def run(lib):
        Scale = parametrizations(lib)[1]
        layer = linear(lib)
        P(lib).register_parametrization(layer, "weight", Scale())
        Scale.calls = 0
        with P(lib).cached():
            first = layer.weight
            again = layer.weight
            with P(lib).cached():
                inner = layer.weight
        after = layer.weight
        return Scale.calls, first is again, first is inner, after is first
    assert_same(run)


@pytest.mark.parametrize("leave_parametrized", [True, False])
def test_remove_parametrizations(leave_parametrized):
    def run(lib):
        Symmetric, Scale = parametrizations(lib)[:2]
        layer = linear(lib)
        P(lib).register_parametrization(layer, "weight", Symmetric())
        P(lib).register_parametrization(layer, "bias", Scale())
        original = layer.parametrizations.weight.original
        P(lib).remove_parametrizations(layer, "weight", leave_parametrized)
        still = type(layer).__name__, P(lib).is_parametrized(layer)
        P(lib).remove_parametrizations(layer, "bias", leave_parametrized)
        return (still, type(layer).__name__, hasattr(layer, "parametrizations"),
                layer.weight is original, type(layer.weight).__name__, layer.state_dict())
    assert_same(run)


def test_remove_a_sequence_parametrization():
    def run(lib):
        Halves = parametrizations(lib)[2]
        layer = linear(lib)
        P(lib).register_parametrization(layer, "weight", Halves())
        P(lib).remove_parametrizations(layer, "weight")
        return type(layer.weight).__name__, layer.weight.requires_grad, layer.weight
    assert_same(run)


def test_buffer_parametrized():
    def run(lib):
        Scale = parametrizations(lib)[1]
        norm = lib.nn.BatchNorm1d(3)
        P(lib).register_parametrization(norm, "running_var", Scale())
        keys = list(norm.state_dict())
        kind = type(norm.parametrizations.running_var.original).__name__
        return keys, kind, norm.running_var, norm.parametrizations.running_var._buffers.keys()
    ours, theirs = both(run)
    assert ours[:3] and plain(ours[:3]) == plain(theirs[:3])
    assert list(ours[3]) == list(theirs[3]) == ["original"]


def test_transfer_parametrizations_and_params():
    def run(lib):
        Symmetric, Scale = parametrizations(lib)[:2]
        source = linear(lib)
        P(lib).register_parametrization(source, "weight", Symmetric())
        P(lib).register_parametrization(source, "weight", Scale())
        target = linear(lib, seed=5)
        P(lib).transfer_parametrizations_and_params(source, target)
        return (type(target).__name__, [type(m).__name__ for m in
                                        target.parametrizations.weight],
                target.parametrizations.weight.original is
                source.parametrizations.weight.original, target.weight)
    assert_same(run)


def test_sgd_steps_on_a_parametrized_model():
    def run(lib):
        Symmetric = parametrizations(lib)[0]
        model = lib.nn.Sequential(linear(lib), lib.nn.Tanh(), linear(lib, seed=1))
        P(lib).register_parametrization(model[0], "weight", Symmetric())
        optimizer = lib.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
        losses = []
        for _ in range(3):
            optimizer.zero_grad()
            loss = (model(x_of(lib)) ** 2).mean()
            loss.backward()
            optimizer.step()
            losses.append(loss.item())
        return losses, model.state_dict(), model[0].weight
    assert_same(run, rtol=1e-5, atol=1e-6)


def test_load_state_dict_and_deepcopy():
    def run(lib):
        Symmetric = parametrizations(lib)[0]
        source, target = linear(lib), linear(lib, seed=3)
        for layer in (source, target):
            P(lib).register_parametrization(layer, "weight", Symmetric())
        result = target.load_state_dict(source.state_dict())
        twin = copy.deepcopy(target)
        return (str(result), target.weight, type(twin).__name__,
                twin.parametrizations.weight.original is target.parametrizations.weight.original,
                twin.weight)
    assert_same(run)


def test_errors():
    Symmetric = 0

    def registered(lib, which, **kwargs):
        layer = linear(lib)
        P(lib).register_parametrization(layer, "weight",
                                        parametrizations(lib)[which](), **kwargs)
        return layer
    # a parametrization that changes the shape or dtype needs unsafe=True
    assert_same_error(lambda lib: registered(lib, 3), ValueError,
                      "may not change the shape of the tensor")
    assert_same_error(lambda lib: registered(lib, 4), ValueError,
                      "may not change the dtype of the tensor")

    def chained(lib, which):
        layer = registered(lib, Symmetric)
        P(lib).register_parametrization(layer, "weight", parametrizations(lib)[which]())
    assert_same_error(lambda lib: chained(lib, 3), ValueError, r"^Registering a parametrization "
                      r"may not change the shape of the tensor, unless the `unsafe` flag")
    assert_same_error(lambda lib: chained(lib, 4), ValueError, "may not change the dtype")
    assert_same_error(lambda lib: P(lib).register_parametrization(
        linear(lib), "nothing", parametrizations(lib)[0]()), ValueError,
        "does not have a parameter, a buffer, or a parametrized element with name 'nothing'")
    assert_same_error(lambda lib: P(lib).remove_parametrizations(linear(lib), "weight"),
                      ValueError, "does not have a parametrization on weight")

    def assign_without_inverse(lib):
        registered(lib, 1).weight = lib.ones(3, 3)        # Scale has no right_inverse
    assert_same_error(assign_without_inverse, RuntimeError,
                      "parametrization Scale does not implement right_inverse.")

    def assign_other_dtype(lib):
        registered(lib, Symmetric).weight = lib.ones(3, 3, dtype=lib.float64)
    assert_same_error(assign_other_dtype, ValueError,
                      "The tensor returned by `right_inverse` has dtype")
    assert_same_error(lambda lib: P(lib).remove_parametrizations(
        registered(lib, 2), "weight", leave_parametrized=False), ValueError,
        r"Cannot leave unparametrized \(`leave_parametrized=False`\)")

    def reassign_parameter(lib):
        registered(lib, Symmetric).weight = lib.nn.Parameter(lib.ones(3, 3))
    assert_same_error(reassign_parameter, KeyError, "attribute 'weight' already exists")
    assert_same_error(lambda lib: pickle.dumps(registered(lib, Symmetric)), RuntimeError,
                      "Serialization of parametrized modules is only supported through "
                      r"state_dict\(\)")
    assert_same_error(lambda lib: P(lib).ParametrizationList([], lib.ones(2)), ValueError,
                      exact=True)


@pytest.mark.parametrize("key", ["weight", "parametrizations.weight.original"])
def test_functional_call_on_a_parametrized_module(key):
    """The parametrized name is assigned through right_inverse for the call and assigned
    back; the original's name replaces the original itself."""
    def run(lib):
        Symmetric = parametrizations(lib)[0]
        layer = linear(lib)
        P(lib).register_parametrization(layer, "weight", Symmetric())
        given = lib.tensor([[0.0, 1.0, 2.0], [0.0, 3.0, 0.0], [0.0, 0.0, 1.0]])
        out = lib.func.functional_call(layer, {key: given}, (x_of(lib),))
        return out, layer.parametrizations.weight.original, layer.weight
    assert_same(run)
