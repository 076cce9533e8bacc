"""nansum, nanmean, nanmedian (autograd_cy/nan_reductions.py) against torch's: values with
and without NaN, dims, keepdim, dtypes, gradients (none to a NaN entry), double backward,
forward AD, the node of nanmedian over all elements, and errors."""
import numpy as np
import pytest

from oracle import assert_same, assert_same_error, check_jvp, check_op, node_name, randn

NAN = float("nan")


def with_nans(*shape, seed=3):
    x = randn(*shape, seed=seed)
    x.flat[::4] = np.nan
    return x


CASES = {
    "nansum": lambda lib, x: lib.nansum(x),
    "nansum_dim": lambda lib, x: x.nansum(1),
    "nansum_dims_keepdim": lambda lib, x: lib.nansum(x, (0, 1), keepdim=True),
    "nansum_keepdim_all": lambda lib, x: x.nansum(keepdim=True),
    "nansum_dtype": lambda lib, x: x.float().nansum(0, dtype=lib.float64),
    "nanmean": lambda lib, x: lib.nanmean(x),
    "nanmean_dim": lambda lib, x: x.nanmean(-1, keepdim=True),
    "nanmedian": lambda lib, x: lib.nanmedian(x),
    "nanmedian_dim": lambda lib, x: x.nanmedian(1),
    "nanmedian_dim0_keepdim": lambda lib, x: lib.nanmedian(x, 0, keepdim=True),
}


@pytest.mark.parametrize("name", CASES)
def test_values_and_gradients(name):
    check_op(CASES[name], with_nans(3, 5))


@pytest.mark.parametrize("name", CASES)
def test_without_nan(name):
    check_op(CASES[name], randn(4, 3))


@pytest.mark.parametrize("name", CASES)
def test_forward_ad(name):
    check_jvp(CASES[name], with_nans(3, 5))


def test_nanmedian_shares_among_ties_and_nan_rows():
    x = np.array([[1.0, 2.0, 2.0, NAN], [NAN, NAN, NAN, NAN], [3.0, NAN, 1.0, 2.0]])
    check_op(lambda lib, t: t.nanmedian(), x)
    check_op(lambda lib, t: t[1].nanmedian(), x)
    # (over a dim the gradient goes to the index torch's kernel chooses among ties)


def test_integers_nodes_and_shapes():
    def run(lib):
        i = lib.arange(6).reshape(2, 3)
        x = lib.tensor(with_nans(2, 3), requires_grad=True)
        return [lib.nansum(i), lib.nansum(lib.tensor([True, False])), i.nanmedian(),
                tuple(i.nanmedian(1)), str(lib.nansum(i).dtype).split(".")[-1],
                node_name(x.nanmedian().grad_fn), node_name(x.nanmean().grad_fn),
                node_name(x.nansum(0).grad_fn), lib.nansum(x.detach(), ()),
                node_name(x.nanmedian(0).values.grad_fn),
                lib.nanmedian(lib.tensor([])), tuple(lib.nanmedian(lib.empty(0, 3), 1)),
                tuple(lib.nanmedian(lib.tensor(2.0), 0)), lib.nanmean(lib.tensor([NAN]))]
    assert_same(run)


@pytest.mark.parametrize("fn", [
    lambda lib: lib.nanmean(lib.arange(3)),
    lambda lib: lib.nansum(lib.tensor([1j])),
    lambda lib: lib.nanmedian(lib.empty(0, 3), 0),
    lambda lib: lib.nanmedian(lib.ones(2, 3), 2),
    lambda lib: lib.nanmedian(lib.tensor(1.0), 1),
    lambda lib: lib.nanmedian(lib.tensor([True])),
])
def test_errors(fn):
    assert_same_error(fn, exact=True)


@pytest.mark.parametrize("name", ["median", "nanmedian"])
@pytest.mark.parametrize("shape, dim", [((2, 3), None), ((2, 3), 0), ((0, 3), 1), ((), 0)])
def test_medians_refuse_complex_tensors(name, shape, dim):
    # with a dim after the empty-dim check, without one unless the tensor is empty
    args = () if dim is None else (dim,)
    assert_same_error(lambda lib: getattr(lib, name)(lib.ones(shape, dtype=lib.complex64),
                                                     *args), NotImplementedError, exact=True)


@pytest.mark.parametrize("name", ["median", "nanmedian"])
def test_medians_of_empty_complex_tensors(name):
    assert_same(lambda lib: getattr(lib, name)(lib.ones(0, dtype=lib.complex128)).isnan())
    assert_same_error(lambda lib: getattr(lib, name)(lib.ones(0, dtype=lib.complex64), 0),
                      IndexError, exact=True)


def test_nanmean_of_all_nan_has_a_nan_gradient():
    """torch's nansum backward multiplies the gradient by the mask: the infinite gradient
    of an all-NaN nanmean's quotient makes NaN there, not 0 (fuzz seed 989003289)."""
    def run(lib):
        x = lib.tensor([[float("nan"), float("nan")], [float("nan"), 1.0]], requires_grad=True)
        return lib.autograd.grad(lib.nanmean(x, 1).sum(), x)[0]
    assert_same(run)


@pytest.mark.parametrize("name", ["median", "nanmedian"])
def test_median_of_an_empty_complex_tensor_that_requires_grad(name):
    """No kernel runs to refuse the dtype, so torch's autograd refuses the complex result
    (fuzz seed 993007156)."""
    assert_same_error(lambda lib: getattr(lib.ones(1, 0, dtype=lib.complex64,
                                                   requires_grad=True), name)(),
                      RuntimeError, exact=True)
