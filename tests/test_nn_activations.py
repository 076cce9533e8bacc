"""The activations of nn.functional in autograd_cy/nn/activations.py and their modules,
against torch: values and gradients (at the kinks too: NOTE [The kinks of the piecewise
activations]), double backward, gradcheck/gradgradcheck, forward AD, node names, the
in-place forms and their nodes (NOTE [In-place activations]), module reprs, argument
errors, the reduced-precision dtypes, PReLU's parameter and RReLU's random slopes (NOTE
[rrelu's random slopes]), and the torch-level names and Tensor methods."""
import numpy as np
import pytest
import torch

import autograd_cy as ag
from oracle import (assert_close, assert_same_error, check_batched_grad, check_gradcheck,
                    assert_same, check_jvp, check_op, node_name, same_warning, to_numpy)

DTYPES = [np.float32, np.float64]


def F(lib):
    return lib.nn.functional


def with_kinks(shape=(4, 8), seed=0):
    """Random values with the kink points of the activations below in the first row."""
    x = np.random.default_rng(seed).standard_normal(shape) * 3
    x.reshape(-1)[:8] = [-3.0, 3.0, -1.0, 1.0, 0.0, 0.5, -0.5, 6.0]
    return x


def away_from_kinks(shape=(2, 4), seed=1):
    """Random float64 values at least 0.1 from every kink point, for finite differences."""
    x = np.random.default_rng(seed).uniform(-5, 7, shape)
    for kink in (-3.0, -1.0, -0.5, 0.0, 0.5, 1.0, 3.0, 6.0):
        close = np.abs(x - kink) < 0.1
        x[close] = kink + 0.2
    return x


# (name, fn(lib, x), torch's node name)
OUT_OF_PLACE = [
    ("elu", lambda lib, x: F(lib).elu(x), "EluBackward0"),
    ("elu_alpha", lambda lib, x: F(lib).elu(x, 0.7), "EluBackward0"),
    ("elu_negative_alpha", lambda lib, x: F(lib).elu(x, -0.5), "EluBackward0"),
    ("selu", lambda lib, x: F(lib).selu(x), "EluBackward0"),
    ("celu", lambda lib, x: F(lib).celu(x, 1.3), "CeluBackward0"),
    ("hardtanh", lambda lib, x: F(lib).hardtanh(x), "HardtanhBackward0"),
    ("hardtanh_bounds", lambda lib, x: F(lib).hardtanh(x, -0.5, 3.0), "HardtanhBackward0"),
    ("relu6", lambda lib, x: F(lib).relu6(x), "HardtanhBackward0"),
    ("hardswish", lambda lib, x: F(lib).hardswish(x), "HardswishBackward0"),
    ("mish", lambda lib, x: F(lib).mish(x), "MishBackward0"),
    ("logsigmoid", lambda lib, x: F(lib).logsigmoid(x), "LogSigmoidBackward0"),
    ("softsign", lambda lib, x: F(lib).softsign(x), "DivBackward0"),
    ("softshrink", lambda lib, x: F(lib).softshrink(x), "SoftshrinkBackward0"),
    ("softshrink_1", lambda lib, x: F(lib).softshrink(x, 1.0), "SoftshrinkBackward0"),
    ("hardshrink", lambda lib, x: F(lib).hardshrink(x), "HardshrinkBackward0"),
    ("hardshrink_3", lambda lib, x: F(lib).hardshrink(x, 3.0), "HardshrinkBackward0"),
    ("tanhshrink", lambda lib, x: F(lib).tanhshrink(x), "SubBackward0"),
    ("threshold", lambda lib, x: F(lib).threshold(x, 1.0, -2.0), "ThresholdBackward0"),
    ("threshold_at_0", lambda lib, x: F(lib).threshold(x, 0.0, 20.0), "ThresholdBackward0"),
    ("glu", lambda lib, x: F(lib).glu(x), "GluBackward0"),
    ("glu_dim0", lambda lib, x: F(lib).glu(x, 0), "GluBackward0"),
    ("rrelu_eval", lambda lib, x: F(lib).rrelu(x), "RreluWithNoiseBackward0"),
    ("rrelu_eval_bounds", lambda lib, x: F(lib).rrelu(x, 0.2, 0.6), "RreluWithNoiseBackward0"),
    ("sigmoid", lambda lib, x: F(lib).sigmoid(x), "SigmoidBackward0"),
    ("tanh", lambda lib, x: F(lib).tanh(x), "TanhBackward0"),
    ("softmin", lambda lib, x: F(lib).softmin(x, 1), "SoftmaxBackward0"),
    ("softmin_dim0", lambda lib, x: F(lib).softmin(x, 0), "SoftmaxBackward0"),
]
IDS = [case[0] for case in OUT_OF_PLACE]


def named(fn, expected):
    """``fn`` that also checks the output's node name on either library."""
    def checked(lib, *args):
        out = fn(lib, *args)
        assert node_name(out.grad_fn) == expected, (lib.__name__, node_name(out.grad_fn))
        return out
    return checked


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name,fn,node", OUT_OF_PLACE, ids=IDS)
def test_values_gradients_and_double_backward(name, fn, node, dtype):
    check_op(named(fn, node), with_kinks(), dtype=dtype)


@pytest.mark.parametrize("dtype", DTYPES)
def test_hardsigmoid(dtype):
    """torch's hardsigmoid_backward has no derivative: its double backward raises (below)."""
    check_op(named(lambda lib, x: F(lib).hardsigmoid(x), "HardsigmoidBackward0"),
             with_kinks(), dtype=dtype, double=False)
    x = ag.tensor(with_kinks(), requires_grad=True)
    grad, = ag.autograd.grad(F(ag).hardsigmoid(x).sum(), x)
    # 1/6 strictly inside (-3, 3), as torch's float32 constant even in float64
    assert grad.cpu().numpy()[0, :2].tolist() == [0.0, 0.0]
    assert grad.cpu().numpy()[0, 2] == float(np.float32(1 / 6))


