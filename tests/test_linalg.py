"""autograd_cy.linalg against torch.linalg: values, gradients and double backward
(``check_op``), gradcheck / gradgradcheck in float64, forward AD, the nodes' names, the
named results, complex inputs (torch's conjugate gradients), batches, and torch's errors
(``LinAlgError`` for singular and non-positive-definite matrices)."""
import math
import re

import numpy as np
import pytest
import torch

import autograd_cy as ag
from oracle import (
    PROVENANCE_TAIL, assert_close, assert_same, assert_same_error, both, check_gradcheck,
    check_jvp, check_op, node_name, randn, to_numpy, DEVICE,
)

DTYPES = [np.float32, np.float64]
SHAPES = [(3, 3), (2, 4, 4), (2, 1, 3, 3)]


def well_conditioned(*shape, seed=0):
    """A random matrix (batch) with a dominant diagonal: invertible, well conditioned."""
    n = shape[-1]
    return randn(*shape, seed=seed) + 3 * np.eye(n)


def spd(*shape, seed=0):
    """A random symmetric positive-definite matrix (batch)."""
    a = randn(*shape, seed=seed)
    return a @ np.swapaxes(a, -1, -2) + shape[-1] * np.eye(shape[-1])


def complex_matrix(*shape, seed=0):
    return (randn(*shape, seed=seed) + 1j * randn(*shape, seed=seed + 1)
            + 3 * np.eye(shape[-1]))


def hermitian(*shape, seed=0):
    a = complex_matrix(*shape, seed=seed)
    return a @ np.conj(np.swapaxes(a, -1, -2)) + shape[-1] * np.eye(shape[-1])


def assert_linalg_error(fn, message):
    """``fn(lib)`` raises ``lib.linalg.LinAlgError`` (a RuntimeError) in both libraries,
    with the same message."""
    messages = []
    for lib in (ag, torch):
        with pytest.raises(lib.linalg.LinAlgError) as info:
            fn(lib)
        assert isinstance(info.value, RuntimeError)
        messages.append(re.sub(PROVENANCE_TAIL, "", str(info.value), count=1))
    assert messages[0] == messages[1]
    assert message in messages[1]


def sym(lib, A):
    """A symmetric (Hermitian) function of A, so every entry of A gets a gradient."""
    return (A + A.mT.conj()) / 2


# ------------------------------------------------------------------ norms

