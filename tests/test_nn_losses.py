"""The losses and distances of nn.functional beyond mse/l1/nll/cross entropy/bce, their
modules and their torch-level forms, against torch: values, gradients, double backward,
gradcheck and gradgradcheck, forward AD, node names, reductions (and the deprecated
size_average/reduce), warnings, errors and reprs."""
import inspect
import warnings

import numpy as np
import pytest
import torch

import autograd_cy as ag
from oracle import (LIBS, assert_close, assert_same, assert_same_error, check_batched_grad,
                    check_gradcheck, check_jvp, check_op, no_warning, randn, same_warning)

DTYPES = [np.float32, np.float64]
REDUCTIONS = ["none", "mean", "sum"]


def F(lib):
    return lib.nn.functional


def signs(*shape, seed=0):
    """A target of 1s and -1s."""
    return np.where(np.random.default_rng(seed).random(shape) < 0.5, -1.0, 1.0)


def probabilities(*shape, seed=0):
    values = np.random.default_rng(seed).random(shape) + 0.05
    return values / values.sum(-1, keepdims=True)


def check_named(fn, node, *arrays, **kwargs):
    """check_op, and the output's node named ``node`` on both libraries."""
    def named(lib, *tensors):
        out = fn(lib, *tensors)
        assert out.grad_fn.name() == node, (lib.__name__, out.grad_fn.name())
        return out
    check_op(named, *arrays, **kwargs)


def check_tangent(fn, *arrays):
    """Forward AD where torch has none (its multi_margin_loss, multilabel_margin_loss, pdist
    and cdist refuse it): our tangent against torch's Jacobian times the tangents."""
    rng = np.random.default_rng(5)
    tangents = [rng.standard_normal(np.shape(a)) for a in arrays]
    fwad = ag.autograd.forward_ad
    with fwad.dual_level():
        duals = [fwad.make_dual(ag.tensor(a), ag.tensor(t)) for a, t in zip(arrays, tangents)]
        tangent = fwad.unpack_dual(fn(ag, *duals)).tangent
    inputs = tuple(torch.tensor(a) for a in arrays)
    jacobians = torch.autograd.functional.jacobian(lambda *xs: fn(torch, *xs), inputs)
    expected = 0
    for jacobian, t in zip(jacobians, tangents):
        out_dims = jacobian.dim() - t.ndim
        flat = jacobian.reshape(jacobian.shape[:out_dims] + (-1,))
        expected = expected + flat @ torch.tensor(t).reshape(-1)
    assert_close(tangent, expected, 1e-7, 1e-9, "tangent")


def quiet(fn):
    """``fn`` with warnings silenced (kl_div's 'mean' warns on every call)."""
    def run(*args):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return fn(*args)
    return run


# ------------------------------------------------------------------ pointwise losses with a node

