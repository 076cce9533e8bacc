"""linalg.ldl_factor_ex / ldl_factor / ldl_solve against torch: LD and LAPACK's pivots
(NOTE [Bunch-Kaufman pivoting as LAPACK's sytrf]: 1 x 1 pivots kept or swapped in, 2 x 2
blocks, symmetric and Hermitian complex matrices, a zero column's info), solutions,
batches, the NotImplemented node of both, and the errors."""
import numpy as np
import pytest
import torch

import autograd_cy as ag
from oracle import assert_same_error, check_op, node_name, randn


def symmetric(n, seed=0, complex_=False, hermitian=False, small_diagonal=False):
    a = randn(n, n, seed=seed)
    if complex_:
        a = a + 1j * randn(n, n, seed=seed + 50)
    a = a + (a.conj().T if hermitian else a.T)
    if small_diagonal:                      # forces interchanges and 2 x 2 blocks
        a[np.arange(n), np.arange(n)] *= 0.01
    return a


CASES = {
    "real": dict(),
    "real 2x2 blocks": dict(small_diagonal=True),
    "complex symmetric": dict(complex_=True, small_diagonal=True),
    "hermitian": dict(complex_=True, hermitian=True, small_diagonal=True),
}


@pytest.mark.parametrize("case", sorted(CASES))
@pytest.mark.parametrize("n", [1, 3, 6])
def test_factor_and_solve(case, n):
    options = CASES[case]
    hermitian = options.get("hermitian", False)
    A = np.stack([symmetric(n, seed=s, **options) for s in range(3)])
    B = randn(3, n, 2, seed=7) + (1j * randn(3, n, 2, seed=8) if options.get("complex_") else 0)

    def fn(lib, A, B):
        LD, pivots, info = lib.linalg.ldl_factor_ex(A, hermitian=hermitian)
        X = lib.linalg.ldl_solve(LD, pivots, B, hermitian=hermitian)
        return LD, pivots, info, X
    check_op(fn, A, B, requires_grad=[False, False])
    check_op(lambda lib, A: tuple(lib.linalg.ldl_factor(A, hermitian=hermitian)), A[0],
             dtype=np.float32, requires_grad=[False])


def test_pivots_of_every_kind_appear():
    """The cases above reach the three pivot choices (the test would pass vacuously else)."""
    kinds = set()
    for case in CASES.values():
        for seed in range(3):
            pivots = torch.linalg.ldl_factor(torch.tensor(symmetric(6, seed, **case)),
                                             hermitian=case.get("hermitian", False)).pivots
            index = torch.arange(1, 7, dtype=torch.int32)
            kinds |= {"2x2" if p < 0 else "kept" if p == i else "swapped"
                      for p, i in zip(pivots.tolist(), index.tolist())}
    assert kinds == {"2x2", "kept", "swapped"}


def test_zero_column_sets_info_and_ldl_factor_raises():
    A = np.zeros((2, 3, 3))
    A[0, 2, 2] = 1.0
    A[1] = symmetric(3)
    check_op(lambda lib, A: tuple(lib.linalg.ldl_factor_ex(A)), A, requires_grad=[False])
    assert_same_error(lambda lib: lib.linalg.ldl_factor(lib.zeros(3, 3)),
                      "torch.linalg.ldl_factor: Unknown error code: 1")
    assert_same_error(lambda lib: lib.linalg.ldl_factor_ex(lib.zeros(3, 3), check_errors=True),
                      "torch.linalg.ldl_factor_ex: Unknown error code: 1")


def test_broadcast_solve_and_long_pivots():
    A, B = symmetric(4, small_diagonal=True), randn(3, 4, 2, seed=3)

    def fn(lib, A, B):
        LD, pivots = lib.linalg.ldl_factor(A)
        return lib.linalg.ldl_solve(LD, pivots.long(), B)
    check_op(fn, A, B, requires_grad=[False, False])


def test_not_differentiable():
    for name, call in [
        ("linalg_ldl_factor_ex", lambda lib, A: lib.linalg.ldl_factor(A).LD),
        ("linalg_ldl_solve", lambda lib, A: lib.linalg.ldl_solve(
            *lib.linalg.ldl_factor(A.detach()), A)),
    ]:
        def run(lib, call=call):
            out = call(lib, lib.tensor(symmetric(3), requires_grad=True))
            assert node_name(out.grad_fn) == "NotImplemented"
            out.sum().backward()
        assert_same_error(run, f"derivative for aten::{name} is not implemented")
    for lib in (ag, torch):
        out = lib.linalg.ldl_factor_ex(lib.tensor(symmetric(3), requires_grad=True))
        assert not out.pivots.requires_grad and not out.info.requires_grad


@pytest.mark.parametrize("shape, message", [
    ((3, 4), "ldl_factor_ex: A must be batches of square matrices, but they are 3 by 4"),
    ((4,), "ldl_factor_ex: The input tensor A must have at least 2 dimensions"),
])
def test_factor_errors(shape, message):
    assert_same_error(lambda lib: lib.linalg.ldl_factor(lib.ones(*shape)), message)
    assert_same_error(lambda lib: lib.linalg.ldl_factor_ex(lib.ones(3, 3, dtype=lib.int64)),
                      "Expected a floating point or complex tensor as input. Got Long")


@pytest.mark.parametrize("change, message", [
    (lambda lib, LD, p, B: (LD, p.float(), B), "Expected pivots to be integers. Got Float"),
    (lambda lib, LD, p, B: (LD, p[:3], B), r"Expected LD.shape\[:-1\] and pivots.shape"),
    (lambda lib, LD, p, B: (LD, p.expand(2, 4), B), r"but got pivots with shape \[2, 4\]"),
    (lambda lib, LD, p, B: (LD, p, B.float()), "Expected b and A to have the same dtype"),
    (lambda lib, LD, p, B: (LD, p, B[:3]), "Incompatible matrix sizes for torch.linalg.ldl_s"),
    (lambda lib, LD, p, B: (LD[:, :3], p, B), "A must be batches of square matrices"),
    (lambda lib, LD, p, B: (LD, p, B[:, 0]), "Dimension out of range"),
])
def test_solve_errors(change, message):
    def run(lib):
        LD, pivots = lib.linalg.ldl_factor(lib.tensor(symmetric(4)))
        return lib.linalg.ldl_solve(*change(lib, LD, pivots, lib.tensor(randn(4, 2))))
    assert_same_error(run, message)


def test_empty_matrices():
    """A 0 x 0 matrix (OpInfo's sample): an empty batch reshaped by its count."""
    check_op(lambda lib, A: tuple(lib.linalg.ldl_factor_ex(A)), np.zeros((0, 0)),
             requires_grad=[False])
    check_op(lambda lib, A, B: lib.linalg.ldl_solve(*lib.linalg.ldl_factor(A), B),
             np.zeros((2, 0, 0)), np.zeros((2, 0, 3)), requires_grad=[False, False])