@pytest.mark.parametrize("fn", [case[1] for case in OUT_OF_PLACE], ids=IDS)
def test_gradcheck_and_gradgradcheck(fn):
    check_gradcheck(fn, away_from_kinks())


def test_hardsigmoid_gradcheck():
    x = ag.tensor(away_from_kinks(), requires_grad=True)
    assert ag.autograd.gradcheck(F(ag).hardsigmoid, (x,))


@pytest.mark.parametrize("inplace", [False, True])
def test_hardsigmoid_double_backward_is_refused(inplace):
    def run(lib):
        x = lib.tensor(with_kinks(), requires_grad=True)
        grad, = lib.autograd.grad(F(lib).hardsigmoid(x * 1, inplace).sum(), x,
                                  create_graph=True)
        assert grad.requires_grad
        lib.autograd.grad(grad.sum(), x)
    assert_same_error(run, exact=True)


@pytest.mark.parametrize("fn", [
    lambda lib, x: F(lib).hardtanh(x), lambda lib, x: F(lib).relu6(x),
    lambda lib, x: F(lib).softshrink(x), lambda lib, x: F(lib).hardshrink(x),
    lambda lib, x: F(lib).threshold(x, 0.1, 2.0), lambda lib, x: F(lib).rrelu(x),
    lambda lib, x: F(lib).rrelu(x, training=True), lambda lib, x: F(lib).hardtanh_(x * 1),
    lambda lib, x: F(lib).threshold_(x * 1, 0.1, 2.0), lambda lib, x: F(lib).rrelu_(x * 1),
], ids=["hardtanh", "relu6", "softshrink", "hardshrink", "threshold", "rrelu",
        "rrelu_training", "hardtanh_", "threshold_", "rrelu_"])
def test_piecewise_linear_backward_is_an_op(fn):
    """NOTE [The backward of a piecewise-linear activation]: under create_graph the gradient
    requires grad through the input alone, with torch's node, and its derivative for the
    input is zeros."""
    results = []
    for lib in (ag, torch):
        x = lib.tensor(with_kinks(), requires_grad=True)
        grad, = lib.autograd.grad(fn(lib, x).sum(), x, create_graph=True)
        second, = lib.autograd.grad(grad.sum(), x)
        results.append((node_name(grad.grad_fn), grad.requires_grad, to_numpy(second)))
    assert results[0][:2] == results[1][:2]
    assert_close(results[0][2], results[1][2])


def test_the_kinks_pick_torchs_side():
    """Each gradient at its kink points, exactly (the first row of with_kinks)."""
    kinks = np.array([[-3.0, 3.0, -1.0, 1.0, 0.0, 0.5, -0.5, 6.0]] * 2)
    for name, fn, _ in OUT_OF_PLACE:
        grads = []
        for lib in (ag, torch):
            x = lib.tensor(kinks, requires_grad=True)
            grads.append(to_numpy(lib.autograd.grad(fn(lib, x).sum(), x)[0]))
        assert_close(grads[0], grads[1], 1e-12, 1e-12, name)


@pytest.mark.parametrize("name,fn,node", [
    case for case in OUT_OF_PLACE if case[2] not in (
        "DivBackward0", "SubBackward0", "SoftmaxBackward0")
] + [("hardsigmoid", lambda lib, x: F(lib).hardsigmoid(x), "HardsigmoidBackward0")],
    ids=[case[0] for case in OUT_OF_PLACE if case[2] not in (
        "DivBackward0", "SubBackward0", "SoftmaxBackward0")] + ["hardsigmoid"])
def test_forward_ad(name, fn, node):
    check_jvp(fn, with_kinks(seed=3))


def test_composites_record_torchs_graph():
    """softsign, tanhshrink and softmin are torch's compositions: the same nodes below."""
    def structure(lib, fn):
        node = fn(lib.tensor(with_kinks(), requires_grad=True)).grad_fn
        return node_name(node), [node_name(n) for n, _ in node.next_functions]
    for name in ("softsign", "tanhshrink"):
        ours = structure(ag, getattr(F(ag), name))
        assert ours == structure(torch, getattr(F(torch), name))
    assert structure(ag, lambda x: F(ag).softmin(x, 1)) == structure(
        torch, lambda x: F(torch).softmin(x, 1))


# ------------------------------------------------------------------ in place

IN_PLACE = [
    ("elu_", lambda lib, x: F(lib).elu_(x, 0.7), "EluBackward1"),
    ("elu_inplace", lambda lib, x: F(lib).elu(x, inplace=True), "EluBackward1"),
    ("selu_", lambda lib, x: F(lib).selu_(x), "EluBackward1"),
    ("selu_inplace", lambda lib, x: F(lib).selu(x, True), "EluBackward1"),
    ("celu_", lambda lib, x: F(lib).celu_(x, 1.3), "CeluBackward1"),
    ("hardtanh_", lambda lib, x: F(lib).hardtanh_(x, -1.0, 3.0), "HardtanhBackward0"),
    ("relu6_inplace", lambda lib, x: F(lib).relu6(x, inplace=True), "HardtanhBackward0"),
    ("hardswish_inplace", lambda lib, x: F(lib).hardswish(x, True), "HardswishBackward0"),
    ("mish_inplace", lambda lib, x: F(lib).mish(x, inplace=True), "MishBackward0"),
    ("threshold_", lambda lib, x: F(lib).threshold_(x, 0.5, -2.0), "ThresholdBackward1"),
    ("threshold_above", lambda lib, x: F(lib).threshold_(x, 0.5, 2.0), "ThresholdBackward1"),
    ("rrelu_", lambda lib, x: F(lib).rrelu_(x), "RreluWithNoiseBackward1"),
    ("relu_", lambda lib, x: F(lib).relu_(x), "ReluBackward0"),
    ("leaky_relu_", lambda lib, x: F(lib).leaky_relu_(x, 0.2), "LeakyReluBackward1"),
]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name,fn,node", IN_PLACE, ids=[case[0] for case in IN_PLACE])
def test_in_place_forms(name, fn, node, dtype):
    """On a non-leaf: the input itself comes back, overwritten, with torch's node; the
    gradient and the double backward are torch's (threshold_ with a value above the
    threshold shows that its node tests the result)."""
    def run(lib, x):
        y = x * 1
        out = fn(lib, y)
        assert out is y
        assert node_name(out.grad_fn) == node
        return out
    check_op(run, with_kinks(), dtype=dtype)