@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("ord, dim", [
    (2, None), (1, -1), (math.inf, (0, 1)), (-math.inf, 1), (3, 0), (0.5, None), (0, 1),
])
def test_vector_norm(dtype, ord, dim):
    check_op(lambda lib, x: lib.linalg.vector_norm(x, ord, dim), randn(3, 4, seed=3),
             dtype=dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("ord", ["fro", 1, -1, math.inf, -math.inf, "nuc", 2, -2])
@pytest.mark.parametrize("keepdim", [False, True])
def test_matrix_norm(dtype, ord, keepdim):
    def fn(lib, A):
        out = lib.linalg.matrix_norm(A, ord, keepdim=keepdim)
        return out
    check_op(fn, randn(2, 3, 4, seed=4), dtype=dtype)


@pytest.mark.parametrize("ord, dim", [(1, (0, 2)), (math.inf, (2, 0)), ("fro", (1, 2))])
def test_matrix_norm_dims(ord, dim):
    check_op(lambda lib, A: lib.linalg.matrix_norm(A, ord, dim), randn(2, 3, 4, seed=5))


@pytest.mark.parametrize("args", [
    {}, {"ord": 3, "dim": 1}, {"ord": "fro"}, {"ord": "nuc"}, {"ord": 1},
    {"ord": None, "dim": (0, 1)}, {"dim": 1}, {"ord": math.inf, "dim": 0, "keepdim": True},
])
def test_norm(args):
    check_op(lambda lib, A: lib.linalg.norm(A, **args), randn(3, 4, seed=6))


def test_norm_node_names():
    for ord, name in [("fro", "LinalgVectorNormBackward0"), (1, "AmaxBackward0"),
                      (-math.inf, "AminBackward0")]:
        A = ag.tensor(randn(3, 3), requires_grad=True)
        assert node_name(ag.linalg.matrix_norm(A, ord).grad_fn) == name
        assert node_name(torch.linalg.matrix_norm(torch.tensor(randn(3, 3), requires_grad=True),
                                                  ord).grad_fn) == name


def test_norm_errors():
    assert_same_error(lambda lib: lib.linalg.norm(lib.ones(2, 2, 2), 2),
                      RuntimeError, "If dim is not specified but ord is")
    assert_same_error(lambda lib: lib.linalg.matrix_norm(lib.ones(2, 2), "abc"),
                      RuntimeError, "Order abc not supported")
    assert_same_error(lambda lib: lib.linalg.matrix_norm(lib.ones(2), "fro"), RuntimeError)


# ------------------------------------------------------------------ det, slogdet, logdet

@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", SHAPES)
def test_det(dtype, shape):
    def fn(lib, A):
        out = lib.linalg.det(A)
        assert node_name(out.grad_fn) == "LinalgDetBackward0"
        return out
    check_op(fn, well_conditioned(*shape), dtype=dtype)
    check_op(lambda lib, A: lib.det(A), well_conditioned(*shape, seed=1), dtype=dtype)


@pytest.mark.parametrize("shape", SHAPES)
def test_slogdet(shape):
    def fn(lib, A):
        result = lib.linalg.slogdet(A)
        assert node_name(result.logabsdet.grad_fn) == "LinalgSlogdetBackward0"
        return result.sign, result.logabsdet
    # a matrix with a negative determinant: the sign is -1
    A = well_conditioned(*shape)
    A[..., 0, :] *= -1
    check_op(fn, A)


def test_logdet():
    check_op(lambda lib, A: lib.logdet(A), spd(2, 3, 3))
    A = ag.tensor(spd(3, 3), requires_grad=True)
    assert node_name(ag.logdet(A).grad_fn) == "WhereBackward0"
    negative = np.diag([1.0, -2.0, 3.0])
    assert math.isnan(ag.logdet(ag.tensor(negative)).item())
    assert ag.logdet(ag.zeros(2, 2)).item() == -math.inf


def test_det_singular():
    """At a singular matrix the gradient (the cofactors) comes from the SVD, as torch's."""
    singular = np.array([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [1.0, 0.0, 1.0]])
    check_op(lambda lib, A: lib.linalg.det(A), singular)
    check_op(lambda lib, A: lib.linalg.det(A), np.stack([singular, well_conditioned(3, 3)]))
    # (a complex singular matrix: torch 2.13 returns a zero gradient, not the cofactors)


def test_det_complex():
    check_op(lambda lib, A: lib.linalg.det(A), complex_matrix(3, 3))
    check_op(lambda lib, A: lib.linalg.det(A), complex_matrix(2, 3, 3), dtype=np.float32)


def test_slogdet_complex():
    check_op(lambda lib, A: tuple(lib.linalg.slogdet(A)), complex_matrix(2, 3, 3))
    check_op(lambda lib, A: lib.linalg.slogdet(A).sign, complex_matrix(3, 3, seed=2))
    check_op(lambda lib, A: lib.logdet(A), complex_matrix(3, 3, seed=4))


def test_det_gradcheck():
    check_gradcheck(lambda lib, A: lib.linalg.det(A), well_conditioned(2, 3, 3))
    check_gradcheck(lambda lib, A: lib.linalg.slogdet(A).logabsdet, well_conditioned(3, 3))


def test_det_forward_ad():
    check_jvp(lambda lib, A: lib.linalg.det(A), well_conditioned(2, 3, 3))
    check_jvp(lambda lib, A: tuple(lib.linalg.slogdet(A)), well_conditioned(3, 3))


def test_slogdet_result():
    def fields(lib):
        result = lib.linalg.slogdet(lib.tensor([[2.0, 0.0], [0.0, -3.0]]))
        return type(result).__name__, result[0].item(), round(result.logabsdet.item(), 6)
    assert fields(ag) == fields(torch)
    assert type(ag.slogdet(ag.eye(2))).__name__ == type(torch.slogdet(torch.eye(2))).__name__
    assert ag.linalg.slogdet(ag.zeros(2, 2)).logabsdet.item() == -math.inf


def test_det_errors():
    assert_same_error(lambda lib: lib.linalg.det(lib.ones(3)), RuntimeError,
                      "linalg.det: The input tensor A must have at least 2 dimensions.")
    assert_same_error(lambda lib: lib.linalg.det(lib.ones(3, 2)), RuntimeError,
                      "linalg.det: A must be batches of square matrices, but they are 3 by 2 "
                      "matrices")
    assert_same_error(lambda lib: lib.linalg.det(lib.ones(2, 2, dtype=lib.int64)),
                      RuntimeError, "Expected a floating point or complex tensor as input")


# ------------------------------------------------------------------ inv, solve

@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", SHAPES)
def test_inv(dtype, shape):
    def fn(lib, A):
        out = lib.linalg.inv(A)
        assert node_name(out.grad_fn) == "LinalgInvExBackward0"
        return out
    check_op(fn, well_conditioned(*shape), dtype=dtype)
    check_op(lambda lib, A: lib.inverse(A), well_conditioned(*shape, seed=2), dtype=dtype)


def test_inv_ex():
    def fn(lib, A):
        result = lib.linalg.inv_ex(A)
        assert result.info.dtype == lib.int32
        return result.inverse, result.info
    check_op(fn, well_conditioned(2, 3, 3))
    singular = np.array([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [1.0, 1.0, 1.0]])
    for lib in (ag, torch):
        info = lib.linalg.inv_ex(lib.tensor(np.stack([np.eye(3), singular]))).info
        assert to_numpy(info).tolist() == [0, 3]


def test_inv_complex():
    check_op(lambda lib, A: lib.linalg.inv(A), complex_matrix(2, 3, 3))


def test_inv_gradcheck_and_forward_ad():
    check_gradcheck(lambda lib, A: lib.linalg.inv(A), well_conditioned(2, 3, 3))
    check_jvp(lambda lib, A: lib.linalg.inv(A), well_conditioned(2, 3, 3))


def test_inv_is_column_major():
    """torch returns LAPACK's layout: each inverse column-major, so ``contiguous()`` of it
    copies and a write into that copy leaves the inverse alone (fuzz seed 986001420)."""
    def run(lib):
        inverse = lib.linalg.inv(lib.tensor([[-1.625, 1.5, 1.375], [2.625, 1.75, -3.0],
                                             [-1.375, 2.625, -2.875]], dtype=lib.float64))
        copy = inverse.contiguous()
        copy[0:-1, 1] = -2.5
        batched = lib.linalg.inv_ex(lib.eye(2).expand(3, 2, 2))[0]
        return inverse.stride(), batched.stride(), inverse[0, 1].item()
    assert run(ag) == run(torch)


def test_cholesky_is_column_major():
    """torch returns LAPACK's layout for the factor (upper too): reshape of it copies, so an
    in-place write into the reshaped tensor leaves the factor alone (fuzz seed 993005850)."""
    def run(lib):
        a = lib.tensor([[1.0, -1.625, 2.5], [-2.75, -2.5, 1.75], [-2.125, 1.375, 2.875]],
                       dtype=lib.float64)
        factor = lib.linalg.cholesky(a @ a.mT)
        factor.reshape(-1, 9).mul_(-1.875)
        return (factor.stride(), lib.linalg.cholesky(a @ a.mT, upper=True).stride(),
                lib.linalg.cholesky_ex(lib.eye(2).expand(3, 2, 2)).L.stride(),
                factor[1, 0].item())
    assert run(ag) == run(torch)


def test_inv_errors():
    assert_linalg_error(lambda lib: lib.linalg.inv(lib.zeros(3, 3)),
                        "linalg.inv: The diagonal element 1 is zero, the inversion could not "
                        "be completed because the input matrix is singular.")
    singular = [[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [1.0, 1.0, 1.0]]
    assert_linalg_error(lambda lib: lib.linalg.inv(lib.tensor(singular)),
                        "linalg.inv: The diagonal element 3 is zero")
    assert_linalg_error(lambda lib: lib.linalg.inv(lib.stack([lib.eye(2), lib.zeros(2, 2)])),
                        "linalg.inv: (Batch element 1): The diagonal element 1 is zero")
    assert_linalg_error(lambda lib: lib.linalg.inv_ex(lib.zeros(2, 2), check_errors=True),
                        "linalg.inv_ex: The diagonal element 1 is zero")
    assert_same_error(lambda lib: lib.linalg.inv(lib.zeros(3, 2)), RuntimeError,
                      "A must be batches of square matrices, but they are 3 by 2 matrices")
    assert_same_error(lambda lib: lib.linalg.inv(lib.zeros(3, 3, dtype=lib.int64)),
                      RuntimeError, "Expected a floating point or complex tensor as input. "
                      "Got Long")
    assert_same_error(lambda lib: lib.linalg.inv(lib.eye(2, dtype=lib.float16)),
                      RuntimeError, exact="linalg.inv: Low precision dtypes not supported. "
                      "Got Half")
    for lib in (ag, torch):         # empty matrices: an empty inverse, a determinant of 1
        assert tuple(lib.linalg.inv(lib.ones(2, 0, 0)).shape) == (2, 0, 0)
        assert lib.linalg.det(lib.ones(0, 0)).item() == 1.0
    assert issubclass(ag.linalg.LinAlgError, RuntimeError)
    with pytest.raises(ag.linalg.LinAlgError):
        ag.linalg.inv(ag.zeros(2, 2))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("A_shape, B_shape, left", [
    ((3, 3), (3, 2), True), ((3, 3), (3,), True), ((2, 3, 3), (2, 3), True),
    ((2, 3, 3), (3, 4), True), ((3, 3), (2, 3, 1), True), ((3, 3), (2, 3), False),
    ((2, 3, 3), (4, 3), False), ((2, 1, 3, 3), (4, 3, 2), True),
])
def test_solve(dtype, A_shape, B_shape, left):
    def fn(lib, A, B):
        out = lib.linalg.solve(A, B, left=left)
        assert node_name(out.grad_fn) == "LinalgSolveExBackward0"
        return out
    check_op(fn, well_conditioned(*A_shape), randn(*B_shape, seed=7), dtype=dtype)


def test_solve_ex_complex_gradcheck_forward_ad():
    check_op(lambda lib, A, B: tuple(lib.linalg.solve_ex(A, B)), complex_matrix(2, 3, 3),
             randn(2, 3, 2, seed=8) + 1j * randn(2, 3, 2, seed=9))
    check_gradcheck(lambda lib, A, B: lib.linalg.solve(A, B), well_conditioned(2, 3, 3),
                    randn(3, 2, seed=1))
    check_gradcheck(lambda lib, A, B: lib.linalg.solve(A, B, left=False),
                    well_conditioned(3, 3), randn(2, 3))
    check_jvp(lambda lib, A, B: lib.linalg.solve(A, B), well_conditioned(2, 3, 3),
              randn(3, seed=2))


def test_solve_errors():
    assert_linalg_error(lambda lib: lib.linalg.solve(lib.zeros(3, 3), lib.ones(3)),
                        "torch.linalg.solve: The solver failed because the input matrix is "
                        "singular.")
    assert_same_error(lambda lib: lib.linalg.solve(lib.eye(3), lib.ones(3), left=False),
                      RuntimeError, exact="linalg.solve: Incompatible shapes of A and B for "
                      "the equation XA = B (3x3 and 3x1)")
    assert_same_error(lambda lib: lib.linalg.solve(lib.eye(3), lib.ones(2, 4)),
                      RuntimeError, "Incompatible shapes of A and B for the equation AX = B")
    assert_same_error(lambda lib: lib.linalg.solve(lib.eye(3), lib.ones(3, dtype=lib.float64)),
                      RuntimeError, "Expected A and B to have the same dtype")
    for lib in (ag, torch):
        info = lib.linalg.solve_ex(lib.stack([lib.eye(2), lib.zeros(2, 2)]), lib.ones(2)).info
        assert to_numpy(info).tolist() == [0, 1]


# ------------------------------------------------------------------ cholesky

@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("upper", [False, True])
def test_cholesky(dtype, shape, upper):
    def fn(lib, A):
        out = lib.linalg.cholesky(sym(lib, A), upper=upper)
        assert node_name(out.grad_fn) == "LinalgCholeskyExBackward0"
        return out
    check_op(fn, spd(*shape), dtype=dtype)


def test_cholesky_reads_one_triangle():
    """Only the lower (upper with ``upper=True``) triangle is read, and differentiated."""
    A = spd(3, 3) + np.triu(randn(3, 3, seed=9), 1)
    check_op(lambda lib, A: lib.linalg.cholesky(A), A)
    A = spd(3, 3) + np.tril(randn(3, 3, seed=9), -1)
    check_op(lambda lib, A: lib.linalg.cholesky(A, upper=True), A)


def test_cholesky_ex_complex_gradcheck_forward_ad():
    def fn(lib, A):
        result = lib.linalg.cholesky_ex(sym(lib, A))
        return result.L, result.info
    check_op(fn, hermitian(2, 3, 3))
    check_gradcheck(lambda lib, A: lib.linalg.cholesky(sym(lib, A)), spd(2, 3, 3))
    check_jvp(lambda lib, A: lib.linalg.cholesky(sym(lib, A)), spd(3, 3))
    check_jvp(lambda lib, A: lib.linalg.cholesky(sym(lib, A), upper=True), spd(3, 3))


def test_torch_cholesky():
    def fn(lib, A):
        out = lib.cholesky(sym(lib, A), upper=True)
        assert node_name(out.grad_fn) == "CholeskyBackward0"
        return out
    with pytest.warns(UserWarning, match="torch.cholesky is deprecated"):
        check_op(fn, spd(2, 3, 3))


def test_cholesky_errors():
    negative = np.diag([1.0, 1.0, -1.0])
    assert_linalg_error(lambda lib: lib.linalg.cholesky(lib.tensor(negative)),
                        "linalg.cholesky: The factorization could not be completed because "
                        "the input is not positive-definite (the leading minor of order 3 is "
                        "not positive-definite).")
    assert_linalg_error(lambda lib: lib.linalg.cholesky(lib.stack([lib.eye(2), -lib.eye(2)])),
                        "linalg.cholesky: (Batch element 1): The factorization could not be "
                        "completed")
    assert_same_error(lambda lib: lib.linalg.cholesky(lib.ones(2, 3)), RuntimeError,
                      "A must be batches of square matrices")
    for lib in (ag, torch):
        assert lib.linalg.cholesky_ex(lib.tensor(negative)).info.item() == 3


# ------------------------------------------------------------------ eigh

def gauge_free(lib, A, UPLO="L"):
    """eigh's outputs as gauge-invariant quantities: the eigenvalues and the projectors
    ``v v^H`` onto each eigenvector (unchanged by its sign or phase)."""
    values, vectors = lib.linalg.eigh(A, UPLO)
    if values.grad_fn is not None:          # not under forward AD alone
        assert node_name(values.grad_fn) == "LinalgEighBackward0"
    rows = vectors.mT                       # one eigenvector a row
    return values, rows.unsqueeze(-1) * rows.conj().unsqueeze(-2)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("UPLO", ["L", "U"])
def test_eigh(dtype, shape, UPLO):
    check_op(lambda lib, A: gauge_free(lib, A, UPLO), spd(*shape), dtype=dtype,
             rtol=1e-3 if dtype == np.float32 else None,
             atol=1e-4 if dtype == np.float32 else None)


def test_eigh_complex():
    check_op(lambda lib, A: gauge_free(lib, A), hermitian(2, 3, 3))


def test_eigvalsh():
    def fn(lib, A):
        out = lib.linalg.eigvalsh(sym(lib, A), UPLO="U")
        assert node_name(out.grad_fn) == "LinalgEighBackward0"
        return out
    check_op(fn, spd(2, 4, 4))
    check_op(lambda lib, A: lib.linalg.eigvalsh(A), hermitian(3, 3))


def test_eigh_gradcheck_forward_ad():
    check_gradcheck(lambda lib, A: gauge_free(lib, sym(lib, A)), spd(3, 3))
    check_jvp(lambda lib, A: gauge_free(lib, sym(lib, A)), spd(2, 3, 3))


def test_eigh_gauge_dependent_loss():
    """A loss that depends on the eigenvectors' phases: torch's error."""
    def fn(lib):
        A = lib.tensor(hermitian(3, 3), requires_grad=True)
        lib.linalg.eigh(A).eigenvectors.real.sum().backward()
    assert_same_error(fn, RuntimeError, exact="linalg_eigh_backward: The eigenvectors in "
                      "the complex case are specified up to multiplication by e^{i phi}. The "
                      "specified loss function depends on this quantity, so it is "
                      "ill-defined.")


def test_eigh_result_and_errors():
    for lib in (ag, torch):
        result = lib.linalg.eigh(lib.tensor(spd(3, 3)))
        assert type(result).__name__ == "linalg_eigh"
        assert (result.eigenvalues, result.eigenvectors) == tuple(result)
    assert_same_error(lambda lib: lib.linalg.eigh(lib.ones(3, 2)), RuntimeError,
                      "A must be batches of square matrices")
    assert_same_error(lambda lib: lib.linalg.eigh(lib.eye(2), "X"), RuntimeError,
                      "Expected UPLO argument to be 'L' or 'U'")


# ------------------------------------------------------------------ methods, devices

def test_tensor_methods():
    A = well_conditioned(3, 3)
    for name in ("det", "logdet", "inverse"):
        ours = getattr(ag.tensor(spd(3, 3)), name)()
        theirs = getattr(torch.tensor(spd(3, 3)), name)()
        assert_close(ours, theirs, what=name)
    assert_close(tuple(ag.tensor(A).slogdet()), tuple(torch.tensor(A).slogdet()))


def test_results_on_the_input_device():
    A = ag.tensor(spd(2, 3, 3), device=DEVICE)
    for out in (ag.linalg.det(A), ag.linalg.inv(A), ag.linalg.cholesky(A),
                ag.linalg.eigh(A).eigenvectors, ag.linalg.solve(A, A[0]),
                ag.linalg.inv_ex(A).info):
        assert out.device == A.device


# ------------------------------------------------------------------ svd

def svd_gauge_free(lib, A, full_matrices=False):
    """svd's outputs as gauge-invariant quantities: S, ``U Vh`` (each pair's common sign or
    phase cancels) and the projectors onto the left singular vectors."""
    U, S, Vh = lib.linalg.svd(A, full_matrices=full_matrices)
    if S.grad_fn is not None:
        assert node_name(S.grad_fn) == "LinalgSvdBackward0"
    k = S.shape[-1]
    U, Vh = U[..., :k], Vh[..., :k, :]
    rows = U.mT
    return S, U @ Vh, rows.unsqueeze(-1) * rows.conj().unsqueeze(-2)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(3, 3), (4, 2), (2, 2, 4), (2, 1, 3, 2)])
