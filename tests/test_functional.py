"""autograd.functional (vjp, jvp, jacobian, hessian, vhp, hvp) against torch.autograd.functional:
values, result structure, autograd flags with and without create_graph, strict mode and the
argument errors; torch's own docstring examples run unchanged but for the import."""
import textwrap

import numpy as np
import pytest
import torch

import autograd_cy as ag

from oracle import (DEVICE_NAME, assert_close, assert_same_autograd_flags,
                    assert_same_error, node_name, randn, to_numpy)

RTOL, ATOL = 1e-7, 1e-9


def tensors(lib, *arrays, requires_grad=False):
    return tuple(lib.tensor(np.asarray(a, dtype=np.float64), requires_grad=requires_grad)
                 for a in arrays)


def compare(run, rtol=RTOL, atol=ATOL):
    """``run(lib)`` on both libraries: same structure, shapes, dtypes, values and flags."""
    ours, theirs = run(ag), run(torch)
    assert_close(ours, theirs, rtol, atol, "result")
    assert_same_autograd_flags(ours, theirs, "result")
    assert_on_test_device(ours)
    return ours, theirs


def assert_on_test_device(result):
    """Every tensor of the result stays on the device of the inputs (no silent copy)."""
    if isinstance(result, (tuple, list)):
        for item in result:
            assert_on_test_device(item)
    elif isinstance(result, ag.Tensor):
        assert str(result.device) == DEVICE_NAME, f"result on {result.device}"


# Functions of one or two inputs, returning one output or a tuple of two; written against
# ``lib`` only through tensor methods, so the same code runs on both libraries.
def one_to_one(x):
    return (x * x).tanh() * 2


def one_to_two(x):
    return x.exp().sum(1), x * x


def two_to_one(x, y):
    return (x * y).sin() + y


def two_to_two(x, y):
    return (x * y).tanh(), (x.exp() * 3 + y).sum()


def unused_second(x, y):
    return x ** 3


FUNCTIONS = {
    "one_to_one": (one_to_one, (randn(2, 3),)),
    "one_to_two": (one_to_two, (randn(2, 3),)),
    "two_to_one": (two_to_one, (randn(3), randn(3))),
    "two_to_two": (two_to_two, (randn(2, 2), randn(2, 2))),
    "unused_second": (unused_second, (randn(2), randn(3))),
}


def as_inputs(lib, arrays, requires_grad=False):
    """A single tensor for a one-input function (torch then returns untupled results)."""
    values = tensors(lib, *arrays, requires_grad=requires_grad)
    return values[0] if len(values) == 1 else values


def output_vectors(lib, fn, arrays):
    """Random ``v`` with the outputs' structure and sizes, as the same values on both."""
    outputs = fn(*tensors(torch, *arrays))
    shapes = [o.shape for o in (outputs if isinstance(outputs, tuple) else (outputs,))]
    values = tensors(lib, *[randn(*s, seed=7) for s in shapes])
    return values if isinstance(outputs, tuple) else values[0]


# ------------------------------------------------------------------ vjp, jvp

@pytest.mark.parametrize("create_graph", [False, True])
@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_vjp(name, create_graph):
    fn, arrays = FUNCTIONS[name]
    compare(lambda lib: lib.autograd.functional.vjp(
        fn, as_inputs(lib, arrays), output_vectors(lib, fn, arrays),
        create_graph=create_graph))


@pytest.mark.parametrize("create_graph", [False, True])
@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_jvp(name, create_graph):
    fn, arrays = FUNCTIONS[name]

    def run(lib):
        inputs = as_inputs(lib, arrays)
        v = tensors(lib, *[randn(*a.shape, seed=5) for a in arrays])
        return lib.autograd.functional.jvp(fn, inputs, v if len(v) > 1 else v[0],
                                           create_graph=create_graph)
    compare(run)


