"""PyTorch-faithful op behaviour checked against torch 2.13: the exception a bad input raises
(never one of NumPy's), what a node saves, pow's gradients at a zero base, output layouts,
result dtypes of the losses, and the names PyTorch's own autograd tests use."""
import numpy as np
import pytest
import torch

import autograd_cy as T
import autograd_cy.nn.functional as TF
import torch.nn.functional as F


def _f(lib):
    return F if lib is torch else TF


def _ones(lib, *shape, dtype="float32"):
    return lib.ones(*shape, dtype=getattr(lib, dtype))


# Bad inputs, each run on both libraries: same exception type, same key words.
BAD_INPUTS = {
    "add": lambda lib: _ones(lib, 2, 3) + _ones(lib, 4),
    "add_fn": lambda lib: lib.add(_ones(lib, 2, 3), _ones(lib, 4), alpha=2),
    "sub": lambda lib: _ones(lib, 2, 3) - _ones(lib, 4),
    "rsub": lambda lib: lib.rsub(_ones(lib, 2, 3), _ones(lib, 4)),
    "mul": lambda lib: _ones(lib, 2, 3) * _ones(lib, 4),
    "div": lambda lib: _ones(lib, 2, 3) / _ones(lib, 4),
    "div_floor": lambda lib: lib.div(_ones(lib, 2, 3), _ones(lib, 4), rounding_mode="floor"),
    "pow": lambda lib: _ones(lib, 2, 3) ** _ones(lib, 4),
    "maximum": lambda lib: lib.maximum(_ones(lib, 2, 3), _ones(lib, 4)),
    "eq": lambda lib: lib.eq(_ones(lib, 2, 3), _ones(lib, 4)),
    "bitwise_and": lambda lib: _ones(lib, 2, 3, dtype="int64") & _ones(lib, 4, dtype="int64"),
    "add_": lambda lib: _ones(lib, 2, 3).add_(_ones(lib, 4)),
    "add_into_smaller": lambda lib: _ones(lib, 4).add_(_ones(lib, 2, 3)),
    "sub_": lambda lib: _ones(lib, 2, 3).sub_(_ones(lib, 4)),
    "mul_": lambda lib: _ones(lib, 2, 3).mul_(_ones(lib, 4)),
    "div_": lambda lib: _ones(lib, 2, 3).div_(_ones(lib, 4)),
    "pow_": lambda lib: _ones(lib, 2, 3).pow_(_ones(lib, 4)),
    "iadd": lambda lib: _ones(lib, 2, 3).__iadd__(_ones(lib, 4)),
    "add_str": lambda lib: lib.add(_ones(lib, 3), "a"),
    "mul_list": lambda lib: lib.mul(_ones(lib, 3), [1, 2, 3]),
    "alpha_float_on_int": lambda lib: lib.add(_ones(lib, 3, dtype="int64"),
                                              _ones(lib, 3, dtype="int64"), alpha=2.5),
    "alpha_float_on_bool": lambda lib: lib.add(_ones(lib, 3, dtype="bool"),
                                               _ones(lib, 3, dtype="bool"), alpha=0.5),
    "int_div_by_zero_floor": lambda lib: lib.div(_ones(lib, 3, dtype="int64"),
                                                 lib.zeros(3, dtype=lib.int64),
                                                 rounding_mode="floor"),
    "int_div_by_zero_trunc": lambda lib: lib.div(_ones(lib, 3, dtype="int64"),
                                                 lib.zeros(3, dtype=lib.int64),
                                                 rounding_mode="trunc"),
    "int_pow_negative_number": lambda lib: _ones(lib, 3, dtype="int64") ** -1,
    "bitwise_float": lambda lib: lib.bitwise_and(_ones(lib, 3), _ones(lib, 3)),
    "bitwise_not_float": lambda lib: lib.bitwise_not(_ones(lib, 3)),
    "invert_float": lambda lib: ~_ones(lib, 3),
    "amax_empty": lambda lib: lib.ones(0, 3).amax(),
    "amin_empty": lambda lib: lib.ones(0, 3).amin(),
    "amax_empty_dim": lambda lib: lib.ones(0, 3).amax(0),
    "max_empty": lambda lib: lib.ones(0).max(),
    "full_str": lambda lib: lib.full((2,), "a"),
    "full_like_str": lambda lib: lib.full_like(_ones(lib, 2), "a"),
    "zeros_like_list": lambda lib: lib.zeros_like([1, 2]),
    "mm_shapes": lambda lib: lib.mm(_ones(lib, 2, 3), _ones(lib, 4, 2)),
    "mv_shapes": lambda lib: lib.mv(_ones(lib, 2, 3), _ones(lib, 4)),
    "dot_shapes": lambda lib: lib.dot(_ones(lib, 3), _ones(lib, 4)),
    "bmm_shapes": lambda lib: lib.bmm(_ones(lib, 2, 2, 3), _ones(lib, 2, 4, 2)),
    "matmul_dtypes": lambda lib: lib.matmul(_ones(lib, 2, 2), _ones(lib, 2, 2, dtype="float64")),
    "mse_broadcast": lambda lib: _f(lib).mse_loss(_ones(lib, 2, 3), _ones(lib, 4)),
    "where_broadcast": lambda lib: lib.where(_ones(lib, 2, 3) > 0, _ones(lib, 2, 3),
                                             _ones(lib, 4)),
    "clamp_broadcast": lambda lib: lib.clamp(_ones(lib, 2, 3), _ones(lib, 4)),
    "cat_shapes": lambda lib: lib.cat([_ones(lib, 2, 3), _ones(lib, 2, 4)], 0),
    "view_size": lambda lib: _ones(lib, 2, 3).view(4),
    "expand_size": lambda lib: _ones(lib, 2, 3).expand(4, 3),
    "sum_dim": lambda lib: _ones(lib, 2, 3).sum(3),
    "softmax_dim": lambda lib: _ones(lib, 2, 3).softmax(3),
    "index_out_of_range": lambda lib: _ones(lib, 2, 3)[5],
    "index_select_out_of_range": lambda lib: _ones(lib, 2, 3).index_select(0, lib.tensor([5])),
    "gather_out_of_range": lambda lib: _ones(lib, 2, 3).gather(0, lib.tensor([[5]])),
    "nll_target_shape": lambda lib: _f(lib).nll_loss(_ones(lib, 2, 3), lib.tensor([0, 1, 2])),
    "item_of_many": lambda lib: _ones(lib, 3).item(),
    "matmul_none": lambda lib: lib.matmul(_ones(lib, 3), None),
    "mm_none": lambda lib: lib.mm(None, _ones(lib, 2, 2)),
    "index_select_none": lambda lib: _ones(lib, 3).index_select(0, None),
    "bool_minus_number": lambda lib: _ones(lib, 2, dtype="bool") - 1,
    "number_minus_bool": lambda lib: 1 - _ones(lib, 2, dtype="bool"),
    "bool_minus_bool": lambda lib: _ones(lib, 2, dtype="bool") - _ones(lib, 2, dtype="bool"),
    "float_minus_bool": lambda lib: lib.sub(_ones(lib, 2), _ones(lib, 2, dtype="bool")),
    "float_minus_true": lambda lib: _ones(lib, 2) - True,
    "bool_pow_bool": lambda lib: _ones(lib, 2, dtype="bool") ** _ones(lib, 2, dtype="bool"),
    "argmax_bool": lambda lib: _ones(lib, 2, dtype="bool").argmax(),
    "argmin_bool_dim": lambda lib: _ones(lib, 2, dtype="bool").argmin(0),
    "median_bool": lambda lib: _ones(lib, 2, dtype="bool").median(),
    "trace_bool": lambda lib: _ones(lib, 2, 2, dtype="bool").trace(),
    "dot_bool": lambda lib: lib.dot(_ones(lib, 2, dtype="bool"), _ones(lib, 2, dtype="bool")),
    "mm_bool": lambda lib: lib.mm(_ones(lib, 2, 2, dtype="bool"),
                                  _ones(lib, 2, 2, dtype="bool")),
    "mv_bool": lambda lib: lib.matmul(_ones(lib, 2, 2, dtype="bool"),
                                      _ones(lib, 2, dtype="bool")),
    "bmm_bool": lambda lib: lib.bmm(_ones(lib, 1, 2, 2, dtype="bool"),
                                    _ones(lib, 1, 2, 2, dtype="bool")),
    "mean_int_dtype": lambda lib: _ones(lib, 2).mean(0, dtype=lib.int32),
    "eye_negative": lambda lib: lib.eye(-1),
    "eye_negative_m": lambda lib: lib.eye(2, -1),
    "arange_wrong_sign": lambda lib: lib.arange(0, 5, -1),
    "arange_zero_step": lambda lib: lib.arange(0, 5, 0),
    "randint_empty_range": lambda lib: lib.randint(5, 2, (3,)),
    "tensor_dtype_int": lambda lib: lib.tensor([1.0], dtype=5),
}


