"""Forward-mode AD, gradcheck and the functional API on complex tensors, against torch.

Tangents follow PyTorch's convention (NOTE [Complex tangents] in pyx/forward.pyx): a
holomorphic op's tangent is ``f'(z) dz``, a non-holomorphic one has its own formula; a
formula nobody has checked for complex tensors raises NotImplementedError naming the op.
gradcheck checks complex functions as real ones, as torch does (NOTE [gradcheck of complex
functions] in autograd_cy/autograd/gradcheck.py). Small tensors.
"""
import importlib

import numpy as np
import pytest

import autograd_cy as ag
from oracle import LIBS, assert_close, check_jvp

COMPLEX = [np.complex64, np.complex128]
TOLERANCE = {np.complex64: (2e-4, 2e-5), np.complex128: (1e-7, 1e-9)}


def crandn(*shape, seed=0):
    rng = np.random.default_rng(seed)
    return rng.standard_normal(shape) + 1j * rng.standard_normal(shape)


def jvp_case(fn, *shapes, dtype, seed=0):
    """``check_jvp`` with complex primals and complex tangents of ``shapes``."""
    arrays = [crandn(*shape, seed=seed + i) + 0.5 for i, shape in enumerate(shapes)]
    tangents = [crandn(*shape, seed=seed + 10 + i) for i, shape in enumerate(shapes)]
    rtol, atol = TOLERANCE[dtype]
    return check_jvp(fn, *arrays, dtype=dtype, tangents=tangents, rtol=rtol, atol=atol)


# ------------------------------------------------------------------ tangents of one input

UNARY = {
    "exp": lambda lib, z: z.exp(),
    "expm1": lambda lib, z: z.expm1(),
    "log": lambda lib, z: z.log(),
    "log2": lambda lib, z: z.log2(),
    "log1p": lambda lib, z: z.log1p(),
    "sin": lambda lib, z: z.sin(),
    "cos": lambda lib, z: z.cos(),
    "tanh": lambda lib, z: z.tanh(),
    "tan": lambda lib, z: z.tan(),
    "asin": lambda lib, z: z.asin(),
    "acos": lambda lib, z: z.acos(),
    "atan": lambda lib, z: z.atan(),
    "sinh": lambda lib, z: z.sinh(),
    "cosh": lambda lib, z: z.cosh(),
    "asinh": lambda lib, z: z.asinh(),
    "acosh": lambda lib, z: z.acosh(),
    "atanh": lambda lib, z: z.atanh(),
    "sigmoid": lambda lib, z: z.sigmoid(),
    "sqrt": lambda lib, z: z.sqrt(),
    "rsqrt": lambda lib, z: z.rsqrt(),
    "reciprocal": lambda lib, z: z.reciprocal(),
    "neg": lambda lib, z: -z,
    "abs": lambda lib, z: z.abs(),
    "sgn": lambda lib, z: z.sgn(),
    "conj": lambda lib, z: z.conj() * 1,
    "conj_physical": lambda lib, z: lib.conj_physical(z),
    "real": lambda lib, z: z.real * 1,
    "imag": lambda lib, z: z.imag * 1,
    "pow_int": lambda lib, z: z ** 3,
    "pow_float": lambda lib, z: z ** 2.5,
    "pow_complex": lambda lib, z: z ** (1 - 0.5j),
    "square": lambda lib, z: z.square(),
    "rpow": lambda lib, z: 2 ** z,
    "sum": lambda lib, z: z.sum(),
    "prod": lambda lib, z: z.prod(),
    "prod_dim": lambda lib, z: z.prod(1, keepdim=True),
    "logsumexp": lambda lib, z: z.logsumexp(1),
    "var": lambda lib, z: z.var(1),
    "std": lambda lib, z: z.std(),
    "var_mean": lambda lib, z: lib.var_mean(z, 0, correction=0)[0] * lib.var_mean(z, 0)[1],
    "angle": lambda lib, z: z.angle(),
    "silu": lambda lib, z: lib.nn.functional.silu(z),
    "view_as_real": lambda lib, z: lib.view_as_real(z) * 1,
    "view_as_complex": lambda lib, z: lib.view_as_complex(lib.view_as_real(z) * 2),
    "polar": lambda lib, z: lib.polar(z.abs(), z.real),
    "vdot": lambda lib, z: lib.vdot(z[0], z[1]),
    "sum_dim": lambda lib, z: z.sum(1, keepdim=True),
    "mean": lambda lib, z: z.mean(0),
    "clone": lambda lib, z: z.clone(),
    "contiguous": lambda lib, z: z.t().contiguous(),
    "views": lambda lib, z: z.t().reshape(6)[1:].unsqueeze(0).expand(2, 5),
    "select_permute": lambda lib, z: z.permute(1, 0)[1] * 1j,
    "repeat": lambda lib, z: z.repeat(2, 1),
    "index": lambda lib, z: z[[1, 0, 1]],
    "index_select": lambda lib, z: z.index_select(1, lib.tensor([2, 0])),
    "gather": lambda lib, z: z.gather(1, lib.tensor([[0, 2], [1, 1]])),
    "masked_fill": lambda lib, z: z.masked_fill(lib.tensor([True, False, True]), 2j),
    "where": lambda lib, z: lib.where(lib.tensor([True, False, True]), z, z * 2),
    "split_cat": lambda lib, z: lib.cat(z.split([1, 2], 1)[::-1], 1),
    "unbind_stack": lambda lib, z: lib.stack(z.unbind(0), 1),
    "trace": lambda lib, z: z[:, :2].trace(),
    "to_complex128": lambda lib, z: z.to(lib.complex128),
    "mixed": lambda lib, z: (z.abs() * z + z.conj() * 1j).sum(0),
}


