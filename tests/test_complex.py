"""Complex tensors against torch: cfloat and cdouble, their promotion and repr, and complex
autograd with PyTorch's convention (NOTE [Complex gradients] in pyx/ops/conjugate.pyx).

Values, dtypes and gradients go through ``check_op`` with complex inputs (complex output
gradients, double backward through the real part of the second-order total); errors through
``assert_same_error``. A formula not yet written for complex tensors raises
NotImplementedError (NOTE [Complex formulas gate] in pyx/recording.pyx): those cases assert
torch's result and are strict xfails naming the gap, so that each one fails loudly the day
it is built. The device run (AUTOGRAD_CY_TEST_DEVICE=cuda) runs it on the complex kernels
of cuda/ (NOTE [A complex type of our own] in cuda/complex.cuh).
"""
import warnings

import numpy as np
import pytest
import torch

import autograd_cy as ag
from oracle import LIBS, assert_same, assert_same_error, check_op, set_history

DTYPES = [np.float32, np.float64]       # check_op gives complex arrays the matching complex


def crandn(*shape, seed=0):
    rng = np.random.default_rng(seed)
    return rng.standard_normal(shape) + 1j * rng.standard_normal(shape)


# ------------------------------------------------------------------ dtypes and tensors

def test_dtype_objects():
    for name, alias, itemsize, real in (("complex64", "cfloat", 8, "float32"),
                                        ("ComplexDouble", "cdouble", 16, "float64")):
        name = "complex128" if name == "ComplexDouble" else name
        ours, theirs = getattr(ag, name), getattr(torch, name)
        assert getattr(ag, alias) is ours
        assert repr(ours) == "autograd_cy." + name
        assert (ours.is_complex, ours.is_floating_point, ours.is_signed, ours.itemsize) == (
            theirs.is_complex, theirs.is_floating_point, theirs.is_signed, theirs.itemsize)
        assert ours.to_real() is getattr(ag, real)
        assert getattr(ag, real).to_complex() is ours
        assert str(theirs.to_real()) == "torch." + real


@pytest.mark.parametrize("make", [
    lambda lib: lib.tensor([1 + 2j, 3 - 4j]),
    lambda lib: lib.tensor([[1 + 2j, 3.25 - 4j], [0j, -1j]]),
    lambda lib: lib.tensor([1.5 + 2j], dtype=lib.complex128),
    lambda lib: lib.tensor(1j),
    lambda lib: lib.tensor([1e10 + 2j, 3 - 4j]),
    lambda lib: lib.tensor([1.2345678 + 2j], dtype=lib.cdouble),
    lambda lib: lib.tensor([1 + 2j], requires_grad=True),
    lambda lib: lib.tensor([1.0, 2.0]) * (1 + 1j),
    lambda lib: lib.zeros(2, 3, dtype=lib.cfloat),
    lambda lib: lib.from_numpy(np.array([1 + 1j, 2j], dtype=np.complex128)),
    lambda lib: lib.tensor(np.arange(2000) * (1 - 1j)),      # summarized
], ids=["vector", "matrix", "cdouble", "scalar", "scientific", "precision", "requires_grad",
        "from_real", "zeros", "from_numpy", "summarized"])
@pytest.mark.cpu_only       # the repr is compared with a CPU tensor's (no device= in it)
def test_creation_and_repr(make):
    """The dtype a complex literal or array gets (complex64 by default), and the repr,
    character for character."""
    assert_same(lambda lib: (repr(make(lib)).replace("torch.", "autograd_cy."),
                             str(make(lib).dtype).split(".")[-1], make(lib).is_complex(),
                             make(lib).is_floating_point()))


@pytest.mark.parametrize("case", [
    lambda lib: lib.ones(2, dtype=lib.float64) + 1j,
    lambda lib: lib.ones(2) + 1j,
    lambda lib: lib.ones(2, dtype=lib.int64) + 1j,
    lambda lib: lib.ones(2, dtype=lib.float64) + lib.ones(2, dtype=lib.complex64),
    lambda lib: lib.ones(2) + lib.tensor(1j, dtype=lib.complex128),
    lambda lib: lib.ones(2, dtype=lib.float64) + lib.tensor(1j),
    lambda lib: lib.ones(2, dtype=lib.complex64) * 2.5,
    lambda lib: lib.ones(2, dtype=lib.complex64) / lib.ones(2, dtype=lib.int32),
    lambda lib: lib.ones(2, dtype=lib.complex64) + lib.ones(2, dtype=lib.complex128),
    lambda lib: lib.ones(2, dtype=lib.complex128) * lib.ones(2, dtype=lib.float32),
], ids=["f64+py", "f32+py", "i64+py", "f64+c64", "f32+0dim_c128", "f64+0dim_c64", "c64*py_float",
        "c64/i32", "c64+c128", "c128*f32"])
