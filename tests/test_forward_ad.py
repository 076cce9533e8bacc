"""Forward-mode AD (``autograd_cy.autograd.forward_ad``) against torch.autograd.forward_ad:
the API and its errors, each op's tangent, views and in-place ops, custom Functions' jvp,
reverse-over-forward and forward-over-reverse (Hessian-vector products)."""
import numpy as np
import pytest
import torch

import autograd_cy as ag
import autograd_cy.autograd.forward_ad as fwAD
from tests.oracle import assert_close, assert_same_error, check_jvp, randn, to_numpy


def dual(lib, array, tangent):
    return lib.autograd.forward_ad.make_dual(lib.tensor(array), lib.tensor(tangent))


# ------------------------------------------------------------------ the API

def test_level_numbers_and_tangent_lifetime():
    x, v = ag.tensor(randn(3)), ag.tensor(randn(3, seed=1))
    with fwAD.dual_level() as level:
        assert level == 0
        d = fwAD.make_dual(x, v)
        primal, tangent = fwAD.unpack_dual(d)
        assert tangent is v                         # the tangent as-is
        assert primal._base is x and d._base is x   # views of x, sharing its memory
        assert fwAD.unpack_dual(primal).tangent is None
        unpacked = fwAD.unpack_dual(d)
        assert type(unpacked) is fwAD.UnpackedDualTensor and unpacked.primal is not None
    assert fwAD.unpack_dual(d).tangent is None      # gone with its level
    assert fwAD.unpack_dual(d).primal is d
    assert fwAD.enter_dual_level() == 0
    fwAD.exit_dual_level()
    with fwAD.dual_level():                         # a new level sees no old tangent
        assert fwAD.unpack_dual(d).tangent is None


@pytest.mark.parametrize("snippet", [
    "lib.autograd.forward_ad.make_dual(lib.ones(2), lib.ones(2))",
    "lib.autograd.forward_ad.exit_dual_level()",
])
def test_errors_outside_a_level(snippet):
    assert_same_error(lambda lib: eval(snippet))


@pytest.mark.parametrize("snippet", [
    "fw.enter_dual_level()",
    "fw.make_dual(lib.ones(3), lib.ones(4))",
    "fw.make_dual(lib.ones(3), lib.ones(3), level=2)",
    "fw.unpack_dual(fw.make_dual(lib.ones(3), lib.ones(3)), level=2)",
    "fw.exit_dual_level(level=3)",
    "fw.make_dual(fw.make_dual(lib.ones(3), lib.ones(3)), lib.ones(3))",
    "fw.unpack_dual(3)",
])
def test_errors_inside_a_level(snippet):
    def run(lib):
        fw = lib.autograd.forward_ad
        with fw.dual_level():
            eval(snippet, {"fw": fw, "lib": lib})
    assert_same_error(run)


@pytest.mark.parametrize("snippet", ["fw.make_dual(lib.arange(3), lib.arange(3))",
                                     "fw.make_dual(lib.ones(3), lib.arange(3))"])
def test_non_floating_dual_tensors_are_refused(snippet):
    def run(lib):
        fw = lib.autograd.forward_ad
        with fw.dual_level():
            eval(snippet, {"fw": fw, "lib": lib})
    # torch names the dtype torch.int64, autograd_cy autograd_cy.int64
    assert_same_error(run, ValueError, r"^Expected (primal|tangent) to be floating point or "
                      r"complex, but got: \w+\.int64$")


@pytest.mark.parametrize("snippet", ["d // 2", "lib.add(d, 1, out=lib.empty(3))",
                                     "lib.mul(lib.ones(3), d, out=lib.empty(3))",
                                     "lib.sum(d, 0, out=lib.empty(()))"])
def test_ops_without_a_tangent_formula_refuse_dual_tensors(snippet):
    def run(lib):
        fw = lib.autograd.forward_ad
        with fw.dual_level():
            d = fw.make_dual(lib.ones(3), lib.ones(3))
            eval(snippet, {"d": d, "lib": lib})
    assert_same_error(run)


