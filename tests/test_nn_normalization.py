"""F.layer_norm, F.batch_norm and F.group_norm against torch.nn.functional: values,
gradients, double backward, forward AD, the nodes' names, the running statistics of
training, eval mode, float16/bfloat16 computed in float32, and torch's errors."""
import functools

import numpy as np
import pytest
import torch

import autograd_cy as ag
from oracle import LIBS, assert_close, assert_same, assert_same_error, check_op, check_jvp, randn

DTYPES = [np.float32, np.float64]


def fn_of(lib):
    return lib.nn.functional


# ------------------------------------------------------------------ layer_norm

LAYER_NORM_CASES = [
    # input shape, normalized_shape, weight, bias
    ((3, 4), (4,), True, True),
    ((2, 3, 4), (3, 4), True, True),
    ((2, 3, 4), (4,), False, False),
    ((5, 2), (2,), True, False),
    ((4,), [4], True, False),
    ((3, 4), (4,), False, True),
]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape, normalized, affine_weight, affine_bias", LAYER_NORM_CASES)
def test_layer_norm(dtype, shape, normalized, affine_weight, affine_bias):
    param_shape = tuple(normalized)
    weight = randn(*param_shape, seed=1) if affine_weight else None
    bias = randn(*param_shape, seed=2) if affine_bias else None

    def fn(lib, x, w, b):
        out = fn_of(lib).layer_norm(x, normalized, w, b, eps=1e-3)
        assert out.grad_fn.name() == "NativeLayerNormBackward0"
        return out
    # torch 2.13's double backward fails given a bias without a weight ("Expected a proper
    # Tensor but got None"); ours is checked there by gradgradcheck below.
    double = affine_weight or not affine_bias
    check_op(fn, randn(*shape), weight, bias, dtype=dtype, double=double)


def test_layer_norm_node_edges():
    """One node with edges straight to the input, weight and bias (no views between)."""
    def edges(lib):
        x, w, b = (lib.ones(2, 3, requires_grad=True) for _ in range(3))
        node = fn_of(lib).layer_norm(x[0:1] * 2, (3,), w[0], b[1]).grad_fn
        return [type(n).__name__ for n, _ in node.next_functions]
    assert edges(ag) == edges(torch)


def test_layer_norm_gradcheck():
    inputs = [ag.tensor(randn(2, 3, 4, seed=s), requires_grad=True) for s in (0, 1, 2)]

    def fn(x, w, b):
        return fn_of(ag).layer_norm(x, (3, 4), w[0], b[0])

    def bias_only(x, w, b):
        return fn_of(ag).layer_norm(x, (4,), None, b[0, 1])
    for f in (fn, bias_only):
        assert ag.autograd.gradcheck(f, inputs, check_forward_ad=True)
        assert ag.autograd.gradgradcheck(f, inputs)


def test_layer_norm_forward_ad():
    check_jvp(lambda lib, x, w, b: fn_of(lib).layer_norm(x, (3, 2), w, b),
              randn(2, 3, 2), randn(3, 2, seed=1), randn(3, 2, seed=2))


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_layer_norm_reduced_precision_computes_in_float32(dtype):
    """Normalized in float32, rounded once: torch's CPU result to the last bit."""
    def fn(lib):
        x = lib.tensor(randn(4, 16) * 3 + 1).to(getattr(lib, dtype)).requires_grad_()
        w = lib.tensor(randn(16, seed=1)).to(getattr(lib, dtype)).requires_grad_()
        out = fn_of(lib).layer_norm(x, (16,), w, None)
        out.backward(lib.tensor(randn(4, 16, seed=2)).to(getattr(lib, dtype)))
        return [t.float().tolist() for t in (out, x.grad, w.grad)] + [str(out.dtype)]
    ours, theirs = fn(ag), fn(torch)
    assert ours[3].split(".")[-1] == theirs[3].split(".")[-1]
    np.testing.assert_array_equal(np.array(ours[0]), np.array(theirs[0]))
    for a, b in zip(ours[1:3], theirs[1:3]):
        np.testing.assert_allclose(np.array(a), np.array(b), rtol=2e-2, atol=2e-2)


