"""Lazy modules (autograd_cy/nn/modules/lazy.py) and UninitializedParameter/Buffer against
torch's: the reprs before and after, the class each becomes, the seeded initial values (the
lazy layer draws what the non-lazy one draws), outputs and gradients, the state dict of a
lazy module and loading one into it, optimizers over uninitialised parameters, and the
errors."""
import copy
import io
import pickle

import numpy as np
import pytest

import autograd_cy as ag
from oracle import assert_same, assert_same_error, randn

LAYERS = {
    "LazyLinear": (lambda nn: nn.LazyLinear(3), (2, 4)),
    "LazyLinear_no_bias": (lambda nn: nn.LazyLinear(3, bias=False), (5,)),
    "LazyConv1d": (lambda nn: nn.LazyConv1d(4, 3, padding=1), (2, 3, 6)),
    "LazyConv2d": (lambda nn: nn.LazyConv2d(4, 2, groups=2, bias=False), (2, 6, 4, 4)),
    "LazyConv2d_unbatched": (lambda nn: nn.LazyConv2d(2, 3), (3, 5, 5)),
    "LazyConv3d": (lambda nn: nn.LazyConv3d(2, 2), (1, 2, 3, 3, 3)),
    "LazyConvTranspose1d": (lambda nn: nn.LazyConvTranspose1d(2, 3, stride=2,
                                                              output_padding=1), (2, 3, 4)),
    "LazyConvTranspose2d": (lambda nn: nn.LazyConvTranspose2d(4, 3, groups=2), (1, 2, 3, 3)),
    "LazyConvTranspose3d": (lambda nn: nn.LazyConvTranspose3d(2, 2), (1, 3, 2, 2, 2)),
    "LazyBatchNorm1d": (lambda nn: nn.LazyBatchNorm1d(), (4, 3)),
    "LazyBatchNorm2d": (lambda nn: nn.LazyBatchNorm2d(momentum=None, affine=False), (2, 3, 2, 2)),
    "LazyBatchNorm3d": (lambda nn: nn.LazyBatchNorm3d(track_running_stats=False),
                        (2, 2, 2, 2, 2)),
    "LazyInstanceNorm1d": (lambda nn: nn.LazyInstanceNorm1d(), (2, 3, 5)),
    "LazyInstanceNorm2d": (lambda nn: nn.LazyInstanceNorm2d(affine=False), (2, 3, 3, 3)),
    "LazyInstanceNorm3d": (lambda nn: nn.LazyInstanceNorm3d(bias=False), (1, 2, 2, 3, 2)),
}


@pytest.mark.cpu_only       # seeded: torch's CPU generator draws the weights
@pytest.mark.parametrize("name", LAYERS)
def test_first_forward_infers_initialises_and_becomes_the_layer(name):
    make, shape = LAYERS[name]

    def run(lib):
        lib.manual_seed(0)
        layer = make(lib.nn)
        before = [repr(layer), layer.has_uninitialized_params(),
                  [(k, repr(v)) for k, v in layer.state_dict().items()],
                  [type(p).__name__ for p in layer.parameters()]]
        x = lib.tensor(randn(*shape), dtype=lib.float32, requires_grad=True)
        y = layer(x)
        y.pow(2).sum().backward()
        after = [type(layer).__name__, repr(layer), layer.has_uninitialized_params()
                 if hasattr(layer, "has_uninitialized_params") else None,
                 hasattr(layer, "_initialize_hook"),
                 [(k, type(v).__name__, v) for k, v in layer.state_dict().items()],
                 [(type(p).__name__, p.grad) for p in layer.parameters()]]
        return before, after, y, x.grad
    assert_same(run, rtol=1e-5, atol=1e-5)     # float32 gradients that cancel


@pytest.mark.parametrize("name", ["LazyLinear", "LazyConv2d", "LazyConvTranspose1d",
                                  "LazyBatchNorm2d"])