def test_no_grad_keeps_forward_ad_and_inference_mode_stops_it():
    for lib in (ag, torch):
        fw = lib.autograd.forward_ad
        with fw.dual_level():
            d = dual(lib, randn(3), randn(3, seed=1))
            with lib.no_grad():
                assert fw.unpack_dual(d.exp()).tangent is not None
            with lib.inference_mode():
                assert fw.unpack_dual(d.exp()).tangent is None


def test_detach_drops_the_tangent():
    for lib in (ag, torch):
        fw = lib.autograd.forward_ad
        with fw.dual_level():
            d = dual(lib, randn(3), randn(3, seed=1))
            assert fw.unpack_dual(d.detach()).tangent is None


# ------------------------------------------------------------------ op tangents

A, B = randn(2, 3), randn(2, 3, seed=5)
P = randn(2, 3, positive=True)
ROW = randn(3, seed=7)
M, N = randn(2, 3, seed=2), randn(3, 4, seed=3)

UNARY = {
    "exp": lambda lib, x: lib.exp(x),
    "expm1": lambda lib, x: lib.expm1(x),
    "sin": lambda lib, x: lib.sin(x),
    "cos": lambda lib, x: lib.cos(x),
    "tanh": lambda lib, x: lib.tanh(x),
    "tan": lambda lib, x: lib.tan(x * 0.4),
    "asin": lambda lib, x: lib.asin(x * 0.3),
    "acos": lambda lib, x: lib.acos(x * 0.3),
    "atan": lambda lib, x: lib.atan(x),
    "sinh": lambda lib, x: lib.sinh(x),
    "cosh": lambda lib, x: lib.cosh(x),
    "asinh": lambda lib, x: lib.asinh(x),
    "atanh": lambda lib, x: lib.atanh(x * 0.3),
    "sigmoid": lambda lib, x: lib.sigmoid(x),
    "relu": lambda lib, x: lib.relu(x),
    "abs": lambda lib, x: lib.abs(x),
    "sign": lambda lib, x: lib.sign(x),
    "neg": lambda lib, x: -x,
    "square": lambda lib, x: lib.square(x),
    "pow_number": lambda lib, x: x ** 3,
    "pow_zero": lambda lib, x: x ** 0,
    "rpow": lambda lib, x: 2.0 ** x,
    "sum": lambda lib, x: x.sum(),
    "sum_dim": lambda lib, x: x.sum(1, keepdim=True),
    "mean": lambda lib, x: x.mean(0),
    "prod": lambda lib, x: x.prod(),
    "prod_dim": lambda lib, x: x.prod(1),
    "norm": lambda lib, x: x.norm(),
    "norm_1_dim": lambda lib, x: x.norm(1, dim=1),
    "logsumexp": lambda lib, x: x.logsumexp(1),
    "clone": lambda lib, x: x.clone(),
    "float": lambda lib, x: x.float(),
    "contiguous": lambda lib, x: x.t().contiguous(),
    "reshape_copy": lambda lib, x: x.t().reshape(6),
    "view": lambda lib, x: x.view(3, 2),
    "transpose": lambda lib, x: x.transpose(0, 1),
    "permute": lambda lib, x: x.permute(1, 0),
    "unsqueeze_squeeze": lambda lib, x: x.unsqueeze(0).squeeze(0),
    "expand": lambda lib, x: x[:1].expand(4, 3),
    "select": lambda lib, x: x[1],
    "slice": lambda lib, x: x[:, 1:],
    "narrow": lambda lib, x: x.narrow(1, 0, 2),
    "flatten": lambda lib, x: x.flatten(),
    "repeat": lambda lib, x: x.repeat(2, 1),
    "chain": lambda lib, x: lib.tanh(x * 2.0 + 1.0).sum(0) / 3.0,
}
UNARY_POSITIVE = {
    "log": lambda lib, x: lib.log(x),
    "acosh": lambda lib, x: lib.acosh(x + 1.1),
    "log1p": lambda lib, x: lib.log1p(x),
    "sqrt": lambda lib, x: lib.sqrt(x),
    "rsqrt": lambda lib, x: lib.rsqrt(x),
    "reciprocal": lambda lib, x: lib.reciprocal(x),
    "pow_fraction": lambda lib, x: x ** 1.5,
}
BINARY = {
    "add": lambda lib, x, y: x + y,
    "add_alpha": lambda lib, x, y: lib.add(x, y, alpha=2.5),
    "sub": lambda lib, x, y: x - y,
    "sub_alpha": lambda lib, x, y: lib.sub(x, y, alpha=0.5),
    "rsub": lambda lib, x, y: lib.rsub(x, y),
    "mul": lambda lib, x, y: x * y,
    "div": lambda lib, x, y: x / (y * y + 1.0),
    "div_floor": lambda lib, x, y: lib.div(x, y, rounding_mode="floor"),
    "atan2": lambda lib, x, y: lib.atan2(x, y),
    "pow_tensor": lambda lib, x, y: lib.abs(x) ** y,
}


