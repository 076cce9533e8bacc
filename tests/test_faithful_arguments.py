"""Argument parsing and single-op corners checked against torch 2.13: the parser's TypeErrors
for missing or ill-typed arguments (NOTE [Overloads and the argument parser] in
pyx/ops/arguments.pyx), and ops whose result on an edge value differed.

Each test runs the same code on autograd_cy and on torch and compares."""
import numpy as np
import pytest
import torch

import autograd_cy as ag
from oracle import assert_close, assert_same_error, check_op, to_numpy


def x2(lib):
    return lib.arange(6.0).reshape(2, 3)


# ------------------------------------------------------------ sizes: view, reshape, expand ...

@pytest.mark.parametrize("call, words", [
    (lambda x: x.expand(), r'^expand\(\) missing 1 required positional arguments: "size"$'),
    (lambda x: x.repeat(), r'^repeat\(\) missing 1 required positional arguments: "repeats"'),
    (lambda x: x.reshape(), r'^reshape\(\) missing 1 required positional arguments: "shape"'),
    (lambda x: x.permute(), r'^permute\(\) missing 1 required positional arguments: "dims"'),
    (lambda x: x.sum_to_size(), r'^sum_to_size\(\) missing 1 required positional arguments'),
    (lambda x: x.view(), r"^view\(\) received an invalid combination of arguments - got \(\),"),
    (lambda x: x.view(None), r"^view\(\) received an invalid combination of arguments - got "
                             r"\(NoneType\)"),
    (lambda x: x.expand(None), r"^expand\(\): argument 'size' \(position 1\) must be tuple of "
                               r"ints, not NoneType$"),
    (lambda x: x.repeat((2, 3.0)), r"^repeat\(\): argument 'repeats' failed to unpack the "
                                   r"object at pos 2"),
    (lambda x: x.reshape((2.0, 3)), r"must be tuple of ints, but found element of type float "
                                    r"at pos 0$"),
    (lambda x: x.expand((2, 3), 1), r"^expand\(\) takes 1 positional argument but 2 were "
                                    r"given$"),
    (lambda x: x.reshape(2, 3, shape=(6,)), r"got multiple values for argument 'shape'"),
])
@pytest.mark.parametrize("scalar", [False, True], ids=["2d", "0d"])
def test_size_arguments_are_parsed_as_torch(call, words, scalar):
    """A 0-d tensor used to accept ``x.expand()`` (no sizes is its shape); torch refuses it."""
    assert_same_error(lambda lib: call(lib.tensor(1.5) if scalar else x2(lib)), TypeError,
                      words)


@pytest.mark.parametrize("call", [
    lambda x: x.view(size=(3, 2)), lambda x: x.reshape(shape=(3, 2)),
    lambda x: x.expand(size=(2, 2, 3)), lambda x: x.expand(2, 2, 3, implicit=True),
    lambda x: x.repeat(repeats=(1, 2)), lambda x: x.permute(dims=(1, 0)),
    lambda x: x.sum_to_size(size=(1, 3)), lambda x: x.reshape(np.int64(3), 2),
])
def test_sizes_by_keyword(call):
    ours, theirs = call(x2(ag)), call(x2(torch))
    assert_close(ours, theirs)


# ------------------------------------------------------------ reductions: keepdim without dim

