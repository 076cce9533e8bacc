"""torch.as_strided_scatter (autograd_cy/slice_scatters.py) against torch's: values, the
node (AsStridedScatterBackward0), src's gradient, the refusal of a non-contiguous input
that requires grad, and input's gradient, checked numerically (gradcheck) because torch's
formula is wrong: it gives input the gradient inside the overwritten view."""
import numpy as np
import pytest

import autograd_cy as ag
from oracle import assert_same, assert_same_error, check_op, node_name, randn, to_numpy

CASES = [((3, 3), (2, 2), (1, 2), 0), ((3, 3), (2, 2), (1, 2), 1), ((3, 3), (2, 2), (2, 1), 0),
         ((16,), (2, 2, 2, 2), (8, 4, 2, 1), 0), ((16,), (2, 1, 1, 2), (1, 2, 4, 8), 3),
         ((1,), (), (), 0), ((4,), (2,), (1,), None)]


@pytest.mark.parametrize("shape, size, stride, offset", CASES)
def test_values_and_src_gradient(shape, size, stride, offset):
    check_op(lambda lib, x, s: lib.as_strided_scatter(x.detach(), s, size, stride, offset),
             randn(*shape), randn(*size, seed=1))


@pytest.mark.parametrize("shape, size, stride, offset", CASES)
def test_input_gradient_is_the_gradient_outside_the_view(shape, size, stride, offset):
    x = ag.tensor(randn(*shape), dtype=ag.float64, requires_grad=True)
    s = ag.tensor(randn(*size, seed=1), dtype=ag.float64, requires_grad=True)

    def fn(a, b):
        return ag.as_strided_scatter(a, b, size, stride, offset)
    assert ag.autograd.gradcheck(fn, (x, s))
    assert ag.autograd.gradgradcheck(fn, (x, s))
    # the gradient reaches input where the view did not overwrite it, and nowhere else
    grad = np.arange(1.0, 1.0 + x.numel()).reshape(shape)
    ours = to_numpy(ag.autograd.grad(fn(x, s), x, ag.tensor(grad))[0])
    mask = np.ones(x.numel())
    np.lib.stride_tricks.as_strided(mask[(offset or 0):], size,
                                    [n * 8 for n in stride], writeable=True)[...] = 0
    np.testing.assert_array_equal(ours, grad * mask.reshape(shape))


def test_node_and_the_contiguity_rule():
    def run(lib):
        x = lib.zeros(3, 3, requires_grad=True)
        return node_name(lib.as_strided_scatter(x * 1, lib.ones(2), (2,), (4,)).grad_fn)
    assert_same(run)
    assert_same(lambda lib: lib.as_strided_scatter(lib.arange(9.0).reshape(3, 3).t(),
                                                   lib.ones(2), (2,), (1,)))
    assert_same_error(lambda lib: lib.as_strided_scatter(
        lib.zeros(3, 3, requires_grad=True).t(), lib.ones(2), (2,), (1,)), RuntimeError,
        "only supported for contiguous inputs")
