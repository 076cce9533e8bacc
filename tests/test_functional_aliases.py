"""The torch-level forms of nn.functional's ops (autograd_cy/functional_aliases.py) against
torch: the same objects where the signatures agree, ATen's argument orders, defaults and
results elsewhere (values, gradients, nodes, errors)."""
import numpy as np
import pytest
import torch

import autograd_cy as ag
from oracle import assert_same, assert_same_error, check_op, node_name, randn

SAME_OBJECTS = ["conv1d", "conv2d", "conv_transpose1d", "conv_transpose2d", "avg_pool1d",
                "adaptive_avg_pool1d", "pixel_shuffle", "pixel_unshuffle", "channel_shuffle",
                "rms_norm"]


@pytest.mark.parametrize("name", SAME_OBJECTS)
def test_same_signature_is_the_same_function(name):
    assert getattr(ag, name) is getattr(ag.nn.functional, name)


def test_convolutions():
    check_op(lambda lib, x, w, b: lib.conv1d(x, w, b, 1, 1), randn(2, 3, 7), randn(4, 3, 3),
             randn(4))
    check_op(lambda lib, x, w: lib.conv2d(x, w, None, 2, 1, 1, 1), randn(1, 2, 5, 5),
             randn(3, 2, 3, 3))
    check_op(lambda lib, x, w: lib.conv_transpose1d(x, w, None, 2, 1, 1), randn(1, 2, 4),
             randn(2, 3, 3))
    check_op(lambda lib, x, w: lib.conv_transpose2d(x, w, stride=2), randn(1, 2, 3, 3),
             randn(2, 3, 2, 2))


def test_pooling():
    x = randn(2, 3, 8)
    check_op(lambda lib, t: lib.max_pool1d(t, 3), x)
    check_op(lambda lib, t: lib.max_pool1d(t, 3, 2, 1, 1, True), x)
    check_op(lambda lib, t: lib.max_pool2d(t.unsqueeze(0), 2), x)
    check_op(lambda lib, t: lib.max_pool2d(t.unsqueeze(0), (2, 3), (1, 2), (1, 1)), x)
    check_op(lambda lib, t: lib.max_pool1d_with_indices(t, 2, 2), x)
    check_op(lambda lib, t: lib.adaptive_max_pool1d(t, 3), x)
    check_op(lambda lib, t: lib.avg_pool1d(t, 3, 2, 1, True, False), x)
    check_op(lambda lib, t: lib.adaptive_avg_pool1d(t, 5), x)
    for lib in (ag, torch):
        out, indices = lib.max_pool1d_with_indices(lib.tensor(x), 2)
        assert str(indices.dtype).endswith("int64")
        assert isinstance(lib.adaptive_max_pool1d(lib.tensor(x), 2), tuple)
    assert_same_error(lambda lib: lib.max_pool1d(lib.ones(1, 2, 4), 2, return_indices=True),
                      TypeError, "return_indices")


def test_normalization():
    x, w, b = randn(4, 3, 5), randn(3, seed=1), randn(3, seed=2)
    check_op(lambda lib, t, w, b: lib.batch_norm(t, w, b, None, None, True, 0.1, 1e-5, False),
             x, w, b)
    check_op(lambda lib, t, w, b: lib.instance_norm(t, w, b, None, None, True, 0.1, 1e-5,
                                                    False), x, w, b)
    check_op(lambda lib, t: lib.layer_norm(t, (5,)), x)
    check_op(lambda lib, t, w, b: lib.layer_norm(t, [3, 5], w.reshape(3, 1).expand(3, 5),
                                                 None, 1e-3, True), x, w, b)
    check_op(lambda lib, t: lib.group_norm(t, 3), x)
    check_op(lambda lib, t, w, b: lib.group_norm(t, 1, w, b, 1e-3), x, w, b)
    check_op(lambda lib, t: lib.rms_norm(t, [5]), x)

    def running(lib):
        mean, var = lib.zeros(3), lib.ones(3)
        xs = lib.tensor(x.astype(np.float32))
        out = lib.batch_norm(xs, None, None, mean, var, True, 0.3, 1e-5, True)
        evaluated = lib.batch_norm(xs, None, None, mean, var, False, 0.3, 1e-5,
                                   True)
        return out, evaluated, mean, var
    assert_same(running)
    assert_same_error(lambda lib: lib.batch_norm(lib.ones(2, 3)), TypeError, "missing")


