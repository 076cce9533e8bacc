"""torch's deprecated linear-algebra forms against torch: torch.lu (LU, 1-based int32 pivots,
infos, and its gradient through LinalgLuFactorExBackward0), torch.lu_solve,
torch.triangular_solve ((solution, cloned_coefficient) from TriangularSolveBackward0,
broadcast, transpose, unitriangular), their Tensor methods, and the removed names that
only raise (torch.solve, eig, symeig, lstsq, matrix_rank)."""
import warnings

import numpy as np
import pytest
import torch

import autograd_cy as ag
from oracle import assert_same_error, check_gradcheck, check_jvp, check_op, node_name, randn

pytestmark = pytest.mark.filterwarnings("ignore:torch.(lu|lu_solve|triangular_solve) is deprec")


def cplx(*shape, seed=0):
    return randn(*shape, seed=seed) + 1j * randn(*shape, seed=seed + 100)


@pytest.mark.parametrize("shape", [(3, 3), (2, 3, 3), (3, 5), (4, 2)])
@pytest.mark.parametrize("make", [randn, cplx], ids=["real", "complex"])
def test_lu_values_and_gradients(shape, make):
    check_op(lambda lib, A: lib.lu(A), make(*shape))
    check_op(lambda lib, A: tuple(lib.lu(A, get_infos=True)), make(*shape))


def test_lu_singular_gives_infos_and_method():
    A = np.zeros((2, 2, 2))
    A[1] = randn(2, 2)
    check_op(lambda lib, A: A.lu(get_infos=True), A, requires_grad=[False])
    for lib in (ag, torch):
        x = lib.tensor(randn(3, 3), requires_grad=True)
        LU, pivots = lib.lu(x)
        info = lib.lu(x, get_infos=True).info
        assert node_name(LU.grad_fn) == "LinalgLuFactorExBackward0"
        assert str(pivots.dtype).endswith("int32") and str(info.dtype).endswith("int32")
        assert type(x.lu()) is tuple


def test_lu_warns_and_errors():
    with pytest.warns(UserWarning, match="torch.lu is deprecated in favor of torch.linalg"):
        ag.lu(ag.ones(2, 2))
    assert_same_error(lambda lib: lib.lu(lib.ones(3)), "Expected tensor with 2 or more dim")
    assert_same_error(lambda lib: lib.lu(lib.ones(2, 2, dtype=lib.int64)),
                      NotImplementedError, "not implemented for 'Long'")
    assert_same_error(lambda lib: lib.lu(lib.ones(2, 2), pivot=False),
                      "LU without pivoting is not implemented on the CPU")


@pytest.mark.parametrize("make", [randn, cplx], ids=["real", "complex"])
def test_lu_solve_values_and_gradients(make):
    def fn(lib, A, B):
        LU, pivots = lib.lu(A)
        return lib.lu_solve(B, LU, pivots), B.lu_solve(LU, pivots)
    check_op(fn, make(2, 3, 3), make(2, 3, 2, seed=1))


def test_lu_solve_errors():
    def solve(b_shape, pivots=lambda p: p, LU_shape=(3, 3)):
        def run(lib):
            LU, p = lib.linalg.lu_factor(lib.tensor(randn(*LU_shape)))
            return lib.lu_solve(lib.ones(*b_shape, dtype=LU.dtype), LU, pivots(p))
        return run
    with pytest.warns(UserWarning, match="torch.lu_solve is deprecated"):
        solve((3, 1))(ag)
    assert_same_error(solve((3, 2), lambda p: p.long()),
                      "pivots should be a Tensor of scalar type torch.int32")
    assert_same_error(solve((4, 2)), r"Incompatible shapes of A and B for the equation AX = B")
    assert_same_error(solve((3, 2), lambda p: p[:2]), "Number of pivots per batch should be")
    assert_same_error(solve((2, 3, 2), lambda p: p[:1], (2, 3, 3)),
                      r"Expected LU.shape\[:-1\] and pivots.shape to be the same")


@pytest.mark.parametrize("upper, transpose, unitriangular",
                         [(True, False, False), (False, True, False), (True, True, True),
                          (False, False, True)])
@pytest.mark.parametrize("make", [randn, cplx], ids=["real", "complex"])
def test_triangular_solve(upper, transpose, unitriangular, make):
    A = make(3, 3) + 3 * np.eye(3)
    check_op(lambda lib, b, A: tuple(lib.triangular_solve(b, A, upper, transpose,
                                                          unitriangular)),
             make(3, 2, seed=1), A)


def test_triangular_solve_broadcasts_and_node():
    A = randn(2, 1, 3, 3) + 3 * np.eye(3)
    check_op(lambda lib, b, A: tuple(b.triangular_solve(A, upper=False)), randn(4, 3, 2), A)
    for lib in (ag, torch):
        s = lib.triangular_solve(lib.tensor(randn(3, 1)),
                                 lib.tensor(A[0, 0], requires_grad=True))
        assert (node_name(s.solution.grad_fn), node_name(s.cloned_coefficient.grad_fn)) == (
            "TriangularSolveBackward0", "TriangularSolveBackward0")
        assert tuple(s.cloned_coefficient.shape) == (3, 3)
    check_gradcheck(lambda lib, b, A: lib.triangular_solve(b, A, transpose=True)[0],
                    randn(3, 2), randn(3, 3) + 3 * np.eye(3))


@pytest.mark.parametrize("b, A, message", [
    ((3, 2), (3, 4), "A must be batches of square matrices, but they are 3 by 4"),
    ((4, 2), (3, 3), "Incompatible matrix sizes for triangular_solve"),
    ((3,), (3, 3), "Expected b to have at least 2 dimensions"),
])
def test_triangular_solve_errors(b, A, message):
    assert_same_error(lambda lib: lib.triangular_solve(lib.ones(*b), lib.ones(*A)), message)
    assert_same_error(lambda lib: lib.triangular_solve(lib.ones(3, 1), lib.ones(3, 3).double()),
                      "Expected b and A to have the same dtype, but found b of type Float")


@pytest.mark.parametrize("name, args", [("solve", 2), ("eig", 1), ("symeig", 1), ("lstsq", 2),
                                        ("matrix_rank", 1)])
def test_removed_names_raise_as_torch(name, args):
    def call(lib):
        x = lib.eye(2)
        return getattr(lib, name)(*[x] * args)
    assert_same_error(call, RuntimeError)              # the same words
    if name != "matrix_rank":
        assert_same_error(lambda lib: getattr(lib.eye(2), name)(*[lib.eye(2)] * (args - 1)),
                          RuntimeError)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert not hasattr(ag.Tensor, "matrix_rank")


def test_triangular_solve_forward_ad():
    """torch's tangent is right for a tangent of A in the triangle read, without transpose:
    its formula uses dA X, the whole dA and never its transpose (off from the finite
    differences otherwise), so those cases are checked with gradcheck's finite
    differences."""
    A = randn(3, 3) + 3 * np.eye(3)
    check_jvp(lambda lib, b, A: tuple(lib.triangular_solve(b, A, upper=False)),
              randn(3, 2), A, tangents=[randn(3, 2, seed=1), np.tril(randn(3, 3, seed=2))])
    for transpose, unitriangular in [(False, False), (True, True)]:
        check_gradcheck(lambda lib, b, A: lib.triangular_solve(b, A, False, transpose,
                                                               unitriangular)[0],
                        randn(2, 3, 2), A, check_forward_ad=True)