@pytest.mark.parametrize("full_matrices", [False, True])
def test_svd(dtype, shape, full_matrices):
    tolerances = {"rtol": 1e-3, "atol": 1e-4} if dtype == np.float32 else {}
    check_op(lambda lib, A: svd_gauge_free(lib, A, full_matrices), randn(*shape, seed=11),
             dtype=dtype, **tolerances)


@pytest.mark.parametrize("shape", [(3, 3), (4, 2), (2, 3)])
def test_svd_complex(shape):
    A = randn(*shape, seed=12) + 1j * randn(*shape, seed=13)
    check_op(lambda lib, A: svd_gauge_free(lib, A), A)


def test_svdvals():
    def fn(lib, A):
        out = lib.linalg.svdvals(A)
        assert node_name(out.grad_fn) == "LinalgSvdBackward0"
        return out
    check_op(fn, randn(2, 3, 4, seed=14))
    check_op(fn, randn(3, 3, seed=15) + 1j * randn(3, 3, seed=16))
    # rank deficient: S alone is still differentiable (no division by S)
    check_op(fn, np.outer(randn(3, seed=1), randn(4, seed=2)), double=False)


def test_svd_gradcheck_forward_shapes():
    check_gradcheck(lambda lib, A: svd_gauge_free(lib, A), randn(4, 3, seed=17))
    check_gradcheck(lambda lib, A: svd_gauge_free(lib, A), randn(2, 4, seed=18))
    for lib in (ag, torch):
        U, S, Vh = lib.linalg.svd(lib.ones(2, 5, 3))
        assert (tuple(U.shape), tuple(S.shape), tuple(Vh.shape)) == ((2, 5, 5), (2, 3), (2, 3, 3))


def test_svd_gauge_dependent_loss():
    def fn(lib):
        A = lib.tensor(randn(3, 3, seed=1) + 1j * randn(3, 3, seed=2), requires_grad=True)
        lib.linalg.svd(A).U.real.sum().backward()
    assert_same_error(fn, RuntimeError, exact="svd_backward: The singular vectors in the "
                      "complex case are specified up to multiplication by e^{i phi}. The "
                      "specified loss function depends on this phase term, making it "
                      "ill-defined.")


@pytest.mark.parametrize("some", [True, False])
def test_torch_svd(some):
    def fn(lib, A):
        U, S, V = lib.svd(A, some=some)
        k = S.shape[-1]
        return S, U[..., :k] @ V[..., :k].mT
    check_op(fn, randn(2, 4, 3, seed=19))
    for lib in (ag, torch):
        result = lib.svd(lib.ones(4, 3), some=some, compute_uv=False)
        assert type(result).__name__ == "svd"
        assert tuple(result.U.shape) == (4, 4) and tuple(result.V.shape) == (3, 3)
        assert not result.U.any()


# ------------------------------------------------------------------ matrix_exp, cross

