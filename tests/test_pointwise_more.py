"""fmod, remainder (autograd_cy/remainders.py), copysign, signbit, isposinf, isneginf,
heaviside (signs.py), xlogy, logit (logarithmic.py), hypot, sinc, float_power (hypot_sinc.py)
against torch's: values, gradients and double backward (check_op),
gradcheck and gradgradcheck in float64, forward AD, the nodes, signed zeros, integer
inputs, and errors."""
import numpy as np
import pytest

from oracle import (
    assert_same, assert_same_error, check_gradcheck, check_jvp, check_op, node_name, randn,
)


def _away_from_multiples(x, y):
    """x / y kept away from whole numbers, where the quotient (and the gradient) jumps."""
    q = x / y
    return (np.floor(q) + 0.5 + 0.3 * np.tanh(q - np.floor(q) - 0.5)) * y


Y = randn(3, 4, seed=3) + np.sign(randn(3, 4, seed=3)) * 0.5
X = _away_from_multiples(randn(3, 4) * 3, Y)

CASES = {
    "fmod_number": lambda lib, x, y: lib.fmod(x, 0.7),
    "fmod_tensor": lambda lib, x, y: x.fmod(y),
    "fmod_broadcast": lambda lib, x, y: lib.fmod(x, y[0]),
    "remainder_number": lambda lib, x, y: x.remainder(-0.7),
    "remainder_tensor": lambda lib, x, y: lib.remainder(x, y),
    "copysign_tensor": lambda lib, x, y: lib.copysign(x, y),
    "copysign_number": lambda lib, x, y: x.copysign(-2.0) * y,
    "copysign_broadcast": lambda lib, x, y: x[0].copysign(y),
}


@pytest.mark.parametrize("name", CASES)
def test_values_gradients_and_double_backward(name):
    check_op(CASES[name], X, Y)


@pytest.mark.parametrize("name", CASES)
def test_forward_ad(name):
    check_jvp(CASES[name], X, Y)


@pytest.mark.parametrize("name", CASES)
def test_gradcheck(name):
    check_gradcheck(CASES[name], X, Y, check_forward_ad=True)


def test_nodes():
    def run(lib):
        x, y = (lib.tensor(a, requires_grad=True) for a in (X, Y))
        return [node_name(CASES[name](lib, x, y).grad_fn) for name in CASES] + [
            node_name(lib.heaviside(x, y).grad_fn)]
    assert_same(run)


def test_signed_zeros_and_special_values():
    x = np.array([0.0, -0.0, 2.0, -3.0, np.inf, -np.inf, np.nan, 5.5])
    y = np.array([-1.0, 1.0, -0.0, 0.0, -2.0, 3.0, 1.0, np.inf])

    def run(lib):
        a, b = lib.tensor(x), lib.tensor(y)
        return [str(t.tolist()) for t in (
            lib.copysign(a, b), lib.copysign(a, -0.0), lib.copysign(a, 0.0), lib.signbit(a),
            lib.signbit(b), lib.isposinf(a), lib.isneginf(a), lib.fmod(a, b),
            lib.remainder(a, b), lib.fmod(a, 2.0), lib.remainder(a, -2.0),
            lib.heaviside(a, lib.tensor([0.5], dtype=lib.float64)))]
    assert_same(run)


def test_copysign_gradient_at_zero():
    check_op(lambda lib, x, y: lib.copysign(x, y), np.array([0.0, -0.0, 1.0]),
             np.array([-1.0, 1.0, -1.0]))


def test_integers():
    assert_same(lambda lib: [lib.fmod(lib.tensor([-3, 3, 7]), 2),
                             lib.remainder(lib.tensor([-3, 3, 7]), lib.tensor([2, -2, 4])),
                             lib.remainder(lib.tensor([-3, 3]), 2.5),
                             lib.copysign(lib.tensor([1, -2]), lib.tensor([-1, 1])),
                             lib.copysign(lib.tensor([1, -2]), -1),
                             lib.signbit(lib.tensor([1, -1])),
                             lib.isposinf(lib.tensor([1, 2])), lib.signbit(lib.tensor([True]))])


