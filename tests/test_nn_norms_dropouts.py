"""RMSNorm / F.rms_norm, InstanceNorm1d/2d/3d / F.instance_norm, and the dropout variants
(Dropout1d/2d/3d, AlphaDropout, FeatureAlphaDropout and their functional forms) against
torch: values, gradients and second order, node names, running statistics, reprs, state
dicts, warnings and errors. The dropouts' structure (whole channels), scales, alpha affine
and gradients are checked here against torch's formulas; that their masks are torch's numbers
after the same seed, in tests/test_bernoulli.py."""
import math
import warnings

import numpy as np
import pytest
import torch

import autograd_cy as ag
from oracle import (DEVICE, assert_close, assert_same_error, check_jvp, check_op, node_name,
                    randn, same_warning, to_numpy)

DTYPES = [np.float32, np.float64]


# ------------------------------------------------------------------ rms_norm

@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape, normalized", [((2, 3, 4), (4,)), ((2, 3, 4), (3, 4)),
                                               ((5,), [5]), ((2, 3), (3,))])
@pytest.mark.parametrize("eps", [None, 1e-3])
@pytest.mark.parametrize("affine", [False, True])
def test_rms_norm(dtype, shape, normalized, eps, affine):
    weight_shape = tuple(normalized)

    def fn(lib, x, w):
        out = lib.nn.functional.rms_norm(x, normalized, w if affine else None, eps=eps)
        assert node_name(out.grad_fn) == "MulBackward0"
        return out
    check_op(fn, randn(*shape), randn(*weight_shape, seed=3), dtype=dtype)


def test_rms_norm_default_eps_is_the_dtype_epsilon():
    """A tiny input shows eps: float64's epsilon for float64, float32's for float16 (the
    computation's dtype, NOTE [RMSNorm's computation])."""
    for array, dtype in ((randn(6) * 1e-8, "float64"), (randn(6) * 1e-3, "float16"),
                         (randn(6) * 1e-3, "bfloat16")):
        outs = [lib.nn.functional.rms_norm(lib.tensor(array).to(getattr(lib, dtype)), (6,))
                for lib in (ag, torch)]
        assert outs[0].dtype == getattr(ag, dtype)
        assert_close(outs[0].float(), outs[1].float(), 0, 0)


def test_rms_norm_half_input_casts_back_at_the_end():
    for lib in (ag, torch):
        x = lib.tensor(randn(2, 3), requires_grad=True)
        w = lib.ones(3, requires_grad=True)
        out = lib.nn.functional.rms_norm(x.half(), (3,), w.half())
        assert out.dtype == lib.float16
        assert node_name(out.grad_fn) == "ToCopyBackward0"

    def mixed_dtypes(lib):
        lib.set_warn_always(True)       # torch warns once per process otherwise
        try:
            return lib.nn.functional.rms_norm(lib.ones(2, 3), (3,), lib.ones(3).double())
        finally:
            lib.set_warn_always(False)
    mixed = same_warning(mixed_dtypes, UserWarning, "^Mismatch dtype between input and "
                         "weight: input dtype = float, weight dtype = double, Cannot dispatch "
                         "to fused")
    assert mixed[0].dtype == ag.float32 and mixed[1].dtype == torch.float32


def test_rms_norm_gradcheck():
    check_op(lambda lib, x, w: lib.nn.functional.rms_norm(x, (2, 3), w), randn(4, 2, 3),
             randn(2, 3, seed=1))


@pytest.mark.parametrize("call, expected", [
    (lambda lib, x: lib.nn.functional.rms_norm(x, (5,)),
     (RuntimeError, r"^Given normalized_shape=\[5\], expected input with shape \[\*5\], "
                    r"but got input of size\[2, 3, 4\]$")),
    (lambda lib, x: lib.nn.functional.rms_norm(x, (3, 5)),
     (RuntimeError, r"expected input with shape \[\*3, 5\]")),
    (lambda lib, x: lib.nn.functional.rms_norm(x, (4,), lib.ones(3)),
     (RuntimeError, r"^Expected weight to be of same shape as normalized_shape, but got "
                    r"weight of shape \[3\] and normalized_shape = \[4\]$")),
    (lambda lib, x: lib.nn.functional.rms_norm(x, 4),
     (TypeError, r"^rms_norm\(\): argument 'normalized_shape' \(position 2\) must be tuple of "
                 r"ints, not int$")),
    (lambda lib, x: lib.nn.functional.rms_norm(x, ()),
     (RuntimeError, "^Expected normalized_shape to be at least 1-dimensional")),
    (lambda lib, x: lib.nn.functional.rms_norm(x.long(), (4,)),
     (NotImplementedError, "^\"rms_norm\" not implemented for 'Long'$")),
])
def test_rms_norm_errors(call, expected):
    assert_same_error(lambda lib: call(lib, lib.tensor(randn(2, 3, 4))), *expected)