def _raised(lib, case):
    try:
        case(lib)
    except Exception as error:      # noqa: BLE001 - the type is what is compared
        return error
    return None


@pytest.mark.parametrize("name", sorted(BAD_INPUTS))
def test_bad_input_raises_pytorchs_exception(name):
    theirs = _raised(torch, BAD_INPUTS[name])
    ours = _raised(T, BAD_INPUTS[name])
    assert theirs is not None, "the case must be an error in torch"
    assert type(ours) is type(theirs), f"ours {ours!r}, torch {theirs!r}"
    assert not type(ours).__module__.startswith("numpy")
    # The first words of torch's message (up to its first number or bracket) are ours too.
    if isinstance(theirs, TypeError) and "must be" in str(theirs):
        # torch's argument parser: "f(): argument 'x' (position 2) must be Number, not str".
        # (A None for a Tensor parameter gets Cython's wording: "Argument 'x' has incorrect
        # type (expected ...Tensor, got NoneType)".)
        assert ("must be" in str(ours) or "incorrect type" in str(ours)), (ours, theirs)
        assert str(theirs).split()[-1] in str(ours), (ours, theirs)
        return
    key = str(theirs).split("(")[0].split("[")[0].strip()
    assert key[:40] in str(ours), f"ours {ours!r}, torch {theirs!r}"


def test_broadcast_message_names_sizes_and_dim():
    with pytest.raises(RuntimeError, match=r"The size of tensor a \(3\) must match the size of "
                                           r"tensor b \(4\) at non-singleton dimension 1"):
        T.ones(2, 3) + T.ones(4)
    with pytest.raises(RuntimeError, match=r"tensor a \(4\) must match the size of tensor b "
                                           r"\(3\) at non-singleton dimension 1"):
        T.ones(4).add_(T.ones(2, 3))


@pytest.mark.parametrize("base", [[-2, -1, 0, 1, 2, 3], [1, -1]])
@pytest.mark.parametrize("exponent", [-1, -2, -3, 0, 2])
def test_integer_tensor_to_negative_tensor_power(base, exponent):
    ours = T.tensor(base) ** T.tensor([exponent] * len(base))
    theirs = torch.tensor(base) ** torch.tensor([exponent] * len(base))
    assert ours.dtype == T.int64 and ours.tolist() == theirs.tolist()
    assert (2 ** T.tensor([exponent])).tolist() == (2 ** torch.tensor([exponent])).tolist()


# ------------------------------------------------------------------ what a node saves

def _saved(node, names):
    result = {}
    for name in names:
        value = getattr(node, "_saved_" + name)
        result[name] = None if value is None else tuple(value.shape)
    return result


SAVING_OPS = [
    # (name, function, shapes, saved names)
    ("mv", lambda lib, a, b: lib.mv(a, b), ((3, 2), (2,)), ("self", "vec")),
    ("mm", lambda lib, a, b: lib.mm(a, b), ((3, 2), (2, 4)), ("self", "mat2")),
    ("matmul_2d", lambda lib, a, b: lib.matmul(a, b), ((3, 2), (2, 4)), ("self", "mat2")),
    ("matmul_mv", lambda lib, a, b: a @ b, ((3, 2), (2,)), ("self", "vec")),
    ("bmm", lambda lib, a, b: lib.bmm(a, b), ((2, 3, 2), (2, 2, 4)), ("self", "mat2")),
    ("dot", lambda lib, a, b: lib.dot(a, b), ((3,), (3,)), ("self", "tensor")),
    ("matmul_1d", lambda lib, a, b: a @ b, ((3,), (3,)), ("self", "tensor")),
    ("mul", lambda lib, a, b: a * b, ((3,), (3,)), ("self", "other")),
    ("div", lambda lib, a, b: a / b, ((3,), (3,)), ("self", "other")),
]


