"""searchsorted, bucketize, bincount and histc (autograd_cy/binning.py) against torch's:
values and dtypes (no gradients: nothing is recorded), the row-wise search, sides, int32
outputs, weights, and errors."""
import pytest

from oracle import assert_same, assert_same_error


def test_searchsorted_and_bucketize():
    def run(lib):
        s = lib.tensor([1.0, 3.0, 5.0, 7.0])
        v = lib.tensor([[3.0, 6.0], [0.0, 9.0]])
        outs = [lib.searchsorted(s, v), lib.searchsorted(s, v, right=True),
                lib.searchsorted(s, v, side="right"),
                lib.searchsorted(lib.tensor([[1, 3], [2, 4]]), lib.tensor([[2], [5]])),
                lib.searchsorted(s, v, out_int32=True),
                lib.searchsorted(lib.tensor([5.0, 1.0, 3.0]), v,
                                 sorter=lib.tensor([1, 2, 0])),
                lib.bucketize(v, s), lib.bucketize(v, s, right=True, out_int32=True),
                lib.bucketize(lib.tensor([1, 2, 3]), lib.tensor([2]))]
        return [(o, str(o.dtype).split(".")[-1]) for o in outs] + [
            lib.searchsorted(s, lib.tensor([2.0], requires_grad=True)).requires_grad]
    assert_same(run)


def test_bincount_and_histc():
    def run(lib):
        outs = [lib.bincount(lib.tensor([0, 1, 1, 3])),
                lib.tensor([0, 1, 1]).bincount(weights=lib.tensor([0.5, 1.0, 2.0])),
                lib.bincount(lib.tensor([0, 1]), lib.tensor([0.5, 1.0], dtype=lib.float64)),
                lib.bincount(lib.tensor([1]), minlength=4),
                lib.bincount(lib.tensor([], dtype=lib.int64)),
                lib.histc(lib.tensor([1.0, 2.0, 1.0, 4.0]), bins=4, min=0, max=3),
                lib.tensor([1.0, 2.0, 1.0, 4.0]).histc(3),
                lib.histc(lib.tensor([2.0, 2.0]), bins=2),
                lib.histc(lib.tensor([1.0, 2.0], requires_grad=True), 2)]
        return [(o, str(o.dtype).split(".")[-1], o.requires_grad) for o in outs]
    assert_same(run)


@pytest.mark.parametrize("fn", [
    lambda lib: lib.bincount(lib.tensor([-1])),
    lambda lib: lib.bincount(lib.tensor([[1]])),
    lambda lib: lib.bincount(lib.tensor([1.0])),
    lambda lib: lib.histc(lib.tensor([1, 2]), 3),
    lambda lib: lib.histc(lib.tensor([1.0]), bins=0),
    lambda lib: lib.bucketize(lib.tensor([1.0]), lib.tensor([[1.0]])),
])
def test_errors(fn):
    assert_same_error(fn, exact=False)