def test_v_may_be_omitted_for_a_single_element():
    def run(lib):
        functional = lib.autograd.functional
        x, = tensors(lib, [0.7])
        return (functional.vjp(lambda t: (t * t).sum(), x),
                functional.jvp(lambda t: t.exp() * 2, x),
                functional.vhp(lambda t: (t ** 3).sum(), x),
                functional.hvp(lambda t: (t ** 3).sum(), x))
    compare(run)


@pytest.mark.parametrize("function", ["vjp", "jvp", "vhp", "hvp"])
def test_create_graph_keeps_the_result_connected_to_the_callers_inputs(function):
    # With create_graph an input that requires grad is used through a view of itself, so
    # the product can be differentiated back to it (a third-order quantity for hvp).
    def run(lib):
        x, = tensors(lib, randn(3), requires_grad=True)
        v, = tensors(lib, randn(3, seed=3))
        out, product = getattr(lib.autograd.functional, function)(
            lambda t: (t.sin() * t).sum() if function in ("vhp", "hvp") else t.sin() * t,
            x, v, create_graph=True)
        again = lib.autograd.grad((product * product).sum() + out.sum(), x)
        return out, product, again
    compare(run)


def graph_nodes(node, counts=None):
    """How often each node name occurs in the graph behind ``node`` (paths counted): the
    graph's content, whatever the order in which the engine summed the gradients."""
    counts = {} if counts is None else counts
    if node is not None:
        counts[node_name(node)] = counts.get(node_name(node), 0) + 1
        for child, _ in node.next_functions:
            graph_nodes(child, counts)
    return counts


@pytest.mark.parametrize("function", ["vjp", "jvp", "vhp", "hvp", "jacobian", "hessian"])
def test_create_graph_records_the_graph_torch_records(function):
    # jvp and hvp differentiate a backward pass (the double-backward trick): their results
    # are the outputs of the graph that the second backward recorded, node for node.
    def run(lib):
        x, = tensors(lib, randn(3), requires_grad=True)
        v, = tensors(lib, randn(3, seed=3))
        call = getattr(lib.autograd.functional, function)
        if function in ("vjp", "jvp"):
            results = call(lambda t: t.sin() * t, x, v, create_graph=True)
        elif function in ("vhp", "hvp"):
            results = call(lambda t: (t.sin() * t).sum(), x, v, create_graph=True)
        elif function == "jacobian":
            results = (call(lambda t: t.exp() * t, x, create_graph=True),)
        else:
            results = (call(lambda t: (t.exp() * t).sum(), x, create_graph=True),)
        return [graph_nodes(r.grad_fn) for r in results]
    ours, theirs = run(ag), run(torch)
    assert ours == theirs


def test_without_create_graph_results_are_detached_even_under_grad_mode():
    def run(lib):
        x, = tensors(lib, randn(3), requires_grad=True)
        return lib.autograd.functional.vjp(lambda t: t.exp(), x, x.detach())
    ours, _ = compare(run)
    assert all(not t.requires_grad for t in ours)


def test_no_grad_mode_around_the_call():
    # The forward always records (enable_grad inside); create_graph turns grad mode on for
    # the backward too, so the results require grad even under no_grad.
    def run(lib):
        functional = lib.autograd.functional
        x, v = tensors(lib, randn(3), randn(3, seed=2))
        with lib.no_grad():
            return (functional.vjp(lambda t: t * t, x, v),
                    functional.vjp(lambda t: t * t, x, v, create_graph=True),
                    functional.hvp(lambda t: (t ** 3).sum(), x, v, create_graph=True),
                    functional.jacobian(lambda t: t.exp(), x, create_graph=True))
    compare(run)


# ------------------------------------------------------------------ jacobian

@pytest.mark.parametrize("create_graph", [False, True])
@pytest.mark.parametrize("vectorize", [False, True])
@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_jacobian(name, vectorize, create_graph):
    fn, arrays = FUNCTIONS[name]
    compare(lambda lib: lib.autograd.functional.jacobian(
        fn, as_inputs(lib, arrays), create_graph=create_graph, vectorize=vectorize))


