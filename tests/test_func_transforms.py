"""autograd_cy.func's transforms against torch.func: grad, grad_and_value, vjp, jvp, jacrev,
jacfwd, hessian, linearize, their compositions (per-example gradients, Hessians), and their
errors."""
import numpy as np
import pytest
import torch

import autograd_cy as ag
from tests.oracle import assert_close, assert_same_error, randn


def on_both(fn, *arrays):
    """``fn(lib, *tensors)`` on both libraries, the results flattened to tensors."""
    results = []
    for lib in (ag, torch):
        results.append(fn(lib, *[lib.tensor(np.array(a)) for a in arrays]))
    return results


def assert_same_tree(ours, theirs):
    if isinstance(theirs, (tuple, list)):
        assert isinstance(ours, (tuple, list)) and len(ours) == len(theirs)
        for a, b in zip(ours, theirs):
            assert_same_tree(a, b)
    elif isinstance(theirs, dict):
        assert ours.keys() == theirs.keys()
        for key in theirs:
            assert_same_tree(ours[key], theirs[key])
    elif isinstance(theirs, torch.Tensor):
        assert tuple(ours.shape) == tuple(theirs.shape)
        assert ours.requires_grad == theirs.requires_grad
        assert_close(ours, theirs, rtol=1e-6, atol=1e-8)
    else:
        assert ours == theirs


def check(fn, *arrays):
    ours, theirs = on_both(fn, *arrays)
    assert_same_tree(ours, theirs)


A = randn(4, seed=1)
B = randn(4, seed=2)
M = randn(3, 4, seed=3)


def scalar(lib, x, y):
    return (x.sin() * y).sum() + (x * x).exp().mean()


def vector(lib, x, y):
    return (x.tanh() @ y.unsqueeze(-1).expand(4, 2)) * x[:2]


def test_grad_and_argnums():
    check(lambda lib, x, y: lib.func.grad(lambda a, b: scalar(lib, a, b))(x, y), A, B)
    check(lambda lib, x, y: lib.func.grad(lambda a, b: scalar(lib, a, b), argnums=(0, 1))(x, y),
          A, B)
    check(lambda lib, x, y: lib.func.grad(lambda a, b: scalar(lib, a, b), argnums=1)(x, y),
          A, B)


def test_grad_and_value_with_aux():
    def fn(lib, x, y):
        return lib.func.grad_and_value(
            lambda a, b: (scalar(lib, a, b), {"aux": a.cos()}), has_aux=True)(x, y)
    check(fn, A, B)


def test_grad_of_pytree_input():
    def fn(lib, x, y):
        return lib.func.grad(lambda p: (p["w"] * p["b"][0]).sum())({"w": x, "b": (y,)})
    check(fn, A, B)


def test_grad_of_grad():
    check(lambda lib, x: lib.func.grad(lambda a: lib.func.grad(
        lambda b: (b ** 3).sum())(a).sum())(x), A)


def test_grad_closure_perturbation():
    """The inner grad differentiates only its own input: d/dx [d/dy (x*y)] = 1."""
    check(lambda lib, x: lib.func.grad(lambda a: lib.func.grad(
        lambda b: (a * b).sum())(a).sum())(x), A)


def test_per_example_gradients():
    def fn(lib, w, x):
        y = lib.tensor([0, 1, 2])

        def loss(weight, row, target):
            logits = lib.nn.functional.linear(row.unsqueeze(0), weight)
            return lib.nn.functional.cross_entropy(logits, target.unsqueeze(0))
        return lib.func.vmap(lib.func.grad(loss), in_dims=(None, 0, 0))(w, x, y)
    check(fn, randn(3, 4, seed=4), M)


def test_vjp():
    def fn(lib, x, y):
        out, vjp_fn = lib.func.vjp(lambda a, b: vector(lib, a, b), x, y)
        return out, vjp_fn(lib.ones(2, dtype=x.dtype))
    check(fn, A, B)


def test_jvp():
    def fn(lib, x, y):
        return lib.func.jvp(lambda a: vector(lib, a, y), (x,), (y,))
    check(fn, A, B)


def test_jacrev_and_jacfwd():
    for transform in ("jacrev", "jacfwd"):
        check(lambda lib, x, y: getattr(lib.func, transform)(
            lambda a, b: vector(lib, a, b))(x, y), A, B)
        check(lambda lib, x, y: getattr(lib.func, transform)(
            lambda a, b: vector(lib, a, b), argnums=(0, 1))(x, y), A, B)
        check(lambda lib, m: getattr(lib.func, transform)(lambda a: a.sin() @ a.T)(m), M)


def test_jacrev_of_several_outputs_and_chunks():
    check(lambda lib, x: lib.func.jacrev(lambda a: (a.sin(), a.sum()))(x), A)
    check(lambda lib, x: lib.func.jacrev(lambda a: a.exp() * a, chunk_size=1)(x), A)


def test_hessian():
    check(lambda lib, x, y: lib.func.hessian(lambda a: scalar(lib, a, y))(x), A, B)
    check(lambda lib, x: lib.func.jacrev(lib.func.jacrev(lambda a: (a ** 3).sum()))(x), A)


def test_linearize():
    def fn(lib, x, y):
        out, jvp_fn = lib.func.linearize(lambda a: vector(lib, a, y), x)
        return out, jvp_fn(y)
    check(fn, A, B)


