"""deg2rad, rad2deg (autograd_cy/angle_units.py), frexp, ldexp (float_parts.py), dist and
renorm (p_norms.py) against torch's: values, dtypes, gradients, double backward, forward AD
and errors."""
import numpy as np
import pytest

from oracle import assert_same, assert_same_error, both, check_jvp, check_op, node_name, randn

CASES = {
    "deg2rad": (lambda lib, x, y: lib.deg2rad(x), {}),
    "rad2deg": (lambda lib, x, y: x.rad2deg(), {}),
    "frexp": (lambda lib, x, y: lib.frexp(x * 40), {"double": False}),
    "ldexp": (lambda lib, x, y: lib.ldexp(x, lib.tensor([[1], [-2], [3]])), {}),
    "ldexp_float_exponent": (lambda lib, x, y: x.ldexp(y), {}),
    "ldexp_broadcast": (lambda lib, x, y: lib.ldexp(x[0], y * 2), {}),
    "dist": (lambda lib, x, y: lib.dist(x, y), {}),
    "dist_p3_broadcast": (lambda lib, x, y: x.dist(y[0], 3), {}),
    "dist_inf": (lambda lib, x, y: lib.dist(x, y, float("inf")), {}),
    "dist_p1": (lambda lib, x, y: lib.dist(x, y, 1), {}),
    "renorm": (lambda lib, x, y: lib.renorm(x, 2, 0, 1.5), {}),
    "renorm_p1_dim1": (lambda lib, x, y: x.renorm(1, -1, 1.0), {}),
    "renorm_p_inf": (lambda lib, x, y: x.renorm(float("inf"), 1, 1.0), {}),
}


@pytest.mark.parametrize("name", CASES)
def test_values_and_gradients(name):
    fn, options = CASES[name]
    check_op(fn, randn(3, 4), randn(3, 4, seed=1), **options)
    check_op(fn, randn(3, 4), randn(3, 4, seed=1), dtype=np.float32, **options)


@pytest.mark.parametrize("name", CASES)
def test_forward_ad(name):
    check_jvp(CASES[name][0], randn(3, 4), randn(3, 4, seed=1))


def test_types_and_specials():
    def run(lib):
        i = lib.arange(6).reshape(2, 3)
        specials = lib.tensor([0.0, float("inf"), float("-inf"), float("nan"), -3.0, 1e-310],
                              dtype=lib.float64)
        mantissa, exponent = lib.frexp(specials)
        return [lib.deg2rad(i), lib.rad2deg(lib.tensor([True])), mantissa, exponent,
                str(exponent.dtype).split(".")[-1],
                str(lib.frexp(lib.ones(2, dtype=lib.float16))[1].dtype).split(".")[-1],
                lib.ldexp(i, i), lib.ldexp(lib.ones(2, dtype=lib.float64), lib.tensor(3)),
                lib.dist(lib.ones(2), lib.ones(2, dtype=lib.float64) * 3),
                lib.dist(lib.ones(3), lib.zeros(3), 0), type(lib.frexp(lib.ones(1))).__name__,
                node_name(lib.frexp(lib.ones(2, requires_grad=True)).mantissa.grad_fn),
                lib.frexp(lib.ones(2, requires_grad=True)).exponent.requires_grad,
                node_name(lib.ldexp(lib.ones(2, requires_grad=True), i[0, :2]).grad_fn),
                node_name(lib.deg2rad(lib.ones(2, requires_grad=True)).grad_fn),
                node_name(lib.ones(2, requires_grad=True).rad2deg().grad_fn),
                node_name(lib.dist(lib.ones(2, requires_grad=True), lib.zeros(2)).grad_fn),
                node_name(lib.ones(2, 2, requires_grad=True).renorm(2, 0, 1.0).grad_fn)]
    assert_same(run)


@pytest.mark.parametrize("fn", [
    lambda lib: lib.deg2rad(lib.tensor([1j])),
    lambda lib: lib.frexp(lib.arange(3)),
    lambda lib: lib.ldexp(lib.ones(2), 2),
    lambda lib: lib.dist(lib.arange(3), lib.arange(3)),
    lambda lib: lib.renorm(lib.ones(2, 3), -1, 0, 1.0),
    lambda lib: lib.renorm(lib.ones(2, 3), 2, 0, -1.0),
    lambda lib: lib.renorm(lib.arange(6).reshape(2, 3), 2, 0, 1.0),
    lambda lib: lib.renorm(lib.ones(3), 2, 0, 1.0),
    lambda lib: lib.renorm(lib.ones(2, 3), 2, 2, 1.0),
])
def test_errors(fn):
    assert_same_error(fn, exact=True)


def test_dist_saves_its_result():
    """DistBackward0 saves its result, as torch's: writing it in place makes the backward
    refuse (fuzz seed 953000116)."""
    def fn(lib):
        out = lib.dist(lib.tensor([1.0, 2.0], requires_grad=True), lib.zeros(2))
        out.masked_fill_(lib.tensor(False), -0.5)
        out.backward()
    assert_same_error(fn, "modified by an inplace operation")


def test_dist_p0_backward():
    """p = 0 has no gradient (torch's norm_backward: undefined): ``input`` gets none, and
    ``other``'s negation of it raises, before any hook runs (fuzz seeds 985000240,
    985004211)."""
    def input_only(lib):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        lib.dist(x, lib.tensor([3.0, 0.0]), 0).backward()
        return x.grad
    assert both(input_only) == (None, None)

    def other_too(lib):
        x = lib.tensor([[1.625, -3.0]], requires_grad=True)
        x.register_hook(lambda g: g * -1.0)
        lib.minimum(x, lib.dist(x, x, 0)).sum().backward()
    assert_same_error(other_too, RuntimeError,
                      r"^Expected a proper Tensor but got None \(or an undefined Tensor")


def test_dist_under_backward_inputs():
    """``backward(inputs=)`` naming dist's output itself does not run DistBackward0 for
    nothing (fuzz seed 986003082)."""
    def fn(lib):
        x = lib.tensor([-2.875], dtype=lib.float64, requires_grad=True)
        out = lib.dist(x, x, 0)
        other = lib.tensor([2.125], dtype=lib.float64).clamp_max(x)
        out.backward(inputs=[out, other, out])
        return out.grad, other.grad, x.grad
    assert_same(fn)


def test_renorm_gradient_where_a_norm_is_nan():
    """torch's formula ends in a where: a slice whose norm is NaN (or at most maxnorm)
    passes the gradient through, whatever the norm's gradient is (fuzz seeds 989004656,
    989003921)."""
    check_op(lambda lib, x: (x ** x).renorm(2, 2, 1.0), np.array([[[0.5], [-1.125]]]))
    check_op(lambda lib, x: x.renorm(1.5, 0, 1.0),
             np.array([[0.5, float("nan")], [0.25, 2.0], [0.125, 0.25]]), double=False)


@pytest.mark.parametrize("p", [2.0, float("inf")])
def test_dist_of_a_real_and_a_complex_tensor_refuses_the_real_gradient(p):
    """torch's formula gives the real operand a complex gradient, which its engine refuses
    (fuzz seed 993000351); the complex operand's gradient is computed."""
    def real_wanted(lib):
        lib.dist(lib.tensor(1.25 + 2.5j), lib.tensor(-3.0, requires_grad=True), p).backward()

    def complex_wanted(lib):
        z = lib.tensor(1.25 + 2.5j, requires_grad=True)
        lib.dist(z, lib.tensor(-3.0), p).backward()
        return z.grad
    assert_same_error(real_wanted, RuntimeError, r"input_is_complex == grad_is_complex")
    assert_same(complex_wanted)