def test_the_lazy_layer_draws_what_the_layer_draws(name):
    """On any device: a seeded lazy layer, once run, holds the seeded non-lazy layer's
    parameters, and computes what it computes."""
    make_lazy, shape = LAYERS[name]
    x = ag.tensor(randn(*shape), dtype=ag.float32)
    ag.manual_seed(5)
    lazy = make_lazy(ag.nn)
    lazy_out = lazy(x)
    ag.manual_seed(5)
    plain = {"LazyLinear": lambda: ag.nn.Linear(4, 3),
             "LazyConv2d": lambda: ag.nn.Conv2d(6, 4, 2, groups=2, bias=False),
             "LazyConvTranspose1d": lambda: ag.nn.ConvTranspose1d(3, 2, 3, stride=2,
                                                                  output_padding=1),
             "LazyBatchNorm2d": lambda: ag.nn.BatchNorm2d(3, momentum=None, affine=False)}[name]()
    plain_out = plain(x)
    assert repr(lazy) == repr(plain) and type(lazy) is type(plain)
    for (name_a, a), (name_b, b) in zip(lazy.state_dict().items(),
                                        plain.state_dict().items()):
        assert name_a == name_b and a.device == x.device
        np.testing.assert_array_equal(a.cpu().numpy(), b.cpu().numpy())
    np.testing.assert_allclose(lazy_out.detach().cpu().numpy(),
                               plain_out.detach().cpu().numpy(), rtol=1e-6, atol=1e-6)


def test_the_instance_becomes_the_non_lazy_class():
    linear = ag.nn.LazyLinear(2)
    linear(ag.ones(1, 3))
    assert type(linear) is ag.nn.Linear
    norm = ag.nn.LazyBatchNorm1d()
    norm(ag.ones(2, 3))
    assert type(norm) is ag.nn.BatchNorm1d and type(norm.running_mean) is ag.Tensor
    assert type(norm.weight) is ag.nn.Parameter


@pytest.mark.cpu_only       # seeded: torch's CPU generator draws the weights
def test_load_state_dict_materialises_then_the_forward_keeps_it():
    def run(lib):
        lib.manual_seed(1)
        source = lib.nn.Sequential(lib.nn.Linear(4, 3), lib.nn.BatchNorm1d(3))
        source(lib.ones(2, 4))
        target = lib.nn.Sequential(lib.nn.LazyLinear(3), lib.nn.LazyBatchNorm1d())
        keys = target.load_state_dict(source.state_dict())
        loaded = [[type(m).__name__ for m in target], target[0].has_uninitialized_params(),
                  dict(target.state_dict()), list(keys.missing_keys)]
        out = target(lib.tensor(randn(2, 4), dtype=lib.float32))
        return loaded, [type(m).__name__ for m in target], out
    assert_same(run, rtol=1e-5, atol=1e-6)


def test_state_dict_of_a_lazy_module_into_another():
    def run(lib):
        target = lib.nn.LazyLinear(3)
        target.load_state_dict(lib.nn.LazyLinear(3).state_dict())
        return target.has_uninitialized_params(), type(target).__name__
    assert_same(run)


@pytest.mark.cpu_only       # seeded: torch's CPU generator draws the weights
def test_optimizers_take_uninitialised_parameters():
    def run(lib):
        lib.manual_seed(2)
        layer = lib.nn.LazyLinear(2)
        optimizers = [lib.optim.SGD(layer.parameters(), lr=0.1, momentum=0.9),
                      lib.optim.Adam(layer.parameters(), lr=0.1)]
        layer(lib.ones(3, 4)).sum().backward()
        for optimizer in optimizers:
            optimizer.step()
        return layer.weight, layer.bias
    assert_same(run, rtol=1e-5, atol=1e-6)


@pytest.mark.cpu_only       # seeded: torch's CPU generator draws the weights
def test_module_conversions_before_the_forward():
    def run(lib):
        lib.manual_seed(3)
        layer = lib.nn.LazyConv1d(2, 2).double()
        dtype = str(layer.weight.dtype).split(".")[-1]
        out = layer(lib.ones(1, 3, 4, dtype=lib.float64))
        return dtype, out
    assert_same(run)


def test_uninitialized_parameter_and_buffer():
    def run(lib):
        p = lib.nn.UninitializedParameter(dtype=lib.float64)
        b = lib.nn.UninitializedBuffer(persistent=False)
        copied = copy.deepcopy(p)
        facts = [repr(p), repr(b), list(p.size()), p.requires_grad, b.requires_grad,
                 b.persistent, repr(copied), str(copied.dtype).split(".")[-1],
                 isinstance(p, lib.nn.Parameter), repr(pickle.loads(pickle.dumps(p)))]
        module = lib.nn.Module()
        module.lazy = lib.nn.UninitializedBuffer(persistent=False)
        facts += [list(module._buffers), sorted(module._non_persistent_buffers_set)]
        p.materialize((2, 3))
        b.materialize(4, dtype=lib.float64)
        facts += [type(p).__name__, list(p.shape), str(p.dtype).split(".")[-1],
                  p.requires_grad, list(b.shape), str(b.dtype).split(".")[-1]]
        return facts
    assert_same(run)
    assert ag.nn.parameter.UninitializedParameter is ag.nn.UninitializedParameter
    assert issubclass(ag.nn.modules.lazy.LazyModuleMixin, object)


