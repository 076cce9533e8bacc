"""Complex ops against torch: view_as_real and view_as_complex (views of another dtype), angle,
polar, vdot, closeness and special values of complex tensors, the linear view ops' complex
gradients, and torch's refusals of complex inputs (NOTE [Complex gradients] in
pyx/ops/conjugate.pyx, NOTE [Complex views] in pyx/ops/shape.pyx).

Values, dtypes and gradients (double backward included) go through ``check_op``; grad_fn
names, memory sharing and versions through ``assert_same``; errors through
``assert_same_error`` with torch's message compared whole.
"""
import warnings

import numpy as np
import pytest
import torch

import autograd_cy as ag
from oracle import assert_same, assert_same_error, check_op, to_numpy

DTYPES = [np.float32, np.float64]


def crandn(*shape, seed=0):
    rng = np.random.default_rng(seed)
    return rng.standard_normal(shape) + 1j * rng.standard_normal(shape)


def randn(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape)


def name(t):
    return type(t.grad_fn).__name__


# ------------------------------------------------------------------ view_as_real / view_as_complex

@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("fn", [
    lambda lib, z: lib.view_as_real(z) * 2,
    lambda lib, z: lib.view_as_real(z.t())[1:] ** 2,
    lambda lib, z: lib.view_as_real(z[0, 1]),
    lambda lib, z: lib.view_as_real(z).sum(-1) * lib.view_as_real(z)[..., 1],
    lambda lib, z: lib.view_as_complex(lib.view_as_real(z) * 3) * (1 - 2j),
    lambda lib, z: lib.view_as_real(z.exp()).prod(-1),
], ids=["scaled", "transposed", "scalar", "parts_product", "round_trip", "of_result"])
def test_view_as_real(fn, dtype):
    check_op(fn, crandn(2, 3, seed=1), dtype=dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("fn", [
    lambda lib, x: lib.view_as_complex(x) * (1 - 2j),
    lambda lib, x: lib.view_as_complex(x).exp(),
    lambda lib, x: lib.view_as_complex(x.transpose(0, 1)) ** 2,
    lambda lib, x: lib.view_as_complex(x[1:]).abs(),
    lambda lib, x: lib.view_as_real(lib.view_as_complex(x) * 1j),
], ids=["scaled", "exp", "transposed", "sliced_abs", "round_trip"])
def test_view_as_complex(fn, dtype):
    check_op(fn, randn(3, 2, 2, seed=2), dtype=dtype)


def test_view_grad_fn_names_and_dtypes():
    def run(lib):
        z = lib.tensor([1 + 2j, 3 - 4j], requires_grad=True)
        x = lib.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=lib.float64, requires_grad=True)
        r, c = lib.view_as_real(z), lib.view_as_complex(x)
        return (name(r), name(c), str(r.dtype), str(c.dtype), r.shape, c.shape, r.stride(),
                c.stride(), r.is_leaf, c._base is x, r._base is z,
                lib.view_as_real(lib.tensor(1j)).tolist())
    ours, theirs = assert_same(lambda lib: run(lib)[:2] + run(lib)[4:])
    assert [s.replace("torch.", "") for s in run(torch)[2:4]] == [
        s.replace("autograd_cy.", "") for s in run(ag)[2:4]]


def test_views_share_memory_and_version():
    def run(lib):
        z = lib.tensor([1 + 2j, 3 - 4j])
        r = lib.view_as_real(z)
        r[0, 1] = 5.0           # the imaginary part of z[0]
        z.mul_(2)
        c = lib.view_as_complex(r)
        c[1] = 7j
        x = lib.zeros(2, 2)
        y = lib.view_as_complex(x)
        y.add_(1 - 1j)
        return (z.tolist(), r.tolist(), x.tolist(), z._version, r._version, c._version,
                c._base is z, y._base is x, x._version)
    assert_same(run)