@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape, scale", [((3, 3), 0.3), ((2, 4, 4), 2.0), ((1, 1), 5.0)])
def test_matrix_exp(dtype, shape, scale):
    def fn(lib, A):
        out = lib.linalg.matrix_exp(A)
        assert node_name(out.grad_fn) == "LinalgMatrixExpBackward0"
        return out
    check_op(fn, scale * randn(*shape, seed=20), dtype=dtype,
             rtol=1e-3 if dtype == np.float32 else 1e-6)
    check_op(lambda lib, A: lib.matrix_exp(A), randn(*shape, seed=21), dtype=dtype,
             rtol=1e-3 if dtype == np.float32 else 1e-6)


@pytest.mark.parametrize("half", ["float16", "bfloat16"])
@pytest.mark.parametrize("scale", [0.0, 1e-5, 0.01, 0.05, 0.2, 0.5, 3.0])
def test_matrix_exp_half_types_follow_torchs_kernel(half, scale):
    """torch 2.13 computes float16/bfloat16 in the type itself with its float64 thresholds
    and float64 coefficients read as 2-byte words (NOTE [matrix_exp in the half types]):
    zeros, huge values, inf and NaN by the norm's degree, a batch of two by degree 18;
    ours follows it, NaN and inf where torch's are, the gradient too (fuzz seeds
    985000050, 985003563)."""
    A = scale * randn(2, 3, 3, seed=24)

    def fn(lib):
        X = lib.tensor(A).to(getattr(lib, half)).requires_grad_()
        one = lib.linalg.matrix_exp(X[0])
        both = lib.linalg.matrix_exp(X)
        one.backward(lib.ones_like(one))
        return [one.float(), both.float(), X.grad.float()]
    ours, theirs = both(fn)
    for a, b in zip(ours, theirs):
        a, b = to_numpy(a), to_numpy(b)
        np.testing.assert_array_equal(np.isnan(a), np.isnan(b))
        np.testing.assert_array_equal(np.isinf(a) * np.sign(a), np.isinf(b) * np.sign(b))
        finite = np.isfinite(b)
        np.testing.assert_allclose(a[finite], b[finite], rtol=2e-2,
                                   atol=1e-2 * (1 + np.abs(b[finite]).max(initial=0)))


def test_matrix_exp_of_infinities_and_1x1_matrices():
    """A 1x1 matrix is exp of its entry (inf stays inf, no OverflowError; fuzz seed
    986004671); a matrix with an infinite norm is NaN, the rest of its batch as usual."""
    def fn(lib):
        inf = float("inf")
        one = lib.tensor([[[2.25]], [[-inf]]], dtype=lib.float64) / 0.0
        batch = lib.tensor([[[1.0, inf], [0.0, 1.0]], [[0.5, 0.0], [0.0, 1.0]]])
        out = lib.linalg.matrix_exp(batch.to(lib.complex64))
        return [lib.linalg.matrix_exp(one), lib.linalg.matrix_exp(batch),
                lib.view_as_real(out)]
    assert_same(fn)


def test_matrix_exp_complex_gradcheck_forward_ad():
    check_op(lambda lib, A: lib.linalg.matrix_exp(A), randn(3, 3, seed=1) + 1j * randn(3, 3))
    check_gradcheck(lambda lib, A: lib.linalg.matrix_exp(A), randn(2, 3, 3, seed=22))
    check_jvp(lambda lib, A: lib.linalg.matrix_exp(A), randn(2, 3, 3, seed=23))
    assert_same_error(lambda lib: lib.linalg.matrix_exp(lib.ones(2, 2, dtype=lib.int64)),
                      RuntimeError, "Expected a floating point or complex tensor as input. "
                      "Got Long")


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("a_shape, b_shape, dim", [
    ((3,), (3,), -1), ((4, 3), (4, 3), -1), ((3, 4), (3, 4), 0), ((1, 3), (5, 3), -1),
])
def test_cross(dtype, a_shape, b_shape, dim):
    def fn(lib, a, b):
        out = lib.linalg.cross(a, b, dim=dim)
        assert node_name(out.grad_fn) == "LinalgCrossBackward0"
        return out
    check_op(fn, randn(*a_shape, seed=24), randn(*b_shape, seed=25), dtype=dtype)


def test_cross_torch_form_complex_gradcheck_errors():
    check_op(lambda lib, a, b: lib.cross(a, b), randn(2, 3, 4, seed=1), randn(2, 3, 4, seed=2))
    check_op(lambda lib, a, b: lib.cross(a, b, dim=1), randn(2, 3) + 1j * randn(2, 3, seed=3),
             randn(2, 3, seed=4) + 1j * randn(2, 3, seed=5))
    check_gradcheck(lambda lib, a, b: lib.linalg.cross(a, b), randn(2, 3), randn(2, 3, seed=6))
    check_jvp(lambda lib, a, b: lib.linalg.cross(a, b), randn(2, 3), randn(2, 3, seed=7))
    assert_same_error(lambda lib: lib.linalg.cross(lib.ones(3, 2), lib.ones(3, 2)),
                      RuntimeError, exact="linalg.cross: inputs dimension -1 must have length "
                      "3. Got 2 and 2")
    assert_same_error(lambda lib: lib.linalg.cross(lib.ones(3), lib.ones(2, 3)), RuntimeError,
                      exact="linalg.cross: inputs must have the same number of dimensions.")


# ------------------------------------------------------------------ composites

def test_vecdot_multi_dot_diagonal():
    x = randn(2, 3, seed=26) + 1j * randn(2, 3, seed=27)
    check_op(lambda lib, x, y: lib.linalg.vecdot(x, y), x, randn(3, seed=28) + 0j)
    check_op(lambda lib, x, y: lib.linalg.vecdot(x, y, dim=0), randn(3, 2), randn(3, 2, seed=1))
    check_op(lambda lib, a, b, c: lib.linalg.multi_dot([a, b, c]), randn(3, seed=1),
             randn(3, 4, seed=2), randn(4, 2, seed=3))
    check_op(lambda lib, A: lib.linalg.diagonal(A, offset=1), randn(2, 3, 4))
    assert_same_error(lambda lib: lib.linalg.multi_dot([lib.ones(2, 2)]), RuntimeError,
                      exact="multi_dot(): expected at least 2 tensors but got 1")


@pytest.mark.parametrize("shapes", [[(3, 2), (2, 2), (2, 1)], [(2,), (2, 3), (3, 3), (3, 1)],
                                    [(1, 3), (3, 2), (2, 4), (4, 2), (2,)]])
def test_multi_dot_multiplies_in_torchs_order(shapes):
    """torch multiplies by ``mm`` in the cheapest order (three matrices by its cost rule,
    more by dynamic programming) and views the result: the order decides where an inf meets
    a zero (NaN) or another inf, and how the half types round (fuzz seeds 986000442,
    985001365); the node is ViewBackward0."""
    arrays = [randn(*shape, seed=i) for i, shape in enumerate(shapes)]
    arrays[0].flat[0] = np.inf
    arrays[-1].flat[-1] = 0.0

    def fn(lib):
        tensors = [lib.tensor(a, requires_grad=True) for a in arrays]
        out = lib.linalg.multi_dot(tensors)
        half = lib.linalg.multi_dot([lib.tensor(a).to(lib.bfloat16) for a in arrays[1:]]
                                    if len(arrays) > 2 else [lib.tensor(arrays[1])] * 2)
        return out, node_name(out.grad_fn), half.float()
    assert_same(fn)
    assert_same_error(lambda lib: lib.linalg.multi_dot([lib.ones(2, 3), lib.ones(2, 2)]),
                      RuntimeError, exact="multi_dot(): tensors 0 and 1 with shapes [2, 3] "
                      "and [2, 2] cannot be multiplied")


@pytest.mark.parametrize("n", [0, 1, 2, 3, 6, -1, -3])
def test_matrix_power(n):
    check_op(lambda lib, A: lib.linalg.matrix_power(A, n), well_conditioned(2, 3, 3) / 3)
    check_op(lambda lib, A: A.matrix_power(n), well_conditioned(3, 3, seed=1) / 3)


def test_matrix_power_graph_and_errors():
    for lib in (ag, torch):
        A = lib.tensor(randn(3, 3), requires_grad=True)
        node = lib.linalg.matrix_power(A, 3).grad_fn
        assert [node_name(n) for n, _ in node.next_functions] == [
            "MmBackward0", "AccumulateGrad"]
    assert_same_error(lambda lib: lib.linalg.matrix_power(lib.ones(3, 2), 2), RuntimeError,
                      exact="linalg.matrix_power: A must be batches of square matrices, but "
                      "they are 3 by 2 matrices")