@pytest.mark.parametrize("name,fn,node", [case for case in IN_PLACE if case[0] not in (
    "rrelu_", "relu_", "leaky_relu_")], ids=[case[0] for case in IN_PLACE if case[0] not in (
        "rrelu_", "relu_", "leaky_relu_")])
def test_in_place_forward_ad(name, fn, node):
    """The input's tangent is written in place with the output's (torch's rrelu_ has no
    forward AD)."""
    check_jvp(lambda lib, x: fn(lib, x * 1), with_kinks(seed=5))


def test_in_place_forward_ad_of_a_dual_leaf():
    """A dual tensor that needs no grad is written in place, its tangent with it: the
    derivative reads a clone of its values as they were."""
    check_jvp(lambda lib, x: F(lib).hardswish(x, inplace=True), with_kinks(seed=6))
    check_jvp(lambda lib, x: F(lib).threshold_(x, 0.5, 2.0), with_kinks(seed=6))


def test_in_place_hardsigmoid():
    check_op(named(lambda lib, x: F(lib).hardsigmoid(x * 1, inplace=True),
                   "HardsigmoidBackward0"), with_kinks(), double=False)


@pytest.mark.parametrize("name,fn,node", IN_PLACE, ids=[case[0] for case in IN_PLACE])
def test_in_place_on_a_leaf_is_refused(name, fn, node):
    assert_same_error(lambda lib: fn(lib, lib.ones(3, requires_grad=True)), RuntimeError,
                      "a leaf Variable that requires grad is being used in an in-place")
    assert_same_error(lambda lib: fn(lib, lib.ones(3, requires_grad=True)[1:]),
                      RuntimeError, "a view of a leaf Variable that requires grad")


@pytest.mark.parametrize("name,fn,node", IN_PLACE, ids=[case[0] for case in IN_PLACE])
def test_in_place_without_grad(name, fn, node):
    values = with_kinks()
    results = []
    for lib in (ag, torch):
        x = lib.tensor(values)
        out = fn(lib, x)
        assert out is x and out.grad_fn is None and not out.requires_grad
        results.append(to_numpy(x))
    assert_close(results[0], results[1])


def test_elu_in_place_with_a_negative_alpha_cannot_be_differentiated():
    def run(lib):
        x = lib.ones(3, requires_grad=True) * -1
        F(lib).elu_(x, -0.5).sum().backward()
    assert_same_error(run, RuntimeError, "In-place elu backward calculation is triggered "
                      "with a negative slope which is not supported")


# ------------------------------------------------------------------ errors and dtypes

@pytest.mark.parametrize("fn", [
    lambda lib: F(lib).glu(lib.tensor(1.0)),
    lambda lib: F(lib).glu(lib.ones(2, 5)),
    lambda lib: F(lib).glu(lib.ones(3, 4), 0),
    lambda lib: F(lib).glu(lib.ones(3, 2), -2),
    lambda lib: F(lib).prelu(lib.ones(2, 3), lib.ones(2)),
    lambda lib: F(lib).prelu(lib.ones(3), lib.ones(3)),
    lambda lib: F(lib).prelu(lib.ones(2, 3), lib.ones(1, 1)),
    lambda lib: F(lib).prelu(lib.tensor(1.0), lib.ones(2)),
    lambda lib: F(lib).prelu(lib.ones(2, 3, dtype=lib.float64), lib.ones(3)),
    lambda lib: F(lib).hardtanh(lib.ones(3), 2.0, 1.0),
    lambda lib: F(lib).softshrink(lib.ones(3), -1.0),
    lambda lib: F(lib).softshrink(lib.ones(3, dtype=lib.float64), -0.5),
    lambda lib: F(lib).celu(lib.ones(3), 0.0),
    lambda lib: F(lib).rrelu(lib.ones(3), 0.5, 0.1),
    lambda lib: F(lib).rrelu(lib.ones(3), 0.5, 0.1, True),
    lambda lib: lib.nn.Softmax2d()(lib.ones(3, 4)),
    lambda lib: lib.nn.Softmax2d()(lib.ones(1, 2, 3, 4, 5)),
    lambda lib: lib.nn.Hardtanh(1.0, 1.0),
])
def test_errors(fn):
    assert_same_error(fn)


@pytest.mark.parametrize("name,kernel", [
    ("elu", "elu"), ("selu", "elu"), ("celu", "elu"), ("hardshrink", "hardshrink"),
    ("hardsigmoid", "hardsigmoid"), ("hardswish", "hardswish"), ("mish", "mish"),
    ("logsigmoid", "log_sigmoid"), ("glu", "glu"), ("rrelu", "leaky_relu"),
])
def test_integer_inputs_are_refused(name, kernel):
    """The kernel's name ends in the device (``elu_cpu``; ``elu_cuda`` on a CUDA tensor)."""
    assert_same_error(lambda lib: getattr(F(lib), name)(lib.arange(4)), NotImplementedError,
                      f"^\"{kernel}_(cpu|cuda)\" not implemented for 'Long'$")