def test_embedding():
    weight, indices = randn(5, 3), np.array([[0, 4, 2], [2, 2, 1]])
    check_op(lambda lib, w, i: lib.embedding(w, i), weight, indices)
    check_op(lambda lib, w, i: lib.embedding(w, i, 2), weight, indices)
    check_op(lambda lib, w, i: lib.embedding(w, i, -1, True), weight, indices)
    for lib in (ag, torch):
        w = lib.tensor(weight, requires_grad=True)
        assert node_name(lib.embedding(w, lib.tensor(indices)).grad_fn) == "EmbeddingBackward0"


@pytest.mark.cpu_only      # torch's CPU masks after the same seed; a CUDA generator differs
@pytest.mark.parametrize("name", ["dropout", "alpha_dropout", "feature_dropout",
                                  "feature_alpha_dropout"])
def test_dropouts(name):
    x = randn(4, 3, 5)

    def run(lib, inplace=False):
        lib.manual_seed(3)
        t = lib.tensor(x, requires_grad=True)
        fn = getattr(lib, name + "_" * inplace)
        out = fn(t if not inplace else t.clone(), 0.4, True)
        grad, = lib.autograd.grad(out.sum(), t)
        return out, grad, node_name(out.grad_fn), fn(t, 0.4, False) is t
    ours, theirs = assert_same(run)
    assert_same(lambda lib: run(lib, inplace=True))
    assert ours[2] in ("MulBackward0", "AddBackward0")
    y = ag.ones(3, 4)
    assert getattr(ag, name + "_")(y, 0.5, True) is y
    assert_same_error(lambda lib: getattr(lib, name)(lib.ones(3, 4), 1.5, True), RuntimeError,
                      "dropout probability has to be between 0 and 1, but got 1.5")
    assert_same_error(lambda lib: getattr(lib, name)(lib.ones(3, 4), 0.5), TypeError, "missing")


def test_feature_dropout_needs_two_dims():
    assert_same_error(lambda lib: lib.feature_dropout(lib.ones(3), 0.5, True), RuntimeError,
                      "Feature dropout requires at least 2 dimensions in the input")
    assert_same_error(lambda lib: lib.dropout(lib.arange(3), 0.5, True), RuntimeError,
                      "can't be cast to the desired output type Long")


def test_binary_cross_entropy_with_logits():
    x, y = randn(3, 4), np.random.default_rng(0).random((3, 4))
    check_op(lambda lib, a, t: lib.binary_cross_entropy_with_logits(a, t), x, y,
             requires_grad=[True, False])
    for reduction in (0, 1, 2):
        check_op(lambda lib, a, t, w, pw: lib.binary_cross_entropy_with_logits(
            a, t, w, pw, reduction), x, y, randn(4, seed=3), np.array([1.0, 2.0, 0.5, 3.0]),
            requires_grad=[True, False, False, False])
    assert_same_error(lambda lib: lib.binary_cross_entropy_with_logits(
        lib.ones(2), lib.ones(3)), RuntimeError, "must match the size")
    check_op(lambda lib, a, t: lib.binary_cross_entropy_with_logits(a, t, reduction=2),
             randn(3, 1), y, requires_grad=[True, False])

    assert_same_error(lambda lib: lib.binary_cross_entropy_with_logits(
        lib.ones(2), lib.ones(2), reduction="mean"), TypeError, "reduction")


def test_constant_pad_nd():
    check_op(lambda lib, t: lib.constant_pad_nd(t, [1, 2]), randn(2, 3))
    check_op(lambda lib, t: lib.constant_pad_nd(t, (1, 0, -1, 2), 2.5), randn(2, 3))
    assert_same_error(lambda lib: lib.constant_pad_nd(lib.ones(2, 3), [1, 2, 3]), exact=True)
    assert_same_error(lambda lib: lib.constant_pad_nd(lib.ones(2, 3), [1] * 6), exact=True)
