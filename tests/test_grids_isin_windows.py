"""meshgrid (autograd_cy/grids.py), isin (membership.py) and the window functions
(signal_windows.py) against torch: values, shapes, dtypes, gradients and nodes of the
grids, the warning without ``indexing``, errors."""
import numpy as np
import pytest
import torch

import autograd_cy as ag
from oracle import (DEVICE, assert_same, assert_same_error, check_op, node_name, randn,
                    same_warning, no_warning)


@pytest.mark.parametrize("indexing", ["ij", "xy"])
def test_meshgrid_values_and_gradients(indexing):
    check_op(lambda lib, a, b: lib.meshgrid(a, b, indexing=indexing), randn(3), randn(2))
    check_op(lambda lib, a, b, c: lib.meshgrid([a, b, c], indexing=indexing), randn(3),
             randn(2), randn(4))
    check_op(lambda lib, a, b: lib.meshgrid((a, b), indexing=indexing), randn(3),
             np.array(1.5))
    check_op(lambda lib, a: lib.meshgrid(a, indexing=indexing), randn(3))
    for lib in (ag, torch):
        a = lib.tensor(randn(3), requires_grad=True)
        grids = lib.meshgrid(a, a, indexing=indexing)
        assert isinstance(grids, tuple)
        assert [node_name(g.grad_fn) for g in grids] == ["ExpandBackward0"] * 2


def test_meshgrid_warns_without_indexing():
    ours, theirs = same_warning(lambda lib: lib.meshgrid(lib.tensor([1, 2]), lib.tensor([3])),
                                UserWarning, "it will be required to pass the indexing argument")
    assert [tuple(g.shape) for g in ours] == [tuple(g.shape) for g in theirs] == [(2, 1)] * 2
    no_warning(lambda lib: lib.meshgrid(lib.tensor([1, 2]), indexing="ij"), "indexing")


@pytest.mark.parametrize("call", [
    lambda lib: lib.meshgrid(indexing="ij"),
    lambda lib: lib.meshgrid([], indexing="ij"),
    lambda lib: lib.meshgrid(lib.ones(2), lib.tensor([1, 2]), indexing="ij"),
    lambda lib: lib.meshgrid(lib.ones(2), lib.ones(2), indexing="foo"),
], ids=["nothing", "empty list", "dtypes", "indexing"])
def test_meshgrid_errors(call):
    assert_same_error(call, exact=True)


def test_meshgrid_needs_vectors():
    assert_same_error(lambda lib: lib.meshgrid(lib.ones(2, 2), lib.ones(2), indexing="ij"),
                      RuntimeError, "Expected 0D or 1D tensor in the tensor list but got")


# ------------------------------------------------------------------ isin

ELEMENTS = np.array([[1, 2, 5], [3, 4, 2]])


@pytest.mark.parametrize("test", [np.array([2, 3]), np.array([[2], [4]]), np.array([2.0, 3.5]),
                                  np.array([], dtype=np.int64), 2, 2.5])
@pytest.mark.parametrize("invert", [False, True])
def test_isin(test, invert):
    def run(lib):
        other = lib.tensor(test) if isinstance(test, np.ndarray) else test
        out = lib.isin(lib.tensor(ELEMENTS), other, invert=invert)
        return out, str(out.dtype)[-4:], out.requires_grad
    assert_same(run)


def test_isin_scalar_elements_floats_and_nan():
    assert_same(lambda lib: lib.isin(3, lib.tensor(ELEMENTS)))
    assert_same(lambda lib: lib.isin(lib.tensor([1.0, float("nan"), 2.0]),
                                     lib.tensor([float("nan"), 2.0])))
    assert_same(lambda lib: lib.isin(lib.tensor([1, 2, 3]), lib.tensor([3, 1]),
                                     assume_unique=True))
    assert_same(lambda lib: lib.isin(lib.tensor([16777217]), lib.tensor([16777216.0])))
    assert_same(lambda lib: lib.isin(lib.tensor([1.0, 2.0], requires_grad=True),
                                     lib.tensor([2.0])).requires_grad)


def test_isin_errors():
    assert_same_error(lambda lib: lib.isin(1, 2), TypeError, "isin")
    assert_same_error(lambda lib: lib.isin(lib.tensor([1, 2]), lib.tensor([True])),
                      exact=True)
    assert_same_error(lambda lib: lib.isin(lib.tensor([1j]), lib.tensor([1j])), exact=True)


# ------------------------------------------------------------------ windows

WINDOWS = ["hann_window", "hamming_window", "blackman_window", "bartlett_window",
           "kaiser_window"]


@pytest.mark.parametrize("name", WINDOWS)
@pytest.mark.parametrize("length", [0, 1, 2, 5, 8])
@pytest.mark.parametrize("periodic", [True, False])
def test_windows(name, length, periodic):
    def run(lib, **kwargs):
        out = getattr(lib, name)(length, periodic, **kwargs)
        return out, str(out.dtype)[-7:], out.requires_grad
    assert_same(run, atol=1e-6)
    assert_same(lambda lib: run(lib, dtype=lib.float64), atol=1e-12)
    assert_same(lambda lib: run(lib, dtype=lib.float64, requires_grad=True), atol=1e-12)
    half = [getattr(lib, name)(length, periodic, dtype=lib.float16) for lib in (ag, torch)]
    np.testing.assert_allclose(half[0].float().cpu().numpy(), half[1].float().numpy(), atol=2e-3)


def test_window_parameters_and_default_dtype():
    assert_same(lambda lib: lib.hamming_window(7, True, 0.5, 0.5), atol=1e-6)
    assert_same(lambda lib: lib.hamming_window(7, alpha=0.6, beta=0.3, periodic=False),
                atol=1e-6)
    assert_same(lambda lib: lib.kaiser_window(9, False, 5.0, dtype=lib.float64), atol=1e-12)
    assert_same(lambda lib: lib.kaiser_window(6, periodic=True, beta=0.5), atol=1e-6)
    previous = ag.get_default_dtype()
    ag.set_default_dtype(ag.float64)
    try:
        assert ag.hann_window(3).dtype == ag.float64
    finally:
        ag.set_default_dtype(previous)
    assert str(ag.hann_window(3, device=DEVICE).device).startswith(DEVICE)


@pytest.mark.parametrize("call", [
    lambda lib: lib.hamming_window(7, alpha=0.6), lambda lib: lib.hamming_window(7, True, beta=0.3),
    lambda lib: lib.kaiser_window(7, beta=3.0)])
def test_window_overloads_take_arguments_in_order(call):
    assert_same_error(call, TypeError, "received an invalid combination of arguments")


@pytest.mark.parametrize("name", WINDOWS)
def test_window_errors(name):
    assert_same_error(lambda lib: getattr(lib, name)(-1), exact=True)
    assert_same_error(lambda lib: getattr(lib, name)(4, dtype=lib.int64), RuntimeError,
                      f"{name} expects floating point dtypes")
    assert_same_error(lambda lib: getattr(lib, name)(4, dtype=lib.complex64), exact=True)
    assert_same_error(lambda lib: getattr(lib, name)(4.0), TypeError,
                      r"argument 'window_length' \(position 1\) must be int, not float")