@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_tangent(name):
    check_jvp(UNARY[name], A)


@pytest.mark.parametrize("name", sorted(UNARY_POSITIVE))
def test_unary_tangent_positive(name):
    check_jvp(UNARY_POSITIVE[name], P)


@pytest.mark.parametrize("name", sorted(BINARY))
@pytest.mark.parametrize("which", ["both", "first", "second"])
def test_binary_tangent(name, which):
    tangents = {"both": None, "first": [randn(2, 3, seed=8), None],
                "second": [None, randn(2, 3, seed=9)]}[which]
    check_jvp(BINARY[name], A, B, tangents=tangents)


def test_broadcast_and_number_operands():
    check_jvp(lambda lib, x, r: x * r + r, A, ROW)
    check_jvp(lambda lib, x, r: x + r, A, ROW, tangents=[None, randn(3)])
    check_jvp(lambda lib, x: 2.0 - x * 3.0 + 1.0, A)
    check_jvp(lambda lib, x: 1.0 / (x * x + 1.0), A)


@pytest.mark.parametrize("shapes", [((2, 3), (3, 4)), ((3,), (3,)), ((2, 3), (3,)),
                                    ((3,), (3, 4)), ((2, 2, 3), (2, 3, 4)), ((2, 2, 3), (3,))])
def test_matmul_tangent(shapes):
    check_jvp(lambda lib, a, b: a @ b, randn(*shapes[0]), randn(*shapes[1], seed=4))


def test_mm_addmm_tangent():
    check_jvp(lambda lib, a, b: lib.mm(a, b), M, N)
    check_jvp(lambda lib, c, a, b: lib.addmm(c, a, b, beta=0.5, alpha=2.0),
              randn(4, seed=6), M, N)
    check_jvp(lambda lib, c, a, b: lib.addmm(c, a, b), randn(2, 4), M, N,
              tangents=[randn(2, 4, seed=1), None, None])


def test_float32_and_a_float64_tangent():
    check_jvp(lambda lib, x: lib.tanh(x * 2.0), A, dtype=np.float32)
    for lib in (ag, torch):        # torch keeps a tangent of another float dtype as it is
        fw = lib.autograd.forward_ad
        with fw.dual_level():
            d = fw.make_dual(lib.tensor(A, dtype=lib.float32), lib.tensor(B))
            assert str(fw.unpack_dual(d * 2).tangent.dtype).endswith("float64")


# ------------------------------------------------------------------ views and in-place ops

def _views_and_inplace(lib):
    fw = lib.autograd.forward_ad
    with fw.dual_level():
        t = lib.tensor(randn(3, seed=1))
        d = fw.make_dual(lib.tensor(randn(3)), t)
        d.mul_(2)                                   # the user's tangent, in place
        base = lib.zeros(2, 3)
        view = base[0]
        view.add_(d)                                # the base gets a tangent through its view
        copied = lib.ones(3)
        copied.copy_(d)
        e = fw.make_dual(lib.tensor(randn(2, 3)), lib.tensor(randn(2, 3, seed=3)))
        row = e[0]
        row.mul_(0.5)                               # writes through into e's tangent
        y = d * 1.0
        y[1:].mul_(d[1:])
        y.exp_()
        z = lib.tensor(randn(3, seed=4))
        z += d
        z.zero_()
        w = lib.tensor(randn(3, seed=5))
        w.fill_(fw.make_dual(lib.tensor(2.0), lib.tensor(3.0)))
        return [t, fw.unpack_dual(base).tangent, fw.unpack_dual(view).tangent,
                fw.unpack_dual(copied).tangent, fw.unpack_dual(e).tangent,
                fw.unpack_dual(row).tangent, fw.unpack_dual(y).tangent,
                fw.unpack_dual(z).tangent, fw.unpack_dual(w).tangent]


