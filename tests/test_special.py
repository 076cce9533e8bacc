"""erf, erfc, erfinv (pyx/ops/special.pyx) and exp2, log10 (pointwise.pyx) beyond what
tests/test_op_table.py checks of every entry: values at the edges of the domains (erfinv at
+-1 and outside, erf's tails, erfc where erf rounds to 1), gradcheck and gradgradcheck in
float64, half precision, and torch's refusal of complex inputs."""
import numpy as np
import pytest

import autograd_cy as ag
from oracle import assert_same, assert_same_error, check_op

EDGES = {
    "erf": [-np.inf, -6.0, -3.0, -1e-8, -0.0, 0.0, 0.4, 0.921875, 2.0, 5.9, np.inf, np.nan],
    "erfc": [-np.inf, -3.0, 0.0, 0.5, 3.0, 9.0, 26.0, 27.5, np.inf, np.nan],
    "erfinv": [-1.5, -1.0, -0.9999999, -0.999, -0.5, -0.0, 0.0, 1e-9, 0.3, 0.97, 0.999999,
               1.0, 2.0, np.nan],
    "exp2": [-np.inf, -1100.0, -3.5, 0.0, 0.5, 10.0, 1025.0, np.inf, np.nan],
    "log10": [-1.0, 0.0, 1e-300, 0.1, 1.0, 1000.0, np.inf, np.nan],
}


@pytest.mark.parametrize("name", EDGES)
def test_values_at_the_edges(name):
    values = np.array(EDGES[name])
    assert_same(lambda lib: getattr(lib, name)(lib.tensor(values)).tolist(),
                rtol=1e-13, atol=0)
    assert_same(lambda lib: getattr(lib, name)(lib.tensor(values, dtype=lib.float32)).tolist(),
                rtol=1e-6, atol=0)


@pytest.mark.parametrize("name", EDGES)
def test_half_precision(name):
    # (not erf(-1e-8): torch's bfloat16 erf gives -0.0 there)
    values = np.array([v for v in EDGES[name] if np.isfinite(v) and abs(v) > 1e-6] + [0.25])
    for dtype in ("float16", "bfloat16"):
        def run(lib):
            y = getattr(lib, name)(lib.tensor(values, dtype=getattr(lib, dtype)))
            return [str(y.dtype).split(".")[-1], y.float().tolist()]
        assert_same(run, rtol=1e-2, atol=0)


@pytest.mark.parametrize("name, values", [
    ("erf", [-1.5, 0.2, 2.0]), ("erfc", [-1.5, 0.2, 2.0]), ("erfinv", [-0.95, 0.1, 0.7]),
    ("exp2", [-1.5, 0.2, 2.0]), ("log10", [0.5, 1.2, 20.0])])
def test_gradcheck(name, values):
    x = ag.tensor(np.array(values), requires_grad=True)
    fn = getattr(ag, name)
    assert ag.autograd.gradcheck(fn, [x], check_forward_ad=True)
    assert ag.autograd.gradgradcheck(fn, [x])


def test_erfinv_gradient_at_the_ends():
    """The derivative is infinite at +-1 (torch's exp(inf ** 2))."""
    check_op(lambda lib, x: lib.erfinv(x), np.array([-1.0, 1.0, 0.5]), double=False)


@pytest.mark.parametrize("name", ["erf", "erfc", "erfinv"])
@pytest.mark.parametrize("form", ["function", "inplace"])
def test_complex_inputs_are_refused(name, form):
    def run(lib):
        z = lib.zeros(2, dtype=lib.complex64)
        return getattr(lib, name)(z) if form == "function" else getattr(z, name + "_")()
    assert_same_error(run, NotImplementedError)


def test_integers_compute_in_float32():
    assert_same(lambda lib: [(str(y.dtype).split(".")[-1], y.tolist()) for y in (
        lib.erf(lib.arange(3)), lib.erfc(lib.tensor([True, False])),
        lib.erfinv(lib.tensor([0, 1, -1])), lib.exp2(lib.arange(4)), lib.log10(lib.arange(3)))])