def test_rms_norm_module():
    for args, kwargs in (((4,), {}), (([3, 4],), {"eps": 1e-3, "elementwise_affine": False}),
                         ((4,), {"dtype": "float64"})):
        modules = []
        for lib in (ag, torch):
            options = dict(kwargs)
            if "dtype" in options:
                options["dtype"] = getattr(lib, options["dtype"])
            modules.append(lib.nn.RMSNorm(*args, **options))
        ours, theirs = modules
        assert repr(ours) == repr(theirs)
        assert list(ours.state_dict()) == list(theirs.state_dict())
        assert ours.eps == theirs.eps and ours.normalized_shape == theirs.normalized_shape
        if ours.weight is not None:
            assert_close(ours.weight, theirs.weight, 0, 0)
            with torch.no_grad():
                theirs.weight.copy_(torch.tensor(randn(*theirs.weight.shape)))
            ours.load_state_dict({"weight": ag.tensor(to_numpy(theirs.weight))})
        x = randn(2, 3, 4)
        out = ours(ag.tensor(x).to(ours.weight.dtype if ours.weight is not None
                                    else ag.float32))
        expected = theirs(torch.tensor(x).to(theirs.weight.dtype if theirs.weight is not None
                                             else torch.float32))
        assert_close(out, expected, 1e-6, 1e-6)


# ------------------------------------------------------------------ instance_norm

@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(2, 3, 5), (2, 3, 4, 5), (1, 2, 2, 3, 2)])
@pytest.mark.parametrize("affine", [False, True])
def test_instance_norm(dtype, shape, affine):
    def fn(lib, x, w, b):
        out = lib.nn.functional.instance_norm(x, weight=w if affine else None,
                                              bias=b if affine else None)
        assert node_name(out.grad_fn) == "ViewBackward0"
        assert node_name(out.grad_fn.next_functions[0][0]) == "NativeBatchNormBackward0"
        return out
    check_op(fn, randn(*shape), randn(shape[1], seed=1), randn(shape[1], seed=2), dtype=dtype)


@pytest.mark.parametrize("use_input_stats", [True, False])
def test_instance_norm_running_statistics(use_input_stats):
    """Training updates the running statistics with the mean over the batch of each
    example's update; without input statistics they normalize."""
    results = []
    for lib in (ag, torch):
        mean = lib.tensor(randn(3, seed=4))
        var = lib.tensor(randn(3, seed=5, positive=True))
        x = lib.tensor(randn(2, 3, 6), requires_grad=True)
        out = lib.nn.functional.instance_norm(x, mean, var, lib.tensor(randn(3, seed=6)),
                                              lib.tensor(randn(3, seed=7)), use_input_stats,
                                              0.3, 1e-4)
        out.backward(lib.tensor(randn(2, 3, 6, seed=8)))
        results.append([out, mean, var, x.grad])
    assert_close(results[0], results[1], 1e-7, 1e-9)


@pytest.mark.parametrize("cls", ["InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d"])
@pytest.mark.parametrize("options", [{}, {"affine": True},
                                     {"affine": True, "track_running_stats": True},
                                     {"track_running_stats": True, "momentum": None}])
@pytest.mark.parametrize("batched", [True, False])
def test_instance_norm_modules(cls, options, batched):
    spatial = {"InstanceNorm1d": (5,), "InstanceNorm2d": (4, 3), "InstanceNorm3d": (3, 2, 2)}
    shape = ((2,) if batched else ()) + (3,) + spatial[cls]
    modules = [getattr(lib.nn, cls)(3, **options).double() for lib in (ag, torch)]
    ours, theirs = modules
    assert repr(ours) == repr(theirs)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    if ours.weight is not None:         # torch's parameters, not ones and zeros
        with torch.no_grad():
            theirs.weight.copy_(torch.tensor(randn(3, seed=1)))
            theirs.bias.copy_(torch.tensor(randn(3, seed=2)))
        ours.load_state_dict({k: ag.tensor(to_numpy(v)) for k, v in
                              theirs.state_dict().items()})
    for train in (True, True, False):
        ours.train(train)
        theirs.train(train)
        x = randn(*shape, seed=int(train))
        xs = ag.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
        outs = ours(xs[0]), theirs(xs[1])
        assert_close(outs[0], outs[1], 1e-7, 1e-9, "output")
        grad = randn(*shape, seed=9)
        outs[0].backward(ag.tensor(grad))
        outs[1].backward(torch.tensor(grad))
        assert_close(xs[0].grad, xs[1].grad, 1e-7, 1e-9, "input gradient")
        for (name, a), b in zip(ours.state_dict().items(), theirs.state_dict().values()):
            assert_close(a, b, 1e-7, 1e-9, name)
        if ours.weight is not None:
            assert_close(ours.weight.grad, theirs.weight.grad, 1e-7, 1e-9, "weight.grad")