POINTWISE = [
    ("smooth_l1_loss", {}, "SmoothL1LossBackward0"),
    ("smooth_l1_loss", {"beta": 0.5}, "SmoothL1LossBackward0"),
    ("huber_loss", {}, "HuberLossBackward0"),
    ("huber_loss", {"delta": 0.3}, "HuberLossBackward0"),
]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("name, kwargs, node", POINTWISE)
def test_pointwise_losses_with_a_node(dtype, reduction, name, kwargs, node):
    check_named(lambda lib, x, t: getattr(F(lib), name)(x, t, reduction=reduction, **kwargs),
                node, randn(3, 4) * 2, randn(3, 4, seed=1), dtype=dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_soft_margin_loss(dtype, reduction):
    check_named(lambda lib, x, t: F(lib).soft_margin_loss(x, t, reduction=reduction),
                "SoftMarginLossBackward0", randn(3, 4) * 2, signs(3, 4), dtype=dtype,
                requires_grad=[True, False])


def test_smooth_l1_with_beta_zero_is_l1():
    for reduction, node in zip(REDUCTIONS, ["AbsBackward0", "MeanBackward0", "SumBackward0"]):
        check_named(lambda lib, x, t: F(lib).smooth_l1_loss(x, t, reduction=reduction,
                                                            beta=0.0),
                    node, randn(3, 4), randn(3, 4, seed=1))


@pytest.mark.parametrize("name", ["smooth_l1_loss", "huber_loss", "soft_margin_loss"])
def test_pointwise_gradcheck_and_jvp(name):
    x, t = randn(2, 3) * 2, signs(2, 3)
    check_gradcheck(lambda lib, x: getattr(F(lib), name)(x, ag.tensor(t)), x)
    check_gradcheck(lambda lib, x: getattr(F(lib), name)(x, ag.tensor(t), reduction="none"), x)
    for reduction in REDUCTIONS:
        check_jvp(lambda lib, x: getattr(F(lib), name)(x, lib.tensor(t, dtype=lib.float64),
                                                       reduction=reduction), x)
    if name != "soft_margin_loss":    # torch: no derivative for soft_margin's target
        check_jvp(lambda lib, x, y: getattr(F(lib), name)(x, y), x, randn(2, 3, seed=4))
        check_gradcheck(lambda lib, x, y: getattr(F(lib), name)(x, y), x, randn(2, 3, seed=4))


def test_pointwise_mixed_dtypes():
    """smooth_l1_loss promotes; huber_loss and soft_margin_loss keep the input's dtype."""
    for name in ("smooth_l1_loss", "huber_loss", "soft_margin_loss"):
        for cast in ("input", "target"):
            def fn(lib, x, t):
                x, t = (x.float(), t) if cast == "input" else (x, t.float())
                return getattr(F(lib), name)(x, t, reduction="none")
            # torch's huber backward refuses inputs of two dtypes (test below)
            torch_backward_fails = name == "huber_loss"
            check_op(fn, randn(3, 4), randn(3, 4, seed=1),
                     requires_grad=[not torch_backward_fails, False], rtol=1e-5, atol=1e-6,
                     double=False)


@pytest.mark.parametrize("dtypes", [("float64", "float32"), ("float32", "float64"),
                                    ("float16", "float32")])
def test_huber_backward_refuses_two_dtypes(dtypes):
    """torch's huber backward kernel takes the target in the input's dtype only (fuzz seeds
    295, 989100042)."""
    def fn(lib):
        x = lib.tensor([0.3, 0.6], dtype=getattr(lib, dtypes[0]), requires_grad=True)
        t = lib.tensor([0.5, 0.25], dtype=getattr(lib, dtypes[1]))
        F(lib).huber_loss(x, t).backward()
    assert_same_error(fn, RuntimeError, r"^Found dtype \w+ but expected \w+$", exact=True)


def test_pointwise_target_broadcast_warns():
    for name in ("smooth_l1_loss", "huber_loss"):
        ours, theirs = same_warning(
            lambda lib: getattr(F(lib), name)(lib.ones(3, 4), lib.zeros(4)), UserWarning,
            r"Using a target size \(.*\[4\]\)\) that is different to the input size")
        assert_close(ours, theirs)
    no_warning(lambda lib: F(lib).smooth_l1_loss(lib.ones(3), lib.zeros(3)), "target size")


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_pointwise_half_precision(dtype):
    def fn(lib, name):
        x = lib.tensor(randn(3, 4) * 2, dtype=getattr(lib, dtype), requires_grad=True)
        t = lib.tensor(signs(3, 4), dtype=getattr(lib, dtype))
        out = getattr(F(lib), name)(x, t)
        out.backward()
        return out.float(), x.grad.float()
    for name in ("smooth_l1_loss", "huber_loss", "soft_margin_loss"):
        ours, theirs = fn(ag, name), fn(torch, name)
        assert_close(ours, theirs, rtol=1e-2, atol=1e-3)


def test_pointwise_argument_errors():
    x = lambda lib: lib.ones(3)  # noqa: E731
    assert_same_error(lambda lib: F(lib).smooth_l1_loss(x(lib), x(lib), beta=-1.0))
    assert_same_error(lambda lib: F(lib).huber_loss(x(lib), x(lib), delta=0.0))
    assert_same_error(lambda lib: F(lib).smooth_l1_loss(x(lib), x(lib), reduction="bad"))
    assert_same_error(lambda lib: F(lib).huber_loss(x(lib), x(lib), reduction="bad"))
    assert_same_error(lambda lib: F(lib).soft_margin_loss(x(lib), x(lib), reduction="bad"))
    assert_same_error(lambda lib: F(lib).soft_margin_loss(
        x(lib), lib.ones(3, requires_grad=True)), RuntimeError, "not differentiable")


def test_huber_weight():
    check_op(lambda lib, x, t, w: F(lib).huber_loss(x, t, weight=w), randn(3, 4) * 2,
             randn(3, 4, seed=1), randn(3, 4, seed=2, positive=True),
             requires_grad=[True, True, False])


def test_legacy_reduction_arguments():
    ours, theirs = same_warning(
        lambda lib: F(lib).smooth_l1_loss(lib.ones(3) * 3, lib.zeros(3), size_average=False),
        UserWarning, r"size_average and reduce args will be deprecated, please use "
                     r"reduction='sum' instead")
    assert_close(ours, theirs)
    for name, args in [("soft_margin_loss", 2), ("multilabel_soft_margin_loss", 2),
                       ("hinge_embedding_loss", 2), ("poisson_nll_loss", 2)]:
        ours, theirs = same_warning(
            lambda lib: getattr(F(lib), name)(lib.ones(2, 3) * 0.5, -lib.ones(2, 3),
                                              reduce=False),
            UserWarning, "reduction='none'")
        assert_close(ours, theirs)


# ------------------------------------------------------------------ kl_div

@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("reduction", REDUCTIONS + ["batchmean"])
@pytest.mark.parametrize("log_target", [False, True])
def test_kl_div(dtype, reduction, log_target):
    target = probabilities(3, 4)
    if log_target:
        target = np.log(target)
    node = {"none": "MulBackward0" if log_target else "SubBackward0", "mean": "MeanBackward0",
            "sum": "SumBackward0", "batchmean": "DivBackward0"}[reduction]
    check_named(quiet(lambda lib, x, t: F(lib).kl_div(x, t, reduction=reduction,
                                                       log_target=log_target)),
                node, np.log(probabilities(3, 4, seed=1)), target, dtype=dtype)


def test_kl_div_zero_targets_and_gradcheck():
    target = probabilities(2, 3)
    target[0, 1] = 0.0
    check_op(lambda lib, x, t: F(lib).kl_div(x, t, reduction="sum"), randn(2, 3), target)
    check_gradcheck(lambda lib, x, t: F(lib).kl_div(x, t, reduction="batchmean"),
                    randn(2, 3), probabilities(2, 3, seed=3))
    check_jvp(lambda lib, x, t: F(lib).kl_div(x, t, reduction="sum"), randn(2, 3),
              probabilities(2, 3, seed=3))


def test_kl_div_mean_warns_and_batchmean_of_a_scalar():
    ours, theirs = same_warning(lambda lib: F(lib).kl_div(lib.zeros(2, 2), lib.ones(2, 2)),
                                UserWarning, "'batchmean' divides only by the batch size")
    assert_close(ours, theirs)
    no_warning(lambda lib: F(lib).kl_div(lib.zeros(2), lib.ones(2), reduction="batchmean"))
    check_named(lambda lib, x, t: F(lib).kl_div(x, t, reduction="batchmean"), "SumBackward0",
                np.asarray(-0.5), np.asarray(0.3))
    assert_same_error(lambda lib: F(lib).kl_div(lib.zeros(2), lib.ones(2), reduction="bad"))


# ------------------------------------------------------------------ poisson and gaussian nll

@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("log_input, full", [(True, False), (False, False), (True, True),
                                             (False, True)])
def test_poisson_nll_loss(dtype, reduction, log_input, full):
    x = randn(3, 4) if log_input else randn(3, 4, positive=True)
    target = np.random.default_rng(1).poisson(2.0, (3, 4)).astype(float)
    check_op(lambda lib, x, t: F(lib).poisson_nll_loss(x, t, log_input=log_input, full=full,
                                                       reduction=reduction),
             x, target, dtype=dtype, requires_grad=[True, False])
    check_gradcheck(lambda lib, x: F(lib).poisson_nll_loss(
        x, lib.tensor(target), log_input=log_input, full=full, reduction=reduction), x)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("full", [False, True])
@pytest.mark.parametrize("var_shape", [(3, 4), (3,), (3, 1), (1, 4)])
def test_gaussian_nll_loss(dtype, reduction, full, var_shape):
    check_op(lambda lib, x, t, v: F(lib).gaussian_nll_loss(x, t, v, full=full,
                                                           reduction=reduction),
             randn(3, 4), randn(3, 4, seed=1), randn(*var_shape, seed=2, positive=True),
             dtype=dtype)


def test_gaussian_nll_loss_eps_clamp_float_var_and_gradcheck():
    var = randn(2, 3, seed=2, positive=True)
    var[0, 0] = 1e-9            # clamped at eps, without a gradient there
    check_op(lambda lib, x, t, v: F(lib).gaussian_nll_loss(x, t, v, eps=1e-3), randn(2, 3),
             randn(2, 3, seed=1), var)
    check_op(lambda lib, x, t: F(lib).gaussian_nll_loss(x, t, 0.7, reduction="none"),
             randn(2, 3), randn(2, 3, seed=1))
    check_gradcheck(lambda lib, x, t, v: F(lib).gaussian_nll_loss(x, t, v), randn(2, 3),
                    randn(2, 3, seed=1), randn(2, 3, seed=2, positive=True))
    check_jvp(lambda lib, x, t, v: F(lib).gaussian_nll_loss(x, t, v), randn(2, 3),
              randn(2, 3, seed=1), randn(2, 3, seed=2, positive=True))


def test_gaussian_nll_loss_errors():
    x = lambda lib: lib.ones(3, 4)  # noqa: E731
    assert_same_error(lambda lib: F(lib).gaussian_nll_loss(x(lib), x(lib), lib.ones(3, 3)))
    assert_same_error(lambda lib: F(lib).gaussian_nll_loss(x(lib), x(lib), lib.ones(2, 1, 4)))
    assert_same_error(lambda lib: F(lib).gaussian_nll_loss(x(lib), x(lib), -x(lib)))
    assert_same_error(lambda lib: F(lib).gaussian_nll_loss(x(lib), x(lib), -1.0))
    assert_same_error(lambda lib: F(lib).gaussian_nll_loss(x(lib), x(lib), x(lib),
                                                           reduction="bad"))


# ------------------------------------------------------------------ margin composites

@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_margin_ranking_loss(dtype, reduction):
    node = "ClampMinBackward0" if reduction == "none" else None

    def fn(lib, a, b, t):
        out = F(lib).margin_ranking_loss(a, b, t, margin=0.2, reduction=reduction)
        if node:
            assert out.grad_fn.name() == node
        return out
    check_op(fn, randn(5), randn(5, seed=1), signs(5), dtype=dtype)
    check_gradcheck(lambda lib, a, b: F(lib).margin_ranking_loss(a, b, lib.tensor(signs(5))),
                    randn(5), randn(5, seed=1) + 0.05)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_hinge_embedding_loss(dtype, reduction):
    target = signs(3, 4)
    target[0, 0] = 0.0           # neither 1 nor -1: both terms count
    check_op(lambda lib, x, t: F(lib).hinge_embedding_loss(x, t, margin=0.7,
                                                           reduction=reduction),
             randn(3, 4), target, dtype=dtype, requires_grad=[True, False])
    check_named(lambda lib, x, t: F(lib).hinge_embedding_loss(x, t, reduction="none"),
                "AddBackward0", randn(3, 4), target, requires_grad=[True, False])
    check_jvp(lambda lib, x: F(lib).hinge_embedding_loss(x, lib.tensor(target,
                                                         dtype=lib.float64)), randn(3, 4))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_cosine_embedding_loss(dtype, reduction):
    check_op(lambda lib, a, b, t: F(lib).cosine_embedding_loss(a, b, t, margin=-0.3,
                                                               reduction=reduction),
             randn(4, 3), randn(4, 3, seed=1), signs(4), dtype=dtype,
             requires_grad=[True, True, False])
    check_op(lambda lib, a, b, t: F(lib).cosine_embedding_loss(a, b, t, reduction=reduction),
             randn(3), randn(3, seed=1), np.asarray(-1.0), dtype=dtype,
             requires_grad=[True, True, False])
    check_gradcheck(lambda lib, a, b: F(lib).cosine_embedding_loss(
        a, b, lib.tensor(signs(4)), margin=-0.3), randn(4, 3), randn(4, 3, seed=1))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_multilabel_soft_margin_loss(dtype, reduction):
    target = (np.random.default_rng(3).random((3, 4)) < 0.5).astype(float)
    node = {"none": "DivBackward0", "mean": "MeanBackward0", "sum": "SumBackward0"}[reduction]
    check_named(lambda lib, x, t: F(lib).multilabel_soft_margin_loss(x, t,
                                                                     reduction=reduction),
                node, randn(3, 4) * 3, target, dtype=dtype, requires_grad=[True, False])
    check_op(lambda lib, x, t, w: F(lib).multilabel_soft_margin_loss(x, t, w,
                                                                     reduction=reduction),
             randn(3, 4), target, randn(4, positive=True), dtype=dtype,
             requires_grad=[True, False, True])
    assert_same_error(lambda lib: F(lib).multilabel_soft_margin_loss(lib.ones(2, 2),
                                                                     lib.ones(2, 2), None,
                                                                     reduction="bad"))


def test_margin_composite_errors():
    assert_same_error(lambda lib: F(lib).margin_ranking_loss(lib.ones(3), lib.ones(3),
                                                             lib.ones(1, 3)),
                      RuntimeError, "All input tensors should have same dimension")
    assert_same_error(lambda lib: F(lib).hinge_embedding_loss(lib.ones(3), lib.ones(3),
                                                              reduction="bad"))
    assert_same_error(lambda lib: F(lib).cosine_embedding_loss(lib.ones(3, 2), lib.ones(3, 2),
                                                               lib.ones(3, 1)),
                      RuntimeError, "0D or 1D target tensor expected")
    assert_same_error(lambda lib: F(lib).cosine_embedding_loss(lib.ones(3), lib.ones(3),
                                                               lib.ones(3)),
                      RuntimeError, "1D target tensor expects 2D input tensors")
    assert_same_error(lambda lib: F(lib).cosine_embedding_loss(lib.ones(3, 2), lib.ones(3, 2),
                                                               lib.ones(())),
                      RuntimeError, "0D target tensor expects 1D input tensors")


# ------------------------------------------------------------------ triplet losses

@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("p, swap", [(2, False), (1, True), (3, False)])
def test_triplet_margin_loss(dtype, reduction, p, swap):
    node = {"none": "ClampMinBackward0", "mean": "MeanBackward0",
            "sum": "SumBackward0"}[reduction]
    check_named(lambda lib, a, b, c: F(lib).triplet_margin_loss(a, b, c, margin=2.0, p=p,
                                                                swap=swap,
                                                                reduction=reduction),
                node, randn(4, 3), randn(4, 3, seed=1), randn(4, 3, seed=2), dtype=dtype)


def test_triplet_margin_with_distance_loss():
    def cosine_distance(lib):
        return lambda x, y: 1.0 - F(lib).cosine_similarity(x, y)
    for swap in (False, True):
        check_op(lambda lib, a, b, c: F(lib).triplet_margin_with_distance_loss(
            a, b, c, distance_function=cosine_distance(lib), margin=0.5, swap=swap),
            randn(4, 3), randn(4, 3, seed=1), randn(4, 3, seed=2))
        check_op(lambda lib, a, b, c: F(lib).triplet_margin_with_distance_loss(
            a, b, c, swap=swap, reduction="none"),
            randn(4, 3), randn(4, 3, seed=1), randn(4, 3, seed=2))
    check_gradcheck(lambda lib, a, b, c: F(lib).triplet_margin_loss(a, b, c, margin=2.0),
                    randn(3, 2), randn(3, 2, seed=1), randn(3, 2, seed=2))
    check_jvp(lambda lib, a, b, c: F(lib).triplet_margin_loss(a, b, c, margin=2.0),
              randn(3, 2), randn(3, 2, seed=1), randn(3, 2, seed=2))


def test_triplet_errors():
    x = lambda lib: lib.ones(2, 3)  # noqa: E731
    assert_same_error(lambda lib: F(lib).triplet_margin_loss(x(lib), x(lib), x(lib), margin=0))
    assert_same_error(lambda lib: F(lib).triplet_margin_loss(x(lib), x(lib), lib.ones(3)))
    assert_same_error(lambda lib: F(lib).triplet_margin_with_distance_loss(
        x(lib), x(lib), x(lib), reduction="bad"))
    assert_same_error(lambda lib: F(lib).triplet_margin_with_distance_loss(
        x(lib), x(lib), x(lib), margin=-1.0))


# ------------------------------------------------------------------ class-margin losses

@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("p, weighted", [(1, False), (2, False), (1, True), (2, True)])
def test_multi_margin_loss(dtype, reduction, p, weighted):
    target = np.array([1, 0, 3, 2, 3])
    args = [randn(5, 4), target] + ([randn(4, positive=True)] if weighted else [])

    def fn(lib, x, t, *w):
        return F(lib).multi_margin_loss(x, t, p=p, margin=0.8, weight=w[0] if w else None,
                                        reduction=reduction)
    # torch's node has no derivative of its own (gradgradcheck covers ours)
    check_named(fn, "MultiMarginLossBackward0", *args, dtype=dtype, double=False,
                requires_grad=[True, False, False][:len(args)])


def test_multi_margin_loss_one_sample_gradcheck_and_jvp():
    for reduction in REDUCTIONS:
        check_op(lambda lib, x, t: F(lib).multi_margin_loss(x, t, reduction=reduction),
                 randn(4), np.array([2]), double=False)
        check_op(lambda lib, x, t: F(lib).multi_margin_loss(x, t, reduction=reduction),
                 randn(4), np.array(2), double=False)
    target = np.array([1, 0, 2])
    for p in (1, 2):
        check_gradcheck(lambda lib, x: F(lib).multi_margin_loss(x, lib.tensor(target), p=p),
                        randn(3, 3) * 0.3)
        check_tangent(lambda lib, x: F(lib).multi_margin_loss(x, lib.tensor(target), p=p,
                                                              reduction="none"), randn(3, 3))


def test_multi_margin_loss_errors():
    x = lambda lib: lib.ones(3, 4)  # noqa: E731
    t = lambda lib: lib.tensor([0, 1, 2])  # noqa: E731
    assert_same_error(lambda lib: F(lib).multi_margin_loss(x(lib), t(lib), p=3))
    assert_same_error(lambda lib: F(lib).multi_margin_loss(x(lib), lib.tensor([0, 1])))
    assert_same_error(lambda lib: F(lib).multi_margin_loss(x(lib), t(lib),
                                                           weight=lib.ones(3)))
    assert_same_error(lambda lib: F(lib).multi_margin_loss(x(lib), lib.tensor([0., 1, 2])))
    assert_same_error(lambda lib: F(lib).multi_margin_loss(x(lib), lib.tensor([0, 1, 4])))
    assert_same_error(lambda lib: F(lib).multi_margin_loss(x(lib).half(), t(lib)))
    assert_same_error(lambda lib: F(lib).multi_margin_loss(x(lib), t(lib), reduction="bad"))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_multilabel_margin_loss(dtype, reduction):
    target = np.array([[3, 0, -1, 1], [0, 1, 2, 3], [1, -1, 0, 0], [-1, 2, 1, 0],
                       [2, 2, -1, 0]])
    check_named(lambda lib, x, t: F(lib).multilabel_margin_loss(x, t, reduction=reduction),
                "MultilabelMarginLossBackward0", randn(5, 4) * 0.5, target, dtype=dtype,
                double=False)
    check_op(lambda lib, x, t: F(lib).multilabel_margin_loss(x, t, reduction=reduction),
             randn(4) * 0.5, np.array([2, 0, -1, 3]), dtype=dtype, double=False)


def test_multilabel_margin_loss_gradcheck_jvp_and_errors():
    target = np.array([[2, 0, -1], [1, -1, 0]])
    check_gradcheck(lambda lib, x: F(lib).multilabel_margin_loss(x, lib.tensor(target)),
                    randn(2, 3) * 0.3)
    check_tangent(lambda lib, x: F(lib).multilabel_margin_loss(x, lib.tensor(target),
                                                               reduction="none"), randn(2, 3))
    x = lambda lib: lib.ones(3, 4)  # noqa: E731
    assert_same_error(lambda lib: F(lib).multilabel_margin_loss(
        x(lib), lib.zeros(3, 3, dtype=lib.int64)))
    assert_same_error(lambda lib: F(lib).multilabel_margin_loss(x(lib), lib.zeros(3, 4)))
    assert_same_error(lambda lib: F(lib).multilabel_margin_loss(
        x(lib), lib.full((3, 4), 5, dtype=lib.int64)))
    assert_same_error(lambda lib: F(lib).multilabel_margin_loss(
        x(lib).half(), lib.zeros(3, 4, dtype=lib.int64)))


# ------------------------------------------------------------------ distances

@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("p", [2, 1, 3, 0.5, float("inf"), 0])
def test_pairwise_distance(dtype, p):
    check_named(lambda lib, a, b: F(lib).pairwise_distance(a, b, p=p), "NormBackward1",
                randn(4, 3), randn(4, 3, seed=1), dtype=dtype)
    check_op(lambda lib, a, b: F(lib).pairwise_distance(a, b, p=p, keepdim=True),
             randn(2, 4, 3), randn(3, seed=1), dtype=dtype)


def test_pairwise_distance_gradcheck_and_jvp():
    for p in (2, 1.5, 3):
        check_gradcheck(lambda lib, a, b: F(lib).pairwise_distance(a, b, p=p), randn(3, 2),
                        randn(3, 2, seed=1))
        check_jvp(lambda lib, a, b: F(lib).pairwise_distance(a, b, p=p), randn(3, 2),
                  randn(3, 2, seed=1))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("dim", [1, 0, -1])
def test_cosine_similarity(dtype, dim):
    check_named(lambda lib, a, b: F(lib).cosine_similarity(a, b, dim=dim), "SumBackward1",
                randn(4, 3), randn(4, 3, seed=1), dtype=dtype)


def test_cosine_similarity_broadcast_eps_gradcheck_and_jvp():
    check_op(lambda lib, a, b: F(lib).cosine_similarity(a, b, dim=-1), randn(2, 4, 3),
             randn(3, seed=1))
    zero_row = randn(3, 2)
    zero_row[1] = 0.0                  # norm floored at eps
    check_op(lambda lib, a, b: F(lib).cosine_similarity(a, b, eps=1e-3), zero_row,
             randn(3, 2, seed=1), double=False)   # (the norm's second derivative at 0 aside)
    check_gradcheck(lambda lib, a, b: F(lib).cosine_similarity(a, b), randn(3, 2),
                    randn(3, 2, seed=1))
    check_jvp(lambda lib, a, b: F(lib).cosine_similarity(a, b), randn(3, 2),
              randn(3, 2, seed=1))
    assert_same_error(lambda lib: F(lib).cosine_similarity(lib.ones(3, 4), lib.ones(3, 2)))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("p, dim", [(2, 1), (1, 0), (3, -1)])
def test_normalize(dtype, p, dim):
    check_named(lambda lib, x: F(lib).normalize(x, p=p, dim=dim), "DivBackward0", randn(3, 4),
                dtype=dtype)
    x = randn(3, 4)
    x[1] = 0.0          # norm floored at eps (the norm's second derivative at 0 aside)
    check_op(lambda lib, x: F(lib).normalize(x, p=p, dim=1), x, dtype=dtype, double=False)
    check_gradcheck(lambda lib, x: F(lib).normalize(x, p=p, dim=dim), randn(2, 3))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("p", [2, 1, 3, float("inf"), 0])
def test_pdist(dtype, p):
    check_named(lambda lib, x: F(lib).pdist(x, p), "PdistBackward0", randn(5, 3),
                dtype=dtype, double=False)
    check_op(lambda lib, x: lib.pdist(x, p), randn(1, 3), dtype=dtype, double=False)


def test_pdist_gradcheck_jvp_and_errors():
    for p in (2, 1.5):
        check_gradcheck(lambda lib, x: F(lib).pdist(x, p), randn(4, 2))
        check_tangent(lambda lib, x: F(lib).pdist(x, p), randn(4, 2))
    assert_same_error(lambda lib: F(lib).pdist(lib.ones(3)))
    assert_same_error(lambda lib: F(lib).pdist(lib.ones(3, 2), -1))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("p", [2, 1, 3, float("inf")])
def test_cdist(dtype, p):
    check_named(lambda lib, a, b: lib.cdist(a, b, p), "CdistBackward0", randn(4, 3),
                randn(5, 3, seed=1), dtype=dtype, double=False)
    check_op(lambda lib, a, b: lib.cdist(a, b, p), randn(2, 4, 3), randn(1, 5, 3, seed=1),
             dtype=dtype, double=False)


def test_cdist_gradcheck_jvp_and_errors():
    check_gradcheck(lambda lib, a, b: lib.cdist(a, b), randn(3, 2), randn(4, 2, seed=1))
    check_tangent(lambda lib, a, b: lib.cdist(a, b, 1.5), randn(3, 2), randn(4, 2, seed=1))
    assert_same_error(lambda lib: lib.cdist(lib.ones(3), lib.ones(3, 3)))
    assert_same_error(lambda lib: lib.cdist(lib.ones(3, 2), lib.ones(3, 3)))
    assert_same_error(lambda lib: lib.cdist(lib.ones(3, 2), lib.ones(3, 2), -1.0))
    assert_same_error(lambda lib: lib.cdist(lib.ones(3, 2), lib.ones(3, 2), compute_mode=None))
    check_op(lambda lib, a, b: lib.cdist(a, b, compute_mode="donot_use_mm_for_euclid_dist"),
             randn(30, 3), randn(26, 3, seed=1), double=False)


# ------------------------------------------------------------------ clamp_min

def test_clamp_min():
    x = randn(3, 4)
    x[0, 0] = 0.0                       # at the bound: the gradient passes
    check_named(lambda lib, x: lib.clamp_min(x, 0.0), "ClampMinBackward0", x)
    check_named(lambda lib, x: x.clamp_min(-0.5), "ClampMinBackward0", x, dtype=np.float32)
    check_jvp(lambda lib, x: x.clamp_min(0.1), x)
    check_op(lambda lib, x, m: lib.clamp_min(x, m), x, randn(4, seed=1))   # a tensor bound


# ------------------------------------------------------------------ torch-level forms

def test_torch_level_forms():
    a, b, s = randn(3, 4), randn(3, 4, seed=1), signs(3)
    for reduction in (0, 1, 2):
        check_op(lambda lib, x, t: lib.kl_div(x, t, reduction), a, probabilities(3, 4))
        check_op(lambda lib, x, t: lib.kl_div(x, t, reduction, log_target=True), a, b)
        check_op(lambda lib, x, t: lib.hinge_embedding_loss(x, t, 0.5, reduction), a,
                 signs(3, 4), requires_grad=[True, False])
        check_op(lambda lib, x, y, t: lib.margin_ranking_loss(x, y, t, 0.1, reduction),
                 a[0], b[0], signs(4), requires_grad=[True, True, False])
        check_op(lambda lib, x, y, t: lib.cosine_embedding_loss(x, y, t, 0.1, reduction),
                 a, b, s, requires_grad=[True, True, False])
        check_op(lambda lib, x, t: lib.poisson_nll_loss(x, t, True, False, 1e-8, reduction),
                 a, np.abs(b), requires_grad=[True, False])
        check_op(lambda lib, x, y, z: lib.triplet_margin_loss(x, y, z, 1.0, 2, 1e-6, False,
                                                              reduction), a, b, a * 2)
    for name in ("kl_div", "hinge_embedding_loss"):       # no reduction left out
        check_op(lambda lib, x, t: getattr(lib, name)(x, t), a, signs(3, 4),
                 requires_grad=[True, False])
    check_op(lambda lib, x, y: lib.cosine_similarity(x, y) + lib.pairwise_distance(x, y),
             a, b)
    assert_same_error(lambda lib: lib.kl_div(lib.ones(2), lib.ones(2), "mean"), TypeError,
                      "must be int, not str")


# ------------------------------------------------------------------ float16 and bfloat16

HALF_CASES = {
    "kl_div": lambda F, x, y, z, s: F.kl_div(x, z, reduction="batchmean"),
    "poisson_nll_loss": lambda F, x, y, z, s: F.poisson_nll_loss(x, z),
    "gaussian_nll_loss": lambda F, x, y, z, s: F.gaussian_nll_loss(x, y, z),
    "margin_ranking_loss": lambda F, x, y, z, s: F.margin_ranking_loss(x, y, y.sign()),
    "hinge_embedding_loss": lambda F, x, y, z, s: F.hinge_embedding_loss(x, y.sign()),
    "cosine_embedding_loss": lambda F, x, y, z, s: F.cosine_embedding_loss(x, y, s),
    "multilabel_soft_margin_loss": lambda F, x, y, z, s: F.multilabel_soft_margin_loss(
        x, (y > 0).to(x.dtype)),
    "triplet_margin_loss": lambda F, x, y, z, s: F.triplet_margin_loss(x, y, z),
    "cosine_similarity": lambda F, x, y, z, s: F.cosine_similarity(x, y).sum(),
    "pairwise_distance": lambda F, x, y, z, s: F.pairwise_distance(x, y).sum(),
    "normalize": lambda F, x, y, z, s: F.normalize(x).sum(),
}


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("name", sorted(HALF_CASES))
def test_composites_in_half_precision(dtype, name):
    def run(lib):
        half = getattr(lib, dtype)
        x = lib.tensor(randn(3, 4), dtype=half, requires_grad=True)
        y = lib.tensor(randn(3, 4, seed=1), dtype=half)
        z = lib.tensor(randn(3, 4, seed=2, positive=True), dtype=half)
        s = lib.tensor([1.0, -1.0, 1.0], dtype=half)
        out = HALF_CASES[name](F(lib), x, y, z, s)
        out.backward()
        assert out.dtype == half
        return out.float(), x.grad.float()
    ours, theirs = run(ag), run(torch)
    assert_close(ours, theirs, rtol=2e-2, atol=2e-2)


@pytest.mark.cpu_only
def test_pdist_and_cdist_refuse_half_precision_on_the_cpu():
    for dtype in ("float16", "bfloat16"):
        assert_same_error(lambda lib: F(lib).pdist(lib.ones(3, 2, dtype=getattr(lib, dtype))))
        assert_same_error(lambda lib: lib.cdist(lib.ones(3, 2, dtype=getattr(lib, dtype)),
                                                lib.ones(3, 2, dtype=getattr(lib, dtype))))


# ------------------------------------------------------------------ batched gradients

BATCHED = [
    (lambda lib, x, t: F(lib).smooth_l1_loss(x, t, reduction="none"), (3, 4), (3, 4)),
    (lambda lib, x, t: F(lib).huber_loss(x, t), (3, 4), (3, 4)),
    (lambda lib, x: F(lib).multi_margin_loss(x, lib.tensor([0, 1, 2]), reduction="none"),
     (3, 4)),
    (lambda lib, x: F(lib).multilabel_margin_loss(x, lib.tensor([[0, -1], [1, 0]])), (2, 2)),
    (lambda lib, x: F(lib).pdist(x), (3, 4)),
    (lambda lib, x, y: lib.cdist(x, y), (3, 4), (2, 4)),
    (lambda lib, x, y: F(lib).pairwise_distance(x, y), (3, 4), (3, 4)),
    (lambda lib, x, y, z: F(lib).triplet_margin_loss(x, y, z, reduction="none"), (3, 4),
     (3, 4), (3, 4)),
]


@pytest.mark.parametrize("index", range(len(BATCHED)))
def test_batched_gradients(index):
    """``is_grads_batched``: a batch of output gradients through the Functions' backward."""
    fn, *shapes = BATCHED[index]
    check_batched_grad(fn, *[randn(*shape, seed=i) for i, shape in enumerate(shapes)])


VMAPPED = {
    "smooth_l1_loss": lambda lib: lambda x, t: F(lib).smooth_l1_loss(x, t),
    "soft_margin_loss": lambda lib: lambda x, t: F(lib).soft_margin_loss(x, t.sign()),
    "multi_margin_loss": lambda lib: lambda x, t: F(lib).multi_margin_loss(
        x, lib.tensor([1, 0]), p=2),
    "kl_div": lambda lib: lambda x, t: F(lib).kl_div(x, t.exp(), reduction="batchmean"),
    "cosine_similarity": lambda lib: lambda x, t: F(lib).cosine_similarity(x, t),
    "pairwise_distance": lambda lib: lambda x, t: F(lib).pairwise_distance(x, t),
    "triplet_margin_loss": lambda lib: lambda x, t: F(lib).triplet_margin_loss(x, t, x * 2),
}


@pytest.mark.parametrize("name", sorted(VMAPPED))
def test_vmap(name):
    """``vmap`` over a batch of inputs: each sample's loss, as torch's vmap gives it."""
    x, t = randn(5, 2, 3), randn(5, 2, 3, seed=1)
    ours = ag.vmap(VMAPPED[name](ag))(ag.tensor(x), ag.tensor(t))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")       # torch: "no batching rule" for some
        theirs = torch.vmap(VMAPPED[name](torch))(torch.tensor(x), torch.tensor(t))
    assert_close(ours, theirs, 1e-7, 1e-9)


# ------------------------------------------------------------------ modules

MODULES = [
    ("SmoothL1Loss", {"beta": 0.5}, 2), ("HuberLoss", {"delta": 0.5}, 2),
    ("KLDivLoss", {"reduction": "batchmean"}, 2), ("KLDivLoss", {"log_target": True}, 2),
    ("PoissonNLLLoss", {"full": True}, 2), ("GaussianNLLLoss", {"full": True}, 3),
    ("MarginRankingLoss", {"margin": 0.1}, 3), ("HingeEmbeddingLoss", {"margin": 0.5}, 2),
    ("CosineEmbeddingLoss", {"margin": 0.1}, 3), ("SoftMarginLoss", {}, 2),
    ("MultiMarginLoss", {"p": 2}, 2), ("MultiLabelMarginLoss", {}, 2),
    ("MultiLabelSoftMarginLoss", {}, 2), ("TripletMarginLoss", {"swap": True}, 3),
    ("TripletMarginWithDistanceLoss", {"margin": 2.0}, 3),
    ("CosineSimilarity", {"dim": 0}, 2), ("PairwiseDistance", {"p": 1.0}, 2),
]


def _module_args(name):
    x, y, z = randn(3, 4), randn(3, 4, seed=1), randn(3, 4, seed=2, positive=True)
    return {
        "MarginRankingLoss": (x[0], y[0], signs(4)),
        "CosineEmbeddingLoss": (x, y, signs(3)),
        "SoftMarginLoss": (x, signs(3, 4)),
        "HingeEmbeddingLoss": (x, signs(3, 4)),
        "MultiMarginLoss": (x, np.array([0, 3, 1])),
        "MultiLabelMarginLoss": (x, np.array([[0, 1, -1, 0], [3, -1, 0, 0], [2, 0, 1, 3]])),
        "MultiLabelSoftMarginLoss": (x, (y > 0).astype(float)),
        "KLDivLoss": (x, y),
        "PoissonNLLLoss": (x, np.round(z * 2)),
        "GaussianNLLLoss": (x, y, z),
    }.get(name, (x, y, x * 2))


@pytest.mark.parametrize("name, kwargs, arity", MODULES)
def test_modules(name, kwargs, arity):
    args = _module_args(name)[:arity]
    grads = [isinstance(a, np.ndarray) and a.dtype.kind == "f" for a in args]
    if name in ("SoftMarginLoss", "HingeEmbeddingLoss", "MarginRankingLoss",
                "CosineEmbeddingLoss", "MultiLabelSoftMarginLoss", "PoissonNLLLoss"):
        grads[-1] = False
    double = name not in ("MultiMarginLoss", "MultiLabelMarginLoss")  # none in torch's nodes
    check_op(quiet(lambda lib, *xs: getattr(lib.nn, name)(**kwargs)(*xs)), *args,
             requires_grad=grads, double=double)
    assert_same(lambda lib: repr(getattr(lib.nn, name)(**kwargs)))


def test_module_reductions_weights_and_errors():
    check_op(lambda lib, x, t, w: lib.nn.MultiMarginLoss(weight=w, reduction="sum")(x, t),
             randn(3, 4), np.array([0, 3, 1]), randn(4, positive=True),
             requires_grad=[True, False, False], double=False)
    assert_same(lambda lib: [n for n, _ in lib.nn.MultiLabelSoftMarginLoss(
        weight=lib.ones(3)).named_buffers()])
    assert_same(lambda lib: lib.nn.SmoothL1Loss(size_average=False).reduction)
    assert_same_error(lambda lib: lib.nn.MultiMarginLoss(p=3))
    assert_same_error(lambda lib: lib.nn.TripletMarginLoss(margin=0.0))
    assert_same_error(lambda lib: lib.nn.TripletMarginWithDistanceLoss(margin=0.0))


def _parameters(function):
    return [(p.name, p.kind, p.default) for p in inspect.signature(function).parameters.values()]


@pytest.mark.parametrize("name", ag.nn.losses.__all__ + ["normalize"])
def test_functional_signatures(name):
    """Parameter names, kinds and defaults as torch's (its Python-level functions)."""
    ours, theirs = getattr(ag.nn.functional, name), getattr(torch.nn.functional, name)
    assert _parameters(ours) == _parameters(theirs)


@pytest.mark.parametrize("name", ag.nn.modules.loss.__all__ + ag.nn.modules.distance.__all__)
def test_module_signatures(name):
    ours, theirs = getattr(ag.nn, name), getattr(torch.nn, name)
    assert _parameters(ours.__init__) == _parameters(theirs.__init__)
    assert _parameters(ours.forward) == _parameters(theirs.forward)


def test_top_level_names():
    for name in ("cosine_similarity", "pairwise_distance", "pdist", "cdist", "kl_div",
                 "hinge_embedding_loss", "margin_ranking_loss", "poisson_nll_loss",
                 "cosine_embedding_loss", "triplet_margin_loss", "clamp_min"):
        assert hasattr(ag, name) and hasattr(torch, name), name
    for lib in LIBS:
        assert "huber_loss" in dir(F(lib)) and not hasattr(lib, "huber_loss")


@pytest.mark.parametrize("beta", [1.0, 0.5])
def test_smooth_l1_gradient_keeps_nan(beta):
    """smooth_l1_loss's backward tests ``d < -beta`` and ``d > beta`` as torch's kernel, so a
    NaN difference takes the middle and its gradient is NaN (it was sign(NaN) = 0, fuzz
    seed 11 of the widened vocabulary)."""
    check_op(lambda lib, x, t: lib.nn.functional.smooth_l1_loss(x, t, beta=beta),
             np.array([np.nan, 0.25, -2.0, 2.0, 0.0]), np.array([0.5, 0.5, 0.5, 0.5, 0.5]),
             double=False)


@pytest.mark.filterwarnings("ignore:reduction")
@pytest.mark.parametrize("call", [
    # kl_div refuses complex operands (fuzz seed 985001393)
    lambda F, lib: F.kl_div(lib.ones(2, dtype=lib.complex64), lib.ones(2)),
    lambda F, lib: F.kl_div(lib.ones(2), lib.ones(2, dtype=lib.complex64), log_target=True),
    # soft_margin_loss computes into a tensor of the input's dtype (988001094)
    lambda F, lib: F.soft_margin_loss(lib.ones(1), lib.ones(1, dtype=lib.complex64)),
    # multi_margin_loss's kernel reads the weight as the input's dtype (985001287, 988004964)
    lambda F, lib: F.multi_margin_loss(lib.ones(2), lib.tensor(1),
                                       weight=lib.ones(2, dtype=lib.bfloat16)),
    lambda F, lib: F.multi_margin_loss(lib.ones(2, dtype=lib.float64), lib.tensor(1), p=2,
                                       weight=lib.ones(2, dtype=lib.complex64)),
    lambda F, lib: F.multilabel_soft_margin_loss(lib.ones(1, 2, dtype=lib.complex64),
                                                 lib.ones(1, 2)),
])
def test_dtypes_torch_s_kernels_refuse(call):
    assert_same_error(lambda lib: call(lib.nn.functional, lib), exact=True)


def test_multi_margin_loss_checks_the_target_shape_before_the_dtype():
    assert_same_error(lambda lib: lib.nn.functional.multi_margin_loss(
        lib.ones(2, 3, dtype=lib.complex64), lib.tensor([0, 1, 1])), RuntimeError, exact=True)


def test_multi_margin_loss_weight_that_requires_grad():
    # fuzz seed 988013034: torch has no derivative for the weight, and says so first
    assert_same_error(lambda lib: lib.nn.functional.multi_margin_loss(
        lib.ones(3, 4), lib.tensor([3, 1, 2, 1]), weight=lib.ones(4, requires_grad=True)),
        RuntimeError, exact=True)


@pytest.mark.parametrize("written", ["weight", "target"])
def test_multi_margin_loss_saves_weight_and_target(written):
    """torch's node saves target and weight: writing one in place afterwards makes the
    backward refuse (fuzz seed 989102039)."""
    def fn(lib):
        x = lib.tensor([[-1.5, 2.0]], dtype=lib.float64, requires_grad=True)
        target = lib.tensor([1])
        weight = lib.tensor([0.75, 0.0625], dtype=lib.float64)
        loss = F(lib).multi_margin_loss(x, target, weight=weight)
        (weight.mul_(-1) if written == "weight" else target.zero_())
        loss.backward()
    assert_same_error(fn, RuntimeError, r"is at version 1; expected version 0")


@pytest.mark.parametrize("reduction", ["mean", "none"])
@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_soft_margin_loss_computes_in_its_own_dtype(dtype, reduction):
    """torch composes soft_margin_loss of ops in the input's dtype: exp(12.78) overflows
    float16 to inf, and so does the loss (fuzz seed 985001827); the gradient is
    ``t z (-norm) / (1 + z) * grad`` in that dtype too."""
    def fn(lib):
        half = getattr(lib, dtype)
        x = lib.tensor([[12.78, -0.5, 3.0], [0.25, -11.5, 1.0]], dtype=half,
                       requires_grad=True)
        t = lib.tensor([[-1.0, 1, 1], [-1, 1, -1]], dtype=half)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)     # NumPy's overflow
            out = F(lib).soft_margin_loss(x, t, reduction=reduction)
            out.sum().backward()
        return [repr(v) for v in out.float().flatten().tolist() + x.grad.float().flatten().tolist()]
    assert_same(fn)


