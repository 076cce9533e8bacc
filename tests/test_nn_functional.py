"""autograd_cy.nn.functional against torch.nn.functional: values, gradients, double backward,
errors and warnings; dropout's mask statistics; one MLP training step."""
import warnings

import numpy as np
import pytest
import torch

import autograd_cy as ag
import autograd_cy.nn.functional as F
from oracle import (
    DEVICE, LIBS, assert_close, assert_same_error, check_jvp, check_op, randn, to_numpy,
)

CPU_ONLY = pytest.mark.cpu_only

DTYPES = [np.float32, np.float64]
REDUCTIONS = ["none", "mean", "sum"]


def fn_of(lib):
    return lib.nn.functional


def tensor(lib, value, dtype=None, requires_grad=False):
    """``value`` (NumPy array or nested list) as a tensor of ``lib``."""
    array = np.asarray(value)
    if dtype is not None:
        array = array.astype(dtype)
    return lib.tensor(array, requires_grad=requires_grad)


def probabilities(*shape, seed=0):
    """Values strictly inside (0, 1)."""
    return 1.0 / (1.0 + np.exp(-randn(*shape, seed=seed)))


def class_targets(classes, *shape, seed=0):
    return np.random.default_rng(seed).integers(0, classes, size=shape)


# ------------------------------------------------------------------ activations

