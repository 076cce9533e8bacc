"""cumprod against torch: values (integer inputs in int64, half precision accumulated in
float32, the dtype argument), gradients with and without zeros in a row (NOTE [cumprod's
gradient with zeros]), double backward, forward AD, complex inputs, node, errors."""
import warnings

import numpy as np
import pytest
import torch

import autograd_cy as ag
from oracle import assert_same, assert_same_error, check_jvp, check_op, node_name, randn


def with_zeros(*shape, seed=0):
    x = randn(*shape, seed=seed)
    x.reshape(-1)[::3] = 0.0          # one or more zeros in most rows
    return x


@pytest.mark.parametrize("make", [randn, with_zeros], ids=["no zeros", "zeros"])
@pytest.mark.parametrize("shape, dim", [((5,), 0), ((3, 4), 1), ((3, 4), 0), ((2, 3, 4), -2),
                                        ((), 0)])
def test_cumprod_values_and_gradients(make, shape, dim):
    check_op(lambda lib, x: lib.cumprod(x, dim), np.asarray(make(*shape)))
    check_op(lambda lib, x: x.cumprod(dim) * 2, np.asarray(make(*shape, seed=1)))


def test_cumprod_forward_ad_complex_and_node():
    check_jvp(lambda lib, x: lib.cumprod(x, 1), randn(3, 4))
    check_jvp(lambda lib, x: lib.cumprod(x, 0), with_zeros(4, 2))
    z = randn(3, 4) + 1j * randn(3, 4, seed=2)
    z[1, 2] = 0
    check_op(lambda lib, x: lib.cumprod(x, 1), z)
    for lib in (ag, torch):
        x = lib.tensor(randn(3), requires_grad=True)
        assert node_name(lib.cumprod(x, 0).grad_fn) == "CumprodBackward0"


def test_cumprod_dtypes():
    for lib in (ag, torch):
        assert str(lib.cumprod(lib.tensor([1, 2, 3]), 0).dtype).endswith("int64")
        assert str(lib.cumprod(lib.tensor([True, True]), 0).dtype).endswith("int64")
    check_op(lambda lib, x: lib.cumprod(x, 0, dtype=lib.float64), randn(4).astype(np.float32))
    x = (1 + randn(64) / 10).astype(np.float16)
    ours = ag.cumprod(ag.tensor(x), 0).float().numpy()
    theirs = torch.cumprod(torch.tensor(x), 0).float().numpy()
    np.testing.assert_allclose(ours, theirs, rtol=1e-3)


def test_cumprod_errors():
    assert_same_error(lambda lib: lib.cumprod(lib.ones(2, 3), 2), IndexError,
                      "Dimension out of range")


def test_cumprod_saves_its_result():
    """torch's node saves the result: an in-place write on it (even of one element) makes
    the backward refuse (fuzzer seed 986000122)."""
    def write_then_backward(lib):
        x = lib.tensor([-0.875], requires_grad=True)
        y = x.cumprod(-1)
        y.clamp_(max=0.75)
        y.sum().backward()
    assert_same_error(write_then_backward, RuntimeError,
                      r"which is output 0 of Cumprod, is at version 1; expected version 0")


def test_cumprod_gradient_of_a_complex_input_converted_by_dtype():
    """torch's formula converts the gradient to self's dtype and divides by self: a complex
    input converted to a real dtype= gets a complex gradient (fuzz seed 989103698)."""
    def run(lib):
        x = lib.tensor([[1 + 0j, -3 - 1j], [2.5 + 3j, 2.875 + 1.125j]], dtype=lib.complex128,
                       requires_grad=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")     # the imaginary part discarded
            out = lib.cumprod(x, 1, dtype=lib.float32)
        out.backward(lib.tensor([[2.625, 2.375], [-2.75, -1.25]]))
        return x.grad.detach().cpu().numpy()
    np.testing.assert_allclose(run(ag), run(torch), rtol=1e-12)


def test_gradient_over_a_dim_of_one_element_is_the_incoming_gradient():
    """torch's formula returns the gradient itself there: under create_graph it does not
    require grad (fuzz seed 991004610)."""
    def run(lib):
        x = lib.tensor([[-2.5], [0.75]], requires_grad=True)
        grad, = lib.autograd.grad(x.cumprod(dim=1).sum(), x, create_graph=True)
        return grad, grad.requires_grad
    assert_same(run)