def test_promotion(case):
    """torch's result_type with complex operands: a complex scalar or 0-dim tensor makes a
    floating tensor complex of its own width."""
    assert_same(lambda lib: (str(case(lib).dtype).split(".")[-1], case(lib).tolist()))


# ------------------------------------------------------------------ values and gradients

@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("fn", [
    lambda lib, a, b: a + b,
    lambda lib, a, b: lib.add(a, b, alpha=2 - 1j),
    lambda lib, a, b: a - b,
    lambda lib, a, b: lib.sub(a, b, alpha=0.5j),
    lambda lib, a, b: a * b,
    lambda lib, a, b: a / b,
    lambda lib, a, b: (1 + 2j) - a * (2 - 1j),
    lambda lib, a, b: -a * 3j,
    lambda lib, a, b: 1 / b,
    lambda lib, a, b: a @ b.t(),
    lambda lib, a, b: lib.mm(a, b.t()),
    lambda lib, a, b: lib.matmul(a[0], b[1]),
    lambda lib, a, b: lib.dot(a[0], b[1]),
    lambda lib, a, b: (a * b).sum(dim=1),
    lambda lib, a, b: a.mean(),
    lambda lib, a, b: a.transpose(0, 1).reshape(-1)[1:5] * b.reshape(-1)[:4],
    lambda lib, a, b: a.unsqueeze(0).expand(2, 2, 3) * b,
    lambda lib, a, b: a ** 3, lambda lib, a, b: a ** 2, lambda lib, a, b: b ** (0.5 - 1j),
    lambda lib, a, b: a.prod(), lambda lib, a, b: b.prod(dim=1),
    lambda lib, a, b: lib.addmm(b[0, :2], a, b.t(), beta=0.5 + 1j, alpha=2 - 1j),
    lambda lib, a, b: lib.addmm(b[:, :1], a, b.t()),
    lambda lib, a, b: a ** (b * 0.5), lambda lib, a, b: 2 ** a, lambda lib, a, b: (-1.5) ** b,
    lambda lib, a, b: a.var(), lambda lib, a, b: b.std(dim=1), lambda lib, a, b: lib.var_mean(a),
    lambda lib, a, b: lib.std_mean(b, dim=0, correction=0),
    lambda lib, a, b: a.norm(), lambda lib, a, b: b.norm(p=1, dim=1),
    lambda lib, a, b: a.norm(p=3, dim=0, keepdim=True),
    lambda lib, a, b: a.logsumexp(1), lambda lib, a, b: b.logsumexp((0, 1), keepdim=True),
], ids=["add", "add_alpha", "sub", "sub_alpha", "mul", "div", "rsub", "neg", "reciprocal",
        "matmul", "mm", "mv", "dot", "sum_dim", "mean", "views", "expand", "pow3", "pow2",
        "pow_complex", "prod", "prod_dim", "addmm_scaled", "addmm", "pow_tensor", "rpow",
        "rpow_negative_base", "var", "std_dim", "var_mean", "std_mean", "norm", "norm1",
        "norm3", "logsumexp", "logsumexp_all"])
