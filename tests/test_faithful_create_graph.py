"""Gradients returned by backward() and autograd.grad, checked against torch 2.13: whether
they require grad under ``create_graph=True`` (a formula of Tensor ops that reads a saved
value records a node for it too), their values where a formula has a special case, their
dtype after an in-place op that promoted, and the tensor hooks of a root that reaches none
of ``inputs=``.

Each test runs the same code on autograd_cy and on torch (``lib``) and compares."""
import contextlib

import numpy as np
import pytest
import torch

import autograd_cy as ag
from autograd_cy._C.ops import activation_backward
from oracle import (
    LIBS, assert_close, assert_same_autograd_flags, check_batched_grad, check_jvp,
    check_op, graph_structure, node_name, on_test_device, randn,
)


def both(fn):
    """``fn(lib)`` on both libraries; the results must match (values, None-ness, flags)."""
    ours, theirs = fn(ag), fn(torch)
    assert_close(ours, theirs)
    assert_same_autograd_flags(ours, theirs)
    return ours, theirs


# ------------------------------------------- create_graph: does the gradient require grad?

FORMULAS = {
    # relu's backward is threshold_backward(grad, result): an op of the saved result.
    "relu": lambda lib, x: lib.relu(x).sum(),
    "relu_": lambda lib, x: (x * 1).relu_().sum(),
    "relu_1d_output": lambda lib, x: lib.relu(x),
    # norm(p=1) and norm(p=inf) multiply by sgn(x), an op of x.
    "norm_p1": lambda lib, x: x.norm(p=1),
    "norm_p1_dim": lambda lib, x: x.norm(p=1, dim=0),
    "norm_inf": lambda lib, x: x.norm(p=float("inf")),
    "norm_minus_inf": lambda lib, x: x.norm(p=-float("inf")),
    "norm_p0": lambda lib, x: x.norm(p=0),
    # the product of a 0-d tensor is that tensor: its gradient is grad itself.
    "prod_0d": lambda lib, x: x[1].prod(),
    "prod_0d_dim": lambda lib, x: x[1].prod(0),
    "prod": lambda lib, x: x.prod(),
    # formulas whose gradient does not depend on a saved value (no grad).
    "sum": lambda lib, x: x.sum(),
    "clamp": lambda lib, x: x.clamp(min=0).sum(),
    "sign": lambda lib, x: x.sign().sum(),
    "amax": lambda lib, x: x.amax(),
    "pow_0": lambda lib, x: (x ** 0).sum(),
    "abs": lambda lib, x: x.abs().sum(),
    "var": lambda lib, x: x.var(),
}


@pytest.mark.parametrize("name", sorted(FORMULAS))
def test_create_graph_gradient_requires_grad_like_torch(name):
    def run(lib):
        x = lib.tensor([0.5, -1.0, 2.0, 0.0], dtype=lib.float64, requires_grad=True)
        y = FORMULAS[name](lib, x)
        y.backward(lib.ones_like(y), create_graph=True)
        (g,) = lib.autograd.grad(FORMULAS[name](lib, x), x, lib.ones_like(y),
                                 create_graph=True, allow_unused=True)
        return x.grad, g

    both(run)


def test_relu_gradient_differentiates_through_the_result():
    # A second backward through relu's gradient: grad of grad, and zeros for the result.
    def run(lib):
        x = lib.tensor([0.5, -1.0, 2.0], dtype=lib.float64, requires_grad=True)
        y = lib.relu(x)
        (g,) = lib.autograd.grad(y, x, lib.ones_like(y), create_graph=True)
        (gg,) = lib.autograd.grad((g * g).sum(), x, retain_graph=True, allow_unused=True,
                                 materialize_grads=True)
        w = lib.tensor([1.0, 2.0, 3.0], dtype=lib.float64, requires_grad=True)
        (g2,) = lib.autograd.grad(y, x, w, create_graph=True)
        (gw,) = lib.autograd.grad(g2.sum(), w)
        return g, gg, gw

    both(run)


# ------------------------------- tanh's and sigmoid's backward are ops (NOTE [Activation
# backwards are ops] in activation_backward.pyx)

ACTIVATIONS = ["tanh", "sigmoid"]


def backward_op(lib, name):
    """``tanh_backward`` / ``sigmoid_backward``: torch.ops.aten's, or ours."""
    module = torch.ops.aten if lib is torch else activation_backward
    return getattr(module, f"{name}_backward")