@pytest.mark.parametrize("fn", [
    lambda lib, x: F(lib).hardtanh(x), lambda lib, x: F(lib).hardtanh(x, -2.5, 3.5),
    lambda lib, x: F(lib).relu6(x), lambda lib, x: F(lib).threshold(x, 1, 20),
    lambda lib, x: F(lib).softsign(x), lambda lib, x: F(lib).tanhshrink(x),
    lambda lib, x: F(lib).hardtanh_(x.clone()), lambda lib, x: F(lib).threshold_(x.clone(), 1, 2),
])
def test_integer_inputs_where_torch_takes_them(fn):
    check_op(fn, np.arange(-4, 8))


def test_in_place_on_an_expanded_tensor_is_refused():
    for name in ("elu_", "hardtanh_"):
        assert_same_error(lambda lib: getattr(F(lib), name)(lib.ones(1, 3).expand(2, 3)),
                          RuntimeError, "more than one element of the written-to tensor "
                          "refers to a single memory location")


@pytest.mark.cpu_only
def test_rrelu_training_refuses_float16_on_the_cpu():
    assert_same_error(lambda lib: F(lib).rrelu(lib.ones(3, dtype=lib.float16), training=True))


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("name,fn,node", OUT_OF_PLACE + [
    ("hardsigmoid", lambda lib, x: F(lib).hardsigmoid(x), "HardsigmoidBackward0"),
    ("prelu", lambda lib, x: F(lib).prelu(x, lib.full((8,), 0.25, dtype=x.dtype)), "")],
    ids=IDS + ["hardsigmoid", "prelu"])
def test_reduced_precision(name, fn, node, dtype):
    """float16 and bfloat16 keep their dtype and, computed in float32 and rounded once as
    torch's kernels compute them (NOTE [Activations in reduced precision]), give torch's
    values and gradients bit for bit (mish's float16 gradient within a unit in the last
    place: torch rounds its float32 intermediates differently). The composites and
    sigmoid, tanh, softmin are the library's other ops, whose reduced-precision kernels
    (the CUDA ones too) are not this module's: within a few units in the last place."""
    x = with_kinks()
    results = []
    for lib in (ag, torch):
        t = lib.tensor(x).to(getattr(lib, dtype)).requires_grad_()
        out = fn(lib, t)
        grad, = lib.autograd.grad(out.sum(), t)
        assert out.dtype == t.dtype and grad.dtype == t.dtype
        results.append((to_numpy(out.float()), to_numpy(grad.float())))
    if name in ("softsign", "tanhshrink", "sigmoid", "tanh", "softmin", "softmin_dim0"):
        tolerance = 2e-2 if dtype == "bfloat16" else 4e-3
        assert_close(results[0][0], results[1][0], tolerance, tolerance, "forward")
        assert_close(results[0][1], results[1][1], tolerance, tolerance, "gradient")
        return
    np.testing.assert_array_equal(results[0][0], results[1][0])
    if name == "mish":
        assert_close(results[0][1], results[1][1], 2e-3, 2e-3, "gradient")
    else:
        np.testing.assert_array_equal(results[0][1], results[1][1])


# ------------------------------------------------------------------ prelu

@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape,weight", [
    ((3, 4, 2), [0.25, -0.5, 0.1, 2.0]), ((3, 4), [0.25, -0.5, 0.1, 2.0]),
    ((3, 4), [0.3]), ((5,), [0.3]), ((), [0.3]), ((2, 1, 3), [0.3]),
])
def test_prelu(shape, weight, dtype):
    x = np.random.default_rng(2).standard_normal(shape)
    check_op(named(lambda lib, a, w: F(lib).prelu(a, w), "PreluKernelBackward0"), x,
             np.array(weight), dtype=dtype)
    check_jvp(lambda lib, a, w: F(lib).prelu(a, w), x, np.array(weight))
    check_gradcheck(lambda lib, a, w: F(lib).prelu(a, w), x + 0.05, np.array(weight))


@pytest.mark.parametrize("dtype", DTYPES)
def test_prelu_at_zero(dtype):
    """NOTE [prelu's second derivative at 0]: zeros in the input, double backward too."""
    x = with_kinks((2, 4, 3))
    x[1, :, 0] = 0.0
    check_op(lambda lib, a, w: F(lib).prelu(a, w), x, np.array([0.2, -0.4, 0.3, 1.5]),
             dtype=dtype)
    check_jvp(lambda lib, a, w: F(lib).prelu(a, w), x, np.array([0.2, -0.4, 0.3, 1.5]),
              dtype=dtype)


def test_prelu_double_backward_node():
    names = []
    for lib in (ag, torch):
        x = lib.tensor(with_kinks(), requires_grad=True)
        w = lib.tensor([0.25], dtype=x.dtype, requires_grad=True)
        grad, = lib.autograd.grad(F(lib).prelu(x, w).sum(), x, create_graph=True)
        names.append(node_name(grad.grad_fn))
    assert names == ["PreluKernelBackwardBackward0"] * 2


@pytest.mark.parametrize("shape,weight", [((3, 4), 4), ((3, 4), 1), ((5,), 1), ((), 1)])
def test_prelu_reshapes_the_weight_as_torch(shape, weight):
    """A weight of another rank than the input is viewed to broadcast along dim 1
    (ViewBackward0 in the graph); one of the same rank is used as it is."""
    names = []
    for lib in (ag, torch):
        out = F(lib).prelu(lib.ones(shape, requires_grad=True),
                           lib.ones(weight, requires_grad=True))
        names.append([node_name(n) for n, _ in out.grad_fn.next_functions])
    assert names[0] == names[1]


def test_prelu_module_and_the_tensor_method():
    results = []
    for lib in (ag, torch):
        module = lib.nn.PReLU(3, init=0.1, dtype=lib.float64)
        x = lib.tensor(with_kinks((2, 3, 4)), dtype=lib.float64)
        out = module(x)
        out.pow(2).sum().backward()
        results.append((to_numpy(out), to_numpy(module.weight), to_numpy(module.weight.grad),
                        module.num_parameters, module.init, repr(module),
                        [name for name, _ in module.named_parameters()],
                        to_numpy(x.prelu(lib.tensor([0.5, 1.0, -1.0], dtype=lib.float64))),
                        to_numpy(lib.prelu(x, lib.tensor([0.5], dtype=lib.float64)))))
    ours, theirs = results
    for a, b in zip(ours, theirs):
        if isinstance(a, np.ndarray):
            assert_close(a, b)
        else:
            assert a == b
    assert ag.nn.PReLU().weight.dtype == ag.float32