@pytest.mark.parametrize("call, expected", [
    (lambda lib: lib.nn.InstanceNorm1d(3)(lib.zeros(3)),
     (ValueError, r"^expected 2D or 3D input \(got 1D input\)$")),
    (lambda lib: lib.nn.InstanceNorm2d(3)(lib.zeros(2, 3, 4, 5, 6)),
     (ValueError, r"^expected 3D or 4D input \(got 5D input\)$")),
    (lambda lib: lib.nn.InstanceNorm3d(3)(lib.zeros(3, 4)),
     (ValueError, r"^expected 4D or 5D input \(got 2D input\)$")),
    (lambda lib: lib.nn.InstanceNorm1d(3, affine=True)(lib.zeros(2, 4, 5)),
     (ValueError, r"^expected input's size at dim=1 to match num_features \(3\), but got: "
                  r"4\.$")),
    (lambda lib: lib.nn.functional.instance_norm(lib.ones(2, 3, 4), use_input_stats=False),
     (RuntimeError, "^Expected running_mean and running_var to be defined when "
                    "use_input_stats is false$")),
    (lambda lib: lib.nn.functional.instance_norm(lib.ones(2, 3, 4), weight=lib.ones(4)),
     (RuntimeError, "^weight should contain 6 elements not 8$")),
    (lambda lib: lib.nn.functional.instance_norm(lib.ones(2, 3, 4).long()),
     (NotImplementedError, "^\"batch_norm\" not implemented for 'Long'$")),
    (lambda lib: lib.nn.functional.instance_norm(lib.zeros(2, 3, 1)),
     (ValueError, r"^Expected more than 1 spatial element when training, got input size "
                  r"\w+\.Size\(\[2, 3, 1\]\)$")),
])
def test_instance_norm_errors(call, expected):
    assert_same_error(call, *expected)


def test_instance_norm_warns_of_a_wrong_num_features_without_affine():
    outs = same_warning(lambda lib: lib.nn.InstanceNorm1d(3)(lib.tensor(randn(2, 4, 5))),
                        UserWarning, "^input's size at dim=1 does not match num_features")
    assert_close(outs[0], outs[1])


# ------------------------------------------------------------------ channel dropout

def channel_dropout(lib, name, x, p, **kwargs):
    return getattr(lib.nn.functional, name)(x, p, **kwargs)


@pytest.mark.parametrize("name, shape", [("dropout1d", (4, 24, 5)), ("dropout1d", (24, 5)),
                                         ("dropout2d", (4, 6, 3, 2)),
                                         ("dropout3d", (4, 6, 2, 2, 2)),
                                         ("dropout3d", (24, 2, 2, 2))])
@pytest.mark.parametrize("p", [0.3, 0.7])
def test_channel_dropout_zeroes_whole_channels(name, shape, p):
    x = ag.tensor(randn(*shape, positive=True), requires_grad=True)
    ag.manual_seed(0)
    out = channel_dropout(ag, name, x, p)
    unbatched = _unbatched(name, shape)
    assert node_name(out.grad_fn) == ("SqueezeBackward1" if unbatched else "MulBackward0")
    assert tuple(out.shape) == shape
    ratio = to_numpy(out) / to_numpy(x)
    leading = 1 if unbatched else 2      # (N, C) or (C,): one draw each
    channels = ratio.reshape(ratio.shape[:leading] + (-1,))
    for values in channels.reshape(-1, channels.shape[-1]):
        assert np.allclose(values, 0) or np.allclose(values, 1 / (1 - p))
    kept = np.mean([not np.allclose(v, 0) for v in channels.reshape(-1, channels.shape[-1])])
    assert 0 < kept < 1
    out.backward(ag.ones_like(out))
    assert_close(x.grad, ag.tensor(ratio), 1e-6, 1e-6)
    ag.manual_seed(0)
    assert ag.equal(channel_dropout(ag, name, x, p), out)