def on_device_for(lib):
    return on_test_device() if lib is ag else contextlib.nullcontext()


def activation_gradient(lib, name, x, grad_output):
    """The first derivative of ``name`` at ``x`` for ``grad_output``, with a graph."""
    y = getattr(lib, name)(x)
    (g,) = lib.autograd.grad(y, x, grad_output, create_graph=True)
    return g


@pytest.mark.parametrize("name", ACTIVATIONS)
def test_double_backward_graph_is_one_backward_op_node_with_torchs_saved_tensors(name):
    def run(lib):
        with on_device_for(lib):
            x = lib.tensor([0.5, -1.0, 2.0], dtype=lib.float64, requires_grad=True)
            w = lib.tensor([1.0, -2.0, 0.5], dtype=lib.float64, requires_grad=True)
            g = activation_gradient(lib, name, x, w)
            (gg,) = lib.autograd.grad((g * g).sum(), x, create_graph=True)
        node = g.grad_fn
        saved = (node._saved_grad_output, node._saved_output)
        # (deeper in gg's graph torch's formulas record ``-2 * output`` as MulBackward1,
        # a mul by a Scalar, which autograd_cy records as MulBackward0: compare one level)
        return (graph_structure(g.grad_fn),
                [node_name(gg.grad_fn)] + [node_name(n) for n, _ in gg.grad_fn.next_functions],
                [s.requires_grad for s in saved], [s.grad_fn.name() if s.grad_fn else None
                                                    for s in saved],
                saved, g, gg)

    ours, theirs = run(ag), run(torch)
    assert ours[0][0] == f"{name.capitalize()}BackwardBackward0"
    assert ours[:4] == theirs[:4]
    assert_close(ours[4:], theirs[4:])


@pytest.mark.parametrize("name", ACTIVATIONS)
def test_second_and_third_derivatives_match_torch(name):
    # check_op differentiates the first derivative twice: the second and third derivatives
    # of the activation, through its BackwardBackward node and that node's own formulas.
    grad_output = randn(2, 3, seed=11)

    def first_derivative(lib, x):
        return activation_gradient(lib, name, x, lib.tensor(grad_output, dtype=lib.float64))

    check_op(first_derivative, randn(2, 3, seed=12))


@pytest.mark.parametrize("name", ACTIVATIONS)
@pytest.mark.parametrize("shapes", [((2, 3), (2, 3)), ((2, 3), (3,)), ((3,), (2, 3))])
def test_backward_op_gradients_for_grad_output_and_output(name, shapes):
    # Both inputs require grad; a broadcast operand's gradient is summed to its shape.
    grad_shape, output_shape = shapes
    output = np.tanh(randn(*output_shape, seed=14))     # inside sigmoid's (0, 1) too
    check_op(lambda lib, g, y: backward_op(lib, name)(g, y), randn(*grad_shape, seed=13),
             np.abs(output) if name == "sigmoid" else output)


@pytest.mark.parametrize("name", ACTIVATIONS)
def test_backward_op_records_only_when_an_operand_requires_grad(name):
    def run(lib):
        g, y = lib.tensor([0.5, 2.0]), lib.tensor([0.25, -0.5])
        results = [backward_op(lib, name)(g, y).requires_grad]
        for requires in ([True, False], [False, True]):
            a = g.detach().requires_grad_(requires[0])
            b = y.detach().requires_grad_(requires[1])
            out = backward_op(lib, name)(a, b)
            results.append((out.requires_grad, graph_structure(out.grad_fn)))
        with lib.no_grad():
            results.append(backward_op(lib, name)(g.requires_grad_(), y).requires_grad)
        return results

    ours, theirs = run(ag), run(torch)
    assert ours == theirs


@pytest.mark.parametrize("name", ACTIVATIONS)
def test_gradgradcheck_of_the_first_derivative_in_float64(name):
    # gradgradcheck of the first derivative checks the third derivative against finite
    # differences of the second (the library's own checker, no torch involved).
    x = ag.tensor(randn(2, 3, seed=15), dtype=ag.float64, requires_grad=True)
    grad_output = ag.tensor(randn(2, 3, seed=16), dtype=ag.float64, requires_grad=True)

    def first_derivative(x, grad_output):
        return activation_gradient(ag, name, x, grad_output)

    assert ag.autograd.gradcheck(first_derivative, (x, grad_output), check_undefined_grad=False)
    assert ag.autograd.gradgradcheck(first_derivative, (x, grad_output),
                                     check_undefined_grad=False)


