"""The in-place forms of autograd_cy/inplace_forms.py against torch's, one case per form:
values and gradients through a non-leaf (double backward too, batched gradients), forward
AD, the leaf error, the version bump, in place on a view of a non-leaf (CopySlices), under
no_grad on a leaf (an optimizer's step), an integer ``self`` (the cast back, or torch's
error), the node names, and vmap."""
import numpy as np
import pytest
import torch

import autograd_cy as ag
from autograd_cy.inplace_forms import FORMS
from oracle import (
    assert_same_error, check_batched_grad, check_jvp, check_op, node_name, randn, same_warning,
)

R = randn(3, 4)
B = randn(3, 4, seed=1)
W = randn(3, 4, seed=2)
POS = randn(3, 4, seed=3, positive=True)
UNIT = 1 / (1 + np.exp(-R))                                  # in (0, 1)
ZEROS = np.where(np.arange(12).reshape(3, 4) % 3 == 0, 0.0, R)  # some exact zeros
INTS = np.arange(-6, 6).reshape(3, 4)
INTS_B = np.arange(12).reshape(3, 4) % 5 + 1
SPECIAL = R.copy()
SPECIAL[0, :3] = [np.nan, np.inf, -np.inf]


def _index(lib):
    return lib.tensor([2, 0])


