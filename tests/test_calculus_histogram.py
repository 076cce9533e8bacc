"""trapezoid, trapz, cumulative_trapezoid (autograd_cy/integration.py), gradient
(differences.py), chain_matmul (linalg/torch_forms.py), histogram (binning.py) and bilinear
(nn/bilinear.py) against torch: values, dtypes, gradients and double backward, nodes,
warnings, errors."""
import warnings

import numpy as np
import pytest
import torch

import autograd_cy as ag
from oracle import assert_same, assert_same_error, check_op, node_name, randn

Y = randn(3, 5)
X = np.array([0.0, 1.0, 3.0, 4.0, 7.0])


# ------------------------------------------------------------------ integration

@pytest.mark.parametrize("name", ["trapezoid", "trapz", "cumulative_trapezoid"])
def test_trapezoid_rules(name):
    check_op(lambda lib, y: getattr(lib, name)(y), Y)
    check_op(lambda lib, y: getattr(lib, name)(y, dx=0.5), Y)
    check_op(lambda lib, y: getattr(lib, name)(y, dim=0, dx=2), Y)
    check_op(lambda lib, y, x: getattr(lib, name)(y, x), Y, X)
    check_op(lambda lib, y, x: getattr(lib, name)(y, x, dim=0), Y, X[:3])
    check_op(lambda lib, y, x: getattr(lib, name)(y, x), Y, randn(3, 5, seed=4).cumsum(1))
    check_op(lambda lib, y, x: getattr(lib, name)(y, x), Y, randn(1, 5, seed=4))
    for y in ([1, 2, 3], [], [1.0], [[]]):
        assert_same(lambda lib: (getattr(lib, name)(lib.tensor(y)),
                                 str(getattr(lib, name)(lib.tensor(y)).dtype)[-7:]))
    assert_same(lambda lib: getattr(lib, name)(lib.tensor([1, 2, 4]), dx=2))
    assert_same(lambda lib: getattr(lib, name)(lib.tensor([1, 2, 4]), lib.tensor([1, 2, 5])))


def test_trapz_is_trapezoid_and_nodes():
    assert ag.trapz is ag.trapezoid
    for lib in (ag, torch):
        y = lib.tensor(Y, requires_grad=True)
        assert node_name(lib.cumulative_trapezoid(y).grad_fn) == "CumsumBackward0"


@pytest.mark.parametrize("name", ["trapezoid", "cumulative_trapezoid"])
def test_trapezoid_errors(name):
    assert_same_error(lambda lib: getattr(lib, name)(lib.ones(2, 3), lib.ones(2)), exact=True)
    assert_same_error(lambda lib: getattr(lib, name)(lib.ones(2, 3), dim=2), exact=True)
    assert_same_error(lambda lib: getattr(lib, name)(lib.ones(2, 3), lib.ones(3), dx=1),
                      TypeError, name)


def test_trapezoid_of_a_0d_tensor():
    assert_same_error(lambda lib: lib.trapezoid(lib.tensor(1.0)), exact=True)


# ------------------------------------------------------------------ gradient

F = randn(3, 5)


@pytest.mark.parametrize("edge_order", [1, 2])
def test_gradient_values_and_derivatives(edge_order):
    check_op(lambda lib, f: lib.gradient(f, edge_order=edge_order), F)
    check_op(lambda lib, f: lib.gradient(f, spacing=2.0, edge_order=edge_order), F)
    check_op(lambda lib, f: lib.gradient(f, spacing=[2.0, 0.5], edge_order=edge_order), F)
    check_op(lambda lib, f: lib.gradient(f, dim=1, edge_order=edge_order), F)
    check_op(lambda lib, f: lib.gradient(f, spacing=[3.0], dim=[-2], edge_order=edge_order), F)
    check_op(lambda lib, f, x: lib.gradient(f, spacing=(x,), dim=1, edge_order=edge_order),
             F, X, requires_grad=[True, False])
    check_op(lambda lib, f, a, b: lib.gradient(f, spacing=[a, b], edge_order=edge_order),
             F, np.array([0.0, 0.5, 2.0]), X, requires_grad=[True, False, False])
    check_op(lambda lib, f: lib.gradient(f, spacing=lib.tensor(2.0), edge_order=edge_order), F)


