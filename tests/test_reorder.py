"""flip, fliplr, flipud, roll and rot90 (autograd_cy/reorder.py) against torch's: values,
gradients and double backward (check_op), gradcheck in float64 and forward AD, the nodes
(FlipBackward0, RollBackward0, Rot90Backward0, and again under create_graph), results that
are copies with torch's strides, every argument form, and torch's errors."""
import pytest

import autograd_cy as ag
from oracle import assert_same, assert_same_error, check_jvp, check_op, node_name, randn

CASES = {
    "flip_function": (lambda lib, x: lib.flip(x, (0, 2)), (2, 3, 4)),
    "flip_varargs": (lambda lib, x: x.flip(0, 1), (2, 3, 4)),
    "flip_list": (lambda lib, x: x.flip([0]), (2, 3)),
    "flip_keyword": (lambda lib, x: x.flip(dims=(-1,)), (2, 3)),
    "flip_negative": (lambda lib, x: lib.flip(x, [-1, -3]), (2, 3, 4)),
    "flip_none": (lambda lib, x: lib.flip(x, ()), (2, 3)),
    "flip_scalar": (lambda lib, x: x.flip(0), ()),
    "fliplr": (lambda lib, x: lib.fliplr(x), (2, 3, 2)),
    "flipud": (lambda lib, x: x.flipud(), (3, 2)),
    "roll_flat": (lambda lib, x: lib.roll(x, 2), (2, 3)),
    "roll_flat_negative": (lambda lib, x: x.roll(-7), (2, 3)),
    "roll_dim": (lambda lib, x: x.roll(1, 0), (3, 2)),
    "roll_dims": (lambda lib, x: lib.roll(x, (1, -2), (0, 2)), (2, 3, 4)),
    "roll_keywords": (lambda lib, x: x.roll(shifts=[5], dims=[-1]), (2, 3)),
    "roll_same_dim_twice": (lambda lib, x: x.roll((1, 1), (1, 1)), (2, 3)),
    "roll_scalar": (lambda lib, x: lib.roll(x, 3), ()),
    "rot90": (lambda lib, x: lib.rot90(x), (2, 3)),
    "rot90_twice": (lambda lib, x: x.rot90(2, (1, 2)), (2, 3, 4)),
    "rot90_thrice": (lambda lib, x: x.rot90(3), (2, 3, 4)),
    "rot90_negative": (lambda lib, x: lib.rot90(x, -1, [2, 0]), (2, 3, 4)),
    "rot90_none": (lambda lib, x: x.rot90(0), (2, 3)),
    "rot90_keywords": (lambda lib, x: x.rot90(k=5, dims=(-1, -2)), (2, 3, 4)),
}


@pytest.mark.parametrize("name", CASES)
def test_values_gradients_and_double_backward(name):
    fn, shape = CASES[name]
    check_op(fn, randn(*shape))


@pytest.mark.parametrize("name", CASES)
def test_forward_ad(name):
    fn, shape = CASES[name]
    check_jvp(fn, randn(*shape))


@pytest.mark.parametrize("name", ["flip_varargs", "roll_dims", "roll_flat", "rot90_thrice",
                                  "rot90_negative"])
def test_gradcheck(name):
    fn, shape = CASES[name]
    x = ag.tensor(randn(*shape), requires_grad=True)
    assert ag.autograd.gradcheck(lambda t: fn(ag, t), [x], check_forward_ad=True)
    assert ag.autograd.gradgradcheck(lambda t: fn(ag, t), [x])


@pytest.mark.parametrize("name", CASES)
def test_nodes_and_copies(name):
    """The node, and the gradient's node under create_graph; a new tensor (not a view, its
    own memory) with torch's shape and strides, also from a transposed input."""
    fn, shape = CASES[name]

    def run(lib):
        x = lib.tensor(randn(*shape), requires_grad=True)
        y = fn(lib, x)
        grad, = lib.autograd.grad(y, x, lib.ones_like(y), create_graph=True)
        transposed = lib.tensor(randn(*shape[::-1])).permute(tuple(range(len(shape)))[::-1])
        z = fn(lib, transposed)
        return [node_name(y.grad_fn), node_name(grad.grad_fn), y._base is None,
                y.data_ptr() != x.data_ptr(), tuple(y.stride()), tuple(z.stride()),
                z.is_contiguous()]
    assert_same(run)


def test_integers_and_booleans():
    assert_same(lambda lib: [lib.arange(6).view(2, 3).flip(1),
                             lib.tensor([True, False, False]).roll(1),
                             lib.arange(6).view(3, 2).rot90(),
                             lib.zeros(0, 3).roll(1, 0), lib.zeros(0, 3).flip(0)])


def _x(lib):
    return lib.ones(2, 3, 4)


ERRORS = [
    lambda lib: _x(lib).flip(3),
    lambda lib: _x(lib).flip(0, 0),
    lambda lib: _x(lib).flip(0, -3),
    lambda lib: _x(lib).flip(0, 1, 2, 0),
    lambda lib: _x(lib).flip(),
    lambda lib: lib.flip(_x(lib), 0),
    lambda lib: lib.flip(_x(lib), None),
    lambda lib: _x(lib).flip([0.0]),
    lambda lib: _x(lib).flip(0, 1.0),
    lambda lib: _x(lib).flip(0.0),
    lambda lib: _x(lib).flip(dims=0),
    lambda lib: lib.tensor(1.0).flip(1),
    lambda lib: lib.fliplr(lib.ones(3)),
    lambda lib: lib.flipud(lib.tensor(1.0)),
    lambda lib: _x(lib).roll(1, (0, 1)),
    lambda lib: _x(lib).roll((1, 2), 0),
    lambda lib: _x(lib).roll((1, 2)),
    lambda lib: _x(lib).roll(1, 3),
    lambda lib: _x(lib).roll(1, -4),
    lambda lib: _x(lib).roll((), ()),
    lambda lib: _x(lib).roll(()),
    lambda lib: _x(lib).roll(1.5),
    lambda lib: lib.roll(_x(lib), 1, 1.0),
    lambda lib: _x(lib).roll(1, (0, 1.0)),
    lambda lib: _x(lib).roll(None),
    lambda lib: _x(lib).roll(True),
    lambda lib: lib.tensor(1.0).roll(1, 0),
    lambda lib: _x(lib).rot90(1, (0,)),
    lambda lib: lib.rot90(_x(lib), 1, [0, 1, 2]),
    lambda lib: _x(lib).rot90(1, (0, 0)),
    lambda lib: _x(lib).rot90(1, (0, -3)),
    lambda lib: _x(lib).rot90(1, (0, 3)),
    lambda lib: lib.ones(2, 3).rot90(1, (-3, 0)),
    lambda lib: lib.ones(3).rot90(),
    lambda lib: lib.tensor(1.0).rot90(1, (0, 1)),
    lambda lib: _x(lib).rot90(1.0),
    lambda lib: lib.rot90(_x(lib), True),
    lambda lib: lib.rot90(_x(lib), 1, 0),
    lambda lib: lib.rot90(_x(lib), 1, (0.0, 1)),
]


@pytest.mark.parametrize("index", range(len(ERRORS)))
def test_errors(index):
    assert_same_error(ERRORS[index])


@pytest.mark.parametrize("name", ["flip_varargs", "roll_flat", "roll_dims", "rot90",
                                  "rot90_thrice", "rot90_none"])
def test_vmap(name):
    fn, shape = CASES[name]
    assert_same(lambda lib: lib.vmap(lambda t: fn(lib, t))(lib.tensor(randn(4, *shape))))