# name: (call(lib, self, *others), arrays: self's first, then the other tensors')
CASES = {
    "addcdiv_": (lambda lib, y, a, b: y.addcdiv_(a, b, value=0.5), (R, B, POS)),
    "addcmul_": (lambda lib, y, a, b: y.addcmul_(a, b, value=-2), (R, B, W)),
    "addmm_": (lambda lib, y, a, b: y.addmm_(a, b, beta=0.5, alpha=2),
               (R, randn(3, 5, seed=4), randn(5, 4, seed=5))),
    "lerp_": (lambda lib, y, e, w: y.lerp_(e, w), (R, B, W)),
    "lerp_/number": (lambda lib, y, e: y.lerp_(e, 0.25), (R, B)),
    "divide_": (lambda lib, y, b: y.divide_(b), (R, POS)),
    "divide_/rounding_mode": (lambda lib, y: y.divide_(2.0, rounding_mode="floor"), (R,)),
    "multiply_": (lambda lib, y, b: y.multiply_(b), (R, B)),
    "subtract_": (lambda lib, y, b: y.subtract_(b, alpha=3), (R, B)),
    "true_divide_": (lambda lib, y, b: y.true_divide_(b), (R, POS)),
    "negative_": (lambda lib, y: y.negative_(), (R,)),
    "float_power_": (lambda lib, y: y.float_power_(3), (R,)),
    "float_power_/tensor": (lambda lib, y, b: y.float_power_(b), (POS, B)),
    "fmod_": (lambda lib, y, b: y.fmod_(b), (R * 3, POS)),
    "remainder_": (lambda lib, y: y.remainder_(0.7), (R * 3,)),
    "atan2_": (lambda lib, y, b: y.atan2_(b), (R, B)),
    "arctan2_": (lambda lib, y, b: y.arctan2_(b), (R, B)),
    "hypot_": (lambda lib, y, b: y.hypot_(b), (R, B)),
    "copysign_": (lambda lib, y, b: y.copysign_(b), (R, B)),
    "heaviside_": (lambda lib, y, b: y.heaviside_(b), (ZEROS, B)),
    "xlogy_": (lambda lib, y, b: y.xlogy_(b), (R, POS)),
    "logit_": (lambda lib, y: y.logit_(), (UNIT,)),
    "logit_/eps": (lambda lib, y: y.logit_(eps=0.3), (UNIT,)),
    "sinc_": (lambda lib, y: y.sinc_(), (R,)),
    "nan_to_num_": (lambda lib, y: y.nan_to_num_(nan=1.5, posinf=9.0), (SPECIAL,)),
    "deg2rad_": (lambda lib, y: y.deg2rad_(), (R,)),
    "deg2rad_/torch_level": (lambda lib, y: lib.deg2rad_(y), (R,)),
    "rad2deg_": (lambda lib, y: y.rad2deg_(), (R,)),
    "ldexp_": (lambda lib, y, e: y.ldexp_(e), (R, B)),
    "lgamma_": (lambda lib, y: y.lgamma_(), (POS,)),
    "digamma_": (lambda lib, y: y.digamma_(), (POS,)),
    "mvlgamma_": (lambda lib, y: y.mvlgamma_(2), (POS + 1,)),
    "i0_": (lambda lib, y: y.i0_(), (R,)),
    "i0_/torch_level": (lambda lib, y: lib.i0_(y), (R,)),
    "renorm_": (lambda lib, y: y.renorm_(2, 0, 1.0), (R,)),
    "addmv_": (lambda lib, y, m, v: y.addmv_(m, v, beta=0.5), (R[0], randn(4, 5, seed=6),
                                                              randn(5, seed=7))),
    "addr_": (lambda lib, y, a, b: y.addr_(a, b, alpha=2), (R, randn(3, seed=8),
                                                            randn(4, seed=9))),
    "baddbmm_": (lambda lib, y, a, b: y.baddbmm_(a, b), (randn(2, 3, 4, seed=10),
                                                         randn(2, 3, 5, seed=11),
                                                         randn(2, 5, 4, seed=12))),
    "addbmm_": (lambda lib, y, a, b: y.addbmm_(a, b, beta=2), (R, randn(2, 3, 5, seed=13),
                                                               randn(2, 5, 4, seed=14))),
    "ceil_": (lambda lib, y: y.ceil_(), (R * 3,)),
    "floor_": (lambda lib, y: y.floor_(), (R * 3,)),
    "round_": (lambda lib, y: y.round_(), (R * 3,)),
    "round_/decimals": (lambda lib, y: y.round_(decimals=1), (R * 3,)),
    "trunc_": (lambda lib, y: y.trunc_(), (R * 3,)),
    "fix_": (lambda lib, y: y.fix_(), (R * 3,)),
    "frac_": (lambda lib, y: y.frac_(), (R * 3,)),
    "clamp_min_": (lambda lib, y: y.clamp_min_(0.1), (R,)),
    "clamp_min_/tensor": (lambda lib, y, b: y.clamp_min_(b), (R, B)),
    "clamp_min_/keyword": (lambda lib, y, b: lib.clamp_min_(y, min=b), (R, B)),
    "clamp_max_/keyword": (lambda lib, y: y.clamp_max_(max=0.3), (R,)),
    "float_power_/keyword": (lambda lib, y: y.float_power_(exponent=0.5), (POS,)),
    "round_/torch_level": (lambda lib, y: lib.round_(y, decimals=-1), (R * 30,)),
    "clamp_max_": (lambda lib, y: y.clamp_max_(-0.2), (R,)),
    "clamp_max_/tensor": (lambda lib, y, b: y.clamp_max_(b), (R, B)),
    "cumsum_": (lambda lib, y: y.cumsum_(1), (R,)),
    "cumprod_": (lambda lib, y: y.cumprod_(0), (R,)),
    "tril_": (lambda lib, y: y.tril_(1), (R,)),
    "triu_": (lambda lib, y: y.triu_(-1), (R,)),
    "index_fill_": (lambda lib, y: y.index_fill_(0, _index(lib), -2.0), (R,)),
    "index_copy_": (lambda lib, y, s: y.index_copy_(1, _index(lib), s), (R, randn(3, 2))),
    "masked_scatter_": (lambda lib, y, s: y.masked_scatter_(lib.tensor(R > 0), s),
                        (R, randn(3, 4, seed=15))),
    "eq_": (lambda lib, y, b: y.eq_(b), (R, np.where(R > 0, R, B))),
    "ne_": (lambda lib, y: y.ne_(0), (ZEROS,)),
    "not_equal_": (lambda lib, y, b: y.not_equal_(b), (R, np.where(R > 0, R, B))),
    "lt_": (lambda lib, y: y.lt_(0), (R,)),
    "less_": (lambda lib, y, b: y.less_(b), (R, B)),
    "le_": (lambda lib, y, b: y.le_(b), (R, B)),
    "less_equal_": (lambda lib, y: y.less_equal_(0.5), (R,)),
    "gt_": (lambda lib, y, b: y.gt_(b), (R, B)),
    "greater_": (lambda lib, y: y.greater_(-0.5), (R,)),
    "ge_": (lambda lib, y, b: y.ge_(b), (R, B)),
    "greater_equal_": (lambda lib, y, b: y.greater_equal_(b), (R, B)),
    "logical_and_": (lambda lib, y, b: y.logical_and_(b), (ZEROS, B)),
    "logical_or_": (lambda lib, y, b: y.logical_or_(b), (ZEROS, np.where(R > 0, 0.0, B))),
    "logical_xor_": (lambda lib, y, b: y.logical_xor_(b), (ZEROS, np.where(R > 0, 0.0, B))),
    "logical_not_": (lambda lib, y: y.logical_not_(), (ZEROS,)),
    "bitwise_and_": (lambda lib, y, b: y.bitwise_and_(b), (INTS, INTS_B)),
    "bitwise_or_": (lambda lib, y, b: y.bitwise_or_(b), (INTS, INTS_B)),
    "bitwise_xor_": (lambda lib, y: y.bitwise_xor_(5), (INTS,)),
    "bitwise_not_": (lambda lib, y: y.bitwise_not_(), (INTS,)),
    "bitwise_left_shift_": (lambda lib, y, b: y.bitwise_left_shift_(b), (INTS, INTS_B)),
    "bitwise_right_shift_": (lambda lib, y: y.bitwise_right_shift_(1), (INTS,)),
    "gcd_": (lambda lib, y, b: y.gcd_(b), (INTS, INTS_B)),
    "gcd_/torch_level": (lambda lib, y, b: lib.gcd_(y, b), (INTS, INTS_B)),
    "lcm_": (lambda lib, y, b: y.lcm_(b), (INTS, INTS_B)),
    "nextafter_": (lambda lib, y, b: y.nextafter_(b), (np.where(R > 0, R, B), B)),
    "igamma_": (lambda lib, y, b: y.igamma_(b), (POS, POS * 2)),
    "igammac_": (lambda lib, y, b: y.igammac_(b), (POS, POS * 2)),
}