@pytest.mark.parametrize("name", ACTIVATIONS)
def test_batched_gradients_through_the_backward_op(name):
    # is_grads_batched: the batch dim of the gradient broadcasts against the saved output.
    grad_output = randn(3, seed=17)
    check_batched_grad(lambda lib, x: activation_gradient(
        lib, name, x, lib.tensor(grad_output, dtype=lib.float64)), randn(3, seed=18),
        create_graph=True)
    check_batched_grad(lambda lib, g, y: backward_op(lib, name)(g, y), randn(2, 3, seed=19),
                       np.abs(np.tanh(randn(3, seed=20))), create_graph=True)


@pytest.mark.parametrize("name", ACTIVATIONS)
@pytest.mark.parametrize("vectorize", [False, True])
def test_hessian_through_the_activation(name, vectorize):
    def run(lib):
        with on_device_for(lib):
            x = lib.tensor(randn(4, seed=21))
            return lib.autograd.functional.hessian(
                lambda x: (getattr(lib, name)(x) * x).sum(), x, vectorize=vectorize)

    assert_close(run(ag), run(torch), 1e-7, 1e-9)


@pytest.mark.parametrize("name", ACTIVATIONS)
def test_forward_ad_through_the_backward_op(name):
    # The op's tangent formula, with a tangent on grad_output, on output, or both.
    grad_output, output = randn(2, 3, seed=22), np.abs(np.tanh(randn(2, 3, seed=23)))
    for tangents in (None, [randn(2, 3, seed=24), None], [None, randn(2, 3, seed=25)]):
        check_jvp(lambda lib, g, y: backward_op(lib, name)(g, y), grad_output, output,
                  tangents=tangents)


@pytest.mark.parametrize("name", ACTIVATIONS)
def test_forward_over_reverse_over_reverse(name):
    # The tangent of the second derivative: forward AD through TanhBackwardBackward0's
    # (or SigmoidBackwardBackward0's) formulas, which call the op and its tangent again.
    def run(lib):
        fwad = lib.autograd.forward_ad
        x = lib.tensor(randn(3, seed=26), requires_grad=True)
        with fwad.dual_level():
            dual = fwad.make_dual(x, lib.tensor(randn(3, seed=27)))
            y = getattr(lib, name)(dual) * dual
            (g,) = lib.autograd.grad(y.sum(), dual, create_graph=True)
            (gg,) = lib.autograd.grad((g * g).sum(), dual, create_graph=True)
            return tuple(fwad.unpack_dual(g)) + tuple(fwad.unpack_dual(gg))

    assert_close(run(ag), run(torch), 1e-7, 1e-9)


# ------------------------------------------------------------- special cases' values

@pytest.mark.parametrize("grad", [float("nan"), float("inf"), 2.0])
def test_pow_zero_exponent_gradient_is_zeros_whatever_grad(grad):
    # pow(x, 0)'s derivative is PyTorch's zeros_like(self): not grad * 0 (NaN for inf).
    def run(lib):
        x = lib.tensor([0.0, 3.0], requires_grad=True)
        y = x ** 0
        y.backward(lib.full((2,), grad), create_graph=True)
        return x.grad

    both(run)


@pytest.mark.parametrize("grad", [float("nan"), 2.0])
def test_pow_exponent_gradient_at_zero_base_keeps_nan_grad(grad):
    # d/de 0 ** e is defined as 0 (e >= 0), then multiplied by grad: NaN stays NaN.
    def run(lib):
        base = lib.tensor([0.0, 2.0], dtype=lib.float64)
        e = lib.tensor([1.5, 2.0], dtype=lib.float64, requires_grad=True)
        (g1,) = lib.autograd.grad(base ** e, e, lib.full((2,), grad, dtype=lib.float64))
        (g2,) = lib.autograd.grad(0 ** e, e, lib.full((2,), grad, dtype=lib.float64))
        return g1, g2

    both(run)