# ------------------------------------------------------------------ rrelu

@pytest.mark.cpu_only
@pytest.mark.parametrize("dtype", ["float64", "float32", "bfloat16"])
@pytest.mark.parametrize("transpose", [False, True])
def test_rrelu_training_draws_torchs_slopes(dtype, transpose):
    """After the same seed, the same slopes, outputs and gradients, exactly (bfloat16's
    product taken in float32 and rounded once, as torch's), and the generator left in the
    same state."""
    x = with_kinks((5, 9))
    results = []
    for lib in (ag, torch):
        lib.manual_seed(11)
        t = lib.tensor(x).to(getattr(lib, dtype))
        t = (t.t() if transpose else t).requires_grad_()
        out = F(lib).rrelu(t, 0.1, 0.4, training=True)
        assert node_name(out.grad_fn) == "RreluWithNoiseBackward0"
        grad, = lib.autograd.grad(out, t, lib.ones_like(out))
        results.append((to_numpy(out.float()), to_numpy(grad.float()),
                        to_numpy(lib.rand(3))))
    np.testing.assert_array_equal(results[0][0], results[1][0])
    np.testing.assert_array_equal(results[0][1], results[1][1])
    np.testing.assert_array_equal(results[0][2], results[1][2])


@pytest.mark.cpu_only
@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_rrelu_eval_in_reduced_precision_is_exact(dtype):
    x = with_kinks((5, 9))
    results = []
    for lib in (ag, torch):
        t = lib.tensor(x).to(getattr(lib, dtype)).requires_grad_()
        out = F(lib).rrelu(t, 0.1, 0.45)
        grad, = lib.autograd.grad(out, t, lib.ones_like(out))
        results.append((to_numpy(out.float()), to_numpy(grad.float())))
    np.testing.assert_array_equal(results[0][0], results[1][0])
    np.testing.assert_array_equal(results[0][1], results[1][1])


def test_rrelu_training_slopes_lie_in_the_bounds():
    x = ag.tensor(-np.abs(with_kinks((20, 20))) - 0.1)
    slopes = (F(ag).rrelu(x, 0.1, 0.4, training=True) / x).cpu().numpy()
    assert (slopes >= 0.1 - 1e-6).all() and (slopes <= 0.4 + 1e-6).all()
    assert len(np.unique(slopes)) > 100
    ag.manual_seed(4)
    first = F(ag).rrelu(x, training=True).cpu().numpy()
    ag.manual_seed(4)
    np.testing.assert_array_equal(F(ag).rrelu(x, training=True).cpu().numpy(), first)


@pytest.mark.cpu_only
def test_rrelu_module_trains_randomly_and_evaluates_with_the_mean_slope():
    x = with_kinks()
    results = []
    for lib in (ag, torch):
        lib.manual_seed(2)
        module = lib.nn.RReLU(0.1, 0.3)
        t = lib.tensor(x)
        trained = module(t)
        module.eval()
        evaluated = module(t)
        in_place = lib.nn.RReLU(0.1, 0.3, inplace=True).eval()(lib.tensor(x))
        results.append((to_numpy(trained), to_numpy(evaluated), to_numpy(in_place)))
    for a, b in zip(*results):
        assert_close(a, b)
    assert_close(results[0][1], np.where(x > 0, x, x * 0.2))


def test_rrelu_in_place_in_training_follows_its_noise():
    x = with_kinks()
    for lib in (ag, torch):
        t = lib.tensor(x, requires_grad=True)
        y = t * 1
        out = F(lib).rrelu_(y, 0.1, 0.3, training=True)
        assert out is y and node_name(out.grad_fn) == "RreluWithNoiseBackward1"
        nonzero = x != 0
        slopes = to_numpy(out)[nonzero] / x[nonzero]
        grad, = lib.autograd.grad(out.sum(), t)
        # the gradient is the slope each element drew
        assert_close(to_numpy(grad)[nonzero], np.where(x[nonzero] > 0, 1.0, slopes))
        assert ((slopes[x[nonzero] < 0] >= 0.1) & (slopes[x[nonzero] < 0] <= 0.3)).all()


# ------------------------------------------------------------------ modules

MODULES = ["ELU()", "ELU(0.5, inplace=True)", "SELU()", "SELU(True)", "CELU()",
           "CELU(0.5, True)", "Hardtanh()", "Hardtanh(-2, 3, True)", "ReLU6()", "ReLU6(True)",
           "Hardsigmoid()", "Hardsigmoid(True)", "Hardswish()", "Hardswish(inplace=True)",
           "Mish()", "Mish(True)", "LogSigmoid()", "Softsign()", "Softshrink()",
           "Softshrink(1.5)", "Hardshrink()", "Hardshrink(2)", "Tanhshrink()",
           "Threshold(0.1, 20)", "Threshold(1, 2, True)", "GLU()", "GLU(0)", "PReLU()",
           "PReLU(8, 0.1)", "RReLU()", "RReLU(0.1, 0.3, True)", "Softmin(1)", "Softmin()",
           "Softmax2d()"]


@pytest.mark.parametrize("spec", MODULES)
def test_module_repr(spec):
    assert repr(eval("ag.nn." + spec)) == repr(eval("torch.nn." + spec))


@pytest.mark.parametrize("spec", [s for s in MODULES if "RReLU" not in s and s != "Softmin()"])
def test_module_forward(spec):
    """Each module's forward against torch's, with its settings (and in place where the
    module says so: its output is then its input)."""
    def run(lib, x):
        module = eval(f"lib.nn.{spec}").to(lib.float64)
        y = x * 1
        out = module(y)
        assert (out is y) == getattr(module, "inplace", False)
        return out
    x = with_kinks((2, 8, 3, 2)) if "Softmax2d" in spec else with_kinks()
    check_op(run, x, double="Hardsigmoid" not in spec)