def test_arithmetic(fn, dtype):
    check_op(fn, crandn(2, 3, seed=1), crandn(2, 3, seed=2) + 2, dtype=dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("fn", [
    lambda lib, z: lib.exp(z), lambda lib, z: lib.expm1(z), lambda lib, z: lib.log(z),
    lambda lib, z: lib.log2(z), lambda lib, z: lib.log1p(z), lambda lib, z: lib.sin(z),
    lambda lib, z: lib.cos(z), lambda lib, z: lib.sqrt(z), lambda lib, z: lib.rsqrt(z),
    lambda lib, z: z.abs(), lambda lib, z: z.sgn(), lambda lib, z: z.conj(),
    lambda lib, z: z.conj_physical(), lambda lib, z: z.real, lambda lib, z: z.imag,
    lambda lib, z: lib.real(z) * lib.imag(z), lambda lib, z: lib.tanh(z),
    lambda lib, z: lib.sigmoid(z), lambda lib, z: lib.tan(z), lambda lib, z: lib.asin(z),
    lambda lib, z: lib.acos(z), lambda lib, z: lib.atan(z), lambda lib, z: lib.sinh(z),
    lambda lib, z: lib.cosh(z), lambda lib, z: lib.asinh(z), lambda lib, z: lib.acosh(z),
    lambda lib, z: lib.atanh(z), lambda lib, z: lib.exp2(z), lambda lib, z: lib.log10(z),
], ids=["exp", "expm1", "log", "log2", "log1p", "sin", "cos", "sqrt", "rsqrt", "abs", "sgn",
        "conj", "conj_physical", "real", "imag", "real_times_imag", "tanh", "sigmoid", "tan",
        "asin", "acos", "atan", "sinh", "cosh", "asinh", "acosh", "atanh", "exp2", "log10"])
def test_pointwise(fn, dtype):
    """First order; test_double_backward differentiates the formulas again."""
    check_op(fn, crandn(3, 2, seed=3) + 0.5, dtype=dtype, double=False)


@pytest.mark.parametrize("fn", [
    lambda lib, z: lib.exp(z), lambda lib, z: lib.log(z), lambda lib, z: lib.sin(z),
    lambda lib, z: lib.cos(z), lambda lib, z: lib.sqrt(z), lambda lib, z: z.conj() * z,
    lambda lib, z: z.real * z.imag, lambda lib, z: z.sgn(), lambda lib, z: z.abs(),
    lambda lib, z: lib.tanh(z), lambda lib, z: lib.sigmoid(z), lambda lib, z: lib.tan(z),
    lambda lib, z: lib.asin(z), lambda lib, z: lib.acosh(z), lambda lib, z: lib.atanh(z),
], ids=["exp", "log", "sin", "cos", "sqrt", "abs2", "real_imag", "sgn", "abs", "tanh",
        "sigmoid", "tan", "asin", "acosh", "atanh"])
def test_double_backward(fn):
    check_op(fn, crandn(3, 2, seed=4) + 0.5)


@pytest.mark.parametrize("fn", [
    lambda lib, z, w: lib.cat([z, w * 2], dim=1),
    lambda lib, z, w: lib.cat([z, w.real], dim=0),
    lambda lib, z, w: lib.stack([z, w], dim=-1),
    lambda lib, z, w: z.split(1, dim=1)[1] * w.unbind(1)[0].unsqueeze(1),
    lambda lib, z, w: lib.where(z.real > 0, z, w),
    lambda lib, z, w: lib.where(w.imag > 0, z, 0.5),
    lambda lib, z, w: z.masked_fill(w.real > 0, 2 - 1j),
    lambda lib, z, w: z[[0, 1, 1]] * w[1:, [2, 0, 1]],
    lambda lib, z, w: z.index_select(1, lib.tensor([2, 0, 2])),
    lambda lib, z, w: z[:, 1:] + w[0, 2],
], ids=["cat", "cat_real", "stack", "split_unbind", "where", "where_number", "masked_fill",
        "index", "index_select", "slices"])
def test_selection_and_joining(fn):
    """Linear ops: the gradient moves or is picked, with no conjugate to take."""
    check_op(fn, crandn(2, 3, seed=7), crandn(2, 3, seed=8))


def test_complex_from_parts():
    check_op(lambda lib, a, b: lib.complex(a, b) * (1 - 2j), np.random.default_rng(0).
             standard_normal((2, 3)), np.random.default_rng(1).standard_normal((2, 3)))
    assert_same_error(lambda lib: lib.complex(lib.ones(2), lib.ones(2, dtype=lib.float64)),
                      RuntimeError, "Expected object of scalar type")


def test_abs_squared_gradient_is_twice_z():
    """The example of docs: L = |z|^2 has dL/dx + i dL/dy = 2x + 2iy = 2z."""
    for lib in LIBS:
        z = lib.tensor([1 + 2j, -3 + 0.5j], requires_grad=True)
        (z.abs() ** 2).sum().backward() if lib is torch else (z * z.conj()).real.sum().backward()
        np.testing.assert_allclose(z.grad.cpu().numpy(), 2 * z.detach().cpu().numpy(), rtol=1e-6)


def test_gradient_descent_on_a_complex_parameter():
    """``z -= lr * z.grad`` descends a real loss, as in torch, step for step."""
    def train(lib):
        z = lib.tensor([2 - 1j, -1 + 3j], requires_grad=True)
        target = lib.tensor([0.5 + 0.5j, 1 - 1j])
        losses = []
        for _ in range(5):
            loss = ((z - target) * (z - target).conj()).real.sum()
            loss.backward()
            with lib.no_grad():
                z -= 0.1 * z.grad
            z.grad = None
            losses.append(round(loss.item(), 5))
        return losses, z.detach().cpu().numpy().round(5).tolist()
    assert_same(train)


def test_real_input_of_a_complex_computation_gets_a_real_gradient():
    def run(lib):
        x = lib.tensor([1.0, -2.0], requires_grad=True)
        y = lib.tensor([0.5, 3.0], dtype=lib.float64, requires_grad=True)
        ((x * (1 + 2j)).imag.sum() + (y.to(lib.complex128) * 1j).abs().sum()
         + (x * y * 1j).real.sum()).backward()
        return str(x.grad.dtype).split(".")[-1], x.grad.tolist(), y.grad.tolist()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert_same(run)


def test_cast_to_real_warns_and_takes_the_real_part():
    def run(lib):
        z = lib.tensor([1 + 2j, 3 - 4j], requires_grad=True)
        with pytest.warns(UserWarning, match="discards the imaginary part"):
            x = z.to(lib.float32)
        x.sum().backward()
        return x.tolist(), z.grad.tolist(), type(x.grad_fn).__name__
    assert_same(run)


def test_complex_leaf_gets_complex_grad_and_hooks_see_it():
    def run(lib):
        z = lib.tensor([1 + 1j, 2 - 1j], requires_grad=True)
        seen = []
        z.register_hook(lambda g: seen.append(g.tolist()))
        w = z * (2 + 1j)
        w.retain_grad()
        (w.real + 2 * w.imag).sum().backward()
        return seen, z.grad.tolist(), w.grad.tolist(), str(z.grad.dtype).split(".")[-1]
    assert_same(run)


def test_views_of_parts_write_through():
    def run(lib):
        z = lib.tensor([1 + 2j, 3 - 4j])
        z.real.add_(10)
        z.imag[0] = -1
        z.real = lib.tensor([5.0, 6.0])
        return z.tolist(), z.real._base is z if lib is ag else z.real._base is z
    assert_same(run)


# ------------------------------------------------------------------ errors

@pytest.mark.parametrize("call, expected", [
    (lambda lib, z: z.sum().backward(), (RuntimeError, "grad can be implicitly created only "
                                         "for real scalar outputs")),
    (lambda lib, z: (z * 2).backward(lib.ones(2)), (RuntimeError, "both grad_output and output "
                                                     "are required to have the same dtype")),
    (lambda lib, z: (z.real * 2).backward(lib.ones(2, dtype=lib.cfloat)),
     (RuntimeError, "Mismatch in dtype")),
    (lambda lib, z: z < z, (NotImplementedError, '"lt_cpu" not implemented for '
                                                 "'ComplexFloat'")),
    (lambda lib, z: z >= 1, (NotImplementedError, '"ge_cpu" not implemented')),
    (lambda lib, z: z.max(), (NotImplementedError, '"max_all" not implemented')),
    (lambda lib, z: z.min(0), (RuntimeError, r"min\(\): does not support complex input")),
    (lambda lib, z: z.amax(), (NotImplementedError, '"max_values_cpu" not implemented')),
    (lambda lib, z: z.argmin(), (RuntimeError, r"argmin\(\): does not support"
                                                " complex input")),
    (lambda lib, z: lib.maximum(z, z), (RuntimeError, "maximum not implemented for complex")),
    (lambda lib, z: lib.relu(z), (NotImplementedError, "clamp is not supported for complex")),
    (lambda lib, z: z.clamp(min=0), (NotImplementedError, "clamp is not supported for complex")),
    (lambda lib, z: z.sign(), (NotImplementedError, "Please use torch.sgn instead")),
    (lambda lib, z: lib.ones(2).imag, (RuntimeError, "imag is not implemented for tensors with "
                                       "non-complex dtypes")),
    (lambda lib, z: lib.nn.functional.linear(z.reshape(1, 2), z.reshape(1, 2).to(lib.cdouble)),
     (RuntimeError, r"same dtype, but got: c10::complex<float> != c10::complex<double>")),
], ids=["implicit_grad", "real_grad_for_complex", "complex_grad_for_real", "lt", "ge", "max",
        "min_dim", "amax", "argmin", "maximum", "relu", "clamp", "sign", "imag_of_real",
        "linear_dtypes"])
def test_errors(call, expected):
    assert_same_error(lambda lib: call(lib, lib.tensor([1 + 2j, 3 - 1j], requires_grad=True)),
                      *expected)


def test_fill_and_full_with_complex_values():
    def run(lib):
        z = lib.zeros(2, dtype=lib.cfloat, requires_grad=True) * 1
        z.fill_(2 - 1j)
        x = lib.ones(2).fill_(3 + 0j)
        return z.tolist(), x.tolist(), lib.full((2,), 1j).tolist()
    assert_same(run)
    assert_same_error(lambda lib: lib.ones(2).fill_(1j), RuntimeError,
                      "value cannot be converted to type float without overflow")


def test_integers_cannot_require_grad_but_complex_can():
    assert ag.tensor([1j], requires_grad=True).requires_grad
    assert ag.zeros(2, dtype=ag.cdouble).requires_grad_().requires_grad
    assert_same_error(lambda lib: lib.tensor([1]).requires_grad_(), RuntimeError,
                      "floating point")


# ------------------------------------------------------------------ not built yet

def test_a_formula_not_written_for_complex_raises_instead_of_a_wrong_gradient():
    from autograd_cy._C.node import Node

    class NotComplexReadyBackward0(Node):    # no complex_formulas = True
        def apply(self, grads):
            return grads

    z = ag.tensor([[1 + 2j, 3j], [1, 2 - 1j]], requires_grad=True)
    with pytest.raises(NotImplementedError, match="NotComplexReadyBackward0 for complex "
                                                  "tensors"):
        set_history(NotComplexReadyBackward0(), (z,), (ag.zeros(2, dtype=ag.cfloat),))
    set_history(NotComplexReadyBackward0(), (z.real,), (ag.zeros(2),))   # real: recorded


@pytest.mark.cpu_only      # the CPU's loops against NumPy's
@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
@pytest.mark.parametrize("size", [6, 5000], ids=["fused loop", "numpy"])
def test_complex_products_and_tanh_backward_have_numpys_bits(size, dtype):
    """Small complex arrays add, subtract and multiply, and tanh's backward runs, in fused
    loops (NOTE [Complex products] in pyx/kernels.pyx): the same bits as NumPy's ufuncs (the
    path of larger arrays), with special values among the operands; values and gradients as
    torch's."""
    rng = np.random.default_rng(5)
    special = np.array([np.nan, np.inf, -0.0, 0.0, 1e30, -1.5], dtype=dtype)
    a = np.resize(special, size) + (rng.standard_normal(size) * 1j).astype(dtype)
    b = (rng.standard_normal(size) + 1j * rng.standard_normal(size)).astype(dtype)
    x, y = ag.tensor(a), ag.tensor(b)
    with np.errstate(all="ignore"):
        expected = {"mul": a * b, "add": a + b, "sub": a - b,
                    "tanh_backward": a * np.conjugate(1 - b * b)}
    from autograd_cy._C.ops.activation_backward import tanh_backward
    ours = {"mul": x * y, "add": x + y, "sub": x - y, "tanh_backward": tanh_backward(x, y)}
    for name in expected:
        np.testing.assert_array_equal(ours[name].numpy(), expected[name], err_msg=name)
    finite = (rng.standard_normal(size) + 1j * rng.standard_normal(size)).astype(dtype)
    check_op(lambda lib, x, y: lib.tanh(x * y + x), finite, b)


