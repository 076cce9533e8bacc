"""What running PyTorch's functorch test_eager_transforms.py over autograd_cy found (the runner
stays outside the repository): each test here is our own smallest case of one difference,
against torch.func as the oracle."""
import pytest
import torch

import autograd_cy as ag
from tests.oracle import assert_same_error, randn
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
                                  "vjp_fn_inside", "nested", "jvp_of_grad", "hessian"])
def test_no_grad_around_a_transform_stops_only_the_outer_level(case):
    def fn(lib, x):
        F = lib.func
        if case == "jvp_of_grad":       # forward AD is not grad mode's
            with lib.no_grad():
                return F.jvp(F.grad(lambda t: (t ** 3).sum()), (x,), (x.cos(),))
        if case == "hessian":
            with lib.no_grad():
                return F.hessian(lambda t: (t ** 3).sum())(x)
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


# ------------------------------------------------------------------ the transforms' checks

def _x(lib):
    return lib.arange(3.0)


ERRORS = {
    # argnums, checked as torch.func's _slice_argnums
    "argnums_list": lambda lib: lib.func.grad(lib.mul, argnums=[0])(_x(lib), _x(lib)),
    "argnums_not_int": lambda lib: lib.func.grad(lib.mul, argnums=("0",))(_x(lib), _x(lib)),
    "argnums_repeated": lambda lib: lib.func.jacrev(lib.mul, argnums=(0, -2))(_x(lib), _x(lib)),
    "argnums_empty": lambda lib: lib.func.jacfwd(lib.sin, argnums=())(_x(lib)),
    "argnums_out_of_range": lambda lib: lib.func.grad(lib.mul, argnums=-3)(_x(lib), _x(lib)),
    "not_a_tensor": lambda lib: lib.func.vjp(lambda a: a, 1.0),
    # aux must hold tensors only
    "grad_aux": lambda lib: lib.func.grad(lambda a: (a.sum(), [a, 1]), has_aux=True)(_x(lib)),
    "vjp_aux": lambda lib: lib.func.vjp(lambda a: (a, "abc"), _x(lib), has_aux=True),
    "jacrev_aux": lambda lib: lib.func.jacrev(lambda a: (a, 1.0), has_aux=True)(_x(lib)),
    "jacfwd_aux": lambda lib: lib.func.jacfwd(lambda a: (a, [1]), has_aux=True)(_x(lib)),
    "jvp_aux": lambda lib: lib.func.jvp(lambda a: (a, 1), (_x(lib),), (_x(lib),),
                                        has_aux=True),
    "jvp_aux_not_a_pair": lambda lib: lib.func.jvp(lambda a: [a, a], (_x(lib),), (_x(lib),),
                                                   has_aux=True),
    # outputs: a non-empty pytree of tensors
    "vjp_no_output": lambda lib: lib.func.vjp(lambda a: (), _x(lib)),
    "vjp_none_output": lambda lib: lib.func.vjp(lambda a: None, _x(lib)),
    "vjp_number_output": lambda lib: lib.func.vjp(lambda a: 1, _x(lib)),
    "jacrev_no_output": lambda lib: lib.func.jacrev(lambda a: ())(_x(lib)),
    "jacfwd_no_output": lambda lib: lib.func.jacfwd(lambda a: ())(_x(lib)),
    "jacfwd_number_output": lambda lib: lib.func.jacfwd(lambda a: True)(_x(lib)),
    "jvp_none_output": lambda lib: lib.func.jvp(lambda a: None, (_x(lib),), (_x(lib),)),
    # cotangents must have the outputs' structure
    "vjp_fn_structure": lambda lib: lib.func.vjp(lambda a: (a, (a, a)), _x(lib))[1](
        ((_x(lib), (_x(lib), _x(lib))),)),
    # jacrev and jacfwd are for real functions
    "jacrev_complex_input": lambda lib: lib.func.jacrev(lib.conj)(_x(lib) * 1j),
    "jacfwd_complex_output": lambda lib: lib.func.jacfwd(lambda a: a * 0.5j)(_x(lib)),
    # jvp's primals and tangents
    "jvp_list_tangents": lambda lib: lib.func.jvp(lib.sin, (_x(lib),), [_x(lib)]),
    "jvp_number_tangent": lambda lib: lib.func.jvp(lib.sin, (_x(lib),), (1.0,)),
    "jvp_no_primals": lambda lib: lib.func.jvp(lib.sin, (), ()),
    "jvp_strict": lambda lib: lib.func.jvp(lambda a: (a, lib.ones(3)), (_x(lib),), (_x(lib),),
                                           strict=True),
    # linearize's jvp_fn checks its tangents against the primals
    "linearize_structure": lambda lib: lib.func.linearize(lib.sin, _x(lib))[1]((_x(lib),)),
    "linearize_shape": lambda lib: lib.func.linearize(lib.sin, _x(lib))[1](lib.ones(1, 3)),
    "linearize_dtype": lambda lib: lib.func.linearize(lib.sin, _x(lib))[1](_x(lib).double()),
    # jacrev's chunk_size
    "jacrev_chunk_size": lambda lib: lib.func.jacrev(lib.sin, chunk_size=0),
    # saved tensor hooks around or inside grad, vjp, jacrev, hessian
    "hooks_around_grad": lambda lib: _with_hooks(lib, lambda: lib.func.grad(_sum_sin(lib))(
        _x(lib))),
    "hooks_inside_vjp": lambda lib: lib.func.vjp(_hooked(lib, _sum_sin(lib)), _x(lib)),
    "hooks_around_jacrev": lambda lib: _with_hooks(lib, lambda: lib.func.jacrev(lib.sin)(
        _x(lib))),
    "hooks_inside_hessian": lambda lib: lib.func.hessian(_hooked(lib, _sum_sin(lib)))(_x(lib)),
}


