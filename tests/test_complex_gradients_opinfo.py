"""Complex gradients that torch's OpInfo samples showed differing from torch, against torch.

One test per bug class, each with the smallest input that showed it:
- a formula that multiplied the gradient by a factor without conjugating it (lerp, addcmul,
  addcdiv, ldexp, sinc; the convolutions' adjoints, whose other operand is conjugated);
- cholesky's backward, which dropped the imaginary part of the diagonal torch keeps
  (NOTE [The Cholesky backward]);
- complex64 scans accumulated in complex64 where torch's CPU kernels use complex128;
- ops refused for complex inputs that torch computes: sinc's dtype, logaddexp (NOTE
  [Complex log-add-exp]), rms_norm, pairwise_distance's gradient (sgn, not sign).
Gradients and double backward through ``check_op``; tangents through ``check_jvp``.
"""
import numpy as np
import pytest
import torch

import autograd_cy as ag
from oracle import assert_same_error, check_jvp, check_op, randn

JVP_TOLERANCE = (1e-7, 1e-9)


def crandn(*shape, seed=0):
    return randn(*shape, seed=seed) + 1j * randn(*shape, seed=seed + 100)


# ------------------------------------------------------------------ conjugated factors

@pytest.mark.parametrize("fn", [
    lambda lib, x, a, b: lib.addcmul(x, a, b),
    lambda lib, x, a, b: lib.addcmul(x, a, b, value=0.5 - 2j),
    lambda lib, x, a, b: lib.addcdiv(x, a, b),
    lambda lib, x, a, b: x.addcdiv(a, b, value=-1.5 + 0.5j),
    lambda lib, x, a, b: lib.lerp(x, a, b),
], ids=["addcmul", "addcmul value", "addcdiv", "addcdiv value", "lerp tensor weight"])
def test_pointwise_gradients_take_the_conjugate(fn):
    check_op(fn, crandn(3, 1), crandn(3, 4, seed=1), crandn(4, seed=2))
    check_jvp(fn, crandn(3, 1), crandn(3, 4, seed=1), crandn(4, seed=2), dtype=np.complex128,
              tangents=[crandn(3, 1, seed=3), crandn(3, 4, seed=4), crandn(4, seed=5)],
              rtol=JVP_TOLERANCE[0], atol=JVP_TOLERANCE[1])


@pytest.mark.parametrize("weight", [0.25, 0.75, 0.4j, 6.1 + 0.004j])
def test_lerp_number_weight(weight):
    check_op(lambda lib, x, end: lib.lerp(x, end, weight), crandn(2, 3), crandn(3, seed=1))


def test_ldexp():
    check_op(lambda lib, x, e: lib.ldexp(x, e), crandn(2, 3), crandn(3, seed=1))
    check_op(lambda lib, x, e: x.ldexp(e), crandn(4), np.array([-2, 0, 1, 3]))


def test_mixed_real_and_complex_operands():
    # addcmul's and addcdiv's real operands get the real part of their complex gradients
    # (torch's handle_r_to_c) ...
    check_op(lambda lib, x, a, b: lib.addcmul(x, a, b, value=2), randn(3), randn(3, seed=1),
             crandn(3, seed=2))
    check_op(lambda lib, x, a, b: lib.addcdiv(x, a, b), crandn(3), randn(3, seed=1),
             crandn(3, seed=2))
    check_op(lambda lib, x, a, b: lib.addcdiv(x, a, b), randn(3), crandn(3, seed=1),
             randn(3, seed=2))


@pytest.mark.parametrize("fn", [
    lambda lib, r, c: lib.ldexp(c, r),
    lambda lib, r, c: lib.logaddexp(r, c),
    lambda lib, r, c: lib.lerp(c, c * 2, r.sum()),
], ids=["ldexp", "logaddexp", "lerp"])
def test_mixed_real_and_complex_operands_refused_in_backward(fn):
    # ... where the other ops' formulas leave them complex, which torch's engine refuses
    def backward(lib):
        r = lib.tensor([0.5, 2.0], dtype=lib.float64, requires_grad=True)
        c = lib.tensor([1 + 2j, 3 - 1j], requires_grad=True)
        fn(lib, r, c).abs().sum().backward()
    assert_same_error(backward, RuntimeError,
                      r"^Expected isFloatingType\(grad.scalar_type\(\)\) \|\| "
                      r"\(input_is_complex == grad_is_complex\) to be true, but got false")


# ------------------------------------------------------------------ sinc