def test_results_keep_an_outer_graph():
    """An input that requires grad keeps the transform's result differentiable."""
    for lib in (ag, torch):
        x = lib.tensor(A, requires_grad=True)
        g = lib.func.grad(lambda a: (a ** 3).sum())(x)
        assert g.requires_grad
    ours = ag.tensor(A, requires_grad=True)
    theirs = torch.tensor(A, requires_grad=True)
    assert_close(ag.autograd.grad(ag.func.grad(lambda a: (a ** 3).sum())(ours).sum(), ours)[0],
                 torch.autograd.grad(torch.func.grad(lambda a: (a ** 3).sum())(theirs).sum(),
                                     theirs)[0])


@pytest.mark.parametrize("case", [
    lambda lib: lib.func.grad(lambda a: a * 2)(lib.ones(3)),
    lambda lib: lib.func.grad(lambda a: 3)(lib.ones(3)),
    lambda lib: lib.func.grad(lambda a: a.sum(), argnums=2)(lib.ones(3)),
    lambda lib: lib.func.grad(lambda a: a.sum(), has_aux=True)(lib.ones(3)),
    lambda lib: lib.func.jvp(lambda a: a, lib.ones(3), (lib.ones(3),)),
])
def test_errors_in_torchs_words(case):
    assert_same_error(case)


# ------------------------------------------------------------------ autograd.Function

def functions(lib):
    class Old(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g * 2

    class New(lib.autograd.Function):
        @staticmethod
        def forward(x):
            return x.sin() * 2

        @staticmethod
        def setup_context(ctx, inputs, output):
            ctx.save_for_backward(inputs[0])

        @staticmethod
        def backward(ctx, g):
            x, = ctx.saved_tensors
            return g * 2 * x.cos()

    class Generated(New):
        generate_vmap_rule = True

    class OwnRule(New):
        @staticmethod
        def vmap(info, in_dims, x):
            return OwnRule.apply(x.movedim(in_dims[0], 0)) + info.batch_size, 0

    return {"Old": Old, "New": New, "Generated": Generated, "OwnRule": OwnRule}


def test_function_vmap_rules_and_generated_rules():
    for name, in_dims in (("Generated", 0), ("OwnRule", 1)):
        results = []
        for lib in (ag, torch):
            x = lib.tensor(M, requires_grad=True)
            out = lib.vmap(functions(lib)[name].apply, in_dims=in_dims)(x)
            results.append((out, lib.autograd.grad((out * out).sum(), x)[0]))
        assert_same_tree(*results)


def test_function_under_grad_and_vmap_of_grad():
    check(lambda lib, x: lib.func.grad(lambda t: functions(lib)["New"].apply(t).sum())(x), A)
    check(lambda lib, m: lib.vmap(lib.func.grad(
        lambda t: functions(lib)["Generated"].apply(t).sum()))(m), M)


@pytest.mark.parametrize("case", [
    lambda lib: lib.vmap(functions(lib)["Old"].apply)(lib.ones(2, 3)),
    lambda lib: lib.vmap(functions(lib)["New"].apply)(lib.ones(2, 3)),
    lambda lib: lib.func.grad(lambda t: functions(lib)["Old"].apply(t).sum())(lib.ones(3)),
    lambda lib: lib.vmap(lambda t: functions(lib)["New"].apply(t) * 2)(lib.ones(2, 3)),
])
def test_functions_that_cannot_be_transformed(case):
    assert_same_error(case)


def test_function_apply_is_restored():
    original = ag.autograd.Function.__dict__["apply"]
    ag.vmap(lambda t: t * 2)(ag.ones(2, 2))
    ag.func.grad(lambda t: t.sum())(ag.ones(2))
    assert ag.autograd.Function.__dict__["apply"] is original


def test_jacobians_under_vmap_and_with_aux():
    """jacfwd of batched primals (vmap outside) takes the vmapped jvp; unbatched ones, forward
    AD's batched tangents: both agree with torch."""
    for transform in ("jacfwd", "jacrev", "hessian"):
        check(lambda lib, m: lib.vmap(getattr(lib.func, transform)(
            lambda a: (a.sin() * a).sum() if transform == "hessian" else a.sin() * a.sum()))(m),
            M)
    for transform in ("jacfwd", "jacrev"):
        check(lambda lib, x: getattr(lib.func, transform)(
            lambda a: (a.exp(), {"norm": a.norm()}), has_aux=True)(x), A)


def test_per_example_gradients_are_laid_out_as_torch_funcs():
    # a shared weight's per-example gradients come out contiguous (``.view(B, -1)`` works),
    # from a bmm over the expanded weight (NOTE [Gradients in their operand's layout])
    def fn(lib, w, x):
        def loss(weight, row):
            return lib.nn.functional.linear(row.unsqueeze(0), weight).tanh().sum()
        grads = lib.func.vmap(lib.func.grad(loss), in_dims=(None, 0))(w, x)
        return list(grads.stride()), grads.view(grads.shape[0], -1).tolist()
    (ours_strides, ours), (theirs_strides, theirs) = on_both(fn, randn(3, 4, seed=4),
                                                             randn(5, 4, seed=5))
    assert ours_strides == theirs_strides
    np.testing.assert_allclose(ours, theirs, rtol=1e-5, atol=1e-6)


def test_a_transform_frees_its_results_without_the_garbage_collector():
    # nothing the transforms keep refers back to the results (NOTE [Pytree walks without
    # closures]): a per-example gradient is freed as soon as the caller drops it
    import gc
    import weakref
    w, x = ag.tensor(randn(3, 4, seed=4)), ag.tensor(randn(5, 4, seed=5))
    per_example = ag.func.vmap(ag.func.grad(lambda weight, row: (row @ weight.t()).sum()),
                               in_dims=(None, 0))
    enabled = gc.isenabled()
    gc.disable()
    try:
        grads = per_example(w, x)
        alive = weakref.ref(grads)
        del grads
        assert alive() is None
    finally:
        if enabled:
            gc.enable()