@pytest.mark.parametrize("call, words", [
    (lambda F, x: F.layer_norm(x, (4,)), r"^Given normalized_shape=\[4\], expected input"),
    (lambda F, x: F.layer_norm(x, (2, 3, 5)), r"but got input of size\[3, 5\]"),
    (lambda F, x: F.layer_norm(x, ()), "at least 1-dimensional"),
    (lambda F, x: F.layer_norm(x, (5,), x.new_ones(4)), "Expected weight to be of same shape"),
    (lambda F, x: F.layer_norm(x, (5,), None, x.new_ones(4)), "Expected bias to be of same"),
    (lambda F, x: F.layer_norm(x.long(), (5,)), "LayerNormKernelImpl"),
    (lambda F, x: F.layer_norm(x, 5), "must be tuple of ints, not int"),
])
def test_layer_norm_errors(call, words):
    assert_same_error(lambda lib: call(fn_of(lib), lib.ones(3, 5)), words)


# ------------------------------------------------------------------ batch_norm

@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(5, 3), (2, 3, 4), (2, 3, 2, 3)])
def test_batch_norm_training(dtype, shape):
    def fn(lib, x, w, b):
        out = fn_of(lib).batch_norm(x, None, None, w, b, training=True, eps=1e-3)
        assert out.grad_fn.name() == "NativeBatchNormBackward0"
        return out
    check_op(fn, randn(*shape), randn(3, seed=1), randn(3, seed=2), dtype=dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(5, 3), (2, 3, 4)])
def test_batch_norm_eval_uses_running_stats(dtype, shape):
    def fn(lib, x, w, b, mean, var):
        out = fn_of(lib).batch_norm(x, mean, var, w, b, training=False)
        assert out.grad_fn.name() == "NativeBatchNormBackward0"
        return out
    check_op(fn, randn(*shape), randn(3, seed=1), randn(3, seed=2), randn(3, seed=3),
             randn(3, seed=4, positive=True), requires_grad=[True, True, True, False, False],
             dtype=dtype)


def test_batch_norm_without_affine():
    check_op(lambda lib, x: fn_of(lib).batch_norm(x, None, None, training=True),
             randn(4, 2, 3))


@pytest.mark.parametrize("momentum", [0.1, 0.5])
def test_batch_norm_running_stats_after_training_steps(momentum):
    """Each training call moves the running mean towards the batch mean and the running
    variance towards the batch's unbiased variance, in place (without a version bump, as
    torch's kernel); eval then normalizes by them."""
    def run(lib):
        mean = lib.zeros(3, dtype=lib.float64)
        var = lib.ones(3, dtype=lib.float64)
        versions = mean._version
        for step in range(4):
            x = lib.tensor(randn(4, 3, 2, seed=step) * (step + 1) + step)
            fn_of(lib).batch_norm(x, mean, var, training=True, momentum=momentum)
        evaluated = fn_of(lib).batch_norm(lib.tensor(randn(2, 3, 2, seed=9)), mean, var)
        return mean, var, evaluated, mean._version - versions
    ours, theirs = run(ag), run(torch)
    assert_close(ours[:3], theirs[:3], 1e-12, 1e-12, "running stats")
    assert ours[3] == theirs[3]


def test_batch_norm_half_input_with_float_statistics():
    """A float16 input may come with float32 parameters and statistics (computed in float32,
    the running statistics kept in float32)."""
    def run(lib):
        mean, var, weight = lib.zeros(3), lib.ones(3), lib.tensor(randn(3, seed=1)).float()
        x = lib.tensor(randn(4, 3) * 2 + 1).half()
        out = fn_of(lib).batch_norm(x, mean, var, weight, training=True)
        return out.float(), mean, var, str(out.dtype).split(".")[-1]
    ours, theirs = run(ag), run(torch)
    assert_close(ours[:3], theirs[:3], 1e-3, 1e-3)
    assert ours[3] == theirs[3] == "float16"