@pytest.mark.parametrize("vectorize", [False, True])
def test_jacobian_of_an_output_that_does_not_require_grad_is_zero(vectorize):
    def run(lib):
        x, y = tensors(lib, randn(2), randn(3))
        constant, = tensors(lib, randn(2, 2))
        return lib.autograd.functional.jacobian(lambda a, b: (a * 2, constant), (x, y),
                                                vectorize=vectorize)
    compare(run)


@pytest.mark.parametrize("vectorize", [False, True])
def test_jacobian_with_create_graph_is_differentiable(vectorize):
    # The Jacobian's own gradient (second derivatives of func) matches torch's.
    def run(lib):
        x, y = tensors(lib, randn(3), randn(3, seed=1), requires_grad=True)
        jac = lib.autograd.functional.jacobian(two_to_one, (x, y), create_graph=True,
                                               vectorize=vectorize)
        return jac, lib.autograd.grad(sum((j * j).sum() for j in jac), (x, y))
    compare(run)


GRADCHECKED = {
    "jacobian": lambda F, t, v: F.jacobian(lambda u: (u * u).sin(), t, create_graph=True),
    "jacobian_vectorized": lambda F, t, v: F.jacobian(lambda u: (u * u).sin(), t,
                                                      create_graph=True, vectorize=True),
    "jvp": lambda F, t, v: F.jvp(lambda u: u.exp() * u, t, v, create_graph=True)[1],
    "hvp": lambda F, t, v: F.hvp(lambda u: (u.sin() * u).sum(), t, v, create_graph=True)[1],
    "hessian": lambda F, t, v: F.hessian(lambda u: (u.exp() * u).sum(), t, create_graph=True),
}


@pytest.mark.parametrize("name", sorted(GRADCHECKED))
def test_gradcheck_of_the_results(name):
    # gradcheck of x -> result(f, x, create_graph=True): the derivatives of the Jacobian
    # (or product) against finite differences, in float64.
    x, = tensors(ag, randn(3), requires_grad=True)
    v, = tensors(ag, randn(3, seed=8))
    assert ag.autograd.gradcheck(lambda t: GRADCHECKED[name](ag.autograd.functional, t, v),
                                 (x,), check_undefined_grad=False)


# ------------------------------------------------------------------ hessian, vhp, hvp

def scalar_one(x):
    return (x.sin() * x * x).sum()


def scalar_two(x, y):
    return ((x * y).tanh() * y).sum() + (x ** 3).sum()


def scalar_mlp(w1, w2, w3):
    # a small network's loss: dense Hessian blocks between the three weights
    h = (w1.new_tensor(randn(2, 3)) @ w1).tanh()
    return (((h @ w2).tanh() @ w3 - 0.5) ** 2).mean()


SCALAR_FUNCTIONS = {
    "mlp": (scalar_mlp, (randn(3, 2, seed=5), randn(2, 2, seed=6), randn(2, 1, seed=7))),
    "one": (scalar_one, (randn(2, 2),)),
    "two": (scalar_two, (randn(3), randn(3, seed=4))),
    "unused": (lambda x, y: (x ** 3).sum(), (randn(2), randn(3))),
}


@pytest.mark.parametrize("create_graph", [False, True])
@pytest.mark.parametrize("vectorize", [False, True])
@pytest.mark.parametrize("name", sorted(SCALAR_FUNCTIONS))
def test_hessian(name, vectorize, create_graph):
    fn, arrays = SCALAR_FUNCTIONS[name]
    compare(lambda lib: lib.autograd.functional.hessian(
        fn, as_inputs(lib, arrays), create_graph=create_graph, vectorize=vectorize))


@pytest.mark.parametrize("create_graph", [False, True])
@pytest.mark.parametrize("function", ["vhp", "hvp"])
@pytest.mark.parametrize("name", sorted(SCALAR_FUNCTIONS))
def test_vhp_hvp(name, function, create_graph):
    fn, arrays = SCALAR_FUNCTIONS[name]

    def run(lib):
        v = tensors(lib, *[randn(*a.shape, seed=9) for a in arrays])
        return getattr(lib.autograd.functional, function)(
            fn, as_inputs(lib, arrays), v if len(v) > 1 else v[0], create_graph=create_graph)
    compare(run)


