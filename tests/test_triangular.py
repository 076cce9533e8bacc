"""ag.tril/triu and the Tensor methods against torch's: values, gradients, double backward,
forward AD, the nodes' names (TrilBackward0, TriuBackward0), integer and boolean inputs, and
torch's error for fewer than two dims."""
import pytest

import autograd_cy as ag
from oracle import assert_same, assert_same_error, check_jvp, check_op, randn


@pytest.mark.parametrize("name", ["tril", "triu"])
@pytest.mark.parametrize("diagonal", [0, 1, -1, 5, -4])
@pytest.mark.parametrize("shape", [(3, 4), (2, 4, 3)])
def test_triangles(name, diagonal, shape):
    def fn(lib, x):
        out = getattr(lib, name)(x, diagonal)
        method = getattr(x, name)(diagonal=diagonal)
        assert out.grad_fn.name() == f"{name.capitalize()}Backward0"
        return out, method
    check_op(fn, randn(*shape))


@pytest.mark.parametrize("name", ["tril", "triu"])
def test_triangles_of_integers_and_booleans(name):
    assert_same(lambda lib: [getattr(lib.ones(3, 3, dtype=dtype), name)(1)
                             for dtype in (lib.int64, lib.bool)])


@pytest.mark.parametrize("name", ["tril", "triu"])
def test_triangles_gradcheck_and_forward_ad(name):
    x = ag.tensor(randn(3, 4), requires_grad=True)
    assert ag.autograd.gradcheck(lambda t: getattr(t, name)(1), [x], check_forward_ad=True)
    check_jvp(lambda lib, t: getattr(lib, name)(t, -1), randn(2, 3, 3))


@pytest.mark.parametrize("name", ["tril", "triu"])
def test_triangles_need_two_dims(name):
    assert_same_error(lambda lib: getattr(lib.ones(3), name)(),
                      f"^{name}: input tensor must have at least 2 dimensions$")