def test_matrix_rank():
    low_rank = np.outer(randn(4, seed=1), randn(3, seed=2)) + np.outer(randn(4), randn(3))
    for A in (randn(4, 3), low_rank, np.zeros((2, 2)), np.stack([np.eye(3), np.diag([1.0, 0, 0])])):
        for kwargs in ({}, {"atol": 0.5}, {"rtol": 0.9}):
            ours = ag.linalg.matrix_rank(ag.tensor(A), **kwargs)
            theirs = torch.linalg.matrix_rank(torch.tensor(A), **kwargs)
            assert_close(ours, theirs)


# ------------------------------------------------------------------ solve_triangular

@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("upper", [False, True])
@pytest.mark.parametrize("left", [False, True])
@pytest.mark.parametrize("unitriangular", [False, True])
def test_solve_triangular(dtype, upper, left, unitriangular):
    def fn(lib, A, B):
        out = lib.linalg.solve_triangular(A, B, upper=upper, left=left,
                                          unitriangular=unitriangular)
        assert node_name(out.grad_fn) == "LinalgSolveTriangularBackward0"
        return out
    B_shape = (2, 3, 2) if left else (2, 2, 3)
    check_op(fn, well_conditioned(3, 3), randn(*B_shape, seed=29), dtype=dtype)


def test_slogdet_sign_of_a_real_matrix_gives_no_gradient():
    """Only the real sign differentiated: A gets no gradient (None), as torch's (it got
    zeros); with logabsdet too, the usual one (fuzz seed 953000241)."""
    def fn(lib):
        A = lib.tensor([[-1.875, 2.125], [1.375, -1.0]], dtype=lib.float64,
                       requires_grad=True)
        sign, logabsdet = lib.linalg.slogdet(A)
        sign.backward(retain_graph=True)
        alone = A.grad
        (sign + logabsdet).backward()
        return alone, A.grad
    assert_same(fn)


def test_det_of_1x1_matrices_has_a_gradient_free_of_A():
    """det(a) = a: the gradient is the incoming one, which does not require grad under
    create_graph, as torch's (fuzz seed 953000798)."""
    def fn(lib):
        A = lib.tensor([[[1.625]], [[-2.0]]], dtype=lib.float64, requires_grad=True)
        (grad,) = lib.autograd.grad(lib.linalg.det(A).sum(), A, create_graph=True)
        return grad.requires_grad, grad
    assert_same(fn)


@pytest.mark.parametrize("dtypes", [("float32", "float64"), ("float64", "float32")])
def test_solve_triangular_result_has_the_dtype_of_A(dtypes):
    """B is read in A's dtype, as torch's: the result and A's gradient are of A's dtype,
    B's gradient of B's (fuzz seed 953000192)."""
    def fn(lib):
        A = lib.tensor([[2.0, 1.0], [0.0, 4.0]], dtype=getattr(lib, dtypes[0]),
                       requires_grad=True)
        B = lib.tensor([[1.0], [3.0]], dtype=getattr(lib, dtypes[1]), requires_grad=True)
        X = lib.linalg.solve_triangular(A, B, upper=True)
        X.sum().backward()
        return [str(t.dtype).split(".")[-1] for t in (X, A.grad, B.grad)], X, A.grad, B.grad
    assert_same(fn)


@pytest.mark.parametrize("dtype", ["float32", "complex128"])
@pytest.mark.parametrize("upper", [False, True])
@pytest.mark.parametrize("left", [False, True])
def test_solve_triangular_of_a_singular_triangle_substitutes(dtype, upper, left):
    """A zero on the diagonal: torch's trsm substitutes through it, ``b / 0`` is inf and
    ``inf * 0``, ``0 / 0`` NaN further on (a complex ``s / 0`` NaN in both parts); no
    LinAlgError and not NaN everywhere (fuzz seeds 986000555, 985000365)."""
    def fn(lib):
        A = lib.tensor([[2.375, 0.0, 0.0], [-1.0, 0.0, 0.0], [0.375, 1.25, 0.875]],
                       dtype=getattr(lib, dtype))
        B = lib.tensor([[-0.25, 0.0], [-2.875, 0.0], [2.25, 1.0]], dtype=getattr(lib, dtype))
        A = A if not upper else A.mT
        X = lib.linalg.solve_triangular(A, B if left else B.mT, upper=upper, left=left)
        return lib.view_as_real(X) if X.is_complex() else X
    assert_same(fn)


def test_solve_triangular_complex_gradcheck_forward_ad_errors():
    check_op(lambda lib, A, B: lib.linalg.solve_triangular(A, B, upper=False),
             complex_matrix(2, 3, 3), randn(3, 2, seed=1) + 1j * randn(3, 2, seed=2))
    check_gradcheck(lambda lib, A, B: lib.linalg.solve_triangular(A, B, upper=True),
                    well_conditioned(3, 3), randn(3, 2, seed=3))
    check_jvp(lambda lib, A, B: lib.linalg.solve_triangular(A, B, upper=True, left=False),
              well_conditioned(2, 3, 3), randn(2, 3, seed=4))
    assert_same_error(lambda lib: lib.linalg.solve_triangular(lib.eye(3), lib.ones(3),
                                                              upper=True),
                      RuntimeError, exact="linalg.solve_triangular: The input tensor B must "
                      "have at least 2 dimensions.")
    assert_same_error(lambda lib: lib.linalg.solve_triangular(lib.eye(3), lib.ones(2, 3),
                                                              upper=True),
                      RuntimeError, exact="linalg.solve_triangular: Incompatible shapes of A "
                      "and B for the equation AX = B (3x3 and 2x3)")


# ------------------------------------------------------------------ qr

def qr_gauge_free(lib, A, mode="reduced"):
    """Q and R with R's diagonal made positive (the factorization is then unique): each
    column of Q and row of R times the unit factor of R's diagonal entry."""
    Q, R = lib.linalg.qr(A, mode)
    if R.grad_fn is not None:
        assert node_name(R.grad_fn) == "LinalgQrBackward0"
    k = min(A.shape[-2], A.shape[-1])
    phase = R.diagonal(0, -2, -1).sgn().detach()
    Q_k = Q[..., :k] * phase.unsqueeze(-2)
    R_k = R[..., :k, :] * phase.conj().unsqueeze(-1)
    return Q_k, R_k


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(3, 3), (4, 2), (2, 4), (2, 1, 4, 3)])
def test_qr(dtype, shape):
    check_op(lambda lib, A: qr_gauge_free(lib, A), randn(*shape, seed=31), dtype=dtype)


def test_qr_complete_complex_gradcheck():
    check_op(lambda lib, A: qr_gauge_free(lib, A, "complete"), randn(2, 4, seed=32))
    check_op(lambda lib, A: qr_gauge_free(lib, A), randn(4, 3) + 1j * randn(4, 3, seed=1))
    check_op(lambda lib, A: qr_gauge_free(lib, A), randn(2, 3) + 1j * randn(2, 3, seed=2))
    check_gradcheck(lambda lib, A: qr_gauge_free(lib, A), randn(4, 3, seed=33))
    check_gradcheck(lambda lib, A: qr_gauge_free(lib, A), randn(2, 3, seed=34))


@pytest.mark.cpu_only     # the layout of the CPU's LAPACK results
@pytest.mark.parametrize("mode", ["reduced", "complete", "r"])
@pytest.mark.parametrize("shape", [(3, 2), (2, 3, 4)])
def test_qr_results_are_column_major(shape, mode):
    """Q and R have LAPACK's column-major layout, as torch's (strides ``(..., 1, rows)``),
    so that what depends on it (``view``, kron's view of a product) behaves as torch's
    (fuzz seed 986003644)."""
    def fn(lib):
        Q, R = lib.linalg.qr(lib.tensor(randn(*shape, seed=35)), mode=mode)
        return R.stride(), R.is_contiguous(), Q.stride() if Q.dim() == len(shape) else None
    assert_same(fn)


def test_qr_modes_and_errors():
    for lib in (ag, torch):
        Q, R = lib.linalg.qr(lib.ones(2, 5, 3), mode="complete")
        assert (tuple(Q.shape), tuple(R.shape)) == ((2, 5, 5), (2, 5, 3))
        result = lib.linalg.qr(lib.ones(2, 5, 3), mode="r")
        assert type(result).__name__ == "linalg_qr"
        assert tuple(result.Q.shape) == (0,) and tuple(result.R.shape) == (2, 3, 3)
    assert_close(ag.linalg.qr(ag.tensor(randn(4, 3)), mode="r").R.abs(),
                 torch.linalg.qr(torch.tensor(randn(4, 3)), mode="r").R.abs())

    def complete(lib):
        A = lib.tensor(randn(4, 2), requires_grad=True)
        lib.linalg.qr(A, mode="complete").Q.sum().backward()
    assert_same_error(complete, RuntimeError, exact="The QR decomposition is not "
                      "differentiable when mode='complete' and nrows > ncols.")

    def r_only(lib):
        A = lib.tensor(randn(3, 3), requires_grad=True)
        lib.linalg.qr(A, mode="r").R.sum().backward()
    assert_same_error(r_only, RuntimeError, "depends on Q, which is not computed when "
                      "mode='r'")
    assert_same_error(lambda lib: lib.linalg.qr(lib.ones(3, 3), mode="x"), RuntimeError,
                      exact="qr received unrecognized mode 'x' but expected one of 'reduced' "
                      "(default), 'r', or 'complete'")