@pytest.mark.cpu_only      # a GPU's kernel keeps the statistics in float
@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("form", ["batch_norm", "instance_norm"])
def test_half_batch_norm_normalizes_with_its_statistics_rounded_as_torch(dtype, form):
    """NOTE [Saved statistics in the parameters' dtype]: without float32 parameters the
    saved mean and 1 / std are of the input's dtype, and the output is computed from them:
    the same values to the bit (before, an element landed up to 5 ulps away)."""
    values = (np.random.default_rng(3).uniform(-3, 3, (2, 3, 7)) * 8).round() / 8

    def run(lib):
        x = lib.tensor(values, dtype=getattr(lib, dtype))
        out = (fn_of(lib).batch_norm(x, None, None, training=True) if form == "batch_norm"
               else fn_of(lib).instance_norm(x))
        return out.float().numpy()
    np.testing.assert_array_equal(run(ag), run(torch))


def test_batch_norm_gradcheck():
    inputs = [ag.tensor(randn(3, 2, 2, seed=s), requires_grad=True) for s in (0, 1, 2)]

    def fn(x, w, b):
        return fn_of(ag).batch_norm(x, None, None, w[0, 0], b[1, 1], training=True)

    def eval_fn(x, w, b):
        stats = ag.tensor(randn(2, seed=5)), ag.tensor(randn(2, seed=6, positive=True))
        return fn_of(ag).batch_norm(x, *stats, w[0, 0], b[1, 1], training=False)
    for f in (fn, eval_fn):
        assert ag.autograd.gradcheck(f, inputs, check_forward_ad=True)
        assert ag.autograd.gradgradcheck(f, inputs)


def test_batch_norm_forward_ad():
    check_jvp(lambda lib, x, w, b: fn_of(lib).batch_norm(x, None, None, w, b, training=True),
              randn(4, 2, 3), randn(2, seed=1), randn(2, seed=2))


@pytest.mark.parametrize("call, words", [
    (lambda F, lib: F.batch_norm(lib.ones(1, 3), None, None, training=True),
     r"^Expected more than 1 value per channel when training, got input size"),
    (lambda F, lib: F.batch_norm(lib.ones(1, 3, 1), None, None, training=True),
     "more than 1 value per channel"),
    (lambda F, lib: F.batch_norm(lib.ones(2, 3), lib.zeros(4), lib.ones(3), training=True),
     "^running_mean should contain 3 elements not 4$"),
    (lambda F, lib: F.batch_norm(lib.ones(2, 3), lib.zeros(3), lib.ones(4)),
     "^running_var should contain 3 elements not 4$"),
    (lambda F, lib: F.batch_norm(lib.ones(2, 3), None, None),
     "^running_mean must be defined in evaluation mode$"),
    (lambda F, lib: F.batch_norm(lib.ones(2, 3), lib.zeros(3), lib.ones(3), lib.ones(4)),
     "^weight should contain 3 elements not 4$"),
    (lambda F, lib: F.batch_norm(lib.ones(2, 3).double(), lib.zeros(3), lib.ones(3)),
     "^mixed dtype \\(CPU\\): all inputs must share same datatype"),
    (lambda F, lib: F.batch_norm(lib.ones(2, 3).half(), lib.zeros(3).double(), lib.ones(3)),
     "expect parameter to have scalar type of Float"),
    (lambda F, lib: F.batch_norm(lib.ones(2, 3), None, None, training=True, eps=0.0),
     "^batch_norm eps must be positive during training, but got 0.0$"),
    (lambda F, lib: F.batch_norm(lib.ones(2, 3), lib.zeros(3), lib.ones(3), eps=-1.0),
     "^batch_norm eps must be non-negative, but got -1.0$"),
])
def test_batch_norm_errors(call, words):
    assert_same_error(lambda lib: call(fn_of(lib), lib), words)


def test_batch_norm_error_names_the_size():
    ours, theirs = assert_same_error(
        lambda lib: fn_of(lib).batch_norm(lib.ones(1, 2), None, None, training=True),
        "more than 1 value")
    assert ours.endswith("Size([1, 2])") and theirs.endswith("Size([1, 2])")


# ------------------------------------------------------------------ group_norm

@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape, groups, affine", [
    ((2, 4, 3), 2, True), ((3, 6), 3, True), ((2, 4, 2, 2), 1, False), ((2, 4, 3), 4, True),
])
def test_group_norm(dtype, shape, groups, affine):
    weight = randn(shape[1], seed=1) if affine else None
    bias = randn(shape[1], seed=2) if affine else None

    def fn(lib, x, w, b):
        out = fn_of(lib).group_norm(x, groups, w, b, eps=1e-3)
        assert out.grad_fn.name() == "NativeGroupNormBackward0"
        return out
    check_op(fn, randn(*shape), weight, bias, dtype=dtype)