def _sum_sin(lib):
    return lambda t: t.sin().sum()


def _with_hooks(lib, run):
    with lib.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t):
        return run()


def _hooked(lib, fn):
    return lambda t: _with_hooks(lib, lambda: fn(t))


# where torch's message names its dtypes (torch.float64): the key words
PATTERNS = {"linearize_dtype": (r"^tangent:0 with dtype \S+float64 in flattened pytree "
                                r"doesn't match the dtype \S+float32 of the corresponding")}


@pytest.mark.parametrize("case", sorted(ERRORS))
def test_transform_refuses_as_torch_func(case):
    assert_same_error(ERRORS[case], *([PATTERNS[case]] if case in PATTERNS else []))


# ------------------------------------------------------------------ Parameter op batched

@pytest.mark.parametrize("op", ["add", "sub", "mul", "truediv", "pow", "matmul"])
def test_parameter_on_the_left_of_a_batched_tensor(op):
    import operator

    def fn(lib, x, w):
        w = lib.nn.Parameter(w.abs() + 0.5)
        return lib.func.vmap(lambda t: getattr(operator, op)(w, t))(x), w - x  # and after
    check(fn, M.__abs__(), A)


def test_maml_step_inside_vmap():
    """A gradient step of a module's Parameters taken per task inside vmap."""
    def fn(lib, xs, ys, w, b):
        model = lib.nn.Linear(3, 1).double()
        with lib.no_grad():
            model.weight.copy_(w)
            model.bias.copy_(b)
        params = dict(model.named_parameters())

        def task_loss(x, y):
            def loss(p):
                return ((lib.func.functional_call(model, p, (x,)) - y) ** 2).mean()
            grads = lib.func.grad(loss)(params)
            stepped = {k: params[k] - 0.1 * grads[k] for k in params}
            return loss(stepped)
        return lib.func.vmap(task_loss)(xs, ys)
    check(fn, randn(2, 4, 3, seed=13), randn(2, 4, 1, seed=14), randn(1, 3, seed=19),
          randn(1, seed=20))


# ------------------------------------------------------------------ saved tensor hooks, chunks

@pytest.mark.parametrize("where", ["around", "inside"])
def test_forward_transforms_allow_saved_tensor_hooks(where):
    def fn(lib, x):
        f = _sum_sin(lib)
        if where == "around":
            return _with_hooks(lib, lambda: lib.func.jvp(f, (x,), (x,)))
        return lib.func.jacfwd(_hooked(lib, f))(x), lib.func.vmap(_hooked(lib, f))(x[None])
    check(fn, A)


@pytest.mark.parametrize("preallocate", [False, True])
def test_jacrev_takes_preallocate_and_copy(preallocate):
    def fn(lib, x):
        return lib.func.jacrev(lambda t: t.sin() * t.sum(), chunk_size=2,
                               _preallocate_and_copy=preallocate)(x)
    check(fn, A)


# ------------------------------------------------------------------ custom Functions

