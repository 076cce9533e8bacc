"""unique_consecutive (autograd_cy/uniqueness.py) against torch's: values, inverse,
counts, dims, NaN runs, empty inputs, the node and its refused backward."""
import pytest

from oracle import assert_same, assert_same_error, node_name

NAN = float("nan")


@pytest.mark.parametrize("fn", [
    lambda lib: lib.unique_consecutive(lib.tensor([1.0, 1, 2, 2, 3, 1, 1, NAN, NAN]),
                                       return_inverse=True, return_counts=True),
    lambda lib: lib.tensor([[1, 1], [1, 1], [2, 3], [1, 1]]).unique_consecutive(
        return_inverse=True),
    lambda lib: lib.unique_consecutive(lib.tensor([[1, 1], [1, 1], [2, 3], [1, 1]]), dim=0,
                                       return_inverse=True, return_counts=True),
    lambda lib: lib.unique_consecutive(lib.tensor([[1, 1], [1, 1], [2, 3], [1, 1]]), dim=-1,
                                       return_inverse=True, return_counts=True),
    lambda lib: lib.unique_consecutive(lib.tensor([[1, 1, 2], [1, 1, 2]]), dim=1,
                                       return_counts=True),
    lambda lib: lib.unique_consecutive(lib.tensor([True, True, False])),
    lambda lib: lib.unique_consecutive(lib.tensor([]), return_inverse=True,
                                       return_counts=True),
    lambda lib: lib.unique_consecutive(lib.empty(0, 2), dim=0, return_inverse=True,
                                       return_counts=True),
    lambda lib: lib.unique_consecutive(lib.tensor(3.0), return_inverse=True,
                                       return_counts=True),
])
def test_values(fn):
    assert_same(lambda lib: [str(t.dtype).split(".")[-1] for t in _tuple(fn(lib))] + [
        list(_tuple(fn(lib)))])


def _tuple(result):
    return result if isinstance(result, tuple) else (result,)


def test_node_and_backward_refused():
    def run(lib):
        x = lib.tensor([1.0, 1.0, 2.0], requires_grad=True)
        return [node_name(lib.unique_consecutive(x).grad_fn),
                node_name(lib.unique_consecutive(x.reshape(3, 1), dim=0).grad_fn)]
    assert_same(run)
    assert_same_error(lambda lib: lib.unique_consecutive(
        lib.tensor([1.0, 1.0, 2.0], requires_grad=True)).sum().backward(), exact=True)


def test_dim_out_of_range():
    assert_same_error(lambda lib: lib.unique_consecutive(lib.ones(2, 2), dim=2), exact=True)


@pytest.mark.parametrize("call", [
    lambda lib, x: lib.unique(x), lambda lib, x: lib.unique(x[:0], sorted=False),
    lambda lib, x: lib.unique(x, dim=0), lambda lib, x: lib.unique_consecutive(x),
    lambda lib, x: lib.unique_consecutive(x, dim=1),
    lambda lib, x: lib.unique_consecutive(x[0, :0], dim=0),
    lambda lib, x: lib.unique_consecutive(x[0], dim=-1)])
def test_complex_tensors_are_refused(call):
    # even an empty one; dim 0 of a 1-D tensor is torch's runs of entries, dim -1 is not
    assert_same_error(lambda lib: call(lib, lib.ones(2, 3, dtype=lib.complex64)),
                      NotImplementedError, exact=True)