def test_hessian_with_create_graph_is_differentiable():
    def run(lib):
        x, = tensors(lib, randn(3), requires_grad=True)
        hess = lib.autograd.functional.hessian(lambda t: (t.exp() * t).sum(), x,
                                               create_graph=True)
        return hess, lib.autograd.grad(hess.sum(), x)
    compare(run)


EDGE_CASES = {
    # func returns its input itself: the engine's root is then the input (a graph root)
    "jacobian_identity": lambda F, x: F.jacobian(lambda t: t, x),
    "jacobian_identity_vectorized": lambda F, x: F.jacobian(lambda t: t, x, vectorize=True),
    "vjp_identity": lambda F, x: F.vjp(lambda t: t, x, x * 3),
    "jvp_identity": lambda F, x: F.jvp(lambda t: t, x, x * 3),
    # 0-dim inputs and outputs: the Jacobian of a 0-d function of a 0-d input is 0-d
    "jacobian_0d": lambda F, x: F.jacobian(lambda t: (t * t).exp(), x[0]),
    "jacobian_0d_vectorized": lambda F, x: F.jacobian(lambda t: (t * t).sum(), x,
                                                      vectorize=True),
    "hessian_0d": lambda F, x: F.hessian(lambda t: t.exp() * t, x[1]),
    # outputs that do not depend on the inputs (not strict): zeros
    "vjp_constant_output": lambda F, x: F.vjp(lambda t: t.detach() * 2, x, x),
    "jvp_constant_output": lambda F, x: F.jvp(lambda t: t.detach() * 2, x, x),
    "hvp_linear": lambda F, x: F.hvp(lambda t: (t * 3).sum(), x, x),
    "vhp_linear": lambda F, x: F.vhp(lambda t: (t * 3).sum(), x, x),
    "hessian_linear": lambda F, x: F.hessian(lambda t: (t * 3).sum(), x),
    # the blocks have the input's dtype, whatever the output's
    "jacobian_float32_output": lambda F, x: F.jacobian(lambda t: t.float() * 2, x),
    "hessian_float32_output": lambda F, x: F.hessian(lambda t: (t.float() ** 3).sum(), x,
                                                     vectorize=True),
}


@pytest.mark.parametrize("name", sorted(EDGE_CASES))
def test_edge_cases(name):
    compare(lambda lib: EDGE_CASES[name](lib.autograd.functional,
                                         tensors(lib, [0.5, -1.0, 2.0])[0]), rtol=1e-6)


# ------------------------------------------------------------------ strict mode

def independent_of_y(x, y):
    return x * 2


def constant_output(x):
    return x.detach() * 2


def linear(x):
    return (x * 3).sum()


def quadratic(x):
    return (x * x).sum()