# torch has no derivative for these: the gradient through them is not compared
# (igamma_'s self is its first argument, which torch does not differentiate)
NOT_DIFFERENTIABLE = {"heaviside_", "igamma_", "igammac_"}
INTEGER_ONLY = {"bitwise_and_", "bitwise_or_", "bitwise_xor_", "bitwise_not_",
                "bitwise_left_shift_", "bitwise_right_shift_", "gcd_", "lcm_"}
UNTRACKED = {name for name, form in FORMS.items() if form.untracked}


def _form(case):
    return case.split("/")[0]


def _grad_flags(arrays, case):
    if _form(case) in NOT_DIFFERENTIABLE:
        return [False] * len(arrays)
    return [a.dtype.kind == "f" for a in arrays]


def _applied(call, lib, y, others):
    """``y * 1`` (a non-leaf), then the in-place op on it."""
    y = y * 1
    result = call(lib, y, *others)
    assert result is y
    return y


# the in-place aliases of arithmetic_aliases.py, tested here with the forms
ALIASES = {"divide_", "multiply_", "subtract_", "true_divide_"}


def test_every_form_has_a_case():
    assert {_form(case) for case in CASES} == set(FORMS) | ALIASES


@pytest.mark.parametrize("case", CASES)
def test_values_and_gradients_through_a_non_leaf(case):
    call, arrays = CASES[case]
    check_op(lambda lib, x, *others: _applied(call, lib, x, others), *arrays,
             requires_grad=_grad_flags(arrays, case))


@pytest.mark.parametrize("case", [c for c in CASES if _form(c) not in
                                  INTEGER_ONLY | NOT_DIFFERENTIABLE])
def test_forward_ad(case):
    call, arrays = CASES[case]
    check_jvp(lambda lib, x, *others: _applied(call, lib, x, others), *arrays)


@pytest.mark.parametrize("case", [c for c in CASES if _form(c) not in
                                  INTEGER_ONLY | NOT_DIFFERENTIABLE])
@pytest.mark.parametrize("create_graph", [False, True])
def test_batched_gradients(case, create_graph):
    """``autograd.grad(..., is_grads_batched=True)`` through the form (vmap over the
    backward), and once more with ``create_graph``."""
    call, arrays = CASES[case]
    check_batched_grad(lambda lib, x, *others: _applied(call, lib, x, others), *arrays,
                       create_graph=create_graph)


@pytest.mark.parametrize("case", CASES)
def test_node_name(case):
    call, arrays = CASES[case]
    names = []
    for lib in (ag, torch):
        tensors = [lib.tensor(a, requires_grad=flag)
                   for a, flag in zip(arrays, _grad_flags(arrays, case))]
        names.append(node_name(_applied(call, lib, tensors[0], tensors[1:]).grad_fn))
    assert names[0] == names[1]


@pytest.mark.parametrize("case", [c for c in CASES if _form(c) not in
                                  INTEGER_ONLY | UNTRACKED])
