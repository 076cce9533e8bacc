"""torch.nuclear_norm and torch.frobenius_norm (autograd_cy/linalg/deprecated_norms.py)
against torch's: values, gradients and double backward, the nodes (SumBackward1,
NormBackward1), dims and keepdim, the errors, and the once-per-process warning."""
import warnings

import pytest

from autograd_cy import warn_always
from oracle import assert_same, assert_same_error, check_op, node_name, randn

pytestmark = pytest.mark.filterwarnings("ignore:at::")

CASES = {
    "nuclear": lambda lib, x: lib.nuclear_norm(x[0]),
    "nuclear_batched": lambda lib, x: lib.nuclear_norm(x),
    "nuclear_keepdim": lambda lib, x: lib.nuclear_norm(x[1], True),
    "nuclear_dim": lambda lib, x: lib.nuclear_norm(x, (0, 2)),
    "nuclear_dim_keepdim": lambda lib, x: lib.nuclear_norm(x, keepdim=True, dim=(2, 1)),
    "frobenius_two": lambda lib, x: lib.frobenius_norm(x, (0, 1)),
    "frobenius_one": lambda lib, x: lib.frobenius_norm(x, 2, True),
    "frobenius_all": lambda lib, x: lib.frobenius_norm(x, ()),
    "frobenius_all_keepdim": lambda lib, x: lib.frobenius_norm(x, [], keepdim=True),
}


@pytest.mark.parametrize("name", CASES)
def test_values_and_gradients(name):
    check_op(CASES[name], randn(2, 3, 4))
    check_op(CASES[name], randn(2, 3, 4) + 1j * randn(2, 3, 4, seed=1), double=False)


def test_nodes():
    def run(lib):
        x = lib.tensor(randn(3, 3), requires_grad=True)
        return [node_name(lib.nuclear_norm(x).grad_fn),
                node_name(lib.nuclear_norm(x, (0, 1)).grad_fn),
                node_name(lib.frobenius_norm(x, 1).grad_fn),
                node_name(lib.frobenius_norm(x, ()).grad_fn)]
    assert_same(run)


@pytest.mark.parametrize("fn", [
    lambda lib: lib.frobenius_norm(lib.zeros(2, 3, 4), (0, 1, 2)),
    lambda lib: lib.frobenius_norm(lib.ones(2, 2, dtype=lib.int64), (0, 1)),
    lambda lib: lib.nuclear_norm(lib.zeros(2, 3, 4), 1),
    lambda lib: lib.nuclear_norm(lib.zeros(3)),
    lambda lib: lib.nuclear_norm(lib.ones(2, 2, dtype=lib.int64)),
    lambda lib: lib.linalg.matrix_norm(lib.ones(2, 2, dtype=lib.int64)),
    lambda lib: lib.linalg.matrix_norm(lib.ones(2, 2, dtype=lib.int64), 1),
])
def test_errors(fn):
    assert_same_error(fn, RuntimeError, exact=True)


def test_dim_is_required_for_the_frobenius_norm():
    assert_same_error(lambda lib: lib.frobenius_norm(lib.zeros(2, 2)), TypeError,
                      "missing 1 required positional")


@pytest.mark.parametrize("call, message", [
    (lambda lib: lib.nuclear_norm(lib.ones(2, 2)), "nuclear_norm is deprecated"),
    (lambda lib: lib.frobenius_norm(lib.ones(2, 2), (0, 1)), "frobenius_norm is deprecated"),
])
def test_warns_once(call, message):
    import autograd_cy as ag
    warn_always._warned.clear()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        call(ag)
        call(ag)
    assert [message in str(w.message) for w in caught] == [True]
