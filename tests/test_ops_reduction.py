"""Reductions vs PyTorch: values, dtypes, gradients, double backward, ties, zeros, errors."""
import math
import warnings

import numpy as np
import pytest
import torch

import autograd_cy as ag
from oracle import LIBS, assert_same, assert_same_error, check_op, randn, to_numpy

DTYPES = [np.float32, np.float64]
INF = float("inf")

# (dim, keepdim) combinations every dim-wise reduction is checked with.
DIMS = [(None, False), (1, False), (-1, True), (0, True), ((0, 2), False), ((-1, 0), True),
        ((), False)]


def call(method, dim, keepdim):
    """``t.method(dim, keepdim=...)``, or ``t.method()`` (the full reduction) for dim None."""
    if dim is None:
        return lambda lib, t: getattr(t, method)()
    return lambda lib, t: getattr(t, method)(dim, keepdim=keepdim)


def distinct(*shape, seed=0):
    """Random values without ties (so max/min and their gradients are unambiguous)."""
    rng = np.random.default_rng(seed)
    n = int(np.prod(shape))
    return (rng.permutation(n) + rng.uniform(0.1, 0.9, n)).reshape(shape) / n - 0.5


# ------------------------------------------------------------------ smooth reductions

@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("dim,keepdim", DIMS)
@pytest.mark.parametrize("method", ["sum", "mean", "var", "std", "logsumexp"])
def test_smooth_reductions(method, dim, keepdim, dtype):
    if method == "logsumexp" and dim is None:
        dim = (0, 1, 2)                   # torch.logsumexp requires dim
    if method == "logsumexp" and dim == ():
        dim = (1,)                        # torch.logsumexp(x, ()) is a torch error
    if method in ("var", "std") and dim == ():
        dim = (0, 1, 2)                   # torch's backward reads () as no dims: inf
    check_op(call(method, dim, keepdim), randn(2, 3, 4), dtype=dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("dim,keepdim", DIMS)
@pytest.mark.parametrize("p", [2, "fro", 1, 3, 1.5, 0.5, -1, INF, -INF, 0])
def test_norm(p, dim, keepdim, dtype):
    if p == "fro" and isinstance(dim, tuple) and len(dim) == 0:
        dim = None
    check_op(lambda lib, t: t.norm(p, dim, keepdim), distinct(2, 3, 4), dtype=dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("dim,keepdim", [(None, False), (0, False), (1, True), (-1, False)])
def test_prod(dim, keepdim, dtype):
    check_op(call("prod", dim, keepdim), randn(3, 4, positive=True), dtype=dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("dim,keepdim", DIMS)
@pytest.mark.parametrize("method", ["amax", "amin"])
def test_amax_amin(method, dim, keepdim, dtype):
    check_op(call(method, () if dim is None else dim, keepdim), distinct(2, 3, 4), dtype=dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("dim,keepdim", [(None, False), (0, False), (1, True), (-1, False),
                                         (-3, True)])
@pytest.mark.parametrize("method", ["max", "min"])
def test_max_min(method, dim, keepdim, dtype):
    check_op(call(method, dim, keepdim), distinct(2, 3, 4), dtype=dtype)


@pytest.mark.filterwarnings("ignore:invalid value:RuntimeWarning")   # the NaN gradient
@pytest.mark.parametrize("method", ["sum", "mean", "var", "std", "prod", "amax", "max", "norm",
                                    "logsumexp"])
def test_zero_dim_input(method):
    if method in ("var", "std"):
        check_op(lambda lib, t: getattr(t, method)(0, correction=0), np.array(1.5))
        with pytest.warns(UserWarning, match="degrees of freedom is <= 0"):   # NaN
            check_op(lambda lib, t: getattr(t, method)(-1, keepdim=True), np.array(1.5))
        return
    check_op(lambda lib, t: getattr(t, method)(0), np.array(1.5))
    check_op(lambda lib, t: getattr(t, method)(-1, keepdim=True), np.array(1.5))


def test_function_forms_and_keywords():
    x = randn(3, 4)
    check_op(lambda lib, t: lib.sum(t, dim=1, keepdim=True), x)
    check_op(lambda lib, t: lib.mean(t, dim=[0, 1]), x)
    check_op(lambda lib, t: lib.var(t, 1, keepdim=True, correction=2), x)
    check_op(lambda lib, t: lib.std(t, dim=0, unbiased=False), x)
    check_op(lambda lib, t: lib.prod(t, 1), x)
    check_op(lambda lib, t: lib.amax(t, dim=(0, 1), keepdim=True), x)
    check_op(lambda lib, t: lib.max(t, 1, keepdim=True), x)
    check_op(lambda lib, t: lib.min(t, dim=0), x)
    check_op(lambda lib, t: lib.norm(t, p=3, dim=1, keepdim=True), x)
    check_op(lambda lib, t: lib.logsumexp(t, dim=1, keepdim=True), x)
    check_op(lambda lib, t: lib.argmax(t, dim=1, keepdim=True), x)
    check_op(lambda lib, t: lib.count_nonzero(t, dim=(0, 1)), x)


# ------------------------------------------------------------------ dtypes

@pytest.mark.parametrize("dtype", DTYPES)
def test_sum_mean_dtype_argument(dtype):
    check_op(lambda lib, t: t.sum(1, dtype=lib.float64), randn(3, 4), dtype=dtype)
    check_op(lambda lib, t: t.mean(dtype=lib.float64), randn(3, 4), dtype=dtype)
    check_op(lambda lib, t: t.prod(0, dtype=lib.float64), randn(3, 4), dtype=dtype)
    check_op(lambda lib, t: t.norm(dim=1, dtype=lib.float64), randn(3, 4), dtype=dtype)


@pytest.mark.parametrize("array", [np.arange(6, dtype=np.int32).reshape(2, 3),
                                   np.arange(6).reshape(2, 3),
                                   np.array([[True, False, True], [True, True, False]])])
def test_integer_and_bool_inputs(array):
    check_op(lambda lib, t: (t.sum(), t.sum(1), t.prod(), t.prod(0), t.amax(1), t.max(),
                             t.max(1), t.count_nonzero(1)), array)
    check_op(lambda lib, t: t.mean(dtype=lib.float32), array)
    check_op(lambda lib, t: t.sum(dtype=lib.float32), array)
    if array.dtype != bool:                 # torch has no bool argmax
        check_op(lambda lib, t: (lib.logsumexp(t, 1), t.argmax(), t.argmin(0)), array)


@pytest.mark.parametrize("array,name", [(np.arange(3), "Long"),
                                        (np.arange(3, dtype=np.int32), "Int"),
                                        (np.array([True]), "Bool")])
def test_mean_of_integers_raises_like_torch(array, name):
    assert_same_error(lambda lib: lib.tensor(array).mean(), RuntimeError,
                      f"mean\\(\\): could not infer output dtype.*Got: {name}")


@pytest.mark.parametrize("op,match", [
    (lambda t: t.var(), "std and var only support floating point"),
    (lambda t: t.std(0), "std and var only support floating point"),
    (lambda t: t.norm(), "linalg.vector_norm: Expected a floating point or complex tensor as "
                         "input. Got Long"),
])
def test_float_only_reductions_reject_integers(op, match):
    assert_same_error(lambda lib: op(lib.tensor(np.arange(3))), RuntimeError, match)


# ------------------------------------------------------------------ ties, NaN, zeros

TIED = np.array([[1.0, 3.0, 3.0, -2.0],
                 [2.0, 2.0, 0.0, 2.0],
                 [-1.0, -1.0, -1.0, -1.0]])


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("fn", [
    lambda lib, t: t.amax(), lambda lib, t: t.amax(1), lambda lib, t: t.amin(0, keepdim=True),
    lambda lib, t: t.amin((0, 1)), lambda lib, t: t.max(), lambda lib, t: t.min(),
    lambda lib, t: t.max(1), lambda lib, t: t.min(1, keepdim=True), lambda lib, t: t.max(0),
    lambda lib, t: t.norm(INF, 1), lambda lib, t: t.norm(-INF, 0), lambda lib, t: t.norm(INF),
    lambda lib, t: t.argmax(1), lambda lib, t: t.argmin(0), lambda lib, t: t.argmax(),
])
def test_ties_match_torch(fn, dtype):
    """amax/amin/max() split the gradient evenly among ties; max(dim) picks one index."""
    check_op(fn, TIED, dtype=dtype)
    check_op(fn, -TIED, dtype=dtype)


def test_ties_split_evenly():
    x = ag.tensor([[1.0, 3.0, 3.0], [2.0, 2.0, 2.0]], requires_grad=True)
    x.amax(1).sum().backward()
    np.testing.assert_allclose(to_numpy(x.grad), [[0, 0.5, 0.5], [1 / 3, 1 / 3, 1 / 3]])


@pytest.mark.parametrize("fn", [lambda lib, t: t.max(), lambda lib, t: t.min(),
                                lambda lib, t: t.max(1), lambda lib, t: t.amax(1),
                                lambda lib, t: t.argmax(1), lambda lib, t: t.argmin(1)])
def test_nan_propagates_like_torch(fn):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        check_op(fn, np.array([[1.0, np.nan, 2.0], [3.0, 0.5, 3.0]]), double=False)


ZEROS = [np.array([0.0, 2.0, -3.0, 0.5]),                       # one zero
         np.array([0.0, 2.0, 0.0, 0.5]),                        # two zeros
         np.array([0.0, 0.0, 0.0, 1.5]),                        # three zeros
         np.array([[0.0, 2.0, 3.0], [0.0, 0.0, 5.0], [1.5, 2.0, -3.0], [0.0, 0.0, 0.0]])]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("array", ZEROS, ids=["one", "two", "three", "mixed"])
def test_prod_with_zeros(array, dtype):
    """Gradient and double backward at zeros match PyTorch (no 0/0)."""
    check_op(lambda lib, t: t.prod(), array, dtype=dtype)
    check_op(lambda lib, t: t.prod(0), array, dtype=dtype)
    check_op(lambda lib, t: t.prod(-1, keepdim=True), array, dtype=dtype)
    check_op(lambda lib, t: (t * 2).prod(), array, dtype=dtype)    # a non-leaf input


def test_prod_zero_gradient_values():
    x = ag.tensor([2.0, 0.0, 3.0], requires_grad=True)
    x.prod().backward()
    np.testing.assert_array_equal(to_numpy(x.grad), [0.0, 6.0, 0.0])


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("p", [2, "fro", 1, 3, 1.5, 0.5, -1, INF, -INF])
def test_norm_gradient_at_zero_vector_is_zero(p, dtype):
    zero = np.zeros((2, 3))
    check_op(lambda lib, t: t.norm(p), zero, dtype=dtype, double=False)
    check_op(lambda lib, t: t.norm(p, dim=1), zero, dtype=dtype, double=False)
    x = ag.tensor(zero, requires_grad=True)
    (grad,) = ag.autograd.grad(x.norm(p), x)
    assert not np.any(to_numpy(grad)) and not np.any(np.isnan(to_numpy(grad)))


def test_norm_zero_order_has_no_gradient():
    for lib in LIBS:
        x = lib.tensor([0.0, 2.0, -1.0], requires_grad=True)
        assert lib.autograd.grad(x.norm(0) * 1, x, allow_unused=True) == (None,)


def test_std_gradient_at_constant_input_is_zero():
    check_op(lambda lib, t: t.std(), np.ones(4))
    check_op(lambda lib, t: t.std(1), np.ones((2, 3)))


# ------------------------------------------------------------------ var / std arguments

@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("method", ["var", "std"])
@pytest.mark.parametrize("correction", [0, 1, 2, 1.5])
@pytest.mark.parametrize("dim", [None, 1, (0, 2)])
def test_var_std_correction(method, correction, dim, dtype):
    check_op(lambda lib, t: getattr(t, method)(dim, correction=correction), randn(3, 4, 2),
             dtype=dtype)


@pytest.mark.parametrize("method", ["var", "std"])
def test_var_std_unbiased_overloads(method):
    x = randn(3, 4)
    check_op(lambda lib, t: getattr(t, method)(1, True, True), x)
    check_op(lambda lib, t: getattr(t, method)(1, False), x)
    check_op(lambda lib, t: getattr(t, method)(False), x)
    check_op(lambda lib, t: getattr(t, method)(True), x)
    check_op(lambda lib, t: getattr(t, method)(dim=0, unbiased=False, keepdim=True), x)


@pytest.mark.parametrize("method", ["var", "std"])
def test_var_std_no_degrees_of_freedom(method):
    for lib in LIBS:
        with pytest.warns(UserWarning, match=f"{method}\\(\\): degrees of freedom is <= 0"):
            value = getattr(lib.tensor([1.0, 2.0]), method)(correction=2)
        assert np.isinf(float(value))


@pytest.mark.cpu_only     # torch's CPU kernel's choice; ours on the CPU
@pytest.mark.parametrize("name", ["var_mean", "std_mean"])
def test_var_mean_mean_of_infinities_is_the_running_means(name):
    """The mean of var_mean/std_mean is torch's running (Welford) mean: an infinity followed
    by anything is NaN, one infinity last stays; the parts of a complex input apart (fuzz
    seeds 986000559, 986004218); an empty input's NaN mean keeps its shape (987000240,
    987001624)."""
    inf = np.inf

    def fn(lib):
        op = getattr(lib, name)
        real = lib.tensor([[inf, inf], [1.0, inf], [inf, 1.0], [-inf, -inf]],
                          dtype=lib.float64)
        cplx = lib.tensor([complex(inf, 1), complex(1, inf)])
        empty = lib.zeros(1, 3).narrow(-1, 2, 0)       # NaN of the kept shape, no error
        return [op(real, 1)[1], op(real)[1], op(real, 0)[1], lib.view_as_real(op(cplx)[1]),
                lib.view_as_real(op(cplx[0])[1]), op(lib.tensor([]))[1],
                op(empty, keepdim=True)[1], op(empty, 1)[1]]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert_same(fn)


# ------------------------------------------------------------------ results and graph

def test_max_with_dim_returns_values_and_indices():
    x = ag.tensor(TIED, requires_grad=True)
    expected = torch.tensor(TIED).max(1)
    result = x.max(1)
    values, indices = result
    assert result.values is values and result.indices is indices
    assert indices.dtype == ag.int64 and not indices.requires_grad and indices.grad_fn is None
    assert values.grad_fn.name() == "MaxBackward0"
    np.testing.assert_array_equal(to_numpy(indices), to_numpy(expected.indices))
    assert type(result).__name__ == "max" and type(x.min(0)).__name__ == "min"


@pytest.mark.parametrize("fn", [
    lambda lib, t: t.argmax(), lambda lib, t: t.argmin(keepdim=True),
    lambda lib, t: t.argmax(-1, keepdim=True), lambda lib, t: t.argmin(0),
    lambda lib, t: lib.count_nonzero(t), lambda lib, t: lib.count_nonzero(t, -1),
])
def test_index_and_count_reductions(fn):
    array = np.array([[0.0, 3.0, -1.0], [4.0, 0.0, 2.0]])
    check_op(fn, array)
    out = fn(ag, ag.tensor(array, requires_grad=True))
    assert out.dtype == ag.int64 and not out.requires_grad


def test_binary_max_min():
    a, b = randn(2, 3, seed=1), randn(2, 3, seed=2)
    if hasattr(ag, "maximum"):
        check_op(lambda lib, x, y: (lib.max(x, y), x.min(y)), a, b)
    else:
        with pytest.raises(NotImplementedError, match="maximum"):
            ag.max(ag.tensor(a), ag.tensor(b))


@pytest.mark.parametrize("fn", [
    lambda lib, t: t.sum(), lambda lib, t: t.sum(1), lambda lib, t: t.mean(),
    lambda lib, t: t.mean(0), lambda lib, t: t.var(1), lambda lib, t: t.std(),
    lambda lib, t: t.prod(), lambda lib, t: t.prod(1), lambda lib, t: t.amax(1),
    lambda lib, t: t.amin(), lambda lib, t: t.max(), lambda lib, t: t.min(),
    lambda lib, t: t.max(1)[0], lambda lib, t: t.min(1)[0], lambda lib, t: t.norm(),
    lambda lib, t: t.norm(1, 1), lambda lib, t: lib.logsumexp(t, 1),
])
def test_node_names_match_torch(fn):
    array = randn(2, 3)
    ours = fn(ag, ag.tensor(array, requires_grad=True)).grad_fn.name()
    assert ours == fn(torch, torch.tensor(array, requires_grad=True)).grad_fn.name()


def test_saved_attributes():
    x = ag.tensor(randn(2, 3), requires_grad=True)
    node = x.var(-1, keepdim=True, correction=0).grad_fn
    assert node._saved_dim == (1,) and node._saved_keepdim and node._saved_correction == 0
    assert node._saved_self is x
    out = x.prod(0)
    assert np.array_equal(to_numpy(out.grad_fn._saved_result), to_numpy(out))
    assert x.sum(1).grad_fn._saved_self_sym_sizes == (2, 3)


def test_no_graph_without_grad():
    x = ag.tensor(randn(2, 3), requires_grad=True)
    with ag.no_grad():
        outs = [x.sum(), x.var(1), x.prod(), x.amax(), x.max(1).values, x.norm(), x.std()]
    assert all(o.grad_fn is None and not o.requires_grad for o in outs)


def test_logsumexp_is_stable():
    big = np.array([[1000.0, 1000.0, -1000.0], [-np.inf, -np.inf, -np.inf]])
    check_op(lambda lib, t: lib.logsumexp(t, 1), big[:1], double=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        for lib in LIBS:
            assert float(lib.logsumexp(lib.tensor(big[1]), 0)) == -INF
            assert float(lib.logsumexp(lib.tensor([INF, 1.0]), 0)) == INF


def test_sum_to_size():
    check_op(lambda lib, t: t.sum_to_size(1, 4), randn(3, 4))
    check_op(lambda lib, t: t.sum_to_size((3, 1)), randn(3, 4))


def test_empty_reductions():
    empty = np.zeros((0, 3))
    check_op(lambda lib, t: (t.sum(0), t.prod(0), t.amax(1), t.sum(), t.norm(dim=0)), empty)


# ------------------------------------------------------------------ errors vs torch

def on_a_2x3_leaf(fn):
    """``fn(lib, tensor)`` as ``fn(lib)``, on a [2, 3] tensor requiring grad."""
    array = randn(2, 3)
    return lambda lib: fn(lib, lib.tensor(array, requires_grad=True))


OUT_OF_RANGE = r"Dimension out of range \(expected to be in range of \[-2, 1\], but got {}\)"


@pytest.mark.parametrize("bad", [2, -3])
@pytest.mark.parametrize("fn", [
    lambda lib, t, d: t.sum(d), lambda lib, t, d: t.mean((0, d)), lambda lib, t, d: t.var(d),
    lambda lib, t, d: t.std(d), lambda lib, t, d: t.prod(d), lambda lib, t, d: t.amax(d),
    lambda lib, t, d: t.amin((d,)), lambda lib, t, d: t.max(d), lambda lib, t, d: t.min(d),
    lambda lib, t, d: t.norm(dim=d), lambda lib, t, d: lib.logsumexp(t, d),
    lambda lib, t, d: t.argmax(d), lambda lib, t, d: t.argmin(d),
    lambda lib, t, d: lib.count_nonzero(t, d),
])
def test_dim_out_of_range(fn, bad):
    assert_same_error(on_a_2x3_leaf(lambda lib, t: fn(lib, t, bad)), IndexError,
                      OUT_OF_RANGE.format(bad))


def test_zero_dim_out_of_range():
    assert_same_error(lambda lib: lib.tensor(3.0).sum(1), IndexError,
                      r"range of \[-1, 0\], but got 1")


@pytest.mark.parametrize("fn,dup", [
    (lambda lib, t: t.sum((0, 0)), 0), (lambda lib, t: t.mean((1, -1)), 1),
    (lambda lib, t: t.amax((0, -2)), 0), (lambda lib, t: t.norm(dim=(1, 1)), 1),
    (lambda lib, t: t.var((0, 1, 0)), 0),
])
def test_duplicate_dims(fn, dup):
    assert_same_error(on_a_2x3_leaf(fn), RuntimeError,
                      f"dim {dup} appears multiple times in the list of dims")


@pytest.mark.parametrize("fn,error,match", [
    (lambda lib, t: t.amax(0), IndexError,
     r"amax\(\): Expected reduction dim 0 to have non-zero size"),
    (lambda lib, t: t.max(0), IndexError,
     r"max\(\): Expected reduction dim 0 to have non-zero size"),
    (lambda lib, t: t.min(), RuntimeError,
     r"min\(\): Expected reduction dim to be specified for input.numel\(\) == 0"),
    (lambda lib, t: t.argmax(), IndexError,
     r"argmax\(\): Expected reduction dim to be specified for input.numel\(\) == 0"),
    (lambda lib, t: t.norm(INF), RuntimeError,
     "cannot compute the inf norm on an empty tensor"),
])
def test_empty_extreme_errors(fn, error, match):
    assert_same_error(lambda lib: fn(lib, lib.zeros(0, 3)), error, match)


def test_norm_matrix_orders_rejected():
    assert_same_error(on_a_2x3_leaf(lambda lib, t: t.norm("abc")), RuntimeError,
                      "Order abc not supported")
    with pytest.raises(RuntimeError, match="dim must be a 2-tuple"):
        ag.zeros(2, 2, 2).norm("fro", dim=(0, 1, 2))
    assert_same_error(lambda lib: lib.zeros(2, 2, 2).norm("nuc"), RuntimeError,
                      "dim must be a 2-tuple")
    # one int dim of the nuclear norm is a list of one (fuzz seed 985000203)
    assert_same_error(lambda lib: lib.norm(lib.ones(1, 1, dtype=lib.complex64), p="nuc",
                                           dim=-1), RuntimeError, exact=True)


@pytest.mark.parametrize("name", ["var_mean", "std_mean"])
@pytest.mark.parametrize("kwargs", [{}, {"dim": 0}, {"dim": (0, 1), "keepdim": True},
                                    {"dim": 1, "correction": 0}])
def test_var_mean_is_one_node_with_two_outputs(name, kwargs):
    """PyTorch records var_mean/std_mean as one VarMeanBackward0/StdMeanBackward0, whose
    prehook sees both gradients; each output's gradient alone flows too."""
    def run(lib):
        x = lib.tensor([[1.0, 2.0, 4.0], [3.0, 5.0, 9.0]], dtype=lib.float64,
                       requires_grad=True)
        v, m = getattr(lib, name)(x, **kwargs)
        seen = []
        v.grad_fn.register_prehook(lambda grads: seen.append(len(grads)))
        (v.sum() * 2 + m.sum() * 3).backward()
        both_grads = x.grad.clone()
        x.grad = None
        getattr(lib, name)(x, **kwargs)[1].sum().backward()
        return (type(v.grad_fn).__name__, v.grad_fn is m.grad_fn, seen, both_grads, x.grad, v, m)
    assert_same(run)


@pytest.mark.cpu_only       # the bits of the CPU's loop against NumPy's
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape, dims", [
    ((8, 32), (0,)), ((3, 4, 5), (0, 1)), ((100, 3), (0,)), ((2, 1, 8), (0, 1)), ((7, 1), (0,)),
    ((9, 1), (0,)), ((3, 4, 5), (0, 1, 2)), ((3, 4, 5), (1,))])
@pytest.mark.parametrize("keepdim", [False, True])
def test_sum_and_mean_over_leading_dims(shape, dims, keepdim, dtype):
    # A sum over the leading dims of a small tensor (a bias's gradient summed to its shape)
    # is a loop of ours that adds the rows in order (NOTE [Fused kernels]): its bits are
    # NumPy's, the order NumPy adds an outer axis in, and its values torch's; one column of
    # 8 rows or more, and a sum that is not over leading dims, stay with NumPy.
    rng = np.random.default_rng(11)
    array = (rng.standard_normal(shape) * 10.0 ** rng.uniform(-4, 4, shape)).astype(dtype)
    array.flat[0] = -0.0
    ours = ag.tensor(array).sum(dim=dims, keepdim=keepdim).numpy()
    expected = np.add.reduce(array, axis=dims, keepdims=keepdim)
    assert ours.shape == expected.shape and ours.dtype == expected.dtype
    np.testing.assert_array_equal(np.atleast_1d(ours).view(np.uint8),
                                  np.atleast_1d(expected).view(np.uint8))
    check_op(lambda lib, x: x.sum(dim=dims, keepdim=keepdim), array, dtype=dtype)
    check_op(lambda lib, x: x.mean(dim=dims, keepdim=keepdim), array, dtype=dtype)


def test_bias_gradient_is_the_sum_of_the_rows():
    # The engine sums a broadcast gradient down to the bias's shape (sum_to): the loop's
    # result, a view of the keepdim sum, as torch's .grad of a bias
    rng = np.random.default_rng(12)
    x = rng.standard_normal((8, 32)).astype(np.float32)
    b = rng.standard_normal(32).astype(np.float32)
    grads = {}
    for lib in LIBS:
        bias = lib.tensor(b, requires_grad=True)
        ((lib.tensor(x) + bias) ** 2).sum().backward()
        grads[lib] = to_numpy(bias.grad)
    np.testing.assert_allclose(grads[ag], grads[torch], rtol=1e-5)    # float32 sums of 8


@pytest.mark.parametrize("dim", [0, 1])
def test_prod_over_one_element_with_zeros_hands_the_gradient_on(dim):
    # torch's prod backward: without zeros grad * result / x; with zeros, over a dim of
    # size 1 the gradient as it is (so under create_graph it does not require grad)
    results = {}
    for lib in LIBS:
        x = lib.tensor([[1.5, 0.0]], requires_grad=True)
        grad, = lib.autograd.grad(x.prod(dim=dim).sum(), [x], create_graph=True)
        results[lib] = (grad.requires_grad, to_numpy(grad.detach()))
    assert results[ag][0] == results[torch][0]
    np.testing.assert_array_equal(results[ag][1], results[torch][1])


@pytest.mark.parametrize("name", ["var", "std", "var_mean"])
def test_float32_variance_accumulates_in_float64(name):
    # torch's CPU var and std run Welford's algorithm in double for float32: the variance of
    # equal values is exactly 0 (a float32 mean of three equal values need not be exact), and
    # the other values are torch's to float32 rounding
    rng = np.random.default_rng(13)
    x = np.concatenate([np.full((3, 1), np.tanh(np.float32(1.0))),
                        rng.standard_normal((3, 4)).astype(np.float32) * 1e3 + 1e4], axis=1)
    results = {}
    for lib in LIBS:
        out = getattr(lib, name)(lib.tensor(x), 0)
        results[lib] = [to_numpy(t) for t in (out if isinstance(out, tuple) else (out,))]
    for ours, theirs in zip(results[ag], results[torch]):
        assert ours[0] == theirs[0]
        np.testing.assert_allclose(ours, theirs, rtol=1.2e-7)


@pytest.mark.cpu_only
@pytest.mark.parametrize("name", ["var", "std"])
@pytest.mark.parametrize("shape", [(3,), (2, 4), (1, 10)])
def test_float32_variance_of_a_whole_tensor_takes_two_passes(name, shape):
    """NOTE [var and std of a whole float32 tensor]: with one output element torch takes the
    float32 mean first, so equal values whose float32 mean is not exact (8 times -2.3250308)
    have a tiny variance (fuzz seed 985004040); a dim reduced to one element does the same."""
    value = {3: np.float32(np.tanh(np.float32(1.0))), 8: np.float32(-2.3250308),
             10: np.float32(-0.43278584)}[math.prod(shape)]

    def fn(lib):
        x = lib.full(shape, float(value), dtype=lib.float32)
        return [repr(getattr(lib, name)(x).item()), repr(getattr(lib, name)(x, -1).sum().item()),
                repr(getattr(lib, name)(x * lib.tensor([1.0] * shape[-1]) + 0.5).item())]
    assert_same(fn)