@pytest.mark.parametrize("call, words", [
    (lambda lib, x: x.sum(keepdim=True),
     r"^sum\(\) received an invalid combination of arguments - got \(keepdim=bool, \)"),
    (lambda lib, x: x.sum(keepdim=False), r"^sum\(\) received an invalid combination"),
    (lambda lib, x: lib.sum(x, keepdim=True), r"^sum\(\) received an invalid combination"),
    (lambda lib, x: x.mean(keepdim=True), r"^mean\(\) received an invalid combination"),
    (lambda lib, x: lib.mean(x, keepdim=True), r"^mean\(\) received an invalid combination"),
    (lambda lib, x: x.mean(dtype=lib.float64, keepdim=True),
     r'^mean\(\) missing 1 required positional arguments: "dim"$'),
    (lambda lib, x: x.prod(keepdim=True), r"^prod\(\) received an invalid combination"),
    (lambda lib, x: lib.prod(x, keepdim=True), r"^prod\(\) received an invalid combination"),
    (lambda lib, x: x.prod(None), r"^prod\(\) received an invalid combination of arguments - "
                                  r"got \(NoneType\)"),
    (lambda lib, x: x.prod((0, 1)), r"^prod\(\) received an invalid combination"),
    (lambda lib, x: x.max(keepdim=True), r"^max\(\) received an invalid combination"),
    (lambda lib, x: lib.min(x, keepdim=True), r"^min\(\) received an invalid combination"),
    (lambda lib, x: x.max(None, keepdim=True), r"^max\(\): argument 'dim' .*must be int, not "
                                               r"NoneType$"),
    (lambda lib, x: x.median(keepdim=True), r'^median\(\) missing 1 required positional '
                                            r'arguments: "dim"$'),
    (lambda lib, x: x.median(None), r"^median\(\): argument 'dim' \(position 1\) must be int"),
    (lambda lib, x: x.var(unbiased=False, keepdim=True),
     r"^var\(\) received an invalid combination of arguments - got \("),
    (lambda lib, x: x.std(False, keepdim=True), r"^std\(\) received an invalid combination"),
    (lambda lib, x: x.var(True, True), r"^var\(\) received an invalid combination"),
    (lambda lib, x: x.var(0, unbiased=False, correction=1),
     r"^var\(\) received an invalid combination"),
    (lambda lib, x: lib.var_mean(x, unbiased=False, keepdim=True),
     r"^var_mean\(\) received an invalid combination"),
    (lambda lib, x: x.logsumexp(), r'^logsumexp\(\) missing 1 required positional arguments: '
                                   r'"dim"$'),
    (lambda lib, x: x.logsumexp(keepdim=True), r'missing 1 required positional arguments'),
    (lambda lib, x: x.logsumexp(dim=None), r"^logsumexp\(\): argument 'dim' must be tuple of "
                                           r"ints, not NoneType$"),
    (lambda lib, x: x.squeeze(None), r"^squeeze\(\) received an invalid combination"),
])
def test_reduction_arguments_are_parsed_as_torch(call, words):
    """keepdim belongs to the overload whose dim is required: without dim, torch refuses it."""
    assert_same_error(lambda lib: call(lib, x2(lib)), TypeError, words)


def test_logsumexp_of_no_dims_without_keepdim_fails_as_in_torch():
    assert_same_error(lambda lib: x2(lib).logsumexp(()), RuntimeError,
                      r"^output with shape \[\] doesn't match the broadcast shape \[1, 1\]$")


@pytest.mark.parametrize("call", [
    lambda lib, x: x.sum(None, True), lambda lib, x: x.sum(dim=None, keepdim=True),
    lambda lib, x: x.mean(dim=None, keepdim=True), lambda lib, x: x.sum(dim=None),
    lambda lib, x: x.amax(keepdim=True), lambda lib, x: x.std(keepdim=True),
    lambda lib, x: x.var(correction=0, keepdim=True), lambda lib, x: x.var(False),
    lambda lib, x: x.var(0, False), lambda lib, x: x.std(unbiased=False),
    lambda lib, x: x.var(0, True, True), lambda lib, x: x.prod(0, True),
    lambda lib, x: x.max(dim=1, keepdim=True)[0], lambda lib, x: x.median(0, True)[0],
    lambda lib, x: x.norm(keepdim=True), lambda lib, x: x.any(keepdim=True),
    lambda lib, x: x.logsumexp((), True), lambda lib, x: x.squeeze(()),
    lambda lib, x: x.sum(dtype=lib.float64),
])
def test_reductions_that_torch_accepts(call):
    ours = call(ag, x2(ag).requires_grad_())
    theirs = call(torch, x2(torch).requires_grad_())
    assert_close(ours, theirs)
    assert type(ours.grad_fn).__name__ == type(theirs.grad_fn).__name__


def test_sum_with_an_explicit_none_dim_records_the_dim_overload():
    """``x.sum(dim=None)`` runs sum.dim_IntList: SumBackward1, as torch records."""
    for lib in (ag, torch):
        x = x2(lib).requires_grad_()
        assert type(x.sum().grad_fn).__name__ == "SumBackward0"
        assert type(x.sum(dim=None).grad_fn).__name__ == "SumBackward1"
        assert type(x.mean(dim=None).grad_fn).__name__ == "MeanBackward1"


# ------------------------------------------------------------ norm of an empty tensor

@pytest.mark.parametrize("shape", [(0,), (2, 0), (0, 3)])
@pytest.mark.parametrize("p", [float("inf"), -float("inf"), -1, -0.5, 0, 1, 2, 3])
@pytest.mark.parametrize("dim", [None, 0, -1, (0,), ()])
def test_norm_of_an_empty_tensor(shape, p, dim):
    """inf and negative p have no identity: refused over an empty reduced dim, naming it."""
    def run(lib):
        return lib.zeros(shape).norm(p=p, dim=dim)
    try:
        theirs = run(torch)
    except RuntimeError as error:
        assert_same_error(run, RuntimeError, "^" + __import__("re").escape(str(error)) + "$")
        return
    assert_close(run(ag), theirs)