def test_group_norm_gradcheck():
    inputs = [ag.tensor(randn(2, 4, 3, seed=s), requires_grad=True) for s in (0, 1, 2)]

    def fn(x, w, b):
        return fn_of(ag).group_norm(x, 2, w[0, :, 0], b[1, :, 1])
    assert ag.autograd.gradcheck(fn, inputs, check_forward_ad=True)
    assert ag.autograd.gradgradcheck(fn, inputs)


@pytest.mark.parametrize("call, words", [
    (lambda F, lib: F.group_norm(lib.ones(3), 1),
     "^Expected at least 2 dimensions for input tensor but received 1$"),
    (lambda F, lib: F.group_norm(lib.ones(2, 3, 4), 2),
     r"^Expected number of channels in input to be divisible by num_groups, but got input of "
     r"shape \[2, 3, 4\] and num_groups=2$"),
    (lambda F, lib: F.group_norm(lib.ones(2, 4, 4), 2, lib.ones(3)),
     r"^Expected weight to be a vector of size equal to the number of channels in input, but "
     r"got weight of shape \[3\] and input of shape \[2, 4, 4\]$"),
    (lambda F, lib: F.group_norm(lib.ones(1, 4), 4),
     r"^Expected more than 1 value per channel when training, got input size \[1, 4\]$"),
])
def test_group_norm_errors(call, words):
    assert_same_error(lambda lib: call(fn_of(lib), lib), words)


def test_no_grad_gives_no_node():
    for lib in LIBS:
        with lib.no_grad():
            x = lib.ones(2, 3, requires_grad=True)
            assert fn_of(lib).layer_norm(x, (3,)).grad_fn is None
            assert fn_of(lib).batch_norm(x, None, None, training=True).grad_fn is None


@pytest.mark.cpu_only          # the row loops are the CPU's
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("affine", ["both", "weight", "bias", "none"])
def test_layer_norm_row_loops_agree_with_torch(monkeypatch, dtype, affine):
    """NOTE [Layer norm in rows]: the forward and the input gradient by the row loops (the
    path a CPU float matrix takes without create_graph), against torch."""
    import autograd_cy.nn.normalization as normalization
    taken = []
    for name in ("_rows_forward", "_rows_input_gradient"):
        original = getattr(normalization, name)

        def spy(*args, _original=original, _name=name):
            result = _original(*args)
            taken.append(_name if result is not None else None)
            return result
        monkeypatch.setattr(normalization, name, spy)
    rng = np.random.default_rng(5)
    x, grad = rng.standard_normal((2, 7, 19)) * 3 + 1, rng.standard_normal((2, 7, 19))
    params = rng.standard_normal((2, 19))
    results = []
    for lib in (ag, torch):
        leaf = lib.tensor(x.astype(dtype), requires_grad=True)
        weight = lib.tensor(params[0].astype(dtype), requires_grad=True) \
            if affine in ("both", "weight") else None
        bias = lib.tensor(params[1].astype(dtype), requires_grad=True) \
            if affine in ("both", "bias") else None
        out = lib.nn.functional.layer_norm(leaf, (19,), weight, bias, eps=1e-3)
        out.backward(lib.tensor(grad.astype(dtype)))
        results.append([out, leaf.grad] + [p.grad for p in (weight, bias) if p is not None])
    assert taken == ["_rows_forward", "_rows_input_gradient"]
    tolerance = {"rtol": 1e-5, "atol": 1e-5} if dtype == np.float32 else {}
    for ours, theirs in zip(*results):
        assert_close(ours, theirs, **tolerance)


# ------------------------------------------------------------------ in place on the output