def test_leaf_that_requires_grad_is_refused(case):
    call, arrays = CASES[case]

    def run(lib):
        tensors = [lib.tensor(a) for a in arrays]
        tensors[0].requires_grad_()
        call(lib, tensors[0], *tensors[1:])
    assert_same_error(run, RuntimeError,
                      "^a leaf Variable that requires grad is being used in an in-place "
                      "operation.$")


@pytest.mark.parametrize("case", sorted(UNTRACKED))
def test_logical_forms_write_a_leaf_and_keep_its_history(case):
    call, arrays = CASES[case]
    results = []
    for lib in (ag, torch):
        tensors = [lib.tensor(a) for a in arrays]
        leaf = tensors[0].requires_grad_()
        call(lib, leaf, *tensors[1:])
        results.append((leaf.detach().cpu().numpy().tolist(), leaf.grad_fn is None,
                        leaf.requires_grad, leaf._version))
    assert results[0] == results[1]


@pytest.mark.parametrize("case", CASES)
def test_version_is_bumped(case):
    call, arrays = CASES[case]
    versions = []
    for lib in (ag, torch):
        tensors = [lib.tensor(a) for a in arrays]
        call(lib, tensors[0], *tensors[1:])
        versions.append(tensors[0]._version)
    assert versions[0] == versions[1] == 1


@pytest.mark.parametrize("case", CASES)
def test_in_place_on_a_view_of_a_non_leaf(case):
    """The view is row 1 of a (2, 3, 4) base: the base's grad_fn becomes CopySlices."""
    call, arrays = CASES[case]

    def fn(lib, x, *others):
        base = x * 1
        call(lib, base[1], *others)
        if base.requires_grad:
            assert node_name(base.grad_fn) == ("MulBackward0" if _form(case) in UNTRACKED
                                               else "CopySlices")
        return base

    stacked = np.stack([arrays[0][::-1], arrays[0]])
    check_op(fn, stacked, *arrays[1:], requires_grad=_grad_flags(arrays, case))


@pytest.mark.parametrize("case", [c for c in CASES if _form(c) not in INTEGER_ONLY])
def test_under_no_grad_on_a_leaf(case):
    """An optimizer's pattern: a leaf parameter changed in place under no_grad."""
    call, arrays = CASES[case]
    results = []
    for lib in (ag, torch):
        tensors = [lib.tensor(a, requires_grad=a.dtype.kind == "f") for a in arrays]
        with lib.no_grad():
            call(lib, tensors[0], *tensors[1:])
        leaf = tensors[0]
        results.append((leaf.detach().cpu().numpy(), leaf.grad_fn is None, leaf.requires_grad,
                        leaf._version))
    (ours, *our_flags), (theirs, *their_flags) = results
    np.testing.assert_allclose(ours, theirs, rtol=1e-12, atol=1e-12)
    assert our_flags == their_flags == [True, True, 1]


@pytest.mark.cpu_only
@pytest.mark.parametrize("case", CASES)
def test_integer_self(case):
    """An int64 ``self``: the same values where the result casts back, else torch's error
    ("result type Float can't be cast to the desired output type Long" ...)."""
    call, arrays = CASES[case]
    ints = (np.round(arrays[0] * 3).astype(np.int64),) + tuple(arrays[1:])

    def run(lib):
        tensors = [lib.tensor(a) for a in ints]
        call(lib, tensors[0], *tensors[1:])
        return tensors[0]
    try:
        expected = run(torch)
    except Exception:
        assert_same_error(run, exact=True)
        return
    ours = run(ag)
    assert ours.dtype == ag.int64
    np.testing.assert_array_equal(ours.cpu().numpy(), expected.numpy())


def test_integer_division_is_refused():
    assert_same_error(lambda lib: lib.tensor([1, 2]).div_(2), RuntimeError,
                      "^result type Float can't be cast to the desired output type Long$")
    assert_same_error(lambda lib: lib.tensor([1, 2]).divide_(2), RuntimeError,
                      "^result type Float can't be cast to the desired output type Long$")


@pytest.mark.parametrize("dtype", ["float32", "int64", "complex64"])
def test_float_power_refuses_a_self_other_than_double(dtype):
    assert_same_error(lambda lib: lib.ones(3, dtype=getattr(lib, dtype)).float_power_(2),
                      exact=True)


def test_float_power_of_a_double_by_a_complex_exponent_is_refused():
    assert_same_error(lambda lib: lib.ones(3, dtype=lib.float64).float_power_(2j),
                      exact=True)


