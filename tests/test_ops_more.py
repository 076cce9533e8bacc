"""tile, repeat_interleave, outer/ger (autograd_cy/repetition.py), diag, diag_embed, diagflat
(diagonals.py), nan_to_num (finite_values.py), logaddexp, logaddexp2 (log_add_exp.py)
against torch's: values, gradients and double backward (check_op), gradcheck and
gradgradcheck in float64, forward AD, the nodes (as torch's, also under create_graph),
special values, integer inputs and torch's errors."""
import numpy as np
import pytest

import autograd_cy as ag
from oracle import assert_same, assert_same_error, check_jvp, check_op, node_name, randn

CASES = {
    "tile": (lambda lib, x: x.tile(2), (2, 3)),
    "tile_longer": (lambda lib, x: lib.tile(x, (2, 1, 3)), (2, 3)),
    "tile_shorter": (lambda lib, x: x.tile((2,)), (2, 3)),
    "repeat_interleave": (lambda lib, x: x.repeat_interleave(2), (2, 3)),
    "repeat_interleave_dim": (lambda lib, x: lib.repeat_interleave(x, 3, dim=1), (2, 3)),
    "repeat_interleave_negative_dim": (lambda lib, x: x.repeat_interleave(2, -2), (2, 3)),
    "repeat_interleave_counts": (
        lambda lib, x: x.repeat_interleave(lib.tensor([2, 0, 1]), dim=1), (2, 3)),
    "repeat_interleave_zero": (lambda lib, x: x.repeat_interleave(0, dim=0), (2, 3)),
    "outer": (lambda lib, x: lib.outer(x[0], x[1]), (2, 3)),
    "ger": (lambda lib, x: x[1].ger(x[0, :2]), (2, 3)),
    "diag_vector": (lambda lib, x: lib.diag(x[0]), (2, 3)),
    "diag_vector_offset": (lambda lib, x: x[1].diag(-2), (2, 3)),
    "diag_matrix": (lambda lib, x: lib.diag(x), (3, 4)),
    "diag_matrix_offset": (lambda lib, x: x.diag(2), (3, 4)),
    "diag_matrix_negative_offset": (lambda lib, x: x.diag(-1), (3, 4)),
    "diag_embed": (lambda lib, x: lib.diag_embed(x), (2, 3)),
    "diag_embed_dims": (lambda lib, x: x.diag_embed(1, 0, 2), (2, 3)),
    "diag_embed_negative": (lambda lib, x: lib.diag_embed(x, -1, -1, 0), (2, 3)),
    "diagflat": (lambda lib, x: lib.diagflat(x), (2, 3)),
    "diagflat_offset": (lambda lib, x: x.diagflat(-1), (2, 2)),
    "nan_to_num": (lambda lib, x: lib.nan_to_num(x), (2, 3)),
    "logaddexp": (lambda lib, x: lib.logaddexp(x[0], x[1]), (2, 3)),
    "logaddexp_broadcast": (lambda lib, x: x.logaddexp(x[:1, :1] * 3), (2, 3)),
    "logaddexp2": (lambda lib, x: lib.logaddexp2(x[0], x[1] * 2), (2, 3)),
}


@pytest.mark.parametrize("name", CASES)
def test_values_gradients_and_double_backward(name):
    fn, shape = CASES[name]
    check_op(fn, randn(*shape))


@pytest.mark.parametrize("name", CASES)
def test_forward_ad(name):
    fn, shape = CASES[name]
    check_jvp(fn, randn(*shape))


# (not repeat_interleave_zero: autograd_cy's gradgradcheck refuses the empty output's
# gradient, of stride 0, which torch's accepts; the other checks cover the empty case)
@pytest.mark.parametrize("name", [name for name in CASES if name != "repeat_interleave_zero"])
def test_gradcheck(name):
    fn, shape = CASES[name]
    x = ag.tensor(randn(*shape), requires_grad=True)
    assert ag.autograd.gradcheck(lambda t: fn(ag, t), [x], check_forward_ad=True)
    assert ag.autograd.gradgradcheck(lambda t: fn(ag, t), [x])


@pytest.mark.parametrize("name", CASES)
def test_nodes(name):
    fn, shape = CASES[name]

    def run(lib):
        x = lib.tensor(randn(*shape), requires_grad=True)
        y = fn(lib, x)
        grad, = lib.autograd.grad(y, x, lib.ones_like(y), create_graph=True)
        return [node_name(y.grad_fn), tuple(y.shape), y.is_contiguous(), grad.requires_grad]
    assert_same(run)


def test_nan_to_num_values_and_gradient():
    values = np.array([np.nan, -np.inf, np.inf, 1.5, -0.0])
    check_op(lambda lib, x: lib.nan_to_num(x, nan=2.0, posinf=7.0, neginf=-7.0), values)
    check_op(lambda lib, x: x.nan_to_num(), values, dtype=np.float32)
    assert_same(lambda lib: [lib.nan_to_num(lib.tensor(values, dtype=lib.float16)).float(),
                             lib.nan_to_num(lib.tensor(values, dtype=lib.float32), posinf=1e300),
                             lib.nan_to_num(lib.arange(3)), lib.tensor([True]).nan_to_num(),
                             lib.nan_to_num(lib.tensor(values, dtype=lib.bfloat16)).float()])