def test_views_and_inplace_tangents():
    ours, theirs = _views_and_inplace(ag), _views_and_inplace(torch)
    assert_close(ours, theirs)


def test_view_tangent_shares_memory():
    for lib in (ag, torch):
        fw = lib.autograd.forward_ad
        with fw.dual_level():
            e = fw.make_dual(lib.tensor(randn(2, 3)), lib.tensor(randn(2, 3, seed=3)))
            row_tangent = fw.unpack_dual(e[0]).tangent
            row_tangent.zero_()
            assert not to_numpy(fw.unpack_dual(e).tangent)[0].any()


def test_make_dual_of_a_view_and_a_tangent_of_another_layout():
    for lib in (ag, torch):
        fw = lib.autograd.forward_ad
        with fw.dual_level():
            base = lib.tensor(randn(2, 3))
            v = fw.make_dual(base[1], lib.ones(3))
            assert fw.unpack_dual(base).tangent is None and v._base is base
            tangent = lib.tensor(randn(3, 2))
            d = fw.make_dual(base, tangent.t())
            assert fw.unpack_dual(d).tangent is not tangent.t()
    check_jvp(lambda lib, x: x.t()[1:] * 2.0, A, tangents=[np.asfortranarray(randn(2, 3))])


# ------------------------------------------------------------------ custom Functions

def _functions(lib):
    F = lib.autograd.Function

    class Mul(F):
        @staticmethod
        def forward(ctx, x, y):
            ctx.save_for_forward(x, y)
            return x * y

        @staticmethod
        def backward(ctx, grad):
            return grad, grad

        @staticmethod
        def jvp(ctx, x_t, y_t):
            x, y = ctx.saved_tensors
            return x_t * y + x * y_t

    class Exp(F):
        @staticmethod
        def forward(x):
            return x.exp()

        @staticmethod
        def setup_context(ctx, inputs, output):
            ctx.save_for_forward(output)

        @staticmethod
        def jvp(ctx, x_t):
            (result,) = ctx.saved_tensors
            return x_t * result

    class NoJvp(F):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, grad):
            return grad

    class TooFew(F):
        @staticmethod
        def forward(ctx, x):
            return x * 2, x * 3

        @staticmethod
        def backward(ctx, g, h):
            return g

        @staticmethod
        def jvp(ctx, x_t):
            return x_t

    class WrongSize(F):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, grad):
            return grad

        @staticmethod
        def jvp(ctx, x_t):
            return x_t[:1]

    class Dirty(F):
        @staticmethod
        def forward(ctx, x):
            x.mul_(2)
            ctx.mark_dirty(x)
            return x

        @staticmethod
        def backward(ctx, grad):
            return grad * 2

        @staticmethod
        def jvp(ctx, x_t):
            return x_t.mul_(2)

    class DirtyOutOfPlace(Dirty):
        @staticmethod
        def jvp(ctx, x_t):
            return x_t * 2

    return locals()


def test_function_jvp():
    results = []
    for lib in (ag, torch):
        fw, fns = lib.autograd.forward_ad, _functions(lib)
        with fw.dual_level():
            d = dual(lib, randn(3), randn(3, seed=1))
            y = lib.tensor(randn(3, seed=2))
            results.append([fw.unpack_dual(fns["Mul"].apply(d, y)).tangent,
                            fw.unpack_dual(fns["Exp"].apply(d)).tangent,
                            fw.unpack_dual(fns["NoJvp"].apply(y)).tangent,
                            fw.unpack_dual(fns["Dirty"].apply(dual(lib, randn(3), randn(3))))
                            .tangent])
    assert_close(*results)


@pytest.mark.parametrize("name", ["NoJvp", "TooFew", "WrongSize", "DirtyOutOfPlace"])
def test_function_jvp_errors(name):
    def run(lib):
        fw = lib.autograd.forward_ad
        with fw.dual_level():
            _functions(lib)[name].apply(dual(lib, randn(3), randn(3, seed=1)))
    assert_same_error(run)


# ------------------------------------------------------------------ mixing the two modes