def test_sinc_keeps_a_complex_dtype_and_conjugates():
    z = crandn(5)
    z[0] = 0
    check_op(lambda lib, x: lib.sinc(x), z)
    check_op(lambda lib, x: x.sinc(), z, dtype=np.float32)
    check_jvp(lambda lib, x: lib.sinc(x), crandn(4), dtype=np.complex128,
              tangents=[crandn(4, seed=1)], rtol=JVP_TOLERANCE[0], atol=JVP_TOLERANCE[1])


def test_sinc_gradient_where_the_square_underflows():
    # torch's derivative is 0 where pi x^2 is 0, not only at x = 0
    check_op(lambda lib, x: lib.sinc(x), np.array([1e-200, 0.0, 1e-170, 2.0]))


# ------------------------------------------------------------------ cholesky

def hermitian_positive_definite(n, batch=(), seed=0):
    a = crandn(*batch, n, n, seed=seed)
    return a @ np.conj(np.swapaxes(a, -1, -2)) + n * np.eye(n)


@pytest.mark.parametrize("fn", [
    lambda lib, a: lib.linalg.cholesky(a),
    lambda lib, a: lib.linalg.cholesky(a, upper=True),
    lambda lib, a: lib.linalg.cholesky_ex(a).L,
    lambda lib, a: lib.cholesky(a),
], ids=["lower", "upper", "cholesky_ex", "torch.cholesky"])
def test_cholesky_keeps_the_imaginary_diagonal(fn):
    check_op(fn, hermitian_positive_definite(3))
    check_op(fn, hermitian_positive_definite(2, (2,), seed=1))


def test_cholesky_real_gradient_unchanged():
    a = randn(3, 3)
    check_op(lambda lib, x: lib.linalg.cholesky(x), a @ a.T + 3 * np.eye(3))


# ------------------------------------------------------------------ convolutions

@pytest.mark.parametrize("fn, x, w, channels", [
    (lambda lib, x, w, b: lib.nn.functional.conv1d(x, w, b, padding=1), (2, 2, 5), (3, 2, 3),
     3),
    (lambda lib, x, w, b: lib.nn.functional.conv2d(x, w, b, stride=2, padding=1),
     (1, 2, 5, 4), (3, 2, 3, 2), 3),
    (lambda lib, x, w, b: lib.nn.functional.conv2d(x, w, b, groups=2, dilation=2),
     (1, 4, 5, 5), (2, 2, 2, 2), 2),
    (lambda lib, x, w, b: lib.nn.functional.conv_transpose1d(x, w, b, stride=2),
     (2, 2, 4), (2, 3, 3), 3),
    (lambda lib, x, w, b: lib.nn.functional.conv_transpose2d(x, w, b, stride=2, padding=1,
                                                              output_padding=1),
     (1, 2, 3, 3), (2, 3, 3, 2), 3),
], ids=["conv1d", "conv2d", "conv2d groups", "conv_transpose1d", "conv_transpose2d"])
def test_convolution_gradients_conjugate_the_other_operand(fn, x, w, channels):
    check_op(fn, crandn(*x), crandn(*w, seed=1), crandn(channels, seed=2))


@pytest.mark.parametrize("make", [randn, crandn], ids=["real", "complex"])
def test_conv_transpose_output_padding_beyond_the_stride(make):
    # output_padding 3 >= stride 2 (allowed: below the dilation): the convolution of the
    # output's gradient is a column longer than the input
    check_op(lambda lib, x, w, b: lib.nn.functional.conv_transpose2d(
        x, w, b, stride=(3, 2), padding=(1, 2), output_padding=(2, 3), groups=2,
        dilation=(4, 4)), make(1, 2, 4, 4), make(2, 2, 4, 5, seed=1), make(4, seed=2))


# ------------------------------------------------------------------ complex64 scans

@pytest.mark.cpu_only      # torch's CPU kernels' sums, bit for bit (a device scans in a tree)
def test_complex64_scans_accumulate_in_complex128():
    rng = np.random.default_rng(0)
    z = ((rng.standard_normal(4000) + 1j * rng.standard_normal(4000)) * 1000).astype(
        np.complex64)
    for fn in (lambda lib, x: lib.cumsum(x, 0), lambda lib, x: lib.logcumsumexp(x / 100, 0)):
        np.testing.assert_array_equal(fn(ag, ag.tensor(z)).cpu().numpy(),
                                      fn(torch, torch.tensor(z)).numpy())


