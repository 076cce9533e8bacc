"""torch.histogramdd (autograd_cy/binning.py) against torch's: counts of equal bins (one
for all dims or one per dim, with and without range), tensors of edges (unsorted ones
included), weights, density, edges on bin boundaries, NaN and out-of-range points, batched
inputs, the result's structure, and the errors."""
import numpy as np
import pytest

from oracle import assert_same, assert_same_error

POINTS = [[0.0, 1.0], [1.0, 0.0], [2.0, 0.0], [2.0, 2.0], [0.5, 0.25], [3.0, 1.0]]


def _result(r):
    return [r.hist, list(r.bin_edges), type(r.bin_edges).__name__, type(r).__name__]


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("kwargs", [
    {"bins": 3}, {"bins": [3, 2]}, {"bins": (2, 4), "range": [0.0, 2.0, 0.0, 1.0]},
    {"bins": 2, "density": True}, {"bins": [3, 3], "weight": [1, 2, 4, 8, 16, 32]},
    {"bins": [3, 3], "weight": [1, 2, 4, 8, 16, 32], "density": True},
    {"bins": "edges"}, {"bins": "edges", "weight": [1, 2, 4, 8, 16, 32], "density": True},
    {"bins": "unsorted"},
])
def test_values(dtype, kwargs):
    def run(lib):
        kind = getattr(lib, dtype)
        options = dict(kwargs)
        if options["bins"] == "edges":
            options["bins"] = [lib.tensor([0.0, 1.0, 2.0], dtype=kind),
                               lib.tensor([0.0, 1.5, 2.0], dtype=kind)]
        elif options["bins"] == "unsorted":
            options["bins"] = [lib.tensor([2.0, 0.0], dtype=kind),
                               lib.tensor([0.0, 2.0, 1.0], dtype=kind)]
        if "weight" in options:
            options["weight"] = lib.tensor(options["weight"], dtype=kind)
        return _result(lib.histogramdd(lib.tensor(POINTS, dtype=kind), **options))
    assert_same(run)


def test_batched_points_and_edge_cases():
    def run(lib):
        x = lib.tensor(np.random.default_rng(0).normal(size=(2, 3, 3)))
        return [_result(lib.histogramdd(x, bins=[2, 1, 3], weight=lib.ones(2, 3,
                                                                        dtype=lib.float64))),
                _result(lib.histogramdd(lib.zeros(0, 2), bins=2)),
                _result(lib.histogramdd(lib.ones(3, 1), bins=2)),
                _result(lib.histogramdd(lib.tensor([[0.5, float("nan")], [0.5, 0.5]]), bins=2,
                                        range=[0.0, 1.0, 0.0, 1.0])),
                _result(lib.histogramdd(x.reshape(-1, 3), bins=[lib.tensor([0.0, 1.0],
                                                                           dtype=lib.float64)] * 3,
                                        range=[5.0, 6.0] * 3))]
    assert_same(run)


@pytest.mark.parametrize("fn, kind", [
    (lambda lib: lib.histogramdd(lib.zeros(4, 2), bins=[2, 3, 4]), RuntimeError),
    (lambda lib: lib.histogramdd(lib.zeros(4, 2), bins=2, range=[0.0, 1.0]), RuntimeError),
    (lambda lib: lib.histogramdd(lib.zeros(4, 2), bins=0), RuntimeError),
    (lambda lib: lib.histogramdd(lib.zeros(4, 2, dtype=lib.int64), bins=2),
     NotImplementedError),
    (lambda lib: lib.histogramdd(lib.zeros(4, 2), bins=2, range=[1.0, 0.0, 0.0, 1.0]),
     RuntimeError),
    (lambda lib: lib.histogramdd(lib.zeros(4, 2), bins=2, weight=lib.ones(3)), RuntimeError),
    (lambda lib: lib.histogramdd(lib.zeros(4, 2), bins=2,
                                 weight=lib.ones(4, dtype=lib.float64)), RuntimeError),
    (lambda lib: lib.histogramdd(lib.zeros(3), bins=2), RuntimeError),
    (lambda lib: lib.histogramdd(lib.tensor([[float("inf"), 1.0]]), bins=2), RuntimeError),
    (lambda lib: lib.histogramdd(lib.tensor([[float("nan"), 1.0]]), bins=2), RuntimeError),
    (lambda lib: lib.histogramdd(lib.zeros(4, 2), bins=(2, 2),
                                 range=(0.0, float("inf"), 0.0, 1.0)), RuntimeError),
    (lambda lib: lib.histogramdd(lib.zeros(4, 2), bins=[lib.tensor([0.0, 1.0])]),
     RuntimeError),
    (lambda lib: lib.histogramdd(lib.zeros(4, 2), bins=[lib.tensor([0.0, 1.0]),
                                                        lib.tensor([[0.0, 1.0]])]),
     RuntimeError),
    (lambda lib: lib.histogramdd(lib.zeros(4, 2), bins=[
        lib.tensor([0.0, 1.0]), lib.tensor([0.0, 1.0], dtype=lib.float64)]), RuntimeError),
    (lambda lib: lib.histogramdd(lib.zeros(4, 2), bins=[lib.tensor([0.0, 1.0]),
                                                        lib.tensor([0.0])]), RuntimeError),
])
def test_errors(fn, kind):
    assert_same_error(fn, kind, exact=True)
