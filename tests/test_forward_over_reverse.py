"""Forward-over-reverse: forward AD through a backward pass, with and without
``create_graph``.

Inside a dual level, ``autograd.grad`` runs the backward formulas on dual tensors, so the
gradient it returns carries a tangent: the Hessian-vector product ``H v`` of a scalar
function. PyTorch propagates tangents through every backward formula whether or not the
backward records a graph; so must every formula here, its fast paths (fused kernels, bare
array sums in the InputBuffer) included, since a dropped tangent is a silently wrong
``H v``. Each case is one op family inside a scalar function; torch is the oracle.
"""
import numpy as np
import pytest
import torch

import autograd_cy as ag
from oracle import assert_close, randn

MATRIX = randn(3, 3, seed=21)
TARGET = randn(3, seed=22)
LABELS = np.array([0, 2, 1])

SCALAR_FUNCTIONS = {
    "product": lambda lib, F, y: (y * y).sum(),
    "exp_plus": lambda lib, F, y: (y.exp() + y).sum(),
    "log": lambda lib, F, y: (y * y + 1.0).log().sum(),
    "sqrt_rsqrt": lambda lib, F, y: ((y * y + 1.0).sqrt() + (y * y + 2.0).rsqrt()).sum(),
    "reciprocal": lambda lib, F, y: (y * y + 1.0).reciprocal().sum(),
    "sin_cos": lambda lib, F, y: (y.sin() * y.cos()).sum(),
    "tanh": lambda lib, F, y: (y.tanh() * y).sum(),
    "sigmoid": lambda lib, F, y: (y.sigmoid() * y).sum(),
    "relu": lambda lib, F, y: (y.relu() * y).sum(),
    "abs": lambda lib, F, y: (y.abs() * y).sum(),
    "pow": lambda lib, F, y: (y ** 3).sum() + (y * y + 1.0).pow(1.5).sum(),
    "div": lambda lib, F, y: (y / (y * y + 1.0)).sum(),
    "clamp": lambda lib, F, y: (y.clamp(-0.5, 0.5) * y).sum(),
    "mean_var": lambda lib, F, y: (y * y).mean() + y.var() + y.std(),
    "norm": lambda lib, F, y: y.norm() * y.sum(),
    "max_amax": lambda lib, F, y: y.max() * y.sum() + (y * y).amax(),
    "logsumexp": lambda lib, F, y: y.logsumexp(0) * y.sum(),
    "prod": lambda lib, F, y: (y + 2.0).prod(),
    "matmul": lambda lib, F, y: ((lib.tensor(MATRIX) @ y).tanh() @ y),
    "outer_mm": lambda lib, F, y: (y.reshape(3, 1) @ y.reshape(1, 3)).tanh().sum(),
    "addmm": lambda lib, F, y: lib.addmm(y, y.reshape(1, 3), lib.tensor(MATRIX)).sin().sum(),
    "shape": lambda lib, F, y: (lib.cat([y, y * 2]).reshape(2, 3).t() ** 2).sum()
    + (lib.stack([y, y.exp()]).expand(2, 2, 3) * y).sum(),
    "indexing": lambda lib, F, y: (y[lib.tensor([0, 2, 2])] * y).sum() + (y[1:] ** 2).sum()
    + y.gather(0, lib.tensor([1, 1, 0])).pow(2).sum(),
    "where": lambda lib, F, y: lib.where(y > 0, y * y, y.exp()).sum(),
    "softmax": lambda lib, F, y: (F.softmax(y, 0) * y).sum() + (F.log_softmax(y, 0) ** 2).sum(),
    "activations": lambda lib, F, y: (F.gelu(y) * y + F.softplus(y) * y
                                      + F.leaky_relu(y, 0.1) * y).sum(),
    # (not mse_loss: torch 2.13 itself refuses it here, "ZeroTensors are immutable")
    "bce_with_logits": lambda lib, F, y: F.binary_cross_entropy_with_logits(
        y * y, lib.tensor(TARGET).sigmoid()),
    "cross_entropy": lambda lib, F, y: F.cross_entropy(
        lib.tensor(MATRIX) * y, lib.tensor(LABELS)),
}


def hessian_vector_product(lib, f, x, v, create_graph):
    """``H v`` of ``f`` at ``x`` as the tangent of the gradient of a dual input."""
    fw = lib.autograd.forward_ad
    x = lib.tensor(x, requires_grad=True)
    with fw.dual_level():
        dual = fw.make_dual(x, lib.tensor(v))
        (gradient,) = lib.autograd.grad(f(lib, lib.nn.functional, dual), dual,
                                        create_graph=create_graph)
        return fw.unpack_dual(gradient)


@pytest.mark.parametrize("create_graph", [False, True])
@pytest.mark.parametrize("name", sorted(SCALAR_FUNCTIONS))
def test_gradient_carries_the_hessian_vector_product(name, create_graph):
    f = SCALAR_FUNCTIONS[name]
    x, v = randn(3, seed=3), randn(3, seed=4)
    ours = hessian_vector_product(ag, f, x, v, create_graph)
    theirs = hessian_vector_product(torch, f, x, v, create_graph)
    assert_close(ours.primal, theirs.primal, 1e-7, 1e-9, "gradient")
    assert (ours.tangent is None) == (theirs.tangent is None), (
        f"tangent {ours.tangent} vs torch {theirs.tangent}")
    assert_close(ours.tangent, theirs.tangent, 1e-7, 1e-9, "Hessian-vector product")