@pytest.mark.parametrize("dtype", COMPLEX, ids=["complex64", "complex128"])
@pytest.mark.parametrize("name", list(UNARY))
def test_tangent_of_one_complex_input(name, dtype):
    jvp_case(UNARY[name], (2, 3), dtype=dtype)


BINARY = {
    "add": lambda lib, a, b: lib.add(a, b, alpha=2 - 1j),
    "sub": lambda lib, a, b: a - b,
    "rsub": lambda lib, a, b: lib.rsub(a, b),
    "mul": lambda lib, a, b: a * b,
    "div": lambda lib, a, b: a / b,
    "pow": lambda lib, a, b: a ** b,
    "mm": lambda lib, a, b: a @ b.t(),
    "mv": lambda lib, a, b: lib.mv(a, b[0]),
    "dot": lambda lib, a, b: lib.dot(a[0], b[1]),
    "bmm": lambda lib, a, b: lib.bmm(a.unsqueeze(0), b.t().unsqueeze(0)),
    "addmm": lambda lib, a, b: lib.addmm(a[:, :2], a, b.t(), beta=0.5, alpha=1j),
    "complex_scalar": lambda lib, a, b: (a * (1 + 2j) + 3j) / (b - 1j),
}


@pytest.mark.parametrize("dtype", COMPLEX, ids=["complex64", "complex128"])
@pytest.mark.parametrize("name", list(BINARY))
def test_tangent_of_two_complex_inputs(name, dtype):
    jvp_case(BINARY[name], (2, 3), (2, 3), dtype=dtype)


def test_real_dual_in_a_complex_computation_gets_a_complex_tangent():
    """A real input's tangent passed on to a complex output becomes complex (torch's)."""
    def fn(lib, x):
        w = lib.tensor([1 + 2j, 3j], dtype=lib.complex128)
        return x + w, x * 1j, lib.complex(x, x * 2), (x + w).abs()
    check_jvp(fn, np.array([0.5, -1.5]))


def test_in_place_ops_and_views_carry_complex_tangents():
    def fn(lib, z):
        y = z.clone()
        y[0] = y[1] * 2j
        y.mul_(1 - 1j)
        y[1:].add_(y[:1])
        return y, y.real
    jvp_case(fn, (3,), dtype=np.complex128)


def test_make_dual_keeps_a_tangent_of_another_dtype():
    for lib in LIBS:
        with lib.autograd.forward_ad.dual_level():
            z = lib.tensor([1 + 2j, 3j])
            dual = lib.autograd.forward_ad.make_dual(z, lib.ones(2, dtype=lib.float32))
            assert str(lib.autograd.forward_ad.unpack_dual(dual).tangent.dtype).endswith(
                "float32")


def test_a_tangent_formula_not_checked_for_complex_raises():
    # binary_cross_entropy_with_logits takes a complex target, as torch; its tangent formula
    # has not been checked for one
    with ag.autograd.forward_ad.dual_level():
        x = ag.autograd.forward_ad.make_dual(ag.tensor([0.5, -1.0]), ag.tensor([1.0, 1.0]))
        with pytest.raises(NotImplementedError,
                           match="forward-mode AD of an op for complex tensors is not "
                                 "implemented"):
            ag.nn.functional.binary_cross_entropy_with_logits(x, ag.tensor([0.25 + 1j, 0.5]))
    # the real path is untouched
    with ag.autograd.forward_ad.dual_level():
        x = ag.autograd.forward_ad.make_dual(ag.tensor([1.0, 3.0]), ag.tensor([1.0, 1.0]))
        assert ag.autograd.forward_ad.unpack_dual(x.prod()).tangent.item() == 4.0


