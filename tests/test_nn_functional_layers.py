"""The layer ops of nn.functional against torch.nn.functional: conv1d/conv2d, the poolings,
pad, layer_norm, batch_norm, group_norm, embedding, one_hot, scaled_dot_product_attention
and tril/triu: values, gradients and double backward (check_op), forward AD (check_jvp),
grad_fn names, gradcheck in float64, and torch's errors."""
import numpy as np
import pytest
import torch

import autograd_cy as ag
from oracle import assert_same_error, check_gradcheck, check_jvp, check_op, randn


def F(lib):
    return lib.nn.functional


CASES = {
    "conv2d": (lambda lib, x, w, b: F(lib).conv2d(x, w, b), (2, 3, 5, 6), (4, 3, 3, 2), (4,)),
    "conv2d_options": (lambda lib, x, w: F(lib).conv2d(x, w, None, stride=(2, 1), padding=1,
                                                        dilation=(1, 2), groups=3),
                       (1, 3, 6, 7), (6, 1, 3, 2)),
    "conv2d_same": (lambda lib, x, w: F(lib).conv2d(x, w, padding="same"), (2, 2, 5, 5),
                    (3, 2, 3, 3)),
    "conv2d_unbatched": (lambda lib, x, w: F(lib).conv2d(x, w, padding="valid"), (2, 5, 4),
                         (3, 2, 2, 2)),
    "conv1d": (lambda lib, x, w, b: F(lib).conv1d(x, w, b, stride=2, padding=1), (2, 3, 9),
               (4, 3, 3), (4,)),
    "max_pool2d": (lambda lib, x: F(lib).max_pool2d(x, 2), (2, 3, 6, 6)),
    "max_pool2d_options": (lambda lib, x: F(lib).max_pool2d(x, (3, 2), (2, 1), (1, 0),
                                                            ceil_mode=True), (1, 2, 7, 5)),
    "max_pool2d_dilated": (lambda lib, x: F(lib).max_pool2d(x, 2, 1, dilation=2), (1, 2, 5, 5)),
    "max_pool1d": (lambda lib, x: F(lib).max_pool1d(x, 3, 2, 1), (2, 3, 8)),
    "avg_pool2d": (lambda lib, x: F(lib).avg_pool2d(x, 3, 2, 1), (2, 2, 7, 6)),
    "avg_pool2d_options": (lambda lib, x: F(lib).avg_pool2d(x, 3, 2, 1, ceil_mode=True,
                                                            count_include_pad=False),
                           (1, 2, 6, 7)),
    "avg_pool2d_divisor": (lambda lib, x: F(lib).avg_pool2d(x, 2, divisor_override=3),
                           (1, 2, 4, 4)),
    "avg_pool1d": (lambda lib, x: F(lib).avg_pool1d(x, 2), (2, 3, 8)),
    "adaptive_avg_pool2d": (lambda lib, x: F(lib).adaptive_avg_pool2d(x, (2, 3)),
                            (1, 2, 5, 7)),
    "pad_constant": (lambda lib, x: F(lib).pad(x, (1, 2, -1, 1), value=0.5), (2, 3, 4)),
    "pad_reflect": (lambda lib, x: F(lib).pad(x, (2, 1), mode="reflect"), (2, 3, 4)),
    "pad_replicate": (lambda lib, x: F(lib).pad(x, (2, 1, 1, 0), mode="replicate"),
                      (1, 2, 3, 4)),
    "layer_norm": (lambda lib, x, w, b: F(lib).layer_norm(x, (5,), w, b), (3, 4, 5), (5,),
                   (5,)),
    "layer_norm_plain": (lambda lib, x: F(lib).layer_norm(x, (3, 4)), (2, 3, 4)),
    "batch_norm_training": (lambda lib, x, w, b: F(lib).batch_norm(
        x, None, None, w, b, training=True), (4, 3, 5), (3,), (3,)),
    "batch_norm_eval": (lambda lib, x, w, b: F(lib).batch_norm(
        x, lib.zeros(3, dtype=lib.float64) + 0.5, lib.ones(3, dtype=lib.float64) * 2, w, b),
                        (4, 3), (3,), (3,)),
    "group_norm": (lambda lib, x, w, b: F(lib).group_norm(x, 2, w, b), (2, 4, 3), (4,), (4,)),
    "embedding": (lambda lib, w: F(lib).embedding(lib.tensor([[1, 3], [3, 0]]), w,
                                                  padding_idx=0), (5, 3)),
    "embedding_counted": (lambda lib, w: F(lib).embedding(lib.tensor([[1, 3], [3, 0]]), w,
                                                          scale_grad_by_freq=True), (5, 3)),
    "embedding_plain": (lambda lib, w: F(lib).embedding(lib.tensor([[1, 3], [3, 0]]), w),
                        (5, 3)),
    "sdpa": (lambda lib, q, k, v: F(lib).scaled_dot_product_attention(q, k, v), (2, 4, 3),
             (2, 5, 3), (2, 5, 2)),
    "sdpa_causal": (lambda lib, q, k, v: F(lib).scaled_dot_product_attention(
        q, k, v, is_causal=True, scale=0.7), (2, 2, 4, 3), (2, 2, 4, 3), (2, 2, 4, 2)),
    "sdpa_masks": (lambda lib, q, k, v: F(lib).scaled_dot_product_attention(
        q, k, v, attn_mask=lib.tensor(np.tril(np.ones((4, 5), bool), 1))), (4, 3), (5, 3),
                   (5, 2)),
    "tril_triu": (lambda lib, x: lib.tril(x, -1) * 2 + x.triu(1), (2, 4, 5)),
}