@pytest.mark.parametrize("value", [0.0, 2.0, float("nan"), float("inf")])
def test_prod_of_0d_tensor_gradient_is_grad_whatever_the_value(value):
    def run(lib):
        x = lib.tensor(value, requires_grad=True)
        x.prod().backward()
        return x.grad

    both(run)


# --------------------------------------------------- dtype after a promoting in-place op

@pytest.mark.parametrize("retain", ["retain_grad", "inputs"])
def test_inplace_op_that_promoted_passes_gradients_of_self_dtype(retain):
    # float32 /= float64 leaves a float32 tensor: its grad_fn receives float32 gradients.
    def run(lib):
        x = lib.tensor([[2.25], [1.0]], requires_grad=True)
        y = x * 2
        d = lib.tensor([[3.0], [-0.375]], dtype=lib.float64, requires_grad=True)
        y /= d
        if retain == "retain_grad":
            y.retain_grad()
            y.sum().backward()
        else:
            y.sum().backward(inputs=[y, x, d])
        return y.grad, x.grad, d.grad

    both(run)


# ------------------------------------------ tensor hooks of a root that reaches no input

@pytest.mark.parametrize("lib", LIBS)
@pytest.mark.parametrize("mode", ["grad", "backward"])
def test_root_reaching_no_input_still_runs_its_tensor_hooks(lib, mode):
    # The root is popped even when pruned: its tensor hooks run, its node hooks do not.
    log = []
    x = lib.tensor([0.5, 2.0], requires_grad=True)
    y = x * 2
    y.register_hook(lambda g: log.append("tensor"))
    y.grad_fn.register_prehook(lambda g: log.append("pre"))
    y.grad_fn.register_hook(lambda gi, go: log.append("post"))
    other = lib.tensor([1.0, 2.0], requires_grad=True)
    _ = other * 2
    if mode == "grad":
        assert lib.autograd.grad(y, [other], lib.ones(2), allow_unused=True) == (None,)
    else:
        y.backward(lib.ones(2), inputs=[other])
        assert other.grad is None
    assert log == ["tensor"]


@pytest.mark.parametrize("lib", LIBS)
@pytest.mark.parametrize("mode", ["grad", "backward"])
def test_root_hook_on_an_undefined_slot_receives_none(lib, mode):
    # A hook on the other piece of a split whose root reaches no input gets None.
    seen = []
    x = lib.tensor([0.5, 2.0, 3.0, 4.0], requires_grad=True)
    a, b = (x * 2).chunk(2)
    a.register_hook(lambda g: seen.append(g))
    other = lib.tensor([1.0], requires_grad=True)
    _ = other * 2
    if mode == "grad":
        lib.autograd.grad(b, [other], lib.ones(2), allow_unused=True)
    else:
        b.backward(lib.ones(2), inputs=[other])
    assert seen == [None]


@pytest.mark.parametrize("grad", [float("nan"), float("inf"), 2.0])
@pytest.mark.parametrize("op", ["softmax", "log_softmax"])
def test_softmax_of_0d_tensor_gradient_like_one_element_row(op, grad):
    # Constant 1 (or 0) forward, but the formula still runs: NaN from an inf or NaN grad.
    def run(lib):
        x = lib.tensor(0.5, requires_grad=True)
        (g,) = lib.autograd.grad(getattr(lib, op)(x, 0), x, lib.tensor(grad))
        return g

    both(run)


@pytest.mark.parametrize("op", ["var", "std"])
@pytest.mark.parametrize("values, kwargs", [
    ([2.0], {}), ([2.0, 3.0], {"correction": 2}), ([2.0], {"dim": 0}), (2.0, {}),
    ([2.0, float("nan")], {"correction": 3}),
])
def test_var_without_degrees_of_freedom_gradient_like_torch(op, values, kwargs):
    # No dim (or a 0-d input) and n <= correction: NaN where x is its mean, else inf, as a
    # constant that does not require grad; with a dim, the usual formula (inf * 0).
    def run(lib):
        x = lib.tensor(values, dtype=lib.float64, requires_grad=True)
        y = getattr(x, op)(**kwargs)
        y.backward(lib.full_like(y, -2.0), create_graph=True)
        return x.grad

    both(run)


