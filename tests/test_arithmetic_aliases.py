"""multiply, divide, subtract (autograd_cy/arithmetic_aliases.py), torch's other names of
mul, div, sub, against torch's: values, gradients and double backward, node names, their
keywords (alpha, rounding_mode, out), errors and vmap."""
import numpy as np
import pytest
import torch

import autograd_cy as ag
from oracle import assert_same_error, check_op, node_name, randn

CASES = {
    "multiply": lambda lib, x, y: lib.multiply(x, y),
    "multiply_method": lambda lib, x, y: x.multiply(y[0]),
    "divide": lambda lib, x, y: lib.divide(x, y),
    "divide_floor": lambda lib, x, y: x.divide(y, rounding_mode="floor"),
    "divide_number": lambda lib, x, y: lib.divide(x, 4.0),
    "subtract": lambda lib, x, y: lib.subtract(x, y, alpha=2.5),
    "subtract_method": lambda lib, x, y: x.subtract(y),
}


@pytest.mark.parametrize("name", CASES)
def test_values_gradients_and_double_backward(name):
    check_op(CASES[name], randn(3, 4), randn(3, 4, seed=1, positive=True))


@pytest.mark.parametrize("name", CASES)
def test_node_name(name):
    names = [node_name(CASES[name](lib, lib.ones(2, requires_grad=True),
                                   lib.full((2,), 2.0, requires_grad=True)).grad_fn)
             for lib in (ag, torch)]
    assert names[0] == names[1]


@pytest.mark.parametrize("alias, original", [("multiply", "mul"), ("divide", "div"),
                                             ("subtract", "sub")])
def test_the_same_function(alias, original):
    assert getattr(ag, alias) is getattr(ag, original)
    assert getattr(ag.Tensor, alias) is getattr(ag.Tensor, original)
    assert hasattr(torch, alias) and hasattr(torch.Tensor, alias)


def test_out():
    results = []
    for lib in (ag, torch):
        out = lib.empty(3)
        lib.subtract(lib.tensor([1.0, 2.0, 3.0]), 1.0, alpha=2, out=out)
        results.append(out.tolist())
    assert results[0] == results[1] == [-1.0, 0.0, 1.0]


@pytest.mark.parametrize("source", [
    "lib.subtract(lib.tensor([True]), lib.tensor([False]))",
    "lib.divide(lib.ones(2), 2.0, rounding_mode='up')",
    "lib.multiply(lib.ones(2), lib.ones(3))",
])
def test_errors(source):
    assert_same_error(lambda lib: eval(source), exact=True)


def test_vmap():
    results = []
    for lib in (ag, torch):
        x, y = lib.tensor(randn(2, 3)), lib.tensor(randn(2, 3, seed=1))
        out = lib.vmap(lambda a, b: lib.divide(lib.subtract(a, b), lib.multiply(b, 2)))(x, y)
        results.append(out.cpu().numpy())
    np.testing.assert_allclose(results[0], results[1], rtol=1e-6)