def test_gradient_dtypes_nodes_and_0d():
    assert_same(lambda lib: (lib.gradient(lib.tensor([1, 2, 4])),
                             str(lib.gradient(lib.tensor([1, 2, 4]))[0].dtype)[-7:]))
    assert_same(lambda lib: lib.gradient(lib.tensor(1.0)))
    for lib in (ag, torch):
        f = lib.tensor(F, requires_grad=True)
        assert [node_name(g.grad_fn) for g in lib.gradient(f)] == ["CatBackward0"] * 2


@pytest.mark.parametrize("call", [
    lambda lib: lib.gradient(lib.ones(2), edge_order=2),
    lambda lib: lib.gradient(lib.ones(1)),
    lambda lib: lib.gradient(lib.ones(3, 4), edge_order=3),
    lambda lib: lib.gradient(lib.ones(3, 4), spacing=[1.0, 2.0, 3.0]),
    lambda lib: lib.gradient(lib.ones(3, 4), spacing=[1.0, 2.0], dim=1),
    lambda lib: lib.gradient(lib.ones(3, 4), spacing=(lib.tensor(2.0), lib.tensor(1.0))),
    lambda lib: lib.gradient(lib.ones(3, 4), spacing=[lib.ones(2, 2), lib.ones(4)]),
    lambda lib: lib.gradient(lib.ones(3, 4), dim=2),
    lambda lib: lib.gradient(lib.ones(3, 4), dim=(1, 1)),
])
def test_gradient_errors(call):
    assert_same_error(call, exact=True)


# ------------------------------------------------------------------ chain_matmul

def test_chain_matmul():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_op(lambda lib, a, b, c: lib.chain_matmul(a, b, c), randn(2, 3), randn(3, 4),
                 randn(4, 2))
        check_op(lambda lib, a, b: lib.chain_matmul(a, b), randn(2, 3), randn(3, 4))
        check_op(lambda lib, a: lib.chain_matmul(a), randn(2, 3))
        for lib in (ag, torch):
            a = lib.tensor(randn(2, 2), requires_grad=True)
            single = lib.chain_matmul(a)
            assert single is not a and node_name(single.grad_fn) == "CloneBackward0"
        for call in [lambda lib: lib.chain_matmul(),
                     lambda lib: lib.chain_matmul(lib.ones(3)),
                     lambda lib: lib.chain_matmul(lib.ones(2, 3), lib.ones(2, 3)),
                     lambda lib: lib.chain_matmul(lib.ones(2, 3),
                                                  lib.ones(3, 4, dtype=lib.float64))]:
            assert_same_error(call, exact=True)


def test_chain_matmul_is_deprecated():
    # torch warns once per process (TORCH_WARN_ONCE): its words are compared, ours checked
    with pytest.warns(UserWarning) as caught:
        ag.chain_matmul(ag.ones(2, 2), ag.ones(2, 2))
    assert str(caught[0].message) == (
        "torch.chain_matmul is deprecated and will be removed in a future PyTorch release. Use "
        "torch.linalg.multi_dot instead, which accepts a list of two or more tensors rather "
        "than multiple parameters.")


# ------------------------------------------------------------------ histogram

VALUES = np.array([1.0, 2.0, 1.0, 4.0, 2.5, 3.0, 0.3, 3.9])


@pytest.mark.parametrize("bins, kwargs", [
    (3, {}), (4, {"range": (0.0, 5.0)}), (4, {"range": (0.0, 5.0), "density": True}),
    (2, {"range": (2.0, 2.0)}), (5, {"range": (1.5, 3.0)}), ([0.0, 1.5, 3.0, 6.0], {}),
    ([0.0, 1.5, 3.0, 6.0], {"density": True}), ([1.0, 2.0], {}), (3, {"weight": True}),
    ([0.0, 2.0, 4.0], {"weight": True, "density": True}),
])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_histogram(bins, kwargs, dtype):
    def run(lib):
        options = dict(kwargs)
        x = lib.tensor(VALUES, dtype=getattr(lib, dtype))
        if options.get("weight"):
            options["weight"] = lib.tensor(np.linspace(0.5, 2, VALUES.size),
                                           dtype=getattr(lib, dtype))
        edges = lib.tensor(bins, dtype=getattr(lib, dtype)) if isinstance(bins, list) else bins
        hist, bin_edges = lib.histogram(x, edges, **options)
        return hist, bin_edges, str(hist.dtype)[-7:], hist.requires_grad
    assert_same(run, rtol=1e-6)