def test_implicit_dims_warn_as_torchs():
    x = with_kinks((2, 3, 4))
    ours, theirs = same_warning(lambda lib: F(lib).softmin(lib.tensor(x)), UserWarning,
                                "Implicit dimension choice for softmin")
    assert_close(to_numpy(ours), to_numpy(theirs))
    ours, theirs = same_warning(lambda lib: lib.nn.Softmin()(lib.tensor(x)), UserWarning,
                                "Implicit dimension choice for softmin")
    assert_close(to_numpy(ours), to_numpy(theirs))


def test_softmin_dtype():
    check_op(lambda lib, x: F(lib).softmin(x, 0, dtype=lib.float64), with_kinks(),
             dtype=np.float32)


def test_hardtanh_module_deprecated_names():
    for lib in (ag, torch):
        with pytest.warns(FutureWarning, match="`min_value` is deprecated"):
            module = lib.nn.Hardtanh(min_value=-2.0)
        assert (module.min_val, module.max_val) == (-2.0, 1.0)


# ------------------------------------------------------------------ the torch level

@pytest.mark.parametrize("fn", [
    lambda lib, x: lib.selu(x), lambda lib, x: lib.selu_(x * 1),
    lambda lib, x: lib.celu(x, 0.5), lambda lib, x: lib.celu_(x * 1, 0.5),
    lambda lib, x: lib.threshold(x, 0.1, -1.0), lambda lib, x: lib.threshold_(x * 1, 0.1, 3.0),
    lambda lib, x: lib.hardshrink(x, 1.0), lambda lib, x: x.hardshrink(),
    lambda lib, x: lib.prelu(x, lib.ones(1, dtype=x.dtype, device=x.device) * 0.3),
    lambda lib, x: x.prelu(lib.full((8,), -0.3, dtype=x.dtype, device=x.device)),
    lambda lib, x: lib.rrelu(x), lambda lib, x: lib.rrelu_(x * 1, 0.2, 0.4),
    lambda lib, x: lib.relu_(x * 1),
])
def test_torch_level_names_and_tensor_methods(fn):
    check_op(fn, with_kinks())


def test_the_names_are_exported():
    for name in ("selu", "selu_", "celu", "celu_", "threshold", "threshold_", "hardshrink",
                 "prelu", "rrelu", "rrelu_"):
        assert hasattr(torch, name) and hasattr(ag, name), name
    for name in ag.nn.activations.__all__:
        assert name in ag.nn.functional.__all__ and hasattr(torch.nn.functional, name), name
    for name in ("ELU", "SELU", "CELU", "Hardtanh", "ReLU6", "Hardsigmoid", "Hardswish",
                 "Mish", "LogSigmoid", "Softsign", "Softshrink", "Hardshrink", "Tanhshrink",
                 "Threshold", "GLU", "PReLU", "RReLU", "Softmin", "Softmax2d"):
        assert name in ag.nn.modules.__all__ and hasattr(ag.nn, name), name


# ------------------------------------------------------------------ batched gradients

@pytest.mark.parametrize("create_graph", [False, True])
@pytest.mark.parametrize("fn,arrays", [
    (lambda lib, x: F(lib).elu(x, 0.5), (with_kinks(),)),
    (lambda lib, x: F(lib).mish(x), (with_kinks(),)),
    (lambda lib, x: F(lib).glu(x, 0), (with_kinks(),)),
    (lambda lib, x, w: F(lib).prelu(x, w), (with_kinks(), np.linspace(-0.5, 0.5, 8))),
    (lambda lib, x: F(lib).celu_(x * 1, 0.5), (with_kinks(),)),
    (lambda lib, x: F(lib).mish(x * 1, inplace=True), (with_kinks(),)),
    (lambda lib, x: F(lib).hardtanh_(x * 1), (with_kinks(),)),
    (lambda lib, x: F(lib).softshrink(x), (with_kinks(),)),
], ids=["elu", "mish", "glu", "prelu", "celu_", "mish_inplace", "hardtanh_", "softshrink"])
def test_batched_gradients(fn, arrays, create_graph):
    check_batched_grad(fn, *arrays, create_graph=create_graph)


# ------------------------------------------------------------------ vmap

@pytest.mark.parametrize("fn", [
    lambda lib, x: F(lib).elu(x, 0.5), lambda lib, x: F(lib).selu(x),
    lambda lib, x: F(lib).hardtanh(x, -0.5, 2.0), lambda lib, x: F(lib).hardswish(x),
    lambda lib, x: F(lib).mish(x), lambda lib, x: F(lib).softshrink(x, 0.3),
    lambda lib, x: F(lib).threshold(x, 0.1, 5.0), lambda lib, x: F(lib).softsign(x),
    lambda lib, x: F(lib).glu(x), lambda lib, x: F(lib).glu(x, 0),
    lambda lib, x: F(lib).softmin(x, 1), lambda lib, x: F(lib).softmin(x, -1),
    lambda lib, x: F(lib).elu_(x * 1), lambda lib, x: F(lib).threshold_(x * 1, 0.1, 5.0),
    lambda lib, x: F(lib).prelu(x, lib.tensor([0.1, -0.2, 0.3, 0.4, 0.5, 0.6],
                                              dtype=lib.float64)),
    lambda lib, x: x.hardshrink(0.2),
])
def test_vmap(fn):
    """Per example (4, 6) of a batch of 3: the rules see the logical dims."""
    x = with_kinks((3, 4, 6))
    ours = ag.vmap(lambda t: fn(ag, t))(ag.tensor(x))
    theirs = torch.vmap(lambda t: fn(torch, t))(torch.tensor(x))
    assert_close(to_numpy(ours), to_numpy(theirs))


