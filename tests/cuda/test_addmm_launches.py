"""addmm on a CUDA device through cuda/gemm.cu (NOTE [GEMM epilogues]): the forward one
launch with its bias, the backward one launch per product with the bias's gradient summed in
mat2's launch; launches counted at the seam, values, gradients and graphs against torch."""
import numpy as np
import pytest
import torch

import autograd_cy as ag

RTOL = {"float16": 2e-2, "float32": 1e-5, "float64": 1e-10}


def seam():
    return ag.cuda.devices.get(0).seam


def both(arrays, dtype, wants):
    """The arrays as (ours on cuda, torch's on the CPU in float32 for float16)."""
    ours = [ag.tensor(a.astype(dtype), device="cuda", requires_grad=w)
            for a, w in zip(arrays, wants)]
    oracle_dtype = np.float32 if dtype == "float16" else dtype
    theirs = [torch.tensor(a.astype(dtype).astype(oracle_dtype), requires_grad=w)
              for a, w in zip(arrays, wants)]
    return ours, theirs


def close(got, want, dtype):
    np.testing.assert_allclose(got.detach().cpu().numpy().astype(np.float64),
                               want.detach().numpy().astype(np.float64),
                               rtol=RTOL[dtype], atol=RTOL[dtype])


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
@pytest.mark.parametrize("alpha,beta", [(1, 1), (-2.0, 0.5), (3, 0)])
def test_addmm_is_one_launch_and_its_backward_two(dtype, alpha, beta):
    rng = np.random.default_rng(0)
    arrays = [rng.standard_normal(5), rng.standard_normal((7, 3)), rng.standard_normal((3, 5))]
    (bias, mat1, mat2), theirs = both(arrays, dtype, (True, True, True))
    seam().counters.reset()
    out = ag.addmm(bias, mat1, mat2, alpha=alpha, beta=beta)
    assert seam().counters.launches == 1
    expected = torch.addmm(*theirs, alpha=alpha, beta=beta)
    assert type(out.grad_fn).__name__ == type(expected.grad_fn).__name__ == "AddmmBackward0"
    close(out, expected, dtype)
    grad = rng.standard_normal((7, 5))
    gradient = ag.tensor(grad.astype(dtype), device="cuda")
    seam().counters.reset()
    got = ag.autograd.grad(out, (bias, mat1, mat2), gradient)
    kernel = {"float16": "gemm<__half>", "float32": "gemm<float>",
              "float64": "gemm<double>"}[dtype]
    assert seam().counters.by_kernel == {kernel: 2}, seam().counters.by_kernel
    want = torch.autograd.grad(expected, theirs, torch.tensor(grad.astype(dtype)).to(
        expected.dtype))
    for g, w in zip(got, want):
        assert g.shape == w.shape
        close(g, w, dtype)


@pytest.mark.parametrize("bias_shape", [(5,), (1, 5), (7, 5), (7, 1), ()])
@pytest.mark.parametrize("wants", [(True, True, True), (True, False, True),
                                   (True, True, False), (False, True, True)])
def test_every_bias_shape_and_needed_gradient(bias_shape, wants):
    rng = np.random.default_rng(1)
    arrays = [rng.standard_normal(bias_shape), rng.standard_normal((7, 3)),
              rng.standard_normal((3, 5))]
    ours, theirs = both(arrays, "float32", wants)
    out = ag.addmm(*ours, alpha=2, beta=-1.5)
    expected = torch.addmm(*theirs, alpha=2, beta=-1.5)
    close(out, expected, "float32")
    grad = rng.standard_normal((7, 5))
    out.backward(ag.tensor(grad.astype(np.float32), device="cuda"))
    expected.backward(torch.tensor(grad, dtype=torch.float32))
    for mine, reference in zip(ours, theirs):
        assert (mine.grad is None) == (reference.grad is None)
        if reference.grad is not None:
            close(mine.grad, reference.grad, "float32")


def test_transposed_operands_need_no_copy():
    # mat1 and mat2 as transposed views: read through their strides, one launch
    rng = np.random.default_rng(2)
    arrays = [rng.standard_normal(4), rng.standard_normal((3, 6)), rng.standard_normal((4, 3))]
    (bias, m1, m2), (tb, tm1, tm2) = both(arrays, "float32", (False, False, False))
    seam().counters.reset()
    out = ag.addmm(bias, m1.t(), m2.t())
    assert seam().counters.launches == 1
    close(out, torch.addmm(tb, tm1.t(), tm2.t()), "float32")


def test_create_graph_takes_the_differentiable_formula():
    rng = np.random.default_rng(3)
    arrays = [rng.standard_normal(5), rng.standard_normal((4, 3)), rng.standard_normal((3, 5))]
    ours, theirs = both(arrays, "float64", (True, True, True))
    results = []
    for lib, inputs in ((ag, ours), (torch, theirs)):
        out = lib.addmm(*inputs, alpha=0.5, beta=2)
        grads = lib.autograd.grad((out * out).sum(), inputs, create_graph=True)
        second = lib.autograd.grad(sum(g.sum() for g in grads), inputs)
        results.append(grads + second)
    for mine, reference in zip(*results):
        close(mine, reference, "float64")


def test_beta_zero_ignores_nan_in_the_bias():
    nan = ag.full((2, 3), float("nan"), device="cuda")
    out = ag.addmm(nan, ag.ones(2, 4, device="cuda"), ag.ones(4, 3, device="cuda"), beta=0)
    expected = torch.addmm(torch.full((2, 3), float("nan")), torch.ones(2, 4),
                           torch.ones(4, 3), beta=0)
    close(out, expected, "float32")