@pytest.mark.filterwarnings("ignore:.*weights_only")
def test_deepcopy_save_and_load_before_the_forward():
    """A lazy module deep-copies as lazy; its state dict saves its uninitialised entries
    pickled (their class, as torch's), so that a weights-only load refuses them."""
    def run(lib):
        model = lib.nn.Sequential(lib.nn.LazyLinear(3), lib.nn.ReLU())
        copied = copy.deepcopy(model)
        copied(lib.ones(2, 4))
        buffer = io.BytesIO()
        lib.save(lib.nn.LazyBatchNorm1d(dtype=lib.float64).state_dict(), buffer)
        buffer.seek(0)
        loaded = lib.load(buffer, weights_only=False)
        target = lib.nn.LazyBatchNorm1d()
        target.load_state_dict(loaded)
        return ([type(m).__name__ for m in copied], [type(m).__name__ for m in model],
                [(k, repr(v) if "Uninitialized" in type(v).__name__ else v.item(),
                  str(v.dtype).split(".")[-1], v.requires_grad)
                 for k, v in loaded.items()], target.has_uninitialized_params())
    assert_same(run)
    buffer = io.BytesIO()
    ag.save(ag.nn.LazyLinear(2).state_dict(), buffer)
    buffer.seek(0)
    with pytest.raises(pickle.UnpicklingError, match="Weights only load failed"):
        ag.load(buffer)


ERRORS = {
    "shape": lambda lib: lib.nn.LazyLinear(2).weight.shape,
    "buffer_shape": lambda lib: lib.nn.LazyBatchNorm1d().running_mean.shape,
    "share_memory": lambda lib: lib.nn.UninitializedParameter().share_memory_(),
    "operator": lambda lib: lib.nn.UninitializedParameter() + 1,
    "method": lambda lib: lib.nn.UninitializedBuffer().dim(),
    "len": lambda lib: len(lib.nn.LazyLinear(2).weight),
    "init": lambda lib: lib.nn.init.xavier_uniform_(lib.nn.LazyLinear(2).weight),
    "parameter_count": lambda lib: sum(p.numel() for p in lib.nn.LazyLinear(2).parameters()),
    "lazy_into_initialised": lambda lib: lib.nn.Linear(2, 2).load_state_dict(
        lib.nn.LazyLinear(2).state_dict()),
    "second_input_size": lambda lib: _twice(lib),
    "conv_rank": lambda lib: lib.nn.LazyConv2d(2, 1)(lib.ones(2, 2)),
    "conv_groups": lambda lib: lib.nn.LazyConv1d(2, 1, groups=2)(lib.ones(1, 3, 4)),
    "mixin_without_initialize": lambda lib: _bare_mixin(lib)(lib.ones(1)),
}


def _twice(lib):
    layer = lib.nn.LazyLinear(2)
    layer(lib.ones(1, 3))
    layer(lib.ones(1, 4))


def _bare_mixin(lib):
    class Lazy(lib.nn.modules.lazy.LazyModuleMixin, lib.nn.Module):
        def forward(self, x):
            return x
    return Lazy()


@pytest.mark.parametrize("name", ERRORS)
def test_errors(name):
    patterns = {
        "shape": [RuntimeError, r"^Can't access the shape of an uninitialized parameter or "
                  r"buffer\. This error usually happens in `load_state_dict`"],
        "buffer_shape": [RuntimeError, "Can't access the shape of an uninitialized"],
        "share_memory": [],
        "operator": [ValueError, r"^Attempted to use an uninitialized parameter in .*"
                     r"`torch\.nn\.parameter\.UninitializedParameter` objects"],
        "method": [ValueError, r"^Attempted to use an uninitialized parameter in .*dim.*"
                   r"UninitializedBuffer"],
        "len": [ValueError, "^Attempted to use an uninitialized parameter in .*__len__"],
        "init": [ValueError, "^Attempted to use an uninitialized parameter in .*'dim'"],
        "parameter_count": [ValueError, "^Attempted to use an uninitialized parameter in "
                            ".*'numel'"],
        "lazy_into_initialised": [RuntimeError, "Can't access the shape"],
        "second_input_size": [RuntimeError, "cannot be multiplied"],
        "conv_rank": [RuntimeError, r"^Expected 3D \(unbatched\) or 4D \(batched\) input to "
                      r"LazyConv2d, but got input of size: \w+\.Size\(\[2, 2\]\)$"],
        "conv_groups": [],
        "mixin_without_initialize": [],
    }[name]
    assert_same_error(ERRORS[name], *patterns)