@pytest.mark.parametrize("lib", LIBS)
@pytest.mark.parametrize("shape, repeats, same", [
    ((1, 2), (1, 1), True), ((), (), True), ((2,), (1,), True),
    ((1, 2), (1, 1, 1), False), ((3, 2), (2, 1), False), ((2,), (0,), False),
])
def test_repeat_of_nothing_hands_the_gradient_on_as_is(lib, shape, repeats, same):
    # grad() then returns the grad_outputs tensor itself, which requires grad.
    x = lib.ones(shape, requires_grad=True)
    y = x * 1
    out = y.repeat(repeats)
    g = lib.ones(out.shape, requires_grad=True)
    (gy,) = lib.autograd.grad(out, y, g)
    assert (gy is g) == same
    assert gy.requires_grad == same


def test_the_two_norm_gradient_at_a_zero_norm_keeps_a_nan_gradient():
    """grad * (x / norm) with the ratio zeroed where the norm is 0: a NaN or inf incoming
    gradient gives NaN there, as in PyTorch."""
    def run(lib):
        x = lib.tensor(0.0, dtype=lib.float64, requires_grad=True)
        y = x.norm().pow(-3)        # inf; its gradient is 0 * inf = nan
        lib.minimum(lib.tensor([0.5], dtype=lib.float64), y).sum().backward()
        return x.grad
    ours, theirs = run(ag), run(torch)
    assert np.isnan(ours.item()) and np.isnan(theirs.item())


def test_grad_with_only_unreachable_inputs_runs_nothing():
    """A no_grad view of a tensor that requires grad has no gradient edge: grad() with it
    as the only input prunes the whole graph (the output leaf's .grad stays None)."""
    def run(lib):
        leaf = lib.ones(2, 1, dtype=lib.float64, requires_grad=True)
        base = lib.ones(1, 1, requires_grad=True) * 2
        with lib.no_grad():
            view, = base.chunk(2, -1)
        result = lib.autograd.grad(leaf, [view], grad_outputs=lib.ones(2, 1, dtype=lib.float64),
                                   allow_unused=True)
        return result, leaf.grad
    for lib in (ag, torch):
        assert run(lib) == ((None,), None)


@pytest.mark.parametrize("then", ["nothing", "leaky_relu"])
def test_the_saved_result_of_an_inplace_op_on_a_view_leads_to_copyslices(then):
    """Unpacked in a double backward, the result rsqrt_ saved (the view itself) has the
    view's new grad_fn, which leads through CopySlices to the base: the second-order
    gradient with respect to the base exists and requires grad."""
    def run(lib):
        w = lib.tensor(0.375, requires_grad=True)
        base = lib.ones(1, 2, 1, 3) * 2
        base[lib.tensor([0]), lib.tensor([0])] = w
        view = base.transpose(3, -3)
        view.rsqrt_()
        out = view if then == "nothing" else lib.nn.functional.leaky_relu(view, 0.2)
        g, = lib.autograd.grad(out.sum(), w, create_graph=True)
        second, = lib.autograd.grad(g, [base], create_graph=True, allow_unused=True)
        return g, second, second.requires_grad
    ours, theirs = run(ag), run(torch)
    assert ours[2] is theirs[2] is True
    assert_close(ours[:2], theirs[:2])


def test_the_gradient_through_an_empty_view_rebuilt_after_an_inplace_op_is_plain_zeros():
    """An empty view whose base changed in place gets AsStridedBackward0; for no elements
    its gradient is zeros of the base's shape that do not depend on the incoming gradient
    (no graph under create_graph), as PyTorch's as_strided_backward."""
    def run(lib):
        leaf = lib.tensor([[[-0.125]]], requires_grad=True)
        base = leaf[lib.tensor([-1]), lib.tensor([0])]
        empty = base[-1:-1, ...]
        base /= lib.tensor(0.25)
        out = (empty - 1.5).pow_(1.625).mean()
        g, = lib.autograd.grad(out, [base], create_graph=True)
        return g, g.requires_grad
    ours, theirs = run(ag), run(torch)
    assert ours[1] is theirs[1] is False
    assert_close(ours[0], theirs[0])


