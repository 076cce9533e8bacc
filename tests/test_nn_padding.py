"""F.pad against torch.nn.functional.pad: constant (with a value, negative amounts that crop),
reflect, replicate and circular over one to three dims, with values, gradients and double
backward (check_op), constant, reflect and replicate padding's nodes, circular padding's
whole graph (torch's slice copies), and torch's errors."""
import pytest
import torch

import autograd_cy as ag
from oracle import assert_close, assert_same_error, check_op, node_name, randn


def F(lib):
    return lib.nn.functional


CASES = {
    "constant_value": (lambda lib, x: F(lib).pad(x, (1, 2, 0, 1), value=0.5), (2, 3, 4)),
    "constant_crop": (lambda lib, x: F(lib).pad(x, (-1, 2, 1, -2)), (2, 4, 5)),
    "constant_crop_all": (lambda lib, x: F(lib).pad(x, (-3, 1)), (2, 3)),
    "constant_three_dims": (lambda lib, x: F(lib).pad(x, (1, 0, 0, 1, 2, 1)), (2, 2, 3)),
    "reflect_1d": (lambda lib, x: F(lib).pad(x, (2, 3), mode="reflect"), (2, 5)),
    "reflect_2d": (lambda lib, x: F(lib).pad(x, (1, 2, 2, 1), mode="reflect"), (1, 2, 3, 4)),
    "reflect_3d": (lambda lib, x: F(lib).pad(x, (1, 1, 0, 1, 1, 0), mode="reflect"),
                   (2, 2, 3, 3)),
    "reflect_crop": (lambda lib, x: F(lib).pad(x, (-1, 2), mode="reflect"), (1, 2, 5)),
    "replicate_2d": (lambda lib, x: F(lib).pad(x, (3, 0, 1, 2), mode="replicate"), (2, 2, 3)),
    "replicate_crop": (lambda lib, x: F(lib).pad(x, (2, -1), mode="replicate"), (1, 2, 4)),
    "circular_1d": (lambda lib, x: F(lib).pad(x, (2, 3), mode="circular"), (1, 2, 4)),
    "circular_2d": (lambda lib, x: F(lib).pad(x, (1, 1, 2, 0), mode="circular"), (1, 1, 3, 3)),
    "circular_crop": (lambda lib, x: F(lib).pad(x, (-1, 2), mode="circular"), (1, 1, 5)),
    "circular_3d": (lambda lib, x: F(lib).pad(x, (1, 2, 0, 1, 2, 1), mode="circular"),
                    (1, 2, 3, 3, 4)),
    "circular_unbatched_3d": (lambda lib, x: F(lib).pad(x, (1, -1, 2, 0, 0, 3),
                                                        mode="circular"), (2, 3, 3, 4)),
    "circular_whole_size": (lambda lib, x: F(lib).pad(x, (3, 3, 2, 2), mode="circular"),
                            (2, 2, 3)),
    "circular_zero": (lambda lib, x: F(lib).pad(x, (0, 0), mode="circular"), (2, 3)),
    "circular_crop_both": (lambda lib, x: F(lib).pad(x, (-1, -1, 1, -2), mode="circular"),
                           (1, 2, 4, 5)),
}


@pytest.mark.parametrize("name", CASES)
def test_values_gradients_and_double_backward(name):
    fn, shape = CASES[name]
    check_op(fn, randn(*shape))


def test_constant_padding_is_one_node():
    def run(lib):
        x = lib.ones(2, 3, requires_grad=True)
        padded = F(lib).pad(x, (1, -1))
        twice = lib.autograd.grad((padded * padded).sum(), x, create_graph=True)[0]
        return [padded.grad_fn.name(), F(lib).pad(x, (0, 0)).grad_fn.name(),
                twice.grad_fn.name()]
    assert run(ag) == run(torch)


@pytest.mark.parametrize("mode", ["reflect", "replicate"])
@pytest.mark.parametrize("shape, amounts", [((1, 2, 5), (2, 1)), ((1, 2, 5, 5), (2, 1, 1, 1)),
                                            ((1, 1, 4, 4, 4), (1, 1, 1, 2, 0, 1))])
def test_reflect_and_replicate_padding_are_torchs_nodes(mode, shape, amounts):
    def run(lib):
        x = lib.ones(*shape, requires_grad=True)
        return F(lib).pad(x, amounts, mode=mode).grad_fn.name()
    assert run(ag) == run(torch)