def test_torch_qr():
    def fn(lib, A):
        Q, R = lib.qr(A)
        return Q @ R, R.abs()
    with pytest.warns(UserWarning, match="torch.qr is deprecated"):
        check_op(fn, randn(4, 3, seed=35))
    assert type(ag.qr(ag.ones(3, 2))).__name__ == "qr"


# ------------------------------------------------------------------ pinv, lstsq

@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(3, 3), (4, 2), (2, 4), (2, 3, 5)])
def test_pinv(dtype, shape):
    def fn(lib, A):
        out = lib.linalg.pinv(A)
        assert node_name(out.grad_fn) == "LinalgPinvBackward0"
        return out
    check_op(fn, randn(*shape, seed=36), dtype=dtype,
             rtol=1e-3 if dtype == np.float32 else None)


def test_pinv_options_complex_gradcheck():
    check_op(lambda lib, A: lib.linalg.pinv(A), randn(4, 3) + 1j * randn(4, 3, seed=1))
    check_op(lambda lib, A: lib.linalg.pinv(sym(lib, A), hermitian=True), spd(3, 3))
    check_op(lambda lib, A: lib.pinverse(A), randn(3, 4, seed=2))
    check_op(lambda lib, A: A.pinverse(), randn(4, 3, seed=3))
    check_gradcheck(lambda lib, A: lib.linalg.pinv(A), randn(4, 3, seed=37))
    check_gradcheck(lambda lib, A: lib.linalg.pinv(A), randn(2, 3, seed=38))
    # a tolerance that drops singular values
    A = np.diag([3.0, 1.0, 1e-3])
    for kwargs in ({"atol": 0.01}, {"rtol": 0.5}, {}):
        assert_close(ag.linalg.pinv(ag.tensor(A), **kwargs),
                     torch.linalg.pinv(torch.tensor(A), **kwargs))


@pytest.mark.parametrize("driver", [None, "gels", "gelsy", "gelsd", "gelss"])
def test_lstsq(driver):
    def fn(lib, A, B):
        result = lib.linalg.lstsq(A, B, driver=driver)
        assert type(result).__name__ == "linalg_lstsq"
        assert node_name(result.solution.grad_fn) == "LinalgLstsqBackward0"
        return result.solution, result.residuals, result.rank, result.singular_values
    check_op(fn, randn(2, 5, 3, seed=39), randn(2, 5, 2, seed=40))


def test_lstsq_vector_wide_gradcheck_errors():
    check_op(lambda lib, A, b: lib.linalg.lstsq(A, b).solution, randn(4, 3), randn(4, seed=1))
    check_op(lambda lib, A, B: lib.linalg.lstsq(A, B, driver="gelsd")[:2], randn(3, 5),
             randn(3, 2, seed=2))
    check_gradcheck(lambda lib, A, B: lib.linalg.lstsq(A, B).solution, randn(4, 3),
                    randn(4, 2, seed=3))
    assert_same_error(lambda lib: lib.linalg.lstsq(lib.ones(4, 3), lib.ones(4, 2),
                                                   driver="x"),
                      RuntimeError, exact="torch.linalg.lstsq: parameter `driver` should be "
                      "one of (gels, gelsy, gelsd, gelss)")
    assert_same_error(lambda lib: lib.linalg.lstsq(lib.ones(4, 3), lib.ones(3, 2)),
                      RuntimeError, exact="torch.linalg.lstsq: input.size(-2) should match "
                      "other.size(-2)")


# ------------------------------------------------------------------ cholesky_solve, _inverse

def factor(upper, *shape, seed=0, complex=False):
    """A well-conditioned triangular factor (and junk in the other triangle, never read);
    a complex one with a real diagonal, as a Cholesky factor has."""
    n = shape[-1]
    a = randn(*shape, seed=seed) + 3 * np.eye(n)
    if complex:
        a = a + 1j * randn(*shape, seed=seed + 1) * (1 - np.eye(n))
    return a


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("upper", [False, True])
@pytest.mark.parametrize("B_shape, L_shape", [((3, 2), (3, 3)), ((2, 3, 4), (3, 3)),
                                              ((3, 1), (2, 3, 3))])
def test_cholesky_solve(dtype, upper, B_shape, L_shape):
    def fn(lib, B, L):
        out = lib.cholesky_solve(B, L, upper)
        assert node_name(out.grad_fn) == "CholeskySolveBackward0"
        return out
    check_op(fn, randn(*B_shape, seed=41), factor(upper, *L_shape), dtype=dtype,
             rtol=1e-3 if dtype == np.float32 else None)


@pytest.mark.parametrize("upper", [False, True])
def test_cholesky_inverse(upper):
    def fn(lib, L):
        out = lib.cholesky_inverse(L, upper)
        assert node_name(out.grad_fn) == "CholeskyInverseBackward0"
        return out
    check_op(fn, factor(upper, 2, 3, 3))
    check_op(fn, factor(upper, 3, 3, seed=1, complex=True))
    # torch's gradient, as ours, is not masked to the triangle read: gradcheck through one
    check_gradcheck(lambda lib, L: lib.cholesky_inverse(L.triu() if upper else L.tril(),
                                                        upper), factor(upper, 3, 3))


def test_cholesky_solve_complex_gradcheck_methods_errors():
    check_op(lambda lib, B, L: lib.cholesky_solve(B, L), randn(3, 2) + 1j * randn(3, 2, seed=1),
             factor(False, 3, 3, complex=True))
    check_gradcheck(lambda lib, B, L: lib.cholesky_solve(B, L.triu(), True), randn(3, 2),
                    factor(True, 3, 3))
    check_op(lambda lib, B, L: B.cholesky_solve(L), randn(3, 2), factor(False, 3, 3))
    check_op(lambda lib, L: L.cholesky_inverse(), factor(False, 3, 3))
    assert_same_error(lambda lib: lib.cholesky_solve(lib.ones(3), lib.eye(3)), RuntimeError,
                      exact="b should have at least 2 dimensions, but has 1 dimensions instead")
    assert_same_error(lambda lib: lib.cholesky_inverse(lib.ones(3)), RuntimeError,
                      exact="cholesky_inverse: The input tensor A must have at least 2 "
                      "dimensions.")


# ------------------------------------------------------------------ lu

@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(3, 3), (2, 4, 4), (2, 1, 3, 3)])
def test_lu(dtype, shape):
    def fn(lib, A):
        P, L, U = lib.linalg.lu(A)
        assert node_name(L.grad_fn) == "LinalgLuBackward0"
        return P, L, U
    check_op(fn, randn(*shape, seed=42), dtype=dtype)


@pytest.mark.parametrize("dtype", DTYPES)
def test_lu_factor(dtype):
    def fn(lib, A):
        LU, pivots = lib.linalg.lu_factor(A)
        assert node_name(LU.grad_fn) == "LinalgLuFactorExBackward0"
        assert pivots.dtype == lib.int32
        return LU, pivots
    check_op(fn, randn(2, 4, 4, seed=43), dtype=dtype)


@pytest.mark.parametrize("shape", [(4, 2), (2, 4), (2, 3, 5), (2, 5, 3)])
def test_lu_of_a_wide_or_tall_matrix(shape):
    """NOTE [The LU backward of a non-square matrix]: gradients (and double backward) of L
    and U, and of the packed LU, as torch's, real and complex."""
    check_op(lambda lib, A: tuple(lib.linalg.lu(A))[1:], randn(*shape, seed=46))
    check_op(lambda lib, A: lib.linalg.lu_factor(A).LU, randn(*shape, seed=47))
    check_op(lambda lib, A: tuple(lib.linalg.lu(A))[1:],
             randn(*shape, seed=48) + 1j * randn(*shape, seed=49))
    check_gradcheck(lambda lib, A: lib.linalg.lu(A)[1:], randn(*shape, seed=50))


def test_complex_pivots_are_lapack_s():
    """getrf sizes a complex pivot by |Re| + |Im|: here row 0 (0.8 + 0.8j: 1.6, though its
    modulus, 1.13, is below row 1's 1.2) stays the pivot."""
    A = np.array([[0.8 + 0.8j, 1.0], [1.2 + 0j, 2.0]])
    assert_same(lambda lib: lib.linalg.lu_factor(lib.tensor(A)).pivots.tolist())
    check_op(lambda lib, A: lib.linalg.lu_factor(A).LU, A)