@pytest.mark.parametrize("name,fn,shapes,names", SAVING_OPS, ids=[c[0] for c in SAVING_OPS])
@pytest.mark.parametrize("wants", [(True, False), (False, True), (True, True)])
def test_saves_only_what_the_needed_gradients_use(name, fn, shapes, names, wants):
    results = []
    for lib in (T, torch):
        inputs = [lib.ones(*shape, dtype=lib.float64, requires_grad=w) * 1 if w
                  else lib.ones(*shape, dtype=lib.float64) for shape, w in zip(shapes, wants)]
        out = fn(lib, *inputs)
        results.append((type(out.grad_fn).__name__, _saved(out.grad_fn, names)))
    assert results[0] == results[1]


@pytest.mark.parametrize("name,fn,shapes,names", SAVING_OPS, ids=[c[0] for c in SAVING_OPS])
def test_in_place_change_of_an_unsaved_operand_keeps_backward(name, fn, shapes, names):
    """``y = W @ x; x.add_(1)``: x is not saved when W does not require grad (a divisor is)."""
    errors = []
    for lib in (T, torch):
        def run():
            w = lib.ones(*shapes[0], dtype=lib.float64) * 2
            x = lib.ones(*shapes[1], dtype=lib.float64, requires_grad=True) * 1
            y = fn(lib, w, x)
            x.add_(1)
            y.sum().backward()
        errors.append(type(_raised(lib, lambda _: run())))
    assert errors[0] is errors[1]
    assert name == "div" or errors[0] is type(None)


@pytest.mark.parametrize("make", [
    lambda lib, x: 2 ** x, lambda lib, x: x ** 2, lambda lib, x: x.pow(x.detach() + 1),
    lambda lib, x: x.exp(), lambda lib, x: x * 3, lambda lib, x: x / 3, lambda lib, x: 3 / x,
])
def test_saved_operands_of_pow_and_friends_match_torch(make):
    """Which tensors a node saves shows in an in-place change before backward."""
    outcomes = []
    for lib in (T, torch):
        x = lib.ones(3, dtype=lib.float64, requires_grad=True) * 1
        y = make(lib, x)
        x.add_(1)
        outcomes.append(type(_raised(lib, lambda _: y.sum().backward())).__name__)
    assert outcomes[0] == outcomes[1]


def test_mv_reproducer():
    W = T.ones(3, 2)
    x = T.tensor([1., 2.], requires_grad=True) * 1
    y = T.mv(W, x)
    x.add_(1)
    y.sum().backward()


def test_matmul_gradients_with_one_side_requiring_grad():
    rng = np.random.default_rng(0)
    for a_shape, b_shape in [((3, 2), (2, 4)), ((2, 3, 2), (2, 4)), ((3,), (3, 2)),
                             ((3, 2), (2,)), ((3,), (3,)), ((2, 3, 2), (2, 2, 4))]:
        a, b = rng.standard_normal(a_shape), rng.standard_normal(b_shape)
        for wants in ((True, False), (False, True)):
            grads = []
            for lib in (T, torch):
                ta = lib.tensor(a, requires_grad=wants[0])
                tb = lib.tensor(b, requires_grad=wants[1])
                out = lib.matmul(ta, tb)
                (out * out).sum().backward()
                grads.append(to_numpy((ta if wants[0] else tb).grad))
            np.testing.assert_allclose(grads[0], grads[1], rtol=1e-10)


# ------------------------------------------------------------------ pow at a zero base

POW_CASES = {
    "number_base_zero": lambda lib, b: 0 ** b,
    "float_base_zero": lambda lib, b: 0.0 ** b,
    "one_base": lambda lib, b: 1 ** b,
    "two_base": lambda lib, b: 2 ** b,
    "tensor_zero_base": lambda lib, b: lib.zeros(5, dtype=lib.float64,
                                                requires_grad=True).pow(b),
    "tensor_neg_zero_base": lambda lib, b: lib.full((5,), -0.0, dtype=lib.float64,
                                                    requires_grad=True) ** b,
    "tensor_negative_base": lambda lib, b: lib.full((5,), -2.0, dtype=lib.float64,
                                                    requires_grad=True) ** b,
}


@pytest.mark.parametrize("name", sorted(POW_CASES))
def test_pow_gradients_at_zero_base(name):
    exponent = [-1.0, 0.0, 1.0, 0.5, 2.0]
    grads = []
    for lib in (T, torch):
        b = lib.tensor(exponent, dtype=lib.float64, requires_grad=True)
        out = POW_CASES[name](lib, b)
        inputs = [b]
        base = getattr(out.grad_fn, "_saved_self", None)
        if base is not None and getattr(base, "requires_grad", False):
            inputs.append(base)
        got = lib.autograd.grad(out.sum(), inputs, allow_unused=True)
        grads.append([None if g is None else to_numpy(g).tolist() for g in got])
    np.testing.assert_equal(grads[0], grads[1])


@pytest.mark.parametrize("base", ["number", "tensor"])
def test_pow_complex_exponent_gradient_at_zero_base(base):
    # the exponent's derivative is 0 at a zero base only where the exponent is real and
    # >= 0; with an imaginary part it is result * log(0): NaN, as in torch
    exponent = [2 + 1j, 2 + 0j, -1 + 0j, 0j, 0.5 - 2j]
    grads = []
    for lib in (T, torch):
        e = lib.tensor(exponent, dtype=lib.complex128, requires_grad=True)
        out = (0 ** e) if base == "number" else lib.zeros(5, dtype=lib.float64) ** e
        got, = lib.autograd.grad(out.real.sum(), e)
        grads.append(to_numpy(got).tolist())
    np.testing.assert_equal(grads[0], grads[1])


@pytest.mark.parametrize("exponent", [-1.0, 0.0, 0.5, 1.0, 2.0, -0.5])
def test_pow_number_exponent_gradient_at_zero(exponent):
    grads = []
    for lib in (T, torch):
        z = lib.tensor([0.0, 1.0, -1.0], dtype=lib.float64, requires_grad=True)
        (z ** exponent).sum().backward()
        grads.append(to_numpy(z.grad).tolist())
    np.testing.assert_equal(grads[0], grads[1])


