"""What running PyTorch's functorch test_eager_transforms.py over autograd_cy found (the runner
stays outside the repository): each test here is our own smallest case of one difference,
against torch.func as the oracle."""
import pytest

from tests.oracle import randn
from tests.test_func_transforms import check

A = randn(3, seed=11)
M = randn(2, 3, seed=12)


# ------------------------------------------------------------------ unrelated outputs

@pytest.mark.parametrize("case", ["grad", "grad_partly", "vjp", "jacrev", "hessian",
                                  "vjp_two_outputs"])
def test_output_unrelated_to_the_inputs_has_zero_gradient(case):
    def fn(lib, x):
        c = lib.tensor(2.0)
        if case == "grad":
            return lib.func.grad(lambda t: c)(x)
        if case == "grad_partly":
            return lib.func.grad(lambda t, u: (t * u).sum(), argnums=(0, 1))(x, c)
        if case == "vjp":
            return lib.func.vjp(lambda t: c, x)[1](lib.tensor(1.0))
        if case == "jacrev":
            return lib.func.jacrev(lambda t: lib.ones(2))(x)
        if case == "hessian":
            return lib.func.hessian(lambda t: c)(x)
        out, vjp_fn = lib.func.vjp(lambda t: (t.sin(), c * 1), x)
        return vjp_fn((lib.ones(3), lib.tensor(1.0)))
    check(fn, A)


# ------------------------------------------------------------------ vmap of a transform of an op

@pytest.mark.parametrize("transform", ["grad", "vjp", "jacrev", "jacfwd", "jvp"])
def test_vmap_of_a_transform_of_an_op_looked_up_before_vmap(transform):
    def fn(lib, x):
        F = lib.func
        if transform == "grad":
            return F.vmap(F.grad(lib.sin))(x)
        if transform == "vjp":
            return F.vmap(lambda t: F.vjp(lib.sin, t)[1](lib.ones(3)))(x)
        if transform == "jacrev":
            return F.vmap(F.jacrev(lib.sin))(x)
        if transform == "jacfwd":
            return F.vmap(F.jacfwd(lib.sin))(x)
        return F.vmap(lambda t: F.jvp(lib.sin, (t,), (lib.ones(3),))[1])(x)
    check(fn, A if transform == "grad" else M)


# ------------------------------------------------------------------ grad mode around a transform

@pytest.mark.parametrize("case", ["grad", "grad_and_value", "vjp_all_inside", "vjp_fn_outside",
                                  "vjp_fn_inside", "nested"])
def test_no_grad_around_a_transform_stops_only_the_outer_level(case):
    def fn(lib, x):
        F = lib.func
        x = x.requires_grad_()
        if case == "grad":
            with lib.no_grad():
                return F.grad(lambda t: t.sin().sum())(x)
        if case == "grad_and_value":
            with lib.no_grad():
                return F.grad_and_value(lambda t: (t ** 3).sum())(x)
        if case == "vjp_all_inside":
            with lib.no_grad():
                out, vjp_fn = F.vjp(lambda t: t ** 2, x)
                return out, vjp_fn(lib.ones(3))
        if case == "vjp_fn_outside":     # made under no_grad: the gradient still records
            with lib.no_grad():
                out, vjp_fn = F.vjp(lambda t: t ** 2, x)
            (g,) = vjp_fn(lib.ones(3))
            return out, g, lib.autograd.grad(g.sum(), x)
        if case == "vjp_fn_inside":
            out, vjp_fn = F.vjp(lambda t: t ** 2, x)
            with lib.no_grad():
                (g,) = vjp_fn(lib.ones(3))
            return out, g, lib.autograd.grad(out.sum(), x)

        def inner(t):                    # a no_grad grad inside grad is a constant
            with lib.no_grad():
                shift = F.grad(lambda u: (u ** 3).sum())(t)
            return (t ** 3 - shift).sum()
        g = F.grad(inner)(x)
        return g, lib.autograd.grad(g.sum(), x)
    check(fn, A)