@pytest.mark.parametrize("name", sorted(n for n, f in FORMS.items() if f.torch_level))
def test_torch_level_function(name):
    assert hasattr(torch, name)
    assert getattr(ag, name) is getattr(ag.Tensor, name)


def test_no_torch_level_function_that_torch_lacks():
    for name, form in FORMS.items():
        assert form.torch_level == hasattr(torch, name), name


def test_torch_level_call():
    for lib in (ag, torch):
        x = lib.tensor([1.25, -0.5])
        assert lib.clamp_min_(x, 0.0) is x
        lib.ceil_(x)
        assert x.tolist() == [2.0, 0.0]


def test_gradient_of_a_saved_self_after_an_in_place_form_is_refused():
    """The old value was saved (exp's result); writing it in place makes backward refuse."""
    def run(lib):
        x = lib.tensor([0.5, 1.0], requires_grad=True)
        y = x.exp()
        y.ceil_()
        y.sum().backward()
    assert_same_error(run, RuntimeError, "modified by an inplace operation")



def test_comparison_zeros_the_tangent():
    def fn(lib, x, b):
        y = x * 1
        y.lt_(b)
        return y
    ours, theirs = check_jvp(fn, R, B)
    (_, our_tangent), = ours
    (_, their_tangent), = theirs
    assert not our_tangent.any() and not their_tangent.any()


@pytest.mark.parametrize("source", [
    "lib.ones(2, dtype=lib.int64).lerp_(lib.ones(2), 0.5)",
    "lib.ones(2, dtype=lib.int64).round_(decimals=1)",
    "lib.ones(2, 3, dtype=lib.int64).index_copy_(1, lib.tensor([0]), lib.ones(2, 1))",
    "lib.ones(2, dtype=lib.int64).clamp_min_(0.5)",
    "lib.ones(2, dtype=lib.int32).clamp_max_(0.5)",
    "lib.ones(2, dtype=lib.int64).clamp_max_(lib.tensor(0.5))",
    "lib.ones(2, dtype=lib.int64).clamp_max_(max=0.5)",
    "lib.clamp_min_(lib.ones(2, dtype=lib.int64), min=0.5)",
])
def test_dtype_errors_in_torch_words(source):
    assert_same_error(lambda lib: eval(source), exact=True)


@pytest.mark.parametrize("case", CASES)
def test_vmap(case):
    """Every argument batched (two examples): the elementwise forms by their rule, the
    others by the per-example fallback."""
    call, arrays = CASES[case]
    stacked = [np.stack([a, a[::-1]]) for a in arrays]
    results = []
    for lib in (ag, torch):
        tensors = [lib.tensor(a) for a in stacked]
        out = lib.vmap(lambda x, *others: _applied(call, lib, x, others))(*tensors)
        results.append(out.detach().cpu().numpy())
    assert results[0].dtype == results[1].dtype
    np.testing.assert_allclose(results[0], results[1], rtol=1e-12, atol=1e-12)


def test_vmap_refuses_an_unbatched_self_with_a_batched_other():
    def run(lib):
        x = lib.zeros(4, dtype=lib.float64)
        lib.vmap(lambda b: x.clone().hypot_(b))(lib.ones(3, 4, dtype=lib.float64))
    assert_same_error(run, RuntimeError, "is not possible because there exists a Tensor "
                      "`other` in extra_args that has more elements than `self`")


@pytest.mark.parametrize("source", [
    "lib.zeros(3).addcmul_(lib.ones(2, 3), lib.ones(3))",
    "lib.zeros(3).lt_(lib.ones(2, 3))",
    "lib.zeros(3).logical_and_(lib.ones(2, 3))",
    "lib.zeros(3).clamp_min_(lib.zeros(2, 3))",
    "lib.zeros(3).expand(2, 3).ceil_()",
    "lib.zeros(2, 3).cumsum_(2)",
    "lib.zeros(3, requires_grad=True).float_power_(2)",
])
def test_refusals_in_torch_words(source):
    """A result that would not fit ``self`` (broadcast), an expanded ``self``, a dim out of
    range, the dtype check of float_power_ before the leaf check."""
    assert_same_error(lambda lib: eval(source), exact=True)