@pytest.mark.parametrize("case", [
    # an in-place op on the real view rebases the complex base (CopySlices)
    lambda lib, a: (lambda b: (lib.view_as_real(b).mul_(lib.tensor([2.0, -1.0])), b)[1])(a * 1),
    lambda lib, a: (lambda b: (b.real.mul_(3), b)[1])(a * 1),
    lambda lib, a: (lambda b: (b.imag.exp_(), b)[1])(a * (1 + 1j)),
    lambda lib, a: (lambda b: (lib.view_as_real(b)[1:, 0].sin_(), b)[1])(a * (1 + 1j)),
    # an in-place op on the base rebuilds the real view's grad_fn (AsStridedBackward0)
    lambda lib, a: (lambda b: (lambda r: (b.mul_(2 - 1j), r * r)[1])(lib.view_as_real(b)))(a * 1),
    lambda lib, a: (lambda b: (lambda r: (b.mul_(1j), r.exp())[1])(b.imag))(a * 1),
], ids=["view_as_real_mul_", "real_mul_", "imag_exp_", "slice_sin_", "base_mul_",
        "base_mul_imag"])
def test_inplace_through_views_of_another_dtype(case):
    """The views machinery counts a complex base and its real views in real numbers (NOTE
    [Views of another dtype] in pyx/views.pyx); double backward differentiates it again."""
    check_op(lambda lib, a: case(lib, a) * 1, crandn(2, 2, seed=3))


def test_inplace_on_a_complex_view_of_a_real_base():
    def fn(lib, x):
        y = x * 1
        lib.view_as_complex(y).mul_(lib.tensor([1 + 2j, -1j]))
        return y
    check_op(fn, randn(2, 2, seed=4))

    def rebuilt(lib, x):
        y = x * 1
        c = lib.view_as_complex(y)
        y.mul_(3)
        return (c * (1 - 1j)).real
    check_op(rebuilt, randn(2, 2, seed=5))


@pytest.mark.xfail(strict=True, reason="a view of another dtype rebuilds its grad_fn as one "
                   "AsStridedBackward0; torch replays the view op (ViewAsRealBackward0, "
                   "AsStridedBackward0 over ViewAsComplexBackward0 ...)")
def test_rebuilt_grad_fn_of_a_view_of_another_dtype_is_named_as_in_torch():
    def run(lib):
        z = lib.ones(2, dtype=lib.cfloat, requires_grad=True) * 1
        r = lib.view_as_real(z)
        z.mul_(2)
        return name(r)
    assert_same(run)


@pytest.mark.parametrize("make", [
    lambda lib: lib.view_as_real(lib.ones(2)),
    lambda lib: lib.view_as_real(lib.ones(2, dtype=lib.int64)),
    lambda lib: lib.view_as_complex(lib.ones(2, 3)),
    lambda lib: lib.view_as_complex(lib.ones(2, 2).t()),
    lambda lib: lib.view_as_complex(lib.ones(3, 4)[:, ::2]),
    lambda lib: lib.view_as_complex(lib.ones(3, 3)[:, :2]),
    lambda lib: lib.view_as_complex(lib.ones(3, 3)[:, 1:]),
    lambda lib: lib.view_as_complex(lib.ones(9)[1:].view(4, 2)),
    lambda lib: lib.view_as_complex(lib.ones(3, 2, dtype=lib.int64)),
    lambda lib: lib.view_as_complex(lib.ones((), dtype=lib.int64)),
    lambda lib: lib.view_as_complex(lib.ones((), dtype=lib.float64)),
    lambda lib: lib.view_as_complex(lib.ones(2, 3).expand(2, 2, 3)),
    lambda lib: lib.view_as_complex(lib.ones(3, 1).expand(3, 2)),
    lambda lib: lib.view_as_complex(lib.ones(20).as_strided((0, 3, 2), (3, 2, 1))),
], ids=["real", "integer", "last_size", "last_stride", "stepped", "odd_stride", "odd_stride_first",
        "offset", "long", "long_0dim", "0dim", "expanded_size", "expanded_stride", "empty_odd"])
def test_view_errors(make):
    assert_same_error(make, RuntimeError)


@pytest.mark.parametrize("make", [
    lambda lib: lib.view_as_complex(lib.ones(1, 2).expand(3, 2)),
    lambda lib: lib.view_as_complex(lib.ones(20).as_strided((2, 1, 2), (6, 3, 1))),
    lambda lib: lib.view_as_complex(lib.ones(0, 2)),
    lambda lib: lib.view_as_real(lib.ones(4, dtype=lib.complex128)[::2]),
], ids=["expanded", "odd_stride_of_size_1", "empty", "stepped"])
def test_views_torch_accepts(make):
    assert_same(lambda lib: (make(lib).tolist(), tuple(make(lib).shape)))


