"""addmv, addr, baddbmm, addbmm (autograd_cy/matrix_updates.py) and cov, corrcoef
(covariance.py) against torch's: values with beta/alpha and broadcast inputs, beta=0
ignoring NaN, gradients, double backward, forward AD, weights, complex, and errors."""
import numpy as np
import pytest

from oracle import (assert_same, assert_same_error, check_jvp, check_op, node_name, randn,
                    same_warning)

UPDATES = {
    "addmv": (lambda lib, i, a, b: lib.addmv(i, a, b), ((3,), (3, 4), (4,))),
    "addmv_scaled_broadcast": (lambda lib, i, a, b: i.addmv(a, b, beta=0.5, alpha=-2),
                               ((1,), (3, 4), (4,))),
    "addr": (lambda lib, i, a, b: lib.addr(i, a, b), ((3, 4), (3,), (4,))),
    "addr_scaled_broadcast": (lambda lib, i, a, b: i.addr(a, b, beta=2, alpha=0.5),
                              ((4,), (3,), (4,))),
    "baddbmm": (lambda lib, i, a, b: lib.baddbmm(i, a, b), ((2, 3, 5), (2, 3, 4), (2, 4, 5))),
    "baddbmm_scaled_broadcast": (lambda lib, i, a, b: i.baddbmm(a, b, beta=-1, alpha=3),
                                 ((3, 1), (2, 3, 4), (2, 4, 5))),
    "addbmm": (lambda lib, i, a, b: lib.addbmm(i, a, b), ((3, 5), (2, 3, 4), (2, 4, 5))),
    "addbmm_scaled_broadcast": (lambda lib, i, a, b: i.addbmm(a, b, beta=0.5, alpha=2),
                                ((5,), (2, 3, 4), (2, 4, 5))),
}


def arrays(shapes):
    return [randn(*shape, seed=index) for index, shape in enumerate(shapes)]


@pytest.mark.parametrize("name", UPDATES)
def test_updates(name):
    fn, shapes = UPDATES[name]
    check_op(fn, *arrays(shapes))
    check_op(fn, *arrays(shapes), dtype=np.float32)
    check_jvp(fn, *arrays(shapes))


@pytest.mark.parametrize("name", UPDATES)
def test_beta_zero_ignores_nan(name):
    fn, shapes = UPDATES[name]
    values = arrays(shapes)
    values[0] = np.full(shapes[0], np.nan)
    ops = {"addmv": "addmv", "addr": "addr", "baddbmm": "baddbmm", "addbmm": "addbmm"}
    op = ops[name.split("_")[0]]
    check_op(lambda lib, i, a, b: getattr(lib, op)(i, a, b, beta=0, alpha=2), *values,
             requires_grad=[False, True, True])


@pytest.mark.parametrize("name", ["addmv", "addr", "baddbmm", "addbmm"])
def test_complex_updates(name):
    shapes = UPDATES[name][1]
    values = [a + 1j * np.flip(a) for a in arrays(shapes)]
    check_op(lambda lib, i, a, b: getattr(lib, name)(i, a, b, beta=0.5 - 1j, alpha=2j),
             *values)


def test_nodes():
    def run(lib):
        names = []
        for name, (fn, shapes) in UPDATES.items():
            tensors = [lib.tensor(a, requires_grad=True) for a in arrays(shapes)]
            names.append(node_name(fn(lib, *tensors).grad_fn))
        return names
    assert_same(run)


def test_integers_and_bools():
    def run(lib):
        return [lib.addmv(lib.arange(3), lib.arange(12).reshape(3, 4), lib.arange(4), alpha=2),
                lib.addr(lib.arange(3)[:, None], lib.arange(3), lib.arange(2), beta=2),
                lib.addr(lib.tensor([[True, False]]), lib.tensor([False]),
                         lib.tensor([True, False])),
                lib.addbmm(lib.arange(2), lib.ones(2, 2, 3, dtype=lib.int64),
                           lib.ones(2, 3, 2, dtype=lib.int64), alpha=3)]
    assert_same(run)


@pytest.mark.parametrize("fn", [
    lambda lib: lib.addmv(lib.ones(4), lib.ones(3, 4), lib.ones(4)),
    lambda lib: lib.addmv(lib.ones(3), lib.ones(3, 4), lib.ones(3)),
    lambda lib: lib.addmv(lib.ones(3), lib.ones(3, 4), lib.ones(4, dtype=lib.float64)),
    lambda lib: lib.addmv(lib.ones(3, 1), lib.ones(3, 4), lib.ones(4)),
    lambda lib: lib.addr(lib.ones(3, 4), lib.ones(3, 1), lib.ones(4)),
    lambda lib: lib.addr(lib.arange(3)[:, None], lib.arange(3), lib.arange(2), beta=1.5),
    lambda lib: lib.baddbmm(lib.ones(2, 3, 5), lib.ones(2, 3, 4), lib.ones(2, 3, 5)),
    lambda lib: lib.baddbmm(lib.ones(2, 3, 5), lib.ones(2, 3, 4), lib.ones(1, 4, 5)),
    lambda lib: lib.addbmm(lib.ones(3, 5), lib.ones(2, 3, 4), lib.ones(2, 3, 5)),
    lambda lib: lib.addbmm(lib.ones(3, 5), lib.ones(2, 3, 4), lib.ones(1, 4, 5)),
])
def test_update_errors(fn):
    assert_same_error(fn, exact=True)