@pytest.mark.parametrize("name", CASES)
def test_values_gradients_and_double_backward(name):
    fn, *shapes = CASES[name]
    arrays = [randn(*shape, seed=i) for i, shape in enumerate(shapes)]
    check_op(fn, *arrays)


JVP_CASES = ["conv2d", "conv1d", "max_pool2d", "avg_pool2d_options", "layer_norm",
             "embedding", "sdpa_causal"]


@pytest.mark.parametrize("name", JVP_CASES)
def test_forward_ad(name):
    fn, *shapes = CASES[name]
    check_jvp(fn, *[randn(*shape, seed=i) for i, shape in enumerate(shapes)])


@pytest.mark.cpu_only             # gradcheck's many small evaluations: once is enough
@pytest.mark.parametrize("name", ["conv2d_options", "max_pool2d_options", "avg_pool2d_options",
                                  "layer_norm", "batch_norm_training",
                                  "embedding_plain"])
def test_gradcheck_and_gradgradcheck(name):
    fn, *shapes = CASES[name]
    check_gradcheck(fn, *[randn(*shape, seed=i) for i, shape in enumerate(shapes)])


def test_grad_fn_names_and_indices():
    def run(lib):
        x = lib.tensor(randn(1, 2, 5, 5), requires_grad=True)
        w = lib.tensor(randn(3, 2, 2, 2), requires_grad=True)
        out, indices = F(lib).max_pool2d(x, 3, 2, 1, return_indices=True)
        names = [F(lib).conv2d(x, w).grad_fn.name(), out.grad_fn.name(),
                 F(lib).avg_pool2d(x, 2).grad_fn.name(),
                 F(lib).layer_norm(x, (5,)).grad_fn.name(),
                 F(lib).batch_norm(x, None, None, training=True).grad_fn.name(),
                 F(lib).embedding(lib.tensor([1]), w.reshape(3, 8)).grad_fn.name()]
        return names, indices.tolist(), str(indices.dtype).split(".")[-1]
    assert run(ag) == run(torch)


def test_batch_norm_running_statistics():
    def run(lib):
        mean, var = lib.zeros(3, dtype=lib.float64), lib.ones(3, dtype=lib.float64)
        for seed in range(3):
            x = lib.tensor(randn(5, 3, 2, seed=seed) * 3 + 1)
            F(lib).batch_norm(x, mean, var, training=True, momentum=0.2)
        return mean.tolist(), var.tolist()
    ours, theirs = run(ag), run(torch)
    np.testing.assert_allclose(ours, theirs, rtol=1e-12)