# ------------------------------------------------------------------ angle

def test_angle_of_real_numbers():
    """0 or pi (NaN stays NaN, -0.0 and inf give 0), a float32 result for integers, and a
    zero gradient."""
    def run(lib):
        x = lib.tensor([-1.0, 0.0, 2.0, float("nan"), -0.0, float("inf"), -float("inf")],
                       requires_grad=True)
        y = lib.angle(x)
        y.sum().backward()
        i = lib.angle(lib.tensor([-3, 0, 2]))
        b = lib.tensor([True, False]).angle()
        return y.tolist(), x.grad.tolist(), name(y), str(i.dtype)[-7:], i.tolist(), b.tolist()
    assert_same(run)
    check_op(lambda lib, x: lib.angle(x), randn(3, seed=6))


@pytest.mark.parametrize("dtype", DTYPES)
def test_angle_of_complex_numbers(dtype):
    check_op(lambda lib, z: lib.angle(z) * lib.angle(z), crandn(2, 3, seed=7), dtype=dtype)
    check_op(lambda lib, z: z.angle(), np.array([1 + 1j, 0j, -2 + 0.5j, -1 - 0j]), dtype=dtype,
             double=False)


# ------------------------------------------------------------------ polar

@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("fn", [
    lambda lib, r, t: lib.polar(r, t),
    lambda lib, r, t: lib.polar(r.abs(), t) * (2 - 1j),
    lambda lib, r, t: lib.polar(r[:1], t).exp(),
    lambda lib, r, t: lib.view_as_real(lib.polar(r, t[0])),
], ids=["polar", "abs_scaled", "broadcast", "as_real"])
def test_polar(fn, dtype):
    check_op(fn, randn(2, 3, seed=8), randn(2, 3, seed=9), dtype=dtype)


@pytest.mark.parametrize("make, error", [
    (lambda lib: lib.polar(lib.ones(2), lib.ones(2, dtype=lib.float64)), RuntimeError),
    (lambda lib: lib.polar(lib.tensor([1, 2]), lib.tensor([0, 1])), RuntimeError),
    (lambda lib: lib.polar(lib.ones(2, dtype=lib.float16), lib.ones(2, dtype=lib.float16)),
     NotImplementedError),
    (lambda lib: lib.polar(lib.ones(3), lib.ones(2)), RuntimeError),
    (lambda lib: lib.polar(lib.tensor([1j]), lib.tensor([1j])), RuntimeError),
], ids=["dtypes", "integers", "half", "broadcast", "complex"])
def test_polar_errors(make, error):
    assert_same_error(make, error)


# ------------------------------------------------------------------ vdot

@pytest.mark.parametrize("dtype", DTYPES)
def test_vdot(dtype):
    check_op(lambda lib, a, b: lib.vdot(a, b), crandn(4, seed=10), crandn(4, seed=11),
             dtype=dtype)
    check_op(lambda lib, a, b: a.vdot(b * (1 + 1j)), crandn(3, seed=12), randn(3, seed=13),
             dtype=dtype)
    check_op(lambda lib, a, b: lib.vdot(a, b), randn(3, seed=14), randn(3, seed=15), dtype=dtype)
    assert_same(lambda lib: (name(lib.vdot(lib.tensor([1j], requires_grad=True),
                                            lib.tensor([1 + 1j]))),
                             lib.vdot(lib.tensor([1, 2]), lib.tensor([3, 4])).tolist()))


@pytest.mark.parametrize("make, error", [
    (lambda lib: lib.vdot(lib.ones(2), lib.ones(2, dtype=lib.float64)), RuntimeError),
    (lambda lib: lib.vdot(lib.ones(2), lib.ones(2, dtype=lib.cfloat)), RuntimeError),
    (lambda lib: lib.vdot(lib.ones(2), lib.ones(3)), RuntimeError),
    (lambda lib: lib.vdot(lib.ones(1, 2), lib.ones(2)), RuntimeError),
    (lambda lib: lib.vdot(lib.tensor([True]), lib.tensor([True])), NotImplementedError),
], ids=["dtypes", "complex_and_real", "lengths", "matrix", "bool"])
def test_vdot_errors(make, error):
    assert_same_error(make, error)