def _unbatched(name, shape):
    return (name, len(shape)) in (("dropout1d", 2), ("dropout3d", 4))


@pytest.mark.parametrize("name", ["dropout1d", "dropout2d", "dropout3d",
                                  "feature_alpha_dropout", "alpha_dropout"])
def test_dropout_identity_cases(name):
    shape = {"dropout1d": (2, 3, 4), "dropout3d": (2, 3, 2, 2, 2)}.get(name, (2, 3, 2, 2))
    for lib in (ag, torch):
        x = lib.tensor(randn(*shape), requires_grad=True)
        assert getattr(lib.nn.functional, name)(x, 0.5, training=False) is x
        assert getattr(lib.nn.functional, name)(x, 0.0, training=True) is x
    outs = [getattr(lib.nn.functional, name)(lib.tensor(randn(*shape)), 1.0, training=True)
            for lib in (ag, torch)]
    assert_close(outs[0], outs[1], 0, 0)


def test_dropout_defaults_as_torch():
    """The alpha forms do nothing unless told they train (``training=False``), the
    channel forms drop by default."""
    x = ag.tensor(randn(2, 3, 4))
    assert ag.nn.functional.alpha_dropout(x) is x
    assert ag.nn.functional.feature_alpha_dropout(x) is x
    ag.manual_seed(1)
    assert not ag.equal(ag.nn.functional.dropout1d(ag.ones(20, 30, 2)), ag.ones(20, 30, 2))


def test_inplace_channel_dropout():
    x = ag.ones(8, 6, 3)
    ag.manual_seed(2)
    out = ag.nn.functional.dropout1d(x, 0.5, inplace=True)
    assert out is x and set(np.unique(to_numpy(x)).tolist()) <= {0.0, 2.0}
    unbatched = ag.ones(60, 3)
    assert ag.nn.functional.dropout1d(unbatched, 0.5, inplace=True) is unbatched
    assert set(np.unique(to_numpy(unbatched)).tolist()) == {0.0, 2.0}


@pytest.mark.parametrize("name, dims", [("dropout2d", 3), ("dropout2d", 5),
                                        ("dropout3d", 3)])
def test_channel_dropout_warnings(name, dims):
    def call(lib):
        return getattr(lib.nn.functional, name)(lib.ones(*(2,) * dims), 0.5)
    match = "3D input to dropout2d" if dims == 3 and name == "dropout2d" else \
        f"Received a {dims}-D input to {name}, which is deprecated"
    same_warning(call, UserWarning, match)


@pytest.mark.parametrize("call, expected", [
    (lambda lib: lib.nn.functional.dropout1d(lib.ones(2, 3, 4, 5)),
     (RuntimeError, r"^dropout1d: Expected 2D or 3D input, but received a 4D input\. Note "
                    r"that dropout1d exists")),
    (lambda lib: lib.nn.functional.dropout2d(lib.ones(3), 0.5),
     (RuntimeError, "^Feature dropout requires at least 2 dimensions in the input$")),
    (lambda lib: lib.nn.functional.dropout1d(lib.ones(2, 3, 4).long()),
     (RuntimeError, "^result type Float can't be cast to the desired output type Long$")),
    (lambda lib: lib.nn.functional.alpha_dropout(lib.ones(2, 3).int(), 0.5, True),
     (RuntimeError, "^result type Float can't be cast to the desired output type Int$")),
    (lambda lib: lib.nn.functional.dropout2d(lib.ones(2, 3, 4, 4).to(lib.complex64)),
     (NotImplementedError, "^\"bernoulli_scalar_cpu_\" not implemented for 'ComplexFloat'$")),
    (lambda lib: lib.nn.functional.alpha_dropout(lib.ones(3), 1.5, True),
     (ValueError, "^dropout probability has to be between 0 and 1, but got 1.5$")),
    (lambda lib: lib.nn.Dropout2d(-0.1),
     (ValueError, "^dropout probability has to be between 0 and 1, but got -0.1$")),
])
def test_dropout_errors(call, expected):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert_same_error(call, *expected)


# ------------------------------------------------------------------ alpha dropout

ALPHA = 1.7580993408473766


