"""Outputs of ops written as the library's own Functions are tensors of their own, as
torch's kernels return them: an in-place op may write them (a view leaving a Function is
refused as a custom Function's view), and the gradient afterwards is torch's, or torch's
refusal where its node saved the output (pairwise_distance's norm).
Found by the fuzzer (seeds 953000368, 953000686, 953000111)."""
import pytest

from oracle import assert_same, assert_same_error

OPS = {
    "take": lambda lib, x: lib.take(x, lib.tensor([[0, 4], [2, 2]])),
    "multi_margin_loss": lambda lib, x: lib.nn.functional.multi_margin_loss(
        x, lib.tensor([0, 2]), reduction="none"),
    "pairwise_distance_keepdim": lambda lib, x: lib.nn.functional.pairwise_distance(
        x, lib.ones(3), keepdim=True),
    "pairwise_distance": lambda lib, x: lib.nn.functional.pairwise_distance(x, lib.ones(3)),
}
SAVES_ITS_OUTPUT = ("pairwise_distance", "pairwise_distance_keepdim")


def _written(lib, name):
    x = lib.tensor([[1.0, 2.0, 3.0], [0.5, -1.0, 2.0]], requires_grad=True)
    y = OPS[name](lib, x)
    assert not y._is_view()
    y.mul_(2)
    y.sum().backward()
    return [y, x.grad]


@pytest.mark.parametrize("name", OPS)
def test_written_in_place(name):
    if name in SAVES_ITS_OUTPUT:
        assert_same_error(lambda lib: _written(lib, name), "modified by an inplace operation")
    else:
        assert_same(lambda lib: _written(lib, name))


@pytest.mark.parametrize("name", OPS)
def test_gradient_unchanged(name):
    def fn(lib):
        x = lib.tensor([[1.0, 2.0, 3.0], [0.5, -1.0, 2.0]], requires_grad=True)
        OPS[name](lib, x).sum().backward()
        return x.grad
    assert_same(fn)


@pytest.mark.parametrize("name", ["addmv", "addr", "baddbmm", "addbmm"])
def test_matrix_updates_are_written_in_place(name):
    """addmv's output was a view (of the addmm it is computed by), refused as a custom
    Function's view (fuzz seed 954002746); the other updates' are checked alike."""
    shapes = {"addmv": [(2,), (2, 3), (3,)], "addr": [(2, 3), (2,), (3,)],
              "baddbmm": [(2, 2, 2), (2, 2, 3), (2, 3, 2)], "addbmm": [(2, 2), (2, 2, 3),
                                                                      (2, 3, 2)]}[name]

    def fn(lib):
        operands = [lib.full(shape, 0.5 + k, requires_grad=True)
                    for k, shape in enumerate(shapes)]
        out = getattr(lib, name)(*operands)
        assert not out._is_view()
        out.sqrt_()
        out.sum().backward()
        return [out] + [x.grad for x in operands]
    assert_same(fn)