def test_heaviside_has_no_derivative():
    def run(lib):
        x = lib.tensor([-1.0, 0.0, 2.0], requires_grad=True)
        lib.heaviside(x, lib.tensor([0.5])).sum().backward()
    assert_same_error(run, RuntimeError)
    assert_same_error(lambda lib: lib.heaviside(lib.zeros(2), lib.zeros(2).double()))


P = np.random.default_rng(7).uniform(0.05, 0.95, (3, 4))
Q = np.abs(randn(3, 4, seed=9)) + 0.2

MORE = {
    "xlogy": lambda lib, p, q: lib.xlogy(p, q),
    "xlogy_broadcast": lambda lib, p, q: p[0].xlogy(q),
    "xlogy_number_self": lambda lib, p, q: lib.xlogy(2.0, q) * p,
    "xlogy_number_other": lambda lib, p, q: lib.xlogy(p, 3.0) * q,
    "logit": lambda lib, p, q: lib.logit(p) * q,
    "logit_eps": lambda lib, p, q: p.logit(eps=0.2) + q,
    "hypot": lambda lib, p, q: lib.hypot(p - 0.5, q),
    "hypot_broadcast": lambda lib, p, q: (p - 0.5).hypot(q[:, :1]),
    "sinc": lambda lib, p, q: lib.sinc((p - 0.5) * 5) * q,
    "float_power": lambda lib, p, q: lib.float_power(q, p),
    "float_power_number": lambda lib, p, q: q.float_power(2.5) + p,
}


@pytest.mark.parametrize("name", MORE)
def test_more_values_gradients_and_double_backward(name):
    check_op(MORE[name], P, Q)


@pytest.mark.parametrize("name", MORE)
def test_more_forward_ad(name):
    check_jvp(MORE[name], P, Q)


@pytest.mark.parametrize("name", MORE)
def test_more_gradcheck(name):
    check_gradcheck(MORE[name], P, Q, check_forward_ad=True)


def test_more_nodes():
    def run(lib):
        p, q = (lib.tensor(a, requires_grad=True) for a in (P, Q))
        return [node_name(lib.xlogy(p, q).grad_fn), node_name(lib.xlogy(2.0, q).grad_fn),
                node_name(lib.xlogy(p, 2.0).grad_fn), node_name(lib.logit(p).grad_fn),
                node_name(lib.logit(p, 0.1).grad_fn), node_name(lib.hypot(p, q).grad_fn),
                node_name(lib.sinc(p).grad_fn), node_name(lib.float_power(p, 2).grad_fn),
                node_name(lib.float_power(p, q).grad_fn)]
    assert_same(run)


def test_more_special_values():
    x = np.array([0.0, -0.0, 1.0, 0.5, 2.0, np.nan, np.inf, -1.0])
    y = np.array([0.0, np.nan, 0.0, 2.0, np.inf, 1.0, 3.0, 0.5])

    def run(lib):
        a, b = lib.tensor(x), lib.tensor(y)
        return [str(t.tolist()) for t in (
            lib.xlogy(a, b), lib.logit(a), lib.logit(a, 0.25), lib.hypot(a, b), lib.sinc(a),
            lib.float_power(a, b), lib.xlogy(lib.tensor([0, 2]), lib.tensor([0, 3])),
            lib.logit(lib.tensor([0, 1])), lib.sinc(lib.tensor([0, 1])),
            lib.float_power(lib.tensor([2, 3]), 2))]
    assert_same(run)


def test_logit_gradient_outside_eps():
    check_op(lambda lib, p: lib.logit(p, 0.2), np.array([0.05, 0.1, 0.5, 0.95]), double=False)


def test_hypot_of_integers():
    assert_same_error(lambda lib: lib.hypot(lib.tensor([3]), lib.tensor([4])),
                      NotImplementedError)


@pytest.mark.parametrize("written", [0, 1])
def test_hypot_saves_each_operand_for_its_own_gradient(written):
    """HypotBackward0 saves an operand only where its gradient is wanted: writing the other
    (which needs none) in place leaves the backward working (fuzz seed 954003175)."""
    def fn(lib):
        x = lib.tensor([1.875], requires_grad=written == 1) * 1
        y = lib.tensor([[-0.875]], requires_grad=written == 0) * 1
        out = lib.hypot(x, y)
        with lib.no_grad():
            (x, y)[written].add_(1)
        out.sum().backward()
        return "ok"
    assert_same(fn)