@pytest.mark.parametrize("name", ["alpha_dropout", "feature_alpha_dropout"])
@pytest.mark.parametrize("p", [0.2, 0.6])
def test_alpha_dropout_is_torchs_affine(name, p):
    """Kept values ``a x + alpha' a p``, dropped ones ``-alpha' a + alpha' a p``; the
    gradient ``a`` or 0; the node AddBackward0 as torch's."""
    a = 1 / math.sqrt((ALPHA ** 2 * p + 1) * (1 - p))
    x = ag.tensor(randn(6, 5, 4), requires_grad=True)
    ag.manual_seed(3)
    out = getattr(ag.nn.functional, name)(x, p, True)
    assert node_name(out.grad_fn) == "AddBackward0"
    torch_out = getattr(torch.nn.functional, name)(torch.ones(2, 2, requires_grad=True), p,
                                                   True)
    assert node_name(torch_out.grad_fn) == "AddBackward0"
    values, inputs = to_numpy(out), to_numpy(x)
    kept = np.isclose(values, a * inputs + ALPHA * a * p)
    dropped = np.isclose(values, -ALPHA * a + ALPHA * a * p)
    assert np.all(kept | dropped) and kept.any() and dropped.any()
    if name == "feature_alpha_dropout":     # one decision per channel
        per_channel = kept.reshape(6, 5, -1)
        assert np.all(per_channel.all(-1) | ~per_channel.any(-1))
    out.backward(ag.ones_like(out))
    np.testing.assert_allclose(to_numpy(x.grad), np.where(kept, a, 0.0), rtol=1e-12)


def test_alpha_dropout_keeps_mean_and_variance():
    ag.manual_seed(4)
    x = ag.randn(200000, dtype=ag.float64)
    out = ag.nn.functional.alpha_dropout(x, 0.3, True)
    assert abs(float(out.mean())) < 0.02 and abs(float(out.var()) - 1) < 0.02


# ------------------------------------------------------------------ the modules

@pytest.mark.parametrize("cls, shape", [("Dropout1d", (3, 4, 5)), ("Dropout2d", (2, 3, 4, 5)),
                                        ("Dropout3d", (2, 3, 2, 2, 2)),
                                        ("AlphaDropout", (3, 4)),
                                        ("FeatureAlphaDropout", (2, 3, 4))])
def test_dropout_modules(cls, shape):
    for kwargs in ({}, {"p": 0.2, "inplace": True}):
        ours, theirs = (getattr(lib.nn, cls)(**kwargs) for lib in (ag, torch))
        assert repr(ours) == repr(theirs)
        assert (ours.p, ours.inplace) == (theirs.p, theirs.inplace)
    ours.eval()
    x = ag.tensor(randn(*shape))
    assert ours(x) is x
    ours.train()
    ag.manual_seed(5)
    out = ours(ag.tensor(randn(*shape)))
    assert tuple(out.shape) == shape
    assert str(out.device) == ("cpu" if DEVICE == "cpu" else "cuda:0")


# ------------------------------------------------------------------ forward AD

def test_forward_ad_of_the_norms():
    check_jvp(lambda lib, x, w: lib.nn.functional.rms_norm(x, (3, 4), w), randn(2, 3, 4),
              randn(3, 4, seed=1))
    check_jvp(lambda lib, x, w, b: lib.nn.functional.instance_norm(x, weight=w, bias=b),
              randn(2, 3, 5), randn(3, seed=1), randn(3, seed=2))


def test_instance_norm_refuses_running_stats_of_an_old_checkpoint():
    """A state dict without version metadata carrying running statistics the module does
    not track: torch's error, naming them."""
    def load(lib):
        state = {"running_mean": lib.zeros(3), "running_var": lib.ones(3)}
        return lib.nn.InstanceNorm1d(3).load_state_dict(state)
    assert_same_error(load, RuntimeError, r'Unexpected running stats buffer\(s\) '
                      r'"running_mean" and "running_var" for InstanceNorm1d with '
                      r"track_running_stats=False\. If state_dict is a checkpoint saved before "
                      r"0\.4\.0", exact=True)


def test_vmap_batches_through_the_composites():
    """rms_norm and instance_norm are composites, as in torch: under vmap their ops batch
    them, each example normalized on its own."""
    x = randn(3, 2, 4, 5)
    results = [
        [lib.vmap(lambda t: lib.nn.functional.rms_norm(t, (5,)))(lib.tensor(x)),
         lib.vmap(lambda t: lib.nn.functional.instance_norm(t))(lib.tensor(x))]
        for lib in (ag, torch)]
    assert_close(results[0], results[1], 1e-7, 1e-9)