STRICT_CASES = {
    # name: (call(functional, lib), expected regular expression)
    "vjp_independent_input": (
        lambda F, lib: F.vjp(independent_of_y, tensors(lib, randn(2), randn(2)),
                             tensors(lib, randn(2))[0], strict=True),
        r"independent of input 1\. This is not allowed in strict mode\.$"),
    "vjp_output_without_grad": (
        lambda F, lib: F.vjp(constant_output, tensors(lib, randn(2))[0],
                             tensors(lib, randn(2))[0], strict=True),
        r"^Output 0 of the user-provided function does not require gradients"),
    "vjp_create_graph_linear": (
        lambda F, lib: F.vjp(lambda x: x * 2, tensors(lib, randn(2))[0],
                             tensors(lib, randn(2))[0], create_graph=True, strict=True),
        None),
    "jvp_independent_input": (
        lambda F, lib: F.jvp(independent_of_y, tensors(lib, randn(2), randn(2)),
                             tensors(lib, randn(2), randn(2)), strict=True),
        r"independent of input 1"),
    "jacobian_independent_input": (
        lambda F, lib: F.jacobian(independent_of_y, tensors(lib, randn(2), randn(2)),
                                  strict=True),
        r"^Output 0 of the user-provided function is independent of input 1\."),
    "jacobian_create_graph_linear": (
        lambda F, lib: F.jacobian(lambda x: x * 2, tensors(lib, randn(2))[0],
                                  create_graph=True, strict=True),
        r"strict mode when create_graph=True\.$"),
    "jacobian_strict_vectorize": (
        lambda F, lib: F.jacobian(lambda x: x * x, tensors(lib, randn(2))[0],
                                  strict=True, vectorize=True),
        None),
    "hessian_linear": (
        lambda F, lib: F.hessian(linear, tensors(lib, randn(2))[0], strict=True),
        r"^While computing the hessian, found that the jacobian"),
    "hessian_create_graph_quadratic": (
        lambda F, lib: F.hessian(quadratic, tensors(lib, randn(2))[0], create_graph=True,
                                 strict=True),
        r"strict mode when create_graph=True\.$"),
    "vhp_linear": (
        lambda F, lib: F.vhp(linear, tensors(lib, randn(2))[0], tensors(lib, randn(2))[0],
                             strict=True),
        r"^While computing the hessian"),
    "vhp_create_graph_quadratic": (
        lambda F, lib: F.vhp(quadratic, tensors(lib, randn(2))[0], tensors(lib, randn(2))[0],
                             create_graph=True, strict=True),
        None),
    "hvp_linear": (
        lambda F, lib: F.hvp(linear, tensors(lib, randn(2))[0], tensors(lib, randn(2))[0],
                             strict=True),
        r"^While computing the hessian"),
    "hvp_create_graph_cubic_of_one": (
        lambda F, lib: F.hvp(lambda x, y: (x ** 3).sum() + (y * y).sum(),
                             tensors(lib, randn(2), randn(2)), tensors(lib, randn(2), randn(2)),
                             create_graph=True, strict=True),
        r"^The hessian of the user-provided function is independent of input 1\."),
    "hessian_cross_term_missing": (
        lambda F, lib: F.hessian(lambda x, y: (x ** 3).sum() + (y ** 3).sum(),
                                 tensors(lib, randn(2), randn(2)), strict=True),
        r"^Output 0 of the user-provided function is independent of input 1\."),
}


@pytest.mark.parametrize("name", sorted(STRICT_CASES))
def test_strict_mode_errors(name):
    call, pattern = STRICT_CASES[name]
    expected = (RuntimeError,) if pattern is None else (RuntimeError, pattern)
    assert_same_error(lambda lib: call(lib.autograd.functional, lib), *expected, exact=True)


@pytest.mark.parametrize("function", ["vjp", "jvp", "vhp", "hvp"])
def test_strict_mode_passes_where_every_input_matters(function):
    def run(lib):
        x, v = tensors(lib, randn(3), randn(3, seed=2))
        fn = (lambda t: (t ** 3).sum()) if function in ("vhp", "hvp") else (lambda t: t ** 3)
        return getattr(lib.autograd.functional, function)(fn, x, v, strict=True)
    compare(run)


# ------------------------------------------------------------------ argument errors