# ------------------------------------------------------------------ closeness, special values

NAN, INF = float("nan"), float("inf")


@pytest.mark.parametrize("fn", [
    lambda lib, z: lib.isnan(z), lambda lib, z: lib.isinf(z), lambda lib, z: lib.isfinite(z),
    lambda lib, z: lib.isclose(z, z), lambda lib, z: lib.isclose(z, z, equal_nan=True),
    lambda lib, z: lib.isclose(z, z + 1e-6j, rtol=0, atol=1e-5),
    lambda lib, z: lib.isclose(z, z + 1e-4j, rtol=0, atol=1e-5),
    lambda lib, z: lib.isclose(z, z * (1 + 2e-5j)),
    lambda lib, z: lib.allclose(z, z, equal_nan=True), lambda lib, z: lib.allclose(z, z),
    lambda lib, z: lib.allclose(z[::3], z[::3] + 1e-5j),
], ids=["isnan", "isinf", "isfinite", "isclose", "equal_nan", "atol", "atol_far", "rtol",
        "allclose_nan", "allclose", "allclose_close"])
def test_special_values_and_closeness(fn):
    def run(lib):
        z = lib.tensor([1 + 2j, complex(NAN, 0), complex(0, INF), 3 - 1j, complex(0, NAN),
                        complex(-INF, 1)], dtype=lib.complex128)
        out = fn(lib, z)
        return out if isinstance(out, bool) else out.tolist()
    assert_same(run)


# ------------------------------------------------------------------ linear view ops

@pytest.mark.parametrize("fn", [
    lambda lib, z: z.diagonal() * 1j, lambda lib, z: z.diagonal(1).exp(),
    lambda lib, z: z.trace() * z.trace(), lambda lib, z: z.as_strided((2, 2), (1, 2)) * z[0, 0],
], ids=["diagonal", "diagonal_offset", "trace", "as_strided"])
def test_linear_view_ops(fn):
    check_op(fn, crandn(3, 3, seed=16))


# ------------------------------------------------------------------ refusals

@pytest.mark.parametrize("call", [
    lambda lib, z: lib.atan2(z, z),
    lambda lib, z: lib.floor_divide(z, z),
    lambda lib, z: z // 2,
    lambda lib, z: lib.div(z, z, rounding_mode="trunc"),
    lambda lib, z: lib.bitwise_and(z, z),
    lambda lib, z: z | z,
    lambda lib, z: lib.bitwise_not(z),
    lambda lib, z: z.median(),
    lambda lib, z: z.median(0),
    lambda lib, z: lib.nn.functional.dropout(z),
], ids=["atan2", "floor_divide", "floordiv", "div_trunc", "bitwise_and", "or", "bitwise_not",
        "median", "median_dim", "dropout"])
def test_refused_like_torch(call):
    assert_same_error(lambda lib: call(lib, lib.tensor([1 + 2j, 3 - 1j], requires_grad=True)),
                      NotImplementedError)


def test_dropout_of_everything_is_zeros():
    check_op(lambda lib, z: lib.nn.functional.dropout(z, 1.0), crandn(3, seed=17))


def test_isreal_conj_physical_inplace_and_the_negation_bit_as_torch():
    results = []
    for T in (torch, ag):
        x = T.tensor([1 + 2j, 3 + 0j])
        leaf = T.tensor([1.0, 2.0], requires_grad=True)
        z = (leaf * 1).to(T.complex64)
        z.conj_physical_()
        (z.real * 2 + z.imag * 3).sum().backward()
        y = x.clone()
        y.conj_physical_()
        results.append([
            T.isreal(x).tolist(), T.isreal(T.tensor([1.0, 2.0])).tolist(),
            T.isreal(T.tensor([1, 2])).tolist(), y.tolist(), type(z.grad_fn).__name__,
            leaf.grad.tolist(), x.resolve_neg() is x, x.is_neg(), x.is_signed(),
            T.tensor([1], dtype=T.uint8).is_signed(), T.tensor([2.0]).is_nonzero(),
            T.absolute(x).tolist(), x.absolute().tolist()])
    assert results[0] == results[1]
    for T in (torch, ag):
        with pytest.raises(RuntimeError, match="more than one value is ambiguous"):
            T.tensor([1.0, 2.0]).is_nonzero()