def test_lu_rectangular_complex_gradcheck_results():
    for shape in ((4, 2), (2, 4)):
        ours, theirs = ag.linalg.lu(ag.tensor(randn(*shape))), torch.linalg.lu(
            torch.tensor(randn(*shape)))
        assert_close(tuple(ours), tuple(theirs))
    check_op(lambda lib, A: tuple(lib.linalg.lu(A)), randn(3, 3) + 1j * randn(3, 3, seed=1))
    check_gradcheck(lambda lib, A: lib.linalg.lu(A)[1:], randn(3, 3, seed=44))
    check_gradcheck(lambda lib, A: lib.linalg.lu_factor(A).LU, randn(3, 3, seed=45))
    singular = np.array([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [1.0, 1.0, 1.0]])
    for lib in (ag, torch):
        result = lib.linalg.lu_factor_ex(lib.tensor(singular))
        assert type(result).__name__ == "linalg_lu_factor_ex"
        assert result.info.item() == 3 and to_numpy(result.pivots).tolist() == [2, 3, 3]
        assert type(lib.linalg.lu(lib.eye(2))).__name__ == "linalg_lu"
    assert_same_error(lambda lib: lib.linalg.lu_factor(lib.zeros(2, 3, 3)), RuntimeError,
                      exact="torch.linalg.lu_factor: (Batch element 0): U[1,1] is zero and "
                      "using it on lu_solve would result in a division by zero. If you still "
                      "want to perform the factorization, consider calling linalg.lu(A, pivot) "
                      "or linalg.lu_factor_ex(A, pivot)")


# ------------------------------------------------------------------ lu_unpack, lu_solve

@pytest.mark.parametrize("shape", [(3, 3), (2, 4, 4), (3, 5), (5, 3)])
def test_lu_unpack(shape):
    def fn(lib, A):
        P, L, U = lib.lu_unpack(*lib.linalg.lu_factor(A))
        assert node_name(L.grad_fn) == "LuUnpackBackward0" and not P.requires_grad
        return P, L, U
    check_op(fn, randn(*shape, seed=51))
    check_op(fn, randn(*shape, seed=52) + 1j * randn(*shape, seed=53))
    assert_same(lambda lib: [part.shape for part in lib.lu_unpack(
        *lib.linalg.lu_factor(lib.tensor(randn(*shape))), unpack_data=False)])


@pytest.mark.parametrize("left", [True, False])
@pytest.mark.parametrize("adjoint", [False, True])
def test_lu_solve(left, adjoint):
    B = randn(2, 4, 3, seed=55) if left else randn(2, 3, 4, seed=55)

    def fn(lib, A, B):
        LU, pivots = lib.linalg.lu_factor(A)
        return lib.linalg.lu_solve(LU, pivots, B, left=left, adjoint=adjoint)
    check_op(fn, randn(2, 4, 4, seed=54), B)
    check_op(fn, randn(4, 4, seed=56) + 1j * randn(4, 4, seed=57), B + 0j)
    check_gradcheck(fn, randn(4, 4, seed=58), B[0])


def test_lu_solve_errors():
    assert_same_error(lambda lib: lib.linalg.lu_solve(
        *lib.linalg.lu_factor(lib.eye(3)), lib.ones(2, 2)), RuntimeError,
        r"Incompatible shapes of A and B for the equation AX = B \(3x3 and 2x2\)")
    assert_same_error(lambda lib: lib.lu_unpack(lib.eye(3), lib.tensor([1, 2, 3])),
                      RuntimeError, "LU_pivots is expected to be a contiguous tensor of "
                      "torch.int32 dtype")


# ------------------------------------------------------------------ tensorinv ... cond

@pytest.mark.parametrize("case", [
    (lambda lib, A: lib.linalg.tensorinv(A, ind=2), (4, 6, 8, 3)),
    (lambda lib, A: lib.linalg.tensorinv(A, ind=1), (6, 2, 3)),
    (lambda lib, A: lib.linalg.tensorsolve(A, A.sum((2, 3))), (2, 3, 6, 1)),
    (lambda lib, A: lib.linalg.tensorsolve(A, A.sum((1, 3)), dims=(1,)), (2, 3, 3, 2)),
    (lambda lib, A: lib.linalg.vander(A[0, 0]), (2, 2, 4)),
    (lambda lib, A: lib.linalg.vander(A, N=3), (2, 4)),
    (lambda lib, A: lib.linalg.cond(A), (2, 3, 4)),
    (lambda lib, A: lib.linalg.cond(A, -2), (3, 3)),
    (lambda lib, A: lib.linalg.cond(A, "nuc"), (3, 3)),
])
def test_tensor_equations_vander_and_cond(case):
    fn, shape = case
    square = np.eye(shape[-1]) * 2 if shape[-1] == shape[-2] else 0
    check_op(fn, randn(*shape, seed=60) + square)
    check_op(fn, randn(*shape, seed=61) + 1j * randn(*shape, seed=62))


@pytest.mark.parametrize("p", ["fro", 1, -math.inf])
def test_cond_through_the_inverse(p):
    """torch 2.13's backward of these orders fails (its inv_ex output is modified in place
    by the op itself): values against torch, gradients by finite differences."""
    A = randn(2, 3, 3, seed=63) + 2 * np.eye(3)
    assert_same(lambda lib: lib.linalg.cond(lib.tensor(A), p).tolist())
    check_gradcheck(lambda lib, A: lib.linalg.cond(A, p), A)


def test_tensor_equations_vander_and_cond_edges():
    assert_same(lambda lib: lib.linalg.vander(lib.tensor([1, 2, 3]), N=4).tolist())
    assert_same(lambda lib: lib.linalg.cond(lib.zeros(2, 2), 1).item())
    assert_same_error(lambda lib: lib.linalg.tensorinv(lib.ones(4, 6, 8, 2)), RuntimeError,
                      exact="Expected self to satisfy the requirement prod(self.shape[ind:]) "
                      "== prod(self.shape[:ind]), but got 16 != 24")
    assert_same_error(lambda lib: lib.linalg.tensorinv(lib.ones(2, 2), ind=0), RuntimeError,
                      "strictly positive integer for 'ind'")
    assert_same_error(lambda lib: lib.linalg.vander(lib.ones(2), N=1), RuntimeError,
                      "N must be greater than 1")
    assert_same_error(lambda lib: lib.linalg.cond(lib.ones(2, 3), 1), RuntimeError,
                      exact="linalg.cond(ord=1): A must be batches of square matrices, but "
                      "they are 2 by 3 matrices")
    assert_same_error(lambda lib: lib.linalg.cond(lib.eye(2), 3), RuntimeError,
                      "invalid norm type: 3")


# ------------------------------------------------------------------ eig

def eig_gauge_free(lib, A):
    """The eigenvalues and each eigenvector's projector ``v v^H`` (of norm-1 vectors: free
    of the phase)."""
    values, vectors = lib.linalg.eig(A)
    if values.grad_fn is not None:
        assert node_name(values.grad_fn) == "LinalgEigBackward0"
    rows = vectors.mT
    return values, rows.unsqueeze(-1) * rows.conj().unsqueeze(-2)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(3, 3), (2, 4, 4)])
def test_eig(dtype, shape):
    tolerances = {"rtol": 1e-3, "atol": 1e-4} if dtype == np.float32 else {}
    check_op(eig_gauge_free, randn(*shape, seed=46), dtype=dtype, **tolerances)


def test_eig_complex_eigvals_errors():
    check_op(eig_gauge_free, randn(3, 3, seed=47) + 1j * randn(3, 3, seed=48))
    check_op(lambda lib, A: lib.linalg.eigvals(A), randn(2, 3, 3, seed=49))
    for lib in (ag, torch):
        assert lib.linalg.eigvals(lib.eye(2)).dtype == lib.complex64
        assert type(lib.linalg.eig(lib.eye(2))).__name__ == "linalg_eig"

    def phase_dependent(lib):
        A = lib.tensor(randn(3, 3, seed=50) + 1j * randn(3, 3, seed=51), requires_grad=True)
        lib.linalg.eig(A).eigenvectors.real.sum().backward()
    assert_same_error(phase_dependent, RuntimeError, "specified up to multiplication by "
                      r"e\^\{i phi\}")
    assert_same_error(lambda lib: lib.linalg.eig(lib.ones(2, 3)), RuntimeError,
                      "A must be batches of square matrices")


# ------------------------------------------------------------------ found by tests/opinfo