def _square_function(lib, jvp_of):
    class Square(lib.autograd.Function):
        @staticmethod
        def forward(ctx, z):
            ctx.save_for_backward(z)
            ctx.z = z
            return z * z

        @staticmethod
        def backward(ctx, grad):
            z, = ctx.saved_tensors
            return grad * 2 * z.conj()

        @staticmethod
        def jvp(ctx, tangent):
            return jvp_of(ctx.z, tangent)
    return Square


def test_custom_function_jvp_on_complex():
    check_jvp(lambda lib, z: _square_function(lib, lambda z, t: 2 * z * t).apply(z) + z,
              crandn(3), dtype=np.complex128, tangents=[crandn(3, seed=1)], rtol=1e-7,
              atol=1e-9)


# ------------------------------------------------------------------ gradcheck

GRADCHECKED = {
    "mul": (lambda z, w: z * w, 2),
    "exp_abs": (lambda z: z.exp() * z.abs(), 1),
    "conj_div": (lambda z, w: z.conj() / w, 2),
    "pow_sum": (lambda z: (z ** 2.5).sum(), 1),
    "matmul": (lambda z, w: z.reshape(1, 2) @ w.reshape(2, 1), 2),
    "real_imag_sgn": (lambda z: (z.real * z.imag, z.sgn()), 1),
    "real_input": (lambda x, z: (x * z).tanh(), "real"),
}


def _gradcheck_inputs(arity):
    z = ag.tensor([1 + 2j, 0.5 - 1j], dtype=ag.complex128, requires_grad=True)
    w = ag.tensor([0.3 + 0.2j, -1 + 1j], dtype=ag.complex128, requires_grad=True)
    x = ag.tensor([0.7, -1.3], dtype=ag.float64, requires_grad=True)
    return {1: (z,), 2: (z, w), "real": (x, z)}[arity]


@pytest.mark.parametrize("fast_mode", [False, True], ids=["slow", "fast"])
@pytest.mark.parametrize("name", list(GRADCHECKED))
def test_gradcheck_passes_for_complex_functions(name, fast_mode):
    fn, arity = GRADCHECKED[name]
    inputs = _gradcheck_inputs(arity)
    assert ag.autograd.gradcheck(fn, inputs, fast_mode=fast_mode, check_forward_ad=True,
                                 check_batched_grad=True, check_batched_forward_grad=True)


@pytest.mark.parametrize("fast_mode", [False, True], ids=["slow", "fast"])
def test_gradgradcheck_of_complex_functions(fast_mode):
    z, w = _gradcheck_inputs(2)
    assert ag.autograd.gradgradcheck(lambda z, w: (z * w).exp() + z.conj() * z, (z, w),
                                     fast_mode=fast_mode)
    assert ag.autograd.gradgradcheck(lambda z: z.abs() * z.real, (z,), fast_mode=fast_mode,
                                     check_fwd_over_rev=True)


WRONG = {
    # backward forgets the conjugate: the imaginary part of the output is checked first
    "backward": (dict(backward=lambda g, z: g * 2 * z), dict(check_forward_ad=False)),
    # the tangent conjugated: wrong along the imaginary part of the input, checked first
    "jvp": (dict(jvp=lambda z, t: 2 * z.conj() * t),
            dict(check_forward_ad=True, check_backward_ad=False)),
    # the tangent right along i dy only: the real part of the input fails
    "jvp_real_part": (dict(jvp=lambda z, t: 2 * z * (t.imag * 1j)),
                      dict(check_forward_ad=True, check_backward_ad=False)),
    # a real output (no part to name)
    "real_output": (dict(real_output=True, backward=lambda g, z: g * z),
                    dict(check_forward_ad=False)),
}


def _gradcheck_module(lib):
    return importlib.import_module(lib.__name__ + ".autograd.gradcheck")


def _wrong_function(lib, backward=None, jvp=None, real_output=False):
    class Wrong(lib.autograd.Function):
        @staticmethod
        def forward(ctx, z):
            ctx.save_for_backward(z)
            ctx.z = z
            return (z * z.conj()).real if real_output else z * z

        @staticmethod
        def backward(ctx, grad):
            z, = ctx.saved_tensors
            return backward(grad, z) if backward else grad * 2 * z.conj()

        @staticmethod
        def jvp(ctx, tangent):
            return jvp(ctx.z, tangent) if jvp else 2 * ctx.z * tangent
    return Wrong