ARGUMENT_ERRORS = {
    "inputs_list": lambda F, lib: F.vjp(lambda x: x, [tensors(lib, randn(2))[0]]),
    "inputs_tuple_with_a_number": lambda F, lib: F.jacobian(
        lambda x, y: x, (tensors(lib, randn(2))[0], 3.0)),
    "outputs_not_tensors": lambda F, lib: F.jvp(lambda x: 3.0, tensors(lib, randn(2))[0],
                                                tensors(lib, randn(2))[0]),
    "outputs_tuple_with_a_list": lambda F, lib: F.jacobian(
        lambda x: (x, [x]), tensors(lib, randn(2))[0]),
    "hessian_inputs_int": lambda F, lib: F.hessian(lambda x: x, 3),
    "v_not_tensor": lambda F, lib: F.hvp(quadratic, tensors(lib, randn(2))[0], 1.0),
    "v_wrong_size": lambda F, lib: F.vjp(lambda x: x * 2, tensors(lib, randn(2))[0],
                                         tensors(lib, randn(3))[0]),
    "v_wrong_size_in_a_tuple": lambda F, lib: F.jvp(
        two_to_one, tensors(lib, randn(2), randn(2)), tensors(lib, randn(2), randn(3))),
    "v_wrong_length": lambda F, lib: F.vhp(
        scalar_two, tensors(lib, randn(2), randn(2)), tensors(lib, randn(2))),
    "v_tuple_for_a_single_input": lambda F, lib: F.hvp(
        quadratic, tensors(lib, randn(2))[0], tensors(lib, randn(2), randn(2))),
    "vjp_v_required": lambda F, lib: F.vjp(lambda x: x * 2, tensors(lib, randn(2))[0]),
    "jvp_v_required": lambda F, lib: F.jvp(lambda x: x * 2, tensors(lib, randn(2))[0]),
    "hvp_v_required": lambda F, lib: F.hvp(quadratic, tensors(lib, randn(2))[0]),
    "vhp_tuple_output": lambda F, lib: F.vhp(lambda x: (x.sum(), x.sum()),
                                             tensors(lib, randn(2))[0],
                                             tensors(lib, randn(2))[0]),
    "hvp_not_scalar": lambda F, lib: F.hvp(lambda x: x * x, tensors(lib, randn(2))[0],
                                           tensors(lib, randn(2))[0]),
    "hessian_tuple_output": lambda F, lib: F.hessian(lambda x: (x.sum(),),
                                                     tensors(lib, randn(2))[0]),
    "hessian_not_scalar": lambda F, lib: F.hessian(lambda x: x * x, tensors(lib, randn(2))[0]),
    "jacobian_strategy": lambda F, lib: F.jacobian(lambda x: x, tensors(lib, randn(2))[0],
                                                   strategy="backward"),
    "hessian_strategy": lambda F, lib: F.hessian(
        quadratic, tensors(lib, randn(2))[0], outer_jacobian_strategy="reverse"),
    "forward_mode_create_graph": lambda F, lib: F.jacobian(
        lambda x: x, tensors(lib, randn(2))[0], create_graph=True, strategy="forward-mode"),
    "forward_mode_strict": lambda F, lib: F.jacobian(
        lambda x: x, tensors(lib, randn(2))[0], strict=True, vectorize=True,
        strategy="forward-mode"),
    "forward_mode_without_vectorize": lambda F, lib: F.jacobian(
        lambda x: x, tensors(lib, randn(2))[0], strategy="forward-mode"),
    "forward_over_reverse_hessian_without_vectorize": lambda F, lib: F.hessian(
        quadratic, tensors(lib, randn(2))[0], outer_jacobian_strategy="forward-mode"),
}


@pytest.mark.parametrize("name", sorted(ARGUMENT_ERRORS))
def test_argument_errors(name):
    call = ARGUMENT_ERRORS[name]
    assert_same_error(lambda lib: call(lib.autograd.functional, lib), exact=True)


# ------------------------------------------------------------------ torch's own examples

