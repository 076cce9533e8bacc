"""geqrf, linalg.householder_product (torch.orgqr) and torch.ormqr against torch: values
(geqrf's packed reflectors are LAPACK's), gradients and double backward in float64 and
complex128 (NOTE [The Householder product's backward]), nodes, geqrf's backward error, and
the shape and dtype errors."""
import numpy as np
import pytest
import torch

import autograd_cy as ag
from oracle import assert_same_error, check_gradcheck, check_jvp, check_op, node_name, randn


def cplx(*shape, seed=0):
    return randn(*shape, seed=seed) + 1j * randn(*shape, seed=seed + 100)


@pytest.mark.parametrize("shape", [(4, 3), (3, 3), (2, 3, 5), (0, 2)])
@pytest.mark.parametrize("make", [randn, cplx], ids=["real", "complex"])
def test_geqrf_values(shape, make):
    check_op(lambda lib, A: tuple(lib.geqrf(A)), make(*shape), requires_grad=[False])
    check_op(lambda lib, A: tuple(A.geqrf()), make(*shape), dtype=np.float32,
             requires_grad=[False])


def test_geqrf_is_not_differentiable():
    def run(lib):
        a, tau = lib.geqrf(lib.tensor(randn(3, 2), requires_grad=True))
        assert node_name(a.grad_fn) == "GeqrfBackward0"
        (a.sum() + tau.sum()).backward()
    assert_same_error(run, "the derivative for 'geqrf' is not implemented")


@pytest.mark.parametrize("shape, k", [((4, 3), 3), ((4, 3), 2), ((3, 3), 3), ((2, 5, 2), 2),
                                      ((3, 2), 0)])
@pytest.mark.parametrize("make", [randn, cplx], ids=["real", "complex"])
def test_householder_product_values_and_gradients(shape, k, make):
    A, tau = make(*shape), make(*shape[:-2], k, seed=1)
    check_op(lambda lib, A, tau: lib.linalg.householder_product(A, tau), A, tau)
    check_op(lambda lib, A, tau: lib.orgqr(A, tau), A, tau, dtype=np.float32, double=False)


def test_householder_product_of_geqrf_is_qr_and_node():
    A = randn(5, 3)
    for lib in (ag, torch):
        a, tau = lib.geqrf(lib.tensor(A))
        Q = a.requires_grad_().orgqr(tau)
        assert node_name(Q.grad_fn) == "LinalgHouseholderProductBackward0"
        np.testing.assert_allclose((Q @ a.triu()[:3]).detach().cpu().numpy(), A, atol=1e-12)


def test_householder_product_gradcheck():
    check_gradcheck(lambda lib, A, tau: lib.linalg.householder_product(A, tau),
                    randn(4, 3), randn(2, seed=1), check_forward_ad=True)


@pytest.mark.parametrize("left", [True, False])
@pytest.mark.parametrize("transpose", [False, True])
@pytest.mark.parametrize("make", [randn, cplx], ids=["real", "complex"])
def test_ormqr_values_and_gradients(left, transpose, make):
    A, tau = make(4, 3), make(3, seed=1)
    C = make(4, 2, seed=2) if left else make(2, 4, seed=2)
    check_op(lambda lib, A, tau, C: lib.ormqr(A, tau, C, left, transpose), A, tau, C)


def test_ormqr_batched_wide_and_node():
    A, tau, C = randn(2, 3, 5), randn(2, 3, seed=1), randn(2, 3, 2, seed=2)
    check_op(lambda lib, A, tau, C: A.ormqr(tau, C, transpose=True), A, tau, C)
    for lib in (ag, torch):
        out = lib.ormqr(lib.tensor(A, requires_grad=True), lib.tensor(tau), lib.tensor(C))
        assert node_name(out.grad_fn) == "OrmqrBackward0"


def test_ormqr_gradcheck():
    check_gradcheck(lambda lib, A, tau, C: lib.ormqr(A, tau, C, False, True),
                    randn(3, 2), randn(2, seed=1), randn(2, 3, seed=2))


def _t(lib, *shape, dtype=None):
    return lib.ones(*shape, dtype=dtype or lib.float32)


@pytest.mark.parametrize("args, message", [
    (((4,), (3,)), "input must have at least 2 dimensions"),
    (((3, 4), (3,)), r"input.shape\[-2\] must be greater than or equal to input.shape\[-1\]"),
    (((4, 3), (4,)), r"input.shape\[-1\] must be greater than or equal to tau.shape\[-1\]"),
    (((2, 4, 3), (3,)), "Expected tau to have one dimension less than input"),
    (((2, 4, 3), (3, 3)), r"Expected batch dimensions of tau to be equal to input.shape"),
])
def test_householder_product_shape_errors(args, message):
    assert_same_error(lambda lib: lib.linalg.householder_product(*(_t(lib, *s) for s in args)),
                      message)


def test_householder_dtype_errors():
    assert_same_error(lambda lib: lib.linalg.householder_product(
        _t(lib, 4, 3), _t(lib, 3, dtype=lib.float64)), "tau dtype Double does not match input")
    assert_same_error(lambda lib: lib.geqrf(_t(lib, 3, 3, dtype=lib.int64)),
                      NotImplementedError, "not implemented for 'Long'")
    assert_same_error(lambda lib: lib.geqrf(_t(lib, 3)), "input must have at least 2")
    assert_same_error(lambda lib: lib.ormqr(_t(lib, 4, 3), _t(lib, 3),
                                            _t(lib, 4, 2, dtype=lib.float64)),
                      "Expected input and other to have the same dtype")


@pytest.mark.parametrize("shapes, left, message", [
    (((4, 3), (3,), (3, 2)), True, r"other.shape\[-2\] must be equal to input.shape\[-2\]"),
    (((4, 3), (3,), (2, 3)), False, r"other.shape\[-1\] must be equal to input.shape\[-2\]"),
    (((4, 3), (2,), (4, 2)), True, r"tau.shape\[-1\] must be equal to min"),
    (((2, 4, 3), (2, 3), (3, 4, 2)), True, "Expected batch dimensions of other"),
    (((2, 4, 3), (2, 3), (4, 2)), True, "Expected other to have the same number of dim"),
    (((4, 3), (3,), (4,)), True, "other must have at least 2 dimensions"),
])
def test_ormqr_shape_errors(shapes, left, message):
    assert_same_error(lambda lib: lib.ormqr(*(_t(lib, *s) for s in shapes), left), message)


@pytest.mark.parametrize("make", [randn, cplx], ids=["real", "complex"])
def test_householder_product_forward_ad(make):
    check_jvp(lambda lib, A, tau: lib.linalg.householder_product(A, tau), make(4, 3),
              make(2, seed=1), dtype=make(1).dtype, tangents=[make(4, 3, seed=2),
                                                              make(2, seed=3)],
              rtol=1e-7, atol=1e-9)


def test_geqrf_of_a_complex_tensor_that_requires_grad():
    assert_same_error(lambda lib: lib.geqrf(lib.ones(2, 2, dtype=lib.complex64,
                                                     requires_grad=True)), exact=True)