@pytest.mark.parametrize("shape", [(0, 0), (0, 5, 5), (3, 0), (2, 0, 4)])
@pytest.mark.parametrize("hermitian", [False, True])
def test_matrix_rank_of_empty_matrices(shape, hermitian):
    if hermitian and shape[-1] != shape[-2]:
        return
    assert_same(lambda lib: (lib.linalg.matrix_rank(lib.zeros(shape), hermitian=hermitian)
                             .tolist(), lib.linalg.matrix_rank(lib.zeros(shape)).dtype
                             == lib.int64))


@pytest.mark.parametrize("kwargs", [
    {"rtol": [0.5, 0.01]}, {"atol": [1.0, 0.0]}, {"atol": 0.0}, {"atol": [0.1, 1.0], "rtol": [0.2]},
    {"tol": 0.5}, {"hermitian": True}, {"hermitian": True, "atol": [2.0, 0.1]},
])
def test_matrix_rank_tolerances_and_hermitian(kwargs):
    # singular values spread over decades; the upper triangle is not the lower's transpose
    a = np.stack([np.diag([10.0, 1.0, 0.1, 0.001]), np.diag([3.0, 0.3, 0.03, 0.0])])
    a = a + np.triu(randn(4, 4), 1)

    def run(lib):
        given = {k: lib.tensor(v, dtype=lib.float64) if isinstance(v, list) else v
                 for k, v in kwargs.items()}
        return lib.linalg.matrix_rank(lib.tensor(a), **given).tolist()
    assert_same(run)


def test_matrix_rank_complex_tolerance_error():
    assert_same_error(lambda lib: lib.linalg.matrix_rank(lib.ones(3, 3),
                                                         atol=lib.tensor(1j)),
                      RuntimeError, "atol tensor of complex type is not supported")


@pytest.mark.parametrize("dtype", [np.float64, np.complex128])
def test_pinv_hermitian_reads_the_lower_triangle(dtype):
    a = randn(2, 4, 4).astype(dtype)
    if dtype == np.complex128:
        a = a + 1j * randn(2, 4, 4, seed=3)
    check_op(lambda lib, x: lib.linalg.pinv(x, hermitian=True), a)
    check_op(lambda lib, x: lib.linalg.pinv(x, atol=lib.tensor([0.5, 0.1], dtype=lib.float64),
                                            hermitian=True), a)


def test_torch_norm_nuclear():
    """torch.norm(p='nuc'): linalg.matrix_norm over every dim when none is given."""
    check_op(lambda lib, A: lib.norm(A, p="nuc"), randn(3, 4, seed=26))
    check_op(lambda lib, A: A.norm(p="nuc", dim=(0, 2), keepdim=True), randn(3, 2, 4, seed=27))
    assert_same_error(lambda lib: lib.norm(lib.ones(2, 2, 2), p="nuc"), RuntimeError,
                      "dim must be a 2-tuple. Got 0 1 2")


LOW_PRECISION_OPS = {
    "det": lambda lib, a: lib.linalg.det(a), "solve": lambda lib, a: lib.linalg.solve(a, a),
    "lu_factor": lambda lib, a: lib.linalg.lu_factor(a),
    "cholesky": lambda lib, a: lib.linalg.cholesky(a),
    "eigh": lambda lib, a: lib.linalg.eigh(a), "eigvalsh": lambda lib, a: lib.linalg.eigvalsh(a),
    "qr": lambda lib, a: lib.linalg.qr(a), "svd": lambda lib, a: lib.linalg.svd(a),
    "svdvals": lambda lib, a: lib.linalg.svdvals(a), "cond": lambda lib, a: lib.linalg.cond(a),
    "solve_triangular": lambda lib, a: lib.linalg.solve_triangular(a, a, upper=True),
    "eigvals": lambda lib, a: lib.linalg.eigvals(a),
    "matrix_norm_2": lambda lib, a: lib.linalg.matrix_norm(a, 2),
    "matrix_norm_nuc": lambda lib, a: lib.linalg.matrix_norm(a, "nuc"),
    "eig": lambda lib, a: lib.linalg.eig(a), "lu": lambda lib, a: lib.linalg.lu(a),
    "lu_factor_ex": lambda lib, a: lib.linalg.lu_factor_ex(a), "torch.lu": lambda lib, a: a.lu(),
    "cholesky_ex": lambda lib, a: lib.linalg.cholesky_ex(a),
    "torch.cholesky": lambda lib, a: lib.cholesky(a),
    "cholesky_inverse": lambda lib, a: lib.cholesky_inverse(a),
    "ldl_factor": lambda lib, a: lib.linalg.ldl_factor(a), "geqrf": lambda lib, a: lib.geqrf(a),
    "householder_product": lambda lib, a: lib.linalg.householder_product(a, a[0]),
    "vander": lambda lib, a: lib.linalg.vander(a[0]),
}


@pytest.mark.cpu_only
@pytest.mark.parametrize("name", LOW_PRECISION_OPS)
@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_low_precision_refused_as_torch_cpu_kernels(name, dtype):
    """float16/bfloat16 matrices reach torch's LAPACK-backed CPU kernels, which refuse them
    with a NotImplementedError naming the kernel (matrix_norm refuses them itself); ours
    raised a RuntimeError (fuzz seeds 963001522, 963002004, 963002732)."""
    assert_same_error(lambda lib: LOW_PRECISION_OPS[name](
        lib, lib.eye(2, dtype=getattr(lib, dtype)) * 2), exact=True)


@pytest.mark.cpu_only
def test_solve_checks_the_dtypes_before_its_kernel_refuses_bfloat16():
    # fuzz seed 988014021
    assert_same_error(lambda lib: lib.linalg.solve(lib.ones(1, 3, 3, dtype=lib.bfloat16),
                                                   lib.ones(1, 1)), RuntimeError, exact=True)


def test_svd_and_pinv_of_an_infinite_matrix():
    """A matrix with an infinite entry has NaN singular values and a zero pseudo-inverse,
    as torch's; NumPy's gesdd looped forever on it (fuzz seed 954001299 hung)."""
    def fn(lib):
        A = lib.tensor([[[-math.inf, 0.0, 0.0], [1.0, 2.0, 3.0], [0.0, 1.0, 4.0]],
                        [[2.0, 0.0, 0.0], [1.0, 2.0, 3.0], [0.0, 1.0, 4.0]]],
                       dtype=lib.float64)
        return lib.linalg.svdvals(A), lib.linalg.svd(A)[1], lib.linalg.pinv(A)
    assert_same(fn)


@pytest.mark.parametrize("shape", [(1, 0), (0, 2), (2, 0, 3)])
@pytest.mark.parametrize("ord", [1, 2, "nuc", math.inf])
def test_matrix_norm_of_empty_matrices_is_zero(shape, ord):
    """The largest of no column sums (or singular values) is 0, as torch's (ours raised
    amax's IndexError; the smallest still raises, as torch's) (fuzz seed 954000807)."""
    for keepdim in (False, True):
        assert_same(lambda lib: lib.linalg.matrix_norm(lib.zeros(*shape), ord=ord,
                                                       keepdim=keepdim))
    if shape == (1, 0):
        assert_same_error(lambda lib: lib.linalg.matrix_norm(lib.zeros(*shape), ord=-1))


@pytest.mark.parametrize("ord", [1, 2, math.inf, "nuc"])
@pytest.mark.parametrize("shape", [(1, 0), (0, 1)])
def test_matrix_norm_of_no_entries_is_not_recorded(shape, ord):
    """The 0 that is the largest of an empty dim has no grad_fn and does not require grad,
    as torch's (ord 1 and 2 of a 1x0 matrix, inf of a 0x1); the sums of a non-empty dim
    ('nuc', ord 1 of 0x1) are recorded as usual (fuzz seeds 986000252, 986003939,
    985003004)."""
    def fn(lib):
        A = lib.tensor([[-3.0]], requires_grad=True).narrow(*((1, 1, 0) if shape == (1, 0)
                                                               else (0, 0, 0)))
        out = lib.linalg.matrix_norm(A, ord=ord)
        return out, out.requires_grad, out.grad_fn is None
    assert_same(fn)


def test_eigvalsh_gradient_at_repeated_eigenvalues():
    """Only the eigenvalues differentiated: ``V diag(g) V^H``, no division by their gaps,
    so a repeated eigenvalue gives torch's finite gradient (it gave NaN: the unused
    eigenvectors' zero gradient was divided by zero gaps) (fuzz seed 955000158)."""
    def fn(lib):
        A = lib.tensor([[1.0, 0.0], [0.0, 1.0]], dtype=lib.float64, requires_grad=True)
        lib.linalg.eigvalsh(A).backward(lib.tensor([-1.25, 0.5], dtype=lib.float64))
        B = lib.eye(3, dtype=lib.float64).requires_grad_()
        lib.linalg.eigh(B).eigenvalues.sum().backward()
        return A.grad, B.grad
    assert_same(fn)
