"""func.functional_call against torch.func.functional_call: a Module as a function of its
parameters (values, per-example gradients through vmap(grad)), tied weights, strict keys,
and the module's own tensors restored afterwards."""
import numpy as np
import pytest
import torch

import autograd_cy as ag
from oracle import assert_same, assert_same_error


def model_of(lib, tied=False):
    nn = lib.nn
    hidden = 3 if tied else 4
    model = nn.Sequential(nn.Linear(3, hidden), nn.Tanh(), nn.Linear(hidden, 3))
    with lib.no_grad():
        for i, p in enumerate(model.parameters()):
            p.copy_(lib.linspace(-1, 1, p.numel()).reshape(p.shape) * (i + 1) / 2)
    if tied:
        model[2].weight = model[0].weight         # one Parameter under two names
    return model


def data(lib):
    x = lib.tensor(np.linspace(-2, 2, 15).reshape(5, 3).astype(np.float32))
    return x, lib.tensor([0, 2, 1, 1, 0])


def test_values_and_module_left_unchanged():
    def run(lib):
        model = model_of(lib)
        before = [p.clone() for p in model.parameters()]
        new = {name: p * 2 for name, p in model.named_parameters()}
        out = lib.func.functional_call(model, new, (data(lib)[0],))
        original = model(data(lib)[0])
        return out, original, [bool((a == b).all()) for a, b in zip(before, model.parameters())]
    assert_same(run, rtol=1e-5, atol=1e-6)


def test_per_example_gradients_through_vmap_of_grad():
    def run(lib):
        model = model_of(lib)
        params = {k: v.detach() for k, v in model.named_parameters()}

        def loss(p, x, y):
            out = lib.func.functional_call(model, p, (x.unsqueeze(0),))
            return lib.nn.functional.cross_entropy(out, y.unsqueeze(0))
        x, y = data(lib)
        return lib.func.vmap(lib.func.grad(loss), in_dims=(None, 0, 0))(params, x, y)
    assert_same(run, rtol=1e-5, atol=1e-6)


def test_tied_weights_strict_keys_and_several_dicts():
    def tied(lib, tie_weights):
        model = model_of(lib, tied=True)
        weights = {"0.weight": lib.ones(3, 3)}
        return lib.func.functional_call(model, weights, data(lib)[0],
                                        tie_weights=tie_weights)
    assert_same(lambda lib: tied(lib, True), rtol=1e-5)
    assert_same(lambda lib: tied(lib, False), rtol=1e-5)

    def split(lib):
        model = model_of(lib)
        named = dict(model.named_parameters())
        first = {k: v for k, v in named.items() if k.startswith("0.")}
        second = {k: v * 0 for k, v in named.items() if k.startswith("2.")}
        return lib.func.functional_call(model, (first, second), (data(lib)[0],), strict=True)
    assert_same(split)
    assert_same_error(lambda lib: lib.func.functional_call(
        model_of(lib), ({"0.bias": lib.ones(4)}, {"0.bias": lib.ones(4)}), data(lib)[0]),
        ValueError, "appeared in multiple dictionaries")
    assert_same_error(lambda lib: lib.func.functional_call(
        model_of(lib), {"0.bias": lib.ones(4), "extra": lib.ones(1)}, data(lib)[0],
        strict=True), RuntimeError, exact=True)


def test_originals_restored_after_an_error():
    class Boom(Exception):
        pass

    def run(lib):
        model = model_of(lib)
        weight = model[0].weight

        def explode(module, args):
            raise Boom
        model.register_forward_pre_hook(explode)
        with pytest.raises(Boom):
            lib.func.functional_call(model, {"0.weight": lib.zeros(4, 3)}, data(lib)[0])
        return model[0].weight is weight
    assert run(ag) and run(torch)
