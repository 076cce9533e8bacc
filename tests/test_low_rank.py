"""torch.svd_lowrank and torch.pca_lowrank (autograd_cy/linalg/low_rank.py) against
torch's, after the same seed (the test matrix is randn's, torch's numbers): the singular
values and the reconstruction ``U diag(S) V^H`` (the singular vectors' signs are LAPACK's
choice), wide and tall, batched, with ``M``, complex; the approximation's quality; the
gradients; the argument errors."""
import numpy as np
import pytest

import autograd_cy as ag
from oracle import LIBS, assert_same_error, check_op, randn, to_numpy


def _seeded(fn, *arrays):
    results = []
    for lib in LIBS:
        lib.manual_seed(3)
        U, S, V = fn(lib, *(lib.tensor(a) for a in arrays))
        results.append([to_numpy(S), to_numpy(U @ lib.diag_embed(S).to(U.dtype) @ V.mH),
                        list(U.shape), list(V.shape)])
    return results


CASES = {
    "tall": (lambda lib, a: lib.svd_lowrank(a, q=3), (7, 5)),
    "wide": (lambda lib, a: lib.svd_lowrank(a, 2, niter=1), (4, 9)),
    "batched": (lambda lib, a: lib.svd_lowrank(a, q=2, niter=0), (2, 5, 4)),
    "with_m": (lambda lib, a: lib.svd_lowrank(a, q=3, M=a.mean(-2, keepdim=True)), (6, 5)),
    "pca": (lambda lib, a: lib.pca_lowrank(a), (8, 4)),
    "pca_q": (lambda lib, a: lib.pca_lowrank(a, q=2, center=False, niter=3), (5, 7)),
}


@pytest.mark.cpu_only
@pytest.mark.parametrize("name", CASES)
def test_same_result_as_torch_after_the_same_seed(name):
    fn, shape = CASES[name]
    ours, theirs = _seeded(fn, randn(*shape))
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-9)


@pytest.mark.cpu_only
def test_complex():
    a = randn(6, 4) + 1j * randn(6, 4, seed=2)
    ours, theirs = _seeded(lambda lib, x: lib.svd_lowrank(x, q=2), a)
    for x, y in zip(ours, theirs):
        np.testing.assert_allclose(x, y, rtol=1e-9, atol=1e-9)


def test_a_low_rank_matrix_is_recovered():
    rng = np.random.default_rng(0)
    a = rng.normal(size=(20, 3)) @ rng.normal(size=(3, 15))
    U, S, V = ag.svd_lowrank(ag.tensor(a), q=4)
    np.testing.assert_allclose(to_numpy(U @ ag.diag(S) @ V.mH), a, atol=1e-8)
    np.testing.assert_allclose(to_numpy(S)[:3], np.linalg.svd(a, compute_uv=False)[:3])
    np.testing.assert_allclose(to_numpy(U.mH @ U), np.eye(4), atol=1e-10)


@pytest.mark.cpu_only          # the test matrix: torch's CPU randn
@pytest.mark.parametrize("name", ["tall", "wide", "pca"])
def test_gradients(name):
    fn, shape = CASES[name]

    def invariant(lib, a):
        lib.manual_seed(3)
        U, S, V = fn(lib, a)
        return S, U @ lib.diag_embed(S) @ V.mH
    check_op(invariant, randn(*shape), double=False)


@pytest.mark.parametrize("fn", [
    lambda lib: lib.pca_lowrank(lib.zeros(4, 3), q=4),
    lambda lib: lib.pca_lowrank(lib.zeros(4, 3), q=-1),
    lambda lib: lib.pca_lowrank(lib.zeros(4, 3), niter=-1),
])
def test_errors(fn):
    assert_same_error(fn, ValueError, exact=True)