@pytest.mark.parametrize("call", [lambda lib, x: lib.logit(x), lambda lib, x: x.logit_(eps=0.1),
                                  lambda lib, x: lib.special.logit(x[:0])])
def test_logit_refuses_complex_tensors(call):
    # fuzz seed 988003763
    assert_same_error(lambda lib: call(lib, lib.ones(2, dtype=lib.complex128)),
                      NotImplementedError, exact=True)


@pytest.mark.parametrize("name", ["signbit", "isposinf", "isneginf"])
def test_sign_and_infinity_tests_refuse_complex_tensors(name):
    assert_same_error(lambda lib: getattr(lib, name)(lib.ones(0, dtype=lib.complex64)),
                      exact=True)


@pytest.mark.parametrize("call", [
    lambda lib, f, c: lib.copysign(f, c), lambda lib, f, c: lib.copysign(c[:0], 1.0),
    lambda lib, f, c: lib.heaviside(c, f), lambda lib, f, c: lib.heaviside(c[:0], c[:0]),
    lambda lib, f, c: lib.special.xlog1py(2.0, c), lambda lib, f, c: lib.searchsorted(f, c),
    lambda lib, f, c: lib.searchsorted(c, 1.0),
    lambda lib, f, c: lib.nn.functional.cosine_similarity(f, c, dim=0),
    # the in-place forms refuse the cast of the complex result type first
    lambda lib, f, c: f.clone().xlogy_(c), lambda lib, f, c: f.clone().copysign_(c),
])
def test_binary_ops_torch_refuses_for_complex_operands(call):
    assert_same_error(lambda lib: call(lib, lib.ones(2), lib.ones(2, dtype=lib.complex64)),
                      exact=True)


def test_searchsorted_of_no_complex_values():
    assert_same(lambda lib: lib.searchsorted(lib.ones(0, dtype=lib.complex64),
                                             lib.ones(0, dtype=lib.complex64)))


@pytest.mark.parametrize("name", ["fmod", "remainder"])
@pytest.mark.parametrize("needs", [(True, False), (False, True)])
def test_tensor_divisor_saves_only_for_its_gradient(name, needs):
    """torch's node saves input and other only where other needs a gradient: with input's
    alone a second backward goes through and a write of either operand does not refuse
    (fuzz seed 981005491)."""
    def run(lib):
        a = lib.tensor([1.0, -2.5], requires_grad=needs[0]) * 1
        b = lib.tensor([[0.75], [2.0]], requires_grad=needs[1]) * 1
        out = getattr(lib, name)(a, b).sum()
        out.backward()
        with lib.no_grad():
            b.add_(1)
        try:
            out.backward()
        except RuntimeError as error:
            return str(error)[:40]
        return "went through"
    assert_same(run)


@pytest.mark.parametrize("name", ["xlogy", "special.xlog1py"])
def test_xlogy_input_gradient_is_torchs_xlogy_of_the_gradient(name):
    """torch's formula is xlogy(grad, other) with 0 where self is 0 and other is out of
    log's domain: 0 where the gradient is 0 (whatever log(other) is: fuzz seed 989004135),
    log(other) where self is 0 inside the domain."""
    def run(lib):
        fn = lib.xlogy if name == "xlogy" else lib.special.xlog1py
        x = lib.tensor([0.0, 0.0, 0.0, 1.0, 2.0, 0.0, 1.5], requires_grad=True)
        y = lib.tensor([2.0, -1.0, 0.0, -0.5, float("nan"), -2.0, 3.0], dtype=lib.float64)
        grad = lib.tensor([1.0, 1.0, 1.0, 0.0, 0.0, 1.0, 2.0], dtype=lib.float64)
        return lib.autograd.grad(fn(x, y), x, grad)[0]
    assert_same(run)


def _bits(t):
    """A float16/bfloat16 tensor's values exactly (the sign of zero included)."""
    return [repr(v) for v in t.detach().float().flatten().tolist()]


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_sinc_of_half_precision_computes_in_float32(dtype):
    """torch's kernel forms pi x in float32 and rounds sin(pi x) / (pi x) once: near a
    whole number a half-precision pi x would leave a residue a thousand times too large
    (fuzz seed 985003246: sinc(-2) is 2.8e-08, not -3.1e-04)."""
    assert_same(lambda lib: _bits(lib.sinc(lib.tensor([-2.0, 0.5, 3.0, 0.0],
                                                      dtype=getattr(lib, dtype)))))