WEIGHT = randn(3, 3, seed=11)


def _hessian_vector_product(lib, f, x, v):
    fw = lib.autograd.forward_ad
    x = lib.tensor(x, requires_grad=True)
    with fw.dual_level():
        d = fw.make_dual(x, lib.tensor(v))
        (gradient,) = lib.autograd.grad(f(lib, d), d, create_graph=True)
        return fw.unpack_dual(gradient)


@pytest.mark.parametrize("name", ["cubic", "tanh_chain", "matmul", "logsumexp"])
def test_forward_over_reverse_hessian_vector_product(name):
    f = {
        "cubic": lambda lib, x: (x ** 3 * x.sin()).sum(),
        "tanh_chain": lambda lib, x: lib.tanh(x * 2.0 + 1.0).exp().mean(),
        "matmul": lambda lib, x: ((lib.tensor(WEIGHT) @ x).sigmoid() * x).sum(),
        "logsumexp": lambda lib, x: x.logsumexp(0) / x.norm(),
    }[name]
    x, v = randn(3), randn(3, seed=1)
    ours = _hessian_vector_product(ag, f, x, v)
    theirs = _hessian_vector_product(torch, f, x, v)
    assert_close(ours.primal, theirs.primal, 1e-7, 1e-9)
    assert_close(ours.tangent, theirs.tangent, 1e-7, 1e-9, "Hessian-vector product")


def test_reverse_over_forward():
    grads = []
    for lib in (ag, torch):
        fw = lib.autograd.forward_ad
        x = lib.tensor(randn(3), requires_grad=True)
        v = lib.tensor(randn(3, seed=1), requires_grad=True)
        with fw.dual_level():
            out = lib.tanh(fw.make_dual(x, v) * 2.0).exp() @ fw.make_dual(x, v).t()
            tangent = fw.unpack_dual(out).tangent
        grads.append(lib.autograd.grad(tangent, (x, v)))
    assert_close(*grads)


# ------------------------------------------------------------------ the tutorial

def test_forward_ad_tutorial_runs_unchanged():
    """The forward-mode AD tutorial's first examples, with autograd_cy for torch."""
    torch_ = ag
    import autograd_cy.autograd.forward_ad as fwAD_

    primal = torch_.randn(10, 10)
    tangent = torch_.randn(10, 10)

    def fn(x, y):
        return x ** 2 + y ** 2

    with fwAD_.dual_level():
        dual_input = fwAD_.make_dual(primal, tangent)
        assert fwAD_.unpack_dual(dual_input).tangent is tangent
        dual_input_alt = fwAD_.make_dual(primal, tangent.T)
        assert fwAD_.unpack_dual(dual_input_alt).tangent is not tangent
        plain_tensor = torch_.randn(10, 10)
        dual_output = fn(dual_input, plain_tensor)
        jvp = fwAD_.unpack_dual(dual_output).tangent
    assert fwAD_.unpack_dual(dual_output).tangent is None
    assert_close(jvp, 2 * to_numpy(primal) * to_numpy(tangent))

    class Fn(torch_.autograd.Function):
        @staticmethod
        def forward(ctx, foo):
            result = torch_.exp(foo)
            ctx.result = result
            return result

        @staticmethod
        def jvp(ctx, gI):
            gO = gI * ctx.result
            del ctx.result
            return gO

    primal = torch_.randn(10, 10, dtype=torch_.double, requires_grad=True)
    tangent = torch_.randn(10, 10, dtype=torch_.double)
    with fwAD_.dual_level():
        dual_output = Fn.apply(fwAD_.make_dual(primal, tangent))
        jvp = fwAD_.unpack_dual(dual_output).tangent
    assert_close(jvp, to_numpy(tangent) * np.exp(to_numpy(primal)))


def test_a_tangent_formula_that_raises_leaves_the_level_active():
    def run(lib):
        fw = lib.autograd.forward_ad
        with fw.dual_level():
            d = dual(lib, randn(3), randn(3, seed=1))
            with pytest.raises(NotImplementedError):
                _functions(lib)["NoJvp"].apply(d)       # its jvp runs with the level suspended
            return fw.unpack_dual(d.exp()).tangent
    assert_close(run(ag), run(torch))