@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("inplace", [False, True])
def test_relu(dtype, inplace):
    check_op(lambda lib, x: fn_of(lib).relu(x * 1, inplace=inplace), randn(3, 4), dtype=dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("slope", [0.01, 0.2, -0.5])
def test_leaky_relu(dtype, slope):
    check_op(lambda lib, x: fn_of(lib).leaky_relu(x, slope), randn(3, 4), dtype=dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("slope", [0.01, 0.3])
def test_leaky_relu_inplace(dtype, slope):
    def fn(lib, x):
        out = fn_of(lib).leaky_relu(x * 1, slope, inplace=True)
        assert type(out.grad_fn).__name__ == "LeakyReluBackward1"
        return out
    check_op(fn, randn(3, 4), dtype=dtype)


def test_leaky_relu_inplace_negative_slope_error():
    def fn(lib):
        x = tensor(lib, randn(4), requires_grad=True)
        fn_of(lib).leaky_relu(x * 1, -0.5, inplace=True).sum().backward()
    assert_same_error(fn)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("approximate", ["none", "tanh"])
@pytest.mark.parametrize("double", [True, False])
def test_gelu(dtype, approximate, double):
    check_op(lambda lib, x: fn_of(lib).gelu(x, approximate=approximate),
             randn(4, 5) * 2, dtype=dtype, double=double)


def test_float32_gelu_over_its_whole_range():
    # float32 gelu computes erf in a vectorised loop of ours (NOTE [A float32 erf that
    # vectorises]): torch's values and gradients over a dense grid, the polynomials' seam at
    # |x| / sqrt(2) = 0.921875 and the tails included; nan stays nan. Where 0.5x + 0.5x erf
    # cancels (x near -5.5) a one-unit difference in erf is one unit of 0.5x, up to 1.2e-6:
    # a correctly rounded erf differs from torch's there just as much
    seam = 0.921875 * np.sqrt(2)
    x = np.concatenate([np.linspace(-12, 12, 240001), seam + np.linspace(-1e-5, 1e-5, 201),
                        -seam + np.linspace(-1e-5, 1e-5, 201), [np.nan, 0.0, 1e-30]])
    x = x.astype(np.float32)
    values, grads = {}, {}
    for lib in LIBS:
        leaf = lib.tensor(x, requires_grad=True)
        out = fn_of(lib).gelu(leaf)
        out.backward(lib.ones_like(out))
        values[lib], grads[lib] = to_numpy(out.detach()), to_numpy(leaf.grad)
    for ours, theirs in ((values[ag], values[torch]), (grads[ag], grads[torch])):
        np.testing.assert_array_equal(np.isnan(ours), np.isnan(theirs))
        np.testing.assert_allclose(ours, theirs, rtol=2.4e-7, atol=1.5e-6, equal_nan=True)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("double", [True, False])
def test_silu(dtype, double):
    check_op(lambda lib, x: fn_of(lib).silu(x), randn(4, 5) * 3, dtype=dtype, double=double)


@pytest.mark.parametrize("dtype", DTYPES)
def test_silu_inplace(dtype):
    def fn(lib, x):
        return fn_of(lib).silu(x * 1, inplace=True)
    check_op(fn, randn(3, 4), dtype=dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("beta, threshold", [(1.0, 20.0), (2.0, 1.0), (0.5, 0.5), (-1.0, 20.0)])
@pytest.mark.parametrize("double", [True, False])
def test_softplus(dtype, beta, threshold, double):
    check_op(lambda lib, x: fn_of(lib).softplus(x, beta, threshold), randn(4, 5) * 3,
             dtype=dtype, double=double)


def test_softplus_second_derivative_at_the_threshold():
    # torch's double backward masks with beta x < threshold (strict) while the forward is
    # linear only past it: at beta x == threshold the second derivative is already 0, and
    # a negative product with the mask is -0.0; both as torch, in the backward and in the
    # forward-mode tangent of softplus's backward
    x = np.array([-1.25, 0.5, -1.375, 3.0])
    weights = np.array([1.625, -2.5, 1.25, -1.0])
    results = {}
    for lib in LIBS:
        leaf = lib.tensor(x, requires_grad=True)
        grad, = lib.autograd.grad(fn_of(lib).softplus(leaf, 2.0, 1.0).sum(), [leaf],
                                  create_graph=True)
        second, = lib.autograd.grad(grad, [leaf], lib.tensor(weights))
        results[lib] = to_numpy(second)
    np.testing.assert_array_equal(results[ag], results[torch])
    np.testing.assert_array_equal(np.signbit(results[ag]), np.signbit(results[torch]))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", ["softmax", "log_softmax"])
@pytest.mark.parametrize("shape, dim", [((5,), 0), ((3, 4), 1), ((3, 4), 0), ((2, 3, 4), -1),
                                        ((2, 3, 4), 1), ((), 0), ((), -1)])
def test_softmax(dtype, name, shape, dim):
    check_op(lambda lib, x: getattr(fn_of(lib), name)(x, dim), np.asarray(randn(*shape) * 2),
             dtype=dtype)


@pytest.mark.parametrize("name", ["softmax", "log_softmax"])
def test_softmax_top_level_and_method(name):
    check_op(lambda lib, x: getattr(lib, name)(x, 1) * getattr(x, name)(-1), randn(3, 4))


@pytest.mark.parametrize("name", ["softmax", "log_softmax"])
def test_softmax_dtype_argument(name):
    def fn(lib, x):
        out = getattr(fn_of(lib), name)(x, 1, dtype=lib.float64)
        assert type(out.grad_fn.next_functions[0][0]).__name__ == "ToCopyBackward0"
        return out
    check_op(fn, randn(3, 4), dtype=np.float32)


@pytest.mark.parametrize("name", ["softmax", "log_softmax"])
def test_softmax_implicit_dim_warns(name):
    for shape in [(4,), (3, 4), (2, 3, 4), (2, 3, 4, 5)]:
        x = randn(*shape)
        with pytest.warns(UserWarning, match="Implicit dimension choice for " + name):
            ours = getattr(F, name)(ag.tensor(x))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            theirs = getattr(torch.nn.functional, name)(torch.tensor(x))
        assert_close(ours, theirs)


def test_softmax_extreme_values():
    big = np.array([[1000.0, 0.0, -1000.0], [-np.inf, 0.0, 1.0], [88.0, 89.0, 90.0]])
    for name in ["softmax", "log_softmax"]:
        check_op(lambda lib, x: getattr(fn_of(lib), name)(x, 1), big, requires_grad=[False])
        check_op(lambda lib, x: getattr(fn_of(lib), name)(x, 1), big[[0, 2]])


def test_activations_extreme_values():
    x = np.array([-1000.0, -100.0, -30.0, -1.0, 0.5, 30.0, 100.0, 1000.0])
    for dtype in DTYPES:
        check_op(lambda lib, x: fn_of(lib).silu(x), x, dtype=dtype)
        check_op(lambda lib, x: fn_of(lib).gelu(x), x, dtype=dtype)
        check_op(lambda lib, x: fn_of(lib).gelu(x, approximate="tanh"), x, dtype=dtype)
        check_op(lambda lib, x: fn_of(lib).softplus(x), x, dtype=dtype)


ELEMENTWISE = [("gelu", {}), ("gelu", {"approximate": "tanh"}), ("silu", {}),
               ("softplus", {"beta": 2.0}), ("leaky_relu", {}),
               ("leaky_relu", {"negative_slope": 0.0}), ("leaky_relu", {"negative_slope": 1.5}),
               ("relu", {})]


@pytest.mark.parametrize("name, kwargs", ELEMENTWISE)
def test_activation_layouts(name, kwargs):
    """0-dim, empty and non-contiguous inputs, float16, and inf / nan values."""
    def apply(lib, x):
        return getattr(fn_of(lib), name)(x, **kwargs)
    check_op(apply, np.asarray(1.5), dtype=np.float64)
    check_op(apply, np.asarray(-0.5), dtype=np.float32)
    check_op(apply, np.zeros((0, 3)))
    check_op(lambda lib, x: apply(lib, x.transpose(0, 1)), randn(4, 6))
    check_op(apply, np.array([-np.inf, np.inf, np.nan, 0.0, -0.0]), requires_grad=[False])
    x = randn(3, 5).astype(np.float16)
    assert_close(apply(ag, ag.tensor(x)), apply(torch, torch.tensor(x)), rtol=2e-3, atol=2e-3)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", ["softmax", "log_softmax"])
@pytest.mark.parametrize("rows", [4, 80], ids=["row loops", "numpy"])
def test_softmax_special_values_on_both_paths(dtype, name, rows):
    # Along the last dim float32 runs the vectorised row loops at any size, float64 typed
    # row loops on small arrays and NumPy on large ones (4096 elements is the switch): each
    # must give torch's NaN/inf rows, values and gradients.
    x = randn(rows, 64) * 3
    x[0, 3] = np.nan
    x[1, :] = -np.inf
    x[2, 5] = np.inf
    x[3, :2] = [1e4, -1e4]
    check_op(lambda lib, x: getattr(fn_of(lib), name)(x, -1), x, dtype=dtype,
             requires_grad=[False])
    check_op(lambda lib, x: getattr(fn_of(lib), name)(x, 1), x[3:], dtype=dtype)


@pytest.mark.parametrize("name", ["softmax", "log_softmax"])
def test_softmax_layouts(name):
    def apply(lib, x, dim=1):
        return getattr(fn_of(lib), name)(x, dim)
    check_op(apply, np.zeros((0, 3)))
    check_op(apply, np.zeros((2, 0)))
    check_op(lambda lib, x: apply(lib, x.transpose(0, 1), 0), randn(4, 6))
    x = randn(3, 5).astype(np.float16)
    assert_close(apply(ag, ag.tensor(x)), apply(torch, torch.tensor(x)), rtol=2e-3, atol=2e-3)


@pytest.mark.parametrize("name, kwargs", [
    ("gelu", {}), ("gelu", {"approximate": "tanh"}), ("silu", {}), ("softplus", {"beta": 2.0}),
    ("softmax", {"dim": 1}), ("log_softmax", {"dim": 1}), ("leaky_relu", {})])
def test_third_order(name, kwargs):
    """Every backward is itself differentiable: compare d^3 with torch."""
    x = randn(3, 4)
    results = []
    for lib in LIBS:
        t = lib.tensor(x, requires_grad=True)
        out = getattr(fn_of(lib), name)(t, **kwargs)
        weights = lib.tensor(randn(3, 4, seed=1))
        (g,) = lib.autograd.grad((out * weights).sum(), t, create_graph=True)
        (gg,) = lib.autograd.grad((g * g).sum(), t, create_graph=True)
        if gg.requires_grad:
            (ggg,) = lib.autograd.grad((gg * weights).sum(), t)
        else:
            ggg = None
        results.append((g, gg, ggg))
    assert_close(results[0], results[1], rtol=1e-7, atol=1e-9)


@pytest.mark.parametrize("name, node, double_node", [
    ("gelu", "GeluBackward0", "GeluBackwardBackward0"),
    ("softplus", "SoftplusBackward0", "SoftplusBackwardBackward0"),
    ("leaky_relu", "LeakyReluBackward0", "LeakyReluBackwardBackward0"),
    ("silu", "SiluBackward0", None)])
def test_node_names(name, node, double_node):
    for lib in LIBS:
        x = lib.tensor(randn(3), requires_grad=True)
        out = getattr(fn_of(lib), name)(x)
        assert type(out.grad_fn).__name__ == node
        (g,) = lib.autograd.grad(out.sum(), x, create_graph=True)
        if double_node:
            assert type(g.grad_fn).__name__ == double_node


def test_softmax_node_names():
    for lib in LIBS:
        x = lib.tensor(randn(3, 4), requires_grad=True)
        for name, node, double_node in [
                ("softmax", "SoftmaxBackward0", "SoftmaxBackwardDataBackward0"),
                ("log_softmax", "LogSoftmaxBackward0", "LogSoftmaxBackwardDataBackward0")]:
            out = getattr(fn_of(lib), name)(x, 1)
            assert type(out.grad_fn).__name__ == node
            assert out.grad_fn._saved_result.shape == out.shape
            (g,) = lib.autograd.grad((out * out).sum(), x, create_graph=True)
            assert type(g.grad_fn).__name__ == double_node



def masked_scores(rows, cols, dtype=np.float64):
    """Scores with some elements and whole rows at -inf, as attention masks them."""
    x = randn(rows, cols) * 3
    x[0, :] = -np.inf
    x[1, ::2] = -np.inf
    x[rows - 1, :] = -np.inf
    return x.astype(dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("rows", [4, 80], ids=["small", "large"])
def test_safe_softmax_gives_zero_rows_where_softmax_gives_nan(dtype, rows):
    x = masked_scores(rows, 64)
    check_op(lambda lib, x: lib._safe_softmax(x, -1), x, dtype=dtype)
    check_op(lambda lib, x: lib._safe_softmax(x, 0), x[:, :5], dtype=dtype)
    check_op(lambda lib, x: lib._safe_softmax(x.transpose(0, 1), -1), x[:6], dtype=dtype)
    x[2, 7] = np.nan
    x[3, 9] = np.inf
    check_op(lambda lib, x: lib._safe_softmax(x, -1), x, dtype=dtype, requires_grad=[False])


def test_safe_softmax_layouts_dtypes_and_graph():
    check_op(lambda lib, x: lib._safe_softmax(x, 0), np.asarray(-np.inf), requires_grad=[False])
    check_op(lambda lib, x: lib._safe_softmax(x, 0), np.asarray(1.5))
    check_op(lambda lib, x: lib._safe_softmax(x, 1), np.zeros((2, 0)))
    x = masked_scores(3, 5).astype(np.float16)
    assert_close(ag._safe_softmax(ag.tensor(x), -1), torch._safe_softmax(torch.tensor(x), -1),
                 rtol=2e-3, atol=2e-3)
    for lib in LIBS:
        leaf = lib.tensor(masked_scores(3, 4), requires_grad=True)
        out = lib._safe_softmax(leaf, -1, dtype=lib.float32)
        assert out.dtype == lib.float32
        # the kernel converts: no ToCopyBackward0 between the node and the leaf
        assert type(out.grad_fn).__name__ == "SafeSoftmaxBackward0"
        assert "AccumulateGrad" in type(out.grad_fn.next_functions[0][0]).__name__
        (g,) = lib.autograd.grad((out * out).sum(), leaf, create_graph=True)
        assert g.dtype == lib.float64
        assert type(g.grad_fn).__name__ == "ToCopyBackward0"
    assert_same_error(lambda lib: lib._safe_softmax(lib.tensor([1, 2]), -1),
                      NotImplementedError, "not implemented for 'Long'")


def test_safe_softmax_forward_ad_and_double_backward():
    x = masked_scores(3, 4)
    check_jvp(lambda lib, x: lib._safe_softmax(x, -1), x[1:2])
    results = []
    for lib in LIBS:
        leaf = lib.tensor(x[1:], requires_grad=True)
        out = lib._safe_softmax(leaf, -1)
        (g,) = lib.autograd.grad((out * lib.tensor(randn(2, 4, seed=3))).sum(), leaf,
                                 create_graph=True)
        (gg,) = lib.autograd.grad((g * g).sum(), leaf)
        results.append((out, g, gg))
    assert_close(results[0], results[1])

def test_saved_attributes_match_torch():
    for lib in LIBS:
        x = lib.tensor(randn(3, 4), requires_grad=True)
        f = fn_of(lib)
        assert f.gelu(x, approximate="tanh").grad_fn._saved_approximate == "tanh"
        node = f.softplus(x, 2, 10).grad_fn
        assert (node._saved_beta, node._saved_threshold) == (2, 10)
        assert f.leaky_relu(x, 0.2).grad_fn._saved_negative_slope == 0.2
        node = f.nll_loss(x, lib.tensor([0, 1, 2]), ignore_index=3, reduction="sum").grad_fn
        assert (node._saved_ignore_index, node._saved_reduction) == (3, 2)


@pytest.mark.parametrize("name", ["softmax", "log_softmax"])
def test_saved_result_is_version_checked(name):
    def run(lib):
        x = lib.tensor(randn(3, 4), requires_grad=True)
        out = getattr(fn_of(lib), name)(x, 1)
        out.mul_(2)
        out.sum().backward()
    assert_same_error(run, RuntimeError, "modified by an inplace operation")


@pytest.mark.parametrize("make", [
    lambda f, x: f.softmax(x, 1), lambda f, x: f.log_softmax(x, 1), lambda f, x: f.gelu(x),
    lambda f, x: f.silu(x), lambda f, x: f.softplus(x), lambda f, x: f.leaky_relu(x),
    lambda f, x: f.mse_loss(x, x.detach() + 1),
    lambda f, x: f.nll_loss(x, ag.tensor([0, 1, 2])),
    lambda f, x: f.binary_cross_entropy(x * 0 + 0.5, x.detach() * 0 + 0.5),
    lambda f, x: f.binary_cross_entropy_with_logits(x, x.detach() * 0 + 0.5)])
def test_backward_frees_saved_tensors(make):
    x = ag.tensor(randn(3, 4), requires_grad=True)
    out = make(F, x).sum()
    out.backward(retain_graph=False)
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        out.backward()


@pytest.mark.parametrize("name, args, kernel", [
    ("softmax", (1,), "softmax_lastdim_kernel_impl"), ("softmax", (0,), "softmax_kernel_impl"),
    ("log_softmax", (1,), "log_softmax_lastdim_kernel_impl"), ("gelu", (), "GeluKernelImpl"),
    ("silu", (), "silu_cpu"), ("softplus", (), "softplus_cpu"),
    ("leaky_relu", (), "leaky_relu_cpu")])
def test_integer_inputs_refused(name, args, kernel):
    assert_same_error(lambda lib: getattr(fn_of(lib), name)(lib.ones(2, 3, dtype=lib.int64),
                                                            *args))


def test_activation_argument_errors():
    assert_same_error(lambda lib: fn_of(lib).gelu(lib.ones(3), approximate="sigmoid"))
    assert_same_error(lambda lib: fn_of(lib).softmax(lib.ones(3, 4), 2))
    assert_same_error(lambda lib: fn_of(lib).log_softmax(lib.ones(3, 4), -3))
    assert_same_error(lambda lib: fn_of(lib).gelu(lib.ones(3), "tanh"), TypeError)


# ------------------------------------------------------------------ dropout

def test_dropout_mask_and_scale():
    p = 0.3
    x = ag.tensor(randn(200, 500) + 5.0, requires_grad=True)
    ag.manual_seed(7)
    out = F.dropout(x, p)
    # torch multiplies by a mask on the CPU and fuses the two on CUDA
    assert type(out.grad_fn).__name__ == ("MulBackward0" if DEVICE == "cpu"
                                          else "NativeDropoutBackward0")
    values, inputs = to_numpy(out.detach()), to_numpy(x.detach())
    kept = values != 0
    np.testing.assert_allclose(values[kept], inputs[kept] / (1 - p), rtol=1e-6)
    assert abs((~kept).mean() - p) < 0.01          # 100000 draws: 0.01 is > 6 sigma
    out.sum().backward()
    np.testing.assert_allclose(to_numpy(x.grad), kept / np.float32(1 - p), rtol=1e-6)


def test_dropout_reproducible_with_manual_seed():
    x = ag.tensor(randn(50, 40))
    ag.manual_seed(123)
    first = to_numpy(F.dropout(x, 0.5))
    second = to_numpy(F.dropout(x, 0.5))
    ag.manual_seed(123)
    again = to_numpy(F.dropout(x, 0.5))
    np.testing.assert_array_equal(first, again)
    assert not np.array_equal(first, second)


@pytest.mark.parametrize("dtype", DTYPES)
def test_dropout_keeps_dtype(dtype):
    ag.manual_seed(0)
    x = randn(10, 10).astype(dtype)
    out = to_numpy(F.dropout(ag.tensor(x), 0.25))
    assert out.dtype == dtype
    kept = out != 0
    np.testing.assert_allclose(out[kept], x[kept] / dtype(0.75), rtol=1e-6)


def test_dropout_edge_cases():
    for lib in LIBS:
        x = lib.tensor(randn(4, 5), requires_grad=True)
        f = fn_of(lib)
        assert f.dropout(x, 0.0) is x
        assert f.dropout(x, 0.7, training=False) is x
        zeroed = f.dropout(x, 1.0)
        assert not to_numpy(zeroed.detach()).any()
        zeroed.sum().backward()
        assert not to_numpy(x.grad).any()


def test_dropout_inplace():
    for lib in LIBS:
        x = lib.tensor(randn(30, 30) + 5.0, requires_grad=True)
        y = x * 1
        out = fn_of(lib).dropout(y, 0.5, inplace=True)
        assert out is y and y._version == 1
        out.sum().backward()
        kept = to_numpy(y.detach()) != 0
        np.testing.assert_allclose(to_numpy(x.grad), kept * 2.0)


@pytest.mark.parametrize("p", [-0.1, 1.5])
def test_dropout_probability_error(p):
    assert_same_error(lambda lib: fn_of(lib).dropout(lib.ones(3), p))


def test_dropout_integer_input_error():
    assert_same_error(lambda lib: fn_of(lib).dropout(lib.ones(3, dtype=lib.int64), 0.5))


# ------------------------------------------------------------------ linear

@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("input_shape", [(4, 3), (2, 5, 3), (2, 2, 2, 3), (3,)])
@pytest.mark.parametrize("bias", [True, False])
def test_linear(dtype, input_shape, bias):
    arrays = [randn(*input_shape), randn(6, 3, seed=1)] + ([randn(6, seed=2)] if bias else [])
    check_op(lambda lib, *args: fn_of(lib).linear(*args), *arrays, dtype=dtype)


def test_linear_vector_weight_and_matrix_bias():
    check_op(lambda lib, x, w: fn_of(lib).linear(x, w), randn(4, 3), randn(3, seed=1))
    check_op(lambda lib, x, w, b: fn_of(lib).linear(x, w, b), randn(4, 3), randn(5, 3, seed=1),
             randn(4, 5, seed=2))


@pytest.mark.parametrize("shapes", [
    ((4, 3), (5, 4), None), ((2, 3, 4), (5, 3), None), ((3,), (5, 4), None),
    ((3, 4), (5, 4), (3,)), ((2, 3, 4), (5, 4), (3,)), ((), (5, 4), None),
    ((3, 4), (2, 5, 4), None)])
def test_linear_shape_errors(shapes):
    input_shape, weight_shape, bias_shape = shapes

    def fn(lib):
        bias = None if bias_shape is None else lib.ones(bias_shape)
        return fn_of(lib).linear(lib.ones(input_shape), lib.ones(weight_shape), bias)
    assert_same_error(fn)


def test_linear_dtype_errors():
    assert_same_error(lambda lib: fn_of(lib).linear(
        lib.ones(3, 4), lib.ones(5, 4, dtype=lib.float64)))
    assert_same_error(lambda lib: fn_of(lib).linear(
        lib.ones(3, 4), lib.ones(5, 4), lib.ones(5, dtype=lib.float64)))
    assert_same_error(lambda lib: fn_of(lib).linear(
        lib.ones(2, 3, 4, dtype=lib.float64), lib.ones(5, 4, dtype=lib.float64),
        lib.ones(5)))


def test_linear_of_a_non_contiguous_batch_promotes_the_bias():
    # torch's third path (matmul, then add_ in place) takes a float32 bias of a float64
    # product, where its two addmm paths refuse it (found by fuzzing fresh seeds)
    check_op(lambda lib, x, w, b: fn_of(lib).linear(x.transpose(0, 1), w, b.float()),
             randn(3, 2, 4), randn(5, 4, seed=1), randn(5, seed=2), dtype=np.float64,
             requires_grad=[True, True, False])


# ------------------------------------------------------------------ mse / l1

@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("name", ["mse_loss", "l1_loss"])
def test_pointwise_losses(dtype, reduction, name):
    # |x|'' is torch's ZeroTensor, which the oracle cannot read: l1 stops at first order.
    check_op(lambda lib, x, t: getattr(fn_of(lib), name)(x, t, reduction=reduction),
             randn(3, 4), randn(3, 4, seed=1), dtype=dtype, double=name == "mse_loss")


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("name", ["mse_loss", "l1_loss"])
def test_pointwise_losses_weighted(reduction, name):
    check_op(lambda lib, x, t, w: getattr(fn_of(lib), name)(x, t, reduction=reduction,
                                                               weight=w),
             randn(3, 4), randn(3, 4, seed=1), np.abs(randn(3, 4, seed=2)),
             requires_grad=[True, True, False], double=name == "mse_loss")


@pytest.mark.parametrize("name", ["mse_loss", "l1_loss"])
def test_pointwise_losses_broadcast_warns(name):
    with pytest.warns(UserWarning, match="Using a target size .* different to the input size"):
        check_op(lambda lib, x, t: getattr(fn_of(lib), name)(x, t), randn(3, 4), randn(4),
                 double=name == "mse_loss")


def test_mse_loss_promotes_and_legacy_flags():
    check_op(lambda lib, x, t: fn_of(lib).mse_loss(x, t.double()), randn(3, 4),
             randn(3, 4, seed=1), dtype=np.float32)
    with pytest.warns(UserWarning, match="reduction='sum' instead"):
        check_op(lambda lib, x, t: fn_of(lib).mse_loss(x, t, size_average=False), randn(3, 4),
                 randn(3, 4, seed=1))
    with pytest.warns(UserWarning, match="reduction='none' instead"):
        check_op(lambda lib, x, t: fn_of(lib).l1_loss(x, t, reduce=False), randn(3, 4),
                 randn(3, 4, seed=1), double=False)


def test_pointwise_loss_errors():
    assert_same_error(lambda lib: fn_of(lib).mse_loss(lib.ones(3), lib.ones(3), reduction="x"))
    assert_same_error(lambda lib: fn_of(lib).l1_loss(lib.ones(3), lib.ones(3), reduction="x"))
    assert_same_error(lambda lib: fn_of(lib).mse_loss(lib.ones(3, 4), lib.ones(3, 4),
                                                      weight=lib.ones(4)))
    assert_same_error(lambda lib: fn_of(lib).mse_loss(lib.ones(3, 4), lib.ones(3, 4),
                                                      weight=lib.ones(3, 4), reduction="x"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert_same_error(lambda lib: fn_of(lib).mse_loss(lib.ones(3, 4), lib.ones(5)))
    assert_same_error(lambda lib: fn_of(lib).mse_loss(lib.ones(3, dtype=lib.int64),
                                                      lib.ones(3, dtype=lib.int64)))


# ------------------------------------------------------------------ nll_loss

NLL_CASES = [  # input shape, target shape
    ((5, 4), (5,)), ((4,), ()), ((3, 4, 5), (3, 5)), ((2, 3, 4, 2), (2, 4, 2)),
    ((2, 3, 2, 2, 2), (2, 2, 2, 2))]


def nll_target(input_shape, target_shape, ignore_some, seed=0):
    classes = input_shape[0] if len(input_shape) == 1 else input_shape[1]
    target = np.asarray(class_targets(classes, *target_shape, seed=seed))
    if ignore_some and target.ndim:
        target.flat[::3] = -100
    return target


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shapes", NLL_CASES)
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("weighted", [False, True])
def test_nll_loss(dtype, shapes, reduction, weighted):
    input_shape, target_shape = shapes
    target = nll_target(input_shape, target_shape, ignore_some=True)
    classes = input_shape[0] if len(input_shape) == 1 else input_shape[1]
    arrays = [randn(*input_shape), target] + ([np.abs(randn(classes, seed=3)) + 0.1]
                                              if weighted else [])
    check_op(lambda lib, x, t, *w: fn_of(lib).nll_loss(x, t, *w, reduction=reduction),
             *arrays, dtype=dtype, requires_grad=[True, False, False][:len(arrays)])


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_nll_loss_ignore_index(reduction):
    target = np.array([0, 2, 3, 3, 1])
    check_op(lambda lib, x, t: fn_of(lib).nll_loss(x, t, ignore_index=3, reduction=reduction),
             randn(5, 4), target)
    # Everything ignored: 'mean' is 0/0 = nan, the gradient stays zero.
    check_op(lambda lib, x, t: fn_of(lib).nll_loss(x, t, reduction=reduction),
             randn(3, 4), np.full(3, -100))
    # An ignored target may be any value, even out of range, and -inf inputs stay out.
    x = randn(3, 4)
    x[0, 0] = -np.inf
    check_op(lambda lib, x, t: fn_of(lib).nll_loss(x, t, ignore_index=0, reduction=reduction),
             x, np.array([0, 1, 2]), requires_grad=[False, False])


@pytest.mark.cpu_only       # torch's CUDA kernel writes -w x for an unbatched loss: -0.0
@pytest.mark.parametrize("reduction", ["none", "sum", "mean"])
def test_unbatched_loss_of_zero_is_positive_zero(reduction):
    # torch's CPU kernel accumulates an unbatched nll_loss from 0 (0 - w x), so a zero
    # log-probability gives +0.0, not -0.0 (1 / loss is then inf, not -inf); cross_entropy
    # of one class too
    results = {}
    for lib in LIBS:
        functional = fn_of(lib)
        results[lib] = [to_numpy(functional.nll_loss(lib.tensor([0.0, 1.0]), lib.tensor(0),
                                                     reduction=reduction)),
                        to_numpy(functional.cross_entropy(lib.tensor([-0.375]), lib.tensor(0),
                                                          reduction=reduction))]
    for ours, theirs in zip(results[ag], results[torch]):
        np.testing.assert_array_equal(ours, theirs)
        np.testing.assert_array_equal(np.signbit(ours), np.signbit(theirs))


def test_nll_loss_node_names():
    for lib in LIBS:
        x = lib.tensor(randn(2, 3, 4), requires_grad=True)
        t = lib.tensor(class_targets(3, 2, 4))
        assert type(fn_of(lib).nll_loss(x, t).grad_fn).__name__ == "NllLoss2DBackward0"
        x = lib.tensor(randn(2, 3), requires_grad=True)
        out = fn_of(lib).nll_loss(x, lib.tensor([0, 2]))
        assert type(out.grad_fn).__name__ == "NllLossBackward0"
        (g,) = lib.autograd.grad(out, x, create_graph=True)
        assert type(g.grad_fn).__name__ == "NllLossBackwardBackward0"
        (gg,) = lib.autograd.grad(g.sum(), x)       # linear in x: zeros, not an error
        assert not to_numpy(gg).any()


@pytest.mark.parametrize("case", [
    ("float target", (3, 4), np.zeros(3, np.float32), None),
    ("int32 target", (3, 4), np.zeros(3, np.int32), None),
    ("batch mismatch", (3, 4), np.zeros(2, np.int64), None),
    ("2-D target", (3, 4), np.zeros((1, 3), np.int64), None),
    ("2-D target same batch", (3, 4), np.zeros((3, 2), np.int64), None),
    ("0-d target", (3, 4), np.int64(1), None),
    ("1-D input, long target", (4,), np.zeros(2, np.int64), None),
    ("1-D input, 2-D target", (4,), np.zeros((1, 1), np.int64), None),
    ("0-d input", (), np.int64(0), None),
    ("3-D target mismatch", (2, 3, 5), np.zeros((2, 4), np.int64), None),
    ("3-D target rank", (2, 3, 5), np.zeros(2, np.int64), None),
    ("4-D target rank", (2, 3, 5, 2), np.zeros((2, 5), np.int64), None),
    ("4-D target mismatch", (2, 3, 5, 2), np.zeros((2, 5, 3), np.int64), None),
    ("4-D float target", (2, 3, 5, 2), np.zeros((2, 5, 2), np.float32), None),
    # on CUDA a bad class index is a device-side assert, reported at the next host read
    # (tests/cuda/test_loss_kernels.py): torch's immediate error is the CPU's
    pytest.param(("out of bounds", (3, 4), np.array([0, 1, 4]), None), marks=CPU_ONLY),
    pytest.param(("negative", (3, 4), np.array([0, -1, 2]), None), marks=CPU_ONLY),
    pytest.param(("3-D out of bounds", (2, 3, 5), np.full((2, 5), 3), None), marks=CPU_ONLY),
    ("weight shape", (3, 4), np.zeros(3, np.int64), np.ones(3, np.float32)),
    ("weight rank", (3, 4), np.zeros(3, np.int64), np.ones((2, 2), np.float32)),
    ("weight dtype", (3, 4), np.zeros(3, np.int64), np.ones(4, np.float64)),
    ("weight shape before dtype", (3, 2), np.zeros(3, np.int64), np.ones(4, np.float64)),
    ("float target before weight", (3, 4), np.zeros(3, np.float32), np.ones(3, np.float32)),
], ids=lambda case: case[0])
def test_nll_loss_errors(case):
    _, input_shape, target, weight = case

    def fn(lib):
        w = None if weight is None else lib.tensor(weight)
        return fn_of(lib).nll_loss(lib.ones(input_shape), lib.tensor(target), w)
    assert_same_error(fn)


def test_nll_loss_integer_input_and_weight_grad_errors():
    assert_same_error(lambda lib: fn_of(lib).nll_loss(lib.ones(3, 4, dtype=lib.int64),
                                                      lib.tensor([0, 1, 2])))
    assert_same_error(lambda lib: fn_of(lib).nll_loss(
        lib.ones(3, 4), lib.tensor([0, 1, 2]), weight=lib.ones(4, requires_grad=True)))
    with ag.no_grad():      # only recorded ops refuse a weight that requires grad
        F.nll_loss(ag.ones(3, 4), ag.tensor([0, 1, 2]), weight=ag.ones(4, requires_grad=True))


# ------------------------------------------------------------------ cross_entropy

CE_CASES = [((6, 4), (6,)), ((4,), ()), ((3, 4, 5), (3, 5)), ((2, 3, 2, 2), (2, 2, 2))]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shapes", CE_CASES)
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("label_smoothing", [0.0, 0.15])
def test_cross_entropy_class_indices(dtype, shapes, reduction, weighted, label_smoothing):
    input_shape, target_shape = shapes
    target = nll_target(input_shape, target_shape, ignore_some=True, seed=1)
    classes = input_shape[0] if len(input_shape) == 1 else input_shape[1]
    arrays = [randn(*input_shape), target] + ([np.abs(randn(classes, seed=3)) + 0.1]
                                              if weighted else [])
    check_op(lambda lib, x, t, *w: fn_of(lib).cross_entropy(
                 x, t, *w, reduction=reduction, label_smoothing=label_smoothing),
             *arrays, dtype=dtype, requires_grad=[True, False, False][:len(arrays)])


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("label_smoothing", [0.0, 0.3, 1.0])
def test_cross_entropy_ignore_index(reduction, label_smoothing):
    target = np.array([0, 2, 3, 3, 1])
    for weight in [None, np.array([0.5, 1.0, 2.0, 3.0])]:
        arrays = [randn(5, 4), target] + ([] if weight is None else [weight])
        check_op(lambda lib, x, t, *w: fn_of(lib).cross_entropy(
                     x, t, *w, ignore_index=3, reduction=reduction,
                     label_smoothing=label_smoothing),
                 *arrays, requires_grad=[True, False, False][:len(arrays)])
    check_op(lambda lib, x, t: fn_of(lib).cross_entropy(x, t, reduction=reduction,
                                                        label_smoothing=label_smoothing),
             randn(3, 4), np.full(3, -100))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(5, 4), (4,), (3, 4, 5), (2, 3, 2, 2)])
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("label_smoothing", [0.0, 0.2])
def test_cross_entropy_probabilities(dtype, shape, reduction, weighted, label_smoothing):
    class_dim = 0 if len(shape) == 1 else 1
    logits = randn(*shape, seed=5)
    target = np.exp(logits) / np.exp(logits).sum(axis=class_dim, keepdims=True)
    classes = shape[class_dim]
    arrays = [randn(*shape), target] + ([np.abs(randn(classes, seed=3)) + 0.1]
                                        if weighted else [])
    check_op(lambda lib, x, t, *w: fn_of(lib).cross_entropy(
                 x, t, *w, reduction=reduction, label_smoothing=label_smoothing),
             *arrays, dtype=dtype, requires_grad=[True, True, False][:len(arrays)])


def test_cross_entropy_edge_cases():
    probs = probabilities(2, 3, seed=1)
    # Probability targets accept a negative label_smoothing (PyTorch checks only > 1).
    check_op(lambda lib, x, t: fn_of(lib).cross_entropy(x, t, label_smoothing=-0.1),
             randn(2, 3), probs)
    check_op(lambda lib, x, t: fn_of(lib).cross_entropy(x, t, ignore_index=-5),
             randn(2, 3), probs)
    for reduction in REDUCTIONS:
        check_op(lambda lib, x, t: fn_of(lib).cross_entropy(x, t, reduction=reduction),
                 np.zeros((0, 3)), np.zeros(0, np.int64))
        check_op(lambda lib, x, t: fn_of(lib).cross_entropy(x, t, reduction=reduction),
                 np.zeros((0, 3)), np.zeros((0, 3)), requires_grad=[True, False])
        # PyTorch's backward refuses this target (size mismatch); its forward is compared.
        check_op(lambda lib, x, t: fn_of(lib).nll_loss(x, t, reduction=reduction),
                 randn(3), np.array([1]), requires_grad=[False, False])


@pytest.mark.parametrize("name", ["mse_loss", "l1_loss", "binary_cross_entropy",
                                  "binary_cross_entropy_with_logits"])
def test_losses_of_scalars(name):
    for reduction in REDUCTIONS:
        check_op(lambda lib, x, t: getattr(fn_of(lib), name)(x, t, reduction=reduction),
                 np.asarray(0.3), np.asarray(0.6), double=name != "l1_loss")


def test_cross_entropy_node_names():
    for lib in LIBS:
        x = lib.tensor(randn(3, 4), requires_grad=True)
        out = fn_of(lib).cross_entropy(x, lib.tensor([0, 1, 2]))
        assert type(out.grad_fn).__name__ == "NllLossBackward0"
        assert type(out.grad_fn.next_functions[0][0]).__name__ == "LogSoftmaxBackward0"


def test_cross_entropy_legacy_flags():
    with pytest.warns(UserWarning, match="reduction='none' instead"):
        check_op(lambda lib, x, t: fn_of(lib).cross_entropy(x, t, reduce=False), randn(3, 4),
                 np.array([0, 1, 2]))


@pytest.mark.parametrize("case", [
    ("probabilities with long target", (3, 4), np.zeros((3, 4), np.int64), {}),
    ("probabilities with ignore_index", (3, 4), np.zeros((3, 4), np.float32),
     {"ignore_index": 1}),
    ("label smoothing above 1", (3, 4), np.zeros(3, np.int64), {"label_smoothing": 1.5}),
    ("probabilities, label smoothing above 1", (3, 4), np.zeros((3, 4), np.float32),
     {"label_smoothing": 1.5}),
    ("probabilities, weight shape", (3, 4), np.zeros((3, 4), np.float32),
     {"weight": np.ones(3, np.float32)}),
    ("float class indices", (3, 4), np.zeros(3, np.float32), {}),
    ("batch mismatch", (3, 4), np.zeros(2, np.int64), {}),
    ("wrong probability shape", (3, 4), np.zeros((3, 5), np.float32), {}),
    ("0-d input", (), np.int64(0), {}),
    ("smoothing, weight dtype", (3, 4), np.zeros(3, np.int64),
     {"weight": np.ones(4), "label_smoothing": 0.1}),
    ("bad reduction", (3, 4), np.zeros(3, np.int64), {"reduction": "avg"}),
], ids=lambda case: case[0])
def test_cross_entropy_errors(case):
    _, input_shape, target, kwargs = case

    def fn(lib):
        options = dict(kwargs)
        if "weight" in options:
            options["weight"] = lib.tensor(options["weight"])
        return fn_of(lib).cross_entropy(lib.ones(input_shape), lib.tensor(target), **options)
    assert_same_error(fn)


def test_cross_entropy_integer_input():
    assert_same_error(lambda lib: fn_of(lib).cross_entropy(lib.ones(3, 4, dtype=lib.int64),
                                                           lib.tensor([0, 1, 2])))


# ------------------------------------------------------------------ binary cross entropy

@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("weight_shape", [None, (3, 4), (4,)])
def test_binary_cross_entropy(dtype, reduction, weight_shape):
    arrays = [probabilities(3, 4), probabilities(3, 4, seed=1)]
    if weight_shape:
        arrays.append(np.abs(randn(*weight_shape, seed=2)))
    check_op(lambda lib, x, t, *w: fn_of(lib).binary_cross_entropy(x, t, *w,
                                                                   reduction=reduction),
             *arrays, dtype=dtype, requires_grad=[True, True, False][:len(arrays)])


def test_binary_cross_entropy_clamps_log():
    x = np.array([0.0, 1.0, 0.0, 1.0, 0.5])
    t = np.array([1.0, 0.0, 0.0, 1.0, 0.3])
    for dtype in DTYPES:
        check_op(lambda lib, x, t: fn_of(lib).binary_cross_entropy(x, t, reduction="none"),
                 x, t, dtype=dtype, requires_grad=[False, False])
        check_op(lambda lib, x, t: fn_of(lib).binary_cross_entropy(x, t, reduction="sum"),
                 x, t, dtype=dtype, requires_grad=[True, False], double=False)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("weight_shape", [None, (3, 4), (4,)])
@pytest.mark.parametrize("pos_weight_shape", [None, (4,), (3, 4)])
def test_binary_cross_entropy_with_logits(dtype, reduction, weight_shape, pos_weight_shape):
    arrays = [randn(3, 4) * 3, probabilities(3, 4, seed=1)]
    names = []
    if weight_shape:
        arrays.append(np.abs(randn(*weight_shape, seed=2)))
        names.append("weight")
    if pos_weight_shape:
        arrays.append(np.abs(randn(*pos_weight_shape, seed=4)) + 0.5)
        names.append("pos_weight")

    def fn(lib, x, t, *extra):
        return fn_of(lib).binary_cross_entropy_with_logits(x, t, reduction=reduction,
                                                           **dict(zip(names, extra)))
    check_op(fn, *arrays, dtype=dtype, requires_grad=[True, True, False, False][:len(arrays)])


def test_binary_cross_entropy_with_logits_is_stable():
    x = np.array([-1000.0, -100.0, -20.0, 0.0, 20.0, 100.0, 1000.0])
    t = np.array([1.0, 0.0, 0.3, 0.5, 1.0, 1.0, 0.0])
    for dtype in DTYPES:
        check_op(lambda lib, x, t: fn_of(lib).binary_cross_entropy_with_logits(
            x, t, reduction="none"), x, t, dtype=dtype)
        check_op(lambda lib, x, t, p: fn_of(lib).binary_cross_entropy_with_logits(
            x, t, pos_weight=p), x, t, np.full(7, 3.0), dtype=dtype,
            requires_grad=[True, True, False])


def test_binary_cross_entropy_with_logits_promotes_target():
    check_op(lambda lib, x, t: fn_of(lib).binary_cross_entropy_with_logits(x, t.double()),
             randn(3, 4), probabilities(3, 4, seed=1), dtype=np.float32)


def test_binary_cross_entropy_node_names():
    for lib in LIBS:
        x = lib.tensor(probabilities(3), requires_grad=True)
        t = lib.tensor(probabilities(3, seed=1))
        f = fn_of(lib)
        assert type(f.binary_cross_entropy(x, t).grad_fn).__name__ == \
            "BinaryCrossEntropyBackward0"
        assert type(f.binary_cross_entropy_with_logits(x, t).grad_fn).__name__ == \
            "BinaryCrossEntropyWithLogitsBackward0"
        assert type(f.mse_loss(x, t).grad_fn).__name__ == "MseLossBackward0"


@pytest.mark.parametrize("case", [
    ("shape", lambda lib: fn_of(lib).binary_cross_entropy(lib.ones(3, 4) / 2, lib.ones(3, 1))),
    ("target dtype", lambda lib: fn_of(lib).binary_cross_entropy(
        lib.ones(3) / 2, lib.ones(3, dtype=lib.float64))),
    ("integer target", lambda lib: fn_of(lib).binary_cross_entropy(
        lib.ones(3) / 2, lib.ones(3, dtype=lib.int64))),
    ("integer input", lambda lib: fn_of(lib).binary_cross_entropy(
        lib.ones(3, dtype=lib.int64), lib.ones(3, dtype=lib.int64))),
    # torch's CUDA kernel flags an input out of range as a device-side assert and does not
    # check the target: the immediate errors are the CPU's
    pytest.param(("input range", lambda lib: fn_of(lib).binary_cross_entropy(
        lib.ones(3) * 2, lib.ones(3))), marks=CPU_ONLY),
    pytest.param(("target range", lambda lib: fn_of(lib).binary_cross_entropy(
        lib.ones(3) / 2, lib.ones(3) * 2)), marks=CPU_ONLY),
    ("weight broadcast", lambda lib: fn_of(lib).binary_cross_entropy(
        lib.ones(3, 4) / 2, lib.ones(3, 4) / 2, weight=lib.ones(3))),
    ("weight requires grad", lambda lib: fn_of(lib).binary_cross_entropy(
        lib.ones(3) / 2, lib.ones(3) / 2, weight=lib.ones(3, requires_grad=True))),
    ("bad reduction", lambda lib: fn_of(lib).binary_cross_entropy(
        lib.ones(3) / 2, lib.ones(3) / 2, reduction="mea")),
    ("logits shape", lambda lib: fn_of(lib).binary_cross_entropy_with_logits(
        lib.ones(3, 4), lib.ones(3, 1))),
    ("logits integer target", lambda lib: fn_of(lib).binary_cross_entropy_with_logits(
        lib.ones(3), lib.ones(3, dtype=lib.int64))),
    ("logits weight shape", lambda lib: fn_of(lib).binary_cross_entropy_with_logits(
        lib.ones(3, 4), lib.ones(3, 4), weight=lib.ones(3))),
    ("logits weight broadcast", lambda lib: fn_of(lib).binary_cross_entropy_with_logits(
        lib.ones(3, 4), lib.ones(3, 4), weight=lib.ones(2, 3, 4))),
    ("logits pos_weight shape", lambda lib: fn_of(lib).binary_cross_entropy_with_logits(
        lib.ones(3, 4), lib.ones(3, 4), pos_weight=lib.ones(3))),
    ("logits weight requires grad", lambda lib: fn_of(lib).binary_cross_entropy_with_logits(
        lib.ones(3), lib.ones(3), weight=lib.ones(3, requires_grad=True))),
    ("logits pos_weight requires grad",
     lambda lib: fn_of(lib).binary_cross_entropy_with_logits(
         lib.ones(3), lib.ones(3), pos_weight=lib.ones(3, requires_grad=True))),
], ids=lambda case: case[0])
def test_binary_cross_entropy_errors(case):
    assert_same_error(case[1])


# ------------------------------------------------------------------ a training step

@pytest.mark.parametrize("dtype", DTYPES)
def test_mlp_training_step(dtype):
    """Two SGD steps of linear -> relu -> linear -> cross_entropy, identical to torch."""
    rng = np.random.default_rng(0)
    x = rng.standard_normal((16, 5)).astype(dtype)
    target = rng.integers(0, 3, size=16)
    init = [rng.standard_normal(shape).astype(dtype) * 0.5
            for shape in [(8, 5), (8,), (3, 8), (3,)]]
    tolerance = {np.float32: (1e-4, 1e-5), np.float64: (1e-10, 1e-12)}[dtype]

    def train(lib):
        params = [lib.tensor(p.copy(), requires_grad=True) for p in init]
        w1, b1, w2, b2 = params
        losses, grads = [], []
        for _ in range(2):
            hidden = fn_of(lib).relu(fn_of(lib).linear(lib.tensor(x), w1, b1))
            loss = fn_of(lib).cross_entropy(fn_of(lib).linear(hidden, w2, b2),
                                            lib.tensor(target))
            loss.backward()
            losses.append(loss.detach())
            grads.append([p.grad.clone() for p in params])
            with lib.no_grad():
                for p in params:
                    p.sub_(p.grad * 0.1)
                    p.grad = None
        return losses, grads, [p.detach() for p in params]

    ours, theirs = train(ag), train(torch)
    assert_close(ours, theirs, *tolerance, what="mlp")


LINEAR_GRAPHS = [
    # (input shape, weight shape, bias shape or None, input contiguous)
    ((3,), (5, 3), None, True), ((3,), (5, 3), (5,), True), ((3,), (5, 3), (), True),
    ((2, 3), (5, 3), None, True), ((2, 3), (5, 3), (2, 5), False), ((2, 3), (3,), None, True),
    ((4, 2, 3), (5, 3), None, True), ((4, 2, 3), (5, 3), (5,), True),
    ((4, 2, 3), (5, 3), (5,), False), ((4, 2, 3), (5, 3), (), True),
    ((4, 2, 3), (5, 3), (2, 5), True), ((2, 2, 2, 3), (5, 3), (1,), True),
    ((2, 0, 3), (5, 3), None, True), ((2, 0, 3), (5, 3), (5,), True), ((4, 2, 3), (3,), (), False),
]


@pytest.mark.parametrize("input_shape, weight_shape, bias_shape, contiguous", LINEAR_GRAPHS)
def test_linear_records_the_graph_torch_records(input_shape, weight_shape, bias_shape,
                                                contiguous):
    """addmm for a matrix with a bias; a contiguous input with a 1-D bias folded into addmm
    and viewed back; otherwise matmul, then the bias added in place."""
    def run(lib):
        shape = input_shape if contiguous else input_shape[::-1]
        leaf = lib.ones(shape, requires_grad=True)
        x = leaf if contiguous else leaf.permute(*reversed(range(len(shape))))
        w = lib.ones(weight_shape, requires_grad=True)
        b = lib.ones(bias_shape, requires_grad=True) if bias_shape is not None else None
        y = lib.nn.functional.linear(x * 1, w, b)
        y.sum().backward()
        return (tuple(y.shape), type(y.grad_fn).__name__, y._is_view(),
                to_numpy(leaf.grad).sum(), to_numpy(w.grad).sum())
    ours, theirs = run(ag), run(torch)
    assert ours == theirs


@pytest.mark.parametrize("input_shape, weight_shape, bias_shape, contiguous", [
    ((3,), (5, 3), (4,), True), ((2, 3), (3,), (5,), True), ((4, 2, 3), (5, 3), (4,), False),
    ((4, 2, 3), (3,), (2, 5), True), ((3,), (5, 3), (2, 5), True)])
def test_linear_errors_come_from_the_path_torch_takes(input_shape, weight_shape, bias_shape,
                                                      contiguous):
    def run(lib):
        shape = input_shape if contiguous else input_shape[::-1]
        x = lib.ones(shape)
        if not contiguous:
            x = x.permute(*reversed(range(len(shape))))
        lib.nn.functional.linear(x, lib.ones(weight_shape), lib.ones(bias_shape))
    assert_same_error(run, RuntimeError, exact=True)


def test_cross_entropy_with_probabilities_negates_after_the_sum():
    """A loss of zero is -0.0 in PyTorch (the sum is negated), which 1/loss shows."""
    def run(lib):
        x = lib.tensor([0.6875], dtype=lib.float64)
        return [1 / lib.nn.functional.cross_entropy(x, x.clone(), reduction=r)
                for r in ("mean", "sum", "none")]
    ours, theirs = run(ag), run(torch)
    assert [t.tolist() for t in ours] == [t.tolist() for t in theirs]