@pytest.mark.parametrize("name", ["logaddexp", "logaddexp2"])
@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_logaddexp_of_half_precision_rounds_once(name, dtype):
    """Computed in float32 and rounded once, as torch's kernel: each op rounding to the
    half type put logaddexp(-1.5, 3.9) 26 units in the last place off (fuzz seed
    985001827)."""
    a, b = randn(40, seed=1) * 3, randn(40, seed=2) * 3

    def fn(lib):
        half = getattr(lib, dtype)
        return _bits(getattr(lib, name)(lib.tensor(a, dtype=half), lib.tensor(b, dtype=half)))
    assert_same(fn)


@pytest.mark.cpu_only
@pytest.mark.parametrize("dtype", ["float32", "float64", "bfloat16", "float16"])
def test_signbit_and_copysign_read_the_sign_of_a_nan(dtype):
    """pow of a negative base to a fractional power is a NaN with its sign bit set (x86's
    default NaN); torch's signbit and copysign read that bit (fuzz seed 986004387)."""
    def fn(lib):
        nan = lib.pow(lib.tensor([-0.5, 0.5, -0.0, 0.0, -1.0]), lib.tensor([2.5, 1, 1, 1, 1]))
        nan = nan.to(getattr(lib, dtype))
        ones = lib.ones(5, dtype=nan.dtype)
        return (lib.signbit(nan).tolist(), lib.copysign(ones, nan).float().tolist(),
                lib.copysign(ones, -float("nan")).float().tolist())
    assert_same(fn)


@pytest.mark.cpu_only
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16"])
def test_nan_of_a_negative_number_is_positive_as_torch(dtype):
    """NOTE [The sign of a NaN]: torch's sqrt, log, log2, log10 and pow(x, 0.5) of a negative
    number give a NaN without its sign bit (NumPy's has it), which copysign then reads (fuzz
    seed 990000668, a 0-d tensor); a NaN passed in keeps its sign. float16 keeps x86's
    negative NaN (a NaN given to its log is not compared: NumPy's drops its sign)."""
    def fn(lib):
        values = [-2.0, 4.0] + ([-float("nan")] if dtype != "float16" else [])
        x = lib.tensor(values, dtype=getattr(lib, dtype))
        outs = [lib.sqrt(x), lib.log(x), lib.log2(x), lib.log10(x), lib.pow(x, 0.5),
                lib.sqrt(x[0]), lib.log(x[0])]
        if dtype == "float64":
            outs.append(lib.log1p(x - 5))
        return [lib.signbit(out).tolist() for out in outs]
    assert_same(fn)


def test_copysign_saves_its_input_for_the_input_gradient_only():
    """torch's node saves input and result for input's gradient alone (other's is zeros): an
    in-place write of input stops only a backward that wants input's gradient (fuzz seed
    991500647)."""
    def other_only(lib):
        x = lib.tensor([[-0.75], [2.25]], dtype=lib.float64)
        sign = lib.tensor([[1.375, -2.0]], dtype=lib.float64, requires_grad=True)
        out = lib.copysign(x, sign)
        x.clamp_(max=1.0)
        out.backward(lib.ones(2, 2, dtype=lib.float64))
        return sign.grad

    def both_inputs(lib):
        x = lib.tensor([[-0.75], [2.25]], dtype=lib.float64, requires_grad=True) * 1
        out = lib.copysign(x, lib.tensor([[1.375, -2.0]], dtype=lib.float64))
        x.clamp_(max=1.0)
        out.backward(lib.ones(2, 2, dtype=lib.float64))
    assert_same(other_only)
    assert_same_error(both_inputs, RuntimeError, "modified by an inplace operation")


def test_hypot_of_shapes_that_do_not_broadcast():
    """torch's RuntimeError and words, not NumPy's ValueError (fuzz seed 991001452)."""
    assert_same_error(lambda lib: lib.hypot(lib.tensor([-0.875, 0.75, 2.75]),
                                            lib.tensor([1.625, -1.625])),
                      RuntimeError, exact=True)