def test_resize_as_():
    def run(lib):
        x = lib.arange(6.0)
        y = lib.resize_as_(x, lib.ones(2, 3))
        x.resize_as_(lib.ones(4))
        return y is x, x.tolist()
    assert_same(run)
    assert_same_error(lambda lib: lib.zeros(2, requires_grad=True).resize_as_(lib.ones(3)),
                      RuntimeError, "cannot resize variables that require grad")


def test_logaddexp_special_values():
    a = np.array([0.0, 1000.0, -np.inf, np.inf, -np.inf, np.inf, np.nan, -1000.0, 2.0])
    b = np.array([0.0, 1000.0, -np.inf, np.inf, 3.0, -np.inf, 1.0, -1000.0, -30.0])
    for name in ("logaddexp", "logaddexp2"):
        assert_same(lambda lib: getattr(lib, name)(lib.tensor(a), lib.tensor(b)))
        check_op(lambda lib, x, y: getattr(lib, name)(x, y), a[-3:], b[-3:])


def test_integers_and_promotion():
    assert_same(lambda lib: [lib.arange(3).tile(2), lib.arange(3).repeat_interleave(2),
                             lib.outer(lib.arange(3), lib.arange(2)), lib.diag(lib.arange(3)),
                             lib.diag(lib.arange(9).view(3, 3), 1),
                             lib.diag_embed(lib.arange(4).view(2, 2)),
                             lib.outer(lib.arange(2), lib.tensor([0.5, 1.5])),
                             lib.logaddexp(lib.arange(2), lib.tensor([0.5, 1.5]))])


@pytest.mark.parametrize("fn", [
    lambda lib: lib.outer(lib.zeros(2, 2), lib.zeros(2)),
    lambda lib: lib.outer(lib.zeros(2), lib.zeros(())),
    lambda lib: lib.zeros(2).repeat_interleave(-1),
    lambda lib: lib.zeros(2).repeat_interleave(2, dim=1),
    lambda lib: lib.zeros(2, 3).repeat_interleave(lib.tensor([1, 2]), dim=1),
    lambda lib: lib.zeros(2, 2, 2).diag(),
    lambda lib: lib.diag_embed(lib.zeros(3), 0, 0, 0),
    lambda lib: lib.diag_embed(lib.zeros(3), 0, 0, 3),
    lambda lib: lib.logaddexp(lib.arange(2), lib.arange(2)),
    lambda lib: lib.zeros(2).tile((-1,)),
])
def test_errors(fn):
    assert_same_error(fn, exact=False)


@pytest.mark.parametrize("dim", [None, 0, -1])
def test_repeat_interleave_once_is_a_new_tensor(dim):
    """``repeat_interleave(1)`` copies (torch's clone): writing into it leaves the input as
    it was, also a leaf that requires grad (fuzz seed 953000408)."""
    def fn(lib):
        x = lib.tensor([[-0.875, 2.0]])
        y = x.repeat_interleave(1, dim=dim)
        y.square_()
        leaf = lib.tensor([-1.5, 0.5], requires_grad=True)
        z = leaf.repeat_interleave(1, dim=dim if dim is None else 0)
        z.neg_()
        z.sum().backward()
        return [x, y, z, leaf.grad]
    assert_same(fn)


def test_nan_to_num_of_a_complex_tensor_that_requires_grad():
    """torch refuses to record nan_to_num on a complex tensor, but records nan_to_num_."""
    assert_same_error(lambda lib: lib.nan_to_num(lib.ones(2, dtype=lib.complex64,
                                                          requires_grad=True)), exact=True)

    def run(lib):
        x = lib.tensor([1 + 1j, float("nan")], requires_grad=True)
        y = (x * 1).nan_to_num_()
        grad, = lib.autograd.grad(y.real.sum() + y.imag.sum(), x)
        return lib.view_as_real(y.detach()), y.grad_fn.name(), lib.view_as_real(grad)
    assert_same(run)


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_nan_to_num_of_complex_replaces_each_part(dtype):
    """torch's kernel replaces NaN and infinities in the real and imaginary parts on their
    own: inf + nan j is max + 0j, not 0 (fuzz seed 990503916)."""
    inf, nan = float("inf"), float("nan")
    values = [complex(inf, 0), complex(-inf, 1), complex(nan, inf), complex(1, -inf),
              complex(nan, nan)]

    def fn(lib):
        x = lib.tensor(values, dtype=getattr(lib, dtype))
        return (lib.nan_to_num(x).tolist(), lib.nan_to_num(x, 1.0, 2.0, -3.0).tolist(),
                lib.nan_to_num(x[2]).item())
    assert_same(fn)