NORMALIZATIONS = {
    "layer_norm": lambda F, x, w, b: F.layer_norm(x, (3,), weight=w, bias=b),
    "layer_norm_bias": lambda F, x, w, b: F.layer_norm(x, (3,), bias=b),
    "group_norm": lambda F, x, w, b: F.group_norm(x.reshape(1, 3, 2), 1, weight=w, bias=b),
    "batch_norm": lambda F, x, w, b: F.batch_norm(x, None, None, weight=w, bias=b,
                                                  training=True),
    "batch_norm_eval": lambda F, x, w, b: F.batch_norm(x, x.new_zeros(3), x.new_ones(3),
                                                       weight=w, bias=b),
    "layer_norm_empty": lambda F, x, w, b: F.layer_norm(x[:, :0], (0,), weight=w[:0]),
    "batch_norm_bias": lambda F, x, w, b: F.batch_norm(x, None, None, bias=b, training=True),
}


@pytest.mark.parametrize("name", sorted(NORMALIZATIONS))
def test_normalization_gradients_require_grad_like_torch(name):
    """NOTE [Normalization gradients that require grad]: torch's layer_norm and batch_norm
    backward is one op whose every gradient requires grad under create_graph, a bias's too
    (batch_norm's only where the input or the weight requires grad); group_norm's
    weight's only (fuzz seeds 17, 986001210, 985000013, 989100068)."""
    def run(lib):
        x = lib.tensor([[1.0, 2.0, 4.0], [0.5, -1.0, 3.0]])
        w = lib.tensor([1.5, 0.5, 2.0], requires_grad=True)
        b = lib.tensor([0.1, 0.2, 0.3], requires_grad=True)
        NORMALIZATIONS[name](lib.nn.functional, x, w, b).sum().backward(create_graph=True)
        return w.grad, b.grad

    ours, theirs = both(run)
    assert [node_name(g.grad_fn) for g in ours if g is not None] == [
        node_name(g.grad_fn) for g in theirs if g is not None]


@pytest.mark.parametrize("mode", ["replicate", "reflect", "circular"])
def test_edge_pad_gradient_requires_grad_like_torch(mode):
    """NOTE [Gradients attached to the inputs of torch's backward op]: torch's reflect and
    replicate pads' backward op takes the input, so under create_graph the gradient
    requires grad (circular's is a slice: it does not) (fuzz seed 989003208)."""
    def run(lib):
        x = lib.tensor([[1.0, 2.75, 3.0]], requires_grad=True)
        (g,) = lib.autograd.grad(lib.nn.functional.pad(x, (2, 1), mode=mode).sum(), x,
                                 create_graph=True)
        return g

    ours, theirs = both(run)
    assert node_name(ours.grad_fn) == node_name(theirs.grad_fn)


@pytest.mark.parametrize("name", ["layer_norm", "batch_norm", "group_norm"])
def test_a_second_backward_reaches_the_normalization_parameters_hooks(name):
    """torch's backward-of-the-backward node has edges to the op's inputs (batch_norm's not
    the bias), so a backward of a gradient calls their tensor hooks, with None (fuzz seed
    989102150: a hook ``g * 3.0`` raised TypeError in torch only)."""
    def run(lib):
        F = lib.nn.functional
        x = lib.tensor([[1.0, 2.0, 4.0], [0.5, -1.0, 3.0]], requires_grad=True)
        w = lib.tensor([1.5, 0.5, 2.0], requires_grad=True)
        b = lib.tensor([0.1, 0.2, 0.3], requires_grad=True)
        out = {"layer_norm": lambda: F.layer_norm(x, (3,), weight=w, bias=b),
               "batch_norm": lambda: F.batch_norm(x, None, None, weight=w, bias=b,
                                                  training=True),
               "group_norm": lambda: F.group_norm(x.reshape(1, 3, 2), 1, weight=w, bias=b)}
        gx, gw, gb = lib.autograd.grad(out[name]().sum(), [x, w, b], create_graph=True)
        seen = []
        w.register_hook(lambda g: seen.append(("w", g is None)))
        b.register_hook(lambda g: seen.append(("b", g is None)))
        (gw.sum() + gx.sum()).backward()
        return sorted(seen)
    assert run(ag) == run(torch)


def test_xlogy_of_two_dtypes_gradient_requires_grad_like_torch():
    """xlogy's operands are converted to the result's dtype in its forward; under
    create_graph the backward converts the inputs again, so other's gradient depends on
    other (fuzz seed 989102367)."""
    def run(lib):
        y = lib.tensor(2.0, dtype=lib.float16, requires_grad=True)
        lib.xlogy(lib.tensor(-1.875), y).backward(create_graph=True)
        return y.grad

    both(run)