def test_pow_zero_dim_exponent_gradient():
    grads = []
    for lib in (T, torch):
        z = lib.tensor([0.0, 2.0], dtype=lib.float64, requires_grad=True)
        e = lib.tensor(0.0, dtype=lib.float64, requires_grad=True)
        grads.append([to_numpy(g).tolist() for g in lib.autograd.grad(z.pow(e).sum(), (z, e))])
    np.testing.assert_equal(grads[0], grads[1])


# ------------------------------------------------------------------ output layouts

def _transposed(lib):
    return lib.arange(12, dtype=lib.float64).reshape(4, 3).t()


def _permuted(lib):
    return lib.arange(24, dtype=lib.float64).reshape(2, 4, 3).permute(2, 0, 1)


LAYOUT_OPS = {
    "softmax_-2": lambda lib, x: x.softmax(-2),
    "softmax_-1": lambda lib, x: x.softmax(-1),
    "log_softmax_0": lambda lib, x: x.log_softmax(0),
    "F.softmax": lambda lib, x: _f(lib).softmax(x, dim=1),
    "F.log_softmax": lambda lib, x: _f(lib).log_softmax(x, dim=0),
    "masked_fill": lambda lib, x: x.masked_fill(x > 3, 0.0),
    "gelu": lambda lib, x: _f(lib).gelu(x),
    "number_pow": lambda lib, x: 2 ** x,
    "pow_tensor": lambda lib, x: x ** x,
    "rdiv": lambda lib, x: 2 / x,
    "where": lambda lib, x: lib.where(x > 3, x, x * 0),
    "to_float32": lambda lib, x: x.to(lib.float32),
    "index_select": lambda lib, x: x.index_select(1, lib.tensor([0, 1])),
    "index_put": lambda lib, x: x.index_put((lib.tensor([1, 0]),), lib.tensor(7.0).double()),
    "index_put_accumulate": lambda lib, x: x.index_put((lib.tensor([1, 1]),),
                                                       lib.tensor(7.0).double(), accumulate=True),
    "mse_none": lambda lib, x: _f(lib).mse_loss(x, x, reduction="none"),
    "bce_logits_none": lambda lib, x: _f(lib).binary_cross_entropy_with_logits(
        x, x.sigmoid(), reduction="none"),
    "median_0": lambda lib, x: x.median(0)[0],
    "all_0": lambda lib, x: x.all(0),
    "gelu_tanh": lambda lib, x: _f(lib).gelu(x, approximate="tanh"),
    "exp": lambda lib, x: x.exp(),
    "relu": lambda lib, x: x.relu(),
    "sum_1": lambda lib, x: x.sum(1),
    "sum_1_keepdim": lambda lib, x: x.sum(1, keepdim=True),
    "mean_0_keepdim": lambda lib, x: x.mean(0, keepdim=True),
    "amax_1": lambda lib, x: x.amax(1),
    "max_1": lambda lib, x: x.max(1)[0],
    "var_1": lambda lib, x: x.var(1),
    "prod_1": lambda lib, x: x.prod(1),
    "logsumexp_1": lambda lib, x: x.logsumexp(1),
    "norm_1": lambda lib, x: x.norm(dim=1),
}


@pytest.mark.parametrize("name", sorted(LAYOUT_OPS))
@pytest.mark.parametrize("make", [_transposed, _permuted], ids=["transposed", "permuted"])
def test_output_layout_follows_pytorch(name, make):
    results = [LAYOUT_OPS[name](lib, make(lib)) for lib in (T, torch)]
    ours, theirs = results
    assert ours.is_contiguous() == theirs.is_contiguous()
    # Strides of size-1 dims carry no layout; compare the others.
    assert ([s for s, n in zip(ours.stride(), ours.shape) if n != 1]
            == [s for s, n in zip(theirs.stride(), theirs.shape) if n != 1])
    np.testing.assert_allclose(to_numpy(ours), to_numpy(theirs), rtol=1e-12)


def test_softmax_of_transposed_input_views():
    y = T.ones(4, 2).t().softmax(-2).view(-1, 2)
    assert y.shape == (4, 2)
    assert T.ones(4, 2, requires_grad=True).t().log_softmax(0).view(-1).shape == (8,)


# ------------------------------------------------------------------ loss result dtypes

LOSSES = {
    "mse": lambda lib, a, b: _f(lib).mse_loss(a, b),
    "mse_none": lambda lib, a, b: _f(lib).mse_loss(a, b, reduction="none"),
    "l1": lambda lib, a, b: _f(lib).l1_loss(a, b),
    "bce": lambda lib, a, b: _f(lib).binary_cross_entropy(a.sigmoid(), b),
    "bce_weight": lambda lib, a, b: _f(lib).binary_cross_entropy(a.sigmoid(), a.sigmoid(),
                                                                 weight=b),
    "bce_logits": lambda lib, a, b: _f(lib).binary_cross_entropy_with_logits(a, b),
    "bce_logits_none": lambda lib, a, b: _f(lib).binary_cross_entropy_with_logits(
        a, b, reduction="none"),
    "bce_logits_weight": lambda lib, a, b: _f(lib).binary_cross_entropy_with_logits(
        a, b, weight=b),
    "bce_logits_pos_weight": lambda lib, a, b: _f(lib).binary_cross_entropy_with_logits(
        a, b, pos_weight=b),
    "cross_entropy_probs": lambda lib, a, b: _f(lib).cross_entropy(a.reshape(2, 2),
                                                                   b.reshape(2, 2)),
    "nll_weight": lambda lib, a, b: _f(lib).nll_loss(a.reshape(2, 2), lib.tensor([0, 1]),
                                                     weight=b[:2]),
}


@pytest.mark.parametrize("name", sorted(LOSSES))
@pytest.mark.parametrize("dtypes", [("float64", "float32"), ("float32", "float64"),
                                    ("float32", "int64"), ("float64", "float64")])