def test_soft_margin_loss_errors_as_torch():
    """torch's kernel writes ``-input * target`` into a tensor of the input's shape: a target
    that broadcasts the input to a larger shape is refused (fuzz seed 990002846); a complex
    input that requires grad is refused too (990502518)."""
    for a, b in [((0, 1, 1), (0, 1, 0)), ((3,), (2, 3)), ((2, 1), (2, 3))]:
        assert_same_error(lambda lib: F(lib).soft_margin_loss(lib.ones(a), lib.ones(b)),
                          RuntimeError, "doesn't match the broadcast shape")
    assert_same_error(lambda lib: F(lib).soft_margin_loss(
        lib.ones(2, dtype=lib.complex64, requires_grad=True), lib.ones(2, dtype=lib.complex64)),
        RuntimeError, "does not support automatic differentiation")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert_same(lambda lib: F(lib).soft_margin_loss(lib.ones(2, 3), lib.ones(3)).item())


@pytest.mark.parametrize("name, dtype", [("smooth_l1_loss", "bfloat16"),
                                         ("huber_loss", "float16")])
def test_pointwise_loss_rounds_each_loss_before_the_mean(name, dtype):
    """torch's kernel writes each element's loss in the input's dtype and reduces those: the
    mean of the unrounded float32 losses was a unit in the last place off (fuzz seed
    990503964, huber_loss of bfloat16)."""
    rng = np.random.default_rng(0)
    cases = [(rng.standard_normal(7) * 3, rng.standard_normal(7) * 3) for _ in range(20)]

    def fn(lib):
        half = getattr(lib, dtype)
        return [repr(getattr(F(lib), name)(lib.tensor(x, dtype=half),
                                           lib.tensor(t, dtype=half)).float().item())
                for x, t in cases]
    assert_same(fn)


def test_soft_margin_loss_of_an_empty_input_backward():
    """The mean's 1 / numel of an empty input is no ZeroDivisionError (fuzz seed 986000616)."""
    def fn(lib):
        x = lib.ones(0, requires_grad=True)
        out = F(lib).soft_margin_loss(x, lib.ones(0))
        out.backward()
        return repr(out.item()), x.grad.tolist()
    assert_same(fn)


@pytest.mark.parametrize("dtypes", [("float32", "complex64"), ("complex64", "float32"),
                                    ("complex64", "complex64")])
def test_huber_loss_refuses_complex_in_torch_s_order(dtypes):
    """A complex target of a real input is refused as the cast into the input's dtype first,
    a complex input by the kernel (fuzz seed 991003402)."""
    assert_same_error(lambda lib: lib.nn.functional.huber_loss(
        lib.ones(1, dtype=getattr(lib, dtypes[0])), lib.ones(1, dtype=getattr(lib, dtypes[1]))),
        exact=True)
