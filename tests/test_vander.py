"""torch.vander (autograd_cy/vandermonde.py) against torch's: values and dtypes (integer
and bool vectors give int64), N and increasing, the nodes (CopySlices, FlipBackward0, none
for one increasing column), and the errors.

torch's backward through vander raises once there are two columns or more: its
composition's ``cumprod`` saves a slice of the result, which the next ``copy_`` writes
(version 3, expected 2). Ours is the same composition and raises the same error; the
gradients are compared where torch gives them (N of 0 and 1)."""
import pytest

from oracle import assert_same, assert_same_error, check_op, node_name, randn


@pytest.mark.parametrize("N", [None, 2, 4])
@pytest.mark.parametrize("increasing", [False, True])
def test_values_and_torchs_backward_error(N, increasing):
    def run(lib):
        x = lib.tensor([0.5, -2.0, 3.0], requires_grad=True)
        z = lib.tensor([0.5 + 1j, -2.0], requires_grad=True)
        return [lib.vander(x, N, increasing), lib.vander(z, N=N, increasing=increasing)]
    assert_same(run)
    assert_same_error(lambda lib: run(lib)[0].sum().backward(), RuntimeError,
                      "modified by an inplace operation")


@pytest.mark.parametrize("N", [0, 1])
@pytest.mark.parametrize("increasing", [False, True])
def test_gradients_where_torch_gives_them(N, increasing):
    check_op(lambda lib, x: lib.vander(x, N, increasing), randn(3))


def test_dtypes_and_nodes():
    def run(lib):
        x = lib.tensor([1.0, -2.0], requires_grad=True)
        nodes = [node_name(lib.vander(x, n, inc).grad_fn) for n in (0, 1, 3)
                 for inc in (False, True)]
        return nodes + [lib.vander(lib.tensor([1, 2, 3])), lib.vander(lib.tensor([True, False])),
                        str(lib.vander(lib.tensor([1], dtype=lib.int8)).dtype).split(".")[-1],
                        str(lib.vander(lib.tensor([1.0], dtype=lib.float16)).dtype).split(".")[-1],
                        str(lib.vander(lib.tensor([True])).dtype).split(".")[-1]]
    assert_same(run)


@pytest.mark.parametrize("fn", [
    lambda lib: lib.vander(lib.tensor([[1.0]])),
    lambda lib: lib.vander(lib.tensor(2.0)),
    lambda lib: lib.vander(lib.tensor([1.0]), N=-1),
])
def test_errors(fn):
    assert_same_error(fn, RuntimeError, exact=True)