def test_loss_result_dtype_follows_pytorch(name, dtypes):
    outcomes = []
    for lib in (T, torch):
        a = lib.tensor([0.1, 0.2, 0.3, 0.4], dtype=getattr(lib, dtypes[0]), requires_grad=True)
        b = lib.tensor([0, 1, 1, 0], dtype=getattr(lib, dtypes[1]))
        try:
            y = LOSSES[name](lib, a, b)
        except RuntimeError as error:
            outcomes.append(("error", str(error)[:30]))
            continue
        y.sum().backward()
        outcomes.append((str(y.dtype).split(".")[-1], str(a.grad.dtype).split(".")[-1],
                         round(float(y.detach().sum()), 5)))
    assert outcomes[0] == outcomes[1]


# ------------------------------------------------------------------ names PyTorch's tests use

from oracle import check_op, randn, to_numpy      # noqa: E402
from autograd_cy.autograd import gradcheck, gradgradcheck      # noqa: E402


def _distinct(*shape, seed=0):
    rng = np.random.default_rng(seed)
    return rng.permutation(int(np.prod(shape))).reshape(shape).astype(np.float64) / 7 - 1


NEW_OPS = [
    ("atan2", lambda lib, a, b: lib.atan2(a, b), (randn(3, 4), randn(4, seed=1))),
    ("atan2_method", lambda lib, a, b: a.atan2(b), (randn(2, 3), randn(2, 3, seed=2))),
    ("arctan2", lambda lib, a, b: lib.arctan2(a, b), (randn(3), randn(3, seed=3))),
    ("trace", lambda lib, a: lib.trace(a), (randn(3, 4),)),
    ("trace_method", lambda lib, a: (a * 2).trace(), (randn(4, 3),)),
    ("diagonal", lambda lib, a: a.diagonal(), (randn(3, 4),)),
    ("diagonal_offset", lambda lib, a: a.diagonal(1), (randn(3, 4),)),
    ("diagonal_neg_offset", lambda lib, a: lib.diagonal(a, -1), (randn(3, 4),)),
    ("diagonal_dims", lambda lib, a: a.diagonal(1, 0, 2), (randn(2, 3, 4),)),
    ("diagonal_dims_neg", lambda lib, a: a.diagonal(-1, 2, 0), (randn(2, 3, 4),)),
    ("diagonal_empty", lambda lib, a: a.diagonal(5), (randn(2, 3),)),
    ("median", lambda lib, a: a.median(), (_distinct(3, 4),)),
    ("median_even", lambda lib, a: lib.median(a), (_distinct(2, 3),)),
    ("median_ties", lambda lib, a: (a * 0).median() + a.sum(), (randn(2, 3),)),
    ("median_dim", lambda lib, a: tuple(a.median(1)), (_distinct(3, 4),)),
    ("median_dim_keepdim", lambda lib, a: tuple(a.median(0, keepdim=True)), (_distinct(3, 5),)),
    ("median_0d", lambda lib, a: tuple(a.median(0)), (np.array(1.5),)),
    ("var_mean", lambda lib, a: lib.var_mean(a), (randn(3, 4),)),
    ("var_mean_dim", lambda lib, a: lib.var_mean(a, 1, keepdim=True), (randn(3, 4),)),
    ("var_mean_correction", lambda lib, a: lib.var_mean(a, (0,), correction=0), (randn(3, 4),)),
    ("std_mean", lambda lib, a: lib.std_mean(a, 0), (randn(3, 4),)),
]


@pytest.mark.parametrize("name,fn,arrays", NEW_OPS, ids=[c[0] for c in NEW_OPS])
def test_new_ops_against_torch(name, fn, arrays):
    check_op(fn, *arrays)


# median is piecewise (its gradient picks one element): checked against torch above only.
SMOOTH_OPS = [case for case in NEW_OPS if not case[0].startswith("median")]


@pytest.mark.parametrize("name,fn,arrays", SMOOTH_OPS, ids=[c[0] for c in SMOOTH_OPS])
def test_new_ops_gradcheck(name, fn, arrays):
    inputs = tuple(T.tensor(a, dtype=T.float64, requires_grad=True) for a in arrays)

    def f(*xs):
        out = fn(T, *xs)
        return out if isinstance(out, tuple) else (out,)
    assert gradcheck(f, inputs)
    assert gradgradcheck(f, inputs)


def test_median_with_nan_and_indices():
    data = [[3.0, 1.0, 2.0, 5.0], [4.0, float("nan"), 1.0, 0.0]]
    results = []
    for lib in (T, torch):
        y = lib.tensor(data, requires_grad=True)
        full = y.median()
        values, indices = y.median(1)
        values[0].backward()
        results.append((np.isnan(float(full)), to_numpy(values).tolist()[0],
                        np.isnan(to_numpy(values)[1]), indices.tolist(),
                        to_numpy(y.grad).tolist(), type(full.grad_fn).__name__,
                        type(values.grad_fn).__name__))
    assert results[0] == results[1]


def test_diagonal_is_a_view_and_version_shared():
    for lib in (T, torch):
        x = lib.zeros(3, 3)
        d = x.diagonal()
        d.add_(1)
        assert x.sum().item() == 3 and d._base is x
        z = lib.zeros(3, 3, requires_grad=True).clone()
        dz = z.diagonal()
        assert type(dz.grad_fn).__name__ == "DiagonalBackward0"
        assert (dz.grad_fn._saved_offset, dz.grad_fn._saved_dim1, dz.grad_fn._saved_dim2,
                tuple(dz.grad_fn._saved_self_sym_sizes)) == (0, 0, 1, (3, 3))


@pytest.mark.parametrize("case", [
    lambda lib: lib.ones(3).diagonal(),
    lambda lib: lib.ones(3, 3).diagonal(0, 1, 1),
    lambda lib: lib.ones(3).trace(),
    lambda lib: lib.atan2(lib.ones(2, 3), lib.ones(4)),
    lambda lib: lib.ones(3).median(1),
    lambda lib: lib.ones(0, 3).median(0),
    lambda lib: lib.var_mean(lib.ones(3, dtype=lib.int64)),
    lambda lib: lib.ones(3).all(2),
])
def test_new_ops_errors(case):
    theirs, ours = _raised(torch, case), _raised(T, case)
    assert theirs is not None and type(ours) is type(theirs), (ours, theirs)


