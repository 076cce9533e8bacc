"""Gradient accumulation into existing ``.grad`` of CUDA leaves (NOTE [Deferred gradient
accumulation] in pyx/accumulate_grad.pyx): one multi-tensor launch at the end of the
backward for every parameter, and whatever reads ``.grad`` before the end sees the sum, as
in torch (the oracle, on the CPU)."""
import numpy as np
import pytest
import torch

import autograd_cy as ag

ACCUMULATE = "foreach_apply<float, AddScaled>"
RNG = np.random.default_rng(0)
ARRAYS = [RNG.standard_normal(s).astype(np.float32) for s in [(5,), (6, 3), (3, 5)]]


def seam():
    return ag.cuda.devices.get(0).seam


def params(lib):
    device = "cuda" if lib is ag else "cpu"
    return [lib.tensor(a, device=device, requires_grad=True) for a in ARRAYS]


def loss(lib, ps):
    bias, mat1, mat2 = ps
    return lib.addmm(bias, mat1, mat2).relu().sum()


def close(got, want):
    np.testing.assert_allclose(got.detach().cpu().numpy(), want.detach().numpy(),
                               rtol=1e-5, atol=1e-6)


def test_accumulating_every_parameter_is_one_launch():
    ours, theirs = params(ag), params(torch)
    for _ in range(3):
        out = loss(ag, ours)
        seam().counters.reset()
        out.backward()
        loss(torch, theirs).backward()
    by_kernel = seam().counters.by_kernel
    # the backward's own launches, then the three additions in one
    assert by_kernel == {"fill<float>": 1, "threshold_backward<float>": 1, "gemm<float>": 2,
                         ACCUMULATE: 1}, by_kernel
    for mine, reference in zip(ours, theirs):
        close(mine.grad, reference.grad)


def test_grad_keeps_its_identity_and_version():
    ours, theirs = params(ag), params(torch)
    for lib, ps in ((ag, ours), (torch, theirs)):
        loss(lib, ps).backward()
    kept = [p.grad for p in ours]
    versions = [g._version for g in kept]
    loss(ag, ours).backward()
    loss(torch, theirs).backward()
    assert all(p.grad is g for p, g in zip(ours, kept))
    assert [g._version for g in kept] == [v + 1 for v in versions]
    for mine, reference in zip(ours, theirs):
        close(mine.grad, reference.grad)


def ordered_loss(lib, ps):
    """The leaves accumulate in a fixed order, mat1, mat2, bias (each ``* 1`` is a node
    that runs after the AccumulateGrad of mat1, the later one first), in torch and here."""
    bias, mat1, mat2 = ps
    return lib.addmm(bias * 1, mat1, mat2 * 1).relu().sum()


@pytest.mark.parametrize("hook_on", [0, 1, 2])
def test_hooks_read_accumulated_grads(hook_on):
    """A post-accumulate-grad hook sees its own sum, and reading another parameter's .grad
    from it sees every addition made so far: all as torch shows them."""
    seen = {}
    for lib in (ag, torch):
        ps = params(lib)
        ordered_loss(lib, ps).backward()

        def hook(p, lib=lib, ps=ps):
            seen[lib] = [q.grad.detach().cpu().clone() for q in ps]
        ps[hook_on].register_post_accumulate_grad_hook(hook)
        ordered_loss(lib, ps).backward()
    for mine, reference in zip(seen[ag], seen[torch]):
        close(mine, reference)


def test_a_tensor_hook_reading_grad_mid_backward():
    """A hook on a gradient inside the graph (on ``mat2 * 1``'s output, so it runs after
    mat1's accumulation) reads .grad: the deferred addition lands first."""
    seen = {}
    for lib in (ag, torch):
        ps = params(lib)
        loss(lib, ps).backward()
        bias, mat1, mat2 = ps
        middle = mat2 * 1
        middle.register_hook(lambda g, lib=lib, mat1=mat1: seen.__setitem__(
            lib, mat1.grad.detach().cpu().clone()))
        lib.addmm(bias, mat1, middle).relu().sum().backward()
    close(seen[ag], seen[torch])


def test_accumulate_grad_called_outside_a_backward_adds_at_once():
    (bias, _, _) = params(ag)
    bias.grad = ag.ones(5, device="cuda")
    node = (bias * 1).grad_fn.next_functions[0][0]
    assert type(node).__name__ == "AccumulateGrad"
    node(ag.ones(5, device="cuda"))
    np.testing.assert_array_equal(bias.grad.cpu().numpy(), np.full(5, 2, np.float32))


def failing(lib):
    """A custom Function whose backward raises."""
    class Fails(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 1

        @staticmethod
        def backward(ctx, g):
            raise RuntimeError("boom")
    return Fails


def test_a_failed_backward_still_lands_what_was_added():
    """The failing branch is recorded first, so it runs last: mat2's accumulation happens
    before the error, and .grad holds it afterwards, as in torch."""
    results = []
    for lib in (ag, torch):
        ps = params(lib)
        loss(lib, ps).backward()
        out = failing(lib).apply(ps[1]).sum() + loss(lib, ps)
        with pytest.raises(RuntimeError, match="boom"):
            out.backward()
        results.append([p.grad for p in ps])
    for mine, reference in zip(*results):
        close(mine, reference)