# ------------------------------------------------------------ losses and linear

def test_linear_of_an_empty_feature_dim():
    """(rows, 0) @ (0, n): the batch dims are folded without inferring a -1."""
    def run(lib):
        x = lib.zeros((2, 3, 0), requires_grad=True)
        w = lib.zeros((4, 0), requires_grad=True)
        y = lib.nn.functional.linear(x, w, lib.ones(4))
        y.sum().backward()
        return y, x.grad, w.grad
    for ours, theirs in zip(run(ag), run(torch)):
        assert_close(ours, theirs)


@pytest.mark.parametrize("x, t, culprit", [
    ([0.5, float("nan")], [0.5, 0.5], "input"),
    ([0.5, 0.5], [0.5, float("nan")], "target"),
    ([0.5, 2.0], [3.0, 0.5], "target"),
    ([2.0, 0.5], [0.5, 3.0], "input"),
])
def test_binary_cross_entropy_refuses_nan_and_names_the_first_bad_element(x, t, culprit):
    # CPU: torch's CPU kernel names the culprit; on CUDA it is a device-side assert
    # (tests/cuda cover that), so these tensors stay on the CPU whatever the test device.
    assert_same_error(
        lambda lib: lib.nn.functional.binary_cross_entropy(lib.tensor(x, device="cpu"),
                                                           lib.tensor(t, device="cpu")),
        RuntimeError, f"^all elements of {culprit} should be between 0 and 1$")


# ------------------------------------------------------------ gelu's negative tail

@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_gelu_is_exactly_zero_far_into_the_negative_tail(dtype):
    """PyTorch's x Phi(x) with Phi from erf: 0 (or -0.0) where erf rounds to -1, so
    ``gelu(x) ** gelu(x)`` is 1 there, not nan (NOTE [gelu's negative tail])."""
    values = np.array([-12.0, -10.0, -8.5, -6.0, -5.5, -3.0, -0.5, 0.0, 2.0], dtype=dtype)
    # CPU: the sign of these zeros is that of torch's CPU kernels (its CUDA kernel, like
    # ours, computes x * 0.5 * (1 + erf) and keeps -0.0); check_op covers the test device.
    # torch's float32 gelu runs oneDNN's kernel, whose zeros are +0.0 in its AVX2 code and
    # -0.0 in its AVX-512 code: there only the zeros themselves are torch's on every machine.
    ours = to_numpy(ag.nn.functional.gelu(ag.tensor(values, device="cpu")))
    theirs = torch.nn.functional.gelu(torch.tensor(values)).numpy()
    assert np.array_equal(ours == 0, theirs == 0)
    if dtype == np.float64:
        assert np.array_equal(np.signbit(ours), np.signbit(theirs))
    # float32: PyTorch's vectorized erf is not libm's erff (an ulp apart, which 1 + erf
    # magnifies in the tail), so only closeness is checked there.
    np.testing.assert_allclose(ours, theirs, rtol=1e-4 if dtype == np.float32 else 1e-12,
                               atol=1e-6 if dtype == np.float32 else 0)
    check_op(lambda lib, x: lib.nn.functional.gelu(x), values.astype(np.float64))


def test_grad_of_an_output_that_is_not_a_tensor():
    # A number among the outputs, with no gradient given for it: torch's assertion.
    assert_same_error(
        lambda lib: lib.autograd.grad([lib.ones(1, requires_grad=True).sum(), 2.0],
                                      lib.ones(1, requires_grad=True)),
        AssertionError, r"^Expected output to be a (torch|autograd_cy)\.Tensor$")


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_gelu_tanh_gradient_of_huge_inputs_is_finite(dtype):
    """The tanh approximation's derivative in torch's order, 0.5 x (1 - t^2) first: where
    t is 1, a huge x meets the zero before its square (x (1 + 3 c x^2) alone overflows
    float32 from about 1e13, and inf * 0 would be nan; fuzz seed 607454378)."""
    values = np.array([1.15e18, 3e13, -2e13, 40.0, 1.0], dtype=dtype)
    grads = []
    for lib in (ag, torch):
        x = lib.tensor(values, requires_grad=True)
        lib.nn.functional.gelu(x, approximate="tanh").sum().backward()
        grads.append(to_numpy(x.grad))
    np.testing.assert_allclose(grads[0], grads[1], rtol=1e-6)
    assert np.isfinite(grads[0]).all()