@pytest.mark.parametrize("op", ["all", "any"])
@pytest.mark.parametrize("dtype", ["float32", "int64", "bool", "uint8", "int8"])
@pytest.mark.parametrize("args", [(), (0,), (1,), (-1, True), ((0, 1),), ((1,), True)])
def test_all_any(op, dtype, args):
    data = [[1, 0, 2], [3, 4, 5]]
    results = []
    for lib in (T, torch):
        x = lib.tensor(data, dtype=getattr(lib, dtype))
        for out in (getattr(x, op)(*args), getattr(lib, op)(x, *args)):
            results.append((out.tolist(), str(out.dtype).split(".")[-1], tuple(out.shape)))
    assert results[:2] == results[2:]


def test_atan2_integer_inputs_give_float32():
    assert T.atan2(T.tensor([1]), T.tensor([2])).dtype == T.float32
    np.testing.assert_allclose(to_numpy(T.atan2(T.tensor([1]), T.tensor([2]))),
                               to_numpy(torch.atan2(torch.tensor([1]), torch.tensor([2]))))


@pytest.mark.parametrize("name", ["int8", "int16", "uint8"])
def test_small_integer_dtypes(name):
    for lib in (T, torch):
        d = getattr(lib, name)
        assert d.is_floating_point is False
    ours = T.tensor([1, 2, 100], dtype=getattr(T, name))
    theirs = torch.tensor([1, 2, 100], dtype=getattr(torch, name))
    assert ours.tolist() == theirs.tolist() and ours.dtype.itemsize == theirs.dtype.itemsize
    assert str(ours.dtype) == str(theirs.dtype).replace("torch", "autograd_cy")
    assert (ours + ours).tolist() == (theirs + theirs).tolist()
    assert str((ours + 1).dtype).split(".")[-1] == str((theirs + 1).dtype).split(".")[-1]
    assert str(ours.sum().dtype).split(".")[-1] == str(theirs.sum().dtype).split(".")[-1]
    assert str((ours + T.ones(3, dtype=T.int8)).dtype).split(".")[-1] == str(
        (theirs + torch.ones(3, dtype=torch.int8)).dtype).split(".")[-1]
    assert T.from_numpy(np.array([1], dtype=name)).dtype is getattr(T, name)
    assert repr(ours.cpu()).replace("autograd_cy", "torch") == repr(theirs)


LEGACY = ["FloatTensor", "DoubleTensor", "LongTensor", "BoolTensor", "IntTensor", "ByteTensor"]


@pytest.mark.parametrize("name", LEGACY)
def test_legacy_tensor_types(name):
    for args in ((), (2, 3), ([1, 0, 1],), ((1, 2),)):
        ours, theirs = getattr(T, name)(*args), getattr(torch, name)(*args)
        assert tuple(ours.shape) == tuple(theirs.shape)
        assert str(ours.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1]
        if args and not isinstance(args[0], int):
            assert ours.tolist() == theirs.tolist()
    for other in LEGACY:
        x = T.ones(2, dtype=getattr(T, name).dtype)
        y = torch.ones(2, dtype=getattr(torch, name).dtype)
        assert isinstance(x, getattr(T, other)) == isinstance(y, getattr(torch, other))
    assert isinstance(T.ones(2), T.Tensor)
    with pytest.raises(TypeError):
        getattr(T, name)("a")


@pytest.mark.parametrize("args", [(), (2, 3), ([1, 2],), ((2, 3),), ((),)])
@pytest.mark.parametrize("dtype", ["float64", "int64"])
def test_tensor_new(args, dtype):
    ours = T.ones(2, dtype=getattr(T, dtype)).new(*args)
    theirs = torch.ones(2, dtype=getattr(torch, dtype)).new(*args)
    assert tuple(ours.shape) == tuple(theirs.shape) and not ours.requires_grad
    assert str(ours.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1]


@pytest.mark.parametrize("method,args", [
    ("new_zeros", ((2, 3),)), ("new_ones", (2, 3)), ("new_empty", ((2,),)),
    ("new_full", ((2, 2), 7)), ("new_tensor", ([1, 2],)),
])
@pytest.mark.parametrize("kwargs", [{}, {"dtype": "float32"}, {"requires_grad": True}])
def test_new_factories(method, args, kwargs):
    results = []
    for lib in (T, torch):
        kw = dict(kwargs)
        if "dtype" in kw:
            kw["dtype"] = getattr(lib, kw["dtype"])
        x = lib.ones(3, dtype=lib.float64, requires_grad=True)
        out = getattr(x, method)(*args, **kw)
        values = out.tolist() if method != "new_empty" else None
        results.append((tuple(out.shape), str(out.dtype).split(".")[-1], out.requires_grad,
                        out.is_leaf, values))
    assert results[0] == results[1]


def test_is_inference():
    for lib in (T, torch):
        with lib.inference_mode():
            x = lib.ones(2)
        assert lib.is_inference(x) and x.is_inference()
        assert not lib.is_inference(lib.ones(2)) and not lib.ones(2).is_inference()


# ------------------------------------------------------------------ out=

import warnings     # noqa: E402

OUT_CASES = {
    "add": lambda lib, a, b, out: lib.add(a, b, out=out),
    "add_alpha": lambda lib, a, b, out: lib.add(a, b, alpha=2, out=out),
    "sub": lambda lib, a, b, out: lib.sub(a, b, out=out),
    "mul": lambda lib, a, b, out: lib.mul(a, b, out=out),
    "mul_number": lambda lib, a, b, out: lib.mul(a, 3, out=out),
    "div": lambda lib, a, b, out: lib.div(a, b, out=out),
    "div_floor": lambda lib, a, b, out: lib.div(a, b, rounding_mode="floor", out=out),
    "sum": lambda lib, a, b, out: lib.sum(a, 0, out=out),
    "mean": lambda lib, a, b, out: lib.mean(a, 0, out=out),
    "matmul": lambda lib, a, b, out: lib.matmul(a, b.t(), out=out),
    "mm": lambda lib, a, b, out: lib.mm(a, b.t(), out=out),
    "bmm": lambda lib, a, b, out: lib.bmm(a[None], b.t()[None], out=out),
}