@pytest.mark.parametrize("fn", [
    lambda lib, x: F(lib).rrelu(x), lambda lib, x: F(lib).rrelu_(x * 1),
])
def test_vmap_refuses_rrelu(fn):
    assert_same_error(lambda lib: lib.vmap(lambda t: fn(lib, t))(lib.ones(3, 4)), RuntimeError,
                      "vmap: we do not yet support aten::rrelu")


@pytest.mark.parametrize("fn", [
    lambda lib, x: F(lib).prelu(x, lib.tensor([0.2, -0.3, 0.5], dtype=x.dtype)),
    lambda lib, x: F(lib).hardtanh(x), lambda lib, x: F(lib).elu(x, 0.5),
    lambda lib, x: F(lib).softshrink(x), lambda lib, x: F(lib).mish(x),
    lambda lib, x: F(lib).threshold_(x * 1, 0.1, 2.0), lambda lib, x: F(lib).glu(x, 0),
], ids=["prelu", "hardtanh", "elu", "softshrink", "mish", "threshold_", "glu"])
def test_forward_over_reverse(fn):
    """func.jvp of func.grad: forward AD through the backward ops."""
    x = with_kinks((4, 3), seed=7)
    v = np.random.default_rng(8).standard_normal((4, 3))
    results = []
    for lib in (ag, torch):
        def loss(t):
            return fn(lib, t).pow(2).sum()
        _, tangent = lib.func.jvp(lib.func.grad(loss), (lib.tensor(x),), (lib.tensor(v),))
        results.append(to_numpy(tangent))
    assert_close(results[0], results[1])


def test_softmax2d_over_the_channels_of_a_3d_input():
    check_op(named(lambda lib, x: lib.nn.Softmax2d()(x), "SoftmaxBackward0"),
             with_kinks((4, 3, 2)))


@pytest.mark.parametrize("fn", [
    lambda lib, x: F(lib).softshrink(x), lambda lib, x: F(lib).hardshrink(x, 0.5),
    lambda lib, x: F(lib).threshold(x, -0.125, 1.25),
    lambda lib, x: F(lib).threshold_(x * 1, 0.5, 1.25),
], ids=["softshrink", "hardshrink", "threshold", "threshold_"])
def test_shrinks_and_threshold_keep_nan(fn):
    """NaN stays NaN, as torch's kernels test ``x <= threshold`` and inside ``[-lambd,
    lambd]`` (fuzz seeds 953000146, 953001821). threshold's
    gradient passes at NaN; the shrinks' is 0 there in the vectorized body of torch's
    backward and the gradient in its scalar tail, so only their values are compared."""
    x = np.array([np.nan, -0.25, 0.25, np.inf, -np.inf, -1.0, 0.5, -0.5, 0.0] * 5)
    if "threshold" in fn.__code__.co_names:
        check_op(fn, x, double=False)
    else:
        ours = fn(ag, ag.tensor(x))
        theirs = fn(torch, torch.tensor(x))
        assert_close(ours, theirs)


@pytest.mark.parametrize("name", ["elu", "celu", "selu", "hardtanh", "relu6", "hardswish",
                                  "hardsigmoid", "mish", "threshold", "rrelu"])
def test_in_place_under_no_grad_returns_the_input(name):
    """Under no_grad an in-place activation writes and returns its input, which keeps
    requires_grad (a leaf, or a view of one), as torch's in-place kernels; it returned a
    detached alias (fuzz seeds 953000509, 953001182, 953001590)."""
    def run(lib):
        leaf = lib.tensor([[0.375, -1.0], [2.0, -0.25]], requires_grad=True)
        args = (0.1, 2.0) if name == "threshold" else ()
        with lib.no_grad():
            out = getattr(F(lib), name)(leaf, *args, inplace=True)
            row = leaf[1]
            out_view = getattr(F(lib), name)(row, *args, inplace=True)
        return [out is leaf, out.requires_grad, out_view is row, out_view.requires_grad,
                leaf._version, to_numpy(leaf.detach())]
    ours, theirs = run(ag), run(torch)
    assert ours[:5] == theirs[:5]
    assert_close(ours[5], theirs[5])


@pytest.mark.parametrize("fn", [
    lambda lib, x: F(lib).relu6(x), lambda lib, x: F(lib).hardtanh(x),
    lambda lib, x: F(lib).hardsigmoid(x), lambda lib, x: F(lib).threshold(x, 0.5, 1.0),
    lambda lib, x: F(lib).softshrink(x), lambda lib, x: F(lib).hardshrink(x),
], ids=["relu6", "hardtanh", "hardsigmoid", "threshold", "softshrink", "hardshrink"])
def test_a_nan_gradient_where_the_slope_is_zero_gives_zero(fn):
    """torch's backward kernels of the piecewise-linear activations select 0 where the
    slope is 0 (``x <= min ? 0 : grad``): a NaN or infinite incoming gradient gives 0
    there, where ``grad * 0`` gave NaN (fuzz seed 963001454)."""
    def run(lib):
        x = lib.tensor([-1.5, 0.25, 7.0, -4.0], requires_grad=True)
        fn(lib, x).backward(lib.tensor([float("nan"), float("inf"), float("nan"), 1.0]))
        return to_numpy(x.grad)
    assert_close(run(ag), run(torch))


@pytest.mark.parametrize("name", ["elu", "selu", "celu", "hardsigmoid", "hardswish", "mish",
                                  "rrelu", "hardtanh", "relu6", "threshold"])
@pytest.mark.parametrize("view", [False, True])
def test_in_place_leaf_checks_come_before_the_dtype(name, view):
    # torch's autograd refuses a (view of a) leaf before the kernel sees the complex dtype
    # (fuzz seed 985004088)
    def run(lib):
        x = lib.ones(2, dtype=lib.complex128, requires_grad=True)
        x = x[:1] if view else x
        args = (0.5, 0.0) if name == "threshold" else ()
        return getattr(lib.nn.functional, name)(x, *args, inplace=True)
    assert_same_error(run, RuntimeError, exact=True)