@pytest.mark.parametrize("fn", [
    lambda lib: lib.addr(lib.ones(2, 4), lib.ones(3), lib.ones(4)),
    lambda lib: lib.baddbmm(lib.ones(2, 3, 6), lib.ones(2, 3, 4), lib.ones(2, 4, 5)),
])
def test_update_shape_errors(fn):
    assert_same_error(fn, RuntimeError, "must match the existing size")


COVARIANCE = {
    "cov": lambda lib, x, w: lib.cov(x),
    "cov_1d": lambda lib, x, w: x[0].cov(),
    "cov_correction0": lambda lib, x, w: lib.cov(x, correction=0),
    "cov_aweights": lambda lib, x, w: lib.cov(x, aweights=w.abs()),
    "cov_both_weights": lambda lib, x, w: lib.cov(x, fweights=lib.tensor([1, 2, 0, 3, 1]),
                                                   aweights=w.abs() + 0.1, correction=2),
    "cov_fweights": lambda lib, x, w: lib.cov(x, fweights=lib.tensor([1, 2, 0, 3, 1])),
    "corrcoef": lambda lib, x, w: lib.corrcoef(x),
    "corrcoef_1d": lambda lib, x, w: x[1].corrcoef(),
}


@pytest.mark.parametrize("name", COVARIANCE)
def test_covariance(name):
    check_op(COVARIANCE[name], randn(3, 5), randn(5, seed=4))
    check_jvp(COVARIANCE[name], randn(3, 5), randn(5, seed=4))


@pytest.mark.parametrize("name", ["cov", "corrcoef"])
def test_covariance_complex(name):
    check_op(COVARIANCE[name], randn(3, 5) + 1j * randn(3, 5, seed=7), randn(5, seed=4))


def test_covariance_integers_and_warning():
    assert_same(lambda lib: [lib.cov(lib.arange(6).reshape(2, 3)),
                             lib.corrcoef(lib.arange(6).reshape(2, 3))])
    same_warning(lambda lib: lib.cov(lib.ones(2, 1)), UserWarning, "degrees of freedom is <= 0")


@pytest.mark.parametrize("fn", [
    lambda lib: lib.cov(lib.ones(2, 3, 4)),
    lambda lib: lib.cov(lib.ones(2, 3, dtype=lib.bool)),
    lambda lib: lib.cov(lib.ones(2, 3), fweights=lib.ones(3)),
    lambda lib: lib.cov(lib.ones(2, 3), fweights=lib.ones(1, 3, dtype=lib.int64)),
    lambda lib: lib.cov(lib.ones(2, 3), fweights=lib.ones(4, dtype=lib.int64)),
    lambda lib: lib.cov(lib.ones(2, 3), fweights=lib.tensor([1, -1, 1])),
    lambda lib: lib.cov(lib.ones(2, 3), aweights=lib.tensor([1, 1, 1])),
    lambda lib: lib.cov(lib.ones(2, 3), aweights=lib.tensor([1.0, -1, 1])),
    lambda lib: lib.cov(lib.ones(2, 3), aweights=lib.zeros(3)),
    lambda lib: lib.corrcoef(lib.ones(2, 3, 4)),
])
def test_covariance_errors(fn):
    assert_same_error(fn, exact=True)


@pytest.mark.parametrize("dtypes", [("float64", "float32", "float64"),
                                    ("float32", "float32", "float64"),
                                    ("int64", "float32", "float32")])
def test_addr_promotes(dtypes):
    """addr's operands promote, as torch's elementwise addr: a float32 vector with float64
    ones was refused by the product (fuzz seed 953001147)."""
    def fn(lib):
        M = lib.ones(2, 2, dtype=getattr(lib, dtypes[0]))
        a = lib.tensor([1.0, 2.0], dtype=getattr(lib, dtypes[1]), requires_grad=True)
        b = lib.tensor([3.0, 2.0], dtype=getattr(lib, dtypes[2]))
        out = lib.addr(M, a, b, beta=2)
        out.sum().backward()
        return str(out.dtype).split(".")[-1], out, a.grad
    assert_same(fn)