ERRORS = [
    (lambda lib: F(lib).conv2d(lib.ones(2, 5), lib.ones(2, 2, 1, 1)), "Expected 3D"),
    (lambda lib: F(lib).conv2d(lib.ones(1, 3, 5, 5), lib.ones(2, 2, 3, 3)), None),
    (lambda lib: F(lib).conv2d(lib.ones(1, 2, 2, 2), lib.ones(2, 2, 3, 3)), None),
    (lambda lib: F(lib).conv2d(lib.ones(1, 2, 5, 5), lib.ones(2, 2, 3, 3), stride=2,
                               padding="same"), "not supported for strided"),
    (lambda lib: F(lib).max_pool2d(lib.ones(1, 3, 5, 5), 3, padding=2), None),
    (lambda lib: F(lib).max_pool2d(lib.ones(1, 3, 2, 2), 3), None),
    (lambda lib: F(lib).max_pool2d(lib.ones(5, 5), 2), "3D or 4D"),
    (lambda lib: F(lib).pad(lib.ones(2, 2), (1,)), None),
    (lambda lib: F(lib).layer_norm(lib.ones(2, 3), (4,)), "normalized_shape"),
    (lambda lib: F(lib).batch_norm(lib.ones(1, 3), None, None, training=True),
     "Expected more than 1 value per channel when training"),
    (lambda lib: F(lib).embedding(lib.tensor([5]), lib.ones(5, 2)), None),
    (lambda lib: F(lib).embedding(lib.tensor([1.0]), lib.ones(5, 2)), "'indices'"),
    (lambda lib: F(lib).one_hot(lib.tensor([1.0])), None),
    (lambda lib: F(lib).one_hot(lib.tensor([3]), 2), None),
    (lambda lib: lib.tril(lib.ones(3)), None),
    (lambda lib: F(lib).scaled_dot_product_attention(
        lib.ones(2, 3), lib.ones(2, 3), lib.ones(2, 3),
        attn_mask=lib.ones(2, 2, dtype=lib.bool), is_causal=True), None),
]


@pytest.mark.parametrize("index", range(len(ERRORS)))
def test_errors(index):
    fn, words = ERRORS[index]
    if words is None:
        assert_same_error(fn)
    else:
        assert_same_error(fn, words)


def test_one_hot_values():
    def run(lib):
        return F(lib).one_hot(lib.tensor([[1, 3], [0, 2]])).tolist(), \
            F(lib).one_hot(lib.tensor([1]), 4).tolist()
    assert run(ag) == run(torch)


VMAP_CASES = {
    "conv2d_batched_examples": (lambda lib, x, w: F(lib).conv2d(x, w, padding=1), (0, None),
                                (3, 2, 2, 5, 5), (4, 2, 3, 3)),
    "conv2d_unbatched_examples": (lambda lib, x, w: F(lib).conv2d(x, w), (0, None),
                                  (3, 2, 5, 5), (4, 2, 3, 3)),
    "conv2d_batched_weight": (lambda lib, x, w: F(lib).conv2d(x, w), (None, 0), (2, 2, 5, 5),
                              (3, 4, 2, 3, 3)),
    "max_pool2d_indices": (lambda lib, x: F(lib).max_pool2d(x, 2, return_indices=True), 0,
                           (3, 2, 2, 4, 4)),
    "avg_pool1d": (lambda lib, x: F(lib).avg_pool1d(x, 2), 0, (3, 2, 6)),
    "layer_norm": (lambda lib, x: F(lib).layer_norm(x, (4,)), 0, (3, 2, 4)),
    "group_norm": (lambda lib, x: F(lib).group_norm(x, 2), 0, (3, 2, 4, 5)),
    "sdpa": (lambda lib, q, k, v: F(lib).scaled_dot_product_attention(q, k, v, is_causal=True),
             (0, 0, None), (3, 2, 4, 5), (3, 2, 4, 5), (4, 5)),
    "tril": (lambda lib, x: lib.tril(x, 1), 0, (3, 4, 5)),
}


@pytest.mark.parametrize("name", VMAP_CASES)
def test_vmap_batching_rules_against_torch(name):
    fn, in_dims, *shapes = VMAP_CASES[name]
    arrays = [randn(*shape, seed=i) for i, shape in enumerate(shapes)]

    def run(lib):
        result = lib.vmap(lambda *xs: fn(lib, *xs), in_dims=in_dims)(
            *[lib.tensor(a) for a in arrays])
        return result if isinstance(result, tuple) else (result,)
    for ours, theirs in zip(run(ag), run(torch)):
        np.testing.assert_allclose(ours.cpu().numpy(), theirs.numpy(), rtol=1e-7, atol=1e-9)


def test_per_example_gradients_of_a_convolution():
    def run(lib):
        weight = lib.tensor(randn(3, 2, 2, 2))
        images = lib.tensor(randn(4, 2, 5, 5, seed=1))

        def loss(w, image):
            return F(lib).max_pool2d(F(lib).conv2d(image.unsqueeze(0), w), 2).tanh().sum()
        return lib.func.vmap(lib.func.grad(loss), in_dims=(None, 0))(weight, images)
    np.testing.assert_allclose(run(ag).cpu().numpy(), run(torch).numpy(), rtol=1e-7, atol=1e-9)