# ------------------------------------------------------------------ what the fuzzer found

def close_to_torch(fn, rtol=1e-5):
    """``fn(lib)`` gives one tensor, of one dtype and close values, on both libraries."""
    ours, theirs = fn(ag), fn(torch)
    assert str(ours.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1]
    np.testing.assert_allclose(to_numpy(ours), to_numpy(theirs), rtol=rtol, atol=1e-6)


def test_silu_computes_on_complex_tensors_as_torch():
    """Forward as ``x / (1 + exp(-x))``; torch's reverse mode refuses it, its forward mode's
    tangent is its backward kernel's formula conjugated around the tangent."""
    z = [-0.875 - 0.5j, 0j, 30 + 2j, -1 + 1.5j]
    close_to_torch(lambda lib: lib.nn.functional.silu(lib.tensor(z)))
    assert_same_error(lambda lib: lib.nn.functional.silu(lib.tensor(z, requires_grad=True)),
                      RuntimeError)

    def tangent(lib):
        fw = lib.autograd.forward_ad
        with fw.dual_level():
            dual = fw.make_dual(lib.tensor([1j, 0.5 - 1j]), lib.tensor([1 + 0j, 2j]))
            return fw.unpack_dual(lib.nn.functional.silu(dual)).tangent
    close_to_torch(tangent)


def test_in_place_silu_of_a_complex_tensor_records():
    """torch's silu_ records SiluBackward0 on a complex tensor where silu refuses to, with
    its formula unconjugated (fuzz seed 985004280)."""
    def run(lib):
        x = lib.tensor([[2.25 + 2.625j, -1 + 0.5j]], dtype=lib.complex128, requires_grad=True)
        y = lib.nn.functional.silu(x * 1, inplace=True)
        grad, = lib.autograd.grad(y.abs().sum(), x, create_graph=True)
        second, = lib.autograd.grad(grad.real.sum(), x)
        return [y.grad_fn.name()] + [lib.view_as_real(t.detach()) for t in (y, grad, second)]
    assert_same(run)


def test_complex_reciprocal_of_zero_is_torch_s():
    close_to_torch(lambda lib: lib.tensor([0j, 1 + 1j]).reciprocal())
    close_to_torch(lambda lib: lib.tensor([0j, 1 + 1j]).rsqrt())


@pytest.mark.parametrize("call", [
    lambda lib: lib.tensor([1j]).clamp(),
    lambda lib: lib.tensor([], dtype=lib.complex128).amin(),
    lambda lib: lib.tensor([1 + 1j]).abs_(),
    lambda lib: lib.tensor([], dtype=lib.complex64, requires_grad=True).log_softmax(0),
    lambda lib: lib.nn.functional.binary_cross_entropy(
        lib.tensor([0.5 + 0j]), lib.tensor([0.25 + 0j]),
        weight=lib.tensor([1 + 0j], requires_grad=True)),
    lambda lib: lib.nn.functional.binary_cross_entropy_with_logits(
        lib.tensor([0.5 + 1j]), lib.tensor([0.25])),
], ids=["clamp_without_bounds", "amin_of_empty", "abs_", "log_softmax_requiring_grad",
        "bce_weight_requiring_grad", "bce_with_logits_complex_input"])
def test_refused_with_torch_s_first_error(call):
    """torch checks these before the dtype: the same exception and message."""
    assert_same_error(call, exact=True)


def test_what_torch_computes_on_complex_operands():
    close_to_torch(lambda lib: lib.tensor([], dtype=lib.complex64).softmax(0))
    close_to_torch(lambda lib: lib.nn.functional.binary_cross_entropy_with_logits(
        lib.tensor([0.5, -1.0]), lib.tensor([0.25 + 1j, 0.5])))