IN_PLACE_CASES = {
    "layer_norm": lambda lib, x: fn_of(lib).layer_norm(x, (2, 3)),
    "layer_norm_last": lambda lib, x: fn_of(lib).layer_norm(x, (3,)),
    "group_norm": lambda lib, x: fn_of(lib).group_norm(x, 1),
    "batch_norm": lambda lib, x: fn_of(lib).batch_norm(x, None, None, training=True),
    "instance_norm": lambda lib, x: fn_of(lib).instance_norm(x),
    "layer_norm_affine": lambda lib, x: fn_of(lib).layer_norm(
        x, (3,), lib.ones(3, dtype=x.dtype), lib.zeros(3, dtype=x.dtype)),
}


@pytest.mark.parametrize("name", IN_PLACE_CASES)
@pytest.mark.parametrize("dtype", DTYPES)
def test_the_output_is_a_new_tensor(name, dtype):
    """The output can be written in place and the gradient stays right: it was a view of
    the 2-D (grouped) form (refused as a custom Function's view, fuzz seed 953000017) or,
    without weight and bias, the very ``xhat`` the backward keeps (a wrong gradient)."""
    def fn(lib, x, w):
        y = IN_PLACE_CASES[name](lib, x)
        y.mul_(2)
        return y * w
    check_op(fn, randn(2, 2, 3), randn(2, 2, 3, seed=1), dtype=dtype, double=False)


@pytest.mark.cpu_only
@pytest.mark.parametrize("dtypes", [("float32", None, "float64"), ("float32", "float64", None),
                                    ("float64", "float32", "float32"),
                                    ("float32", "float16", None),
                                    ("float32", "float32", "float64"),
                                    ("bfloat16", "bfloat16", "float32"),
                                    ("bfloat16", "float32", "float32")])
def test_layer_norm_parameter_dtypes(dtypes):
    """torch's CPU rule: float16/bfloat16 input may take float32 parameters, otherwise the
    parameters share the input's dtype, refused with torch's words (fuzz seed 954004571)."""
    def fn(lib):
        x = lib.ones(2, 3, dtype=getattr(lib, dtypes[0]))
        weight, bias = (None if d is None else lib.ones(3, dtype=getattr(lib, d))
                        for d in dtypes[1:])
        return fn_of(lib).layer_norm(x, (3,), weight=weight, bias=bias)
    if dtypes == ("bfloat16", "float32", "float32"):
        ours, theirs = fn(ag), fn(torch)
        assert str(ours.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1]
    else:
        assert_same_error(fn, exact=True)


# ------------------------------------------------------------------ dtypes on the CPU

def _dtype_call(op, lib, dtype, first, second):
    # NOTE [Mixed dtypes of a normalization on the CPU]; a parameter dtype of "x" is the input's
    def param(name):
        return None if name is None else lib.ones(4, dtype=getattr(lib, dtype if name == "x"
                                                                   else name))
    x, F = lib.ones(2, 4, dtype=getattr(lib, dtype)), fn_of(lib)
    if op == "group_norm":
        return F.group_norm(x, 2, param(first), param(second))
    if op == "layer_norm":
        return F.layer_norm(x, (4,), param(first), param(second))
    if op == "batch_norm (weight, bias)":
        return F.batch_norm(x, None, None, param(first), param(second), training=True)
    return F.batch_norm(x, param(first), param(second))        # the running statistics


@pytest.mark.parametrize("op", ["group_norm", "layer_norm", "batch_norm (weight, bias)",
                                "batch_norm (running statistics)"])
@pytest.mark.parametrize("dtype", ["float64", "float16", "complex64"])
@pytest.mark.parametrize("first, second", [
    (None, None), ("float32", None), (None, "float64"), ("x", "float64"), ("float64", "x"),
    ("float32", "float32"), ("float32", "float16")])
def test_dtypes_of_the_input_and_the_parameters(op, dtype, first, second):
    # fuzz seeds 985003470, 985000853 (a complex input: no CPU kernel), 986000788 (a float64
    # bias of a float32 input's group_norm), 988003989 (layer_norm's mixed check comes first)
    call = functools.partial(_dtype_call, op, dtype=dtype, first=first, second=second)
    try:
        call(torch)
    except Exception:       # noqa: BLE001 - then autograd_cy raises the same
        assert_same_error(lambda lib: call(lib), exact=True)
        return
    assert_close(call(ag), call(torch), rtol=1e-3, atol=1e-3)


