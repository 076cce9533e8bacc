"""The metadata-only in-place ops ``unsqueeze_``, ``squeeze_``, ``t_``, ``swapdims_`` and
``swapaxes_`` against torch: shapes, values, the node each records, gradients through them
(on a non-leaf and on a view), and torch's errors."""
import numpy as np
import pytest
import torch

import autograd_cy as ag
from oracle import assert_close, assert_same_error, check_op, node_name

CASES = [
    ("unsqueeze_", lambda t: t.unsqueeze_(1), (2, 3), "UnsqueezeBackward1"),
    ("unsqueeze_ negative", lambda t: t.unsqueeze_(-1), (2, 3), "UnsqueezeBackward1"),
    ("squeeze_", lambda t: t.squeeze_(), (1, 3, 1), "SqueezeBackward3"),
    ("squeeze_ dim", lambda t: t.squeeze_(0), (1, 3, 1), "SqueezeBackward4"),
    ("squeeze_ dim of 3", lambda t: t.squeeze_(1), (1, 3, 1), "SqueezeBackward4"),
    ("squeeze_ dims", lambda t: t.squeeze_((0, 2)), (1, 3, 1), "SqueezeBackward5"),
    ("t_", lambda t: t.t_(), (2, 3), "TBackward1"),
    ("t_ vector", lambda t: t.t_(), (3,), "TBackward1"),
    ("swapdims_", lambda t: t.swapdims_(0, 2), (2, 3, 4), "TransposeBackward1"),
    ("swapaxes_", lambda t: t.swapaxes_(1, 0), (2, 3), "TransposeBackward1"),
]


@pytest.mark.parametrize("name, op, shape, node", CASES, ids=[c[0] for c in CASES])
def test_metadata_inplace_ops_as_torch(name, op, shape, node):
    x = np.arange(1.0, 1.0 + np.prod(shape)).reshape(shape)
    results = []
    for lib in (ag, torch):
        leaf = lib.tensor(x, requires_grad=True)
        y = leaf * 2
        out = op(y)
        assert out is y
        assert node_name(y.grad_fn) == node
        weights = lib.tensor(np.linspace(-1, 1, y.numel()).reshape(tuple(y.shape)))
        (y * weights).sum().backward()
        results.append((tuple(y.shape), y.stride(), y.detach(), leaf.grad, y._version))
    assert results[0][:2] == results[1][:2]
    assert results[0][4] == results[1][4]
    assert_close(results[0][2:4], results[1][2:4])


@pytest.mark.parametrize("name, op, shape, node", CASES, ids=[c[0] for c in CASES])
def test_metadata_inplace_ops_on_complex_tensors(name, op, shape, node):
    """Their nodes only move the gradient's elements, so they take complex ones (stft ends
    with ``transpose_`` and ``squeeze_`` on its complex result)."""
    x = np.arange(1.0, 1.0 + np.prod(shape)).reshape(shape)
    check_op(lambda lib, t: op(t * 2), x + 1j * x[::-1])


def test_metadata_inplace_ops_without_grad_and_on_views():
    for lib in (ag, torch):
        x = lib.zeros(2, 3)
        assert tuple(x.unsqueeze_(0).shape) == (1, 2, 3)
        assert tuple(x.squeeze_().t_().shape) == (3, 2)
    results = []
    for lib in (ag, torch):
        base = lib.tensor(np.arange(6.0).reshape(2, 3), requires_grad=True).clone()
        view = base[0]
        view.unsqueeze_(0)
        (view * lib.tensor([[1.0, 2.0, 3.0]])).sum().backward()
        results.append((tuple(view.shape), node_name(view.grad_fn)))
    assert results[0] == results[1]


def test_metadata_inplace_ops_errors():
    assert_same_error(lambda lib: lib.ones(2, 3, 4).t_(), RuntimeError, exact=True)
    assert_same_error(lambda lib: lib.ones(2, 3).unsqueeze_(5), IndexError,
                      "Dimension out of range")
    assert_same_error(lambda lib: lib.ones(2, 3, requires_grad=True).unsqueeze_(0),
                      RuntimeError, "a leaf Variable that requires grad is being used in an "
                      "in-place operation")


@pytest.mark.parametrize("name, op, shape, node", CASES, ids=[c[0] for c in CASES])
def test_metadata_inplace_ops_under_vmap(name, op, shape, node):
    """Each op on a batched tensor changes the logical shape as torch.vmap's does."""
    x = np.arange(1.0, 1.0 + 4 * np.prod(shape)).reshape((4,) + shape)
    results = []
    for lib in (ag, torch):
        results.append(lib.vmap(lambda t: op(t.clone()) * 1)(lib.tensor(x)))
    assert tuple(results[0].shape) == tuple(results[1].shape)
    assert_close(results[0], results[1])