def _out_outcome(lib, name, out_shape, out_dtype="float32", grads=(False, False, False),
                 no_grad=False):
    a = lib.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=grads[0])
    b = lib.tensor([[5.0, 6.0], [7.0, 8.0]], requires_grad=grads[1])
    out = lib.zeros(*out_shape, dtype=getattr(lib, out_dtype), requires_grad=grads[2])
    version = out._version
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            if no_grad:
                with lib.no_grad():
                    result = OUT_CASES[name](lib, a, b, out)
            else:
                result = OUT_CASES[name](lib, a, b, out)
    except RuntimeError as error:
        return ("error", str(error).split(":")[0] if "out=" in str(error) else str(error))
    return (result is out, result.tolist(), tuple(out.shape), out._version - version,
            out.requires_grad, result.grad_fn is None, len(caught))


@pytest.mark.parametrize("name", sorted(OUT_CASES))
def test_out_argument_writes_the_result_like_torch(name):
    shape = {"sum": (2,), "mean": (2,), "bmm": (1, 2, 2)}.get(name, (2, 2))
    for out_shape in (shape, (0,), (3, 3)):
        assert _out_outcome(T, name, out_shape) == _out_outcome(torch, name, out_shape)


@pytest.mark.parametrize("name", sorted(OUT_CASES))
@pytest.mark.parametrize("grads", [(True, False, False), (False, True, False),
                                   (False, False, True)])
def test_out_argument_refuses_autograd(name, grads):
    shape = {"sum": (2,), "mean": (2,), "bmm": (1, 2, 2)}.get(name, (2, 2))
    ours = _out_outcome(T, name, shape, grads=grads)
    theirs = _out_outcome(torch, name, shape, grads=grads)
    assert ours == theirs
    # Under no_grad nothing is recorded, so it is allowed (out must not itself require grad:
    # writing into a leaf that requires grad is refused, as any in-place write to one).
    if not grads[2]:
        assert (_out_outcome(T, name, shape, grads=grads, no_grad=True)
                == _out_outcome(torch, name, shape, grads=grads, no_grad=True))


def test_out_argument_dtype_cast_rules():
    assert (_out_outcome(T, "add", (2, 2), out_dtype="int64")
            == _out_outcome(torch, "add", (2, 2), out_dtype="int64"))
    assert (_out_outcome(T, "add", (2, 2), out_dtype="float64")
            == _out_outcome(torch, "add", (2, 2), out_dtype="float64"))
    with pytest.raises(TypeError):
        T.add(T.ones(2), T.ones(2), out=[1, 2])


# ------------------------------------------------------------------ strided and metadata ops

def _strided_story(lib):
    """as_strided, as_strided_, transpose_ and resize_ through forward, backward and errors."""
    log = []
    a = lib.arange(6., requires_grad=True)
    e = a * 1
    s = e.as_strided((2, 2), (1, 2), 1)
    log.append((s.tolist(), type(s.grad_fn).__name__, s._base is e, tuple(s.grad_fn._saved_size),
                tuple(s.grad_fn._saved_stride), s.grad_fn._saved_storage_offset))
    (s * lib.tensor([[1., 2.], [3., 4.]])).sum().backward()
    log.append(a.grad.tolist())
    a.grad = None
    s = (a * 1)[2:].as_strided((2,), (2,))          # a view: offsets count from its base
    log.append((s.tolist(), s.grad_fn._saved_storage_offset))
    s.sum().backward()
    log.append(a.grad.tolist())
    a.grad = None
    f = (a * 1).reshape(2, 3)
    f.as_strided_((3,), (2,))
    log.append((f.tolist(), type(f.grad_fn).__name__))
    f.sum().backward()
    log.append(a.grad.tolist())
    a.grad = None
    b = (a * 1).reshape(2, 3)
    version = b._version
    b.transpose_(0, 1)
    log.append((tuple(b.shape), type(b.grad_fn).__name__, b._version - version,
                b.is_contiguous(), b.tolist()))
    (b * lib.arange(6.).reshape(3, 2)).sum().backward()
    log.append(a.grad.tolist())
    a.grad = None
    c = a * 1
    d = c.view(2, 3)[0:1]
    d.transpose_(0, 1)
    log.append((type(d.grad_fn).__name__, type(d.grad_fn.next_functions[0][0]).__name__,
                type(c.grad_fn).__name__))
    d.sum().backward()
    log.append(a.grad.tolist())
    for bad in (lambda: a.transpose_(0, 0), lambda: a.resize_(3), lambda: (a * 1).resize_(3),
                lambda: a.as_strided((10,), (1,)), lambda: a.as_strided_((2,), (1,)),
                lambda: a.detach().as_strided((2,), (-1,)),
                lambda: a.detach().as_strided((2, 2), (1,))):
        error = _raised(lib, lambda _: bad())
        log.append(type(error).__name__)
    x = lib.ones(2, 3)
    x.resize_(4)
    log.append((x.tolist(), tuple(x.shape)))
    x = lib.arange(6.)
    x.resize_(2, 2)
    log.append(x.tolist())
    x.resize_(0)
    log.append(tuple(x.shape))
    with lib.no_grad():
        y = lib.arange(6.)
        y.as_strided_((2, 2), (1, 2), 1)
    log.append((y.tolist(), tuple(y.stride())))
    log.append(lib.arange(6.).reshape(2, 3).t().as_strided((3,), (1,)).tolist())
    return log


def test_strided_and_metadata_ops_against_torch():
    ours, theirs = _strided_story(T), _strided_story(torch)
    assert len(ours) == len(theirs)
    for index, (a, b) in enumerate(zip(ours, theirs)):
        assert a == b, (index, a, b)


@pytest.mark.parametrize("size,stride,offset", [
    ((2, 2), (1, 2), 1), ((3,), (2,), 0), ((2, 3), (1, 1), None),   # the last overlaps
    ((2, 2), (0, 1), 2),
])
def test_as_strided_gradcheck(size, stride, offset):
    x = T.tensor(randn(8), requires_grad=True)

    def f(t):
        return (t * 1).as_strided(size, stride, offset)
    assert gradcheck(f, (x,)) and gradgradcheck(f, (x,))
    check_op(lambda lib, t: (t * 1).as_strided(size, stride, offset), randn(8))


# ------------------------------------------------------------------ addmm / linear