def test_power_of_a_complex_zero_is_torch_s():
    """torch's complex pow is exp(y log x): 0 ** 0 is NaN, a negative real part inf + nan j."""
    exponents = [0, -1.875, -0.5j, 0.5, 1 + 1j, -1 - 1j]
    close_to_torch(lambda lib: lib.zeros(6, dtype=lib.complex64) ** lib.tensor(exponents))
    for number in (0, -1.875, 0.5, 2.5, -1, 2, -2, -0.5, 1j):
        close_to_torch(lambda lib: lib.tensor([0j, 1 - 2j]) ** number)


def test_complex_add_and_sub_multiply_by_alpha_as_torch():
    """``a + alpha * b`` with a complex multiply even for alpha 1: inf + 0j gives inf + nan j."""
    inf = float("inf")
    a = [1 + 2j, 0j, 1.5 - 0j]
    b = [complex(inf, 0), complex(inf, inf), 0.25 - 0j]
    for fn in (lambda lib, x, y: x + y, lambda lib, x, y: x - y,
               lambda lib, x, y: lib.add(x, y, alpha=2), lambda lib, x, y: x - inf):
        close_to_torch(lambda lib: fn(lib, lib.tensor(a), lib.tensor(b)))


def test_amin_of_an_empty_dim_raises_torch_s_index_error():
    assert_same_error(lambda lib: lib.tensor([], dtype=lib.complex64).amin(dim=0), exact=True)


def test_where_of_a_real_and_a_complex_operand_refuses_the_real_one_s_gradient():
    """torch's where formula does not take the real part for a real operand (mul, cat ...
    do): its engine refuses the complex gradient, and so does ours."""
    def run(lib, fn):
        x = lib.tensor([1.5, -2.0], requires_grad=True)
        z = lib.tensor([1 + 1j, 2j], requires_grad=True)
        fn(lib, x, z).abs().sum().backward()
        return x.grad
    assert_same_error(lambda lib: run(lib, lambda lib, x, z: lib.where(
        lib.tensor([True, False]), z, x)), RuntimeError, r"^Expected isFloatingType\(grad")
    for fn in (lambda lib, x, z: z * x, lambda lib, x, z: lib.cat([z, x])):
        close_to_torch(lambda lib: run(lib, fn))


def test_complex_var_adds_the_variances_of_the_parts():
    """With dof <= 0 a constant part's 0 / 0 is NaN, as torch's sum of the two variances."""
    z = [[-3 + 0.5j, -1.375 + 0.25j], [0.75 - 0.375j, -1.375 - 1.25j]]
    close_to_torch(lambda lib: lib.tensor(z, dtype=lib.complex128).var(0, correction=2))
    close_to_torch(lambda lib: lib.tensor(z, dtype=lib.complex128).std(0, correction=3))
    close_to_torch(lambda lib: lib.tensor(z).var(1))


def test_complex_division_by_zero_divides_each_part():
    z = [-2.25 + 2.5j, -1.75 - 1.25j, 0j, 3j]
    close_to_torch(lambda lib: lib.tensor(z) / 0)
    close_to_torch(lambda lib: lib.tensor(z) / lib.tensor([0j, 1 + 1j, 0j, -0.0 + 0j]))
    close_to_torch(lambda lib: (2 - 1j) / lib.tensor([0j, 1 + 1j]))


def test_a_number_base_of_zero_to_complex_powers():
    exponents = [0.25 - 2.375j, 2.5 - 1.125j, -1.375 - 1.25j, 0j]
    close_to_torch(lambda lib: (0 ** lib.tensor(exponents, dtype=lib.complex128)).tanh())
    close_to_torch(lambda lib: 2 ** lib.tensor(exponents))


def _modified_split_view(lib):
    """The second output of a split whose base changed in place (fuzzer seed 88405949)."""
    z = lib.tensor([1 + 2j, 0.5 - 1j, -2j], requires_grad=True) * 1
    _, view = z.split([2, 1])
    z.square_()
    return view


