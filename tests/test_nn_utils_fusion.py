"""The rest of nn.utils against torch's: fusion (batch norm folded into the convolution or
linear layer before it), stateless.functional_call (deprecated), skip_init,
clip_grads_with_norm_ and the deprecated clip_grad_norm."""
import numpy as np
import pytest

from oracle import assert_same, assert_same_error, plain, same_warning


def filled(lib, module, seed):
    """``module`` with the same parameters and buffers in both libraries, in eval mode."""
    rng = np.random.default_rng(seed)
    with lib.no_grad():
        for name, t in [*module.named_parameters(), *module.named_buffers()]:
            if t.is_floating_point():
                values = rng.standard_normal(tuple(t.shape)).astype(np.float32)
                if name.endswith("running_var"):
                    values = np.abs(values) + 0.5
                t.copy_(lib.tensor(values))
    return module.eval()


CONVS = {"conv2d": (lambda nn: nn.Conv2d(2, 3, 2), lambda nn: nn.BatchNorm2d(3), False,
                    (1, 2, 4, 4)),
         "conv1d_no_bias": (lambda nn: nn.Conv1d(2, 3, 2, bias=False),
                            lambda nn: nn.BatchNorm1d(3, affine=False), False, (2, 2, 5)),
         "conv_transpose2d": (lambda nn: nn.ConvTranspose2d(2, 3, 2),
                              lambda nn: nn.BatchNorm2d(3), True, (1, 2, 3, 3))}


@pytest.mark.parametrize("case", CONVS)
def test_fuse_conv_bn_eval(case):
    make_conv, make_bn, transpose, shape = CONVS[case]

    def run(lib):
        conv, bn = filled(lib, make_conv(lib.nn), 0), filled(lib, make_bn(lib.nn), 1)
        fused = lib.nn.utils.fuse_conv_bn_eval(conv, bn, transpose=transpose)
        x = lib.tensor(np.linspace(-1, 1, int(np.prod(shape)), dtype=np.float32).reshape(shape))
        return (type(fused).__name__, fused is conv, fused.weight, fused.bias,
                type(fused.bias).__name__, fused(x), bn(conv(x)))
    ours, _ = assert_same(run, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(plain(ours[5]), plain(ours[6]), rtol=1e-4, atol=1e-5)  # fused


@pytest.mark.parametrize("bias", [True, False])
def test_fuse_linear_bn_eval(bias):
    def run(lib):
        linear = filled(lib, lib.nn.Linear(4, 3, bias=bias), 2)
        bn = filled(lib, lib.nn.BatchNorm1d(3), 3)
        fused = lib.nn.utils.fuse_linear_bn_eval(linear, bn)
        x = lib.tensor(np.linspace(-1, 1, 8, dtype=np.float32).reshape(2, 4))
        weights = lib.nn.utils.fusion.fuse_linear_bn_weights(
            linear.weight, linear.bias, bn.running_mean, bn.running_var, bn.eps, bn.weight,
            bn.bias)
        return fused.weight, fused.bias, fused(x), bn(linear(x)), weights[1].requires_grad
    assert_same(run, rtol=1e-5, atol=1e-6)


def test_fusion_errors():
    assert_same_error(lambda lib: lib.nn.utils.fuse_conv_bn_eval(
        lib.nn.Conv2d(1, 2, 1), lib.nn.BatchNorm2d(2)), AssertionError, exact=True)
    assert_same_error(lambda lib: lib.nn.utils.fuse_linear_bn_eval(
        lib.nn.Linear(2, 3).eval(), lib.nn.BatchNorm1d(2).eval()), AssertionError,
        exact=True)
    assert_same_error(lambda lib: lib.nn.utils.fuse_linear_bn_eval(
        lib.nn.Linear(2, 2).eval(), lib.nn.BatchNorm1d(2, track_running_stats=False).eval()),
        AssertionError, exact=True)


def test_stateless_functional_call():
    def run(lib):
        layer = filled(lib, lib.nn.Linear(2, 2), 4)
        weight = lib.ones(2, 2, requires_grad=True)
        out = lib.nn.utils.stateless.functional_call(layer, {"weight": weight},
                                                     (lib.tensor([[1.0, 2.0]]),))
        out.sum().backward()
        return out, weight.grad, layer.weight
    same_warning(run, FutureWarning, r"^`torch.nn.utils.stateless.functional_call` is "
                 "deprecated as of PyTorch 2.0")
    assert_same(run)


@pytest.mark.cpu_only      # the CPU generator (torch's) is the one compared
def test_skip_init():
    def run(lib):
        lib.manual_seed(0)
        layer = lib.nn.utils.skip_init(lib.nn.Linear, 3, 2, bias=False)
        return (type(layer).__name__, tuple(layer.weight.shape), layer.bias,
                layer.weight.requires_grad, str(layer.weight.device), lib.rand(3))
    assert_same(run)
    assert_same_error(lambda lib: lib.nn.utils.skip_init(lib.nn.ReLU), RuntimeError,
                      exact=True)
    assert_same_error(lambda lib: lib.nn.utils.skip_init(int), RuntimeError, exact=True)


def grads_of(lib, scale):
    params = [lib.tensor([3.0, 4.0], requires_grad=True), lib.tensor([12.0],
                                                                      requires_grad=True)]
    for p in params:
        p.grad = p.detach() * scale
    return params


@pytest.mark.parametrize("scale", [1.0, 0.01])
def test_clip_grads_with_norm(scale):
    def run(lib):
        params = grads_of(lib, scale)
        total = lib.nn.utils.get_total_norm([p.grad for p in params])
        lib.nn.utils.clip_grads_with_norm_(params, 1.0, total)
        lib.nn.utils.clip_grads_with_norm_([], 1.0, total)
        return total, [p.grad for p in params]
    assert_same(run)


def test_clip_grad_norm_deprecated():
    def run(lib):
        params = grads_of(lib, 1.0)
        return lib.nn.utils.clip_grad_norm(params, 2.0), [p.grad for p in params]
    ours, theirs = same_warning(run, FutureWarning, r"^`torch.nn.utils.clip_grad_norm` is now "
                                r"deprecated in favor of `torch.nn.utils.clip_grad_norm_`.$")
    assert ours[0].item() == pytest.approx(theirs[0].item())
    same_warning(lambda lib: lib.nn.utils.clip_grad_norm_((p for p in []), 1.0), UserWarning,
                 "is an empty generator")
    assert_same(lambda lib: lib.nn.utils.clip_grad_norm_([], 1.0))
