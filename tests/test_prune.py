"""nn.utils.prune against torch's: masks (the random ones too: the generators agree), the
reparametrization (weight_orig, weight_mask, the pre-hook), repeated pruning through a
PruningContainer, global pruning, remove, gradients and errors."""
import importlib

import numpy as np
import pytest
import torch
import torch.nn.utils.prune  # noqa: F401  (torch does not import it with torch.nn.utils)

import autograd_cy as ag
from oracle import assert_same_error

pytestmark = pytest.mark.cpu_only


def _prune(lib):
    return importlib.import_module(lib.__name__ + ".nn.utils.prune")


def _net(lib, seed=0):
    rng = np.random.default_rng(seed)
    net = lib.nn.Sequential(lib.nn.Conv2d(1, 4, 3), lib.nn.ReLU(), lib.nn.Flatten(),
                            lib.nn.Linear(4 * 4 * 4, 6), lib.nn.ReLU(), lib.nn.Linear(6, 3))
    with lib.no_grad():
        for p in net.parameters():
            p.copy_(lib.from_numpy(rng.standard_normal(tuple(p.shape)).astype(np.float32)))
    return net


def _both(run):
    """``run(lib, prune, net)`` for each library, on equal nets and equal generator states."""
    results = []
    for lib in (ag, torch):
        lib.manual_seed(3)
        results.append(run(lib, _prune(lib), _net(lib)))
    return results


def _arrays(values):
    return [v.detach().numpy() if hasattr(v, "detach") else v for v in values]


@pytest.mark.parametrize("method", [
    lambda p, m: p.random_unstructured(m, "weight", amount=0.3),
    lambda p, m: p.l1_unstructured(m, "weight", amount=5),
    lambda p, m: p.random_structured(m, "weight", amount=0.5, dim=0),
    lambda p, m: p.ln_structured(m, "weight", amount=2, n=1, dim=0),
    lambda p, m: p.ln_structured(m, "weight", amount=0.25, n=float("inf"), dim=-1),
    lambda p, m: p.identity(m, "weight"),
])
def test_masks_and_reparametrization(method):
    def run(lib, prune, net):
        module = net[0]
        method(prune, module)
        names = ([n for n, _ in module.named_parameters()],
                 [n for n, _ in module.named_buffers()], sorted(net.state_dict()))
        return names, _arrays([module.weight_mask, module.weight])
    (our_names, ours), (their_names, theirs) = _both(run)
    assert our_names == their_names
    np.testing.assert_array_equal(ours[0], theirs[0])
    np.testing.assert_array_equal(ours[1], theirs[1])


def test_pruning_twice_makes_a_container_and_remove_undoes_it():
    def run(lib, prune, net):
        module = net[3]
        prune.random_unstructured(module, "weight", amount=0.3)
        prune.ln_structured(module, "weight", amount=0.5, n=2, dim=0)
        prune.l1_unstructured(module, "bias", amount=2)
        hook = next(h for h in module._forward_pre_hooks.values() if h._tensor_name == "weight")
        kinds = [type(method).__name__ for method in hook]
        masked = _arrays([module.weight_mask, module.weight, module.bias])
        x = lib.from_numpy(np.linspace(-1, 1, 72, dtype=np.float32).reshape(2, 1, 6, 6))
        net(x).square().sum().backward()
        grads = _arrays([module.weight_orig.grad, module.bias_orig.grad])
        prune.remove(module, "weight")
        after = ([n for n, _ in module.named_parameters()],
                 [n for n, _ in module.named_buffers()], prune.is_pruned(net))
        return kinds, masked, grads, after, _arrays([module.weight])
    ours, theirs = _both(run)
    assert ours[0] == theirs[0] == ["RandomUnstructured", "LnStructured"]
    for a, b in zip(ours[1], theirs[1]):
        np.testing.assert_array_equal(a, b)
    for a, b in zip(ours[2], theirs[2]):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-4)
    assert ours[3] == theirs[3] == (["bias_orig", "weight"], ["bias_mask"], True)
    np.testing.assert_array_equal(ours[4][0], theirs[4][0])


def test_global_unstructured_and_custom_method():
    def run(lib, prune, net):
        pairs = ((net[0], "weight"), (net[3], "weight"), (net[5], "weight"))
        prune.global_unstructured(pairs, pruning_method=prune.L1Unstructured, amount=0.4)

        class EveryOther(prune.BasePruningMethod):
            PRUNING_TYPE = "unstructured"

            def compute_mask(self, t, default_mask):
                mask = default_mask.clone()
                mask.view(-1)[::2] = 0
                return mask
        EveryOther.apply(net[5], "bias")
        return _arrays([m.weight_mask for m, _ in pairs] + [net[5].bias_mask])
    ours, theirs = _both(run)
    for a, b in zip(ours, theirs):
        np.testing.assert_array_equal(a, b)


def test_errors():
    assert_same_error(lambda lib: _prune(lib).l1_unstructured(lib.nn.Linear(2, 2), "weight",
                                                              amount=1.5),
                      ValueError, r"should either be a float in the range \[0, 1\]")
    assert_same_error(lambda lib: _prune(lib).l1_unstructured(lib.nn.Linear(2, 2), "weight",
                                                              amount=5),
                      ValueError, "should be smaller than the number of parameters to prune=4")
    assert_same_error(lambda lib: _prune(lib).ln_structured(lib.nn.Linear(2, 2), "bias",
                                                            amount=1, n=2, dim=0),
                      ValueError, "Structured pruning can only be applied to multidimensional")
    assert_same_error(lambda lib: _prune(lib).remove(lib.nn.Linear(2, 2), "weight"),
                      ValueError, "has to be pruned before pruning can be removed")
    assert_same_error(lambda lib: _prune(lib).random_unstructured(lib.nn.Linear(2, 2),
                                                                  "weight", amount="x"),
                      TypeError, "Invalid type for amount")

    def failed(lib):
        layer = lib.nn.Linear(2, 2)
        try:
            _prune(lib).l1_unstructured(layer, "weight", amount=9)
        except ValueError:
            pass
        return [n for n, _ in layer.named_parameters()]
    assert failed(ag) == failed(torch) == ["bias", "weight"]   # weight put back, last