@pytest.mark.parametrize("call", [
    lambda lib: lib.nn.functional.binary_cross_entropy_with_logits(
        lib.tensor([0.5, 1.0]), lib.tensor([0.75, 0.25], dtype=lib.complex64,
                                           requires_grad=True)),
    lambda lib: lib.nn.functional.nll_loss(lib.tensor([[1 + 1j, 2j]]), lib.tensor([0]),
                                           weight=lib.tensor([1 + 0j, 2], requires_grad=True)),
    lambda lib: _modified_split_view(lib).clip(max=1.125),
    lambda lib: _modified_split_view(lib) < 1,
], ids=["bce_with_logits_complex_output", "nll_loss_weight_requiring_grad",
        "clip_of_a_stale_multi_output_view", "lt_of_a_stale_multi_output_view"])
def test_autograd_refusals_come_first_as_torch(call):
    assert_same_error(call, exact=True)


def test_amin_of_an_empty_complex_result_reaches_no_kernel():
    close_to_torch(lambda lib: lib.zeros(1, 0, 1, dtype=lib.complex64).amin(dim=(0, 2)))


def test_in_place_complex_add_sub_div_compute_as_their_out_of_place_ops():
    inf = float("inf")

    def run(lib, op):
        a = lib.tensor([0.25 + 0.875j, 1 + 1j])
        b = lib.tensor([complex(inf, 0), complex(inf, inf)])
        return op(lib, a, b)

    def isub(lib, a, b):
        a -= b
        return a
    for op in (isub, lambda lib, a, b: a.add_(b, alpha=2),
               lambda lib, a, b: a.div_(lib.tensor([0j, 2 + 0j]))):
        close_to_torch(lambda lib: run(lib, op))


@pytest.mark.parametrize("call", [
    lambda lib: lib.zeros(1, 0, dtype=lib.complex64).max(),
    lambda lib: lib.zeros(0, dtype=lib.complex64).min(),
    lambda lib: lib.zeros(2, 0, dtype=lib.complex64).max(1),
], ids=["max_all", "min_all", "max_dim"])
def test_max_min_of_an_empty_complex_tensor_raise_torch_s_shape_error(call):
    assert_same_error(call, exact=True)


def test_a_real_operand_of_an_in_place_op_on_a_complex_view_gets_a_real_gradient():
    """CopySlices passes the in-place op's gradients through (it was refused)."""
    def run(lib):
        base = lib.tensor([1.75 - 1.75j, -2.875 + 2.875j])
        x = lib.tensor([-2.625], requires_grad=True)
        view = base.permute((0,))
        view -= x
        view.real.backward(gradient=lib.tensor([2.125, 1.25]))
        return x.grad
    close_to_torch(run)


def test_amax_of_an_empty_complex_result_requiring_grad_is_refused_as_torch():
    assert_same_error(lambda lib: lib.tensor([[1j]], requires_grad=True)[
        lib.tensor([False])].amax(dim=-1), exact=True)


def test_in_place_division_of_a_real_tensor_by_a_complex_one_is_refused_as_torch():
    assert_same_error(lambda lib: lib.tensor([[3.0]]).div_(lib.tensor([[-1.375 + 0j]])),
                      exact=True)


@pytest.mark.parametrize("value", [
    lambda T: T.tensor([1 - 1j]), lambda T: T.tensor(1 - 1j), lambda T: T.tensor([1 - 1j, 2j])],
    ids=["one_element", "zero_dim", "two"])
def test_a_complex_value_put_through_a_mask_into_a_real_tensor(value):
    """x[mask] = v with one element reads v as a number (NOTE [index_put_ as masked_fill_]):
    an imaginary part does not convert to float; with more elements the dtypes must match."""
    def put(T):
        x = T.zeros(2)
        x[T.tensor([True, True])] = value(T)
    assert_same_error(put, RuntimeError)


def test_a_real_valued_complex_number_put_through_a_mask_converts_quietly():
    def put(T):
        x = T.zeros(2)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            x[T.tensor([True, False])] = T.tensor([3 + 0j])
        return x.tolist()
    assert_same(put)


def test_ordering_complex_tensors_of_mismatched_shapes_names_the_shapes():
    assert_same_error(lambda T: T.ones(1, 4, 1, dtype=T.complex128).lt(
        T.ones(2, 1, dtype=T.complex128)), RuntimeError, "must match the size")