def _old_style_sin(lib):
    class OldSin(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x.sin()

        @staticmethod
        def backward(ctx, gy):
            (x,) = ctx.saved_tensors
            return gy * x.cos()
    return OldSin


@pytest.mark.parametrize("transform", ["grad", "vjp", "jvp", "jacrev", "jacfwd", "hessian",
                                       "functionalize"])
def test_function_given_to_a_transform_needs_setup_context(transform):
    def fn(lib):
        apply, x, F = _old_style_sin(lib).apply, _x(lib), lib.func
        if transform == "vjp":
            return F.vjp(apply, x)
        if transform == "jvp":
            return F.jvp(apply, (x,), (x,))
        if transform == "grad":
            return F.grad(apply)(x[0])
        return getattr(F, transform)(apply)(x)
    assert_same_error(fn)


def _vmap_rule_function(lib, rule, forward=None, generate=False):
    class WithRule(lib.autograd.Function):
        generate_vmap_rule = generate

        @staticmethod
        def forward(x):
            return forward(x) if forward else x * 2

        @staticmethod
        def setup_context(ctx, inputs, output):
            pass

        @staticmethod
        def backward(ctx, g):
            return g

        vmap = staticmethod(rule)
    return WithRule


VMAP_RULE_ERRORS = {
    "rule_and_generate": dict(rule=lambda info, dims, x: (x * 2, 0), generate=True),
    "one_return": dict(rule=lambda info, dims, x: x * 2),
    "four_returns": dict(rule=lambda info, dims, x: (x, x, 0, 0)),
    "out_dims_tuple_for_a_tensor": dict(rule=lambda info, dims, x: (x * 2, (None,))),
    "out_dims_tuple_for_a_list": dict(rule=lambda info, dims, x: ([x * 2], (0,)),
                                      forward=lambda x: [x * 2]),
}


@pytest.mark.parametrize("case", sorted(VMAP_RULE_ERRORS))
def test_function_vmap_rule_errors(case):
    def fn(lib):
        function = _vmap_rule_function(lib, **VMAP_RULE_ERRORS[case])
        return lib.func.vmap(function.apply)(lib.ones(2, 3))
    if case == "one_return":    # the message names the Tensor class
        assert_same_error(fn, RuntimeError, r"^Expected the vmap staticmethod to have two "
                          r"returns, an output and out_dims .* Got a <class '\S+Tensor'>")
    else:
        assert_same_error(fn)


def test_function_vmap_refuses_kwarg_only_tensors():
    def fn(lib):
        class KwargOnly(lib.autograd.Function):
            @staticmethod
            def forward(x, *, y):
                return x + y

            @staticmethod
            def setup_context(ctx, inputs, output):
                pass

            @staticmethod
            def vmap(info, in_dims, x, *, y):
                return x + y, 0
        x = lib.ones(2, 3)
        return lib.func.vmap(KwargOnly.apply)(x, y=x)
    assert_same_error(fn, NotImplementedError, r"^Run vmap on autograd.Function with kwarg-only "
                      r"Tensor args. Please do not pass kwarg-only Tensors to autograd.Function."
                      r" Got: \{'y': tensor")


def test_function_vmap_rule_in_dims_follow_the_arguments_pytree():
    def fn(lib):
        seen = []

        class Pair(lib.autograd.Function):
            @staticmethod
            def forward(x, ys):
                return x + ys[0] * ys[1]

            @staticmethod
            def setup_context(ctx, inputs, output):
                pass

            @staticmethod
            def vmap(info, in_dims, x, ys):
                seen.append(in_dims)
                return x + ys[0] * ys[1], 0
        v, w = lib.arange(2.0), lib.ones(2)
        out = lib.func.vmap(Pair.apply, in_dims=(0, [0, None]))(v, [v, w])
        return out, repr(seen)
    ours, theirs = [fn(lib) for lib in (ag, torch)]
    assert ours[1] == theirs[1] == "[(0, [0, None])]"
    assert ours[0].tolist() == theirs[0].tolist()


@pytest.mark.parametrize("transform", ["grad", "vjp"])
def test_function_node_under_a_transform_is_generated(transform):
    def fn(lib):
        names = []

        class FooBar(lib.autograd.Function):
            @staticmethod
            def forward(x):
                return x.clone()

            @staticmethod
            def setup_context(ctx, inputs, output):
                pass

            @staticmethod
            def backward(ctx, g):
                return g

        def f(x):
            y = FooBar.apply(x)
            names.append((type(y.grad_fn).__name__, y.grad_fn.name()))
            return y
        x = lib.tensor(1.0)
        lib.func.grad(f)(x) if transform == "grad" else lib.func.vjp(f, x)
        plain = FooBar.apply(x.requires_grad_())
        names.append((type(plain.grad_fn).__name__, plain.grad_fn.name()))
        return names
    assert fn(ag) == fn(torch)


# ------------------------------------------------------------------ chunks inside vmap

@pytest.mark.parametrize("inner", ["vmap", "jacrev"])
def test_chunked_transform_inside_vmap(inner):
    def fn(lib, x):
        F = lib.func
        if inner == "vmap":
            return F.vmap(lambda t: F.vmap(lambda u: u.sin() * 2, chunk_size=2)(t))(x)
        return F.vmap(F.jacrev(lambda t: (t.sin(), t.sum()), chunk_size=2))(x)
    check(fn, M)


# ------------------------------------------------------------------ autograd.functional inside

@pytest.mark.parametrize("case", ["vmap_jacobian", "vmap_vjp", "grad_vjp", "grad_jvp",
                                  "grad_hessian", "jvp_vhp"])
def test_autograd_functional_inside_a_transform(case):
    def fn(lib):
        F, AF = lib.func, lib.autograd.functional
        f = _sum_sin(lib)
        if case == "vmap_jacobian":
            return F.vmap(lambda a: AF.jacobian(f, a))(lib.ones(2, 3))
        if case == "vmap_vjp":
            return F.vmap(lambda a: AF.vjp(f, a))(lib.ones(2, 3))
        if case == "grad_vjp":
            return F.grad(lambda a: AF.vjp(f, a)[0])(lib.tensor(1.0))
        if case == "grad_jvp":
            return F.grad(lambda a: AF.jvp(f, a, a)[1])(lib.tensor(1.0))
        if case == "grad_hessian":
            return F.grad(lambda a: AF.hessian(f, a))(lib.tensor(1.0))
        return F.jvp(lambda a: AF.vhp(f, a, a)[1], (lib.ones(3),), (lib.ones(3),))
    assert_same_error(fn)


@pytest.mark.parametrize("case", ["requires_grad_", "requires_grad_false", "of_a_detach"])
def test_requires_grad_of_a_batched_tensor_refused(case):
    def fn(lib):
        def f(a):
            if case == "requires_grad_":
                return a.requires_grad_()
            if case == "requires_grad_false":
                return a.requires_grad_(False)
            return a.detach().requires_grad_()
        return lib.func.vmap(f)(lib.ones(2, 3))
    assert_same_error(fn)


# ------------------------------------------------------------------ factories of a batched tensor

FACTORIES = {
    "new_zeros": lambda lib, t: t.new_zeros(3),
    "new_ones": lambda lib, t: t.new_ones((3,)),
    "new_empty": lambda lib, t: t.new_empty([3]),
    "new_full": lambda lib, t: t.new_full((3,), 2.0),
    "zeros_like": lambda lib, t: lib.zeros_like(t),
    "ones_like": lambda lib, t: lib.ones_like(t),
    "empty_like": lambda lib, t: lib.empty_like(t),
    "full_like": lambda lib, t: lib.full_like(t, 2.0),
}


@pytest.mark.parametrize("factory", sorted(FACTORIES))
def test_factory_of_a_batched_tensor_is_batched(factory):
    """One new tensor per example: a batched value copied into it in place works."""
    def fn(lib, x):
        def f(t):
            made = FACTORIES[factory](lib, t)
            return made.copy_(t * 3), made.sum()
        return lib.func.vmap(f)(x), lib.func.vmap(lib.func.vmap(f))(x[None])
    check(fn, M)


def test_vmap_of_grad_of_an_unrelated_output():
    def fn(lib, x):
        return lib.func.vmap(lib.func.grad(lambda t: lib.tensor(2.0)))(x)
    check(fn, M)


# ------------------------------------------------------------------ forward AD: a view's base

@pytest.mark.parametrize("layout", ["transposed", "contiguous"])
def test_inplace_dual_into_a_view_reaches_its_base_tangent(layout):
    """The base's fresh tangent has the base's layout, so its view's tangent is a view of it."""
    def fn(lib, x, y, yt):
        fwAD = lib.autograd.forward_ad
        with fwAD.dual_level():
            base = (x.movedim(1, 0) if layout == "transposed" else x).clone()
            base[:, 0].copy_(fwAD.make_dual(y, yt))
            return fwAD.unpack_dual(base).tangent
    check(fn, randn(2, 2, 3, seed=15), randn(2, 3, seed=16), randn(2, 3, seed=17))


def test_vmap_of_jvp_writing_a_dual_into_a_view():
    def fn(lib, x, y, yt):
        def f(x, y):
            x = x.clone()
            x[0].copy_(y)
            return x
        return lib.func.vmap(lambda a, b, bt: lib.func.jvp(lambda b: f(a, b), (b,), (bt,)),
                             in_dims=(1, 1, 1))(x, y, yt)
    check(fn, randn(2, 2, 3, seed=15), randn(3, 2, seed=16), randn(3, 2, seed=17))


# ------------------------------------------------------------------ jacfwd inside forward AD

@pytest.mark.parametrize("case", ["jacfwd_jacfwd", "jvp_jacfwd", "argnums", "aux",
                                  "vmap_jacfwd_jacfwd"])
def test_jacfwd_inside_an_open_forward_level(case):
    def fn(lib, x, y):
        F = lib.func

        def f(a):
            return a.sin() * a.sum()
        if case == "jacfwd_jacfwd":
            return F.jacfwd(F.jacfwd(f))(x)
        if case == "jvp_jacfwd":
            return F.jvp(F.jacfwd(f), (x,), (y,))
        if case == "argnums":
            return F.jacfwd(F.jacfwd(lambda a, b: (a * b).sin(), argnums=1), argnums=(0, 1))(x, y)
        if case == "aux":
            return F.jacfwd(F.jacfwd(lambda a: (a.sin(), a.cos().sum()), has_aux=True),
                            has_aux=True)(x)
        return F.vmap(F.jacfwd(F.jacfwd(f)))(lib.stack([x, y]))
    check(fn, A, randn(3, seed=18))


# ------------------------------------------------------------------ inference_mode around

INFERENCE = {
    "grad": lambda F, lib, x: F.grad(lambda a: (a ** 2).sum())(x),
    "vjp": lambda F, lib, x: F.vjp(lambda a: a ** 2, x)[1](lib.ones(3)),
    "jvp": lambda F, lib, x: F.jvp(lambda a: (a ** 2).sum(), (x,), (lib.ones(3),)),
    "jacrev": lambda F, lib, x: F.jacrev(lambda a: a ** 2)(x),
    "jacfwd": lambda F, lib, x: F.jacfwd(lambda a: a ** 2)(x),
    "hessian": lambda F, lib, x: F.hessian(lambda a: (a ** 3).sum())(x),
    "vmap_grad": lambda F, lib, x: F.vmap(F.grad(lambda a: (a ** 2).sum()))(x[None]),
    "inference_inside": lambda F, lib, x: F.grad(lambda a: (a - _inferred(lib, a)).sum())(x),
}


def _inferred(lib, a):
    with lib.inference_mode():
        return a ** 2


@pytest.mark.parametrize("case", sorted(INFERENCE))
@pytest.mark.parametrize("requires_grad", [False, True])
def test_transform_under_inference_mode(case, requires_grad):
    """The transform still differentiates; its results record nothing."""
    def fn(lib, x):
        x = x.requires_grad_(requires_grad)
        with lib.inference_mode():
            result = INFERENCE[case](lib.func, lib, x)
            return result, lib.is_inference_mode_enabled()
    check(fn, A)


# ------------------------------------------------------------------ forward AD: in-place

@pytest.mark.parametrize("case", ["hessian", "jvp_of_grad", "forward_over_reverse"])
def test_inplace_op_keeps_the_old_tangent_for_its_backward(case):
    """x.clone().mul_(x) saves the old value for its backward; under forward AD the old value
    keeps the old tangent (the in-place op writes the new one into self's)."""
    def fn(lib, x):
        def f(a):
            return a.clone().mul_(a).sum()
        if case == "hessian":
            return lib.func.hessian(f)(x)
        if case == "jvp_of_grad":
            return lib.func.jvp(lib.func.grad(f), (x,), (x.cos(),))
        fwAD = lib.autograd.forward_ad
        with fwAD.dual_level():
            d = fwAD.make_dual(x.clone().requires_grad_(), x.cos())
            (g,) = lib.autograd.grad(f(d), d, create_graph=True)
            return fwAD.unpack_dual(g).tangent.detach()
    check(fn, A)