@pytest.mark.parametrize("wants", [(True, False, False), (False, True, False),
                                   (False, False, True), (True, True, True),
                                   (False, True, True)])
def test_addmm_and_linear_save_what_torch_saves(wants):
    for make in (lambda lib, s, m1, m2: lib.addmm(s, m1, m2, beta=2, alpha=3),
                 lambda lib, s, m1, m2: _f(lib).linear(m1, m2.t(), s)):
        results = []
        for lib in (T, torch):
            shapes = ((4,), (3, 2), (2, 4))
            inputs = [lib.ones(*shape, dtype=lib.float64, requires_grad=w) * 1 if w
                      else lib.ones(*shape, dtype=lib.float64)
                      for shape, w in zip(shapes, wants)]
            out = make(lib, *inputs)
            node = out.grad_fn
            results.append((type(node).__name__, _saved(node, ("mat1", "mat2")),
                            node._saved_alpha, node._saved_beta))
        assert results[0] == results[1]


ADDMM_CASES = [
    ("addmm", lambda lib, s, a, b: lib.addmm(s, a, b), (randn(3, 4), randn(3, 2), randn(2, 4))),
    ("addmm_row_bias", lambda lib, s, a, b: lib.addmm(s, a, b, beta=0.5, alpha=-2),
     (randn(4), randn(3, 2), randn(2, 4))),
    ("addmm_scalar_bias", lambda lib, s, a, b: lib.addmm(s, a, b, alpha=2),
     (randn(1, 1), randn(3, 2), randn(2, 4))),
    ("addmm_beta0", lambda lib, s, a, b: lib.addmm(s, a, b, beta=0),
     (randn(3, 4), randn(3, 2), randn(2, 4))),
    ("linear", lambda lib, x, w, b: _f(lib).linear(x, w, b), (randn(3, 2), randn(4, 2),
                                                             randn(4))),
    ("linear_3d", lambda lib, x, w, b: _f(lib).linear(x, w, b), (randn(2, 3, 2), randn(4, 2),
                                                                randn(4))),
]


@pytest.mark.parametrize("name,fn,arrays", ADDMM_CASES, ids=[c[0] for c in ADDMM_CASES])
def test_addmm_against_torch(name, fn, arrays):
    check_op(fn, *arrays)
    inputs = tuple(T.tensor(a, requires_grad=True) for a in arrays)
    assert gradcheck(lambda *xs: fn(T, *xs), inputs)
    assert gradgradcheck(lambda *xs: fn(T, *xs), inputs)


@pytest.mark.parametrize("kwargs", [{"alpha": 2.5}, {"beta": 0.5}, {"alpha": 2, "beta": 3}])
def test_addmm_integer(kwargs):
    ours = T.addmm(T.ones(2, 2, dtype=T.int64), T.ones(2, 2, dtype=T.int64) * 2,
                   T.ones(2, 2, dtype=T.int64), **kwargs)
    theirs = torch.addmm(torch.ones(2, 2, dtype=torch.int64),
                         torch.ones(2, 2, dtype=torch.int64) * 2,
                         torch.ones(2, 2, dtype=torch.int64), **kwargs)
    assert ours.tolist() == theirs.tolist() and ours.dtype == T.int64


def test_addmm_beta_zero_ignores_nan_and_errors():
    nan = T.full((3, 4), float("nan"))
    assert not T.addmm(nan, T.ones(3, 2), T.ones(2, 4), beta=0).isnan().any()
    for case in (lambda lib: lib.addmm(lib.ones(5), lib.ones(3, 2), lib.ones(2, 4)),
                 lambda lib: lib.addmm(lib.ones(3, 4), lib.ones(3, 2), lib.ones(3, 4)),
                 lambda lib: lib.addmm(lib.ones(3, 4), lib.ones(3), lib.ones(3, 4))):
        theirs, ours = _raised(torch, case), _raised(T, case)
        assert theirs is not None and type(ours) is type(theirs), (ours, theirs)


# NOTE [The layout of a result of several operands]: the first operand that tells two dims
# apart lays the result out, as TensorIterator does
BINARY_LAYOUTS = {
    "transposed - rows": lambda lib, t, r: t - r,
    "rows - transposed": lambda lib, t, r: r - t,
    "transposed * rows": lambda lib, t, r: t * r,
    "transposed + row vector": lambda lib, t, r: t + r[0],
    "transposed / rows": lambda lib, t, r: t / r,
    "transposed * number": lambda lib, t, r: t * 2,
    "permuted 3-d + rows": lambda lib, t, r: t.reshape(3, 2, 2).permute(2, 0, 1) + r.reshape(
        2, 3, 2),
}


# (CPU only: the CUDA backend's elementwise kernels write a row-major result whatever the
# operands' layouts)
@pytest.mark.cpu_only
@pytest.mark.parametrize("dtype", ["float32", "float16"])
@pytest.mark.parametrize("name", BINARY_LAYOUTS)
def test_binary_result_layout_follows_pytorch(name, dtype):
    results = []
    for lib in (T, torch):
        t = lib.arange(12, dtype=getattr(lib, dtype)).reshape(4, 3).t()
        r = lib.ones(3, 4, dtype=getattr(lib, dtype))
        results.append(BINARY_LAYOUTS[name](lib, t, r))
    ours, theirs = results
    assert ours.is_contiguous() == theirs.is_contiguous()
    assert ([s for s, n in zip(ours.stride(), ours.shape) if n != 1]
            == [s for s, n in zip(theirs.stride(), theirs.shape) if n != 1])
    np.testing.assert_allclose(to_numpy(ours).astype(np.float64),
                               to_numpy(theirs).astype(np.float64))


@pytest.mark.cpu_only
def test_an_in_place_write_reaches_what_torch_reaches():
    # t.t() - u is transposed in torch: flatten copies, and the write to it stays there
    def run(lib):
        t = lib.tensor([[0.875, 2.75], [2.125, 0.5], [-1.25, 0.75], [2.75, 0.125]])
        u = lib.tensor([[-0.125, 1.0, -1.375, -1.625], [-2.0, 0.125, -1.625, 0.125]])
        v = t.t().sub(u)
        flat = v.flatten(0, 1)
        v[0, 0] = 0.5
        return flat.tolist(), v.tolist()
    assert run(T) == run(torch)