def test_batch_norm_running_statistics_both_or_neither():
    assert_same_error(lambda lib: fn_of(lib).batch_norm(
        lib.ones(2, 4, dtype=lib.complex64), None, lib.ones(4), training=True), ValueError,
        exact=True)


def test_a_stale_view_is_refused_before_the_dtype():
    # torch's autograd reads the input's grad_fn before the kernel refuses the complex dtype
    # (fuzz seed 988005983)
    def run(lib):
        x = lib.tensor([1.125 - 2.75j, 0.5j, 1.0, 2.0], requires_grad=True) * 1
        first, _ = x.chunk(2, 0)
        x.cumsum_(-1)
        return fn_of(lib).layer_norm(first, (2,))
    assert_same_error(run, RuntimeError, "modified inplace")


@pytest.mark.parametrize("training", [True, False])
def test_batch_norm_saves_the_running_statistics(training):
    """torch's node saves running_mean and running_var in either mode: writing one in place
    afterwards makes the backward refuse (fuzz seed 989001390)."""
    def fn(lib):
        x = lib.tensor([[-2.75, 0.875], [0.5, -1.625], [-1.0, -2.625]], requires_grad=True)
        running_mean, running_var = lib.tensor([0.0, 1.25]), lib.tensor([0.9375, 0.1875])
        out = lib.nn.functional.batch_norm(x, running_mean, running_var, training=training)
        running_mean.tanh_()
        lib.autograd.grad(out.sum(), [x])
    assert_same_error(fn, RuntimeError, r"\[\w+\.FloatTensor \[2\]\] is at version 1; "
                                        r"expected version 0")


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("name", ["layer_norm", "group_norm", "batch_norm"])
def test_half_backward_reads_the_rounded_statistics(dtype, name):
    """torch saves a half input's mean and rstd in its dtype, and its backward reads those:
    with an outlier in the input the gradient shows it (fuzz seed 985000174)."""
    x = [[0.01763916015625, 3.0703125, 0.638671875], [45.28125, 0.0848388671875, 0.0677490234375],
         [0.01409912109375, 0.79931640625, 1.9599609375]]
    g = [[-0.875, -0.5, -2.125], [-1.375, -1.625, 0.875], [0.0, -3.0, -2.625]]

    def run(lib):
        F, type_ = lib.nn.functional, getattr(lib, dtype)
        v = lib.tensor(x, dtype=type_, requires_grad=True)
        out = {"layer_norm": lambda: F.layer_norm(v, (3, 3)),
               "group_norm": lambda: F.group_norm(v.reshape(1, 3, 3), 1).reshape(3, 3),
               "batch_norm": lambda: F.batch_norm(v, None, None, training=True)}[name]()
        return lib.autograd.grad(out, v, lib.tensor(g, dtype=type_))[0].float().tolist()
    assert run(ag) == run(torch)


@pytest.mark.parametrize("params", [True, False])
@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
def test_batch_norm_statistics_in_half_precision_round_as_torch(dtype, params):
    """NOTE [Saved statistics in the parameters' dtype]: the batch's mean and 1 / std are
    saved in the input's dtype and the output computed from them (fuzz seeds 985002639
    and, through instance_norm, 985002185); bfloat16 rounds the variance too and updates
    the running statistics in bfloat16 arithmetic."""
    x = randn(2, 3, 5) * 2 + randn(1, 3, 1, seed=1)

    def fn(lib):
        half = getattr(lib, dtype)
        input = lib.tensor(x, dtype=half, requires_grad=True)
        extra = [lib.tensor(v, dtype=half) for v in (
            randn(3, seed=2), randn(3, seed=3), randn(3, seed=4), randn(3, seed=5) ** 2 + 0.5)]
        w, b, mean, var = extra if params else (None,) * 4
        out = lib.nn.functional.batch_norm(input, mean, var, w, b, training=True)
        inst = lib.nn.functional.instance_norm(input, None, None, w, b)
        out.backward(lib.tensor(np.linspace(-1, 1, 30).reshape(2, 3, 5), dtype=half))
        return [[repr(v) for v in t.detach().float().flatten().tolist()]
                for t in [out, inst] + ([mean, var] if params else [])]
    assert_same(fn)
