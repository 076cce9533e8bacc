"""diagonal_scatter, select_scatter, slice_scatter, masked_scatter
(autograd_cy/slice_scatters.py) against torch's: values, dtype casts of src, broadcast
masks, gradients to both operands, double backward, forward AD, and errors."""
import numpy as np
import pytest

from oracle import assert_same, assert_same_error, check_jvp, check_op, node_name, randn

MASK = np.array([True, False, True, False])
CASES = {
    "diagonal": (lambda lib, x, s: lib.diagonal_scatter(x, s[0, :3]), {}),
    "diagonal_offset": (lambda lib, x, s: x.diagonal_scatter(s[0, :3], 1), {}),
    "diagonal_negative_dims": (lambda lib, x, s: lib.diagonal_scatter(x, s[1, :3], -1, 1, 0),
                               {}),
    "select": (lambda lib, x, s: lib.select_scatter(x, s[0], 0, 1), {}),
    "select_last": (lambda lib, x, s: x.select_scatter(s[:, 0], 1, -1), {}),
    "slice": (lambda lib, x, s: lib.slice_scatter(x, s[:1], 0, 1, 2), {}),
    "slice_step": (lambda lib, x, s: x.slice_scatter(s[:, :2], 1, step=2), {}),
    "slice_all": (lambda lib, x, s: lib.slice_scatter(x, s), {}),
    "slice_negative": (lambda lib, x, s: lib.slice_scatter(x, s[:, :1], 1, -1), {}),
    "masked": (lambda lib, x, s: x.masked_scatter(lib.tensor(MASK), s), {}),
    "masked_torch": (lambda lib, x, s: lib.masked_scatter(x, lib.tensor(MASK[:, None] * 1 > 0)
                                                          .reshape(1, 4).t()[:3], s), {}),
    "masked_broadcast_input": (lambda lib, x, s: x[0].masked_scatter(
        lib.tensor([[True, True, False, False], [False, True, True, True]]), s), {}),
}


@pytest.mark.parametrize("name", CASES)
def test_values_and_gradients(name):
    fn, options = CASES[name]
    check_op(fn, randn(3, 4), randn(3, 4, seed=1), **options)


@pytest.mark.parametrize("name", CASES)
def test_forward_ad(name):
    check_jvp(CASES[name][0], randn(3, 4), randn(3, 4, seed=1))


@pytest.mark.parametrize("name", ["masked", "select", "slice_step", "diagonal_offset"])
@pytest.mark.parametrize("tangents", [(None, np.ones((3, 4))), (np.ones((3, 4)), None)])
def test_one_tangent(name, tangents):
    check_jvp(CASES[name][0], randn(3, 4), randn(3, 4, seed=1), tangents=list(tangents))


def test_nodes():
    def run(lib):
        x = lib.tensor(randn(3, 4), requires_grad=True)
        return [node_name(x.masked_scatter(lib.tensor(MASK), x * 2).grad_fn),
                node_name(lib.diagonal_scatter(x, x[0, :3]).grad_fn),
                node_name(lib.select_scatter(x, x[0], 0, 1).grad_fn),
                node_name(lib.slice_scatter(x, x[:1], 0, 2).grad_fn)]
    assert_same(run)


def test_src_dtypes():
    assert_same(lambda lib: [lib.diagonal_scatter(lib.zeros(3, 4), lib.arange(3)),
                             lib.select_scatter(lib.zeros(3, 4), lib.ones(4, dtype=lib.float64),
                                                0, 2),
                             lib.slice_scatter(lib.zeros(3, 4), lib.ones(3, 0), 1, 5, 9),
                             lib.masked_scatter(lib.zeros(2, 2, dtype=lib.int64),
                                                lib.tensor([True, False]), lib.arange(5))])


@pytest.mark.parametrize("fn", [
    lambda lib: lib.diagonal_scatter(lib.ones(3, 4), lib.ones(2)),
    lambda lib: lib.select_scatter(lib.ones(3, 4), lib.ones(3), 0, 1),
    lambda lib: lib.slice_scatter(lib.ones(3, 4), lib.ones(3, 2), 1),
    lambda lib: lib.ones(3, 4).masked_scatter(lib.tensor([1, 0, 1, 0]), lib.ones(3, 4)),
    lambda lib: lib.ones(3, 4).masked_scatter(lib.ones(3, 4, dtype=lib.bool), lib.ones(2, 4)),
    lambda lib: lib.ones(3, 4).masked_scatter(lib.tensor([True, False, True, False]),
                                              lib.ones(3, 4, dtype=lib.float64)),
])
def test_errors(fn):
    assert_same_error(fn, exact=True)


@pytest.mark.parametrize("fn", [
    lambda lib: lib.select_scatter(lib.ones(3, 4), lib.ones(4), 0, 5),
    lambda lib: lib.ones(3, 4).masked_scatter(lib.ones(2, 4, dtype=lib.bool), lib.ones(3, 4)),
])
def test_index_and_broadcast_errors(fn):
    assert_same_error(fn, r"out of range|must match the size")


@pytest.mark.parametrize("name", ["slice_scatter", "select_scatter"])
@pytest.mark.parametrize("which", [0, 1])
def test_complex_outputs_are_not_recorded(name, which):
    """torch's slice_scatter and select_scatter have no complex derivative: a complex
    result that would record is refused; under no_grad it is computed (fuzz seed
    963000622)."""
    def fn(lib):
        x = lib.tensor([1 + 2j, 0.5j], requires_grad=which == 0)
        src = lib.tensor([3 + 1j, 1.0 + 0j], requires_grad=which == 1)
        op = (lambda: lib.slice_scatter(x, src)) if name == "slice_scatter" else (
            lambda: lib.select_scatter(x, src[0], 0, 1))
        with lib.no_grad():
            op()
        return op()
    assert_same_error(fn, "does not support automatic differentiation for outputs with "
                          "complex dtype")


def test_complex_src_into_a_real_input_records():
    """The result has the input's dtype: a complex src written into a real input records
    (fuzz seed 964001264)."""
    import warnings

    def fn(lib):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")     # torch's: casting complex values to real
            src = lib.tensor([1 + 2j, 2j], dtype=lib.complex128, requires_grad=True)
            out = lib.slice_scatter(lib.tensor([0.25, 1.0, 2.0]), src, 0, 1)
            return out.dtype.is_complex, out.requires_grad, out
    assert_same(fn)