@pytest.mark.parametrize("fast_mode", [False, True], ids=["slow", "fast"])
@pytest.mark.parametrize("name", list(WRONG))
def test_gradcheck_failure_names_the_part_as_torch(name, fast_mode):
    how, kwargs = WRONG[name]
    messages = []
    for lib in LIBS:
        z = lib.tensor([1 + 2j, 0.5 - 1j], dtype=lib.complex128, requires_grad=True)
        with pytest.raises(_gradcheck_module(lib).GradcheckError) as info:
            lib.autograd.gradcheck(_wrong_function(lib, **how).apply, (z,),
                                   fast_mode=fast_mode, check_undefined_grad=False, **kwargs)
        messages.append(str(info.value).split("\n")[0])
        assert lib.autograd.gradcheck(_wrong_function(lib, **how).apply, (z,),
                                      fast_mode=fast_mode, raise_exception=False,
                                      check_undefined_grad=False, **kwargs) is False
    assert messages[0] == messages[1]
    if name != "real_output":
        assert messages[0].startswith("While considering the ")


def test_deprecated_jacobians_refuse_complex_outputs_as_torch():
    for lib in LIBS:
        z = lib.tensor([1 + 2j], dtype=lib.complex128, requires_grad=True)
        with pytest.warns(FutureWarning), pytest.raises(ValueError, match="non-complex"):
            _gradcheck_module(lib).get_analytical_jacobian((z,), z * 2)


# ------------------------------------------------------------------ functional API

FUNCTIONS = {
    "c_to_c": (lambda z: z * z, "complex"),
    "c_to_r": (lambda z: z.abs(), "complex"),
    "r_to_c": (lambda x: x * (1 + 1j), "real"),
    "c_to_c_scalar": (lambda z: (z * z).sum(), "complex"),
}


def _functional_input(lib, kind):
    if kind == "complex":
        return lib.tensor([1 + 2j, 3 - 1j], dtype=lib.complex128)
    return lib.tensor([1.0, 2.0], dtype=lib.float64)


class Raised(str):
    """An error's type and first words, standing in for a result."""


def _both(call):
    """``call(lib)`` in both libraries: their results, or their errors' types and first
    words, which must agree."""
    results = []
    for lib in LIBS:
        try:
            results.append(call(lib))
        except (RuntimeError, NotImplementedError) as error:
            results.append(Raised(f"{type(error).__name__}: {str(error)[:60]}"))
    if isinstance(results[0], Raised) or isinstance(results[1], Raised):
        assert results[0] == results[1]
    else:
        assert_close(results[0], results[1], rtol=1e-7, atol=1e-9)


@pytest.mark.parametrize("strategy, vectorize", [("reverse-mode", False),
                                                 ("reverse-mode", True),
                                                 ("forward-mode", True),
                                                 ("forward-mode", False)])
@pytest.mark.parametrize("name", list(FUNCTIONS))
def test_jacobian_of_complex_functions(name, strategy, vectorize):
    fn, kind = FUNCTIONS[name]
    _both(lambda lib: lib.autograd.functional.jacobian(
        fn, _functional_input(lib, kind), strategy=strategy, vectorize=vectorize))


@pytest.mark.parametrize("name", list(FUNCTIONS))
def test_vjp_and_jvp_of_complex_functions(name):
    fn, kind = FUNCTIONS[name]

    def v_for(lib, like):
        return like * (0.5 - 1j) if like.is_complex() else like * 0.5

    def vjp(lib):
        x = _functional_input(lib, kind)
        return lib.autograd.functional.vjp(fn, x, v_for(lib, fn(x)))

    _both(vjp)
    _both(lambda lib: lib.autograd.functional.jvp(
        fn, _functional_input(lib, kind), v_for(lib, _functional_input(lib, kind))))


def test_hessian_vhp_hvp_of_a_real_function_of_complex_input():
    def fn(z):
        return (z * z).abs().sum()

    _both(lambda lib: lib.autograd.functional.hessian(fn, _functional_input(lib, "complex")))
    for name in ("vhp", "hvp"):
        _both(lambda lib: getattr(lib.autograd.functional, name)(
            fn, _functional_input(lib, "complex"), _functional_input(lib, "complex") * 1j))