def test_histogram_range_goes_with_a_count():
    assert_same_error(lambda lib: lib.histogram(lib.ones(3), lib.tensor([0.0, 2.0]),
                                                range=(0.0, 1.0)),
                      TypeError, "received an invalid combination of arguments")
    assert_same(lambda lib: tuple(lib.histogram(lib.tensor([1.0, 2.0, 3.0]), 2, range=(0, 4))))


def test_histogram_forms():
    assert_same(lambda lib: tuple(lib.histogram(lib.ones(0), 2)))
    assert_same(lambda lib: tuple(lib.histogram(lib.ones(3), 2)))
    assert_same(lambda lib: tuple(lib.histogram(lib.tensor([[1.0, 2.0], [3.0, 4.0]]), 2)))
    assert_same(lambda lib: tuple(lib.tensor(VALUES).histogram(2)))
    for lib in (ag, torch):
        result = lib.histogram(lib.tensor(VALUES), 2)
        assert type(result).__name__ == "histogram" and len(result) == 2
        assert result.hist is result[0] and result.bin_edges is result[1]


@pytest.mark.parametrize("call", [
    lambda lib: lib.histogram(lib.tensor([1, 2]), 2),
    lambda lib: lib.histogram(lib.ones(3), 0),
    lambda lib: lib.histogram(lib.ones(3), 2, range=(3.0, 1.0)),
    lambda lib: lib.histogram(lib.ones(6), 2, weight=lib.ones(2)),
    lambda lib: lib.histogram(lib.ones(3), lib.tensor([[1.0, 2.0]])),
    lambda lib: lib.histogram(lib.ones(3), 2, range=(0.0, float("inf"))),
    lambda lib: lib.histogram(lib.tensor([1.0, float("nan")]), 2),
    lambda lib: lib.histogram(lib.ones(3), lib.tensor([0.0, 2.0], dtype=lib.float64)),
    lambda lib: lib.histogram(lib.ones(3), 2, weight=lib.ones(3, dtype=lib.float64)),
])
def test_histogram_errors(call):
    assert_same_error(call, exact=True)


# ------------------------------------------------------------------ bilinear

def test_bilinear():
    assert ag.bilinear is ag.nn.functional.bilinear
    check_op(lambda lib, a, b, w: lib.bilinear(a, b, w), randn(2, 3), randn(2, 4),
             randn(5, 3, 4))
    check_op(lambda lib, a, b, w, c: lib.bilinear(a, b, w, c), randn(2, 2, 3), randn(2, 2, 4),
             randn(5, 3, 4), randn(5))
    check_op(lambda lib, a, b, w, c: lib.nn.functional.bilinear(a, b, w, c), randn(3),
             randn(4), randn(2, 3, 4), randn(2))
    for lib in (ag, torch):
        a, w = lib.tensor(randn(2, 3), requires_grad=True), lib.tensor(randn(5, 3, 3))
        assert node_name(lib.bilinear(a, a, w).grad_fn) == "ViewBackward0"
        bias = lib.ones(5, dtype=a.dtype)
        assert node_name(lib.bilinear(a, a, w, bias).grad_fn) == "AddBackward0"


@pytest.mark.parametrize("shapes", [((2, 3), (3, 4), (5, 3, 4), None),
                                    ((2, 3), (2, 3), (5, 3, 4), None),
                                    ((2, 4), (2, 4), (5, 3, 4), None),
                                    ((2, 3), (2, 4), (5, 3, 4), (4,)),
                                    ((2, 3), (2, 2, 4), (5, 3, 4), None)])
def test_bilinear_errors(shapes):
    assert_same_error(lambda lib: lib.bilinear(lib.ones(2, 3), lib.ones(2, 4), lib.ones(
        5, 3, 4), lib.ones(5, dtype=lib.float64)), exact=True)
    def call(lib):
        tensors = [None if s is None else lib.ones(*s) for s in shapes]
        return lib.bilinear(*tensors)
    assert_same_error(call, exact=True)