def test_threshold_of_a_complex_tensor():
    assert_same_error(lambda lib: lib.nn.functional.threshold(
        lib.ones(2, dtype=lib.complex64), 0.5, 0.0), NotImplementedError, exact=True)


def test_glu_checks_the_halving_dim_before_the_dtype():
    # fuzz seed 988004333
    assert_same_error(lambda lib: lib.nn.functional.glu(lib.ones(1, 1, dtype=lib.complex128)),
                      RuntimeError, exact=True)


@pytest.mark.parametrize("weight", ["float32", "complex64 of two"])
def test_prelu_checks_the_weight_before_the_dtype(weight):
    def run(lib):
        w = lib.ones(1) if weight == "float32" else lib.ones(2, dtype=lib.complex64)
        return lib.nn.functional.prelu(lib.ones(2, 3, dtype=lib.complex64), w)
    assert_same_error(run, RuntimeError, exact=True)


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16"])
@pytest.mark.parametrize("n", [1, 20])
def test_hardtanh_gradient_at_nan(dtype, n):
    """NOTE [NaN in hardtanh's backward]: a NaN passes its gradient where torch's kernel
    takes its scalar loop (a 0-d input: fuzz seed 985001127), 0 in its vectorized body."""
    def run(lib):
        x = lib.full((n,), float("nan"), dtype=getattr(lib, dtype), requires_grad=True)
        out = lib.nn.functional.hardtanh(x)
        return lib.autograd.grad(out, x, lib.ones_like(out))[0].tolist()
    ours, theirs = run(ag), run(torch)
    assert ours == theirs


def test_logsigmoid_of_a_transposed_input_is_contiguous():
    """torch's kernel writes a contiguous result whatever the input's strides (not a
    pointwise op's layout), so ``view`` of it works (fuzz seed 986002807)."""
    def run(lib):
        x = lib.tensor([[-0.75, 1.125, 2.5], [-1.375, -0.5, -1.125]]).t()
        out = lib.nn.functional.logsigmoid(x)
        return out.stride(), out.view(6)
    (ours_strides, ours), (theirs_strides, theirs) = run(ag), run(torch)
    assert ours_strides == theirs_strides
    assert_close(ours, theirs)


@pytest.mark.parametrize("dtype", ["float64", "bfloat16"])
def test_softshrink_is_negative_zero_below_zero(dtype):
    """torch's kernel gives ``x * 0`` within ``[-lambd, lambd]``: -0.0 for a negative x, which
    1 / x or rsqrt then turn into -inf (fuzz seeds 985001475, 986001267)."""
    def fn(lib):
        x = lib.tensor([-0.375, 0.25, -0.0, 0.0, -1.0, float("nan")], dtype=getattr(lib, dtype))
        return [repr(v) for v in (1 / F(lib).softshrink(x)).float().tolist()]
    assert_same(fn)


@pytest.mark.cpu_only
@pytest.mark.parametrize("dtype", ["float32", "float64", "bfloat16", "float16"])
@pytest.mark.parametrize("size", [9, 12, 20, 50])
def test_softshrink_zero_of_the_vectorized_body(dtype, size):
    """NOTE [softshrink's zero]: torch's vectorized body gives +0.0 where its scalar tail
    gives -0.0; which elements each takes depends on the vector width of torch's CPU
    capability (fuzz seeds 986001267, 990001432: 12 and 9 float64 elements)."""
    def fn(lib):
        x = lib.full((size,), -0.25, dtype=getattr(lib, dtype))
        return lib.signbit(F(lib).softshrink(x)).tolist()
    assert_same(fn)


@pytest.mark.cpu_only
@pytest.mark.parametrize("dtype", ["float32", "float64", "bfloat16", "float16"])
def test_gelu_of_infinities(dtype):
    """torch's float32 and bfloat16 gelu give NaN at +inf, its float64 and float16 inf; -inf
    is NaN in all (fuzz seed 986002176; NOTE [gelu of +inf])."""
    def fn(lib):
        inf = float("inf")
        x = lib.tensor([inf, -inf, 1.0, -1.0] * 5, dtype=getattr(lib, dtype))
        one = lib.tensor([inf], dtype=x.dtype)      # one element: inf (fuzz seed 985002888)
        return [repr(v) for v in F(lib).gelu(x).float().tolist() + F(lib).gelu(one).float()
                .tolist() + [F(lib).gelu(one[0]).float().item()]]
    assert_same(fn)


def test_rrelu_of_a_transposed_input_is_contiguous():
    """torch's rrelu writes into a contiguous tensor of its own, so view(-1) of it works where
    leaky_relu keeps the input's layout (fuzz seed 991001339)."""
    def run(lib):
        x = lib.tensor([[2.875, 0.375], [-2.375, -2.625]], dtype=lib.float64)
        out = lib.nn.functional.rrelu(x.rot90(-1, (0, 1)))
        return out.stride(), out.view(-1), lib.nn.functional.leaky_relu(x.t()).stride()
    assert_same(run)


@pytest.mark.parametrize("name", ["elu", "selu", "celu"])
@pytest.mark.parametrize("inplace", [False, True])
def test_elu_family_gradient_at_nan_is_the_linear_side(name, inplace):
    """torch's kernel picks the exponential side by x <= 0 (of the result, in place): a NaN
    gets the linear slope (fuzz seed 991004898: the in-place form gave alpha)."""
    def run(lib):
        x = lib.tensor([float("nan"), -1.0, 0.0, 2.0], requires_grad=True)
        kwargs = {} if name == "selu" else {"alpha": 2.0}
        out = getattr(lib.nn.functional, name)(x * 1, inplace=inplace, **kwargs)
        return lib.autograd.grad(out.sum(), x)[0]
    assert_same(run)