def test_logcumsumexp_complex64_gradient():
    # a column of the OpInfo sample that differed by 3e-3: a large first entry, whose
    # phase the later sums (in complex64) rounded
    z = np.array([1e4, -3.765 - 1.447j, 4.37 - 0.718j, 4.2368 + 2.786j, -1.668 + 1.939j])
    check_op(lambda lib, x: lib.logcumsumexp(x, 0), z, dtype=np.float32)
    check_op(lambda lib, x: lib.logcumsumexp(x, 0), z)


# ------------------------------------------------------------------ logaddexp

def test_logaddexp_complex():
    check_op(lambda lib, a, b: lib.logaddexp(a, b), crandn(3, 1), crandn(4, seed=1))
    check_op(lambda lib, a, b: a.logaddexp(b), crandn(3), crandn(3, seed=1), dtype=np.float32)
    check_op(lambda lib, a, b: lib.logaddexp(a, b), randn(3), crandn(3, seed=1),
             requires_grad=[False, True])
    check_jvp(lambda lib, a, b: lib.logaddexp(a, b), crandn(3), crandn(3, seed=1),
              dtype=np.complex128, tangents=[crandn(3, seed=2), crandn(3, seed=3)],
              rtol=JVP_TOLERANCE[0], atol=JVP_TOLERANCE[1])


def test_logaddexp_complex_special_values():
    inf, nan = float("inf"), float("nan")
    a = np.array([1 + 2j, inf, complex(-inf, 1), complex(nan, 0), complex(1, nan), 3, 2, -inf])
    b = np.array([0.5 - 1j, complex(inf, 1), -inf, 1, 5, complex(3, nan), 2 + 1j, 0])
    ours = ag.logaddexp(ag.tensor(a), ag.tensor(b)).cpu().numpy()
    theirs = torch.logaddexp(torch.tensor(a), torch.tensor(b)).numpy()
    np.testing.assert_array_equal(ours, theirs)


def test_logaddexp2_still_refuses_complex():
    assert_same_error(lambda lib: lib.logaddexp2(lib.tensor([1j]), lib.tensor([1j])),
                      NotImplementedError, "logaddexp2_cpu\" not implemented for 'ComplexFloat'")


# ------------------------------------------------------------------ rms_norm

def test_rms_norm_complex():
    check_op(lambda lib, x, w: lib.nn.functional.rms_norm(x, (3,), w), crandn(2, 3),
             crandn(3, seed=1))
    check_op(lambda lib, x: lib.nn.functional.rms_norm(x, (2, 3), eps=1e-3), crandn(2, 2, 3))
    check_op(lambda lib, x: lib.nn.functional.rms_norm(x, [3]), crandn(2, 3), dtype=np.float32)
    check_op(lambda lib, x, w: lib.nn.functional.rms_norm(x, (3,), w), crandn(2, 3),
             randn(3, seed=1))


# ------------------------------------------------------------------ p-norms

@pytest.mark.parametrize("p", [1.0, float("inf"), 0.5, 1.5, 2.0, 3.0])
def test_pairwise_distance_complex(p):
    check_op(lambda lib, a, b: lib.nn.functional.pairwise_distance(a, b, p), crandn(3, 4),
             crandn(3, 4, seed=1))


def test_renorm_complex64_infinity_norm():
    # torch's complex64 gradient is NaN here: its renorm_backward takes the norm in
    # complex128 (acc_type) and compares it with the complex64 entries' float32 abs, which
    # never match, so the inf-norm's mask is empty and 0/0 spreads. This gradient is
    # torch's complex128 one, rounded.
    z = crandn(3, 2, 4)
    grad = crandn(3, 2, 4, seed=1)
    x = torch.tensor(z, dtype=torch.complex64, requires_grad=True)
    torch.renorm(x, float("inf"), 2, 0.5).backward(torch.tensor(grad, dtype=torch.complex64))
    assert x.grad.isnan().all()
    x = torch.tensor(z, requires_grad=True)
    torch.renorm(x, float("inf"), 2, 0.5).backward(torch.tensor(grad))
    ours = ag.tensor(z.astype(np.complex64), requires_grad=True)
    ag.renorm(ours, float("inf"), 2, 0.5).backward(ag.tensor(grad.astype(np.complex64)))
    np.testing.assert_allclose(ours.grad.cpu().numpy(), x.grad.numpy(), rtol=1e-4, atol=1e-5)
    check_op(lambda lib, a: lib.renorm(a, float("inf"), 2, 0.5), z)