@pytest.mark.parametrize("shapes", [((1, 0, 2), (1, 2, 1)), ((1, 2, 2), (1, 2, 0)),
                                    ((1, 2, 0), (1, 0, 3)), ((1, 1, 1), (1, 1, 1))],
                         ids=["no_rows", "no_columns", "no_inner", "one_element"])
def test_bmm_of_two_dtypes_is_empty_or_refused_as_torch(shapes):
    """torch returns an empty product (zeros for an inner dim of 0) in the promoted dtype
    before it compares the dtypes (fuzzer seed 87301253); any other product refuses them."""
    def fn(T):
        product = T.bmm(T.ones(*shapes[0]), T.ones(*shapes[1], dtype=T.complex128))
        return str(product.dtype).split(".")[-1], list(product.shape), product.tolist()
    if shapes[0] == (1, 1, 1):
        assert_same_error(fn, RuntimeError, exact=True)
    else:
        assert_same(fn)


def test_as_strided_of_a_conjugate_view():
    """The geometry reads the base's memory and the result is conjugated: the elements of a
    conjugate view live in a mirror of that memory, which as_strided once read as the base."""
    z = np.array([1 + 2j, 3 - 1j, 2 + 0.5j, -1j])
    check_op(lambda lib, z: z.conj().as_strided((2, 2), (1, 2), 0), z)
    assert_same(lambda lib: [lib.tensor(z).conj().as_strided((3,), (1,), 1).tolist(),
                             lib.tensor(z).conj().as_strided((2,), (2,)).is_conj()])


def test_sgn_of_complex_infinities_as_torch():
    """torch's sgn is self / |self| (0 at 0): an infinite part gives NaN, where NumPy's
    complex sign gives a unit number; abs's gradient is that sgn (fuzz seed 847004248)."""
    values = [complex(np.inf, np.nan), complex(np.inf, 0), complex(-np.inf, 1),
              complex(np.nan, 1), complex(np.inf, np.inf), 0j, 3 + 4j, -1e-30j]
    results = []
    for lib in (ag, torch):
        z = lib.tensor(values, dtype=lib.complex64, requires_grad=True)
        z.abs().sum().backward()
        results.append((lib.sgn(z.detach()).cpu().numpy(), z.grad.cpu().numpy()))
    for ours, theirs in zip(*results):
        np.testing.assert_array_equal(ours, theirs)


def test_log1p_of_complex_special_values_as_torch():
    """torch's CPU log1p of a complex x is log(u) * (x / (u - 1)), u = 1 + x: an infinite
    part with a NaN gives NaN where NumPy's complex log1p gives inf (fuzz seed 847004832)."""
    values = [complex(np.inf, np.nan), complex(np.nan, np.inf), complex(np.nan, np.nan),
              complex(np.inf, 0), complex(-np.inf, 1), complex(-1, 0), 0j, 1e30 + 1e30j]
    for dtype in ("complex64", "complex128"):
        ours = ag.log1p(ag.tensor(values, dtype=getattr(ag, dtype))).cpu().numpy()
        theirs = torch.log1p(torch.tensor(values, dtype=getattr(torch, dtype))).numpy()
        np.testing.assert_array_equal(ours, theirs)


@pytest.mark.cpu_only
@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_log1p_keeps_the_sign_of_a_zero_imaginary_part(dtype):
    """``1 + x`` keeps ``x``'s imaginary -0.0, so log1p of a real part below -1 lies on the
    lower side of the branch cut, -pi i, as torch's (fuzz seed 985003571)."""
    values = [complex(-1.75, -0.0), complex(-1.75, 0.0), complex(0.5, -0.0), complex(-1, -0.0)]
    ours = ag.log1p(ag.tensor(values, dtype=getattr(ag, dtype))).cpu().numpy()
    theirs = torch.log1p(torch.tensor(values, dtype=getattr(torch, dtype))).numpy()
    np.testing.assert_array_equal(ours, theirs)
    np.testing.assert_array_equal(np.signbit(ours.imag), np.signbit(theirs.imag))
    # a 0-d tensor too (NumPy's 1 + x of it is a scalar, whose parts cannot be written)
    assert_same(lambda lib: repr(lib.log1p(lib.tensor(values[0], dtype=getattr(lib, dtype)))
                                 .item().imag))