# The examples of torch.autograd.functional's docstrings, as a user would run them: only
# the import differs. Random inputs are drawn by NumPy, the same values for both.
EXAMPLES = """
from {package}.autograd.functional import vjp, jvp, jacobian, hessian, vhp, hvp

def exp_reducer(x):
    return x.exp().sum(dim=1)

def adder(x, y):
    return 2 * x + 3 * y

def exp_adder(x, y):
    return 2 * x.exp() + 3 * y

def pow_reducer(x):
    return x.pow(3).sum()

def pow_adder_reducer(x, y):
    return (2 * x.pow(2) + 3 * y.pow(2)).sum()

inputs = rand(4, 4)
results = [
    vjp(exp_reducer, inputs, torch.ones(4)),
    vjp(exp_reducer, inputs, torch.ones(4), create_graph=True),
    vjp(adder, (rand(2), rand(2)), torch.ones(2)),
    jvp(exp_reducer, inputs, torch.ones(4, 4)),
    jvp(exp_reducer, inputs, torch.ones(4, 4), create_graph=True),
    jvp(adder, (rand(2), rand(2)), (torch.ones(2), torch.ones(2))),
    jacobian(exp_reducer, rand(2, 2)),
    jacobian(exp_reducer, rand(2, 2), create_graph=True),
    jacobian(exp_adder, (rand(2), rand(2))),
    hessian(pow_reducer, rand(2, 2)),
    hessian(pow_reducer, rand(2, 2), create_graph=True),
    hessian(pow_adder_reducer, (rand(2), rand(2))),
    vhp(pow_reducer, rand(2, 2), torch.ones(2, 2)),
    vhp(pow_reducer, rand(2, 2), torch.ones(2, 2), create_graph=True),
    vhp(pow_adder_reducer, (rand(2), rand(2)), (torch.zeros(2), torch.ones(2))),
    hvp(pow_reducer, rand(2, 2), torch.ones(2, 2)),
    hvp(pow_reducer, rand(2, 2), torch.ones(2, 2), create_graph=True),
    hvp(pow_adder_reducer, (rand(2), rand(2)), (torch.zeros(2), torch.ones(2))),
]
"""


def run_examples(lib):
    rng = np.random.default_rng(11)
    namespace = {"torch": lib,
                 "rand": lambda *shape: lib.tensor(rng.random(shape).astype(np.float32))}
    exec(textwrap.dedent(EXAMPLES.format(package=lib.__name__)), namespace)
    return namespace["results"]


def test_torch_docstring_examples_run_unchanged():
    ours, theirs = run_examples(ag), run_examples(torch)
    assert_close(ours, theirs, 1e-5, 1e-6, "examples")
    assert_same_autograd_flags(ours, theirs, "examples")
    assert_on_test_device(ours)
    # the shapes the docstrings print
    assert to_numpy(ours[6]).shape == (2, 2, 2)
    assert [to_numpy(h).shape for row in ours[11] for h in row] == [(2, 2)] * 4


def test_module_is_importable_as_in_torch():
    import autograd_cy.autograd.functional as functional
    from autograd_cy.autograd.functional import jacobian
    assert ag.autograd.functional is functional and functional.jacobian is jacobian
    assert sorted(functional.__all__) == sorted(torch.autograd.functional.__all__)


# ------------------------------------------------------------------ forward mode

def structure(result):
    """The nesting of tuples and lists around the tensors (torch's forward-mode jacobian
    returns lists where the reverse-mode one returns tuples)."""
    if isinstance(result, (tuple, list)):
        return type(result).__name__, [structure(item) for item in result]
    return "tensor"


FORWARD_FUNCTIONS = {
    # ops with tangent formulas: arithmetic, pointwise, views
    "one_to_one": (one_to_one, (randn(2, 3),)),
    "two_to_one": (two_to_one, (randn(3), randn(3))),
    "one_to_two_views": (lambda x: (x.reshape(3, 2) * x[0, 0], x[1].exp()), (randn(2, 3),)),
    "two_to_two": (lambda x, y: ((x * y).tanh(), x.exp() * 3 + y), (randn(2, 2), randn(2, 2))),
}


# torch's forward-mode jacobian imports its vmap prototype, which warns about torch.jit.script
@pytest.mark.filterwarnings("ignore:`torch.jit.script` is deprecated:DeprecationWarning")
@pytest.mark.parametrize("name", sorted(FORWARD_FUNCTIONS))
def test_jacobian_forward_mode(name):
    # one forward-AD run of func with a batch of tangents, one per input element
    fn, arrays = FORWARD_FUNCTIONS[name]
    ours, theirs = compare(lambda lib: lib.autograd.functional.jacobian(
        fn, as_inputs(lib, arrays), vectorize=True, strategy="forward-mode"))
    assert structure(ours) == structure(theirs)