@pytest.mark.parametrize("source", [
    "lib.zeros(3, dtype=lib.bool).lt_(1)",
    "lib.tensor([0, 3, -1]).logical_not_()",
    "lib.tensor([1.5, -2.5], dtype=lib.float64).float_power_(lib.tensor([2, 3]))",
])
def test_casts_back_to_self_dtype(source):
    ours, theirs = eval(source, {"lib": ag}), eval(source, {"lib": torch})
    assert str(ours.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1]
    assert ours.tolist() == theirs.tolist()


KEYWORD_CALLS = [
    "x.addcdiv_(tensor1=t, tensor2=t, value=2)", "x.addcmul_(tensor1=t, tensor2=t, value=2)",
    "x.addmm_(mat1=t, mat2=t, beta=2, alpha=3)", "x.lerp_(end=t, weight=0.3)",
    "x.divide_(other=t, rounding_mode='trunc')", "x.multiply_(other=t)",
    "x.subtract_(other=t, alpha=2)", "x.true_divide_(other=t)", "x.float_power_(exponent=t)",
    "x.fmod_(other=t)", "x.remainder_(other=t)", "x.atan2_(other=t)", "x.arctan2_(other=t)",
    "x.hypot_(other=t)", "x.copysign_(other=t)", "x.heaviside_(values=t)",
    "x.xlogy_(other=t)", "x.logit_(eps=0.1)", "x.nan_to_num_(nan=0.0, posinf=1.0, neginf=-1.0)",
    "x.round_(decimals=1)", "x.clamp_min_(min=0.3)", "x.clamp_max_(max=t)",
    "x.cumsum_(dim=0, dtype=lib.float64)", "x.cumprod_(dim=1)", "x.tril_(diagonal=-1)",
    "x.triu_(diagonal=1)", "x.index_fill_(dim=0, index=lib.tensor([1]), value=1.0)",
    "x.index_copy_(dim=1, index=lib.tensor([0]), source=t[:, :1])", "x.eq_(other=t)",
    "x.lt_(other=0.4)", "x.greater_equal_(other=t)", "x.logical_and_(other=t)",
    "lib.tensor([3]).bitwise_and_(other=lib.tensor([1]))", "lib.xlogy_(x, other=t)",
    "lib.logit_(x, eps=0.1)", "lib.nan_to_num_(x, nan=1.0)", "lib.clamp_max_(x, max=0.1)",
]


@pytest.mark.parametrize("source", KEYWORD_CALLS)
def test_keywords_as_torch_names_them(source):
    results = []
    for lib in (ag, torch):
        x = lib.tensor([[0.5, 0.2], [0.3, 0.9]], dtype=lib.float64)
        t = lib.tensor([[0.7, 0.1], [0.4, 0.6]], dtype=lib.float64)
        results.append(eval(source, {"lib": lib, "x": x, "t": t}).tolist())
    np.testing.assert_allclose(results[0], results[1], rtol=1e-12)


@pytest.mark.parametrize("source", [
    "lib.ones(2, 3, requires_grad=True)[0].ceil_()",
    "lib.ones(2, 3, requires_grad=True).t().lt_(0)",
    "lib.ones(2, 3, requires_grad=True).unbind()[1].clamp_min_(0)",
])
def test_view_of_a_leaf_and_multi_output_views_are_refused(source):
    assert_same_error(lambda lib: eval(source))


def test_inference_tensor_outside_inference_mode_is_refused():
    def run(lib):
        with lib.inference_mode():
            x = lib.ones(3)
        x.addcmul_(lib.ones(3), lib.ones(3))
    assert_same_error(run, exact=True)


def test_inside_inference_mode():
    results = []
    for lib in (ag, torch):
        with lib.inference_mode():
            x = lib.tensor([1.5, -0.5])
            x.round_().ge_(0)
        results.append(x.tolist())
    assert results[0] == results[1]


@pytest.mark.parametrize("dim, index", [(3, [0]), (0, [1]), (1, [1]), (-1, [0, 1])])
def test_index_fill_into_an_expand(dim, index):
    """index_fill_ of an expanded tensor writes the value into the shared memory, as
    torch's kernel (with its deprecation warning), where it was refused as an internal
    overlap (fuzz seed 954000342)."""
    def fn(lib):
        base = lib.tensor([[[[1.0, 2.0]]]])
        expanded = base.expand(2, 3, 1, 2)
        out = expanded.index_fill_(dim, lib.tensor(index), -0.75)
        return [base, out]
    ours, theirs = same_warning(fn, UserWarning, "index_fill_ on expanded tensors")
    for a, b in zip(ours, theirs):
        assert a.tolist() == b.tolist()