def _graph(node):
    """The graph below ``node`` as (name, children) tuples walked depth first; a node met
    again is ("seen", its order of first visit), so shared nodes compare too."""
    order = {}

    def walk(node):
        if node is None:
            return None
        if id(node) in order:
            return "seen", order[id(node)]
        order[id(node)] = len(order)
        return node_name(node), tuple((walk(child), nr) for child, nr in node.next_functions)

    return walk(node)


CIRCULAR = [((2, 3), (1, 2)), ((1, 2, 4), (2, 3)), ((2, 4), (0, 0)), ((1, 2, 5), (-1, 2)),
            ((2, 3, 3), (1, 1, 2, 0)), ((1, 2, 3, 4), (1, -1, 2, 0)),
            ((1, 1, 3, 3), (3, 3, 0, 3)), ((1, 2, 4, 5), (-1, -2, -1, 1)),
            ((2, 3, 3, 2), (1, 2, 0, 1, 2, 1)), ((1, 1, 2, 3, 4), (-1, 2, 2, 2, 1, 0)),
            ((1, 1, 3), (-3, 0)), ((1, 1, 3), (-2, 1)), ((1, 0, 3), (1, 1))]


@pytest.mark.parametrize("shape, amounts", CIRCULAR)
def test_circular_padding_is_torchs_graph(shape, amounts):
    def run(lib):
        x = lib.tensor(randn(*shape), requires_grad=True)
        y = F(lib).pad(x, amounts, mode="circular")
        weight = lib.tensor(randn(*y.shape, seed=1))
        grad, = lib.autograd.grad((y * weight).sum(), x, create_graph=True)
        return y, grad, _graph(y.grad_fn), _graph(grad.grad_fn)
    ours, theirs = run(ag), run(torch)
    assert ours[2:] == theirs[2:]
    assert_close(ours[:2], theirs[:2])


@pytest.mark.parametrize("shape, amounts", CIRCULAR[:10])
def test_circular_padding_forward_ad(shape, amounts):
    def run(lib):
        primal = lib.tensor(randn(*shape))
        tangent = lib.tensor(randn(*shape, seed=2))
        with lib.autograd.forward_ad.dual_level():
            dual = lib.autograd.forward_ad.make_dual(primal, tangent)
            out = F(lib).pad(dual, amounts, mode="circular")
            return lib.autograd.forward_ad.unpack_dual(out).tangent
    assert_close(run(ag), run(torch))


def _ones(lib, *shape):
    return lib.ones(*shape)


ERRORS = [
    lambda lib: F(lib).pad(_ones(lib, 2, 2), (1,)),
    lambda lib: F(lib).pad(_ones(lib, 2, 2), (1, 1, 1, 1, 1, 1)),
    lambda lib: F(lib).pad(_ones(lib, 2, 2), (-3, 0)),
    lambda lib: F(lib).pad(_ones(lib, 1, 2, 2), (2, 0), mode="reflect"),
    lambda lib: F(lib).pad(_ones(lib, 2), (1, 1), mode="reflect"),
    lambda lib: F(lib).pad(_ones(lib, 1, 2, 3, 3), (1, 1), mode="replicate"),
    lambda lib: F(lib).pad(_ones(lib, 2, 3, 3), (1, 1, 1, 1, 1, 1), mode="reflect"),
    lambda lib: F(lib).pad(_ones(lib, 3), (1, 1), mode="circular"),
    lambda lib: F(lib).pad(_ones(lib, 1, 1, 3), (4, 1), mode="circular"),
    lambda lib: F(lib).pad(_ones(lib, 1, 1, 3), (1, 4), mode="circular"),
    lambda lib: F(lib).pad(_ones(lib, 1, 1, 3), (-4, 0), mode="circular"),
    lambda lib: F(lib).pad(_ones(lib, 1, 3, 3), (4, 1, -5, 0), mode="circular"),
    lambda lib: F(lib).pad(_ones(lib, 1, 1, 3), (2, -2), mode="circular"),
    lambda lib: F(lib).pad(_ones(lib, 2, 3), (1, 1), mode="circular", value=2.0),
    lambda lib: F(lib).pad(_ones(lib, 1, 1, 3), (1, 1), mode="wrap"),
    lambda lib: F(lib).pad(_ones(lib, 1, 1, 3), (1, 1), mode="replicate", value=1.0),
    lambda lib: F(lib).pad(_ones(lib, 1, 0, 3), (1, 1), mode="replicate"),
    lambda lib: F(lib).pad(_ones(lib, 1, 2, 0), (1, 1), mode="reflect"),
]


@pytest.mark.parametrize("index", range(len(ERRORS)))
def test_errors(index):
    assert_same_error(ERRORS[index])
